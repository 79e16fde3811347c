// The lowest K bins of a nonnegative signal's length-m DFT in long double from block moments and
// N short long-double transforms, with a certified error bound about e^y (N + B/16 + 8 log2 L) u_L
// times the signal's l1 norm: after many rounds only a narrow low-frequency band of a factor's
// spectrum survives the power, and this gives that band at about N n long-double products, where
// a long-double transform of length m (pld/compose/long_spectrum.hpp) or K n direct products
// (pld/compose/direct_spectrum.hpp) cost far more once K or m / n is large.
//
//   X_k = sum_{j < n} p_j W_m^{j k},   W_m = e^{-2 pi i / m},   p_j >= 0,   k = 0 .. K - 1.
//
// Blocks.  With B a power of two dividing m and L = m / B, write j = b B + B/2 + t, b = floor(j / B),
// t in [-B/2, B/2), tau = t / (B/2) in [-1, 1) (exact: B/2 is a power of two), and y_k = pi B k / m:
//     W_m^{j k} = W_L^{b k} e^{-i y_k} e^{-i tau y_k},
//     e^{-i tau y} = sum_{v < N} (-i y)^v tau^v / v! + R,   |R| <= |tau y|^N / N! <= y^N / N!
// (the Lagrange remainder of e^{ix}, x real), so
//     X_k = e^{-i y_k} sum_{v < N} ((-i y_k)^v / v!) S_v(k) + E_k,   |E_k| <= ||p||_1 y_k^N / N!,
// where S_v(k) is bin k of the length-L DFT of the block moments mu_{b,v} = sum_t p_j tau^v folded
// modulo L (W_L is L-periodic): one backend forward_long call of N rows of length L keeping K bins
// (pld/compose/fft_backend.hpp; K <= L / 2 + 1).  taylor_plan picks the largest B with y_max = pi B (K - 1) / m
// <= kTaylorReach (and L >= 2 K), and N the least with y_max^N / N! <= u_L.
//
// Round-off (u_L = 2^-64, x86-64's 80-bit long double; gamma_d = d u_L / (1 - d u_L), Higham,
// "Accuracy and Stability of Numerical Algorithms", 2nd ed., Sec. 3.1 and 4.2).
//   Moments: each term p_j tau^v is formed by v products (p_j exact in long double) and summed in
//   sub-blocks of 16 (pairwise in groups of 4, then over the 4 groups: 6 roundings, counted as 15),
//   then sub-block sums per block, then blocks folded modulo L: at most
//   D = N + 15 + B/16 + F roundings per term (F = ceil(blocks / L)), so ||mu^ - mu_v||_1 <=
//   gamma_D sum_j p_j |tau_j|^v <= gamma_D ||p||_1, with ||mu_v||_1 <= ||p||_1.
//   Transforms: each S_v(k) within 8 u_L c ||mu^_v||_1 of the exact DFT of mu^ (c = ceil(log2 L)),
//   so |S^_v - S_v| <= ||p||_1 (gamma_D + 8 u_L c (1 + gamma_D)).
//   Coefficients: y^ = pi_L B k / m (3 roundings: 3 u_L relative) and c_v = c_{v-1} y^ / v (2 more
//   per step), so |c^_v - c_v| <= 5 v u_L c_v (first order; the 1.05 below covers the rest); with
//   sum_v c_v = e^y and sum_v v c_v = y e^y this adds ||p||_1 5 u_L y e^y.  Products and the sum of
//   N complex terms: gamma_{N+1} e^y ||p||_1.  The phase e^{-i y}: the angle off by 3 u_L y, cosl and
//   sinl within 4 ulp (pld/compose/direct_spectrum.hpp's assumption), the complex product 3 u_L: (3 y + 15)
//   u_L e^y ||p||_1.  So per bin, in long double,
//     delta_taylor = 1.05 ||p||_1 (y^N / N! + e^y u_L (D + 8 c + 8.1 y + N + 18)) + 2^-1074,
//   and rounded to double it gains u (||p||_1 + delta_taylor) + 2^-1074; evaluated in double and
//   rounded up by 1 + 8u.  With B = 256 (L = m / 256), N = 14: about 120 u_L ||p||_1, the order of
//   the long-double transform's 8 u_L ceil(log2 m).
//
// Domain: m = B L with B >= kTaylorLeastBlock a power of two, 1 <= K <= L / 2 + 1, n >= 1, p_j >= 0
// finite; long double with a 64-bit significand and the x87 precision control at 64 bits
// (full_long_double_precision, pld/compose/direct_spectrum.hpp), and a backend offering forward_long.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/pld/compose/taylor_reuse.hpp"

namespace hockeystick {
namespace pld {

// y_max, the expansion's largest argument: at 0.25 the remainder y^N / N! falls below u_L within N = 14
// terms (about 14 n products), while the blocks stay long enough for the N short transforms to be cheap.
constexpr double kTaylorReach = 0.25;
// Shorter blocks: the moments cost about as much as a transform.
constexpr std::int64_t kTaylorLeastBlock = 16;
// The most terms a plan takes: 14 suffice within kTaylorReach, so this only bounds the search for N.
constexpr int kTaylorMostTerms = 24;

struct TaylorPlan {
    std::int64_t block = 0, length = 0;  // B and L = m / B
    int terms = 0;                       // N
    double reach = 0.0;                  // y_max = pi B (K - 1) / m
};

// The plan for the K lowest bins of a length-m DFT; false where no block of at least kTaylorLeastBlock
// divides m within reach (then another method must give the band).
inline bool taylor_plan(std::int64_t m, std::int64_t keep, TaylorPlan& plan) {
    if (m < 1 || keep < 1) return false;
    constexpr double pi = 3.141592653589793;
    const double u_long = 0.5 * static_cast<double>(std::numeric_limits<long double>::epsilon());
    std::int64_t block = 1;
    while (m % (2 * block) == 0 &&
           pi * static_cast<double>(2 * block) * static_cast<double>(keep - 1) <=
               kTaylorReach * static_cast<double>(m) &&
           m / (2 * block) >= 2 * keep)
        block *= 2;
    if (block < kTaylorLeastBlock) return false;
    const double reach = pi * static_cast<double>(block) * static_cast<double>(keep - 1) / static_cast<double>(m);
    int terms = 1;
    double remainder = reach;  // reach^N / N!
    while (remainder > u_long && terms < kTaylorMostTerms) {
        ++terms;
        remainder *= reach / terms;
    }
    if (remainder > u_long) return false;
    plan = TaylorPlan{block, m / block, terms, reach};
    return true;
}

// delta_taylor of the opening comment (rounded_to_double: as rounded to double) for a signal of n
// entries and l1 norm at most l1 under the plan.
inline double taylor_bin_error(double l1, std::int64_t n, const TaylorPlan& plan, bool rounded_to_double) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    const double u_long = 0.5 * static_cast<double>(std::numeric_limits<long double>::epsilon());
    const double y = plan.reach, terms = plan.terms;
    const double blocks = static_cast<double>((n + plan.block - 1) / plan.block);
    const double folds = std::ceil(blocks / static_cast<double>(plan.length));
    const double depth = terms + 15.0 + static_cast<double>(plan.block) / 16.0 + folds;
    const double stages = std::max(1.0, std::ceil(std::log2(static_cast<double>(plan.length))));
    double remainder = 1.0;
    for (int v = 1; v <= plan.terms; ++v) remainder *= y / v;
    const double tiny = std::numeric_limits<double>::denorm_min();
    double bound =
        1.05 * l1 * (remainder + std::exp(y) * u_long * (depth + 8.0 * stages + 8.1 * y + terms + 18.0)) + tiny;
    if (rounded_to_double) bound += u * (l1 + bound) + tiny;
    return bound * (1.0 + 8.0 * u);
}

namespace detail {

// Each block's moments of p[0 .. n): out[b * terms + v] = sum_j p_j tau_j^v over block b's entries (`block` of
// them), tau_j the entry's offset from the block's centre in units of half a block (v < terms), in long double.  An
// entry's value for v does not depend on terms (the same products and sums for every v below it), so moments taken
// with more terms hold those taken with fewer, bit for bit.
inline std::vector<long double> block_moments(const double* p, std::int64_t n, std::int64_t block, int terms) {
    const std::int64_t half = block / 2, blocks = (n + block - 1) / block;
    const double scale = 1.0 / static_cast<double>(half);  // exact: a power of two
    std::vector<long double> out(static_cast<std::size_t>(blocks * terms));
    std::vector<long double> in_block(terms), in_sub(terms);
    double tau[16];
    for (std::int64_t b0 = 0; b0 < n; b0 += block) {
        std::fill(in_block.begin(), in_block.end(), 0.0L);
        for (std::int64_t s0 = b0; s0 < std::min(n, b0 + block); s0 += 16) {
            // a sub-block of 16 terms (zeros past the end) in 4 groups of 4, each group's powers kept in
            // x87 registers and multiplied by tau from a double (exact: a dyadic of few bits), summed
            // pairwise per group and then over the groups: 6 additions per term, within the 15 counted
            std::fill(in_sub.begin(), in_sub.end(), 0.0L);
            for (int i = 0; i < 16; ++i) tau[i] = static_cast<double>(s0 + i - b0 - half) * scale;
            for (int g = 0; g < 16; g += 4) {
                long double power[4];
                for (int i = 0; i < 4; ++i) {
                    const std::int64_t j = s0 + g + i;
                    power[i] = j < n && j < b0 + block ? static_cast<long double>(p[j]) : 0.0L;
                }
                long double a = power[0], b = power[1], c = power[2], d = power[3];
                const double ta = tau[g], tb = tau[g + 1], tc = tau[g + 2], td = tau[g + 3];
                for (int v = 0; v < terms; ++v) {
                    in_sub[v] += (a + b) + (c + d);
                    a *= ta;
                    b *= tb;
                    c *= tc;
                    d *= td;
                }
            }
            for (int v = 0; v < terms; ++v) in_block[v] += in_sub[v];
        }
        std::copy(in_block.begin(), in_block.end(), out.begin() + (b0 / block) * terms);
    }
    return out;
}

// The block moments folded modulo `length`: out[v * length + (b mod length)] sums, over the blocks b in increasing
// order, per_block[b * stride + v] (v < terms <= stride), in long double.
inline std::vector<long double> folded_moments(const std::vector<long double>& per_block, int stride, int terms,
                                               std::int64_t length) {
    const std::int64_t blocks = static_cast<std::int64_t>(per_block.size()) / stride;
    std::vector<long double> moments(static_cast<std::size_t>(terms * length), 0.0L);
    for (std::int64_t b = 0; b < blocks; ++b) {
        const std::int64_t at = b % length;
        for (int v = 0; v < terms; ++v)
            moments[static_cast<std::size_t>(v * length + at)] += per_block[static_cast<std::size_t>(b * stride + v)];
    }
    return moments;
}

// X_k from the transforms of the moments at bin k (sums[v * keep + k], v < terms): sum_v S_v (-i)^v y^v / v!,
// y = pi block k / m, turned by e^{-i y} (from the block's centre to its start).
inline std::complex<long double> taylor_bin(const std::complex<long double>* sums, std::int64_t keep, std::int64_t k,
                                            int terms, long double y) {
    long double re = 0.0L, im = 0.0L, c = 1.0L;  // c = y^v / v!; (-i)^v rotates S_v
    for (int v = 0; v < terms; ++v) {
        const std::complex<long double> s = sums[static_cast<std::size_t>(v * keep + k)];
        switch (v % 4) {
            case 0:
                re += c * s.real();
                im += c * s.imag();
                break;
            case 1:
                re += c * s.imag();
                im -= c * s.real();
                break;
            case 2:
                re -= c * s.real();
                im -= c * s.imag();
                break;
            default:
                re -= c * s.imag();
                im += c * s.real();
                break;
        }
        c = c * y / static_cast<long double>(v + 1);
    }
    const long double cr = std::cos(y), ci = -std::sin(y);
    return std::complex<long double>(re * cr - im * ci, re * ci + im * cr);
}

}  // namespace detail

// out[k] = X_k, k < keep, of p[0 .. n) at DFT length m under plan (taylor_plan(m, keep, plan)).  The block moments
// and their transforms come from this thread's TaylorReuseCache (pld/compose/taylor_reuse.hpp) where an earlier
// call on the same masses computed them (the same bits as computed here: see there).
inline void taylor_band(const double* p, std::int64_t n, std::int64_t m, std::int64_t keep, const TaylorPlan& plan,
                        RealFftBackend& fft, std::complex<long double>* out) {
    if (plan.block * plan.length != m || keep < 1 || keep > plan.length / 2 + 1)
        throw std::invalid_argument("taylor_band: the plan does not fit m and keep");
    const std::int64_t block = plan.block, length = plan.length;
    const int terms = plan.terms;
    detail::TaylorMoments& at = detail::taylor_reuse_cache().moments(p, n, block);
    if (at.terms < terms) {
        at.moments = detail::block_moments(p, n, block, terms);
        at.terms = terms;
        at.sums.clear();
    }
    const detail::TaylorSums& sums = detail::taylor_sums(at, fft, length, terms, keep, [&](int rows) {
        return detail::folded_moments(at.moments, at.terms, rows, length);
    });
    detail::taylor_reuse_cache().held_bytes_to_gate();
    const long double pi = 3.141592653589793238462643383279502884L;
    for (std::int64_t k = 0; k < keep; ++k) {
        const long double y =
            pi * static_cast<long double>(block) * static_cast<long double>(k) / static_cast<long double>(m);
        out[k] = detail::taylor_bin(sums.sums.data(), sums.keep, k, terms, y);
    }
}

}  // namespace pld
}  // namespace hockeystick
