// The geometric ladders of tilts lam that the tilted reads and their Chernoff bounds try, one arithmetic for the
// package and the C library: rung i of a ladder of n from `least` to `most` is
//
//     e^{i (b - a) / (n - 1) + a},        a = log(least), b = log(most),        the last rung e^b,
//
// each rung from its index alone (numpy's linspace arithmetic: the ladder ends at b exactly), its logarithms and
// exponentials libm's.  Any tilt gives a certified bound: a ladder only chooses which are tried.
#pragma once

#include <cmath>

namespace hockeystick {
namespace pld {

// The tilts lam = theta / h a tilted read's best tilt is searched among (pld/refine/tilted_question.hpp's best_tilt):
// kTiltLadder rungs from kTiltLeast to kTiltMost.
constexpr int kTiltLadder = 481;
constexpr double kTiltLeast = 1e-2;
constexpr double kTiltMost = 1e6;
// The tilts per grid step lam h of the Chernoff bound on the composed mass above a window cut short (the package's
// compose/tilted.py summed_moments): kAboveLadder rungs from kAboveLeast to kAboveMost; any is valid, the least bound
// is kept.
constexpr int kAboveLadder = 97;
constexpr double kAboveLeast = 1e-6;
constexpr double kAboveMost = 5.0;

// Rung i (0 <= i < count, count >= 2) of the geometric ladder from `least` to `most` (the header's formula).
inline double geometric_rung(double least, double most, int count, int i) {
    const double a = std::log(least), b = std::log(most);
    if (i == count - 1) return std::exp(b);
    return std::exp(static_cast<double>(i) * ((b - a) / static_cast<double>(count - 1)) + a);
}

// The search ladder's rung i.
inline double tilt_rung(int i) { return geometric_rung(kTiltLeast, kTiltMost, kTiltLadder, i); }

// The cut window's Chernoff ladder's rung i (a tilt per grid step).
inline double above_rung(int i) { return geometric_rung(kAboveLeast, kAboveMost, kAboveLadder, i); }

}  // namespace pld
}  // namespace hockeystick
