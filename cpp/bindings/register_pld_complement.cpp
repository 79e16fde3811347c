// Binding of the complement's bracket of delta near 1 (pld/reads/complement.hpp), in _core.pld_reads: the factors of
// the Poisson-subsampled Gaussian on one grid (both directions, the remove direction's test; built without the GIL),
// kept by the package's near_one.NearOne for the grids it reads again, and the brackets of many points (rounds, their
// epsilons) read from them, every composition (pocketfft_composition.hpp's, direct bins on) and read without the GIL.
// A setting the factors cannot be built for, or a window past max_points, raises ValueError.
#include <hockeystick/pld/reads/complement.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "elementwise.hpp"
#include "pocketfft_composition.hpp"

namespace py = pybind11;
namespace hb = hockeystick_bindings;
using hb::input_array;
namespace pld = hockeystick::pld;

namespace complement_binding {

// Both directions' factors on one grid, the remove direction's (with its test) first.
struct ComplementFactors {
    std::vector<pld::ComplementDirection> directions;
};

std::vector<double> values_of(const input_array& a) {
    if (a.ndim() != 1) throw py::value_error("internal: each epsilon array must be 1-d");
    return {a.data(), a.data() + a.size()};
}

py::array_t<double> array_of(const std::vector<double>& v) {
    py::array_t<double> out(static_cast<py::ssize_t>(v.size()));
    std::copy(v.begin(), v.end(), out.mutable_data());
    return out;
}

py::list brackets(const ComplementFactors& factors, const std::vector<std::int64_t>& rounds,
                  const std::vector<input_array>& epsilon, const std::vector<std::optional<input_array>>& others,
                  py::object workers, std::int64_t max_points) {
    if (epsilon.size() != rounds.size() || others.size() != rounds.size())
        throw py::value_error("internal: rounds, epsilon and others must have one entry per point");
    for (const std::int64_t t : rounds)
        if (t < 1) throw py::value_error("rounds must be >= 1");
    std::vector<std::vector<double>> eps;
    std::vector<std::optional<std::vector<double>>> known;
    for (std::size_t i = 0; i < rounds.size(); ++i) {
        eps.push_back(values_of(epsilon[i]));
        if (others[i]) {
            known.push_back(values_of(*others[i]));
            if (known.back()->size() != eps.back().size())
                throw py::value_error("internal: others[i] must match epsilon[i]");
        } else {
            known.emplace_back();
        }
    }
    const hb::PocketfftComposition compose(std::move(workers), hb::tilted_options(), true, max_points);
    std::vector<pld::ComplementBracket> found;
    {
        py::gil_scoped_release release;
        found = pld::complement_delta_brackets(factors.directions, rounds, eps, known, compose);
    }
    py::list out;
    for (const pld::ComplementBracket& b : found) out.append(py::make_tuple(array_of(b.lower), array_of(b.upper)));
    return out;
}

}  // namespace complement_binding

void register_pld_complement(py::module_ m) {
    m.attr("complement_above") = pld::kComplementAbove;
    m.attr("complement_max_interval") = pld::kComplementMaxInterval;
    py::class_<complement_binding::ComplementFactors>(
        m, "ComplementFactors",
        "Both directions' complement factors of the Poisson-subsampled Gaussian on one grid "
        "(pld/reads/complement.hpp), the remove direction's with its test.")
        .def_property_readonly(
            "tilts",
            [](const complement_binding::ComplementFactors& f) {
                return py::make_tuple(f.directions[0].dominating.tilt, f.directions[0].test->p_masses.tilt,
                                      f.directions[1].dominating.tilt);
            },
            "(the remove direction's dominating tilt, its test's tilt, the add direction's dominating tilt)");
    m.def(
        "subsampled_gaussian_complement_factors",
        [](double sigma, double sampling_rate, double h, std::optional<double> tilt) {
            py::gil_scoped_release release;
            return complement_binding::ComplementFactors{
                pld::subsampled_gaussian_complement_factors(sigma, sampling_rate, h, tilt)};
        },
        py::arg("sigma"), py::arg("sampling_rate"), py::arg("h"), py::kw_only(), py::arg("tilt") = py::none(),
        "Both directions' complement factors of the Poisson-subsampled Gaussian (sigma per unit sensitivity) on grid "
        "h <= complement_max_interval, each tilted by its balancing tilt, or all by `tilt` where given (any tilt in "
        "[0, 1] is valid); ValueError where they cannot be built.");
    m.def("complement_delta_brackets", &complement_binding::brackets, py::arg("factors"), py::kw_only(),
          py::arg("rounds"), py::arg("epsilon"), py::arg("others"), py::arg("workers") = py::none(),
          py::arg("max_points"),
          "Certified (lower, upper) delta near 1 at epsilon[i] after rounds[i] rounds (pld/reads/complement.hpp's "
          "complement_delta_brackets): others[i], where not None, a certified upper delta of the add direction at "
          "epsilon[i]; workers: scipy.fft's; ValueError where a window passes max_points.");
}
