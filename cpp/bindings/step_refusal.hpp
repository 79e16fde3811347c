// The refusals of a refinement's step read (pld/refine/subsampled_gaussian_step.hpp) as the package's ValueErrors: a
// round the refinement's grid cannot discretize names the run (sigma per unit sensitivity, the sampling rate) and the
// grid, and says what is read instead; a window past max_points, or a composition's other refusal, as the
// compositions refuse it (pocketfft_composition.hpp's raise_composition_refusal, which python
// pld/refine/points.py's window_refused reads).
#pragma once

#include <hockeystick/pld/refine/subsampled_gaussian_step.hpp>

#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>

#include "loops.hpp"
#include "pocketfft_composition.hpp"

namespace hockeystick_bindings {

namespace py = pybind11;

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
