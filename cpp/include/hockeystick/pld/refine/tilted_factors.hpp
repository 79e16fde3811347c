// The brackets of a run of several kinds of Poisson-subsampled Gaussian rounds (each its own sigma, sensitivity,
// sampling rate and count) at a delta near or below the composition's round-off, read under an exponential tilt: the
// reads of the package's default for such a run (its front ends are python/hockeystick/pld/question/tilted_factors.py
// and tilted_factors_delta.py, which take the blocks of rounds of one segment, block_reads.hpp, and the split read of
// few sampled rounds, split_read.hpp, beside them) and of the C library's composition calls on a handle that
// describes one (cpp/capi/pld.cpp).
//
// As for one kind of round (tilted_question.hpp), the FFT composition's round-off charge, about T u of the total mass
// after T rounds, keeps a bracket at a delta near or below it wide on every grid; the tilted composition
// (pld/reads/tilted.hpp) composes the factors under one tilt theta with the normalizer prod_i M_i^{c_i} and carries
// the charge relative to the Chernoff bound at theta.  The neighbouring relation holds for the whole run, so a
// direction is every factor's remove pair or every factor's add pair.  Per direction (direction_bracket), the
// pessimistic PMFs are composed under the tilt minimizing the Chernoff epsilon (K(lam) + log(E / delta)) / lam, K(lam)
// = sum_i c_i K_i(lam) the summed log-moments and E = kTiltRoundOffPerRound T, T = sum_i c_i (chernoff_tilt), and
// again under the tilt maximizing lam eps - K(lam) at the best upper epsilon so far (exponent_tilt); a window past the
// cap is cut at kTiltWindowTail, its mass above charged by its Chernoff bound.  The optimistic PMFs are composed under
// the latter tilt at the upper epsilon found.  The bracket is the maximum over the directions on each side, the add
// direction composed only where a cheaper bound does not put its epsilon below the remove direction's upper side
// (screened_bracket, add_below: then eps = max(eps_remove, eps_add) lies in the remove direction's bracket).
//
// The grids (factor_ladder): from a start grid down by kTiltGridStep while each grid's own bracket (read from nothing,
// so that a coarse grid looser than the bracket given does not end the ladder) has its upper side fall by a quarter
// of the tolerance from the grid before's and the bracket held is wider than the tolerance, at most kTiltGrids grids;
// every bracket found is certified and the answer is their intersection with the one given.  The ladder ends before a
// grid whose windows would be refused: one at most a grid refused already, or one where the remove direction's
// windows cut at kTiltWindowTail on the grid before, scaled by kTiltGridStep (a window's span in loss is about the same
// on every grid), pass kTiltRefusedRatio times the cap.  Where the start grid's windows pass the cap (many rounds of a
// heavy-tailed loss: sigma 0.6, q 1e-5, 10^6 rounds at delta 1e-10 spans ~114 in loss under the exponent's tilt, 1.6e7
// points on the start grid 7e-6), the grids from the start up by kTiltGridStep to kTiltPeersInterval are tried, the
// first that fits read and no finer one after it (coarse_to_fine).
//
// Around the ladder (ladder_bracket, fine_bracket): the lower side first raised to the max-of-outputs test's
// (pld/reads/max_of_outputs.hpp, certified, no grid); after it, where not yet exact, the tilted bracket on half the
// peers' grid; under rare participation (every rate at most kTiltRareRate) where still wider than the tolerance, the
// upper side read on finer grids under a larger cap and the lower side by the aligned cells of every kind composed
// (rare_bracket, aligned_run_read: aligned_lower.hpp's convex-order bound, kept by convolution).
//
// delta at eps (delta_read): each direction's pessimistic PMFs composed under the exponent's tilt at eps and read
// there, and, where the bracket is still wide, its optimistic PMFs under the same tilt of their own; the add
// direction's 0 at and past add_pure_epsilon (pure DP in that direction).
//
// Every tilt gives a certified read (tilted.hpp): the tilts choose where the charge is least, never validity.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "hockeystick/numerics/correctly_rounded.hpp"
#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/pld/reads/tilted.hpp"
#include "hockeystick/pld/reads/max_of_outputs.hpp"
#include "hockeystick/pld/refine/aligned_lower.hpp"
#include "hockeystick/pld/refine/epsilon_refinement.hpp"
#include "hockeystick/pld/refine/epsilon_tolerance.hpp"
#include "hockeystick/pld/refine/grid_policy.hpp"
#include "hockeystick/pld/refine/rare_delta_grids.hpp"
#include "hockeystick/pld/refine/tilted_question.hpp"

namespace hockeystick {
namespace pld {

// The coarsest grid the ladder climbs to where its start grid's windows pass the cap: the peers' default grid
// (dp_accounting's 1e-4).
constexpr double kTiltPeersInterval = 1e-4;

// One kind of round of a run: `rounds` rounds of the Poisson-subsampled Gaussian of noise `sigma`, sensitivity
// `sensitivity` and sampling rate q in (0, 1).
struct TiltedSegment {
    double sigma = 1.0;
    double q = 0.5;
    std::int64_t rounds = 1;
    double sensitivity = 1.0;

    // The noise per unit sensitivity, which the round's privacy loss depends on alone.
    double noise() const { return sigma / sensitivity; }
};

// An epsilon past which the add direction of the run has delta 0: each round's add loss -log(1 - q + q e^{(2 x c -
// c^2) / (2 sigma^2)}) is at most -log(1 - q) whatever sigma and the sensitivity c, so the run's is at most sum_i c_i
// log(1 / (1 - q_i)), summed correctly rounded (exact_sum) and rounded up by (k + 8) u for the k terms' logarithms and
// products and the sum's rounding.
inline double add_pure_epsilon(const std::vector<TiltedSegment>& segments) {
    std::vector<double> terms;
    for (const TiltedSegment& s : segments) terms.push_back(static_cast<double>(s.rounds) * -std::log1p(-s.q));
    const double k = static_cast<double>(segments.size());
    return exact_sum(terms.data(), static_cast<std::int64_t>(terms.size())) * (1.0 + (k + 8.0) * tilted_detail::kUnit);
}

// The ladder of grids of the header's comment from `h`: read(h, cut) is one grid's own bracket (the points of the
// remove direction's upper windows cut at kTiltWindowTail appended to `cut`), throwing std::length_error or
// std::invalid_argument where its windows are refused; `refused` a grid refused already (0: none), `max_points` the
// window cap.  The first grid's refusal is thrown; a later one ends the ladder.
template <class Read>
std::pair<double, double> factor_ladder(double lower, double upper, double h, double refused,
                                        const EpsilonTolerance& tol, std::int64_t max_points, Read&& read) {
    double own_before = std::numeric_limits<double>::infinity();
    for (int step = 0; step < kTiltGrids; ++step) {
        std::vector<std::int64_t> cut;
        std::pair<double, double> own;
        try {
            own = read(h, cut);
        } catch (const std::length_error&) {  // past the caps
            if (step == 0) throw;
            break;
        } catch (const std::invalid_argument&) {  // a tilt past the doubles' moments
            if (step == 0) throw;
            break;
        }
        lower = std::max(lower, own.first);
        upper = std::min(upper, own.second);
        if (tol.within(lower, upper) || !(own_before - own.second > 0.25 * tol.at(own.second))) break;
        const double finer = h / kTiltGridStep;
        const bool cut_past =
            !cut.empty() && static_cast<double>(*std::min_element(cut.begin(), cut.end())) * kTiltGridStep >
                                kTiltRefusedRatio * static_cast<double>(max_points);
        if (finer <= refused * (1.0 + 1e-9) || cut_past) break;
        own_before = own.second;
        h = finer;
    }
    return {lower, std::max(lower, upper)};
}

// A certified lower bound on epsilon(delta) of the run `kinds` (each kind's rounds of the Poisson-subsampled Gaussian
// of sigma per unit sensitivity s_i and rate q_i), remove direction (delta is the larger of the two directions'
// curves, so it bounds the run's delta too), on grid h, searched below `near` (an upper side); 0 where none is found.
// Each kind's round is replaced by its aligned cells' PMF a_i with offset b_i (aligned_lower.hpp: a_i shifted by b_i is
// below the round's loss in the convex order), and the convex order is kept by convolution of independent rounds, so
// the run's loss is above the composition of the c_i copies of every a_i shifted by B = sum_i c_i b_i; f(L) = (1 -
// e^{eps - L})_+ is convex and nondecreasing, so the composition's optimistic side read at eps - B bounds delta from
// below.  That composition is taken under the Chernoff exponent's tilt at near - B (exponent_tilt of the aligned
// PMFs), its window's tails as aligned_composed's.  B is summed correctly rounded from the products c_i b_i (each
// within u), so within 2 u of sum_i |c_i b_i|; the search starts 4 u of the magnitudes lower and the bound found is lowered by 4 u
// of them.  Throws std::length_error where no tail's window fits (or past kAlignedMaxCells cells),
// std::domain_error (an edge not certified) or std::invalid_argument (a tilt past the doubles' moments).
inline double aligned_run_read(const std::vector<TiltedSegment>& kinds, double delta, double near, double h,
                               RealFftBackend& fft, std::int64_t max_points) {
    constexpr double u = tilted_detail::kUnit;
    std::vector<AlignedPmf> aligned;
    std::vector<double> moves;
    double magnitude = 0.0;
    for (const TiltedSegment& k : kinds) {
        aligned.push_back(aligned_pmf(k.noise(), k.q, h));
        moves.push_back(static_cast<double>(k.rounds) * aligned.back().offset);
        magnitude += std::fabs(moves.back());
    }
    const double moved = exact_sum(moves.data(), static_cast<std::int64_t>(moves.size()));
    std::vector<CountedPmf> factors;
    for (std::size_t i = 0; i < kinds.size(); ++i) factors.push_back({&aligned[i].pmf, kinds[i].rounds});
    const double theta = exponent_tilt(factors, near - moved) * h;
    const TiltedComposition composed = aligned_composed(factors, theta, delta, fft, max_points).first;
    const double found = lower_epsilon(composed, delta, near - (moved + 4.0 * u * magnitude));
    if (!(found > 0.0)) return 0.0;
    return std::max(0.0, found + moved - 4.0 * u * (std::fabs(found) + magnitude));
}

// The tilted reads of one run of several kinds of round (the header's comment), each kind's rounds discretized by its
// own TiltedReader (one direction, grid and tail at a time) and freed after each public read.  `fft` is the
// composition's backend; `max_cells` caps a round's loss cells, `max_points` a tilted window (std::length_error past
// either).
class TiltedFactorsReader {
  public:
    TiltedFactorsReader(const std::vector<TiltedSegment>& segments, RealFftBackend& fft, std::int64_t max_cells,
                        std::int64_t max_points = kTiltMaxPoints)
        : segments_(segments), fft_(fft), max_points_(max_points), pure_add_(add_pure_epsilon(segments)) {
        if (segments.empty())
            throw std::invalid_argument("TiltedFactorsReader: a run needs at least one kind of round");
        for (const TiltedSegment& s : segments) {
            if (s.rounds < 1) throw std::invalid_argument("TiltedFactorsReader: each kind of round needs rounds >= 1");
            readers_.push_back(std::make_unique<TiltedReader>(s.noise(), s.q, s.rounds, fft, max_cells, max_points));
        }
    }

    // The add direction's pure epsilon (add_pure_epsilon).
    double pure_add_epsilon() const { return pure_add_; }

    // Each kind's one round in the remove direction on grid h with `tail`, both sides discretized, and its rounds: (the
    // pessimistic PMFs, the optimistic ones), held until forget_rounds or the next read (split_read.hpp's split).
    std::pair<std::vector<CountedPmf>, std::vector<CountedPmf>> remove_sides(double h, double tail) {
        std::vector<CountedPmf> ups = sides(true, h, tail, true, false);
        return {std::move(ups), sides(true, h, tail, true, true)};
    }

    // Frees every kind's discretized rounds.
    void forget_rounds() {
        for (const std::unique_ptr<TiltedReader>& r : readers_) r->forget_rounds();
    }

    // The certified (lower, upper) epsilon at delta of one direction's composition on grid h, every round
    // discretized with `tail`, `upper` the best upper side so far (inf: none): the upper side under the Chernoff tilt,
    // then the lesser of it and the upper side under the exponent's tilt at the best so far (the points of each upper
    // window cut at kTiltWindowTail appended to `cut` where given); the lower side under the exponent's tilt at that
    // upper side, 0 where its window passes the cap or its tilt overflows a moment.  Throws where an upper window is
    // refused.
    std::pair<double, double> direction_bracket(bool remove, double h, double tail, double delta, double upper,
                                                std::vector<std::int64_t>* cut = nullptr) {
        const Forget forget{*this};
        const std::vector<CountedPmf> ups = sides(remove, h, tail, true, false);
        double up = upper_side(ups, chernoff_tilt(ups, delta), h, delta, upper, cut);
        if (std::isfinite(std::min(up, upper)))  // re-tilted at the Chernoff exponent of the best upper side so far
            up = std::min(up, upper_side(ups, exponent_tilt(ups, std::min(up, upper)), h, delta, up, cut));
        if (!(std::isfinite(up) && up > 0.0)) return {0.0, up};
        const std::vector<CountedPmf> lows = sides(remove, h, tail, true, true);
        try {
            const TiltedComposition low = compose_tilted(lows, exponent_tilt(lows, up) * h, false, fft_, max_points_);
            return {lower_epsilon(low, delta, up), up};
        } catch (const std::length_error&) {  // a window past the cap: no lower side here
            return {0.0, up};
        } catch (const std::invalid_argument&) {  // a tilt past the doubles' moments: no lower side here
            return {0.0, up};
        }
    }

    // Whether the add direction's epsilon at delta is certified at most eps: eps at least add_pure_epsilon, or its
    // pessimistic rounds, on a grid kTiltScreenCoarsening times coarser than h (at most max_interval) under the
    // exponent's tilt at eps (a window past the cap cut at kTiltWindowTail), certify delta(eps) <= delta.
    bool add_below(double eps, double h, double tail, double delta) {
        if (eps >= pure_add_) return true;
        const Forget forget{*this};
        const double coarse = TiltedReader::screen_interval(h);
        const std::vector<CountedPmf> ups = sides(false, coarse, tail, false, false);
        return compose_tilted(ups, exponent_tilt(ups, eps) * coarse, true, fft_, max_points_, kDefaultCompositionTail,
                              kTiltWindowTail)
                   .delta(eps) <= delta;
    }

    // (lower, upper) intersected with the tilted bracket on grid h: the maximum over the directions on each side, the
    // add direction read only where add_below does not show its epsilon below the remove direction's upper side (the
    // points of the remove direction's windows cut at kTiltWindowTail appended to `cut` where given).  Throws where a
    // window or a discretization is refused.
    std::pair<double, double> screened_bracket(double delta, double lower, double upper, double h, double tail,
                                               std::vector<std::int64_t>* cut = nullptr) {
        const std::pair<double, double> remove = direction_bracket(true, h, tail, delta, upper, cut);
        std::pair<double, double> most = remove;
        if (!(std::isfinite(remove.second) && add_below(remove.second, h, tail, delta))) {
            const std::pair<double, double> add = direction_bracket(false, h, tail, delta, upper);
            most = {std::max(remove.first, add.first), std::max(remove.second, add.second)};
        }
        return {std::max(lower, most.first), std::min(upper, most.second)};
    }

    // screened_bracket, or (lower, upper) as given where a window or a discretization is refused (the fine read after
    // the ladder).
    std::pair<double, double> screened_or_given(double delta, double lower, double upper, double h, double tail) {
        try {
            return screened_bracket(delta, lower, upper, h, tail);
        } catch (const std::length_error&) {  // past the caps
        } catch (const std::invalid_argument&) {  // a tilt past the doubles' moments
        }
        return {lower, upper};
    }

    // (lower, upper) at delta intersected with the ladder's brackets from grid h (factor_ladder over
    // screened_bracket's own brackets), or, where h's windows are refused, from the first coarser grid of h
    // kTiltGridStep^k up to kTiltPeersInterval whose windows fit; as given where none does.
    std::pair<double, double> coarse_to_fine(double delta, double lower, double upper, double h, double tail,
                                             const EpsilonTolerance& tol) {
        double refused = 0.0;
        while (true) {
            try {
                return factor_ladder(
                    lower, upper, h, refused, tol, max_points_, [&](double g, std::vector<std::int64_t>& cut) {
                        return screened_bracket(delta, 0.0, std::numeric_limits<double>::infinity(), g, tail, &cut);
                    });
            } catch (const std::length_error&) {  // the grid's windows past the caps: the next, coarser one
            } catch (const std::invalid_argument&) {  // a tilt past the doubles' moments: the next, coarser one
            }
            if (!(h < kTiltPeersInterval)) return {lower, upper};
            refused = h;
            h = std::min(h * kTiltGridStep, kTiltPeersInterval);
        }
    }

    // A delta read at eps: the bracket, and the add direction's certified upper delta (0 at and past
    // add_pure_epsilon), which the split read of the remove direction takes.
    struct DeltaRead {
        double lower, upper, add_upper;
    };

    // (lower, upper), a certified delta bracket at eps, intersected with the tilted reads on grid h, every round
    // discretized with `tail`: per direction, its pessimistic rounds composed under the exponent's tilt at eps (a
    // window past the cap cut at kTiltWindowTail) and read there, the maximum over the directions; then, where the
    // bracket is still wider than kRareDeltaRelativeWidth of its lower side, the remove direction's optimistic rounds
    // under the same tilt of their own, and the add direction's where its upper side is above the lower side so far
    // (below it, it cannot raise the maximum), each lower side 0 where its window passes the cap or its tilt
    // overflows a moment.  Throws where an upper window is refused.
    DeltaRead delta_read(double eps, double h, double tail, double lower, double upper) {
        const double add = direction_delta_upper(false, h, tail, eps);
        upper = std::min(upper, std::max(direction_delta_upper(true, h, tail, eps), add));
        if (upper - lower > kRareDeltaRelativeWidth * lower) {
            lower = std::max(lower, direction_delta_lower(true, h, tail, eps));
            if (add > lower) lower = std::max(lower, direction_delta_lower(false, h, tail, eps));
        }
        return {lower, std::max(lower, upper), add};
    }

    // The run as the max-of-outputs test reads it.
    std::vector<OutputSegment> output_segments() const {
        std::vector<OutputSegment> out;
        for (const TiltedSegment& s : segments_) out.push_back(OutputSegment{s.sigma, s.q, s.sensitivity, s.rounds});
        return out;
    }

    // The rounds of every kind, T = sum_i c_i.
    std::int64_t rounds() const {
        std::int64_t t = 0;
        for (const TiltedSegment& s : segments_) t += s.rounds;
        return t;
    }

    // The question tail of the whole run at delta: its T cuts together at most kTiltedTailShare delta.
    double question_tail(double delta) const { return tilted_question_tail(static_cast<double>(rounds()), delta); }

    // (lower, upper), a certified epsilon bracket at delta, with its lower side raised to the max-of-outputs test's
    // where not yet exact (pld/reads/max_of_outputs.hpp, certified), then, where wider than `tol`, intersected with
    // the ladder's brackets (coarse_to_fine) from the start grid `tol` asks for the kind with the most rounds at the
    // whole run's T rounds (grid_policy.hpp's epsilon_start), every kind discretized with the question tail.
    std::pair<double, double> ladder_bracket(double delta, double lower, double upper, const EpsilonTolerance& tol) {
        if (!(std::isfinite(upper) && exact_bracket(lower, upper))) {
            lower = std::max(lower, max_of_outputs_epsilon(output_segments(), delta));
            upper = std::max(lower, upper);
        }
        if (tol.within(lower, upper)) return {lower, upper};
        const TiltedSegment& most =
            *std::max_element(segments_.begin(), segments_.end(),
                              [](const TiltedSegment& a, const TiltedSegment& b) { return a.rounds < b.rounds; });
        const double h = epsilon_start(most.sigma, most.q, static_cast<double>(rounds()), most.sensitivity, &delta, 1,
                                       tol.accuracy, tol.relative_accuracy);
        return coarse_to_fine(delta, lower, upper, h, question_tail(delta), tol);
    }

    // (lower, upper), a certified epsilon bracket at delta, where not yet exact intersected with the tilted bracket on
    // kRareDeltaFineGrid (half the peers' default grid: screened_or_given), then read again under rare participation
    // (rare_bracket), every kind discretized with the question tail.
    std::pair<double, double> fine_bracket(double delta, double lower, double upper, const EpsilonTolerance& tol) {
        const double tail = question_tail(delta);
        if (!exact_bracket(lower, upper))
            std::tie(lower, upper) = screened_or_given(delta, lower, upper, kRareDeltaFineGrid, tail);
        return rare_bracket(delta, lower, upper, tail, tol);
    }

    // (lower, upper) at delta read again under rare participation (every kind's rate at most kTiltRareRate) where
    // wider than `tol`: its upper side lowered to rare_upper's read, then, where still wider, its lower side raised to
    // rare_lower's, every kind's rounds discretized with `tail`; as given otherwise.  Certified: every read is.
    std::pair<double, double> rare_bracket(double delta, double lower, double upper, double tail,
                                           const EpsilonTolerance& tol) {
        for (const std::unique_ptr<TiltedReader>& r : readers_)
            if (!(r->sampling_rate() <= kTiltRareRate)) return {lower, upper};
        if (tol.within(lower, upper)) return {lower, upper};
        upper = std::max(lower, rare_upper(delta, upper, tail));
        if (tol.within(lower, upper)) return {lower, upper};
        lower = rare_lower(delta, lower, upper);
        return {lower, std::max(lower, upper)};
    }

    // `upper` (a certified upper epsilon at delta) lowered to the tilted read on the first of kTiltRareUpperGrids whose
    // windows fit kTiltRareMaxPoints uncut: per direction, its pessimistic rounds composed under the Chernoff
    // exponent's tilt at `upper` and searched from it, the maximum over the directions.  Over many rounds of rates far
    // below the grid the upper side's discretization excess falls about twofold a halving of the grid.  As given where
    // `upper` is not finite, no grid's windows fit or a tilt overflows a moment.
    double rare_upper(double delta, double upper, double tail) {
        if (!std::isfinite(upper)) return upper;
        for (const double h : kTiltRareUpperGrids) {
            try {
                double most = 0.0;
                for (const bool remove : {true, false}) {
                    const Forget forget{*this};
                    const std::vector<CountedPmf> ups = sides(remove, h, tail, false, false);
                    const TiltedComposition side =
                        compose_tilted(ups, exponent_tilt(ups, upper) * h, true, fft_, kTiltRareMaxPoints);
                    most = std::max(most, upper_epsilon(side, delta, std::min(upper, side.top())));
                }
                return std::min(upper, most);
            } catch (const std::length_error&) {  // past the caps: the next, coarser grid
            } catch (const std::invalid_argument&) {  // a tilt past the doubles' moments
                break;
            }
        }
        return upper;
    }

    // `lower` (a certified lower epsilon at delta) raised to the aligned cells' read of the run (aligned_run_read) on
    // the first of kTiltRareLowerGrid, kAlignedGrid / 2 and kAlignedGrid whose window fits kTiltRareLowerMaxPoints,
    // searched below `upper` (a certified upper side), for at least kAlignedLeastRounds rounds in all, at a delta at
    // least kAlignedLeastDelta and a finite upper side above `lower`; as given otherwise.  Certified: the aligned read
    // is.
    double rare_lower(double delta, double lower, double upper) {
        std::int64_t rounds = 0;
        std::vector<TiltedSegment> kinds;
        for (const std::unique_ptr<TiltedReader>& r : readers_) {
            rounds += r->rounds();
            kinds.push_back({r->sigma(), r->sampling_rate(), r->rounds(), 1.0});
        }
        if (!(rounds >= kAlignedLeastRounds && delta >= kAlignedLeastDelta && std::isfinite(upper) && upper > lower))
            return lower;
        for (const double h : {kTiltRareLowerGrid, kAlignedGrid / 2.0, kAlignedGrid}) {
            try {
                return std::max(lower, aligned_run_read(kinds, delta, upper, h, fft_, kTiltRareLowerMaxPoints));
            } catch (const std::length_error&) {  // its window or cells past their caps: the next, coarser grid
            } catch (const std::logic_error&) {  // an edge not certified or a tilt refused
                break;
            }
        }
        return lower;
    }

  private:
    // One direction's certified upper delta at eps on grid h: its pessimistic rounds composed under the exponent's
    // tilt at eps (a window past the cap cut at kTiltWindowTail) and read there; the add direction's 0 at and past
    // add_pure_epsilon.  Throws where the window is refused.
    double direction_delta_upper(bool remove, double h, double tail, double eps) {
        if (!remove && eps >= pure_add_) return 0.0;
        const Forget forget{*this};
        const std::vector<CountedPmf> ups = sides(remove, h, tail, false, false);
        return compose_tilted(ups, exponent_tilt(ups, eps) * h, true, fft_, max_points_, kDefaultCompositionTail,
                              kTiltWindowTail)
            .delta(eps);
    }

    // One direction's certified lower delta at eps on grid h: its optimistic rounds composed under the exponent's
    // tilt of their own at eps and read there; 0 where the window passes the cap or the tilt overflows a moment.
    double direction_delta_lower(bool remove, double h, double tail, double eps) {
        if (!remove && eps >= pure_add_) return 0.0;
        const Forget forget{*this};
        const std::vector<CountedPmf> lows = sides(remove, h, tail, true, true);
        try {
            return compose_tilted(lows, exponent_tilt(lows, eps) * h, false, fft_, max_points_).delta(eps);
        } catch (const std::length_error&) {  // a window past the cap: no lower side here
        } catch (const std::invalid_argument&) {  // a tilt past the doubles' moments: no lower side here
        }
        return 0.0;
    }

    // Frees every kind's discretized rounds when a public read ends (a later read discretizes them again, the same
    // numbers): a run's reads rarely return to a grid and tail, and fine grids' rounds are large.
    struct Forget {
        TiltedFactorsReader& reader;
        ~Forget() {
            for (const std::unique_ptr<TiltedReader>& r : reader.readers_) r->forget_rounds();
        }
    };

    // Each kind's one round in one direction on grid h with `tail` and its count: the pessimistic PMFs, or (lower)
    // the optimistic ones (discretized with them where `optimistic`).
    std::vector<CountedPmf> sides(bool remove, double h, double tail, bool optimistic, bool lower) {
        std::vector<CountedPmf> out;
        for (const std::unique_ptr<TiltedReader>& r : readers_) {
            const TiltedReader::Direction& d = r->direction(h, remove, tail, optimistic);
            out.push_back({lower ? &d.lower : &d.upper, r->rounds()});
        }
        return out;
    }

    // The certified upper epsilon at delta of the pessimistic factors composed under the tilt lam (a window past the
    // cap cut at kTiltWindowTail, its points then appended to `cut` where given), searched from `upper` or the
    // window's top.
    double upper_side(const std::vector<CountedPmf>& ups, double lam, double h, double delta, double upper,
                      std::vector<std::int64_t>* cut) {
        const HeldTilted side =
            compose_tilted_held(ups, lam * h, true, fft_, max_points_, kDefaultCompositionTail, kTiltWindowTail);
        if (cut != nullptr && !side.above.lams.empty()) cut->push_back(static_cast<std::int64_t>(side.window.p.size()));
        const TiltedComposition read = side.read();
        return upper_epsilon(read, delta, std::min(upper, read.top()));
    }

    std::vector<TiltedSegment> segments_;
    RealFftBackend& fft_;
    std::int64_t max_points_;
    double pure_add_;
    std::vector<std::unique_ptr<TiltedReader>> readers_;
};

}  // namespace pld
}  // namespace hockeystick
