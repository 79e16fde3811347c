// A pessimistic (upper-side) grid PMF on a coarse grid from one on a finer grid, by splitting each atom between the two
// coarse points around it so that its P-mass and its Q-mass are kept (a dilation: the atom's loss spread over the
// coarse cell that holds it).
//
// Why it is an upper side.  An atom of P-mass m at loss l (Q-mass m e^{-l}) between the coarse points a <= l < b = a +
// h_c is replaced by the masses m_a at a and m_b at b with m_a + m_b = m and m_a e^{-a} + m_b e^{-b} = m e^{-l}:
//
//     m_b = m (1 - e^{-t}) / (1 - e^{-h_c}),    m_a = m e^{-h_c} (e^{h_c - t} - 1) / (1 - e^{-h_c}),    t = l - a.
//
// In g = e^eps the atom's hockey-stick curve m (1 - g e^{-l})_+ is convex, and the split's is the chord of it between
// g = e^a and g = e^b, equal to it outside: the split pair dominates the atom (it is a coarser experiment's pair of
// the same P and Q masses), and composition keeps a dominating pair dominating.  Moving the mass a split puts on b up
// (t rounded up) and adding mass (each entry raised by its round-off bound, the sums rounded up) only raise every
// curve, so the coarse PMF read as a pessimistic side bounds the fine one's true curve from above at every eps
// (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi, PETS 2022, for the dominance of a discretization of the loss onto
// grid points around it; the split here is theirs applied to one atom).  The fine PMF's loss shift s (its true losses
// at most s above the grid's) is taken into the atoms' losses first: its whole fine cells move the indices exactly,
// its rest below one cell is rounded up, so no true loss lies above the loss split.
//
// Rounding.  t = j h_f + rest (j h_f exact for the fine index j within the coarse cell, then one product and one sum)
// is raised by 2 u; expm1, exp, the products and the quotient each carry a few ulps, covered by the factor 1 + 32 u on
// each split mass; the coarse entries, sums of n nonnegative split masses, are raised by (n + 4) u; the mass at
// +infinity by 4 u (at most 1).  u = 2^-53.
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

// The largest coarse step a dilation takes: e^{-h_c} and e^{h_c} stay normal doubles below it, so no split of an atom
// reads 0 times infinity.
constexpr double kDilationMaxStep = 700.0;

namespace dilation_detail {

// dilated's refusals (its comment), std::invalid_argument each.
inline void require_dilatable(const GridPMF& fine, double entry_error, std::int64_t ratio) {
    if (ratio < 1) throw std::invalid_argument("dilated: the ratio of the grids must be >= 1");
    if (fine.p.empty()) throw std::invalid_argument("dilated: the fine PMF has no mass point");
    for (const double x : fine.p)
        if (!std::isfinite(x)) throw std::invalid_argument("dilated: every mass must be finite");
    if (!(fine.loss_shift >= 0.0 && fine.loss_shift < std::numeric_limits<double>::infinity()))
        throw std::invalid_argument("dilated: a loss shift must be finite and >= 0");
    if (!(entry_error >= 0.0 && entry_error < std::numeric_limits<double>::infinity()))
        throw std::invalid_argument("dilated: an entry error must be finite and >= 0");
    if (!(static_cast<double>(ratio) * fine.h <= kDilationMaxStep))
        throw std::invalid_argument("dilated: the coarse step ratio * h must be at most 700 (a loss step)");
    // the indices the shifted atoms take stay far inside the 64-bit range
    if (!(fine.loss_shift / fine.h + std::fabs(static_cast<double>(fine.k_lo)) + static_cast<double>(fine.p.size()) <
          0x1p61))
        throw std::invalid_argument("dilated: the loss shift over h passes the grid indices' range");
}

}  // namespace dilation_detail

// The pessimistic fine PMF `fine` (its masses within `entry_error` each of the true ones, its loss shift in
// fine.loss_shift, its mass at +infinity in fine.p_inf) split onto the grid ratio * fine.h (the header's comment): a
// pessimistic PMF without loss shift whose curve bounds the fine one's true curve from above at every eps.  Throws
// std::invalid_argument for a ratio below 1, a coarse step ratio * h above kDilationMaxStep, an empty PMF, a mass not
// finite, a loss shift not finite and >= 0 or past the indices' range, or an entry error not finite and >= 0.
inline GridPMF dilated(const GridPMF& fine, double entry_error, std::int64_t ratio) {
    constexpr double u = 0x1p-53;
    dilation_detail::require_dilatable(fine, entry_error, ratio);
    const double h = fine.h;
    const double h_c = static_cast<double>(ratio) * h;
    // the loss shift as whole fine cells (moving the indices, exactly) and a rest below one cell, rounded up
    std::int64_t cells = static_cast<std::int64_t>(std::floor(fine.loss_shift / h));
    double rest = std::max(0.0, fine.loss_shift - static_cast<double>(cells) * h) * (1.0 + 4.0 * u);
    if (!(rest < h)) {
        cells += 1;
        rest = 0.0;
    }
    const std::int64_t n = static_cast<std::int64_t>(fine.p.size());
    const auto coarse_of = [ratio](std::int64_t k) {  // floor(k / ratio), the coarse point at or below fine index k
        const std::int64_t m = k / ratio;
        return (k % ratio != 0 && k < 0) ? m - 1 : m;  // ratio >= 1: C++ division truncates toward 0
    };
    const std::int64_t first = fine.k_lo + cells;
    const std::int64_t lo = coarse_of(first), top = coarse_of(first + n - 1);
    const double denominator = -std::expm1(-h_c);
    const double up = 1.0 + 32.0 * u;
    const double below = std::exp(-h_c);
    GridPMF out;
    out.k_lo = lo;
    out.h = h_c;
    out.p.assign(static_cast<std::size_t>(top - lo + 2), 0.0);
    std::vector<double> to_b(static_cast<std::size_t>(n));
    // the masses each coarse point a receives, in the order of the atoms, then those each b receives
    for (std::int64_t i = 0; i < n; ++i) {
        const double mass = std::max(fine.p[i], 0.0) + entry_error;  // raised by its round-off bound
        const std::int64_t k = first + i, m = coarse_of(k);
        // the atom's loss above a, in [0, h_c): exact index arithmetic, one product and one sum, rounded up (the
        // split moves mass to b as t grows)
        double t = (static_cast<double>(k - m * ratio) * h + rest) * (1.0 + 2.0 * u);
        t = std::min(t, h_c);
        to_b[static_cast<std::size_t>(i)] = mass * -std::expm1(-t) / denominator * up;
        out.p[static_cast<std::size_t>(m - lo)] += mass * below * std::expm1(std::max(h_c - t, 0.0)) / denominator * up;
    }
    for (std::int64_t i = 0; i < n; ++i) out.p[static_cast<std::size_t>(coarse_of(first + i) - lo + 1)] += to_b[i];
    const double sums = 1.0 + static_cast<double>(n + 4) * u;  // the sums of the split masses, rounded up
    for (double& x : out.p) x *= sums;
    out.p_inf = std::min(1.0, fine.p_inf * (1.0 + 4.0 * u));
    out.connect_dots = true;
    out.loss_shift = 0.0;
    return out;
}

}  // namespace pld
}  // namespace hockeystick
