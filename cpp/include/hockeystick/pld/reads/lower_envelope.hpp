// An optimistic grid PMF's certified lower delta from its charged lower values, read already: python
// pmf.GridPMF.lower_with_envelope (and pmf_envelope.envelope_near, which it calls), the same doubles.
//
// The round-off charge falls as eps rises (fewer grid points above), so the charged lower curve may rise while
// delta itself does not: a lower bound at any eps' >= eps bounds delta(eps) too, and the optimistic side takes the
// largest one, at eps or at a grid point above it (the charge is constant between grid points).  With k the first
// grid point at or above eps' curve argument (eps moved up by the loss shift, loss_shifted), the value is
//
//   max(low, charged lower value at every grid point l_j, j >= k).
//
// The charged lower value at l_j is at most the uncharged one, raw(l_j) (1 - slack) + shift, which falls as j grows,
// so once that is at most the value held, no grid point from there up can raise it: probes at k, k + 1, k + 3,
// k + 7, ... find such a point m within a factor 2, and only [k, m) is evaluated.  Where the ranges together pass
// half the grid, the suffix maxima of the whole charged lower curve from the least k up are built instead (one pass
// from the top of the grid, numpy's maximum.accumulate over the reversed grid).  An uncharged PMF (total charge 0)
// keeps its values.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "hockeystick/pld/reads/charged_curve.hpp"
#include "hockeystick/pld/reads/charged_sides.hpp"
#include "hockeystick/pld/reads/hockey_stick.hpp"

namespace hockeystick {
namespace pld {

namespace detail {

// The number of bits of a positive count (Python's int.bit_length).
inline int bit_length(std::int64_t n) {
    int bits = 0;
    for (; n > 0; n >>= 1) ++bits;
    return bits;
}

// The loss of grid point j of r's PMF.
inline double grid_loss(const SideRead& r, std::int64_t j) { return static_cast<double>(r.pmf.k_lo + j) * r.h; }

// The charged lower value of r's PMF at grid point j, its curve read from `profile` (its suffix sums, or a top part of
// them that answers grid point j).
inline double lower_at_point(const GridProfile& profile, const SideRead& r, std::int64_t j) {
    const double k_lo = static_cast<double>(r.pmf.k_lo), size = static_cast<double>(r.pmf.n);
    return charged_side(profile, k_lo, size, r.h, r.charges, false, grid_loss(r, j));
}

// The first grid point at or above the curve argument of each of the m arguments eps (numpy's clip of ceil(a / h) -
// k_lo to [0, n]).  Throws std::invalid_argument on a NaN argument.
inline std::vector<std::int64_t> first_points(const SideRead& r, const double* eps, std::int64_t m) {
    const double size = static_cast<double>(r.pmf.n);
    std::vector<std::int64_t> first(static_cast<std::size_t>(m));
    for (std::int64_t i = 0; i < m; ++i) {
        const double e = loss_shifted(eps[i], r.pmf.loss_shift, true);
        if (std::isnan(e)) throw std::invalid_argument("epsilon must not be NaN");
        const double at = std::ceil(e / r.h) - static_cast<double>(r.pmf.k_lo);
        first[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(at < 0.0 ? 0.0 : (at > size ? size : at));
    }
    return first;
}

// Where the probes from grid point k stop (the header's comment): the first probe k + 2^t - 1 whose uncharged bound raw
// (1 - slack) + shift is not above `held`, n where they pass the grid first (the last probe, k + 2^t - 1 with t the
// bits of n, lies past it).
inline std::int64_t probe_stop(const GridProfile& profile, const SideRead& r, std::int64_t k, double held) {
    const std::int64_t n = r.pmf.n;
    const int probes = bit_length(std::max<std::int64_t>(n, 1)) + 1;
    for (int t = 0; t < probes; ++t) {
        const std::int64_t probe = std::min(k + ((std::int64_t{1} << t) - 1), n);
        if (probe >= n) return n;
        if (!(profile.delta(grid_loss(r, probe)) * (1.0 - r.charges.slack) + r.charges.shift > held)) return probe;
    }
    return n;
}

// The suffix maxima of the charged lower curve at grid points least..n (entry j - least; 0 at n), one pass from the top
// of the grid (numpy's maximum.accumulate over the reversed grid).
inline std::vector<double> suffix_maxima(const GridProfile& profile, const SideRead& r, std::int64_t least) {
    const std::int64_t n = r.pmf.n;
    std::vector<double> maxima(static_cast<std::size_t>(n - least + 1), 0.0);
    for (std::int64_t j = n - 1; j >= least; --j) {
        const double value = lower_at_point(profile, r, j);
        const std::size_t at = static_cast<std::size_t>(j - least);
        maxima[at] = j == n - 1 ? value : numpy_maximum(maxima[at + 1], value);
    }
    return maxima;
}

}  // namespace detail

// low[i] (r's charged lower value at the true curve's eps[i], m of them) raised to the suffix maxima of the charged
// lower curve from the first grid point at or above eps[i]'s curve argument (the header's comment).  Throws
// std::invalid_argument where r is pessimistic (its side is an upper one, which no envelope raises) or an argument is
// NaN.
inline void raise_to_envelope(const SideRead& r, const double* eps, double* low, std::int64_t m) {
    if (r.pessimistic) throw std::invalid_argument("the envelope raises an optimistic PMF's lower side");
    if (r.charges.total == 0.0) return;
    const std::int64_t n = r.pmf.n;
    const std::vector<std::int64_t> first = detail::first_points(r, eps, m);
    const std::int64_t least = first.empty() ? n : *std::min_element(first.begin(), first.end());
    if (least >= n) return;  // every probe past the grid: nothing above to raise the values
    // suffix sums from two grid points below the least first point up: the same doubles as the whole grid's there
    const std::int64_t start = std::max<std::int64_t>(least - 2, 0);
    const GridProfile profile(r.pmf.p + start, n - start, r.pmf.k_lo + start, r.h, r.pmf.p_inf);
    std::vector<std::int64_t> stop(static_cast<std::size_t>(m));
    std::int64_t total = 0;
    for (std::size_t i = 0; i < stop.size(); ++i) {
        stop[i] = detail::probe_stop(profile, r, first[i], low[i]);
        total += stop[i] - first[i];
    }
    if (total > n / 2) {  // the whole pass, from the least first point up
        const std::vector<double> maxima = detail::suffix_maxima(profile, r, least);
        for (std::size_t i = 0; i < stop.size(); ++i)
            low[i] = detail::numpy_maximum(low[i], maxima[static_cast<std::size_t>(first[i] - least)]);
        return;
    }
    for (std::size_t i = 0; i < stop.size(); ++i)
        for (std::int64_t j = first[i]; j < stop[i]; ++j)
            low[i] = detail::numpy_maximum(low[i], detail::lower_at_point(profile, r, j));
}

}  // namespace pld
}  // namespace hockeystick
