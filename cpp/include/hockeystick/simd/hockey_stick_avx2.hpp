// theta(r, eps) over an array, four lanes at a time with AVX2 + FMA: the decomposition
// of numerics/hockey_stick.hpp (standardized_thresholds, theta_decompose, theta) made branch-free.
//
// Each block of 256 elements runs in stages, each a short loop over independent vectors (the
// processor overlaps as many iterations as its window holds, so one vector's long chain of
// dependent operations, split into k loops, runs about k times faster), and each costly stage
// sees only the lanes it needs:
//   1. classify, every lane: x1 to within a few ulp (eps/r plus its exact remainder over r, by
//      FMA) and the form theta_decompose would choose.  Finishes the lanes whose theta rounds to 0
//      (phi(x1) < e^-745.2) or to 1 (direct form with x1 < -8.5), together half of typical
//      input, and packs the block indices of the direct / difference lanes and of the quadrature
//      lanes into two queues (AVX2 has no compress instruction: a 16-entry table of vpermilps
//      controls does it), one 16-byte store per queue and vector; the later stages load r and
//      eps by index from the block's input, still in L1.
//   2.-4. the direct and difference lanes: x1, x2, x1^2 as standardized_thresholds computes
//      them (double-double where it does, the error-free steps by FMA), phi(x1) by exp_avx2,
//      M(|x1|) and M(x2) by mills_ratio_avx2, then Q(x1) - phi(x1) M(x2) or phi(x1) (M(x1) - M(x2)).
//   5.-6. the quadrature lanes: x1, x1^2 and phi(x1) as in 2, then phi(x1) (M(x1) - M(x2)) in a
//      form without cancellation, by divided differences of Cody's tail rational where
//      x1 > 5.66 (95% of quadrature lanes on typical input), else Gauss-Legendre on N with 8 nodes.
//   7. the rare lanes left to the scalar theta: r or eps 0, inf, NaN or negative; eps/r
//      overflowing; phi(x1) between e^-745.2 and e^-700 (theta near the subnormal range);
//      x2 < 0.66 in the direct form or x1 < 0.66 in the quadrature (erfcx near 0, which
//      needs exp); x2 > 9.5e7 (beyond Cody's tail rational).
//
// Results are as accurate as the scalar theta's (1.6e-14 relative at worst, in the
// quadrature below x1 = 5.7 where N = 1 - x M(x) loses 5 bits) and differ from them by
// less than 3.2e-14 there (1.8e-14 seen), by a few ulp elsewhere: the FMA roundings differ,
// the tail quadrature is computed another way, and below the tail the Gauss-Legendre rule
// is never coarser than the scalar's.
// Each element's result depends on its (r, eps) alone, not on its position or neighbours.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hockeystick/simd/exp_avx2.hpp"
#include "hockeystick/numerics/hockey_stick.hpp"
#include "hockeystick/simd/mills_ratio_avx2.hpp"

#if HOCKEYSTICK_HAVE_AVX2

namespace hockeystick {
namespace detail {

struct double_double_avx2 {
    __m256d hi;
    __m256d lo;
};

// Knuth's two-sum, four lanes (as two_sum in numerics/error_free.hpp).
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
    static constexpr double b[5] = {1.0, 2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
                                    2.84423683343917062e03};
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

constexpr std::size_t theta_block_size = 256;               // a multiple of 4
constexpr std::size_t theta_block_room = theta_block_size + 4;  // whole-vector stores past a count

// Packed lanes of one block: position k holds the block element index[k] and, from the thresholds
// stage on, its r.  Stage 1 stores the indices alone: packing and storing r and eps too (and
// 64-bit indices) took a third of its time, a tenth of the kernel's.
struct theta_lanes {
    std::size_t count = 0;
    alignas(32) std::int32_t index[theta_block_room];
    alignas(32) double r[theta_block_room];
};

// One block's lanes after stage 1, and the intermediate values of the later stages.
struct theta_block_state {
    theta_lanes forms;       // direct and difference forms
    theta_lanes quadrature;  // quadrature form
    // Per lane of the queue in hand (the forms', then the quadrature's):
    alignas(32) double x1[theta_block_room];                 // x1, leading double
    alignas(32) double x2[theta_block_room];                 // x1 + r
    alignas(32) double minus_half_square[theta_block_room];  // -x1^2/2, leading double
    alignas(32) double square_lo[theta_block_room];          // x1^2 - its leading double
    alignas(32) double density[theta_block_room];            // phi(x1)
    alignas(32) double mills_x1[theta_block_room];           // M(|x1|) (forms)
    alignas(32) double mills_x2[theta_block_room];           // M(x2) (forms)
    std::uint32_t near_position[theta_block_room];           // quadrature lanes below Cody's tail
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

constexpr double small_threshold = cody_small * 1.41421356237309504880;  // x at Cody's z = 0.46875

// Left-packing four 32-bit indices (AVX2 has no compress instruction): for each 4-bit lane
// mask, the vpermilps control that moves the selected lanes, in order, to the front.
struct left_pack_table {
    alignas(16) std::int32_t control[16][4];
};

constexpr left_pack_table make_left_pack_table() {
    left_pack_table t{};
    for (int mask = 0; mask < 16; ++mask) {
        int k = 0;
        for (int lane = 0; lane < 4; ++lane) {
            if ((mask >> lane) & 1) t.control[mask][k++] = lane;
        }
    }
    return t;
}

inline constexpr left_pack_table left_pack = make_left_pack_table();

// Appends the indices of the lanes of `mask` at position `count` (a local copy of lanes.count: the
// integer stores below may alias anything, which would force a reload per call).
HOCKEYSTICK_AVX2 inline void append_lanes(theta_lanes& lanes, std::size_t& count, int mask, __m128i index) {
    const __m128i control = _mm_load_si128(reinterpret_cast<const __m128i*>(left_pack.control[mask]));
    const std::size_t k = count;
    _mm_storeu_si128(reinterpret_cast<__m128i*>(lanes.index + k),
                     _mm_castps_si128(_mm_permutevar_ps(_mm_castsi128_ps(index), control)));
    count = k + static_cast<std::size_t>(__builtin_popcount(static_cast<unsigned>(mask)));
}

// Repeats the last lane up to a multiple of 4, so the later stages read whole vectors.
inline void pad_lanes(theta_lanes& lanes) {
    const std::size_t n = lanes.count;
    if (n == 0) return;
    for (std::size_t k = n; k % 4 != 0; ++k) lanes.index[k] = lanes.index[n - 1];
}

// phi(x1) = exp(-x1^2/2) (1 - lo/2) / sqrt(2 pi), as theta_parts::density.
HOCKEYSTICK_AVX2 inline __m256d density_avx2(__m256d minus_half_square, __m256d square_lo) {
    const __m256d correction = _mm256_fnmadd_pd(constant(0.5), square_lo, constant(1.0));
    return _mm256_mul_pd(_mm256_mul_pd(constant(constants::inv_sqrt_two_pi), exp_avx2(minus_half_square)), correction);
}

HOCKEYSTICK_AVX2 inline void scatter(double* out, const std::int32_t* index, __m256d value) {
    alignas(32) double v[4];
    _mm256_store_pd(v, value);
    for (int j = 0; j < 4; ++j) out[index[j]] = v[j];
}

// x1, x2 and x1^2 as standardized_thresholds computes them: plain doubles where |x1| < 8 and
// r < 16 (or |x1| > 1e150), else double-double with the error-free steps by FMA.
struct theta_thresholds_avx2 {
    __m256d x1;                 // leading double
    __m256d x2;                 // x1 + r
    __m256d minus_half_square;  // -x1^2/2, leading double
    __m256d square_lo;          // x1^2 - its leading double
};

HOCKEYSTICK_AVX2 inline theta_thresholds_avx2 thresholds_avx2(__m256d r, __m256d eps) {
    const __m256d zero = _mm256_setzero_pd();
    const __m256d a = _mm256_div_pd(eps, r);
    const __m256d half_r = _mm256_mul_pd(constant(0.5), r);
    const __m256d x1_plain = _mm256_sub_pd(a, half_r);
    const __m256d abs_x1_plain = _mm256_andnot_pd(constant(-0.0), x1_plain);
    const __m256d plain =
        either(both(less(abs_x1_plain, constant(8.0)), less(r, constant(16.0))), less(constant(1e150), abs_x1_plain));
    const __m256d remainder = _mm256_fnmadd_pd(a, r, eps);  // eps - a r, exact
    const double_double_avx2 q = two_sum_avx2(a, _mm256_div_pd(remainder, r));
    double_double_avx2 x1dd = two_sum_avx2(q.hi, _mm256_sub_pd(zero, half_r));
    x1dd = two_sum_avx2(x1dd.hi, _mm256_add_pd(x1dd.lo, q.lo));
    const __m256d product = _mm256_mul_pd(x1dd.hi, x1dd.hi);
    const __m256d product_error = _mm256_add_pd(_mm256_fmsub_pd(x1dd.hi, x1dd.hi, product),
                                                _mm256_mul_pd(_mm256_add_pd(x1dd.hi, x1dd.hi), x1dd.lo));
    const double_double_avx2 square = two_sum_avx2(product, product_error);
    return {_mm256_blendv_pd(x1dd.hi, x1_plain, plain),
            _mm256_blendv_pd(_mm256_add_pd(q.hi, half_r), _mm256_add_pd(a, half_r), plain),
            _mm256_mul_pd(constant(-0.5), _mm256_blendv_pd(square.hi, _mm256_mul_pd(x1_plain, x1_plain), plain)),
            _mm256_blendv_pd(square.lo, zero, plain)};
}

// Stage 1, every lane: theta_decompose's choice of form, made from x1 to within a few ulp
// (eps/r - r/2 plus the division's exact remainder over r, one FMA: no cancellation when r is
// large and x1 small, where eps/r - r/2 alone could miss x1 entirely); the exact thresholds are
// computed later, for the queued lanes only.  Writes the final value of the lanes whose theta
// rounds to 0 or 1 (0 in the others, overwritten later) and sorts the others into the forms,
// quadrature and scalar queues.
// A choice made from this x1 can differ from the scalar code's at a border only:
//   quadrature or not (r <= 0.1 max(x1, 1)), direct or difference (x1 < 0.66): both forms are
//     accurate there (the difference loses at most ~4 bits at the quadrature border);
//   x1 < -8.5 (theta rounds to 1): the direct form rounds to 1 on either side;
//   x2 <= 9.5e7: Cody's tail rational holds on either side;
//   phi(x1) against e^-745.2 and e^-700: log phi(x1) from this x1 errs by < 1e-12, and the lanes
//     within phi_margin of either border go to the scalar code, so every vector lane takes the
//     path the scalar code takes.
constexpr double phi_margin = 1e-9;

HOCKEYSTICK_AVX2 inline void theta_classify_avx2(const double* r_in, const double* eps_in, double* out, std::size_t n,
                                                 theta_block_state& s) {
    const __m256d zero = _mm256_setzero_pd();
    const __m256d one = constant(1.0);
    const __m256d infinity = constant(inf);
    const __m256d all = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    std::size_t forms_count = 0, quadrature_count = 0, scalar_count = 0;
    for (std::uint32_t i = 0; i < n; i += 4) {
        const __m256d r = _mm256_loadu_pd(r_in + i);
        const __m256d eps = _mm256_loadu_pd(eps_in + i);
        const __m256d a = _mm256_div_pd(eps, r);
        const __m256d inverse_r = _mm256_div_pd(one, r);
        const __m256d remainder = _mm256_fnmadd_pd(a, r, eps);  // eps - a r, exact
        const __m256d x1 = _mm256_fmadd_pd(remainder, inverse_r, _mm256_fnmadd_pd(constant(0.5), r, a));
        const __m256d x2 = _mm256_add_pd(x1, r);
        const __m256d log_density =
            _mm256_fnmadd_pd(_mm256_mul_pd(constant(0.5), x1), x1, constant(-constants::log_sqrt_two_pi));

        // 0 < r < inf, 0 <= eps < inf and eps/r finite (then x1 < inf); NaN compares false.
        const __m256d ordinary = both(both(less(zero, r), less(r, infinity)),
                                      both(_mm256_cmp_pd(eps, zero, _CMP_GE_OQ), less(x1, infinity)));
        // theta_decompose's form and theta's treatment of phi(x1) below e^-700.
        const __m256d quadrature = less_equal(r, _mm256_mul_pd(constant(0.1), _mm256_max_pd(x1, one)));
        const __m256d below_small = less(x1, constant(small_threshold));
        const __m256d direct = but_not(below_small, quadrature);
        const __m256d underflow =
            but_not(both(ordinary, less(log_density, constant(log_underflow - phi_margin))), direct);
        // The vector code's range: phi(x1) > e^-700 unless direct (theta's exp/log path
        // below it); x2 <= 9.5e7 (Cody's range, and |x1| <= x2 since eps/r >= 0); x2 > 0.66
        // for M(x2) in the direct form; x1 > 0.66 for the quadrature's nodes.
        const __m256d in_range = both(both(ordinary, either(direct, less(constant(-700.0 + phi_margin), log_density))),
                                      less_equal(x2, constant(cody_huge * 1.41421356237309504880)));
        const __m256d quadrature_ok = both(both(in_range, quadrature), less(constant(small_threshold), x1));
        // Direct form with x1 < -8.5: theta = 1 - Q(-x1) - phi(x1) M(x2) lies within
        // 2 Q(8.5) = 1.9e-17 < 2^-54 of 1 (M(x2) <= M(-x1) as x2 >= -x1), so it rounds to
        // 1, as the scalar code's two subtractions do.
        const __m256d certain_one = both(both(ordinary, direct), less(x1, constant(-8.5)));
        const __m256d forms =
            but_not(both(in_range, either(_mm256_xor_pd(below_small, all), less(constant(small_threshold), x2))),
                    either(quadrature, certain_one));
        const __m256d scalar = _mm256_xor_pd(either(either(forms, quadrature_ok), either(underflow, certain_one)), all);

        _mm256_storeu_pd(out + i, _mm256_and_pd(certain_one, one));
        const __m128i index = _mm_add_epi32(_mm_set1_epi32(static_cast<std::int32_t>(i)), _mm_setr_epi32(0, 1, 2, 3));
        append_lanes(s.forms, forms_count, _mm256_movemask_pd(forms), index);
        append_lanes(s.quadrature, quadrature_count, _mm256_movemask_pd(quadrature_ok), index);
        const int scalar_mask = _mm256_movemask_pd(scalar);
        if (scalar_mask != 0) {
            for (std::uint32_t j = 0; j < 4; ++j)
                if ((scalar_mask >> j) & 1) s.scalar_index[scalar_count++] = i + j;
        }
    }
    s.forms.count = forms_count;
    s.quadrature.count = quadrature_count;
    s.scalar_count = scalar_count;
    pad_lanes(s.forms);
    pad_lanes(s.quadrature);
}

// Stages 2 to 6 are short loops, each one link of a lane's chain of dependent operations: the
// processor overlaps as many iterations of a loop as its window holds, so k short chains run
// about k times faster than one chain k times as long.

// Stage 2 (forms), 5 (quadrature): r (kept in lanes.r), x1, x2 and x1^2 of the queue's lanes.
HOCKEYSTICK_AVX2 inline void theta_thresholds_stage(const double* r_in, const double* eps_in, theta_lanes& lanes,
                                                    theta_block_state& s) {
    for (std::size_t k = 0; k < lanes.count; k += 4) {
        // Four scalar loads: AVX2's vgatherdpd doubled this stage's time on AMD Zen 3.
        const std::int32_t* j = lanes.index + k;
        const __m256d r = _mm256_setr_pd(r_in[j[0]], r_in[j[1]], r_in[j[2]], r_in[j[3]]);
        _mm256_store_pd(lanes.r + k, r);
        const theta_thresholds_avx2 t =
            thresholds_avx2(r, _mm256_setr_pd(eps_in[j[0]], eps_in[j[1]], eps_in[j[2]], eps_in[j[3]]));
        _mm256_store_pd(s.x1 + k, t.x1);
        _mm256_store_pd(s.x2 + k, t.x2);
        _mm256_store_pd(s.minus_half_square + k, t.minus_half_square);
        _mm256_store_pd(s.square_lo + k, t.square_lo);
    }
}

// Stage 2 (forms), 5 (quadrature): phi(x1) of the queue's lanes (> e^-700 there: direct lanes
// have x1 >= -8.5, and the others below e^-700 went to the scalar queue, so no subnormal
// number, which costs a microcode assist per operation, arises in the later stages).
HOCKEYSTICK_AVX2 inline void theta_density_stage(std::size_t count, theta_block_state& s) {
    for (std::size_t k = 0; k < count; k += 4) {
        const __m256d density = density_avx2(_mm256_load_pd(s.minus_half_square + k), _mm256_load_pd(s.square_lo + k));
        _mm256_store_pd(s.density + k, density);
    }
}

// Stage 3, the forms' lanes: M(|x1|) and M(x2), arguments raised to Cody's range (M(|x1|)
// of a lane with |x1| < 0.66 is not used).
HOCKEYSTICK_AVX2 inline void theta_mills_avx2(theta_block_state& s) {
    const __m256d sign = constant(-0.0);
    const __m256d lowest = constant(small_threshold);
    for (std::size_t k = 0; k < s.forms.count; k += 4) {
        const __m256d abs_x1 = _mm256_andnot_pd(sign, _mm256_load_pd(s.x1 + k));
        _mm256_store_pd(s.mills_x1 + k, mills_ratio_avx2(_mm256_max_pd(abs_x1, lowest)));
        _mm256_store_pd(s.mills_x2 + k, mills_ratio_avx2(_mm256_max_pd(_mm256_load_pd(s.x2 + k), lowest)));
    }
}

// Stage 4, the forms' lanes: direct  Q(x1) - phi(x1) M(x2), with Q(x1) by erf near 0,
// else 1 - phi(x1) M(-x1);  difference  phi(x1) (M(x1) - M(x2)).
HOCKEYSTICK_AVX2 inline void theta_forms_avx2(double* out, theta_block_state& s) {
    const __m256d one = constant(1.0);
    const __m256d half = constant(0.5);
    for (std::size_t k = 0; k < s.forms.count; k += 4) {
        const __m256d x1 = _mm256_load_pd(s.x1 + k);
        const __m256d density = _mm256_load_pd(s.density + k);
        const __m256d m1 = _mm256_load_pd(s.mills_x1 + k);
        const __m256d m2 = _mm256_load_pd(s.mills_x2 + k);
        const __m256d direct = less(x1, constant(small_threshold));
        const __m256d near_zero = less(constant(-small_threshold), x1);
        // erf for every vector: 40% of typical vectors hold a direct lane near 0, too many and too
        // irregular for a branch to pay
        const __m256d erf = cody_erf_small_avx2(_mm256_mul_pd(x1, constant(constants::sqrt_half)));
        const __m256d q1 = _mm256_blendv_pd(_mm256_sub_pd(one, _mm256_mul_pd(density, m1)),
                                            _mm256_fnmadd_pd(half, erf, half), near_zero);
        const __m256d direct_value = _mm256_sub_pd(q1, _mm256_mul_pd(density, m2));
        const __m256d difference_value = _mm256_mul_pd(density, _mm256_sub_pd(m1, m2));
        scatter(out, s.forms.index + k, _mm256_blendv_pd(difference_value, direct_value, direct));
    }
}

// Stage 6, the quadrature lanes (after stage 5): phi(x1) * integral_{x1}^{x2} N, by the tail's
// divided differences (mills_difference_tail_avx2) where x1 / sqrt 2 > 4; the other lanes (5% of
// typical quadrature lanes, but in a fifth of the vectors) are gathered four at a time for
// Gauss-Legendre with 8 nodes, which costs about eight times the tail's form: only the vectors
// that need it pay for it.  Each lane's method depends on its x1 alone; 8 nodes is the finest rule
// mills_complement_integral uses, so never coarser than the scalar code's.
HOCKEYSTICK_AVX2 inline void theta_quadrature_avx2(double* out, theta_block_state& s) {
    const theta_lanes& q = s.quadrature;
    const __m256d sqrt_half = constant(constants::sqrt_half);
    std::size_t near_count = 0;
    for (std::size_t k = 0; k < q.count; k += 4) {
        const __m256d x1 = _mm256_load_pd(s.x1 + k);
        const __m256d integral = mills_difference_tail_avx2(x1, _mm256_load_pd(q.r + k));
        scatter(out, q.index + k, _mm256_mul_pd(_mm256_load_pd(s.density + k), integral));
        const int near_mask = 0xf ^ _mm256_movemask_pd(less(constant(cody_large), _mm256_mul_pd(x1, sqrt_half)));
        if (near_mask != 0) {
            for (std::uint32_t j = 0; j < 4; ++j)
                if ((near_mask >> j) & 1) s.near_position[near_count++] = static_cast<std::uint32_t>(k + j);
        }
    }
    if (near_count == 0) return;
    for (std::size_t k = near_count; k % 4 != 0; ++k) s.near_position[k] = s.near_position[near_count - 1];
    const __m256d half = constant(0.5);
    for (std::size_t k = 0; k < near_count; k += 4) {
        const std::uint32_t* p = s.near_position + k;
        const __m256d x1 = _mm256_setr_pd(s.x1[p[0]], s.x1[p[1]], s.x1[p[2]], s.x1[p[3]]);
        const __m256d h = _mm256_mul_pd(half, _mm256_setr_pd(q.r[p[0]], q.r[p[1]], q.r[p[2]], q.r[p[3]]));
        const __m256d density = _mm256_setr_pd(s.density[p[0]], s.density[p[1]], s.density[p[2]], s.density[p[3]]);
        alignas(32) double value[4];
        _mm256_store_pd(value, _mm256_mul_pd(density, mills_complement_rule_avx2<4>(_mm256_add_pd(x1, h), h)));
        for (int j = 0; j < 4; ++j) out[q.index[p[j]]] = value[j];
    }
}

// Asks for the cache lines of the next `n` elements while this block computes: the
// stages after the first touch no input, so without this the memory bus idles through
// them and the next block's first stage waits on it.
HOCKEYSTICK_AVX2 inline void prefetch_block(const double* r, const double* eps, const double* out, std::size_t n) {
    for (std::size_t i = 0; i < n; i += 8) {  // 8 doubles per 64-byte line
        _mm_prefetch(reinterpret_cast<const char*>(r + i), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(eps + i), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(out + i), _MM_HINT_T0);
    }
}

// theta(r[i], eps[i]) -> out[i] for i < n, n a multiple of 4 and at most theta_block_size;
// the following `ahead` elements are prefetched.
HOCKEYSTICK_AVX2 inline void theta_block_avx2(const double* r, const double* eps, double* out, std::size_t n,
                                              std::size_t ahead) {
    theta_block_state s;
    theta_classify_avx2(r, eps, out, n, s);
    prefetch_block(r + n, eps + n, out + n, ahead);
    theta_thresholds_stage(r, eps, s.forms, s);
    theta_density_stage(s.forms.count, s);
    theta_mills_avx2(s);
    theta_forms_avx2(out, s);
    theta_thresholds_stage(r, eps, s.quadrature, s);
    theta_density_stage(s.quadrature.count, s);
    theta_quadrature_avx2(out, s);
    for (std::size_t k = 0; k < s.scalar_count; ++k) {
        const std::uint32_t j = s.scalar_index[k];
        out[j] = theta(r[j], eps[j]);
    }
}

// theta(r[i], eps[i]) -> out[i] for i < n.  Every element takes the same path whatever its
// position and neighbours, so results do not depend on how an array is split.
HOCKEYSTICK_AVX2 inline void theta_batch_avx2(const double* r, const double* eps, double* out, std::size_t n) {
    const std::size_t vector_end = n - n % 4;
    std::size_t start = 0;
    while (start < vector_end) {
        const std::size_t m = vector_end - start < theta_block_size ? vector_end - start : theta_block_size;
        const std::size_t rest = n - start - m;
        theta_block_avx2(r + start, eps + start, out + start, m, rest < theta_block_size ? rest : theta_block_size);
        start += m;
    }
    if (start < n) {  // the last n % 4 elements, padded to a vector with copies of the last
        alignas(32) double r_lanes[4], eps_lanes[4], out_lanes[4];
        for (std::size_t j = 0; j < 4; ++j) {
            r_lanes[j] = r[start + j < n ? start + j : n - 1];
            eps_lanes[j] = eps[start + j < n ? start + j : n - 1];
        }
        theta_block_avx2(r_lanes, eps_lanes, out_lanes, 4, 0);
        for (std::size_t j = 0; start + j < n; ++j) out[start + j] = out_lanes[j];
    }
}

}  // namespace detail
}  // namespace hockeystick

#endif  // HOCKEYSTICK_HAVE_AVX2
