// The strided-broadcast driver: a scalar core function over float64 arrays of one common
// shape that may be broadcast views (stride 0 along an axis), read in place, so a 10^7-point
// grid built from a few short axes is never materialized.  The output is walked in flat
// chunks of broadcast_chunk elements, each chunk advancing a multi-index odometer; chunks
// are handed out on demand (loops.hpp: thread rule, GIL released, NaN -> ValueError with
// explain's reason for the first offending element).
//
// A kernel may carry state from one element to the next (a warm start): it is copied afresh
// for every chunk, and chunk boundaries do not depend on the thread count, so neither do results.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "loops.hpp"

namespace hockeystick_bindings {

namespace py = pybind11;
using strided_array = py::array_t<double>;  // float64, any strides (no copy for float64 views)

constexpr std::int64_t broadcast_chunk = 2048;

// Where element `flat` of each input lives: byte offsets from the inputs' data pointers.
template <std::size_t N>
class strided_inputs {
  public:
    explicit strided_inputs(const std::array<strided_array, N>& in)
        : shape_(in[0].shape(), in[0].shape() + in[0].ndim()), strides_(shape_.size()) {
        for (std::size_t k = 0; k < N; ++k) {
            if (in[k].ndim() != in[0].ndim() || !std::equal(shape_.begin(), shape_.end(), in[k].shape()))
                throw py::value_error("internal: arrays reaching the core must share one shape");
            base_[k] = reinterpret_cast<const char*>(in[k].data());
            for (std::size_t d = 0; d < shape_.size(); ++d) strides_[d][k] = in[k].strides()[d];
        }
    }
    const std::vector<py::ssize_t>& shape() const { return shape_; }
    std::int64_t size() const {
        std::int64_t total = 1;
        for (auto s : shape_) total *= s;
        return total;
    }
    // Runs kernel over flat elements [begin, end): dst[i] = kernel(x0(i), ..., x_{N-1}(i)).
    template <class Kernel>
    bool apply(Kernel& kernel, std::int64_t begin, std::int64_t end, double* dst) const {
        const std::size_t ndim = shape_.size();
        std::vector<py::ssize_t> index(ndim, 0);
        std::array<std::int64_t, N> offset{};
        std::int64_t rest = begin;
        for (std::size_t d = ndim; d-- > 0;) {
            index[d] = rest % shape_[d];
            rest /= shape_[d];
            for (std::size_t k = 0; k < N; ++k) offset[k] += index[d] * strides_[d][k];
        }
        int nan = 0;
        for (std::int64_t i = begin; i < end; ++i) {
            const double v = std::apply(kernel, values(offset));
            dst[i] = v;
            nan |= std::isnan(v) ? 1 : 0;
            for (std::size_t d = ndim; d-- > 0;) {  // odometer step
                for (std::size_t k = 0; k < N; ++k) offset[k] += strides_[d][k];
                if (++index[d] < shape_[d]) break;
                for (std::size_t k = 0; k < N; ++k) offset[k] -= shape_[d] * strides_[d][k];
                index[d] = 0;
            }
        }
        return nan != 0;
    }
    // The arguments of flat element i.
    std::array<double, N> at(std::int64_t i) const {
        std::array<std::int64_t, N> offset{};
        for (std::size_t d = shape_.size(); d-- > 0;) {
            for (std::size_t k = 0; k < N; ++k) offset[k] += (i % shape_[d]) * strides_[d][k];
            i /= shape_[d];
        }
        return values(offset);
    }

  private:
    std::array<double, N> values(const std::array<std::int64_t, N>& offset) const {
        std::array<double, N> v;
        for (std::size_t k = 0; k < N; ++k) v[k] = *reinterpret_cast<const double*>(base_[k] + offset[k]);
        return v;
    }
    std::vector<py::ssize_t> shape_;
    std::vector<std::array<py::ssize_t, N>> strides_;
    std::array<const char*, N> base_{};
};

// kernel(x0, ..., x_{N-1}) at every point of the common shape; explain(x0, ..., x_{N-1}) names
// the argument and rule a NaN output breaks (empty string: the arguments are valid).
template <std::size_t N, class Kernel, class Explain>
py::array_t<double> broadcast_elementwise(const std::array<strided_array, N>& in, Kernel kernel, Explain explain,
                                          int threads) {
    const strided_inputs<N> inputs(in);
    py::array_t<double> out(inputs.shape());
    double* dst = out.mutable_data();
    const std::int64_t total = inputs.size();
    const std::int64_t chunks = (total + broadcast_chunk - 1) / broadcast_chunk;
    const bool nan = parallel_items<no_state>(
        chunks, resolve_threads(threads, total, chunks), balanced(chunks, 4), [&](std::int64_t c, no_state&) {
            Kernel local = kernel;  // per-chunk copy: stateful kernels (warm starts) restart each chunk
            const std::int64_t begin = c * broadcast_chunk;
            return inputs.apply(local, begin, std::min(begin + broadcast_chunk, total), dst);
        });
    if (nan)
        raise_first_nan(
            total, [&](std::int64_t i) { return std::isnan(dst[i]); },
            [&](std::int64_t i) {
                const std::array<double, N> args = inputs.at(i);
                return std::make_pair(std::string(std::apply(explain, args)),
                                      std::apply([](auto... v) { return listed(v...); }, args));
            });
    return out;
}

}  // namespace hockeystick_bindings
