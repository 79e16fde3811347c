// Bindings of the Gaussian tail, theta and their inverses: convert, check, loop.
#include <hockeystick/hockeystick.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "elementwise.hpp"
#include "explain.hpp"

namespace py = pybind11;
using hockeystick_bindings::elementwise;
using hockeystick_bindings::elementwise_batch;
using hockeystick_bindings::input_array;
using hockeystick_bindings::nonnegative;
using hockeystick_bindings::probability_open;

namespace {

std::string explain_r_eps(double r, double eps) {
    std::string why = nonnegative("r", r);
    if (why.empty()) why = nonnegative("epsilon", eps);
    if (why.empty() && std::isinf(r) && std::isinf(eps))
        why = "r and epsilon cannot both be infinite (theta(inf, inf) has no limit)";
    return why;
}

// Test hooks for the vector exp (inside theta_batch) and expm1 (simd/exp_arrays.hpp, the PLD cells' quadrature);
// tests compare them with mpmath.  None where this CPU or compiler has no AVX2 kernels.
template <bool Expm1>
py::object avx2_kernel_for_tests(input_array x) {
#if HOCKEYSTICK_HAVE_AVX2
    if (!hockeystick::detail::avx2_fma_available()) return py::none();
    py::array_t<double> out(x.size());
    std::copy(x.data(), x.data() + x.size(), out.mutable_data());
    if (Expm1)
        hockeystick::detail::expm1_in_place(out.mutable_data(), x.size());
    else
        hockeystick::detail::exp_in_place(out.mutable_data(), x.size());
    return std::move(out);
#else
    (void)x;
    return py::none();
#endif
}

// theta(r, |eps|) for every eps (any shape), rounded outward in the same loop: min(t scale, 1) where t >=
// floor, else `fallback` (a NaN t stays NaN: its reason is raised).  theta_batch runs on the pieces
// elementwise_batch gives it (each result depends on its own arguments alone).  Returns that array, the
// count of eps whose t fell below floor and the count of negative eps (certified_theta.theta_side_at_magnitude).
py::tuple theta_rounded_at_magnitude(double r, const input_array& eps, double scale, double floor, double fallback,
                                     int threads) {
    py::array_t<double> out(std::vector<py::ssize_t>(eps.shape(), eps.shape() + eps.ndim()));
    const double* src = eps.data();
    double* dst = out.mutable_data();
    const std::int64_t n = static_cast<std::int64_t>(eps.size());
    std::atomic<std::int64_t> below{0}, negative{0};
    const bool nan = hockeystick_bindings::flat_pieces(
        n, hockeystick_bindings::batch_piece, threads, [&](std::int64_t start, std::int64_t count) {
            std::vector<double> radius(static_cast<std::size_t>(count), r), magnitude(static_cast<std::size_t>(count));
            std::int64_t piece_negative = 0, piece_below = 0;
            for (std::int64_t k = 0; k < count; ++k) {
                magnitude[k] = std::fabs(src[start + k]);
                piece_negative += src[start + k] < 0.0;
            }
            double* t = dst + start;
            hockeystick::theta_batch(radius.data(), magnitude.data(), t, static_cast<std::size_t>(count));
            for (std::int64_t k = 0; k < count; ++k) {
                if (t[k] >= floor)
                    t[k] = std::min(t[k] * scale, 1.0);
                else if (t[k] == t[k]) {
                    t[k] = fallback;
                    ++piece_below;
                }
            }
            below += piece_below;
            negative += piece_negative;
            return hockeystick_bindings::any_nan_in(dst, start, count);
        });
    if (nan)
        hockeystick_bindings::raise_first_nan(
            n, [&](std::int64_t i) { return std::isnan(dst[i]); },
            [&](std::int64_t i) {
                const double e = std::fabs(src[i]);
                return std::make_pair(explain_r_eps(r, e), hockeystick_bindings::listed(r, e));
            });
    return py::make_tuple(std::move(out), below.load(), negative.load());
}

using unary = std::array<input_array, 1>;
using binary = std::array<input_array, 2>;
using ternary = std::array<input_array, 3>;

}  // namespace

void register_hockey_stick(py::module_ m) {
    m.def("_exp_avx2", &avx2_kernel_for_tests<false>, py::arg("x"));
    m.def("_expm1_avx2", &avx2_kernel_for_tests<true>, py::arg("x"));
    // The scalar theta element by element (theta below runs theta_batch): for tests.
    m.def(
        "_theta_scalar",
        [](input_array r, input_array eps, int threads) {
            return elementwise<2>(
                binary{r, eps}, [](double a, double b) { return hockeystick::theta(a, b); }, explain_r_eps, threads);
        },
        py::arg("r"), py::arg("epsilon"), py::kw_only(), py::arg("threads") = 0);
    m.def(
        "gaussian_tail",
        [](input_array x, int threads) {
            return elementwise<1>(
                unary{x}, [](double v) { return hockeystick::gaussian_tail(v); },
                [](double) { return std::string("x must not be NaN"); }, threads);
        },
        py::arg("x"), py::kw_only(), py::arg("threads") = 0);
    m.def(
        "log_gaussian_tail",
        [](input_array x, int threads) {
            return elementwise<1>(
                unary{x}, [](double v) { return hockeystick::log_gaussian_tail(v); },
                [](double) { return std::string("x must not be NaN"); }, threads);
        },
        py::arg("x"), py::kw_only(), py::arg("threads") = 0);
    m.def(
        "gaussian_tail_inverse",
        [](input_array p, int threads) {
            return elementwise<1>(
                unary{p}, [](double v) { return hockeystick::gaussian_tail_inverse(v); },
                [](double) { return std::string("p must lie in [0, 1]"); }, threads);
        },
        py::arg("p"), py::kw_only(), py::arg("threads") = 0);
    m.def(
        "mills_ratio",
        [](input_array x, int threads) {
            return elementwise<1>(
                unary{x}, [](double v) { return hockeystick::mills_ratio(v); },
                [](double) { return std::string("x must not be NaN"); }, threads);
        },
        py::arg("x"), py::kw_only(), py::arg("threads") = 0);
    m.def(
        "theta",
        [](input_array r, input_array eps, int threads) {
            return elementwise_batch<2>(
                binary{r, eps},
                [](const double* a, const double* b, double* out, std::size_t n) {
                    hockeystick::theta_batch(a, b, out, n);
                },
                explain_r_eps, threads);
        },
        py::arg("r"), py::arg("epsilon"), py::kw_only(), py::arg("threads") = 0);
    m.def("theta_rounded_at_magnitude", &theta_rounded_at_magnitude, py::arg("r"), py::arg("epsilon"), py::kw_only(),
          py::arg("scale"), py::arg("floor"), py::arg("fallback"), py::arg("threads") = 0);
    m.def(
        "log_theta",
        [](input_array r, input_array eps, int threads) {
            return elementwise<2>(
                binary{r, eps}, [](double a, double b) { return hockeystick::log_theta(a, b); }, explain_r_eps,
                threads);
        },
        py::arg("r"), py::arg("epsilon"), py::kw_only(), py::arg("threads") = 0);
    m.def(
        "theta_depsilon",
        [](input_array r, input_array eps, int threads) {
            return elementwise<2>(
                binary{r, eps}, [](double a, double b) { return hockeystick::theta_depsilon(a, b); }, explain_r_eps,
                threads);
        },
        py::arg("r"), py::arg("epsilon"), py::kw_only(), py::arg("threads") = 0);
    m.def(
        "theta_epsilon",
        [](input_array r, input_array delta, int threads) {
            return elementwise<2>(
                binary{r, delta}, [](double a, double b) { return hockeystick::theta_epsilon(a, b); },
                [](double a, double b) {
                    std::string why = nonnegative("r", a);
                    return why.empty() ? probability_open("delta", b) : why;
                },
                threads);
        },
        py::arg("r"), py::arg("delta"), py::kw_only(), py::arg("threads") = 0);
    m.def(
        "theta_radius",
        [](input_array eps, input_array delta, int threads) {
            return elementwise<2>(
                binary{eps, delta}, [](double a, double b) { return hockeystick::theta_radius(a, b); },
                [](double a, double b) {
                    std::string why = nonnegative("epsilon", a);
                    return why.empty() ? probability_open("delta", b) : why;
                },
                threads);
        },
        py::arg("epsilon"), py::arg("delta"), py::kw_only(), py::arg("threads") = 0);
    m.def(
        "laplace_hockey_stick",
        [](input_array distance, input_array scale, input_array eps, int threads) {
            return elementwise<3>(
                ternary{distance, scale, eps},
                [](double d, double s, double e) { return hockeystick::laplace_hockey_stick(d, s, e); },
                [](double d, double s, double e) {
                    std::string why = nonnegative("distance", d);
                    if (why.empty() && !(s > 0.0)) why = "scale must be > 0";
                    if (why.empty()) why = nonnegative("epsilon", e);
                    if (why.empty() && std::isinf(d) && std::isinf(s))
                        why = "distance and scale cannot both be infinite";
                    if (why.empty() && std::isinf(d) && std::isinf(e))
                        why = "distance and epsilon cannot both be infinite";
                    return why;
                },
                threads);
        },
        py::arg("distance"), py::arg("scale"), py::arg("epsilon"), py::kw_only(), py::arg("threads") = 0);
}
