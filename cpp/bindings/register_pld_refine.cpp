// The refinement's grid-and-tail policy (pld/refine/grid_policy.hpp: the start grid, the ladder, the memory cap on a
// grid, the question tail), its next-grid rules (pld/refine/next_grid.hpp) and the loops of one point's epsilon and
// delta refinements (pld/refine/epsilon_refinement.hpp, delta_refinement.hpp), their brackets from a Python callable,
// and the refinement loop itself (pld/refine/refinement_loop.hpp) over a Python front end's methods; the many-points
// refinement (pld/refine/points_front.hpp: its per-step rules in the core, the interpreter lock taken only for the
// package's reads of each step's brackets), the direct-bins rule (pld/refine/direct_bins.hpp) and the truncations'
// tails of an accuracy= bracket (pld/refine/refinement_tails.hpp, python/hockeystick/pld/refine/truncation.py's).
// python/hockeystick/pld/refine/grid_start.py and pld/refine/grid_rules.py call the policy and the rules with their
// constants at call time (a GridPolicy, a NextGridTuning), so a test that patches a constant is followed.  Where the
// refinements' windows get their memory (pld/refine/window_heap.hpp: python pld/refine/malloc_thresholds.py and
// pld/question/window_heap.py are its front ends).  The default chain's RDP side (pld/refine/rdp_cap.hpp), which
// python pld/refine/question.py's rdp_upper reads as the C library's epsilon call does.
#include <hockeystick/pld/refine/delta_refinement.hpp>
#include <hockeystick/pld/refine/direct_bins.hpp>
#include <hockeystick/pld/refine/direction_screen.hpp>
#include <hockeystick/pld/refine/epsilon_refinement.hpp>
#include <hockeystick/pld/refine/fine_epsilon.hpp>
#include <hockeystick/pld/refine/fixed_grid.hpp>
#include <hockeystick/pld/refine/grid_policy.hpp>
#include <hockeystick/pld/refine/next_grid.hpp>
#include <hockeystick/pld/refine/plan_grid.hpp>
#include <hockeystick/pld/refine/points_front.hpp>
#include <hockeystick/pld/refine/rdp_cap.hpp>
#include <hockeystick/pld/refine/refinement_loop.hpp>
#include <hockeystick/pld/refine/refinement_tails.hpp>
#include <hockeystick/pld/refine/step_sides.hpp>
#include <hockeystick/pld/refine/window_heap.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "side_read.hpp"

namespace py = pybind11;
namespace pld = hockeystick::pld;
using input_array = py::array_t<double, py::array::c_style | py::array::forcecast>;
using mask_array = py::array_t<bool, py::array::c_style | py::array::forcecast>;

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
    m.def(
        "plain_grid_misses",
        [](double q, double rounds, const input_array& delta, double tail, double h) {
            py::array_t<bool> out(std::vector<py::ssize_t>(delta.shape(), delta.shape() + delta.ndim()));
            bool* miss = out.mutable_data();
            for (py::ssize_t i = 0; i < delta.size(); ++i)
                miss[i] = pld::plain_grid_misses(q, rounds, delta.data()[i], tail, h);
            return out;
        },
        py::kw_only(), py::arg("q"), py::arg("rounds"), py::arg("delta"), py::arg("tail"), py::arg("h"),
        "Where the plain composition on grid h cannot answer at the scale of each delta, however fine h is "
        "(pld/refine/fixed_grid.hpp).");
    m.def(
        "fixed_grid_fits",
        [](double sigma, double q, double rounds, double sensitivity, const input_array& delta, double tail, double h,
           const pld::GridPolicy& policy) {
            return pld::fixed_grid_fits(sigma, q, rounds, sensitivity, delta.data(),
                                        static_cast<std::int64_t>(delta.size()), tail, h, policy);
        },
        py::kw_only(), py::arg("sigma"), py::arg("q"), py::arg("rounds"), py::arg("sensitivity"), py::arg("delta"),
        py::arg("tail"), py::arg("h"), py::arg("policy"),
        "Whether the default's fixed grid h is read first for the deltas asked (pld/refine/fixed_grid.hpp).");
    m.def("round_tail_span", &pld::round_tail_span, py::arg("sigma"), py::arg("sampling_rate"), py::kw_only(),
          py::arg("sensitivity"), py::arg("tail"),
          "One round's loss span in the remove direction up to where its discretization cuts `tail` of the mass "
          "(pld/refine/grid_policy.hpp's coarsest_fit); 0 where not finite.");
}

// The arguments' count, refusing an array of another length.
std::int64_t arguments(const input_array& width, std::initializer_list<std::pair<const char*, py::ssize_t>> others) {
    for (const auto& other : others)
        if (other.second != width.size())
            throw std::invalid_argument(std::string(other.first) + " must have width's length " +
                                        std::to_string(width.size()) + ", got " + std::to_string(other.second));
    return static_cast<std::int64_t>(width.size());
}

// A rule's grid: 0 (none) is None (a NaN, from an infinite width fitted, stays NaN, as the Python formula gives it).
std::optional<double> asked(double h) { return h == 0.0 ? std::nullopt : std::optional<double>(h); }

// The default chain's RDP side (pld/refine/rdp_cap.hpp): its orders, one round's curve and the conversion.
void register_rdp_cap(py::module_ m) {
    m.attr("rdp_cap_margin") = pld::kRdpCapMargin;
    m.def(
        "rdp_cap_orders",
        [] {
            std::vector<double> orders(pld::kRdpCapOrders.begin(), pld::kRdpCapOrders.end());
            const auto& fractional = pld::rdp_cap_fractional_orders();
            orders.insert(orders.end(), fractional.begin(), fractional.end());
            return orders;
        },
        "The orders the RDP side reads: dp_accounting's default orders' integers, then their fractional ones "
        "(pld/refine/rdp_cap.hpp).");
    m.def(
        "subsampled_gaussian_rdp_curve",
        [](double sigma, double sampling_rate, double order) {
            if (!(sigma > 0.0 && std::isfinite(sigma)) || !(sampling_rate > 0.0 && sampling_rate <= 1.0))
                throw py::value_error("sigma must be finite and > 0 and sampling_rate in (0, 1]");
            if (order == std::floor(order))
                return pld::subsampled_gaussian_rdp_upper(sigma, sampling_rate, static_cast<int>(order));
            return pld::subsampled_gaussian_fractional_rdp_upper(sigma, sampling_rate, order);
        },
        py::arg("sigma"), py::arg("sampling_rate"), py::kw_only(), py::arg("order"),
        "One round's certified upper RDP curve of the Poisson-subsampled Gaussian at an order of rdp_cap_orders "
        "(pld/refine/rdp_cap.hpp): inf where the series leaves the order out. Raises ValueError for an order outside "
        "them.");
    m.def(
        "subsampled_gaussian_rdp_epsilon",
        [](double sigma, double sampling_rate, double rounds, const input_array& delta) {
            if (!(sigma > 0.0 && std::isfinite(sigma)) || !(sampling_rate > 0.0 && sampling_rate <= 1.0) ||
                !(rounds >= 1.0 && std::isfinite(rounds)))
                throw py::value_error(
                    "the RDP side needs sigma finite and > 0, sampling_rate in (0, 1] and rounds finite and >= 1");
            py::array_t<double> out(std::vector<py::ssize_t>(delta.shape(), delta.shape() + delta.ndim()));
            double* eps = out.mutable_data();
            for (py::ssize_t i = 0; i < delta.size(); ++i) {
                const double d = delta.data()[i];
                if (!(d > 0.0 && d < 1.0)) throw py::value_error("delta must lie strictly between 0 and 1");
                eps[i] = pld::subsampled_gaussian_rdp_epsilon(sigma, sampling_rate, rounds, d);
            }
            return out;
        },
        py::kw_only(), py::arg("sigma"), py::arg("sampling_rate"), py::arg("rounds"), py::arg("delta"),
        "The RDP conversion's certified upper epsilon of rounds rounds at each delta (pld/refine/rdp_cap.hpp, the "
        "default chain's RDP side in both doors); inf where no order certifies delta.");
}

void register_next_grid(py::module_ m) {
    const pld::NextGridTuning kDefaults;
    py::class_<pld::NextGridTuning>(m, "NextGridTuning", "The next-grid rules' tuning constants (refine/tuning.py).")
        .def(py::init([](double stalled, double slowest_power, double slow_reach, double cap_left_within_tolerances) {
                 return pld::NextGridTuning{stalled, slowest_power, slow_reach, cap_left_within_tolerances};
             }),
             py::kw_only(), py::arg("stalled") = kDefaults.stalled, py::arg("slowest_power") = kDefaults.slowest_power,
             py::arg("slow_reach") = kDefaults.slow_reach,
             py::arg("cap_left_within_tolerances") = kDefaults.cap_left_within_tolerances)
        .def_readonly("stalled", &pld::NextGridTuning::stalled)
        .def_readonly("slowest_power", &pld::NextGridTuning::slowest_power)
        .def_readonly("slow_reach", &pld::NextGridTuning::slow_reach)
        .def_readonly("cap_left_within_tolerances", &pld::NextGridTuning::cap_left_within_tolerances);
    m.def(
        "first_step",
        [](double h, const input_array& width, const mask_array& scaling, std::optional<double> capped_h,
           bool recompose, double finest, double accuracy, const pld::GridPolicy* ladder) {
            const std::int64_t n = arguments(width, {{"scaling", scaling.size()}});
            return asked(pld::first_step(h, width.data(), scaling.data(), n, capped_h.value_or(0.0), recompose, finest,
                                         accuracy, ladder));
        },
        py::kw_only(), py::arg("h"), py::arg("width"), py::arg("scaling"), py::arg("capped_h"), py::arg("recompose"),
        py::arg("finest"), py::arg("accuracy"), py::arg("ladder"));
    m.def(
        "fitted_step",
        [](double h, double h0, const input_array& width, const input_array& width0, const mask_array& wide,
           double finest, double accuracy, const pld::NextGridTuning& tuning, const pld::GridPolicy* ladder) {
            const std::int64_t n = arguments(width, {{"width0", width0.size()}, {"wide", wide.size()}});
            return asked(
                pld::fitted_step(h, h0, width.data(), width0.data(), wide.data(), n, finest, accuracy, tuning, ladder));
        },
        py::kw_only(), py::arg("h"), py::arg("h0"), py::arg("width"), py::arg("width0"), py::arg("wide"),
        py::arg("finest"), py::arg("accuracy"), py::arg("tuning"), py::arg("ladder"));
    m.def(
        "power_step",
        [](double h, double h0, const input_array& width, const input_array& width0, const input_array& alone,
           const mask_array& wide, const mask_array& was_capped, bool near_rate, double finest, double accuracy,
           const pld::NextGridTuning& tuning, const pld::GridPolicy* ladder) {
            const std::int64_t n = arguments(width, {{"width0", width0.size()},
                                                     {"alone", alone.size()},
                                                     {"wide", wide.size()},
                                                     {"was_capped", was_capped.size()}});
            return asked(pld::power_step(h, h0, width.data(), width0.data(), alone.data(), wide.data(),
                                         was_capped.data(), n, near_rate, finest, accuracy, tuning, ladder));
        },
        py::kw_only(), py::arg("h"), py::arg("h0"), py::arg("width"), py::arg("width0"), py::arg("alone"),
        py::arg("wide"), py::arg("was_capped"), py::arg("near_rate"), py::arg("finest"), py::arg("accuracy"),
        py::arg("tuning"), py::arg("ladder"));
    m.def(
        "charged_step",
        [](double h, double h0, const input_array& width, const input_array& width0, const input_array& alone,
           const input_array& cap, const mask_array& wide, const mask_array& charged, double q, double finest,
           double accuracy, const pld::NextGridTuning& tuning, const pld::GridPolicy* ladder) {
            const std::int64_t n = arguments(width, {{"width0", width0.size()},
                                                     {"alone", alone.size()},
                                                     {"cap", cap.size()},
                                                     {"wide", wide.size()},
                                                     {"charged", charged.size()}});
            return asked(pld::charged_step(h, h0, width.data(), width0.data(), alone.data(), cap.data(), wide.data(),
                                           charged.data(), n, q, finest, accuracy, tuning, ladder));
        },
        py::kw_only(), py::arg("h"), py::arg("h0"), py::arg("width"), py::arg("width0"), py::arg("alone"),
        py::arg("cap"), py::arg("wide"), py::arg("charged"), py::arg("q"), py::arg("finest"), py::arg("accuracy"),
        py::arg("tuning"), py::arg("ladder"));
    m.def(
        "plan_next_grid",
        [](double h, double width, std::optional<std::pair<double, double>> before, double points, double target,
           double finest, double max_points, double probe_shrink, double probe_points,
           const pld::NextGridTuning& tuning,
           const pld::GridPolicy& policy) -> std::optional<std::pair<double, double>> {
            const pld::PlanGridRules rules{target, finest, max_points, probe_shrink, probe_points, tuning, policy};
            const pld::PlanBefore record{before ? before->first : 0.0, before ? before->second : 0.0};
            const pld::PlanGrid next = pld::plan_next_grid(rules, h, width, before ? &record : nullptr, points);
            if (next.grid == 0.0) return std::nullopt;
            return std::make_pair(next.grid, next.floor);
        },
        py::kw_only(), py::arg("h"), py::arg("width"), py::arg("before"), py::arg("points"), py::arg("target"),
        py::arg("finest"), py::arg("max_points"), py::arg("probe_shrink"), py::arg("probe_points"), py::arg("tuning"),
        py::arg("policy"),
        "A composition plan's next grid after grid h (pld/refine/plan_grid.hpp): its bracket `width` wide, `before` "
        "the grid before (its interval, its width) or None, `points` the composed grid's largest PMF's length. "
        "Returns (the grid asked before alignment, the budget's floor), or None: the bracket stands.");
}

// A Python front end (python/hockeystick/pld/refine/controller.py's FrontEnd) as the refinement loop's
// (pld/refine/refinement_loop.hpp): a step is the front end's tuple (point, h, lower, upper, what its rules read), a
// record and a width whatever its methods return; the records of the grids before are handed to its brackets as a
// dict of the point's index (each point appears once in a step, so a record read there is the grid before's).
struct PythonFront {
    struct Step {
        std::int64_t i;
        py::tuple step;
    };
    using Record = py::object;
    py::object front;

    std::map<std::int64_t, double> first() const {
        return front.attr("first")().cast<std::map<std::int64_t, double>>();
    }
    template <class Visit>
    void brackets(const std::map<std::int64_t, double>& grids, const std::map<std::int64_t, Record>& best,
                  Visit&& visit) const {
        py::dict records;
        for (const auto& [i, record] : best) records[py::int_(i)] = record;
        for (py::handle item : front.attr("brackets")(grids, records)) {
            py::tuple step = py::reinterpret_borrow<py::tuple>(item);
            visit(Step{step[0].cast<std::int64_t>(), step});
        }
    }
    static std::int64_t point(const Step& s) { return s.i; }
    void intersect(Step& s, const Record& before) const {
        const py::tuple sides = front.attr("intersect")(s.step[2], s.step[3], before);
        s.step = py::make_tuple(s.step[0], s.step[1], sides[0], sides[1], s.step[4]);
    }
    py::object width(const Step& s) const { return front.attr("width")(s.step[0], s.step[2], s.step[3]); }
    double next_grid(const Step& s, const py::object& width, const Record* before) const {
        const py::object next = front.attr("next_grid")(s.step, width, before != nullptr ? *before : py::none());
        return next.is_none() ? 0.0 : next.cast<double>();
    }
    Record record(const Step& s, const py::object& width) const {
        return front.attr("record")(s.step[1], s.step[2], s.step[3], width);
    }
    void done(const Step& s) const { front.attr("done")(s.step[0], s.step[2], s.step[3]); }
};

// A Python callable's bracket on grid h.
struct PythonBracket {
    const py::function& bracket_at;
    std::pair<double, double> operator()(double h) const { return bracket_at(h).cast<std::pair<double, double>>(); }
};

// A step's arrays as the points rules' binding reads and writes them.
struct StepArrays {
    static std::vector<double> values(const py::handle& array, std::size_t size, const char* what) {
        const input_array a = py::cast<input_array>(array);
        if (static_cast<std::size_t>(a.size()) != size)
            throw std::invalid_argument(std::string("internal: a step's ") + what + " must have " +
                                        std::to_string(size) + " entries, got " + std::to_string(a.size()));
        return std::vector<double>(a.data(), a.data() + a.size());
    }

    static py::array_t<double> array(const std::vector<double>& v) {
        return py::array_t<double>(static_cast<py::ssize_t>(v.size()), v.data());
    }
};

pld::PointsWidth points_width_kind(const std::string& method, const std::string& delta_accuracy) {
    if (method == "epsilon") return pld::PointsWidth::epsilon;
    if (method != "delta") throw std::invalid_argument("internal: method must be 'epsilon' or 'delta', got " + method);
    if (delta_accuracy == "relative") return pld::PointsWidth::relative_delta;
    if (delta_accuracy == "epsilon") return pld::PointsWidth::epsilon_delta;
    throw std::invalid_argument("internal: delta_accuracy must be 'relative' or 'epsilon', got " + delta_accuracy);
}

// A point (sigma, q, rounds, sensitivity) with its arguments x, `own` of them its own, and its coarsest fit.
pld::RefinedPoint refined_point(const std::array<double, 4>& point, const input_array& x, std::int64_t own,
                                double coarsest_fit) {
    const std::size_t size = static_cast<std::size_t>(x.size());
    if (own <= 0 || size % static_cast<std::size_t>(own) != 0)
        throw std::invalid_argument("internal: a point's arguments must be a multiple of its own");
    pld::RefinedPoint p;
    p.sigma = point[0];
    p.q = point[1];
    p.rounds = point[2];
    p.sensitivity = point[3];
    p.x.assign(x.data(), x.data() + size);
    p.own = own;
    p.coarsest_fit = coarsest_fit;
    return p;
}

// _core.pld_refine.points_step (its docstring).
py::tuple one_points_step(const pld::PointsRules& rules, const std::array<double, 4>& point, const input_array& x,
                          std::int64_t own, double coarsest_fit, double h, const input_array& lower,
                          const input_array& upper, const std::optional<input_array>& fixed,
                          const std::optional<mask_array>& near, bool direct, bool stop,
                          const std::optional<py::tuple>& before) {
    const pld::RefinedPoint p = refined_point(point, x, own, coarsest_fit);
    const std::size_t size = p.x.size();
    pld::PointStep s;
    s.h = h;
    s.lower = StepArrays::values(lower, size, "lower side");
    s.upper = StepArrays::values(upper, size, "upper side");
    if (fixed) s.fixed = StepArrays::values(*fixed, 2 * size, "fixed part");
    if (near) s.near.assign(near->data(), near->data() + std::min<std::size_t>(size, near->size()));
    s.direct = direct;
    s.stop = stop;
    std::optional<pld::PointRecord> record;
    if (before) {
        const py::tuple& b = *before;
        const std::vector<double> width0 = StepArrays::values(
            b[3], rules.kind == pld::PointsWidth::epsilon_delta ? static_cast<std::size_t>(own) : size,
            "record's width");
        record = pld::PointRecord{b[0].cast<double>(), StepArrays::values(b[1], size, "record's lower"),
                                  StepArrays::values(b[2], size, "record's upper"), width0};
        pld::intersect_record(s, *record);
    }
    const std::vector<double> width = pld::points_width(rules, p, s.lower, s.upper);
    const pld::PointNext next = pld::points_next_grid(rules, p, s, width, record ? &*record : nullptr);
    const std::optional<double> grid =
        next.grid > 0.0 || std::isnan(next.grid) ? std::optional<double>(next.grid) : std::nullopt;
    return py::make_tuple(StepArrays::array(s.lower), StepArrays::array(s.upper), StepArrays::array(width), grid,
                          next.gave_up, next.complement_only);
}

// A point's record of its earlier grids as a step's bracket reads it: (lower, upper), m values each; none before its
// first grid.
std::optional<pld::PointRecord> step_record(const std::optional<std::pair<input_array, input_array>>& before,
                                            std::size_t m) {
    if (!before) return std::nullopt;
    return pld::PointRecord{0.0,
                            StepArrays::values(before->first, m, "record's lower"),
                            StepArrays::values(before->second, m, "record's upper"),
                            {}};
}

// One side of each of a point's reads (pld/refine/step_sides.hpp's StepSide): each PMF's fields (its masses kept in
// `masses`), its values at the point's m arguments (kept in `kept`) and, on the pessimistic side, its finite mass.
std::vector<pld::StepSide> step_sides_of(const py::sequence& pmfs, const py::sequence& values, std::size_t m,
                                         std::vector<input_array>& masses, std::vector<input_array>& kept,
                                         const char* side) {
    if (py::len(pmfs) != py::len(values))
        throw std::invalid_argument(std::string("internal: one array of values per ") + side + " PMF");
    std::vector<pld::StepSide> sides;
    for (std::size_t d = 0; d < py::len(pmfs); ++d) {
        pld::StepSide s;
        s.read = hockeystick_bindings::side_read_of(pmfs[d], masses);
        kept.push_back(py::reinterpret_borrow<py::object>(values[d]).cast<input_array>());
        if (static_cast<std::size_t>(kept.back().size()) != m)
            throw std::invalid_argument(std::string("internal: each ") + side + " read must hold m values");
        s.values = kept.back().data();
        // read on the pessimistic side alone, the one whose model takes it (fixed_part.hpp)
        s.finite_mass = s.read.pessimistic ? pmfs[d].attr("finite_mass").cast<double>() : 0.0;
        sides.push_back(s);
    }
    return sides;
}

// _core.pld_refine.delta_step_sides (its docstring): the PMFs' fields and the arrays read with the interpreter lock,
// every point's bracket (pld/refine/step_sides.hpp) computed without it.
py::list delta_step_sides(const pld::PointsRules& rules, const std::vector<input_array>& xs,
                          const std::vector<std::int64_t>& own, const std::vector<py::sequence>& uppers,
                          const std::vector<py::sequence>& upper_values, const std::vector<py::sequence>& lowers,
                          const std::vector<py::sequence>& lower_values,
                          const std::vector<std::optional<std::pair<input_array, input_array>>>& before) {
    const std::size_t n = xs.size();
    if (own.size() != n || uppers.size() != n || upper_values.size() != n || lowers.size() != n ||
        lower_values.size() != n || before.size() != n)
        throw std::invalid_argument("internal: xs, own, the sides and before must have one entry a point");
    std::vector<pld::RefinedPoint> points(n);
    std::vector<std::vector<pld::StepSide>> ups(n), lows(n);
    std::vector<input_array> masses, kept;
    std::vector<std::optional<pld::PointRecord>> records(n);
    for (std::size_t i = 0; i < n; ++i) {
        points[i] = refined_point({0.0, 0.0, 0.0, 1.0}, xs[i], own[i], 0.0);
        const std::size_t m = points[i].x.size();
        ups[i] = step_sides_of(uppers[i], upper_values[i], m, masses, kept, "upper");
        lows[i] = step_sides_of(lowers[i], lower_values[i], m, masses, kept, "lower");
        records[i] = step_record(before[i], m);
    }
    std::vector<pld::StepBracket> found(n);
    {
        py::gil_scoped_release release;
        for (std::size_t i = 0; i < n; ++i)
            found[i] = pld::step_sides(rules, points[i], ups[i], lows[i], records[i] ? &*records[i] : nullptr);
    }
    py::list out;
    for (const pld::StepBracket& b : found) {
        const auto m = static_cast<py::ssize_t>(b.lower.size());
        py::array_t<double> fixed(std::vector<py::ssize_t>{2, m});
        std::copy(b.fixed.begin(), b.fixed.end(), fixed.mutable_data());
        py::object add = b.add.empty() ? py::object(py::none()) : py::object(StepArrays::array(b.add));
        out.append(py::make_tuple(StepArrays::array(b.lower), StepArrays::array(b.upper), fixed, add));
    }
    return out;
}

// The values of one read at a point's m arguments, checked against the size of the read it is compared with.
const double* same_size(const input_array& values, py::ssize_t m, const char* what) {
    if (values.size() != m) throw std::invalid_argument(std::string("internal: ") + what + " must hold m values");
    return values.data();
}

// _core.pld_refine.screen_clears (its docstring): one decision a point (pld/refine/direction_screen.hpp).
std::vector<bool> screens_clear(const std::vector<input_array>& bounds,
                                const std::vector<std::optional<input_array>>& lowers, double floor) {
    if (lowers.size() != bounds.size()) throw std::invalid_argument("internal: one lower side (or None) a bound");
    std::vector<bool> out(bounds.size());
    for (std::size_t i = 0; i < bounds.size(); ++i) {
        const py::ssize_t m = bounds[i].size();
        const double* lower = lowers[i] ? same_size(*lowers[i], m, "a lower side") : nullptr;
        out[i] = pld::screen_clears(bounds[i].data(), lower, static_cast<std::size_t>(m), floor);
    }
    return out;
}

// _core.pld_refine.settled_everywhere (its docstring): one decision a point (pld/refine/direction_screen.hpp).
std::vector<bool> settled_points(const std::vector<input_array>& uppers,
                                 const std::optional<std::vector<input_array>>& screens, double settled) {
    if (screens && screens->size() != uppers.size()) throw std::invalid_argument("internal: one screen an upper side");
    std::vector<bool> out(uppers.size());
    for (std::size_t i = 0; i < uppers.size(); ++i) {
        const py::ssize_t m = uppers[i].size();
        const double* screen = screens ? same_size((*screens)[i], m, "a screen") : nullptr;
        out[i] = pld::settled_everywhere(uppers[i].data(), screen, static_cast<std::size_t>(m), settled);
    }
    return out;
}

void register_direction_screen(py::module_ m) {
    m.def("screen_clears", &screens_clear, py::arg("bounds"), py::arg("lowers"), py::kw_only(), py::arg("floor"),
          "Per point, whether the add direction's screen clears it (pld/refine/direction_screen.hpp): its certified "
          "upper side bounds[i] at or below the remove direction's lower side lowers[i], or below floor, at every "
          "argument (-inf: the first test alone); a point whose lower side is None is cleared.");
    m.def("settled_everywhere", &settled_points, py::arg("uppers"), py::arg("screens"), py::kw_only(),
          py::arg("settled"),
          "Per point, whether its upper side, the larger of uppers[i] and screens[i] (screens None: uppers alone), "
          "is below settled at every argument (pld/refine/direction_screen.hpp).");
}

void register_refinement_tails(py::module_ m) {
    m.def(
        "refinement_tails",
        [](double noise, double q, double rounds, double smallest, double tail, double accuracy) {
            const pld::RefinementTails t = pld::refinement_tails(noise, q, rounds, smallest, tail, accuracy);
            return std::make_pair(t.round, t.window);
        },
        py::arg("noise"), py::arg("q"), py::arg("rounds"), py::kw_only(), py::arg("smallest"), py::arg("tail"),
        py::arg("accuracy"),
        "The remove direction's one-round tail and the composed windows' tail of `rounds` rounds of the "
        "Poisson-subsampled Gaussian (sigma / sensitivity `noise`, rate q) where the smallest delta to resolve is "
        "`smallest`, to `accuracy`, at least `tail` (pld/refine/refinement_tails.hpp). Returns (t_round, t_window).");
}

void register_points(py::module_ m) {
    py::class_<pld::PointsRules>(m, "PointsRules",
                                 "The many-points refinement's per-step rules' accuracy and constants "
                                 "(pld/refine/points_rules.hpp).")
        .def(py::init([](const std::string& method, const std::string& delta_accuracy, double accuracy,
                         double relative_accuracy, std::int64_t right_rows, double delta_floor, double delta_ceiling,
                         double near_one, double capped_step, double no_lower_step, double gap_target,
                         double offset_limited, double offset_gap_target, const pld::NextGridTuning& tuning,
                         const pld::GridPolicy& policy) {
                 return pld::PointsRules{points_width_kind(method, delta_accuracy),
                                         accuracy,
                                         relative_accuracy,
                                         right_rows,
                                         delta_floor,
                                         delta_ceiling,
                                         near_one,
                                         capped_step,
                                         no_lower_step,
                                         gap_target,
                                         offset_limited,
                                         offset_gap_target,
                                         tuning,
                                         policy};
             }),
             py::kw_only(), py::arg("method"), py::arg("delta_accuracy"), py::arg("accuracy"),
             py::arg("relative_accuracy"), py::arg("right_rows"), py::arg("delta_floor"), py::arg("delta_ceiling"),
             py::arg("near_one"), py::arg("capped_step"), py::arg("no_lower_step"), py::arg("gap_target"),
             py::arg("offset_limited"), py::arg("offset_gap_target"), py::arg("tuning"), py::arg("policy"))
        .def_readonly("accuracy", &pld::PointsRules::accuracy)
        .def_readonly("relative_accuracy", &pld::PointsRules::relative_accuracy);
    m.def("points_step", &one_points_step, py::kw_only(), py::arg("rules"), py::arg("point"), py::arg("x"),
          py::arg("own"), py::arg("coarsest_fit"), py::arg("h"), py::arg("lower"), py::arg("upper"), py::arg("fixed"),
          py::arg("near"), py::arg("direct"), py::arg("stop"), py::arg("before"),
          "One step of the many-points refinement's rules (pld/refine/points_rules.hpp) on one point: its bracket "
          "intersected with `before` (h, lower, upper, width; None: its first grid), the width, the next grid (None: "
          "done). Returns (lower, upper, width, next grid, whether it gave up, whether the next grid recomposes the "
          "complement alone).");
    m.def("delta_step_sides", &delta_step_sides, py::kw_only(), py::arg("rules"), py::arg("xs"), py::arg("own"),
          py::arg("uppers"), py::arg("upper_values"), py::arg("lowers"), py::arg("lower_values"), py::arg("before"),
          "One step's delta brackets of many points from their composed PMFs (pld/refine/step_sides.hpp): per point, "
          "each direction's pessimistic PMF with its certified upper values at the point's arguments, the optimistic "
          "PMFs that can raise the lower side with their charged lower values (no suffix maxima), and `before` its "
          "record of its grid before (lower, upper) or None. Returns per point (lower, upper, fixed part (2, m), the "
          "add direction's upper side or None), the lower side raised to the suffix maxima where still wide.");
    m.def(
        "direct_bins_charge",
        [](double least_delta, double first_delta, double charge_share, double min_charge) -> std::optional<double> {
            const pld::DirectBinsRule rule{first_delta, charge_share, min_charge};
            if (!pld::direct_first(least_delta, rule)) return std::nullopt;
            return pld::direct_charge(least_delta, rule);
        },
        py::arg("least_delta"), py::kw_only(), py::arg("first_delta"), py::arg("charge_share"), py::arg("min_charge"),
        "The direct-bins rule (pld/refine/direct_bins.hpp): None where an epsilon question at least delta "
        "least_delta composes its first grid without the direct bins, else the charge its rows take them from.");
}

// The windows' heap (pld/refine/window_heap.hpp): the thresholds raised once per process, and the scope whose large
// blocks come from the heap, as a context manager (python pld/question/window_heap.py's heap_windows enters it).
class WindowHeapScope {
  public:
    bool enter() {
        if (!scope_) scope_.emplace();
        return scope_->active();
    }
    void exit() { scope_.reset(); }

  private:
    std::optional<pld::WindowHeap> scope_;
};

void register_window_heap(py::module_ m) {
    m.attr("mmap_threshold_ceiling") = pld::kMmapThresholdCeiling;
    m.attr("trim_threshold_ceiling") = pld::kTrimThresholdCeiling;
    m.attr("window_mmap_threshold") = pld::kWindowMmapThreshold;
    m.attr("window_trim_threshold") = pld::kWindowTrimThreshold;
    m.def("raise_malloc_thresholds", &pld::raise_malloc_thresholds,
          "Sets glibc's mmap and trim thresholds to the ceilings its own adjustment stops at, once per process "
          "(pld/refine/window_heap.hpp); True where both were set, False where nothing was (not glibc, or the "
          "environment tunes malloc).");
    m.def("tunes_malloc", &pld::tunes_malloc, py::arg("key"), py::arg("value"),
          "Whether the environment variable key=value tunes malloc: a MALLOC_ variable, or GLIBC_TUNABLES naming a "
          "glibc.malloc. tunable.");
    m.def(
        "user_tunes_malloc", []() { return pld::user_tunes_malloc(); },
        "Whether this process's environment tunes malloc (False off glibc).");
    py::class_<WindowHeapScope>(m, "WindowHeap",
                                "A scope whose large blocks glibc serves from its heap (pld/refine/window_heap.hpp): "
                                "`with WindowHeap() as active:`, active whether the thresholds are raised for it.")
        .def(py::init<>())
        .def("__enter__", &WindowHeapScope::enter)
        .def("__exit__", [](WindowHeapScope& scope, const py::args&) {
            scope.exit();
            return false;
        });
}

}  // namespace

void register_pld_refine(py::module_ m) {
    register_grid_policy(m);
    register_rdp_cap(m);
    register_next_grid(m);
    register_points(m);
    register_direction_screen(m);
    register_refinement_tails(m);
    register_window_heap(m);
    // the share of its upper side within which a bracket is exact (epsilon_refinement.hpp's exact_bracket):
    // the package's question.EXACT_RELATIVE
    m.attr("exact_relative") = pld::kExactRelative;
    m.def(
        "refine",
        [](const py::object& front) {
            PythonFront adapter{front};
            pld::refine_points(adapter);
        },
        py::kw_only(), py::arg("front"),
        "Runs the refinement loop (pld/refine/refinement_loop.hpp) over a front end's methods: first, brackets, "
        "intersect, width, next_grid, record, done.");
    m.def(
        "refine_epsilon",
        [](double sigma, double q, double rounds, double sensitivity, double delta, double accuracy,
           const py::function& bracket_at, const pld::GridPolicy& policy, const pld::NextGridTuning& tuning,
           double relative_accuracy) {
            const pld::RefinedEpsilon r =
                pld::refine_epsilon(sigma, q, rounds, sensitivity, delta, accuracy, PythonBracket{bracket_at}, policy,
                                    {tuning}, relative_accuracy);
            return py::make_tuple(r.lower, r.upper, r.interval, r.grids, r.met);
        },
        py::arg("sigma"), py::arg("q"), py::arg("rounds"), py::arg("sensitivity"), py::arg("delta"),
        py::arg("accuracy"), py::kw_only(), py::arg("bracket_at"), py::arg("policy"),
        py::arg("tuning") = pld::NextGridTuning{}, py::arg("relative_accuracy") = 0.0);
    m.def(
        "refine_delta",
        [](double sigma, double q, double rounds, double sensitivity, double accuracy, const py::function& bracket_at,
           double delta_floor, const pld::GridPolicy& policy, const pld::NextGridTuning& tuning) {
            const pld::RefinedBracket r = pld::refine_delta(sigma, q, rounds, sensitivity, accuracy,
                                                            PythonBracket{bracket_at}, delta_floor, policy, {tuning});
            return py::make_tuple(r.lower, r.upper, r.interval, r.grids, r.met);
        },
        py::kw_only(), py::arg("sigma"), py::arg("q"), py::arg("rounds"), py::arg("sensitivity"), py::arg("accuracy"),
        py::arg("bracket_at"), py::arg("delta_floor"), py::arg("policy"), py::arg("tuning"));
}
