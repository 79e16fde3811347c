// The boundary every call of the C interface crosses: a C++ exception becomes an hs_status and the calling
// thread's last error message; nothing is thrown past it.
#pragma once

#include <hockeystick/hockeystick.h>

#include <string>

namespace hockeystick_c {

// Thrown inside a call for an argument that breaks its rule; the message names the argument and the rule.
struct invalid_argument_error {
    std::string message;
};

// Records `message` as the calling thread's last error and returns `status`.
hs_status fail(hs_status status, const std::string& message);

// The status and message of the exception being handled (called inside a catch block only).
hs_status current_exception_status();

// Runs body() (returning hs_status), mapping every exception to a status: invalid_argument_error,
// std::invalid_argument, std::domain_error, std::out_of_range and std::length_error (the core's refusal of a
// grid or a composition window beyond its limits) to HS_INVALID_ARGUMENT, std::bad_alloc to HS_OUT_OF_MEMORY,
// anything else to HS_INTERNAL.
template <class Body>
hs_status guarded(Body body) noexcept {
    try {
        return body();
    } catch (...) { return current_exception_status(); }
}

// Refuses a null output pointer, naming it.
template <class T>
void require_output(T* pointer, const char* name) {
    if (pointer == nullptr) throw invalid_argument_error{std::string(name) + " must not be NULL"};
}

// A double as the messages show it: %.15g, or %.17g where that is needed to read back the same value.
std::string shown(double value);

// Refuses `value` with "<name> <rule>" unless `holds`; the message shows the value as given.
void require(bool holds, const char* name, const char* rule, double value);

}  // namespace hockeystick_c
