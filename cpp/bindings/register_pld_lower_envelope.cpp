// Binding of an optimistic grid PMF's lower side raised to its suffix maxima (pld/reads/lower_envelope.hpp), in
// _core.pld_reads: the PMF's fields, its values and the suffix maxima it keeps taken with the interpreter lock, the
// read done without it (python/hockeystick/pld/grid/pmf_envelope.py is its front end, GridPMF.delta its caller).
#include <hockeystick/pld/reads/lower_envelope.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "elementwise.hpp"
#include "side_read.hpp"

namespace py = pybind11;
namespace hb = hockeystick_bindings;
namespace pld = hockeystick::pld;

namespace lower_envelope_binding {

using held_maxima = std::optional<std::pair<std::int64_t, hb::input_array>>;

// A vector's doubles as an array that owns them (moved, not copied).
py::array_t<double> owned(std::vector<double>&& values) {
    auto* kept = new std::vector<double>(std::move(values));
    const py::capsule owner(kept, [](void* v) { delete static_cast<std::vector<double>*>(v); });
    return py::array_t<double>(static_cast<py::ssize_t>(kept->size()), kept->data(), owner);
}

// _core.pld_reads.lower_envelope (its docstring).
py::tuple lower_envelope(const py::object& pmf, const hb::input_array& epsilon, const hb::input_array& low,
                         const held_maxima& held, bool whole) {
    std::vector<hb::input_array> masses;
    const pld::SideRead r = hb::side_read_of(pmf, masses);
    if (epsilon.ndim() != 1 || low.ndim() != 1 || low.size() != epsilon.size())
        throw py::value_error("internal: epsilon and low must be flat arrays of one length");
    pld::EnvelopeCache cache;
    if (held) {
        const auto& [from, values] = *held;
        if (values.ndim() != 1 || from < 0 || from > r.pmf.n || values.size() != r.pmf.n - from + 1)
            throw py::value_error("internal: the held suffix maxima must cover the grid points from..n");
        cache.held = values.data();
        cache.held_from = from;
    }
    const auto m = static_cast<std::int64_t>(epsilon.size());
    py::array_t<double> out(m);
    std::copy(low.data(), low.data() + m, out.mutable_data());
    try {  // the GIL is back before the catch (release's scope ends with the try block)
        py::gil_scoped_release release;
        pld::raise_to_envelope(r, epsilon.data(), out.mutable_data(), m, &cache, whole);
    } catch (const std::invalid_argument& error) { throw py::value_error(error.what()); }
    const py::object built =
        cache.built.empty() ? py::object(py::none()) : py::make_tuple(cache.built_from, owned(std::move(cache.built)));
    return py::make_tuple(out, built);
}

}  // namespace lower_envelope_binding

void register_pld_lower_envelope(py::module_ m) {
    m.def("lower_envelope", &lower_envelope_binding::lower_envelope, py::arg("pmf"), py::arg("epsilon"), py::arg("low"),
          py::kw_only(), py::arg("held"), py::arg("whole") = false,
          "An optimistic PMF's certified lower delta at the true curve's epsilon (a flat array) from its charged lower "
          "values there, low (pld/reads/lower_envelope.hpp): each raised to the largest charged lower value at a grid "
          "point at or above its curve argument, by probes near it or by the suffix maxima of the whole pass (always "
          "where whole). held: the suffix maxima the caller keeps, (from, values at grid points from..n), or None. "
          "Returns (the raised values, (from, suffix maxima) where this call built them, else None). A PMF is any "
          "object with GridPMF's fields; ValueError where it is pessimistic or an epsilon is NaN.");
}
