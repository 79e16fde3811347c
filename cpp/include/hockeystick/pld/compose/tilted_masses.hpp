// The exponential tilt's arithmetic, rounded outward: a factor's masses tilted by e^{theta k} / M and a composed
// window's masses untilted by M^T e^{-theta K} (pld/reads/tilted.hpp's (1)), and the bound on the untilt factor over
// a read's losses.  The package's compose/tilted.py and the C library's tilted reads (pld/reads/tilted.hpp) call
// these same functions, so a tilted factor and an untilted window are the same doubles through either door.
//
// Rounding outward.  The tilted masses e^{log p_k + theta k - log M} and the untilt factors e^{T log M - theta K} are
// computed in double: each exponent a sum of a few terms of at most a few rounding errors each (an absolute error of
// a few u times the terms' magnitudes, which e^x turns into the same relative error), and libm's exp and log add at
// most a few ulp (glibc's, sysdeps/ieee754/dbl-64/e_exp.c and e_log.c: 0.511 and 0.519 ulp; the margin has room for
// 4 ulp), so the computed exponential is within a relative 16 u (|theta k| + |log M| + 1) of the exact one (u =
// 2^-53), and the masses are raised (upper side) or lowered (lower side) by twice that (tilt_margin: the product
// that applies it rounds too).  A tilted mass that underflows is raised to twice the least normal double on the upper
// side (dropped on the lower); a negative entry of a tilted window is clipped to 0 on the upper side (it only raises
// the sum) and untilted with the factor of the other direction on the lower side.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "hockeystick/pld/grid/grid_pmf.hpp"
#include "hockeystick/pld/grid/moments.hpp"

namespace hockeystick {
namespace pld {

// The relative error bound 16 u (terms + 1) of e^x computed in double where x is a sum of products whose magnitudes
// add up to `terms` (the header's comment), doubled for the product that applies it.
inline double tilt_margin(double terms) { return 32.0 * 0x1p-53 * (std::fabs(terms) + 1.0); }

// The masses p[0 .. n) at grid indices k_lo, k_lo + 1, ... (each >= 0) tilted: p_k e^{theta k - log_m} (1 +-
// tilt_margin(|log p_k| + |theta k| + |log_m|)), raised on the side `pessimistic` (a positive mass that underflows
// raised to twice the least normal double), lowered on the other, 0 where p_k is; written to out[0 .. n).  Any
// log_m gives valid tilted masses (the header's (1) holds for any normalizer M > 0).
inline void tilted_masses(const double* p, std::int64_t n, std::int64_t k_lo, double theta, double log_m,
                          bool pessimistic, double* out) {
    const double least = 2.0 * std::numeric_limits<double>::min();
    for (std::int64_t j = 0; j < n; ++j) {
        if (!(p[j] > 0.0)) {
            out[j] = 0.0;
            continue;
        }
        const double log_p = std::log(p[j]);
        const double scaled = theta * static_cast<double>(k_lo + j);
        // p_k e^{theta k - log M} as one exponential (each term at most about 1: no overflow where p_k is tiny)
        const double margin = tilt_margin(std::fabs(log_p) + std::fabs(scaled) + std::fabs(log_m));
        double t = std::exp(log_p + scaled - log_m) * (pessimistic ? 1.0 + margin : 1.0 - margin);
        if (pessimistic && t < least) t = least;  // raised above its true value
        out[j] = t;
    }
}

// One factor of a tilted composition: its tilted masses (no mass at +infinity, the factor's loss shift) and log M.
struct TiltedFactor {
    GridPMF pmf;
    double log_m = 0.0;
};

// pmf's finite masses tilted by e^{theta k} and normalized by M = e^{log_m}, log_m the finite part's log-moment at
// lam = theta / h (grid_log_mgf, rounded up: any positive M is valid), rounded outward on the side `pessimistic`
// (tilted_masses).  Throws std::invalid_argument for a mass not >= 0 or a moment that overflows (take a smaller
// tilt).
inline TiltedFactor tilted_factor(const GridPMF& pmf, double theta, bool pessimistic) {
    const std::int64_t n = static_cast<std::int64_t>(pmf.p.size());
    for (const double x : pmf.p)
        if (!(x >= 0.0)) throw std::invalid_argument("tilted_factor: a tilted factor's masses must be >= 0");
    const double lam = theta / pmf.h;
    TiltedFactor out;
    grid_log_mgf(pmf.p.data(), n, pmf.k_lo, pmf.h, &lam, 1, &out.log_m);
    if (!std::isfinite(out.log_m))
        throw std::invalid_argument("tilted_factor: the tilt overflows the factor's moment: take a smaller tilt");
    out.pmf.k_lo = pmf.k_lo;
    out.pmf.h = pmf.h;
    out.pmf.connect_dots = pmf.connect_dots;
    out.pmf.loss_shift = pmf.loss_shift;
    out.pmf.p.assign(static_cast<std::size_t>(n), 0.0);
    tilted_masses(pmf.p.data(), n, pmf.k_lo, theta, out.log_m, pessimistic, out.pmf.p.data());
    return out;
}

// The untilted masses of the tilted window entries tilted[0 .. n) at grid indices K = first, first + 1, ...: on the
// side `pessimistic` max(p~_K, 0) e^{log_scale - theta K} (1 + m_K), on the other p~_K e^{log_scale - theta K} (1 -+
// m_K), the margin lowering each entry (subtracted where p~_K >= 0, added where negative), m_K =
// tilt_margin(scale_magnitude + |theta K|) (log_scale = T log M, scale_magnitude the sum of its terms' magnitudes,
// which bounds that sum's rounding); written to out[0 .. n).
inline void untilted_masses(const double* tilted, std::int64_t n, std::int64_t first, double theta, double log_scale,
                            double scale_magnitude, bool pessimistic, double* out) {
    for (std::int64_t i = 0; i < n; ++i) {
        const double scaled = theta * static_cast<double>(first + i);
        const double factor = std::exp(log_scale - scaled);
        const double margin = tilt_margin(scale_magnitude + std::fabs(scaled));
        out[i] = pessimistic ? std::max(tilted[i], 0.0) * factor * (1.0 + margin)
                             : tilted[i] * factor * (tilted[i] >= 0.0 ? 1.0 - margin : 1.0 + margin);
    }
}

// An upper bound on e^{log_scale - theta K} over grid losses K h >= x, given scaled = theta x / h: the factor at x
// raised by tilt_margin(scale_magnitude + |scaled|); 0 where `scaled` is not below +infinity (x infinite, or x / h
// past the doubles): there, as wherever the factor underflows, its products lie below the absolute tiny a read adds
// per entry (pld/reads/tilted.hpp's kTiltTiny; the product 0 x inf would be NaN).
inline double untilt_factor(double scaled, double log_scale, double scale_magnitude) {
    if (!(scaled < std::numeric_limits<double>::infinity())) return 0.0;
    return std::exp(log_scale - scaled) * (1.0 + tilt_margin(scale_magnitude + std::fabs(scaled)));
}

}  // namespace pld
}  // namespace hockeystick
