// Bindings of the contraction bounds (papers 000 and 002): convert, loop, nothing more.
//
// The grid kernels take float64 arrays of one common shape that may be broadcast views
// (stride 0 along an axis), so a 10^7-point grid built from a few short axes is read
// in place and never materialized: the loop walks the output in flat chunks, each
// chunk advancing a multi-index odometer.  OpenMP over chunks, GIL released.
// The facade validates every theorem's conditions first; a NaN here is an internal
// error and is reported as such.
#include <hockeystick/contraction_bounds.hpp>
#include <hockeystick/hockeystick.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "elementwise.hpp"

namespace py = pybind11;
using hockeystick_bindings::resolve_threads;

namespace {

using strided_array = py::array_t<double>;  // float64, any strides (no copy for float64 views)

template <std::size_t N, class Kernel>
py::array_t<double> broadcast_apply(const std::array<strided_array, N>& in, Kernel kernel, int threads,
                                    const char* name) {
    const py::ssize_t ndim = in[0].ndim();
    std::vector<py::ssize_t> shape(in[0].shape(), in[0].shape() + ndim);
    for (std::size_t k = 1; k < N; ++k) {
        if (in[k].ndim() != ndim || !std::equal(shape.begin(), shape.end(), in[k].shape()))
            throw py::value_error("internal: arrays reaching the contraction core must share one shape");
    }
    std::array<const char*, N> base{};
    std::vector<std::array<py::ssize_t, N>> strides(static_cast<std::size_t>(ndim));
    for (std::size_t k = 0; k < N; ++k) {
        base[k] = reinterpret_cast<const char*>(in[k].data());
        for (py::ssize_t d = 0; d < ndim; ++d) strides[static_cast<std::size_t>(d)][k] = in[k].strides()[d];
    }
    py::array_t<double> out(shape);
    double* dst = out.mutable_data();
    std::int64_t total = 1;
    for (auto s : shape) total *= s;
    constexpr std::int64_t chunk = 2048;
    const std::int64_t chunks = (total + chunk - 1) / chunk;
    const int nthreads = resolve_threads(threads, total);
    int any_nan = 0;
    {
        py::gil_scoped_release release;
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 4) reduction(| : any_nan)
        for (std::int64_t c = 0; c < chunks; ++c) {
            const std::int64_t begin = c * chunk;
            const std::int64_t end = begin + chunk < total ? begin + chunk : total;
            std::vector<py::ssize_t> index(static_cast<std::size_t>(ndim), 0);
            std::array<std::int64_t, N> offset{};
            std::int64_t rest = begin;
            for (py::ssize_t d = ndim - 1; d >= 0; --d) {
                const auto ud = static_cast<std::size_t>(d);
                index[ud] = rest % shape[ud];
                rest /= shape[ud];
                for (std::size_t k = 0; k < N; ++k) offset[k] += index[ud] * strides[ud][k];
            }
            Kernel local = kernel;  // per-chunk copy: stateful kernels (warm starts) restart each chunk
            for (std::int64_t i = begin; i < end; ++i) {
                std::array<double, N> args;
                for (std::size_t k = 0; k < N; ++k)
                    args[k] = *reinterpret_cast<const double*>(base[k] + offset[k]);
                const double v = std::apply(local, args);
                dst[i] = v;
                any_nan |= std::isnan(v) ? 1 : 0;
                for (py::ssize_t d = ndim - 1; d >= 0; --d) {  // odometer step
                    const auto ud = static_cast<std::size_t>(d);
                    for (std::size_t k = 0; k < N; ++k) offset[k] += strides[ud][k];
                    if (++index[ud] < shape[ud]) break;
                    for (std::size_t k = 0; k < N; ++k) offset[k] -= shape[ud] * strides[ud][k];
                    index[ud] = 0;
                }
            }
        }
    }
    if (any_nan) {
        std::ostringstream msg;
        msg << "hockeystick internal error: " << name
            << " gave NaN for inputs the facade accepted; please report it";
        throw std::runtime_error(msg.str());
    }
    return out;
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

// Per-round schedules: eps (any shape, contiguous) against radii of length T.
template <class Kernel>
py::array_t<double> schedule_apply(const py::array_t<double, py::array::c_style | py::array::forcecast>& x,
                                   Kernel kernel, int threads, const char* name) {
    std::vector<py::ssize_t> shape(x.shape(), x.shape() + x.ndim());
    py::array_t<double> out(shape);
    const double* src = x.data();
    double* dst = out.mutable_data();
    const std::int64_t n = static_cast<std::int64_t>(x.size());
    const int nthreads = resolve_threads(threads, n << 15);  // each point is O(T) work
    int any_nan = 0;
    {
        py::gil_scoped_release release;
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 1) reduction(| : any_nan)
        for (std::int64_t i = 0; i < n; ++i) {
            dst[i] = kernel(src[i]);
            any_nan |= std::isnan(dst[i]) ? 1 : 0;
        }
    }
    if (any_nan) throw std::runtime_error(std::string("hockeystick internal error: ") + name +
                                          " gave NaN for inputs the facade accepted; please report it");
    return out;
}

using contiguous = py::array_t<double, py::array::c_style | py::array::forcecast>;

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

}  // namespace

void register_contraction(py::module_& m) {
    using namespace hockeystick;
    m.def("gaussian_factor_pairs", [](contiguous eps, contiguous r1, contiguous r2, int threads) {
        if (eps.size() != r1.size() || eps.size() != r2.size())
            throw py::value_error("internal: factor inputs must share one shape");
        std::vector<py::ssize_t> shape{4};
        shape.insert(shape.end(), eps.shape(), eps.shape() + eps.ndim());
        py::array_t<double> out(shape);
        const std::int64_t n = static_cast<std::int64_t>(eps.size());
        const double* e = eps.data();
        const double* x = r1.data();
        const double* y = r2.data();
        double* o = out.mutable_data();
        const int nthreads = resolve_threads(threads, n);
        {
            py::gil_scoped_release release;
#pragma omp parallel for num_threads(nthreads) schedule(static)
            for (std::int64_t i = 0; i < n; ++i) {
                const factor_pair f = gaussian_factor_pair(e[i], x[i], y[i]);
                o[i] = f.first_value;
                o[n + i] = f.first_log;
                o[2 * n + i] = f.product_complement;
                o[3 * n + i] = f.product_log;
            }
        }
        return out;
    }, py::arg("epsilon"), py::arg("r_first"), py::arg("r_product"), py::arg("threads") = 0);
    m.def("geometric_bound_from_factors", [](arr w, arr terms, arr av, arr al, arr bc, arr bl, int threads) {
        return broadcast_apply<6>({w, terms, av, al, bc, bl},
                                  [](double a, double t, double x, double y, double z, double u) {
            return geometric_bound_from_factors(a, t, x, y, z, u);
        }, threads, "geometric_bound_from_factors");
    }, py::arg("weight"), py::arg("terms"), py::arg("first_value"), py::arg("first_log"),
       py::arg("product_complement"), py::arg("product_log"), py::arg("threads") = 0);
    m.def("random_stop_bound_from_factors", [](arr w, arr terms, arr stop, arr av, arr al, arr bc, arr bl,
                                               int threads) {
        return broadcast_apply<7>({w, terms, stop, av, al, bc, bl},
                                  [](double a, double t, double s, double x, double y, double z, double u) {
            return random_stop_bound_from_factors(a, t, s, x, y, z, u);
        }, threads, "random_stop_bound_from_factors");
    }, py::arg("weight"), py::arg("terms"), py::arg("first_stop"), py::arg("first_value"), py::arg("first_log"),
       py::arg("product_complement"), py::arg("product_log"), py::arg("threads") = 0);
    m.def("geometric_bound_delta", [](arr eps, arr w, arr terms, arr r1, arr r2, int threads) {
        return broadcast_apply<5>({eps, w, terms, r1, r2}, [](double e, double a, double t, double x, double y) {
            return geometric_bound_delta(e, a, t, x, y);
        }, threads, "geometric_bound_delta");
    }, py::arg("epsilon"), py::arg("weight"), py::arg("terms"), py::arg("r_first"), py::arg("r_product"),
       py::arg("threads") = 0);
    m.def("geometric_bound_epsilon", [](arr delta, arr w, arr terms, arr r1, arr r2, int threads) {
        return broadcast_apply<5>({delta, w, terms, r1, r2},
                                  warm<4>([](double d, hockeystick::evaluated_point* s, double a, double t, double x, double y) {
            return geometric_bound_epsilon(d, a, t, x, y, s);
        }), threads, "geometric_bound_epsilon");
    }, py::arg("delta"), py::arg("weight"), py::arg("terms"), py::arg("r_first"), py::arg("r_product"),
       py::arg("threads") = 0);
    m.def("random_stop_bound_delta", [](arr eps, arr w, arr terms, arr stop, arr r1, arr r2, int threads) {
        return broadcast_apply<6>({eps, w, terms, stop, r1, r2},
                                  [](double e, double a, double t, double s, double x, double y) {
            return random_stop_bound_delta(e, a, t, s, x, y);
        }, threads, "random_stop_bound_delta");
    }, py::arg("epsilon"), py::arg("weight"), py::arg("terms"), py::arg("first_stop"), py::arg("r_first"),
       py::arg("r_product"), py::arg("threads") = 0);
    m.def("random_stop_bound_epsilon", [](arr delta, arr w, arr terms, arr stop, arr r1, arr r2, int threads) {
        return broadcast_apply<6>({delta, w, terms, stop, r1, r2},
                                  warm<5>([](double d, hockeystick::evaluated_point* start, double a, double t, double s, double x, double y) {
            return random_stop_bound_epsilon(d, a, t, s, x, y, start);
        }), threads, "random_stop_bound_epsilon");
    }, py::arg("delta"), py::arg("weight"), py::arg("terms"), py::arg("first_stop"), py::arg("r_first"),
       py::arg("r_product"), py::arg("threads") = 0);
    m.def("power_bound_delta", [](const std::string& noise, arr eps, arr k, arr g1, arr g2, int threads) {
        const noise_kind kind = parse_noise(noise);
        return broadcast_apply<4>({eps, k, g1, g2}, [kind](double e, double x, double a, double b) {
            return power_bound_delta(kind, e, x, a, b);
        }, threads, "power_bound_delta");
    }, py::arg("noise"), py::arg("epsilon"), py::arg("exponent"), py::arg("g_first"), py::arg("g_product"),
       py::arg("threads") = 0);
    m.def("power_bound_epsilon", [](const std::string& noise, arr delta, arr k, arr g1, arr g2, int threads) {
        const noise_kind kind = parse_noise(noise);
        return broadcast_apply<4>({delta, k, g1, g2},
                                  warm<3>([kind](double d, hockeystick::evaluated_point* start, double x, double a, double b) {
            return power_bound_epsilon(kind, d, x, a, b, start);
        }), threads, "power_bound_epsilon");
    }, py::arg("noise"), py::arg("delta"), py::arg("exponent"), py::arg("g_first"), py::arg("g_product"),
       py::arg("threads") = 0);
    m.def("schedule_bound_delta", [](contiguous eps, double weight, std::int64_t first_stop, contiguous r1,
                                     contiguous r2, int threads) {
        const std::int64_t rounds = checked_rounds(r1, r2);
        const double* a = r1.data();
        const double* b = r2.data();
        return schedule_apply(eps, [=](double e) {
            return schedule_bound_delta(e, weight, first_stop, rounds, a, b);
        }, threads, "schedule_bound_delta");
    }, py::arg("epsilon"), py::arg("weight"), py::arg("first_stop"), py::arg("r_first"), py::arg("r_product"),
       py::arg("threads") = 0);
    m.def("schedule_bound_epsilon", [](contiguous delta, double weight, std::int64_t first_stop, contiguous r1,
                                       contiguous r2, int threads) {
        const std::int64_t rounds = checked_rounds(r1, r2);
        const double* a = r1.data();
        const double* b = r2.data();
        return schedule_apply(delta, [=](double d) {
            return schedule_bound_epsilon(d, weight, first_stop, rounds, a, b);
        }, threads, "schedule_bound_epsilon");
    }, py::arg("delta"), py::arg("weight"), py::arg("first_stop"), py::arg("r_first"), py::arg("r_product"),
       py::arg("threads") = 0);
}
