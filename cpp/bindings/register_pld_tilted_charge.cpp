// Binding of the tilted window's weighted round-off charge (pld/reads/tilted_charge.hpp), in _core.pld_reads: the
// closed-form bounds on the weights' sum and norm at each position (any shape), and the charge at each curve
// argument of one window.  Both run in loops.hpp's loop (GIL released, its thread rule); a NaN output raises a
// ValueError naming the argument and its rule (its NaN policy).
#include <hockeystick/pld/reads/tilted_charge.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "elementwise.hpp"
#include "explain.hpp"
#include "loops.hpp"

namespace py = pybind11;
namespace hb = hockeystick_bindings;
namespace pld = hockeystick::pld;

namespace tilted_charge_binding {

// (sum, norm) at each position: two arrays of its shape; never NaN ((inf, inf) where no closed form bounds them).
py::tuple weights(const hb::input_array& position, double theta, double h, int threads) {
    py::array_t<double> norm(std::vector<py::ssize_t>(position.shape(), position.shape() + position.ndim()));
    double* norm_out = norm.mutable_data();
    py::array_t<double> sum = hb::per_item(
        position, static_cast<std::int64_t>(position.size()), threads, hb::on_demand(512),
        [&](std::int64_t i, double p, hb::no_state&) {
            const pld::TiltedWeights w = pld::tilted_weights(p, theta, h);
            norm_out[i] = w.norm;
            return w.sum;
        },
        [](double) { return std::string(); });
    return py::make_tuple(sum, norm);
}

// The charge at each argument x (any shape) of the window (k_lo, size, h) under the tilt theta.
py::array_t<double> charge(const hb::input_array& x, std::int64_t k_lo, std::int64_t size, double h, double theta,
                           const pld::GridCharges& charges, int threads) {
    if (!(h > 0.0 && std::isfinite(h))) throw py::value_error("h must be a finite number > 0 (the grid step)");
    if (size < 0) throw py::value_error("size must be >= 0 (the window's count of grid masses)");
    return hb::elementwise<1>(
        {x}, [&](double v) { return pld::tilted_window_charge(v, k_lo, size, h, theta, charges); },
        [](double v) { return hb::not_nan("x", v); }, threads);
}

}  // namespace tilted_charge_binding

void register_pld_tilted_charge(py::module_ m) {
    namespace tb = tilted_charge_binding;
    m.def("tilted_weights", &tb::weights, py::arg("position"), py::kw_only(), py::arg("theta"), py::arg("h"),
          py::arg("threads") = 0,
          "Upper bounds on the sum and the Euclidean norm of the weights (1 - e^{-h j}) e^{-theta j} over the grid "
          "distances j above each position x / h, in closed form and rounded up; (inf, inf) where position is not "
          "finite or theta or h is not > 0 (pld/reads/tilted_charge.hpp).");
    m.def("tilted_window_charge", &tb::charge, py::arg("x"), py::kw_only(), py::arg("k_lo"), py::arg("size"),
          py::arg("h"), py::arg("theta"), py::arg("charges"), py::arg("threads") = 0,
          "The round-off charge of a window composed under the tilt theta per grid step on the weighted sum its "
          "untilted curve reads at each argument x (before the untilt factor): the charges' bound at the lesser of "
          "the closed-form weights and the count of masses at or above floor(x / h); 0 above the window "
          "(pld/reads/tilted_charge.hpp).");
}
