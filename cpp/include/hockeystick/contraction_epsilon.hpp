// epsilon(delta) for a nonincreasing bound delta(eps): the smallest eps >= 0 with
// delta(eps) <= delta.
//
// Works on f(eps) = log delta(eps) - log delta (finite far below 1e-308).  Bracket:
// [0, hi] with hi from the caller (every contraction bound is <= theta_eps(r_first),
// and theta_eps(r) <= Q(eps/r - r/2) gives hi = r (Q^{-1}(delta) + r/2)); doubled
// while f(hi) > 0.  Inside the bracket: Newton steps with the bound's analytic slope,
// secant (Illinois) steps when no slope is available, bisection when a step leaves
// the bracket.  The answer is always a point with f <= 0 (the safe side), within
// ~1e-15 relative of the root.
#pragma once

#include <cmath>
#include <limits>

#include "contraction_sums.hpp"
#include "gaussian_tail.hpp"

namespace hockeystick {

// Upper end of the bracket when delta(eps) <= theta_eps(r_first): r (Q^{-1}(delta) + r/2).
inline double gaussian_epsilon_ceiling(double r_first, double delta) {
    const double hi = r_first * (gaussian_tail_inverse(delta) + 0.5 * r_first);
    return (hi > 0.0 && std::isfinite(hi)) ? hi : 1.0;
}

// evaluate(eps) -> log_and_slope of delta(eps).  log_delta = log of the target.
template <class Evaluate>
double solve_epsilon(Evaluate evaluate, double log_delta, double hi_guess) {
    constexpr double rel_tol = 1e-15;
    const log_and_slope at_zero = evaluate(0.0);
    if (std::isnan(at_zero.log_value)) return detail::nan;
    if (at_zero.log_value <= log_delta) return 0.0;
    double lo = 0.0, f_lo = at_zero.log_value - log_delta;  // f_lo > 0
    double hi = hi_guess > 0.0 && std::isfinite(hi_guess) ? hi_guess : 1.0;
    log_and_slope at = evaluate(hi);
    double f_hi = at.log_value - log_delta;
    for (int k = 0; f_hi > 0.0; ++k) {
        if (k > 1100) return detail::inf;
        lo = hi;
        f_lo = f_hi;
        hi = 2.0 * hi + 1.0;
        at = evaluate(hi);
        f_hi = at.log_value - log_delta;
    }
    if (std::isnan(f_hi)) return detail::nan;
    double x = hi, f_x = f_hi, slope = at.slope;
    int last_moved = 0;  // +1: hi moved last, -1: lo moved last (Illinois bookkeeping)
    for (int it = 0; it < 200; ++it) {
        if (hi - lo <= rel_tol * hi) break;
        double next;
        if (std::isfinite(f_x) && slope < 0.0 && std::isfinite(slope)) {
            next = x - f_x / slope;
        } else {
            next = (lo * f_hi - hi * f_lo) / (f_hi - f_lo);
        }
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        const double step = std::fabs(next - x);
        at = evaluate(next);
        const double f_next = at.log_value - log_delta;
        if (std::isnan(f_next)) return detail::nan;
        if (f_next <= 0.0) {
            hi = next;
            f_hi = f_next;
            if (last_moved == 1) f_lo *= 0.5;
            last_moved = 1;
        } else {
            lo = next;
            f_lo = f_next;
            if (last_moved == -1) f_hi *= 0.5;
            last_moved = -1;
        }
        x = next;
        f_x = f_next;
        slope = at.slope;
        if (f_next == 0.0) return next;
        if (step <= rel_tol * next) {
            // Newton has converged; close the bracket from above with a nudge.
            if (f_next <= 0.0) return next;
            double nudge = 4.0 * rel_tol * next;
            for (int k = 0; k < 60; ++k, nudge *= 2.0) {
                const double up = next + nudge;
                if (up >= hi) break;
                if (evaluate(up).log_value <= log_delta) return up;
            }
            return hi;
        }
    }
    return hi;
}

// The solver compares log delta with log target; the reported delta is evaluated by a
// different (more accurate) route, so the two can disagree in the last bits.  Nudge eps
// up until the reported delta itself is <= the target: the answer stays on the safe side.
template <class Delta>
double safe_epsilon(double eps, Delta delta_of, double delta) {
    if (!(eps > 0.0) || !std::isfinite(eps)) return eps;
    double step = 4e-16 * eps;
    for (int k = 0; k < 64 && delta_of(eps) > delta; ++k, step *= 2.0) eps += step;
    return eps;
}

}  // namespace hockeystick
