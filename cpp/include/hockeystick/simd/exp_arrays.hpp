// e^x and e^x - 1 over arrays, in place: four at a time by the AVX2 + FMA kernels (simd/exp_avx2.hpp,
// within 1 ulp; simd/expm1_avx2.hpp, within about 2 ulp) where this CPU runs them, libm's std::exp and
// std::expm1 elsewhere (within 1 ulp).  An array's last 1-3 values go through the same kernel in
// a padded vector, so a value's result does not depend on where it sits in the array.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "hockeystick/simd/exp_avx2.hpp"
#include "hockeystick/simd/expm1_avx2.hpp"
#include "hockeystick/simd/avx2.hpp"

namespace hockeystick {
namespace detail {

#if HOCKEYSTICK_HAVE_AVX2
template <__m256d (*Kernel)(__m256d)>
HOCKEYSTICK_AVX2 inline void apply_avx2(double* v, std::int64_t n) {
    std::int64_t i = 0;
    for (; i + 4 <= n; i += 4) _mm256_storeu_pd(v + i, Kernel(_mm256_loadu_pd(v + i)));
    if (i < n) {
        alignas(32) double lanes[4] = {0.0, 0.0, 0.0, 0.0};
        std::copy(v + i, v + n, lanes);
        _mm256_store_pd(lanes, Kernel(_mm256_load_pd(lanes)));
        std::copy(lanes, lanes + (n - i), v + i);
    }
}
#endif

inline void exp_in_place(double* v, std::int64_t n) {
#if HOCKEYSTICK_HAVE_AVX2
    if (avx2_fma_available()) return apply_avx2<exp_avx2>(v, n);
#endif
    for (std::int64_t i = 0; i < n; ++i) v[i] = std::exp(v[i]);
}

inline void expm1_in_place(double* v, std::int64_t n) {
#if HOCKEYSTICK_HAVE_AVX2
    if (avx2_fma_available()) return apply_avx2<expm1_avx2>(v, n);
#endif
    for (std::int64_t i = 0; i < n; ++i) v[i] = std::expm1(v[i]);
}

}  // namespace detail
}  // namespace hockeystick
