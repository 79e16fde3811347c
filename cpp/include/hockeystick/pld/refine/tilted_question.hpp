// The bracket of the Poisson-subsampled Gaussian at a delta near or below the composition's round-off, read under an
// exponential tilt: the reads the C library makes, and the package's through its binding (its front end is
// python/hockeystick/pld/question/tilted_question.py: the grids' descent, the fine upper read, the finer and the rare
// participation reads; the composition under a tilt is pld/reads/tilted.hpp).
//
// After T rounds the FFT composition's round-off charge is about T u of the total mass (pld/compose/compose.hpp), so
// a bracket at a delta near or below it stays wide on every grid.  The tilted composition carries that charge
// relative to the Chernoff bound at its tilt instead, so the same discretized rounds are read there tightly.  For a
// point (sigma, q, T; sensitivity 1) and one delta, each neighbouring direction's pessimistic PMF is composed under
// the tilt lam_u minimizing the Chernoff epsilon (K(lam) + log(E / delta)) / lam at E = kTiltRoundOffPerRound T
// (where the charge, of size E times the Chernoff bound, meets delta), K(lam) = T log sum_k p_k e^{lam l_k} its
// log-moment, and its upper epsilon found; then again under the tilt maximizing lam eps - K(lam) at the best upper
// epsilon so far (the Chernoff exponent there: where E is below delta the first tilt's optimum runs to the least
// lam, almost no tilt, and this one puts the charge least near the answer); its optimistic PMF under the exponent's
// tilt at that epsilon, and its lower epsilon found.  The bracket is the maximum over the directions on each side
// (delta is the larger of the two directions' curves), on grids from a start down by kTiltGridStep while the upper
// side still falls by a quarter of the accuracy asked and the bracket is wider than it, at most kTiltGrids grids,
// each window within kTiltMaxPoints (where the start's windows pass it, on the first of kTiltFineGrids, coarser,
// whose windows fit); after the descent, the upper side is lowered to the package's fine read of the default
// (fine_upper: each direction on half the peers' grid under the Chernoff exponent's tilt at the upper side, the
// package's bracket whatever the accuracy asked); every bracket found is certified and the answer is their
// intersection with the one given.  A tilt only chooses where the charge is least: every tilt gives a certified read (tilted.hpp), so the
// search over the ladder of tilts (best_tilt) affects tightness, never validity.
//
// delta at eps is read the same way: each direction's pessimistic and optimistic PMFs composed under the exponent's
// tilt at the centre of eps's bucket (tilted_delta_centre), the maximum over the directions on each side (the add
// direction's upper side screened on a coarser grid, and 0, not read, at an eps past its largest loss,
// add_pure_epsilon), the tails sized for the level below the least delta expected (tilted_delta_level): the reads of
// the package's fine delta read and rare participation's finer delta grids (delta_upper, delta_lower, their
// compositions held for the eps that share them), which the C library's delta call makes on its grids.
//
// Before the grids, the lower side is raised to the max-of-outputs test's where higher (pld/reads/max_of_outputs.hpp:
// certified, from the largest released value of the T rounds against a threshold, a closed form over Gaussian tails
// with no grid and no composition): where T q >= 1 and delta is small, the tilted optimistic windows reach no lower
// side the accuracy asks (sigma 0.6, q 1e-5, 10^6 rounds at delta 1e-10: the test certifies 1.07, within 1 % of the
// upper side), as the package's front door reads it (python pld/question/tilted_question.py's fine_brackets).  Under
// rare participation (q <= kTiltRareRate) a bracket still wider than asked has its upper side read on a finer grid
// (rare_upper) and then its lower side by the aligned cells on that grid (rare_lower; pld/refine/aligned_lower.hpp:
// each round's loss replaced by conditional means on cells aligned to a shifted grid, composed under the exponent's
// tilt; certified): the optimistic PMF's rounding, up to a cell per round, leaves the tilted lower side far below the
// truth over many rounds of a rare record, and the max-of-outputs test ~0.5 % below it (1.0716 against 1.0771
// there).  The default's reads make both (fine_epsilon.hpp, rare_finer_grids.hpp), for both doors.
//
// Tails.  Each direction's rounds are discretized with the largest tail the delta allows: the add direction with the
// question tail at kTiltedTailShare (question_tail: T tails at most that share of delta), the remove direction with
// remove_tail (its mass above the integration range carries a factor q).  The tilted charge is E times the Chernoff
// bound, which a longer loss tail (its mass ~tail, its moments large) raises.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/pld/reads/held_windows.hpp"
#include "hockeystick/pld/reads/tilted.hpp"
#include "hockeystick/pld/reads/tilted_read_tail.hpp"
#include "hockeystick/pld/grid/cells.hpp"
#include "hockeystick/pld/grid/connect_dots.hpp"
#include "hockeystick/pld/grid/tilt_ladders.hpp"
#include "hockeystick/pld/reads/hockey_stick.hpp"
#include "hockeystick/pld/reads/max_of_outputs.hpp"
#include "hockeystick/pld/refine/aligned_lower.hpp"
#include "hockeystick/pld/refine/grid_policy.hpp"

namespace hockeystick {
namespace pld {

// The FFT composition's round-off charge per round and unit of mass, for choosing the tilt (a model, not a bound).
constexpr double kTiltRoundOffPerRound = 1e-16;
// Each tilted grid is this many times finer than the one before, at most kTiltGrids of them.
constexpr double kTiltGridStep = 4.0;
constexpr int kTiltGrids = 4;
// The grids read where the accuracy's first grid is too fine for the tilted windows (TiltedReader's fine_bracket;
// the package's default reads them last, through the binding, where its bracket is still wide: python
// pld/question/tilted_question.py's coarser_brackets), finest first: a quarter of the peers' default grid (the
// package's finer upper read under rare participation, tilted_question.rare_upper), half of it
// (question.FINE_INTERVAL), then theirs (dp_accounting's 1e-4).  Many rounds of a rare record span far in loss under
// the exponent's tilt (sigma 0.6, q 1e-5, 10^6 rounds at delta 1e-10: 8.7e6 points on the accuracy 1e-3's first grid
// 7.1e-6, 1.4e6 on 2.5e-5, where the upper side reads 1.077758 against 1.078504 on 5e-5).
constexpr double kTiltFineGrids[] = {2.5e-5, 5e-5, 1e-4};
// The grids of the package's fine upper read (TiltedReader's fine_upper; python pld/question/tilted_question.py's
// fine_upper), finest first: half the peers' default grid (question.FINE_INTERVAL), then theirs where its windows
// pass the cap.
constexpr double kTiltFineUpperGrids[] = {5e-5, 1e-4};
// The window tail of the fine read's pessimistic side under a tilt where its uncut window passes the cap
// (compose_tilted's window_tail): the mass above that window is charged by its own Chernoff bound, so it may cut far
// more than the composition's default tail (sigma 0.6, q 1e-5, 10^6 rounds at delta 1e-10 under the exponent's tilt:
// about 114 in loss at 1e-15, 42 at 1e-6, which fits on grids 2.7 times finer).
constexpr double kTiltWindowTail = 1e-6;
// The cells below the window's floor within which a cut window's upper read may owe its value to the cut's bottom
// (TiltedReader's cut_shows): a few cells more than the grid's rounding of the loss shift.
constexpr double kTiltReadMargin = 8.0;
// A window whose points on a coarser grid, scaled by the grids' ratio, pass this many times the cap is not composed
// on a finer one (TiltedReader's uncut_first: it would be refused); a window's points grow as the grid's inverse (1.32e7
// on 6.25e-6, 6.6e6 on 1.25e-5 at sigma 0.5, q 1e-6, 10^8 rounds, delta 1e-8), so a quarter above the cap is far from
// a window that fits.
constexpr double kTiltRefusedRatio = 1.25;
// The add direction's screen reads a grid this many times coarser than the read it spares (TiltedReader's
// add_screen; python pld/refine/dominated_direction.py's COARSENING).
constexpr double kTiltScreenCoarsening = 4.0;
// The grids of the rare participation upper read (TiltedReader's rare_upper, which python
// pld/question/tilted_question.py's rare_upper reads through the binding), finest first: an eighth and a quarter of the
// peers' default grid, for q at most kTiltRareRate (python question.RARE_FINE_RATE reads it).  Over many rounds of a
// rate far below the grid the upper side's discretization excess falls about twofold a halving (sigma 0.6, q 1e-5,
// 10^6 rounds at delta 1e-10: 1.077758 on 2.5e-5, 1.077423 on 1.25e-5).
constexpr double kTiltRareUpperGrids[] = {1.25e-5, 2.5e-5};
constexpr double kTiltRareRate = 1e-4;
// The cap on a window of the rare participation read: its windows are uncut (no window tail,
// pld/reads/tilted_read_tail.hpp), so four times the other reads' (sigma 0.6, q 1e-5, 10^6 rounds on 1.25e-5: 7.7e6
// points at delta 1e-10, past 2^23 at 1e-15, where 2.5e-5 reads 3.263132 against 3.262862), about 0.35 GB at its
// peak.
constexpr std::int64_t kTiltRareMaxPoints = std::int64_t(1) << 24;
// The grid and window cap of the rare participation lower read (TiltedReader's rare_lower): the aligned cells
// (pld/refine/aligned_lower.hpp's aligned_read) on the finest rare upper grid.  The optimistic reads round every
// round's loss down, first order in the grid, where the aligned cells lose a second-order amount: at sigma 0.6, q 1e-5,
// 10^6 rounds, delta 1e-10 the lower side rises from 1.077060 (the aligned cells on 2.5e-5) to 1.077214, above
// dp_accounting's default 1.077178 (below the truth there).  The windows on that grid hold up to 7.9e6 points over
// q in [1e-6, 1e-4], T q in [1, 100].
constexpr double kTiltRareLowerGrid = kTiltRareUpperGrids[0];
constexpr std::int64_t kTiltRareLowerMaxPoints = std::int64_t(1) << 24;
// The split read (split_read.hpp) is tried where the rounds sample the record at most this many times on average
// (T q): there a round's large loss is rare, the tilt's Chernoff bound far above a small delta and its charge a large
// part of it (T q 0.005 to 0.011 left the upper side up to 8.5e-5 above dp_accounting's); from T q = 0.1 (q 0.01, 10
// rounds) up the tilted read is as tight on the upper side and the split narrows the lower one only, at up to twice
// the cost (calibrating sigma at q 0.1, 10 rounds: 0.49 -> 0.82 CPU s).  Above it, rare participation's finer delta grids read (rare_delta_grids.hpp).
constexpr double kTiltSplitSampledRounds = 0.1;
// The share of delta the T rounds' tail cuts may take (question_tail): far below every charge the tilt leaves.
constexpr double kTiltedTailShare = 1e-10;
// The delta reads size their tails for a level 10^(kTiltDeltaDecades j) (tilted_delta_level), as the package's fine
// delta read does (python pld/question/tilted_question.py's FINE_DELTA_DECADES).
constexpr double kTiltDeltaDecades = 2.0;
// The delta reads' buckets of eps each span this ratio (tilted_delta_centre): sqrt(2).
constexpr double kTiltDeltaRatio = 1.4142135623730951;
// The window points a reader's delta reads hold between calls on each side (TiltedReader::delta_upper's pessimistic
// compositions, delta_lower's optimistic ones; HeldWindows), the least recently used forgotten first: a window after
// many rounds holds 3e5 to 1.4e6 points on the fine grid, a held point about 8 bytes and its read's profile a few more.
constexpr std::int64_t kTiltDeltaWindowPoints = std::int64_t(1) << 21;
// The tilts tried are the search ladder's (pld/grid/tilt_ladders.hpp: tilt_rung), searched every kTiltSearchSteps[0]-th
// rung first, then at each finer step around the best (best_tilt), the last step 1; kTiltCoarseStep is the rungs
// between the tilts own_grid_delta.hpp's reads share.
constexpr int kTiltSearchSteps[] = {64, 16, 4, 1};
constexpr int kTiltCoarseStep = 8;

// K(lam) = sum_i c_i log sum_k p_ik e^{lam l_k} of the factors at each of the n lams (grid_log_mgf, rounded up).
inline std::vector<double> summed_log_mgf(const std::vector<CountedPmf>& terms, const std::vector<double>& lams) {
    std::vector<double> sum(lams.size(), 0.0), one(lams.size());
    for (const CountedPmf& t : terms) {
        grid_log_mgf(t.pmf->p.data(), static_cast<std::int64_t>(t.pmf->p.size()), t.pmf->k_lo, t.pmf->h, lams.data(),
                     static_cast<std::int64_t>(lams.size()), one.data());
        for (std::size_t j = 0; j < lams.size(); ++j) sum[j] += static_cast<double>(t.count) * one[j];
    }
    return sum;
}

// The lam of the ladder maximizing score (a callable from a vector of lams to a vector of scores; non-finite scores
// never win): the best of every kTiltSearchSteps[0]-th rung, then, at each next step, the best of the rungs at that
// step strictly between the last best's two neighbours, down to every rung.  Where the score is unimodal in lam (the
// Chernoff objectives are: K is convex) each best is less than its step from the ladder's best (a rung further off
// would have a better neighbour on the best's side), so the last is the ladder's best: the rung a search of every rung
// finds, from at most 31 evaluations in four passes over the PMF (every eighth rung and the fifteen around its best
// would take 76 in five).  Every tilt is valid for the certified reads; the search only makes them tight.
template <class Score>
double best_tilt(Score&& score) {
    const auto argmax = [](const std::vector<double>& v) {
        std::size_t best = 0;
        double top = -std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < v.size(); ++i)
            if (std::isfinite(v[i]) && v[i] > top) top = v[i], best = i;
        return best;
    };
    int first = 0, last = kTiltLadder - 1, best = 0;  // the rungs searched at a step, inclusive
    for (const int step : kTiltSearchSteps) {
        std::vector<int> rungs;
        std::vector<double> lams;
        for (int i = first; i <= last; i += step) {
            rungs.push_back(i);
            lams.push_back(tilt_rung(i));
        }
        best = rungs[argmax(score(lams))];
        first = std::max(0, best - step + 1);
        last = std::min(kTiltLadder - 1, best + step - 1);
    }
    return tilt_rung(best);
}

// The lam minimizing the Chernoff epsilon (K(lam) + log(E / delta)) / lam, E = kTiltRoundOffPerRound T (T the summed
// counts): where the charge, E times the Chernoff bound, meets delta.
inline double chernoff_tilt(const std::vector<CountedPmf>& terms, double delta) {
    double rounds = 0.0;
    for (const CountedPmf& t : terms) rounds += static_cast<double>(t.count);
    const double log_ratio = std::log(kTiltRoundOffPerRound * rounds / delta);
    return best_tilt([&](const std::vector<double>& lams) {
        std::vector<double> k = summed_log_mgf(terms, lams);
        for (std::size_t j = 0; j < lams.size(); ++j) k[j] = -(k[j] + log_ratio) / lams[j];
        return k;
    });
}

// The lam minimizing the Chernoff epsilon (K(lam) + log(1 / delta)) / lam at delta (the read tail's tilt: a function of
// the point, the grid and delta alone).
inline double delta_tilt(const std::vector<CountedPmf>& terms, double delta) {
    const double log_ratio = -std::log(delta);
    return best_tilt([&](const std::vector<double>& lams) {
        std::vector<double> k = summed_log_mgf(terms, lams);
        for (std::size_t j = 0; j < lams.size(); ++j) k[j] = -(k[j] + log_ratio) / lams[j];
        return k;
    });
}

// The lam maximizing lam eps - K(lam), the Chernoff exponent at eps.
inline double exponent_tilt(const std::vector<CountedPmf>& terms, double eps) {
    return best_tilt([&](const std::vector<double>& lams) {
        std::vector<double> k = summed_log_mgf(terms, lams);
        for (std::size_t j = 0; j < lams.size(); ++j) k[j] = lams[j] * eps - k[j];
        return k;
    });
}

// exponent_tilt of `rounds` copies of one PMF: the tilt the aligned cells' reads take (aligned_lower.hpp).
inline double round_tilt(const GridPMF& pmf, std::int64_t rounds, double eps) {
    return exponent_tilt({{&pmf, rounds}}, eps);
}

// The question tail at kTiltedTailShare: T rounds' cuts at most that share of delta (grid_policy.hpp).
inline double tilted_question_tail(double rounds, double delta) {
    TailPolicy t;
    t.share = kTiltedTailShare;
    return question_tail(rounds, delta, t);
}

// The remove direction's tail for T rounds at delta: the largest 10^(-k / 4) below 1e-3 whose mass above the
// integration range over T rounds (subsampled_gaussian_mass_above, which carries the factor q the add direction's
// tail lacks) is at most kTiltedTailShare delta, at least the question tail at that share.
inline double tilted_remove_tail(double sigma, double q, double rounds, double delta) {
    const double floor = tilted_question_tail(rounds, delta);
    const double budget = kTiltedTailShare * delta;
    const auto rung = [](int k) { return std::pow(10.0, -static_cast<double>(k) / 4.0); };
    const auto fits = [&](int k) { return rounds * subsampled_gaussian_mass_above(sigma, q, rung(k)) <= budget; };
    int low = 13, high = std::max(13, static_cast<int>(std::ceil(-4.0 * std::log10(floor))));
    if (fits(low)) return rung(low);
    while (high - low > 1) {  // fits(high) or high is the floor's rung; not fits(low)
        const int mid = (low + high) / 2;
        if (fits(mid))
            high = mid;
        else
            low = mid;
    }
    return fits(high) ? std::max(floor, rung(high)) : floor;
}

// The centre of eps's bucket: the largest kTiltDeltaRatio^k (k an integer) at most eps, 0 where eps <= 0.  The
// delta reads compose under the Chernoff exponent's tilt at it, so that the eps of one bucket (from the centre up to
// kTiltDeltaRatio times it) share a composition (python pld/question/tilted_question.py's fine_delta_key reads it):
// a tilt at a centre a little below eps reads as tight as one at eps, and keeps the tilted window's bulk below eps.
// Any tilt gives a certified read.
inline double tilted_delta_centre(double eps) {
    if (!(eps > 0.0 && std::isfinite(eps))) return eps > 0.0 ? eps : 0.0;
    double k = std::floor(std::log(eps) / std::log(kTiltDeltaRatio));
    if (std::pow(kTiltDeltaRatio, k) > eps) k -= 1.0;
    if (std::pow(kTiltDeltaRatio, k + 1.0) <= eps) k += 1.0;
    return std::pow(kTiltDeltaRatio, k);
}

// The level whose tails a delta read at eps takes, given a certified upper delta `upper` > 0 there (the least delta
// expected): the largest 10^(kTiltDeltaDecades j), j an integer, at most `upper`, or `upper` where that underflows
// (python pld/question/tilted_question.py's fine_delta_key, its level), so that both doors discretize a delta read's
// rounds alike.  The mass the tails drop, up to kTiltedTailShare of the delta they are sized for, is charged to the
// upper read; an upper side given is often a plain composition's round-off floor, far above the truth.  Any tails
// give a certified read; smaller ones only cost cells.
inline double tilted_delta_level(double upper) {
    double j = std::floor(std::log10(upper) / kTiltDeltaDecades);
    if (std::pow(10.0, kTiltDeltaDecades * j) > upper) j -= 1.0;
    const double level = std::pow(10.0, kTiltDeltaDecades * j);
    return level > 0.0 ? level : upper;
}

// An epsilon at and past which the add direction of T rounds of the Poisson-subsampled Gaussian (rate q) has delta
// 0: its loss -log(1 - q + q e^{(2 x - 1) / (2 sigma^2)}) is at most -log(1 - q) a round whatever sigma, so its T
// rounds' at most T log(1 / (1 - q)), rounded up by 9 u for the logarithm and the product (python
// pld/question/tilted_question.py's add_pure_epsilon, one rate).  No read of that direction is needed there, and none
// is made: under the exponent's tilt at such an eps its window is a narrow band near the discretized rounds' top,
// which the ladder's rungs may place wholly above eps, where its read says only delta <= 1.
inline double add_pure_epsilon(double q, double rounds) {
    return rounds * -std::log1p(-q) * (1.0 + 9.0 * tilted_detail::kUnit);
}

// The certified upper epsilon at delta of the pessimistic factors `ups` composed under the tilt lam, searched from
// `upper` or the window's top.
inline double tilted_upper_epsilon(const std::vector<CountedPmf>& ups, double delta, double lam, double upper,
                                   RealFftBackend& fft, std::int64_t max_points) {
    const TiltedComposition side = compose_tilted(ups, lam * ups.front().pmf->h, true, fft, max_points);
    return upper_epsilon(side, delta, std::min(upper, side.top()));
}

// The certified (lower, upper) epsilon at delta of one neighbouring direction's composition (the header's comment):
// `ups` its pessimistic factors and counts, `lows` its optimistic ones (empty: no lower side, 0), all on one grid;
// `upper` the best upper side so far (inf: none).  The upper side under the Chernoff tilt, then the lesser of it and
// the upper side under the Chernoff exponent's tilt at the best so far; the lower side under the exponent's tilt at
// that upper side (left at 0 where its window passes max_points).
inline std::pair<double, double> tilted_direction_epsilon(const std::vector<CountedPmf>& ups,
                                                          const std::vector<CountedPmf>& lows, double delta,
                                                          double upper, RealFftBackend& fft, std::int64_t max_points) {
    double up = tilted_upper_epsilon(ups, delta, chernoff_tilt(ups, delta), upper, fft, max_points);
    const double best = std::min(up, upper);
    if (std::isfinite(best))  // re-tilted at the Chernoff exponent of the best upper side so far
        up = std::min(up, tilted_upper_epsilon(ups, delta, exponent_tilt(ups, best), up, fft, max_points));
    if (lows.empty() || !(std::isfinite(up) && up > 0.0)) return {0.0, up};
    try {
        const double lam = exponent_tilt(lows, up);
        const TiltedComposition low = compose_tilted(lows, lam * lows.front().pmf->h, false, fft, max_points);
        return {lower_epsilon(low, delta, up), up};
    } catch (const std::length_error&) {  // a window past max_points: no lower side here
        return {0.0, up};
    }
}

// The certified (lower, upper) delta at eps of one neighbouring direction's composition: its pessimistic factors
// `ups` and optimistic ones `lows` (empty: lower side 0) each composed under the Chernoff exponent's tilt at `centre`
// (the lower side left at 0 where its window passes max_points).
inline std::pair<double, double> tilted_direction_delta(const std::vector<CountedPmf>& ups,
                                                        const std::vector<CountedPmf>& lows, double eps, double centre,
                                                        RealFftBackend& fft, std::int64_t max_points) {
    const double up =
        compose_tilted(ups, exponent_tilt(ups, centre) * ups.front().pmf->h, true, fft, max_points).delta(eps);
    if (lows.empty()) return {0.0, up};
    try {
        const double lam = exponent_tilt(lows, centre);
        return {compose_tilted(lows, lam * lows.front().pmf->h, false, fft, max_points).delta(eps), up};
    } catch (const std::length_error&) {  // a window past max_points: no lower side here
        return {0.0, up};
    }
}

// The tilted brackets of one point (sigma per unit sensitivity, 0 < q < 1, T rounds) at one delta or epsilon, the
// discretized rounds of each (grid, direction, tail) kept for the reads that share them.  `fft` is the composition's
// backend; `max_cells` caps a direction's loss cells (std::length_error past it), `max_points` a tilted window.
class TiltedReader {
  public:
    TiltedReader(double sigma, double q, std::int64_t rounds, RealFftBackend& fft, std::int64_t max_cells,
                 std::int64_t max_points = kTiltMaxPoints)
        : sigma_(sigma), q_(q), rounds_(rounds), fft_(fft), max_cells_(max_cells), max_points_(max_points) {
        if (!(q > 0.0 && q < 1.0)) throw std::invalid_argument("TiltedReader: the sampling rate must lie in (0, 1)");
    }

    // One round in one neighbouring direction on grid h with `tail`: its pessimistic PMF and (where asked) its
    // optimistic one, discretized once per (h, direction, tail) (pld/grid/cells.hpp, pld/grid/connect_dots.hpp).
    struct Direction {
        GridPMF upper, lower;
        bool has_lower = false;
    };

    const Direction& direction(double h, bool remove, double tail, bool optimistic) {
        std::unique_ptr<Direction>& kept = directions_[std::make_tuple(h, remove, tail)];
        if (!kept || (optimistic && !kept->has_lower)) {
            const Cells cells = subsampled_gaussian_cells(sigma_, q_, remove, h, tail, max_cells_, optimistic);
            auto made = std::make_unique<Direction>();
            made->upper = pessimistic_pmf(cells);
            if (optimistic) {
                made->lower = optimistic_pmf(cells);
                made->has_lower = true;
            }
            kept = std::move(made);
        }
        return *kept;
    }

    // Both directions' rounds on grid h, both sides, discretized with the tails `level` allows, so that the delta
    // reads of both sides share one discretization.
    void discretize(double h, double level) {
        for (const bool remove : {true, false}) direction(h, remove, tail(remove, level), true);
    }

    // Frees the discretized rounds (a later read discretizes them again, the same numbers).
    void forget_rounds() { directions_.clear(); }

    // The run read: sigma per unit sensitivity, the sampling rate, the rounds.
    double sigma() const { return sigma_; }
    double sampling_rate() const { return q_; }
    std::int64_t rounds() const { return rounds_; }

    // Both directions' rounds discretized with `tail` (a caller's) instead of the tails each delta allows.
    void give_tail(double tail) { given_tail_ = tail; }

    double tail(bool remove, double delta) const {
        if (given_tail_ > 0.0) return given_tail_;
        const double t = static_cast<double>(rounds_);
        return remove ? tilted_remove_tail(sigma_, q_, t, delta) : tilted_question_tail(t, delta);
    }

    // The certified (lower, upper) epsilon at delta on grid h (the header's comment), `upper` the best upper side so
    // far (inf: none): tilted_direction_epsilon of each direction's T rounds, the maximum over the directions.
    std::pair<double, double> grid_bracket(double delta, double h, double upper) {
        double lower_max = 0.0, upper_max = 0.0;
        for (const bool remove : {true, false}) {
            const Direction& d = direction(h, remove, tail(remove, delta), true);
            const std::pair<double, double> b =
                tilted_direction_epsilon({{&d.upper, rounds_}}, {{&d.lower, rounds_}}, delta, upper, fft_, max_points_);
            lower_max = std::max(lower_max, b.first);
            upper_max = std::max(upper_max, b.second);
        }
        return {lower_max, upper_max};
    }

    // The run as the max-of-outputs test reads it: T rounds of (sigma, q), sensitivity 1.
    std::vector<OutputSegment> output_segments() const { return {OutputSegment{sigma_, q_, 1.0, rounds_}}; }

    // `upper` (a certified upper epsilon at delta) lowered to the tilted read on the first of kTiltRareUpperGrids
    // whose windows fit kTiltRareMaxPoints (upper_on).  Over many rounds of a rate far below the grid the upper side's
    // discretization excess falls about twofold a halving of the grid.
    double rare_upper(double delta, double upper) {
        return upper_on(kTiltRareUpperGrids, delta, upper,
                        {kTiltRareMaxPoints, 0.0, false, std::numeric_limits<double>::infinity()})
            .upper;
    }

    // `lower` (a certified lower epsilon at delta) raised to the aligned cells' read on kTiltRareLowerGrid (its window
    // within kTiltRareLowerMaxPoints, searched below `upper`, a certified upper side) where higher, for at least
    // kAlignedLeastRounds rounds at a delta at least kAlignedLeastDelta, q at most kTiltRareRate and a finite upper
    // side above `lower`; as given otherwise, or where its window or cells pass their caps or an edge or a tilt is
    // refused.  Certified: the aligned read is.
    double rare_lower(double delta, double lower, double upper) {
        if (!(q_ <= kTiltRareRate && rounds_ >= kAlignedLeastRounds && delta >= kAlignedLeastDelta &&
              std::isfinite(upper) && upper > lower))
            return lower;
        directions_.clear();  // no read returns to the discretized rounds: their memory is freed
        try {
            return std::max(lower, aligned_read(sigma_, q_, rounds_, delta, upper, kTiltRareLowerGrid, round_tilt, fft_,
                                                kTiltRareLowerMaxPoints)
                                       .lower);
        } catch (const std::logic_error&) {  // its window or cells past their caps, an edge or a tilt refused
            return lower;
        }
    }

    // (lower, upper) at delta with its lower side raised to the max-of-outputs test's where higher (the header's
    // comment), then intersected with the tilted grids'
    // (grid_descent at `accuracy`), then fine_upper; where the start grid passes the caps, the fine grids alone.
    std::pair<double, double> grid_epsilon_bracket(double delta, double lower, double upper, double start,
                                                   double accuracy) {
        lower = std::max(lower, max_of_outputs_epsilon(output_segments(), delta));
        upper = std::max(lower, upper);
        if (upper - lower <= accuracy) return {lower, upper};
        const Descent d = grid_descent(delta, lower, upper, start, accuracy, 0.0);
        if (d.start_refused)
            return fine_bracket(lower, upper, start, [&](double g) { return grid_bracket(delta, g, upper); });
        directions_.clear();
        return {d.lower, std::max(d.lower, fine_upper(delta, d.upper))};
    }

    // A descent's bracket, and whether its start grid passed the caps (no grid read).
    struct Descent {
        double lower, upper;
        bool start_refused;
    };

    // (lower, upper) at delta intersected with grid_bracket's on grids from `start` down by kTiltGridStep while the
    // bracket is wider than the tolerance max(accuracy, relative_accuracy upper) (upper read as 0 where infinite) and
    // the upper side still falls by a quarter of it, at most kTiltGrids grids; a grid whose discretization or window
    // passes the caps (std::length_error), or whose tilt overflows a moment (std::invalid_argument), ends it.
    // Certified: every grid's bracket is.
    Descent grid_descent(double delta, double lower, double upper, double start, double accuracy,
                         double relative_accuracy) {
        const auto tolerance = [&](double up) {
            return std::max(accuracy, std::isfinite(up) ? relative_accuracy * up : 0.0);
        };
        double h = start;
        for (int i = 0; i < kTiltGrids; ++i) {
            std::pair<double, double> b;
            try {
                b = grid_bracket(delta, h, upper);
            } catch (const std::length_error&) {  // past the caps
                directions_.clear();
                return {lower, std::max(lower, upper), i == 0};
            } catch (const std::invalid_argument&) {  // a tilt past the doubles' moments
                break;
            }
            const double before = upper;
            lower = std::max(lower, b.first);
            upper = std::min(upper, b.second);
            const double width = lower == upper ? 0.0 : upper - lower;
            if (width <= tolerance(upper) || !(before - upper > 0.25 * tolerance(upper))) break;
            h /= kTiltGridStep;
            directions_.clear();  // no read returns to a coarser grid: its rounds' memory is freed
        }
        directions_.clear();
        return {lower, std::max(lower, upper), false};
    }

    // `upper` (a certified upper epsilon at delta) lowered to the package's fine read (fine_read's upper side).
    double fine_upper(double delta, double upper) { return fine_read(delta, upper).upper; }

    // An upper read on one of several grids: the upper side, and the grid whose read was finite (0: none).
    struct UpperRead {
        double upper, grid;
    };

    // `upper` (a certified upper epsilon at delta) lowered to the package's fine read (python
    // pld/question/tilted_question.py's fine_upper, the default's upper side whatever the accuracy asked): upper_on
    // kTiltFineUpperGrids within the reader's window cap, a window past it read cut at kTiltWindowTail, the add
    // direction screened (`add_upper`: a certified upper side of its epsilon already known, inf where none), each
    // search from `least` (a certified lower side, 0 where none) first.
    UpperRead fine_read(double delta, double upper, double add_upper = std::numeric_limits<double>::infinity(),
                        double least = 0.0) {
        return upper_on(kTiltFineUpperGrids, delta, upper, {max_points_, kTiltWindowTail, true, add_upper}, least);
    }

    // How an upper read takes a grid: the window cap; the window tail of a pessimistic window past it (0: none, the
    // next grid instead; > 0: each window first cut at the read tail, cut_read); whether the add direction is
    // screened (add_screen), and a certified upper side of its epsilon already known (inf: none), at most the remove
    // direction's answer, which then stands for it.
    struct UpperRule {
        std::int64_t max_points;
        double window_tail;
        bool screened;
        double add_upper;
    };

    // `upper` (a certified upper epsilon at delta) lowered to exponent_read's on the first of `grids` whose windows
    // fit `rule`.  As given where `upper` is not finite, no grid's windows fit or a tilt overflows a moment.
    template <std::size_t N>
    UpperRead upper_on(const double (&grids)[N], double delta, double upper, const UpperRule& rule,
                       double least = 0.0) {
        if (!std::isfinite(upper)) return {upper, 0.0};
        for (const double h : grids) {
            try {
                const double most = exponent_read(delta, h, upper, rule, least).upper;
                directions_.clear();  // no read returns to the fine grid
                return {std::min(upper, most), std::isfinite(most) ? h : 0.0};
            } catch (const std::length_error&) {  // past the caps: the next, coarser grid
                directions_.clear();
            } catch (const std::invalid_argument&) {  // a tilt past the doubles' moments
                directions_.clear();
                break;
            }
        }
        return {upper, 0.0};
    }

    // One grid's upper read: its upper side, and the points of the least pessimistic window read per direction, the
    // most over the directions read.
    struct GridUpper {
        double upper;
        std::int64_t points;
    };

    // The certified upper epsilon at delta on grid h (the fine read's and the rare participation finer reads',
    // rare_finer_grids.hpp): per direction, its pessimistic rounds composed under the Chernoff exponent's
    // tilt at `upper` (a finite upper side already found) and searched from it (direction_upper); the maximum over
    // the directions, the add direction not read where `rule` screens it and add_upper or add_screen shows it at most
    // the remove direction's answer (then eps_add <= eps_remove, the maximum).  Throws std::length_error where a
    // window passes the caps, std::invalid_argument where a tilt overflows a moment.  Certified: every read is.
    GridUpper exponent_read(double delta, double h, double upper, const UpperRule& rule, double least = 0.0) {
        std::int64_t points = 0;
        const double remove = direction_upper(h, true, delta, upper, least, rule, points);
        if (rule.screened && std::isfinite(remove) &&
            (rule.add_upper <= remove || add_screen(remove, h, delta, remove) <= delta))
            return {remove, points};
        std::int64_t add_points = 0;
        const double add = direction_upper(h, false, delta, upper, least, rule, add_points);
        return {std::max(remove, add), std::max(points, add_points)};
    }

    // One direction's certified upper epsilon at delta on grid h: its pessimistic rounds composed under the Chernoff
    // exponent's tilt at `upper` (within rule.max_points, past it cut at rule.window_tail where > 0) and searched
    // (upper_search, from `least` first).  Under a rule with a window tail the window is first cut at the read tail
    // (cut_read); `points` is set to the least window read.  Certified either way: a cut window's mass above is
    // charged.
    double direction_upper(double h, bool remove, double delta, double upper, double least, const UpperRule& rule,
                           std::int64_t& points) {
        const Direction& d = direction(h, remove, tail(remove, delta), false);
        const std::vector<CountedPmf> ups{{&d.upper, rounds_}};
        const double theta = exponent_tilt(ups, upper) * h;
        if (!(rule.window_tail > 0.0)) {
            const HeldTilted whole = compose_tilted_held(ups, theta, true, fft_, rule.max_points);
            points = static_cast<std::int64_t>(whole.window.p.size());
            return upper_search(whole, delta, upper, least,
                                [](const TiltedComposition&, double found) { return found; });
        }
        return cut_read(ups, remove, delta, theta, upper, least, rule, points);
    }

    // A direction's upper read under a rule with a window tail (the package's fine and finer reads): its window cut at the
    // read tail (read_tail of pld/reads/tilted_read_tail.hpp at the Chernoff tilt of delta: a function of the point,
    // grid and delta alone) and read, then read again uncut where that read may owe its value to the cut
    // (cut_shows), the uncut window's points (0: past the cap) kept for the direction and delta; on a grid finer than
    // one where the cut showed, the uncut window read first (uncut_first).
    double cut_read(const std::vector<CountedPmf>& ups, bool remove, double delta, double theta, double upper,
                    double least, const UpperRule& rule, std::int64_t& points) {
        const GridPMF& pmf = *ups.front().pmf;
        const double h = pmf.h;
        const RoundMasses masses{pmf.p.data(), static_cast<std::int64_t>(pmf.p.size()), pmf.k_lo, h};
        const double cut_at = read_tail(masses, static_cast<double>(rounds_), delta_tilt(ups, delta));
        std::map<double, std::int64_t>& shown = cut_shown_[std::make_pair(remove, delta)];
        const auto plain = [](const TiltedComposition&, double found) { return found; };
        if (cut_at > kDefaultCompositionTail && shown.upper_bound(h) != shown.end()) {  // shown on a coarser grid
            const HeldTilted first = uncut_first(ups, theta, cut_at, rule, shown);
            points = static_cast<std::int64_t>(first.window.p.size());
            return upper_search(first, delta, upper, least, plain);
        }
        HeldTilted cut = compose_tilted_held(ups, theta, true, fft_, rule.max_points, cut_at, rule.window_tail);
        points = static_cast<std::int64_t>(cut.window.p.size());
        bool shows = false;
        const double found = upper_search(cut, delta, upper, least, [&](const TiltedComposition& read, double f) {
            shows = cut_at > kDefaultCompositionTail && cut.above.lams.empty() &&
                    cut_shows(read, masses, f, std::min(upper, read.top()), delta);
            return f;
        });
        if (!shows) return found;
        const HeldTilted whole = uncut(ups, theta, cut_at, rule, std::move(cut));
        points = std::min(points, static_cast<std::int64_t>(whole.window.p.size()));
        shown[h] = whole.above.lams.empty() ? static_cast<std::int64_t>(whole.window.p.size()) : 0;
        return upper_search(whole, delta, upper, least, plain);
    }

    // The window a cut read takes again where its cut showed: the uncut window, or, past
    // the cap, the window cut at rule.window_tail with its mass above charged by its Chernoff bound; where the cut was
    // at rule.window_tail already, that fallback is `cut` itself with the charge (not composed again).
    HeldTilted uncut(const std::vector<CountedPmf>& ups, double theta, double cut_at, const UpperRule& rule,
                     HeldTilted cut) {
        if (cut_at != rule.window_tail)
            return compose_tilted_held(ups, theta, true, fft_, rule.max_points, kDefaultCompositionTail,
                                       rule.window_tail);
        try {
            return compose_tilted_held(ups, theta, true, fft_, rule.max_points);
        } catch (const std::length_error&) {  // the uncut window past the cap: the cut one, charged
            cut.above = cut_moments(ups);
            return cut;
        }
    }

    // The window a cut read takes on a grid finer than one where the cut showed: the window uncut would give, without the cut window's composition and read before
    // it (the cut's showing is about the same on every grid: the wrapped mass's bound depends on the grid only
    // through the FFT length times the grid, about the window's span in loss); its composition not tried where
    // `shown` (grid -> the uncut window's points there, 0 past the cap) has it past the cap or its points, scaled by
    // the grids' ratio, past kTiltRefusedRatio times the cap: then the window cut at rule.window_tail, charged.
    HeldTilted uncut_first(const std::vector<CountedPmf>& ups, double theta, double cut_at, const UpperRule& rule,
                           const std::map<double, std::int64_t>& shown) {
        if (cut_at != rule.window_tail)
            return compose_tilted_held(ups, theta, true, fft_, rule.max_points, kDefaultCompositionTail,
                                       rule.window_tail);
        const double h = ups.front().pmf->h;
        bool past = false;
        for (auto it = shown.upper_bound(h); it != shown.end(); ++it)
            past = past || it->second == 0 ||
                   static_cast<double>(it->second) * (it->first / h) >
                       kTiltRefusedRatio * static_cast<double>(rule.max_points);
        if (!past) {
            try {
                return compose_tilted_held(ups, theta, true, fft_, rule.max_points);
            } catch (const std::length_error&) {  // the uncut window past the cap: the cut window's fallback
            }
        }
        HeldTilted cut = compose_tilted_held(ups, theta, true, fft_, rule.max_points, cut_at, rule.window_tail);
        if (cut.above.lams.empty()) cut.above = cut_moments(ups);
        return cut;
    }

    // The certified upper epsilon at delta of a held pessimistic window, passed with the read
    // made to then(read, found), whose value is returned: from kTiltReadMargin cells below `least` (a certified lower
    // side, 0 where none) where that read's answer lands above half the margin, else over the whole window, searched
    // from `upper` or the window's top.  The view from `least` builds its suffix sums from there up only.
    template <class Then>
    double upper_search(const HeldTilted& w, double delta, double upper, double least, Then&& then) {
        const double h = w.window.h, shift = std::fabs(w.window.loss_shift);
        if (least > 0.0 && std::isfinite(least)) {
            const TiltedComposition view = w.read(least - shift - kTiltReadMargin * h);
            if (view.floor_index() > view.window_floor_index()) {
                const double found = upper_epsilon(view, delta, std::min(upper, view.top()));
                if (found >= view.floor() + shift + 0.5 * kTiltReadMargin * h) return then(view, found);
            }
        }
        const TiltedComposition whole = w.read();
        return then(whole, upper_epsilon(whole, delta, std::min(upper, whole.top())));
    }

    // Whether a read `found` (from `start`) of a window cut at a read tail may owe its value to the cut: the cut
    // mass's charge at the answer (at `start` where none was certified) passes kCutCheckShare of delta, or what the
    // mass above wraps onto the read (wrapped_mass, `masses` one round's PMF) passes kWrapCheckShare of it
    // (cut_charge_too_large), or the answer lies within kTiltReadMargin cells of the window's floor (the cut's bottom
    // may have stopped the search).  `side` may be a read from a least argument: only the whole window's floor, cut
    // and untilt factor are read, the same on either.
    bool cut_shows(const TiltedComposition& side, const RoundMasses& masses, double found, double start,
                   double delta) const {
        const double shift = std::fabs(side.loss_shift());
        if (std::isfinite(found) && found <= side.window_floor() + shift + kTiltReadMargin * side.h()) return true;
        const double x = std::max((std::isfinite(found) ? found : start) - shift, side.window_floor());
        const double charge = side.window_inf() * side.untilt_factor(std::max(x, side.cut()));
        if (!(charge <= kCutCheckShare * delta)) return true;
        const double length = static_cast<double>(fft_length(side.points()));
        const double wrapped =
            wrapped_mass(masses, static_cast<double>(rounds_), side.theta(), x, length, kWrapCheckShare * delta);
        return cut_charge_too_large(charge, wrapped, delta);
    }

    // A certified upper bound on the add direction's delta at eps, cheaper than its read on h: 0 at and past
    // add_pure_epsilon; below it, its pessimistic rounds on a grid kTiltScreenCoarsening times coarser (at most
    // max_interval) composed under the Chernoff exponent's tilt at `centre` (past the cap cut at kTiltWindowTail),
    // with the tails `delta` allows, read at eps (python pld/question/tilted_question.py's TiltedReader.add_screen).
    double add_screen(double eps, double h, double delta, double centre) {
        if (eps >= add_pure_epsilon(q_, static_cast<double>(rounds_))) return 0.0;
        const double coarse = screen_interval(h);
        const Direction& d = direction(coarse, false, tail(false, delta), false);
        const std::vector<CountedPmf> ups{{&d.upper, rounds_}};
        return compose_tilted(ups, exponent_tilt(ups, centre) * coarse, true, fft_, max_points_,
                              kDefaultCompositionTail, kTiltWindowTail)
            .delta(eps);
    }

    // The grid of the add direction's screen of a read on h: kTiltScreenCoarsening times coarser, at most max_interval.
    static double screen_interval(double h) { return std::min(h * kTiltScreenCoarsening, max_interval); }

    // Certified upper deltas at each of `eps` on grid h (the default's fine delta read and rare participation's finer
    // delta grids, fine_delta.hpp and rare_delta_grids.hpp, which python pld/question/tilted_question.py reads): per
    // direction, its pessimistic rounds composed once under the Chernoff exponent's tilt at `centre` (held:
    // held_deltas), discretized with the tails `level` (the least delta expected) allows, and read at every eps; the
    // maximum over the directions, the add direction read on h only where add_screens' bound is above the remove
    // direction's (elsewhere that bound, below it, stands for the add direction).  Each element's value is the one it
    // gets asked alone.  A window past the cap is cut at `window_tail`, its mass above charged (0: not cut).  Throws
    // std::length_error (a window past the cap, cut or not) or std::invalid_argument (a tilt past the doubles'
    // moments).
    std::vector<double> delta_upper(const std::vector<double>& eps, double h, double centre, double level,
                                    double window_tail = kTiltWindowTail) {
        std::vector<double> out = held_deltas(true, eps, h, centre, level, window_tail);
        std::vector<double> add = add_screens(eps, h, level, centre);
        std::vector<double> above;
        std::vector<std::size_t> at;
        for (std::size_t i = 0; i < eps.size(); ++i)
            if (add[i] > out[i]) {
                above.push_back(eps[i]);
                at.push_back(i);
            }
        if (!above.empty()) {
            const std::vector<double> read = held_deltas(false, above, h, centre, level, window_tail);
            for (std::size_t j = 0; j < at.size(); ++j) add[at[j]] = std::min(add[at[j]], read[j]);
        }
        for (std::size_t i = 0; i < eps.size(); ++i) out[i] = std::max(out[i], add[i]);
        return out;
    }

    // add_screen at each of `eps`, its compositions held as delta_upper's: 0 at and past add_pure_epsilon; below it,
    // the add direction's pessimistic rounds on screen_interval(h) read at eps (held_deltas).
    std::vector<double> add_screens(const std::vector<double>& eps, double h, double delta, double centre) {
        std::vector<double> out(eps.size(), 0.0), below;
        std::vector<std::size_t> at;
        const double pure = add_pure_epsilon(q_, static_cast<double>(rounds_));
        for (std::size_t i = 0; i < eps.size(); ++i)
            if (eps[i] < pure) {
                below.push_back(eps[i]);
                at.push_back(i);
            }
        if (below.empty()) return out;
        const std::vector<double> read = held_deltas(false, below, screen_interval(h), centre, delta, kTiltWindowTail);
        for (std::size_t j = 0; j < at.size(); ++j) out[at[j]] = read[j];
        return out;
    }

    // Certified lower deltas at each of `eps` on grid h (as delta_upper): per direction, its optimistic rounds composed
    // once under the Chernoff exponent's tilt at `centre`, the tails `level` allows, and read at every eps (its
    // charges subtracted); the maximum over the directions, 0 from a direction whose window passes the cap or whose
    // tilt overflows a moment.  Its compositions are held apart from the pessimistic ones, those held cut to
    // kTiltDeltaWindowPoints before one is composed.
    std::vector<double> delta_lower(const std::vector<double>& eps, double h, double centre, double level) {
        std::vector<double> out(eps.size(), 0.0);
        for (const bool remove : {true, false}) {
            const double t = tail(remove, level);
            const Direction& d = direction(h, remove, t, true);
            const std::vector<CountedPmf> lows{{&d.lower, rounds_}};
            const double lam = exponent_tilt(lows, centre);
            try {
                const TiltedComposition& side = lower_windows_.window(
                    std::make_tuple(h, remove, t, lam, 0.0),
                    [&] { return compose_tilted(lows, lam * d.lower.h, false, fft_, max_points_); },
                    kTiltDeltaWindowPoints);
                for (std::size_t i = 0; i < eps.size(); ++i) out[i] = std::max(out[i], side.delta(eps[i]));
            } catch (const std::length_error&) {  // a window past the cap: no lower side from this direction
            } catch (const std::invalid_argument&) {  // a tilt past the doubles' moments
            }
        }
        return out;
    }

    // The points a delta read on grid h needed: per direction, the least of its pessimistic windows held on h, the
    // most over the directions (0 where none is held).
    std::int64_t window_points(double h) const {
        std::map<bool, std::int64_t> least;
        upper_windows_.each([&](const WindowKey& key, const TiltedComposition& c) {
            if (std::get<0>(key) != h) return;
            const auto found = least.find(std::get<1>(key));
            least[std::get<1>(key)] = found == least.end() ? c.points() : std::min(found->second, c.points());
        });
        std::int64_t most = 0;
        for (const auto& entry : least) most = std::max(most, entry.second);
        return most;
    }

    // Forgets the delta reads' compositions least recently used until each side's held hold at most `points` window
    // points; forget_windows forgets them all (the discretized rounds stay).
    void keep_windows(std::int64_t points) {
        upper_windows_.keep(points);
        lower_windows_.keep(points);
    }
    void forget_windows() {
        upper_windows_.clear();
        lower_windows_.clear();
    }

    // The window points held: (delta_upper's, delta_lower's).
    std::pair<std::int64_t, std::int64_t> held_points() const {
        return {upper_windows_.points(), lower_windows_.points()};
    }

    // (lower, upper) intersected with read(h) (a bracket on grid h: grid_bracket's or grid_delta_bracket's) on the
    // first of kTiltFineGrids coarser than `start` (a first grid whose windows passed the caps) whose windows fit: the
    // peers' grid read without the plain composition's round-off, as the package's fine read (python
    // pld/question/tilted_question.py's fine_brackets).  As given where none fits or a tilt overflows a moment.
    template <class Read>
    std::pair<double, double> fine_bracket(double lower, double upper, double start, Read&& read) {
        for (const double h : kTiltFineGrids) {
            if (!(h > start)) continue;
            directions_.clear();  // no read returns to a finer grid
            try {
                const std::pair<double, double> b = read(h);
                lower = std::max(lower, b.first);
                return {lower, std::max(lower, std::min(upper, b.second))};
            } catch (const std::length_error&) {  // past the caps: the next, coarser grid
            } catch (const std::invalid_argument&) {  // a tilt past the doubles' moments
                break;
            }
        }
        return {lower, std::max(lower, upper)};
    }

    // The certified (lower, upper) delta at eps on grid h: delta_upper and delta_lower at eps under the exponent's tilt
    // at eps's bucket centre (tilted_delta_centre), both directions' rounds discretized once, both sides, with the tails
    // `delta_least` (the least delta expected) allows; its pessimistic windows uncut (no window tail: a window past
    // the cap ends the descent, whose fine grids then read it uncut), and the compositions forgotten after the read.
    // Read once per (eps, h, tails) in the reader's life: a later call with the same arguments returns the first
    // call's bracket, or throws the std::length_error or std::invalid_argument it threw (the same reads of the same
    // rounds give the same bracket; a finer accuracy's delta_bracket and the default's it is intersected with reach
    // the same grids where their first grids pass the caps).
    std::pair<double, double> grid_delta_bracket(double eps, double h, double delta_least) {
        KeptRead& kept = delta_reads_[std::make_tuple(eps, h, tail(true, delta_least), tail(false, delta_least))];
        if (kept.outcome == KeptRead::kPastCaps) throw std::length_error(kept.message);
        if (kept.outcome == KeptRead::kRefused) throw std::invalid_argument(kept.message);
        if (kept.outcome == KeptRead::kRead) return kept.bracket;
        try {
            discretize(h, delta_least);
            const std::vector<double> at{eps};
            const double centre = tilted_delta_centre(eps);
            const double upper = delta_upper(at, h, centre, delta_least, 0.0).front();
            kept.bracket = {delta_lower(at, h, centre, delta_least).front(), upper};
            kept.outcome = KeptRead::kRead;
        } catch (const std::length_error& e) {
            kept.outcome = KeptRead::kPastCaps;
            kept.message = e.what();
        } catch (const std::invalid_argument& e) {
            kept.outcome = KeptRead::kRefused;
            kept.message = e.what();
        }
        forget_windows();
        if (kept.outcome == KeptRead::kPastCaps) throw std::length_error(kept.message);
        if (kept.outcome == KeptRead::kRefused) throw std::invalid_argument(kept.message);
        return kept.bracket;
    }

    // (lower, upper) delta at eps with its lower side raised to the max-of-outputs test's where higher, then
    // intersected with the tilted brackets on grids from `start` down by kTiltGridStep while the bracket's
    // width(lower, upper) exceeds `accuracy` and each grid's upper side falls below the grid's before it by a quarter
    // of accuracy times it, at most kTiltGrids grids, or the fine grids where the first passes the caps (as
    // epsilon_bracket).  The first tilted grid is compared with no plain one: a tilted read on the accuracy's start
    // grid can be as loose as the plain refinement's last, finer grid and still fall on the next (the README's DP-SGD
    // run at eps 3, delta 9e-8: [9.0614e-8, 9.1113e-8] on the start grid, [9.0793e-8, 9.0824e-8] a grid finer).
    template <class WidthOf>
    std::pair<double, double> delta_bracket(double eps, double lower, double upper, double start, double accuracy,
                                            double delta_least, WidthOf&& width_of) {
        if (std::isfinite(eps)) lower = std::max(lower, max_of_outputs_delta(output_segments(), eps));
        upper = std::max(lower, upper);
        if (width_of(lower, upper) <= accuracy) return {lower, upper};
        double h = start, last = std::numeric_limits<double>::infinity();
        for (int i = 0; i < kTiltGrids; ++i) {
            std::pair<double, double> b;
            try {
                b = grid_delta_bracket(eps, h, delta_least);
            } catch (const std::length_error&) {  // past the caps: where no grid was read, the fine grids
                if (i == 0)
                    return fine_bracket(lower, upper, h,
                                        [&](double g) { return grid_delta_bracket(eps, g, delta_least); });
                break;
            } catch (const std::invalid_argument&) {  // a tilt past the doubles' moments
                break;
            }
            lower = std::max(lower, b.first);
            upper = std::min(upper, b.second);
            if (width_of(lower, upper) <= accuracy || !(last - b.second > 0.25 * accuracy * b.second)) break;
            last = b.second;
            h /= kTiltGridStep;
            directions_.clear();
        }
        return {lower, std::max(lower, upper)};
    }

  private:
    // (grid, remove direction, tail, tilt, window tail) of a held composition (the window tail 0 on the lower side)
    using WindowKey = std::tuple<double, bool, double, double, double>;

    // One direction's certified upper deltas at each of `eps` on grid h: its pessimistic rounds, discretized with the
    // tails `level` allows, composed under the Chernoff exponent's tilt at `centre` (past the cap cut at `window_tail`,
    // its mass above charged, where > 0; else std::length_error), held by (h, direction, tail, tilt, window tail) for
    // the reads that share it.
    std::vector<double> held_deltas(bool remove, const std::vector<double>& eps, double h, double centre, double level,
                                    double window_tail) {
        const double t = tail(remove, level);
        const Direction& d = direction(h, remove, t, false);
        const std::vector<CountedPmf> ups{{&d.upper, rounds_}};
        const double lam = exponent_tilt(ups, centre);
        const TiltedComposition& side = upper_windows_.window(std::make_tuple(h, remove, t, lam, window_tail), [&] {
            return compose_tilted(ups, lam * d.upper.h, true, fft_, max_points_, kDefaultCompositionTail, window_tail);
        });
        std::vector<double> out(eps.size());
        for (std::size_t i = 0; i < eps.size(); ++i) out[i] = side.delta(eps[i]);
        return out;
    }

    // One grid_delta_bracket read: not yet made, its bracket, or the exception it threw (its type and message).
    struct KeptRead {
        enum Outcome { kNone, kRead, kPastCaps, kRefused } outcome = kNone;
        std::pair<double, double> bracket;
        std::string message;
    };

    double sigma_, q_;
    std::int64_t rounds_;
    RealFftBackend& fft_;
    std::int64_t max_cells_, max_points_;
    double given_tail_ = 0.0;  // give_tail's (0: the tails each delta allows)
    std::map<std::tuple<double, bool, double>, std::unique_ptr<Direction>> directions_;
    std::map<std::tuple<double, double, double, double>, KeptRead> delta_reads_;
    // (direction, delta) -> the grids where a cut upper read showed its cut, and the uncut window's points there (0:
    // past the cap): cut_read's
    std::map<std::pair<bool, double>, std::map<double, std::int64_t>> cut_shown_;
    // delta_upper's pessimistic compositions and delta_lower's optimistic ones
    HeldWindows<WindowKey> upper_windows_, lower_windows_;
};

}  // namespace pld
}  // namespace hockeystick
