// The refinement of one point's bracket at one argument to an accuracy: the loop of the Python package's
// pld/refine/controller.py for one point, with the next-grid rules of next_grid.hpp (first_step, then fitted_step:
// one argument has no charge-limited, capped or offset-limited part), over brackets the caller computes on a grid
// (`bracket_at(h)`: the certified [lower, upper] on grid h, composed by whatever FFT backend the caller holds).
// epsilon_refinement.hpp (epsilon at delta) and delta_refinement.hpp (delta at epsilon, relative) run it with their
// start grid and their width.
//
//   start   h = within_window(start)                                                  (grid_policy.hpp)
//   step    [lo, up] on h, intersected with every earlier grid's bracket (each certified, so their
//           intersection is: the largest lower side, the smallest upper side)
//   width   width_of(lo, up), in the accuracy's units
//   done    not width > accuracy; or no finer grid is asked or fits MAX_WINDOW
//   next    first_step where no law is read through two grids (the first grid, or a grid before whose lower side
//           `fits(lower)` refuses), else fitted_step through the last two grids (none once h is at
//           finest_interval(q)); within MAX_WINDOW.
//
// The bracket returned is the intersection of certified brackets, so certified; it meets the accuracy unless a
// limit stopped the loop (met = false then), and it is never narrowed beyond what the brackets certify.
#pragma once

#include <algorithm>
#include <limits>
#include <utility>

#include "hockeystick/pld/refine/grid_policy.hpp"
#include "hockeystick/pld/refine/next_grid.hpp"

namespace hockeystick {
namespace pld {

// The refinement's rules beside the grid policy: the next-grid tuning (python/hockeystick/pld/refine/tuning.py),
// and a guard on the grids built (the ladder reaches the finest grid in far fewer steps).
struct RefinementRules {
    NextGridTuning tuning;
    int max_grids = 64;
};

// The refined bracket: [lower, upper], the last grid composed, how many grids, whether it is within the accuracy.
struct RefinedBracket {
    double lower = 0.0;
    double upper = std::numeric_limits<double>::infinity();
    double interval = 0.0;
    int grids = 0;
    bool met = false;
};

// The loop (the header's comment) of the point (sigma, q, rounds, sensitivity; 0 < q < 1) from grid `start`:
// bracket_at(h) returns std::pair<double, double> (lower, upper), width_of(lower, upper) its width, fits(lower)
// whether a law may be read through a grid whose lower side was `lower`.
template <class BracketAt, class WidthOf, class Fits>
RefinedBracket refine_point(double sigma, double q, double rounds, double sensitivity, double start, double accuracy,
                            BracketAt&& bracket_at, WidthOf&& width_of, Fits&& fits, const GridPolicy& g,
                            const RefinementRules& r) {
    const double finest = finest_interval(q, g);
    RefinedBracket out;
    double h = within_window(sigma, q, rounds, sensitivity, start, g);
    double h0 = 0.0, width0 = 0.0, lower0 = 0.0;  // the grid before, its width and lower side (h0 = 0: none)
    while (true) {
        const std::pair<double, double> b = bracket_at(h);
        out.lower = std::max(out.lower, b.first);
        out.upper = std::min(out.upper, b.second);
        out.interval = h;
        ++out.grids;
        const double width = width_of(out.lower, out.upper);
        const bool wide = width > accuracy;
        out.met = width <= accuracy;
        if (!wide || out.grids >= r.max_grids) return out;
        double next = 0.0;
        if (!(h0 > h && fits(lower0)))
            next = first_step(h, &width, &wide, 1, 0.0, false, finest, accuracy, &g);
        else if (h > finest)
            next = fitted_step(h, h0, &width, &width0, &wide, 1, finest, accuracy, r.tuning, &g);
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
