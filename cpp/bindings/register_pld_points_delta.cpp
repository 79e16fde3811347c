// Binding of the many-points delta refinement of Poisson-subsampled Gaussian points (pld/refine/points_delta_source.hpp
// over points_front.hpp's loop), in _core.pld_refine: the loop, every step's units, discretizations, compositions,
// reads and delta near 1's reads without the GIL, on the package's FFT (workers: its threads, None all cores).  The
// package's front end is python/hockeystick/pld/refine/points.py's Refinement.refined, which gives the first grids and
// the points the upper side alone settles.  A round a grid cannot discretize is refused as the core's step reads are
// (step_refusal.hpp), naming sigma / sensitivity and the sampling rate.
#include <hockeystick/pld/refine/points_delta_source.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "elementwise.hpp"
#include "pocketfft_composition.hpp"
#include "step_refusal.hpp"

namespace py = pybind11;
namespace hb = hockeystick_bindings;
using hb::input_array;
namespace pld = hockeystick::pld;

namespace points_delta_binding {

// The three compositions a step's units and the complement take: plain, direct bins from kDirectMinCharge, and direct
// bins from the charge of a grid asked again; made under the GIL before the loop and destroyed under it after.
struct UnitCompositions {
    double same_grid_charge;
    hb::PocketfftComposition plain, direct, same_grid;

    static pld::ComposeOptions options(bool direct, double charge) {
        pld::ComposeOptions o;
        o.direct_bins = direct;
        o.direct_min_charge = charge;
        return o;
    }
    UnitCompositions(const py::object& workers, double charge, std::int64_t max_points)
        : same_grid_charge(charge),
          plain(workers, options(false, pld::kDirectMinCharge), true, max_points),
          direct(workers, options(true, pld::kDirectMinCharge), true, max_points),
          same_grid(workers, options(true, charge), true, max_points) {}
    const hb::PocketfftComposition& operator()(bool on, double charge) const {
        if (!on) return plain;
        return charge == same_grid_charge && charge != pld::kDirectMinCharge ? same_grid : direct;
    }
};

py::array_t<double> array_of(const std::vector<double>& v) {
    return py::array_t<double>(static_cast<py::ssize_t>(v.size()), v.data());
}

// _core.pld_refine.refine_subsampled_gaussian_deltas (its docstring).
py::tuple refine_deltas(const pld::PointsRules& rules, const pld::PointsRules& step_rules,
                        const std::vector<std::array<double, 4>>& points, const std::vector<input_array>& xs,
                        const std::vector<std::int64_t>& own, const std::vector<double>& coarsest_fit,
                        const pld::GridPolicy& policy, const pld::GridPolicy& start_policy, std::int64_t right_rows,
                        double tail, double accuracy, bool by_epsilon, double floor, double settled,
                        double same_grid_charge, double budget, std::int64_t batch, double near_one,
                        double complement_above, std::int64_t max_cells, std::int64_t max_points,
                        const py::object& workers) {
    const std::size_t n = points.size();
    if (xs.size() != n || own.size() != n || coarsest_fit.size() != n)
        throw py::value_error("internal: points, xs, own and coarsest_fit must have one entry a point");
    std::vector<pld::RefinedPoint> refined(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (xs[i].ndim() != 1 || own[i] <= 0 || xs[i].size() % own[i] != 0)
            throw py::value_error("internal: a point's arguments must be one-dimensional, a multiple of its own");
        pld::RefinedPoint& p = refined[i];
        p.sigma = points[i][0];
        p.q = points[i][1];
        p.rounds = points[i][2];
        p.sensitivity = points[i][3];
        p.x.assign(xs[i].data(), xs[i].data() + xs[i].size());
        p.own = own[i];
        p.coarsest_fit = coarsest_fit[i];
    }
    pld::PointsDeltaPlan plan;
    plan.step_rules = step_rules;
    plan.tail = tail;
    plan.accuracy = accuracy;
    plan.by_epsilon = by_epsilon;
    plan.floor = floor;
    plan.settled = settled;
    plan.same_grid_charge = same_grid_charge;
    plan.budget = budget;
    plan.batch = batch;
    plan.near_one = near_one;
    plan.complement_above = complement_above;
    plan.max_cells = max_cells;
    plan.policy = policy;
    plan.start_policy = start_policy;
    plan.right_rows = right_rows;
    const UnitCompositions compositions(workers, same_grid_charge, max_points);
    pld::PointsDeltaSource<const UnitCompositions> source{refined, plan, compositions};
    std::map<std::int64_t, std::pair<std::vector<double>, std::vector<double>>> chosen;
    std::int64_t gave_up = 0;
    try {
        const int threads = hb::region_threads(workers);
        py::gil_scoped_release release;
        const hb::caller_region_threads region(threads);
        auto done = pld::refine_many(source, rules, refined);
        chosen = std::move(done.chosen);
        chosen.merge(source.settled_brackets());
        gave_up = done.gave_up;
    } catch (const pld::RoundRefused& e) {  // named as the core's step reads name it (step_refusal.hpp)
        const pld::RoundRefused refusal = e;
        hb::refusing_steps(source.refused_noise, source.refused_rate, [&]() -> int { throw refusal; });
    }
    py::list out;
    for (const auto& [i, sides] : chosen) out.append(py::make_tuple(i, array_of(sides.first), array_of(sides.second)));
    py::list settled_points;
    for (const auto& [i, up] : source.settled) settled_points.append(i);
    return py::make_tuple(out, gave_up, source.refused, array_of(source.visited), settled_points);
}

}  // namespace points_delta_binding

void register_pld_points_delta(py::module_ m) {
    m.def("refine_subsampled_gaussian_deltas", &points_delta_binding::refine_deltas, py::kw_only(), py::arg("rules"),
          py::arg("step_rules"), py::arg("points"), py::arg("xs"), py::arg("own"), py::arg("coarsest_fit"),
          py::arg("policy"), py::arg("start_policy"), py::arg("right_rows"), py::arg("tail"), py::arg("accuracy"),
          py::arg("by_epsilon"), py::arg("floor"), py::arg("settled"), py::arg("same_grid_charge"), py::arg("budget"),
          py::arg("batch"), py::arg("near_one"), py::arg("complement_above"), py::arg("max_cells"),
          py::arg("max_points"), py::arg("workers") = py::none(),
          "The many-points delta refinement of points (sigma, q, rounds, sensitivity) at their arguments xs (own[i] "
          "of them their own, then right_rows rows of right offsets, then the left ones), under the loop's `rules` and "
          "the steps' `step_rules`, from the first grids of the GridPolicy `policy` (`start_policy`: the first grid's "
          "own), less the points their upper side settles there (pld/refine/points_delta_start.hpp, "
          "points_delta_source.hpp): ([(point, lower, upper)] at their own arguments, how many points their coarsest "
          "fit stopped, how many a refused window stopped, the grids each unit's step read, one a point, and the "
          "points settled before the loop).  ValueError where a round cannot be discretized.");
}
