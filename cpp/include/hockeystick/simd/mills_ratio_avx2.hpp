// The Mills ratio M(x) and its complement N(x) = 1 - x M(x) for four x >= 0.6629 at
// once (AVX2 + FMA), branch-free: Cody's erfcx rationals of numerics/mills_ratio.hpp, with the
// regime chosen per lane by blending coefficients instead of branching.
//
//   0.46875 < z <= 4 (z = x / sqrt 2):  erfcx(z) = P(z) / Q(z)              (8/8 in z)
//   z > 4:                              erfcx(z) = (Q(y)/sqrt(pi) - P(y)) / (z Q(y)),
//                                       N(x) = sqrt(pi) P(y) / Q(y)          (5/6 in y = z^2)
//
// Both regimes are one Horner evaluation of degree 8 in t = z or t = y, the tail's
// polynomials padded with leading zero coefficients (which leave Horner's steps
// unchanged), so a vector whose lanes straddle z = 4 costs no more than one that does
// not.  Valid for 0.46875 < z <= 6.71e7 (cody_small, cody_huge); callers send other
// lanes to the scalar functions.
#pragma once

#include "hockeystick/numerics/mills_ratio.hpp"
#include "hockeystick/simd/avx2.hpp"

#if HOCKEYSTICK_HAVE_AVX2

namespace hockeystick {
namespace detail {

struct cody_rational_avx2 {
    __m256d z;     // x / sqrt 2
    __m256d tail;  // all-ones where z > 4
    __m256d p;     // numerator polynomial of the lane's regime
    __m256d q;     // denominator polynomial of the lane's regime
};

// Coefficient i of both regimes as {mid, tail, mid, tail}, from the highest power down (as
// the scalar Horner loops use them): vpermilpd then picks a lane's regime in one step.
struct cody_coefficient_pair {
    alignas(32) double p[4];
    alignas(32) double q[4];
};

constexpr cody_coefficient_pair cody_pair(double mid_p, double tail_p, double mid_q, double tail_q) {
    return {{mid_p, tail_p, mid_p, tail_p}, {mid_q, tail_q, mid_q, tail_q}};
}

// mid: P = c8 z^8 + c0 z^7 + ... + c7, Q = z^8 + d0 z^7 + ... + d7 (cody_erfcx_mid);
// tail: P = p4 y^5 + ... + p0 y + p5, Q = (q4 y^5 + ... + q0 y + 1) y (cody_tail_rational).
alignas(32) inline constexpr cody_coefficient_pair cody_coefficients[9] = {
    cody_pair(2.15311535474403846e-8, 0.0, 1.0, 0.0),
    cody_pair(5.64188496988670089e-1, 0.0, 1.57449261107098347e01, 0.0),
    cody_pair(8.88314979438837594e00, 0.0, 1.17693950891312499e02, 2.33520497626869185e-3),
    cody_pair(6.61191906371416295e01, 6.58749161529837803e-4, 5.37181101862009858e02, 6.05183413124413191e-2),
    cody_pair(2.98635138197400131e02, 1.60837851487422766e-2, 1.62138957456669019e03, 5.27905102951428412e-1),
    cody_pair(8.81952221241769090e02, 1.25781726111229246e-1, 3.29079923573345963e03, 1.87295284992346047e00),
    cody_pair(1.71204761263407058e03, 3.60344899949804439e-1, 4.36261909014324716e03, 2.56852019228982242e00),
    cody_pair(2.05107837782607147e03, 3.05326634961232344e-1, 3.43936767414372164e03, 1.0),
    cody_pair(1.23033935479799725e03, 1.63153871373020978e-2, 1.23033935480374942e03, 0.0),
};

HOCKEYSTICK_AVX2 inline cody_rational_avx2 cody_rational(__m256d x) {
    const __m256d z = _mm256_mul_pd(x, _mm256_set1_pd(constants::sqrt_half));
    const __m256d tail = _mm256_cmp_pd(z, _mm256_set1_pd(cody_large), _CMP_GT_OQ);
    const __m256d t = _mm256_blendv_pd(z, _mm256_mul_pd(z, z), tail);
    // vpermilpd reads bit 1 of each 64-bit control: 2 selects the tail coefficient.
    const __m256i pick = _mm256_and_si256(_mm256_castpd_si256(tail), _mm256_set1_epi64x(2));
    __m256d p = _mm256_permutevar_pd(_mm256_load_pd(cody_coefficients[0].p), pick);
    __m256d q = _mm256_permutevar_pd(_mm256_load_pd(cody_coefficients[0].q), pick);
#pragma GCC unroll 8
    for (int i = 1; i < 9; ++i) {
        p = _mm256_fmadd_pd(p, t, _mm256_permutevar_pd(_mm256_load_pd(cody_coefficients[i].p), pick));
        q = _mm256_fmadd_pd(q, t, _mm256_permutevar_pd(_mm256_load_pd(cody_coefficients[i].q), pick));
    }
    return {z, tail, p, q};
}

// M(x) = sqrt(pi/2) erfcx(x / sqrt 2).
HOCKEYSTICK_AVX2 inline __m256d mills_ratio_avx2(__m256d x) {
    const cody_rational_avx2 c = cody_rational(x);
    const __m256d tail_num = _mm256_fmsub_pd(_mm256_set1_pd(constants::inv_sqrt_pi), c.q, c.p);
    const __m256d num = _mm256_blendv_pd(c.p, tail_num, c.tail);
    const __m256d den = _mm256_blendv_pd(c.q, _mm256_mul_pd(c.z, c.q), c.tail);
    return _mm256_mul_pd(_mm256_set1_pd(constants::sqrt_half_pi), _mm256_div_pd(num, den));
}

// N(x) = 1 - x M(x): sqrt(pi) P/Q in the tail (no cancellation), 1 - x M(x) below it.
HOCKEYSTICK_AVX2 inline __m256d mills_complement_avx2(__m256d x) {
    const cody_rational_avx2 c = cody_rational(x);
    const __m256d ratio = _mm256_div_pd(c.p, c.q);
    const __m256d tail_value = _mm256_mul_pd(_mm256_set1_pd(constants::sqrt_pi), ratio);
    const __m256d x_mills = _mm256_mul_pd(x, _mm256_mul_pd(_mm256_set1_pd(constants::sqrt_half_pi), ratio));
    return _mm256_blendv_pd(_mm256_sub_pd(_mm256_set1_pd(1.0), x_mills), tail_value, c.tail);
}

// M(x1) - M(x2) = integral_{x1}^{x2} N for four lanes with x1 / sqrt 2 > 4 and x2 = x1 + r,
// without the cancellation of the two Mills ratios when r << x1.  In the tail
// M(x) = sqrt(pi/2) A(y) / z with A = 1/sqrt(pi) - S, S = P/Q Cody's rational in y = z^2;
// with d = z2 - z1 = r / sqrt 2 and y2 - y1 = d (z1 + z2),
//   M(x1) - M(x2) = sqrt(pi/2) d [A(y2) / (z1 z2) + (z1 + z2) S[y1, y2] / z1],
//   S[y1, y2] = (P[y1, y2] - S(y2) Q[y1, y2]) / Q(y1)   (divided differences),
// where P[y1, y2] comes with P(y2) from Horner's scheme (P_k = y P_{k-1} + c_k gives
// P_k[y1, y2] = y1 P_{k-1}[y1, y2] + P_{k-1}(y2)), a sum of positive terms since Cody's tail
// coefficients are positive: no cancellation for any r.  The subtraction in S[y1, y2] loses
// under 3 bits and its term is at most 1/z^2 <= 1/16 of the first, so the result is within
// a few ulp; three divisions replace the 2 to 8 of Gauss-Legendre on N.
HOCKEYSTICK_AVX2 inline __m256d mills_difference_tail_avx2(__m256d x1, __m256d r) {
    const __m256d sqrt_half = _mm256_set1_pd(constants::sqrt_half);
    const __m256d z1 = _mm256_mul_pd(x1, sqrt_half);
    const __m256d d = _mm256_mul_pd(r, sqrt_half);
    const __m256d z2 = _mm256_add_pd(z1, d);
    const __m256d y1 = _mm256_mul_pd(z1, z1);
    const __m256d y2 = _mm256_mul_pd(z2, z2);
    // P (degree 5, coefficients 3..8 of the table) and Q (degree 6, coefficients 2..8).
    __m256d p2 = _mm256_set1_pd(cody_coefficients[3].p[1]);
    __m256d p_slope = _mm256_setzero_pd();
#pragma GCC unroll 6
    for (int i = 4; i < 9; ++i) {
        p_slope = _mm256_fmadd_pd(p_slope, y1, p2);
        p2 = _mm256_fmadd_pd(p2, y2, _mm256_set1_pd(cody_coefficients[i].p[1]));
    }
    __m256d q1 = _mm256_set1_pd(cody_coefficients[2].q[1]);
    __m256d q2 = q1;
    __m256d q_slope = _mm256_setzero_pd();
#pragma GCC unroll 7
    for (int i = 3; i < 9; ++i) {
        q_slope = _mm256_fmadd_pd(q_slope, y1, q2);
        q2 = _mm256_fmadd_pd(q2, y2, _mm256_set1_pd(cody_coefficients[i].q[1]));
        q1 = _mm256_fmadd_pd(q1, y1, _mm256_set1_pd(cody_coefficients[i].q[1]));
    }
    const __m256d s2 = _mm256_div_pd(p2, q2);
    const __m256d s_slope = _mm256_div_pd(_mm256_fnmadd_pd(s2, q_slope, p_slope), q1);  // < 0
    const __m256d a2 = _mm256_sub_pd(_mm256_set1_pd(constants::inv_sqrt_pi), s2);
    // [A(y2) + (z1 + z2) z2 S[y1, y2]] / (z1 z2)
    const __m256d bracket =
        _mm256_div_pd(_mm256_fmadd_pd(_mm256_mul_pd(_mm256_add_pd(z1, z2), z2), s_slope, a2), _mm256_mul_pd(z1, z2));
    return _mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(constants::sqrt_half_pi), d), bracket);
}

}  // namespace detail
}  // namespace hockeystick

#endif  // HOCKEYSTICK_HAVE_AVX2
