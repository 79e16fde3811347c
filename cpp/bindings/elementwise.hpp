// The flat drivers: a scalar core function element by element over equally shaped,
// C-contiguous float64 arrays (elementwise), or a core function that evaluates a whole
// contiguous range itself (elementwise_batch), or any loop body over a flat range in
// pieces (flat_pieces), or a costly read per element with per-thread state (per_item).  The loop, the thread rule and the NaN policy are loops.hpp's:
// GIL released, OpenMP over pieces, a NaN output raises ValueError with explain's reason
// for the first offending element.  Broadcasting happens in the facade.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "loops.hpp"

namespace hockeystick_bindings {

namespace py = pybind11;
using input_array = py::array_t<double, py::array::c_style | py::array::forcecast>;

inline void check_same_shape(const input_array* in, std::size_t count) {
    for (std::size_t k = 1; k < count; ++k) {
        if (in[k].ndim() != in[0].ndim() || !std::equal(in[0].shape(), in[0].shape() + in[0].ndim(), in[k].shape()))
            throw py::value_error("internal: arrays reaching the core must share one shape");
    }
}

// body(start, count) -> wrote a NaN, over [0, n) in pieces of `piece` elements handed out one at
// a time on demand: the cost of an element may vary along a sorted grid (root solves, regimes),
// and on a shared machine a thread that loses its core leaves its pieces to the other.  Each
// element depends on its own arguments only, so the pieces' order and owner change no bit.
template <class Body>
bool flat_pieces(std::int64_t n, std::int64_t piece, int threads, Body body) {
    const std::int64_t pieces = (n + piece - 1) / piece;
    return parallel_items<no_state>(pieces, resolve_threads(threads, n, pieces), on_demand(1),
                                    [&](std::int64_t p, no_state&) {
                                        const std::int64_t start = p * piece;
                                        return body(start, std::min(piece, n - start));
                                    });
}

// Whether dst[start .. start + count) holds a NaN (checked while the piece is in cache).
inline bool any_nan_in(const double* dst, std::int64_t start, std::int64_t count) {
    int found = 0;
    for (std::int64_t i = start; i < start + count; ++i) found |= dst[i] != dst[i];
    return found != 0;
}

// The shared flat driver: batch(src0 + start, ..., dst + start, count) per piece of `piece` elements.
template <std::size_t N, class Batch, class Explain, std::size_t... I>
py::array_t<double> over_pieces(const std::array<input_array, N>& in, std::int64_t piece, Batch batch, Explain explain,
                                int threads, std::index_sequence<I...>) {
    check_same_shape(in.data(), N);
    const auto& first = in[0];
    std::vector<py::ssize_t> shape(first.shape(), first.shape() + first.ndim());
    py::array_t<double> out(shape);
    const std::int64_t n = static_cast<std::int64_t>(first.size());
    std::array<const double*, N> src{in[I].data()...};
    double* dst = out.mutable_data();
    const bool nan = flat_pieces(n, piece, threads, [&](std::int64_t start, std::int64_t count) {
        batch((src[I] + start)..., dst + start, static_cast<std::size_t>(count));
        return any_nan_in(dst, start, count);
    });
    if (nan)
        raise_first_nan(
            n, [&](std::int64_t i) { return std::isnan(dst[i]); },
            [&](std::int64_t i) { return std::make_pair(std::string(explain(src[I][i]...)), listed(src[I][i]...)); });
    return out;
}

// read(i, x[i], state) for every element of x (any shape) as an item of the per-item driver
// (for_each_item: `work` element evaluations in all, handed out `how`, one State per thread), into
// an array of x's shape; a NaN output raises ValueError with explain(x[i])'s reason for the first.
// For items that each cost far more than an element (a pass over T rounds, a ladder of thresholds).
template <class State = no_state, class Read, class Explain>
py::array_t<double> per_item(const input_array& x, std::int64_t work, int threads, schedule how, Read read,
                             Explain explain) {
    py::array_t<double> out(std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()));
    const double* src = x.data();
    double* dst = out.mutable_data();
    const std::int64_t n = static_cast<std::int64_t>(x.size());
    const bool nan = for_each_item<State>(n, work, threads, how, [&](std::int64_t i, State& state) {
        dst[i] = read(i, src[i], state);
        return std::isnan(dst[i]);
    });
    if (nan)
        raise_first_nan(
            n, [&](std::int64_t i) { return std::isnan(dst[i]); },
            [&](std::int64_t i) { return std::make_pair(std::string(explain(src[i])), listed(src[i])); });
    return out;
}

// kernel(x0, ..., x_{N-1}) for every element, in pieces of element_piece elements (a piece of
// the cheapest kernel, ~50 ns an element, takes ~25 us: far more than handing it out costs).
constexpr std::int64_t element_piece = 512;

template <std::size_t N, class Kernel, class Explain, std::size_t... I>
py::array_t<double> elementwise_impl(const std::array<input_array, N>& in, Kernel kernel, Explain explain, int threads,
                                     std::index_sequence<I...> seq) {
    auto each = [&kernel](std::enable_if_t<(I < N), const double*>... s, double* d, std::size_t count) {
        for (std::size_t k = 0; k < count; ++k) d[k] = kernel(s[k]...);
    };
    return over_pieces<N>(in, element_piece, each, explain, threads, seq);
}

// kernel(x0, ..., x_{N-1}) for every element; explain(x0, ..., x_{N-1}) names the broken rule.
template <std::size_t N, class Kernel, class Explain>
py::array_t<double> elementwise(const std::array<input_array, N>& in, Kernel kernel, Explain explain, int threads) {
    return elementwise_impl<N>(in, kernel, explain, threads, std::make_index_sequence<N>{});
}

// The same contract for a core function that evaluates a whole contiguous range itself,
// batch(src0, ..., dst, count) (e.g. hockeystick::theta_batch, which vectorizes across
// elements), in pieces of batch_piece elements.
constexpr std::int64_t batch_piece = 4096;

template <std::size_t N, class Batch, class Explain>
py::array_t<double> elementwise_batch(const std::array<input_array, N>& in, Batch batch, Explain explain, int threads) {
    return over_pieces<N>(in, batch_piece, batch, explain, threads, std::make_index_sequence<N>{});
}

}  // namespace hockeystick_bindings
