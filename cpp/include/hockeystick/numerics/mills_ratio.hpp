// The Mills ratio M(x) = Q(x) / phi(x) of the standard normal and its
// complement N(x) = 1 - x M(x) = -M'(x).
//
// M is the scaled complementary error function: M(x) = sqrt(pi/2) erfcx(x/sqrt 2).
// erfcx is evaluated with W. J. Cody's near-minimax rational approximations
// ("Rational Chebyshev approximations for the error function", Math. Comp. 23
// (1969) 631-638; coefficients of his CALERF, accurate to >= 18 digits):
//
//   regime (z = x / sqrt 2)    approximation
//   0 <= z <= 0.46875          erfcx(z) = exp(z^2) (1 - z A(z^2))      A rational 4/4
//   0.46875 < z <= 4           erfcx(z) = C(z)                          C rational 8/8
//   z > 4                      erfcx(z) = (1/sqrt(pi) - w R(w)) / z     R rational 5/5, w = 1/z^2
//                              (multiplied through by z^10: one division)
//   x < 0                      M(x) = sqrt(2 pi) exp(x^2/2) - M(-x)     (reflection)
//
// The z > 4 form gives N(x) = sqrt(pi) w R(w) with no cancellation, which is
// what keeps theta accurate when r is small or epsilon/r is huge: 1 - x M(x)
// computed naively loses about 2 log10(x) digits.
#pragma once

#include <cmath>
#include <limits>

#include "hockeystick/numerics/error_free.hpp"

namespace hockeystick {

namespace constants {
constexpr double sqrt_pi = 1.77245385090551602729816748334114518;
constexpr double inv_sqrt_pi = 0.564189583547756286948079451560772586;
constexpr double sqrt_half = 0.707106781186547524400844362104849039;
constexpr double sqrt_half_pi = 1.25331413731550025120788264240552263;  // sqrt(pi/2)
constexpr double sqrt_two_pi = 2.50662827463100050241576528481104525;
constexpr double inv_sqrt_two_pi = 0.398942280401432677939946059934381868;
constexpr double log_sqrt_two_pi = 0.918938533204672741780329736405617640;
}  // namespace constants

namespace detail {

// Cody's regime boundaries in z = x / sqrt 2.
constexpr double cody_small = 0.46875;
constexpr double cody_large = 4.0;

// 1 - erfc for |z| <= 0.46875: erf(z) = z * A(z^2).
inline double cody_erf_small(double z) {
    constexpr double a0 = 3.16112374387056560e00, a1 = 1.13864154151050156e02, a2 = 3.77485237685302021e02,
                     a3 = 3.20937758913846947e03, a4 = 1.85777706184603153e-1;
    constexpr double b0 = 2.36012909523441209e01, b1 = 2.44024637934444173e02, b2 = 1.28261652607737228e03,
                     b3 = 2.84423683343917062e03;
    const double y = z * z;
    const double num = (((a4 * y + a0) * y + a1) * y + a2) * y + a3;
    const double den = (((y + b0) * y + b1) * y + b2) * y + b3;
    return z * num / den;
}

// erfcx(z) for 0.46875 < z <= 4.
inline double cody_erfcx_mid(double z) {
    constexpr double c[9] = {5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01,
                             2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03,
                             2.05107837782607147e03, 1.23033935479799725e03, 2.15311535474403846e-8};
    constexpr double d[8] = {1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
                             1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03,
                             3.43936767414372164e03, 1.23033935480374942e03};
    double num = c[8] * z;
    double den = z;
    for (int i = 0; i < 7; ++i) {
        num = (num + c[i]) * z;
        den = (den + d[i]) * z;
    }
    return (num + c[7]) / (den + d[7]);
}

// Cody's z > 4 rational, R(w) with w = 1/z^2, multiplied through by z^10 so that
// one division serves: w R(w) = num(y) / (y den(y)), y = z^2.  Valid for z <= 6.71e7
// (y^6 stays far below overflow); beyond it erfcx(z) = 1/(sqrt(pi) z) to double precision.
struct cody_tail {
    double num;  // p4 y^5 + p3 y^4 + p2 y^3 + p1 y^2 + p0 y + p5
    double den;  // y (q4 y^5 + q3 y^4 + q2 y^3 + q1 y^2 + q0 y + 1)
};

inline cody_tail cody_tail_rational(double y) {
    constexpr double p[6] = {3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
                             1.60837851487422766e-2, 6.58749161529837803e-4, 1.63153871373020978e-2};
    constexpr double q[5] = {2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1,
                             6.05183413124413191e-2, 2.33520497626869185e-3};
    const double num = ((((p[4] * y + p[3]) * y + p[2]) * y + p[1]) * y + p[0]) * y + p[5];
    const double den = (((((q[4] * y + q[3]) * y + q[2]) * y + q[1]) * y + q[0]) * y + 1.0) * y;
    return {num, den};
}

constexpr double cody_huge = 6.71e7;

// erfcx(z) = exp(z^2) erfc(z) for z >= 0.
inline double erfcx_nonnegative(double z) {
    if (z <= cody_small) return std::exp(z * z) * (1.0 - cody_erf_small(z));
    if (z <= cody_large) return cody_erfcx_mid(z);
    if (z > cody_huge) return constants::inv_sqrt_pi / z;  // 1 - 1/(2z^2) == 1 in double
    const cody_tail t = cody_tail_rational(z * z);
    return (constants::inv_sqrt_pi * t.den - t.num) / (z * t.den);
}

}  // namespace detail

// exp(-x^2/2) with x^2 formed exactly: relative error a few ulp for all x
// (a plain exp(-0.5*x*x) errs by up to x^2/2 ulp, 1e-13 near x = 37).
inline double exp_minus_half_square(double x) {
    const double_double s = two_prod(x, x);
    return std::exp(-0.5 * s.hi) * (1.0 - 0.5 * s.lo);
}

// Standard normal density phi(x) = exp(-x^2/2) / sqrt(2 pi).
inline double gaussian_density(double x) { return constants::inv_sqrt_two_pi * exp_minus_half_square(x); }

// Mills ratio M(x) = Q(x) / phi(x), for all real x (+inf below x ~ -37.5).
inline double mills_ratio(double x) {
    if (std::isnan(x)) return x;
    if (x >= 0.0) return constants::sqrt_half_pi * detail::erfcx_nonnegative(x * constants::sqrt_half);
    if (x < -38.5) return std::numeric_limits<double>::infinity();
    return constants::sqrt_two_pi / exp_minus_half_square(x) - mills_ratio(-x);
}

// N(x) = 1 - x M(x) = -M'(x) > 0, without cancellation for large x
// (N(x) ~ 1/x^2 there; it is the integrand of theta's small-radius form).
inline double mills_complement(double x) {
    if (std::isnan(x)) return x;
    const double z = x * constants::sqrt_half;
    if (z > detail::cody_large) {
        if (z > detail::cody_huge) return 1.0 / (x * x);
        const detail::cody_tail t = detail::cody_tail_rational(z * z);
        return constants::sqrt_pi * t.num / t.den;
    }
    return 1.0 - x * mills_ratio(x);  // |x| <= 5.66: at most 5 bits lost
}

}  // namespace hockeystick
