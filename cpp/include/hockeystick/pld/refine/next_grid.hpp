// Which grid next: the arithmetic of an accuracy-driven refinement's next-grid rules, over a point's arguments
// (pointer + length: one argument and many run the same code).  The many points' rules (points_rules.hpp) compute
// which arguments each rule reads (the masks) and call these; a composition plan's rule (plan_grid.hpp) and the
// core's loops (epsilon_refinement.hpp, delta_refinement.hpp) call them for one argument.
//
// Each returns the grid asked, or 0 for none (NaN where an infinite width is fitted, as the formula gives it).  A
// grid is rounded down to the ladder FINEST 2^(k/2) where `ladder` is given (ladder_rung), else taken as computed (a
// composition plan aligns its grids itself).  Every operation is
// the Python formula's, in its order (numpy's min: NaN if any is NaN; Python's min and max of two floats: the first
// unless the second is strictly smaller, or larger), so the values are equal bit for bit.
//
//   first_step    no fit through two grids: the finest of capped_h (0: none) and h 0.9 sqrt(accuracy / widest)
//                 over the `scaling` arguments (0.5 h for an infinite width), at least `finest`, on the ladder;
//                 none once h is at `finest`, save h again where `recompose` (a recomposition of the same grid with
//                 the direct DFT bins, asked by charge-limited arguments on a first grid);
//   fitted_step   a fit width = c h^2 + f through grids h0 > h, per `wide` argument narrowing below STALLED of its
//                 last width: those whose floor f is below half the accuracy ask sqrt((0.9 accuracy - f) / c); the
//                 finest, at most 0.9 h, at least `finest`, on the ladder;
//   power_step    the part of each width no grid removes known (`alone`): the rest e = width - alone fitted as
//                 c h^p through grids h0 > h (p = log(e0 / e) / log(h0 / h), clipped to [1, 2]; p = 2 where the
//                 width on h0 was its cap (`was_capped`) and is now within CAP_LEFT_WITHIN_TOLERANCES tolerances,
//                 not followed otherwise), each `wide` argument whose e fell below STALLED of the last and whose
//                 p is at least SLOWEST_POWER (or, after a grid h0 `near_rate`, whose law reaches the target within
//                 SLOW_REACH of h) asks h (e* / e)^(1/p), e* = 0.9 accuracy - alone; the finest, at most 0.9 h, at
//                 least `finest`, on the ladder;
//   charged_step  power_step over the `wide` arguments not `charged`, and one rung finer (0.9 h, at least `finest`)
//                 where a charged argument's width fell from its cap (`cap`: its eps) to within
//                 CAP_LEFT_WITHIN_TOLERANCES tolerances.
//
// The constants' meaning and values: python/hockeystick/pld/refine/tuning.py.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>

#include "hockeystick/pld/refine/grid_policy.hpp"

namespace hockeystick {
namespace pld {

// The next-grid rules' tuning constants (python/hockeystick/pld/refine/tuning.py).
struct NextGridTuning {
    double stalled = 0.9;
    double slowest_power = 0.5;
    double slow_reach = 0.125;
    double cap_left_within_tolerances = 4.0;
};

namespace next_grid_detail {

// Python's min(a, b) and max(a, b) of two floats.
inline double py_min(double a, double b) { return b < a ? b : a; }
inline double py_max(double a, double b) { return b > a ? b : a; }

// numpy's min of a non-empty sequence: NaN if any element is NaN.
struct NumpyMin {
    double value = std::numeric_limits<double>::infinity();
    bool any = false;
    void add(double v) {
        if (!any || (!std::isnan(value) && (std::isnan(v) || v < value))) value = v;
        any = true;
    }
};

inline double on_ladder(double h, const GridPolicy* ladder) { return ladder ? ladder_rung(h, *ladder) : h; }

// The grid asked from the finest `wanted` of a step's arguments: at most 0.9 h, at least `finest`, on the ladder.
inline double finest_asked(double wanted, double h, double finest, const GridPolicy* ladder) {
    return on_ladder(py_max(py_min(wanted, 0.9 * h), finest), ladder);
}

// power_step's exponent of argument i (0 where no law is read).
inline double power_of(double rest, double rest0, bool wide, bool was_capped, double width, double h, double h0,
                       double accuracy, const NextGridTuning& t) {
    if (was_capped) {
        const bool near = wide && rest > 0.0 && width < t.cap_left_within_tolerances * accuracy;
        return near ? 2.0 : 0.0;
    }
    return wide && rest > 0.0 && rest0 > rest ? std::log(rest0 / rest) / std::log(h0 / h) : 0.0;
}

// Whether power_step follows argument i, whose exponent is `power`.
inline bool power_hopeful(double rest, double rest0, double target, double power, bool wide, bool was_capped,
                          bool near_rate, const NextGridTuning& t) {
    if (!(wide && rest < t.stalled * rest0 && target > 0.0)) return false;
    if (power >= t.slowest_power) return true;
    if (!(near_rate && !was_capped && power > 0.0)) return false;
    return std::pow(target / rest, 1.0 / std::max(power, 1e-300)) >= t.slow_reach;  // the law reaches it soon
}

}  // namespace next_grid_detail

// first_step (the header's comment) of the n arguments' `width`, over those `scaling`.
inline double first_step(double h, const double* width, const bool* scaling, std::int64_t n, double capped_h,
                         bool recompose, double finest, double accuracy, const GridPolicy* ladder) {
    namespace d = next_grid_detail;
    d::NumpyMin asked;
    if (capped_h > 0.0) asked.add(capped_h);
    bool any = false;
    double worst = 0.0;
    for (std::int64_t i = 0; i < n; ++i)
        if (scaling[i] && (!any || width[i] > worst)) worst = width[i], any = true;
    if (any) asked.add(h * (std::isfinite(worst) ? 0.9 * std::sqrt(accuracy / worst) : 0.5));
    if (asked.any && h > finest) return d::on_ladder(d::py_max(asked.value, finest), ladder);
    return recompose ? h : 0.0;
}

// fitted_step (the header's comment) through grids h0 > h, widths `width0` on h0.
inline double fitted_step(double h, double h0, const double* width, const double* width0, const bool* wide,
                          std::int64_t n, double finest, double accuracy, const NextGridTuning& t,
                          const GridPolicy* ladder) {
    namespace d = next_grid_detail;
    d::NumpyMin wanted;
    for (std::int64_t i = 0; i < n; ++i) {
        if (!(wide[i] && width[i] < t.stalled * width0[i])) continue;
        const double slope = (width0[i] - width[i]) / (h0 * h0 - h * h);
        const double floor = width[i] - slope * h * h;
        if (floor < 0.5 * accuracy) wanted.add(std::sqrt((0.9 * accuracy - floor) / slope));
    }
    return wanted.any ? d::finest_asked(wanted.value, h, finest, ladder) : 0.0;
}

// power_step (the header's comment) through grids h0 > h.
inline double power_step(double h, double h0, const double* width, const double* width0, const double* alone,
                         const bool* wide, const bool* was_capped, std::int64_t n, bool near_rate, double finest,
                         double accuracy, const NextGridTuning& t, const GridPolicy* ladder) {
    namespace d = next_grid_detail;
    d::NumpyMin wanted;
    for (std::int64_t i = 0; i < n; ++i) {
        const double rest = width[i] - alone[i], rest0 = width0[i] - alone[i];
        const double target = 0.9 * accuracy - alone[i];
        const double power = d::power_of(rest, rest0, wide[i], was_capped[i], width[i], h, h0, accuracy, t);
        if (!d::power_hopeful(rest, rest0, target, power, wide[i], was_capped[i], near_rate, t)) continue;
        const double clipped = std::min(std::max(power, 1.0), 2.0);
        wanted.add(h * std::pow(target / rest, 1.0 / clipped));
    }
    return wanted.any ? d::finest_asked(wanted.value, h, finest, ladder) : 0.0;
}

// charged_step (the header's comment) through grids h0 > h: `cap` each argument's eps, `q` the sampling rate.
inline double charged_step(double h, double h0, const double* width, const double* width0, const double* alone,
                           const double* cap, const bool* wide, const bool* charged, std::int64_t n, double q,
                           double finest, double accuracy, const NextGridTuning& t, const GridPolicy* ladder) {
    namespace d = next_grid_detail;
    const std::unique_ptr<bool[]> followed(new bool[static_cast<std::size_t>(n)]);
    const std::unique_ptr<bool[]> was_capped(new bool[static_cast<std::size_t>(n)]);
    bool rung_finer = false;
    for (std::int64_t i = 0; i < n; ++i) {
        was_capped[i] = width0[i] >= cap[i] * (1.0 - 1e-9);
        followed[i] = wide[i] && !charged[i];
        rung_finer = rung_finer ||
                     (wide[i] && charged[i] && was_capped[i] && width[i] < t.cap_left_within_tolerances * accuracy);
    }
    double finer = power_step(h, h0, width, width0, alone, followed.get(), was_capped.get(), n, h0 > 0.5 * q, finest,
                              accuracy, t, ladder);
    if (rung_finer) {
        const double rung = d::on_ladder(d::py_max(0.9 * h, finest), ladder);
        finer = finer > 0.0 ? d::py_min(finer, rung) : rung;
    }
    return finer;
}

}  // namespace pld
}  // namespace hockeystick
