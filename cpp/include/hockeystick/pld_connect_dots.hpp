// Pessimistic and optimistic PMFs on the grid from the cells of a PLD.
//
// The privacy profile of a pair is H(g) = E_P[(1 - g e^{-L})_+], g = e^eps, a
// convex function of g.  A PMF with masses p_j at the grid losses l_j has a
// profile that is piecewise linear in g with kinks at g_j = e^{l_j}, and
// p_j = g_j (slope right of g_j - slope left of g_j).
//
// Pessimistic (connect the dots, Doroshenko et al. 2022, Sec. 3): the chord
// through (g_j, H(g_j)).  It lies above H (convexity), so the pair it describes
// dominates (P, Q) (Blackwell), and every composition of it bounds delta from
// above.  In cell terms each cell's mass is split between its two ends keeping
// both its P- and Q-mass:
//   p_j = (d_j + e^h c_{j-1}) / (e^h - 1),  p_inf = tail_hi,  tail_lo rounded up to l_1.
//
// Optimistic (new here): values v_j = H(g_j) - e_j with e_j >= the largest
// gap between the chord and H on the two cells around g_j.  On cell j that gap
// is at most the gap between the chord and the two tangents at its ends,
//   gap_j = c_j d_j / (c_j + d_j)
// (the tangents have slopes -Q(L > l_j), -Q(L > l_{j+1})), so the chord
// through the v_j lies below H everywhere: the pair it describes is dominated
// by (P, Q) and its compositions bound delta from below.  Its masses are
//   p_j (e^h - 1) = (d_j - e_{j+1} + e_j) + e^h (c_{j-1} + e_j - e_{j-1}),
// non-negative when e_{j+1} - e_j <= d_j and e_{j-1} - e_j <= c_{j-1}; one
// forward and one backward pass raise e (always safe) until both hold.  The
// topmost cell is rounded down (e = c there, the only line below H that ends
// at zero), the tails are dropped.  Between grid points the exact requirement
// is that the chord of the e's covers the tent of height gap_j peaking at
// theta_j = c_j/(c_j + d_j); max(gap_{j-1}, gap_j) satisfies it, and next to the
// pinned top it is imposed as such.  Both errors are O(h^2) per composition
// instead of the O(h) of rounding losses down.  Any negative residue (from
// the pinned top) is cancelled by removing as much mass from atoms above it
// (which lowers the profile everywhere); if that is impossible the PMF falls
// back to rounding every loss down, and `connect_dots` says so.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "pld_cells.hpp"

namespace hockeystick {
namespace pld {

struct GridPMF {
    std::int64_t k_lo = 0;  // loss of p[0] is k_lo * h
    double h = 0.0;
    std::vector<double> p;  // masses at l_0 .. l_N
    double p_inf = 0.0;     // mass at +infinity
    bool connect_dots = true;
};

inline GridPMF pessimistic_pmf(const Cells& cells) {
    const std::int64_t n = static_cast<std::int64_t>(cells.c.size());
    GridPMF pmf;
    pmf.k_lo = cells.k_lo;
    pmf.h = cells.h;
    pmf.p.assign(n + 1, 0.0);
    const double eh = std::exp(cells.h), inv = 1.0 / std::expm1(cells.h);
    for (std::int64_t j = 0; j <= n; ++j) {
        const double dj = j < n ? cells.d[j] : 0.0;
        const double cprev = j > 0 ? cells.c[j - 1] : 0.0;
        pmf.p[j] = (dj + eh * cprev) * inv;
    }
    pmf.p[std::min<std::int64_t>(1, n)] += cells.tail_lo;
    pmf.p_inf = cells.tail_hi;
    return pmf;
}

// Every loss of a cell rounded down to the cell's lower end: mass a_j = (e^h c_j + d_j)/(e^h - 1) at l_j
// (a lower bound by coupling: every loss only decreases).
inline GridPMF rounded_down_pmf(const Cells& cells) {
    const std::int64_t n = static_cast<std::int64_t>(cells.c.size());
    GridPMF pmf;
    pmf.k_lo = cells.k_lo;
    pmf.h = cells.h;
    pmf.p.assign(n + 1, 0.0);
    // a_j = c_j + e^{l_j} b_j and e^{l_j} b_j (e^h - 1) = c_j + d_j, so a_j = c_j + (c_j + d_j)/(e^h - 1).
    const double inv = 1.0 / std::expm1(cells.h);
    for (std::int64_t j = 0; j < n; ++j) pmf.p[j] = cells.c[j] + (cells.c[j] + cells.d[j]) * inv;
    pmf.connect_dots = false;
    return pmf;
}

inline GridPMF optimistic_pmf(const Cells& cells) {
    const std::int64_t n = static_cast<std::int64_t>(cells.c.size());
    const auto& c = cells.c;
    const auto& d = cells.d;
    std::int64_t top = -1;  // last non-empty cell
    for (std::int64_t j = n - 1; j >= 0; --j)
        if (c[j] > 0.0 || d[j] > 0.0) { top = j; break; }
    if (top < 0) return rounded_down_pmf(cells);
    std::vector<double> gap(n, 0.0), e(n + 1, 0.0);
    for (std::int64_t j = 0; j < n; ++j) {
        const double s = c[j] + d[j];
        gap[j] = s > 0.0 ? c[j] * d[j] / s : 0.0;
    }
    for (std::int64_t j = 0; j < top; ++j) e[j] = std::max(j > 0 ? gap[j - 1] : 0.0, gap[j]);
    // The chord must end at zero at g_{top+1}: for a spread-out top cell only rounding it down
    // (e = c) stays below H (H has a flat tangent there); an atom at its upper end is exact.
    // An atom exactly at l_N keeps its place: the tangent at g_N then has slope -Q(atom) and
    // only the spread-out part is rounded down.
    const double kept = top == n - 1 ? cells.top_atom * -std::expm1(-cells.h) : 0.0;
    e[top] = d[top] > 0.0 ? std::max(c[top] - kept, 0.0) : 0.0;
    if (top > 0 && d[top - 1] > 0.0) {
        // Below the pinned end the exact condition on cell top-1: the chord of the e's must
        // cover the tent of height gap at theta = c/(c+d): (1-theta) e_{top-1} + theta e_top >= gap.
        const double theta = c[top - 1] / (c[top - 1] + d[top - 1]);
        e[top - 1] = std::max(e[top - 1], (gap[top - 1] - theta * e[top]) / (1.0 - theta));
    }
    // e_j >= e_{j-1} - c_{j-1}  (forward),  e_j >= e_{j+1} - d_j  (backward); e above top stays 0.
    for (std::int64_t j = 1; j <= top; ++j) e[j] = std::max(e[j], e[j - 1] - c[j - 1]);
    for (std::int64_t j = top - 1; j >= 0; --j) e[j] = std::max(e[j], e[j + 1] - d[j]);
    GridPMF pmf;
    pmf.k_lo = cells.k_lo;
    pmf.h = cells.h;
    pmf.p.assign(n + 1, 0.0);
    const double eh = std::exp(cells.h), inv = 1.0 / std::expm1(cells.h);
    for (std::int64_t j = 0; j <= n; ++j) {
        const double dj = j < n ? d[j] : 0.0;
        const double cprev = j > 0 ? c[j - 1] : 0.0;
        const double eprev = j > 0 ? e[j - 1] : e[0];  // left of l_0 the profile is extended parallel
        const double enext = j < n ? e[j + 1] : 0.0;
        pmf.p[j] = ((dj - enext + e[j]) + eh * (cprev + e[j] - eprev)) * inv;
    }
    // Cancel negative residues against mass above them, from the bottom up.
    double debt = 0.0;
    for (std::int64_t j = 0; j <= n; ++j) {
        if (pmf.p[j] < 0.0) {
            debt += -pmf.p[j];
            pmf.p[j] = 0.0;
        } else if (debt > 0.0) {
            const double take = std::min(debt, pmf.p[j]);
            pmf.p[j] -= take;
            debt -= take;
        }
    }
    if (debt > 0.0) return rounded_down_pmf(cells);
    return pmf;
}

}  // namespace pld
}  // namespace hockeystick
