// The last reads of the default's epsilon bracket of one point of the Poisson-subsampled Gaussian (sigma per unit
// sensitivity, 0 < q < 1, T rounds) at its deltas, after the fixed grid, the refinement to half the default tolerance
// and the tilted descent have read it (python pld/question/default_reads.py, steps 4 to 7):
// 4. the fine read (fine_epsilon.hpp's fine_epsilon_bracket) of each bracket whose fine read was not already made (a
//    point the refinement settled by it);
// where no tail was given (the point's tail 0: the tails each delta allows):
// 5. a bracket still wider than the default tolerance read by the tilted factors' ladder of the run
//    (tilted_factors.hpp's ladder_bracket) and, where still wider, by its blocks of rounds (block_reads.hpp: many
//    rounds of a rate far below the grid, where every one-round discretization inflates the loss variance by about
//    T q h); then one the fine read had left wider than the tolerance and these reads brought within it but not within
//    half of it (fine_rare_pending) has its upper side lowered to TiltedReader::rare_upper's: nothing later refines a
//    bracket within the tolerance, and over many rounds of a rate far below the grid the upper side's discretization
//    excess falls about twofold a halving of the grid;
// 6. under rare participation (q at most kTiltRareRate), rare_finer_grids.hpp's rare_finer_bracket: the finer grids
//    past the tilted windows' cap where still wider than the tolerance, the aligned cells' tight lower read where
//    within it but wider than a sixteenth of it;
// 7. a bracket still wider than the tolerance read on the first of the coarser grids kTiltFineGrids above the
//    tolerance's first grid (grid_policy.hpp's epsilon_start) whose windows fit (TiltedReader::fine_bracket over
//    grid_bracket): at a delta below the aligned cells' least, many rounds of a rare record past that first grid's
//    cap, the only tilted lower side (sigma 0.6, q 1e-5, 10^6 rounds, delta 1e-100: the max-of-outputs test's lower
//    side 25.306 raised to 31.452, 0.007 below the upper side).
// Each step reads every delta before the next step; each delta's bracket is a function of its own delta alone (every
// reader but the kept one, whose discretized rounds the fine reads of the point's deltas share, is made for one read).
// Every read is certified and intersected with the bracket given, so each answer contains the truth where the given
// one does; a read refused (a window or discretization past the caps, a tilt past the doubles' moments) leaves the
// bracket as it was.  At q = 1 (the Gaussian mechanism, closed form) every bracket is as given.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/pld/refine/block_reads.hpp"
#include "hockeystick/pld/refine/fine_epsilon.hpp"
#include "hockeystick/pld/refine/grid_policy.hpp"
#include "hockeystick/pld/refine/rare_finer_grids.hpp"
#include "hockeystick/pld/refine/split_read.hpp"
#include "hockeystick/pld/refine/tilted_factors.hpp"
#include "hockeystick/pld/refine/tilted_question.hpp"

namespace hockeystick {
namespace pld {

// The backends of the last reads: `tilted` the tilted compositions' (windows within kTiltMaxPoints: the fine read's
// own readers, the factors' ladder, the blocks' tilted rows, the rare upper read and the coarser grids), `plain` the
// blocks' untilted compositions, `finer` the rare finer grids' (windows within caps.upper_max_points), `split` the
// fine read's binomial split.
struct LastReadBackends {
    RealFftBackend& tilted;
    RealFftBackend& plain;
    RealFftBackend& finer;
    SplitComposition split;
};

namespace last_reads_detail {

// A reader of its own of the point on `fft`, its windows within `max_points`, its rounds discretized with the point's
// tail where given.
inline TiltedReader own_reader(const FineEpsilonPoint& p, RealFftBackend& fft, std::int64_t max_points) {
    TiltedReader r(p.sigma, p.q, p.rounds, fft, p.max_cells, max_points);
    if (p.tail > 0.0) r.give_tail(p.tail);
    return r;
}

// Step 5's wide read of (lower, upper) at delta: the tilted factors' ladder of the run, then, where still wider than
// `tol`, its blocks of rounds; as given where a read is refused.
inline std::pair<double, double> wide_read(const FineEpsilonPoint& p, double delta, double lower, double upper,
                                           const EpsilonTolerance& tol, const LastReadBackends& fft) {
    const OutputSegment& run = p.outputs.front();
    const std::vector<TiltedSegment> segments{{run.sigma, p.q, p.rounds, run.sensitivity}};
    try {
        TiltedFactorsReader reader(segments, fft.tilted, p.max_cells);
        std::tie(lower, upper) = reader.ladder_bracket(delta, lower, upper, tol);
        if (!tol.within(lower, upper))
            std::tie(lower, upper) = block_bracket(segments, delta, lower, upper, reader.question_tail(delta), tol,
                                                   fft.tilted, fft.plain, p.max_cells);
    } catch (const std::length_error&) {  // a discretization or window past the caps
    } catch (const std::invalid_argument&) {  // a tilt past the doubles' moments
    }
    return {lower, std::max(lower, upper)};
}

// Step 7's read of (lower, upper) at delta: the tilted bracket on the first of kTiltFineGrids coarser than the default
// tolerance's first grid whose windows fit, the upper side given the best so far.
inline std::pair<double, double> coarser_read(const FineEpsilonPoint& p, double delta, double lower, double upper,
                                              const GridPolicy& policy, const LastReadBackends& fft) {
    const OutputSegment& run = p.outputs.front();
    const double start = epsilon_start(run.sigma, p.q, static_cast<double>(p.rounds), run.sensitivity, &delta, 1,
                                       kDefaultEpsilonAccuracy, kDefaultEpsilonRelativeAccuracy, policy);
    TiltedReader reader = own_reader(p, fft.tilted, kTiltMaxPoints);
    return reader.fine_bracket(lower, upper, start, [&](double h) { return reader.grid_bracket(delta, h, upper); });
}

// Steps 5 and 6 (no tail given) of the brackets at `delta`, in place.
inline void untailed_reads(const FineEpsilonPoint& p, const std::vector<double>& delta, std::vector<double>& lower,
                           std::vector<double>& upper, const LastReadBackends& fft, const FinerCaps& caps) {
    const EpsilonTolerance tol{kDefaultEpsilonAccuracy, kDefaultEpsilonRelativeAccuracy};
    const std::size_t n = delta.size();
    std::vector<bool> wide(n);
    for (std::size_t i = 0; i < n; ++i) {
        wide[i] = !tol.within(lower[i], upper[i]);
        if (wide[i]) std::tie(lower[i], upper[i]) = wide_read(p, delta[i], lower[i], upper[i], tol, fft);
    }
    for (std::size_t i = 0; i < n; ++i)  // the rare upper read of a bracket the wide reads brought within
        if (wide[i] && fine_rare_pending(p.q, lower[i], upper[i])) {
            TiltedReader reader = own_reader(p, fft.tilted, kTiltMaxPoints);
            upper[i] = std::max(lower[i], std::min(upper[i], reader.rare_upper(delta[i], upper[i])));
        }
    if (!(p.q <= kTiltRareRate)) return;
    for (std::size_t i = 0; i < n; ++i) {  // each as asked alone: a reader of its own
        TiltedReader reader(p.sigma, p.q, p.rounds, fft.finer, p.max_cells, caps.upper_max_points);
        std::tie(lower[i], upper[i]) = rare_finer_bracket(reader, delta[i], lower[i], upper[i], fft.finer, caps);
    }
}

}  // namespace last_reads_detail

// The brackets (lower, upper) at `delta` (one size each, as add_upper: certified upper sides of the add direction's
// epsilon already known, inf where none) of point `p` read by steps 4 to 7 of the opening comment, in place;
// `fine_done` whether step 4 was made already; `kept` the point's reader of the fine reads (its tail p.tail);
// `policy` the grid policy of step 7's first grid; `caps` the finer grids' window caps.
inline void last_epsilon_reads(const FineEpsilonPoint& p, const std::vector<double>& delta, std::vector<double>& lower,
                               std::vector<double>& upper, const std::vector<double>& add_upper, bool fine_done,
                               TiltedReader& kept, const LastReadBackends& fft, const GridPolicy& policy = {},
                               const FinerCaps& caps = FinerCaps{}) {
    if (!(p.q < 1.0)) return;
    const EpsilonTolerance tol{kDefaultEpsilonAccuracy, kDefaultEpsilonRelativeAccuracy};
    const std::size_t n = delta.size();
    if (!fine_done)  // step 4
        for (std::size_t i = 0; i < n; ++i)
            std::tie(lower[i], upper[i]) =
                fine_epsilon_bracket(p, delta[i], lower[i], upper[i], add_upper[i], kept, fft.tilted, fft.split);
    if (!(p.tail > 0.0)) last_reads_detail::untailed_reads(p, delta, lower, upper, fft, caps);
    for (std::size_t i = 0; i < n; ++i)  // step 7
        if (!tol.within(lower[i], upper[i]))
            std::tie(lower[i], upper[i]) =
                last_reads_detail::coarser_read(p, delta[i], lower[i], upper[i], policy, fft);
}

}  // namespace pld
}  // namespace hockeystick
