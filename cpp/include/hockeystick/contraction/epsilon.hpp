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

#include "hockeystick/contraction/sums.hpp"

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

namespace detail {

// The state of one solve_epsilon: the bracket [lo, hi] with f at both ends (NaN: not evaluated yet), the
// iterate x with f(x) and the slope of log delta there, and the Illinois bookkeeping.  Invariant: f(lo) > 0
// where it is known, f(hi) <= 0 once settled (settle_hi), and x is the last point evaluated.  Each step is a
// member so that the loop reads as the algorithm: Newton where its step stays inside the bracket, else regula
// falsi (or bisection); done_ ends the solve with result_.
template <class Evaluate>
class EpsilonSolve {
  public:
    EpsilonSolve(Evaluate& evaluate_bound, double log_delta, double hi_guess, evaluated_point* warm)
        : evaluate_bound_(evaluate_bound),
          warm_(warm),
          log_delta_(log_delta),
          root_target_(std::sqrt(-log_delta)),
          hi_(hi_guess > 0.0 && std::isfinite(hi_guess) ? hi_guess : 1.0) {}

    double run(const evaluated_point& start) {
        if (!begin(start)) return result_;
        for (int it = 0; it < 300; ++it) {
            if (hi_ - lo_ <= kRelTol * hi_ && !std::isnan(f_hi_)) break;
            double next = nan;
            const bool newton = newton_step(next);
            if (done_) return result_;
            if (!newton && !fallback_step(next)) {
                if (done_) return result_;
                continue;
            }
            if (!take(next)) return result_;
        }
        return hi_;
    }

  private:
    static constexpr double kRelTol = 1e-15;
    static constexpr double kQuadratic = 1e-9;  // after a Newton step this small the error is ~ step^2 / eps

    log_and_slope evaluate(double eps) {
        const log_and_slope v = evaluate_bound_(eps);
        if (warm_ && eps > 0.0 && std::isfinite(v.log_value)) *warm_ = {eps, v.log_value, v.slope};
        return v;
    }

    // Ends the solve with `value`; false, so that a step can return it.
    bool finish(double value) {
        done_ = true;
        result_ = value;
        return false;
    }

    // f(hi) <= 0, doubling hi while it is not (the ceiling is exact for bounds <= theta(r1)).
    bool settle_hi() {
        at_ = evaluate(hi_);
        f_hi_ = at_.log_value - log_delta_;
        for (int k = 0; f_hi_ > 0.0; ++k) {
            if (k > 1100) return false;
            lo_ = hi_;
            f_lo_ = f_hi_;
            hi_ = 2.0 * hi_ + 1.0;
            at_ = evaluate(hi_);
            f_hi_ = at_.log_value - log_delta_;
        }
        return !std::isnan(f_hi_);
    }

    // The first iterate: the warm start where it lies inside (0, hi), else hi once settled.
    bool begin(const evaluated_point& start) {
        if (start.eps > 0.0 && start.eps < hi_) {
            at_ = std::isnan(start.log_value) ? evaluate(start.eps) : log_and_slope{start.log_value, start.slope};
            f_x_ = at_.log_value - log_delta_;
            if (std::isnan(f_x_)) return finish(nan);
            if (f_x_ <= 0.0) {
                hi_ = start.eps;
                f_hi_ = f_x_;
            } else {
                lo_ = start.eps;
                f_lo_ = f_x_;
            }
            x_ = start.eps;
        } else {
            if (!settle_hi()) return finish(std::isnan(f_hi_) ? nan : inf);
            x_ = hi_;
            f_x_ = f_hi_;
        }
        slope_ = at_.slope;
        return true;
    }

    // Newton on u = sqrt(-log delta(eps)) - sqrt(-log delta), nearly linear in eps (-log theta ~ x1^2 / 2 with
    // x1 = eps/r - r/2), rather than on f itself: whether its step lands inside the bracket (next), or the solve
    // ends (done_) where the step is below kQuadratic x.
    bool newton_step(double& next) {
        if (!(std::isfinite(f_x_) && slope_ < 0.0 && std::isfinite(slope_))) return false;
        const double log_x = f_x_ + log_delta_;
        const double step =
            log_x < 0.0 ? (root_target_ - std::sqrt(-log_x)) * 2.0 * std::sqrt(-log_x) / slope_ : f_x_ / slope_;
        next = x_ - step;
        const bool newton = next > lo_ && next < hi_;
        if (std::fabs(step) <= kQuadratic * x_) {  // converged; safe_epsilon checks the side
            if (newton) return finish(next);
            // the step rounds onto x: x itself if delta(x) <= delta, else the next doubles above it
            if (f_x_ <= 0.0) return finish(x_);
            if (!std::isnan(f_hi_)) return finish(std::fmin(hi_, x_ + std::fmax(std::fabs(step), 4.5e-16 * x_)));
        }
        return newton;
    }

    // Regula falsi (or bisection) on the bracket: false where the bracket was settled anew (the loop goes on)
    // or the solve ends (done_).
    bool fallback_step(double& next) {
        if (std::isnan(f_hi_)) {  // the warm start was below the root: make the ceiling a bracket
            const double keep_lo = lo_, keep_f_lo = f_lo_;
            if (!settle_hi()) return finish(std::isnan(f_hi_) ? nan : inf);
            if (lo_ < keep_lo) {
                lo_ = keep_lo;
                f_lo_ = keep_f_lo;
            }
            return false;
        }
        if (std::isnan(f_lo_)) {  // the step points below the bracket: is delta(0) already small enough?
            f_lo_ = evaluate(0.0).log_value - log_delta_;
            if (std::isnan(f_lo_)) return finish(nan);
            if (f_lo_ <= 0.0) return finish(0.0);
        }
        next = (std::isfinite(f_lo_) && std::isfinite(f_hi_)) ? (lo_ * f_hi_ - hi_ * f_lo_) / (f_hi_ - f_lo_) : nan;
        if (!(next > lo_ && next < hi_)) next = 0.5 * (lo_ + hi_);
        return true;
    }

    // Evaluates next and moves the end of the bracket it replaces (Illinois: the other end's f halved when the
    // same end moves twice); false where the solve ends.
    bool take(double next) {
        at_ = evaluate(next);
        const double f_next = at_.log_value - log_delta_;
        if (std::isnan(f_next)) return finish(nan);
        if (f_next == 0.0) return finish(next);
        if (f_next < 0.0) {
            hi_ = next;
            f_hi_ = f_next;
            if (last_moved_ == 1 && std::isfinite(f_lo_)) f_lo_ *= 0.5;
            last_moved_ = 1;
        } else {
            lo_ = next;
            f_lo_ = f_next;
            if (last_moved_ == -1 && std::isfinite(f_hi_)) f_hi_ *= 0.5;
            last_moved_ = -1;
        }
        x_ = next;
        f_x_ = f_next;
        slope_ = at_.slope;
        return true;
    }

    Evaluate& evaluate_bound_;
    evaluated_point* warm_;
    const double log_delta_, root_target_;
    double lo_ = 0.0, f_lo_ = nan;  // f(0) is evaluated only if the root may be at 0
    double hi_, f_hi_ = nan;
    double x_ = nan, f_x_ = nan, slope_ = nan;
    log_and_slope at_{};
    int last_moved_ = 0;  // +1: hi moved last, -1: lo moved last (Illinois bookkeeping)
    bool done_ = false;
    double result_ = nan;
};

}  // namespace detail

// evaluate(eps) -> log_and_slope of delta(eps).  log_delta = log of the target.
// warm (optional, in/out): in, a start inside (0, hi_guess), e.g. from the solve for a
// neighbouring delta of the same bound; when its log_value is known the start costs no
// evaluation.  Out, the last point evaluated (for the next neighbour).
template <class Evaluate>
double solve_epsilon(Evaluate evaluate_bound, double log_delta, double hi_guess, evaluated_point* warm = nullptr) {
    const evaluated_point start = warm ? *warm : evaluated_point{};
    return detail::EpsilonSolve<Evaluate>(evaluate_bound, log_delta, hi_guess, warm).run(start);
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
