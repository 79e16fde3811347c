// A certified lower bound on delta near 1 from the Renyi affinity of one round (Chernoff).
//
// Where T rounds leave delta(eps) within 1e-9 of 1 (sigma 0.5-0.9, q 0.02-0.1, thousands of rounds), the composed
// optimistic PMF's lower side sits about 1e-9 below 1 whatever the grid: it is charged the FFT's round-off over the
// whole window (3.5e-10 at sigma 0.55, q 0.048, 10^4 rounds; twice that on the lower side), far more than the true
// 1 - delta (below 1e-11 there).  The complement has a short bound of its own.  With L the privacy loss of one round
// under P and L_T the sum of T independent copies,
//
//     1 - delta(eps) = E_P[min(1, e^{eps - L_T})] <= e^{lam eps} E_P[e^{-lam L_T}] = e^{lam eps} A(lam)^T
//
// for every lam in [0, 1] (min(1, e^x) <= e^{lam x}), where A(lam) = E_P[e^{-lam L}] = int p^{1-lam} q^lam is the
// affinity of the pair (P, Q) (the Hellinger integral of order 1 - lam: Liese and Vajda, IEEE Trans. Inf. Theory 52
// (2006), Sec. III; the Chernoff bound of Chernoff, Ann. Math. Stat. 23 (1952), eq. 2.1).  A is at most 1 (Hoelder)
// and multiplies over independent rounds.  It is bounded above from the cells of pld/grid/cells.hpp without any
// quadrature of its own: on each region R of a partition of the outputs, Hoelder gives int_R p^{1-lam} q^lam <=
// P(R)^{1-lam} Q(R)^lam, so
//
//     A(lam) <= sum_j a_j^{1-lam} b_j^lam + P_lo^{1-lam} + P_hi max(1, e^{-lam l_N})
//
// with a_j, b_j the P- and Q-mass of cell j (cells.hpp's cell_mass: a_j = c_j + s_j, b_j = e^{-l_j} s_j), P_lo the
// P-mass cut below the cells (its Q-mass at most 1) and P_hi the P-mass cut above them (tail_hi: losses beyond the
// last edge's, positive in both directions, so q <= p there and its term is at most P_hi).  The bound is inflated by
// kAffinitySlack relative for the cells' round-off and the sum's (n u with n <= 2^22 cells: below 1e-9).  delta is
// the largest over the neighbouring directions, so each direction's bound is a lower bound on delta; the best over
// the lam of kAffinityLambdas is taken.  Tails are cut at kAffinityTail (1e-100, so P_lo^{1-lam} stays below 1e-10
// for lam <= 0.9) and cells are kAffinityCellInterval wide or wider (the bound moves by 3e-7 relative from h = 1e-2 to
// 1e-3 at sigma 0.55, q 0.048).  Both doors raise their delta bracket's lower side to it where the upper side is above
// 1 - 1e-6 (python pld/refine/near_one.py through the binding, the C library's delta call, cpp/capi/refine.cpp).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "hockeystick/pld/grid/cells.hpp"

namespace hockeystick {
namespace pld {

// The orders lam: 18 evenly spaced from 0.05 to 0.9 (numpy.linspace's values).
constexpr int kAffinityOrders = 18;
inline double affinity_order(int k) {
    return k == kAffinityOrders - 1 ? 0.9 : 0.05 + k * ((0.9 - 0.05) / (kAffinityOrders - 1));
}
constexpr double kAffinityTail = 1e-100;
constexpr double kAffinityCellInterval = 1e-2;
constexpr std::int64_t kAffinityMaxCells = std::int64_t{1} << 16;
constexpr double kAffinitySlack = 1e-9;
// z with P(N(0, 1) > z) = kAffinityTail / 2: the cells span x in [-z sigma, 1 + z sigma].
constexpr double kAffinityTailZ = 21.3;

// Certified upper bounds on log A(lam) at each order, row 0 the remove direction (P the mixture), row 1 the add one.
using LogAffinity = std::array<std::array<double, kAffinityOrders>, 2>;

// The bounds of one round of the Poisson-subsampled Gaussian (noise sigma over sensitivity 1, rate q): the cell sum of
// the header's comment; 0 (A <= 1, a true bound that adds nothing) for q >= 1 (the Gaussian, read in closed form
// elsewhere), where the sum says nothing (0 or not finite), and where sigma is so small that its cells cannot be built.
inline LogAffinity subsampled_gaussian_log_affinity(double sigma, double q) {
    LogAffinity out{};
    if (!(q < 1.0)) return out;
    // the remove direction's loss spans at most (1 + 2 z s) / s^2 + |log(1 - q)| over the cells' range; below 1e-100
    // the span only picks h, already far past what cells hold
    const double wide = std::max(sigma, 1e-100);
    const double span = (1.0 + 2.0 * kAffinityTailZ * wide) / (wide * wide) - std::log1p(-q) + 1.0;
    const double h =
        std::min(std::max(kAffinityCellInterval, span / static_cast<double>(kAffinityMaxCells)), max_interval);
    const double expm1_h = std::expm1(h);
    for (int row = 0; row < 2; ++row) {
        Cells cells;
        try {
            cells = subsampled_gaussian_cells(sigma, q, row == 0, h, kAffinityTail, 64 * kAffinityMaxCells, false);
        } catch (const std::length_error&) { return LogAffinity{}; } catch (const std::invalid_argument&) {
            return LogAffinity{};
        }
        std::vector<double> log_a, log_b;  // log a_j and log b_j of the cells that carry both masses
        for (std::size_t j = 0; j < cells.c.size(); ++j) {
            const CellMass m = cell_mass(cells.c[j], cells.d[j], expm1_h);
            if (!(m.p > 0.0 && m.q_scaled > 0.0)) continue;
            log_a.push_back(std::log(m.p));
            log_b.push_back(std::log(m.q_scaled) - static_cast<double>(cells.k_lo + static_cast<std::int64_t>(j)) * h);
        }
        const double top = static_cast<double>(cells.k_lo + static_cast<std::int64_t>(cells.c.size())) * h;
        std::vector<double> terms(log_a.size());
        for (int k = 0; k < kAffinityOrders; ++k) {
            const double lam = affinity_order(k);
            double peak = -std::numeric_limits<double>::infinity();
            for (std::size_t j = 0; j < terms.size(); ++j) {
                terms[j] = (1.0 - lam) * log_a[j] + lam * log_b[j];
                peak = std::max(peak, terms[j]);
            }
            double inner = 0.0;
            if (std::isfinite(peak)) {
                for (const double t : terms) inner += std::exp(t - peak);
                inner *= std::exp(peak);
            }
            const double tails =
                std::pow(cells.tail_lo, 1.0 - lam) + cells.tail_hi * std::max(1.0, std::exp(-lam * top));
            const double bound = (inner + tails) * (1.0 + kAffinitySlack);
            out[row][k] = bound > 0.0 && std::isfinite(bound) ? std::log(std::min(bound, 1.0)) : 0.0;
        }
    }
    return out;
}

// A certified lower bound on delta(eps) of `rounds` rounds from `log_affinity`: 1 - min over the rows and orders of
// e^{lam eps + T log A(lam)}, rounded down (a few ulps of each of the three operations covered by a relative margin on
// the exponent and on the exponential); 0 where that exceeds 1, or eps is NaN; below 1 always.
inline double delta_lower_near_one(const LogAffinity& log_affinity, double rounds, double eps) {
    if (std::isnan(eps)) return 0.0;
    double exponent = std::numeric_limits<double>::infinity();
    for (const auto& row : log_affinity)
        for (int k = 0; k < kAffinityOrders; ++k)
            exponent = std::min(exponent, affinity_order(k) * eps + rounds * row[static_cast<std::size_t>(k)]);
    exponent += 1e-12 * (std::fabs(exponent) + 1.0);
    const double complement = std::exp(exponent) * (1.0 + 1e-12);
    return complement < 1.0 ? std::max(std::nextafter(1.0 - complement, 0.0), 0.0) : 0.0;
}

}  // namespace pld
}  // namespace hockeystick
