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
// gap between the chord and H on the two cells around g_j.  On cell j the gap
// between the chord and H is at most the "tent" between the chord and the two
// tangents at the cell's ends (slopes -Q(L > l_j), -Q(L > l_{j+1})), of height
//   gap_j = c_j d_j / (c_j + d_j)  at  theta_j = c_j / (c_j + d_j)  of the cell,
// so with e_j >= max(gap_{j-1}, gap_j) the chord through the v_j lies below H.
// The top: H ends with a flat tangent (a continuous law), so the chord can only
// reach zero at g_{top+1} if v_top = 0, i.e. the top cell is rounded down (an atom
// exactly at the top grid point keeps its place); next to that pin, and at any
// lower pin needed to keep every v_j >= 0, the tent condition
// (1 - theta) e_{j-1} + theta e_j >= gap_{j-1} is imposed exactly.  Finally the
// greatest convex minorant of the points (pool-adjacent-violators on the chord
// slopes, weighted by the cell widths in g) makes the masses non-negative; it
// only lowers the curve.  The result is the profile of a pair dominated by
// (P, Q) (Blackwell), so all its compositions bound delta from below.  Tails are
// dropped.  Near the bottom, where H hugs its tangent at g_0, the points follow
// that tangent instead (it lies below H and keeps the P- and Q-mass; a lowered
// envelope there would push the Q-mass above 1 and cost P-mass, which T-fold
// composition multiplies by T); a cell leaving the tangent must meet the tent
// condition, which one upward pass enforces by lowering its upper end.  The masses are
//   p_j (e^h - 1) = (d_j - e_{j+1} + e_j) + e^h (c_{j-1} + e_j - e_{j-1})
// where the minorant leaves the curve unchanged (no cancellation), and
// g_j (slope right - slope left) where it pools.  Since the e's telescope, the
// P-mass is kept up to the ends; the deficit at each grid point is O(h) times
// the local cell mass, i.e. O(h^2) times the density, instead of the O(h) shift
// of every loss that rounding down makes.  A negative residue from round-off is
// cancelled by removing as much mass above it (which lowers the curve
// everywhere); if that fails the PMF falls back to rounding every loss down, and
// `connect_dots` says so.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
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
    const double h = cells.h, eh = std::exp(h), em1 = std::expm1(h);
    std::int64_t top = -1;  // last non-empty cell
    for (std::int64_t j = n - 1; j >= 0; --j)
        if (c[j] > 0.0 || d[j] > 0.0) { top = j; break; }
    if (top < 0) return rounded_down_pmf(cells);
    auto gap = [&](std::int64_t j) {
        const double s = c[j] + d[j];
        return s > 0.0 ? c[j] * d[j] / s : 0.0;
    };
    // H_j = H(g_j) of the kept cells and rho_j = (g_{j+1} - g_j) Q(L > l_{j+1}), by positive recursions.
    std::vector<double> H(top + 2, 0.0), rho(top + 2, 0.0), e(top + 2, 0.0);
    for (std::int64_t j = top - 1; j >= 0; --j) rho[j] = (c[j + 1] + d[j + 1] + rho[j + 1]) / eh;
    for (std::int64_t j = top; j >= 0; --j) H[j] = H[j + 1] + c[j] + rho[j];
    for (std::int64_t j = 0; j < top; ++j) e[j] = std::max(j > 0 ? gap(j - 1) : 0.0, gap(j));
    const double kept = top == n - 1 ? cells.top_atom * -std::expm1(-h) : 0.0;
    e[top] = d[top] > 0.0 ? std::max(c[top] - kept, 0.0) : 0.0;
    auto pin_below = [&](std::int64_t j) {  // tent condition on cell j-1 given e_j
        if (j == 0 || !(d[j - 1] > 0.0)) return;
        const double theta = c[j - 1] / (c[j - 1] + d[j - 1]);
        e[j - 1] = std::max(e[j - 1], (gap(j - 1) - theta * e[j]) / (1.0 - theta));
    };
    pin_below(top);
    std::int64_t pin = top + 1;  // the curve is zero from g_pin on
    for (std::int64_t j = top; j >= 0; --j) {
        if (H[j] - e[j] >= 0.0) continue;
        pin = j;
        e[j] = H[j];
        pin_below(j);
    }
    for (std::int64_t j = pin + 1; j <= top + 1; ++j) e[j] = H[j];
    // Follow the tangent at g_0 wherever it is closer to H than the envelope: its excess
    // below H, x_j = H_j - (H_0 - Q(L > l_0)(g_j - g_0)), by a positive recursion
    //   x_{j+1} = x_j + d_j + e^h S_{j-1},  S_j = e^h S_{j-1} + c_j + d_j.
    // A cell with both ends on the tangent has the tangent as chord (below H); any other
    // cell must meet the tent condition.
    {
        // The excess grows like e^{l_j} (it overflows on grids wider than 709) and never falls:
        // once it exceeds every e_j no later point can join the tangent, so it stops there.
        std::vector<double> env(e.begin(), e.begin() + pin + 1);
        const double e_max = *std::max_element(env.begin(), env.end());
        std::vector<double> excess(pin + 1, std::numeric_limits<double>::infinity());
        excess[0] = 0.0;
        double acc = 0.0;  // S_{j-1}
        for (std::int64_t j = 0; j < pin && excess[j] <= e_max; ++j) {
            excess[j + 1] = excess[j] + d[j] + eh * acc;
            acc = eh * acc + c[j] + d[j];
        }
        std::vector<char> on_tangent(pin + 1, 0);
        for (std::int64_t j = 0; j < pin; ++j)
            if (excess[j] < e[j]) { e[j] = excess[j]; on_tangent[j] = 1; }
        // One pass upward: a failing cell keeps its lower end and lowers its upper end just
        // enough, e_{j+1} = (gap_j - (1 - theta) e_j) / theta (raising e only helps the cell
        // above); if that would push the point below zero the lower end returns to the envelope.
        for (std::int64_t j = 0; j < pin; ++j) {
            if (on_tangent[j] && on_tangent[j + 1]) continue;
            const double s = c[j] + d[j];
            if (!(s > 0.0)) continue;
            const double theta = c[j] / s;
            if ((1.0 - theta) * e[j] + theta * e[j + 1] >= gap(j)) continue;
            const double need = (gap(j) - (1.0 - theta) * e[j]) / theta;
            if (j + 1 < pin && need <= H[j + 1]) {
                e[j + 1] = need;
                on_tangent[j + 1] = 0;
            } else {
                e[j] = env[j];
                on_tangent[j] = 0;
                if ((1.0 - theta) * e[j] + theta * e[j + 1] < gap(j)) e[j + 1] = std::max(e[j + 1], env[j + 1]);
            }
        }
    }
    // Greatest convex minorant: blocks of consecutive chord segments with their rise and the
    // logarithm of their width in g (widths e^{l_j} (e^h - 1) span e^{+-1000} on wide grids).
    // Segment -1 runs from g = 0 along the tangent at g_0 (slope -Q(L > l_0)).
    struct Block { std::int64_t first, last; double rise, log_width; };
    std::vector<Block> blocks;
    blocks.reserve(pin + 1);
    const double log_em1 = std::log(em1);
    auto l_at = [&](std::int64_t j) { return static_cast<double>(cells.k_lo + j) * h; };
    blocks.push_back({-1, -1, -(c[0] + d[0] + rho[0]) / em1, l_at(0)});  // width g_0, slope -Q(L > l_0)
    for (std::int64_t j = 0; j < pin; ++j) {
        blocks.push_back({j, j, -(c[j] + rho[j] + e[j + 1] - e[j]), l_at(j) + log_em1});
        while (blocks.size() >= 2) {
            const Block& b = blocks[blocks.size() - 1];
            const Block& a = blocks[blocks.size() - 2];
            // a.rise / a.width <= b.rise / b.width, both sides divided by the larger width.
            const double ratio = std::exp(-std::fabs(a.log_width - b.log_width));  // smaller / larger width
            const bool a_wider = a.log_width >= b.log_width;
            if (a.rise * (a_wider ? ratio : 1.0) <= b.rise * (a_wider ? 1.0 : ratio)) break;  // non-decreasing
            const Block merged{a.first, b.last, a.rise + b.rise,
                               std::max(a.log_width, b.log_width) + std::log1p(ratio)};
            blocks.pop_back();
            blocks.back() = merged;
        }
    }
    // Per segment j = -1 .. pin - 1 (index j + 1): its block's rise and log width; at grid point
    // j the slope times g_j is rise e^{l_j - log width}, bounded by the block's rise e^h / (e^h - 1).
    std::vector<double> seg_rise(pin + 1, 0.0), seg_log_width(pin + 1, 0.0);
    std::vector<char> pooled(pin + 1, 0);
    for (const Block& b : blocks)
        for (std::int64_t j = b.first; j <= b.last; ++j) {
            seg_rise[j + 1] = b.rise;
            seg_log_width[j + 1] = b.log_width;
            pooled[j + 1] = b.first != b.last;
        }
    GridPMF pmf;
    pmf.k_lo = cells.k_lo;
    pmf.h = h;
    pmf.p.assign(n + 1, 0.0);
    for (std::int64_t j = 0; j <= pin; ++j) {
        const bool left_pooled = pooled[j];                      // segment j - 1
        const bool right_pooled = j < pin ? pooled[j + 1] : false;  // segment j (beyond the pin: flat)
        if (!left_pooled && !right_pooled && j < pin) {
            const double dj = d[j];
            const double cprev = j > 0 ? c[j - 1] : 0.0;
            const double eprev = j > 0 ? e[j - 1] : e[0];
            pmf.p[j] = ((dj - e[j + 1] + e[j]) + eh * (cprev + e[j] - eprev)) / em1;
        } else {
            const double right = j < pin ? seg_rise[j + 1] * std::exp(l_at(j) - seg_log_width[j + 1]) : 0.0;
            pmf.p[j] = right - seg_rise[j] * std::exp(l_at(j) - seg_log_width[j]);
        }
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
    // A valid pair needs Q-mass <= 1: drop mass from the bottom if the minorant overshot.
    // Q-mass of a point: p_j e^{-l_j}, through logarithms where e^{-l_j} would overflow.
    auto q_mass = [&](std::int64_t j) {
        const double l = l_at(j), pj = pmf.p[j];
        if (!(pj > 0.0)) return 0.0;
        return l > -700.0 ? pj * std::exp(-l) : std::exp(std::min(std::log(pj) - l, 700.0));
    };
    double qmass = 0.0;
    for (std::int64_t j = 0; j <= n; ++j) qmass += q_mass(j);
    for (std::int64_t j = 0; j <= n && qmass > 1.0; ++j) {
        const double qj = q_mass(j);
        if (!(qj > 0.0)) continue;
        const double keep = std::max(1.0 - (qmass - 1.0) / qj, 0.0);  // fraction of p_j kept
        pmf.p[j] *= keep;
        qmass -= (1.0 - keep) * qj;
    }
    return pmf;
}

}  // namespace pld
}  // namespace hockeystick
