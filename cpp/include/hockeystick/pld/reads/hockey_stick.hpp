// The hockey-stick divergence of a PMF on the loss grid, for many epsilons at once.
//
//   delta(eps) = sum_i p_i (1 - e^{eps - l_i})_+ + p_inf
//
// From two suffix sums, built once in O(n) with positive terms only,
//   R_k = sum_{i>=k} p_i e^{l_k - l_i} = p_k + e^{-h} R_{k+1}            (no overflow: <= mass)
//   D_k = sum_{i>=k} p_i (1 - e^{l_k - l_i}) = D_{k+1} + (1 - e^{-h}) R_{k+1},
// each eps in (l_{k-1}, l_k] costs O(1):
//   delta(eps) = D_k + (1 - e^{eps - l_k}) R_k + p_inf   (all terms >= 0, no cancellation),
// and epsilon(delta) inverts it exactly: binary search for k, then
//   eps = l_k + log1p((D_k + p_inf - delta) / R_k).
// Floating-point error: each suffix sum carries relative error <= n u (u = 2^-53);
// callers that certify a bound widen by that much.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "hockeystick/pld/grid/moments.hpp"
#include "hockeystick/support/default_init.hpp"

namespace hockeystick {
namespace pld {

class GridProfile {
  public:
    GridProfile(const double* p, std::int64_t n, std::int64_t k_lo, double h, double p_inf)
        : k_lo_(k_lo), h_(h), p_inf_(p_inf), D_(n + 1), R_(n + 1) {  // every entry written below
        // R_{k+1} and D_{k+1} ride in registers: through the vectors (which p may alias, for all the
        // compiler knows) every step waited on a store and its reload, ~25 cycles instead of ~6
        const double decay = std::exp(-h), grow = -std::expm1(-h);
        double r = 0.0, d = 0.0;
        R_[n] = D_[n] = 0.0;
        for (std::int64_t k = n - 1; k >= 0; --k) {
            d = d + grow * r;
            r = p[k] + decay * r;
            R_[k] = r;
            D_[k] = d;
        }
    }

    std::int64_t size() const { return static_cast<std::int64_t>(R_.size()) - 1; }
    std::int64_t k_lo() const { return k_lo_; }
    double h() const { return h_; }

    double delta(double eps) const {
        const std::int64_t n = size();
        if (eps == -std::numeric_limits<double>::infinity()) return D_[0] + R_[0] + p_inf_;
        const double kf = std::ceil(eps / h_) - static_cast<double>(k_lo_);
        if (kf >= static_cast<double>(n)) return p_inf_;
        const std::int64_t k = kf <= 0.0 ? 0 : static_cast<std::int64_t>(kf);
        const double t = eps - static_cast<double>(k_lo_ + k) * h_;  // <= 0
        return D_[k] - std::expm1(t) * R_[k] + p_inf_;
    }

    // Smallest eps with delta(eps) <= target (+inf if none, -inf if every eps qualifies).
    double epsilon(double target) const {
        const std::int64_t n = size();
        if (target < p_inf_) return std::numeric_limits<double>::infinity();
        if (n == 0) return -std::numeric_limits<double>::infinity();
        std::int64_t lo = 0, hi = n - 1;  // smallest k with D_k + p_inf <= target (D_{n-1} = 0)
        while (lo < hi) {
            const std::int64_t mid = lo + (hi - lo) / 2;
            if (D_[mid] + p_inf_ <= target)
                hi = mid;
            else
                lo = mid + 1;
        }
        const double arg = (D_[lo] + p_inf_ - target) / R_[lo];
        if (R_[lo] == 0.0 || arg >= 0.0) return static_cast<double>(k_lo_ + lo) * h_;
        if (arg <= -1.0) return -std::numeric_limits<double>::infinity();
        return static_cast<double>(k_lo_ + lo) * h_ + std::log1p(arg);
    }

  private:
    std::int64_t k_lo_;
    double h_, p_inf_;
    DefaultInitVector<double> D_, R_;
};

// A value moved by a loss shift s >= 0, rounded outward: v + s rounded up (`up`) or v - s rounded
// down; +-inf and NaN stay (nextafter would make inf finite), and s = 0 changes no bit.
// The loss shift bounds how far the true losses may lie from those the grid masses were built
// from (python pmf.GridPMF.loss_shift): the true PLD is dominated by the built one moved up by s
// and dominates it moved down by s, so delta_true(eps) <= delta_pess(eps - s),
// delta_true(eps) >= delta_opt(eps + s), and epsilon moves by +s (pessimistic) or -s (optimistic).
inline double loss_shifted(double v, double s, bool up) {
    if (s == 0.0 || !std::isfinite(v)) return v;
    const double inf = std::numeric_limits<double>::infinity();
    return up ? std::nextafter(v + s, inf) : std::nextafter(v - s, -inf);
}

// The certified (pessimistic) epsilon of a composed PMF carrying error charges (python
// pmf.GridPMF): the smallest eps with
//   C(eps) = delta_raw(eps) (1 + slack) + shift + charge(#grid points above eps) <= target,
//   charge(m) = min(entry m, total, l2 sqrt(m) + min(inverse m, inverse_l2 sqrt(m)))    (0 when total = 0).
// C is non-increasing, and the charge is constant on each open grid interval, so one scan down
// from the top of the grid (suffix sums as in GridProfile, built on the way) finds the first grid
// point l_k where C(l_k) > target; the answer lies in (l_k, l_{k+1}] and inverts delta_raw there
// with that interval's charge.  O(grid points above the answer), no allocation.  Each answer is
// then moved by the loss shift (loss_shifted: + s rounded up).
namespace detail {
// numpy's maximum and minimum of two doubles, for the core's ports of facade formulas to give numpy's
// doubles: NaN in either argument gives NaN, and a tie (0 and -0) the second argument.
inline double numpy_maximum(double a, double b) { return (a > b || a != a) ? a : b; }
inline double numpy_minimum(double a, double b) { return (a < b || a != a) ? a : b; }

// The suffix maxima of value(j) over grid points from..n - 1, numpy's maximum.accumulate over the reversed grid: entry
// j - from is numpy_maximum's fold of value(n - 1), ..., value(j), from the top down, and entry n - from is 0 (no grid
// point above).  Each value(j) is taken once, in one pass from the top of the grid.
template <class Value>
std::vector<double> numpy_suffix_maxima(std::int64_t from, std::int64_t n, const Value& value) {
    std::vector<double> maxima(static_cast<std::size_t>(n - from + 1), 0.0);
    for (std::int64_t j = n - 1; j >= from; --j) {
        const double v = value(j);
        const std::size_t at = static_cast<std::size_t>(j - from);
        maxima[at] = j == n - 1 ? v : numpy_maximum(maxima[at + 1], v);
    }
    return maxima;
}
}  // namespace detail

struct GridCharges {
    double shift = 0.0, slack = 0.0, entry = 0.0, total = 0.0, l2 = 0.0, inverse = 0.0, loss_shift = 0.0;
    double inverse_l2 = std::numeric_limits<double>::infinity();  // pld/compose/compose.hpp's ComposedPMF
    double above(double count) const { return weighted(count, std::sqrt(count)); }
    // The charge of a sum of grid masses with weights in [0, 1] whose sum is at most `sum` and Euclidean norm
    // at most `norm` (above(m): m masses of weight 1, sum m and norm sqrt(m)): entry per unit of weight,
    // capped by total and by l2 norm + min(inverse sum, inverse_l2 norm) (Cauchy-Schwarz over the weights);
    // 0 where no weight is positive (sum or norm 0; never inf x 0); NaN for a NaN sum or norm (no bound is
    // known there: the caller's NaN policy applies).  The facade's GridPMF.charge_of_weighted_sum.
    double weighted(double sum, double norm) const {
        if (std::isnan(sum) || std::isnan(norm)) return std::numeric_limits<double>::quiet_NaN();
        if (total == 0.0 || !(sum > 0.0) || !(norm > 0.0)) return 0.0;
        return std::min(std::min(entry * sum, total), l2 * norm + std::min(inverse * sum, inverse_l2 * norm));
    }
};

// Round-off of the inversion eps = l + log1p(arg), arg = (D + p_inf - want) / R, against the same
// formula in exact arithmetic on the same inputs: D + p_inf and the difference each within u
// relative, the quotient within u, log1p within 2 ulps (glibc's bound is below 1), the sum within
// u; |log1p(a) - log1p(b)| <= |a - b| / (1 + min(a, b)).  `arg` is the computed quotient (clipped at
// 0 by the caller where the answer is clamped to the grid point), `eps` the computed sum.  Doubled
// for the second-order terms; +inf where the computed arg lies within its own error of -1.
inline double inversion_error(double D, double p_inf, double want, double R, double arg, double eps) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    const double d_arg = u * ((D + p_inf) + std::fabs(D + p_inf - want)) / R + u * std::fabs(arg);
    const double room = 1.0 + arg - d_arg;
    if (!(room > 0.0)) return std::numeric_limits<double>::infinity();
    return 2.0 * (d_arg / room + 2.0 * u * std::fabs(std::log1p(arg)) + u * std::fabs(eps));
}

// The smallest eps in (l - h, l] (`bounded`; else in (-inf, l], below the grid) with
// D + p_inf - expm1(eps - l) R <= want, raised by its round-off (inversion_error): l itself where only the
// grid point qualifies or the answer rounds to the interval's lower end, -inf where every eps qualifies
// beyond round-off below the grid (D + p_inf + R <= want with 4 u of margin on the sum of three terms).
inline double inverted_in_interval(double D, double R, double p_inf, double want, double l, double h, bool bounded) {
    const double inf = std::numeric_limits<double>::infinity();
    const double floor = bounded ? l - h : -inf;
    if (!(R > 0.0)) return bounded ? l : -inf;
    const double arg = (D + p_inf - want) / R;
    if (arg <= -1.0) {
        constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
        return !bounded && (D + p_inf + R) * (1.0 + 4.0 * u) <= want ? -inf : l;
    }
    if (!(arg < 0.0)) return l;
    const double at = l + std::log1p(arg);
    const double raised = std::nextafter(at + inversion_error(D, p_inf, want, R, arg, at), inf);
    return raised > floor ? std::min(raised, l) : l;  // at or below l - h: rounding, keep l
}

// The target the uncharged curve must meet, (t - shift - charge) / scale, rounded toward the safe
// side: down (`lower` false: the pessimistic scan) or up (`lower` true), by 4 u of the terms
// (three operations, each within u relative).
inline double charged_want(double t, double shift, double charge, double scale, bool lower) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    const double value = (t - shift - charge) / scale;
    const double error = 4.0 * u * (std::fabs(t) + std::fabs(shift) + std::fabs(charge)) / scale;
    return lower ? value + error : value - error;
}

// Whether the charge terms and the scale are non-negative, so that the charge grows with the points above and
// the target charged_want gives falls with it (charged_epsilon's shortcut).
inline bool charges_monotone(const GridCharges& ch, double scale) {
    return !(ch.entry < 0.0 || ch.total < 0.0 || ch.l2 < 0.0 || ch.inverse < 0.0 || ch.inverse_l2 < 0.0 ||
             !(scale > 0.0));
}

// For m targets at once: sorted ascending, each target's scan continues where the previous one
// stopped (a larger target stops lower), so the whole call costs O(n + m log m).  The target is
// rounded down and the inverted eps raised by its round-off (`charged_want`, `inversion_error`), so
// the answer is at or above the smallest eps the charged curve certifies, never ulps below it.
inline void charged_epsilon(const double* p, std::int64_t n, std::int64_t k_lo, double h, double p_inf,
                            const GridCharges& ch, const double* target, std::int64_t m, double* out) {
    const double inf = std::numeric_limits<double>::infinity();
    const double scale = 1.0 + ch.slack;
    auto l_at = [&](std::int64_t k) { return static_cast<double>(k_lo + k) * h; };
    std::vector<std::int64_t> order(m);
    for (std::int64_t i = 0; i < m; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return target[a] < target[b]; });
    const double decay = std::exp(-h), grow = -std::expm1(-h);
    const bool monotone = charges_monotone(ch, scale);
    std::int64_t k = n - 1;   // next grid point to test
    double R = 0.0, D = 0.0;  // R_{k+1}, D_{k+1}
    for (const std::int64_t i : order) {
        const double t = target[i];
        auto raw_target = [&](std::int64_t above) {
            return charged_want(t, ch.shift, ch.above(static_cast<double>(above)), scale, false);
        };
        if (n == 0 || !(raw_target(0) > 0.0) || p_inf > raw_target(0)) {
            out[i] = inf;
            continue;
        }
        // With non-negative charge terms and scale, the charge grows with the points above (above() is
        // non-decreasing, in floating point too) and the target falls with the charge, so raw_target(n - 1)
        // is the least a step tests against: a step at or below it passes without its own charge (a sqrt and
        // a few divisions).  The same steps pass.  Otherwise (no such charges come from a composition) every
        // step computes its own.
        const double least = monotone ? raw_target(n - 1) : -inf;
        bool stopped = false;
        for (; k >= 0; --k) {
            const double Rk = p[k] + decay * R, Dk = D + grow * R;
            if (!(Dk + p_inf <= least) && !(Dk + p_inf <= raw_target(n - 1 - k))) {
                stopped = true;
                break;
            }
            R = Rk;
            D = Dk;
        }
        if (stopped && k == n - 1) {  // C holds just above the top grid point only
            out[i] = loss_shifted(l_at(k), ch.loss_shift, true);
            continue;
        }
        // Invert delta_raw(eps) = D + p_inf - expm1(eps - l) R on (l - h, l], l = l_{k+1}, with the
        // charge of that interval (below the grid: of all n points, and no lower end).
        out[i] = loss_shifted(inverted_in_interval(D, R, p_inf, raw_target(n - 1 - k), l_at(k + 1), h, stopped),
                              ch.loss_shift, true);
    }
}

}  // namespace pld
}  // namespace hockeystick
