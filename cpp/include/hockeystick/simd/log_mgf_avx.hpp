// The scaled sums of pld/grid/moments.hpp's grid_log_mgf_pass for 4, 8 or 16 lams at once in 256-bit registers (AVX):
// per block of 32 masses each lane's first term e^{lam l_first - shift} (std::exp, as the scalar pass takes it),
// then per mass p_k: sum_j += p_k t_j and t_j *= r_j.  Each is one IEEE multiply and one IEEE add, in the scalar
// pass's order within every lane; the target has no FMA, so no multiply and add are contracted into one rounding.
// So every lane's sum is the scalar pass's, bit for bit.  The scalar pass keeps its eight sums in memory between
// masses (more lanes than SSE2 registers hold), each add waiting on a store and its reload; here the sums and
// terms of eight lams stay in four registers.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "hockeystick/simd/avx2.hpp"

#if HOCKEYSTICK_HAVE_AVX2

namespace hockeystick {
namespace detail {

// sum[j] (4 x `vectors` lanes) as grid_log_mgf_pass forms it: the lams l[j], their shifts and ratios r[j] =
// e^{-|l[j]| h}; `down` walks from the top of the grid.  Needs avx2_fma_available() (AVX is a part of it).
template <int vectors>
__attribute__((target("avx"))) inline void log_mgf_sums_avx(const double* p, std::int64_t n, std::int64_t k_lo,
                                                            double h, const double* l, const double* shift,
                                                            const double* r, bool down, double* sum) {
    constexpr int lanes = 4 * vectors;
    constexpr std::int64_t block = 32;
    __m256d s[vectors], ratio[vectors], t[vectors];
    for (int v = 0; v < vectors; ++v) {
        s[v] = _mm256_setzero_pd();
        ratio[v] = _mm256_loadu_pd(r + 4 * v);
    }
    for (std::int64_t b0 = 0; b0 < n; b0 += block) {
        const std::int64_t b1 = std::min(n, b0 + block);
        const std::int64_t first = down ? n - 1 - b0 : b0;  // the block's largest term
        double start[lanes];
        for (int j = 0; j < lanes; ++j) start[j] = std::exp(l[j] * ((k_lo + first) * h) - shift[j]);
        for (int v = 0; v < vectors; ++v) t[v] = _mm256_loadu_pd(start + 4 * v);
        for (std::int64_t i = b0; i < b1; ++i) {
            const __m256d pk = _mm256_set1_pd(p[down ? n - 1 - i : i]);
            for (int v = 0; v < vectors; ++v) {
                s[v] = _mm256_add_pd(s[v], _mm256_mul_pd(pk, t[v]));
                t[v] = _mm256_mul_pd(t[v], ratio[v]);
            }
        }
    }
    for (int v = 0; v < vectors; ++v) _mm256_storeu_pd(sum + 4 * v, s[v]);
}

}  // namespace detail
}  // namespace hockeystick

#endif
