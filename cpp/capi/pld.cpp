// The C interface's privacy loss distributions: the Poisson-subsampled Gaussian discretized on both certified
// sides, its composition over rounds (the handle of pld_handle.hpp, composed through the core's FFT composition),
// and the certified epsilon and delta brackets read from the composed PMFs of any handle (pld/reads/), the maximum
// over the neighbouring directions (Zhu, Dong & Wang, AISTATS 2022, Sec. 5).
//
// What a bracket composes, as the Python package's pld.grid.distribution.brackets: the directions' pessimistic
// sides, then the optimistic side of the leading direction (the first whose upper value is the largest) and of each
// other direction whose upper value exceeds the leading one's lower value.  A direction whose upper value lies at or
// below that lower value cannot raise the maximum (its own lower value is at most its upper one), so the bracket is
// the same, bit for bit, with or without it: a side is composed on the first read that needs it, once
// (std::call_once), and every optimistic side composed so far is read.  Each side keeps its composed spectrum where
// that has few live bins and is read through it (pld/reads/spectral_profile.hpp, no inverse transform), else its
// window.
//
// An epsilon read screens every direction after the first whose factors can be discretized again (the
// Poisson-subsampled Gaussian's add direction), as the package's refinement and refine.cpp do
// (pld/refine/direction_screen.hpp): its pessimistic side composed on a grid kScreenCoarsening times coarser, its
// rounds cut at the question tail, read at delta; where that certified upper epsilon is at or below the first
// direction's certified lower one, the direction's epsilon is at most the first's and the read leaves it out (its
// sides on the handle's grid are not composed for it).  The bracket is then the one read with it wherever its upper
// value on the handle's grid lies at or below the first direction's (the lower side always: the direction's lower
// value is below its screen), and narrower, still certified, where that upper value is infinite or above it only by
// the grids' round-off.  Delta reads read every direction.
//
// A handle of two or more rounds whose every factor is a Poisson-subsampled Gaussian round at a rate below 1 describes
// a run, and a bracket of it that is not exact is intersected with the run's read, as the package reads a PLD whose
// factors describe their run (python pld/question/reader.py): one kind of round as the epsilon and delta calls read it
// at the default accuracy (refine.cpp, whose refinements read this file's plain brackets grid by grid, never these
// calls), several by the tilted factors' reads (pld/refine/tilted_factors.hpp).  So the handle's door and the
// package's agree within the default tolerance whatever grid the handle was built on: where that grid leaves the
// bracket wide (rare participation at a small delta: (0, inf) on the peers' grid), and where it is within the
// tolerance but above the package's finer reads (DP-FedAvg at delta 1e-10: 0.71300 on the peers' grid, 0.71294 read
// as its run, dp_accounting's default 0.712964).  hs_pld_composition_epsilon_bracket and _delta_bracket give the plain
// brackets alone.
//
// A handle whose factors describe no run (Laplace, the fixed-size subsampled Gaussian, mixtures of mechanisms) and
// some direction of which composes two rounds or more is read as the package reads a composed PLD whose factors
// describe no run (python pld/question/reader.py), by the same core reads at the same charge share: its epsilon by
// own_grid_bracket (pld/refine/own_grid.hpp), its delta at epsilon > 0 by own_grid_deltas (pld/refine/
// own_grid_delta.hpp), each side intersected with its factors composed under an exponential tilt on the handle's own
// grid where the plain composition's charges pass kOwnGridChargeShare of the delta, from the handle's plain bracket
// and each direction's plain composed window (kept as a window, not a spectrum, for these reads: hs_pld::upper_window).
// The delta read's tilted compositions are held in the handle from call to call (hs_pld::own_grid_held), each a
// function of its factors and tilt alone, so a read does not depend on what was read before.  The two doors' brackets
// then agree within the round-off of their FFT backends.  The Gaussian mechanism itself (sampling rate 1) composed
// over rounds is read so too; the package reads it in closed form (hs_theta_epsilon with r = sqrt(T) / sigma).
//
// For a handle whose factors describe a run, where some direction read carries a round-off charge above
// kTiltedChargeShare of the delta read, the bracket is intersected with the tilted reads of the handle's own factors
// (pld/refine/tilted_question.hpp: each direction's factors composed under an exponential tilt, the charge relative
// to the Chernoff bound; composed per read, not kept), before the run's read; a screened direction's tilted read is
// skipped where its screen, read under the tilt too, is at or below the lower side the first direction's reads
// certify.  Below that share the plain bracket stands alone until the run's read.  The refinements to an accuracy
// read the plain brackets (plain_epsilon_bracket, plain_delta_bracket) and take their own tilted reads, whose tails
// are sized to the delta asked (refine.cpp).
#include <hockeystick/hockeystick.hpp>
#include <hockeystick/pld/compose/compose.hpp>
#include <hockeystick/pld/reads/epsilon_bracket.hpp>
#include <hockeystick/pld/reads/spectral_profile.hpp>
#include <hockeystick/pld/refine/direction_screen.hpp>
#include <hockeystick/pld/refine/grid_policy.hpp>
#include <hockeystick/pld/refine/own_grid.hpp>
#include <hockeystick/pld/refine/own_grid_delta.hpp>
#include <hockeystick/pld/refine/split_read.hpp>
#include <hockeystick/pld/refine/step_bracket.hpp>
#include <hockeystick/pld/refine/tilted_factors.hpp>
#include <hockeystick/pld/refine/tilted_question.hpp>
#include <hockeystick/pld/refine/window_heap.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "boundary.hpp"
#include "pld_handle.hpp"

#ifdef HOCKEYSTICK_C_FFT_FFTW
constexpr const char* kFftBackend = "fftw";
#else
constexpr const char* kFftBackend = "eigen";
#endif

namespace pld = hockeystick::pld;
using hockeystick_c::guarded;
using hockeystick_c::invalid_argument_error;
using hockeystick_c::kMaxCells;
using hockeystick_c::kMaxInterval;
using hockeystick_c::kMaxRounds;
using hockeystick_c::require;
using hockeystick_c::require_output;

namespace {

// The Poisson-subsampled Gaussian's cells in one direction (pld/grid/cells.hpp), `halves` for the optimistic side.
pld::Cells subsampled_gaussian_cells(double sigma, double q, bool remove, double h, bool halves, double tail) {
    try {
        return pld::subsampled_gaussian_cells(sigma, q, remove, h, tail, kMaxCells, halves);
    } catch (const std::length_error&) {
        throw invalid_argument_error{"value_discretization_interval=" + hockeystick_c::shown(h) +
                                     " with sigma = " + hockeystick_c::shown(sigma) + " would need more than " +
                                     std::to_string(kMaxCells) +
                                     " loss cells: use a coarser value_discretization_interval, or a larger sigma"};
    }
}

// One round in one neighbouring direction: its pessimistic PMF, and its optimistic PMF, built with it where
// `eager`, else on first need from the cells computed again with their halves (the same cells and the same PMF:
// pld/grid/cells.hpp's continuous_cells).  Only where the PMF is built differs, never its value: the remove
// direction's is built with it, since its upper side is the larger at epsilon > 0 in the settings the tests read,
// so it leads nearly every bracket and its optimistic side is composed; the add direction's is then rarely composed
// (the opening comment), and its optimistic PMF and half cells cost as much as its cells.
class Direction final : public hockeystick_c::Factor {
  public:
    Direction(double sigma, double q, bool remove, double h, bool eager, double tail = pld::kDefaultCompositionTail)
        : sigma_(sigma), q_(q), h_(h), tail_(tail), remove_(remove) {
        const pld::Cells cells = subsampled_gaussian_cells(sigma, q, remove, h, eager, tail);
        upper_ = pld::pessimistic_pmf(cells);
        if (eager) std::call_once(lower_once_, [&] { lower_ = pld::optimistic_pmf(cells); });
    }

    const pld::GridPMF& upper() const override { return upper_; }

    const pld::GridPMF& lower() const override {
        std::call_once(lower_once_, [&] {
            lower_ = pld::optimistic_pmf(subsampled_gaussian_cells(sigma_, q_, remove_, h_, true, tail_));
        });
        return lower_;
    }

    bool regrids() const override { return true; }

    std::shared_ptr<const hockeystick_c::Factor> on_grid(double h, double tail) const override {
        return std::make_shared<const Direction>(sigma_, q_, remove_, h, false, tail);
    }

    std::optional<GaussianRound> subsampled_gaussian() const override { return GaussianRound{sigma_, q_, remove_}; }

  private:
    double sigma_, q_, h_, tail_;
    bool remove_;
    pld::GridPMF upper_;
    mutable std::once_flag lower_once_;
    mutable pld::GridPMF lower_;
};

// The charges of a side read through its spectrum: the composition's, with no suffix sums (slack 0).
pld::GridCharges spectral_charges(const pld::ComposedPMF& c) {
    pld::GridCharges ch = pld::charges_of(c);
    ch.slack = 0.0;
    return ch;
}

// One round of the Poisson-subsampled Gaussian: the remove direction, then the add direction where q < 1 (the
// Gaussian mechanism, q = 1, is symmetric: one direction).
std::shared_ptr<const hockeystick_c::Composition> subsampled_gaussian_round(double sigma, double q, double h) {
    std::vector<std::shared_ptr<const hockeystick_c::Factor>> factors;
    factors.emplace_back(new Direction(sigma, q, true, h, true));
    if (q < 1.0) factors.emplace_back(new Direction(sigma, q, false, h, false));
    return hockeystick_c::one_round(std::move(factors));
}

void require_handle(const hs_pld* p) {
    if (p == nullptr) throw invalid_argument_error{"pld must not be NULL (a handle made by an hs_pld_ call)"};
}

// The certified upper epsilon at delta of a composed pessimistic side (at least 0).
double upper_epsilon_of(const pld::ComposedPMF& c, double delta) {
    double e = 0.0;
    pld::composed_epsilon(c, &delta, 1, &e);
    return std::max(e, 0.0);
}

// The certified upper epsilon of direction d at delta (at least 0).
double upper_epsilon(const hs_pld& p, std::size_t d, double delta) { return upper_epsilon_of(p.upper_side(d), delta); }

// The certified lower epsilon of direction d at delta (at least 0).
double lower_epsilon(const hs_pld& p, std::size_t d, double delta) {
    const pld::ComposedPMF& c = p.lower_side(d);
    double e = 0.0;
    if (c.spectral)
        pld::spectral_lower_epsilon(c.spectrum, c.p_inf, spectral_charges(c), &delta, 1, &e);
    else
        pld::charged_lower_epsilon(c.p.data(), static_cast<std::int64_t>(c.p.size()), c.k_lo, c.h, c.p_inf,
                                   pld::charges_of(c), &delta, 1, &e);
    return std::max(e, 0.0);
}

double upper_delta(const hs_pld& p, std::size_t d, double epsilon) {
    double v = 0.0;
    pld::composed_delta(p.upper_side(d), &epsilon, 1, &v);
    return v;
}

double lower_delta(const hs_pld& p, std::size_t d, double epsilon) {
    const pld::ComposedPMF& c = p.lower_side(d);
    if (!c.spectral) return p.lower[d].curve().delta(epsilon);
    double v = 0.0;
    pld::spectral_lower_delta(c.spectrum, c.p_inf, spectral_charges(c), &epsilon, 1, &v);
    return v;
}

// The lower values the opening comment's rule reads, given the upper values `ups` of the directions `dirs`: the
// leading direction's (the first whose upper value is the largest) first, then those of the directions its lower
// value does not dominate and of those composed already.
template <class LowerOf>
std::vector<double> lower_reads(const hs_pld& p, const std::vector<std::size_t>& dirs, const std::vector<double>& ups,
                                LowerOf lower_of) {
    const double upper = *std::max_element(ups.begin(), ups.end());
    const std::size_t lead = static_cast<std::size_t>(
        std::find_if(ups.begin(), ups.end(), [&](double u) { return u >= upper; }) - ups.begin());
    std::vector<double> lows{lower_of(dirs[lead])};
    for (std::size_t i = 0; i < dirs.size(); ++i)
        if (i != lead && (!(ups[i] <= lows.front()) || p.lower[dirs[i]].composed())) lows.push_back(lower_of(dirs[i]));
    return lows;
}

// Direction d's screen for a read at delta: its rounds cut at the question tail (pld/refine/grid_policy.hpp: the
// default 1e-15, or less where the rounds' cuts, at most rounds x tail at +infinity on the pessimistic side, would
// pass 1e-3 delta), so that the screen's upper side is finite wherever the direction's epsilon is (at the default
// tail the add direction's cuts, with no factor q, pass delta 1e-12 from ~2000 rounds on).
hockeystick_c::Screen& screen_of(const hs_pld& p, std::size_t d, double delta) {
    return p.screen(d, pld::question_tail(static_cast<double>(p.rounds), delta));
}

// The directions an epsilon read at delta takes: every direction but those a screen clears
// (pld/refine/direction_screen.hpp: the screen's certified upper epsilon, its pessimistic side composed on a grid
// kScreenCoarsening times coarser, at or below the first direction's certified lower epsilon, so that direction's
// epsilon is at most the first's and the maximum over the directions is the others').  A cleared direction is read
// on neither side: its upper value cannot raise the upper side but by round-off (the bracket is then the narrower,
// still certified), its lower value cannot raise the lower side.  The decision reads only the screen and the first
// direction, never which sides are composed already, so a handle's reads do not depend on their order.
std::vector<std::size_t> epsilon_directions(const hs_pld& p, double delta) {
    std::vector<std::size_t> dirs{0};
    for (std::size_t d = 1; d < p.directions(); ++d) {
        if (p.screened(d)) {
            const double bound = upper_epsilon_of(screen_of(p, d, delta).pmf(*p.composition, d), delta);
            const double first = lower_epsilon(p, 0, delta);
            if (pld::screen_clears(&bound, &first, 1, -HUGE_VAL)) continue;
        }
        dirs.push_back(d);
    }
    return dirs;
}

// [lower, upper] over the directions `dirs` (the opening comment's rule): upper the largest of upper_of(d); lower
// the largest of lower_reads.
template <class UpperOf, class LowerOf>
void bracket(const hs_pld& p, const std::vector<std::size_t>& dirs, UpperOf upper_of, LowerOf lower_of, double& lower,
             double& upper) {
    std::vector<double> ups(dirs.size());
    for (std::size_t i = 0; i < dirs.size(); ++i) ups[i] = upper_of(dirs[i]);
    upper = *std::max_element(ups.begin(), ups.end());
    const std::vector<double> lows = lower_reads(p, dirs, ups, lower_of);
    lower = *std::max_element(lows.begin(), lows.end());
}

// The certified epsilon bracket of p at delta over the directions `dirs` (hs_pld_epsilon_bracket's value).
std::pair<double, double> epsilon_bracket_of(const hs_pld& p, const std::vector<std::size_t>& dirs, double delta) {
    double lo = 0.0, hi = 0.0;
    bracket(
        p, dirs, [&](std::size_t d) { return upper_epsilon(p, d, delta); },
        [&](std::size_t d) { return lower_epsilon(p, d, delta); }, lo, hi);
    return {lo, hi};
}

// A read of a handle that describes a run is limited by the plain composition's round-off where some direction's
// pessimistic side carries a total round-off charge above this share of the delta read: there the tilted reads
// (pld/refine/tilted_question.hpp) are taken too, before the run's read.  Below it the charge moves the bracket by at
// most about the share in delta, a share over the curve's slope in epsilon, and the plain read stands alone until the
// run's read.
constexpr double kTiltedChargeShare = 1e-2;

bool charge_limited(const hs_pld& p, const std::vector<std::size_t>& dirs, double delta) {
    for (const std::size_t d : dirs)
        if (p.upper_side(d).total_error > kTiltedChargeShare * delta) return true;
    return false;
}

// Direction d's factors and counts on one side (the optimistic PMFs built on first need).
std::vector<pld::CountedPmf> direction_terms(const hockeystick_c::Composition& c, std::size_t d, bool pessimistic) {
    std::vector<pld::CountedPmf> out;
    for (const hockeystick_c::Term& t : c.directions[d])
        out.push_back({pessimistic ? &t.factor->upper() : &t.factor->lower(), t.count});
    return out;
}

std::vector<pld::CountedPmf> direction_terms(const hs_pld& p, std::size_t d, bool pessimistic) {
    return direction_terms(*p.composition, d, pessimistic);
}

// Whether direction d's screen clears it at delta under the tilt: the screen's pessimistic factors (on the coarser
// grid) composed under the Chernoff tilts, their certified upper epsilon (tilted_direction_epsilon, searched from the
// screen's plain upper side) at or below `lower`, a certified lower epsilon of the first direction
// (pld/refine/direction_screen.hpp).  Then direction d's epsilon is at most the first's, and its tilted read on the
// handle's grid cannot move the bracket.  A tilted window past kTiltMaxPoints or a tilt overflowing a factor's
// moment clears nothing.
bool tilted_screen_clears(const hs_pld& p, std::size_t d, double delta, double lower, pld::RealFftBackend& fft) {
    try {
        hockeystick_c::Screen& screen = screen_of(p, d, delta);
        const double from = upper_epsilon_of(screen.pmf(*p.composition, d), delta);
        const std::pair<double, double> b = pld::tilted_direction_epsilon(
            direction_terms(screen.composition(*p.composition, d), 0, true), {}, delta, from, fft, pld::kTiltMaxPoints);
        return pld::screen_clears(&b.second, &lower, 1, -HUGE_VAL);
    } catch (const std::length_error&) { return false; } catch (const std::invalid_argument&) {
        return false;
    }
}

// `plain` intersected with the tilted bracket of the directions `dirs` (tilted_direction_epsilon or
// tilted_direction_delta, by `read`), the maximum over them on each side, a direction d after the first left out
// where cleared(d, the lower side so far) (its epsilon at most the first direction's: tilted_screen_clears); `plain`
// as given where a tilted window passes kTiltMaxPoints or a tilt overflows a factor's moment.  Both certified, so is
// their intersection.
template <class Read, class Cleared>
std::pair<double, double> with_tilted_reads(const hs_pld& p, const std::vector<std::size_t>& dirs,
                                            std::pair<double, double> plain, Read read, Cleared cleared) {
    hockeystick_c::CompositionFft fft;
    double lower = 0.0, upper = 0.0;
    try {
        for (const std::size_t d : dirs) {
            if (d != dirs.front() && cleared(d, std::max(plain.first, lower), fft)) continue;
            const std::pair<double, double> b = read(direction_terms(p, d, true), direction_terms(p, d, false), fft);
            lower = std::max(lower, b.first);
            upper = std::max(upper, b.second);
        }
    } catch (const std::length_error&) { return plain; } catch (const std::invalid_argument&) {
        return plain;
    }
    lower = std::max(plain.first, lower);
    return {lower, std::max(lower, std::min(plain.second, upper))};
}

// The kinds of round of direction d's terms where each is a Poisson-subsampled Gaussian round of that direction
// (`remove`) at a rate below 1, the terms of one (sigma, q) merged (counts added), in the order first met; empty where
// some term is not.
std::vector<pld::TiltedSegment> kinds_of(const std::vector<hockeystick_c::Term>& terms, bool remove) {
    std::vector<pld::TiltedSegment> kinds;
    for (const hockeystick_c::Term& t : terms) {
        const std::optional<hockeystick_c::Factor::GaussianRound> g = t.factor->subsampled_gaussian();
        if (!g || g->remove != remove || !(g->q < 1.0)) return {};
        const auto same = std::find_if(kinds.begin(), kinds.end(),
                                       [&](const pld::TiltedSegment& k) { return k.sigma == g->sigma && k.q == g->q; });
        if (same != kinds.end())
            same->rounds += t.count;
        else
            kinds.push_back({g->sigma, g->q, t.count, 1.0});
    }
    return kinds;
}

// The run a handle's factors describe, as the package's question reader finds it (python
// pld/question/described_run.py): kinds of Poisson-subsampled Gaussian round at rates below 1, the remove direction's
// and the add direction's the same; empty where the handle is any other composition.
std::vector<pld::TiltedSegment> run_of(const hs_pld& p) {
    const std::vector<std::vector<hockeystick_c::Term>>& dirs = p.composition->directions;
    if (dirs.size() != 2) return {};
    std::vector<pld::TiltedSegment> remove = kinds_of(dirs[0], true), add = kinds_of(dirs[1], false);
    if (remove.size() != add.size()) return {};
    for (std::size_t i = 0; i < remove.size(); ++i)
        if (!(remove[i].sigma == add[i].sigma && remove[i].q == add[i].q && remove[i].rounds == add[i].rounds))
            return {};
    return remove;
}

// The default tolerance of an epsilon bracket (the package's question.DEFAULT_ACCURACY and its relative one).
constexpr pld::EpsilonTolerance kDefaultTolerance = pld::kDefaultEpsilonTolerance;

// `plain` (the handle's certified epsilon bracket at delta) intersected with its run's read, as the package reads a
// PLD whose factors describe their run (python pld/question/reader.py): one kind of round, the epsilon question's
// default (hs_subsampled_gaussian_epsilon at accuracy 1e-3 with the default's last reads, among them the tilted
// factors' ladder and the blocks of rounds where still wide: refine.cpp's run_epsilon_bracket); several, the tilted factors' ladder and fine reads
// (pld/refine/tilted_factors.hpp: ladder_bracket, fine_bracket) and the split read of few sampled rounds
// (pld/refine/split_read.hpp's factors_split_epsilon); the handle's own where the run's read is refused (its grids or
// windows past the library's limits).  Both certified, so is their intersection.
std::pair<double, double> with_run_epsilon(const std::vector<pld::TiltedSegment>& run, double delta,
                                           std::pair<double, double> plain) {
    std::pair<double, double> b;
    try {
        if (run.size() == 1) {
            b = hockeystick_c::run_epsilon_bracket(run[0].sigma, run[0].q, run[0].rounds, delta);
        } else {
            hockeystick_c::CompositionFft fft;
            pld::TiltedFactorsReader reader(run, fft, kMaxCells);
            b = reader.ladder_bracket(delta, plain.first, plain.second, kDefaultTolerance);
            b = reader.fine_bracket(delta, b.first, b.second, kDefaultTolerance);
            hockeystick_c::CompositionFft split;
            b = pld::factors_split_epsilon(reader, delta, b.first, b.second, {split, hockeystick_c::kMaxPoints});
        }
    } catch (const invalid_argument_error&) {  // the run's first grid past the library's cells: the handle's own
        return plain;
    } catch (const std::length_error&) {  // a discretization or window past the caps
        return plain;
    } catch (const std::invalid_argument&) {  // a tilt past the doubles' moments
        return plain;
    }
    const double lower = std::max(plain.first, b.first);
    return {lower, std::max(lower, std::min(plain.second, b.second))};
}

// `plain` (the handle's certified delta bracket at a finite epsilon >= 0) intersected with its run's read, where `plain`
// is not exact and its upper side positive: one kind of round, the delta question's default (hs_subsampled_gaussian_delta
// at accuracy 1e-3); several, the max-of-outputs test's lower side and the tilted factors' delta read on
// kRareDeltaFineGrid, its tails sized for the upper side, and the split read of few sampled rounds
// (pld/refine/split_read.hpp's factors_split_delta), as the package's question/tilted_factors_delta.py; the handle's
// own where the run's read is refused.  Both certified, so is their intersection.
std::pair<double, double> with_run_delta(const std::vector<pld::TiltedSegment>& run, double epsilon,
                                         std::pair<double, double> plain) {
    double lower = plain.first, upper = plain.second;
    if (!(upper > 0.0) || pld::exact_bracket(lower, upper)) return plain;
    try {
        if (run.size() == 1) {
            const std::pair<double, double> b =
                hockeystick_c::run_delta_bracket(run[0].sigma, run[0].q, run[0].rounds, epsilon);
            lower = std::max(lower, b.first);
            upper = std::min(upper, b.second);
        } else {
            hockeystick_c::CompositionFft fft;
            pld::TiltedFactorsReader reader(run, fft, kMaxCells);
            lower = std::max(lower, pld::max_of_outputs_delta(reader.output_segments(), epsilon));
            const double tail = reader.question_tail(upper);
            const pld::TiltedFactorsReader::DeltaRead r =
                reader.delta_read(epsilon, pld::kRareDeltaFineGrid, tail, lower, upper);
            hockeystick_c::CompositionFft split;
            std::tie(lower, upper) = pld::factors_split_delta(reader, epsilon, pld::kRareDeltaFineGrid, tail, r.lower,
                                                              r.upper, r.add_upper, {split, hockeystick_c::kMaxPoints});
        }
    } catch (const invalid_argument_error&) {  // the run's first grid past the library's cells: the handle's own
    } catch (const std::length_error&) {  // a window past the cap
    } catch (const std::invalid_argument&) {  // a tilt past the doubles' moments
    }
    return {lower, std::max(lower, upper)};
}

// Whether some direction of p composes two rounds or more (the package's tilted_own_grid.composed_rounds): a single
// round carries no composition round-off for the own-grid reads to remove.
bool composed_rounds(const hs_pld& p) {
    for (const std::vector<hockeystick_c::Term>& direction : p.composition->directions) {
        std::int64_t rounds = 0;
        for (const hockeystick_c::Term& t : direction) rounds += t.count;
        if (rounds >= 2) return true;
    }
    return false;
}

// The directions `dirs` of p as the own-grid reads take them (pld/refine/own_grid.hpp's OwnGridDirection): each
// one's plain composed pessimistic window (hs_pld::upper_window), its factors' pessimistic PMFs and their optimistic
// ones with their counts, every one a discretized round of its side (tiltable), as the package hands them
// (python pld/question/tilted_own_grid.py).  The windows and PMFs are the handle's, referenced.
std::vector<pld::OwnGridDirection> own_grid_directions(const hs_pld& p, const std::vector<std::size_t>& dirs) {
    std::vector<pld::OwnGridDirection> out;
    for (const std::size_t d : dirs) {
        pld::OwnGridDirection g;
        g.plain = pld::tilted_window(p.upper_window(d));
        g.ups = direction_terms(p, d, true);
        g.lows = direction_terms(p, d, false);
        out.push_back(std::move(g));
    }
    return out;
}

// `plain` (the handle's certified epsilon bracket at delta over the directions `dirs`, those a screen leaves) read
// by the core's own-grid epsilon read at its charge share (pld/refine/own_grid.hpp's own_grid_bracket), as the
// package reads a composed PLD whose factors describe no run: the plain bracket intersected with each direction's
// factors composed under an exponential tilt where the plain composition's charges pass kOwnGridChargeShare of
// delta.  A direction left out by its screen has its epsilon at most the first direction's, so the maximum over
// `dirs` is the maximum over all.
std::pair<double, double> with_own_grid_epsilon(const hs_pld& p, const std::vector<std::size_t>& dirs, double delta,
                                                std::pair<double, double> plain) {
    hockeystick_c::CompositionFft fft;
    return pld::own_grid_bracket(own_grid_directions(p, dirs), delta, plain.first, plain.second, false, fft);
}

// `plain` (the handle's certified delta bracket at epsilon > 0, finite) read by the core's own-grid delta read
// (pld/refine/own_grid_delta.hpp's own_grid_deltas, its compositions held in the handle's own_grid_held), as the
// package reads a composed PLD whose factors describe no run.
std::pair<double, double> with_own_grid_delta(const hs_pld& p, double epsilon, std::pair<double, double> plain) {
    hockeystick_c::CompositionFft fft;
    pld::own_grid_deltas(own_grid_directions(p, hockeystick_c::every_direction(*p.composition)), &epsilon, 1,
                         &plain.first, &plain.second, true, true, p.own_grid_held, fft);
    return plain;
}

// The certified epsilon bracket at delta of hs_pld_epsilon_bracket (the opening comment): the plain bracket, read
// by the own-grid read where p describes no run, else under the tilt where charge-limited and then as its run.
std::pair<double, double> run_epsilon_read(const hs_pld& p, double delta) {
    const std::vector<std::size_t> dirs = epsilon_directions(p, delta);
    std::pair<double, double> b = epsilon_bracket_of(p, dirs, delta);
    const std::vector<pld::TiltedSegment> run = p.rounds > 1 ? run_of(p) : std::vector<pld::TiltedSegment>{};
    if (run.empty()) {  // no run described: the own-grid read, as the package's
        if (composed_rounds(p)) b = with_own_grid_epsilon(p, dirs, delta, b);
    } else if (charge_limited(p, dirs, delta))
        b = with_tilted_reads(
            p, dirs, b,
            [&](const auto& ups, const auto& lows, pld::RealFftBackend& fft) {
                return pld::tilted_direction_epsilon(ups, lows, delta, b.second, fft, pld::kTiltMaxPoints);
            },
            [&](std::size_t d, double lower, pld::RealFftBackend& fft) {
                return dirs.front() == 0 && p.screened(d) && tilted_screen_clears(p, d, delta, lower, fft);
            });
    if (!run.empty() && !(std::isfinite(b.second) && pld::exact_bracket(b.first, b.second)))  // the run's read
        b = with_run_epsilon(run, delta, b);
    return b;
}

// The certified delta bracket at epsilon of hs_pld_delta_bracket (the opening comment), as run_epsilon_read.
std::pair<double, double> run_delta_read(const hs_pld& p, double epsilon) {
    std::pair<double, double> b = hockeystick_c::plain_delta_bracket(p, epsilon);
    const std::vector<std::size_t> dirs = hockeystick_c::every_direction(*p.composition);
    const std::vector<pld::TiltedSegment> run = p.rounds > 1 ? run_of(p) : std::vector<pld::TiltedSegment>{};
    if (run.empty()) {  // no run described: the own-grid read, as the package's
        if (composed_rounds(p) && std::isfinite(epsilon) && epsilon > 0.0) b = with_own_grid_delta(p, epsilon, b);
    } else if (b.second > 0.0 && charge_limited(p, dirs, b.second))
        b = with_tilted_reads(
            p, dirs, b,
            [&](const auto& ups, const auto& lows, pld::RealFftBackend& fft) {
                return pld::tilted_direction_delta(ups, lows, epsilon, epsilon, fft, pld::kTiltMaxPoints);
            },
            [](std::size_t, double, pld::RealFftBackend&) { return false; });
    if (!run.empty() && std::isfinite(epsilon) && epsilon >= 0.0)  // the run's read
        b = with_run_delta(run, epsilon, b);
    return b;
}

// The arguments' rules of the bracket calls.
void require_delta(double delta) {
    require(delta > 0.0 && delta < 1.0, "delta", "must lie strictly between 0 and 1", delta);
}
void require_epsilon(double epsilon) { require(!std::isnan(epsilon), "epsilon", "must not be NaN", epsilon); }

// A bracket call of the header: its outputs and handle checked, then read(*p) (which checks its own argument first)
// written to *lower and *upper; nothing written on a refusal.
template <class Read>
hs_status bracket_call(const hs_pld* p, double* lower, double* upper, Read read) {
    return guarded([&] {
        require_output(lower, "lower");
        require_output(upper, "upper");
        require_handle(p);
        const std::pair<double, double> b = read(*p);
        *lower = b.first;
        *upper = b.second;
        return HS_OK;
    });
}

}  // namespace

namespace hockeystick_c {

std::pair<double, double> plain_epsilon_bracket(const hs_pld& p, double delta) {
    return epsilon_bracket_of(p, epsilon_directions(p, delta), delta);
}

FixedGridEpsilon fixed_grid_epsilon(const hs_pld& p, double delta) {
    const std::vector<std::size_t> dirs = every_direction(*p.composition);
    FixedGridEpsilon out{epsilon_bracket_of(p, dirs, delta), HUGE_VAL};
    if (dirs.size() > 1) out.add_upper = upper_epsilon(p, dirs[1], delta);
    return out;
}

// The delta bracket as a step of the refinement assembles it (pld/refine/step_bracket.hpp, the package's
// refinement's too): each side the largest over the directions' reads, the lower values those of lower_reads (each
// with its suffix maxima: the curve's delta), one argument, no record of an earlier grid.
std::pair<double, double> plain_delta_bracket(const hs_pld& p, double epsilon) {
    const std::vector<std::size_t> dirs = every_direction(*p.composition);
    std::vector<double> ups(dirs.size());
    for (const std::size_t d : dirs) ups[d] = upper_delta(p, d, epsilon);
    const std::vector<double> lows =
        lower_reads(p, dirs, ups, [&](std::size_t d) { return lower_delta(p, d, epsilon); });
    const double no_fixed[2] = {0.0, 0.0};  // the fixed parts size a package's next grid only
    std::vector<pld::DirectionRead> uppers, lowers;
    for (const double& u : ups) uppers.push_back({&u, no_fixed});
    for (const double& l : lows) lowers.push_back({&l, no_fixed});
    pld::RefinedPoint point;
    point.x = {epsilon};
    point.own = 1;
    pld::PointsRules rules;
    rules.kind = pld::PointsWidth::relative_delta;
    const pld::StepBracket b = pld::delta_step_bracket(rules, point, uppers, lowers, nullptr);
    return {b.lower.front(), b.upper.front()};
}

}  // namespace hockeystick_c

extern "C" {

int hs_has_pld(void) { return 1; }

const char* hs_fft_backend(void) { return kFftBackend; }

hs_status hs_pld_subsampled_gaussian(double sigma, double sampling_rate, double value_discretization_interval,
                                     hs_pld** out) {
    return guarded([&] {
        require_output(out, "out");
        require(sigma > 0.0 && std::isfinite(sigma), "sigma", "must be finite and > 0", sigma);
        require(sampling_rate > 0.0 && sampling_rate <= 1.0, "sampling_rate", "must lie in (0, 1]", sampling_rate);
        require(value_discretization_interval > 0.0 && value_discretization_interval <= kMaxInterval,
                "value_discretization_interval",
                "must lie in (0, 100] (the PLD grid spacing; e.g. 1e-4: smaller is finer, tighter and slower)",
                value_discretization_interval);
        *out = new hs_pld(subsampled_gaussian_round(sigma, sampling_rate, value_discretization_interval), 1);
        return HS_OK;
    });
}

hs_status hs_pld_self_compose(const hs_pld* p, long long count, hs_pld** out) {
    return guarded([&] {
        require_output(out, "out");
        require_handle(p);
        require(count >= 1 && count <= kMaxRounds / p->rounds, "count",
                "must be an integer with 1 <= count and count x the PLD's rounds <= 2^53", static_cast<double>(count));
        const pld::WindowHeap heap;  // the windows from the heap while the call composes
        *out = new hs_pld(std::make_shared<const hockeystick_c::Composition>(
                              hockeystick_c::repeated(*p->composition, static_cast<std::int64_t>(count))),
                          p->rounds * static_cast<std::int64_t>(count));
        return HS_OK;
    });
}

hs_status hs_pld_epsilon_bracket(const hs_pld* p, double delta, double* lower, double* upper) {
    return bracket_call(p, lower, upper, [&](const hs_pld& h) {
        require_delta(delta);
        const pld::WindowHeap heap;  // the windows from the heap while the call composes
        return run_epsilon_read(h, delta);
    });
}

hs_status hs_pld_delta_bracket(const hs_pld* p, double epsilon, double* lower, double* upper) {
    return bracket_call(p, lower, upper, [&](const hs_pld& h) {
        require_epsilon(epsilon);
        const pld::WindowHeap heap;  // the windows from the heap while the call composes
        return run_delta_read(h, epsilon);
    });
}

hs_status hs_pld_composition_epsilon_bracket(const hs_pld* p, double delta, double* lower, double* upper) {
    return bracket_call(p, lower, upper, [&](const hs_pld& h) {
        require_delta(delta);
        return hockeystick_c::plain_epsilon_bracket(h, delta);
    });
}

hs_status hs_pld_composition_delta_bracket(const hs_pld* p, double epsilon, double* lower, double* upper) {
    return bracket_call(p, lower, upper, [&](const hs_pld& h) {
        require_epsilon(epsilon);
        return hockeystick_c::plain_delta_bracket(h, epsilon);
    });
}

hs_status hs_pld_rounds(const hs_pld* p, long long* out) {
    return guarded([&] {
        require_output(out, "out");
        require_handle(p);
        *out = static_cast<long long>(p->rounds);
        return HS_OK;
    });
}

void hs_pld_free(hs_pld* p) { delete p; }

}  // extern "C"
