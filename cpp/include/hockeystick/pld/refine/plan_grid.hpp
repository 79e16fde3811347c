// A composition plan's next grid: one question (epsilon at delta, or delta at epsilon), one argument, its bracket's
// width in the accuracy's units (absolute in epsilon, relative in delta), read on grids from the plan's coarsest down
// (python/hockeystick/pld/refine/plan_refinement.py's PlanFront drives it, each grid aligned there).
//
//   done      the width is at most the target, or h is at the plan's finest grid, or no argument is wider than the
//             target (a NaN width);
//   ask       next_grid.hpp's rules with nothing charged, capped or offset-limited apart: first_step where no law is
//             read through two grids (the first grid, or a grid before no coarser than h), else, while h is above
//             the refinement's finest grid, charged_step with no charge known (alone 0, no cap, q 0): power_step's
//             law c h^p through the two grids, p clipped to [1, 2] (connect-the-dots PMFs narrow like h^2, finite
//             pairs like h), off the ladder (the plan aligns its grids itself);
//   probe     a first ask finer than h / probe_shrink^2 from a grid whose next one would pass probe_points goes to
//             h / probe_shrink first: its width measures the law (or shows a stall) on a cheap grid;
//   budget    the composed grid grows like 1/h: the ask is at least h points / max_points (the floor, returned for
//             the caller's alignment: an aligned grid below it is not taken) and at least the plan's finest grid;
//   stop      an ask at or above 0.95 h is none.
//
// Every operation is the package's rule's, in its order (Python's max of floats: the first of equals, NaN kept only
// in first place), so the grids asked are the same doubles.  Nothing here affects what is certified: every grid's
// bracket is, and their intersection is reported either way.
#pragma once

#include <cmath>

#include "hockeystick/pld/refine/grid_policy.hpp"
#include "hockeystick/pld/refine/next_grid.hpp"

namespace hockeystick {
namespace pld {

// The plan's grid constants (python/hockeystick/pld/refine/tuning.py's PLAN_*), the width asked (`target`) and the
// next-grid tuning and grid policy of the refinement's rules.
struct PlanGridRules {
    double target = 0.0;
    double finest = 0.0;        // PLAN_FINEST_INTERVAL
    double max_points = 0.0;    // PLAN_MAX_POINTS
    double probe_shrink = 0.0;  // PLAN_PROBE_SHRINK
    double probe_points = 0.0;  // PLAN_PROBE_POINTS
    NextGridTuning tuning{};
    GridPolicy policy{};
};

// The grid asked next (0: none, the bracket stands) before the caller's alignment, and the budget's floor.
struct PlanGrid {
    double grid = 0.0;
    double floor = 0.0;
};

// The grid before a plan's step: its interval and its width.
struct PlanBefore {
    double h = 0.0;
    double width = 0.0;
};

// The next grid after grid h (its bracket `width` wide; the composed grid's largest PMF `points` long) from the
// grid before `before` (null: h is the first), under `r` (the header's comment).
inline PlanGrid plan_next_grid(const PlanGridRules& r, double h, double width, const PlanBefore* before,
                               double points) {
    namespace d = next_grid_detail;
    if (width <= r.target || h <= r.finest) return {};
    const bool wide = width > r.target;
    if (!wide) return {};
    const double finest = r.policy.finest_interval;
    double next = 0.0;
    if (before == nullptr || before->h <= h) {
        next = first_step(h, &width, &wide, 1, 0.0, false, finest, r.target, nullptr);
    } else if (h > finest) {
        const double alone = 0.0, cap = HUGE_VAL;
        const bool charged = false;
        next = charged_step(h, before->h, &width, &before->width, &alone, &cap, &wide, &charged, 1, 0.0,
                            finest_interval(0.0, r.policy), r.target, r.tuning, nullptr);
    }
    if (next == 0.0) return {};  // no finer grid narrows it: the rest of the width is no discretization
    const double floor = h * points / r.max_points;
    const bool probe = before == nullptr && next < h / (r.probe_shrink * r.probe_shrink) &&
                       points * (r.probe_shrink * r.probe_shrink) > r.probe_points;
    next = d::py_max(d::py_max(probe ? h / r.probe_shrink : next, r.finest), floor);
    if (next >= 0.95 * h) return {};
    return {next, floor};
}

}  // namespace pld
}  // namespace hockeystick
