// The refinement's grid-and-tail policy (pld/refine/grid_policy.hpp: the start grid, the ladder, the memory cap on a
// grid, the question tail) and the loop of an epsilon refinement (pld/refine/epsilon_refinement.hpp), its brackets
// from a Python callable.  python/hockeystick/pld/grid/grid_start.py calls the policy with its constants at call
// time (a GridPolicy), so a test that patches a constant is followed.
#include <hockeystick/pld/refine/epsilon_refinement.hpp>
#include <hockeystick/pld/refine/grid_policy.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <utility>

namespace py = pybind11;
namespace pld = hockeystick::pld;
using input_array = py::array_t<double, py::array::c_style | py::array::forcecast>;

namespace {

void register_grid_policy(py::module_ m) {
    const pld::GridPolicy kDefaults;  // each keyword's default: the core's constant
    py::class_<pld::GridPolicy>(m, "GridPolicy", "The grid ladder's, the starts' and memory's tuning constants.")
        .def(
            py::init([](double finest_interval, double lowest_interval, double coarsest_interval, double coarsest_start,
                        double start_points, double below_rate_margin, double below_rate_start_max_rate,
                        double below_rate_start_max_refinement, double below_rate_finest_divisor, double max_window) {
                return pld::GridPolicy{finest_interval,
                                       lowest_interval,
                                       coarsest_interval,
                                       coarsest_start,
                                       start_points,
                                       below_rate_margin,
                                       below_rate_start_max_rate,
                                       below_rate_start_max_refinement,
                                       below_rate_finest_divisor,
                                       max_window};
            }),
            py::kw_only(), py::arg("finest_interval") = kDefaults.finest_interval,
            py::arg("lowest_interval") = kDefaults.lowest_interval,
            py::arg("coarsest_interval") = kDefaults.coarsest_interval,
            py::arg("coarsest_start") = kDefaults.coarsest_start, py::arg("start_points") = kDefaults.start_points,
            py::arg("below_rate_margin") = kDefaults.below_rate_margin,
            py::arg("below_rate_start_max_rate") = kDefaults.below_rate_start_max_rate,
            py::arg("below_rate_start_max_refinement") = kDefaults.below_rate_start_max_refinement,
            py::arg("below_rate_finest_divisor") = kDefaults.below_rate_finest_divisor,
            py::arg("max_window") = kDefaults.max_window)
        .def_readonly("finest_interval", &pld::GridPolicy::finest_interval)
        .def_readonly("lowest_interval", &pld::GridPolicy::lowest_interval)
        .def_readonly("coarsest_interval", &pld::GridPolicy::coarsest_interval)
        .def_readonly("coarsest_start", &pld::GridPolicy::coarsest_start)
        .def_readonly("start_points", &pld::GridPolicy::start_points)
        .def_readonly("below_rate_margin", &pld::GridPolicy::below_rate_margin)
        .def_readonly("below_rate_start_max_rate", &pld::GridPolicy::below_rate_start_max_rate)
        .def_readonly("below_rate_start_max_refinement", &pld::GridPolicy::below_rate_start_max_refinement)
        .def_readonly("below_rate_finest_divisor", &pld::GridPolicy::below_rate_finest_divisor)
        .def_readonly("max_window", &pld::GridPolicy::max_window);
    m.def("loss_span", &pld::loss_span, py::arg("sigma"), py::arg("q"), py::arg("rounds"), py::arg("sensitivity"));
    m.def("ladder_rung", &pld::ladder_rung, py::arg("h"), py::arg("policy"));
    m.def("finest_interval", &pld::finest_interval, py::arg("q"), py::arg("policy"));
    m.def("within_window", &pld::within_window, py::arg("sigma"), py::arg("q"), py::arg("rounds"),
          py::arg("sensitivity"), py::arg("h"), py::arg("policy"));
    m.def("start_default", &pld::start_default, py::arg("accuracy"), py::arg("policy"));
    m.def("span_start", &pld::span_start, py::arg("sigma"), py::arg("q"), py::arg("rounds"), py::arg("sensitivity"),
          py::arg("accuracy"), py::arg("policy"));
    m.def("below_rate", &pld::below_rate, py::arg("q"), py::arg("policy"));
    m.def("below_rate_start", &pld::below_rate_start, py::arg("start"), py::arg("q"), py::arg("policy"));
    m.def("delta_start", &pld::delta_start, py::arg("sigma"), py::arg("q"), py::arg("rounds"), py::arg("sensitivity"),
          py::arg("accuracy"), py::arg("epsilon_criterion"), py::arg("policy"));
    m.def(
        "epsilon_start",
        [](double sigma, double q, double rounds, double sensitivity, input_array delta, double accuracy,
           double relative_accuracy, const pld::GridPolicy& policy) {
            const std::int64_t n = static_cast<std::int64_t>(delta.size());
            return pld::epsilon_start(sigma, q, rounds, sensitivity, delta.data(), n, accuracy, relative_accuracy,
                                      policy);
        },
        py::arg("sigma"), py::arg("q"), py::arg("rounds"), py::arg("sensitivity"), py::arg("delta"), py::kw_only(),
        py::arg("accuracy"), py::arg("relative_accuracy"), py::arg("policy"));
    m.def(
        "question_tail",
        [](double rounds, double delta, double share, double default_tail, double smallest_tail) {
            return pld::question_tail(rounds, delta, pld::TailPolicy{default_tail, smallest_tail, share});
        },
        py::arg("rounds"), py::arg("delta"), py::kw_only(), py::arg("share"), py::arg("default_tail"),
        py::arg("smallest_tail"));
}

}  // namespace

void register_pld_refine(py::module_ m) {
    register_grid_policy(m);
    m.def(
        "refine_epsilon",
        [](double sigma, double q, double rounds, double sensitivity, double delta, double accuracy,
           const py::function& bracket_at, const pld::GridPolicy& policy) {
            const pld::RefinedEpsilon r = pld::refine_epsilon(
                sigma, q, rounds, sensitivity, delta, accuracy,
                [&](double h) { return bracket_at(h).cast<std::pair<double, double>>(); }, policy);
            return py::make_tuple(r.lower, r.upper, r.interval, r.grids, r.met);
        },
        py::arg("sigma"), py::arg("q"), py::arg("rounds"), py::arg("sensitivity"), py::arg("delta"),
        py::arg("accuracy"), py::kw_only(), py::arg("bracket_at"), py::arg("policy"));
}
