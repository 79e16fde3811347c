// How wide an epsilon bracket may be: max(accuracy, relative_accuracy eps), and the default's tolerance, which the
// package's default reads and the C library's calls at their default accuracy stop at (python
// pld/refine/question.py's DEFAULT_ACCURACY and DEFAULT_RELATIVE_ACCURACY read the constants).
#pragma once

#include <algorithm>
#include <cmath>

namespace hockeystick {
namespace pld {

constexpr double kDefaultEpsilonAccuracy = 1e-3;
constexpr double kDefaultEpsilonRelativeAccuracy = 2.5e-4;

// max(accuracy, relative_accuracy eps), eps read as 0 where infinite.
struct EpsilonTolerance {
    double accuracy, relative_accuracy;

    double at(double eps) const { return std::max(accuracy, relative_accuracy * (std::isfinite(eps) ? eps : 0.0)); }

    // Whether [lower, upper] is no wider than the tolerance at upper (an exact bracket always is, one with an infinite
    // upper side over a finite lower side never).
    bool within(double lower, double upper) const { return (lower == upper ? 0.0 : upper - lower) <= at(upper); }

    // The tolerance scaled by `share` (both of its terms).
    constexpr EpsilonTolerance scaled(double share) const { return {share * accuracy, share * relative_accuracy}; }
};

constexpr EpsilonTolerance kDefaultEpsilonTolerance{kDefaultEpsilonAccuracy, kDefaultEpsilonRelativeAccuracy};

}  // namespace pld
}  // namespace hockeystick
