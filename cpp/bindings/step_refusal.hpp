// A refinement's step read (pld/refine/subsampled_gaussian_step.hpp) as the core's loops call it from a binding
// without the GIL (step_read_without_gil), and its refusals as the package's ValueErrors: a round the refinement's
// grid cannot discretize names the run (sigma per unit sensitivity, the sampling rate) and the grid, and says what is
// read instead; a window past max_points, or a composition's other refusal, as the compositions refuse it
// (pocketfft_composition.hpp's raise_composition_refusal, which python pld/refine/points.py's window_refused reads).
#pragma once

#include <hockeystick/pld/refine/subsampled_gaussian_step.hpp>

#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "loops.hpp"
#include "pocketfft_composition.hpp"

namespace hockeystick_bindings {

namespace py = pybind11;

// The deleter of a composition used without the GIL: destroyed under it (pocketfft_composition.hpp).
struct DeletedUnderGil {
    void operator()(const PocketfftComposition* c) const {
        py::gil_scoped_acquire gil;
        delete c;
    }
};

// read(composition) called without the GIL, the composition on the package's FFT (workers: its threads, None all
// cores) with the direct bins `b` asks (a NaN charge: the composition's kDirectMinCharge), within max_points points,
// made and destroyed under the GIL.
template <class Read>
auto with_step_composition(const py::object& workers, const hockeystick::pld::StepBins& b, std::int64_t max_points,
                           Read&& read) {
    namespace pld = hockeystick::pld;
    pld::ComposeOptions options;
    options.direct_bins = b.direct;
    options.direct_min_charge = std::isnan(b.charge) ? pld::kDirectMinCharge : b.charge;
    std::unique_ptr<const PocketfftComposition, DeletedUnderGil> compose;
    {
        py::gil_scoped_acquire gil;
        compose.reset(new PocketfftComposition(workers, options, true, max_points));
    }
    return read(*compose);
}

// `step` read on grid h, called without the GIL, composed by with_step_composition; none where a window passes
// max_points (the loop stops there).
inline std::optional<hockeystick::pld::EpsilonStepRead> step_read_without_gil(
    hockeystick::pld::SubsampledGaussianStep step, double h, const hockeystick::pld::StepBins& b,
    const py::object& workers, std::int64_t max_cells, std::int64_t max_points) {
    step.h = h;
    return with_step_composition(
        workers, b, max_points,
        [&](const PocketfftComposition& compose) -> std::optional<hockeystick::pld::EpsilonStepRead> {
            try {
                return hockeystick::pld::subsampled_gaussian_step(step, max_cells, compose);
            } catch (const std::length_error&) {  // a window past max_points
                return std::nullopt;
            }
        });
}

// The delta step read of `step` on grid h under `rules`, given the intersection `before` of the grids read, called
// without the GIL, composed by with_step_composition; none where a window passes max_points after the first grid
// (the loop stops there), a refusal on the first thrown (no bracket is held).
inline std::optional<std::pair<double, double>> delta_step_read_without_gil(
    hockeystick::pld::SubsampledGaussianDeltaStep step, const hockeystick::pld::PointsRules& rules, double h,
    const hockeystick::pld::StepBins& b, const std::optional<std::pair<double, double>>& before,
    const py::object& workers, std::int64_t max_cells, std::int64_t max_points) {
    step.h = h;
    return with_step_composition(
        workers, b, max_points, [&](const PocketfftComposition& compose) -> std::optional<std::pair<double, double>> {
            try {
                return hockeystick::pld::subsampled_gaussian_delta_step(step, rules, before, max_cells, compose);
            } catch (const std::length_error&) {  // a window past max_points
                if (!before) throw;
                return std::nullopt;
            }
        });
}

// run() (which may release the GIL inside) with its refusals raised as ValueErrors; called under the GIL.
template <class Run>
auto refusing_steps(double sigma, double q, Run&& run) {
    try {
        return run();
    } catch (const hockeystick::pld::RoundRefused& e) {
        const std::string instead = e.cells ? "a larger sigma / sensitivity, or accuracy=, which stops at coarser grids"
                                            : "a smaller sigma / sensitivity, or a sampling_rate further from 1";
        throw py::value_error("sigma / sensitivity = " + listed(sigma) + " at sampling_rate = " + listed(q) +
                              " cannot be discretized on the refinement's grid " + listed(e.h) + " (" + e.what() +
                              "): no certified bracket is computed for this setting; " + instead + " is read");
    } catch (const std::length_error& e) { raise_composition_refusal(e); } catch (const std::invalid_argument& e) {
        raise_composition_refusal(e);
    }
}

}  // namespace hockeystick_bindings
