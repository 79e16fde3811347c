// The refinement of one point's bracket at one argument to an accuracy: the refinement loop (refinement_loop.hpp,
// the one every front end drives) with one point as its front end (PointFront) and the next-grid rules of
// next_grid.hpp (first_step, then fitted_step: one argument has no charge-limited, capped or offset-limited part),
// over brackets the caller computes on a grid (`bracket_at(h)`: the certified [lower, upper] on grid h, composed by
// whatever FFT backend the caller holds).
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
#include <cstdint>
#include <limits>
#include <map>
#include <type_traits>
#include <utility>

#include "hockeystick/pld/refine/grid_policy.hpp"
#include "hockeystick/pld/refine/next_grid.hpp"
#include "hockeystick/pld/refine/refinement_loop.hpp"

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

// One point at one argument as the refinement loop's front end (refinement_loop.hpp): its first grid `start` within
// MAX_WINDOW, each grid's bracket from bracket_at, its width from width_of, the next grid by the header's rules.
template <class BracketAt, class WidthOf, class Fits>
struct PointFront {
    struct Step {
        double h, lower, upper;
    };
    struct Record {
        double h, lower, upper, width;
    };

    double sigma, q, rounds, sensitivity, start, accuracy;
    BracketAt& bracket_at;
    WidthOf& width_of;
    Fits& fits;
    const GridPolicy& g;
    const RefinementRules& r;
    RefinedBracket out{};

    std::map<std::int64_t, double> first() const {
        return {{0, within_window(sigma, q, rounds, sensitivity, start, g)}};
    }
    template <class Visit>
    void brackets(const std::map<std::int64_t, double>& grids, const std::map<std::int64_t, Record>&, Visit&& visit) {
        const double h = grids.at(0);
        const std::pair<double, double> b = bracket_at(h);
        out.interval = h;
        ++out.grids;
        visit(Step{h, b.first, b.second});
    }
    static std::int64_t point(const Step&) { return 0; }
    static void intersect(Step& step, const Record& before) {
        step.lower = std::max(step.lower, before.lower);
        step.upper = std::min(step.upper, before.upper);
    }
    double width(const Step& step) const { return width_of(step.lower, step.upper); }
    double next_grid(const Step& step, double width, const Record* before) {
        out.lower = step.lower;
        out.upper = step.upper;
        const bool wide = width > accuracy;
        out.met = width <= accuracy;
        if (!wide || out.grids >= r.max_grids) return 0.0;
        const double h = step.h, finest = finest_interval(q, g);
        double next = 0.0;
        if (!(before != nullptr && before->h > h && fits(before->lower)))
            next = first_step(h, &width, &wide, 1, 0.0, false, finest, accuracy, &g);
        else if (h > finest)
            next = fitted_step(h, before->h, &width, &before->width, &wide, 1, finest, accuracy, r.tuning, &g);
        if (next > 0.0 && next < h) next = within_window(sigma, q, rounds, sensitivity, next, g);
        return next > 0.0 && next < h ? next : 0.0;  // no finer grid asked, or none fits MAX_WINDOW: done
    }
    static Record record(const Step& step, double width) { return {step.h, step.lower, step.upper, width}; }
    void done(const Step& step) {
        out.lower = step.lower;
        out.upper = step.upper;
    }
};

// The refinement (the header's comment) of the point (sigma, q, rounds, sensitivity; 0 < q < 1) from grid `start`:
// bracket_at(h) returns std::pair<double, double> (lower, upper), width_of(lower, upper) its width, fits(lower)
// whether a law may be read through a grid whose lower side was `lower`.
template <class BracketAt, class WidthOf, class Fits>
RefinedBracket refine_point(double sigma, double q, double rounds, double sensitivity, double start, double accuracy,
                            BracketAt&& bracket_at, WidthOf&& width_of, Fits&& fits, const GridPolicy& g,
                            const RefinementRules& r) {
    PointFront<std::remove_reference_t<BracketAt>, std::remove_reference_t<WidthOf>, std::remove_reference_t<Fits>>
        front{sigma, q, rounds, sensitivity, start, accuracy, bracket_at, width_of, fits, g, r};
    refine_points(front);
    return front.out;
}

}  // namespace pld
}  // namespace hockeystick
