// The default's fine epsilon read of one point (sigma per unit sensitivity, 0 < q < 1, T rounds of the
// Poisson-subsampled Gaussian): each epsilon bracket at a delta, not yet exact, read finer than the peers' default
// grid, as its delta is (fine_delta.hpp).  The package's default reads it after the plain composition's and the tilted
// grids' brackets (python pld/question/default_reads.py, step 4).
//
// Per bracket (lower, upper) at delta:
// 1. where not both finite and exact, the lower side raised to the max-of-outputs test's where higher
//    (pld/reads/max_of_outputs.hpp: certified, from the largest released value against a threshold; at sigma 0.6,
//    q 1e-5, 10^6 rounds, delta 1e-10 it is 1.0716 where the PLD reads' lower side is 0.911); a bracket then exact,
//    or with an infinite upper side, is not read further;
// 2. the upper side lowered to TiltedReader::fine_read's (each direction's pessimistic rounds on kTiltFineUpperGrids,
//    half the peers' 1e-4 and theirs, composed under the Chernoff exponent's tilt at the upper side; the add direction
//    not read where a certified upper side of its epsilon already known, or its screen, shows it at most the remove
//    direction's answer), by a reader of its own;
// 3. where still not exact with a positive lower side, intersected with the split read of few sampled rounds
//    (split_read.hpp's split_epsilon_read on the fine grid, T q at most kTiltSplitSampledRounds), by the point's kept
//    reader, whose discretized rounds the reads of other deltas share;
// 4. where still wider than the default tolerance, the lower side raised to the aligned cells' (aligned_lower.hpp's
//    aligned_lower_side: rare participation, q at most kAlignedRareRate);
// 5. where the upper side was read on the fine grid and the bracket, under rare participation (q at most
//    kTiltRareRate), is now within the tolerance but wider than half of it (fine_rare_pending), the upper side lowered
//    to TiltedReader::rare_upper's (the finer rare grids, uncut windows), by a reader of its own.
// Every read is certified, so each bracket is the intersection of the reads with the one given.  At q = 1 (the
// Gaussian mechanism, closed form) every bracket is as given.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/pld/reads/max_of_outputs.hpp"
#include "hockeystick/pld/refine/aligned_lower.hpp"
#include "hockeystick/pld/refine/epsilon_refinement.hpp"
#include "hockeystick/pld/refine/epsilon_tolerance.hpp"
#include "hockeystick/pld/refine/rare_delta_grids.hpp"
#include "hockeystick/pld/refine/split_read.hpp"
#include "hockeystick/pld/refine/tilted_question.hpp"

namespace hockeystick {
namespace pld {

// The grid of the fine read and of the split read: half the peers' default 1e-4.
constexpr double kFineEpsilonGrid = kTiltFineUpperGrids[0];

// The point the fine epsilon read takes: sigma per unit sensitivity, the sampling rate and the rounds the tilted reads
// compose; the run as the max-of-outputs test reads it (its sigma and sensitivity as given); the tail of every
// direction's rounds (0: the tails each delta allows) and the cap on a direction's loss cells.
struct FineEpsilonPoint {
    double sigma = 1.0;
    double q = 0.5;
    std::int64_t rounds = 1;
    std::vector<OutputSegment> outputs;
    double tail = 0.0;
    std::int64_t max_cells = 0;
};

namespace fine_epsilon_detail {

// Whether [lower, upper] is within the default tolerance scaled by `share`.
inline bool within(double lower, double upper, double share = 1.0) {
    return kDefaultEpsilonTolerance.scaled(share).within(lower, upper);
}

// A reader of its own of the point, on `fft`, its rounds discretized with the point's tail where given.
inline TiltedReader own_reader(const FineEpsilonPoint& p, RealFftBackend& fft) {
    TiltedReader r(p.sigma, p.q, p.rounds, fft, p.max_cells);
    if (p.tail > 0.0) r.give_tail(p.tail);
    return r;
}

}  // namespace fine_epsilon_detail

// Whether a bracket the fine read left is read again on the rare grids (step 5 of the opening comment): rare
// participation (q at most kTiltRareRate) and a bracket within the default tolerance but wider than the refinement's
// target, half of it.  Within the tolerance no later read of the default's refines it, so its upper side would keep
// the fine grid's discretization excess, which over many rounds of a rate far below the grid can pass the peers'
// estimate on the grid twice coarser; within half of it the upper side is as close to the truth as the refined
// default's, and the read would lower it by less than the width at up to half the point's cost.
inline bool fine_rare_pending(double q, double lower, double upper) {
    return q <= kTiltRareRate && fine_epsilon_detail::within(lower, upper) &&
           !fine_epsilon_detail::within(lower, upper, 0.5);
}

// The bracket (lower, upper) at delta read as the opening comment says; `add_upper` a certified upper side of the add
// direction's epsilon at delta already known (inf: none), `kept` the point's reader for the split read, `fft` the
// backend of the reads' own readers and of the aligned read, `split` the split's composition.
inline std::pair<double, double> fine_epsilon_bracket(const FineEpsilonPoint& p, double delta, double lower,
                                                      double upper, double add_upper, TiltedReader& kept,
                                                      RealFftBackend& fft, const SplitComposition& split) {
    if (!(p.q < 1.0)) return {lower, upper};
    if (!(std::isfinite(upper) && exact_bracket(lower, upper))) {  // the max-of-outputs bound where higher
        lower = std::max(lower, max_of_outputs_epsilon(p.outputs, delta));
        upper = std::max(lower, upper);
    }
    if (exact_bracket(lower, upper) || !std::isfinite(upper)) return {lower, upper};
    TiltedReader::UpperRead read{upper, 0.0};
    {
        TiltedReader own = fine_epsilon_detail::own_reader(p, fft);
        read = own.fine_read(delta, upper, add_upper, lower);
    }
    upper = std::max(lower, read.upper);
    const std::pair<double, double> b = split_epsilon_read(kept, delta, kFineEpsilonGrid, lower, upper, split);
    lower = b.first;
    upper = b.second;
    if (!fine_epsilon_detail::within(lower, upper)) {  // rare participation's lower side
        const auto wide = [](double lo, double up) { return !fine_epsilon_detail::within(lo, up); };
        lower = aligned_lower_side(p.sigma, p.q, p.rounds, delta, lower, upper, round_tilt, wide, fft, kTiltMaxPoints);
    }
    if (read.grid == kFineEpsilonGrid && fine_rare_pending(p.q, lower, upper)) {
        TiltedReader own = fine_epsilon_detail::own_reader(p, fft);
        upper = std::max(lower, std::min(upper, own.rare_upper(delta, upper)));
    }
    return {lower, upper};
}

}  // namespace pld
}  // namespace hockeystick
