// The Gaussian density's exponent at quadrature nodes, exact to first order (the PLD cells'
// kernels, pld/grid/cells.hpp).
//
// A node v = (base + dx) + shift (base a cell's start, dx the node's offset, shift 0 or -1) has
//   l - (v / s)^2 / 2 = argument + correction   (to first order in u),
// and the kernels take e^{argument} (1 + correction).  Each rounding is kept: the sums (two_sum),
// z = v_hi / s through inv_s and its exact residual v_hi - z s, and z^2 (exact products), so
// e^{argument} (1 + correction) is within a few u of the exact value, where fl(v inv_s)^2 carried up to
// (v/s)^2 u (~80u of a tail cell's mass at v/s = 9, against 40-digit integrals).
//
// gaussian_exponents does a batch four nodes at a time with AVX2 + FMA where the CPU has them, and
// one at a time elsewhere.  Both give the same bits: every step is either one rounding of the same
// operands in the same order or an error-free transformation, whose remainder is exact whether it
// comes from Dekker's product (numerics/error_free.hpp) or from an FMA.
#pragma once

#include <algorithm>
#include <cstdint>

#include "hockeystick/numerics/error_free.hpp"
#include "hockeystick/simd/avx2.hpp"

namespace hockeystick {
namespace detail {

// s with its Veltkamp split (for Dekker's product z s) and 1 / s.
struct SplitScale {
    double s = 1.0, inv_s = 1.0, s_hi = 1.0, s_lo = 0.0;  // s = s_hi + s_lo, each half of 26 bits
    SplitScale() = default;
    explicit SplitScale(double scale) : s(scale), inv_s(1.0 / scale) {
        const double c = 134217729.0 * scale;
        s_hi = c - (c - scale);
        s_lo = scale - s_hi;
    }
};

struct ExponentTerms {
    double argument, factor;  // e^{l - (v/s)^2 / 2} = e^{argument} factor to a few u
};

// One node (the scalar path, also the kernels' cell-at-a-time evaluation).
inline ExponentTerms gaussian_exponent(double base, double dx, double shift, double l, const SplitScale& k) {
    const double_double x = two_sum(base, dx), v = two_sum(x.hi, shift);
    const double v_lo = v.lo + x.lo;
    const double z = v.hi * k.inv_s;
    const double c = 134217729.0 * z, z_hi = c - (c - z), z_lo = z - z_hi;
    const double zs = z * k.s, zs_lo = ((z_hi * k.s_hi - zs) + z_hi * k.s_lo + z_lo * k.s_hi) + z_lo * k.s_lo;
    const double dz = (((v.hi - zs) - zs_lo) + v_lo) * k.inv_s;  // v / s - z to first order
    const double zz = z * z, zz_lo = ((z_hi * z_hi - zz) + 2.0 * (z_hi * z_lo)) + z_lo * z_lo;
    const double correction = -0.5 * zz_lo - z * dz;
    const double_double a = two_sum(l, -0.5 * zz);
    return {a.hi, 1.0 + (a.lo + correction)};
}

#if HOCKEYSTICK_HAVE_AVX2
HOCKEYSTICK_AVX2 inline __m256d two_sum4(__m256d a, __m256d b, __m256d& lo) {
    const __m256d sum = _mm256_add_pd(a, b), bb = _mm256_sub_pd(sum, a);
    lo = _mm256_add_pd(_mm256_sub_pd(a, _mm256_sub_pd(sum, bb)), _mm256_sub_pd(b, bb));
    return sum;
}

// gaussian_exponent's steps on four nodes (the exact products' remainders by FMA).
HOCKEYSTICK_AVX2 inline void gaussian_exponent4(__m256d base, __m256d dx, __m256d l, __m256d shift, __m256d s,
                                                __m256d inv_s, __m256d& argument, __m256d& factor) {
    const __m256d minus_half = _mm256_set1_pd(-0.5);
    __m256d x_lo, v_lo, a_lo;
    const __m256d x = two_sum4(base, dx, x_lo), v = two_sum4(x, shift, v_lo);
    v_lo = _mm256_add_pd(v_lo, x_lo);
    const __m256d z = _mm256_mul_pd(v, inv_s);
    const __m256d zs = _mm256_mul_pd(z, s), zs_lo = _mm256_fmsub_pd(z, s, zs);
    const __m256d dz = _mm256_mul_pd(_mm256_add_pd(_mm256_sub_pd(_mm256_sub_pd(v, zs), zs_lo), v_lo), inv_s);
    const __m256d zz = _mm256_mul_pd(z, z), zz_lo = _mm256_fmsub_pd(z, z, zz);
    const __m256d correction = _mm256_sub_pd(_mm256_mul_pd(minus_half, zz_lo), _mm256_mul_pd(z, dz));
    argument = two_sum4(l, _mm256_mul_pd(minus_half, zz), a_lo);
    factor = _mm256_add_pd(_mm256_set1_pd(1.0), _mm256_add_pd(a_lo, correction));
}

HOCKEYSTICK_AVX2 inline void gaussian_exponents_avx2(const double* base, const double* dx, const double* l,
                                                     double shift, const SplitScale& k, double* argument,
                                                     double* factor, std::int64_t n) {
    const __m256d sh = _mm256_set1_pd(shift), s = _mm256_set1_pd(k.s), inv = _mm256_set1_pd(k.inv_s);
    std::int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256d arg, fac;
        gaussian_exponent4(_mm256_loadu_pd(base + i), _mm256_loadu_pd(dx + i), _mm256_loadu_pd(l + i), sh, s, inv, arg,
                           fac);
        _mm256_storeu_pd(argument + i, arg);
        _mm256_storeu_pd(factor + i, fac);
    }
    if (i < n) {  // the last 1-3 nodes in a padded vector: the same steps, so the same bits
        alignas(32) double b[4] = {0.0, 0.0, 0.0, 0.0}, d[4] = {0.0, 0.0, 0.0, 0.0}, lv[4] = {0.0, 0.0, 0.0, 0.0};
        std::copy(base + i, base + n, b);
        std::copy(dx + i, dx + n, d);
        std::copy(l + i, l + n, lv);
        __m256d arg, fac;
        gaussian_exponent4(_mm256_load_pd(b), _mm256_load_pd(d), _mm256_load_pd(lv), sh, s, inv, arg, fac);
        _mm256_store_pd(b, arg);
        _mm256_store_pd(d, fac);
        std::copy(b, b + (n - i), argument + i);
        std::copy(d, d + (n - i), factor + i);
    }
}
#endif

// n nodes (base[i], dx[i], l[i]) sharing shift and s: argument[i] and factor[i] as gaussian_exponent.
inline void gaussian_exponents(const double* base, const double* dx, const double* l, double shift, const SplitScale& k,
                               double* argument, double* factor, std::int64_t n) {
#if HOCKEYSTICK_HAVE_AVX2
    if (avx2_fma_available()) return gaussian_exponents_avx2(base, dx, l, shift, k, argument, factor, n);
#endif
    for (std::int64_t i = 0; i < n; ++i) {
        const ExponentTerms t = gaussian_exponent(base[i], dx[i], shift, l[i], k);
        argument[i] = t.argument;
        factor[i] = t.factor;
    }
}

}  // namespace detail
}  // namespace hockeystick
