// Bindings of the f-DP shifted-interpolation engine (paper 004): one bound per grid point,
// each an O(T) pass, run as items of the per-item driver (loops.hpp: GIL released, one
// interpolation stack per thread, NaN -> ValueError naming the argument).  The facade
// validates the parameters (ranges, integrality); this layer only converts and loops.
#include <hockeystick/fdp/interpolation.hpp>

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
using hb::first_broken;
using hb::input_array;

namespace {

using result = py::tuple;  // (h0, h_optimal, h_composition, h0_attained as 0/1)
using stack = std::vector<hockeystick::detail::interpolation_block>;  // per-thread scratch

struct outputs {
    py::array_t<double> h0, h_opt, h_comp, attained;
    double *p0, *p1, *p2, *p3;
    explicit outputs(const std::vector<py::ssize_t>& shape)
        : h0(shape),
          h_opt(shape),
          h_comp(shape),
          attained(shape),
          p0(h0.mutable_data()),
          p1(h_opt.mutable_data()),
          p2(h_comp.mutable_data()),
          p3(attained.mutable_data()) {}
    // Stores item i's bound; true when one of its H values is NaN.
    bool store(std::int64_t i, const hockeystick::interpolation_bound& b) {
        p0[i] = b.h0;
        p1[i] = b.h_optimal;
        p2[i] = b.h_composition;
        p3[i] = b.h0_attained ? 1.0 : 0.0;
        return has_nan(i);
    }
    bool has_nan(std::int64_t i) const { return std::isnan(p0[i]) || std::isnan(p1[i]) || std::isnan(p2[i]); }
    result tuple() const { return py::make_tuple(h0, h_opt, h_comp, attained); }
};

std::vector<py::ssize_t> shape_of(const input_array& a) {
    return std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim());
}

std::string whole_at_least_one(const char* name, double v) {
    std::string why = hb::at_least_one(name, v);
    if (why.empty() && v != std::floor(v)) why = std::string(name) + " must be a whole number";
    return why;
}

result fedavg_interpolation(int schedule, input_array a, input_array lipschitz, input_array local_steps,
                            input_array rounds, int threads) {
    const auto shape = shape_of(a);
    for (const auto* other : {&lipschitz, &local_steps, &rounds})
        if (other->size() != a.size()) throw py::value_error("internal: arrays must share one shape");
    if (schedule < 0 || schedule > 3) throw py::value_error("internal: unknown schedule code");
    const auto sched = static_cast<hockeystick::fedavg_schedule>(schedule);
    const bool per_round =
        sched == hockeystick::fedavg_schedule::stagewise || sched == hockeystick::fedavg_schedule::continuous;
    outputs out(shape);
    const std::int64_t n = static_cast<std::int64_t>(a.size());
    const double *pa = a.data(), *pl = lipschitz.data(), *pk = local_steps.data(), *pt = rounds.data();
    double work = 0.0;  // one unit per round of every point
    for (std::int64_t i = 0; i < n; ++i) work += pt[i] >= 1.0 ? pt[i] : 1.0;
    const bool nan =
        hb::for_each_item<stack>(n, static_cast<std::int64_t>(std::fmin(work, 9e18)), threads, hb::balanced(n, 256),
                                 [&](std::int64_t i, stack& scratch) {
                                     const auto K = static_cast<std::int64_t>(pk[i]);
                                     const auto T = static_cast<std::int64_t>(pt[i]);
                                     double fixed_rho = 1.0, fixed_sum = 0.0;
                                     if (!per_round)
                                         hockeystick::fedavg_round(sched, pa[i], pl[i], K, 0, fixed_rho, fixed_sum);
                                     auto round = [&](std::int64_t t, double& rho, double& step_sum) {
                                         if (per_round) {
                                             hockeystick::fedavg_round(sched, pa[i], pl[i], K, t, rho, step_sum);
                                         } else {
                                             rho = fixed_rho;
                                             step_sum = fixed_sum;
                                         }
                                     };
                                     return out.store(i, hockeystick::shifted_interpolation_bound(T, round, scratch));
                                 });
    if (nan)
        hb::raise_first_nan(
            n, [&](std::int64_t i) { return out.has_nan(i); },
            [&](std::int64_t i) {
                return std::make_pair(
                    first_broken({hb::nonnegative("learning_rate", pa[i]), hb::nonnegative("lipschitz", pl[i]),
                                  whole_at_least_one("local_steps", pk[i]), whole_at_least_one("rounds", pt[i])}),
                    hb::listed(pa[i], pl[i], pk[i], pt[i]));
            });
    return out.tuple();
}

// General engine: row i holds rounds 0..lengths[i]-1 of rho_t and gamma_t.
result interpolation_from_rounds(input_array rho, input_array gamma, input_array lengths, int threads) {
    if (rho.ndim() != 2 || gamma.ndim() != 2 || rho.shape(0) != gamma.shape(0) || rho.shape(1) != gamma.shape(1) ||
        lengths.ndim() != 1 || lengths.shape(0) != rho.shape(0))
        throw py::value_error("internal: rho, gamma must be (n, T) and lengths (n,)");
    const std::int64_t n = rho.shape(0), width = rho.shape(1);
    for (std::int64_t i = 0; i < n; ++i)
        if (!(lengths.data()[i] >= 0.0 && lengths.data()[i] <= static_cast<double>(width)))
            throw py::value_error("internal: lengths must lie in [0, T]");
    outputs out({static_cast<py::ssize_t>(n)});
    const double *plr = rho.data(), *pg = gamma.data(), *pn = lengths.data();
    const bool nan =
        hb::for_each_item<stack>(n, n * width, threads, hb::balanced(n, 64), [&](std::int64_t i, stack& scratch) {
            const double* lr = plr + i * width;
            const double* g = pg + i * width;
            auto round = [&](std::int64_t t, double& r, double& gam) {
                r = lr[t];
                gam = g[t];
            };
            return out.store(
                i, hockeystick::shifted_interpolation_bound(static_cast<std::int64_t>(pn[i]), round, scratch));
        });
    if (nan)
        hb::raise_first_nan(
            n, [&](std::int64_t i) { return out.has_nan(i); },
            [&](std::int64_t i) {
                const auto length = static_cast<std::int64_t>(pn[i]);
                for (std::int64_t t = 0; t < length; ++t) {
                    const double r = plr[i * width + t], gam = pg[i * width + t];
                    std::string why = first_broken({hb::positive("rho", r), hb::nonnegative("gamma", gam)});
                    if (!why.empty())
                        return std::make_pair(why + " (round " + std::to_string(t) + ")", hb::listed(r, gam));
                }
                return std::make_pair(std::string(), "row of " + std::to_string(length) + " rounds");
            });
    return out.tuple();
}

}  // namespace

void register_fdp(py::module_ m) {
    m.def("fedavg_interpolation", &fedavg_interpolation, py::arg("schedule"), py::kw_only(), py::arg("learning_rate"),
          py::arg("lipschitz"), py::arg("local_steps"), py::arg("rounds"), py::arg("threads") = 0,
          "Shifted-interpolation H values (h0, h_optimal, h_composition, h0_attained) of noisy FedAvg "
          "in units of (sum_k eta)^2; paper 004 eq. 12-16.");
    m.def("interpolation_from_rounds", &interpolation_from_rounds, py::arg("rho"), py::arg("gamma"), py::arg("lengths"),
          py::kw_only(), py::arg("threads") = 0,
          "Shifted-interpolation H values from per-round rho_t and gamma_t (rows of a 2-D array).");
}
