// An optimistic grid PMF's certified lower delta from its charged lower values, read already: the package's
// GridPMF.delta on its optimistic side (through _core.pld_reads.lower_envelope, python pld/grid/pmf_envelope.py) and a
// delta refinement step's bracket (refine/step_sides.hpp).
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
// k + 7, ... find such a point m within a factor 2, and only [k, m) is evaluated (a value the same as the whole
// pass's up to the last bit of the curve's round-off, a lower bound in any case).  Where the ranges together pass
// half the grid, or where the caller asks for it (`whole`), the value reads the suffix maxima of the whole charged
// lower curve instead (one pass from the top of the grid, numpy's maximum.accumulate over the reversed grid): from
// the least k up, or, for a caller that keeps them for its later reads (EnvelopeCache: a root search queries one
// PMF many times), from the grid point at loss 0 or the least k, whichever is lower, read from the ones it holds
// where they reach the least k.  An uncharged PMF (total charge 0) keeps its values.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>
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

// The suffix sums of r's PMF that answer every grid point from j up: those from two grid points below it (the same
// doubles as the whole grid's there, the sums running from the top down).
inline GridProfile profile_from(const SideRead& r, std::int64_t j) {
    const std::int64_t start = std::max<std::int64_t>(j - 2, 0);
    return GridProfile(r.pmf.p + start, r.pmf.n - start, r.pmf.k_lo + start, r.h, r.pmf.p_inf);
}

// The suffix maxima of the charged lower curve at grid points least..n (entry j - least; 0 at n), one pass from the top
// of the grid (numpy's maximum.accumulate over the reversed grid).
inline std::vector<double> suffix_maxima(const GridProfile& profile, const SideRead& r, std::int64_t least) {
    return numpy_suffix_maxima(least, r.pmf.n, [&](std::int64_t j) { return lower_at_point(profile, r, j); });
}

}  // namespace detail

// The suffix maxima of a whole pass that a caller keeps between reads of one PMF: those it holds (values[j - from],
// the suffix maxima at grid point j, from <= j <= n, 0 at n; null: none), and those a read built where the held ones
// did not reach its least first grid point (empty: none built; from built_from).
struct EnvelopeCache {
    const double* held = nullptr;
    std::int64_t held_from = 0;
    std::vector<double> built;
    std::int64_t built_from = 0;
};

namespace detail {

// low[i] raised by the probes from first[i] and the grid points [first[i], stop) they leave (the header's comment),
// where those ranges together stay within half the grid; false (low untouched) where they pass it.
inline bool raise_by_probes(const SideRead& r, const std::vector<std::int64_t>& first, std::int64_t least,
                            double* low) {
    const GridProfile profile = profile_from(r, least);
    std::vector<std::int64_t> stop(first.size());
    std::int64_t total = 0;
    for (std::size_t i = 0; i < stop.size(); ++i) {
        stop[i] = probe_stop(profile, r, first[i], low[i]);
        total += stop[i] - first[i];
    }
    if (total > r.pmf.n / 2) return false;
    for (std::size_t i = 0; i < stop.size(); ++i)
        for (std::int64_t j = first[i]; j < stop[i]; ++j) low[i] = numpy_maximum(low[i], lower_at_point(profile, r, j));
    return true;
}

// low[i] raised to the suffix maxima of the whole pass at first[i]: those `cache` holds where they reach `least`, else
// built from `least` up (with a cache: from loss 0 or least, whichever is lower, and handed to it).
inline void raise_by_whole_pass(const SideRead& r, const std::vector<std::int64_t>& first, std::int64_t least,
                                double* low, EnvelopeCache* cache) {
    const bool held = cache != nullptr && cache->held != nullptr && cache->held_from <= least;
    std::int64_t from = least;
    std::vector<double> built;
    if (held) {
        from = cache->held_from;
    } else {
        if (cache != nullptr) from = std::min(least, std::min(std::max<std::int64_t>(-r.pmf.k_lo, 0), r.pmf.n - 1));
        built = suffix_maxima(profile_from(r, from), r, from);
    }
    const double* maxima = held ? cache->held : built.data();
    for (std::size_t i = 0; i < first.size(); ++i) low[i] = numpy_maximum(low[i], maxima[first[i] - from]);
    if (cache != nullptr && !held) {
        cache->built = std::move(built);
        cache->built_from = from;
    }
}

}  // namespace detail

// low[i] (r's charged lower value at the true curve's eps[i], m of them) raised to the suffix maxima of the charged
// lower curve from the first grid point at or above eps[i]'s curve argument (the header's comment), by the whole pass
// where `whole`; `cache` (null: none) the suffix maxima kept between reads.  Throws std::invalid_argument where r is
// pessimistic (its side is an upper one, which no envelope raises) or an argument is NaN.
inline void raise_to_envelope(const SideRead& r, const double* eps, double* low, std::int64_t m,
                              EnvelopeCache* cache = nullptr, bool whole = false) {
    if (r.pessimistic) throw std::invalid_argument("the envelope raises an optimistic PMF's lower side");
    if (r.charges.total == 0.0) return;
    const std::int64_t n = r.pmf.n;
    const std::vector<std::int64_t> first = detail::first_points(r, eps, m);
    const std::int64_t least = first.empty() ? n : *std::min_element(first.begin(), first.end());
    if (least >= n) return;  // every probe past the grid: nothing above to raise the values
    if (!whole && detail::raise_by_probes(r, first, least, low)) return;
    detail::raise_by_whole_pass(r, first, least, low, cache);
}

}  // namespace pld
}  // namespace hockeystick
