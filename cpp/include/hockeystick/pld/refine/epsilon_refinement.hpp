// The refinement of one Poisson-subsampled Gaussian's epsilon at one delta to an accuracy: the loop of
// point_refinement.hpp from the epsilon start (grid_policy.hpp's epsilon_start at the one delta), its width the
// epsilon gap up - lo (0 where the sides are equal, +inf where only the upper side is).  A grid whose lower side was
// 0 while too wide (blind: its width the upper side's alone) gives no law: the step after it is a first step's
// (the package's many-points rule, points_rules.hpp).
#pragma once

#include <cmath>

#include "hockeystick/pld/refine/grid_policy.hpp"
#include "hockeystick/pld/refine/point_refinement.hpp"

namespace hockeystick {
namespace pld {

using RefinedEpsilon = RefinedBracket;

// A bracket at most this share of its upper side wide fixes epsilon to seven significant digits: no finer read is
// made of it.  The package reads it as _core.pld_refine.exact_relative (question.EXACT_RELATIVE, question.exact).
constexpr double kExactRelative = 1e-7;

// Whether the bracket [lower, upper] is exact: at most kExactRelative of its upper side wide.
inline bool exact_bracket(double lower, double upper) { return upper - lower <= kExactRelative * std::abs(upper); }

// The refined epsilon bracket of `rounds` rounds of the Poisson-subsampled Gaussian (noise sigma, sampling rate q,
// sensitivity) at `delta` to `accuracy` (the header's comment), each grid's bracket from bracket_at(h), a callable
// returning std::pair<double, double> (lower, upper).  0 < q < 1, 0 < delta < 1, accuracy > 0.
template <class BracketAt>
RefinedEpsilon refine_epsilon(double sigma, double q, double rounds, double sensitivity, double delta, double accuracy,
                              BracketAt&& bracket_at, const GridPolicy& g = {}, const RefinementRules& r = {}) {
    const double start = epsilon_start(sigma, q, rounds, sensitivity, &delta, 1, accuracy, 0.0, g);
    return refine_point(
        sigma, q, rounds, sensitivity, start, accuracy, bracket_at,
        [](double lower, double upper) { return lower == upper ? 0.0 : upper - lower; },
        [](double lower) { return lower > 0.0; }, g, r);
}

}  // namespace pld
}  // namespace hockeystick
