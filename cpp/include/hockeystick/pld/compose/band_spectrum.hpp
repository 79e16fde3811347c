// Which bins of a factor's length-m DFT a c-fold power can keep, certified from a transform s times
// shorter: after many rounds only a narrow low-frequency band survives the power, so the full
// length-m forward transform of the factor is mostly spent on bins the composition drops.
//
//   X_k = sum_{j < n} p_j W_m^{j k},   W_m = e^{-2 pi i / m},   p_j >= 0,   k = 0 .. m/2.
//
// Samples.  With m = s m_f, the bins k = s k' are the length-m_f DFT of p folded modulo m_f
// (W_m^{j s k'} = W_{m_f}^{j k'}, whatever n is), so one forward transform of length m_f gives
// X_{s k'} for k' = 0 .. m_f/2, each within
//     err_f = 8 u ceil(log2 m_f) ||x~||_1 + gamma_{F-1} ||p||_1,   F = ceil(n / m_f),
// the backend's bound (pld/compose/fft_backend.hpp) on the folded signal x~, whose own rounding (sums of at
// most F nonnegative doubles) moves every bin by at most gamma_{F-1} ||p||_1 (Higham, "Accuracy and
// Stability of Numerical Algorithms", 2nd ed., Sec. 4.2; ||x~||_1 <= (1 + gamma_{F-1}) ||p||_1).
//
// Between samples.  With X_c(w) = sum_j p_j e^{-i w (j - c)} (|X_c| = |X| for any centre c),
// | |X(w)| - |X(w')| | <= |w - w'| M1,   M1 = sum_j |j - c| p_j,
// since |X_c'(w)| <= M1.  Every bin k has a sample within s/2 bins, |w_k - w_{s k'}| <= pi / m_f, so
//     |X_k| <= U_k = |X~_{s k'}| + err_f + (pi / m_f) M1.
// c is the rounded mean index; M1 is summed in double and rounded up by (n + 2) u relative.
//
// Certified drop.  A bin whose power U_k^c is at most tau = 2^-64 (pld/compose/compose.hpp's dropped bins)
// is left at 0 and charged 2 tau there: U_k <= thr = e^{(log tau - 1 - 2 u c) / c} (1 - 4u) gives
// U_k^c <= tau, the 1 in the exponent covering the rounding of log, exp and the division (the same
// headroom as compose_batch's floors).  band_end returns the first bin K such that every bin from K to
// m/2 is so certified; the bins below K are then computed directly (pld/compose/direct_spectrum.hpp), so the
// composition keeps the same bins and charges as with the full transform, only each kept bin's value
// is more accurate (delta_direct instead of 8 u ceil(log2 m) ||p||_1).
//
// Cost: a transform of length m / s and K n direct products (~6.5 ns each in long double) instead of a
// transform of length m: G1's sigma 3.5, q 0.1, 10^5 rounds, h = 3.2e-4 has n = 2356 cells, m = 491520
// and K ~ 80 bins where 44 of them survive the power (6.1 ms for the full transform).
//
// Domain: m = s m_f with s >= 1, n >= 1, count c >= 1, p_j >= 0 finite.  The band is only certified
// for the c it was computed with (more rounds drop more: U^c' <= U^c for c' >= c as U_k < 1 there).
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>

namespace hockeystick {
namespace pld {

// M1 of the opening comment about the rounded mean index, rounded up (0 for a massless row).
inline double first_absolute_moment(const double* p, std::int64_t n) {
    double mass = 0.0, first = 0.0;
    for (std::int64_t j = 0; j < n; ++j) {
        mass += p[j];
        first += p[j] * static_cast<double>(j);
    }
    if (!(mass > 0.0)) return 0.0;
    const double centre = std::round(first / mass);
    double moment = 0.0;
    for (std::int64_t j = 0; j < n; ++j) moment += p[j] * std::fabs(static_cast<double>(j) - centre);
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    return moment * (1.0 + (static_cast<double>(n) + 2.0) * u) + std::numeric_limits<double>::denorm_min();
}

// err_f of the opening comment for a signal of n entries and l1 norm at most l1 folded to length m_f.
inline double folded_bin_error(double l1, std::int64_t n, std::int64_t m_f) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    const double terms = static_cast<double>(std::max<std::int64_t>(0, (n + m_f - 1) / m_f - 1));
    const double gamma = terms * u / (1.0 - terms * u);
    const double stages = std::max(1.0, std::ceil(std::log2(static_cast<double>(m_f))));
    return l1 * (8.0 * u * stages * (1.0 + gamma) + gamma) * (1.0 + 8.0 * u);
}

// thr of the opening comment: |X_k| at or below it certifies |X_k|^count <= tau (log tau = log_dropped).
inline double certified_drop_modulus(double count, double log_dropped) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    return std::exp((log_dropped - 1.0 - 2.0 * u * count) / count) * (1.0 - 4.0 * u);
}

// The first bin K of the length-m half spectrum (bins 0 .. bins - 1, bins = m/2 + 1) from which every bin
// is certified dropped, given the length-m_f samples coarse[0 .. m_f/2] (m = s m_f), the bound slack =
// err_f + (pi / m_f) M1 added to each sample's modulus, and the threshold thr.
inline std::int64_t band_end(const std::complex<double>* coarse, std::int64_t m_f, std::int64_t s, std::int64_t bins,
                             double slack, double thr) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    for (std::int64_t kc = m_f / 2; kc >= 0; --kc) {
        const double bound = (std::abs(coarse[kc]) * (1.0 + 2.0 * u) + slack) * (1.0 + 2.0 * u);
        if (!(bound <= thr)) return std::min(bins, kc * s + s / 2 + 1);  // the fine bins nearest kc
    }
    return 0;
}

}  // namespace pld
}  // namespace hockeystick
