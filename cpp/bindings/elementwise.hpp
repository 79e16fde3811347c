// Element-wise evaluation of a scalar core function over equally shaped,
// C-contiguous float64 arrays: GIL released, OpenMP over the flat index.
//
// elementwise_batch does the same for a core function that takes whole arrays.
//
// The core returns NaN only outside its domain.  When any output is NaN the
// binding finds the first such element and raises ValueError with the message
// that `explain(args...)` gives for it (argument name and rule), so no NaN
// ever reaches the caller.  Broadcasting happens in the facade.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace hockeystick_bindings {

namespace py = pybind11;
using input_array = py::array_t<double, py::array::c_style | py::array::forcecast>;

// threads <= 0: all cores for large work (n >= 2^15 units), one below.  An explicit
// count is capped at 4x the processors, so a typo cannot make OpenMP allocate a
// stack per requested thread and abort the process.
inline int resolve_threads(int threads, std::int64_t n) {
#ifdef _OPENMP
    if (threads <= 0) return n >= (1 << 15) ? omp_get_max_threads() : 1;
    return std::min(threads, 4 * omp_get_num_procs());
#else
    (void)n;
    (void)threads;
    return 1;
#endif
}

inline void check_same_shape(const input_array* in, std::size_t count) {
    for (std::size_t k = 1; k < count; ++k) {
        if (in[k].ndim() != in[0].ndim() || !std::equal(in[0].shape(), in[0].shape() + in[0].ndim(), in[k].shape()))
            throw py::value_error("internal: arrays reaching the core must share one shape");
    }
}

// After a kernel wrote NaN somewhere: raise for the first NaN output, with explain's reason.
template <std::size_t N, class Explain, std::size_t... I>
[[noreturn]] void raise_first_nan(const std::array<const double*, N>& src, const double* dst, std::int64_t n,
                                  Explain explain, std::index_sequence<I...>) {
    for (std::int64_t i = 0; i < n; ++i) {
        if (!std::isnan(dst[i])) continue;
        std::string why = explain(src[I][i]...);
        std::ostringstream msg;
        msg.precision(17);
        if (why.empty()) {
            msg << "hockeystick internal error: NaN for valid input (";
            ((msg << (I ? ", " : "") << src[I][i]), ...);
            msg << "); please report it";
            throw std::runtime_error(msg.str());
        }
        msg << why << " (first offending element at flat index " << i << ": ";
        ((msg << (I ? ", " : "") << src[I][i]), ...);
        msg << ")";
        throw py::value_error(msg.str());
    }
    throw std::runtime_error("hockeystick internal error: a NaN was reported but none was found");
}

// The shared driver: the flat index split into pieces of `piece` elements, each handed to
// batch(src0 + start, ..., dst + start, count) in parallel and checked for NaN while in cache.
template <std::size_t N, class Batch, class Explain, std::size_t... I>
py::array_t<double> over_pieces(const std::array<input_array, N>& in, std::int64_t piece, Batch batch,
                                Explain explain, int threads, std::index_sequence<I...> seq) {
    check_same_shape(in.data(), N);
    const auto& first = in[0];
    std::vector<py::ssize_t> shape(first.shape(), first.shape() + first.ndim());
    py::array_t<double> out(shape);
    const std::int64_t n = static_cast<std::int64_t>(first.size());
    std::array<const double*, N> src{in[I].data()...};
    double* dst = out.mutable_data();
    const std::int64_t pieces = (n + piece - 1) / piece;
    const int nthreads = resolve_threads(threads, n);
    int any_nan = 0;
    {
        py::gil_scoped_release release;
#pragma omp parallel for num_threads(nthreads) schedule(static) reduction(| : any_nan)
        for (std::int64_t p = 0; p < pieces; ++p) {
            const std::int64_t start = p * piece;
            const std::int64_t count = std::min(piece, n - start);
            batch((src[I] + start)..., dst + start, static_cast<std::size_t>(count));
            int piece_nan = 0;
            for (std::int64_t i = start; i < start + count; ++i) piece_nan |= dst[i] != dst[i];
            any_nan |= piece_nan;
        }
    }
    if (any_nan) raise_first_nan<N>(src, dst, n, explain, seq);
    return out;
}

template <std::size_t N, class Kernel, class Explain, std::size_t... I>
py::array_t<double> elementwise_impl(const std::array<input_array, N>& in, Kernel kernel, Explain explain,
                                     int threads, std::index_sequence<I...> seq) {
    auto each = [&kernel](std::enable_if_t<(I < N), const double*>... s, double* d, std::size_t count) {
        for (std::size_t k = 0; k < count; ++k) d[k] = kernel(s[k]...);
    };
    return over_pieces<N>(in, 1, each, explain, threads, seq);
}

// kernel(x0, ..., x_{N-1}) for every element, one element per piece: a kernel's cost may vary
// a lot between elements (root solves), so the static schedule balances elements.
template <std::size_t N, class Kernel, class Explain>
py::array_t<double> elementwise(const std::array<input_array, N>& in, Kernel kernel, Explain explain,
                                int threads) {
    return elementwise_impl<N>(in, kernel, explain, threads, std::make_index_sequence<N>{});
}

// The same contract for a core function that evaluates a whole contiguous range itself,
// batch(src0, ..., dst, count) (e.g. hockeystick::theta_batch, which vectorizes across
// elements), in pieces of batch_piece elements.
constexpr std::int64_t batch_piece = 4096;

template <std::size_t N, class Batch, class Explain>
py::array_t<double> elementwise_batch(const std::array<input_array, N>& in, Batch batch, Explain explain,
                                      int threads) {
    return over_pieces<N>(in, batch_piece, batch, explain, threads, std::make_index_sequence<N>{});
}

}  // namespace hockeystick_bindings
