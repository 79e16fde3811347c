// Bindings of the contraction bounds (papers 000 and 002): convert, loop, nothing more.
//
// The grid kernels take float64 arrays of one common shape that may be broadcast views
// (stride 0 along an axis), read in place by the strided-broadcast driver (broadcast.hpp);
// the per-round schedules run the per-item driver (loops.hpp), one O(T) pass per point.
// The facade validates every theorem's conditions first; a NaN here still raises ValueError
// naming the argument and rule the explain functions below find broken (or, when none is,
// reports an internal error).
#include <hockeystick/contraction/bounds.hpp>
#include <hockeystick/hockeystick.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "broadcast.hpp"
#include "elementwise.hpp"
#include "explain.hpp"
#include "loops.hpp"

namespace py = pybind11;
namespace hb = hockeystick_bindings;
using hb::first_broken;
using hb::nonnegative;
using hb::not_nan;
using hb::positive;

namespace {

using strided_array = hb::strided_array;

// ---- explain functions: the rules of contraction/bounds.hpp, by the bindings' argument names

std::string explain_terms(double weight, double terms) {
    return first_broken({positive("weight", weight), hb::at_least_one("terms", terms)});
}

std::string explain_first_stop(double terms, double first_stop) {
    if (std::isnan(first_stop)) return not_nan("first_stop", first_stop);
    return first_stop >= 1.0 && first_stop <= terms ? std::string() : "first_stop must lie in [1, terms]";
}

std::string explain_factors(double first_value, double first_log, double product_complement, double product_log) {
    return first_broken({not_nan("first_value", first_value), not_nan("first_log", first_log),
                         not_nan("product_complement", product_complement), not_nan("product_log", product_log)});
}

std::string explain_radii(double r_first, double r_product) {
    return first_broken({nonnegative("r_first", r_first), nonnegative("r_product", r_product)});
}

std::string explain_power(double exponent, double g_first, double g_product) {
    return first_broken(
        {nonnegative("exponent", exponent), nonnegative("g_first", g_first), nonnegative("g_product", g_product)});
}

using arr = strided_array;

// epsilon(delta) along a grid: when a point differs from the previous one (in the same
// chunk, so results do not depend on the thread count) only in delta, start the solve at
// the last point the previous solve evaluated, with its bound and slope already known:
// ~2 evaluations instead of ~4 on a fine delta axis.
template <std::size_t P, class Solve>
struct warm_started {
    Solve solve;
    std::array<double, P> previous{};
    hockeystick::evaluated_point last{};

    template <class... Params>
    double operator()(double delta, Params... params) {
        const std::array<double, P> now{params...};
        if (now != previous) last = {};
        previous = now;
        return solve(delta, &last, params...);
    }
};

template <std::size_t P, class Solve>
warm_started<P, Solve> warm(Solve solve) {
    return {solve};
}

using contiguous = py::array_t<double, py::array::c_style | py::array::forcecast>;

template <class Kernel, std::size_t... K>
double call_at(Kernel& kernel, const std::array<const char*, sizeof...(K)>& at, std::index_sequence<K...>) {
    return kernel(*reinterpret_cast<const double*>(at[K])...);
}

// A row function from a kernel of one point: kernel(x0, ..., x_{N-1}) at each point of the row.
template <std::size_t N, class Kernel>
struct each_point {
    Kernel kernel;
    bool operator()(std::array<const char*, N> at, const std::array<py::ssize_t, N>& step, std::int64_t count,
                    double* out) {
        int nan = 0;
        for (std::int64_t j = 0; j < count; ++j) {
            out[j] = call_at(kernel, at, std::make_index_sequence<N>{});
            nan |= std::isnan(out[j]) ? 1 : 0;
            for (std::size_t k = 0; k < N; ++k) at[k] += step[k];
        }
        return nan != 0;
    }
};

template <std::size_t N, class Kernel>
each_point<N, Kernel> at_each_point(Kernel kernel) {
    return {kernel};
}

// The strided-broadcast driver's contract (broadcast.hpp: the same chunks, threads and NaN report) for
// results that are functions of each point's arguments alone (a row function's state may only memoize),
// walked along the last axis: where a chunk enters a row, each input's address is found once and the
// row function reads the run from there with the inputs' last strides (step, in bytes), where the generic
// driver steps an odometer of every axis at every point.
// row(at, step, count, out) -> whether it wrote a NaN.
template <std::size_t N, class Row, class Explain>
py::array_t<double> broadcast_rows(const std::array<strided_array, N>& in, Row row_function, Explain explain,
                                   int threads) {
    const hb::strided_inputs<N> inputs(in);  // one shape; the arguments of a NaN for the report
    const std::vector<py::ssize_t>& shape = inputs.shape();
    const std::size_t ndim = shape.size();
    py::array_t<double> out(shape);
    double* dst = out.mutable_data();
    const std::int64_t total = inputs.size();
    const std::int64_t length = ndim == 0 ? 1 : shape[ndim - 1];
    std::array<const char*, N> base{};
    std::array<py::ssize_t, N> step{};
    std::vector<std::array<py::ssize_t, N>> strides(ndim);
    for (std::size_t k = 0; k < N; ++k) {
        base[k] = reinterpret_cast<const char*>(in[k].data());
        for (std::size_t d = 0; d < ndim; ++d) strides[d][k] = in[k].strides()[d];
        step[k] = ndim == 0 ? 0 : strides[ndim - 1][k];
    }
    const std::int64_t chunks = (total + hb::broadcast_chunk - 1) / hb::broadcast_chunk;
    const bool nan = hb::parallel_items<hb::no_state>(
        chunks, hb::resolve_threads(threads, total, chunks), hb::balanced(chunks, 4),
        [&](std::int64_t c, hb::no_state&) {
            Row local = row_function;
            const std::int64_t end = std::min(c * hb::broadcast_chunk + hb::broadcast_chunk, total);
            bool piece_nan = false;
            for (std::int64_t i = c * hb::broadcast_chunk; i < end;) {
                const std::int64_t row = i / length, row_end = std::min(end, (row + 1) * length);
                std::array<const char*, N> at = base;
                std::int64_t rest = row;
                for (std::size_t d = ndim == 0 ? 0 : ndim - 1; d-- > 0;) {
                    const std::int64_t index = rest % shape[d];
                    rest /= shape[d];
                    for (std::size_t k = 0; k < N; ++k) at[k] += index * strides[d][k];
                }
                for (std::size_t k = 0; k < N; ++k) at[k] += (i - row * length) * step[k];
                piece_nan |= local(at, step, row_end - i, dst + i);
                i = row_end;
            }
            return piece_nan;
        });
    if (nan)
        hb::raise_first_nan(
            total, [&](std::int64_t i) { return std::isnan(dst[i]); },
            [&](std::int64_t i) {
                const std::array<double, N> args = inputs.at(i);
                return std::make_pair(std::string(std::apply(explain, args)),
                                      std::apply([](auto... v) { return hb::listed(v...); }, args));
            });
    return out;
}

// geometric_bound_from_factors along a row: by geometric_row_from_factors where the weight and the number of
// terms are constant along it and the five factor arrays share one stride (a factor table's inner axis), else
// point by point.
struct geometric_rows {
    hockeystick::weight_terms_logs logs{};
    bool operator()(std::array<const char*, 7> at, const std::array<py::ssize_t, 7>& step, std::int64_t count,
                    double* out) {
        auto value = [&](std::size_t k) { return *reinterpret_cast<const double*>(at[k]); };
        auto factor = [&](std::size_t k) { return reinterpret_cast<const double*>(at[k]); };
        const py::ssize_t s = step[2];
        if (step[0] == 0 && step[1] == 0 && step[3] == s && step[4] == s && step[5] == s && step[6] == s &&
            s % static_cast<py::ssize_t>(sizeof(double)) == 0)
            return hockeystick::geometric_row_from_factors(
                value(0), value(1), factor(2), factor(3), factor(4), factor(5), factor(6),
                s / static_cast<py::ssize_t>(sizeof(double)), count, out, logs);
        auto point = at_each_point<7>([this](double a, double t, double x, double y, double z, double u, double v) {
            return hockeystick::geometric_bound_from_factors(a, t, x, y, z, u, v, logs);
        });
        return point(at, step, count, out);
    }
};

// Per-round schedules: kernel(x) for every x (eps or delta, any shape, contiguous), each an
// O(T) pass over radii of length T, so a point is an item of the per-item driver.
template <class Kernel, class Explain>
py::array_t<double> schedule_apply(const contiguous& x, std::int64_t rounds, Kernel kernel, Explain explain,
                                   int threads) {
    return hb::per_item(
        x, static_cast<std::int64_t>(x.size()) * rounds, threads, hb::on_demand(1),
        [&](std::int64_t, double v, hb::no_state&) { return kernel(v); }, explain);
}

// The parameters a schedule bound shares across its points: weight > 0 and every radius >= 0,
// checked once before the loop (the core would not always turn a bad radius into NaN).
void check_schedule(double weight, std::int64_t rounds, const double* r_first, const double* r_product) {
    std::string why = positive("weight", weight);
    for (std::int64_t t = 0; t < rounds && why.empty(); ++t) {
        why = explain_radii(r_first[t], r_product[t]);
        if (!why.empty()) why += " (round " + std::to_string(t) + ")";
    }
    if (!why.empty()) throw py::value_error(why);
}

hockeystick::noise_kind parse_noise(const std::string& noise) {
    if (noise == "gaussian") return hockeystick::noise_kind::gaussian;
    if (noise == "laplace") return hockeystick::noise_kind::laplace;
    throw py::value_error("noise must be 'gaussian' or 'laplace'");
}

// The per-round radii of a schedule bound: two 1-d arrays of one length >= 1.
std::int64_t checked_rounds(const contiguous& r1, const contiguous& r2) {
    if (r1.ndim() != 1 || r2.ndim() != 1 || r1.size() != r2.size() || r1.size() < 1)
        throw py::value_error("internal: per-round radii must be two 1-d arrays of one length >= 1");
    return r1.size();
}

// The factors (theta, 1 - theta, their logarithms) of paper 000's bounds, and the bounds read from them.
void register_factors(py::module_& m) {
    using namespace hockeystick;
    m.def(
        "gaussian_factor_pairs",
        [](contiguous eps, contiguous r1, contiguous r2, double log_rest_bound, int threads) {
            if (eps.size() != r1.size() || eps.size() != r2.size())
                throw py::value_error("internal: factor inputs must share one shape");
            std::vector<py::ssize_t> shape{5};
            shape.insert(shape.end(), eps.shape(), eps.shape() + eps.ndim());
            py::array_t<double> out(shape);
            const std::int64_t n = static_cast<std::int64_t>(eps.size());
            const double* e = eps.data();
            const double* x = r1.data();
            const double* y = r2.data();
            double* o = out.mutable_data();
            auto has_nan = [&](std::int64_t i) {
                return std::isnan(o[i]) || std::isnan(o[n + i]) || std::isnan(o[2 * n + i]) ||
                       std::isnan(o[3 * n + i]) || std::isnan(o[4 * n + i]);
            };
            const bool nan =
                hb::flat_pieces(n, hb::element_piece, threads, [&](std::int64_t start, std::int64_t count) {
                    bool piece_nan = false;
                    for (std::int64_t i = start; i < start + count; ++i) {
                        const factor_pair f = gaussian_factor_pair(e[i], x[i], y[i], log_rest_bound);
                        o[i] = f.first_value;
                        o[n + i] = f.first_log;
                        o[2 * n + i] = f.product_complement;
                        o[3 * n + i] = f.product_log;
                        o[4 * n + i] = f.product_log_complement;
                        piece_nan |= has_nan(i);
                    }
                    return piece_nan;
                });
            if (nan)
                hb::raise_first_nan(n, has_nan, [&](std::int64_t i) {
                    return std::make_pair(first_broken({nonnegative("epsilon", e[i]), explain_radii(x[i], y[i])}),
                                          hb::listed(e[i], x[i], y[i]));
                });
            return out;
        },
        py::arg("epsilon"), py::arg("r_first"), py::arg("r_product"), py::kw_only(),
        py::arg("log_rest_bound") = std::numeric_limits<double>::infinity(), py::arg("threads") = 0);
    m.def(
        "geometric_bound_from_factors",
        [](arr w, arr terms, arr av, arr al, arr bc, arr bl, arr blc, int threads) {
            return broadcast_rows<7>(
                {w, terms, av, al, bc, bl, blc}, geometric_rows{},
                [](double a, double t, double x, double y, double z, double u, double v) {
                    return first_broken(
                        {explain_terms(a, t), explain_factors(x, y, z, u), not_nan("product_log_complement", v)});
                },
                threads);
        },
        py::arg("weight"), py::arg("terms"), py::kw_only(), py::arg("first_value"), py::arg("first_log"),
        py::arg("product_complement"), py::arg("product_log"), py::arg("product_log_complement"),
        py::arg("threads") = 0);
    m.def(
        "random_stop_bound_from_factors",
        [](arr w, arr terms, arr stop, arr av, arr al, arr bc, arr bl, int threads) {
            return broadcast_rows<7>(
                {w, terms, stop, av, al, bc, bl},
                at_each_point<7>([](double a, double t, double s, double x, double y, double z, double u) {
                    return random_stop_bound_from_factors(a, t, s, x, y, z, u);
                }),
                [](double a, double t, double s, double x, double y, double z, double u) {
                    return first_broken({positive("weight", a), explain_first_stop(t, s), explain_factors(x, y, z, u)});
                },
                threads);
        },
        py::arg("weight"), py::arg("terms"), py::kw_only(), py::arg("first_stop"), py::arg("first_value"),
        py::arg("first_log"), py::arg("product_complement"), py::arg("product_log"), py::arg("threads") = 0);
}

// The closed forms of constant-radius runs (000 Thm 2, the random stop, the power bound), both directions.
void register_closed_forms(py::module_& m) {
    using namespace hockeystick;
    m.def(
        "geometric_bound_delta",
        [](arr eps, arr w, arr terms, arr r1, arr r2, int threads) {
            return broadcast_rows<5>(
                {eps, w, terms, r1, r2}, at_each_point<5>([](double e, double a, double t, double x, double y) {
                    return geometric_bound_delta(e, a, t, x, y);
                }),
                [](double e, double a, double t, double x, double y) {
                    return first_broken({nonnegative("epsilon", e), explain_terms(a, t), explain_radii(x, y)});
                },
                threads);
        },
        py::arg("epsilon"), py::kw_only(), py::arg("weight"), py::arg("terms"), py::arg("r_first"),
        py::arg("r_product"), py::arg("threads") = 0);
    m.def(
        "geometric_bound_epsilon",
        [](arr delta, arr w, arr terms, arr r1, arr r2, int threads) {
            return hb::broadcast_elementwise<5>(
                {delta, w, terms, r1, r2},
                warm<4>([](double d, hockeystick::evaluated_point* s, double a, double t, double x, double y) {
                    return geometric_bound_epsilon(d, a, t, x, y, s);
                }),
                [](double d, double a, double t, double x, double y) {
                    return first_broken({hb::probability_open("delta", d), explain_terms(a, t), explain_radii(x, y)});
                },
                threads);
        },
        py::arg("delta"), py::kw_only(), py::arg("weight"), py::arg("terms"), py::arg("r_first"), py::arg("r_product"),
        py::arg("threads") = 0);
    m.def(
        "random_stop_bound_delta",
        [](arr eps, arr w, arr terms, arr stop, arr r1, arr r2, int threads) {
            return broadcast_rows<6>(
                {eps, w, terms, stop, r1, r2},
                at_each_point<6>([](double e, double a, double t, double s, double x, double y) {
                    return random_stop_bound_delta(e, a, t, s, x, y);
                }),
                [](double e, double a, double t, double s, double x, double y) {
                    return first_broken({nonnegative("epsilon", e), positive("weight", a), explain_first_stop(t, s),
                                         explain_radii(x, y)});
                },
                threads);
        },
        py::arg("epsilon"), py::kw_only(), py::arg("weight"), py::arg("terms"), py::arg("first_stop"),
        py::arg("r_first"), py::arg("r_product"), py::arg("threads") = 0);
    m.def(
        "random_stop_bound_epsilon",
        [](arr delta, arr w, arr terms, arr stop, arr r1, arr r2, int threads) {
            return hb::broadcast_elementwise<6>(
                {delta, w, terms, stop, r1, r2},
                warm<5>([](double d, hockeystick::evaluated_point* start, double a, double t, double s, double x,
                           double y) { return random_stop_bound_epsilon(d, a, t, s, x, y, start); }),
                [](double d, double a, double t, double s, double x, double y) {
                    return first_broken({hb::probability_open("delta", d), positive("weight", a),
                                         explain_first_stop(t, s), explain_radii(x, y)});
                },
                threads);
        },
        py::arg("delta"), py::kw_only(), py::arg("weight"), py::arg("terms"), py::arg("first_stop"), py::arg("r_first"),
        py::arg("r_product"), py::arg("threads") = 0);
    m.def(
        "power_bound_delta",
        [](const std::string& noise, arr eps, arr k, arr g1, arr g2, int threads) {
            const noise_kind kind = parse_noise(noise);
            return broadcast_rows<4>(
                {eps, k, g1, g2}, at_each_point<4>([kind](double e, double x, double a, double b) {
                    return power_bound_delta(kind, e, x, a, b);
                }),
                [](double e, double x, double a, double b) {
                    return first_broken({nonnegative("epsilon", e), explain_power(x, a, b)});
                },
                threads);
        },
        py::arg("noise"), py::arg("epsilon"), py::kw_only(), py::arg("exponent"), py::arg("g_first"),
        py::arg("g_product"), py::arg("threads") = 0);
    m.def(
        "power_bound_epsilon",
        [](const std::string& noise, arr delta, arr k, arr g1, arr g2, int threads) {
            const noise_kind kind = parse_noise(noise);
            return hb::broadcast_elementwise<4>(
                {delta, k, g1, g2},
                warm<3>([kind](double d, hockeystick::evaluated_point* start, double x, double a, double b) {
                    return power_bound_epsilon(kind, d, x, a, b, start);
                }),
                [](double d, double x, double a, double b) {
                    return first_broken({hb::probability_open("delta", d), explain_power(x, a, b)});
                },
                threads);
        },
        py::arg("noise"), py::arg("delta"), py::kw_only(), py::arg("exponent"), py::arg("g_first"),
        py::arg("g_product"), py::arg("threads") = 0);
}

// Any per-round schedule of radii (O(T) sums of products, contraction/sums.hpp).
void register_schedules(py::module_& m) {
    using namespace hockeystick;
    m.def(
        "schedule_bound_delta",
        [](contiguous eps, double weight, std::int64_t first_stop, contiguous r1, contiguous r2, int threads) {
            const std::int64_t rounds = checked_rounds(r1, r2);
            const double* a = r1.data();
            const double* b = r2.data();
            check_schedule(weight, rounds, a, b);
            return schedule_apply(
                eps, rounds, [=](double e) { return schedule_bound_delta(e, weight, first_stop, rounds, a, b); },
                [](double e) { return nonnegative("epsilon", e); }, threads);
        },
        py::arg("epsilon"), py::kw_only(), py::arg("weight"), py::arg("first_stop"), py::arg("r_first"),
        py::arg("r_product"), py::arg("threads") = 0);
    m.def(
        "schedule_bound_epsilon",
        [](contiguous delta, double weight, std::int64_t first_stop, contiguous r1, contiguous r2, int threads) {
            const std::int64_t rounds = checked_rounds(r1, r2);
            const double* a = r1.data();
            const double* b = r2.data();
            check_schedule(weight, rounds, a, b);
            return schedule_apply(
                delta, rounds, [=](double d) { return schedule_bound_epsilon(d, weight, first_stop, rounds, a, b); },
                [](double d) { return hb::probability_open("delta", d); }, threads);
        },
        py::arg("delta"), py::kw_only(), py::arg("weight"), py::arg("first_stop"), py::arg("r_first"),
        py::arg("r_product"), py::arg("threads") = 0);
}

}  // namespace

void register_contraction(py::module_ m) {
    register_factors(m);
    register_closed_forms(m);
    register_schedules(m);
}
