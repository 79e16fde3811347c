// An optimistic (lower-side) grid PMF on a coarse grid from a PMF on a finer one, by merging
// atoms so that their mean of Y = e^{-L} lands exactly on a coarse grid point.
//
// Why it is a lower side.  With g = e^eps, delta(eps) = E_P[(1 - g Y)_+] is convex in Y, and
// the composed delta of independent factors is E_P[(1 - g Y_1 ... Y_m)_+], convex in each Y_i
// for the others fixed.  So replacing a group of one factor's atoms (p_i, l_i) by one atom of
// P-mass sum p_i at l* with e^{-l*} = sum p_i e^{-l_i} / sum p_i (a merge: conditional
// Jensen) lowers delta at every eps, alone and after any composition; splitting an atom into
// two at its own loss changes nothing, so groups may share an atom fractionally.  Rounding a
// loss down (the integrand is non-decreasing in each loss) and dropping P-mass (the integrand
// is >= 0) lower it too.  The result is therefore a lower side wherever the input is one.
//
// The merge (O(n), one sweep from the top loss down).  Fine losses j h_f, coarse l_k = k h,
// h = N h_f, N >= 1 an integer.  A pool gathers atoms; its target is l_k, k = floor(j / N) of
// its first atom (the largest coarse point at or below it, so the pool's merged loss starts
// at or above l_k).  Atoms at or above l_k join it whole; an atom below l_k (Y > Y_k) pulls the
// merged loss down, and the first one that would pull it below l_k is split so that the
// pool's merged Y is exactly Y_k (at most: the fraction is rounded down), the pool is emitted
// at l_k, and the atom's rest opens the next pool.  The last pool is emitted at its target,
// its merged loss being at or above it (a rounding down).  P-mass is kept; E_P[Y] is kept but
// for the last pool's rounding: pools straddle their grid point (mass just above it paired
// with mass just below), so no loss is shifted by a grid step, unlike rounding every loss
// down (rounded_down_pmf), which shifts the mean by ~h/2 per factor.  What is lost is the
// spread inside each pool (about h^2/12 of loss variance per factor), small once the input's
// spread covers many coarse cells (a block of rounds composed on the fine grid:
// pld/sampling/two_resolution.py).
//
// Input charges (a composed optimistic PMF, pld/compose/compose.hpp): each entry may exceed the true
// mass by `entry_error` (round-off) and the entries together by `alias` (the window's folded
// tails, |shift|).  Entries are lowered by entry_error (clipped at 0), then `alias` of P-mass
// is removed from the top losses: for any non-negative non-decreasing function of the loss
// (the composed delta as a function of one factor's loss), removing the top mass M removes
// at least as much as removing any sub-measure of mass <= M, so the result lies below the
// true PMF in that order.
//
// Round-off of the merge.  The pool keeps D >= sum p (Y / Y_k - 1) (an upper estimate): each
// term p expm1(-(j - kN) h_f) (j - kN an exact integer, one rounding of the product by h_f,
// expm1 within 1 ulp, one product: within (8 + |x|) u of the term, x its argument) is taken
// at its upper end, and each sum is rounded up (nextafter toward +inf).  A split fraction
// theta = -D / t_up is rounded down (x (1 - 4u)), so the emitted pool's true mean Y is at most
// Y_k (its true loss at or above l_k: emitting at l_k rounds down).  Each emitted P-mass, a sum
// of n positive terms, is scaled by (1 - (n + 4) u), so it never exceeds the mass it merges.
//
// Domain: N a power of two (then h = N h_f is exact; with N = 3, h_f = 0.3 the product rounds
// to 0.8999999999999999 and a merged atom would land above its inputs), h_f > 0 and N h_f
// finite, masses finite and >= 0 (negative ones are clipped), entry_error, alias >= 0.  An empty (all zero) input gives an empty PMF (one zero mass).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "hockeystick/pld/grid/grid_pmf.hpp"

namespace hockeystick {
namespace pld {

namespace detail {

// floor(a / b) for b > 0.
inline std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    const std::int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

// p (Y / Y_k - 1) for an atom m = j - kN fine steps above l_k, rounded toward +inf by its error bound.
inline double relative_excess_up(double p, std::int64_t m, double h_fine) {
    constexpr double u = std::numeric_limits<double>::epsilon() / 2.0;
    const double x = -static_cast<double>(m) * h_fine;
    const double t = p * std::expm1(x);
    const double r = (8.0 + std::fabs(x)) * u;
    return t >= 0.0 ? t * (1.0 + r) : t * (1.0 - r);
}

inline double add_up(double a, double b) { return std::nextafter(a + b, std::numeric_limits<double>::infinity()); }

// mean_contraction's arguments: throws std::invalid_argument outside its domain.
inline void check_mean_contraction(double h_fine, std::int64_t ratio, double entry_error, double alias) {
    if (ratio < 1 || (ratio & (ratio - 1)) != 0)
        throw std::invalid_argument("ratio must be a power of two (1, 2, 4, ...), so that h = ratio h_fine is exact");
    if (!(h_fine > 0.0) || !std::isfinite(h_fine) || !std::isfinite(h_fine * static_cast<double>(ratio)))
        throw std::invalid_argument("h_fine must be finite and > 0, and ratio h_fine finite");
    if (!(entry_error >= 0.0) || !(alias >= 0.0)) throw std::invalid_argument("entry_error and alias must be >= 0");
}

// The masses p[0 .. n) with their input charges taken off (this file's opening comment): entry_error from each
// (clipped at 0), then alias, the folded tails, from the top down.
inline std::vector<double> charged_masses(const double* p, std::int64_t n, double entry_error, double alias) {
    std::vector<double> q(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
    for (std::int64_t i = 0; i < n; ++i) q[i] = std::max(p[i] - entry_error, 0.0);
    for (std::int64_t i = n - 1; i >= 0 && alias > 0.0; --i) {  // the folded tails, from the top
        const double take = std::min(q[i], alias);
        q[i] -= take;
        alias -= take;
    }
    return q;
}

}  // namespace detail

// The fine PMF p (losses (k_lo + i) h_fine) merged onto the grid h = ratio h_fine (this file's
// opening comment); p_inf is kept as it is.  The result's connect_dots is false (an optimistic PMF).
inline GridPMF mean_contraction(const double* p, std::int64_t n, std::int64_t k_lo, double h_fine, std::int64_t ratio,
                                double p_inf, double entry_error, double alias) {
    constexpr double u = std::numeric_limits<double>::epsilon() / 2.0;
    detail::check_mean_contraction(h_fine, ratio, entry_error, alias);
    const std::vector<double> q = detail::charged_masses(p, n, entry_error, alias);
    GridPMF out;
    out.h = h_fine * static_cast<double>(ratio);
    out.p_inf = p_inf;
    out.connect_dots = false;
    std::int64_t top = n - 1, bottom = 0;
    while (top >= 0 && !(q[top] > 0.0)) --top;
    while (bottom <= top && !(q[bottom] > 0.0)) ++bottom;
    if (top < 0) {
        out.k_lo = detail::floor_div(k_lo, ratio);
        out.p.assign(1, 0.0);
        return out;
    }
    const std::int64_t k_min = detail::floor_div(k_lo + bottom, ratio), k_max = detail::floor_div(k_lo + top, ratio);
    out.k_lo = k_min;
    out.p.assign(static_cast<std::size_t>(k_max - k_min + 1), 0.0);
    auto emit = [&](std::int64_t k, double mass, std::int64_t terms) {
        out.p[k - k_min] += mass * (1.0 - static_cast<double>(terms + 4) * u);
    };
    std::int64_t k = 0, terms = 0;
    double mass = 0.0, excess = 0.0;  // the pool: P-mass and D >= sum p (Y / Y_k - 1)
    bool open = false;
    for (std::int64_t i = top; i >= bottom; --i) {
        double pi = q[i];
        if (!(pi > 0.0)) continue;
        const std::int64_t j = k_lo + i;
        if (!open) {
            k = detail::floor_div(j, ratio);
            mass = pi;
            excess = detail::relative_excess_up(pi, j - k * ratio, h_fine);
            terms = 1;
            open = true;
            continue;
        }
        const std::int64_t m = j - k * ratio;
        const double t = detail::relative_excess_up(pi, m, h_fine);
        if (m < 0 && detail::add_up(excess, t) >= 0.0) {
            // split: theta of the atom brings the pool's mean Y to Y_k at most
            const double theta = std::min(1.0, std::max(0.0, (-excess / t) * (1.0 - 4.0 * u)));
            emit(k, mass + theta * pi, terms + 1);
            pi *= (1.0 - theta);
            k = detail::floor_div(j, ratio);
            mass = pi;
            excess = detail::relative_excess_up(pi, j - k * ratio, h_fine);
            terms = 1;
            open = pi > 0.0;
            continue;
        }
        mass += pi;
        excess = detail::add_up(excess, t);
        ++terms;
    }
    if (open) emit(k, mass, terms);
    return out;
}

}  // namespace pld
}  // namespace hockeystick
