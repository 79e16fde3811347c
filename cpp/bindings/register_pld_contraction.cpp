// Binding of the mean-preserving contraction onto a coarser grid (pld/sampling/mean_contraction.hpp), in
// _core.pld_sampling; its result is a GridPMF (discretized.hpp).
#include <hockeystick/pld/sampling/mean_contraction.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "discretized.hpp"
#include "elementwise.hpp"

namespace py = pybind11;
using hockeystick_bindings::input_array;
namespace pld = hockeystick::pld;

namespace {

pld::GridPMF mean_contraction(const input_array& p, std::int64_t k_lo, double h_fine, std::int64_t ratio, double p_inf,
                              double entry_error, double alias) {
    if (p.ndim() != 1) throw py::value_error("p must be a 1-d array of masses");
    pld::GridPMF out;
    std::string error;
    {
        py::gil_scoped_release release;
        try {
            out = pld::mean_contraction(p.data(), static_cast<std::int64_t>(p.size()), k_lo, h_fine, ratio, p_inf,
                                        entry_error, alias);
        } catch (const std::invalid_argument& e) { error = e.what(); }
    }
    if (!error.empty()) throw py::value_error(error);
    return out;  // a GridPMF (discretized.hpp: registered in _core.pld_grid)
}

}  // namespace

void register_pld_contraction(py::module_ m) {
    m.def("mean_contraction", &mean_contraction, py::arg("p"), py::kw_only(), py::arg("k_lo"), py::arg("h_fine"),
          py::arg("ratio"), py::arg("p_inf"), py::arg("entry_error"), py::arg("alias"),
          "A fine grid PMF merged onto the grid ratio * h_fine, each merged group's mean of e^{-loss} exactly on a "
          "grid point or rounded down in loss (a lower side; pld/sampling/mean_contraction.hpp).");
}
