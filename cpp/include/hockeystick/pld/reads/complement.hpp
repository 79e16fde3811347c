// Certified bounds on delta near 1, read from bounds on its complement 1 - delta, for T rounds of the
// Poisson-subsampled Gaussian on one grid h.
//
// Where T rounds leave delta(eps) within ~1e-7 of 1 (sigma 0.5-0.8, q 0.03-0.1, hundreds of rounds and more), the
// composed PMFs bracket delta only to a few 1e-10 whatever the grid: each round's masses carry a relative error (the
// cells' round-off, their edges' factor e^{+-e}, the suffix sums' slack) that T rounds turn into an absolute error of
// delta, while 1 - delta itself is ~1e-8 there and its epsilon width needs it to ~0.2 %.  On the complement every
// such error stays relative.  With L_T the loss of the T-fold composition under P,
//
//     1 - delta(eps) = E_P[min(1, e^{eps - L_T})] = min over events A of  P(A^c) + e^eps Q(A)                  (1)
//
// (delta = sup_A P(A) - e^eps Q(A): the hockey-stick divergence's dual form; the minimum is the likelihood-ratio
// test A = {L_T > eps}, Neyman-Pearson).
//
// The upper side of delta is one minus a lower bound on (1).  A pair dominating (P, Q) has a smaller complement (its
// profile is larger at every eps), so any composition of the connect-the-dots PMF (pld/grid/connect_dots.hpp;
// Doroshenko et al., PETS 2022, Sec. 3) bounds (1) from below.  Its masses are p_j = (d_j + e^h c_{j-1}) / (e^h - 1)
// from the cells' numbers (pld/grid/cells.hpp); here each is taken from below, (d_j + e^h c_{j-1} - R_j) / ((e^h - 1)
// G) with R_j the cells' own round-off (cell_round_off ((c_j + d_j) + e^h (c_{j-1} + d_{j-1}))) and G >= e^e (1 +
// kComplementMassSlack) for the edges' factor and the products' rounding, and the masses this loses (the tails too)
// are moved to +infinity, which only makes the pair more dominating.  Composed T-fold on the optimistic side (its
// shift, and twice its round-off charge, subtracted) and read at eps - s (s the composed loss shift), it gives
//
//     1 - delta(eps) >= sum_k C_k min(1, e^{eps - s - l_k}) (1 - slack) + shift - 2 charge                       (2)
//
// a sum of positive terms (prefix sums below eps, decayed suffix sums above it), so its rounding is relative: slack =
// 8 (n + 8) u plus the exponential's 4 u (|eps| + |l| + 1).
//
// The lower side of delta is one minus an upper bound on (1), which any event gives.  Label each output of one round
// by the grid loss l_j of the cell it falls in (-infinity below the cells, +infinity above them) and take A = {the sum
// of the T labels > tau}: a test of the likelihood-ratio kind on a quantized statistic, which for the best tau loses
// only about f(eps) T h^2 / 24.  Then P(A^c) and Q(A) are the lower tail of the T-fold composition of the cells'
// P-masses a_j and the upper tail of that of their Q-masses b_j, plus the labelled tails:
//
//     1 - delta(eps) <= [A(<= tau) + T a_lo] + e^eps [B(> tau)] + e^eps T b_inf                                  (3)
//
// with every mass bounded from above: a_j = c_j + s_j and b_j = e^{-l_j} s_j, s_j = (c_j + d_j) / (e^h - 1)
// (cells.hpp's cell_mass), raised by G for the cells' round-off and their edges; a_lo the P-mass below the cells (in
// A^c whatever the other rounds), b_inf the Q-mass above them (at most e^{e - l_{N-1}} times their P-mass).  Both
// compositions are pessimistic (mass truncated above the window, and below it where the FFT is longer than the
// window, put at +infinity, which (3) adds to both tails; kDefaultCompositionTail added to both besides, for mass
// below a window as long as its FFT, which folds onto the window's top), so each tail is its sum (1 + slack) plus the
// charge over its points plus those masses and the shift.  Every tau gives a valid bound; the one taken is where the
// composed log-likelihood ratio log A_k - log B_k (made non-decreasing) crosses eps, and its three neighbours each
// side (complement_scans.hpp's ratio_threshold).
//
// Tilting.  Every composition is of tilted masses, and every sum above is read through
//
//     m^{*T}_k = N^T e^{lam l_k} m~^{*T}_k,   m~_j = m_j e^{-lam l_j} / N                                          (4)
//
// (exact for any lam and N > 0, as e^{-lam l} is multiplicative over a sum of losses).  The compositions' round-off
// charges are absolute, a few 1e-12 after 10^5 rounds, and near delta = 1 the masses (2) and (3) sum lie in a far tail
// of the untilted composition.  Tilted by balancing_tilt's lam, the lam in [0, 1] that centres the tilted masses'
// mean loss at 0 (the dominating masses) or at -h / 2 (the test's P-masses, whose labels under-state the losses by h
// / 2 on average; the Q-masses take lam - 1, tilting them to the same measure), those masses lie near the middle of
// the tilted composition for every T, where the charges are small beside them.  In (2) the weights of the tilted
// masses are e^{-lam (l_k - l_j)} below the first grid loss l_k at or above eps - s and e^{eps - s - l_k} e^{-(1 -
// lam) (l_j - l_k)} from it up; in (3) e^{-lam (l' - l_j)} on A^c and e^{-(1 - lam) (l_j - l')} on A, l' the first
// loss in A: all in [0, 1], so the shift, the truncated mass and the round-off charge (of the weights' sum and
// Euclidean norm, geometric series) enter at most as they are, before N^T e^{lam l} multiplies.  Both sides compose
// with the direct DFT bins (compose/options.hpp's direct_bins), which keep those charges below the FFT's.
//
// delta is the largest over the neighbouring directions: the upper side is the largest over both directions' (2),
// the lower side that of the directions given (3)'s factors (the remove direction's: it sets delta near 1 for the
// Poisson-subsampled Gaussian, the add direction's complement being the larger there).  The brackets are tight near
// delta = 1, where the readers take them (above kComplementAbove: the many-points refinement,
// pld/refine/points_delta_source.hpp; python pld/refine/near_one.py for the package's fixed grid and one-point
// refinement; cpp/capi/refine.cpp for the C library); far above the tilted compositions' centre (delta ~ 1e-10 and
// below) the charges, carried back by e^{lam l}, leave the upper side loose (still certified).
//
// Refusals (std::invalid_argument): a grid above kComplementMaxInterval (the slack G assumes it), cells the grid
// cannot build (cells.hpp's), cells with no mass, a top loss too low to bound the Q-mass above the cells.  A window
// past the caller's cap on points throws what its compose throws.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hockeystick/pld/compose/options.hpp"
#include "hockeystick/pld/grid/cells.hpp"
#include "hockeystick/pld/grid/pmf_view.hpp"
#include "hockeystick/pld/reads/complement_scans.hpp"
#include "hockeystick/pld/reads/epsilon_bracket.hpp"  // charges_of
#include "hockeystick/pld/reads/hockey_stick.hpp"  // GridCharges, loss_shifted
#include "hockeystick/support/pairwise_sum.hpp"

namespace hockeystick {
namespace pld {

// The cells' tails: the P-mass below them enters (3) as T a_lo, so it is cut far below any 1 - delta resolved here
// (10^5 rounds: 5e-26).
constexpr double kComplementTail = 1e-30;
// Relative slack on every mass: covers the cells' round-off (cell_round_off e^h <= 6e-15 for h <=
// kComplementMaxInterval) and the few roundings of forming the masses (a few u).
constexpr double kComplementMassSlack = 1e-12;
constexpr double kComplementMaxInterval = 0.5;
constexpr std::int64_t kComplementMaxCells = std::int64_t{1} << 24;
// The readers take the complement's bracket where the upper side is above this: the composed PMFs' gap is absolute
// (T rounds of relative errors per mass), a few per cent of 1 - delta there, while the complement bounds 1 - delta
// with relative accuracy.
constexpr double kComplementAbove = 1.0 - 1e-3;

// Masses m_j at losses l_j = (k_lo + j) h tilted by e^{-tilt l_j} and normalized: p[j] is m_j e^{-tilt l_j} / N,
// bounded on one side, and log_norm is log N rounded the same way (up where the masses are bounded above, down where
// below), so that the T-fold convolution of the m_j at l_k is bounded on that side by N^T e^{tilt l_k} times that of
// p's masses (4).  loss_shift: the cells' loss error the composition carries (PmfView's).
struct ComplementTilted {
    std::vector<double> p;
    std::int64_t k_lo = 0;
    double h = 0.0, tilt = 0.0, log_norm = 0.0, loss_shift = 0.0;
    PmfView view() const { return {p.data(), static_cast<std::int64_t>(p.size()), k_lo, 0.0, loss_shift}; }
};

// One direction's one-round PMFs for (3), on one grid: the cells' P-masses a_j and Q-masses b_j bounded above and
// tilted by e^{-lam l} and e^{(1 - lam) l} (composed pessimistic), the P-mass below the cells and the Q-mass above
// them, bounded above.
struct ComplementTest {
    ComplementTilted p_masses, q_masses;
    double p_below = 0.0, q_above = 0.0;
};

// One direction's one-round PMFs on one grid: (2)'s connect-the-dots masses bounded below, tilted by e^{-lam l}
// (composed optimistic), and (3)'s where that direction's lower side is asked.
struct ComplementDirection {
    ComplementTilted dominating;
    std::optional<ComplementTest> test;
};

namespace complement_detail {

constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
constexpr double tiny = std::numeric_limits<double>::min();  // the least normal double

// The mean loss less `offset` of the live masses tilted by e^{-lam l}.
inline double tilted_mean(const std::vector<double>& loss, const std::vector<double>& log_mass, double offset,
                          double lam) {
    double top = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < loss.size(); ++i) top = std::max(top, log_mass[i] - lam * loss[i]);
    double weight = 0.0, moment = 0.0;
    for (std::size_t i = 0; i < loss.size(); ++i) {
        const double w = std::exp(log_mass[i] - lam * loss[i] - top);
        weight += w;
        moment += w * (loss[i] - offset);
    }
    return moment / weight;
}

// The connect-the-dots masses at l_0 .. l_n from below: (d_j + e^h c_{j-1} - R_j) / ((e^h - 1) G).
inline std::vector<double> dominating_masses(const Cells& cells, double grow) {
    const std::vector<double>&c = cells.c, &d = cells.d;
    const std::size_t n = c.size();
    const double h = cells.h, eh = std::exp(h), below = std::expm1(h) * grow;
    std::vector<double> low(n + 1);
    for (std::size_t j = 0; j <= n; ++j) {
        const double c_prev = j > 0 ? c[j - 1] : 0.0, d_prev = j > 0 ? d[j - 1] : 0.0;
        const double c_next = j < n ? c[j] : 0.0, d_next = j < n ? d[j] : 0.0;
        const double own = cell_round_off * ((c_next + d_next) + eh * (c_prev + d_prev));
        low[j] = std::max((d_next + eh * c_prev) - own, 0.0) / below;
    }
    return low;
}

}  // namespace complement_detail

// lam in [0, 1] where the masses m_j at l_j = (k_lo + j) h, tilted by e^{-lam l_j}, have their mean loss at `offset`
// (0 or 1 where it lies outside: the tilted mean falls as lam grows), to within 1e-9 in lam, by false position with
// the Illinois step.  Any lam in [0, 1] gives valid bounds; this one centres the T-fold tilted composition near loss
// T offset for every T ((4)).
inline double balancing_tilt(const std::vector<double>& masses, std::int64_t k_lo, double h, double offset = 0.0) {
    std::vector<double> loss, log_mass;
    for (std::size_t j = 0; j < masses.size(); ++j)
        if (masses[j] > 0.0) {
            loss.push_back(static_cast<double>(k_lo + static_cast<std::int64_t>(j)) * h);
            log_mass.push_back(std::log(masses[j]));
        }
    if (loss.empty()) return 0.0;
    const auto mean = [&](double lam) { return complement_detail::tilted_mean(loss, log_mass, offset, lam); };
    double a = 0.0, b = 1.0, fa = mean(a), fb = mean(b);
    if (!(fa > 0.0)) return 0.0;
    if (!(fb < 0.0)) return 1.0;
    int kept = 0;  // the end kept by the last step: -1 a, +1 b
    for (int step = 0; step < 200 && b - a > 1e-9; ++step) {
        double c = (fa * b - fb * a) / (fa - fb);
        if (!(c > a && c < b)) c = 0.5 * (a + b);
        const double fc = mean(c);
        if (fc == 0.0) return c;
        if (fc > 0.0) {
            a = c;
            fa = fc;
            if (kept == 1) fb *= 0.5;
            kept = 1;
        } else {
            b = c;
            fb = fc;
            if (kept == -1) fa *= 0.5;
            kept = -1;
        }
    }
    return 0.5 * (a + b);
}

// `masses` (bounded on one side: above where `upward`) times e^{-extra l_j}, normalized, bounded on the same side, as
// a ComplementTilted of tilt `tilt`: each quotient raised (lowered) by 4 u (|x_j| + |c| + 4) for the roundings of l_j,
// the exponent x_j = -extra l_j less its largest live value c, the exponential, the product and the quotient; log N =
// c + log(sum) moved the same way by 2 u (|c| + |log sum| + 1).  Upward, a live mass whose quotient underflowed (lam
// times the losses' span above ~708) is raised to the least normal double.
inline ComplementTilted complement_tilted(const std::vector<double>& masses, std::int64_t k_lo, double h, double tilt,
                                          double extra, bool upward, double loss_shift = 0.0) {
    const std::size_t n = masses.size();
    std::vector<double> x(n), scaled(n);
    double c = -std::numeric_limits<double>::infinity();
    bool live = false;
    for (std::size_t j = 0; j < n; ++j) {
        x[j] = -extra * (static_cast<double>(k_lo + static_cast<std::int64_t>(j)) * h);
        if (masses[j] > 0.0) {
            c = std::max(c, x[j]);
            live = true;
        }
    }
    if (!live) throw std::invalid_argument("the cells carry no mass at this grid");
    for (std::size_t j = 0; j < n; ++j) scaled[j] = masses[j] > 0.0 ? masses[j] * std::exp(x[j] - c) : 0.0;
    const double total = numpy_sum(scaled.data(), static_cast<std::int64_t>(n));
    if (!(total > 0.0 && std::isfinite(total)))
        throw std::invalid_argument("the cells' tilted masses do not sum to a positive finite number");
    const double sign = upward ? 1.0 : -1.0, k = sign * 4.0 * complement_detail::u;
    ComplementTilted out;
    out.p.resize(n);
    for (std::size_t j = 0; j < n; ++j) {
        const double q = scaled[j] / total * (1.0 + k * (std::fabs(x[j]) + std::fabs(c) + 4.0));
        out.p[j] = upward ? (masses[j] > 0.0 ? q + complement_detail::tiny : 0.0) : q;
    }
    out.k_lo = k_lo;
    out.h = h;
    out.tilt = tilt;
    out.log_norm = c + std::log(total);
    out.log_norm += sign * 2.0 * complement_detail::u * (std::fabs(c) + std::fabs(out.log_norm) + 1.0);
    out.loss_shift = loss_shift;
    return out;
}

// The factors of one direction of the Poisson-subsampled Gaussian (noise sigma over sensitivity 1, rate q) on grid h
// (at most kComplementMaxInterval), from its cells (cells.hpp's subsampled_gaussian_cells, tails cut at
// kComplementTail, no half-cells), each tilted by its balancing_tilt (the test's P- and Q-masses alike by the
// P-masses', centred at -h / 2: the labels under-state the losses by about that), or all by `tilt` where given;
// `test`: also (3)'s.
inline ComplementDirection subsampled_gaussian_complement(double sigma, double q, bool remove, double h, bool test,
                                                          std::optional<double> tilt = std::nullopt) {
    if (!(h > 0.0 && h <= kComplementMaxInterval))
        throw std::invalid_argument("h must lie in (0, 0.5] for the complement's slack");
    if (tilt && !(*tilt >= 0.0 && *tilt <= 1.0))  // the weights of (2) and (3) lie in [0, 1] for such a tilt alone
        throw std::invalid_argument("tilt must lie in [0, 1]");
    const Cells cells = subsampled_gaussian_cells(sigma, q, remove, h, kComplementTail, kComplementMaxCells, false);
    const std::size_t n = cells.c.size();
    const double e = cells.edge_error;
    const double grow = 1.0 + kComplementMassSlack + 2.0 * e;  // >= e^e (1 + slack): e <= h / 4 (cells.hpp)
    const std::vector<double> low = complement_detail::dominating_masses(cells, grow);
    ComplementDirection out;
    double lam = tilt ? *tilt : balancing_tilt(low, cells.k_lo, h);
    out.dominating = complement_tilted(low, cells.k_lo, h, lam, lam, false,
                                       e > 0.0 ? std::nextafter(e, std::numeric_limits<double>::infinity()) : 0.0);
    if (!test) return out;
    // above the cells the losses exceed the top cell's lower end less e: Q <= e^{e - l_{N-1}} P there
    const double exponent = e - static_cast<double>(cells.k_lo + static_cast<std::int64_t>(n) - 1) * h;
    if (!(exponent < 700.0))
        throw std::invalid_argument("the cells' top loss is too low to bound the Q-mass above them");
    std::vector<double> p_mass(n), q_scaled(n);
    const double expm1_h = std::expm1(h);
    for (std::size_t j = 0; j < n; ++j) {
        const CellMass mass = cell_mass(cells.c[j], cells.d[j], expm1_h);
        p_mass[j] = mass.p * grow;
        q_scaled[j] = mass.q_scaled * grow;  // e^{l_j} b_j: tilted by e^{-lam l} more, a tilt of lam - 1
    }
    lam = tilt ? *tilt : balancing_tilt(p_mass, cells.k_lo, h, -0.5 * h);
    out.test = ComplementTest{complement_tilted(p_mass, cells.k_lo, h, lam, lam, true),
                              complement_tilted(q_scaled, cells.k_lo, h, lam - 1.0, lam, true), cells.tail_lo * grow,
                              cells.tail_hi * std::exp(exponent) * grow};
    return out;
}

// The complement's factors of the Poisson-subsampled Gaussian on grid h: the remove direction's with its test
// first (it sets delta near 1), then the add direction's dominating factor.
inline std::vector<ComplementDirection> subsampled_gaussian_complement_factors(
    double sigma, double q, double h, std::optional<double> tilt = std::nullopt) {
    return {subsampled_gaussian_complement(sigma, q, true, h, true, tilt),
            subsampled_gaussian_complement(sigma, q, false, h, false, tilt)};
}

// A T-fold composition of tilted masses as (2) and (3) read it: a composed window with its charges, or the factor
// itself where T = 1 (no composition, no charge).
struct ComplementWindow {
    const double* p = nullptr;
    std::int64_t n = 0, k_lo = 0;
    double h = 0.0, p_inf = 0.0, shift = 0.0, loss_shift = 0.0;
    GridCharges charges{};
};

namespace complement_detail {

// Bounds on the sum and the Euclidean norm of weights e^{-decay i}, i = 0, 1, ..., over at most `count` grid points:
// min(count, 1 / (1 - e^{-decay})) and min(sqrt(count), 1 / sqrt(1 - e^{-2 decay})), rounded up.
inline std::pair<double, double> weights(double decay, double count) {
    if (decay <= 0.0) return {count, std::sqrt(count)};
    const double up = 1.0 + 4.0 * u;
    return {std::min(count, 1.0 / -std::expm1(-decay) * up),
            std::min(std::sqrt(count), std::sqrt(1.0 / -std::expm1(-2.0 * decay)) * up)};
}

// The round-off charge of a window's masses under weights in [0, 1] of sum at most `sum` and norm at most `norm`,
// rounded up.
inline double charge(const ComplementWindow& w, double sum, double norm) {
    return w.charges.weighted(sum, norm) * (1.0 + 4.0 * u);
}

inline std::vector<double> sums_at(const std::vector<double>& p, double decay, const std::vector<std::int64_t>& at,
                                   bool rising) {
    std::vector<double> out(at.size());
    geometric_sums_at(p.data(), static_cast<std::int64_t>(p.size()), decay, rising, at.data(),
                      static_cast<std::int64_t>(at.size()), out.data());
    return out;
}

}  // namespace complement_detail

// (2) at each eps from the T-fold optimistic composition w of `factor` (tilt lam, norm N), through (4): with l_k the
// first grid loss at or above eps - s, 1 - delta(eps) >= N^T e^{lam l_k} [before_k + e^{eps - s - l_k} after_k -
// |shift| - 2 charge] (1 - slack)^2, before_k = sum_{j < k} C~_j e^{-lam (l_k - l_j)} and after_k = sum_{j >= k} C~_j
// e^{-(1 - lam) (l_j - l_k)}: every weight in [0, 1], so the shift and the charge (of those weights' sum and norm)
// enter as they are.  0 where eps or the bound is not finite.
inline std::vector<double> lower_complement(const ComplementTilted& factor, const ComplementWindow& w,
                                            std::int64_t rounds, const std::vector<double>& eps) {
    namespace cd = complement_detail;
    const double lam = factor.tilt, h = w.h, u = cd::u;
    const std::int64_t n = w.n;
    std::vector<double> p(w.p, w.p + n), at(eps.size());
    for (double& x : p) x = std::max(x, 0.0);
    std::vector<std::int64_t> k(eps.size());
    for (std::size_t i = 0; i < eps.size(); ++i) {
        at[i] = w.loss_shift > 0.0 ? loss_shifted(eps[i], w.loss_shift, false) : eps[i];
        const double first = std::ceil(at[i] / h) - static_cast<double>(w.k_lo);  // the first grid point at or above
        k[i] = std::isnan(first) ? n : static_cast<std::int64_t>(std::clamp(first, 0.0, static_cast<double>(n)));
    }
    const std::vector<double> before = cd::sums_at(p, lam * h, k, true),
                              after = cd::sums_at(p, (1.0 - lam) * h, k, false);
    const double count = static_cast<double>(n);
    const std::pair<double, double> down = cd::weights(lam * h, count), up = cd::weights((1.0 - lam) * h, count);
    const double charge = cd::charge(w, std::min(down.first + up.first, count),
                                     std::min(std::hypot(down.second, up.second), std::sqrt(count)));
    const double norm = static_cast<double>(rounds) * factor.log_norm;
    std::vector<double> out(eps.size());
    for (std::size_t i = 0; i < eps.size(); ++i) {
        const double grid = static_cast<double>(w.k_lo + k[i]) * h;
        const double tail = k[i] < n ? std::exp(std::min(at[i] - grid, 0.0)) * after[i] : 0.0;
        const double scale = std::exp(norm + lam * grid);
        const double slack = 8.0 * static_cast<double>(n + 8) * u +
                             4.0 * u * (std::fabs(norm) + std::fabs(at[i]) + 2.0 * std::fabs(grid) + 2.0);
        const double inner = (before[i] + tail) * (1.0 - slack) - std::fabs(w.shift) - 2.0 * charge;
        const double value = scale * (std::isnan(inner) ? inner : std::max(inner, 0.0)) * (1.0 - slack);
        out[i] = std::isfinite(at[i]) && std::isfinite(value) ? std::max(value, 0.0) : 0.0;
    }
    return out;
}

// (3) at each eps from the T-fold pessimistic compositions a and b of the test's tilted P- and Q-masses (tilts lam
// and lam - 1, norms N_a and N_b), through (4), at the threshold m where their log-likelihood ratio crosses eps and
// its three neighbours each side, the least: with l' = l_{m+1} the first loss in A,
//
//     P(A^c) <= N_a^T e^{lam l'} [sum_{j <= m} A~_j e^{-lam (l' - l_j)} (1 + slack) + charge + p_inf + |shift| +
//               kDefaultCompositionTail] + T p_below,
//     e^eps Q(A) <= e^eps N_b^T e^{(lam - 1) l'} [sum_{k > m} B~_k e^{-(1 - lam) (l_k - l')} (1 + slack) + charge +
//               p_inf + |shift| + kDefaultCompositionTail] + e^eps T q_above,
//
// every weight in [0, 1] on the losses each event holds, the charges those of the weights' sums and norms; at most 1.
inline std::vector<double> upper_complement(const ComplementWindow& a, const ComplementWindow& b,
                                            const ComplementTest& test, std::int64_t rounds,
                                            const std::vector<double>& eps) {
    namespace cd = complement_detail;
    const double lam = test.p_masses.tilt, h = a.h, u = cd::u, t = static_cast<double>(rounds);
    const double norm_a = t * test.p_masses.log_norm, norm_b = t * test.q_masses.log_norm;
    const std::size_t count = eps.size();
    std::vector<std::int64_t> m0(count);
    ratio_threshold(a.p, a.k_lo, a.n, b.p, b.k_lo, b.n, h, norm_a - norm_b, eps.data(),
                    static_cast<std::int64_t>(count), m0.data());
    constexpr int kSpread = 3;  // the neighbours of the threshold each side
    constexpr std::size_t kTaus = 2 * kSpread + 1;
    std::vector<std::int64_t> ia(count * kTaus), ib(count * kTaus);
    for (std::size_t i = 0; i < count; ++i)
        for (std::size_t s = 0; s < kTaus; ++s) {
            const std::int64_t m = m0[i] + static_cast<std::int64_t>(s) - kSpread;
            ia[i * kTaus + s] = std::clamp<std::int64_t>(m - a.k_lo + 1, 0, a.n);
            ib[i * kTaus + s] = std::clamp<std::int64_t>(m - b.k_lo + 1, 0, b.n);
        }
    const std::vector<double> pa(a.p, a.p + a.n), pb(b.p, b.p + b.n);
    const std::vector<double> rising = cd::sums_at(pa, lam * h, ia, true);
    const std::vector<double> decayed = cd::sums_at(pb, (1.0 - lam) * h, ib, false);
    const double slack_a = 1.0 + 8.0 * static_cast<double>(a.n + 8) * u;
    const double slack_b = 1.0 + 8.0 * static_cast<double>(b.n + 8) * u;
    std::vector<double> out(count);
    for (std::size_t i = 0; i < count; ++i) {
        const double x = eps[i];
        const double plus = std::exp(x) * (1.0 + 4.0 * u) * t * test.q_above;
        double best = std::numeric_limits<double>::infinity();
        for (std::size_t s = 0; s < kTaus; ++s) {
            const std::size_t r = i * kTaus + s;
            const std::int64_t m = m0[i] + static_cast<std::int64_t>(s) - kSpread;
            const double first = static_cast<double>(m + 1) * h;  // l' = l_{m+1}, the first loss in A
            // the sums' own normalization points move to l' (only where m + 1 lies outside a window: factors <= 1)
            const double sum_a = rising[r] * std::exp(-lam * static_cast<double>(m + 1 - a.k_lo - ia[r]) * h);
            const double sum_b = decayed[r] * std::exp(-(1.0 - lam) * static_cast<double>(b.k_lo + ib[r] - m - 1) * h);
            const std::pair<double, double> wa = cd::weights(lam * h, static_cast<double>(ia[r]));
            const std::pair<double, double> wb = cd::weights((1.0 - lam) * h, static_cast<double>(b.n - ib[r]));
            const double charge_a = cd::charge(a, wa.first, wa.second), charge_b = cd::charge(b, wb.first, wb.second);
            const double scale_a =
                std::exp(norm_a + lam * first) * (1.0 + 4.0 * u * (std::fabs(norm_a) + std::fabs(first) + 2.0));
            const double scale_b = std::exp(norm_b + x + (lam - 1.0) * first) *
                                   (1.0 + 4.0 * u * (std::fabs(norm_b) + std::fabs(x) + std::fabs(first) + 2.0));
            const double tail_a =
                scale_a * (sum_a * slack_a + charge_a + a.p_inf + std::fabs(a.shift) + kDefaultCompositionTail) +
                t * test.p_below;
            const double tail_b =
                scale_b * (sum_b * slack_b + charge_b + b.p_inf + std::fabs(b.shift) + kDefaultCompositionTail);
            // + tiny: the scales' exponentials may underflow (a subnormal is off by up to 2^-1074 absolute)
            const double value = (tail_a + tail_b + plus) * (1.0 + 4.0 * u) + cd::tiny;
            if (!std::isnan(value)) best = std::min(best, value);
        }
        out[i] = std::min(best, 1.0);
    }
    return out;
}

namespace complement_detail {

// The T-fold composition of each (factor, T) on one side, as ComplementWindows over `kept` (the composed masses,
// kept alive there): T = 1 is the factor itself, with no charge; the others in one compose call.
template <class Compose>
std::vector<ComplementWindow> composed(const std::vector<const ComplementTilted*>& factors,
                                       const std::vector<std::pair<std::size_t, std::int64_t>>& items, bool pessimistic,
                                       Compose& compose, std::vector<ComposedPMF>& kept) {
    std::vector<ComplementWindow> out(items.size());
    std::vector<PmfView> views;
    for (const ComplementTilted* f : factors) views.push_back(f->view());
    std::vector<std::vector<Term>> terms;
    std::vector<std::size_t> where;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const ComplementTilted& f = *factors[items[i].first];
        if (items[i].second == 1) {
            out[i] = {f.p.data(), static_cast<std::int64_t>(f.p.size()), f.k_lo, f.h, 0.0, 0.0, f.loss_shift, {}};
        } else {
            terms.push_back({{static_cast<std::int64_t>(items[i].first), items[i].second}});
            where.push_back(i);
        }
    }
    if (terms.empty()) return out;
    const double h = factors.front()->h;
    kept = compose(views, h, terms, pessimistic, kDefaultCompositionTail);
    for (std::size_t k = 0; k < where.size(); ++k) {
        const ComposedPMF& r = kept[k];
        out[where[k]] = {r.p.data(),   static_cast<std::int64_t>(r.p.size()), r.k_lo, h, r.p_inf, r.shift, r.loss_shift,
                         charges_of(r)};
    }
    return out;
}

// 1 - (2) rounded up: a certified upper delta of the direction whose dominating factor, T-fold, is w.
inline std::vector<double> upper_delta(const ComplementTilted& factor, const ComplementWindow& w, std::int64_t rounds,
                                       const std::vector<double>& eps) {
    std::vector<double> out = lower_complement(factor, w, rounds, eps);
    for (double& x : out) x = std::min(std::nextafter(1.0 - x, 2.0), 1.0);
    return out;
}

}  // namespace complement_detail

// A certified delta bracket at each eps of a point: lower and upper sides.
struct ComplementBracket {
    std::vector<double> lower, upper;
};

namespace complement_detail {

// Each point's upper side raised to the other directions' (2) (`rest`): the least of it and others[i] where that is
// known, composed only for the points where others[i] is not at most the upper side at every argument (there others[i]
// itself).
template <class Compose>
void with_other_directions(std::vector<ComplementBracket>& out, const std::vector<const ComplementTilted*>& rest,
                           const std::vector<std::int64_t>& rounds, const std::vector<std::vector<double>>& eps,
                           const std::vector<std::optional<std::vector<double>>>& others, Compose& compose) {
    std::vector<std::size_t> wanted;
    std::vector<std::pair<std::size_t, std::int64_t>> items;
    for (std::size_t i = 0; i < rounds.size(); ++i) {
        const std::optional<std::vector<double>>& known = others[i];
        bool settled = known.has_value();
        for (std::size_t k = 0; settled && k < eps[i].size(); ++k) settled = (*known)[k] <= out[i].upper[k];
        if (settled) {
            for (std::size_t k = 0; k < eps[i].size(); ++k) out[i].upper[k] = std::max(out[i].upper[k], (*known)[k]);
            continue;
        }
        wanted.push_back(i);
        for (std::size_t d = 0; d < rest.size(); ++d) items.push_back({d, rounds[i]});
    }
    if (wanted.empty()) return;
    std::vector<ComposedPMF> kept;
    const std::vector<ComplementWindow> windows = composed(rest, items, false, compose, kept);
    for (std::size_t w = 0; w < wanted.size(); ++w) {
        const std::size_t i = wanted[w];
        for (std::size_t d = 0; d < rest.size(); ++d) {
            std::vector<double> other = upper_delta(*rest[d], windows[w * rest.size() + d], rounds[i], eps[i]);
            for (std::size_t k = 0; k < other.size(); ++k) {
                if (others[i]) other[k] = std::min(other[k], (*others[i])[k]);
                out[i].upper[k] = std::max(out[i].upper[k], other[k]);
            }
        }
    }
}

// Each point's lower side: 1 - (3) rounded down, the largest over the directions that carry a test (0 where none
// does), every count's P- and Q-masses of every test composed in one call.
template <class Compose>
void test_lowers(std::vector<ComplementBracket>& out, const std::vector<ComplementDirection>& directions,
                 const std::vector<std::int64_t>& rounds, const std::vector<std::vector<double>>& eps,
                 Compose& compose) {
    std::vector<const ComplementTest*> tests;
    std::vector<const ComplementTilted*> masses;
    for (const ComplementDirection& d : directions)
        if (d.test) {
            tests.push_back(&*d.test);
            masses.push_back(&d.test->p_masses);
            masses.push_back(&d.test->q_masses);
        }
    for (std::size_t i = 0; i < rounds.size(); ++i) out[i].lower.assign(eps[i].size(), 0.0);
    if (tests.empty()) return;
    std::vector<std::pair<std::size_t, std::int64_t>> items;
    for (const std::int64_t t : rounds)
        for (std::size_t j = 0; j < masses.size(); ++j) items.push_back({j, t});
    std::vector<ComposedPMF> kept;
    const std::vector<ComplementWindow> windows = composed(masses, items, true, compose, kept);
    for (std::size_t i = 0; i < rounds.size(); ++i)
        for (std::size_t j = 0; j < tests.size(); ++j) {
            const std::size_t k = i * masses.size() + 2 * j;
            const std::vector<double> above =
                upper_complement(windows[k], windows[k + 1], *tests[j], rounds[i], eps[i]);
            for (std::size_t e = 0; e < above.size(); ++e)
                out[i].lower[e] = std::max(out[i].lower[e], std::max(std::nextafter(1.0 - above[e], 0.0), 0.0));
        }
}

}  // namespace complement_detail

// Certified brackets of delta at eps[i] after rounds[i] rounds, from each direction's factors (every direction of the
// pair, the leading one first): the upper side 1 - (2) rounded up, the largest over the directions; the lower side 1 -
// (3) rounded down, the largest over the directions that carry (3)'s factors (0 where none does, or where it says
// nothing).  others[i], where given, is a certified upper delta of every direction but the leading one at eps[i]: where
// it is at most the leading direction's (2) at every argument, the other directions are not composed for that point,
// and elsewhere each of their uppers is the least of both.  compose(views, h, terms, pessimistic, tail) composes each
// side's windows of every rounds value in one call.
template <class Compose>
std::vector<ComplementBracket> complement_delta_brackets(const std::vector<ComplementDirection>& directions,
                                                         const std::vector<std::int64_t>& rounds,
                                                         const std::vector<std::vector<double>>& eps,
                                                         const std::vector<std::optional<std::vector<double>>>& others,
                                                         Compose& compose) {
    namespace cd = complement_detail;
    std::vector<std::pair<std::size_t, std::int64_t>> items;
    for (const std::int64_t t : rounds) items.push_back({0, t});
    std::vector<ComposedPMF> kept;
    const std::vector<ComplementWindow> leads =
        cd::composed({&directions.front().dominating}, items, false, compose, kept);
    std::vector<ComplementBracket> out(rounds.size());
    for (std::size_t i = 0; i < rounds.size(); ++i)
        out[i].upper = cd::upper_delta(directions.front().dominating, leads[i], rounds[i], eps[i]);
    kept.clear();  // the leading direction's windows read
    std::vector<const ComplementTilted*> rest;
    for (std::size_t d = 1; d < directions.size(); ++d) rest.push_back(&directions[d].dominating);
    if (!rest.empty()) cd::with_other_directions(out, rest, rounds, eps, others, compose);
    cd::test_lowers(out, directions, rounds, eps, compose);
    return out;
}

}  // namespace pld
}  // namespace hockeystick
