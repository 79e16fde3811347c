// The hockey-stick divergence of two Gaussians and of two Laplace laws.
//
// theta(r, eps) = E_{e^eps}(N(r,1) || N(0,1)) = Q(eps/r - r/2) - e^eps Q(eps/r + r/2)
//   (paper 000 eq. 6; paper 002 Definition 1 with gamma = e^eps; paper 004 eq. 8
//   with mu = r).  With x1 = eps/r - r/2, x2 = x1 + r and e^eps phi(x2) = phi(x1):
//
//   theta = phi(x1) (M(x1) - M(x2))                         x1 >= 0
//         = Q(x1) - phi(x1) M(x2)                           x1 <  0
//         = phi(x1) * integral_{x1}^{x2} N(t) dt            when the difference above
//                                                           would lose more than ~3 bits
//                                                           (small r, or eps/r >> r);
//   N = 1 - t M(t) > 0 is integrated by 8-point Gauss-Legendre on [x1, x2]; the switch
//   guarantees r <= 0.11 x1 (or r < 0.13 near 0), where the rule is exact to < 1e-16.
//   x1 and x1^2/2 are carried in double-double, so log theta stays accurate (1e-10
//   absolute) down to log theta ~ -1e6, where a plain x1*x1 would err by 2e-10.
//
// d theta / d eps = -e^eps Q(x2) = -phi(x1) M(x2);   d theta / d r = phi(x1).
//
// Laplace (paper 002 Lemma 1): for Lap(m1, v) and Lap(m2, v), Delta = |m1 - m2| / v,
//   E_{e^eps} = [1 - exp((eps - Delta)/2)]_+  = -expm1((eps - Delta)/2) for eps < Delta.
//
// Domain: r >= 0, eps >= 0 (NaN returned outside, and for theta(inf, inf)).
#pragma once

#include <cmath>
#include <limits>

#include "error_free.hpp"
#include "gaussian_tail.hpp"
#include "mills_ratio.hpp"

namespace hockeystick {

namespace detail {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

// integral_{x}^{x+r} N(t) dt by 8-point Gauss-Legendre.
inline double mills_complement_integral(double x, double r) {
    constexpr double node[4] = {0.1834346424956498049394761, 0.5255324099163289858177390,
                                0.7966664774136267395915539, 0.9602898564975362316835609};
    constexpr double weight[4] = {0.3626837833783619829651504, 0.3137066458778872873379622,
                                  0.2223810344533744705443560, 0.1012285362903762591525314};
    const double h = 0.5 * r;
    const double mid = x + h;
    double sum = 0.0;
    for (int i = 0; i < 4; ++i)
        sum += weight[i] * (mills_complement(mid - h * node[i]) + mills_complement(mid + h * node[i]));
    return h * sum;
}

// The pieces of theta: either theta = direct, or theta = phi(x1) * factor with
// log phi(x1) = log_density (double-double accurate).
struct theta_parts {
    bool is_direct;
    double direct;
    double log_density;
    double factor;
    double x1;
    double x2;
};

// Requires 0 < r < inf and 0 <= eps < inf.
inline theta_parts theta_decompose(double r, double eps) {
    const double_double a = dd_divide(eps, r);
    double_double x1 = two_sum(a.hi, -0.5 * r);
    x1 = two_sum(x1.hi, x1.lo + a.lo);
    const double x2 = a.hi + 0.5 * r;
    theta_parts parts{false, 0.0, 0.0, 0.0, x1.hi, x2};
    const double_double sq = dd_square(x1);
    parts.log_density = (-0.5 * sq.hi - constants::log_sqrt_two_pi) - 0.5 * sq.lo;
    const double threshold = 0.9;  // at most ~3.3 bits lost in the direct difference
    if (x1.hi < 0.0) {
        const double q1 = gaussian_tail(x1.hi);
        const double tail2 = gaussian_density(x1.hi) * mills_ratio(x2);  // e^eps Q(x2)
        if (tail2 <= threshold * q1) {
            parts.is_direct = true;
            parts.direct = q1 - tail2;
            return parts;
        }
        parts.factor = mills_complement_integral(x1.hi, r);
        return parts;
    }
    const double m1 = mills_ratio(x1.hi);
    const double m2 = mills_ratio(x2);
    parts.factor = (m2 <= threshold * m1) ? m1 - m2 : mills_complement_integral(x1.hi, r);
    return parts;
}

}  // namespace detail

inline double theta(double r, double eps) {
    if (!(r >= 0.0) || !(eps >= 0.0)) return detail::nan;
    if (std::isinf(r) && std::isinf(eps)) return detail::nan;
    if (r == 0.0 || std::isinf(eps)) return 0.0;
    if (std::isinf(r)) return 1.0;
    if (std::isinf(eps / r)) return 0.0;
    const detail::theta_parts p = detail::theta_decompose(r, eps);
    if (p.is_direct) return p.direct;
    if (p.log_density > -700.0) return std::exp(p.log_density) * p.factor;
    return std::exp(p.log_density + std::log(p.factor));
}

inline double log_theta(double r, double eps) {
    if (!(r >= 0.0) || !(eps >= 0.0)) return detail::nan;
    if (std::isinf(r) && std::isinf(eps)) return detail::nan;
    if (r == 0.0 || std::isinf(eps)) return -detail::inf;
    if (std::isinf(r)) return 0.0;
    if (std::isinf(eps / r)) return -detail::inf;
    const detail::theta_parts p = detail::theta_decompose(r, eps);
    if (p.is_direct) return std::log(p.direct);
    return p.log_density + std::log(p.factor);
}

// d theta / d eps = -e^eps Q(eps/r + r/2) = -phi(x1) M(x2) (<= 0).
inline double theta_depsilon(double r, double eps) {
    if (!(r >= 0.0) || !(eps >= 0.0)) return detail::nan;
    if (std::isinf(r) && std::isinf(eps)) return detail::nan;
    if (r == 0.0 || std::isinf(eps) || std::isinf(r)) return 0.0;
    if (std::isinf(eps / r)) return 0.0;
    const double_double a = dd_divide(eps, r);
    double_double x1 = two_sum(a.hi, -0.5 * r);
    x1 = two_sum(x1.hi, x1.lo + a.lo);
    const double_double sq = dd_square(x1);
    const double log_density = (-0.5 * sq.hi - constants::log_sqrt_two_pi) - 0.5 * sq.lo;
    return -std::exp(log_density + std::log(mills_ratio(a.hi + 0.5 * r)));
}

// d theta / d r = phi(eps/r - r/2) (>= 0).
inline double theta_dradius(double r, double eps) {
    if (!(r >= 0.0) || !(eps >= 0.0)) return detail::nan;
    if (std::isinf(r) || std::isinf(eps)) return 0.0;
    if (r == 0.0) return eps == 0.0 ? constants::inv_sqrt_two_pi : 0.0;
    const double_double a = dd_divide(eps, r);
    double_double x1 = two_sum(a.hi, -0.5 * r);
    x1 = two_sum(x1.hi, x1.lo + a.lo);
    const double_double sq = dd_square(x1);
    return std::exp((-0.5 * sq.hi - constants::log_sqrt_two_pi) - 0.5 * sq.lo);
}

// E_{e^eps}(Lap(m1, scale) || Lap(m2, scale)) with distance = |m1 - m2| (paper 002 Lemma 1).
inline double laplace_hockey_stick(double distance, double scale, double eps) {
    if (!(distance >= 0.0) || !(scale > 0.0) || !(eps >= 0.0)) return detail::nan;
    if (std::isinf(distance) && std::isinf(scale)) return detail::nan;
    if (std::isinf(eps)) return std::isinf(distance) ? detail::nan : 0.0;
    const double delta = distance / scale;
    if (eps >= delta) return 0.0;
    return -std::expm1(0.5 * (eps - delta));
}

}  // namespace hockeystick
