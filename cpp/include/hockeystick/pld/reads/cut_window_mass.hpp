// The Chernoff bound on the composed mass above a tilted window cut short (pld/reads/tilted.hpp's compose_tilted with
// a window tail; the package's compose/tilted.py and question/block_reads.py read it through _core.pld_reads).
//
// Many rounds of a heavy-tailed loss under a steep tilt span far in loss, so the pessimistic window is composed with
// a window tail of its own and the untilted mass above it charged, at a read's eps or the window's top, by the
// Chernoff bound
//
//     P(L >= x) <= min over lam of exp(K(lam) - lam x),        K(lam) = sum_i c_i log sum_k p_ik e^{lam l_k},
//
// over the cut window's ladder of tilts (pld/grid/tilt_ladders.hpp's above_rung, per grid step).  Each c_i log-moment
// is the core's, rounded up (pld/grid/moments.hpp); their sum is raised by (n + 4) u of its terms' magnitudes (n
// factors: a rounding per sum and per product), inf where it overflows; each exponent K(lam) - lam x is raised by 4 u
// of its terms' magnitudes and the exponential by 16 u (|exponent| + 1) (libm's exp within a few ulp).  Every tilt
// gives a valid bound: the ladder only makes it tight.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace hockeystick {
namespace pld {

// K(lam_j) = sum_i terms[i m + j] over the `factors` rows of m summed log-moments c_i K_i(lam_j) each (rounded up),
// raised by (factors + 4) u of the terms' magnitudes, the rows added in order; inf where not finite.  Written to
// out[0 .. m).
inline void summed_log_moments(const double* terms, std::int64_t factors, std::int64_t m, double* out) {
    constexpr double u = 0x1p-53;
    const double inf = std::numeric_limits<double>::infinity();
    for (std::int64_t j = 0; j < m; ++j) {
        double sum = terms[j], magnitude = std::fabs(terms[j]);
        for (std::int64_t i = 1; i < factors; ++i) {
            sum += terms[i * m + j];
            magnitude += std::fabs(terms[i * m + j]);
        }
        const double k = sum + static_cast<double>(factors + 4) * u * magnitude;
        out[j] = std::isfinite(k) ? k : inf;
    }
}

// A certified upper bound on the composed finite mass at grid losses >= x (before the factors' loss shift): the least
// over the m tilts lams (per unit loss) of exp(K(lam) - lam x), the exponent raised by 4 u of its terms' magnitudes
// and the exponential by 16 u (|exponent| + 1); 1 where none is below 1.
inline double chernoff_above(const double* lams, const double* k, std::int64_t m, double x) {
    constexpr double u = 0x1p-53;
    double best = std::numeric_limits<double>::infinity();
    for (std::int64_t j = 0; j < m; ++j) {
        const double scaled = lams[j] * x;
        const double exponent = k[j] - scaled + 4.0 * u * (std::fabs(k[j]) + std::fabs(scaled));
        if (std::isfinite(exponent)) best = std::min(best, exponent);
    }
    if (!(best < 0.0)) return 1.0;
    return std::min(1.0, std::exp(best) * (1.0 + 16.0 * u * (std::fabs(best) + 1.0)));
}

}  // namespace pld
}  // namespace hockeystick
