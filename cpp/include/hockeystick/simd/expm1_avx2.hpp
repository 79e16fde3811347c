// e^x - 1 for four doubles at once (AVX2 + FMA), within about 2 ulp for every x.
//
// Method: for |x| <= 1, e^x - 1 = x + x t with t = x (1/2! + x/3! + ... + x^18/20!), the Taylor
// series cut after x^20/20! (truncation below 1/21! = 2e-20 relative to x at |x| = 1), t by Horner
// with FMA from the highest power (|t| <= e - 2 = 0.72, each partial sum dominated by its leading
// coefficient, so t carries about 1 ulp) and x + x t by one FMA: about 1.5 ulp in all.  Outside
// [-1, 1] it is exp_avx2(x) - 1 (simd/exp_avx2.hpp, within 1 ulp, i.e. 2u relative): the subtraction
// multiplies that by e^x / |e^x - 1| (at most e / (e - 1) = 1.58 for x > 1, 0.58 for x < -1) and
// adds its own rounding, so at most 4.2u relative, 2.1 ulp at the worst place of a binade.  The
// exp is evaluated only when one of the four lies outside [-1, 1] (the one branch).  Tested
// against mpmath at 40 digits (tests/test_theta_batch.py): the worst of 10^4 values 1.56 ulp.
// Overflow (x > 709.78) gives +inf, x -> -inf gives -1, NaN stays NaN (exp_avx2's clamps).  The
// polynomial's coefficients are 1/k! rounded to double (each within 1/2 ulp, a relative change of
// the term it scales).
#pragma once

#include "hockeystick/simd/exp_avx2.hpp"

#if HOCKEYSTICK_HAVE_AVX2

namespace hockeystick {
namespace detail {

HOCKEYSTICK_AVX2 inline __m256d expm1_avx2(__m256d x) {
    // 1/k! for k = 20 down to 2 (rounded to double).
    constexpr double taylor[19] = {1.0 / 2432902008176640000.0,
                                   1.0 / 121645100408832000.0,
                                   1.0 / 6402373705728000.0,
                                   1.0 / 355687428096000.0,
                                   1.0 / 20922789888000.0,
                                   1.0 / 1307674368000.0,
                                   1.0 / 87178291200.0,
                                   1.0 / 6227020800.0,
                                   1.0 / 479001600.0,
                                   1.0 / 39916800.0,
                                   1.0 / 3628800.0,
                                   1.0 / 362880.0,
                                   1.0 / 40320.0,
                                   1.0 / 5040.0,
                                   1.0 / 720.0,
                                   1.0 / 120.0,
                                   1.0 / 24.0,
                                   1.0 / 6.0,
                                   0.5};
    __m256d p = _mm256_set1_pd(taylor[0]);
#pragma GCC unroll 18
    for (int i = 1; i < 19; ++i) p = _mm256_fmadd_pd(p, x, _mm256_set1_pd(taylor[i]));
    const __m256d near = _mm256_fmadd_pd(x, _mm256_mul_pd(x, p), x);
    // |x| <= 1 (false for NaN: far keeps it); exp only when a lane needs it
    const __m256d abs_x = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
    const __m256d inside = _mm256_cmp_pd(abs_x, _mm256_set1_pd(1.0), _CMP_LE_OQ);
    if (_mm256_movemask_pd(inside) == 0xF) return near;
    const __m256d far = _mm256_sub_pd(exp_avx2(x), _mm256_set1_pd(1.0));
    return _mm256_blendv_pd(far, near, inside);
}

}  // namespace detail
}  // namespace hockeystick

#endif  // HOCKEYSTICK_HAVE_AVX2
