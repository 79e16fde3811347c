// The C interface's privacy loss distributions: the Poisson-subsampled Gaussian discretized on both certified
// sides, its composition over rounds (the handle of pld_handle.hpp, composed through the core's FFT composition),
// and the certified epsilon and delta brackets read from the composed PMFs of any handle (pld/reads/), the maximum
// over the neighbouring directions (Zhu, Dong & Wang, AISTATS 2022, Sec. 5).
//
// What a bracket composes, as the Python package's pld.grid.distribution.brackets: every direction's
// pessimistic side (composed when the handle is made: every read needs them all), then the optimistic side of
// the leading direction (the first whose upper value is the largest) and of each other direction whose upper value
// exceeds the leading one's lower value.  A direction whose upper value lies at or below that lower value cannot
// raise the maximum (its own lower value is at most its upper one), so the bracket is the same, bit for bit, with
// or without it: an optimistic side is composed on the first read that needs it, once (std::call_once), and every
// side composed so far is read.  Each side keeps its composed spectrum where that has few live bins and is read
// through it (pld/reads/spectral_profile.hpp, no inverse transform), else its window.
//
// Where some direction's pessimistic side carries a round-off charge above kTiltedChargeShare of the delta read, the
// bracket is intersected with the tilted reads of the handle's own factors (pld/refine/tilted_question.hpp: each
// direction's factors composed under an exponential tilt, the charge relative to the Chernoff bound; composed per
// read, not kept).  Below that share the plain bracket stands alone, the same bit for bit as before.  The refinements
// to an accuracy read the plain brackets (plain_epsilon_bracket, plain_delta_bracket) and take their own tilted reads,
// whose tails are sized to the delta asked (refine.cpp).
#include <hockeystick/hockeystick.hpp>
#include <hockeystick/pld/compose/compose.hpp>
#include <hockeystick/pld/reads/epsilon_bracket.hpp>
#include <hockeystick/pld/reads/spectral_profile.hpp>
#include <hockeystick/pld/refine/step_bracket.hpp>
#include <hockeystick/pld/refine/tilted_question.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
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
pld::Cells subsampled_gaussian_cells(double sigma, double q, bool remove, double h, bool halves) {
    try {
        return pld::subsampled_gaussian_cells(sigma, q, remove, h, pld::kDefaultCompositionTail, kMaxCells, halves);
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
    Direction(double sigma, double q, bool remove, double h, bool eager)
        : sigma_(sigma), q_(q), h_(h), remove_(remove) {
        const pld::Cells cells = subsampled_gaussian_cells(sigma, q, remove, h, eager);
        upper_ = pld::pessimistic_pmf(cells);
        if (eager) std::call_once(lower_once_, [&] { lower_ = pld::optimistic_pmf(cells); });
    }

    const pld::GridPMF& upper() const override { return upper_; }

    const pld::GridPMF& lower() const override {
        std::call_once(lower_once_,
                       [&] { lower_ = pld::optimistic_pmf(subsampled_gaussian_cells(sigma_, q_, remove_, h_, true)); });
        return lower_;
    }

  private:
    double sigma_, q_, h_;
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

// The certified upper epsilon of direction d at delta (at least 0).
double upper_epsilon(const hs_pld& p, std::size_t d, double delta) {
    double e = 0.0;
    pld::composed_epsilon(p.upper[d], &delta, 1, &e);
    return std::max(e, 0.0);
}

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
    pld::composed_delta(p.upper[d], &epsilon, 1, &v);
    return v;
}

double lower_delta(const hs_pld& p, std::size_t d, double epsilon) {
    const pld::ComposedPMF& c = p.lower_side(d);
    if (!c.spectral) return p.lower[d].curve().delta(epsilon);
    double v = 0.0;
    pld::spectral_lower_delta(c.spectrum, c.p_inf, spectral_charges(c), &epsilon, 1, &v);
    return v;
}

// The lower values the opening comment's rule reads, given every direction's upper value `ups`: the leading
// direction's (the first whose upper value is the largest) first, then those of the directions its lower value does
// not dominate and of those composed already.
template <class LowerOf>
std::vector<double> lower_reads(const hs_pld& p, const std::vector<double>& ups, LowerOf lower_of) {
    const double upper = *std::max_element(ups.begin(), ups.end());
    const std::size_t lead = static_cast<std::size_t>(
        std::find_if(ups.begin(), ups.end(), [&](double u) { return u >= upper; }) - ups.begin());
    std::vector<double> lows{lower_of(lead)};
    for (std::size_t d = 0; d < ups.size(); ++d)
        if (d != lead && (!(ups[d] <= lows.front()) || p.lower[d].composed())) lows.push_back(lower_of(d));
    return lows;
}

// [lower, upper] over the directions (the opening comment's rule): upper the largest of upper_of(d); lower the
// largest of lower_reads.
template <class UpperOf, class LowerOf>
void bracket(const hs_pld& p, UpperOf upper_of, LowerOf lower_of, double& lower, double& upper) {
    const std::size_t n = p.upper.size();
    std::vector<double> ups(n);
    for (std::size_t d = 0; d < n; ++d) ups[d] = upper_of(d);
    upper = *std::max_element(ups.begin(), ups.end());
    const std::vector<double> lows = lower_reads(p, ups, lower_of);
    lower = *std::max_element(lows.begin(), lows.end());
}

// The certified epsilon bracket of p at delta over the directions (hs_pld_epsilon_bracket's value).
std::pair<double, double> epsilon_bracket_of(const hs_pld& p, double delta) {
    double lo = 0.0, hi = 0.0;
    bracket(
        p, [&](std::size_t d) { return upper_epsilon(p, d, delta); },
        [&](std::size_t d) { return lower_epsilon(p, d, delta); }, lo, hi);
    return {lo, hi};
}

// A read is limited by the plain composition's round-off where some direction's pessimistic side carries a total
// round-off charge above this share of the delta read: there the tilted reads (pld/refine/tilted_question.hpp) are
// taken too.  Below it the charge moves the bracket by at most about the share in delta, a share over the curve's
// slope in epsilon, and the plain read stands alone (its bracket the package's within the charges, as before).
constexpr double kTiltedChargeShare = 1e-2;

bool charge_limited(const hs_pld& p, double delta) {
    for (const pld::ComposedPMF& c : p.upper)
        if (c.total_error > kTiltedChargeShare * delta) return true;
    return false;
}

// Direction d's factors and counts on one side (the optimistic PMFs built on first need).
std::vector<pld::CountedPmf> direction_terms(const hs_pld& p, std::size_t d, bool pessimistic) {
    std::vector<pld::CountedPmf> out;
    for (const hockeystick_c::Term& t : p.composition->directions[d])
        out.push_back({pessimistic ? &t.factor->upper() : &t.factor->lower(), t.count});
    return out;
}

// `plain` intersected with the tilted bracket of every direction (tilted_direction_epsilon or
// tilted_direction_delta, by `read`), the maximum over the directions on each side; `plain` as given where a tilted
// window passes kTiltMaxPoints or a tilt overflows a factor's moment.  Both certified, so is their intersection.
template <class Read>
std::pair<double, double> with_tilted_reads(const hs_pld& p, std::pair<double, double> plain, Read read) {
    hockeystick_c::CompositionFft fft;
    double lower = 0.0, upper = 0.0;
    try {
        for (std::size_t d = 0; d < p.upper.size(); ++d) {
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

}  // namespace

namespace hockeystick_c {

std::pair<double, double> plain_epsilon_bracket(const hs_pld& p, double delta) { return epsilon_bracket_of(p, delta); }

// The delta bracket as a step of the refinement assembles it (pld/refine/step_bracket.hpp, the package's
// refinement's too): each side the largest over the directions' reads, the lower values those of lower_reads (each
// with its suffix maxima: the curve's delta), one argument, no record of an earlier grid.
std::pair<double, double> plain_delta_bracket(const hs_pld& p, double epsilon) {
    const std::size_t n = p.upper.size();
    std::vector<double> ups(n);
    for (std::size_t d = 0; d < n; ++d) ups[d] = upper_delta(p, d, epsilon);
    const std::vector<double> lows = lower_reads(p, ups, [&](std::size_t d) { return lower_delta(p, d, epsilon); });
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
        *out = new hs_pld(std::make_shared<const hockeystick_c::Composition>(
                              hockeystick_c::repeated(*p->composition, static_cast<std::int64_t>(count))),
                          p->rounds * static_cast<std::int64_t>(count));
        return HS_OK;
    });
}

hs_status hs_pld_epsilon_bracket(const hs_pld* p, double delta, double* lower, double* upper) {
    return guarded([&] {
        require_output(lower, "lower");
        require_output(upper, "upper");
        require_handle(p);
        require(delta > 0.0 && delta < 1.0, "delta", "must lie strictly between 0 and 1", delta);
        std::pair<double, double> b = epsilon_bracket_of(*p, delta);
        if (charge_limited(*p, delta))
            b = with_tilted_reads(*p, b, [&](const auto& ups, const auto& lows, pld::RealFftBackend& fft) {
                return pld::tilted_direction_epsilon(ups, lows, delta, b.second, fft, pld::kTiltMaxPoints);
            });
        *lower = b.first;
        *upper = b.second;
        return HS_OK;
    });
}

hs_status hs_pld_delta_bracket(const hs_pld* p, double epsilon, double* lower, double* upper) {
    return guarded([&] {
        require_output(lower, "lower");
        require_output(upper, "upper");
        require_handle(p);
        require(!std::isnan(epsilon), "epsilon", "must not be NaN", epsilon);
        std::pair<double, double> b = hockeystick_c::plain_delta_bracket(*p, epsilon);
        if (b.second > 0.0 && charge_limited(*p, b.second))
            b = with_tilted_reads(*p, b, [&](const auto& ups, const auto& lows, pld::RealFftBackend& fft) {
                return pld::tilted_direction_delta(ups, lows, epsilon, fft, pld::kTiltMaxPoints);
            });
        *lower = b.first;
        *upper = b.second;
        return HS_OK;
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
