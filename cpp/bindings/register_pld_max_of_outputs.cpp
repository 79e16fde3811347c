// Binding of the max-of-outputs test's certified lower reads (pld/reads/max_of_outputs.hpp), in _core.pld_reads: a
// run given as four 1-d arrays of one length, one entry a segment (sigma, sampling_rate, sensitivity, rounds); the
// questions (deltas, epsilons, thresholds) as an array of any shape, the answers in that shape.  The coarse ladder's
// sides are computed once per call, and the finer ladder around each coarse threshold once per call for the questions
// whose best it is, in loops.hpp's loop (GIL released, its thread rule; a NaN output raises a ValueError naming the
// argument).
#include <hockeystick/pld/reads/max_of_outputs.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "elementwise.hpp"
#include "explain.hpp"
#include "loops.hpp"

namespace py = pybind11;
namespace hb = hockeystick_bindings;
using hb::input_array;
namespace pld = hockeystick::pld;

namespace max_of_outputs_binding {

using rounds_array = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;

// The segments of the four arrays, each checked (sigma > 0, sensitivity > 0, 0 < sampling_rate <= 1, rounds >= 1).
std::vector<pld::OutputSegment> segments_of(const input_array& sigma, const input_array& q,
                                            const input_array& sensitivity, const rounds_array& rounds) {
    const py::ssize_t n = sigma.size();
    if (sigma.ndim() != 1 || q.ndim() != 1 || sensitivity.ndim() != 1 || rounds.ndim() != 1 || q.size() != n ||
        sensitivity.size() != n || rounds.size() != n)
        throw py::value_error("sigma, sampling_rate, sensitivity and rounds must be 1-d arrays of one length");
    std::vector<pld::OutputSegment> out(static_cast<std::size_t>(n));
    for (py::ssize_t i = 0; i < n; ++i) {
        pld::OutputSegment& s = out[static_cast<std::size_t>(i)];
        s.sigma = sigma.data()[i];
        s.q = q.data()[i];
        s.sensitivity = sensitivity.data()[i];
        s.rounds = rounds.data()[i];
        if (!(s.sigma > 0.0 && s.sensitivity > 0.0 && s.q > 0.0 && s.q <= 1.0 && s.rounds >= 1))
            throw py::value_error("segment " + std::to_string(i) + " (" + hb::listed(s.sigma, s.q, s.sensitivity) +
                                  ", " + std::to_string(s.rounds) +
                                  "): a segment needs sigma > 0, sensitivity > 0, 0 < sampling_rate <= 1 and "
                                  "rounds >= 1");
    }
    return out;
}

// A scratch pair for max_output_log_sides, one per thread.
struct Scratch {
    std::vector<double> p_terms, q_terms;
};

// out[i] = read(i, x[i], scratch) for every question x (any shape), items of `cost` element evaluations each, in loops.hpp's
// loop; a NaN output is explained by explain(x) (the argument's rule).
template <class Read, class Explain>
py::array_t<double> over_questions(const input_array& x, std::int64_t cost, int threads, Read read, Explain explain) {
    return hb::per_item<Scratch>(x, static_cast<std::int64_t>(x.size()) * cost, threads, hb::on_demand(16), read,
                                 explain);
}

std::string delta_rule(double v) {
    return v > 0.0 && v < 1.0 ? std::string() : std::string("delta must lie strictly between 0 and 1");
}

std::string finite_rule(const char* name, double v) {
    return std::isfinite(v) ? std::string() : std::string(name) + " must be finite";
}

// The ladder of the segments, built with the GIL released.
pld::MaxOutputsLadder ladder_of(std::vector<pld::OutputSegment> segments) {
    py::gil_scoped_release release;
    return pld::MaxOutputsLadder(std::move(segments));
}

// Each question checked before the loop, so that no item reads outside the domain.
template <class Rule>
void check_each(const input_array& x, Rule rule) {
    for (py::ssize_t i = 0; i < x.size(); ++i) {
        const std::string why = rule(x.data()[i]);
        if (!why.empty()) hb::raise_nan_at(i, why, hb::listed(x.data()[i]));
    }
}

py::array_t<double> epsilon(const input_array& sigma, const input_array& q, const input_array& sensitivity,
                            const rounds_array& rounds, const input_array& delta, int threads) {
    const pld::MaxOutputsLadder ladder = ladder_of(segments_of(sigma, q, sensitivity, rounds));
    check_each(delta, delta_rule);
    const std::int64_t cost = pld::kMaxOutputsFineSteps * static_cast<std::int64_t>(ladder.segments().size() + 1);
    return over_questions(
        delta, cost, threads, [&](std::int64_t, double d, Scratch&) { return ladder.epsilon(d); }, delta_rule);
}

py::array_t<double> delta(const input_array& sigma, const input_array& q, const input_array& sensitivity,
                          const rounds_array& rounds, const input_array& eps, bool fine, int threads) {
    const pld::MaxOutputsLadder ladder = ladder_of(segments_of(sigma, q, sensitivity, rounds));
    const auto rule = [](double v) { return finite_rule("epsilon", v); };
    check_each(eps, rule);
    const std::int64_t cost =
        (fine ? pld::kMaxOutputsFineSteps : 1) * static_cast<std::int64_t>(ladder.segments().size() + 1);
    return over_questions(
        eps, cost, threads, [&](std::int64_t, double e, Scratch&) { return ladder.delta(e, fine); }, rule);
}

py::tuple best_threshold(const input_array& sigma, const input_array& q, const input_array& sensitivity,
                         const rounds_array& rounds, double delta) {
    const std::string why = delta_rule(delta);
    if (!why.empty()) throw py::value_error(why + ", got " + hb::listed(delta));
    const pld::MaxOutputsLadder ladder = ladder_of(segments_of(sigma, q, sensitivity, rounds));
    std::pair<double, double> best;
    {
        py::gil_scoped_release release;
        best = ladder.best_threshold(delta);
    }
    return py::make_tuple(best.first, best.second);
}

// log P(S) low and log Q(S) high at each threshold z, and, with a delta in (0, 1), the bound (1) there.
py::tuple sides(const input_array& sigma, const input_array& q, const input_array& sensitivity,
                const rounds_array& rounds, const input_array& z, int threads) {
    const std::vector<pld::OutputSegment> segments = segments_of(sigma, q, sensitivity, rounds);
    if (segments.empty()) throw py::value_error("the run needs at least one segment");
    const auto rule = [](double v) { return finite_rule("z", v); };
    check_each(z, rule);
    py::array_t<double> log_q(std::vector<py::ssize_t>(z.shape(), z.shape() + z.ndim()));
    double* q_out = log_q.mutable_data();
    const std::int64_t cost = static_cast<std::int64_t>(segments.size() + 1);
    py::array_t<double> log_p = over_questions(
        z, cost, threads,
        [&](std::int64_t i, double v, Scratch& s) {
            const std::pair<double, double> ps = pld::max_output_log_sides(segments, v, s.p_terms, s.q_terms);
            q_out[i] = ps.second;
            return ps.first;
        },
        rule);
    return py::make_tuple(log_p, log_q);
}

py::array_t<double> log_bound(const input_array& sigma, const input_array& q, const input_array& sensitivity,
                              const rounds_array& rounds, const input_array& z, double delta, int threads) {
    const std::string why = delta_rule(delta);
    if (!why.empty()) throw py::value_error(why + ", got " + hb::listed(delta));
    const std::vector<pld::OutputSegment> segments = segments_of(sigma, q, sensitivity, rounds);
    if (segments.empty()) throw py::value_error("the run needs at least one segment");
    const auto rule = [](double v) { return finite_rule("z", v); };
    check_each(z, rule);
    const double log_delta = std::log(delta);
    const std::int64_t cost = static_cast<std::int64_t>(segments.size() + 1);
    return over_questions(
        z, cost, threads,
        [&](std::int64_t, double v, Scratch& s) {
            const std::pair<double, double> ps = pld::max_output_log_sides(segments, v, s.p_terms, s.q_terms);
            return pld::max_output_log_bound(ps.first, ps.second, log_delta);
        },
        rule);
}

}  // namespace max_of_outputs_binding

void register_pld_max_of_outputs(py::module_ m) {
    namespace mb = max_of_outputs_binding;
    m.attr("max_of_outputs_log_tail_margin") = pld::kMaxOutputsLogTailMargin;
    m.attr("max_of_outputs_sum_margin") = pld::kMaxOutputsSumMargin;
    m.attr("max_of_outputs_libm_slack") = pld::kMaxOutputsLibmSlack;
    m.attr("max_of_outputs_coarse_z") =
        py::make_tuple(pld::kMaxOutputsZLeast, pld::kMaxOutputsZMost, pld::kMaxOutputsCoarseSteps);
    m.attr("max_of_outputs_fine_steps") = pld::kMaxOutputsFineSteps;
    m.def("max_of_outputs_epsilon", &mb::epsilon, py::arg("sigma"), py::arg("sampling_rate"), py::arg("sensitivity"),
          py::arg("rounds"), py::kw_only(), py::arg("delta"), py::arg("threads") = 0,
          "A certified lower bound on epsilon at each delta of the run's segments, from the largest released value "
          "against a threshold (pld/reads/max_of_outputs.hpp); >= 0.");
    m.def("max_of_outputs_delta", &mb::delta, py::arg("sigma"), py::arg("sampling_rate"), py::arg("sensitivity"),
          py::arg("rounds"), py::kw_only(), py::arg("epsilon"), py::arg("fine") = true, py::arg("threads") = 0,
          "A certified lower bound on delta at each epsilon (on the coarse ladder only where fine is False); >= 0.");
    m.def("max_of_outputs_best_threshold", &mb::best_threshold, py::arg("sigma"), py::arg("sampling_rate"),
          py::arg("sensitivity"), py::arg("rounds"), py::kw_only(), py::arg("delta"),
          "The threshold of the ladders whose certified log bound at delta is the largest, and that bound.");
    m.def("max_of_outputs_log_sides", &mb::sides, py::arg("sigma"), py::arg("sampling_rate"), py::arg("sensitivity"),
          py::arg("rounds"), py::kw_only(), py::arg("z"), py::arg("threads") = 0,
          "A lower bound on log P(S) and an upper bound on log Q(S) at each threshold z.");
    m.def("max_of_outputs_log_bound", &mb::log_bound, py::arg("sigma"), py::arg("sampling_rate"),
          py::arg("sensitivity"), py::arg("rounds"), py::kw_only(), py::arg("z"), py::arg("delta"),
          py::arg("threads") = 0,
          "The certified lower bound log((P(S) - delta) / Q(S)) at each threshold z (-inf where P(S) is not "
          "certified above delta).");
}
