// A composed window of the package (any object with GridPMF's fields: p, k_lo, h, p_inf, shift, loss_shift and the
// round-off bounds) as the core's reads view it (pld/reads/tilted.hpp's TiltedWindow): its masses referenced in place,
// not copied (a window after many rounds holds millions of points), its charges as GridPMF.charges gives them.
#pragma once

#include <hockeystick/pld/reads/epsilon_bracket.hpp>
#include <hockeystick/pld/reads/tilted.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>

#include "elementwise.hpp"

namespace hockeystick_bindings {

namespace py = pybind11;

// The composed window `window` (GridPMF's fields) as the read's view of it, its masses referenced by `masses` (kept
// alive by the caller while the read is built).  Under the GIL.
inline hockeystick::pld::TiltedWindow window_of(const py::handle& window, input_array& masses) {
    masses = window.attr("p").cast<input_array>();
    if (masses.ndim() != 1) throw py::value_error("the window's masses p must be one-dimensional");
    hockeystick::pld::TiltedWindow w;
    w.p = masses.data();
    w.n = static_cast<std::int64_t>(masses.size());
    w.k_lo = window.attr("k_lo").cast<std::int64_t>();
    w.h = window.attr("h").cast<double>();
    if (!(w.h > 0.0 && std::isfinite(w.h))) throw py::value_error("the window's h must be a finite number > 0");
    w.p_inf = window.attr("p_inf").cast<double>();
    w.shift = window.attr("shift").cast<double>();
    w.loss_shift = window.attr("loss_shift").cast<double>();
    // ComposedPMF's charges (pld/reads/epsilon_bracket.hpp's charges_of), as GridPMF.charges gives them
    w.charges = hockeystick::pld::GridCharges{w.shift,
                                              hockeystick::pld::suffix_sum_slack(w.n),
                                              window.attr("entry_error").cast<double>(),
                                              window.attr("total_error").cast<double>(),
                                              window.attr("spectral_l2").cast<double>(),
                                              window.attr("inverse_error").cast<double>(),
                                              w.loss_shift,
                                              window.attr("inverse_l2").cast<double>()};
    return w;
}

}  // namespace hockeystick_bindings
