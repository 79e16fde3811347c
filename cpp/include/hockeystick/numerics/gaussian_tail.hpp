// The Gaussian tail Q(x) = P(N(0,1) > x), its logarithm and its inverse.
//
//   |x| <= 0.66: Q(x) = (1 - erf(x/sqrt 2)) / 2  (Cody's erf rational; exact 1/2 at 0)
//   x >= 0:  Q(x) = phi(x) M(x)                 (no cancellation, subnormal below ~1e-308)
//   x <  0:  Q(x) = 1 - Q(-x)                   (Q(-x) <= 1/2, so no cancellation)
//   log Q(x) = -x^2/2 - log sqrt(2 pi) + log M(x) for x >= 0 (finite for all finite x),
//            = -x^2/2 - log x - log sqrt(2 pi) above 1e150 (log M(x) = -log x + O(x^-2), below 1e-300
//              there; x^2 formed as (x/sqrt 2)^2, since x^2 overflows past 1.34e154),
//            = log1p(-Q(-x)) for x < 0.
//   Q^{-1}(p): Abramowitz & Stegun 26.2.23 start (|error| < 4.5e-4), then Newton
//   steps on log Q (f'/f = -1/M), quadratic: four steps reach full precision.
#pragma once

#include <cmath>
#include <limits>

#include "hockeystick/numerics/error_free.hpp"
#include "hockeystick/numerics/mills_ratio.hpp"

namespace hockeystick {

// log phi(x) = -x^2/2 - log sqrt(2 pi) as an unevaluated sum (x^2 formed exactly),
// so a caller adding a small term rounds once: 5.8e-11 absolute near -1e6.
inline double_double log_gaussian_density_dd(double x) {
    const double_double sq = two_prod(x, x);
    double_double s = two_sum(-0.5 * sq.hi, -constants::log_sqrt_two_pi);
    s.lo -= 0.5 * sq.lo;
    return s;
}

inline double log_gaussian_density(double x) {
    const double_double s = log_gaussian_density_dd(x);
    return s.hi + s.lo;
}

inline double gaussian_tail(double x) {
    if (std::isnan(x)) return x;
    const double z = x * constants::sqrt_half;
    if (std::fabs(z) <= detail::cody_small) return 0.5 - 0.5 * detail::cody_erf_small(z);
    if (x >= 0.0) {
        if (x > 40.0) return 0.0;  // Q(40) = 3.7e-350
        return gaussian_density(x) * mills_ratio(x);
    }
    if (x < -40.0) return 1.0;
    return 1.0 - gaussian_density(-x) * mills_ratio(-x);
}

inline double log_gaussian_tail(double x) {
    if (std::isnan(x)) return x;
    if (x == std::numeric_limits<double>::infinity()) return -std::numeric_limits<double>::infinity();
    if (x > 1e150) {
        const double t = x * constants::sqrt_half;
        return -(t * t) - std::log(x) - constants::log_sqrt_two_pi;
    }
    if (x >= 0.0) {
        const double_double s = log_gaussian_density_dd(x);
        return s.hi + (s.lo + std::log(mills_ratio(x)));
    }
    return std::log1p(-gaussian_tail(-x));
}

// Q^{-1}(p) for p in [0, 1]; Q^{-1}(0) = +inf, Q^{-1}(1) = -inf.
inline double gaussian_tail_inverse(double p) {
    if (!(p >= 0.0 && p <= 1.0)) return std::numeric_limits<double>::quiet_NaN();
    if (p == 0.0) return std::numeric_limits<double>::infinity();
    if (p == 1.0) return -std::numeric_limits<double>::infinity();
    if (p > 0.5) return -gaussian_tail_inverse(1.0 - p);  // 1 - p is exact for p >= 1/2
    const double t = std::sqrt(-2.0 * std::log(p));
    double x = t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308)));
    const double log_p = std::log(p);
    for (int i = 0; i < 5; ++i) {
        const double step = (log_gaussian_tail(x) - log_p) * mills_ratio(x);
        x += step;
        if (std::fabs(step) <= 1e-17 * std::fabs(x)) break;
    }
    return x;
}

}  // namespace hockeystick
