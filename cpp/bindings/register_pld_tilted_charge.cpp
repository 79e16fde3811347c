// Binding of the tilted window's weighted round-off charge (pld/reads/tilted_charge.hpp), in _core.pld_reads: the
// closed-form bounds on the weights' sum and norm at each position (any shape), and the charge at each curve
// argument of one window.  Both run in loops.hpp's loop (GIL released, its thread rule); a NaN output raises a
// ValueError naming the argument and its rule (its NaN policy).  Beside them, the tilted upper read's window tail and
// its cut checks (pld/reads/tilted_read_tail.hpp), each a read of one round's masses with the GIL released; the tilt's
// arithmetic (pld/compose/tilted_masses.hpp: a factor's masses tilted, a window's untilted, the untilt factor's bound)
// and the ladders of tilts (pld/grid/tilt_ladders.hpp), the package's and the C library's one arithmetic; the
// Chernoff bound on the mass above a cut window (pld/reads/cut_window_mass.hpp).
#include <hockeystick/pld/compose/tilted_masses.hpp>
#include <hockeystick/pld/grid/tilt_ladders.hpp>
#include <hockeystick/pld/reads/cut_window_mass.hpp>
#include <hockeystick/pld/reads/tilted_charge.hpp>
#include <hockeystick/pld/reads/tilted_read_tail.hpp>

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

// One round's finite masses p (one-dimensional) at grid indices k_lo, k_lo + 1, ... on the grid h.
pld::RoundMasses round_masses(const hb::input_array& p, std::int64_t k_lo, double h) {
    if (p.ndim() != 1) throw py::value_error("p must be one-dimensional (a round's masses)");
    if (!(h > 0.0 && std::isfinite(h))) throw py::value_error("h must be a finite number > 0 (the grid step)");
    return {p.data(), static_cast<std::int64_t>(p.size()), k_lo, h};
}

// A ladder's `count` rungs (rung(i)), in order.
template <class Rung>
py::array_t<double> ladder(int count, Rung rung) {
    py::array_t<double> out(count);
    double* dst = out.mutable_data();
    for (int i = 0; i < count; ++i) dst[i] = rung(i);
    return out;
}

// A one-dimensional array of doubles, its entries computed by fill(source, n, destination) with the GIL released.
template <class Fill>
py::array_t<double> mapped(const hb::input_array& source, const char* name, Fill fill) {
    if (source.ndim() != 1) throw py::value_error(std::string(name) + " must be one-dimensional");
    const std::int64_t n = static_cast<std::int64_t>(source.size());
    py::array_t<double> out(static_cast<py::ssize_t>(n));
    const double* src = source.data();
    double* dst = out.mutable_data();
    {
        py::gil_scoped_release release;
        fill(src, n, dst);
    }
    return out;
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
    m.def(
        "saddle_looseness",
        [](const hb::input_array& p, std::int64_t k_lo, double h, double rounds, double lam) {
            const pld::RoundMasses pmf = tb::round_masses(p, k_lo, h);
            py::gil_scoped_release release;
            return pld::saddle_looseness(pmf, rounds, lam);
        },
        py::arg("p"), py::kw_only(), py::arg("k_lo"), py::arg("h"), py::arg("rounds"), py::arg("lam"),
        "(looseness, spread): the saddle-point estimate lam (lam + 1) sqrt(2 pi K'') of the Chernoff bound's looseness "
        "of `rounds` rounds of the masses p at the tilt lam, and sqrt(K''); (inf, 0) where K'' is not finite and "
        "positive (pld/reads/tilted_read_tail.hpp).");
    m.def(
        "tilted_read_tail",
        [](const hb::input_array& p, std::int64_t k_lo, double h, double rounds, double lam) {
            const pld::RoundMasses pmf = tb::round_masses(p, k_lo, h);
            py::gil_scoped_release release;
            return pld::read_tail(pmf, rounds, lam);
        },
        py::arg("p"), py::kw_only(), py::arg("k_lo"), py::arg("h"), py::arg("rounds"), py::arg("lam"),
        "The window tail of a tilted upper read of `rounds` rounds of the masses p, from the saddle-point estimates at "
        "lam (the Chernoff tilt of the delta asked): a power of ten from 1e-6 down to the composition's default tail "
        "(pld/reads/tilted_read_tail.hpp).");
    m.def(
        "wrapped_mass",
        [](const hb::input_array& p, std::int64_t k_lo, double h, double rounds, double theta, double x,
           std::int64_t length, double enough) {
            const pld::RoundMasses pmf = tb::round_masses(p, k_lo, h);
            py::gil_scoped_release release;
            return pld::wrapped_mass(pmf, rounds, theta, x, static_cast<double>(length), enough);
        },
        py::arg("p"), py::kw_only(), py::arg("k_lo"), py::arg("h"), py::arg("rounds"), py::arg("theta"), py::arg("x"),
        py::arg("length"), py::arg("enough") = 0.0,
        "A Chernoff bound on what the mass above a window composed under the tilt theta adds to a read at grid loss x "
        "by wrapping around a circular convolution of `length` points; the first rungs' bound where at most `enough` "
        "(pld/reads/tilted_read_tail.hpp).");
    m.def(
        "wrap_lambdas", [] { return tb::ladder(pld::kWrapLadder, pld::wrap_rung); },
        "The tilts wrapped_mass tries, as multiples of the window's (pld/reads/tilted_read_tail.hpp's wrap_rung).");
    m.def("cut_charge_too_large", &pld::cut_charge_too_large, py::arg("charge"), py::arg("wrapped"), py::arg("delta"),
          "Whether a cut window's charge at the answer passes 1e-11 delta or its wrapped mass 1e-3 delta: its read is "
          "then made again on the uncut window (pld/reads/tilted_read_tail.hpp).");
    m.def(
        "tilt_lambdas", [] { return tb::ladder(pld::kTiltLadder, pld::tilt_rung); },
        "The tilts lam = theta / h a tilted read's best tilt is searched among: 481 rungs geometric from 1e-2 to 1e6 "
        "(pld/grid/tilt_ladders.hpp's tilt_rung).");
    m.def(
        "above_lambdas", [] { return tb::ladder(pld::kAboveLadder, pld::above_rung); },
        "The tilts per grid step lam h of the Chernoff bound on the mass above a cut window: 97 rungs geometric "
        "from 1e-6 to 5 (pld/grid/tilt_ladders.hpp's above_rung).");
    m.def(
        "tilted_masses",
        [](const hb::input_array& p, std::int64_t k_lo, double theta, double log_m, bool pessimistic) {
            return tb::mapped(p, "p", [&](const double* src, std::int64_t n, double* dst) {
                pld::tilted_masses(src, n, k_lo, theta, log_m, pessimistic, dst);
            });
        },
        py::arg("p"), py::kw_only(), py::arg("k_lo"), py::arg("theta"), py::arg("log_m"), py::arg("pessimistic"),
        "The masses p (>= 0, at grid indices k_lo, k_lo + 1, ...) tilted by e^{theta k - log_m} and rounded outward on "
        "the side (pld/compose/tilted_masses.hpp's tilted_masses).");
    m.def(
        "untilted_masses",
        [](const hb::input_array& tilted, std::int64_t first, double theta, double log_scale, double scale_magnitude,
           bool pessimistic) {
            return tb::mapped(tilted, "tilted", [&](const double* src, std::int64_t n, double* dst) {
                pld::untilted_masses(src, n, first, theta, log_scale, scale_magnitude, pessimistic, dst);
            });
        },
        py::arg("tilted"), py::kw_only(), py::arg("first"), py::arg("theta"), py::arg("log_scale"),
        py::arg("scale_magnitude"), py::arg("pessimistic"),
        "The tilted window entries at grid indices first, first + 1, ... untilted by e^{log_scale - theta K} and "
        "rounded outward on the side (pld/compose/tilted_masses.hpp's untilted_masses).");
    m.def("untilt_factor", &pld::untilt_factor, py::arg("scaled"), py::kw_only(), py::arg("log_scale"),
          py::arg("scale_magnitude"),
          "An upper bound on e^{log_scale - theta K} over grid losses K h >= x, given scaled = theta x / h; 0 where "
          "scaled is not below +inf (pld/compose/tilted_masses.hpp's untilt_factor).");
    m.def(
        "summed_log_moments",
        [](const hb::input_array& terms) {
            if (terms.ndim() != 2) throw py::value_error("terms must be two-dimensional (a row per factor)");
            const std::int64_t factors = static_cast<std::int64_t>(terms.shape(0));
            const std::int64_t m = static_cast<std::int64_t>(terms.shape(1));
            if (factors < 1) throw py::value_error("terms must have a row (a factor)");
            py::array_t<double> out(static_cast<py::ssize_t>(m));
            const double* src = terms.data();
            double* dst = out.mutable_data();
            {
                py::gil_scoped_release release;
                pld::summed_log_moments(src, factors, m, dst);
            }
            return out;
        },
        py::arg("terms"),
        "K(lam) summed over the rows of count x log-moment (rounded up) and raised by (rows + 4) u of their "
        "magnitudes; inf where not finite (pld/reads/cut_window_mass.hpp).");
    m.def(
        "chernoff_above",
        [](const hb::input_array& lams, const hb::input_array& k, double x) {
            if (lams.ndim() != 1 || k.ndim() != 1 || lams.size() != k.size())
                throw py::value_error("lams and k must be one-dimensional and of one length");
            return pld::chernoff_above(lams.data(), k.data(), static_cast<std::int64_t>(lams.size()), x);
        },
        py::arg("lams"), py::arg("k"), py::kw_only(), py::arg("x"),
        "The least over the tilts lams of exp(K(lam) - lam x), rounded up: a bound on the composed mass at losses >= "
        "x; 1 where none is below 1 (pld/reads/cut_window_mass.hpp).");
    m.attr("READ_TAIL") = pld::kReadTail;
    m.attr("CUT_CHECK_SHARE") = pld::kCutCheckShare;
    m.attr("WRAP_CHECK_SHARE") = pld::kWrapCheckShare;
}
