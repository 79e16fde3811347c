// Direct evaluation of a few DFT bins of a nonnegative signal, with a certified error
// bound about u times the signal's l1 norm, where the FFT's grows with log2 of the length.
//
//   X_k = sum_{j < n} p_j W_m^{(j k) mod m},   W_m^t = e^{-2 pi i t / m},   p_j >= 0,
//
// the DFT of length m of p folded modulo m (n > m allowed: W_m is m-periodic), the value
// the backend's forward transform approximates (pld/compose/fft_backend.hpp) to within
// 8 u ceil(log2 m) ||p||_1.  Everything below runs in long double; u_L = epsilon_L / 2
// (2^-64 for x86-64's 80-bit format; glibc's table of known maximum errors, the worst seen on
// its test inputs rather than proven bounds, lists 1-2 ulp for cosl / sinl there: the GNU C
// Library manual, "Known Maximum Errors in Math Functions"; 4 ulp is assumed below).  The
// x87 precision control must be at 64 bits (full_long_double_precision checks it at run time).
//
// Twiddles.  t = a s + b with s a divisor of m near sqrt(m), so W_m^t = A_a B_b with
// A_a = W_m^{a s} and B_b = W_m^b from two tables of m / s and s entries: the angle
// 2 pi t / m (t, m exact integers; 2 pi, the product and the quotient rounded: 3 u_L
// relative, at most 19 u_L absolute since the angle is below 2 pi) through cosl / sinl,
// assumed within 4 ulp (8 u_L for values in [-1, 1]), so each component of A_a and B_b
// is within 27 u_L, each modulus within 39 u_L; their product, formed in long double, is
// within 2 (39 u_L)(1 + 39 u_L) + 2.1 u_L <= 81 u_L per component of W_m^t, so within
// sqrt(2) 81 u_L <= 116 u_L in modulus: |S - X_k| <= 116 u_L ||p||_1 for S the exact sum
// with the twiddles used.
//
// Sum.  The real and imaginary parts are summed in blocks of b = ceil(sqrt(n)) products,
// block sums added to a running total: each product is rounded once and passes at most
// D = b + ceil(n / b) + 2 roundings in all, so each part errs by at most
// gamma_D sum_j p_j |w_j| (gamma_D = D u_L / (1 - D u_L); Higham, "Accuracy and Stability
// of Numerical Algorithms", 2nd ed., Sec. 3.1 and 4.2), in modulus (Minkowski) at most
// gamma_D (1 + 116 u_L) ||p||_1; no product underflows (a double times a twiddle stays far
// inside long double's exponent range).  Rounding the result to double adds at most u per
// component relative, u |result| in modulus, plus 2^-1074 if it is subnormal.  So per bin
//     delta_direct = ||p||_1 (116 u_L + gamma_D (1 + 116 u_L) + u (1 + 116 u_L + gamma_D))
//                    + 2^-1074,
// about 1.1 u ||p||_1 for n up to 10^5 on x86-64, evaluated in double and rounded up by a
// factor 1 + 8u.  Where long double is double (u_L = u) the same formula holds and is
// larger than the FFT's bound for small m: compose_batch then keeps the FFT's (and uses
// the direct bins only where long double has 64 bits: elsewhere it may be slow software).
//
// compose_batch takes these sums for a row's band where the backend offers no long-double
// transform, or where the band's n K products cost less than one (pld/compose/long_spectrum.hpp's bins,
// ~8 u_L ceil(log2 m) ||p||_1, are otherwise both cheaper and tighter).
//
// Domain: m >= 1, n >= 0, D u_L < 1/2, bins k in [0, m).  Cost: per bin n twiddle products
// and 2 n multiply-adds in long double (no division: the table index walks by t += k mod m).
#pragma once

#include <cmath>
#include <complex>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "hockeystick/support/recently_used.hpp"

namespace hockeystick {
namespace pld {

// W_m^t = e^{-2 pi i t / m} as A[t / s] B[t % s], both tables in long double.
class TwiddleTable {
  public:
    explicit TwiddleTable(std::int64_t m) : m_(m) {
        if (m < 1) throw std::invalid_argument("TwiddleTable: m must be >= 1");
        s_ = 1;
        for (std::int64_t d = static_cast<std::int64_t>(std::sqrt(static_cast<double>(m))) + 1; d >= 1; --d)
            if (d * d <= m && m % d == 0) {
                s_ = d;
                break;
            }
        coarse_count_ = m / s_;
        coarse_.resize(static_cast<std::size_t>(2 * coarse_count_));
        fine_.resize(static_cast<std::size_t>(2 * s_));
        fill(coarse_, coarse_count_, s_);
        fill(fine_, s_, 1);
    }

    std::int64_t length() const { return m_; }
    std::int64_t split() const { return s_; }
    std::int64_t coarse_count() const { return coarse_count_; }

    // Twiddle t = a s + b (0 <= a < m / s, 0 <= b < s), in long double.
    std::complex<long double> at(std::int64_t a, std::int64_t b) const {
        const long double ar = coarse_[2 * a], ai = coarse_[2 * a + 1];
        const long double br = fine_[2 * b], bi = fine_[2 * b + 1];
        return {ar * br - ai * bi, ar * bi + ai * br};
    }

  private:
    void fill(std::vector<long double>& table, std::int64_t count, std::int64_t stride) const {
        const long double two_pi = 6.283185307179586476925286766559005768L;
        for (std::int64_t i = 0; i < count; ++i) {
            const long double angle = two_pi * static_cast<long double>(i * stride) / static_cast<long double>(m_);
            table[2 * i] = std::cos(angle);
            table[2 * i + 1] = -std::sin(angle);
        }
    }

    std::int64_t m_ = 1, s_ = 1, coarse_count_ = 1;
    std::vector<long double> coarse_, fine_;
};

// The tables a thread keeps (twiddle_table): a composition's batches and refinement steps come back to a few lengths.
constexpr std::size_t kTwiddleTablesKept = 4;

// This thread's table for length m: the one kept from an earlier call at m, else a new one kept in place of the least
// recently used.  A table is a function of m alone, built where long double carries its 64 bits (every caller's
// path requires it), so a kept one holds the bits a new one would; each holds 2 (m / s + s) long doubles, about
// 64 sqrt(m) bytes at the 5-smooth lengths compositions take.  The reference stays valid until this thread asks
// kTwiddleTablesKept other lengths.
inline const TwiddleTable& twiddle_table(std::int64_t m) {
    thread_local std::vector<std::unique_ptr<TwiddleTable>> kept;  // least recently used first
    std::unique_ptr<TwiddleTable>& table = recently_used(
        kept, kTwiddleTablesKept, [m](const std::unique_ptr<TwiddleTable>& t) { return t && t->length() == m; });
    if (!table) table.reset(new TwiddleTable(m));
    return *table;
}

// The summation's block: about sqrt(n) terms, so no term passes more than 2 sqrt(n) + 1 additions.
inline std::int64_t block_length(std::int64_t n) {
    return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(std::sqrt(static_cast<double>(n)))));
}

// Whether long double arithmetic runs at its full precision now: the x87 precision control may have
// been set to 53 bits by other code in the process, and then every u_L bound here is wrong.
inline bool full_long_double_precision() {
    volatile long double one = 1.0L;
    volatile long double tiny = std::numeric_limits<long double>::epsilon();
    const long double sum = one + tiny;
    return sum != one;
}

// delta_direct of the opening comment for a signal of n entries and l1 norm at most l1.
inline double direct_bin_error(double l1, std::int64_t n) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    const double u_long = 0.5 * static_cast<double>(std::numeric_limits<long double>::epsilon());
    const std::int64_t block = block_length(n);
    const double depth = static_cast<double>(block + (n + block - 1) / block + 2);
    if (!(depth * u_long < 0.5)) throw std::invalid_argument("direct_bin_error: the signal is too long");
    const double gamma = depth * u_long / (1.0 - depth * u_long);
    const double twiddle = 116.0 * u_long;  // sqrt(2) 81 u_L, rounded up
    const double bound = l1 * (twiddle + gamma * (1.0 + twiddle) + u * (1.0 + twiddle + gamma)) +
                         std::numeric_limits<double>::denorm_min();
    return bound * (1.0 + 8.0 * u);
}

// X_k of the opening comment for bin k (0 <= k < m), p_j >= 0.
inline std::complex<double> direct_bin(const double* p, std::int64_t n, std::int64_t k, const TwiddleTable& w) {
    const std::int64_t m = w.length(), s = w.split(), coarse = w.coarse_count(), block = block_length(n);
    const std::int64_t step = k % m, step_a = step / s, step_b = step % s;
    std::int64_t a = 0, b = 0;  // t = (j k) mod m = a s + b
    long double re = 0.0L, im = 0.0L, block_re = 0.0L, block_im = 0.0L;
    for (std::int64_t j0 = 0; j0 < n; j0 += block) {
        for (std::int64_t j = j0; j < std::min(n, j0 + block); ++j) {
            const std::complex<long double> t = w.at(a, b);
            block_re += p[j] * t.real();
            block_im += p[j] * t.imag();
            b += step_b;  // branch-free (the carries are unpredictable for most k)
            const std::int64_t carry = b >= s ? 1 : 0;
            b -= carry * s;
            a += step_a + carry;
            a -= (a >= coarse ? 1 : 0) * coarse;
        }
        re += block_re;
        im += block_im;
        block_re = block_im = 0.0L;
    }
    return {static_cast<double>(re), static_cast<double>(im)};
}

}  // namespace pld
}  // namespace hockeystick
