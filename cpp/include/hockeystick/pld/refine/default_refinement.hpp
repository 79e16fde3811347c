// The default epsilon refinement of one point at one delta, a read beside its grid ladder: the many-points loop
// (points_front.hpp, its rules points_rules.hpp) over a single point, its brackets from the caller's step read on each
// grid (subsampled_gaussian_step.hpp's), the default's fine read tried beside it (the caller's settle,
// fine_settle.hpp's).  The package's default chain (python/hockeystick/pld/question/default_reads.py, step 2, through
// python/hockeystick/pld/refine/points.py's Refinement.default_refined and the binding's
// TiltedPointReader.default_refinement, cpp/bindings/register_pld_aligned_lower.cpp) and the C library's epsilon call
// (cpp/capi/refine.cpp) both drive it, each with its own FFT backend.
//
//   first    the caller's first grid (grid_policy.hpp's epsilon_start within MAX_WINDOW, no finer than the point's
//            coarsest fit)
//   step     the step read on grid h, with the direct bins (direct_bins.hpp): on every grid after the first, and on the
//            first where the delta is below the rule's first_delta, from `charge` (the rule's direct_charge, where
//            given, else the composition's kDirectMinCharge); on the grid the point was on (points_rules.hpp asks the
//            same grid again to recompose its charges) from min(same_grid_charge, charge);
//   refused  a grid whose window no memory holds (the step read returns none): the point gives up there, its bracket
//            the record of the grid before (certified), or [0, inf] on its first grid;
//   add      the least add-direction upper side over the grids read (each certified);
//   settle   the bracket so far (this grid's intersected with the record before) handed to settle(lower, upper, add):
//            a bracket it returns (certified) is the point's and it asks no finer grid;
//   next     points_rules.hpp's next grid (none after a stop).
//
// Every bracket is certified, and the loop keeps their intersection, so the result is certified; it meets the rules'
// tolerance unless a limit stopped it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "hockeystick/pld/refine/points_front.hpp"
#include "hockeystick/pld/refine/points_rules.hpp"

namespace hockeystick {
namespace pld {

// One grid's step read: the certified epsilon bracket and a certified upper side of the add direction's epsilon (inf:
// none read).
struct EpsilonStepRead {
    double lower = 0.0, upper = std::numeric_limits<double>::infinity();
    double add = std::numeric_limits<double>::infinity();
};

// How a grid is composed: with the direct bins or not, and from what estimated charge (NaN: the composition's
// kDirectMinCharge).
struct StepBins {
    bool direct = false;
    double charge = std::numeric_limits<double>::quiet_NaN();
};

// The refinement's result: its bracket, whether a refused window stopped it, whether its coarsest fit stopped it (no
// finer grid fits one round's span, points_rules.hpp), whether the settle read settled it, and the grids it read.
struct DefaultRefined {
    double lower = 0.0, upper = std::numeric_limits<double>::infinity();
    bool gave_up = false, fit_stopped = false, settled = false;
    std::int64_t grids = 0;
};

namespace default_refinement_detail {

// The refinement loop's source of one point (points_front.hpp's Source).
template <class StepRead, class Settle>
struct OnePointSource {
    double first_grid;
    std::optional<double> charge;  // the direct-bins rule's charge, where the first grid takes them
    double same_grid_charge;
    StepRead& step_read;
    Settle& settle;
    double add = std::numeric_limits<double>::infinity();
    DefaultRefined out{};

    std::map<std::int64_t, double> first() const { return {{0, first_grid}}; }

    StepBins bins(double h, const PointRecord* before) const {
        if (before != nullptr && before->h == h)
            return {true, std::min(same_grid_charge, charge.value_or(same_grid_charge))};
        return {before != nullptr || charge.has_value(), charge.value_or(std::numeric_limits<double>::quiet_NaN())};
    }

    std::vector<PointStep> steps(const std::map<std::int64_t, double>& grids,
                                 const std::map<std::int64_t, PointRecord>& best, const std::vector<std::int64_t>&) {
        const double h = grids.at(0);
        const auto found = best.find(0);
        const PointRecord* before = found == best.end() ? nullptr : &found->second;
        const StepBins b = bins(h, before);
        PointStep s;
        s.h = h;
        s.direct = b.direct;
        s.fixed.assign(2, 0.0);
        const std::optional<EpsilonStepRead> read = step_read(h, b);
        ++out.grids;
        if (read) {
            s.lower = {read->lower};
            s.upper = {read->upper};
            add = std::min(read->add, add);
        } else {  // its window refused: the record before stands, or nothing on the first grid
            out.gave_up = true;
            s.lower = {before != nullptr ? before->lower.front() : 0.0};
            s.upper = {before != nullptr ? before->upper.front() : std::numeric_limits<double>::infinity()};
        }
        double lower = s.lower.front(), upper = s.upper.front();
        if (before != nullptr) {  // the bracket so far, as settle reads it (numpy's maximum / minimum)
            lower = detail::numpy_maximum(lower, before->lower.front());
            upper = detail::numpy_minimum(upper, before->upper.front());
        }
        const std::optional<std::pair<double, double>> settled = settle(lower, upper, add);
        if (settled) {
            out.settled = true;
            s.lower = {settled->first};
            s.upper = {settled->second};
        }
        s.stop = out.gave_up || out.settled;
        return {s};
    }
};

}  // namespace default_refinement_detail

// The refinement of `point` (its x the one delta, own 1, its coarsest fit) under `rules` from `first_grid` (the
// header's comment): step_read(h, StepBins) -> std::optional<EpsilonStepRead> (none: the window refused),
// settle(lower, upper, add) -> std::optional<std::pair<double, double>>; `charge` the direct-bins rule's (none where
// the first grid takes no direct bins).
template <class StepRead, class Settle>
DefaultRefined default_refinement(const RefinedPoint& point, const PointsRules& rules, double first_grid,
                                  std::optional<double> charge, double same_grid_charge, StepRead&& step_read,
                                  Settle&& settle) {
    using Source =
        default_refinement_detail::OnePointSource<std::remove_reference_t<StepRead>, std::remove_reference_t<Settle>>;
    Source source{first_grid, charge, same_grid_charge, step_read, settle};
    const std::vector<RefinedPoint> points{point};
    auto done = refine_many(source, rules, points);
    const auto& chosen = done.chosen.at(0);
    source.out.lower = chosen.first.front();
    source.out.upper = chosen.second.front();
    source.out.fit_stopped = done.gave_up > 0;
    return source.out;
}

}  // namespace pld
}  // namespace hockeystick
