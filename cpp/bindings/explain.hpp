// The rules an explain function checks, each returning its message ("r must be >= 0") when the
// value breaks it and an empty string when it does not.  An explain function (loops.hpp's NaN
// policy) returns the first broken rule among a kernel's arguments, or "" when all hold.
#pragma once

#include <cmath>
#include <initializer_list>
#include <string>

namespace hockeystick_bindings {

inline std::string not_nan(const char* name, double v) {
    return std::isnan(v) ? std::string(name) + " must not be NaN" : std::string();
}

inline std::string nonnegative(const char* name, double v) {
    if (std::isnan(v)) return not_nan(name, v);
    return v < 0 ? std::string(name) + " must be >= 0" : std::string();
}

inline std::string positive(const char* name, double v) {
    if (std::isnan(v)) return not_nan(name, v);
    return v > 0 ? std::string() : std::string(name) + " must be > 0";
}

inline std::string at_least_one(const char* name, double v) {
    if (std::isnan(v)) return not_nan(name, v);
    return v >= 1 ? std::string() : std::string(name) + " must be >= 1";
}

inline std::string probability_open(const char* name, double v) {
    if (std::isnan(v)) return not_nan(name, v);
    return v > 0.0 && v < 1.0 ? std::string() : std::string(name) + " must lie strictly between 0 and 1";
}

// The first non-empty message, or "" when every rule holds.
inline std::string first_broken(std::initializer_list<std::string> reasons) {
    for (const std::string& why : reasons)
        if (!why.empty()) return why;
    return {};
}

}  // namespace hockeystick_bindings
