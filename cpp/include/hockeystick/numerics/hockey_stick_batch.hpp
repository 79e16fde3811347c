// theta over whole arrays: out[i] = theta(r[i], eps[i]).
//
// On x86-64 CPUs with AVX2 and FMA (checked at run time) the vectorized kernel of
// simd/hockey_stick_avx2.hpp evaluates four elements at a time; elsewhere, and for any
// element that kernel does not cover, the scalar theta of numerics/hockey_stick.hpp.  Either way
// each result is within theta's own error (1.6e-14 relative) of the truth, so within
// 3.2e-14 of theta(r[i], eps[i]) (NaN where it gives NaN), and depends on (r[i], eps[i])
// alone, so splitting an array into pieces (threads, chunks) never changes a result.
#pragma once

#include <cstddef>

#include "hockeystick/numerics/hockey_stick.hpp"
#include "hockeystick/simd/hockey_stick_avx2.hpp"
#include "hockeystick/simd/avx2.hpp"

namespace hockeystick {

inline void theta_batch(const double* r, const double* eps, double* out, std::size_t n) {
#if HOCKEYSTICK_HAVE_AVX2
    if (detail::avx2_fma_available()) {
        detail::theta_batch_avx2(r, eps, out, n);
        return;
    }
#endif
    for (std::size_t i = 0; i < n; ++i) out[i] = theta(r[i], eps[i]);
}

}  // namespace hockeystick
