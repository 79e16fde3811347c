// The window of one composition (pld/compose/compose.hpp's opening comment, "Window"): an item's full support
// (item_support) cut to grid indices [a, b] by Chernoff bounds on the composed finite part (chernoff_edges,
// composition_window), the log-MGFs it reads kept per factor for the call (FactorMoments).  Invariant: the
// composed finite mass below a and above b is each at most `tail` (charged), and an item's window depends on its
// own terms, tail and h alone (each K(lam) on a lam snapped to a fixed grid, whatever else the call composes).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "hockeystick/pld/compose/options.hpp"
#include "hockeystick/pld/grid/moments.hpp"

namespace hockeystick {
namespace pld {
namespace detail {

// Each factor's log-MGF K(lam) (grid_log_mgf, rounded up) and loss variance as chernoff_edges asks for them,
// kept for the items of one compose_many call: items sharing a factor (every rounds value of a grid block)
// ask for many of the same lams, their ladders being snapped to one grid (chernoff_edges).  A value
// depends on the factor and lam alone, so an item's window is the same whatever else the call composes.
class FactorMoments {
  public:
    explicit FactorMoments(const std::vector<PmfView>& factors, double h)
        : factors_(factors), h_(h), variance_(factors.size(), -1.0), mgf_(factors.size()) {}

    double variance(std::int64_t factor) {
        double& v = variance_[static_cast<std::size_t>(factor)];
        if (v < 0.0) v = grid_loss_variance(factors_[factor].p, factors_[factor].n, h_);
        return v;
    }

    // out[j] = K(lam[j]) of the factor, computing those not kept yet in one grid_log_mgf call.
    void log_mgf(std::int64_t factor, const double* lam, std::int64_t m, double* out) {
        std::map<double, double>& kept = mgf_[static_cast<std::size_t>(factor)];
        std::vector<double> missing;
        for (std::int64_t j = 0; j < m; ++j)
            if (!kept.count(lam[j]) && std::find(missing.begin(), missing.end(), lam[j]) == missing.end())
                missing.push_back(lam[j]);
        if (!missing.empty()) {
            std::vector<double> values(missing.size());
            const PmfView& f = factors_[factor];
            grid_log_mgf(f.p, f.n, f.k_lo, h_, missing.data(), static_cast<std::int64_t>(missing.size()),
                         values.data());
            for (std::size_t j = 0; j < missing.size(); ++j) kept.emplace(missing[j], values[j]);
        }
        for (std::int64_t j = 0; j < m; ++j) out[j] = kept.at(lam[j]);
    }

  private:
    const std::vector<PmfView>& factors_;
    double h_;
    std::vector<double> variance_;
    std::vector<std::map<double, double>> mgf_;
};

// lam rounded to the nearest 2^(k/4) (k an integer): the ladders of items with nearby variances share rungs.
inline double snapped_lam(double lam) { return std::exp2(std::round(4.0 * std::log2(lam)) / 4.0); }

// chernoff_edges' ladder: 13 rungs lam_i z / s (logspace(-4, -0.5, 8), then 0.5, 0.7, 1, 1.4, 2 times the
// Gaussian optimum z / s, z = sqrt(2 log(1 / tail)), s the composed standard deviation), each snapped, in
// both[0 .. 12] and their negatives in both[13 .. 25]; the walk starts from rungs kFirstRung .. kFirstRung + 2.
constexpr int kLadderRungs = 13, kFirstRung = 9;

// The loss variance of the composition of `terms` (in loss units^2).
inline double composed_variance(FactorMoments& moments, const std::vector<Term>& terms) {
    double var = 0.0;
    for (const Term& t : terms) var += static_cast<double>(t.count) * moments.variance(t.factor);
    return var;
}

// The ladder's 26 lams (both signs) for a composed variance var.
inline void ladder_lams(double var, double tail, double* both) {
    const double z = std::sqrt(2.0 * std::log(1.0 / tail));
    const double big[] = {0.5, 0.7, 1.0, 1.4, 2.0};
    for (int i = 0; i < kLadderRungs; ++i) {  // rungs at least 2^(1/2) apart: distinct once snapped
        const double factor = i < 8 ? std::pow(10.0, -4.0 + 0.5 * i) : big[i - 8];
        both[i] = snapped_lam(factor * z / std::sqrt(std::max(var, 1e-300)));
        both[kLadderRungs + i] = -both[i];
    }
}

// The first rungs of every item's ladder and the three below them, where its walk usually goes next (`ladders`:
// the items whose windows chernoff_edges cuts), computed per factor in full passes of grid_log_mgf before any
// window: the items of one call (a run's checkpoints, a grid block's rounds) share most rungs, and a pass over a
// factor's masses costs about the same for eight lams as for one.  Each K(lam) is the one chernoff_edges would
// compute (FactorMoments), so no window changes.
inline void first_rungs(FactorMoments& moments, const std::vector<const std::vector<Term>*>& ladders, double tail) {
    std::map<std::int64_t, std::vector<double>> lams;  // per factor
    for (const std::vector<Term>* terms : ladders) {
        double both[2 * kLadderRungs];
        ladder_lams(composed_variance(moments, *terms), tail, both);
        for (const Term& t : *terms)
            for (int i = kFirstRung - 3; i <= kFirstRung + 2; ++i)
                for (const double lam : {both[i], both[kLadderRungs + i]}) lams[t.factor].push_back(lam);
    }
    for (auto& [factor, wanted] : lams) {
        std::vector<double> values(wanted.size());
        moments.log_mgf(factor, wanted.data(), static_cast<std::int64_t>(wanted.size()), values.data());
    }
}

// The walk of chernoff_edges over its ladder: per side (0: top, +lam; 1: bottom, -lam) the quantity minimized
// at each rung evaluated, the rungs [lo, hi] evaluated so far, and whether the side evaluates every rung.
// Invariant: score[side][i] is set for every i in [lo[side], hi[side]].
struct LadderWalk {
    double score[2][kLadderRungs];
    int lo[2] = {kFirstRung, kFirstRung}, hi[2] = {kFirstRung + 2, kFirstRung + 2};
    bool whole[2] = {false, false};

    // The rungs `side` evaluates next (appended to need): every rung where a value is not finite, else one or
    // two beyond an end that holds the least value (none once both neighbours of the least are larger).
    void widen(int side, std::vector<std::pair<int, int>>& need) {
        constexpr int ladder = kLadderRungs;
        if (whole[side]) return;
        double least = std::numeric_limits<double>::infinity();
        bool finite = true;
        for (int i = lo[side]; i <= hi[side]; ++i) {
            finite = finite && std::isfinite(score[side][i]);
            least = std::min(least, score[side][i]);
        }
        if (!finite) {  // every rung, reduced as std::min / std::max reduce (a NaN is never picked)
            whole[side] = true;
            for (int i = 0; i < ladder; ++i)
                if (i < lo[side] || i > hi[side]) need.push_back({side, i});
            lo[side] = 0;
            hi[side] = ladder - 1;
            return;
        }
        const int down = score[side][lo[side]] == least && lo[side] > 0 ? std::max(0, lo[side] - 3) : lo[side];
        const int up =
            score[side][hi[side]] == least && hi[side] < ladder - 1 ? std::min(ladder - 1, hi[side] + 2) : hi[side];
        for (int i = down; i < lo[side]; ++i) need.push_back({side, i});
        for (int i = hi[side] + 1; i <= up; ++i) need.push_back({side, i});
        lo[side] = down;
        hi[side] = up;
    }

    // Whether the edges found are not finite or either is bounded by the ladder's smallest rung (the sign that
    // the Gaussian ladder overshoots the useful lam).
    bool overshot(double top, double bottom) const {
        return !std::isfinite(top) || !std::isfinite(bottom) || (lo[0] == 0 && score[0][0] == top) ||
               (lo[1] == 0 && -score[1][0] == bottom);
    }
};

// walk.score at the rungs `need` (side, rung) of the ladder both: K(lam) summed over the terms in one pass.
inline void score_rungs(FactorMoments& moments, const std::vector<Term>& terms, const double* both, double log_tail,
                        const std::vector<std::pair<int, int>>& need, LadderWalk& walk) {
    constexpr int ladder = kLadderRungs;
    const std::int64_t m = static_cast<std::int64_t>(need.size());
    std::vector<double> lams(m), k(m, 0.0), one(m);
    for (std::int64_t j = 0; j < m; ++j) lams[j] = both[need[j].first * ladder + need[j].second];
    for (const Term& t : terms) {
        moments.log_mgf(t.factor, lams.data(), m, one.data());
        for (std::int64_t j = 0; j < m; ++j) k[j] += static_cast<double>(t.count) * one[j];
    }
    for (std::int64_t j = 0; j < m; ++j) {
        const auto [side, i] = need[j];
        walk.score[side][i] = side == 0 ? (k[j] - log_tail) / both[i] : -((log_tail - k[j]) / both[i]);
    }
}

// The edges tightened on the fixed ladder in loss units, lam = 10^-3 .. 10^6 in half decades (chernoff_edges).
inline void fixed_ladder_edges(FactorMoments& moments, const std::vector<Term>& terms, double log_tail, double& bottom,
                               double& top) {
    constexpr int fixed = 19;
    double lam[2 * fixed], k_fixed[2 * fixed] = {}, part[2 * fixed];
    for (int i = 0; i < fixed; ++i) {
        lam[i] = std::pow(10.0, -3.0 + 0.5 * i);
        lam[fixed + i] = -lam[i];
    }
    for (const Term& t : terms) {
        moments.log_mgf(t.factor, lam, 2 * fixed, part);
        for (int i = 0; i < 2 * fixed; ++i) k_fixed[i] += static_cast<double>(t.count) * part[i];
    }
    for (int i = 0; i < fixed; ++i) {
        top = std::min(top, (k_fixed[i] - log_tail) / lam[i]);
        bottom = std::max(bottom, (log_tail - k_fixed[fixed + i]) / lam[i]);
    }
}

// Losses (bottom, top): composed finite mass below bottom and above top each <= tail.
inline void chernoff_edges(FactorMoments& moments, const std::vector<Term>& terms, double h, double tail,
                           double& bottom, double& top) {
    constexpr int ladder = kLadderRungs;
    double both[2 * ladder];
    ladder_lams(composed_variance(moments, terms), tail, both);
    // The bound on each side, (K(lam) - log tail) / lam over lam > 0, is quasiconvex in lam (its sublevel
    // sets {lam : K(lam) - c lam + log(1/tail) <= 0} are intervals, K being convex), so on the ladder its least
    // value is found by walking from the Gaussian optimum (rungs 0.7, 1, 1.4) towards the smaller values
    // until both neighbours of the least are larger or the ladder ends: the same rung values (each K(lam)
    // is formed the same way however many lams share a pass) and the same edges as evaluating every rung,
    // at 3-6 lams per side instead of 13.  Where a value is not finite every rung is evaluated.
    const double log_tail = std::log(tail);
    LadderWalk walk;
    std::vector<std::pair<int, int>> need;  // (side, rung)
    for (int side = 0; side < 2; ++side)
        for (int i = kFirstRung; i <= kFirstRung + 2; ++i) need.push_back({side, i});
    while (!need.empty()) {
        score_rungs(moments, terms, both, log_tail, need, walk);
        need.clear();
        for (int side = 0; side < 2; ++side) walk.widen(side, need);
    }
    top = std::numeric_limits<double>::infinity();
    bottom = -std::numeric_limits<double>::infinity();
    for (int i = walk.lo[0]; i <= walk.hi[0]; ++i) top = std::min(top, walk.score[0][i]);
    for (int i = walk.lo[1]; i <= walk.hi[1]; ++i) bottom = std::max(bottom, -walk.score[1][i]);
    const bool overshot = walk.overshot(top, bottom);
    // A grid variance near 0 (an optimistic PMF whose mass sits on one grid point while the
    // sampling rate is below h, with a few masses of 1e-15 some grid points away) puts every rung far
    // above the useful lam, and the window spans the whole support (1e9 points for q = 1e-4,
    // sigma = 0.5, 1e5 rounds; 3e5 of 4e5 for sigma 2.6, q 2e-4, 6e4 rounds at h = 2e-4, where lam near
    // 5e3 cuts it to a few hundred).  Then lam is also tried on a fixed ladder in loss units
    // (10^-3 .. 10^6, half decades): any lam is valid, so the edges only tighten, and windows the first
    // ladder already bounds do not pay for it.
    const double width = (top - bottom) / h;
    if (!(width < kFixedLadderWidth) || (overshot && !(width < kOvershotLadderWidth)))
        fixed_ladder_edges(moments, terms, log_tail, bottom, top);
}

}  // namespace detail

// An item's positive terms, its mass at +infinity and its full support (w.lo_full and hi_full, grid indices:
// the window before any cut); throws std::invalid_argument / std::length_error outside the domain.
inline Window item_support(const std::vector<PmfView>& factors, const std::vector<Term>& terms, std::int64_t& hi_full) {
    Window w;
    for (const Term& t : terms) {
        if (t.count < 0) throw std::invalid_argument("compose: counts must be >= 0");
        if (t.factor < 0 || t.factor >= static_cast<std::int64_t>(factors.size()))
            throw std::invalid_argument("compose: factor index out of range");
        if (t.count > 0) w.terms.push_back(t);
    }
    if (w.terms.empty()) throw std::invalid_argument("compose needs at least one factor with a positive count");
    double log_finite = 0.0;
    double lo = 0.0, hi = 0.0;  // in double: a count times a grid offset may exceed int64
    for (const Term& t : w.terms) {
        const PmfView& f = factors[t.factor];
        if (f.n < 1) throw std::invalid_argument("compose: a factor has no grid points");
        const double c = static_cast<double>(t.count);
        log_finite += f.p_inf < 1.0 ? c * std::log1p(-f.p_inf) : -std::numeric_limits<double>::infinity();
        lo += c * static_cast<double>(f.k_lo);
        hi += c * static_cast<double>(f.k_lo + f.n - 1);
    }
    if (!(std::fabs(lo) < 9e15 && std::fabs(hi) < 9e15))
        throw std::length_error("the composed loss grid spans more than 9e15 grid points");
    w.p_inf = -std::expm1(log_finite);
    w.lo_full = static_cast<std::int64_t>(lo);
    hi_full = static_cast<std::int64_t>(hi);
    return w;
}

// Whether an item's window is cut by Chernoff bounds (its full support is wider than kWholeSupportWidth).
inline bool cut_by_chernoff(const Window& support, std::int64_t hi_full) {
    return hi_full - support.lo_full + 1 > kWholeSupportWidth;
}

// The window of one item from its support (item_support); throws std::length_error above max_points.
inline Window composition_window(Window w, std::int64_t hi_full, double h, double tail, std::int64_t max_points,
                                 detail::FactorMoments& moments) {
    const std::int64_t lo_full = w.lo_full;
    std::int64_t a_idx = lo_full, b_idx = hi_full;
    if (cut_by_chernoff(w, hi_full)) {
        double bottom = 0.0, top = 0.0;
        detail::chernoff_edges(moments, w.terms, h, tail, bottom, top);
        const double top_idx = std::ceil(top / h), bottom_idx = std::floor(bottom / h);
        // Clamped to the full support (an edge at -inf or +inf: no finite mass to speak of, e.g.
        // every factor's mass at +infinity); if the two edges cross, the finite mass is at most
        // 2 tail and both are charged: one grid point is kept.
        if (top_idx < static_cast<double>(hi_full)) {
            b_idx = static_cast<std::int64_t>(std::max(top_idx, static_cast<double>(lo_full)));
            w.charge_above = tail;
        }
        if (bottom_idx > static_cast<double>(lo_full)) {
            a_idx = static_cast<std::int64_t>(std::min(bottom_idx, static_cast<double>(hi_full)));
            w.charge_below = tail;
        }
        a_idx = std::min(a_idx, b_idx);
    }
    w.a_idx = a_idx;
    w.width = b_idx - a_idx + 1;
    if (w.width > max_points)
        throw std::length_error("the composed loss window needs " + std::to_string(w.width) +
                                " grid points (max_points=" + std::to_string(max_points) + ")");
    return w;
}

}  // namespace pld
}  // namespace hockeystick
