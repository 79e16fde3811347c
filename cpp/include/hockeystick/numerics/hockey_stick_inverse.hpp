// Inverses of theta(r, eps): the epsilon and the radius at which theta = delta.
//
// theta_epsilon(r, delta): the eps >= 0 with theta(r, eps) = delta (0 when
//   theta(r, 0) = erf(r / (2 sqrt 2)) <= delta already).  theta is decreasing in
//   eps and theta <= Q(eps/r - r/2), so eps_hi = r (Q^{-1}(delta) + r/2) brackets
//   the root from above; Newton on log theta (d log theta / d eps = -phi(x1) M(x2) / theta)
//   safeguarded by bisection.
// theta_radius(eps, delta): the r > 0 with theta(r, eps) = delta.  theta is
//   increasing in r with d theta / d r = phi(x1); r_lo = sqrt(z^2 + 2 eps) - z,
//   z = Q^{-1}(delta), solves Q(eps/r - r/2) = delta and brackets from below.
//   Newton on log theta in log r, safeguarded by bisection.
// Noise calibration: sigma = sensitivity / theta_radius(eps, delta).
//
// Safe side: both solve theta = delta (1 - 2^-40), so the returned eps (or r) makes
// theta <= delta even allowing theta's own error (< 1e-13 relative, 50x below the
// margin); the answer moves by about 1e-12 relative, far inside any use.  Where theta
// is so steep that one ulp of the answer exceeds the margin, a final check steps the
// answer toward the safe side until theta <= delta (1 - 2^-44) holds (step_to_safe_side);
// the 2^-44 (5.7e-14) also covers theta_batch, whose results differ from theta's by
// less than 3.2e-14 relative, so theta <= delta holds whichever of the two evaluates it.
#pragma once

#include <cmath>
#include <limits>

#include "hockeystick/numerics/gaussian_tail.hpp"
#include "hockeystick/numerics/hockey_stick.hpp"

namespace hockeystick {

namespace detail {

// log(1 - 2^-40): the relative margin that puts the inverses on the safe side.
constexpr double log_safety_margin = -9.094947017733e-13;

// Root of a decreasing function f on [lo, hi] with f(lo) > 0 > f(hi), by Newton
// steps kept inside the bracket (bisection when a step leaves it).  fdf(x, &df)
// returns f(x) and stores f'(x).
template <class F>
double bracketed_newton(F fdf, double lo, double hi, double x, double rel_tol, double abs_tol) {
    for (int it = 0; it < 200; ++it) {
        double df = 0.0;
        const double f = fdf(x, &df);
        if (f == 0.0) return x;
        if (f > 0.0)
            lo = x;
        else
            hi = x;
        double next = (df < 0.0 && std::isfinite(f / df)) ? x - f / df : 0.5 * (lo + hi);
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        const double tol = rel_tol * std::fabs(next) + abs_tol;
        if (std::fabs(next - x) <= tol || hi - lo <= tol) return next;
        x = next;
    }
    return x;
}

// The Newton iterate can still sit one ulp on the wrong side where theta is steep
// (d log theta / d log r ~ 2 log(1/delta) ~ 1400 near delta = 1e-300): step x by growing
// multiples of its ulp in direction `dir` until theta(x) <= delta (1 - 2^-44) holds as computed.
template <class Theta>
double step_to_safe_side(double x, double dir, double delta, Theta theta_at) {
    const double bound = delta * (1.0 - 0x1p-44);
    double step = std::fmax(std::fabs(x) * 2.220446049250313e-16, std::numeric_limits<double>::denorm_min());
    for (int i = 0; i < 200 && theta_at(x) > bound; ++i) {
        const double next = x + dir * step;
        x = (next > 0.0) ? next : 0.5 * x;
        step *= 2.0;
    }
    return x;
}

}  // namespace detail

inline double theta_epsilon(double r, double delta) {
    if (!(r >= 0.0) || !(delta > 0.0 && delta < 1.0)) return detail::nan;
    if (r == 0.0) return 0.0;
    if (std::isinf(r)) return detail::inf;
    if (theta(r, 0.0) <= delta) return 0.0;
    const double hi = r * (gaussian_tail_inverse(delta) + 0.5 * r);
    if (!std::isfinite(hi)) return detail::inf;
    const double log_delta = std::log(delta) + detail::log_safety_margin;
    auto fdf = [&](double eps, double* df) {
        const double lt = log_theta(r, eps);
        *df = theta_depsilon(r, eps) / std::exp(lt);
        if (!std::isfinite(*df)) *df = 0.0;
        return lt - log_delta;
    };
    const double eps = detail::bracketed_newton(fdf, 0.0, hi, hi, 4e-16, 0.0);
    return detail::step_to_safe_side(eps, +1.0, delta, [&](double e) { return theta(r, e); });
}

inline double theta_radius(double eps, double delta) {
    if (!(eps >= 0.0) || !(delta > 0.0 && delta < 1.0)) return detail::nan;
    if (std::isinf(eps)) return detail::inf;
    const double z = gaussian_tail_inverse(delta);
    const double root = std::sqrt(z * z + 2.0 * eps);
    double r_lo = (z > 0.0) ? 2.0 * eps / (z + root) : root - z;
    if (r_lo <= 0.0) r_lo = std::numeric_limits<double>::min();
    double r_hi = 2.0 * r_lo + 1.0;
    while (theta(r_hi, eps) < delta) r_hi *= 2.0;
    const double log_delta = std::log(delta) + detail::log_safety_margin;
    // Work in u = log r so the step is scale-free; f decreasing in u means -g.
    auto fdf = [&](double u, double* df) {
        const double r = std::exp(u);
        const double lt = log_theta(r, eps);
        *df = -r * theta_dradius(r, eps) / std::exp(lt);
        if (!std::isfinite(*df)) *df = 0.0;
        return log_delta - lt;
    };
    const double u = detail::bracketed_newton(fdf, std::log(r_lo), std::log(r_hi), std::log(r_lo), 0.0, 1e-16);
    return detail::step_to_safe_side(std::exp(u), -1.0, delta, [&](double r) { return theta(r, eps); });
}

}  // namespace hockeystick
