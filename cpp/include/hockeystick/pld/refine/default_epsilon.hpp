// The default's epsilon bracket of T rounds of one Poisson-subsampled Gaussian at one delta, after its fixed grid: the
// package's default chain (python/hockeystick/pld/question/default_reads.py, steps 2 to 7, through the binding's
// TiltedPointReader.default_epsilon) and the C library's epsilon call at its default accuracy (cpp/capi/refine.cpp)
// both read it here, each with its own FFT backends and its own plan (the grid rules and start grids it computes).
//
//   fixed     the fixed grid's certified bracket where the front end read one (step 1, where fixed_grid.hpp's rule
//             fits), and its add direction's certified upper side (inf: none);
//   2.        where no fixed bracket is within the default tolerance: the default refinement
//             (default_refinement.hpp) to half of it at the plan's tail, each grid read by the caller's step read
//             (subsampled_gaussian_step.hpp), the fine read beside its ladder (fine_settle.hpp), intersected with the
//             fixed bracket;
//   3.        where still wider than the tolerance (past the plain composition's round-off charges): the tilted grids'
//             descent (tilted_question.hpp's grid_descent) from the plan's start grid, by a reader of its own, the
//             upper side then lowered to the plan's cap (a certified upper side known beside: the package's RDP
//             conversion where no tail is given; none in the C library);
//   4 to 7.   the last reads (last_epsilon_reads.hpp) with the point's kept reader, the fine read skipped where step 2
//             settled on it; where one cannot be made (a discretization or window past the caps, a tilt past the
//             doubles' moments, no memory for a window), the bracket in hand.
// Every read is certified and intersected with the bracket before it, so the result is certified.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <new>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hockeystick/pld/refine/default_refinement.hpp"
#include "hockeystick/pld/refine/epsilon_tolerance.hpp"
#include "hockeystick/pld/refine/fine_epsilon.hpp"
#include "hockeystick/pld/refine/fine_settle.hpp"
#include "hockeystick/pld/refine/last_epsilon_reads.hpp"
#include "hockeystick/pld/refine/points_rules.hpp"
#include "hockeystick/pld/refine/tilted_question.hpp"

namespace hockeystick {
namespace pld {

// What the front end decides for steps 2 and 3: the refinement's rules (to half the default tolerance), its point's
// coarsest fit, its first grid and the direct-bins charge there (none where the first grid takes no direct bins), the
// charge of a grid asked again; the descent's first grid and the cap on its upper side, asked only where the descent
// is read (empty: the descent's upper side as read; the package's RDP conversion costs more than most questions'
// reads, so it is computed only for the brackets it may lower).
struct DefaultRefinementPlan {
    PointsRules rules{};
    double coarsest_fit = 0.0, first_grid = 0.0;
    std::optional<double> charge{};
    double same_grid_charge = 0.0;
    double descent_start = 0.0;
    std::function<double()> cap{};
};

// The default's bracket; step 2's refinement where it ran (its bracket, what stopped it, whether the fine read settled
// it, the grids read) and whether the fine read was made beside it.
struct DefaultEpsilon {
    double lower = 0.0, upper = std::numeric_limits<double>::infinity();
    std::optional<DefaultRefined> refined{};
    bool tried = false;
};

// The bracket of `p` at `delta` (the header's comment): `fixed` the fixed grid's bracket (none where not read),
// `fixed_add` its add direction's upper side; `plan` the front end's for steps 2 and 3 (none where it knows the fixed
// bracket within the tolerance: a wider one is then refused, std::invalid_argument); step_read(h, StepBins) ->
// std::optional<EpsilonStepRead> each grid's step read (none: its window refused); `kept` the point's reader (its
// tail p.tail), `fft` the reads' backends; `policy` step 7's grid policy, `caps` the finer grids'.  Throws what the
// step reads throw.
template <class StepRead>
DefaultEpsilon default_epsilon(const FineEpsilonPoint& p, double delta, std::optional<std::pair<double, double>> fixed,
                               double fixed_add, const std::optional<DefaultRefinementPlan>& plan, StepRead&& step_read,
                               TiltedReader& kept, const LastReadBackends& fft, const GridPolicy& policy = {},
                               const FinerCaps& caps = FinerCaps{}) {
    const EpsilonTolerance& tol = kDefaultEpsilonTolerance;
    DefaultEpsilon out;
    double lower = fixed ? fixed->first : 0.0, upper = fixed ? fixed->second : out.upper;
    bool settled = false;
    if (!fixed || !tol.within(lower, upper)) {
        if (!plan)
            throw std::invalid_argument("default_epsilon: a bracket wider than the default tolerance needs a plan");
        RefinedPoint point;
        point.sigma = p.outputs.front().sigma;
        point.q = p.q;
        point.rounds = static_cast<double>(p.rounds);
        point.sensitivity = p.outputs.front().sensitivity;
        point.x = {delta};
        point.own = 1;
        point.coarsest_fit = plan->coarsest_fit;
        FineSettle settle{p, delta, kept, fft.tilted, fft.split};
        const DefaultRefined r = default_refinement(point, plan->rules, plan->first_grid, plan->charge,
                                                    plan->same_grid_charge, step_read, settle);
        out.refined = r;
        out.tried = settle.tried;
        settled = r.settled;
        lower = fixed ? detail::numpy_maximum(r.lower, lower) : r.lower;
        upper = fixed ? detail::numpy_minimum(r.upper, upper) : r.upper;
        if (!tol.within(lower, upper)) {  // step 3: past the plain composition's charges
            TiltedReader descent(p.sigma, p.q, p.rounds, fft.tilted, p.max_cells);
            if (p.tail > 0.0) descent.give_tail(p.tail);
            const TiltedReader::Descent d =
                descent.grid_descent(delta, lower, upper, plan->descent_start, tol.accuracy, tol.relative_accuracy);
            lower = d.lower;
            upper = plan->cap ? std::max(lower, std::min(d.upper, plan->cap())) : d.upper;
        }
    }
    std::vector<double> lo{lower}, up{upper};
    try {
        last_epsilon_reads(p, {delta}, lo, up, {fixed_add}, settled, kept, fft, policy, caps);
        out.lower = lo.front();
        out.upper = up.front();
    } catch (const std::logic_error&) {  // a discretization or window past the caps, a tilt past the doubles' moments
        out.lower = lower;
        out.upper = upper;
    } catch (const std::bad_alloc&) {  // no memory for a window: the bracket in hand
        out.lower = lower;
        out.upper = upper;
    }
    return out;
}

}  // namespace pld
}  // namespace hockeystick
