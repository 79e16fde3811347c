// Binding of rare participation's last epsilon reads (pld/refine/rare_finer_grids.hpp), in _core.pld_refine: each
// bracket of one point read by rare_finer_bracket (the finer grids where wider than the tolerance, the aligned cells'
// lower read where within it but wider than a sixteenth), each by a reader of its own, on the package's FFT
// (pocketfft_composition.hpp), with the GIL released.  The package's front end is
// python/hockeystick/pld/refine/rare_finer_grids.py.
#include <hockeystick/pld/refine/fine_epsilon.hpp>
#include <hockeystick/pld/refine/rare_finer_grids.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "elementwise.hpp"
#include "loops.hpp"
#include "pocketfft_composition.hpp"

namespace py = pybind11;
namespace hb = hockeystick_bindings;
namespace pld = hockeystick::pld;

namespace rare_finer_binding {

using hb::input_array;

// The point and the caps, else a ValueError naming the argument and its rule.
void require_point(double sigma, double q, std::int64_t rounds, std::int64_t max_cells, std::int64_t upper_max_points,
                   std::int64_t lower_max_points) {
    if (!(sigma > 0.0 && std::isfinite(sigma)))
        throw py::value_error("sigma must be finite and > 0 (the noise over the sensitivity), got " +
                              std::to_string(sigma));
    if (!(q > 0.0 && q < 1.0))
        throw py::value_error("sampling_rate must lie strictly between 0 and 1, got " + std::to_string(q));
    if (rounds < 1) throw py::value_error("rounds must be at least 1, got " + std::to_string(rounds));
    if (max_cells < 1) throw py::value_error("max_cells must be at least 1, got " + std::to_string(max_cells));
    if (upper_max_points < 1 || lower_max_points < 1)
        throw py::value_error("upper_max_points and lower_max_points must be at least 1 (window caps in points)");
}

// delta, lower and upper one-dimensional of one size, each delta in (0, 1), no side NaN, else a ValueError.
void require_brackets(const input_array& delta, const input_array& lower, const input_array& upper) {
    if (delta.ndim() != 1 || lower.ndim() != 1 || upper.ndim() != 1 || lower.size() != delta.size() ||
        upper.size() != delta.size())
        throw py::value_error("delta, lower and upper must be one-dimensional arrays of one size");
    for (py::ssize_t i = 0; i < delta.size(); ++i) {
        const double d = delta.data()[i];
        if (!(d > 0.0 && d < 1.0))
            throw py::value_error("delta must lie strictly between 0 and 1, got " + std::to_string(d));
        const double lo = lower.data()[i], up = upper.data()[i];
        if (!(lo <= up && up >= 0.0))  // NaN fails too
            throw py::value_error(
                "lower and upper must be certified epsilon brackets (lower <= upper, upper >= 0), "
                "got [" +
                std::to_string(lo) + ", " + std::to_string(up) + "]");
    }
}

// Each (lower, upper) at delta (one-dimensional arrays of one size) read by rare_finer_bracket: the certified brackets,
// never wider than given.
std::pair<py::array_t<double>, py::array_t<double>> brackets(double sigma, double q, std::int64_t rounds,
                                                             const input_array& delta, const input_array& lower,
                                                             const input_array& upper, std::int64_t max_cells,
                                                             std::int64_t upper_max_points,
                                                             std::int64_t lower_max_points, const py::object& workers) {
    require_point(sigma, q, rounds, max_cells, upper_max_points, lower_max_points);
    require_brackets(delta, lower, upper);
    const pld::FinerCaps caps{upper_max_points, lower_max_points};
    py::array_t<double> lows(delta.size()), ups(delta.size());
    double* lo = lows.mutable_data();
    double* up = ups.mutable_data();
    const hb::PocketfftComposition compose(workers, hb::tilted_options(), true, upper_max_points);
    const int threads = hb::region_threads(workers);
    {
        py::gil_scoped_release release;
        const hb::caller_region_threads region(threads);
        for (py::ssize_t i = 0; i < delta.size(); ++i) {  // each read as asked alone: a reader of its own
            pld::TiltedReader reader(sigma, q, rounds, compose.fft(), max_cells, upper_max_points);
            const std::pair<double, double> b =
                pld::rare_finer_bracket(reader, delta.data()[i], lower.data()[i], upper.data()[i], compose.fft(), caps);
            lo[i] = b.first;
            up[i] = b.second;
        }
    }
    return {lows, ups};
}

// finer_lower_grid with its arguments checked: a window of points >= 0, a cap >= 1.
double lower_grid(std::int64_t window, std::int64_t max_points) {
    if (window < 0)
        throw py::value_error("window must be >= 0 (points of a window read), got " + std::to_string(window));
    if (max_points < 1) throw py::value_error("max_points must be at least 1, got " + std::to_string(max_points));
    return pld::finer_lower_grid(window, max_points);
}

// finer_halvings with its arguments checked: first and second upper sides not NaN, lower finite and >= 0, a window of
// points >= 0, a cap >= 1.
int halvings(double first, double second, double lower, std::int64_t window, std::int64_t max_points) {
    if (std::isnan(first) || std::isnan(second)) throw py::value_error("first and second must not be NaN");
    if (!(lower >= 0.0 && std::isfinite(lower)))
        throw py::value_error("lower must be finite and >= 0 (a certified lower epsilon), got " +
                              std::to_string(lower));
    if (window < 0)
        throw py::value_error("window must be >= 0 (points of a window read), got " + std::to_string(window));
    if (max_points < 1) throw py::value_error("max_points must be at least 1, got " + std::to_string(max_points));
    return pld::finer_halvings(first, second, lower, window, max_points);
}

}  // namespace rare_finer_binding

void register_pld_rare_finer_grids(py::module_ m) {
    namespace rb = rare_finer_binding;
    m.def("rare_finer_brackets", &rb::brackets, py::kw_only(), py::arg("sigma"), py::arg("sampling_rate"),
          py::arg("rounds"), py::arg("delta"), py::arg("lower"), py::arg("upper"), py::arg("max_cells"),
          py::arg("upper_max_points") = pld::kFinerUpperMaxPoints,
          py::arg("lower_max_points") = pld::kFinerLowerMaxPoints, py::arg("workers") = py::none(),
          "Each (lower, upper) epsilon bracket at delta of rounds of the Poisson-subsampled Gaussian (sigma per unit "
          "sensitivity) read by rare participation's last reads (pld/refine/rare_finer_grids.hpp's "
          "rare_finer_bracket): certified, never wider than given; the windows within the caps given.");
    m.def("finer_lower_grid", &rb::lower_grid, py::kw_only(), py::arg("window"),
          py::arg("max_points") = pld::kFinerLowerMaxPoints,
          "The aligned read's grid of rare_finer_grids.hpp for an upper read's window of `window` points on its first "
          "grid (0: none fits).");
    m.def("finer_halvings", &rb::halvings, py::kw_only(), py::arg("first"), py::arg("second"), py::arg("lower"),
          py::arg("window"), py::arg("max_points") = pld::kFinerUpperMaxPoints,
          "How many halvings of half the first grid the last upper read of rare_finer_grids.hpp takes.");
    m.def("finer_applies", &pld::finer_applies, py::kw_only(), py::arg("sampling_rate"), py::arg("rounds"),
          py::arg("delta"), py::arg("lower"), py::arg("upper"),
          "Whether rare_finer_grids.hpp's finer grids read the bracket: rare participation, a bracket wider than the "
          "default tolerance.");
    m.def("tight_applies", &pld::tight_applies, py::kw_only(), py::arg("sampling_rate"), py::arg("rounds"),
          py::arg("delta"), py::arg("lower"), py::arg("upper"),
          "Whether rare_finer_grids.hpp's tight read raises the bracket's lower side: rare participation, a bracket "
          "within the default tolerance but wider than finer_tight_share of it.");
    m.def("fine_rare_pending", &pld::fine_rare_pending, py::kw_only(), py::arg("sampling_rate"), py::arg("lower"),
          py::arg("upper"),
          "Whether a bracket the fine epsilon read left is read again on the rare grids "
          "(pld/refine/fine_epsilon.hpp's fine_rare_pending).");
    m.attr("finer_first_grid") = pld::kFinerFirstGrid;
    m.attr("finer_tight_share") = pld::kFinerTightShare;
    m.attr("finer_lower_grids") = py::make_tuple(pld::kFinerLowerGrids[0], pld::kFinerLowerGrids[1]);
    m.attr("finer_upper_max_points") = pld::kFinerUpperMaxPoints;
    m.attr("finer_lower_max_points") = pld::kFinerLowerMaxPoints;
    m.attr("finer_lower_window_ratio") = pld::kFinerLowerWindowRatio;
}
