// The hockey-stick divergence of two Gaussians and of two Laplace laws.
//
// theta(r, eps) = E_{e^eps}(N(r,1) || N(0,1)) = Q(eps/r - r/2) - e^eps Q(eps/r + r/2)
//   (paper 000 eq. 6; paper 002 Definition 1 with gamma = e^eps; paper 004 eq. 8
//   with mu = r).  With x1 = eps/r - r/2, x2 = x1 + r and e^eps phi(x2) = phi(x1):
//
//   theta = phi(x1) (M(x1) - M(x2))                         x1 >= 0
//         = Q(x1) - phi(x1) M(x2)                           x1 <  0
//         = phi(x1) * integral_{x1}^{x2} N(t) dt            when r <= 0.1 max(x1, 1), where
//                                                           the differences above cancel
//                                                           (small r, or eps/r >> r);
//   N = 1 - t M(t) > 0 is integrated by Gauss-Legendre on [x1, x2] with 2 to 8 nodes (8 are
//   exact to 1e-20 there; fewer suffice as r / x1 shrinks, see mills_complement_integral).
//   Outside that region the direct differences lose at most ~4 bits.
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

#include "hockeystick/numerics/error_free.hpp"
#include "hockeystick/numerics/gaussian_tail.hpp"
#include "hockeystick/numerics/mills_ratio.hpp"

namespace hockeystick {

namespace detail {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

// Gauss-Legendre rule with 2n nodes on [-1, 1] (n = half the count).
template <int n>
struct gauss_legendre;
template <>
struct gauss_legendre<1> {
    static constexpr double node[1] = {0.5773502691896257645091488};
    static constexpr double weight[1] = {1.0};
};
template <>
struct gauss_legendre<2> {
    static constexpr double node[2] = {0.3399810435848562648026658, 0.8611363115940525752239465};
    static constexpr double weight[2] = {0.6521451548625461426269361, 0.3478548451374538573730639};
};
template <>
struct gauss_legendre<3> {
    static constexpr double node[3] = {0.2386191860831969086305017, 0.6612093864662645136613996,
                                       0.9324695142031520278123016};
    static constexpr double weight[3] = {0.4679139345726910473898703, 0.3607615730481386075698335,
                                         0.1713244923791703450402961};
};
template <>
struct gauss_legendre<4> {
    static constexpr double node[4] = {0.1834346424956498049394761, 0.5255324099163289858177390,
                                       0.7966664774136267395915539, 0.9602898564975362316835609};
    static constexpr double weight[4] = {0.3626837833783619829651504, 0.3137066458778872873379622,
                                         0.2223810344533744705443560, 0.1012285362903762591525314};
};

template <int n>
double mills_complement_rule(double mid, double h) {
    double sum = 0.0;
    for (int i = 0; i < n; ++i)
        sum += gauss_legendre<n>::weight[i] * (mills_complement(mid - h * gauss_legendre<n>::node[i]) +
                                               mills_complement(mid + h * gauss_legendre<n>::node[i]));
    return h * sum;
}

// integral_{x}^{x+r} N(t) dt by Gauss-Legendre with 2, 4, 6 or 8 nodes, chosen
// from rho = (r/2) / max(|midpoint|, 1): N varies on the scale max(|t|, 1), so the
// 2n-node rule errs by about rho^(4n) relative; each threshold keeps that < 1e-17.
inline double mills_complement_integral(double x, double r) {
    const double h = 0.5 * r;
    const double mid = x + h;
    const double rho = h / std::fmax(std::fabs(mid), 1.0);
    if (rho < 2e-5) return mills_complement_rule<1>(mid, h);
    if (rho < 1e-3) return mills_complement_rule<2>(mid, h);
    if (rho < 6e-3) return mills_complement_rule<3>(mid, h);
    return mills_complement_rule<4>(mid, h);
}

// The pieces of theta: either theta = direct, or theta = phi(x1) * factor, with
// x1^2 = square.hi + square.lo exactly enough for log phi(x1) to 1e-16 relative.
struct theta_parts {
    bool is_direct;
    double direct;
    double_double square;
    double factor;

    // log phi(x1) = -x1^2/2 - log sqrt(2 pi) as an unevaluated sum, so that log theta
    // near -1e6 is rounded once (half an ulp = 5.8e-11) rather than three times.
    double_double log_density() const {
        if (std::isinf(square.hi)) return {-inf, 0.0};  // |x1| > 1.3e154
        double_double s = two_sum(-0.5 * square.hi, -constants::log_sqrt_two_pi);
        s.lo -= 0.5 * square.lo;
        return s;
    }
    // phi(x1) to a few ulp: -hi/2 is exact, so exp sees no rounded argument.
    double density() const { return constants::inv_sqrt_two_pi * std::exp(-0.5 * square.hi) * (1.0 - 0.5 * square.lo); }
};

// exp(-745.2) is below half the smallest subnormal: phi(x1) * factor (factor < 1) rounds to 0.
constexpr double log_underflow = -745.2;

// The standardized thresholds x1 = eps/r - r/2, x2 = eps/r + r/2 and x1^2.  Where
// x1^2/2 exceeds 32 the rounding of x1 and of x1^2 would cost up to x1^2 ulp in
// phi(x1), so x1 and x1^2 are then carried in double-double; below that plain
// doubles err by < 1e-14 and the error-free steps are skipped.
// Requires 0 < r < inf and 0 <= eps < inf; `overflow` is set when eps/r is infinite.
struct thresholds {
    double_double x1;
    double x2;
    double_double square;
    bool overflow;
};

inline thresholds standardized_thresholds(double r, double eps) {
    const double a = eps / r;
    if (std::isinf(a)) return {{inf, 0.0}, inf, {inf, 0.0}, true};
    const double x1 = a - 0.5 * r;
    if (std::fabs(x1) < 8.0 && r < 16.0) return {{x1, 0.0}, a + 0.5 * r, {x1 * x1, 0.0}, false};
    // Beyond 1e150 the error-free split would overflow; x1^2/2 > 5e299 there, so theta is
    // 0 or 1 to double precision and log theta = -x1^2/2 (-inf past 1.3e154) needs no extra digits.
    if (std::fabs(x1) > 1e150) return {{x1, 0.0}, a + 0.5 * r, {x1 * x1, 0.0}, false};
    const double_double q = dd_divide(eps, r);
    double_double x1dd = two_sum(q.hi, -0.5 * r);
    x1dd = two_sum(x1dd.hi, x1dd.lo + q.lo);
    return {x1dd, q.hi + 0.5 * r, dd_square(x1dd), false};
}

// theta_decompose from t = standardized_thresholds(r, eps).
inline theta_parts theta_parts_at(double r, const thresholds& t) {
    if (t.overflow) return {true, 0.0, {0.0, 0.0}, 0.0};  // eps/r overflows: theta = 0
    const double_double x1 = t.x1;
    const double x2 = t.x2;
    theta_parts p{false, 0.0, t.square, 0.0};
    if (r <= 0.1 * std::fmax(x1.hi, 1.0)) {
        // Here M(x2) / M(x1) >= 0.9 (or Q(x1) - e^eps Q(x2) <= 0.1 Q(x1)): integrate N instead.
        p.factor = mills_complement_integral(x1.hi, r);
        return p;
    }
    // Otherwise the difference below loses at most ~4 bits (worst near x1 = 1, r = 0.1).
    constexpr double small_x = cody_small * 1.41421356237309504880;
    if (x1.hi < small_x) {
        // Q(x1) >= Q(0.66) = 0.25: Cody's erf near 0, the reflection below.
        const double density = p.density();
        const double q1 = (x1.hi > -small_x) ? 0.5 - 0.5 * cody_erf_small(x1.hi * constants::sqrt_half)
                                             : 1.0 - density * mills_ratio(-x1.hi);
        p.is_direct = true;
        p.direct = q1 - density * mills_ratio(x2);  // Q(x1) - e^eps Q(x2)
        return p;
    }
    p.factor = mills_ratio(x1.hi) - mills_ratio(x2);
    return p;
}

// Requires 0 < r < inf and 0 <= eps < inf.
inline theta_parts theta_decompose(double r, double eps) { return theta_parts_at(r, standardized_thresholds(r, eps)); }

// theta from its pieces (theta_decompose).
inline double theta_of_parts(const theta_parts& p) {
    if (p.is_direct) return p.direct;
    const double log_density = p.log_density().hi;
    if (log_density > -700.0) return p.density() * p.factor;
    if (log_density < log_underflow) return 0.0;
    return std::exp(log_density + std::log(p.factor));
}

}  // namespace detail

inline double theta(double r, double eps) {
    if (!(r >= 0.0) || !(eps >= 0.0)) return detail::nan;
    if (std::isinf(r) && std::isinf(eps)) return detail::nan;
    if (r == 0.0 || std::isinf(eps)) return 0.0;
    if (std::isinf(r)) return 1.0;
    return detail::theta_of_parts(detail::theta_decompose(r, eps));
}

inline double log_theta(double r, double eps) {
    if (!(r >= 0.0) || !(eps >= 0.0)) return detail::nan;
    if (std::isinf(r) && std::isinf(eps)) return detail::nan;
    if (r == 0.0 || std::isinf(eps)) return -detail::inf;
    if (std::isinf(r)) return 0.0;
    // Below r = 2^-900 (subnormal radii included) r and eps are scaled up by 2^600: at fixed
    // x1 = eps/r - r/2, theta scales with r up to a relative O(2^-300), while r itself would lose its digits
    // in r/2 and r^2. eps 2^600 overflowing to inf means eps/r > 2^1000: log theta = -inf there.
    if (r < 0x1p-900) return log_theta(r * 0x1p600, eps * 0x1p600) - 600.0 * std::log(2.0);
    const detail::theta_parts p = detail::theta_decompose(r, eps);
    if (p.is_direct) return std::log(p.direct);  // log 0 = -inf when eps/r overflows
    const double_double log_density = p.log_density();
    return log_density.hi + (log_density.lo + std::log(p.factor));
}

// d theta / d eps = -e^eps Q(eps/r + r/2) = -phi(x1) M(x2) (<= 0).
inline double theta_depsilon(double r, double eps) {
    if (!(r >= 0.0) || !(eps >= 0.0)) return detail::nan;
    if (std::isinf(r) && std::isinf(eps)) return detail::nan;
    if (r == 0.0 || std::isinf(eps) || std::isinf(r)) return 0.0;
    const detail::thresholds t = detail::standardized_thresholds(r, eps);
    if (t.overflow) return 0.0;
    const detail::theta_parts p{false, 0.0, t.square, 0.0};
    return -std::exp(p.log_density().hi + std::log(mills_ratio(t.x2)));
}

// d theta / d r = phi(eps/r - r/2) (>= 0).
inline double theta_dradius(double r, double eps) {
    if (!(r >= 0.0) || !(eps >= 0.0)) return detail::nan;
    if (std::isinf(r) || std::isinf(eps)) return 0.0;
    if (r == 0.0) return eps == 0.0 ? constants::inv_sqrt_two_pi : 0.0;
    const detail::thresholds t = detail::standardized_thresholds(r, eps);
    if (t.overflow) return 0.0;
    return detail::theta_parts{false, 0.0, t.square, 0.0}.density();
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
