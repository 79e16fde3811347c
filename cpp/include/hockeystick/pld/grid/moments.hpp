// The moments of a PMF on the loss grid: the variance of its loss and its cumulant generating function, rounded
// up.  The composition's Chernoff windows (pld/compose/window.hpp, pld/compose/plan.hpp) and the tilted reads
// (pld/reads/tilted.hpp) choose their exponents from them; every exponent gives a valid bound, so the variance
// is only a scale, and the log-MGF is rounded up so that the tail bounds built on it only widen.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "hockeystick/simd/log_mgf_avx.hpp"

namespace hockeystick {
namespace pld {

// Variance of the loss under p / sum p (two passes, about the mean, in grid steps times h^2; it
// does not depend on where the grid starts); 0 for an empty PMF.
// Only a scale for the Chernoff exponents tried (any exponent gives a valid bound).
inline double grid_loss_variance(const double* p, std::int64_t n, double h) {
    double mass = 0.0, first = 0.0;
    for (std::int64_t k = 0; k < n; ++k) {
        mass += p[k];
        first += p[k] * static_cast<double>(k);
    }
    if (!(mass > 0.0)) return 0.0;
    const double mean = first / mass;
    double second = 0.0;
    for (std::int64_t k = 0; k < n; ++k)
        second += p[k] * (static_cast<double>(k) - mean) * (static_cast<double>(k) - mean);
    return second / mass * h * h;
}

// log sum_k p_k e^{lam l_k}, l_k = (k_lo + k) h, for each of m lams (the cumulant generating
// function of the finite part, used for Chernoff bounds on composed tails), rounded UP:
// the caller's tail bounds only widen with it.  Terms are scaled by the largest lam l_k
// (terms <= p_k, no overflow) and formed by a recurrence: one exp per block of 32, then
// multiplication by r = e^{-|lam| h} <= 1.  Each block is walked from its LARGEST term down
// (from the top of the grid for lam >= 0, from the bottom for lam < 0), so a block whose
// first term underflows holds only terms below e^{-745} p_k (negligible next to a sum above
// 1e-250); walking up from an underflowed first term would drop terms up to e^{31 lam h} larger.
// Error of a term that matters (>= e^{-745} before its p_k): the first exponent's argument is
// off by <= 4 u (2 |shift| + 745) absolute, the recurrence adds <= (3 j + 4) u + j |lam h| u
// <= 850 u relative (j <= 31 steps, j |lam h| <= 745 for such a term), the sum of n positive
// terms a further n u, so the result is raised by twice the sum of those plus 4 u (|result| + 1)
// (the log and the shift).  The error bound is two-sided, so the computed value less the same raise,
// rounded down, is at most the exact one (terms dropped as negligible only lower the computed value).
// Eight lams of one sign (sixteen with AVX) share one pass over p (independent
// recurrences, each term formed exactly as with one lam).  If a scaled sum is below 1e-250, a
// second pass (one exp per element) scales by the largest log p_k + lam l_k, with the same
// margin plus that of its exponents; the log p_k are taken once per call for all its lams, and a
// term whose exponent is below -746 is skipped (its exp is exactly 0: e^-746 is below half the
// least subnormal double), so that pass costs one exp per term that counts.
namespace detail {

// The raise of a computed log-MGF v: |v - K| <= terms + log (the error analysis above).
struct LogMgfRaise {
    double terms;  // twice the terms' relative error, 2 (n + 850 + 4 (2 |shift| + 745)) u
    double log;    // the log's and the shift's, 4 u (|v| + 1)
};

inline LogMgfRaise log_mgf_raise(double v, std::int64_t n, double shift) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    return {2.0 * (n + 850 + 4.0 * (2.0 * std::fabs(shift) + 745.0)) * u, 4.0 * u * (std::fabs(v) + 1.0)};
}

inline double raised_log_mgf(double v, std::int64_t n, double shift) {
    const LogMgfRaise r = log_mgf_raise(v, n, shift);
    return v + r.terms + r.log;
}

// log p_k for each p_k > 0 (-inf elsewhere, never read), filled on first use and kept for every lam of a call.
inline const double* log_masses(const double* p, std::int64_t n, std::vector<double>& log_p) {
    if (log_p.empty()) {
        log_p.resize(static_cast<std::size_t>(n));
        for (std::int64_t k = 0; k < n; ++k)
            log_p[k] = p[k] > 0.0 ? std::log(p[k]) : -std::numeric_limits<double>::infinity();
    }
    return log_p.data();
}

// K rounded up.
inline double rescaled_log_mgf(const double* p, std::int64_t n, std::int64_t k_lo, double h, double lam,
                               std::vector<double>& log_p) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    const double* lp = log_masses(p, n, log_p);
    double top = -std::numeric_limits<double>::infinity();
    for (std::int64_t k = 0; k < n; ++k)
        if (p[k] > 0.0) top = std::max(top, lp[k] + lam * (k_lo + k) * h);
    if (!std::isfinite(top)) return top;
    double sum = 0.0;
    for (std::int64_t k = 0; k < n; ++k) {
        if (!(p[k] > 0.0)) continue;
        const double x = lp[k] + lam * (k_lo + k) * h - top;
        if (x >= -746.0) sum += std::exp(x);  // below, exp(x) is exactly 0 and adds nothing
    }
    // Each exponent's argument is off by <= 2 u (|top| + 750) absolute (log p_k >= -745).
    const double v = top + std::log(sum), extra = 4.0 * u * (std::fabs(top) + 750.0);
    return raised_log_mgf(v, n, 0.0) + extra;
}

// The scaled sums of `lanes` lams (grid_log_mgf_pass): per block of 32 masses each lane's first term by one exp,
// then per mass sum_j += p_k t_j and t_j *= r_j, with r_j = e^{-|l_j| h}.
template <int lanes>
inline void scaled_sums(const double* p, std::int64_t n, std::int64_t k_lo, double h, const double* l,
                        const double* shift, const double* r, bool down, double* sum) {
#if HOCKEYSTICK_HAVE_AVX2
    if constexpr (lanes % 4 == 0) {
        if (hockeystick::detail::avx2_fma_available()) {  // the same sums, the lanes in registers
            hockeystick::detail::log_mgf_sums_avx<lanes / 4>(p, n, k_lo, h, l, shift, r, down, sum);
            return;
        }
    }
#endif
    constexpr std::int64_t block = 32;
    double t[lanes];
    for (int j = 0; j < lanes; ++j) sum[j] = 0.0;
    for (std::int64_t b0 = 0; b0 < n; b0 += block) {
        const std::int64_t b1 = std::min(n, b0 + block);
        const std::int64_t first = down ? n - 1 - b0 : b0;  // the block's largest term
        for (int j = 0; j < lanes; ++j) t[j] = std::exp(l[j] * ((k_lo + first) * h) - shift[j]);
        for (std::int64_t i = b0; i < b1; ++i) {
            const double pk = p[down ? n - 1 - i : i];
            for (int j = 0; j < lanes; ++j) {
                sum[j] += pk * t[j];
                t[j] *= r[j];
            }
        }
    }
}

// One pass for up to `lanes` lams of one sign (down = lam >= 0: walk from the top of the grid).
template <int lanes>
inline void grid_log_mgf_pass(const double* p, std::int64_t n, std::int64_t k_lo, double h, const double* l, int used,
                              bool down, double* out, std::vector<double>& log_p) {
    double shift[lanes], r[lanes], sum[lanes];
    const std::int64_t k_start = down ? n - 1 : 0;  // the largest term of every lane
    for (int j = 0; j < lanes; ++j) {
        shift[j] = l[j] * ((k_lo + k_start) * h);
        r[j] = std::exp(-std::fabs(l[j]) * h);
    }
    scaled_sums<lanes>(p, n, k_lo, h, l, shift, r, down, sum);
    for (int j = 0; j < used; ++j) {
        if (!(sum[j] > 1e-250)) {
            out[j] = rescaled_log_mgf(p, n, k_lo, h, l[j], log_p);
            continue;
        }
        const double v = shift[j] + std::log(sum[j]);
        out[j] = raised_log_mgf(v, n, shift[j]);
    }
}

}  // namespace detail

// K(lam) rounded up into out for each of the m lams.
inline void grid_log_mgf(const double* p, std::int64_t n, std::int64_t k_lo, double h, const double* lam,
                         std::int64_t m, double* out) {
    constexpr int most = 16;
    // eight lams a pass in scalar code (more sums than its registers hold would spill), sixteen in AVX registers
    const std::size_t lanes = hockeystick::detail::avx2_fma_available() ? most : 8;
    std::vector<double> log_p;  // log p_k, taken where a lam first needs the rescaled pass
    for (const bool down : {true, false}) {
        std::vector<std::int64_t> idx;  // the lams of this sign
        for (std::int64_t i = 0; i < m; ++i)
            if ((lam[i] >= 0.0) == down) idx.push_back(i);
        for (std::size_t i0 = 0; i0 < idx.size(); i0 += lanes) {
            const int used = static_cast<int>(std::min<std::size_t>(lanes, idx.size() - i0));
            double l[most], res[most];
            for (int j = 0; j < most; ++j) l[j] = lam[idx[i0 + std::min(j, used - 1)]];  // spare lanes repeat
            // as few lanes as the lams left need (each lane's terms are the same whatever the lane count)
            if (used <= 2)
                detail::grid_log_mgf_pass<2>(p, n, k_lo, h, l, used, down, res, log_p);
            else if (used <= 4)
                detail::grid_log_mgf_pass<4>(p, n, k_lo, h, l, used, down, res, log_p);
            else if (used <= 8)
                detail::grid_log_mgf_pass<8>(p, n, k_lo, h, l, used, down, res, log_p);
            else
                detail::grid_log_mgf_pass<most>(p, n, k_lo, h, l, used, down, res, log_p);
            for (int j = 0; j < used; ++j) out[idx[i0 + j]] = res[j];
        }
    }
}

}  // namespace pld
}  // namespace hockeystick
