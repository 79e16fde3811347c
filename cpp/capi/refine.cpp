// The C interface's refinements to an accuracy: epsilon at delta (hs_subsampled_gaussian_epsilon: at its default
// accuracy, the package default's chain with its fixed grid, default_epsilon: the core's default refinement,
// pld/refine/default_refinement.hpp, at the question tail with the fine read beside its ladder, the tilted descent
// where still wider than the default tolerance, the last reads, pld/refine/last_epsilon_reads.hpp; where that is
// wider than asked, and at any other accuracy, the package's accuracy= read: the core's steps_refinement.hpp to the
// accuracy, then its accuracy_epsilon.hpp), each grid's bracket read as the package's refinement reads it
// (epsilon_step_read: the core's step read, pld/refine/subsampled_gaussian_step.hpp: the remove direction composed
// with its truncations sized to delta and the accuracy, the add direction screened on a coarser grid and composed on
// the grid only where the screen does not clear; every grid after the first, and the first at a delta below 1e-8,
// with the low band of its many-round rows recomputed accurately: DirectBins), delta at epsilon to a relative accuracy
// (hs_subsampled_gaussian_delta: steps_refinement.hpp's delta loop on the core's delta step reads, the package's
// one-point refinement, then the package's accuracy= delta read,
// pld/refine/accuracy_delta.hpp: the tilted reads where wider than asked, the default's bracket where finer, the fine
// delta read of pld/refine/fine_delta.hpp, rare participation's finer grids) and the
// calibration of sigma (hs_subsampled_gaussian_sigma: a bisection over the refinement's certified upper side).
//
// Small delta: where the refined bracket is still wider than the accuracy (at a delta near or below the plain
// composition's round-off charge, about T u of the total mass, and its tail cut), the calls intersect it with the
// tilted reads of the core (pld/refine/tilted_question.hpp over pld/reads/tilted.hpp: each direction composed under an
// exponential tilt, its charge relative to the Chernoff bound), on grids from the accuracy's start grid down by
// kTiltGridStep while the bracket is wider than asked and the upper side still falls, or, where the start grid's
// tilted windows pass the cap (many rounds of a rare record), on the first of the fine grids kTiltFineGrids (a quarter
// and half the peers' 1e-4, then theirs) whose windows fit (the delta call's rounds discretized with the tails of the
// level below the plain upper side, tilted_delta_level, and its add direction not read past its pure epsilon,
// add_pure_epsilon, as the package's fine delta read); before those grids, the lower side is raised to the
// max-of-outputs test's where higher (pld/reads/max_of_outputs.hpp: from the largest released value against a
// threshold, no grid; where T q >= 1 at a small delta the only lower side near the truth).  The epsilon call's
// default bracket, read by the last reads (the fine read, the tilted factors' ladder and blocks of rounds where still
// wider than the default tolerance, the rare upper read and the aligned cells' lower side, rare participation's finer
// grids, the coarser grids; python pld/question/default_reads.py, steps 4 to 7), is the package's (steps 1 to 7, its
// RDP conversion aside) to the FFT backends' round-off, and the accuracy= read intersects every finer accuracy with
// it; a delta bracket still wider than asked under rare participation is read on the finer delta grids
// (rare_delta_grids.hpp: the upper side under the tilt on grids each a quarter of the one before from 1.25e-5, the
// lower side by the optimistic PMFs below the rate and the aligned cells, as the package's default delta reads them);
// a handle's run of one kind of round (run_epsilon_bracket) is read the same way.  The Python package's front door
// reads the same headers through the binding.  Every bracket intersected is certified.  The status is set from the
// last bracket, after every read: a bracket still wider than asked is written with HS_ACCURACY_NOT_MET (written()),
// never HS_OK.
//
// Calibration: sigma is certified for (epsilon, delta) where the refined upper epsilon at delta is <= epsilon.  From
// sigma = 1 the search doubles (or halves) sigma until one side of the bracket is certified and the other is not
// (within [kSigmaLeast, kSigmaMost]), then bisects geometrically until hi / lo <= 1 + kSigmaTolerance, and returns
// hi: a sigma whose certified upper epsilon was read <= epsilon, so never below what the certificate needs, and
// within kSigmaTolerance of a sigma that was not certified.  A sigma whose first grid cannot be built (more loss
// cells than the library holds) counts as not certified.  The refined upper epsilon is close to monotone in sigma but
// not exactly (each sigma refines on its own grids), so hi is certified even where it is not the smallest such sigma.
#include <hockeystick/pld/reads/affinity_ceiling.hpp>
#include <hockeystick/pld/reads/complement.hpp>
#include <hockeystick/pld/refine/accuracy_delta.hpp>
#include <hockeystick/pld/refine/accuracy_epsilon.hpp>
#include <hockeystick/pld/refine/default_epsilon.hpp>
#include <hockeystick/pld/refine/delta_refinement.hpp>
#include <hockeystick/pld/refine/direct_bins.hpp>
#include <hockeystick/pld/refine/direction_screen.hpp>
#include <hockeystick/pld/refine/epsilon_refinement.hpp>
#include <hockeystick/pld/refine/fine_delta.hpp>
#include <hockeystick/pld/refine/fixed_grid.hpp>
#include <hockeystick/pld/refine/grid_policy.hpp>
#include <hockeystick/pld/refine/last_epsilon_reads.hpp>
#include <hockeystick/pld/refine/rare_delta_grids.hpp>
#include <hockeystick/pld/refine/rdp_cap.hpp>
#include <hockeystick/pld/refine/steps_refinement.hpp>
#include <hockeystick/pld/refine/subsampled_gaussian_step.hpp>
#include <hockeystick/pld/refine/tilted_question.hpp>
#include <hockeystick/pld/refine/window_heap.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "boundary.hpp"
#include "pld_handle.hpp"

using hockeystick_c::guarded;
using hockeystick_c::invalid_argument_error;
using hockeystick_c::require;
using hockeystick_c::require_output;
namespace pld = hockeystick::pld;

namespace {

constexpr long long kMaxRounds = 1LL << 53;  // the most rounds a PLD composes (pld_handle.hpp)
constexpr double kSigmaLeast = 1.0 / 64.0;
constexpr double kSigmaMost = 65536.0;
constexpr double kSigmaTolerance = 1e-3;
constexpr double kDefaultAccuracy = 1e-3;  // the accuracy the header gives as the calls' default (e.g. 1e-3)

using Handle = std::unique_ptr<hs_pld, void (*)(hs_pld*)>;

// A failed call's status raised again with the calling thread's last error (the boundary maps it back).
void raise_status(hs_status status) {
    const std::string message = hs_last_error();
    if (status == HS_INVALID_ARGUMENT) throw invalid_argument_error{message};
    if (status == HS_OUT_OF_MEMORY) throw std::bad_alloc();
    throw std::runtime_error(message);
}

// Whether a grid of the epsilon refinement recomposes the low band of its many-round rows accurately, and from what
// estimated charge (pld/compose/options.hpp's ComposeOptions::direct_bins, direct_min_charge), as the package's
// refinement composes its grids (pld/refine/steps_refinement.hpp, the first grid's charge python
// pld/refine/points.py's round_off_charge): every grid after the first, where the plain transform's round-off
// charge (about T x 5e-16 of the mass), not the grid, is what leaves the bracket wide, and the first too at a delta
// below kDirectFirstDelta (the charge then a part of delta that a finer grid only raises), from a charge of
// kDirectChargeShare of that delta, at most kDirectMinCharge, rounded down to a power of ten.  The delta refinement
// composes every grid after the first with them, from kDirectMinCharge (steps_refinement.hpp).
struct DirectBins {
    bool on = false;
    double min_charge = pld::kDirectMinCharge;
};

// The direct-bins rule of the package's refinement (pld/refine/direct_bins.hpp): every grid after the first, and the
// first where delta is below its first_delta, from its charge there.
DirectBins direct_bins(bool first, double delta) {
    DirectBins d;
    if (pld::direct_first(delta)) {
        d.min_charge = pld::direct_charge(delta);
        d.on = true;
    }
    d.on = d.on || !first;
    return d;
}

// A step read's composition: compose_many on the library's FFT backend with `options`, within kMaxPoints points.
struct ComposeOnGrid {
    hockeystick_c::CompositionFft& fft;
    const pld::ComposeOptions& options;
    auto operator()(const std::vector<pld::PmfView>& views, double grid,
                    const std::vector<std::vector<pld::Term>>& items, bool pessimistic, double window) const {
        return pld::compose_many(views, grid, items, pessimistic, window, hockeystick_c::kMaxPoints, fft, options);
    }
};

// `rounds` rounds of the Poisson-subsampled Gaussian on grid h composed as `direct` says, or null where the grid is
// refused (too many cells or points) and `refused_ok`.
Handle subsampled_gaussian(double sigma, double q, long long rounds, double h, bool refused_ok, DirectBins direct) {
    hs_pld* one = nullptr;
    hs_status s = hs_pld_subsampled_gaussian(sigma, q, h, &one);
    Handle round(one, hs_pld_free);
    hs_pld* composed = nullptr;
    if (s == HS_OK)
        s = guarded([&] {  // hs_pld_self_compose's handle, its sides composed with the direct bins asked
            hockeystick_c::Composition c = hockeystick_c::repeated(*round->composition, rounds);
            c.direct_bins = direct.on;
            c.direct_min_charge = direct.min_charge;
            composed = new hs_pld(std::make_shared<const hockeystick_c::Composition>(std::move(c)),
                                  round->rounds * static_cast<std::int64_t>(rounds));
            return HS_OK;
        });
    if (s == HS_INVALID_ARGUMENT && refused_ok) return Handle(nullptr, hs_pld_free);
    if (s != HS_OK) raise_status(s);
    return Handle(composed, hs_pld_free);
}

// The refusal of a round the refinement cannot discretize on its grid h, naming the calls' own arguments.
std::string undiscretized(double sigma, double q, double h, const char* why) {
    return "sigma=" + hockeystick_c::shown(sigma) + " at sampling_rate=" + hockeystick_c::shown(q) +
           " cannot be discretized on the refinement's grid " + hockeystick_c::shown(h) + " (" + why +
           "): no certified bracket is computed for this setting; a larger sigma, or a sampling_rate further from 1, "
           "is read";
}

// read(compose) of a refinement's grid, compose(views, grid, items, pessimistic, window) every window on the library's
// FFT backend with the direct bins asked and within kMaxPoints points.  A round the grid cannot discretize is refused
// naming sigma and sampling_rate, the calls' own arguments (the refinement chose h, its caller did not); a grid after
// the first (`first` false) that cannot be built (too many cells or points) gives none.
template <class Read>
auto grid_read(double sigma, double q, bool first, DirectBins direct, Read&& read) {
    std::optional<decltype(read(std::declval<ComposeOnGrid&>()))> out;
    const hs_status s = guarded([&] {
        hockeystick_c::CompositionFft fft;
        pld::ComposeOptions options;
        options.direct_bins = direct.on;
        options.direct_min_charge = direct.min_charge;
        ComposeOnGrid compose{fft, options};
        try {
            out = read(compose);
        } catch (const pld::RoundRefused& e) { throw invalid_argument_error{undiscretized(sigma, q, e.h, e.what())}; }
        return HS_OK;
    });
    if (s == HS_INVALID_ARGUMENT && !first)
        out.reset();
    else if (s != HS_OK)
        raise_status(s);
    return out;
}

// A refinement's epsilon bracket on grid h at delta to `accuracy` (with its add direction's certified upper side), as
// the package's refinement reads each grid: the core's step read (pld/refine/subsampled_gaussian_step.hpp), the rounds
// at the tails refinement_tails.hpp sizes to delta, the accuracy and `tail`, within kMaxCells cells, through grid_read.
std::optional<pld::EpsilonStepRead> epsilon_step_read(double sigma, double q, long long rounds, double delta, double h,
                                                      double accuracy, double tail, bool first, DirectBins direct) {
    const pld::SubsampledGaussianStep step{sigma, q, rounds, delta, h, accuracy, tail};
    return grid_read(sigma, q, first, direct, [&](ComposeOnGrid& compose) {
        return pld::subsampled_gaussian_step(step, hockeystick_c::kMaxCells, compose);
    });
}

// A refinement's delta bracket on grid h at epsilon to the relative `rules`, given the intersection `before` of the
// grids read (none on the first), as the package's refinement reads each grid: the core's delta step read
// (pld/refine/subsampled_gaussian_step.hpp), the rounds at `tail`, within kMaxCells cells, through grid_read.
std::optional<std::pair<double, double>> delta_step_read(double sigma, double q, long long rounds, double epsilon,
                                                         double h, double tail, const pld::PointsRules& rules,
                                                         const std::optional<std::pair<double, double>>& before,
                                                         DirectBins direct) {
    const pld::SubsampledGaussianDeltaStep step{sigma, q, rounds, epsilon, h, tail};
    return grid_read(sigma, q, !before, direct, [&](ComposeOnGrid& compose) {
        return pld::subsampled_gaussian_delta_step(step, rules, before, hockeystick_c::kMaxCells, compose);
    });
}

void require_sampling(double q, long long rounds) {
    require(q > 0.0 && q < 1.0, "sampling_rate",
            "must lie strictly between 0 and 1 (at 1, the Gaussian mechanism: hs_theta_epsilon with r = "
            "sqrt(rounds) / sigma is exact)",
            q);
    require(rounds >= 1 && rounds <= kMaxRounds, "rounds", "must be an integer with 1 <= rounds <= 2^53",
            static_cast<double>(rounds));
}

// Epsilon at delta refined to `accuracy` on the library's own grids (pld/refine/steps_refinement.hpp, as the package's
// accuracy= refinement of one point: the rounds at the composition's default tail, each grid read by
// epsilon_step_read with the direct bins of its rule, stopped at the coarsest fit or a refused window), certified.
pld::RefinedBracket epsilon_loop(double sigma, double sampling_rate, long long rounds, double delta, double accuracy) {
    int grids = 0;
    const double t = static_cast<double>(rounds), tail = pld::kDefaultCompositionTail;
    const DirectBins first_bins = direct_bins(true, delta);
    const std::optional<double> charge =
        first_bins.on ? std::optional<double>(first_bins.min_charge) : std::optional<double>();
    return pld::steps_refinement(
               sigma, sampling_rate, t, 1.0, delta, accuracy, pld::coarsest_fit(sigma, sampling_rate, 1.0, tail),
               charge,
               [&](double h, const pld::StepBins& b) {
                   const bool first = grids++ == 0;
                   const DirectBins bins{b.direct, std::isnan(b.charge) ? pld::kDirectMinCharge : b.charge};
                   return epsilon_step_read(sigma, sampling_rate, rounds, delta, h, accuracy, tail, first, bins);
               })
        .bracket;
}

// Epsilon at delta refined to `accuracy` for the calibration (certified): epsilon_loop's bracket, then, where the
// plain composition's charges leave it wider than the accuracy, the tilted descent's upper side; where met but not
// exact, its upper side lowered to the fine read.  `target`: the calibration's epsilon; a bracket met on the grids is
// read finer only where it straddles it (the fine upper side lies in [lower, upper], so elsewhere whether the upper
// side is at most the target does not change).
pld::RefinedBracket epsilon_refined(double sigma, double sampling_rate, long long rounds, double delta, double accuracy,
                                    double target) {
    const double t = static_cast<double>(rounds);
    pld::RefinedBracket r = epsilon_loop(sigma, sampling_rate, rounds, delta, accuracy);
    hockeystick_c::CompositionFft fft;
    pld::TiltedReader reader(sigma, sampling_rate, rounds, fft, hockeystick_c::kMaxCells);
    if (!r.met) {  // the plain composition's charges limit it: the tilted grids (the opening comment)
        const double start = pld::epsilon_start(sigma, sampling_rate, t, 1.0, &delta, 1, accuracy, 0.0);
        const std::pair<double, double> b = reader.grid_epsilon_bracket(delta, r.lower, r.upper, start, accuracy);
        r.lower = b.first;
        r.upper = b.second;
        r.met = r.lower == r.upper || r.upper - r.lower <= accuracy;
    } else if (!pld::exact_bracket(r.lower, r.upper) && !(r.upper <= target) && !(r.lower > target)) {
        // met, not exact: its upper side lowered to the core's fine read (TiltedReader's fine_upper, certified), so
        // that the sigma the calibration returns is the least the epsilon call certifies (the README run at delta
        // 1e-5 meets 1e-3 on the grids with an upper side 4e-4 above that read's)
        r.upper = std::max(r.lower, reader.fine_upper(delta, r.upper));
    }
    return r;
}

// Delta at epsilon refined to the relative `accuracy` on the library's own grids (pld/refine/steps_refinement.hpp's
// delta_steps_refinement, as the package's accuracy= refinement of one point at one epsilon: the rounds at the
// composition's default tail, each grid read by delta_step_read with the direct bins after the first, stopped at the
// coarsest fit or a refused window), certified; where wider than asked, the tilted reads of accuracy_delta.hpp's
// tilted_delta_read through `reader` (the point's), which keeps each grid's bracket for the other accuracy's read of
// the same call.
pld::RefinedBracket delta_refined(double sigma, double sampling_rate, long long rounds, double epsilon, double accuracy,
                                  pld::TiltedReader& reader) {
    const double tail = pld::kDefaultCompositionTail;
    pld::PointsRules rules;
    rules.kind = pld::PointsWidth::relative_delta;
    rules.accuracy = accuracy;
    pld::RefinedBracket r =
        pld::delta_steps_refinement(
            sigma, sampling_rate, static_cast<double>(rounds), 1.0, accuracy,
            pld::coarsest_fit(sigma, sampling_rate, 1.0, tail),
            [&](double h, const pld::StepBins& b, const std::optional<std::pair<double, double>>& before) {
                const DirectBins bins{b.direct, pld::kDirectMinCharge};
                return delta_step_read(sigma, sampling_rate, rounds, epsilon, h, tail, rules, before, bins);
            },
            rules.delta_floor)
            .bracket;
    if (!r.met && r.upper > 0.0) {
        const std::pair<double, double> b =
            pld::tilted_delta_read(reader, epsilon, r.lower, r.upper, accuracy, pld::kDeltaFloor);
        r.lower = b.first;
        r.upper = b.second;
    }
    return r;
}

// A bracket asked to an accuracy finer than the default's, intersected with the default's bracket of the same
// question: both certified, so their intersection is, and a finer accuracy is never looser than the default
// (each accuracy starts from grids of its own, whose charges can leave a wider bracket at a rare run).
template <class Refine, class Width>
pld::RefinedBracket no_looser_than_default(pld::RefinedBracket r, double accuracy, Refine refine, Width width) {
    if (!(accuracy < kDefaultAccuracy)) return r;
    const pld::RefinedBracket d = refine(kDefaultAccuracy);
    r.lower = std::max(r.lower, d.lower);
    r.upper = std::max(r.lower, std::min(r.upper, d.upper));
    r.met = r.lower == r.upper || width(r.lower, r.upper) <= accuracy;
    return r;
}

// Whether sigma is certified for (epsilon, delta): its upper epsilon at delta refined to the accuracy on the library's
// own grids (epsilon_refined, without the reads that raise the lower side alone), no looser than the same refinement to
// the default accuracy, is <= epsilon (a bracket wider than the accuracy still has a certified upper side): a cheaper
// read than the epsilon call's default chain (default_epsilon).  At an accuracy finer than the default's, the default
// accuracy's bracket [l, u] is read first and decides where it can, as the finer read intersected with it would: that
// read's upper side is max(l', min(u', u)) with l' >= l, so it is <= epsilon where u <= epsilon (l' <= u, both
// certified) and > epsilon where l > epsilon; the finer read (refined to the grid cap at an accuracy no grid reaches)
// is made only in between.  A sigma whose deciding read cannot build its first grid (invalid_argument_error) is not
// certified.  Neither the default chain's refinement nor its last reads are made: each lowers an upper side by at most
// the tolerance at seconds a sigma, and the refined upper side is certified without them, so the sigma returned is
// certified and at most a tolerance's worth of epsilon above the least the epsilon call would certify.
bool certified(double sigma, double q, long long rounds, double epsilon, double delta, double accuracy) {
    try {
        const auto refine = [&](double a) { return epsilon_refined(sigma, q, rounds, delta, a, epsilon); };
        const auto width = [](double lo, double up) { return up - lo; };
        if (!(accuracy < kDefaultAccuracy)) return refine(accuracy).upper <= epsilon;
        const pld::RefinedBracket d = refine(kDefaultAccuracy);
        if (d.upper <= epsilon) return true;
        if (d.lower > epsilon) return false;
        return no_looser_than_default(refine(accuracy), accuracy, [&](double) { return d; }, width).upper <= epsilon;
    } catch (const invalid_argument_error&) { return false; }
}

// The bracket [lo, hi] the bisection starts from: hi certified, lo not (the header's comment).
std::pair<double, double> sigma_bracket(double q, long long rounds, double epsilon, double delta, double accuracy) {
    double sigma = 1.0;
    if (certified(sigma, q, rounds, epsilon, delta, accuracy)) {
        while (sigma > kSigmaLeast) {
            if (!certified(sigma / 2, q, rounds, epsilon, delta, accuracy)) return {sigma / 2, sigma};
            sigma /= 2;
        }
        return {0.0, sigma};  // certified down to kSigmaLeast
    }
    while (sigma < kSigmaMost) {
        if (certified(2 * sigma, q, rounds, epsilon, delta, accuracy)) return {sigma, 2 * sigma};
        sigma *= 2;
    }
    throw invalid_argument_error{
        "epsilon=" + hockeystick_c::shown(epsilon) + " at delta=" + hockeystick_c::shown(delta) +
        " is not certified for any sigma up to " + hockeystick_c::shown(kSigmaMost) + " (sampling_rate " +
        hockeystick_c::shown(q) + ", rounds " + std::to_string(rounds) +
        "): ask a larger epsilon or delta, fewer rounds, a smaller sampling_rate, or a finer accuracy (the certified "
        "upper epsilon is at most accuracy above the truth)"};
}

// The package default's fixed grid (its step 1): where the grid fits the question (pld/refine/fixed_grid.hpp's
// fixed_grid_fits at the composition's default tail), the plain composition on it read over every direction, and its
// add direction's upper side (fixed_grid_epsilon); none where it does not fit or cannot be built.
std::pair<std::optional<std::pair<double, double>>, double> fixed_grid_read(double sigma, double q, long long rounds,
                                                                            double delta) {
    const double h = pld::kFixedGridInterval;
    if (!pld::fixed_grid_fits(sigma, q, static_cast<double>(rounds), 1.0, &delta, 1, pld::kDefaultCompositionTail, h))
        return {std::nullopt, HUGE_VAL};
    std::optional<hockeystick_c::FixedGridEpsilon> f;
    const hs_status s = guarded([&] {
        const Handle p = subsampled_gaussian(sigma, q, rounds, h, true, DirectBins{});
        if (p) f = hockeystick_c::fixed_grid_epsilon(*p, delta);
        return HS_OK;
    });
    if (s != HS_OK || !f) return {std::nullopt, HUGE_VAL};  // cells or a window past the caps: the chain reads on
    return {f->bracket, f->add_upper};
}

// The package default's epsilon bracket of rounds of (sigma, q) at delta: its fixed grid (fixed_grid_read), then the
// core's pld/refine/default_epsilon.hpp (python pld/question/default_reads.py's steps 2 to 7; the RDP conversion's cap
// at dp_accounting's default orders, pld/refine/rdp_cap.hpp, the package's too) with the library's plan (the refinement to half the default tolerance at the question tail,
// from the start grid and the direct-bins rule the package's refinement takes, each grid read by epsilon_step_read;
// the descent from the default tolerance's start grid) and its FFT backend.
pld::RefinedBracket default_epsilon(double sigma, double q, long long rounds, double delta) {
    const auto [fixed, fixed_add] = fixed_grid_read(sigma, q, rounds, delta);
    const double t = static_cast<double>(rounds);
    const double tail = pld::question_tail(t, delta);
    const pld::EpsilonTolerance refined = pld::kDefaultEpsilonTolerance.scaled(0.5);
    const pld::EpsilonTolerance& d = pld::kDefaultEpsilonTolerance;
    pld::DefaultRefinementPlan plan;
    plan.rules.kind = pld::PointsWidth::epsilon;
    plan.rules.accuracy = refined.accuracy;
    plan.rules.relative_accuracy = refined.relative_accuracy;
    plan.coarsest_fit = pld::coarsest_fit(sigma, q, 1.0, tail);
    const double start =
        pld::epsilon_start(sigma, q, t, 1.0, &delta, 1, refined.accuracy, refined.relative_accuracy, plan.rules.policy);
    plan.first_grid = std::max(pld::within_window(sigma, q, t, 1.0, start, plan.rules.policy), plan.coarsest_fit);
    const pld::DirectBinsRule direct;
    if (pld::direct_first(delta, direct)) plan.charge = pld::direct_charge(delta, direct);
    plan.same_grid_charge = direct.same_grid_charge;
    plan.descent_start = pld::epsilon_start(sigma, q, t, 1.0, &delta, 1, d.accuracy, d.relative_accuracy);
    plan.cap = [=] { return pld::subsampled_gaussian_rdp_epsilon(sigma, q, t, delta); };
    const pld::FineEpsilonPoint point{
        sigma, q, rounds, {pld::OutputSegment{sigma, q, 1.0, rounds}}, 0.0, hockeystick_c::kMaxCells};
    hockeystick_c::CompositionFft fft, split;
    const pld::LastReadBackends backends{fft, fft, fft, {split, hockeystick_c::kMaxPoints}};
    pld::TiltedReader kept(sigma, q, rounds, fft, hockeystick_c::kMaxCells);
    int grids = 0;
    const auto read = [&](double h, const pld::StepBins& b) {
        const bool first_grid = grids++ == 0;
        const DirectBins bins{b.direct, std::isnan(b.charge) ? pld::kDirectMinCharge : b.charge};
        return epsilon_step_read(sigma, q, rounds, delta, h, refined.accuracy, tail, first_grid, bins);
    };
    const pld::DefaultEpsilon r = pld::default_epsilon(point, delta, fixed, fixed_add, plan, read, kept, backends);
    pld::RefinedBracket out;
    out.lower = r.lower;
    out.upper = std::max(r.lower, r.upper);
    out.met = pld::kDefaultEpsilonTolerance.within(out.lower, out.upper);
    return out;
}

// hs_subsampled_gaussian_epsilon's bracket, before its status.  At its default accuracy, the package default's bracket
// (default_epsilon), where within it.  Otherwise the package's accuracy= read: the refinement to the accuracy on the
// library's own grids (pld/refine/steps_refinement.hpp, each grid read by epsilon_step_read), then the core's
// accuracy read (pld/refine/accuracy_epsilon.hpp: at an accuracy finer than the default's, intersected with the
// default's bracket and the tilted descent on the accuracy's grids where still wider; at a coarser one, where wider
// than asked, the descent on the default tolerance's grids and the default's bracket), the default's bracket read
// once a call and intersected where read (both certified: more accuracy is never looser than the default).
pld::RefinedBracket epsilon_read(double sigma, double sampling_rate, long long rounds, double delta, double accuracy) {
    std::optional<std::pair<double, double>> d;
    const auto default_bracket = [&] {
        if (!d) {
            const pld::RefinedBracket r = default_epsilon(sigma, sampling_rate, rounds, delta);
            d = std::make_pair(r.lower, r.upper);
        }
        return *d;
    };
    const auto written_out = [&](double lower, double upper) {
        pld::RefinedBracket out;
        out.lower = lower;
        out.upper = std::max(lower, upper);
        out.met = out.lower == out.upper || out.upper - out.lower <= accuracy;
        return out;
    };
    if (accuracy == kDefaultAccuracy) {
        const std::pair<double, double> b = default_bracket();
        const pld::RefinedBracket out = written_out(b.first, b.second);
        if (out.met) return out;
    }
    const double t = static_cast<double>(rounds);
    const pld::RefinedBracket r = epsilon_loop(sigma, sampling_rate, rounds, delta, accuracy);
    pld::AccuracyPlan plan;
    plan.asked = {accuracy, 0.0};
    plan.start = pld::epsilon_start(sigma, sampling_rate, t, 1.0, &delta, 1, accuracy, 0.0);
    const pld::EpsilonTolerance& fallback = pld::kDefaultEpsilonTolerance;
    plan.default_start =
        pld::epsilon_start(sigma, sampling_rate, t, 1.0, &delta, 1, fallback.accuracy, fallback.relative_accuracy);
    plan.cap = [=] { return pld::subsampled_gaussian_rdp_epsilon(sigma, sampling_rate, t, delta); };
    const pld::AccuracyRun run{sigma, sampling_rate, rounds, hockeystick_c::kMaxCells, 0.0};
    hockeystick_c::CompositionFft fft;
    std::pair<double, double> b = pld::accuracy_epsilon(run, delta, r.lower, r.upper, plan, default_bracket, fft);
    if (d) {  // the default's, read: intersected (both certified)
        b.first = std::max(b.first, d->first);
        b.second = std::min(b.second, d->second);
    }
    return written_out(b.first, b.second);
}

// The accuracy= delta read of pld/refine/accuracy_delta.hpp from the bracket `refined` to `accuracy` (the package's too:
// where wider than asked, the tilted reads; the default's bracket d() where the accuracy is at most the default's, or
// where still wider at a coarser one; the default's fine delta read; rare participation's finer grids), met where its
// relative width is within the accuracy.
template <class Default>
pld::RefinedBracket accuracy_read(pld::TiltedReader& reader, double epsilon, double accuracy, pld::RefinedBracket r,
                                  Default&& d) {
    hockeystick_c::CompositionFft split, rare;
    pld::AccuracyDeltaPlan plan;
    plan.accuracy = accuracy;
    plan.default_accuracy = kDefaultAccuracy;
    plan.max_cells = hockeystick_c::kMaxCells;
    std::vector<double> lower{r.lower}, upper{r.upper};
    pld::accuracy_deltas(
        reader, {epsilon}, lower, upper, plan, [&](std::size_t) { return d(); }, {split, hockeystick_c::kMaxPoints},
        rare);
    r.lower = lower.front();
    r.upper = upper.front();
    r.met = plan.width(r.lower, r.upper) <= accuracy;
    return r;
}

// A delta bracket, its lower side raised to the affinity bound where the upper side is above PointsRules' near_one
// (1 - 1e-6; pld/reads/affinity_ceiling.hpp, as the package's near_one.NearOne.raised: there the composed lower side is
// charged the FFT's round-off, far above 1 - delta).
pld::RefinedBracket near_one_raised(pld::RefinedBracket r, double sigma, double q, long long rounds, double epsilon,
                                    double accuracy) {
    if (!(r.upper > pld::PointsRules{}.near_one)) return r;
    const double raised = pld::delta_lower_near_one(pld::subsampled_gaussian_log_affinity(sigma, q),
                                                    static_cast<double>(rounds), epsilon);
    r.lower = std::max(r.lower, std::min(raised, r.upper));
    r.met = pld::AccuracyDeltaPlan{}.width(r.lower, r.upper) <= accuracy;
    return r;
}

// The bracket near 1 (its upper side above kComplementAbove) intersected with the complement's (pld/reads/complement.hpp,
// as the package's near_one.NearOne.complement_brackets intersects it: there the composed PMFs' gap is absolute, a few
// per cent of 1 - delta, while the complement's is relative), both directions composed with direct bins within
// kMaxPoints points: on the fixed grid, as the package's default reads delta, or where its factors or windows cannot be
// built there, on the last grid the bracket was read on; where neither can, the bracket as it is (certified either
// way).
pld::RefinedBracket complement_intersected(pld::RefinedBracket r, double sigma, double q, long long rounds,
                                           double epsilon, double accuracy) {
    if (!(r.upper > pld::kComplementAbove)) return r;
    const double grids[2] = {pld::kFixedGridInterval, r.interval};
    for (int k = 0; k < 2; ++k) {
        const double h = grids[k];
        if (!(h > 0.0 && h <= pld::kComplementMaxInterval) || (k == 1 && h == grids[0])) continue;
        try {
            hockeystick_c::CompositionFft fft;
            pld::ComposeOptions options;
            options.direct_bins = true;
            ComposeOnGrid compose{fft, options};
            const std::vector<pld::ComplementBracket> b =
                pld::complement_delta_brackets(pld::subsampled_gaussian_complement_factors(sigma, q, h), {rounds},
                                               {{epsilon}}, {std::nullopt}, compose);
            r.lower = std::max(r.lower, b.front().lower.front());
            r.upper = std::max(r.lower, std::min(r.upper, b.front().upper.front()));
            break;
        } catch (const std::invalid_argument&) {
        } catch (const std::length_error&) {}
    }
    r.met = pld::AccuracyDeltaPlan{}.width(r.lower, r.upper) <= accuracy;
    return r;
}

// The package default's delta bracket of rounds of (sigma, q) at epsilon (python pld/question/default_reads.py's
// default_delta_brackets): its fixed grid's bracket (both directions on kFixedGridInterval, plain_delta_bracket), delta
// near 1's reads on it (near_one_raised, complement_intersected, as its fixed_grid.fixed_bracket reads them), then the
// core's fine delta read and rare participation's finer grids (accuracy_delta.hpp's default_deltas); none where the
// fixed grid's cells or windows pass the library's caps (the package refuses there; the C call reads its refinement).
std::optional<std::pair<double, double>> fixed_grid_delta(double sigma, double q, long long rounds, double epsilon,
                                                          pld::TiltedReader& reader) {
    std::optional<std::pair<double, double>> plain;
    const hs_status s = guarded([&] {
        const Handle p = subsampled_gaussian(sigma, q, rounds, pld::kFixedGridInterval, true, DirectBins{});
        if (p) plain = hockeystick_c::plain_delta_bracket(*p, epsilon);
        return HS_OK;
    });
    if (s != HS_OK || !plain) return std::nullopt;
    pld::RefinedBracket r{plain->first, plain->second, pld::kFixedGridInterval, 1, false};
    r = complement_intersected(near_one_raised(r, sigma, q, rounds, epsilon, kDefaultAccuracy), sigma, q, rounds,
                               epsilon, kDefaultAccuracy);
    std::vector<double> at{epsilon}, lower{r.lower}, upper{r.upper};
    hockeystick_c::CompositionFft split, rare;
    pld::AccuracyDeltaPlan plan;
    plan.max_cells = hockeystick_c::kMaxCells;
    pld::default_deltas(reader, at, lower, upper, plan, {split, hockeystick_c::kMaxPoints}, rare);
    return std::make_pair(lower.front(), upper.front());
}

// hs_subsampled_gaussian_delta's bracket, before its status, read as the package's accuracy= delta reads it
// (python pld/question/default_reads.py's accuracy_delta_brackets): the default's bracket is the package default's
// (fixed_grid_delta), or where its fixed grid passes the caps the accuracy= read of the refinement to the default
// accuracy (delta_refined, then accuracy_read with that refinement as its default, then delta near 1's reads); an
// accuracy at most the default's reads it first and answers by it where it is within the accuracy relative to its own
// upper side (the refinement's floor aside: below it the default's bracket can be far wider than the reads that follow
// leave it), and otherwise reads the refinement to the accuracy with accuracy_read, the default's bracket intersected
// in (so never looser than it, and its fine read made again from the default's upper side); a coarser accuracy reads
// its refinement, the default's bracket where still wider than asked.  A refinement's bracket takes delta near 1's
// reads on its last grid (near_one_raised, complement_intersected).
pld::RefinedBracket delta_read(double sigma, double sampling_rate, long long rounds, double epsilon, double accuracy) {
    hockeystick_c::CompositionFft fft;
    pld::TiltedReader reader(sigma, sampling_rate, rounds, fft, hockeystick_c::kMaxCells);
    const auto near_one = [&](const pld::RefinedBracket& r, double asked) {
        return complement_intersected(near_one_raised(r, sigma, sampling_rate, rounds, epsilon, asked), sigma,
                                      sampling_rate, rounds, epsilon, asked);
    };
    std::optional<pld::RefinedBracket> at_default;  // the refinement to the default accuracy, read once
    const auto refined = [&](double asked) {
        if (asked != kDefaultAccuracy) return delta_refined(sigma, sampling_rate, rounds, epsilon, asked, reader);
        if (!at_default) at_default = delta_refined(sigma, sampling_rate, rounds, epsilon, asked, reader);
        return *at_default;
    };
    std::optional<std::pair<double, double>> kept;  // the default's bracket, read once
    const auto default_bracket = [&] {
        if (!kept) kept = fixed_grid_delta(sigma, sampling_rate, rounds, epsilon, reader);
        if (!kept) {
            const pld::RefinedBracket r = refined(kDefaultAccuracy);
            const pld::RefinedBracket d = near_one(
                accuracy_read(reader, epsilon, kDefaultAccuracy, r, [&] { return std::make_pair(r.lower, r.upper); }),
                kDefaultAccuracy);
            kept = std::make_pair(d.lower, d.upper);
        }
        return *kept;
    };
    if (accuracy <= kDefaultAccuracy) {
        const std::pair<double, double> d = default_bracket();
        if (d.second - d.first <= accuracy * d.second) return {d.first, d.second, 0.0, 0, true};
    }
    return near_one(accuracy_read(reader, epsilon, accuracy, refined(accuracy), default_bracket), accuracy);
}

// The status of a refined bracket written to the caller: HS_OK where it meets the accuracy, else
// HS_ACCURACY_NOT_MET with the width reached against the one asked as the thread's last error.
hs_status written(const pld::RefinedBracket& r, const char* question, const char* width, double accuracy) {
    if (r.met) return HS_OK;
    return hockeystick_c::fail(
        HS_ACCURACY_NOT_MET, std::string("the certified ") + question + " bracket [" + hockeystick_c::shown(r.lower) +
                                 ", " + hockeystick_c::shown(r.upper) +
                                 "] is wider than accuracy=" + hockeystick_c::shown(accuracy) + " (" + width +
                                 "): no grid within the library's limits narrows it further; it is written, certified");
}

}  // namespace

namespace hockeystick_c {

std::pair<double, double> run_epsilon_bracket(double sigma, double q, long long rounds, double delta) {
    const pld::RefinedBracket r = epsilon_read(sigma, q, rounds, delta, kDefaultAccuracy);
    return {r.lower, r.upper};
}

std::pair<double, double> run_delta_bracket(double sigma, double q, long long rounds, double epsilon) {
    const pld::RefinedBracket r = delta_read(sigma, q, rounds, epsilon, kDefaultAccuracy);
    return {r.lower, r.upper};
}

}  // namespace hockeystick_c

extern "C" {

hs_status hs_subsampled_gaussian_epsilon(double sigma, double sampling_rate, long long rounds, double delta,
                                         double accuracy, double* lower, double* upper) {
    return guarded([&] {
        require_output(lower, "lower");
        require_output(upper, "upper");
        require(sigma > 0.0 && std::isfinite(sigma), "sigma", "must be finite and > 0", sigma);
        require_sampling(sampling_rate, rounds);
        require(delta > 0.0 && delta < 1.0, "delta", "must lie strictly between 0 and 1", delta);
        require(accuracy > 0.0 && std::isfinite(accuracy), "accuracy",
                "must be finite and > 0 (the epsilon bracket's width asked, e.g. 1e-3)", accuracy);
        const pld::WindowHeap heap;  // the windows from the heap while the call composes
        const pld::RefinedBracket r = epsilon_read(sigma, sampling_rate, rounds, delta, accuracy);
        *lower = r.lower;
        *upper = r.upper;
        return written(r, "epsilon", "upper - lower", accuracy);
    });
}

hs_status hs_subsampled_gaussian_delta(double sigma, double sampling_rate, long long rounds, double epsilon,
                                       double accuracy, double* lower, double* upper) {
    return guarded([&] {
        require_output(lower, "lower");
        require_output(upper, "upper");
        require(sigma > 0.0 && std::isfinite(sigma), "sigma", "must be finite and > 0", sigma);
        require_sampling(sampling_rate, rounds);
        require(!std::isnan(epsilon), "epsilon", "must not be NaN", epsilon);
        require(accuracy > 0.0 && std::isfinite(accuracy), "accuracy",
                "must be finite and > 0 (the delta bracket's width asked relative to its upper side, e.g. 1e-3)",
                accuracy);
        const pld::WindowHeap heap;  // the windows from the heap while the call composes
        const pld::RefinedBracket r = delta_read(sigma, sampling_rate, rounds, epsilon, accuracy);
        *lower = r.lower;
        *upper = r.upper;
        return written(r, "delta", "(upper - lower) / max(upper, 1e-9)", accuracy);
    });
}

hs_status hs_subsampled_gaussian_sigma(double epsilon, double delta, double sampling_rate, long long rounds,
                                       double accuracy, double* sigma) {
    return guarded([&] {
        require_output(sigma, "sigma");
        require(epsilon > 0.0 && std::isfinite(epsilon), "epsilon", "must be finite and > 0 (the target)", epsilon);
        require(delta > 0.0 && delta < 1.0, "delta", "must lie strictly between 0 and 1 (the target)", delta);
        require_sampling(sampling_rate, rounds);
        require(accuracy > 0.0 && std::isfinite(accuracy), "accuracy",
                "must be finite and > 0 (the width asked of each epsilon bracket, e.g. 1e-3)", accuracy);
        const pld::WindowHeap heap;  // the windows from the heap while the call composes
        std::pair<double, double> b = sigma_bracket(sampling_rate, rounds, epsilon, delta, accuracy);
        if (b.first == 0.0) {
            throw invalid_argument_error{
                "delta=" + hockeystick_c::shown(delta) + " is met at epsilon=" + hockeystick_c::shown(epsilon) +
                " by every sigma down to " + hockeystick_c::shown(kSigmaLeast) +
                ": no noise worth calibrating (delta at or above 1 - (1 - sampling_rate)^rounds is met without "
                "noise); ask a smaller delta or epsilon"};
        }
        while (b.second / b.first > 1.0 + kSigmaTolerance) {
            const double mid = std::sqrt(b.first * b.second);
            if (certified(mid, sampling_rate, rounds, epsilon, delta, accuracy))
                b.second = mid;
            else
                b.first = mid;
        }
        *sigma = b.second;
        return HS_OK;
    });
}

}  // extern "C"
