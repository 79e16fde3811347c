// Many rounds of one Poisson-subsampled Gaussian of a sampling rate far below the grid read in blocks: each block of
// rounds composed on a grid fine enough for one round's loss, moved onto a coarser grid, and the blocks composed there
// under a tilt (block_bracket).  The package's default reads a run of one kind of round still wider than the tolerance
// after the tilted factors' ladder this way (python pld/question/tilted_factors.py), and so does the C library's
// composition call on a handle of such a run (cpp/capi/pld.cpp).
//
// Where q is far below the grid h, one round's loss (spread about q sqrt(e^{1/s^2} - 1), s = sigma / sensitivity)
// sits inside a cell or two, and a one-round discretization on h inflates the loss variance of T rounds by about T h
// E|l| (T q h), which at T q = 100 rounds of q = 1e-6 is far above the composition's own T q^2 (e^{1/s^2} - 1): no
// grid within memory brackets epsilon to the default tolerance.  Here, for each neighbouring direction:
//
// 1. one round's pessimistic and optimistic PMFs on the fine grid h_f (block_grids: the largest power of 2 at most q
//    / r, r of kBlockFinePerRate; h = kBlockRatio h_f), by the connect-the-dots discretization (Doroshenko, Ghazi,
//    Kamath, Kumar, Manurangsi, PETS 2022; pld/grid/connect_dots.hpp);
// 2. B rounds of each composed on that grid (the pessimistic ones under the run's tilt, tilted_block, so that their
//    round-off stays relative to the curve read; the optimistic ones by compose_many, charged), and the remaining T
//    mod B rounds too;
// 3. the pessimistic blocks dilated onto h (pld/grid/dilation.hpp: each fine atom, raised by its round-off bound and
//    moved up by its loss shift, split between the two grid points around it so that its P-mass and its Q-mass are
//    kept, a dominating pair of the atom), so the dilated block dominates the exact composition of the discretized
//    rounds; the optimistic blocks merged onto h (pld/sampling/mean_contraction.hpp: groups whose mean of e^{-L} lands
//    on a grid point, a Jensen lower side, their charges taken off first);
// 4. T // B blocks and the remainder composed on h under the tilt that maximizes the Chernoff exponent at the epsilon
//    of interest (pld/reads/tilted.hpp), and read: upper epsilon on the pessimistic side, lower on the optimistic.
//
// Each block's merge or split costs about h^2 / 4 of loss variance against the block's own B q^2 (e^{1/s^2} - 1) >=
// kBlockCells h^2, and the fine grid's inflation B h_f E|l| is kBlockRatio times smaller than h's.  The fine one-round
// PMF must fit kBlockFineCells cells: a small sigma reaches far in loss (its sampled rounds' large losses), and there
// the blocks do not apply (std::length_error; block_bracket keeps the bracket given).  Every read is certified, and
// the answer is their intersection with the bracket given.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hockeystick/pld/compose/compose.hpp"
#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/pld/grid/dilation.hpp"
#include "hockeystick/pld/grid/grid_pmf.hpp"
#include "hockeystick/pld/grid/moments.hpp"
#include "hockeystick/pld/grid/tilt_ladders.hpp"
#include "hockeystick/pld/reads/cut_window_mass.hpp"
#include "hockeystick/pld/reads/tilted.hpp"
#include "hockeystick/pld/refine/grid_policy.hpp"
#include "hockeystick/pld/refine/tilted_factors.hpp"
#include "hockeystick/pld/refine/tilted_question.hpp"
#include "hockeystick/pld/sampling/mean_contraction.hpp"

namespace hockeystick {
namespace pld {

// The fine grid is at most q / r, r the first of these whose fine one-round PMF fits kBlockFineCells: one round's loss
// bulk spans many fine cells (its discretization inflates a round's loss variance by about h_f E|l| ~ h_f q, against
// its own q^2 (e^{1/s^2} - 1)); sigma 2 takes 256, sigma 1 16, sigma 0.8 none (its sampled rounds reach ~4 in loss).
constexpr double kBlockFinePerRate[] = {256.0, 64.0, 16.0};
// The coarse grid, kBlockRatio fine cells: a block then spans about 20 sqrt(kBlockCells) kBlockRatio fine cells (+-10
// standard deviations), within kBlockFineCells.
constexpr std::int64_t kBlockRatio = 1024;
// A block's loss variance, in coarse cells squared, at least this (the split or merge costs ~1/4 of a cell squared).
constexpr double kBlockCells = 400.0;
// The most cells of the fine one-round PMF by round_tail_span's estimate (the PMF itself may take up to four times
// that, a block's fine window kTiltMaxPoints): the blocks' cost.
constexpr std::int64_t kBlockFineCells = std::int64_t(1) << 20;
// A tilted block's entries whose untilt factor passes e^kBlockMaxUntilt are moved up to the first kept (tilted_block).
constexpr double kBlockMaxUntilt = 60.0;
// The blocks are read for sampling rates up to this: above it a one-round grid already resolves a round's loss (their
// coarse grid, ~4 q, would be the coarser) and the one-round reads are the tighter and cheaper.
constexpr double kBlockMaxRate = 2e-4;
// The most passes of the upper side, each under the exponent's tilt at the last one's answer.
constexpr int kBlockRetilts = 3;

// The fine grid h_f = 2^k, the largest at most q / r for the first r of kBlockFinePerRate whose one round's loss span
// at `tail` (grid_policy.hpp's round_tail_span) fits kBlockFineCells fine cells, and the coarse grid kBlockRatio h_f.
struct BlockGrids {
    double fine, coarse;
};

// block_grids of the header's comment; throws std::length_error where no rate fits (a small sigma reaches far in loss).
inline BlockGrids block_grids(const TiltedSegment& s, double tail) {
    const double span = round_tail_span(s.sigma, s.q, s.sensitivity, tail);
    for (const double rate : kBlockFinePerRate) {
        const double fine = std::ldexp(1.0, static_cast<int>(std::floor(std::log2(s.q / rate))));
        if (span / fine <= static_cast<double>(kBlockFineCells)) return {fine, static_cast<double>(kBlockRatio) * fine};
    }
    throw std::length_error("block_grids: one round spans more than kBlockFineCells cells of q / 16 in loss");
}

// B = 2^J, the least with B q^2 (e^{c^2 / sigma^2} - 1) >= kBlockCells h^2 (the exponent at most 700), at most the
// rounds.  Throws std::invalid_argument where a round has no loss variance.
inline std::int64_t block_rounds(const TiltedSegment& s, double h) {
    const double ratio = s.sensitivity / s.sigma;
    const double variance = s.q * s.q * std::expm1(std::min(ratio * ratio, 700.0));
    if (!(variance > 0.0)) throw std::invalid_argument("block_rounds: a round without loss variance: no block");
    const double j = std::max(0.0, std::ceil(std::log2(kBlockCells * h * h / variance)));
    if (j >= 62.0) return s.rounds;
    return std::min(std::int64_t(1) << static_cast<int>(j), s.rounds);
}

// `count` rounds of the pessimistic `pmf` composed under the tilt lam (theta = lam h per grid step; compose_tilted,
// its window cut at kTiltWindowTail past kTiltMaxPoints, its composition tail `tail`) and untilted entry by entry:
// each window entry raised by the window's entry_error, times its untilt factor e^{log_scale - theta K} raised by its
// margin (untilted_masses), so that its round-off stays relative to the curve the blocks are read under (a plain
// composition's absolute round-off, ~4e-13 a fine cell over 10^6 rounds, would sit on the block's far tail, where its
// true mass is below 1e-20).  The entries whose untilt factor passes e^kBlockMaxUntilt are dropped, and their mass with
// the mass below the window (at most the lower Chernoff bound min_lam exp(c K(-lam) + lam x) at the first entry kept,
// x its loss, over the tilts above_rung(i) / h, raised by 4 u of its terms and the exponential by 16 u) put on that
// entry; the mass above the window (chernoff_above of cut_moments) and the rounds' mass at +infinity at +infinity:
// moved up, each only raises the curve.  A pessimistic PMF on pmf's grid with the composition's loss shift (its
// entries carry their round-off: no entry error).  Throws std::invalid_argument (a tilt past the moments, no entry
// within e^kBlockMaxUntilt) or std::length_error (a window past the cap).
inline GridPMF tilted_block(const GridPMF& pmf, std::int64_t count, double lam, double tail, RealFftBackend& fft) {
    constexpr double u = tilted_detail::kUnit;
    const double theta = lam * pmf.h;
    const std::vector<CountedPmf> factor{{&pmf, count}};
    const HeldTilted side = compose_tilted_held(factor, theta, true, fft, kTiltMaxPoints, tail, kTiltWindowTail);
    const ComposedPMF& w = side.window;
    if (w.shift != 0.0) throw std::invalid_argument("tilted_block: a pessimistic window with a constant shift");
    const std::int64_t n = static_cast<std::int64_t>(w.p.size());
    std::int64_t first = 0;
    while (first < n && !(side.log_scale - theta * static_cast<double>(w.k_lo + first) <= kBlockMaxUntilt)) ++first;
    if (first == n) throw std::invalid_argument("tilted_block: no entry of the block untilts within e^kBlockMaxUntilt");
    std::vector<double> raised(static_cast<std::size_t>(n - first));
    for (std::int64_t i = first; i < n; ++i)
        raised[static_cast<std::size_t>(i - first)] = std::max(w.p[static_cast<std::size_t>(i)], 0.0) + w.entry_error;
    GridPMF out;
    out.k_lo = w.k_lo + first;
    out.h = w.h;
    out.loss_shift = w.loss_shift;
    out.p.assign(raised.size(), 0.0);
    untilted_masses(raised.data(), n - first, out.k_lo, theta, side.log_scale, side.magnitude, true, out.p.data());
    // the mass below the first entry kept: the least lower Chernoff bound over the tilts
    const double bottom = static_cast<double>(out.k_lo) * w.h;
    std::vector<double> lams(kAboveLadder), negative(kAboveLadder), k(kAboveLadder);
    for (int i = 0; i < kAboveLadder; ++i) {
        lams[i] = above_rung(i) / pmf.h;
        negative[i] = -lams[i];
    }
    grid_log_mgf(pmf.p.data(), static_cast<std::int64_t>(pmf.p.size()), pmf.k_lo, pmf.h, negative.data(), kAboveLadder,
                 k.data());
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < kAboveLadder; ++i) {
        const double lower_tail = static_cast<double>(count) * k[i];
        const double scaled = lams[i] * bottom;
        const double exponent = lower_tail + scaled + 4.0 * u * (std::fabs(lower_tail) + std::fabs(scaled));
        if (std::isfinite(exponent)) best = std::min(best, exponent);
    }
    out.p.front() += best < 0.0 ? std::exp(best) * (1.0 + 16.0 * u * (std::fabs(best) + 1.0)) : 1.0;
    const CutMoments moments = cut_moments(factor);
    const double above =
        chernoff_above(moments.lams.data(), moments.k.data(), kAboveLadder, static_cast<double>(w.k_lo + n) * w.h);
    out.p_inf = std::min(1.0, (side.p_inf + above) * (1.0 + 4.0 * u));
    return out;
}

// One direction's blocks on the coarse grid `h`: the pessimistic and the optimistic terms [(block, T // B),
// (remainder, 1)], the remainder left out where T is a multiple of B.
struct BlockTerms {
    double h = 0.0;
    std::vector<GridPMF> ups, lows;
    std::vector<std::int64_t> counts;

    std::vector<CountedPmf> terms(bool upper) const {
        std::vector<CountedPmf> out;
        const std::vector<GridPMF>& side = upper ? ups : lows;
        for (std::size_t i = 0; i < side.size(); ++i) out.push_back({&side[i], counts[i]});
        return out;
    }
};

// The coarse grid h (block_grids) and the pessimistic and the optimistic terms on it of the segment's rounds in one
// direction in blocks (the header's comment), every round discretized with `tail` on at most `max_cells` cells: the
// pessimistic blocks composed under the run's exponent tilt at `near` (tilted_block, the tilt of one round's T-fold
// composition), dilated; the optimistic ones composed by compose_many (within kTiltMaxPoints) and merged.  Where a
// block's window passes kTiltMaxPoints (many heavy-tailed rounds under a steep tilt: sigma 1, q 1e-6 at delta 1e-12),
// the coarse grid a quarter and the blocks 16 times shorter, twice at most.  Throws std::length_error where the fine
// one-round PMF passes four times kBlockFineCells or a block's window the cap at the least ratio, or where the
// discretization is refused, std::invalid_argument where a tilt is.  `fft` composes the tilted blocks, `plain` the
// optimistic ones (the package's plain compositions take a backend without long-double transforms: the same bits).
inline BlockTerms block_terms(const TiltedSegment& s, bool remove, double tail, double near, RealFftBackend& fft,
                              RealFftBackend& plain, std::int64_t max_cells) {
    const BlockGrids grids = block_grids(s, tail);  // checked before discretizing (seconds otherwise)
    TiltedReader reader(s.noise(), s.q, s.rounds, fft, max_cells);
    const TiltedReader::Direction& one = reader.direction(grids.fine, remove, tail, true);
    if (static_cast<std::int64_t>(one.upper.p.size()) > 4 * kBlockFineCells)
        throw std::length_error("block_terms: one round spans more than kBlockFineCells fine cells");
    const double lam = round_tilt(one.upper, s.rounds, near);  // the whole run's exponent tilt at near, one round's
    for (const std::int64_t ratio : {kBlockRatio, kBlockRatio / 4, kBlockRatio / 16}) {
        BlockTerms out;
        out.h = static_cast<double>(ratio) * grids.fine;
        const std::int64_t block = block_rounds(s, out.h);
        const std::int64_t count = s.rounds / block, rest = s.rounds % block;
        std::vector<std::int64_t> sizes{block};
        if (rest != 0) sizes.push_back(rest);
        std::vector<GridPMF> ups;
        std::vector<ComposedPMF> lows;
        try {
            for (const std::int64_t b : sizes) ups.push_back(tilted_block(one.upper, b, lam, tail, fft));
            const std::vector<PmfView> views{factor_view(one.lower, false)};
            std::vector<std::vector<Term>> items;
            for (const std::int64_t b : sizes) items.push_back({Term{0, b}});
            lows = compose_many(views, one.lower.h, items, false, tail, kTiltMaxPoints, plain);
        } catch (const std::length_error&) {  // a block's window past the cap: shorter blocks on a finer coarse grid
            if (ratio == kBlockRatio / 16) throw;
            continue;
        } catch (const std::invalid_argument&) {
            if (ratio == kBlockRatio / 16) throw;
            continue;
        }
        out.counts = {count};
        if (rest != 0) out.counts.push_back(1);
        for (const GridPMF& up : ups) out.ups.push_back(dilated(up, 0.0, ratio));
        for (const ComposedPMF& low : lows) {
            GridPMF merged =
                mean_contraction(low.p.data(), static_cast<std::int64_t>(low.p.size()), low.k_lo, one.lower.h, ratio,
                                 low.p_inf, low.entry_error, std::max(-low.shift, 0.0));
            merged.loss_shift = low.loss_shift;  // a mean of Y's each within e^{+-s} of the truth is too
            out.lows.push_back(std::move(merged));
        }
        return out;
    }
    throw std::logic_error("block_terms: unreachable");
}

// One direction's certified (lower, upper) epsilon at delta from its blocks (block_terms): the upper side under the
// exponent's tilt at `near` (an epsilon near the answer), then again at the upper side found while it falls by more
// than a hundredth of the tolerance (at most kBlockRetilts passes: a tilt far from the answer reads loosely, sigma 2,
// q 1e-6, 10^8 rounds at delta 1e-12 from near 1e-9: 0.0414, then 0.03185), each window past kTiltMaxPoints cut at
// kTiltWindowTail; the lower side under the tilt at the upper side.  Throws as block_terms, or where the lower side's
// window passes the cap.
inline std::pair<double, double> direction_block_bracket(const TiltedSegment& s, bool remove, double tail, double delta,
                                                         double near, const EpsilonTolerance& tol, RealFftBackend& fft,
                                                         RealFftBackend& plain, std::int64_t max_cells) {
    const BlockTerms blocks = block_terms(s, remove, tail, near, fft, plain, max_cells);
    const std::vector<CountedPmf> ups = blocks.terms(true), lows = blocks.terms(false);
    double up = std::numeric_limits<double>::infinity();
    for (int pass = 0; pass < kBlockRetilts; ++pass) {  // each under the exponent's tilt at the best upper side so far
        const double lam = exponent_tilt(ups, std::isfinite(up) ? up : near);
        const TiltedComposition side =
            compose_tilted(ups, lam * blocks.h, true, fft, kTiltMaxPoints, kDefaultCompositionTail, kTiltWindowTail);
        const double found = upper_epsilon(side, delta, std::min(up, side.top()));
        if (!(found < up)) break;
        const bool done = std::isfinite(up) && up - found <= 0.01 * tol.at(found);
        up = found;
        if (done) break;
    }
    if (!(std::isfinite(up) && up > 0.0)) return {0.0, up};
    const TiltedComposition low = compose_tilted(lows, exponent_tilt(lows, up) * blocks.h, false, fft, kTiltMaxPoints);
    return {lower_epsilon(low, delta, up), up};
}

// (lower, upper), a certified epsilon bracket at delta of the run `segments`, intersected with the blocks' bracket of
// its one segment (direction_block_bracket, the maximum over the directions on each side), read near the middle of
// the bracket given (or its lower side where the upper is not finite), every round discretized with `tail` on at most
// `max_cells` cells; as given for several segments, a sampling rate above kBlockMaxRate, a lower side not above 0 or
// where the blocks do not apply (a discretization, a window or a tilt refused); `fft` and `plain` as block_terms'.
// Certified: every read is.
inline std::pair<double, double> block_bracket(const std::vector<TiltedSegment>& segments, double delta, double lower,
                                               double upper, double tail, const EpsilonTolerance& tol,
                                               RealFftBackend& fft, RealFftBackend& plain, std::int64_t max_cells) {
    if (segments.size() != 1 || !(lower > 0.0)) return {lower, upper};
    const TiltedSegment& s = segments.front();
    if (!(s.q <= kBlockMaxRate)) return {lower, upper};
    const double near = std::isfinite(upper) ? 0.5 * (lower + upper) : lower;
    double most_lower = 0.0, most_upper = 0.0;
    try {
        for (const bool remove : {true, false}) {
            const std::pair<double, double> b =
                direction_block_bracket(s, remove, tail, delta, near, tol, fft, plain, max_cells);
            most_lower = remove ? b.first : std::max(most_lower, b.first);
            most_upper = remove ? b.second : std::max(most_upper, b.second);
        }
    } catch (const std::length_error&) {  // a discretization or window past the caps
        return {lower, upper};
    } catch (const std::invalid_argument&) {  // a tilt past the doubles' moments, or no block
        return {lower, upper};
    } catch (const std::domain_error&) {  // a discretization refused
        return {lower, upper};
    }
    lower = std::max(lower, most_lower);
    upper = std::min(upper, most_upper);
    return {lower, std::max(lower, upper)};
}

}  // namespace pld
}  // namespace hockeystick
