// A grid PMF of the package (any object with GridPMF's fields: p, k_lo, h, p_inf, loss_shift, shift, pessimistic
// and the charges) as the core's read of it (pld/reads/charged_sides.hpp's SideRead), for the bindings that read many
// PMFs in one call: the fields taken under the GIL, the reads done without it.
#pragma once

#include <hockeystick/pld/grid/pmf_view.hpp>
#include <hockeystick/pld/reads/charged_sides.hpp>
#include <hockeystick/pld/reads/epsilon_bracket.hpp>  // suffix_sum_slack
#include <hockeystick/pld/reads/hockey_stick.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <vector>

namespace hockeystick_bindings {

namespace py = pybind11;

// The fields of `pmf` as a SideRead, its masses kept referenced in `masses`; the arguments and results left to the
// caller.  Under the GIL.
inline hockeystick::pld::SideRead side_read_of(
    const py::handle& pmf, std::vector<py::array_t<double, py::array::c_style | py::array::forcecast>>& masses) {
    namespace pld = hockeystick::pld;
    masses.push_back(pmf.attr("p").cast<py::array_t<double, py::array::c_style | py::array::forcecast>>());
    if (masses.back().ndim() != 1) throw py::value_error("internal: the PMF must be one-dimensional");
    const auto n = static_cast<std::int64_t>(masses.back().size());
    const pld::PmfView view{masses.back().data(), n, pmf.attr("k_lo").cast<std::int64_t>(),
                            pmf.attr("p_inf").cast<double>(), pmf.attr("loss_shift").cast<double>()};
    pld::GridCharges charges;
    charges.shift = pmf.attr("shift").cast<double>();
    charges.slack = pld::suffix_sum_slack(n);
    charges.entry = pmf.attr("entry_error").cast<double>();
    charges.total = pmf.attr("total_error").cast<double>();
    charges.l2 = pmf.attr("spectral_l2").cast<double>();
    charges.inverse = pmf.attr("inverse_error").cast<double>();
    charges.inverse_l2 = pmf.attr("inverse_l2").cast<double>();
    return pld::side_read(view, pmf.attr("h").cast<double>(), charges, pmf.attr("pessimistic").cast<bool>());
}

}  // namespace hockeystick_bindings
