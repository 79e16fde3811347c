// Direct evaluation of a few DFT bins of a nonnegative signal, with a certified error
// bound a few units of round-off times the signal's l1 norm, independent of the length.
//
//   X_k = sum_{j < n} p_j W_m^{(j k) mod m},   W_m^t = e^{-2 pi i t / m},   p_j >= 0,
//
// the DFT of length m of p folded modulo m (n > m allowed: W_m is m-periodic), the value
// the backend's forward transform approximates (pld_fft_backend.hpp) to within
// 8 u ceil(log2 m) ||p||_1.  Here, per bin:
//
// Twiddles.  t = a s + b with s a divisor of m near sqrt(m), so W_m^t = A_a B_b with
// A_a = W_m^{a s} and B_b = W_m^b from two tables of m / s and s entries, computed in
// long double (u_L = epsilon_L / 2): the angle 2 pi t / m (t, m exact integers; 2 pi, the
// product and the quotient rounded: 3 u_L relative, at most 19 u_L absolute since the
// angle is below 2 pi) through cosl / sinl, which glibc documents at 1 ulp for the x86-64
// 80-bit long double (the GNU C Library manual, "Known Maximum Errors in Math
// Functions"); 4 ulp (8 u_L for values in [-1, 1]) is assumed, so each component of A_a
// and B_b is within 27 u_L, each modulus within 39 u_L.  Their product in long double
// is within 2 (39 u_L) (1 + 39 u_L) + 2.1 u_L <= 81 u_L per component of W_m^t, and its
// rounding to double adds at most u (components below 2 in modulus), so each component
// of the twiddle used is within tau = u + 128 u_L of the exact one.  On x86-64
// (u_L = 2^-64) tau = 1.0625 u; where long double is double, tau = 129 u and the direct
// bins are not worth it (compose_batch then keeps the FFT's).
//
// Sum.  Real and imaginary parts are compensated dot products (Ogita, Rump, Oishi,
// "Accurate sum and dot product", SIAM J. Sci. Comput. 26 (2005), Algorithm Dot2,
// built from error_free.hpp's two_prod / two_sum), whose error is at most
// u |x^T y| + gamma_n^2 |x|^T |y| (their Sec. 5; gamma_n = n u / (1 - n u)) when no
// product underflows; an underflowing two_prod still errs by at most 4 subnormal units
// (Dekker's partial products each round once), so 8 n denorm_min is added per part.
// With w-hat the twiddles used and S = sum p_j w-hat_j exactly:
//     |S - X_k| <= sqrt(2) tau ||p||_1,
//     |computed - S| <= (u + gamma_n^2) sqrt((sum p|Re w-hat|)^2 + (sum p|Im w-hat|)^2)
//                       + sqrt(2) 8 n denorm_min
//                    <= (u + gamma_n^2) (1 + sqrt(2) tau) ||p||_1 + 12 n denorm_min
// (Minkowski), so the bound per bin is
//     delta_direct = ||p||_1 (sqrt(2) tau + (u + gamma_n^2)(1 + sqrt(2) tau)) + 12 n denorm_min
// (about 2.5 u ||p||_1 on x86-64), evaluated in double and rounded up by a factor 1 + 8u.
//
// Domain: m >= 1, n >= 0, n u < 1/2, bins k in [0, m).  Cost: n twiddle products and two
// Dot2 steps per bin (no division: the table index walks by t += k mod m).
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "error_free.hpp"

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

    // Twiddle t = a s + b (0 <= a < m / s, 0 <= b < s), rounded to double.
    std::complex<double> at(std::int64_t a, std::int64_t b) const {
        const long double ar = coarse_[2 * a], ai = coarse_[2 * a + 1];
        const long double br = fine_[2 * b], bi = fine_[2 * b + 1];
        return {static_cast<double>(ar * br - ai * bi), static_cast<double>(ar * bi + ai * br)};
    }

    // tau: each component of at(a, b) is within this of the exact twiddle (opening comment).
    static double component_error() {
        constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
        const double u_long = 0.5 * static_cast<double>(std::numeric_limits<long double>::epsilon());
        return u + 128.0 * u_long;
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

// delta_direct of the opening comment for a signal of n entries and l1 norm at most l1.
inline double direct_bin_error(double l1, std::int64_t n) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    const double nd = static_cast<double>(n);
    if (!(nd * u < 0.5)) throw std::invalid_argument("direct_bin_error: n must satisfy n u < 1/2");
    const double gamma = nd * u / (1.0 - nd * u);
    const double tau = TwiddleTable::component_error();
    const double root2 = 1.4142135623730951;  // within u of sqrt(2); the final factor 1 + 8u covers it
    const double bound = l1 * (root2 * tau + (u + gamma * gamma) * (1.0 + root2 * tau)) +
                         12.0 * nd * std::numeric_limits<double>::denorm_min();
    return bound * (1.0 + 8.0 * u);
}

// X_k of the opening comment for bin k (0 <= k < m), p_j >= 0.
inline std::complex<double> direct_bin(const double* p, std::int64_t n, std::int64_t k, const TwiddleTable& w) {
    const std::int64_t m = w.length(), s = w.split(), coarse = w.coarse_count();
    const std::int64_t step = k % m, step_a = step / s, step_b = step % s;
    std::int64_t a = 0, b = 0;  // t = (j k) mod m = a s + b
    double re = 0.0, re_carry = 0.0, im = 0.0, im_carry = 0.0;
    for (std::int64_t j = 0; j < n; ++j) {
        const std::complex<double> t = w.at(a, b);
        const double_double pr = two_prod(p[j], t.real());
        const double_double sr = two_sum(re, pr.hi);
        re = sr.hi;
        re_carry += sr.lo + pr.lo;
        const double_double pm = two_prod(p[j], t.imag());
        const double_double sm = two_sum(im, pm.hi);
        im = sm.hi;
        im_carry += sm.lo + pm.lo;
        b += step_b;
        a += step_a;
        if (b >= s) {
            b -= s;
            a += 1;
        }
        if (a >= coarse) a -= coarse;
    }
    return {re + re_carry, im + im_carry};
}

}  // namespace pld
}  // namespace hockeystick
