// Bindings of a refinement step's screened brackets, .delta's (pld/refine/screened_step.hpp) and .epsilon's
// (pld/refine/screened_epsilon_step.hpp), in _core.pld_refine: the one-round factors' fields read under the GIL, then
// every composition (register_pld_compose.cpp's, through pocketfft_composition.hpp), read, decision and bracket of the
// step without it, the GIL taken again only to ask the package for the add direction's factors of the points whose
// screen did not clear.  The package's refinement reads both in the core over factors the core discretizes
// (pld/refine/points_delta_source.hpp, subsampled_gaussian_step.hpp); these bindings read them over the package's own
// one-round factors, for its tests (tests/pld/refine/screened_delta_reference.py, screened_epsilon_reference.py).
#include <hockeystick/pld/refine/screened_epsilon_step.hpp>
#include <hockeystick/pld/refine/screened_step.hpp>
#include <hockeystick/pld/refine/steps_refinement.hpp>
#include <hockeystick/pld/refine/subsampled_gaussian_step.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "elementwise.hpp"
#include "pocketfft_composition.hpp"
#include "side_read.hpp"
#include "step_refusal.hpp"

namespace py = pybind11;
namespace hb = hockeystick_bindings;
using hb::input_array;
namespace pld = hockeystick::pld;

namespace {

// The step's one-round factors, each GridPMF object once (by identity, as the facade's compose_many lists a factor
// once), its masses kept referenced.  Under the GIL.
struct FactorPool {
    std::vector<pld::StepFactor> factors;
    std::vector<input_array> masses;
    std::map<const PyObject*, std::size_t> index;

    // A direction's (GridPMF, count) terms as the step's item; a PMF that is None refused as the facade refuses a
    // PLD built without its optimistic side.
    pld::StepItem item(const py::handle& terms) {
        pld::StepItem out;
        for (const py::handle term : terms) {
            const py::tuple pair = py::reinterpret_borrow<py::tuple>(term);
            const py::handle pmf = pair[0];
            if (pmf.is_none())
                throw py::value_error(
                    "this PLD was built without its optimistic side (optimistic=False): only bound=\"upper\" is "
                    "available");
            const auto found = index.emplace(pmf.ptr(), factors.size());
            if (found.second) {
                pld::StepFactor f;
                f.read = hb::side_read_of(pmf, masses);
                // read on the pessimistic side alone (fixed_part.hpp), as GridPMF.finite_mass gives it
                f.finite_mass = f.read.pessimistic ? pmf.attr("finite_mass").cast<double>() : 0.0;
                factors.push_back(f);
            }
            out.emplace_back(found.first->second, pair[1].cast<std::int64_t>());
        }
        return out;
    }
};

// A point's arguments, `own` of them its own (a multiple of its arguments), and its record of earlier grids.
pld::ScreenedPoint screened_point(const input_array& x, std::int64_t own,
                                  const std::optional<std::pair<input_array, input_array>>& before) {
    const auto m = static_cast<std::size_t>(x.size());
    if (x.ndim() != 1 || own <= 0 || m % static_cast<std::size_t>(own) != 0)
        throw std::invalid_argument("internal: a point's arguments must be one-dimensional, a multiple of its own");
    pld::ScreenedPoint p;
    p.point.x.assign(x.data(), x.data() + m);
    p.point.own = own;
    if (before) {
        if (static_cast<std::size_t>(before->first.size()) != m || static_cast<std::size_t>(before->second.size()) != m)
            throw std::invalid_argument("internal: a record's sides must hold m values");
        p.before = pld::PointRecord{0.0,
                                    {before->first.data(), before->first.data() + m},
                                    {before->second.data(), before->second.data() + m},
                                    {}};
    }
    return p;
}

py::array_t<double> array_of(const std::vector<double>& v) {
    py::array_t<double> out(static_cast<py::ssize_t>(v.size()));
    std::copy(v.begin(), v.end(), out.mutable_data());
    return out;
}

// The package's add_direction(rest) as the core's add_items: each point's (upper terms, lower terms) as items of the
// pool, under the GIL (the step calls it without).
auto add_items_of(const py::function& add_direction, FactorPool& pool) {
    return [&add_direction, &pool](const std::vector<std::size_t>& rest) {
        py::gil_scoped_acquire gil;
        std::vector<pld::AddItems> out;
        for (const py::handle sides : add_direction(rest)) {
            const py::tuple pair = py::reinterpret_borrow<py::tuple>(sides);
            out.push_back({pool.item(pair[0]), pool.item(pair[1])});
        }
        return out;
    };
}

// The step's composition: register_pld_compose.cpp's on scipy.fft's workers, with the direct bins asked.
pld::ComposeOptions step_options(bool direct_bins, double direct_min_charge) {
    pld::ComposeOptions options;
    options.direct_bins = direct_bins;
    options.direct_min_charge = direct_min_charge;
    return options;
}

// A step point's window tail, remove direction (upper terms, lower terms) and screen's upper terms, as items of the
// pool (ScreenedPoint's and EpsilonStepPoint's fields).
template <class Point>
void read_directions(Point& p, double window, const py::handle& remove, const py::handle& screen, FactorPool& pool) {
    p.window = window;
    const py::tuple sides = py::reinterpret_borrow<py::tuple>(remove);
    p.remove_upper = pool.item(sides[0]);
    p.remove_lower = pool.item(sides[1]);
    p.screen_upper = pool.item(screen);
}

// run() without the GIL, a composition's refusal raised as the facade's compose_many raises it.
template <class Run>
auto without_gil(Run run) {
    try {
        py::gil_scoped_release release;
        return run();
    } catch (const std::length_error& e) { hb::raise_composition_refusal(e); } catch (const std::invalid_argument& e) {
        hb::raise_composition_refusal(e);
    }
}

// _core.pld_refine.screened_delta_step (its docstring).
py::list screened_delta_step(const pld::PointsRules& rules, const std::vector<input_array>& xs,
                             const std::vector<std::int64_t>& own,
                             const std::vector<std::optional<std::pair<input_array, input_array>>>& before,
                             const std::vector<double>& windows, const py::sequence& removes,
                             const py::sequence& screens, const py::function& add_direction, double floor,
                             double settled, bool direct_bins, double direct_min_charge, py::object workers,
                             std::int64_t max_points) {
    const std::size_t n = xs.size();
    if (own.size() != n || before.size() != n || windows.size() != n || py::len(removes) != n || py::len(screens) != n)
        throw std::invalid_argument("internal: xs, own, before, windows, removes and screens: one entry a point");
    FactorPool pool;
    std::vector<pld::ScreenedPoint> points(n);
    for (std::size_t i = 0; i < n; ++i) {
        points[i] = screened_point(xs[i], own[i], before[i]);
        read_directions(points[i], windows[i], removes[i], screens[i], pool);
    }
    const hb::PocketfftComposition compose(std::move(workers), step_options(direct_bins, direct_min_charge), true,
                                           max_points);
    auto add_items = add_items_of(add_direction, pool);
    const std::vector<pld::ScreenedBracket> found = without_gil(
        [&] { return pld::screened_step(rules, points, pool.factors, floor, settled, compose, add_items); });
    py::list out;
    for (const pld::ScreenedBracket& s : found) {
        const pld::StepBracket& b = s.bracket;
        const auto m = static_cast<py::ssize_t>(b.lower.size());
        py::array_t<double> fixed(std::vector<py::ssize_t>{2, m});
        std::copy(b.fixed.begin(), b.fixed.end(), fixed.mutable_data());
        const py::object add = b.add.empty() ? py::object(py::none()) : py::object(array_of(b.add));
        out.append(py::make_tuple(array_of(b.lower), array_of(b.upper), fixed, add,
                                  py::make_tuple(s.decisions.cleared, s.decisions.settled, s.decisions.add_lower)));
    }
    return out;
}

// _core.pld_refine.screened_epsilon_step (its docstring).
py::list screened_epsilon_step(const std::vector<input_array>& deltas, const std::vector<double>& windows,
                               const py::sequence& removes, const py::sequence& screens,
                               const py::function& add_direction, bool direct_bins, double direct_min_charge,
                               py::object workers, std::int64_t max_points) {
    const std::size_t n = deltas.size();
    if (windows.size() != n || py::len(removes) != n || py::len(screens) != n)
        throw std::invalid_argument("internal: deltas, windows, removes and screens: one entry a point");
    FactorPool pool;
    std::vector<pld::EpsilonStepPoint> points(n);
    for (std::size_t i = 0; i < n; ++i) {
        const input_array& d = deltas[i];
        if (d.ndim() != 1) throw std::invalid_argument("internal: a point's deltas must be one-dimensional");
        for (py::ssize_t j = 0; j < d.size(); ++j)
            if (std::isnan(d.data()[j])) throw py::value_error("delta must not be NaN");
        points[i].delta.assign(d.data(), d.data() + d.size());
        read_directions(points[i], windows[i], removes[i], screens[i], pool);
    }
    const hb::PocketfftComposition compose(std::move(workers), step_options(direct_bins, direct_min_charge), true,
                                           max_points);
    auto add_items = add_items_of(add_direction, pool);
    const std::vector<pld::EpsilonStepBracket> found =
        without_gil([&] { return pld::screened_epsilon_step(points, pool.factors, compose, add_items); });
    py::list out;
    for (const pld::EpsilonStepBracket& b : found)
        out.append(py::make_tuple(array_of(b.lower), array_of(b.upper), array_of(b.add)));
    return out;
}

// The run of a step read refused as the package refuses it: 0 < sampling_rate < 1, rounds >= 1, 0 < delta < 1.
void check_step_run(double sampling_rate, std::int64_t rounds, double delta) {
    if (!(sampling_rate > 0.0 && sampling_rate < 1.0))
        throw py::value_error("sampling_rate must lie strictly between 0 and 1, got " + hb::listed(sampling_rate));
    if (rounds < 1) throw py::value_error("rounds must be at least 1, got " + std::to_string(rounds));
    if (!(delta > 0.0 && delta < 1.0))
        throw py::value_error("delta must lie strictly between 0 and 1, got " + hb::listed(delta));
}

// _core.pld_refine.subsampled_gaussian_step (its docstring), its refusals step_refusal.hpp's.
py::tuple subsampled_gaussian_step(double sigma, double sampling_rate, std::int64_t rounds, double delta,
                                   double interval, double accuracy, double tail, bool direct_bins,
                                   double direct_min_charge, std::int64_t max_cells, py::object workers,
                                   std::int64_t max_points) {
    check_step_run(sampling_rate, rounds, delta);
    const pld::SubsampledGaussianStep step{sigma, sampling_rate, rounds, delta, interval, accuracy, tail};
    const hb::PocketfftComposition compose(std::move(workers), step_options(direct_bins, direct_min_charge), true,
                                           max_points);
    const pld::EpsilonStepRead r = hb::refusing_steps(sigma, sampling_rate, [&] {
        py::gil_scoped_release release;
        return pld::subsampled_gaussian_step(step, max_cells, compose);
    });
    return py::make_tuple(r.lower, r.upper, r.add);
}

// _core.pld_refine.refined_subsampled_gaussian_epsilon (its docstring), its refusals step_refusal.hpp's.
py::tuple refined_subsampled_gaussian_epsilon(double sigma, double sampling_rate, std::int64_t rounds,
                                              double sensitivity, double delta, double accuracy, double tail,
                                              double coarsest_fit, std::optional<double> charge,
                                              const pld::GridPolicy& policy, const pld::NextGridTuning& tuning,
                                              std::int64_t max_cells, const py::object& workers,
                                              std::int64_t max_points, double relative_accuracy) {
    check_step_run(sampling_rate, rounds, delta);
    const pld::SubsampledGaussianStep step{sigma / sensitivity, sampling_rate, rounds, delta, 0.0, accuracy, tail};
    auto read = [&](double h, const pld::StepBins& b) {
        return hb::step_read_without_gil(step, h, b, workers, max_cells, max_points);
    };
    const pld::StepsRefined r = hb::refusing_steps(sigma / sensitivity, sampling_rate, [&] {
        py::gil_scoped_release release;
        return pld::steps_refinement(sigma, sampling_rate, static_cast<double>(rounds), sensitivity, delta, accuracy,
                                     coarsest_fit, charge, read, policy, {tuning}, relative_accuracy);
    });
    return py::make_tuple(r.bracket.lower, r.bracket.upper, r.gave_up, py::tuple(py::cast(r.grids)));
}

// _core.pld_refine.refined_subsampled_gaussian_delta (its docstring), its refusals step_refusal.hpp's.
py::tuple refined_subsampled_gaussian_delta(double sigma, double sampling_rate, std::int64_t rounds, double sensitivity,
                                            double epsilon, const pld::PointsRules& rules, double tail,
                                            double coarsest_fit, std::int64_t max_cells, const py::object& workers,
                                            std::int64_t max_points) {
    check_step_run(sampling_rate, rounds, 0.5);
    if (std::isnan(epsilon)) throw py::value_error("epsilon must not be NaN");
    const pld::SubsampledGaussianDeltaStep step{sigma / sensitivity, sampling_rate, rounds, epsilon, 0.0, tail};
    auto read = [&](double h, const pld::StepBins& b, const std::optional<std::pair<double, double>>& before) {
        return hb::delta_step_read_without_gil(step, rules, h, b, before, workers, max_cells, max_points);
    };
    const pld::StepsRefined r = hb::refusing_steps(sigma / sensitivity, sampling_rate, [&] {
        py::gil_scoped_release release;
        return pld::delta_steps_refinement(sigma, sampling_rate, static_cast<double>(rounds), sensitivity,
                                           rules.accuracy, coarsest_fit, read, rules.delta_floor, rules.policy,
                                           {rules.tuning});
    });
    return py::make_tuple(r.bracket.lower, r.bracket.upper, r.gave_up, r.bracket.interval,
                          py::tuple(py::cast(r.grids)));
}

}  // namespace

void register_pld_screened_step(py::module_ m) {
    m.def("screened_delta_step", &screened_delta_step, py::kw_only(), py::arg("rules"), py::arg("xs"), py::arg("own"),
          py::arg("before"), py::arg("windows"), py::arg("removes"), py::arg("screens"), py::arg("add_direction"),
          py::arg("floor"), py::arg("settled"), py::arg("direct_bins"), py::arg("direct_min_charge"),
          py::arg("workers"), py::arg("max_points"),
          "A .delta step's brackets under the epsilon rule, the add direction screened on a coarse grid "
          "(pld/refine/screened_step.hpp), without the GIL: per point its arguments xs[i] (own[i] of them its own), "
          "its record before[i] ((lower, upper) or None), its windows' tail windows[i], its remove direction's "
          "(upper terms, lower terms) and its screen's upper terms, each a list of (GridPMF, count); "
          "add_direction(rest) gives the add direction's (upper terms, lower terms) of each point of rest (indices, "
          "those whose screen did not clear).  Each point's (lower, upper, fixed (2, m), the add direction's upper "
          "side or None, (cleared, settled, add_lower)).");
    m.def("subsampled_gaussian_step", &subsampled_gaussian_step, py::kw_only(), py::arg("sigma"),
          py::arg("sampling_rate"), py::arg("rounds"), py::arg("delta"), py::arg("interval"), py::arg("accuracy"),
          py::arg("tail"), py::arg("direct_bins"), py::arg("direct_min_charge"), py::arg("max_cells"),
          py::arg("workers"), py::arg("max_points"),
          "One grid's read of the epsilon refinement of `rounds` rounds of the Poisson-subsampled Gaussian (sigma per "
          "unit sensitivity) at delta (pld/refine/subsampled_gaussian_step.hpp), without the GIL: the one-round PMFs "
          "discretized on `interval` (the add direction's screen step_screen_coarsening times coarser) and the "
          "screened epsilon step over them.  Returns (lower, upper, the add direction's certified upper side); a "
          "ValueError where a round "
          "cannot be discretized or a window passes max_points.");
    m.def("refined_subsampled_gaussian_epsilon", &refined_subsampled_gaussian_epsilon, py::kw_only(), py::arg("sigma"),
          py::arg("sampling_rate"), py::arg("rounds"), py::arg("sensitivity"), py::arg("delta"), py::arg("accuracy"),
          py::arg("tail"), py::arg("coarsest_fit"), py::arg("charge"), py::arg("policy"), py::arg("tuning"),
          py::arg("max_cells"), py::arg("workers"), py::arg("max_points"), py::arg("relative_accuracy") = 0.0,
          "The epsilon of `rounds` rounds of the Poisson-subsampled Gaussian (noise sigma, the sensitivity) at delta "
          "refined to `accuracy`, or to max(accuracy, relative_accuracy eps) where relative_accuracy > 0 "
          "(pld/refine/steps_refinement.hpp), without the GIL: the core's loop from the epsilon "
          "start, each grid read by subsampled_gaussian_step at `tail` within max_cells cells and max_points points, "
          "with the direct bins after the first grid, and on the first from `charge` where given; stopped at a grid "
          "finer than coarsest_fit or whose window passes max_points.  Returns (lower, upper, whether a limit "
          "stopped it, the grids read in order), the bracket certified; a ValueError where a round cannot be "
          "discretized.");
    m.def("refined_subsampled_gaussian_delta", &refined_subsampled_gaussian_delta, py::kw_only(), py::arg("sigma"),
          py::arg("sampling_rate"), py::arg("rounds"), py::arg("sensitivity"), py::arg("epsilon"), py::arg("rules"),
          py::arg("tail"), py::arg("coarsest_fit"), py::arg("max_cells"), py::arg("workers"), py::arg("max_points"),
          "The delta of `rounds` rounds of the Poisson-subsampled Gaussian (noise sigma, the sensitivity) at one "
          "epsilon refined to the relative accuracy of `rules` (a relative .delta rule's PointsRules: its accuracy, "
          "delta floor, policy and tuning; pld/refine/steps_refinement.hpp), without the GIL: the core's loop from "
          "the delta start, each grid read by the delta step read (pld/refine/subsampled_gaussian_step.hpp) at `tail` "
          "within max_cells cells and max_points points, with the direct bins after the first grid; stopped at a grid "
          "after the first finer than coarsest_fit or whose window passes max_points.  Returns (lower, upper, whether "
          "a limit stopped it, the last grid read, the grids read in order), the bracket certified; a ValueError "
          "where a round cannot be discretized or the first grid's window passes max_points.");
    m.attr("step_screen_coarsening") = pld::kStepScreenCoarsening;
    m.def(
        "screened_epsilon_step", &screened_epsilon_step, py::kw_only(), py::arg("deltas"), py::arg("windows"),
        py::arg("removes"), py::arg("screens"), py::arg("add_direction"), py::arg("direct_bins"),
        py::arg("direct_min_charge"), py::arg("workers"), py::arg("max_points"),
        "An .epsilon step's brackets, the add direction screened on a coarse grid "
        "(pld/refine/screened_epsilon_step.hpp), without the GIL: per point its deltas deltas[i], its windows' tail "
        "windows[i], its remove direction's (upper terms, lower terms) and its screen's upper terms, each a list of "
        "(GridPMF, count); add_direction(rest) gives the add direction's (upper terms, lower terms) of each point of "
        "rest (indices, those whose screen did not clear).  Each point's (lower, upper, the add direction's certified "
        "upper side), epsilon at least 0.");
}
