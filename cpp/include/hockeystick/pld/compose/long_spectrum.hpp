// The DFT of a nonnegative signal from one long-double FFT, with a certified error bound about
// 8 u_L ceil(log2 m) times the signal's l1 norm (u_L = 2^-64 on x86-64): the same bins the
// blocked direct sums of pld/compose/direct_spectrum.hpp give within ~1.1 u ||p||_1, all m / 2 + 1 of
// them at the cost of one transform instead of n products per bin.
//
//   X_k = sum_{j < n} p_j W_m^{(j k) mod m},   W_m^t = e^{-2 pi i t / m},   p_j >= 0,
//
// the DFT of length m of p folded modulo m (n > m allowed), the value the backend's double
// forward transform approximates within 8 u ceil(log2 m) ||p||_1 (pld/compose/fft_backend.hpp).
//
// Folding.  x_j = sum_{i : i mod m = j} p_i, summed in long double in index order: doubles
// are exact in long double (its exponent range contains theirs, subnormals included), and each
// x_j is a sum of at most F = ceil(n / m) nonnegative terms, so it errs by at most
// gamma_{F-1} x_j (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., Sec. 4.2;
// gamma_k = k u_L / (1 - k u_L)); the folded signal x~ is off by at most gamma_{F-1} ||p||_1 in
// l1 norm, and the DFT (unit-modulus weights) by at most that at every bin.
//
// Transform.  The backend's forward_long (pld/compose/fft_backend.hpp) returns every bin within
// 8 u_L ceil(log2 m) ||x~||_1 of the DFT of x~, ||x~||_1 <= (1 + gamma_{F-1}) ||p||_1.  Underflow
// in long double (below 2^-16445 per operation, ~m log2 m operations per bin) is covered by
// one 2^-1074.  So per bin, the value kept in long double is within
//     delta_long = ||p||_1 (gamma_{F-1} + 8 u_L ceil(log2 m) (1 + gamma_{F-1})) + 2^-1074,
// about 8 u_L ceil(log2 m) ||p||_1: 1.4e-18 ||p||_1 at m = 2^18 against the direct sums'
// 1.2e-16 ||p||_1 (delta_direct, pld/compose/direct_spectrum.hpp, which rounds to double).  Rounded
// to double, a value gains at most u |X| <= u (||p||_1 + delta_long) in modulus, plus 2^-1074
// if subnormal: delta_long_double = delta_long + u (||p||_1 + delta_long) + 2^-1074.  Both are
// evaluated in double and rounded up by a factor 1 + 8u.
//
// Domain: m >= 1, n >= 0, (F - 1) u_L < 1/2; long double with a 64-bit significand (x86-64's 80-bit
// format; compose_batch uses these bins only where kLongPower holds, and the binding also requires
// numpy's longdouble to be that format) and the x87 precision control at 64 bits on every thread
// involved (full_long_double_precision, pld/compose/direct_spectrum.hpp).  Elsewhere the bound is not valid:
// u_L = epsilon_L / 2 is taken from numeric_limits, which for IBM double-double (epsilon 2^-105 while
// its sums can lose everything past 2^-53 relative) or a double-sized long double does not describe the
// rounding of the transform.  Cost: n additions and one transform.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace hockeystick {
namespace pld {

// x (m long doubles, overwritten) = p (n doubles) folded modulo m, summed in long double.
inline void fold_long(const double* p, std::int64_t n, std::int64_t m, long double* x) {
    std::fill(x, x + m, 0.0L);
    for (std::int64_t k0 = 0; k0 < n; k0 += m)
        for (std::int64_t k = k0; k < std::min(n, k0 + m); ++k) x[k - k0] += static_cast<long double>(p[k]);
}

// delta_long of the opening comment (rounded_to_double: delta_long_double) for a signal of n
// entries and l1 norm at most l1, transformed at length m.
inline double long_fft_bin_error(double l1, std::int64_t n, std::int64_t m, bool rounded_to_double) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    const double u_long = 0.5 * static_cast<double>(std::numeric_limits<long double>::epsilon());
    if (m < 1) throw std::invalid_argument("long_fft_bin_error: m must be >= 1");
    const double terms = static_cast<double>(std::max<std::int64_t>(0, (n + m - 1) / m - 1));
    if (!(terms * u_long < 0.5)) throw std::invalid_argument("long_fft_bin_error: the signal is too long");
    const double gamma = terms * u_long / (1.0 - terms * u_long);
    const double stages = std::max(1.0, std::ceil(std::log2(static_cast<double>(m))));
    const double tiny = std::numeric_limits<double>::denorm_min();
    double bound = l1 * (gamma + 8.0 * u_long * stages * (1.0 + gamma)) + tiny;
    if (rounded_to_double) bound += u * (l1 + bound) + tiny;
    return bound * (1.0 + 8.0 * u);
}

}  // namespace pld
}  // namespace hockeystick
