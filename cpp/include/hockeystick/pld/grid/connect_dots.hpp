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
// Given (c_j, d_j) alone the tent is attained (an atom at its apex), but for a smooth law it is
// twice the true gap (for H quadratic on the cell the tangents meet at twice the chord's depth),
// and the optimistic side's loss in composition is about that excess: on W3 (q = 1e-3,
// sigma = 0.8, 10^5 rounds) at h = 1e-4 the lower epsilon sat 1.3e-3 below the truth, the upper
// 0.7e-3 above.  Where the cells of the two halves (l_j, l_s], (l_s, l_{j+1}] are known
// (l_s = l_j + h/2, g_s = e^{l_s}, E = e^{h/2}; pld/grid/cells.hpp, continuous mechanisms), the
// gap is bounded tighter (split tents).  With (c_lo, d_lo), (c_hi, d_hi) the halves' numbers,
// each taken with its own ends, H(g) = P(L > log g) - g Q(L > log g) gives at g_s, which lies
// at the fraction theta_s = 1 / (1 + E) of the cell,
//   G_s = chord(g_s) - H(g_s) = (1 - theta_s) c_lo - theta_s c_hi + (1 - theta_s)(g_s - g_j) Q(upper half)
//       = (E c_lo + d_hi) / (1 + E)
// (using (g_s - g_j) Q(upper half) = (c_hi + d_hi) / E; every term non-negative).  Across the
// lower half chord - H = (chord - polyline) + (polyline - H), where the polyline joins the points
// of H at g_j, g_s, g_{j+1}: the first part is linear from 0 to G_s, the second is at most the
// lower half's own tent (convexity, as above).  So the gap is at most the piecewise-linear
// function through (0, 0), (theta_s t_lo, G_s t_lo + tent_lo), (theta_s, G_s),
// (theta_s + (1 - theta_s) t_hi, G_s (1 - t_hi) + tent_hi), (1, 0) with t = c / (c + d) of each
// half; for H quadratic it peaks at G_s, the true gap.  A chord segment (1 - theta) e_j +
// theta e_{j+1} lies above a piecewise-linear function iff it does at its kinks, so each
// condition above ("the tent condition") is met when it holds for the tent OR for the split
// tents, and e_j uses the smaller of the two peaks.  On W3 at h = 1e-4 the lower epsilon then
// sits 5.4e-4 below the truth instead of 1.3e-3 (the bracket 1.23e-3 wide instead of 2.0e-3).
// Only cells carrying mass have halves (pld/grid/cells.hpp); a cell without them keeps its tent.
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
// of every loss that rounding down makes.  Each mass is lowered by a bound on its
// own round-off (convex_minorant's comment: the minorant's log widths are kept
// relative to each block's grid point, so no error grows with |l|).  A negative
// residue is cancelled by removing as much mass above it (which lowers the curve
// everywhere); if that fails the PMF falls back to rounding every loss down, and
// `connect_dots` says so.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "hockeystick/numerics/error_free.hpp"
#include "hockeystick/pld/grid/grid_pmf.hpp"
#include "hockeystick/pld/grid/cells.hpp"

namespace hockeystick {
namespace pld {

namespace detail {

// The cells' loss error as a PMF's loss shift, and the factors by which the sides scale their masses
// for the cells' edges (pld/grid/cells.hpp, Cells::edge_error e: each cell's masses are those of its moved
// losses within e^{+-e}).  Up (pessimistic): G = 1 + e + e^2 + 16u >= e^e (e <= 1) with room for the
// rounding of the masses (a few u: pessimistic_pmf) and of the product.  Down (optimistic):
// 1 - e - 4u <= e^{-e} less the product's rounding; the optimistic side charges the cells' own
// round-off in its tents (cell_round_off), so this factor is the edges' alone.  Each is rounded
// outward once more.  The cells' round-off on the pessimistic side is a pointwise term of its own
// (pessimistic_pmf), not part of this factor: near delta = 1, where T rounds' factor is an absolute
// excess of about T (G - 1), a factor of 1 +- 4e covering it in aggregate would leave the bracket about
// 4 times wider.
inline double cells_loss_shift(const Cells& cells) {
    const double s = cells.snapped + cells.edge_error;
    return s > 0.0 ? std::nextafter(s, std::numeric_limits<double>::infinity()) : 0.0;
}
inline double edge_factor(const Cells& cells, bool up) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    const double e = cells.edge_error;
    if (up) return std::nextafter(1.0 + (e + e * e + 16.0 * u), 2.0);
    if (!(e > 0.0)) return 1.0;
    return std::nextafter(1.0 - (e + 4.0 * u), 0.0);
}
inline void scale_for_edges(std::vector<double>& p, const Cells& cells, bool up) {
    const double factor = edge_factor(cells, up);
    if (factor == 1.0) return;
    for (double& m : p) m *= factor;
}

}  // namespace detail

inline GridPMF pessimistic_pmf(const Cells& cells) {
    const std::int64_t n = static_cast<std::int64_t>(cells.c.size());
    GridPMF pmf;
    pmf.k_lo = cells.k_lo;
    pmf.h = cells.h;
    pmf.p.assign(n + 1, 0.0);
    const double eh = std::exp(cells.h), inv = 1.0 / std::expm1(cells.h);
    // p_j = (d_j + e^h c_{j-1}) / (e^h - 1), raised by what the cells' own round-off can add to it
    // (pld/grid/cells.hpp: |dc| + |dd| <= cell_round_off (c + d) per cell, so p_j is at most
    // cell_round_off ((c_j + d_j) + e^h (c_{j-1} + d_{j-1})) / (e^h - 1) low), then by the edges'
    // factor G, which covers both terms' rounding (a few u).
    for (std::int64_t j = 0; j <= n; ++j) {
        const double dj = j < n ? cells.d[j] : 0.0, cj = j < n ? cells.c[j] : 0.0;
        const double cprev = j > 0 ? cells.c[j - 1] : 0.0, dprev = j > 0 ? cells.d[j - 1] : 0.0;
        pmf.p[j] = ((dj + eh * cprev) + cell_round_off * ((cj + dj) + eh * (cprev + dprev))) * inv;
    }
    detail::scale_for_edges(pmf.p, cells, true);
    pmf.p[std::min<std::int64_t>(1, n)] += cells.tail_lo;
    pmf.p_inf = cells.tail_hi;
    pmf.loss_shift = detail::cells_loss_shift(cells);
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
    // a_j = c_j + e^{l_j} b_j and e^{l_j} b_j (e^h - 1) = c_j + d_j, so a_j = c_j + (c_j + d_j)/(e^h - 1),
    // positive terms computed to within 6u relative (e^h - 1 2u, its inverse, the sum, the product,
    // the last sum), lowered by 8u for them and by cell_round_off e^h for c and d's own (pld/grid/cells.hpp:
    // |dc| + |dd| <= cell_round_off (c + d) = cell_round_off (e^h - 1) e^{l_j} b_j <= cell_round_off (e^h - 1) a_j),
    // so that no mass exceeds its exact value (0 where that bound reaches the mass: h > ~30).
    const double lowered =
        std::max(1.0 - (4.0 * std::numeric_limits<double>::epsilon() + cell_round_off * std::exp(cells.h)), 0.0);
    const double inv = 1.0 / std::expm1(cells.h);
    for (std::int64_t j = 0; j < n; ++j) pmf.p[j] = (cells.c[j] + (cells.c[j] + cells.d[j]) * inv) * lowered;
    pmf.connect_dots = false;
    return pmf;
}

// ---- the optimistic side, phase by phase (the method is in this file's opening comment) ----
namespace detail {

// Index of the last cell with any mass, -1 when every cell is empty.
inline std::int64_t last_nonempty_cell(const Cells& cells) {
    for (std::int64_t j = static_cast<std::int64_t>(cells.c.size()) - 1; j >= 0; --j)
        if (cells.c[j] > 0.0 || cells.d[j] > 0.0) return j;
    return -1;
}

// A bound on the chord's gap above H across one cell, as a function of the fraction theta of
// the cell (in g): zero at theta = 0 and 1, linear between its kinks (theta, height).  A lowered
// chord (1 - theta) e_lo + theta e_hi lies below H on the cell if it lies above the bound at
// every kink (both are piecewise linear with breaks at the kinks only).
struct GapBound {
    // Only the first n kinks are set, read and copied (zeroing all of them was a third of the
    // optimistic side's time: a block store per cell, in two phases).
    int n = 0;
    double theta[3], height[3];
    GapBound() = default;
    GapBound(const GapBound& o) : n(o.n) { copy_kinks(o); }
    GapBound& operator=(const GapBound& o) {
        n = o.n;
        copy_kinks(o);
        return *this;
    }
    void copy_kinks(const GapBound& o) {
        for (int k = 0; k < n; ++k) {
            theta[k] = o.theta[k];
            height[k] = o.height[k];
        }
    }
    void add(double t, double v) {
        if (v > 0.0) {
            theta[n] = t;
            height[n] = v;
            ++n;
        }
    }
    double top() const { return n == 0 ? 0.0 : *std::max_element(height, height + n); }
    // The chord (1 - theta) e_lo + theta e_hi (e's >= 0) must clear each kink by its round-off: the
    // sum's own (3u), and a kink's theta computed to within 2u relative, which moves the chord at it by
    // up to 2u (e_lo + e_hi); a margin of 8u (height + e_lo + e_hi) covers both (without it a chord
    // meeting an atom's apex exactly can rise 3e-17 above the true curve).
    static double margin(double height, double e_lo, double e_hi) {
        return 4.0 * std::numeric_limits<double>::epsilon() * (height + e_lo + e_hi);
    }
    bool below(double e_lo, double e_hi) const {
        for (int k = 0; k < n; ++k)
            if (!((1.0 - theta[k]) * e_lo + theta[k] * e_hi >= height[k] + margin(height[k], e_lo, e_hi))) return false;
        return true;
    }
    // The least e_hi (given e_lo) / e_lo (given e_hi) with the chord above every kink by the margin,
    // rounded up by as much again (+inf if none does, -inf if there is no kink).
    double need_hi(double e_lo) const {
        double need = -std::numeric_limits<double>::infinity();
        for (int k = 0; k < n; ++k) {
            if (!(theta[k] > 0.0)) {
                if (!(height[k] + margin(height[k], e_lo, 0.0) <= e_lo)) return std::numeric_limits<double>::infinity();
                continue;
            }
            const double raw = (height[k] - (1.0 - theta[k]) * e_lo) / theta[k];
            const double slack = 2.0 * margin(height[k], e_lo, std::fabs(raw)) / theta[k];
            need = std::max(need, raw + slack);
        }
        return need;
    }
    double need_lo(double e_hi) const {
        double need = -std::numeric_limits<double>::infinity();
        for (int k = 0; k < n; ++k) {
            if (!(theta[k] < 1.0)) {
                if (!(height[k] + margin(height[k], 0.0, e_hi) <= e_hi)) return std::numeric_limits<double>::infinity();
                continue;
            }
            const double raw = (height[k] - theta[k] * e_hi) / (1.0 - theta[k]);
            const double slack = 2.0 * margin(height[k], std::fabs(raw), e_hi) / (1.0 - theta[k]);
            need = std::max(need, raw + slack);
        }
        return need;
    }
};

namespace detail {
// a b / s (0 <= a, b <= s): as a b / s where a b is a normal number, else a (b / s), which does
// not underflow (below a, b ~ 1e-162 the product a b vanishes, and a tent of height 0 would let
// the optimistic side take the pessimistic chord: a lower delta above the truth).
inline double product_over(double a, double b, double s) {
    const double ab = a * b;
    const bool normal = ab >= std::numeric_limits<double>::min() || (ab == 0.0 && (a == 0.0 || b == 0.0));
    return normal ? ab / s : a * (b / s);
}
}  // namespace detail

// The tent on a cell with numbers (c, d): the chord and the tangents at the cell's ends (slopes
// -Q(L > l_j), -Q(L > l_{j+1})) meet at the fraction theta = c / (c + d) of the cell, at height
// c d / (c + d) below the chord.  Given (c, d) alone it is attained (an atom at the apex).
inline GapBound tent(double c, double d) {
    GapBound b;
    const double s = c + d;
    // raised by its rounding (8u relative) and by cell_round_off (c + d): c and d are not exact themselves
    // (pld/grid/cells.hpp); an atom at a cell end (c or d exactly 0) meets the chord at a grid point, no tent
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    if (c > 0.0 && d > 0.0) b.add(c / s, detail::product_over(c, d, s) * (1.0 + 8.0 * u) + cell_round_off * s);
    return b;
}

// With the half-cells (Cells::c_lo .. d_hi, E = e^{h/2}): the split point g_s = g_j E lies at
// theta_s = 1 / (1 + E), where the chord is G_s = (E c_lo + d_hi) / (1 + E) above H (this file's
// opening comment); on each half, the chord exceeds H by at most the chord-to-polyline part,
// linear up to G_s, plus that half's tent.  Heights raised by 16 u (the rounding of these sums)
// and by the difference between the cell's (c, d) and the sums of its halves' (pld/grid/cells.hpp:
// two quadratures of one integral), which moves the chord by at most that much.
// E = e^{h/2} and 1 / E, computed once per grid (an exp per cell was a fifth of the optimistic side's time).
struct HalfStep {
    double grow, shrink;
    explicit HalfStep(double h) : grow(std::exp(0.5 * h)), shrink(1.0 / grow) {}
};

inline GapBound split_tents(const Cells& cells, std::int64_t j, const HalfStep& half) {
    constexpr double raise = 1.0 + 16.0 * std::numeric_limits<double>::epsilon();
    const double grow = half.grow, shrink = half.shrink;
    const double ca = cells.c_lo[j], da = cells.d_lo[j], cb = cells.c_hi[j], db = cells.d_hi[j];
    const double mismatch = std::fabs(cells.c[j] - (ca + (1.0 + shrink) * cb + shrink * db)) +
                            std::fabs(cells.d[j] - (db + (1.0 + grow) * da + grow * ca));
    const double theta_s = 1.0 / (1.0 + grow);
    const double rounded_cells = cell_round_off * (cells.c[j] + cells.d[j]);  // as tent's
    const double g_s = (grow * ca + db) / (1.0 + grow);
    GapBound b;
    const double sa = ca + da, sb = cb + db;
    if (sa > 0.0)
        b.add(theta_s * (ca / sa),
              raise * (g_s * (ca / sa) + detail::product_over(ca, da, sa)) + mismatch + rounded_cells);
    b.add(theta_s, raise * g_s + mismatch + rounded_cells);
    if (sb > 0.0)
        b.add(theta_s + (1.0 - theta_s) * (cb / sb),
              raise * (g_s * (db / sb) + detail::product_over(cb, db, sb)) + mismatch + rounded_cells);
    return b;
}

// The certified bounds on cell j's gap: the tent, and the split tents where the halves are known.
struct CellGaps {
    GapBound bound[2];
    int count = 1;
    double top() const { return count == 1 ? bound[0].top() : std::min(bound[0].top(), bound[1].top()); }
    bool below(double e_lo, double e_hi) const {
        return bound[0].below(e_lo, e_hi) || (count == 2 && bound[1].below(e_lo, e_hi));
    }
    double need_hi(double e_lo) const {
        return count == 1 ? bound[0].need_hi(e_lo) : std::min(bound[0].need_hi(e_lo), bound[1].need_hi(e_lo));
    }
    double need_lo(double e_hi) const {
        return count == 1 ? bound[0].need_lo(e_hi) : std::min(bound[0].need_lo(e_hi), bound[1].need_lo(e_hi));
    }
};

inline CellGaps cell_gaps(const Cells& cells, std::int64_t j, const HalfStep& half) {
    CellGaps g;
    g.bound[0] = tent(cells.c[j], cells.d[j]);
    if (cells.has_halves(j)) {
        g.bound[1] = split_tents(cells, j, half);
        g.count = 2;
    }
    return g;
}

// The profile at the grid points of the cells kept (0..top), by positive recursions from the top:
//   rho_j = (g_{j+1} - g_j) Q(L > l_{j+1}) = (c_{j+1} + d_{j+1} + rho_{j+1}) / e^h,
//   H_j   = H(g_j) = H_{j+1} + c_j + rho_j,   H_{top+1} = rho_top = 0,
// and H_error_j, a bound on the distance of H_j from the exact sum of the computed c_k + rho_k (k >= j).
// The computed rho_j are the reference (convex_minorant's comment): the recursion's own rounding, up to
// 4u per step and relative 4 (top - j) u in the worst case, is not charged.  (A double-double recursion
// that charged it, with e^{-h} as 1 + expm1(-h), cost 60 % more on the optimistic side and lost accuracy
// beyond h = log 2.)
struct GridProfileValues {
    std::vector<double> H, rho, H_error;  // indices 0..top+1
};

inline GridProfileValues profile_at_grid_points(const Cells& cells, std::int64_t top) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    const auto& c = cells.c;
    const auto& d = cells.d;
    const double eh = std::exp(cells.h);
    GridProfileValues v{std::vector<double>(top + 2, 0.0), std::vector<double>(top + 2, 0.0),
                        std::vector<double>(top + 2, 0.0)};
    for (std::int64_t j = top - 1; j >= 0; --j) v.rho[j] = (c[j + 1] + d[j + 1] + v.rho[j + 1]) / eh;
    for (std::int64_t j = top; j >= 0; --j) {
        const double partial = v.H[j + 1] + c[j];
        v.H[j] = partial + v.rho[j];
        v.H_error[j] = (v.H_error[j + 1] + u * (partial + v.H[j])) * (1.0 + 4.0 * u);
    }
    return v;
}

// The lowered chord: points v_j = H_j - e_j, and the pin from which the curve is zero.
struct LoweredChord {
    std::vector<double> e;  // e_j, indices 0..top+1
    std::int64_t pin;       // v_j = 0 for j >= pin
};

// Gap condition on cell j-1 given e_j (the lowered chord above the cell's gap bound), met by raising e_{j-1}.
inline void pin_cell_below(const Cells& cells, const HalfStep& half, std::vector<double>& e, std::int64_t j) {
    if (j == 0 || !(cells.d[j - 1] > 0.0)) return;
    e[j - 1] = std::max(e[j - 1], cell_gaps(cells, j - 1, half).need_lo(e[j]));
}

// e_j = max(gap_{j-1}, gap_j) below the top; the top point is rounded down to zero (e_top = c_top,
// less the P-mass of an atom exactly at the top grid point, which keeps its place); every point
// that would fall below zero is pinned to it (e_j = H_j) with the tent condition imposed exactly
// on the cell below; beyond the lowest pin the curve is zero.
inline LoweredChord lowered_chord(const Cells& cells, std::int64_t top, const GridProfileValues& profile) {
    const std::vector<double>& H = profile.H;
    // A pinned point is set to a certified lower bound of the profile there, H_j - H_error_j: the masses
    // below it are the chord's second differences, so their curve is the chord less its value at the
    // pin, which must not be below zero
    const auto pinned = [&profile](std::int64_t j) { return std::max(profile.H[j] - profile.H_error[j], 0.0); };
    const std::int64_t n = static_cast<std::int64_t>(cells.c.size());
    const auto& c = cells.c;
    const auto& d = cells.d;
    LoweredChord chord{std::vector<double>(top + 2, 0.0), top + 1};
    auto& e = chord.e;
    // 32u above the gaps' tops: a chord between two such points clears each kink by GapBound's margin
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    const HalfStep half(cells.h);
    double below = 0.0;  // the gap top of cell j - 1 (0 below cell 0)
    for (std::int64_t j = 0; j < top; ++j) {
        const double own = cell_gaps(cells, j, half).top();
        e[j] = std::max(below, own) * (1.0 + 32.0 * u);
        below = own;
    }
    // the top point: c_top less the part of an atom exactly at the top grid point, that part taken 4u
    // low (expm1, the product, the sums that formed top_atom) and the difference rounded up
    const double kept = top == n - 1 ? cells.top_atom * -std::expm1(-cells.h) * (1.0 - 4.0 * u) : 0.0;
    const double_double rest = two_sum(c[top], -kept);
    e[top] =
        d[top] > 0.0
            ? std::max(rest.lo > 0.0 ? std::nextafter(rest.hi, std::numeric_limits<double>::infinity()) : rest.hi, 0.0)
            : 0.0;
    pin_cell_below(cells, half, e, top);
    for (std::int64_t j = top; j >= 0; --j) {
        if (H[j] - e[j] >= 0.0) continue;
        chord.pin = j;
        e[j] = pinned(j);
        pin_cell_below(cells, half, e, j);
    }
    for (std::int64_t j = chord.pin + 1; j <= top + 1; ++j) e[j] = pinned(j);
    return chord;
}

// Near the bottom, follow the tangent at g_0 wherever it is closer to H than the lowered chord:
// its excess below H, x_j = H_j - (H_0 - Q(L > l_0)(g_j - g_0)), by a positive recursion
//   x_{j+1} = x_j + d_j + e^h S_{j-1},  S_j = e^h S_{j-1} + c_j + d_j.
// A cell with both ends on the tangent has the tangent as chord (below H); any other cell must
// meet the tent condition, which one upward pass enforces by lowering its upper end (or, when
// that would push the point below zero, by returning its lower end to the chord).
inline void follow_bottom_tangent(const Cells& cells, const std::vector<double>& H, LoweredChord& chord) {
    const auto& c = cells.c;
    const auto& d = cells.d;
    const double eh = std::exp(cells.h);
    const HalfStep half(cells.h);
    const std::int64_t pin = chord.pin;
    auto& e = chord.e;
    // The excess grows like e^{l_j} (it overflows on grids wider than 709) and never falls:
    // once it exceeds every e_j no later point can join the tangent, so it stops there.
    const std::vector<double> env(e.begin(), e.begin() + pin + 1);
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
        if (excess[j] < e[j]) {
            e[j] = excess[j];
            on_tangent[j] = 1;
        }
    // One pass upward: a failing cell keeps its lower end and lowers its upper end just
    // enough, e_{j+1} = (gap_j - (1 - theta) e_j) / theta (raising e only helps the cell
    // above); if that would push the point below zero the lower end returns to the chord.
    for (std::int64_t j = 0; j < pin; ++j) {
        if (on_tangent[j] && on_tangent[j + 1]) continue;
        const double s = c[j] + d[j];
        if (!(s > 0.0)) continue;
        const CellGaps gaps = cell_gaps(cells, j, half);
        if (gaps.below(e[j], e[j + 1])) continue;
        const double need = gaps.need_hi(e[j]);
        if (j + 1 < pin && need <= H[j + 1]) {
            e[j + 1] = need;
            on_tangent[j + 1] = 0;
        } else {  // a lower end raised for the cell below stays raised (raising it only helps that cell)
            e[j] = std::max(e[j], env[j]);
            on_tangent[j] = 0;
            if (!gaps.below(e[j], e[j + 1])) e[j + 1] = std::max(e[j + 1], env[j + 1]);
        }
    }
}

// Loss of grid point j.
inline double grid_loss(const Cells& cells, std::int64_t j) { return static_cast<double>(cells.k_lo + j) * cells.h; }

// The greatest convex minorant of the points is a run of blocks of consecutive chord segments.
// Segment -1 runs from g = 0 along the tangent at g_0 (slope -Q(L > l_0)); segment j (0 <= j < pin)
// from g_j to g_{j+1}, with rise -(c_j + rho_j + e_{j+1} - e_j) and width g_j (e^h - 1).
//
// Reference and round-off.  The masses are certified against the minorant computed in exact
// arithmetic from the computed numbers c_j, d_j, e_j and rho_j (profile_at_grid_points says what
// that leaves uncharged): every computed mass is lowered by a bound on its round-off, which only
// lowers the curve.  A segment's rise carries its sums' rounding (exact, two_sum).
//
// A block keeps its width W as a logarithm relative to its anchor grid point A = max(first, 0),
// W = g_A e^{log_width}, so that the exponentials of the masses take arguments of the size of the
// block's span in loss, not of the losses themselves (an absolute log width near l = 741 carried
// 741 u of round-off into every pooled mass: an atom there would get P-mass 1 + 1.1e-13 and a lower
// delta(0) above 1).  It also keeps bounds on the round-off of its rise
// and of its log width; two blocks are pooled only when their slopes are out of order beyond that
// round-off (a pool of blocks whose slopes are in order would lift the line above the point
// between them; blocks left unpooled while out of order within round-off leave a tiny negative
// mass, which cancel_negative_residues removes with mass above it: it only lowers the curve).
struct MinorantBlock {
    std::int64_t first, last;  // its segments
    double rise, rise_error;
    double log_width, log_width_error;  // log(W / g_A)
    std::int64_t anchor() const { return std::max<std::int64_t>(first, 0); }
};

// e^{-x} for x >= 0 near the last x it was computed at, as a bracket or exactly.  The comparisons
// of convex_minorant take e^{-x} of nearly one x in a row (neighbouring single segments: x = h up
// to the rounding of the grid losses); they only need its side of a threshold, and the test is
// monotone in e^{-x}, so when both ends of a bracket of fl(exp(-x)) give the same answer, so does
// fl(exp(-x)) itself, and std::exp is called only for a near tie or a merge (which needs the value).
// Bracket: e^{-x} = e^{-x0} e^{x0 - x} with |x0 - x| = t <= 1e-6, e^{+-t} within 1 +- (t + t^2),
// both exp results within an ulp (2u relative, e^{-x0} >= 1e-290 so no subnormal) and the products
// rounded: relative 2 t + 128 u covers it.
class NearbyExp {
  public:
    double exact(double x) {
        if (x != x0_) {
            x0_ = x;
            v0_ = std::exp(-x);
        }
        return v0_;
    }
    // True (and lo <= fl(exp(-x)) <= hi) when a recent value is near enough to bracket it.
    bool bracket(double x, double& lo, double& hi) const {
        const double t = std::fabs(x - x0_);
        if (!(t <= 1e-6 && v0_ >= 1e-290)) return false;  // relative bounds need normal numbers
        const double rel = 2.0 * t + 64.0 * std::numeric_limits<double>::epsilon();
        lo = v0_ * (1.0 - rel);
        hi = v0_ * (1.0 + rel);
        return true;
    }

  private:
    double x0_ = std::numeric_limits<double>::quiet_NaN(), v0_ = 0.0;
};

// The least value x R can take for R in [rise - error, rise + error] and x in [f lo, f hi] (f > 0),
// and the greatest.
inline double least_product(double rise, double error, double f_lo, double f_hi) {
    const double r = rise - error;
    return r * (r >= 0.0 ? f_lo : f_hi);
}
inline double greatest_product(double rise, double error, double f_lo, double f_hi) {
    const double r = rise + error;
    return r * (r >= 0.0 ? f_hi : f_lo);
}

// Pool-adjacent-violators on the chord slopes, weighted by the widths in g (Barlow, Bartholomew,
// Bremner & Brunk 1972, ch. 1): a block whose slope exceeds the next one's beyond round-off merges
// with it.  Widths e^{l_j} (e^h - 1) span e^{+-1000} on wide grids, so blocks carry logarithms.
inline std::vector<MinorantBlock> convex_minorant(const Cells& cells, const GridProfileValues& profile,
                                                  const LoweredChord& chord) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    const auto& c = cells.c;
    const auto& d = cells.d;
    const auto& e = chord.e;
    const auto& rho = profile.rho;
    const std::int64_t pin = chord.pin;
    const double h = cells.h, em1 = std::expm1(h);
    const double log_em1 = std::log(em1), log_em1_error = u * (std::fabs(log_em1) + 3.0);
    std::vector<MinorantBlock> blocks;
    blocks.reserve(pin + 1);
    NearbyExp ratio_of;  // smaller / larger width = e^{-|difference of log widths|}
    const double tangent = -(c[0] + d[0] + rho[0]) / em1;  // width g_0: log width 0 at anchor 0, exact
    blocks.push_back({-1, -1, tangent, 5.0 * u * -tangent, 0.0, 0.0});
    for (std::int64_t j = 0; j < pin; ++j) {
        // the rise's three roundings, each exact by two_sum (0 where an operation is exact: a flat
        // segment between two pins has rise 0 and no error, so its end keeps mass 0, not a debt)
        const double_double s1 = two_sum(c[j], rho[j]), s2 = two_sum(s1.hi, e[j + 1]), s3 = two_sum(s2.hi, -e[j]);
        const double rounding = (std::fabs(s1.lo) + std::fabs(s2.lo) + std::fabs(s3.lo)) * (1.0 + 4.0 * u);
        blocks.push_back({j, j, -s3.hi, rounding, log_em1, log_em1_error});
        while (blocks.size() >= 2) {
            const MinorantBlock& b = blocks[blocks.size() - 1];
            const MinorantBlock& a = blocks[blocks.size() - 2];
            // b's log width relative to a's anchor, the gap between the two, and a bound on its error.
            const double shift = static_cast<double>(b.anchor() - a.anchor()) * h;
            const double b_log_width = shift + b.log_width;
            const double gap = std::fabs(a.log_width - b_log_width);
            const double gap_error =
                a.log_width_error + b.log_width_error + u * (std::fabs(shift) + std::fabs(b_log_width) + gap + 2.0);
            const double margin = 1.01 * gap_error + 4.0 * u;  // e^{gap_error} and fl(exp)'s ulp, relative
            const bool a_wider = a.log_width >= b_log_width;
            // Slopes divided by the larger width: a.rise x fa against b.rise x fb, one of fa, fb the
            // ratio, the other 1; out of order beyond round-off when the least a-side exceeds the greatest b-side.
            const auto out_of_order = [&](double ratio) {
                const double lo = ratio * (1.0 - margin), hi = ratio * (1.0 + margin);
                const double x = least_product(a.rise, a.rise_error, a_wider ? lo : 1.0, a_wider ? hi : 1.0);
                const double y = greatest_product(b.rise, b.rise_error, a_wider ? 1.0 : lo, a_wider ? 1.0 : hi);
                return x - y > 8.0 * u * (std::fabs(x) + std::fabs(y));
            };
            double lo = 0.0, hi = 0.0;
            const bool known = ratio_of.bracket(gap, lo, hi) && out_of_order(lo) == out_of_order(hi);
            if (!(known ? out_of_order(lo) : out_of_order(ratio_of.exact(gap)))) break;
            const double ratio = ratio_of.exact(gap);
            const double_double rise_sum = two_sum(a.rise, b.rise);
            const double rise = rise_sum.hi;
            const double log_width = std::max(a.log_width, b_log_width) + std::log1p(ratio);
            // log(W_a + W_b) moves by at most the larger error of its inputs (its gradient is a
            // convex combination); then the round-off of the gap, exp, log1p and the sum.
            const double log_width_error =
                std::max(a.log_width_error, b.log_width_error + u * (std::fabs(shift) + std::fabs(b_log_width))) +
                u * (gap + std::fabs(log_width) + 4.0);
            const MinorantBlock merged{
                a.first,   b.last,
                rise,      (a.rise_error + b.rise_error + std::fabs(rise_sum.lo)) * (1.0 + 4.0 * u),
                log_width, log_width_error};
            blocks.pop_back();
            blocks.back() = merged;
        }
    }
    return blocks;
}

// g_j times the slope of block b (which holds a segment at g_j), R e^{(j - A) h - log_width}, and a
// bound on its error from the block's round-off and its own (+inf when that has no small bound).
struct ScaledSlope {
    double value, error;
};
inline ScaledSlope scaled_slope(const MinorantBlock& b, std::int64_t j, double h) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    const double offset = static_cast<double>(j - b.anchor()) * h;
    const double x = offset - b.log_width;
    const double x_error = b.log_width_error + u * (std::fabs(offset) + std::fabs(x));
    const double scale = std::exp(x);
    const double value = b.rise * scale;
    if (!(x_error <= 1e-3)) return {value, std::numeric_limits<double>::infinity()};
    const double relative = 1.01 * x_error + 4.0 * u;  // e^{x_error}, exp's ulp, the product
    return {value, std::fabs(value) * relative + b.rise_error * scale * (1.0 + relative)};
}

// Masses p_j = g_j (slope right of g_j - slope left of g_j) of the minorant, j = 0..n (zero above
// the pin), each lowered by a bound on its round-off against the reference (convex_minorant's
// comment; the result may be negative, cancel_negative_residues clears it).  Inside a block the
// two slopes are one (p_j = 0).  Where both neighbouring segments are blocks of their own, the
// minorant is the lowered chord and
//   p_j (e^h - 1) = (d_j - e_{j+1} + e_j) + e^h (c_{j-1} + e_j - e_{j-1}),
// the reference's g_j (rise_j / width_j - rise_{j-1} / width_{j-1}) once e^h rho_{j-1} is replaced by
// c_j + d_j + rho_j, which the computed rho_{j-1} meets to within 6u of the latter (its one step: two
// sums, e^h, the quotient); so the charge is that, plus the closed form's own round-off (u times each
// sum's result, then e^h, the product, the last sum and 1 / (e^h - 1)).  At j = 0 the left segment is
// the tangent, -(c_0 + d_0 + rho_0) / (e^h - 1), and no replacement is needed.  Elsewhere the slopes
// times g_j come from scaled_slope.
inline std::vector<double> minorant_masses(const Cells& cells, const std::vector<double>& rho,
                                           const LoweredChord& chord, const std::vector<MinorantBlock>& blocks) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    const std::int64_t n = static_cast<std::int64_t>(cells.c.size());
    const auto& c = cells.c;
    const auto& d = cells.d;
    const auto& e = chord.e;
    const std::int64_t pin = chord.pin;
    // 1 / (e^h - 1) within 4u of its value (e^h - 1's 2u, the quotient), each product one more
    const double eh = std::exp(cells.h), inv_em1 = 1.0 / std::expm1(cells.h);
    std::vector<double> p(n + 1, 0.0);
    // the closed form at every grid point below the pin (one branch-free pass), then the points next
    // to or inside pooled blocks, and the pin, replaced
    // where a product may be subnormal (a value below 2^-969) it errs by up to 2^-1075 absolute, which
    // no relative charge covers: a floor of 64 such errors, amplified by
    // 1 / (e^h - 1), on those values only (a mass computed exactly 0 stays 0: a floor there would
    // leave a debt at the top)
    const double tiny = 64.0 * std::numeric_limits<double>::denorm_min() * (1.0 + inv_em1);
    const auto floor_of = [tiny](double a, double b, double c) {
        const auto small = [](double x) { return x != 0.0 && std::fabs(x) < 0x1p-969; };
        return small(a) || small(b) || small(c) ? tiny : 0.0;
    };
    const auto closed_form = [&](double dj, double e_next, double ej, double cprev, double eprev, double step) {
        const double a1 = dj - e_next, a2 = a1 + ej, s1 = cprev + ej, s2 = s1 - eprev;
        const double scaled = eh * s2, sum = a2 + scaled, value = sum * inv_em1;
        // each sum errs by at most u times its result (0 where it is exactly 0)
        const double adds = (std::fabs(a1) + std::fabs(a2) + eh * (std::fabs(s1) + std::fabs(s2))) * (1.0 + 2.0 * u);
        const double rounding = adds + 3.0 * std::fabs(scaled) + std::fabs(sum) + step;
        return value -
               (u * (rounding * inv_em1 + 5.0 * std::fabs(value)) * (1.0 + 8.0 * u) + floor_of(scaled, sum, value));
    };
    if (pin > 0) p[0] = closed_form(d[0], e[1], e[0], 0.0, e[0], 0.0);  // the tangent on the left: no replacement
    for (std::int64_t j = 1; j < pin; ++j)  // step: rho_{j-1}'s one step, 6u (c_j + d_j + rho_j)
        p[j] = closed_form(d[j], e[j + 1], e[j], c[j - 1], e[j - 1], 6.0 * (c[j] + d[j] + rho[j]));
    const double h = cells.h;
    const auto kink = [&](const MinorantBlock& left, const MinorantBlock* right, std::int64_t j) {
        const ScaledSlope l = scaled_slope(left, j, h);
        const ScaledSlope r = right != nullptr ? scaled_slope(*right, j, h) : ScaledSlope{0.0, 0.0};
        const double raw = r.value - l.value;
        p[j] = raw - ((l.error + r.error + u * std::fabs(raw)) * (1.0 + 4.0 * u) + floor_of(l.value, r.value, raw));
    };
    const std::size_t last = blocks.size() - 1;  // the block ending at the pin
    for (std::size_t b = 0; b <= last; ++b) {
        const MinorantBlock& block = blocks[b];
        if (block.first == block.last) continue;
        for (std::int64_t j = std::max<std::int64_t>(block.first + 1, 0); j <= block.last; ++j) p[j] = 0.0;  // inside
        if (block.first >= 0) kink(blocks[b - 1], &block, block.first);
        if (block.last + 1 < pin) kink(block, &blocks[b + 1], block.last + 1);
    }
    kink(blocks[last], nullptr, pin);
    return p;
}

// Cancels negative residues (round-off) against the mass above them, from the bottom up; removing
// mass only lowers the curve.  False when some debt is left at the top (the caller falls back).
inline bool cancel_negative_residues(std::vector<double>& p) {
    double debt = 0.0;
    for (double& pj : p) {
        if (pj < 0.0) {
            debt += -pj;
            pj = 0.0;
        } else if (debt > 0.0) {
            const double take = std::min(debt, pj);
            pj -= take;
            debt -= take;
        }
    }
    return !(debt > 0.0);
}

// A valid pair needs Q-mass sum_j p_j e^{-l_j} <= 1: drop P-mass from the bottom while the minorant
// overshoots.  Q-mass of a point through logarithms where e^{-l_j} would overflow.
inline void cap_q_mass_at_one(const Cells& cells, std::vector<double>& p) {
    const std::int64_t size = static_cast<std::int64_t>(p.size());
    auto q_mass = [&](std::int64_t j) {
        const double l = grid_loss(cells, j), pj = p[j];
        if (!(pj > 0.0)) return 0.0;
        return l > -700.0 ? pj * std::exp(-l) : std::exp(std::min(std::log(pj) - l, 700.0));
    };
    double qmass = 0.0;
    for (std::int64_t j = 0; j < size; ++j) qmass += q_mass(j);
    for (std::int64_t j = 0; j < size && qmass > 1.0; ++j) {
        const double qj = q_mass(j);
        if (!(qj > 0.0)) continue;
        const double keep = std::max(1.0 - (qmass - 1.0) / qj, 0.0);  // fraction of p_j kept
        p[j] *= keep;
        qmass -= (1.0 - keep) * qj;
    }
}

}  // namespace detail

// The optimistic PMF of the cells (this file's opening comment): the chord lowered by the tent
// gaps, the tangent followed at the bottom, the greatest convex minorant taken, its masses
// cleaned of round-off and capped to Q-mass 1; rounded down where that fails.  Without the cells'
// loss error (Cells::edge_error, snapped): optimistic_pmf adds it.
inline GridPMF optimistic_chord_pmf(const Cells& cells) {
    const std::int64_t top = detail::last_nonempty_cell(cells);
    if (top < 0) return rounded_down_pmf(cells);
    const detail::GridProfileValues profile = detail::profile_at_grid_points(cells, top);
    detail::LoweredChord chord = detail::lowered_chord(cells, top, profile);
    detail::follow_bottom_tangent(cells, profile.H, chord);
    const std::vector<detail::MinorantBlock> minorant = detail::convex_minorant(cells, profile, chord);
    GridPMF pmf;
    pmf.k_lo = cells.k_lo;
    pmf.h = cells.h;
    pmf.p = detail::minorant_masses(cells, profile.rho, chord, minorant);
    if (!detail::cancel_negative_residues(pmf.p)) return rounded_down_pmf(cells);
    detail::cap_q_mass_at_one(cells, pmf.p);
    return pmf;
}

// The optimistic PMF of the cells (optimistic_chord_pmf) with their loss error: masses scaled
// down for the edges (Cells::edge_error), the loss shift set.
inline GridPMF optimistic_pmf(const Cells& cells) {
    GridPMF pmf = optimistic_chord_pmf(cells);
    detail::scale_for_edges(pmf.p, cells, false);
    pmf.loss_shift = detail::cells_loss_shift(cells);
    return pmf;
}

}  // namespace pld
}  // namespace hockeystick
