// Where the default's fixed grid answers: the plain composition of T rounds of rate q on a grid h with `tail` cut from
// each round, read first by the default epsilon chain (its step 1: python pld/question/default_reads.py through
// pld/refine/question.py's fixed_grid_fits, and the C library's epsilon call, cpp/capi/refine.cpp) on h = the peers'
// 1e-4, and read where a caller's grid is given unless it misses (default_reads.py's grid_sides).
//
//   plain_grid_misses  the composition on h cannot answer at the scale `delta`, however fine h is: delta below
//                      kDeltaFloor (the window's round-off charges and the mass sent to infinity reach it), the
//                      tail of T rounds above the question tail's share of delta (T tail at +infinity on the upper
//                      side), or q below the grid (the remove direction's one-round loss spans less than a cell);
//   fixed_grid_fits    no delta asked misses on h, and h is no coarser than the grid the connect-the-dots model
//                      (grid_policy.hpp's epsilon_start) asks of the default tolerance at the deltas asked.
//
// Nothing here is certified or uncertified: it chooses whether a grid's certified bracket is read first.
#pragma once

#include <cstdint>

#include "hockeystick/pld/refine/epsilon_tolerance.hpp"
#include "hockeystick/pld/refine/grid_policy.hpp"

namespace hockeystick {
namespace pld {

// The default's fixed grid: the peers' default interval (python pld/mechanisms/constructors.py's DEFAULT_INTERVAL).
constexpr double kFixedGridInterval = 1e-4;

// The least delta a plain composition answers, and so the floor of the relative delta width (up - lo) / max(up, floor)
// (python pld/refine/constants.py's DELTA_FLOOR; delta_refinement.hpp, accuracy_delta.hpp and the C library's delta
// call read it).
constexpr double kDeltaFloor = 1e-9;

// Whether the plain composition of `rounds` rounds of rate q on grid h, `tail` cut from each round, misses at the
// scale `delta` (the header's comment).
inline bool plain_grid_misses(double q, double rounds, double delta, double tail, double h, const TailPolicy& t = {}) {
    if (q < h) return true;
    return delta < kDeltaFloor || rounds * tail > t.share * delta;
}

// Whether the fixed grid h is read first for the n deltas asked of (sigma, q, rounds, sensitivity) (the header's
// comment): true for no delta.
inline bool fixed_grid_fits(double sigma, double q, double rounds, double sensitivity, const double* delta,
                            std::int64_t n, double tail, double h = kFixedGridInterval, const GridPolicy& g = {}) {
    if (n == 0) return true;
    for (std::int64_t i = 0; i < n; ++i)
        if (plain_grid_misses(q, rounds, delta[i], tail, h)) return false;
    const EpsilonTolerance& d = kDefaultEpsilonTolerance;
    return epsilon_start(sigma, q, rounds, sensitivity, delta, n, d.accuracy, d.relative_accuracy, g) >= h;
}

}  // namespace pld
}  // namespace hockeystick
