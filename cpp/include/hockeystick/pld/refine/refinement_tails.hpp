// The truncations of an accuracy= refinement's epsilon bracket, sized to the smallest delta it must resolve
// (python/hockeystick/pld/refine/truncation.py's docstring: the reasoning, and why the bracket stays certified).
// The rule's one home: the package's refinement reads it through cpp/bindings/register_pld_refine.cpp
// (truncation.tails), the C library's refinement directly (cpp/capi/refine.cpp).
//
// Over T rounds the certified upper delta rises by at most T above(t_round) + 2 t_window (above: the remove
// direction's P-mass past its integration range, pld/grid/cells.hpp's subsampled_gaussian_mass_above), and the lower
// one falls by at most as much.  Each truncation may add kTailShareOfAccuracy x accuracy / 2 of the smallest delta:
// t_round and t_window are the coarsest rungs of kTailLadder (10^(-k/4), k = 44 ... 60: 1e-11 down to 1e-15) whose
// charges stay within that budget, never below the caller's tail.  The add direction keeps the caller's tail (its
// mass past each end is tail / 2, with no factor q).  A budget that is not finite and > 0 (delta or accuracy 0,
// infinite or NaN) sizes nothing: both tails are the caller's.
#pragma once

#include <algorithm>
#include <cmath>

#include "hockeystick/pld/grid/cells.hpp"  // subsampled_gaussian_mass_above

namespace hockeystick {
namespace pld {

// The truncations' share of delta per unit of the epsilon accuracy asked.
constexpr double kTailShareOfAccuracy = 0.1;
// The ladder's exponents: 10^(-k/4) for k in [kTailLadderFirst, kTailLadderLast], coarsest first; no coarser than
// 1e-11, so the truncations stay below the round-off charge, which sets a bracket's width.
constexpr int kTailLadderFirst = 44;
constexpr int kTailLadderLast = 60;

// One round's tail and the composed windows' tail of a refinement's remove direction.
struct RefinementTails {
    double round, window;
};

// The tails (the header's comment) of `rounds` rounds of the Poisson-subsampled Gaussian (sigma / sensitivity
// `noise`, sampling rate q) where the smallest delta to resolve is `smallest`, to `accuracy`, at least `tail`.
inline RefinementTails refinement_tails(double noise, double q, double rounds, double smallest, double tail,
                                        double accuracy) {
    const double budget = 0.5 * kTailShareOfAccuracy * accuracy * smallest;
    if (!(budget > 0.0) || !std::isfinite(budget)) return {tail, tail};
    double t_round = tail, t_window = tail;
    for (int k = kTailLadderFirst; k <= kTailLadderLast; ++k) {
        const double t = std::pow(10.0, -k / 4.0);
        if (rounds * subsampled_gaussian_mass_above(noise, q, t) <= budget) {
            t_round = t;
            break;
        }
    }
    for (int k = kTailLadderFirst; k <= kTailLadderLast; ++k) {
        const double t = std::pow(10.0, -k / 4.0);
        if (2.0 * t <= budget) {
            t_window = t;
            break;
        }
    }
    return {std::max(tail, t_round), std::max(tail, t_window)};
}

}  // namespace pld
}  // namespace hockeystick
