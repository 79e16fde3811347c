// A certified lower epsilon of many rounds of the Poisson-subsampled Gaussian whose losses are tiny against any grid
// (rare participation: q <= 1e-4, 10^4 to 10^8 rounds): each round's loss replaced by its conditional means on cells
// whose means lie exactly on a shifted grid (Jensen), then composed under an exponential tilt (pld/reads/tilted.hpp)
// (the default's fine epsilon read, rare participation's finer grids and its finer delta grids read it: fine_epsilon.hpp,
// rare_finer_grids.hpp, rare_delta_grids.hpp, for the package and the C library alike).
//
// The optimistic PMF rounds each round's loss down to the grid, a bias of up to a cell per round: where the loss is
// of order q (1e-5) against cells of 2.5e-5 to 1e-4, over 10^6 rounds it moves the lower epsilon by ~0.7 (sigma 0.6,
// q 1e-5, delta 1e-10), and the lower side left is the max-of-outputs test's (pld/reads/max_of_outputs.hpp).  Here
// no loss is rounded in the bulk.
//
// The remove direction, sensitivity c: P = (1 - q) N(0, s^2) + q N(1, s^2), Q = N(0, s^2), s = sigma / c, loss
// l(x) = log(1 + u(x)), u = q (e^z - 1), z = (2 x - 1) / (2 s^2), increasing in x.  delta(eps) = E[f(L)],
// f(L) = (1 - e^{eps - L})_+ convex and nondecreasing, L the sum of T independent losses under P.  For a partition of
// the line into cells A, replacing each round's loss on A by an atom at any m_A <= E_P[l | A] (mass P(A)) lowers
// E[f(L)]: round by round, conditionally on the others, by Jensen (convexity) and monotonicity; so does lowering a
// mass (f >= 0) and dropping the far tail.  The cells here (aligned_pmf): the bulk (-inf, t_0] (l(t_0) = log(1 - q)
// + 2 h), whose mean bound fixes the grid's offset b (atoms at b + k h); then cells (a, a'] with a' found by
// bisection so that the mean bound is the first grid point above l(a) (a second-order loss: each cell spans about
// two cells of loss, its conditional variance ~h^2 per round, against the first-order h / 2 per round of rounding
// down); past u >= kAlignedUpTo, where the loss is steep enough in x that a cell of one grid step is narrow, cells
// centred on the grid losses' edges x_k, each atom at g_k where the cell's mean x is certified at least x_k (the
// loss is convex in x: Jensen in x), else a cell lower (aligned_rounded_cells), up to x where the P-tail is below
// kAlignedTail.
//
// Mean bounds (AlignedRound::cell): log(1 + u) >= u - u^2/2 + u^3/3 - u^4/4 - r, r = 0 for u >= 0 (Lagrange
// remainder u^5 / (5 (1 + xi)^5) >= 0) and r = q^5 / (5 (1 - q)^5) for u in [-q, 0).  With e^{jz} dN(0, s^2) =
// e^{j (j - 1) / (2 s^2)} dN(j, s^2), E_P[e^{jz}; A] = (1 - q) e^{j (j - 1) / (2 s^2)} N_j(A) + q e^{j (j + 1) /
// (2 s^2)} N_{j+1}(A), N_j(A) the N(j, s^2) mass of A from numerics/gaussian_tail.hpp (relative error <= 1e-12 against
// 50-digit mpmath, taken as kAlignedTailError), and E_P[u^k; A] = q^k sum_j C(k, j) (-1)^{k-j} E_P[e^{jz}; A].
//
// Rounding inward (u = 2^-53).  Each moment sum is taken correctly rounded (numerics/correctly_rounded.hpp) and lowered by
// the tails' error and 8 u of its terms' magnitudes (the double products and sums), each mass taken on its safe side,
// so a cell's atom at g needs lower(int_A l dP) >= g P_+(A) (g >= 0) or >= g P_-(A) (g < 0), g rounded up by 4 u of
// its terms.  The rounded cells' edges x_k are raised until the loss computed there, lowered by 16 u of itself, is at
// least the grid loss raised by 8 u of its terms (aligned_verified_edges); a cell's mean x is certified at least x_k
// from the density's spread over it (aligned_mean_at_least).  The grid PMF of masses P_-(A) is composed under the
// tilt of the Chernoff exponent (compose_tilted, its optimistic side: charged, certified) and read at eps - T b
// rounded up; the lower epsilon found is moved back by T b rounded down (aligned_read).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "hockeystick/numerics/correctly_rounded.hpp"
#include "hockeystick/numerics/gaussian_tail.hpp"
#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/pld/grid/grid_pmf.hpp"
#include "hockeystick/pld/reads/tilted.hpp"

namespace hockeystick {
namespace pld {

// The cells' means are aligned up to this u = q (e^z - 1) (loss ~0.01); past it atoms are rounded down.
constexpr double kAlignedUpTo = 1e-2;
// The P-tail dropped past the last cell.
constexpr double kAlignedTail = 1e-30;
// A Gaussian tail's relative error, with room (numerics/gaussian_tail.hpp: <= 1e-12).
constexpr double kAlignedTailError = 1e-11;
// The bisection steps placing each aligned cell's upper end.
constexpr int kAlignedBisections = 45;
// Past kAlignedUpTo, cell k starts this share of the way from x_k down to x_{k-1} (aligned_rounded_cells): below 1/2
// so that the cell's mean x, pulled down by the falling density, stays above x_k.
constexpr double kAlignedCentred = 0.45;
// The sampling rates at most this take the read (aligned_lower_side): its cost pays where the optimistic reads fall
// far below the truth (rare participation).
constexpr double kAlignedRareRate = 1e-4;
// The read is taken from this many rounds up (where the optimistic PMF's per-round bias adds up) and at deltas from
// kAlignedLeastDelta up (its far tail, past kAlignedTail, is dropped).
constexpr std::int64_t kAlignedLeastRounds = 1000;
constexpr double kAlignedLeastDelta = 1e-20;
// The tilted window's tails tried, the least that fits, where the one of 1e-3 delta passes the cap: the mass folded
// in from outside is charged at the untilt factor of the read (pld/reads/tilted.hpp), small where the read lies far
// below the tilted bulk.
constexpr double kAlignedCutTails[] = {1e-12, 1e-10, 1e-8, 1e-6};
// A lower side still wider than asked is read again on a grid twice finer where the window read held at most this
// share of the cap (the finer window holds about twice its points).
constexpr double kAlignedFinerRoom = 0.45;
// The most aligned cells (each ~45 bisection steps of 20 Gaussian tails): past it the read stops (std::length_error).
constexpr int kAlignedMaxCells = 2000;
// The grid the read starts on, halved (the package's question.FINE_INTERVAL, half the peers' 1e-4).
constexpr double kAlignedGrid = 5e-5;

namespace aligned_detail {

constexpr double kU = 0.5 * std::numeric_limits<double>::epsilon();  // u = 2^-53

}  // namespace aligned_detail

// The N(mean, s^2) mass of (a, b] and a bound on its error: the difference of the two tails on the side away from the
// mean (no cancellation of 1 - tail), each within kAlignedTailError relative, so within it times their sum, plus the
// difference's rounding (`rounding` u of the sum).
inline std::pair<double, double> aligned_normal_mass(double mean, double s, double a, double b, double rounding = 1.0) {
    const double xa = (a - mean) / s, xb = (b - mean) / s;
    double upper, lower;
    if (xa >= 0.0) {
        upper = gaussian_tail(xa);
        lower = gaussian_tail(xb);
    } else {
        upper = gaussian_tail(-xb);
        lower = gaussian_tail(-xa);
    }
    return {upper - lower, (kAlignedTailError + rounding * aligned_detail::kU) * (upper + lower)};
}

// A cell's P-mass bounds and the lower bound of its loss integral: (P_-(A), P_+(A), lower(int_A l dP)).
struct AlignedCell {
    double mass_lo = 0.0, mass_hi = 0.0, integral = 0.0;
};

// One round's remove direction at s = sigma / sensitivity and sampling rate q (the header's comment).
class AlignedRound {
  public:
    AlignedRound(double s, double q) : s(s), q(q), c(1.0 / (2.0 * s * s)) {}

    // l(x) = log(1 + q (e^z - 1)).
    double loss(double x) const { return std::log1p(q * std::expm1((2.0 * x - 1.0) * c)); }

    // u(x) = q (e^z - 1).
    double u(double x) const { return q * std::expm1((2.0 * x - 1.0) * c); }

    // The x whose loss is `value` (> log(1 - q)).
    double at_loss(double value) const { return s * s * std::log1p(std::expm1(value) / q) + 0.5; }

    // (P_-(A), P_+(A), a lower bound on int_A l dP) for A = (a, b] (the header's mean bounds).
    AlignedCell cell(double a, double b) const {
        constexpr double u = aligned_detail::kU;
        double e[5], err[5];
        for (int j = 0; j < 5; ++j) {
            const std::pair<double, double> m0 = aligned_normal_mass(j, s, a, b);
            const std::pair<double, double> m1 = aligned_normal_mass(j + 1, s, a, b);
            const double w0 = (1.0 - q) * std::exp(static_cast<double>(j * (j - 1)) * c);
            const double w1 = q * std::exp(static_cast<double>(j * (j + 1)) * c);
            e[j] = w0 * m0.first + w1 * m1.first;
            // the masses' errors, and 16 u of the terms for the weights' exp and the products
            err[j] = w0 * m0.second + w1 * m1.second + 16.0 * u * (w0 * std::fabs(m0.first) + w1 * std::fabs(m1.first));
        }
        static constexpr int kChoose[5][5] = {{1}, {1, 1}, {1, 2, 1}, {1, 3, 3, 1}, {1, 4, 6, 4, 1}};
        double bound = 0.0, error = 0.0;
        for (int k = 1; k < 5; ++k) {  // E_P[u^k; A] = q^k sum_j C(k, j) (-1)^(k-j) E_P[e^{jz}; A]
            double terms[5];
            double spread = 0.0;
            for (int j = 0; j <= k; ++j) {
                const int signed_choose = ((k - j) % 2 ? -1 : 1) * kChoose[k][j];
                terms[j] = static_cast<double>(signed_choose) * e[j];
                spread += static_cast<double>(kChoose[k][j]) * (err[j] + 8.0 * u * std::fabs(e[j]));
            }
            const double sign = k % 2 ? 1.0 : -1.0;
            const double qk = std::pow(q, static_cast<double>(k));
            bound += sign * qk * exact_sum(terms, static_cast<std::int64_t>(k + 1)) / static_cast<double>(k);
            error += qk * spread / static_cast<double>(k);
        }
        AlignedCell out;
        out.mass_lo = std::max(0.0, e[0] - err[0]);
        out.mass_hi = e[0] + err[0];
        const double remainder = out.mass_hi * std::pow(q, 5.0) / (5.0 * std::pow(1.0 - q, 5.0));
        out.integral = bound - error - remainder - 8.0 * u * (std::fabs(bound) + error);
        return out;
    }

    // True where an atom at most g_up is at most the cell's conditional mean (its bound on the integral at least
    // g_up times the mass on the side that makes it so).
    static bool below(double g_up, const AlignedCell& cell) {
        return cell.integral >= g_up * (g_up >= 0.0 ? cell.mass_hi : cell.mass_lo);
    }

    double s, q, c;
};

// For grid index k, an x whose loss is at least offset + k h: the inverse of that loss (AlignedRound::at_loss), raised
// by a relative 1e-12 (about 1e-11 of loss, far above the roundings) until the loss computed there, lowered by 16 u of
// itself, is at least the grid loss raised by 8 u of its terms (log1p, expm1, the products: a few u each).  Throws
// std::domain_error where 8 raises do not reach it.
inline double aligned_verified_edge(const AlignedRound& r, std::int64_t k, double offset, double h) {
    constexpr double u = aligned_detail::kU;
    const double kh = static_cast<double>(k) * h;
    const double grid = offset + kh;
    const double grid_up = grid + 8.0 * u * (std::fabs(grid) + std::fabs(offset) + std::fabs(kh));
    double edge = r.s * r.s * std::log1p(std::expm1(grid) / r.q) + 0.5;
    for (int i = 0; i < 8; ++i) {
        const double loss = std::log1p(r.q * std::expm1((2.0 * edge - 1.0) * r.c));
        if (!(loss - 16.0 * u * std::fabs(loss) < grid_up)) return edge;
        edge = edge + 1e-12 * std::fabs(edge) + 1e-300;
    }
    throw std::domain_error("a rounded cell's edge could not be certified above its grid loss");
}

// True where the P-mean of the cell (lo, hi] is certified at least x.  On a cell of width w where the density
// p = (1 - q) phi_0 + q phi_1 stays within [m, M], M / m <= rho, the mean is at least lo + w / (1 + sqrt(rho)): the
// least mean over such densities puts M below a threshold c and m above it, and its minimum over c is there (at
// c = w / (1 + sqrt(rho)), where the mean equals c).  Each phi_j is unimodal, so m is at least the sum of its weighted
// values at the ends and M at most that of its maxima on the cell (the peak where the cell holds mu_j); the densities
// are rounded outward by 16 u (1 + z^2) (exp of z^2 / 2) and the bound lowered by 8 u of lo and w (w = hi - lo is
// exact where hi <= 2 lo, Sterbenz, which the certificate requires).
inline bool aligned_mean_at_least(const AlignedRound& r, double lo, double hi, double x) {
    constexpr double u = aligned_detail::kU;
    const double s = r.s, q = r.q;
    const double norm = 1.0 / (s * std::sqrt(2.0 * 3.141592653589793));
    double least = 0.0, most = 0.0;
    const double mus[2] = {0.0, 1.0}, weights[2] = {1.0 - q, q};
    for (int i = 0; i < 2; ++i) {
        const double mu = mus[i], weight = weights[i];
        const double z_lo = (lo - mu) / s, z_hi = (hi - mu) / s;
        const double d_lo = norm * std::exp(-0.5 * z_lo * z_lo);
        const double d_hi = norm * std::exp(-0.5 * z_hi * z_hi);
        const double peak = (lo < mu && mu <= hi) ? norm : std::max(d_lo, d_hi);
        const double e_lo = 16.0 * u * (1.0 + z_lo * z_lo);
        const double e_hi = 16.0 * u * (1.0 + z_hi * z_hi);
        least += weight * std::min(d_lo * (1.0 - e_lo), d_hi * (1.0 - e_hi));
        most += weight * peak * (1.0 + std::max(e_lo, e_hi));
    }
    const double rho = least > 0.0 ? (most / least) * (1.0 + 8.0 * u) : std::numeric_limits<double>::infinity();
    const double width = hi - lo;
    double bound = lo + width / (1.0 + std::sqrt(rho)) * (1.0 - 8.0 * u);
    bound -= 8.0 * u * (std::fabs(lo) + std::fabs(width));
    return bound >= x && hi > lo && hi <= 2.0 * lo;
}

namespace aligned_detail {

inline void require_round(double s, double q, double h) {
    if (!(s > 0.0 && std::isfinite(s) && q > 0.0 && q < 1.0 && h > 0.0 && std::isfinite(h)))
        throw std::invalid_argument("aligned_pmf: needs s > 0 finite, 0 < q < 1 and a finite grid interval h > 0");
}

// The upper end b of the aligned cell (a, b] whose mean bound reaches g_up (AlignedRound::below): from `start` up by
// steps of s until it does, then kAlignedBisections halvings of the last step, b the end that reaches it; above
// `top` where no end up to it does.
inline double cell_end(const AlignedRound& r, double a, double g_up, double start, double top) {
    double low_b = a, high_b = start;
    while (high_b <= top && !AlignedRound::below(g_up, r.cell(a, high_b))) high_b += r.s;
    if (high_b > top) return high_b;
    for (int i = 0; i < kAlignedBisections; ++i) {
        const double mid = 0.5 * (low_b + high_b);
        if (AlignedRound::below(g_up, r.cell(a, mid)))
            high_b = mid;
        else
            low_b = mid;
    }
    return high_b;
}

inline void add_atom(std::map<std::int64_t, double>& atoms, std::int64_t k, double mass) {
    auto it = atoms.find(k);
    if (it == atoms.end())
        atoms.emplace(k, 0.0 + mass);
    else
        it->second += mass;
}

}  // namespace aligned_detail

// Cells from a up to about top, one a grid loss g_k = offset + k h, added to `atoms`.  x_k, the edge of g_k, is
// certified to have a loss at least g_k (aligned_verified_edge); cell k spans (y_k, y_{k+1}], y_k = x_k -
// kAlignedCentred (x_k - x_{k-1}) (at least x_{k-1} and a), so that x_k sits near its middle.  The loss is convex in x
// (the log of a sum of exponentials of x), so by Jensen the cell's mean loss is at least the loss at its mean x; where
// that mean is certified at least x_k (aligned_mean_at_least, and `centred`), the atom is g_k (a loss of ~(1/2 -
// kAlignedCentred) h below the cell's mean), elsewhere g_{k - 1} (every loss of the cell is at least l(x_{k-1}) >=
// g_{k-1}).  Cell 0, (a, y_{first + 1}], goes to g_first, a cell below a's loss.  The mass above the last cell (below
// kAlignedTail) is dropped.
inline void aligned_rounded_cells(const AlignedRound& r, double a, double top, double offset, double h,
                                  std::map<std::int64_t, double>& atoms, bool centred = true) {
    const double s = r.s, q = r.q;
    const std::int64_t first = static_cast<std::int64_t>(std::floor((r.loss(a) - offset) / h)) - 1;
    const std::int64_t last = static_cast<std::int64_t>(std::floor((r.loss(top) - offset) / h)) + 1;
    const std::size_t n = static_cast<std::size_t>(last - first + 1);
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) {
        x[i] = std::max(aligned_verified_edge(r, first + static_cast<std::int64_t>(i), offset, h), a);
        if (i > 0) x[i] = std::max(x[i], x[i - 1]);
    }
    // edges: a, then y_k for k = first + 1 .. last, nondecreasing
    std::vector<double> edges(n);
    edges[0] = a;
    for (std::size_t i = 1; i < n; ++i)
        edges[i] = std::max(std::max(x[i] - kAlignedCentred * (x[i] - x[i - 1]), x[i - 1]), edges[i - 1]);
    // cell i (i >= 1) spans (y_{first + i}, y_{first + i + 1}]: its atom at first + i where its mean x is certified at
    // least x_{first + i}, else at first + i - 1; cell 0 at first
    for (std::size_t i = 0; i + 1 < n; ++i) {
        double mass = 0.0;
        const std::pair<double, double> m0 = aligned_normal_mass(0.0, s, edges[i], edges[i + 1], 4.0);
        const std::pair<double, double> m1 = aligned_normal_mass(1.0, s, edges[i], edges[i + 1], 4.0);
        mass += (1.0 - q) * (m0.first - m0.second);
        mass += q * (m1.first - m1.second);
        const std::int64_t index = first + static_cast<std::int64_t>(i);
        const bool at_edge = i == 0 || (centred && aligned_mean_at_least(r, edges[i], edges[i + 1], x[i]));
        if (mass > 0.0) aligned_detail::add_atom(atoms, at_edge ? index : index - 1, mass);
    }
}

// One round's lower PMF on grid h (atoms at b + k h, as the grid PMF's k h, optimistic: connect_dots false) and its
// offset b (the header's comment); `centred` false puts every rounded cell's atom a cell lower (a looser read).
// Throws std::length_error past kAlignedMaxCells aligned cells, std::domain_error where an edge cannot be certified.
struct AlignedPmf {
    GridPMF pmf;
    double offset = 0.0;
};

inline AlignedPmf aligned_pmf(double s, double q, double h, bool centred = true) {
    constexpr double u = aligned_detail::kU;
    aligned_detail::require_round(s, q, h);
    const AlignedRound r(s, q);
    const double t0 = r.at_loss(std::log1p(-q) + 2.0 * h);
    const AlignedCell bulk = r.cell(-std::numeric_limits<double>::infinity(), t0);
    double offset = bulk.integral / (bulk.integral < 0.0 ? bulk.mass_lo : bulk.mass_hi);
    offset -= 4.0 * u * std::fabs(offset) + 5e-324;  // below the bulk's mean bound
    std::map<std::int64_t, double> atoms;
    atoms.emplace(0, bulk.mass_lo);
    double a = t0;
    int cells = 0;
    const double top = 1.0 + r.s * std::sqrt(2.0 * std::log(1.0 / kAlignedTail));
    while (r.u(a) < kAlignedUpTo) {
        const std::int64_t k = static_cast<std::int64_t>(std::floor((r.loss(a) - offset) / h)) + 1;
        const double kh = static_cast<double>(k) * h;
        const double g = offset + kh;
        // the atom's loss is offset + k h exactly; g_up bounds it whatever the rounding of g
        const double g_up = g + 4.0 * u * (std::fabs(g) + std::fabs(offset) + std::fabs(kh));
        const double high_b = aligned_detail::cell_end(r, a, g_up, r.at_loss(g + 2.0 * h) + r.s, top);
        if (high_b > top) break;  // no cell up to the tail reaches g: the rest rounded down
        if (++cells > kAlignedMaxCells)
            throw std::length_error("aligned_pmf: more than " + std::to_string(kAlignedMaxCells) + " aligned cells");
        aligned_detail::add_atom(atoms, k, r.cell(a, high_b).mass_lo);
        a = high_b;
    }
    aligned_rounded_cells(r, a, top, offset, h, atoms, centred);
    const std::int64_t k_lo = atoms.begin()->first, k_hi = atoms.rbegin()->first;
    AlignedPmf out;
    out.offset = offset;
    out.pmf.k_lo = k_lo;
    out.pmf.h = h;
    out.pmf.connect_dots = false;
    out.pmf.p.assign(static_cast<std::size_t>(k_hi - k_lo + 1), 0.0);
    for (const auto& [k, m] : atoms) out.pmf.p[static_cast<std::size_t>(k - k_lo)] += std::max(0.0, m);
    return out;
}

// aligned_read's bound, the points of the tilted window it read (whether a grid twice finer may fit the cap) and
// whether that window was cut at a tail of kAlignedCutTails (its folded mass's charge may have cost the read).
struct AlignedRead {
    double lower = 0.0;
    std::int64_t points = 0;
    bool cut = false;
};

// The optimistic composition of the aligned PMFs `factors` (each with its count) under the tilt theta (lam h), its
// window's tails 1e-3 `level` (a delta expected at most the answer), or, where that window passes `max_points`, the
// least of kAlignedCutTails above it whose window fits; and whether a kAlignedCutTails tail was taken.  Throws the
// last tail's std::length_error where none fits, std::invalid_argument where a tilted moment overflows.
inline std::pair<TiltedComposition, bool> aligned_composed(const std::vector<CountedPmf>& factors, double theta,
                                                           double level, RealFftBackend& fft, std::int64_t max_points) {
    std::vector<double> tails{1e-3 * level};
    for (const double t : kAlignedCutTails)
        if (t > 1e-3 * level) tails.push_back(t);
    for (std::size_t i = 0;; ++i) {
        try {
            return {compose_tilted(factors, theta, false, fft, max_points, tails[i]), i > 0};
        } catch (const std::length_error&) {  // past the cap: a larger tail, the last one's refusal raised
            if (i + 1 == tails.size()) throw;
        }
    }
}

// aligned_composed of `rounds` copies of one aligned PMF.
inline std::pair<TiltedComposition, bool> aligned_composed(const GridPMF& pmf, std::int64_t rounds, double theta,
                                                           double level, RealFftBackend& fft, std::int64_t max_points) {
    return aligned_composed({{&pmf, rounds}}, theta, level, fft, max_points);
}

// A certified lower bound on epsilon(delta) of `rounds` rounds of the Poisson-subsampled Gaussian (sigma /
// sensitivity s, rate q), remove direction, on grid h, searched below `near` (an upper side); 0 where none is found.
// `tilt` (const GridPMF&, rounds, eps) -> lam, the tilt of the Chernoff exponent at eps (tilted_question.hpp's
// exponent_tilt); the window composed with the tail 1e-3 delta, else the least of kAlignedCutTails above it whose
// window fits `max_points` (aligned_composed).  Throws std::length_error where no tail's window fits (or past
// kAlignedMaxCells cells), std::domain_error (an edge not certified) or std::invalid_argument (a tilt past the
// doubles' moments).
template <class Tilt>
AlignedRead aligned_read(double s, double q, std::int64_t rounds, double delta, double near, double h, Tilt&& tilt,
                         RealFftBackend& fft, std::int64_t max_points) {
    constexpr double u = aligned_detail::kU;
    const AlignedPmf a = aligned_pmf(s, q, h);
    const double moved = static_cast<double>(rounds) * a.offset;
    const double moved_up = moved + 4.0 * u * std::fabs(moved);
    const double lam = tilt(a.pmf, rounds, near - moved);
    const std::pair<TiltedComposition, bool> composed =
        aligned_composed(a.pmf, rounds, lam * h, delta, fft, max_points);
    AlignedRead out;
    out.points = composed.first.points();
    out.cut = composed.second;
    const double found = lower_epsilon(composed.first, delta, near - moved_up);
    if (found > 0.0) out.lower = std::max(0.0, found + moved - 4.0 * u * (std::fabs(found) + std::fabs(moved)));
    return out;
}

// Certified lower bounds on delta at each of `eps` (finite) of `rounds` rounds of the Poisson-subsampled Gaussian
// (sigma / sensitivity s, rate q), remove direction (delta is the larger of the two directions' curves, so it bounds
// the run's delta too), on grid h, and the points of the tilted window read.  The aligned PMF's composition shifted by
// T b is below the rounds' loss in the convex order (the header's comment) and f(L) = (1 - e^{eps - L})_+ is convex
// and nondecreasing, so delta(eps) is at least the aligned composition's delta at eps - T b: its optimistic side read
// there, the argument rounded up (delta falls with it).  One composition, under the Chernoff exponent's tilt at
// `centre` - T b (`tilt`, as aligned_read's), serves every eps, its tails sized for `level`, the least delta
// expected (aligned_composed).  Throws as aligned_read.
template <class Tilt>
std::pair<std::vector<double>, std::int64_t> aligned_lower_delta(double s, double q, std::int64_t rounds,
                                                                 const std::vector<double>& eps, double centre,
                                                                 double level, double h, Tilt&& tilt,
                                                                 RealFftBackend& fft, std::int64_t max_points) {
    constexpr double u = aligned_detail::kU;
    const AlignedPmf a = aligned_pmf(s, q, h);
    const double moved = static_cast<double>(rounds) * a.offset;
    const double lam = tilt(a.pmf, rounds, centre - moved);
    const TiltedComposition composed = aligned_composed(a.pmf, rounds, lam * h, level, fft, max_points).first;
    std::vector<double> out(eps.size());
    for (std::size_t i = 0; i < eps.size(); ++i) {
        const double at = eps[i] - moved;
        out[i] = std::max(0.0, composed.delta(at + 4.0 * u * (std::fabs(eps[i]) + std::fabs(moved) + std::fabs(at))));
    }
    return {out, composed.points()};
}

// `lower` raised to aligned_read's bound where higher, for a run (s = sigma / sensitivity, q, T) with q at most
// kAlignedRareRate, at least kAlignedLeastRounds rounds, delta at least kAlignedLeastDelta and a finite `upper` side
// (the search's start), on kAlignedGrid halved, else on kAlignedGrid where that window passes its cap; `lower` as
// given where neither fits.  A side for which `wide(lower, upper)` still holds on the halved grid is read again on a
// grid twice finer where its window held at most kAlignedFinerRoom of the cap, or on kAlignedGrid too where its window
// was cut.  Every read is certified, so the side returned is.
template <class Tilt, class Wide>
double aligned_lower_side(double s, double q, std::int64_t rounds, double delta, double lower, double upper,
                          Tilt&& tilt, Wide&& wide, RealFftBackend& fft, std::int64_t max_points) {
    if (!(q <= kAlignedRareRate && rounds >= kAlignedLeastRounds && delta >= kAlignedLeastDelta &&
          std::isfinite(upper) && upper > lower))
        return lower;
    for (const double h : {kAlignedGrid / 2.0, kAlignedGrid}) {
        AlignedRead read;
        try {
            read = aligned_read(s, q, rounds, delta, upper, h, tilt, fft, max_points);
        } catch (const std::logic_error&) {  // the window past its cap (or a cell or tilt refused): a coarser grid
            continue;
        }
        lower = std::max(lower, read.lower);
        if (!wide(lower, upper)) return lower;
        if (h < kAlignedGrid &&
            static_cast<double>(read.points) <= kAlignedFinerRoom * static_cast<double>(max_points) && !read.cut) {
            // the aligned cells' loss, second order in h, a quarter on a grid twice finer
            try {
                lower = std::max(lower, aligned_read(s, q, rounds, delta, upper, h / 2.0, tilt, fft, max_points).lower);
            } catch (const std::logic_error&) {  // past the cap after all
            }
        }
        if (!read.cut) return lower;
    }
    return lower;
}

}  // namespace pld
}  // namespace hockeystick
