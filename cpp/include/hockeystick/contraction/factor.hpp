// One factor of a contraction bound, with everything the sums and the epsilon
// solver need from a single evaluation: value, log value, complement and slope.
//
// Gaussian factor  theta_eps(r) = Q(x1) - e^eps Q(x2),  x1 = eps/r - r/2, x2 = x1 + r
//   (paper 000 eq. 6, paper 002 eq. 10).  theta, log theta: the core's
//   decomposition (numerics/hockey_stick.hpp).  The complement 1 - theta is needed to full
//   relative precision when theta -> 1 (large r: the contraction coefficient of a
//   nearly useless projection), where 1 - theta(double) would keep no digits:
//     1 - theta = Phi(x1) + e^eps Q(x2) = phi(x1) (M(-x1) + M(x2))     (x1 < 0),
//   using e^eps phi(x2) = phi(x1); both terms positive, log phi(x1) in double-double.
//   For x1 >= 0, theta <= Q(x1) <= 1/2 and 1 - theta is exact to an ulp.
//   Where 1 - theta is subnormal or underflows (log phi(x1) <= -700: r far above eps, theta = 1
//   in double) its logarithm log phi(x1) + log(M(-x1) + M(x2)) is kept, log phi(x1) in double-double:
//   the geometric sum with T = inf is 1 / (1 - theta) (002 eq. 16), finite far above the double range.
//   log theta near 1 is log1p(-(1 - theta)).
//   Slope: d log theta / d eps = -phi(x1) M(x2) / theta.
//
// Laplace factor (paper 002 Lemma 1), distance/scale = Delta:
//   [1 - e^{(eps - Delta)/2}]_+,  complement min(1, e^{(eps - Delta)/2}),
//   d log / d eps = -(1/2) e^{(eps - Delta)/2} / (1 - e^{(eps - Delta)/2}).
#pragma once

#include <cmath>
#include <limits>

#include "hockeystick/numerics/error_free.hpp"
#include "hockeystick/numerics/hockey_stick.hpp"
#include "hockeystick/numerics/mills_ratio.hpp"

namespace hockeystick {

struct contraction_factor {
    double value;       // the factor in [0, 1] (subnormal or 0 when it underflows)
    double log_value;   // its logarithm, finite far below the double range
    double complement;  // 1 - value, to full relative precision
    double log_slope;   // d log(value) / d eps (<= 0; -inf where value vanishes)
    // log(1 - value) where complement is below the normal range (subnormal, or 0 where it underflows) and
    // gaussian_factor was asked for it (with_log_complement; the Laplace factor always): -inf where value is
    // exactly 1; elsewhere NaN or log(complement), which is as accurate
    double log_complement;
};

namespace detail {

// Below this log phi(x1) the complement phi(x1) (M(-x1) + M(x2)) of a factor with x1 < 0 is below
// e^-747 * 2 M(0) = e^-746.08, under half the least subnormal (e^-744.44): it rounds to 0, and so does
// the exp of its logarithm, so neither Mills ratio needs evaluating.
constexpr double complement_underflow = -747.0;

// Whether the geometric sum with T = inf, 1 / (1 - value), reads log_complement: where complement has lost
// digits below the normal range (or underflowed) and its logarithm is a number.
inline bool log_complement_serves(const contraction_factor& f) {
    return f.complement < std::numeric_limits<double>::min() && std::isfinite(f.log_complement);
}

inline contraction_factor constant_factor(double value) {
    return {value, value > 0.0 ? std::log(value) : -inf, 1.0 - value, value > 0.0 ? 0.0 : -inf,
            value == 1.0 ? -inf : nan};
}

// gaussian_factor where no evaluation is needed, and whether (r, eps) is such a point: NaN fields outside the
// domain (r < 0, eps < 0, NaN, or both infinite), theta = 0 where r = 0 or eps / r is infinite, 1 where r is.
inline bool gaussian_edge_factor(double r, double eps, contraction_factor& f) {
    if (!(r >= 0.0) || !(eps >= 0.0) || (std::isinf(r) && std::isinf(eps))) {
        f = {nan, nan, nan, nan, nan};
        return true;
    }
    if (r == 0.0 || std::isinf(eps) || std::isinf(eps / r)) {
        f = constant_factor(0.0);
        return true;
    }
    if (std::isinf(r)) {
        f = constant_factor(1.0);
        return true;
    }
    return false;
}

}  // namespace detail

// theta_eps(r) with its complement, (when with_slope) its slope and (when with_log_complement) the logarithm
// of a complement below the normal range, which only the geometric sum with T = inf reads; r >= 0, eps >= 0
// (NaN fields otherwise).  Without the slope, log_slope is left NaN.
inline contraction_factor gaussian_factor(double r, double eps, bool with_slope = true,
                                          bool with_log_complement = false) {
    contraction_factor edge;
    if (detail::gaussian_edge_factor(r, eps, edge)) return edge;
    const detail::thresholds x = detail::standardized_thresholds(r, eps);  // the core's x1, x2, x1^2
    if (x.overflow) return detail::constant_factor(0.0);
    contraction_factor f{0.0, 0.0, 0.0, detail::nan, detail::nan};
    double log_density = 0.0, m2 = 0.0;
    if (x.x1.hi < 0.0) {
        // 1 - theta = phi(x1) (M(-x1) + M(x2)): two positive terms.
        const detail::theta_parts shape{false, 0.0, x.square, 0.0};
        log_density = shape.log_density().hi;
        if (log_density < detail::complement_underflow) {
            // exp(log_density + log tails) with tails <= 2 M(0) = 2.507: below e^-746.08, so 0 in double;
            // the slope -e^{log_density} M(x2) is then -0 for any M(x2) > 0, so m2 stays 0.  Its logarithm
            // to a few ulp: log phi(x1) in double-double, the tails' logarithm added to its low part.
            f.complement = 0.0;
            if (with_log_complement) {
                const double_double ld = shape.log_density();
                f.log_complement = ld.hi + (ld.lo + std::log(mills_ratio(-x.x1.hi) + mills_ratio(x.x2)));
            }
        } else {
            m2 = mills_ratio(x.x2);
            const double tails = mills_ratio(-x.x1.hi) + m2;
            if (log_density > -700.0) {
                f.complement = shape.density() * tails;
            } else {  // subnormal or 0 in double: its logarithm as above
                f.complement = std::exp(log_density + std::log(tails));
                if (with_log_complement) {
                    const double_double ld = shape.log_density();
                    f.log_complement = ld.hi + (ld.lo + std::log(tails));
                }
            }
        }
        if (f.complement < 0.5) {
            f.log_value = std::log1p(-f.complement);
            f.value = 1.0 - f.complement;  // exact to an ulp since value > 1/2
        } else {  // theta <= 1/2 may be small: the core's accurate forms, on the thresholds formed above
            f.value = detail::theta_of_parts(detail::theta_parts_at(r, x));
            f.log_value = f.value >= 1e-250 ? std::log(f.value) : log_theta(r, eps);
        }
    } else {  // theta <= Q(x1) <= 1/2, so 1 - theta is exact to an ulp
        const detail::theta_parts p = detail::theta_parts_at(r, x);
        const double_double ld = p.log_density();
        log_density = ld.hi;
        if (p.is_direct) {
            f.value = p.direct;
            f.log_value = std::log(p.direct);
        } else {
            f.log_value = ld.hi + (ld.lo + std::log(p.factor));
            f.value = ld.hi > -700.0 ? p.density() * p.factor : std::exp(f.log_value);
        }
        f.complement = 1.0 - f.value;
        if (with_slope) m2 = mills_ratio(x.x2);
    }
    // d log theta / d eps = -phi(x1) M(x2) / theta
    if (with_slope) f.log_slope = -std::exp(log_density - f.log_value) * m2;
    return f;
}

// [1 - e^{(eps - Delta)/2}]_+ (002 Lemma 1) with Delta = distance / scale >= 0.
inline contraction_factor laplace_factor(double distance_over_scale, double eps) {
    if (!(distance_over_scale >= 0.0) || !(eps >= 0.0) || (std::isinf(distance_over_scale) && std::isinf(eps)))
        return {detail::nan, detail::nan, detail::nan, detail::nan, detail::nan};
    if (std::isinf(distance_over_scale)) return detail::constant_factor(1.0);
    const double half_gap = 0.5 * (eps - distance_over_scale);
    if (half_gap >= 0.0) return detail::constant_factor(0.0);
    contraction_factor f{};
    f.complement = std::exp(half_gap);
    f.value = -std::expm1(half_gap);
    f.log_value = f.complement < 0.5 ? std::log1p(-f.complement) : std::log(f.value);
    f.log_slope = -0.5 * f.complement / f.value;
    f.log_complement = half_gap;  // log e^{half_gap}, exact
    return f;
}

}  // namespace hockeystick
