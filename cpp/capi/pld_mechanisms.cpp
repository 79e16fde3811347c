// The C interface's mechanisms beyond the Poisson-subsampled Gaussian, and the composition of two PLDs of any
// mechanisms: the handles of pld_handle.hpp, made from the same core cells as the Python package's constructors
// (hockeystick.pld.laplace, subsampled_laplace, fixed_size_subsampled_gaussian: pld/grid/cells.hpp,
// pld/mechanisms/laplace_mixture.hpp, pld/sampling/replace_one.hpp, both sides by pld/grid/connect_dots.hpp), composed by the same core composition (pld/compose/compose.hpp) as the
// package's PrivacyLossDistribution.compose, and read by pld.cpp's bracket calls.
#include <hockeystick/pld/grid/cells.hpp>
#include <hockeystick/pld/grid/connect_dots.hpp>
#include <hockeystick/pld/mechanisms/laplace_mixture.hpp>
#include <hockeystick/pld/refine/window_heap.hpp>
#include <hockeystick/pld/sampling/replace_one.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "boundary.hpp"
#include "pld_handle.hpp"

namespace pld = hockeystick::pld;
using hockeystick_c::Composition;
using hockeystick_c::Factor;
using hockeystick_c::guarded;
using hockeystick_c::invalid_argument_error;
using hockeystick_c::kMaxCells;
using hockeystick_c::kMaxInterval;
using hockeystick_c::kMaxRounds;
using hockeystick_c::require;
using hockeystick_c::require_output;
using hockeystick_c::shown;

namespace {

void require_pld(const hs_pld* p, const char* name) {
    if (p == nullptr)
        throw invalid_argument_error{std::string(name) + " must not be NULL (a handle made by an hs_pld_ call)"};
}

void require_interval(double h) {
    require(h > 0.0 && h <= kMaxInterval, "value_discretization_interval",
            "must lie in (0, 100] (the PLD grid spacing; e.g. 1e-4: smaller is finer, tighter and slower)", h);
}

void require_positive(double value, const char* name) {
    require(value > 0.0 && std::isfinite(value), name, "must be finite and > 0", value);
}

// A one-direction handle of one round of the factor whose both sides build() makes from the core's cells, or the
// refusal too_many() words where they would need more than kMaxCells cells.
template <class Build, class TooMany>
hs_pld* symmetric_round(Build build, TooMany too_many) {
    std::shared_ptr<const Factor> factor;
    try {
        factor = build();
    } catch (const std::length_error&) { throw invalid_argument_error{too_many()}; }
    return new hs_pld(hockeystick_c::one_round({std::move(factor)}), 1);
}

// The Laplace mechanism's factor (hockeystick.pld.laplace): both sides from laplace_cells (pld/grid/cells.hpp),
// the losses' error charged as the package charges it: a = sensitivity / scale is one division off the true
// ratio by at most u a, and the loss |a + Z| - |Z| of the computed a lies within |a - a_true| of the true one,
// outcome by outcome (the triangle inequality), rounded up.
std::shared_ptr<const Factor> laplace_factor(double scale, double sensitivity, double h) {
    const pld::Cells cells = pld::laplace_cells(sensitivity, scale, h, kMaxCells);
    const double division = std::nextafter(0.5 * std::numeric_limits<double>::epsilon() * (sensitivity / scale),
                                           std::numeric_limits<double>::infinity());
    return hockeystick_c::charged_factor(pld::pessimistic_pmf(cells), pld::optimistic_pmf(cells), division);
}

// Fixed-size batches drawn without replacement under replace-one neighbours
// (hockeystick.pld.fixed_size_subsampled_gaussian): the pessimistic side from the symmetrised proved pair, the
// optimistic side from the realizable pair, each on its own grid offset (pld/sampling/replace_one.hpp, Balle,
// Barthe & Gaboardi 2018, Thm 2), with s = sigma / sensitivity and q = batch_size / n.
std::shared_ptr<const Factor> fixed_size_factor(double s, double q, double h) {
    const double tail = pld::kDefaultCompositionTail;
    pld::GridPMF upper =
        pld::pessimistic_pmf(pld::replace_one_upper_cells(s, pld::bernoulli_counts(q), h, tail, kMaxCells));
    pld::GridPMF lower =
        pld::optimistic_pmf(pld::replace_one_lower_cells(s, pld::bernoulli_counts(q), h, tail, kMaxCells));
    return hockeystick_c::charged_factor(std::move(upper), std::move(lower), 0.0);
}

// The Poisson-subsampled Laplace mechanism (hockeystick.pld.subsampled_laplace): the Laplace location mixture
// s = (0, sensitivity), w = (1 - q, q) against Lap(0, scale), its remove and add directions (Zhu, Dong & Wang,
// AISTATS 2022, Thm 11), both sides each (pld/mechanisms/laplace_mixture.hpp, the package's cells).
hs_pld* subsampled_laplace_round(double scale, double sensitivity, double q, double h) {
    const pld::MonotoneSides sides = pld::laplace_mixture_sides(scale, {0.0, sensitivity}, {1.0 - q, q}, h, kMaxCells);
    std::vector<std::shared_ptr<const Factor>> directions;
    for (const pld::MonotoneSide& side : {sides.remove, sides.add})
        directions.push_back(std::make_shared<const hockeystick_c::BuiltFactor>(side.upper, side.lower));
    return new hs_pld(hockeystick_c::one_round(std::move(directions)), 1);
}

}  // namespace

extern "C" {

hs_status hs_pld_compose(const hs_pld* a, const hs_pld* b, hs_pld** out) {
    return guarded([&] {
        require_output(out, "out");
        require_pld(a, "a");
        require_pld(b, "b");
        if (a->composition->h != b->composition->h)
            throw invalid_argument_error{
                "b must be on a's loss grid (one value_discretization_interval on both sides), got " +
                shown(b->composition->h) + " and " + shown(a->composition->h) +
                ": make both PLDs with the same value_discretization_interval"};
        require(a->rounds <= kMaxRounds - b->rounds, "b",
                "must compose with a to at most 2^53 rounds in all (its rounds plus a's)",
                static_cast<double>(b->rounds));
        const pld::WindowHeap heap;  // the windows from the heap while the call composes
        auto c = std::make_shared<const Composition>(hockeystick_c::composed(*a->composition, *b->composition));
        *out = new hs_pld(std::move(c), a->rounds + b->rounds);
        return HS_OK;
    });
}

hs_status hs_pld_laplace(double scale, double sensitivity, double sampling_rate, double value_discretization_interval,
                         hs_pld** out) {
    return guarded([&] {
        require_output(out, "out");
        require_positive(scale, "scale");
        require_positive(sensitivity, "sensitivity");
        require(sampling_rate > 0.0 && sampling_rate <= 1.0, "sampling_rate", "must lie in (0, 1]", sampling_rate);
        require_interval(value_discretization_interval);
        if (sampling_rate < 1.0) {
            *out = subsampled_laplace_round(scale, sensitivity, sampling_rate, value_discretization_interval);
            return HS_OK;
        }
        const double h = value_discretization_interval;
        *out = symmetric_round([&] { return laplace_factor(scale, sensitivity, h); },
                               [&] {
                                   return "value_discretization_interval=" + shown(h) +
                                          " with scale / sensitivity = " + shown(scale / sensitivity) +
                                          " would need more than " + std::to_string(kMaxCells) +
                                          " loss cells (the loss spans 2 sensitivity / scale): use a coarser "
                                          "value_discretization_interval, or a larger scale";
                               });
        return HS_OK;
    });
}

hs_status hs_pld_fixed_size_gaussian(double sigma, long long batch_size, long long n, double sensitivity,
                                     double value_discretization_interval, hs_pld** out) {
    return guarded([&] {
        require_output(out, "out");
        require_positive(sigma, "sigma");
        require(batch_size >= 1, "batch_size", "must be an integer >= 1", static_cast<double>(batch_size));
        require(n >= 1, "n", "must be an integer >= 1", static_cast<double>(n));
        if (batch_size > n)
            throw invalid_argument_error{"batch_size must be <= n (batches are drawn without replacement), got " +
                                         std::to_string(batch_size) + " > " + std::to_string(n)};
        require_positive(sensitivity, "sensitivity");
        require_interval(value_discretization_interval);
        const double s = sigma / sensitivity, h = value_discretization_interval;
        const double q = static_cast<double>(batch_size) / static_cast<double>(n);
        *out = symmetric_round([&] { return fixed_size_factor(s, q, h); },
                               [&] {
                                   return "value_discretization_interval=" + shown(h) +
                                          " with sigma / sensitivity = " + shown(s) + " would need more than " +
                                          std::to_string(kMaxCells) +
                                          " loss cells: use a coarser value_discretization_interval, or a larger "
                                          "sigma";
                               });
        return HS_OK;
    });
}

}  // extern "C"
