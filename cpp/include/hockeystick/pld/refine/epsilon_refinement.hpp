// The refinement of one Poisson-subsampled Gaussian's epsilon at one delta to an accuracy: the loop of the Python
// package's pld/refine/controller.py with the epsilon rules of pld/refine/grid_rules.py (NextGrid.first_step and
// fitted_step; an epsilon question has no charge-limited, capped or offset-limited arguments), over brackets the
// caller computes on a grid (`bracket_at(h)`: the certified [lower, upper] of epsilon at delta on grid h, composed
// by whatever FFT backend the caller holds).
//
//   start   h = within_window(epsilon_start(point, delta, accuracy))                 (grid_policy.hpp)
//   step    [lo, up] on h, intersected with every earlier grid's bracket (each certified, so their
//           intersection is: the largest lower side, the smallest upper side)
//   width   up - lo (0 where the sides are equal, +inf where only the upper side is)
//   done    width <= accuracy; or no finer grid is asked or fits MAX_WINDOW
//   next    first step (or after a grid whose lower side was 0 while too wide: no law through it):
//           h 0.9 sqrt(accuracy / width) (0.5 h for an infinite width), on the ladder, at least finest_interval(q);
//           later: a fit width = c h^2 + f through the last two grids; stop where the width did not fall below
//           STALLED of the last or f >= accuracy / 2; else sqrt((0.9 accuracy - f) / c), at most 0.9 h, on the
//           ladder, at least finest_interval(q); none once h is at the finest.
//
// The bracket returned is the intersection of certified brackets, so certified; it meets the accuracy unless a
// limit stopped the loop (met = false then), and it is never narrowed beyond what the brackets certify.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "hockeystick/pld/refine/grid_policy.hpp"

namespace hockeystick {
namespace pld {

// The refinement's rules beside the grid policy (python/hockeystick/pld/refine/tuning.py).
struct RefinementRules {
    double stalled = 0.9;  // a width that did not fall below this share of the last is not followed
    int max_grids = 64;    // a guard only: the ladder reaches the finest grid in far fewer steps
};

// The refined bracket: [lower, upper] on epsilon, the last grid composed, how many grids, whether it is within the
// accuracy.
struct RefinedEpsilon {
    double lower = 0.0;
    double upper = std::numeric_limits<double>::infinity();
    double interval = 0.0;
    int grids = 0;
    bool met = false;
};

namespace epsilon_refinement_detail {

inline double epsilon_width(double lower, double upper) { return lower == upper ? 0.0 : upper - lower; }

// The first step's ask (NextGrid.first_step without capped or charged arguments), or 0 for none.
inline double first_ask(double h, double width, double accuracy, double finest, const GridPolicy& g) {
    if (h <= finest) return 0.0;
    const double asked = h * (std::isfinite(width) ? 0.9 * std::sqrt(accuracy / width) : 0.5);
    return ladder_rung(std::max(asked, finest), g);
}

// The fitted step's ask (NextGrid.fitted_step) through grids h0 > h, or 0 for none.
inline double fitted_ask(double h, double width, double h0, double width0, double accuracy, double finest,
                         const GridPolicy& g, const RefinementRules& r) {
    if (h <= finest || !(width < r.stalled * width0)) return 0.0;
    const double slope = (width0 - width) / (h0 * h0 - h * h);
    const double floor = width - slope * h * h;
    if (!(floor < 0.5 * accuracy)) return 0.0;
    const double wanted = std::sqrt((0.9 * accuracy - floor) / slope);
    return ladder_rung(std::max(std::min(wanted, 0.9 * h), finest), g);
}

}  // namespace epsilon_refinement_detail

// The refined epsilon bracket of `rounds` rounds of the Poisson-subsampled Gaussian (noise sigma, sampling rate q,
// sensitivity) at `delta` to `accuracy` (the header's comment), each grid's bracket from bracket_at(h), a callable
// returning std::pair<double, double> (lower, upper).  0 < q < 1, 0 < delta < 1, accuracy > 0.
template <class BracketAt>
RefinedEpsilon refine_epsilon(double sigma, double q, double rounds, double sensitivity, double delta, double accuracy,
                              BracketAt&& bracket_at, const GridPolicy& g = {}, const RefinementRules& r = {}) {
    namespace d = epsilon_refinement_detail;
    const double finest = finest_interval(q, g);
    RefinedEpsilon out;
    const double start = epsilon_start(sigma, q, rounds, sensitivity, &delta, 1, accuracy, 0.0, g);
    double h = within_window(sigma, q, rounds, sensitivity, start, g);
    double h0 = 0.0, width0 = 0.0, lower0 = 0.0;  // the grid before, its width and lower side (h0 = 0: none)
    while (true) {
        const std::pair<double, double> b = bracket_at(h);
        out.lower = std::max(out.lower, b.first);
        out.upper = std::min(out.upper, b.second);
        out.interval = h;
        ++out.grids;
        const double width = d::epsilon_width(out.lower, out.upper);
        out.met = width <= accuracy;
        if (out.met || out.grids >= r.max_grids) return out;
        const bool fit = h0 > h && lower0 > 0.0;  // a lower side 0 on the grid before (blind): no law through it
        double next = fit ? d::fitted_ask(h, width, h0, width0, accuracy, finest, g, r)
                          : d::first_ask(h, width, accuracy, finest, g);
        if (next > 0.0 && next < h) next = within_window(sigma, q, rounds, sensitivity, next, g);
        if (!(next > 0.0 && next < h)) return out;  // no finer grid asked, or none fits MAX_WINDOW
        h0 = h;
        width0 = width;
        lower0 = out.lower;
        h = next;
    }
}

}  // namespace pld
}  // namespace hockeystick
