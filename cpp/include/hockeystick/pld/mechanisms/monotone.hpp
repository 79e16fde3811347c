// The PLD of a pair of real-valued laws whose likelihood ratio is monotone, one atom per loss cell, both
// certified sides (the Python package's pld.mechanisms.monotone, whose module docstring has the proofs).
//
// For a pair (P, Q) on the line whose loss L(x) = log dP/dQ (x) is non-decreasing, the grid l_k = k h cuts
// [x_lo, x_hi] at x_k = L^{-1}(l_k) into cells on which l_k <= L <= l_{k+1}.  Merging each cell into one outcome
// is a post-processing (data processing: the merged pair is dominated by (P, Q)) with the same hockey-stick value
// at every grid point, so the connect-the-dots PMFs of those atoms (pld/grid/connect_dots.hpp) bound (P, Q)'s from
// above (pessimistic) and from below (optimistic) under composition (Doroshenko, Ghazi, Kamath, Kumar,
// Manurangsi, PETS 2022, Sec. 3; Blackwell).
//
// Cuts.  x_k is the pair's closed-form inverse where L there is within kLossTolerance of l_k, else a safeguarded
// Newton search from a bracket on a coarse grid of x (every step keeps L(lo) < l_k <= L(hi); a step leaving the
// bracket is replaced by the midpoint).  Only the cut's loss matters, not its place in x.
//
// Tails.  An open-ended pair's laws put mass beyond [x_lo, x_hi] that no atom holds (a cut tail): the pessimistic
// sides send it, from the laws' tails and rounded up by kMonotoneOutsideMargin, to +infinity (a dominating move; the
// atoms' sum cannot show a deficit below the doubles' resolution at 1), the optimistic sides drop it.
//
// Round-off.  Each cell's loss log P_k - log Q_k errs by at most 4u (|log P_k| + |log Q_k|) + 32u (each log within
// 2u (|log| + 8), the difference within u), charged as the PMFs' loss shift over the largest |log| of the masses;
// clamped into its cell it moves toward the true loss.  The cell masses are differences of tail-directed
// distribution functions, a relative error of about u / (x dx) <= 1e-12 here, so the pessimistic PMF's masses are
// multiplied by 1 + kRoundoffCharge and the optimistic PMF's by 1 - kRoundoffCharge (1e-10, a hundred times that
// error): every delta(eps) moves the safe way, also after composition (linear in each factor's masses).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "hockeystick/pld/grid/cells.hpp"
#include "hockeystick/pld/grid/connect_dots.hpp"
#include "hockeystick/pld/grid/grid_pmf.hpp"
#include "hockeystick/pld/grid/pmf_view.hpp"

namespace hockeystick {
namespace pld {

// An outcome the monotone part leaves out (a flat part of L): its loss, P-mass and Q-mass.
struct MonotoneAtom {
    double loss = 0.0, p = 0.0, q = 0.0;
};

// The P-mass and the Q-mass of one interval of x (a Pair's masses(a, b)).
struct MonotoneMasses {
    double p = 0.0, q = 0.0;
};

// Per merged cell (then per extra atom) its loss, P-mass and Q-mass.
struct MonotoneAtoms {
    std::vector<double> loss, p, q;
};

// One direction's two PMFs: pessimistic and optimistic, each with the loss shift charged.
struct MonotoneSide {
    GridPMF upper, lower;
};

// The pair's remove direction (P, Q) and its add direction (Q, P), whose loss is -L.
struct MonotoneSides {
    MonotoneSide remove, add;
};

namespace detail {

constexpr double kMonotoneLossTolerance = 1e-13;
constexpr std::int64_t kMonotoneCoarsePoints = 4097;
constexpr int kMonotoneNewtonSteps = 100;
constexpr double kMonotoneRoundoffCharge = 1e-10;
constexpr double kMonotoneOutsideMargin = 1e-12;  // a cut tail's relative error (a few ulp of each tail, the sum)

// min(max(v, lo), hi), a NaN v (or bound) propagated, as numpy's clip.
inline double clipped(double v, double lo, double hi) {
    const double above = std::isnan(v) ? v : (v > lo ? v : lo);
    return std::isnan(above) ? above : (above < hi ? above : hi);
}

// Whether a loss is within round-off of the target (the cut's place in x does not matter beyond that).
inline bool loss_converged(double loss, double target) {
    return std::fabs(loss - target) <= kMonotoneLossTolerance * std::max(std::fabs(target), 1.0);
}

// A cut x and L(x) as the search evaluated it there (NaN where the search stopped at an x it did not evaluate):
// the cells' loop reads it instead of evaluating L(x) again, the same double.
struct MonotoneCut {
    double x, loss;
};

// L on kMonotoneCoarsePoints evenly spaced points of [x_lo, x_hi] (the last exactly x_hi): the Newton search's
// brackets.
struct CoarseLosses {
    std::vector<double> x, loss;
};

template <class Pair>
CoarseLosses coarse_losses(const Pair& pair) {
    CoarseLosses g;
    const std::int64_t n = kMonotoneCoarsePoints;
    const double step = (pair.x_hi() - pair.x_lo()) / static_cast<double>(n - 1);
    g.x.resize(n);
    g.loss.resize(n);
    for (std::int64_t i = 0; i < n; ++i) g.x[i] = static_cast<double>(i) * step + pair.x_lo();
    g.x[n - 1] = pair.x_hi();
    for (std::int64_t i = 0; i < n; ++i) g.loss[i] = pair.loss(g.x[i]);
    return g;
}

// x with L(x) = target by safeguarded Newton from the coarse grid's bracket (the opening comment).
template <class Pair>
MonotoneCut newton_cut(const Pair& pair, const CoarseLosses& g, double target) {
    const std::int64_t n = static_cast<std::int64_t>(g.x.size());
    std::int64_t j = std::lower_bound(g.loss.begin(), g.loss.end(), target) - g.loss.begin();
    j = std::min<std::int64_t>(std::max<std::int64_t>(j, 1), n - 1);
    double lo = g.x[j - 1], hi = g.x[j];
    const double f_lo = g.loss[j - 1], f_hi = g.loss[j];
    double x = lo + (hi - lo) * clipped((target - f_lo) / (f_hi > f_lo ? f_hi - f_lo : 1.0), 0.0, 1.0);
    for (int step = 0; step < kMonotoneNewtonSteps; ++step) {
        const double loss = pair.loss(x);
        const double f = loss - target;
        bool done = std::fabs(f) <= kMonotoneLossTolerance * std::max(std::fabs(target), 1.0);
        if (f < 0.0)
            lo = x;
        else
            hi = x;
        const double slope = pair.slope(x);
        double next = x - (slope > 0.0 ? f / slope : std::numeric_limits<double>::infinity());
        if (!(next >= lo && next <= hi)) next = 0.5 * (lo + hi);
        done = done || hi - lo <= 4.0 * std::numeric_limits<double>::epsilon() * std::max(std::fabs(x), 1.0);
        if (done) return {x, loss};
        x = next;
    }
    return {x, std::numeric_limits<double>::quiet_NaN()};
}

// The cut at loss `target`: the closed-form inverse (where the pair has one and `closed_form`) if L there is within
// round-off of the target, else newton_cut (the coarse grid built on first need).
template <class Pair>
MonotoneCut cut_at(const Pair& pair, double target, bool closed_form, std::vector<CoarseLosses>& coarse) {
    if (closed_form && pair.has_inverse()) {
        const double x = clipped(pair.inverse(target), pair.x_lo(), pair.x_hi());
        if (std::isfinite(x)) {
            const double loss = pair.loss(x);
            if (loss_converged(loss, target)) return {x, loss};
        }
    }
    if (coarse.empty()) coarse.push_back(coarse_losses(pair));
    return newton_cut(pair, coarse.front(), target);
}

inline std::string loss_range_refusal(double l_lo, double l_hi, double cells, double h, std::int64_t max_cells) {
    char text[400];
    std::snprintf(text, sizeof text,
                  "the loss range [%.4g, %.4g] needs %.4g cells of width %g (more than %lld): use a coarser "
                  "value_discretization_interval, or more noise (a larger scale or sigma, or a smaller sensitivity)",
                  l_lo, l_hi, cells, h, static_cast<long long>(max_cells));
    return text;
}

// max |log m| over the masses m[i] with both masses[i] > 0 (at the smallest or the largest), or -1 where none.
inline double largest_abs_log(const std::vector<double>& m, const MonotoneAtoms& a) {
    double lo = std::numeric_limits<double>::infinity(), hi = 0.0;
    bool any = false;
    for (std::size_t i = 0; i < m.size(); ++i)
        if (a.p[i] > 0.0 && a.q[i] > 0.0) {
            lo = std::min(lo, m[i]);
            hi = std::max(hi, m[i]);
            any = true;
        }
    return any ? std::max(std::fabs(std::log(lo)), std::fabs(std::log(hi))) : -1.0;
}

// Both PMFs of the atoms (loss[i], mass[i]) with mass > 0, the round-off charges of the opening comment applied and
// the loss shift `shift` charged with the atoms' own (snapped to grid points), rounded up; `outside`: the mass the
// atoms leave out, at +infinity on the pessimistic side.
inline MonotoneSide side_from_atoms(const std::vector<double>& loss, const std::vector<double>& mass, double h,
                                    double shift, std::int64_t max_cells, double outside) {
    std::vector<double> l, w;
    l.reserve(loss.size());
    w.reserve(loss.size());
    for (std::size_t i = 0; i < loss.size(); ++i)
        if (mass[i] > 0.0) {
            l.push_back(loss[i]);
            w.push_back(mass[i]);
        }
    const Cells cells = atom_cells(l.data(), w.data(), static_cast<std::int64_t>(l.size()), h, max_cells);
    MonotoneSide side{pessimistic_pmf(cells), optimistic_pmf(cells)};
    const double upper_inf = factor_view(side.upper, true).p_inf;  // a round-off deficit of the mass at +infinity
    const double cells_shift = std::max(side.upper.loss_shift, side.lower.loss_shift);
    const double loss_shift =
        cells_shift > 0.0 ? std::nextafter(shift + cells_shift, std::numeric_limits<double>::infinity()) : shift;
    for (double& p : side.upper.p) p *= 1.0 + kMonotoneRoundoffCharge;
    for (double& p : side.lower.p) p *= 1.0 - kMonotoneRoundoffCharge;
    // the cut tails added rounded up (the sum's half ulp of upper_inf is not inside outside's own margin)
    side.upper.p_inf =
        outside > 0.0 ? std::nextafter(upper_inf + outside, std::numeric_limits<double>::infinity()) : upper_inf;
    side.upper.loss_shift = side.lower.loss_shift = loss_shift;
    return side;
}

// The mass beyond [x_lo, x_hi] of an open-ended pair's law (`mass` its interval masses; 0 for a closed pair), from
// its two tails, rounded up by kMonotoneOutsideMargin.
template <class Pair, class Mass>
double outside_mass(const Pair& pair, Mass mass) {
    if (!pair.open_ends()) return 0.0;
    const double inf = std::numeric_limits<double>::infinity();
    return (mass(-inf, pair.x_lo()) + mass(pair.x_hi(), inf)) * (1.0 + kMonotoneOutsideMargin);
}

}  // namespace detail

// Per loss cell of the grid k h over [x_lo, x_hi]: the merged outcome's loss (clamped into its cell), P-mass and
// Q-mass, the cells with P-mass > 0, then the pair's extra atoms.  Throws std::invalid_argument where the loss
// range needs more than max_cells cells.  closed_form = false cuts by the Newton search alone (a test hook).
//
// A Pair gives x_lo(), x_hi(), loss(x) (strictly increasing on [x_lo, x_hi]; a function of x alone, so a cut's loss
// evaluated once stands for every later evaluation), slope(x) (its derivative), p_mass(a, b) and q_mass(a, b) (the
// masses of (a, b]), masses(a, b) (both at once, each the same double as p_mass's and q_mass's: what the two share
// computed once), has_inverse() and inverse(loss) (an estimate of L^{-1}),
// atoms() (the outcomes outside the strictly increasing part, MonotoneAtom each) and open_ends() (whether the laws
// put mass beyond [x_lo, x_hi] that no atom holds: the Tails paragraph above).
template <class Pair>
MonotoneAtoms monotone_cell_atoms(const Pair& pair, double h, std::int64_t max_cells, bool closed_form = true) {
    const double l_lo = pair.loss(pair.x_lo()), l_hi = pair.loss(pair.x_hi());
    const double first = std::ceil(l_lo / h), last = std::floor(l_hi / h);
    const double cells = last - first + 1.0;
    if (!(cells <= static_cast<double>(max_cells)))  // inf or NaN too: a loss range beyond the doubles
        throw std::invalid_argument(detail::loss_range_refusal(l_lo, l_hi, cells, h, max_cells));
    const std::int64_t n = static_cast<std::int64_t>(cells);
    // cuts[i] and L(cuts[i]) where known (NaN: evaluated in the loop below)
    std::vector<double> cuts(n + 2), losses(n + 2);
    std::vector<detail::CoarseLosses> coarse;
    cuts[0] = pair.x_lo();
    losses[0] = l_lo;
    for (std::int64_t i = 0; i < n; ++i) {
        const detail::MonotoneCut cut = detail::cut_at(pair, (first + static_cast<double>(i)) * h, closed_form, coarse);
        cuts[i + 1] = cut.x;
        losses[i + 1] = cut.loss;
    }
    cuts[n + 1] = pair.x_hi();
    losses[n + 1] = l_hi;
    for (std::int64_t i = 1; i < n + 2; ++i) {
        const bool moved = std::isnan(cuts[i - 1]) || cuts[i] < cuts[i - 1];  // else the max below keeps cuts[i]
        cuts[i] = std::isnan(cuts[i - 1]) ? cuts[i - 1] : std::max(cuts[i], cuts[i - 1]);
        if (moved) losses[i] = std::numeric_limits<double>::quiet_NaN();
    }
    const auto loss_at = [&](std::int64_t i) { return std::isnan(losses[i]) ? pair.loss(cuts[i]) : losses[i]; };
    MonotoneAtoms out;
    const std::size_t most = static_cast<std::size_t>(n) + 1 + 2;  // the cells and a pair's two flat ends
    out.loss.reserve(most);
    out.p.reserve(most);
    out.q.reserve(most);
    double l_a = loss_at(0);
    for (std::int64_t i = 0; i <= n; ++i) {
        const double a = cuts[i], b = cuts[i + 1], l_b = loss_at(i + 1);
        const MonotoneMasses masses = pair.masses(a, b);
        const double pm = std::max(masses.p, 0.0), qm = std::max(masses.q, 0.0);
        const double loss = qm > 0.0 ? std::log(pm) - std::log(qm) : std::numeric_limits<double>::infinity();
        if (pm > 0.0) {
            out.loss.push_back(detail::clipped(loss, l_a, l_b));  // the mean-value loss of a cell lies in it
            out.p.push_back(pm);
            out.q.push_back(qm);
        }
        l_a = l_b;
    }
    for (const MonotoneAtom& atom : pair.atoms()) {
        out.loss.push_back(atom.loss);
        out.p.push_back(atom.p);
        out.q.push_back(atom.q);
    }
    return out;
}

// The remove direction (P, Q) and the add direction (Q, P) of a monotone pair, both sides each, on the grid of
// spacing h (at most max_cells cells per direction); the cells' loss error charged as both directions' loss shift.
template <class Pair>
MonotoneSides monotone_sides(const Pair& pair, double h, std::int64_t max_cells) {
    const MonotoneAtoms atoms = monotone_cell_atoms(pair, h, max_cells);
    const double lp = detail::largest_abs_log(atoms.p, atoms), lq = detail::largest_abs_log(atoms.q, atoms);
    const double shift = lp >= 0.0 ? 4.0 * detail::kUnitRoundoff * (lp + lq) + 32.0 * detail::kUnitRoundoff : 0.0;
    std::vector<double> mirrored(atoms.loss.size());
    for (std::size_t i = 0; i < mirrored.size(); ++i) mirrored[i] = -atoms.loss[i];
    const double p_out = detail::outside_mass(pair, [&](double a, double b) { return pair.p_mass(a, b); });
    const double q_out = detail::outside_mass(pair, [&](double a, double b) { return pair.q_mass(a, b); });
    return {detail::side_from_atoms(atoms.loss, atoms.p, h, shift, max_cells, p_out),
            detail::side_from_atoms(mirrored, atoms.q, h, shift, max_cells, q_out)};
}

}  // namespace pld
}  // namespace hockeystick
