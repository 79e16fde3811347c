// e^x for four doubles at once (AVX2 + FMA), branch-free, within 1 ulp for every x.
//
// Method (Cody & Waite, "Software Manual for the Elementary Functions", 1980, ch. 6;
// Tang, ACM TOMS 15 (1989) 144): x = k ln 2 + t with k = round(x / ln 2) and
// |t| <= ln(2)/2, t formed with a two-part ln 2 (ln2_hi = ln 2 rounded to double,
// ln2_lo = ln 2 - ln2_hi) and FMA, so t carries no error beyond its final rounding;
// e^t by its Taylor polynomial of degree 13 (truncation 4e-18 relative at |t| = 0.347)
// in Horner form with FMA; 2^k assembled from exponent bits as 2^(k - k/2) 2^(k/2),
// two normal powers of two, so results in the subnormal range are rounded once and
// overflow (x > 709.78) gives +inf, deep underflow (x < -745.13) gives 0.
// x is clamped to [-746, 710] first (keeps k in int32 range; NaN passes through).
#pragma once

#include "hockeystick/simd/avx2.hpp"

#if HOCKEYSTICK_HAVE_AVX2

namespace hockeystick {
namespace detail {

HOCKEYSTICK_AVX2 inline __m256d exp_avx2(__m256d x) {
    constexpr double log2e = 1.44269504088896340735992468100189214;
    constexpr double ln2_hi = 0x1.62e42fefa39efp-1;
    constexpr double ln2_lo = 0x1.abc9e3b39803fp-56;
    // 1/k! for k = 13 down to 2 (rounded to double).
    constexpr double taylor[12] = {1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0,
                                   1.0 / 362880.0,     1.0 / 40320.0,     1.0 / 5040.0,     1.0 / 720.0,
                                   1.0 / 120.0,        1.0 / 24.0,        1.0 / 6.0,        0.5};
    // max/min return their second operand when either is NaN: NaN stays NaN.
    x = _mm256_min_pd(_mm256_set1_pd(710.0), _mm256_max_pd(_mm256_set1_pd(-746.0), x));
    const __m256d k =
        _mm256_round_pd(_mm256_mul_pd(x, _mm256_set1_pd(log2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256d t = _mm256_fnmadd_pd(k, _mm256_set1_pd(ln2_hi), x);
    t = _mm256_fnmadd_pd(k, _mm256_set1_pd(ln2_lo), t);
    __m256d p = _mm256_set1_pd(taylor[0]);
#pragma GCC unroll 12
    for (int i = 1; i < 12; ++i) p = _mm256_fmadd_pd(p, t, _mm256_set1_pd(taylor[i]));
    p = _mm256_fmadd_pd(p, t, _mm256_set1_pd(1.0));
    p = _mm256_fmadd_pd(p, t, _mm256_set1_pd(1.0));
    // 2^k = 2^half * 2^(k - half): both factors normal for k in [-1076, 1024].
    const __m128i k32 = _mm256_cvtpd_epi32(k);  // NaN gives INT_MIN; p is NaN anyway
    const __m128i half = _mm_srai_epi32(k32, 1);
    const __m128i rest = _mm_sub_epi32(k32, half);
    const __m256i bias = _mm256_set1_epi64x(1023);
    const __m256d scale_half =
        _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(_mm256_cvtepi32_epi64(half), bias), 52));
    const __m256d scale_rest =
        _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(_mm256_cvtepi32_epi64(rest), bias), 52));
    return _mm256_mul_pd(_mm256_mul_pd(p, scale_rest), scale_half);
}

// exp_avx2 on four doubles in memory (out may be in): for callers without AVX2 types.
HOCKEYSTICK_AVX2 inline void exp_avx2_store(const double* in, double* out) {
    _mm256_storeu_pd(out, exp_avx2(_mm256_loadu_pd(in)));
}

}  // namespace detail
}  // namespace hockeystick

#endif  // HOCKEYSTICK_HAVE_AVX2
