// epsilon(delta) for a nonincreasing bound delta(eps): the smallest eps >= 0 with
// delta(eps) <= delta.
//
// Works on f(eps) = log delta(eps) - log delta (finite far below 1e-308).  Bracket:
// [0, hi] with hi from the caller (every contraction bound is <= theta_eps(r_first),
// and theta_eps(r) <= Q(eps/r - r/2) gives hi = r (Q^{-1}(delta) + r/2)); doubled
// while f(hi) > 0.  From hi: Newton steps with the bound's analytic slope (typically
// 3-4 evaluations, the last step taken without evaluating once it is < 1e-9 eps, where
// Newton's error is ~1e-18 eps); regula falsi (Illinois) on the bracket when a step
// leaves it or no slope is available; f(0) only when the iterates head below the
// bracket (delta(0) <= delta gives eps = 0).  safe_epsilon() then moves the answer up
// by ulps until the reported delta(eps) itself is <= delta: the safe side, within
// ~1e-15 relative of the root.
#pragma once

#include <cmath>
#include <limits>

#include "contraction_sums.hpp"

namespace hockeystick {

// Upper end of the bracket when delta(eps) <= theta_eps(r_first): theta_eps(r) <= Q(eps/r - r/2)
// and Q(z) <= exp(-z^2/2)/2 give hi = r (z + r/2) with z = sqrt(2 log(1/(2 delta))) (delta < 1/2).
inline double gaussian_epsilon_ceiling(double r_first, double delta) {
    if (!(delta < 0.5)) return 1.0;
    const double z = std::sqrt(-2.0 * std::log(2.0 * delta));
    const double hi = r_first * (z + 0.5 * r_first);
    return (hi > 0.0 && std::isfinite(hi)) ? hi : 1.0;
}

// A point where the bound was evaluated: eps, log delta(eps) and its slope (NaN: not known).
struct evaluated_point {
    double eps = std::numeric_limits<double>::quiet_NaN();
    double log_value = std::numeric_limits<double>::quiet_NaN();
    double slope = std::numeric_limits<double>::quiet_NaN();
};

// evaluate(eps) -> log_and_slope of delta(eps).  log_delta = log of the target.
// warm (optional, in/out): in, a start inside (0, hi_guess), e.g. from the solve for a
// neighbouring delta of the same bound; when its log_value is known the start costs no
// evaluation.  Out, the last point evaluated (for the next neighbour).
template <class Evaluate>
double solve_epsilon(Evaluate evaluate_bound, double log_delta, double hi_guess, evaluated_point* warm = nullptr) {
    const evaluated_point start = warm ? *warm : evaluated_point{};
    auto evaluate = [&](double eps) {
        const log_and_slope v = evaluate_bound(eps);
        if (warm && eps > 0.0 && std::isfinite(v.log_value)) *warm = {eps, v.log_value, v.slope};
        return v;
    };
    constexpr double rel_tol = 1e-15;
    constexpr double quadratic = 1e-9;  // after a Newton step this small the error is ~ step^2 / eps
    const double root_target = std::sqrt(-log_delta);
    double lo = 0.0, f_lo = detail::nan;  // f(0) is evaluated only if the root may be at 0
    double hi = hi_guess > 0.0 && std::isfinite(hi_guess) ? hi_guess : 1.0;
    double f_hi = detail::nan;            // NaN: not evaluated yet
    log_and_slope at{};
    // f(hi) <= 0, doubling hi while it is not (the ceiling is exact for bounds <= theta(r1)).
    auto settle_hi = [&]() -> bool {
        at = evaluate(hi);
        f_hi = at.log_value - log_delta;
        for (int k = 0; f_hi > 0.0; ++k) {
            if (k > 1100) return false;
            lo = hi;
            f_lo = f_hi;
            hi = 2.0 * hi + 1.0;
            at = evaluate(hi);
            f_hi = at.log_value - log_delta;
        }
        return !std::isnan(f_hi);
    };
    double x, f_x, slope;
    if (start.eps > 0.0 && start.eps < hi) {
        at = std::isnan(start.log_value) ? evaluate(start.eps) : log_and_slope{start.log_value, start.slope};
        f_x = at.log_value - log_delta;
        if (std::isnan(f_x)) return detail::nan;
        if (f_x <= 0.0) {
            hi = start.eps;
            f_hi = f_x;
        } else {
            lo = start.eps;
            f_lo = f_x;
        }
        x = start.eps;
    } else {
        if (!settle_hi()) return std::isnan(f_hi) ? detail::nan : detail::inf;
        x = hi;
        f_x = f_hi;
    }
    slope = at.slope;
    int last_moved = 0;  // +1: hi moved last, -1: lo moved last (Illinois bookkeeping)
    for (int it = 0; it < 300; ++it) {
        if (hi - lo <= rel_tol * hi && !std::isnan(f_hi)) break;
        double next = detail::nan;
        bool newton = false;
        if (std::isfinite(f_x) && slope < 0.0 && std::isfinite(slope)) {
            // Newton on u = sqrt(-log delta(eps)) - sqrt(-log delta), nearly linear in eps
            // (-log theta ~ x1^2 / 2 with x1 = eps/r - r/2), rather than on f itself.
            const double log_x = f_x + log_delta;
            const double step =
                log_x < 0.0 ? (root_target - std::sqrt(-log_x)) * 2.0 * std::sqrt(-log_x) / slope : f_x / slope;
            next = x - step;
            newton = next > lo && next < hi;
            if (std::fabs(step) <= quadratic * x) {  // converged; safe_epsilon checks the side
                if (newton) return next;
                // the step rounds onto x: x itself if delta(x) <= delta, else the next doubles above it
                if (f_x <= 0.0) return x;
                if (!std::isnan(f_hi)) return std::fmin(hi, x + std::fmax(std::fabs(step), 4.5e-16 * x));
            }
        }
        if (!newton) {
            if (std::isnan(f_hi)) {  // the warm start was below the root: make the ceiling a bracket
                const double keep_lo = lo, keep_f_lo = f_lo;
                if (!settle_hi()) return std::isnan(f_hi) ? detail::nan : detail::inf;
                if (lo < keep_lo) {
                    lo = keep_lo;
                    f_lo = keep_f_lo;
                }
                continue;
            }
            if (std::isnan(f_lo)) {  // the step points below the bracket: is delta(0) already small enough?
                f_lo = evaluate(0.0).log_value - log_delta;
                if (std::isnan(f_lo)) return detail::nan;
                if (f_lo <= 0.0) return 0.0;
            }
            next = (std::isfinite(f_lo) && std::isfinite(f_hi)) ? (lo * f_hi - hi * f_lo) / (f_hi - f_lo) : detail::nan;
            if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        }
        at = evaluate(next);
        const double f_next = at.log_value - log_delta;
        if (std::isnan(f_next)) return detail::nan;
        if (f_next == 0.0) return next;
        if (f_next < 0.0) {
            hi = next;
            f_hi = f_next;
            if (last_moved == 1 && std::isfinite(f_lo)) f_lo *= 0.5;
            last_moved = 1;
        } else {
            lo = next;
            f_lo = f_next;
            if (last_moved == -1 && std::isfinite(f_hi)) f_hi *= 0.5;
            last_moved = -1;
        }
        x = next;
        f_x = f_next;
        slope = at.slope;
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
