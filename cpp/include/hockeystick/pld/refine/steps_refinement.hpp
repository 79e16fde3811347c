// The refinement of one point's epsilon at one delta to an accuracy on the core's step reads: epsilon_refinement.hpp's
// loop (its start, width and next grids), each grid h read by the caller's step read (subsampled_gaussian_step.hpp's)
// with the direct bins of the rule (direct_bins.hpp: on every grid after the first, and on the first where `charge`
// is given, from it; the composition's kDirectMinCharge where it is not).  The package's accuracy= refinement of one
// point at one delta (python/hockeystick/pld/refine/points.py's Refinement.core_refined, through the binding's
// refined_subsampled_gaussian_epsilon) and the C library's epsilon call at an accuracy (cpp/capi/refine.cpp's
// epsilon_loop) both run it, each with its own FFT backend.  The loop stops where
//   fit      a grid finer than the point's coarsest fit is asked (grid_policy.hpp's coarsest_fit: no window of one
//            round's span fits within MAX_WINDOW), the first grid too;
//   refused  a grid's window no memory holds (the step read returns none);
// the bracket then the intersection of the grids read before, certified ([0, inf] where none was read), and gave_up
// set.  A step read's own refusal (a round it cannot discretize) is the caller's to throw and passes through.
//
// Delta at one epsilon to a relative accuracy (delta_steps_refinement) runs delta_refinement.hpp's loop the same way,
// each grid read by subsampled_gaussian_delta_step given the intersection of the grids read before (the package's
// accuracy= delta of one point at one epsilon, python/hockeystick/pld/refine/points.py's Refinement.core_delta
// through the binding's refined_subsampled_gaussian_delta, and the C library's delta call): the direct bins on every
// grid after the first; stopped at a grid after the first finer than the coarsest fit or whose window is refused (a
// refusal on the first grid is the caller's to throw: no bracket is held), the bracket then the intersection.
//
// Every bracket is certified and the result is their intersection, so it is certified; it meets the accuracy unless a
// limit stopped the loop.
#pragma once

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "hockeystick/pld/refine/default_refinement.hpp"  // EpsilonStepRead, StepBins
#include "hockeystick/pld/refine/delta_refinement.hpp"
#include "hockeystick/pld/refine/epsilon_refinement.hpp"

namespace hockeystick {
namespace pld {

// The refinement's result: its bracket (met and the last grid as the loop gives them), whether a limit (the coarsest
// fit, a refused window) stopped it, and the grids it read, in order.
struct StepsRefined {
    RefinedEpsilon bracket;
    bool gave_up = false;
    std::vector<double> grids;
};

namespace steps_refinement_detail {

// The grid the loop may not read: finer than the coarsest fit, or its window refused.
struct Stop {};

}  // namespace steps_refinement_detail

// The refinement of (sigma, q, rounds, sensitivity) at `delta` to `accuracy`, or with `relative_accuracy` > 0 to
// max(accuracy, relative_accuracy eps) (the header's comment; epsilon_refinement.hpp's epsilon_width):
// step_read(h, StepBins) -> std::optional<EpsilonStepRead> (none: the window refused); `charge` the direct-bins rule's
// charge where the first grid takes the direct bins (none where it does not).  0 < q < 1, 0 < delta < 1.
template <class StepRead>
StepsRefined steps_refinement(double sigma, double q, double rounds, double sensitivity, double delta, double accuracy,
                              double coarsest_fit, std::optional<double> charge, StepRead&& step_read,
                              const GridPolicy& g = {}, const RefinementRules& r = {}, double relative_accuracy = 0.0) {
    StepsRefined out;
    double lower = 0.0, upper = std::numeric_limits<double>::infinity();  // the intersection of the grids read
    bool first = true;
    const auto bracket_at = [&](double h) {
        if (h < coarsest_fit) throw steps_refinement_detail::Stop{};
        const StepBins bins{!first || charge.has_value(), charge.value_or(std::numeric_limits<double>::quiet_NaN())};
        first = false;
        out.grids.push_back(h);
        const std::optional<EpsilonStepRead> read = step_read(h, bins);
        if (!read) throw steps_refinement_detail::Stop{};
        lower = std::max(lower, read->lower);
        upper = std::min(upper, read->upper);
        return std::make_pair(read->lower, read->upper);
    };
    try {
        out.bracket =
            refine_epsilon(sigma, q, rounds, sensitivity, delta, accuracy, bracket_at, g, r, relative_accuracy);
    } catch (const steps_refinement_detail::Stop&) {
        out.gave_up = true;
        out.bracket.lower = lower;
        out.bracket.upper = upper;
        out.bracket.met = false;
    }
    return out;
}

// The refinement of (sigma, q, rounds, sensitivity)'s delta at one epsilon to the relative `accuracy` (the header's
// comment; delta_refinement.hpp's width, below delta_floor relative to it): step_read(h, StepBins, before) ->
// std::optional<std::pair<double, double>> (none: the window refused), `before` the intersection of the grids read
// (none on the first).  0 < q < 1.
template <class StepRead>
StepsRefined delta_steps_refinement(double sigma, double q, double rounds, double sensitivity, double accuracy,
                                    double coarsest_fit, StepRead&& step_read, double delta_floor = kDeltaFloor,
                                    const GridPolicy& g = {}, const RefinementRules& r = {}) {
    StepsRefined out;
    std::optional<std::pair<double, double>> held;  // the intersection of the grids read
    double last = 0.0;                               // the last grid read
    const auto bracket_at = [&](double h) {
        if (held && h < coarsest_fit) throw steps_refinement_detail::Stop{};
        out.grids.push_back(h);
        const std::optional<std::pair<double, double>> read = step_read(h, StepBins{held.has_value()}, held);
        if (!read) throw steps_refinement_detail::Stop{};
        last = h;
        held = held ? std::make_pair(std::max(held->first, read->first), std::min(held->second, read->second)) : *read;
        return *held;
    };
    try {
        out.bracket = refine_delta(sigma, q, rounds, sensitivity, accuracy, bracket_at, delta_floor, g, r);
    } catch (const steps_refinement_detail::Stop&) {
        out.gave_up = true;
        out.bracket.lower = held ? held->first : 0.0;
        out.bracket.upper = held ? held->second : 1.0;
        out.bracket.interval = last;
        out.bracket.met = false;
    }
    return out;
}

}  // namespace pld
}  // namespace hockeystick
