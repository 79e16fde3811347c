// The C interface's Gaussian tail, theta and their inverses: each argument checked by the Python package's rule,
// then the core's function, the one the Python package calls (so the values agree bit for bit).
#include <hockeystick/hockeystick.hpp>

#include <cmath>
#include <limits>

#include "boundary.hpp"

namespace {

using hockeystick_c::guarded;
using hockeystick_c::require;
using hockeystick_c::require_output;

constexpr double kInf = std::numeric_limits<double>::infinity();
// theta_radius forms 2 epsilon, which must stay a finite double (numerics.hockey_stick.MAX_RADIUS_EPSILON).
constexpr double kMaxRadiusEpsilon = 1e307;

void not_nan(const char* name, double v) { require(!std::isnan(v), name, "must not be NaN", v); }

void nonnegative(const char* name, double v) {
    not_nan(name, v);
    require(v >= 0.0, name, "must be >= 0", v);
}

void probability_open(const char* name, double v) {
    not_nan(name, v);
    require(v > 0.0 && v < 1.0, name, "must lie strictly between 0 and 1", v);
}

void radius_and_epsilon(double r, double epsilon) {
    nonnegative("r", r);
    nonnegative("epsilon", epsilon);
    require(!(std::isinf(r) && std::isinf(epsilon)), "r and epsilon",
            "cannot both be infinite (theta(inf, inf) has no limit)", r);
}

double checked_radius(double epsilon, double delta) {
    nonnegative("epsilon", epsilon);
    require(epsilon <= kMaxRadiusEpsilon, "epsilon",
            "must be <= 1e+307 for theta_radius (the solve forms 2 epsilon, which must stay a finite double)", epsilon);
    probability_open("delta", delta);
    return hockeystick::theta_radius(epsilon, delta);
}

}  // namespace

extern "C" {

hs_status hs_gaussian_tail(double x, double* out) {
    return guarded([&] {
        require_output(out, "out");
        not_nan("x", x);
        *out = hockeystick::gaussian_tail(x);
        return HS_OK;
    });
}

hs_status hs_log_gaussian_tail(double x, double* out) {
    return guarded([&] {
        require_output(out, "out");
        not_nan("x", x);
        *out = hockeystick::log_gaussian_tail(x);
        return HS_OK;
    });
}

hs_status hs_theta(double r, double epsilon, double* out) {
    return guarded([&] {
        require_output(out, "out");
        radius_and_epsilon(r, epsilon);
        hockeystick::theta_batch(&r, &epsilon, out, 1);  // the Python package's theta is the batch kernel's
        return HS_OK;
    });
}

hs_status hs_log_theta(double r, double epsilon, double* out) {
    return guarded([&] {
        require_output(out, "out");
        radius_and_epsilon(r, epsilon);
        *out = hockeystick::log_theta(r, epsilon);
        return HS_OK;
    });
}

hs_status hs_theta_epsilon(double r, double delta, double* out) {
    return guarded([&] {
        require_output(out, "out");
        nonnegative("r", r);
        probability_open("delta", delta);
        *out = hockeystick::theta_epsilon(r, delta);
        return HS_OK;
    });
}

hs_status hs_theta_radius(double epsilon, double delta, double* out) {
    return guarded([&] {
        require_output(out, "out");
        *out = checked_radius(epsilon, delta);
        return HS_OK;
    });
}

hs_status hs_gaussian_sigma(double epsilon, double delta, double sensitivity, double* out) {
    return guarded([&] {
        require_output(out, "out");
        require(sensitivity > 0.0 && sensitivity < kInf, "sensitivity", "must be finite and > 0", sensitivity);
        const double r = checked_radius(epsilon, delta);
        // sensitivity / r rounded up: r is on the safe side (theta(r, epsilon) <= delta), so is any larger sigma
        const double sigma = std::nextafter(sensitivity / r, kInf);
        require(sigma < kInf, "sensitivity", "over the (epsilon, delta) radius overflows the doubles", sensitivity);
        *out = sigma;
        return HS_OK;
    });
}

}  // extern "C"
