// Privacy-loss distributions (PLDs) cut into cells of a uniform loss grid.
//
// A dominating pair (P, Q) has privacy loss L = log(dP/dQ) with law P.  On the
// grid l_k = k h the cell j is (l_j, l_{j+1}] (j = 0 .. N-1, l_j = (k_lo + j) h).
// Each cell is summarised by the two numbers that the connect-the-dots
// discretizations need (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi, PETS 2022):
//
//   c_j = E_P[(1 - e^{l_j - L})     ; L in cell j]   = a_j - e^{l_j} b_j      >= 0
//   d_j = E_P[(e^{l_{j+1} - L} - 1) ; L in cell j]   = e^{l_{j+1}} b_j - a_j  >= 0
//
// (a_j = P(cell), b_j = Q(cell)).  Both are computed as integrals of
// non-negative integrands, never as the difference a - e^l b, so they keep full
// relative precision however small h is.  Continuous mechanisms integrate in
// output space x (L increasing in x) with 5-point Gauss-Legendre on
// sub-intervals short enough that the density changes by < 30% across each;
// atoms (Laplace ends, user distributions) add their exact contribution.
// Mass outside [x_lo, x_hi] (each side <= tail/2) is reported separately:
// tail_lo (its loss is <= l_1), tail_hi (losses above l_N, including +inf).
// A cell runs between rounded edges x^_j = fl(x(l_j)) and its kernel takes the loss at x^_j as
// l_j: the true loss there is within Cells::edge_error of j h (each mechanism's edge_loss_error,
// a few hundred ulps of the losses and of x / s^2; against 50-digit losses at the core's own edges
// the bound is 23-140 times the largest error seen).  The cells are then exact for losses moved by
// at most edge_error with one of the masses scaled by at most e^{edge_error}: the PMFs scale their
// masses by about e^{+-edge_error} and report it as their loss shift (pld/grid/connect_dots.hpp), which every
// composition charges (uncharged, this ~1e-15 loss error would move a cell's c_j by up to 2.9e-11
// relative at h = 1e-4).
// On request the cells carrying mass also get the same two numbers for each of their halves
// (Cells::c_lo .. d_hi), from which the optimistic side bounds the chord's gap inside a cell
// about twice as tightly as from (c_j, d_j) alone (split tents, pld/grid/connect_dots.hpp); cells far
// smaller than the density's scale (the far tails of a narrow loss law) use 3-point quadrature.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "hockeystick/numerics/error_free.hpp"
#include "hockeystick/simd/exp_arrays.hpp"
#include "hockeystick/numerics/gaussian_exponent.hpp"
#include "hockeystick/numerics/gaussian_tail.hpp"
#include "hockeystick/numerics/mills_ratio.hpp"

namespace hockeystick {
namespace pld {

using hockeystick::detail::ExponentTerms;
using hockeystick::detail::gaussian_exponent;
using hockeystick::detail::SplitScale;

// The accuracy the PMFs assume of a cell's two numbers beyond the edges' loss error: c_j and d_j
// together within cell_round_off (c_j + d_j) of their exact values, |dc| + |dd| <= 32u (c + d).  Measured
// against 40-digit integrals, at most 13.8u for the subsampled Gaussian's
// cells (compensated sums, exact exponents), a few u for Laplace's closed forms and atoms.  The optimistic
// side raises each tent by it and rounded_down_pmf lowers by it; pessimistic_pmf raises each mass by what
// it can add there (pld/grid/connect_dots.hpp).
constexpr double cell_round_off = 32.0 * 0.5 * std::numeric_limits<double>::epsilon();

struct Cells {
    std::int64_t k_lo = 0;  // grid index of l_0
    double h = 0.0;         // grid spacing in loss
    std::vector<double> c, d;
    double tail_lo = 0.0;   // P-mass cut below (loss <= l_1)
    double tail_hi = 0.0;   // P-mass cut above l_N, including the mass at +infinity
    double top_atom = 0.0;  // P-mass of atoms exactly at l_N (the optimistic side keeps it there)
    double snapped = 0.0;   // the farthest add_atom moved an atom onto a grid point (a loss error to charge)
    // Continuous mechanisms: a bound on the loss error of the cells' lower ends (edge_loss_error
    // below).  A cell runs from the rounded edge x^_j = fl(x(l_j)) and its kernel takes the loss
    // there as l_j; the true loss L(x^_j) is within edge_error of the grid loss j h.  The cells
    // are then exact (up to their own rounding) for a loss moved by at most edge_error, whose
    // Q-mass is kept and P-mass scaled by e^{-e} (|e| <= edge_error): the PMFs scale their masses
    // by e^{+-edge_error} (pld/grid/connect_dots.hpp) and the caller charges it as a loss shift.
    double edge_error = 0.0;
    // Optional (continuous mechanisms, when asked): the same two numbers for the two halves of
    // each cell, (l_j, l_j + h/2] and (l_j + h/2, l_{j+1}], each taken with its own ends
    // (c_lo[j] = E_P[(1 - e^{l_j - L}); L in the lower half], d_hi[j] = E_P[(e^{l_{j+1} - L} - 1);
    // L in the upper half], ...).  The optimistic side bounds the chord's gap inside the cell
    // with them (pld/grid/connect_dots.hpp); empty, or -1 for a cell: not computed.
    std::vector<double> c_lo, d_lo, c_hi, d_hi;
    bool has_halves(std::int64_t j) const {
        return c_lo.size() == c.size() && j >= 0 && j < static_cast<std::int64_t>(c.size()) && c_lo[j] >= 0.0;
    }
};

// Adds an atom of P-mass m at finite loss lam (l_0 < lam <= l_N) to its cell.
inline void add_atom(Cells& cells, double lam, double m) {
    const double h = cells.h;
    const std::int64_t n = static_cast<std::int64_t>(cells.c.size());
    // Offsets from the grid are taken from the exact grid loss k h (a double-double, two_prod), not
    // from fl(k h): near l = 741 that rounding is 1e-13, which moved atoms up by as much on the
    // optimistic side.  The offset's own rounding is a loss error the
    // caller charges with the snap (Cells::snapped), 0 wherever the subtractions are exact.
    const auto offset_from = [&](double k) {
        const double_double kh = two_prod(k, h);
        const double_double s = two_sum(lam, -kh.hi), t = two_sum(s.hi, -kh.lo);
        return std::pair<double, double>{
            t.hi, (std::fabs(s.lo) + std::fabs(t.lo)) * (1.0 + 4.0 * std::numeric_limits<double>::epsilon())};
    };
    // An atom within a few ulps of a grid point sits on it (the end of the cell below); the distance
    // moved is a loss error the caller charges (Cells::snapped).
    const double k_near = std::round(lam / h);
    const auto [near_offset, near_error] = offset_from(k_near);
    const double distance = std::fabs(near_offset) + near_error;
    const bool on_grid = distance <= 4.0 * std::numeric_limits<double>::epsilon() * std::max(std::fabs(lam), h);
    if (on_grid) cells.snapped = std::max(cells.snapped, distance);
    std::int64_t j = static_cast<std::int64_t>(on_grid ? k_near : std::ceil(lam / h)) - 1 - cells.k_lo;
    j = std::min<std::int64_t>(std::max<std::int64_t>(j, 0), n - 1);
    double u = h;  // lam - l_j
    if (!on_grid) {
        const auto [offset, error] = offset_from(static_cast<double>(cells.k_lo + j));
        u = std::min(std::max(offset, 0.0), h);
        cells.snapped = std::max(cells.snapped, error);
    }
    cells.c[j] += m * -std::expm1(-u);
    cells.d[j] += m * std::expm1(h - u);
    if (on_grid && j == n - 1 && u == h) cells.top_atom += m;
}

// The P- and Q-mass of cell j from its two numbers: c_j + d_j = (e^{l_{j+1}} - e^{l_j}) b_j, so
//   e^{l_j} b_j = (c_j + d_j) / (e^h - 1)   and   a_j = c_j + e^{l_j} b_j,
// a quotient and a sum of non-negative numbers (no cancellation).  b_j itself is e^{-l_j} times the
// scaled mass, formed (or taken as a logarithm) by the caller: pld/sampling/replace_one.hpp's mirrored
// cells, python/hockeystick/pld/reads/affinity_ceiling.py's Hoelder sum (through the cells' binding).
struct CellMass {
    double p;         // a_j = P(cell j)
    double q_scaled;  // e^{l_j} b_j = e^{l_j} Q(cell j)
};
inline CellMass cell_mass(double c, double d, double expm1_h) {
    const double q_scaled = (c + d) / expm1_h;
    return {c + q_scaled, q_scaled};
}

// The coarsest grid spacing h accepted.  The connect-the-dots masses (pld/grid/connect_dots.hpp) are
// formed with e^h and 1 / (e^h - 1), and d_j carries a factor up to e^h: e^h overflows above
// h = log(DBL_MAX) = 709.78 (the masses became NaN or 0 and the bounds 0).  Up to 100 every
// product of e^h with masses summed over at most 2^26 cells stays below e^100 2^26 ~ 2e51, and
// a spacing of 100 in loss already resolves epsilon only in steps of 100.
constexpr double max_interval = 100.0;

namespace detail {

// 5-point Gauss-Legendre on [-1, 1] (exact for polynomials of degree 9).
constexpr double gl_nodes[5] = {-0.9061798459386640, -0.5384693101056831, 0.0, 0.5384693101056831, 0.9061798459386640};
constexpr double gl_weights[5] = {0.2369268850561891, 0.4786286704993665, 0.5688888888888889, 0.4786286704993665,
                                  0.2369268850561891};
// 3-point Gauss-Legendre on [-1, 1] (exact for polynomials of degree 5).
constexpr double gl3_nodes[3] = {-0.7745966692414834, 0.0, 0.7745966692414834};
constexpr double gl3_weights[3] = {0.5555555555555556, 0.8888888888888888, 0.5555555555555556};

inline std::int64_t checked_cell_count(double lo, double hi, double h, std::int64_t max_cells, std::int64_t& k_lo) {
    if (!(h > 0.0 && h <= max_interval))
        throw std::invalid_argument(
            "value_discretization_interval must lie in (0, 100] "
            "(e^h must stay far from overflow)");
    const double klo = std::floor(lo / h), khi = std::ceil(hi / h);
    if (!(khi - klo <= static_cast<double>(max_cells)))
        throw std::length_error("the loss grid would need more cells than max_cells");
    k_lo = static_cast<std::int64_t>(klo);
    return std::max<std::int64_t>(static_cast<std::int64_t>(khi - klo), 1);
}

// Cells of a continuous mechanism described in output space.  M provides
//   loss(x)                  L(x), continuous and strictly increasing on (x_lo, x_hi)
//   x_of_loss(l)             its inverse (clamped by the caller to [x_lo, x_hi])
//   steps_from(x0)           a callable dx -> L(x0 + dx) - L(x0) without cancellation (what
//                            depends on x0 alone is computed once per cell, not per node)
//   density(x)               the density of P
//   scale(x)                 a length over which density(x) changes by a bounded factor
//   edge_loss_error(l, x, n) a bound on |L(x_i) - l_i| over n points, each an edge x_i = x_of_loss(l_i)
//                            as computed (or x_lo with l_i = loss(x_lo) as computed): Cells::edge_error
// and instead of steps_from and density, optionally
//   cell_nodes(x0, l, off, grid)   the cell's kernel: a callable dx -> (P-density times (1 - e^{l - L}),
//                            times (e^{l + h - L} - 1)) at x0 + dx, where L(x0) = l + off, clamped to
//                            the cell; mechanisms whose density is e^L times a simple function
//                            write both without a logarithm (two transcendental calls per node
//                            instead of six), and also in the batched form below (NodeBatch).
//                            Without it the kernel is built from the four above.
// Each cell edge x_of_loss(l_j) is computed once and shared by the two cells it separates.
struct CellGrid {
    double h, expm1_h, exp_h;  // h, e^h - 1, e^h
};

template <class M, class = void>
struct has_cell_nodes : std::false_type {};
template <class M>
struct has_cell_nodes<M, std::void_t<decltype(std::declval<const M&>().cell_nodes(0.0, 0.0, 0.0, CellGrid{}))>>
    : std::true_type {};

template <class M>
auto cell_kernel(const M& mech, double x0, double l, double off, const CellGrid& g) {
    if constexpr (has_cell_nodes<M>::value) {
        return mech.cell_nodes(x0, l, off, g);
    } else {
        const auto loss_step = mech.steps_from(x0);
        const double h = g.h;
        return [&mech, loss_step, x0, off, h](double dx) {
            const double u = std::min(std::max(off + loss_step(dx), 0.0), h);
            const double f = mech.density(x0 + dx);
            return std::pair<double, double>{f * -std::expm1(-u), f * std::expm1(h - u)};
        };
    }
}

// The quadrature nodes of a (half-)cell [xa, xb] in x, as offsets dx from xa with their weights:
// 5-point Gauss-Legendre on pieces short enough that the density changes by < 30% across each
// (step: the least of mech.scale at the two ends); a cell under 1/50 of such a piece (the far tails
// of a narrow loss law: most cells, little mass) takes 3 points (exact to degree 5; relative error
// ~ 1e-5 (1/50)^6 ~ 1e-15 there).  node(dx, weight) is called in order; node_count says how many.
inline std::int64_t piece_count(double xa, double xb, double step) {
    return std::max<std::int64_t>(
        std::min<std::int64_t>(static_cast<std::int64_t>(std::ceil((xb - xa) / step)), 1 << 16), 1);
}
inline std::int64_t node_count(double xa, double xb, double step) {
    return xb - xa <= 0.02 * step ? 3 : 5 * piece_count(xa, xb, step);
}
template <class Node>
void for_each_node(double xa, double xb, double step, Node node) {
    if (xb - xa <= 0.02 * step) {
        const double half = 0.5 * (xb - xa);
        for (int k = 0; k < 3; ++k) node(half + half * gl3_nodes[k], half * gl3_weights[k]);
        return;
    }
    const std::int64_t pieces = piece_count(xa, xb, step);
    const double w = (xb - xa) / static_cast<double>(pieces);
    for (std::int64_t s = 0; s < pieces; ++s) {
        const double mid = (s + 0.5) * w;  // offset of the piece's centre from xa
        for (int k = 0; k < 5; ++k) node(mid + 0.5 * w * gl_nodes[k], 0.5 * w * gl_weights[k]);
    }
}

// A sum with its roundings kept (Knuth's two_sum): within about 2u of the exact sum of its (here
// non-negative) terms however many there are, where a plain sum of N terms is within (N - 1) u: a
// cell spanning hundreds of quadrature nodes (a loss that saturates across it) was ~36u off.
struct CompensatedSum {
    double sum = 0.0, error = 0.0;
    void add(double x) {
        const double_double t = two_sum(sum, x);
        sum = t.hi;
        error += t.lo;
    }
    double value() const { return sum + error; }
};

// The two integrals of one (half-)cell [xa, xb] in x whose lower loss end is l (for_each_node's rule).
template <class M>
std::pair<double, double> cell_integrals(const M& mech, double xa, double xb, double l, double offset,
                                         const CellGrid& grid) {
    const auto kernel = cell_kernel(mech, xa, l, offset, grid);
    CompensatedSum c, d;
    for_each_node(xa, xb, std::min(mech.scale(xa), mech.scale(xb)), [&](double dx, double weight) {
        const auto [fc, fd] = kernel(dx);
        c.add(weight * fc);
        d.add(weight * fd);
    });
    return {c.value(), d.value()};
}

// A mechanism's cell_nodes(x0, l, off, grid) (its kernel is one exp and one expm1 per node) also
// gives the kernel's per-cell values, with gauss (GaussianNodes: its density's exponent), expm1_argument(dx)
// and value(e, factor, m) -> the kernel's pair at x0 + dx from e = exp(argument) and factor (gauss's
// at dx), m = expm1(expm1_argument(dx)), and split (false: the kernel is not of that form in this cell).
// Their cells are then integrated a batch at a time (NodeBatch): every exponent of the batch
// (gaussian_exponents, four at a time where the CPU has AVX2), then every exp, then every
// expm1, each over the batch's array four at a time (simd/exp_arrays.hpp: within 1 and about 2 ulp,
// against libm's 0.5 and 1 in the cell-at-a-time path, so a node value moves by a few u relative;
// the connect-the-dots sides allow for cell_round_off (32u) of c + d (pld/grid/connect_dots.hpp:
// rounded_down_pmf, the tents); the exponent's argument is kept exact to first
// order (numerics/gaussian_exponent.hpp), so the far tails carry no |argument| u either), then the sums
// (compensated), each cell's in for_each_node's order.  Against 40-digit
// integrals at the core's own edges |dc| + |dd| is at most 13.8u of c + d
// (c alone 6.3u in the remove direction, 16u in the add direction, whose w is a few u off throughout a cell).

// A kernel's density exponent: at node dx, l - (v/s)^2 / 2 with v = (base + dx) + shift, as
// e^{argument} factor (numerics/gaussian_exponent.hpp, exact to first order; NodeBatch takes a batch's at once).
struct GaussianNodes {
    double base, shift, l;
    SplitScale scale;
};

// Mechanisms may also provide x_of_losses(l, x, count): x_of_loss of count <= edge_block losses, the
// same values, each libm function over the block in its own loop.
constexpr std::int64_t edge_block = 256;  // edges, then cells, handed to a thread at a time
template <class M, class = void>
struct has_x_of_losses : std::false_type {};
template <class M>
struct has_x_of_losses<M, std::void_t<decltype(std::declval<const M&>().x_of_losses(nullptr, nullptr, 0))>>
    : std::true_type {};

template <class Nodes>
class NodeBatch {
  public:
    static constexpr std::int64_t max_nodes = 1024, max_cells = 256;
    // Queues the cell [xa, xb] (its kernel k, step as for for_each_node), whose two integrals go to
    // *c and *d at the next flush; false (nothing queued) when it alone has more nodes than a batch.
    bool add(const Nodes& k, double xa, double xb, double step, double* c, double* d) {
        const std::int64_t count = node_count(xa, xb, step);
        if (count > max_nodes) return false;
        if (cells_ == max_cells || used_ + count > max_nodes) flush();
        kernel_[cells_] = k;
        c_[cells_] = c;
        d_[cells_] = d;
        shift_ = k.gauss.shift;  // one mechanism per batch: the same shift and s in every cell
        scale_ = k.gauss.scale;
        for_each_node(xa, xb, step, [&](double dx, double weight) {
            base_[used_] = k.gauss.base;
            l_[used_] = k.gauss.l;
            dx_[used_] = dx;
            weight_[used_++] = weight;
        });
        end_[cells_++] = used_;
        return true;
    }
    void flush() {
        hockeystick::detail::gaussian_exponents(base_, dx_, l_, shift_, scale_, e_, factor_, used_);
        hockeystick::detail::exp_in_place(e_, used_);
        for (std::int64_t i = 0, n = 0; i < cells_; ++i)
            for (; n < end_[i]; ++n) m_[n] = kernel_[i].expm1_argument(dx_[n]);
        hockeystick::detail::expm1_in_place(m_, used_);
        for (std::int64_t i = 0, n = 0; i < cells_; ++i) {
            CompensatedSum c, d;
            for (; n < end_[i]; ++n) {
                const auto [fc, fd] = kernel_[i].value(e_[n], factor_[n], m_[n]);
                c.add(weight_[n] * fc);
                d.add(weight_[n] * fd);
            }
            *c_[i] = c.value();
            *d_[i] = d.value();
        }
        cells_ = used_ = 0;
    }

  private:
    Nodes kernel_[max_cells];
    double* c_[max_cells];
    double* d_[max_cells];
    std::int64_t end_[max_cells];
    double base_[max_nodes], l_[max_nodes], dx_[max_nodes], weight_[max_nodes], factor_[max_nodes], e_[max_nodes],
        m_[max_nodes];
    double shift_ = 0.0;
    SplitScale scale_;
    std::int64_t cells_ = 0, used_ = 0;
};

// The two integrals of (half-)cells into *c, *d: queued in a NodeBatch where the mechanism has
// cell_nodes (written at the latest by flush()), else integrated at once by cell_integrals.
template <class M>
class CellIntegrator {
  public:
    explicit CellIntegrator(const M& mech) : mech_(mech) {}
    void operator()(double xa, double xb, double l, double offset, const CellGrid& grid, double* c, double* d) {
        if constexpr (has_cell_nodes<M>::value) {
            const auto k = mech_.cell_nodes(xa, l, offset, grid);
            if (k.split && batch_.add(k, xa, xb, std::min(mech_.scale(xa), mech_.scale(xb)), c, d)) return;
        }
        std::tie(*c, *d) = cell_integrals(mech_, xa, xb, l, offset, grid);
    }
    void flush() {
        if constexpr (has_cell_nodes<M>::value) batch_.flush();
    }

  private:
    struct no_batch {};
    template <class N, bool = has_cell_nodes<N>::value>
    struct batch_of {
        using type = no_batch;
    };
    template <class N>
    struct batch_of<N, true> {
        using type = NodeBatch<decltype(std::declval<const N&>().cell_nodes(0.0, 0.0, 0.0, CellGrid{}))>;
    };
    const M& mech_;
    typename batch_of<M>::type batch_;
};

// The cell loops below form an OpenMP team only from this many cells: the bindings' break-even
// (cpp/bindings/loops.hpp's parallel_work, 2^18 evaluations at two a cell; ~24 ms of cells), since
// below it the team's idle threads would burn more CPU spinning after the loops than their wall time
// saves.  A caller that grants one thread (OpenMP's nthreads-var) keeps every loop on it anyway.
constexpr std::int64_t kLeastParallelCells = std::int64_t{1} << 17;

// Cells::edge_error of the edges (edge[j] = x at loss l_j clamped to [x_lo, x_hi]): the largest
// mech.edge_loss_error over the edges that start a cell (those clamped to x_hi end one only; a
// cell starting at x_lo takes its loss there as computed, l_lo, through its offset), plus the
// rounding of l_j = fl(k h) (u |l_j|) and of the offset (u h).  Refused when it reaches h / 4: the
// edges are then not known to be in order (L(x^_{j+1}) > L(x^_j) needs edge_error < h / 2), nor
// each half-cell's split point to lie between its cell's ends.
template <class M>
double edge_error_bound(const M& mech, const std::vector<double>& edge, std::int64_t k_lo, double h, double x_lo,
                        double l_lo, double x_hi) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    const std::int64_t n = static_cast<std::int64_t>(edge.size()) - 1;
    double worst = mech.edge_loss_error(&l_lo, &x_lo, 1), l_max = std::fabs(l_lo);
#pragma omp parallel for schedule(static) reduction(max : worst, l_max) if (n >= kLeastParallelCells)
    for (std::int64_t first = 1; first < n; first += edge_block) {
        double l[edge_block], x[edge_block];
        std::int64_t kept = 0;
        for (std::int64_t i = first; i < std::min(first + edge_block, n); ++i) {
            if (!(edge[i] > x_lo && edge[i] < x_hi)) continue;
            l[kept] = (k_lo + i) * h;
            x[kept] = edge[i];
            l_max = std::max(l_max, std::fabs(l[kept++]));
        }
        if (kept > 0) worst = std::max(worst, mech.edge_loss_error(l, x, kept));
    }
    const double bound = (worst + u * (l_max + h)) * (1.0 + 4.0 * u);
    if (!(bound < 0.25 * h))
        throw std::invalid_argument(
            "value_discretization_interval is too fine for this mechanism: its cell edges "
            "are placed in loss only to within " +
            std::to_string(bound) +
            " (double rounding), which must stay below a quarter of the spacing; use a "
            "coarser value_discretization_interval");
    return bound;
}

// continuous_cells' halves: each cell carrying mass (c + d >= 1e-6 of the largest) integrated as its two halves
// (Cells::c_lo .. d_hi; -1 elsewhere), from the same edges and with the same offsets as its own integral.
template <class M>
void half_cells(const M& mech, const std::vector<double>& edge, double x_lo, double l_lo, Cells& cells) {
    const std::int64_t n = static_cast<std::int64_t>(cells.c.size());
    const double h = cells.h;
    constexpr std::int64_t block = edge_block;
    // L(x) - l at the start x of a half-cell of lower end l: zero except where x_lo lies inside it.
    auto offset = [&](double x, double l) { return x == x_lo ? std::max(l_lo - l, 0.0) : 0.0; };
    double heaviest = 0.0;
    for (std::int64_t j = 0; j < n; ++j) heaviest = std::max(heaviest, cells.c[j] + cells.d[j]);
    const double light = 1e-6 * heaviest;
    cells.c_lo.assign(n, -1.0);
    cells.d_lo.assign(n, -1.0);
    cells.c_hi.assign(n, -1.0);
    cells.d_hi.assign(n, -1.0);
    const double a = 0.5 * h;  // exact
    const CellGrid half{a, std::expm1(a), std::exp(a)};
#pragma omp parallel for schedule(dynamic, 1) if (n >= kLeastParallelCells)
    for (std::int64_t first = 0; first < n; first += block) {
        CellIntegrator<M> integrate(mech);
        for (std::int64_t j = first; j < std::min(first + block, n); ++j) {
            if (!(cells.c[j] + cells.d[j] >= light && cells.c[j] + cells.d[j] > 0.0)) continue;
            const double l_j = (cells.k_lo + j) * h, l_s = l_j + a;
            const double xa = edge[j], xb = edge[j + 1];
            const double xs = std::min(xb, std::max(xa, mech.x_of_loss(l_s)));
            // The upper half starts at xs taken as loss l_s: within edge_error too (a priori bounds
            // cover every loss of the grid's range; an a posteriori one is checked here).
            if (xs > xa && xs < xb && !(mech.edge_loss_error(&l_s, &xs, 1) <= cells.edge_error)) continue;
            cells.c_lo[j] = cells.d_lo[j] = cells.c_hi[j] = cells.d_hi[j] = 0.0;
            if (xs > xa) integrate(xa, xs, l_j, offset(xa, l_j), half, &cells.c_lo[j], &cells.d_lo[j]);
            if (xb > xs) integrate(xs, xb, l_s, offset(xs, l_s), half, &cells.c_hi[j], &cells.d_hi[j]);
        }
        integrate.flush();
    }
}

// With halves = true the cells that carry mass (c + d >= 1e-6 of the largest) are integrated as
// their two halves too (Cells::c_lo .. d_hi; -1 elsewhere: a light cell's gap matters little and
// its tent bounds it).  The cell's own numbers stay those of its own integral (so both sides
// see the same cells with or without halves); those of the halves give them again as
//   c_j = c_lo + (1 + 1/E) c_hi + d_hi / E,   d_j = d_hi + (1 + E) d_lo + E c_lo   (E = e^{h/2})
// (split E_P[(1 - e^{l_j - L}); cell] and E_P[(e^{l_{j+1} - L} - 1); cell] at l_j + h/2 and use
// P(half) = (E c + d) / (E - 1) for each half), and the optimistic side charges the difference.
template <class M>
Cells continuous_cells(const M& mech, double x_lo, double x_hi, double tail_lo, double tail_hi, double h,
                       std::int64_t max_cells, bool halves = false) {
    Cells cells;
    cells.h = h;
    const double l_lo = mech.loss(x_lo), l_hi = mech.loss(x_hi);
    const std::int64_t n = checked_cell_count(l_lo, l_hi, h, max_cells, cells.k_lo);
    cells.c.assign(n, 0.0);
    cells.d.assign(n, 0.0);
    cells.tail_lo = tail_lo;
    cells.tail_hi = tail_hi;
    const CellGrid grid{h, std::expm1(h), std::exp(h)};
    std::vector<double> edge(n + 1);  // edge[j] = x at loss l_j, clamped to [x_lo, x_hi]
    edge[0] = x_lo;
    edge[n] = x_hi;
    constexpr std::int64_t block = edge_block;
#pragma omp parallel for schedule(static) if (n >= kLeastParallelCells)
    for (std::int64_t first = 1; first < n; first += block) {
        const std::int64_t count = std::min(block, n - first);
        double* x = &edge[first];
        if constexpr (has_x_of_losses<M>::value) {
            double l[block];
            for (std::int64_t i = 0; i < count; ++i) l[i] = (cells.k_lo + first + i) * h;
            mech.x_of_losses(l, x, count);
        } else {
            for (std::int64_t i = 0; i < count; ++i) x[i] = mech.x_of_loss((cells.k_lo + first + i) * h);
        }
        for (std::int64_t i = 0; i < count; ++i) x[i] = std::min(x_hi, std::max(x_lo, x[i]));
    }
    cells.edge_error = edge_error_bound(mech, edge, cells.k_lo, h, x_lo, l_lo, x_hi);
    // L(x) - l at the start x of a (half-)cell of lower end l: zero except where x_lo lies inside it.
    auto offset = [&](double x, double l) { return x == x_lo ? std::max(l_lo - l, 0.0) : 0.0; };
#pragma omp parallel for schedule(dynamic, 1) if (n >= kLeastParallelCells)
    for (std::int64_t first = 0; first < n; first += block) {
        CellIntegrator<M> integrate(mech);
        for (std::int64_t j = first; j < std::min(first + block, n); ++j) {
            const double l_j = (cells.k_lo + j) * h;
            const double xa = edge[j], xb = edge[j + 1];
            if (xb > xa) integrate(xa, xb, l_j, offset(xa, l_j), grid, &cells.c[j], &cells.d[j]);
        }
        integrate.flush();
    }
    if (halves) half_cells(mech, edge, x_lo, l_lo, cells);
    return cells;
}

// P = (1-q) N(0, s^2) + q N(1, s^2), Q = N(0, s^2): the remove direction of the
// Poisson-subsampled Gaussian (q = 1: the Gaussian mechanism, sensitivity 1,
// noise s).  L(x) = log(1 - q + q e^{t}), t = (x - 1/2)/s^2.
struct mixture_vs_gaussian {
    double s, q;
    double log_q = std::log(q);  // x_of_loss needs it once per cell edge: computed once
    SplitScale split_s{s};       // the kernels' exponent (numerics/gaussian_exponent.hpp)
    double t(double x) const { return (x - 0.5) / (s * s); }
    double loss(double x) const {
        const double v = t(x);
        if (q == 1.0) return v;
        return v < 0.0 ? std::log1p(q * std::expm1(v)) : v + std::log(q + (1.0 - q) * std::exp(-v));
    }
    // t = log(1 + (e^l - 1)/q): below 0 as log1p(expm1(l)/q) (-inf at and below l = log(1 - q));
    // above 0 as l - log q + log1p(-(1 - q) e^{-l}), which stays finite where e^l overflows
    // (little noise: the grid reaches losses far above 709).
    // In three steps (x_of_losses runs each over a block): u = e^{-l} above 0, else e^l - 1; the
    // argument of log1p from u (0 where x is -inf: never NaN); x from l, u and the logarithm.
    static double edge_power(double l) { return l > 0.0 ? std::exp(-l) : std::expm1(l); }
    double edge_log1p_argument(double l, double u) const {
        if (l > 0.0) return -(1.0 - q) * u;
        const double z = u / q;  // e^t - 1
        return z > -1.0 ? z : 0.0;
    }
    double edge_x(double l, double u, double log1p_value) const {
        if (l > 0.0) return 0.5 + s * s * (l - log_q + log1p_value);
        if (!(u / q > -1.0)) return -std::numeric_limits<double>::infinity();
        return 0.5 + s * s * log1p_value;
    }
    double x_of_loss(double l) const {
        if (q == 1.0) return 0.5 + s * s * l;
        const double u = edge_power(l);
        return edge_x(l, u, std::log1p(edge_log1p_argument(l, u)));
    }
    void x_of_losses(const double* l, double* x, std::int64_t count) const {
        if (q == 1.0) {
            for (std::int64_t i = 0; i < count; ++i) x[i] = x_of_loss(l[i]);
            return;
        }
        double u[edge_block];
        for (std::int64_t i = 0; i < count; ++i) u[i] = edge_power(l[i]);
        for (std::int64_t i = 0; i < count; ++i) x[i] = std::log1p(edge_log1p_argument(l[i], u[i]));
        for (std::int64_t i = 0; i < count; ++i) x[i] = edge_x(l[i], u[i], x[i]);
    }
    // A bound on |L(x_i) - l_i| for edges x_i = x_of_loss(l_i) (and for x_lo with l_i = loss(x_lo)),
    // both as computed.  With t = (x - 1/2)/s^2 and the loss's slope dL/dt = w <= 1: the rounding of
    // t and of x = 1/2 + s^2 t (2u |t| + u |x| / s^2 in loss), of l - log q + log1p(.) (2u (|l| +
    // |log q| + |t|)), of l itself (u |l|), the relative 3u of log1p's argument, which the slope turns
    // into 3u |argument| <= 3u above l = 0 and 3u R below it, R = e^{-L} - 1 = -y / (1 + y),
    // y = q expm1(t), greatest at the least t (up to q / (1 - q): near the loss's floor log(1 - q) the
    // grid is placed only that well), and u for each of log, log1p, exp, expm1.  Bounded by
    // 16u (2 + max|l| + max|t| + max|x| / s^2 + |log q| + R), about four times that sum of terms.
    double edge_loss_error(const double* l, const double* x, std::int64_t count) const {
        double l_max = 0.0, x_max = 0.0, x_min = std::numeric_limits<double>::infinity();
        for (std::int64_t i = 0; i < count; ++i) {
            l_max = std::max(l_max, std::fabs(l[i]));
            x_max = std::max(x_max, std::fabs(x[i]));
            x_min = std::min(x_min, x[i]);
        }
        const double s2 = s * s;
        double r = 0.0;
        if (q < 1.0 && count > 0 && t(x_min) < 0.0) {
            const double y = q * std::expm1(t(x_min));
            r = -y / (1.0 + y);
        }
        return 8.0 * std::numeric_limits<double>::epsilon() *
               (2.0 + l_max + (x_max + 0.5) / s2 + x_max / s2 + std::fabs(log_q) + r);
    }
    // q e^t / (1 - q + q e^t): the weight of the shifted component at x.
    double shifted_weight(double x) const {
        const double v = t(x);
        if (q == 1.0) return 1.0;
        return v >= 0.0 ? q / (q + (1.0 - q) * std::exp(-v)) : q * std::exp(v) / (1.0 - q + q * std::exp(v));
    }
    // Its logarithm, finite where the weight itself underflows (t far below 0: little noise).
    double log_shifted_weight(double x) const {
        const double v = t(x);
        if (q == 1.0) return 0.0;
        return v >= 0.0 ? -std::log1p((1.0 - q) / q * std::exp(-v)) : std::log(q) + v - std::log1p(q * std::expm1(v));
    }
    // The density is phi(x/s)/s e^{L(x)} and e^{L(x0 + dx) - L(x0)} = 1 + w expm1(dx/s^2), so with
    // L(x0) = l + off both integrands are phi(x/s)/s e^l times e^u - 1 and e^h - e^u (u = L - l),
    // where e^u - 1 = expm1(off) + e^off w expm1(dx/s^2) >= 0: no logarithm, no difference of
    // nearly equal terms, and phi(x/s) e^l is one exponential (x^2 formed exactly).
    // With little noise the first cell spans many s^2 in x: where w underflows (t(x0) < -745),
    // w expm1(dx/s^2) would be 0 * inf; such a cell forms it as e^{log w + a} (1 - e^{-a}) for
    // a = dx/s^2 > 0 (both factors accurate, no overflow: the product is <= e^{h - off} - 1).
    struct Nodes {
        double x0, l, w, s2, inv_s, log_w, grow, base, top;
        GaussianNodes gauss;  // phi(x/s) e^l = e^{argument} factor / sqrt(2 pi) at x = x0 + dx
        bool tiny, split;
        double expm1_argument(double dx) const { return dx / s2; }
        // e = exp(argument); rise = w expm1(dx / s^2), or its tiny-w form.
        std::pair<double, double> value_of_rise(double e, double factor, double rise) const {
            const double f = constants::inv_sqrt_two_pi * inv_s * e * factor;
            const double eu = std::min(std::max(base + grow * rise, 0.0), top);
            return {f * eu, f * (top - eu)};
        }
        std::pair<double, double> value(double e, double factor, double m) const {
            return value_of_rise(e, factor, w * m);
        }
        std::pair<double, double> operator()(double dx) const {
            const double a = dx / s2;
            const ExponentTerms x = gaussian_exponent(gauss.base, dx, gauss.shift, gauss.l, gauss.scale);
            return value_of_rise(std::exp(x.argument), x.factor,
                                 tiny && a > 0.0 ? std::exp(log_w + a) * -std::expm1(-a) : w * std::expm1(a));
        }
    };
    Nodes cell_nodes(double x0, double l, double off, const CellGrid& g) const {
        const double w = shifted_weight(x0);
        const bool tiny = w < 1e-250;
        return Nodes{x0,
                     l,
                     w,
                     s * s,
                     1.0 / s,
                     tiny ? log_shifted_weight(x0) : 0.0,
                     off == 0.0 ? 1.0 : std::exp(off),
                     off == 0.0 ? 0.0 : std::expm1(off),
                     g.expm1_h,
                     GaussianNodes{x0, 0.0, l, split_s},
                     tiny,
                     !tiny};
    }
    double density(double x) const {
        const double a = q == 1.0 ? 0.0 : (1.0 - q) * gaussian_density(x / s);
        return (a + q * gaussian_density((x - 1.0) / s)) / s;
    }
    double scale(double x) const {
        const double z = std::max({1.0, std::fabs(x / s), std::fabs((x - 1.0) / s)});
        return 0.25 * s / z;
    }
    double mass_below(double x) const {
        return (q == 1.0 ? 0.0 : (1.0 - q) * gaussian_tail(-x / s)) + q * gaussian_tail((1.0 - x) / s);
    }
    double mass_above(double x) const {
        return (q == 1.0 ? 0.0 : (1.0 - q) * gaussian_tail(x / s)) + q * gaussian_tail((x - 1.0) / s);
    }
};

// P = N(0, s^2) seen through x -> 1 - x, Q = (1-q) N(0, s^2) + q N(1, s^2) likewise:
// the add direction of the Poisson-subsampled Gaussian.  With y = 1 - x,
// L(y) = -log(1 - q + q e^{(1/2 - y)/s^2}), increasing in y; P is N(1, s^2) in y.
struct gaussian_vs_mixture {
    mixture_vs_gaussian m;  // evaluated at x = 1 - y
    double loss(double y) const { return -m.loss(1.0 - y); }
    double x_of_loss(double l) const { return 1.0 - m.x_of_loss(-l); }
    void x_of_losses(const double* l, double* x, std::int64_t count) const {
        double minus_l[edge_block];
        for (std::int64_t i = 0; i < count; ++i) minus_l[i] = -l[i];
        m.x_of_losses(minus_l, x, count);
        for (std::int64_t i = 0; i < count; ++i) x[i] = 1.0 - x[i];
    }
    // The remove direction's bound at (-l, 1 - y), plus the rounding of y = 1 - x (u |y| in x, at
    // most u |y| / s^2 in loss), with room: 4u (1 + |y|) / s^2.
    double edge_loss_error(const double* l, const double* y, std::int64_t count) const {
        double minus_l[edge_block], x[edge_block], y_max = 0.0, worst = 0.0;
        for (std::int64_t first = 0; first < count; first += edge_block) {
            const std::int64_t k = std::min(edge_block, count - first);
            for (std::int64_t i = 0; i < k; ++i) {
                minus_l[i] = -l[first + i];
                x[i] = 1.0 - y[first + i];
                y_max = std::max(y_max, std::fabs(y[first + i]));
            }
            worst = std::max(worst, m.edge_loss_error(minus_l, x, k));
        }
        return worst + 2.0 * std::numeric_limits<double>::epsilon() * (1.0 + y_max) / (m.s * m.s);
    }
    // e^{-L(y0 + dy) + L(y0)} = 1 + w expm1(-dy/s^2) = 1 + F, F in (-w, 0], so with L(y0) = l + off
    // 1 - e^{-u} = -expm1(-off) - e^{-off} F >= 0 and e^{h-u} - 1 = expm1(h) - e^h (1 - e^{-u}).
    struct Nodes {
        double y0, w, s2, inv_s, shrink, base, top, expm1_h, exp_h;
        GaussianNodes gauss;  // phi(x) = e^{argument} factor / sqrt(2 pi) at x = ((y0 + dy) - 1) / s
        bool split;
        double expm1_argument(double dy) const { return -dy / s2; }
        // e = exp(argument), m = expm1(-dy/s^2); f = inv_s phi((y - 1)/s) as gaussian_density forms it.
        std::pair<double, double> value(double e, double factor, double m) const {
            const double f = inv_s * (constants::inv_sqrt_two_pi * (e * factor));
            const double cu = std::min(std::max(base - shrink * w * m, 0.0), top);
            return {f * cu, f * std::max(expm1_h - exp_h * cu, 0.0)};
        }
        std::pair<double, double> operator()(double dy) const {
            const ExponentTerms x = gaussian_exponent(gauss.base, dy, gauss.shift, gauss.l, gauss.scale);
            return value(std::exp(x.argument), x.factor, std::expm1(expm1_argument(dy)));
        }
    };
    Nodes cell_nodes(double y0, double, double off, const CellGrid& g) const {
        return Nodes{y0,
                     m.shifted_weight(1.0 - y0),
                     m.s * m.s,
                     1.0 / m.s,
                     off == 0.0 ? 1.0 : std::exp(-off),
                     off == 0.0 ? 0.0 : -std::expm1(-off),
                     -std::expm1(-g.h),
                     g.expm1_h,
                     g.exp_h,
                     GaussianNodes{y0, -1.0, 0.0, m.split_s},
                     true};
    }
    double density(double y) const { return gaussian_density((y - 1.0) / m.s) / m.s; }
    double scale(double y) const { return 0.25 * m.s / std::max(1.0, std::fabs((y - 1.0) / m.s)); }
    double mass_below(double y) const { return gaussian_tail((1.0 - y) / m.s); }
    double mass_above(double y) const { return gaussian_tail((y - 1.0) / m.s); }
};

}  // namespace detail

// Width in loss of the remove-direction grid of subsampled_gaussian_cells (the add direction's
// is no wider): a cheap estimate of the work, cells ~ width / h, made before discretizing.
inline double subsampled_gaussian_loss_width(double sigma, double q, double tail) {
    const double z = gaussian_tail_inverse(0.5 * tail);
    const detail::mixture_vs_gaussian mg{sigma, q};
    return mg.loss(1.0 + z * sigma) - mg.loss(-z * sigma);
}

// The remove direction's P-mass above its integration range x_hi = 1 + z sigma, z = Q^{-1}(tail / 2)
// (subsampled_gaussian_cells): q Q(z) + (1 - q) Q(z + 1 / sigma), what its pessimistic PMF puts at +infinity.
inline double subsampled_gaussian_mass_above(double sigma, double q, double tail) {
    return detail::mixture_vs_gaussian{sigma, q}.mass_above(1.0 + gaussian_tail_inverse(0.5 * tail) * sigma);
}

// The Poisson-subsampled Gaussian mechanism, sensitivity 1, noise sigma, rate q
// (q = 1: the plain Gaussian mechanism).  remove = true: P = (1-q)N(0) + qN(1),
// Q = N(0); remove = false (add): P = N(0), Q = (1-q)N(0) + qN(1).
// Each tail beyond the integration range has P-mass <= tail/2.
// halves: also integrate the half-cells (Cells::c_lo .. d_hi), which the optimistic side uses to
// bound the chord's gap inside each cell (twice the integration work; the pessimistic side
// alone does not need them).
inline Cells subsampled_gaussian_cells(double sigma, double q, bool remove, double h, double tail,
                                       std::int64_t max_cells, bool halves = true) {
    if (!(sigma > 0.0) || !std::isfinite(sigma)) throw std::invalid_argument("sigma must be positive and finite");
    if (!(q > 0.0 && q <= 1.0)) throw std::invalid_argument("sampling_rate must lie in (0, 1]");
    if (!(tail > 0.0 && tail < 1.0)) throw std::invalid_argument("tail must lie in (0, 1)");
    const double z = gaussian_tail_inverse(0.5 * tail);
    const detail::mixture_vs_gaussian mg{sigma, q};
    if (remove) {
        const double x_lo = -z * sigma, x_hi = 1.0 + z * sigma;
        return detail::continuous_cells(mg, x_lo, x_hi, mg.mass_below(x_lo),
                                        subsampled_gaussian_mass_above(sigma, q, tail), h, max_cells, halves);
    }
    const detail::gaussian_vs_mixture gm{mg};
    const double y_lo = 1.0 - z * sigma, y_hi = 1.0 + z * sigma;
    return detail::continuous_cells(gm, y_lo, y_hi, gm.mass_below(y_lo), gm.mass_above(y_hi), h, max_cells, halves);
}

// Laplace mechanism, P = Lap(distance, scale), Q = Lap(0, scale), a = distance/scale:
// atoms of P-mass 1/2 at L = a and e^{-a}/2 at L = -a, density e^{(l-a)/2}/4 between.
// The density part is integrated in closed form:
//   int_{u0}^{u1} (1 - e^{-u}) e^{u/2} du       = 8 sinh(m/2) sinh(w/2)
//   int_{u0}^{u1} (e^{h-u} - 1) e^{u/2} du      = 8 e^{h/2} sinh(w/2) sinh((h-m)/2)
// with m = (u0+u1)/2, w = (u1-u0)/2, u = l - l_j.
inline Cells laplace_cells(double distance, double scale, double h, std::int64_t max_cells) {
    if (!(distance > 0.0) || !std::isfinite(distance))
        throw std::invalid_argument("distance must be positive and finite");
    if (!(scale > 0.0) || !std::isfinite(scale)) throw std::invalid_argument("scale must be positive and finite");
    const double a = distance / scale;
    Cells cells;
    cells.h = h;
    const std::int64_t n = detail::checked_cell_count(-a - h, a, h, max_cells, cells.k_lo);
    cells.c.assign(n, 0.0);
    cells.d.assign(n, 0.0);
    for (std::int64_t j = 0; j < n; ++j) {
        const double l_j = (cells.k_lo + j) * h;
        const double u0 = std::max(-a - l_j, 0.0), u1 = std::min(a - l_j, h);
        if (!(u1 > u0)) continue;
        const double m = 0.5 * (u0 + u1), w = 0.5 * (u1 - u0);
        const double base = 0.25 * std::exp(0.5 * (l_j - a));
        cells.c[j] = base * 8.0 * std::sinh(0.5 * m) * std::sinh(0.5 * w);
        cells.d[j] = base * 8.0 * std::exp(0.5 * h) * std::sinh(0.5 * w) * std::sinh(0.5 * (h - m));
    }
    // The cells' ends are l_j = fl(k h) and a = fl(distance / scale) (u / 2 of |l_j| and of a each,
    // u of each of u0 and u1): a loss error of at most u (|l| + a + h), charged as the cells' edge
    // error with room (the closed forms' own rounding is cell_round_off's: pld/grid/connect_dots.hpp).
    cells.edge_error = 4.0 * std::numeric_limits<double>::epsilon() *
                       (4.0 + a + h + std::max(std::fabs(cells.k_lo * h), std::fabs((cells.k_lo + n) * h)));
    add_atom(cells, a, 0.5);
    add_atom(cells, -a, 0.5 * std::exp(-a));
    return cells;
}

// A PLD from a list of losses with their P-masses (loss +inf allowed: P-only
// outcomes; loss -inf outcomes contribute nothing and may be omitted).
inline Cells atom_cells(const double* loss, const double* mass, std::int64_t count, double h, std::int64_t max_cells) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (std::int64_t i = 0; i < count; ++i) {
        if (!(mass[i] >= 0.0)) throw std::invalid_argument("masses must be non-negative");
        if (std::isfinite(loss[i]) && mass[i] > 0.0) {
            lo = std::min(lo, loss[i]);
            hi = std::max(hi, loss[i]);
        }
    }
    Cells cells;
    cells.h = h;
    if (!(lo <= hi)) lo = hi = 0.0;
    const std::int64_t n = detail::checked_cell_count(lo - h, hi, h, max_cells, cells.k_lo);
    cells.c.assign(n, 0.0);
    cells.d.assign(n, 0.0);
    for (std::int64_t i = 0; i < count; ++i) {
        if (mass[i] == 0.0) continue;
        if (loss[i] == std::numeric_limits<double>::infinity())
            cells.tail_hi += mass[i];
        else if (std::isfinite(loss[i]))
            add_atom(cells, loss[i], mass[i]);
    }
    return cells;
}

}  // namespace pld
}  // namespace hockeystick
