// The refinement of one Poisson-subsampled Gaussian's epsilon at one delta to an accuracy: the loop of
// point_refinement.hpp from the epsilon start (grid_policy.hpp's epsilon_start at the one delta), its width the
// epsilon gap up - lo (0 where the sides are equal, +inf where only the upper side is), in the units of the tolerance
// max(accuracy, relative_accuracy up) where a relative accuracy is asked (epsilon_width, the many-points rules' width
// too: points_rules.hpp).  A grid whose lower side was 0 while too wide (blind: its width the upper side's alone)
// gives no law: the step after it is a first step's (the package's many-points rule, points_rules.hpp).
#pragma once

#include <cmath>

#include "hockeystick/pld/reads/hockey_stick.hpp"  // detail::numpy_maximum
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

// The width of the epsilon bracket [lower, upper] in the units of `accuracy`: the gap up - lo (0 where the sides are
// equal), times accuracy / max(accuracy, relative_accuracy up) where relative_accuracy > 0 (up read as 0 where
// infinite), so that the bracket meets the tolerance max(accuracy, relative_accuracy up) where it is at most
// `accuracy`.  numpy's maximum, as the many-points rules take it (points_rules.hpp's points_width).
inline double epsilon_width(double lower, double upper, double accuracy, double relative_accuracy) {
    double width = lower == upper ? 0.0 : upper - lower;
    if (relative_accuracy > 0) {
        const double eps = std::isfinite(upper) ? upper : 0.0;
        width = width * (accuracy / detail::numpy_maximum(accuracy, relative_accuracy * eps));
    }
    return width;
}

// The refined epsilon bracket of `rounds` rounds of the Poisson-subsampled Gaussian (noise sigma, sampling rate q,
// sensitivity) at `delta` to `accuracy`, or with `relative_accuracy` > 0 to max(accuracy, relative_accuracy eps) (the
// header's comment), each grid's bracket from bracket_at(h), a callable returning std::pair<double, double> (lower,
// upper).  0 < q < 1, 0 < delta < 1, accuracy > 0, relative_accuracy >= 0.
template <class BracketAt>
RefinedEpsilon refine_epsilon(double sigma, double q, double rounds, double sensitivity, double delta, double accuracy,
                              BracketAt&& bracket_at, const GridPolicy& g = {}, const RefinementRules& r = {},
                              double relative_accuracy = 0.0) {
    const double start = epsilon_start(sigma, q, rounds, sensitivity, &delta, 1, accuracy, relative_accuracy, g);
    return refine_point(
        sigma, q, rounds, sensitivity, start, accuracy, bracket_at,
        [accuracy, relative_accuracy](double lower, double upper) {
            return epsilon_width(lower, upper, accuracy, relative_accuracy);
        },
        [](double lower) { return lower > 0.0; }, g, r);
}

}  // namespace pld
}  // namespace hockeystick
