// Binding of the tilted reads of a run of several kinds of round (pld/refine/tilted_factors.hpp), in _core.pld_refine:
// a TiltedFactorsReader on the package's FFT (pocketfft_composition.hpp), each read with the GIL released, its
// refusals (a window past the cap, a tilt past the doubles' moments, a discretization past max_cells) raised as
// ValueError where the read has no bracket to give.  The package's front ends are
// python/hockeystick/pld/question/tilted_factors.py and tilted_factors_delta.py.
#include <hockeystick/pld/refine/split_read.hpp>
#include <hockeystick/pld/refine/tilted_factors.hpp>

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "loops.hpp"
#include "pocketfft_composition.hpp"
#include "tilted_arguments.hpp"

namespace py = pybind11;
namespace hb = hockeystick_bindings;
namespace pld = hockeystick::pld;

namespace tilted_factors_binding {

using hb::checked_segments;
using hb::require_not_nan;
using hb::require_positive;
using hb::require_probability;
using hb::Segment;

// read() with the GIL released, the discretizations on `threads` threads.
template <class Read>
auto released(int threads, Read&& read) {
    py::gil_scoped_release release;
    const hb::caller_region_threads region(threads);
    return read();
}

// read(), its refusal (a window past the cap or a discretization past max_cells, a tilt past the doubles' moments)
// raised as a ValueError saying so.
template <class Read>
auto refusing(Read&& read) {
    try {
        return read();
    } catch (const std::length_error& e) {
        throw py::value_error(std::string("the tilted read is refused: ") + e.what());
    } catch (const std::invalid_argument& e) {
        throw py::value_error(std::string("the tilted read is refused: ") + e.what());
    }
}

// A TiltedFactorsReader kept for one question's reads on the package's FFT (workers: its threads, None all cores).
class FactorsReader {
  public:
    FactorsReader(const std::vector<Segment>& segments, std::int64_t max_cells, const py::object& workers)
        : threads_(hb::region_threads(workers)),
          compose_(workers, hb::tilted_options(), true, pld::kTiltMaxPoints),
          reader_(checked_segments(segments), compose_.fft(), checked_cells(max_cells)) {}

    double pure_add_epsilon() const { return reader_.pure_add_epsilon(); }

    std::pair<double, double> ladder_bracket(double delta, double lower, double upper, double accuracy,
                                             double relative_accuracy) {
        require_bracket(delta, lower, upper);
        const pld::EpsilonTolerance tol = checked_tolerance(accuracy, relative_accuracy);
        return released(threads_, [&] { return reader_.ladder_bracket(delta, lower, upper, tol); });
    }

    std::pair<double, double> fine_bracket(double delta, double lower, double upper, double accuracy,
                                           double relative_accuracy) {
        require_bracket(delta, lower, upper);
        const pld::EpsilonTolerance tol = checked_tolerance(accuracy, relative_accuracy);
        return released(threads_, [&] { return reader_.fine_bracket(delta, lower, upper, tol); });
    }

    double question_tail(double delta) const {
        require_probability("delta", delta);
        return reader_.question_tail(delta);
    }

    bool add_below(double eps, double h, double tail, double delta) {
        require_read(delta, h, tail);
        require_not_nan("eps", eps);
        return refusing([&] { return released(threads_, [&] { return reader_.add_below(eps, h, tail, delta); }); });
    }

    std::tuple<double, double, double> delta_read(double eps, double h, double tail, double lower, double upper) {
        require_positive("interval", h, "the grid's loss step");
        require_probability("tail", tail);
        if (!(eps >= 0.0 && std::isfinite(eps)))
            throw py::value_error("eps must be finite and >= 0, got " + hb::listed(eps));
        require_sides(lower, upper);
        const pld::TiltedFactorsReader::DeltaRead read = refusing(
            [&] { return released(threads_, [&] { return reader_.delta_read(eps, h, tail, lower, upper); }); });
        return {read.lower, read.upper, read.add_upper};
    }

    std::pair<double, double> split_epsilon(double delta, double lower, double upper, std::int64_t split_max_points) {
        require_bracket(delta, lower, upper);
        const hb::PocketfftComposition split(py::none(), hb::split_options(), true,
                                             hb::checked_points("split_max_points", split_max_points));
        return released(threads_, [&] {
            return pld::factors_split_epsilon(reader_, delta, lower, upper, {split.fft(), split_max_points});
        });
    }

    std::pair<double, double> split_delta(double eps, double h, double tail, double lower, double upper,
                                          double add_upper, std::int64_t split_max_points) {
        require_positive("interval", h, "the grid's loss step");
        require_probability("tail", tail);
        if (!(eps >= 0.0 && std::isfinite(eps)))
            throw py::value_error("eps must be finite and >= 0, got " + hb::listed(eps));
        require_sides(lower, upper);
        if (!(add_upper >= 0.0))
            throw py::value_error(
                "add_upper must be >= 0 (a certified upper delta of the add direction; inf: none), got " +
                hb::listed(add_upper));
        const hb::PocketfftComposition split(py::none(), hb::split_options(), true,
                                             hb::checked_points("split_max_points", split_max_points));
        return released(threads_, [&] {
            return pld::factors_split_delta(reader_, eps, h, tail, lower, upper, add_upper,
                                            {split.fft(), split_max_points});
        });
    }

  private:
    static void require_bracket(double delta, double lower, double upper) {
        require_probability("delta", delta);
        require_sides(lower, upper);
    }
    // A certified bracket's sides: neither NaN, lower at most upper.
    static void require_sides(double lower, double upper) {
        require_not_nan("lower", lower);
        require_not_nan("upper", upper);
        if (lower > upper)
            throw py::value_error("lower must be at most upper (a certified bracket), got [" + hb::listed(lower) +
                                  ", " + hb::listed(upper) + "]");
    }
    static pld::EpsilonTolerance checked_tolerance(double accuracy, double relative_accuracy) {
        require_positive("accuracy", accuracy, "an epsilon width");
        if (!(relative_accuracy >= 0.0 && std::isfinite(relative_accuracy)))
            throw py::value_error("relative_accuracy must be finite and >= 0, got " + hb::listed(relative_accuracy));
        return {accuracy, relative_accuracy};
    }
    static std::int64_t checked_cells(std::int64_t n) {
        if (n < 1) throw py::value_error("max_cells must be at least 1, got " + std::to_string(n));
        return n;
    }
    static void require_read(double delta, double h, double tail) {
        require_probability("delta", delta);
        require_positive("interval", h, "the grid's loss step");
        require_probability("tail", tail);
    }

    int threads_;
    hb::PocketfftComposition compose_;
    pld::TiltedFactorsReader reader_;
};

// The ladder of grids (pld::factor_ladder) driven by a caller's read(h) -> (lower, upper, cut points), a ValueError
// from it standing for a refused grid: the rules that end the ladder, shown on a stand-in bracket.
std::pair<double, double> factor_ladder(
    const std::function<std::tuple<double, double, std::vector<std::int64_t>>(double)>& read, double lower,
    double upper, double h, double refused, double accuracy, double relative_accuracy, std::int64_t max_points) {
    return pld::factor_ladder(lower, upper, h, refused, {accuracy, relative_accuracy}, max_points,
                              [&](double g, std::vector<std::int64_t>& cut) {
                                  std::tuple<double, double, std::vector<std::int64_t>> got;
                                  try {
                                      got = read(g);
                                  } catch (const py::error_already_set& e) {
                                      if (!e.matches(PyExc_ValueError)) throw;
                                      throw std::length_error(e.what());
                                  }
                                  cut.insert(cut.end(), std::get<2>(got).begin(), std::get<2>(got).end());
                                  return std::make_pair(std::get<0>(got), std::get<1>(got));
                              });
}

}  // namespace tilted_factors_binding

void register_pld_tilted_factors(py::module_ m) {
    namespace tf = tilted_factors_binding;
    py::class_<tf::FactorsReader>(m, "TiltedFactorsReader",
                                  "The tilted reads of a run of several kinds of Poisson-subsampled Gaussian round "
                                  "(pld/refine/tilted_factors.hpp), their discretized rounds freed after each read.")
        .def(py::init<const std::vector<tf::Segment>&, std::int64_t, const py::object&>(), py::arg("segments"),
             py::kw_only(), py::arg("max_cells"), py::arg("workers") = py::none())
        .def_property_readonly("pure_add_epsilon", &tf::FactorsReader::pure_add_epsilon)
        .def("ladder_bracket", &tf::FactorsReader::ladder_bracket, py::kw_only(), py::arg("delta"), py::arg("lower"),
             py::arg("upper"), py::arg("accuracy"), py::arg("relative_accuracy"))
        .def("fine_bracket", &tf::FactorsReader::fine_bracket, py::kw_only(), py::arg("delta"), py::arg("lower"),
             py::arg("upper"), py::arg("accuracy"), py::arg("relative_accuracy"))
        .def("question_tail", &tf::FactorsReader::question_tail, py::arg("delta"))
        .def("add_below", &tf::FactorsReader::add_below, py::kw_only(), py::arg("eps"), py::arg("interval"),
             py::arg("tail"), py::arg("delta"))
        .def("delta_read", &tf::FactorsReader::delta_read, py::kw_only(), py::arg("eps"), py::arg("interval"),
             py::arg("tail"), py::arg("lower"), py::arg("upper"))
        .def("split_epsilon", &tf::FactorsReader::split_epsilon, py::kw_only(), py::arg("delta"), py::arg("lower"),
             py::arg("upper"), py::arg("split_max_points"),
             "The epsilon bracket (lower, upper) at delta intersected with the split read of the run's remove "
             "direction on the grid 5e-5, the add direction cleared by add_below (pld/refine/split_read.hpp's "
             "factors_split_epsilon: as given unless lower > 0, not exact and sum_i q_i c_i at most "
             "tilt_split_sampled_rounds), its windows within split_max_points; certified.")
        .def("split_delta", &tf::FactorsReader::split_delta, py::kw_only(), py::arg("eps"), py::arg("interval"),
             py::arg("tail"), py::arg("lower"), py::arg("upper"), py::arg("add_upper"), py::arg("split_max_points"),
             "The delta bracket (lower, upper) at eps intersected with the split read of the run's remove direction "
             "on the grid `interval` with `tail`, the upper side the larger of it and add_upper (a certified upper "
             "delta of the add direction: delta_read's) (pld/refine/split_read.hpp's factors_split_delta: as given "
             "unless eps > 0, not exact and sum_i q_i c_i at most tilt_split_sampled_rounds); certified.");
    m.def("_tilted_factor_ladder", &tf::factor_ladder, py::arg("read"), py::kw_only(), py::arg("lower"),
          py::arg("upper"), py::arg("interval"), py::arg("refused"), py::arg("accuracy"), py::arg("relative_accuracy"),
          py::arg("max_points"));
}
