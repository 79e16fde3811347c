// theta(r, eps) over an array, four lanes at a time with AVX2 + FMA: the same
// decomposition as hockey_stick.hpp (theta_decompose, theta), made branch-free.
//
// Per block of elements, three passes:
//   1. every lane: x1, x2 and x1^2 (double-double where the scalar code uses it, the
//      error-free steps done with FMA), phi(x1) by exp_avx2, M(|x1|) and M(x2) by
//      mills_ratio_avx2, erf near 0 when a lane needs it; the lanes of the direct and
//      difference forms (and those that underflow to 0) are finished here.  Lanes of the
//      quadrature form are queued with (x1, r, phi(x1)); lanes outside the vector
//      code's range are queued for the scalar theta.
//   2. the queued quadrature lanes, packed four to a vector: Gauss-Legendre on N with the
//      largest node count any of the four needs (mills_complement_integral's rule).
//   3. the scalar queue: theta(r, eps) itself.  These are the rare lanes: r or eps 0, inf,
//      NaN or negative; eps/r overflowing; phi(x1) between e^-745.2 and e^-700 (theta near
//      the subnormal range); a threshold within 0.66 of 0 where the quadrature or
//      M(x2) would need erfcx near 0; an argument of M beyond 9.5e7.
// Queueing keeps the expensive quadrature to the lanes that need it (a sixth of typical
// inputs) instead of every vector that holds one such lane.
//
// Results agree with the scalar theta to a few ulp (FMA roundings, and the quadrature
// rule chosen per vector is never coarser than the scalar's choice).
#pragma once

#include <cstddef>
#include <cstdint>

#include "exp_avx2.hpp"
#include "hockey_stick.hpp"
#include "mills_ratio_avx2.hpp"

#if HOCKEYSTICK_HAVE_AVX2

namespace hockeystick {
namespace detail {

struct double_double_avx2 {
    __m256d hi;
    __m256d lo;
};

// Knuth's two-sum, four lanes (as two_sum in error_free.hpp).
HOCKEYSTICK_AVX2 inline double_double_avx2 two_sum_avx2(__m256d a, __m256d b) {
    const __m256d s = _mm256_add_pd(a, b);
    const __m256d bb = _mm256_sub_pd(s, a);
    const __m256d e = _mm256_add_pd(_mm256_sub_pd(a, _mm256_sub_pd(s, bb)), _mm256_sub_pd(b, bb));
    return {s, e};
}

// erf(z) for |z| <= 0.46875, Cody's rational (cody_erf_small), four lanes.
HOCKEYSTICK_AVX2 inline __m256d cody_erf_small_avx2(__m256d z) {
    static constexpr double a[5] = {1.85777706184603153e-1, 3.16112374387056560e00, 1.13864154151050156e02,
                                    3.77485237685302021e02, 3.20937758913846947e03};
    static constexpr double b[5] = {1.0, 2.36012909523441209e01, 2.44024637934444173e02,
                                    1.28261652607737228e03, 2.84423683343917062e03};
    const __m256d y = _mm256_mul_pd(z, z);
    __m256d num = _mm256_set1_pd(a[0]);
    __m256d den = _mm256_set1_pd(b[0]);
#pragma GCC unroll 4
    for (int i = 1; i < 5; ++i) {
        num = _mm256_fmadd_pd(num, y, _mm256_set1_pd(a[i]));
        den = _mm256_fmadd_pd(den, y, _mm256_set1_pd(b[i]));
    }
    return _mm256_div_pd(_mm256_mul_pd(z, num), den);
}

// h * sum_i w_i (N(mid - h t_i) + N(mid + h t_i)): mills_complement_rule<n>, four lanes.
template <int n>
HOCKEYSTICK_AVX2 inline __m256d mills_complement_rule_avx2(__m256d mid, __m256d h) {
    __m256d sum = _mm256_setzero_pd();
#pragma GCC unroll 4
    for (int i = 0; i < n; ++i) {
        const __m256d offset = _mm256_mul_pd(h, _mm256_set1_pd(gauss_legendre<n>::node[i]));
        const __m256d pair = _mm256_add_pd(mills_complement_avx2(_mm256_sub_pd(mid, offset)),
                                           mills_complement_avx2(_mm256_add_pd(mid, offset)));
        sum = _mm256_add_pd(sum, _mm256_mul_pd(_mm256_set1_pd(gauss_legendre<n>::weight[i]), pair));
    }
    return _mm256_mul_pd(h, sum);
}

// integral_{x}^{x+r} N(t) dt for four lanes, with the finest rule mills_complement_integral
// would pick for any of them.
HOCKEYSTICK_AVX2 inline __m256d mills_complement_integral_avx2(__m256d x, __m256d r) {
    const __m256d h = _mm256_mul_pd(_mm256_set1_pd(0.5), r);
    const __m256d mid = _mm256_add_pd(x, h);
    const __m256d abs_mid = _mm256_andnot_pd(_mm256_set1_pd(-0.0), mid);
    const __m256d rho = _mm256_div_pd(h, _mm256_max_pd(abs_mid, _mm256_set1_pd(1.0)));
    // The largest rho of the four lanes picks the rule (as the scalar thresholds would).
    const __m256d swapped = _mm256_max_pd(rho, _mm256_permute4x64_pd(rho, 0x4e));
    const double largest = _mm256_cvtsd_f64(_mm256_max_pd(swapped, _mm256_permute_pd(swapped, 0x5)));
    if (!(largest < 6e-3)) return mills_complement_rule_avx2<4>(mid, h);
    if (!(largest < 1e-3)) return mills_complement_rule_avx2<3>(mid, h);
    if (!(largest < 2e-5)) return mills_complement_rule_avx2<2>(mid, h);
    return mills_complement_rule_avx2<1>(mid, h);
}

constexpr std::size_t theta_block_size = 256;  // a multiple of 4

// One block's intermediate values (structure of arrays, indices relative to the block
// start) and the lanes left for passes 2 and 3.
struct theta_block_state {
    alignas(32) double x1[theta_block_size];
    alignas(32) double x2[theta_block_size];
    alignas(32) double minus_half_square[theta_block_size];  // -x1^2/2, leading double
    alignas(32) double square_lo[theta_block_size];          // x1^2 - its leading double
    alignas(32) double density[theta_block_size];            // phi(x1)
    alignas(32) double mills_x1[theta_block_size];           // M(|x1|)
    alignas(32) double mills_x2[theta_block_size];           // M(x2)
    std::size_t quadrature_count = 0;
    std::uint32_t quadrature_index[theta_block_size];
    alignas(32) double quadrature_x1[theta_block_size];
    alignas(32) double quadrature_r[theta_block_size];
    alignas(32) double quadrature_density[theta_block_size];
    std::size_t scalar_count = 0;
    std::uint32_t scalar_index[theta_block_size];
};

// Lane masks (all-ones or all-zeros per lane) and comparisons that are false for NaN.
HOCKEYSTICK_AVX2 inline __m256d less(__m256d a, __m256d b) { return _mm256_cmp_pd(a, b, _CMP_LT_OQ); }
HOCKEYSTICK_AVX2 inline __m256d less_equal(__m256d a, __m256d b) { return _mm256_cmp_pd(a, b, _CMP_LE_OQ); }
HOCKEYSTICK_AVX2 inline __m256d both(__m256d a, __m256d b) { return _mm256_and_pd(a, b); }
HOCKEYSTICK_AVX2 inline __m256d either(__m256d a, __m256d b) { return _mm256_or_pd(a, b); }
HOCKEYSTICK_AVX2 inline __m256d but_not(__m256d a, __m256d b) { return _mm256_andnot_pd(b, a); }
HOCKEYSTICK_AVX2 inline __m256d constant(double v) { return _mm256_set1_pd(v); }

// Lanes whose x lies where mills_ratio_avx2 applies: 0.46875 < x / sqrt 2 <= 6.71e7.
HOCKEYSTICK_AVX2 inline __m256d in_cody_range(__m256d x) {
    const __m256d z = _mm256_mul_pd(x, constant(constants::sqrt_half));
    return both(less(constant(cody_small), z), less_equal(z, constant(cody_huge)));
}

constexpr double small_threshold = cody_small * 1.41421356237309504880;  // x of Cody's z = 0.46875

// Pass 1 is split into four loops over the block (standardized thresholds; phi(x1);
// the two Mills ratios; the forms and the queues) so that each loop's iterations are
// independent and the processor overlaps them: one vector's chain of dependent FMAs
// is far longer than its instruction count suggests.

// Stage 1: x1, x2 and x1^2 as standardized_thresholds computes them.
HOCKEYSTICK_AVX2 inline void theta_thresholds_avx2(const double* r_in, const double* eps_in, std::size_t n,
                                                   theta_block_state& s) {
    const __m256d sign = constant(-0.0);
    for (std::size_t i = 0; i < n; i += 4) {
        const __m256d r = _mm256_loadu_pd(r_in + i);
        const __m256d eps = _mm256_loadu_pd(eps_in + i);
        const __m256d a = _mm256_div_pd(eps, r);
        // Plain doubles where |x1| < 8 and r < 16 (or |x1| > 1e150), else double-double.
        const __m256d half_r = _mm256_mul_pd(constant(0.5), r);
        const __m256d x1_plain = _mm256_sub_pd(a, half_r);
        const __m256d abs_x1_plain = _mm256_andnot_pd(sign, x1_plain);
        const __m256d plain = either(both(less(abs_x1_plain, constant(8.0)), less(r, constant(16.0))),
                                     less(constant(1e150), abs_x1_plain));
        const __m256d remainder = _mm256_fnmadd_pd(a, r, eps);  // eps - a r, exact
        const double_double_avx2 q = two_sum_avx2(a, _mm256_div_pd(remainder, r));
        double_double_avx2 x1dd = two_sum_avx2(q.hi, _mm256_sub_pd(_mm256_setzero_pd(), half_r));
        x1dd = two_sum_avx2(x1dd.hi, _mm256_add_pd(x1dd.lo, q.lo));
        const __m256d product = _mm256_mul_pd(x1dd.hi, x1dd.hi);
        const __m256d product_error = _mm256_add_pd(_mm256_fmsub_pd(x1dd.hi, x1dd.hi, product),
                                                    _mm256_mul_pd(_mm256_add_pd(x1dd.hi, x1dd.hi), x1dd.lo));
        const double_double_avx2 square = two_sum_avx2(product, product_error);
        _mm256_store_pd(s.x1 + i, _mm256_blendv_pd(x1dd.hi, x1_plain, plain));
        _mm256_store_pd(s.x2 + i, _mm256_blendv_pd(_mm256_add_pd(q.hi, half_r), _mm256_add_pd(a, half_r), plain));
        const __m256d square_hi = _mm256_blendv_pd(square.hi, _mm256_mul_pd(x1_plain, x1_plain), plain);
        _mm256_store_pd(s.minus_half_square + i, _mm256_mul_pd(constant(-0.5), square_hi));
        _mm256_store_pd(s.square_lo + i, _mm256_blendv_pd(square.lo, _mm256_setzero_pd(), plain));
    }
}

// Stage 2: phi(x1) = exp(-x1^2/2) (1 - lo/2) / sqrt(2 pi), as theta_parts::density.
HOCKEYSTICK_AVX2 inline void theta_density_avx2(std::size_t n, theta_block_state& s) {
    for (std::size_t i = 0; i < n; i += 4) {
        const __m256d e = exp_avx2(_mm256_load_pd(s.minus_half_square + i));
        const __m256d correction = _mm256_fnmadd_pd(constant(0.5), _mm256_load_pd(s.square_lo + i), constant(1.0));
        _mm256_store_pd(s.density + i, _mm256_mul_pd(_mm256_mul_pd(constant(constants::inv_sqrt_two_pi), e), correction));
    }
}

// Stage 3: M(|x1|) and M(x2), arguments raised to Cody's range (lanes outside it are
// not used, see stage 4).
HOCKEYSTICK_AVX2 inline void theta_mills_avx2(std::size_t n, theta_block_state& s) {
    const __m256d sign = constant(-0.0);
    const __m256d lowest = constant(small_threshold);
    for (std::size_t i = 0; i < n; i += 4) {
        const __m256d abs_x1 = _mm256_andnot_pd(sign, _mm256_load_pd(s.x1 + i));
        _mm256_store_pd(s.mills_x1 + i, mills_ratio_avx2(_mm256_max_pd(abs_x1, lowest)));
        _mm256_store_pd(s.mills_x2 + i, mills_ratio_avx2(_mm256_max_pd(_mm256_load_pd(s.x2 + i), lowest)));
    }
}

// Appends the lanes of `mask` (bits 0-3) at block offset i to a queue, branch-free.
inline void enqueue(std::uint32_t* queue, std::size_t& count, int mask, std::uint32_t i) {
#pragma GCC unroll 4
    for (std::uint32_t j = 0; j < 4; ++j) {
        queue[count] = i + j;
        count += static_cast<std::size_t>((mask >> j) & 1);
    }
}

// Stage 4: theta_decompose's forms; direct and difference lanes finished, the rest queued.
HOCKEYSTICK_AVX2 inline void theta_forms_avx2(const double* r_in, const double* eps_in, double* out,
                                              std::size_t n, theta_block_state& s) {
    const __m256d zero = _mm256_setzero_pd();
    const __m256d one = constant(1.0);
    const __m256d half = constant(0.5);
    const __m256d infinity = constant(inf);
    const __m256d all = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    for (std::uint32_t i = 0; i < n; i += 4) {
        const __m256d r = _mm256_loadu_pd(r_in + i);
        const __m256d eps = _mm256_loadu_pd(eps_in + i);
        const __m256d x1 = _mm256_load_pd(s.x1 + i);
        const __m256d x2 = _mm256_load_pd(s.x2 + i);
        const __m256d density = _mm256_load_pd(s.density + i);
        const __m256d m1 = _mm256_load_pd(s.mills_x1 + i);
        const __m256d m2 = _mm256_load_pd(s.mills_x2 + i);
        const __m256d log_density =
            _mm256_sub_pd(_mm256_load_pd(s.minus_half_square + i), constant(constants::log_sqrt_two_pi));

        // 0 < r < inf, 0 <= eps < inf and eps/r finite (then x1 < inf); NaN compares false.
        const __m256d ordinary = both(both(less(zero, r), less(r, infinity)),
                                      both(_mm256_cmp_pd(eps, zero, _CMP_GE_OQ), less(x1, infinity)));
        const __m256d quadrature = less_equal(r, _mm256_mul_pd(constant(0.1), _mm256_max_pd(x1, one)));
        const __m256d direct = but_not(less(x1, constant(small_threshold)), quadrature);
        const __m256d difference = but_not(but_not(ordinary, quadrature), direct);
        const __m256d product_form = but_not(ordinary, direct);  // quadrature or difference
        const __m256d underflow = both(product_form, less(log_density, constant(log_underflow)));
        const __m256d near_underflow =
            but_not(but_not(product_form, _mm256_cmp_pd(log_density, constant(-700.0), _CMP_GT_OQ)), underflow);

        // Direct form: Q(x1) - phi(x1) M(x2), Q(x1) by erf near 0, else 1 - phi(x1) M(-x1).
        const __m256d near_zero = less(constant(-small_threshold), x1);
        __m256d q1 = _mm256_sub_pd(one, _mm256_mul_pd(density, m1));
        if (_mm256_movemask_pd(both(direct, near_zero)) != 0) {
            const __m256d erf = cody_erf_small_avx2(_mm256_mul_pd(x1, constant(constants::sqrt_half)));
            q1 = _mm256_blendv_pd(q1, _mm256_fnmadd_pd(half, erf, half), near_zero);
        }
        const __m256d direct_value = _mm256_sub_pd(q1, _mm256_mul_pd(density, m2));
        const __m256d difference_value = _mm256_mul_pd(density, _mm256_sub_pd(m1, m2));
        __m256d value = _mm256_blendv_pd(zero, difference_value, difference);
        value = _mm256_blendv_pd(value, direct_value, direct);
        value = _mm256_blendv_pd(value, zero, underflow);
        _mm256_storeu_pd(out + i, value);

        // Lanes the vector forms do not cover go to the scalar theta (pass 3).
        const __m256d m1_valid = in_cody_range(_mm256_andnot_pd(constant(-0.0), x1));
        const __m256d m2_valid = in_cody_range(x2);
        const __m256d direct_valid = both(m2_valid, either(near_zero, m1_valid));
        const __m256d difference_valid = both(m1_valid, m2_valid);
        const __m256d quadrature_valid = both(less(constant(small_threshold), x1),
                                              less_equal(x2, constant(cody_huge * 1.41421356237309504880)));
        const __m256d live_quadrature = but_not(but_not(both(ordinary, quadrature), underflow), near_underflow);
        __m256d scalar = either(_mm256_xor_pd(ordinary, all), near_underflow);
        scalar = either(scalar, but_not(direct, direct_valid));
        scalar = either(scalar, but_not(but_not(difference, underflow), difference_valid));
        scalar = either(scalar, but_not(live_quadrature, quadrature_valid));
        const int scalar_mask = _mm256_movemask_pd(scalar);
        if (scalar_mask != 0) enqueue(s.scalar_index, s.scalar_count, scalar_mask, i);
        const int quadrature_mask = _mm256_movemask_pd(both(live_quadrature, quadrature_valid));
        if (quadrature_mask != 0) {
            const std::size_t first = s.quadrature_count;
            enqueue(s.quadrature_index, s.quadrature_count, quadrature_mask, i);
            for (std::size_t k = first; k < s.quadrature_count; ++k) {
                const std::uint32_t j = s.quadrature_index[k];
                s.quadrature_x1[k] = s.x1[j];
                s.quadrature_r[k] = r_in[j];
                s.quadrature_density[k] = s.density[j];
            }
        }
    }
}

// Pass 2: phi(x1) * integral_{x1}^{x2} N for the queued lanes, four at a time.
HOCKEYSTICK_AVX2 inline void theta_quadrature_avx2(theta_block_state& s, double* out) {
    const std::size_t count = s.quadrature_count;
    if (count == 0) return;
    for (std::size_t k = count; k % 4 != 0; ++k) {  // pad with copies of the last lane
        s.quadrature_x1[k] = s.quadrature_x1[count - 1];
        s.quadrature_r[k] = s.quadrature_r[count - 1];
        s.quadrature_density[k] = s.quadrature_density[count - 1];
    }
    for (std::size_t k = 0; k < count; k += 4) {
        const __m256d x1 = _mm256_loadu_pd(s.quadrature_x1 + k);
        const __m256d r = _mm256_loadu_pd(s.quadrature_r + k);
        const __m256d density = _mm256_loadu_pd(s.quadrature_density + k);
        alignas(32) double value[4];
        _mm256_store_pd(value, _mm256_mul_pd(density, mills_complement_integral_avx2(x1, r)));
        const std::size_t lanes = count - k < 4 ? count - k : 4;
        for (std::size_t j = 0; j < lanes; ++j) out[s.quadrature_index[k + j]] = value[j];
    }
}

// theta(r[i], eps[i]) -> out[i] for i < n, n a multiple of 4 and at most theta_block_size.
HOCKEYSTICK_AVX2 inline void theta_block_avx2(const double* r, const double* eps, double* out, std::size_t n) {
    theta_block_state s;
    theta_thresholds_avx2(r, eps, n, s);
    theta_density_avx2(n, s);
    theta_mills_avx2(n, s);
    theta_forms_avx2(r, eps, out, n, s);
    theta_quadrature_avx2(s, out);
    for (std::size_t k = 0; k < s.scalar_count; ++k) {
        const std::uint32_t j = s.scalar_index[k];
        out[j] = theta(r[j], eps[j]);
    }
}

// theta(r[i], eps[i]) -> out[i] for i < n; the last n % 4 elements by the scalar theta.
HOCKEYSTICK_AVX2 inline void theta_batch_avx2(const double* r, const double* eps, double* out, std::size_t n) {
    const std::size_t vector_end = n - n % 4;
    std::size_t start = 0;
    while (start < vector_end) {
        const std::size_t m = vector_end - start < theta_block_size ? vector_end - start : theta_block_size;
        theta_block_avx2(r + start, eps + start, out + start, m);
        start += m;
    }
    for (; start < n; ++start) out[start] = theta(r[start], eps[start]);
}

}  // namespace detail
}  // namespace hockeystick

#endif  // HOCKEYSTICK_HAVE_AVX2
