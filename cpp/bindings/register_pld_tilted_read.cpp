// Binding of the tilted composition's read (pld/reads/tilted.hpp's TiltedComposition, upper_epsilon and
// lower_epsilon), in _core.pld_reads, so that the package (python pld/compose/tilted.py) and the C library read a
// tilted window by one arithmetic: the untilted suffix sums from the floor up, each side's charges, the cut window's
// Chernoff bound at max(x, cut), the upper epsilon's look past a cut window's top and the lower epsilon's stepped
// search.  The read is built from a composed window of the package (any object with GridPMF's fields: p, k_lo, h,
// p_inf, shift, loss_shift and the round-off bounds), its masses read in place (not copied: a window after many rounds
// holds millions of points) and its suffix sums built with the GIL released; its side and certified delta at every
// element of an array run in loops.hpp's loop (GIL released, its thread rule), and the upper and lower epsilons'
// searches run with the GIL released, every step a read of the same object.
#include <hockeystick/pld/reads/tilted.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "elementwise.hpp"
#include "grid_window.hpp"

namespace py = pybind11;
namespace hb = hockeystick_bindings;
namespace pld = hockeystick::pld;

namespace tilted_read_binding {

// The cut window's Chernoff moments (tilts lam, summed log-moments K(lam)): empty where `above` is None.
pld::CutMoments moments_of(const std::optional<std::pair<hb::input_array, hb::input_array>>& above) {
    pld::CutMoments out;
    if (!above) return out;
    const auto& [lams, k] = *above;
    if (lams.ndim() != 1 || k.ndim() != 1 || lams.size() != k.size() || lams.size() == 0)
        throw py::value_error("above must be two one-dimensional arrays (lams, k) of one positive length");
    out.lams.assign(lams.data(), lams.data() + lams.size());
    out.k.assign(k.data(), k.data() + k.size());
    return out;
}

pld::TiltedComposition make(const py::handle& window, double theta, double log_scale, double scale_magnitude,
                            double p_inf, bool pessimistic,
                            const std::optional<std::pair<hb::input_array, hb::input_array>>& above,
                            std::optional<double> least_read) {
    if (!(std::isfinite(theta) && theta > 0.0)) throw py::value_error("theta must be a finite number > 0");
    hb::input_array masses;
    const pld::TiltedWindow w = hb::window_of(window, masses);
    pld::CutMoments moments = moments_of(above);
    const double least = least_read ? *least_read : -std::numeric_limits<double>::infinity();
    py::gil_scoped_release release;
    return pld::TiltedComposition(w, theta, log_scale, scale_magnitude, p_inf, pessimistic, std::move(moments), least);
}

// (c.*Read)(x) at every element of x (any shape); never NaN (a side is clamped to [0, 1]).
template <double (pld::TiltedComposition::*Read)(double) const>
py::array_t<double> at_each(const pld::TiltedComposition& c, const hb::input_array& x, int threads) {
    return hb::elementwise<1>(
        {x}, [&](double v) { return (c.*Read)(v); }, [](double) { return std::string(); }, threads);
}

}  // namespace tilted_read_binding

void register_pld_tilted_read(py::module_ m) {
    namespace tb = tilted_read_binding;
    using TC = pld::TiltedComposition;
    py::class_<TC>(m, "TiltedComposition",
                   "A window composed under an exponential tilt, read untilted (pld/reads/tilted.hpp's "
                   "TiltedComposition): its side at curve arguments and its certified delta at epsilons.")
        .def(py::init(&tb::make), py::arg("window"), py::kw_only(), py::arg("theta"), py::arg("log_scale"),
             py::arg("scale_magnitude"), py::arg("p_inf"), py::arg("pessimistic"), py::arg("above") = py::none(),
             py::arg("least_read") = py::none())
        .def_property_readonly(
            "floor_index",
            [](const TC& c) { return py::reinterpret_steal<py::int_>(PyLong_FromDouble(c.floor_index())); },
            "The least grid index read (an int; it may lie past the window's top).")
        .def_property_readonly("floor", &TC::floor, "The least curve argument read: the loss of floor_index.")
        .def_property_readonly(
            "window_floor_index",
            [](const TC& c) { return py::reinterpret_steal<py::int_>(PyLong_FromDouble(c.window_floor_index())); },
            "floor_index of the whole window (read from its bottom), known without its suffix sums.")
        .def_property_readonly("window_floor", &TC::window_floor, "The loss of window_floor_index.")
        .def_property_readonly("cut", &TC::cut, "The least grid loss above the window.")
        .def_property_readonly("top", &TC::top,
                               "A loss above every loss of the window, with the loss shift: an epsilon search's top.")
        .def_property_readonly("slack", &TC::slack, "The relative slack of the untilted suffix sums.")
        .def_property_readonly("cut_short", &TC::cut_short,
                               "Whether the window was cut short, its mass above charged by its Chernoff bound.")
        .def("untilt_factor", &TC::untilt_factor, py::arg("x"),
             "An upper bound on e^{log_scale - theta K} over grid losses K h >= x; 0 where theta x / h is infinite.")
        .def("side_at", &tb::at_each<&TC::side_at>, py::arg("x"), py::kw_only(), py::arg("threads") = 0,
             "The certified delta on this side at each curve argument x (already moved by the loss shift); trivial "
             "(1 or 0) below floor.")
        .def("delta", &tb::at_each<&TC::delta>, py::arg("eps"), py::kw_only(), py::arg("threads") = 0,
             "The certified delta on this side at each eps: side_at of eps moved by the loss shift, rounded outward.");
    m.def(
        "tilted_upper_epsilon",
        [](const TC& c, double delta, double start) {
            py::gil_scoped_release release;
            return pld::upper_epsilon(c, delta, start);
        },
        py::arg("composition"), py::kw_only(), py::arg("delta"), py::arg("start"),
        "A certified upper bound on epsilon(delta) in [0, start] of a pessimistic tilted composition (past start "
        "where the window is cut short and start is at its top); inf where not even start qualifies "
        "(pld/reads/tilted.hpp's upper_epsilon).");
    m.def(
        "tilted_lower_epsilon",
        [](const TC& c, double delta, double near, double start, int points, int steps) {
            if (points < 1) throw py::value_error("points must be at least 1");
            py::gil_scoped_release release;
            return pld::lower_epsilon(c, delta, near, start, points, steps);
        },
        py::arg("composition"), py::kw_only(), py::arg("delta"), py::arg("near"), py::arg("start") = 0.0,
        py::arg("points") = 64, py::arg("steps") = 60,
        "A certified lower bound on epsilon(delta), at least start, of an optimistic tilted composition: the first of "
        "points even steps from near down to the floor whose lower delta exceeds delta, moved up by at most steps "
        "halvings towards the step above it; start where none is (pld/reads/tilted.hpp's lower_epsilon).");
}
