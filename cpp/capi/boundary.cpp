// The statuses, the thread-local last error and the version of the C interface (boundary.hpp).
#include "boundary.hpp"

#include <cstdio>
#include <new>
#include <stdexcept>

namespace hockeystick_c {

namespace {

thread_local std::string last_error;

}  // namespace

std::string shown(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.15g", value);
    double back = 0.0;
    if (std::sscanf(text, "%lf", &back) != 1 || back != value) std::snprintf(text, sizeof text, "%.17g", value);
    return text;
}

hs_status fail(hs_status status, const std::string& message) {
    try {
        last_error = message;
    } catch (...) {  // no memory for the message: the status still says what happened
        last_error.clear();
    }
    return status;
}

hs_status current_exception_status() {
    try {
        throw;
    } catch (const invalid_argument_error& e) {
        return fail(HS_INVALID_ARGUMENT, e.message);
    } catch (const std::bad_alloc&) {
        return fail(HS_OUT_OF_MEMORY, "out of memory");
    } catch (const std::length_error& e) {  // the core's refusal of a grid or window beyond its limits
        return fail(HS_INVALID_ARGUMENT, e.what());
    } catch (const std::invalid_argument& e) {
        return fail(HS_INVALID_ARGUMENT, e.what());
    } catch (const std::domain_error& e) {
        return fail(HS_INVALID_ARGUMENT, e.what());
    } catch (const std::out_of_range& e) {
        return fail(HS_INVALID_ARGUMENT, e.what());
    } catch (const std::exception& e) {
        return fail(HS_INTERNAL, std::string("internal error: ") + e.what());
    } catch (...) { return fail(HS_INTERNAL, "internal error: an exception of unknown type"); }
}

void require(bool holds, const char* name, const char* rule, double value) {
    if (!holds) throw invalid_argument_error{std::string(name) + " " + rule + ", got " + shown(value)};
}

}  // namespace hockeystick_c

extern "C" {

const char* hs_version(void) { return HOCKEYSTICK_C_VERSION; }

const char* hs_last_error(void) { return hockeystick_c::last_error.c_str(); }

}  // extern "C"
