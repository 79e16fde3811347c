// The complement's scans over a composed PMF: the O(n) passes behind the bounds on 1 - delta of complement.hpp (its
// opening comment's (2) and (3), read through the tilt (4)), over every grid point of a composed window (10^4-10^5
// points, several per refinement step).
//
// Geometric sums.  With r = e^{-decay} (decay >= 0) and masses p_0 .. p_{n-1} >= 0,
//
//     rising:   before_i = sum_{j < i}  p_j r^{i - j}      (i = 0 .. n; before_0 = 0)
//     decayed:  after_i  = sum_{j >= i} p_j r^{j - i}      (i = 0 .. n; after_n = 0)
//
// by the first-order recursions y_i = p_i + r y_{i-1}, before_{i+1} = r y_i, and after_i = p_i +
// r after_{i+1}.  Each step is rounded as scipy.signal.lfilter([1], [1, -r], p) rounds it (its
// transposed direct form with b = (1, 0), a = (1, -r): y_i = z + 1 p_i, then z = p_i 0 - y_i (-r)),
// so the doubles are lfilter's (the tests' reference; with p >= 0 each step adds a relative error
// below 3u: below 3 (n + 1) u in all, complement.hpp's slack).  Read at a few indices only.
//
// Likelihood-ratio threshold.  Over the grid indices j (absolute: loss j h) where both composed PMFs
// carry mass (a_j > 0 and b_j > 0), the running maximum R_j of  log a_j - log b_j + j h + offset
// (numpy's maximum.accumulate: non-decreasing, a NaN kept once met); for each eps, the last such j
// with R_j < eps, or the first such j where none is (numpy's searchsorted(R, eps) - 1 clipped to
// the list, NaN sorting last); where no index carries both masses, the first index both windows
// share.  Every threshold gives a valid bound ((3)); this one, where the composed test crosses eps,
// gives about the tightest.
//
// Domain: n >= 0, indices in [0, n] (checked by the caller); any doubles otherwise (NaN and inf
// propagate as through numpy).  Work: O(n) at most, less where the indices and eps asked for
// lie low in the window (the rising sums and the threshold stop past them) or high (the decayed sums).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "hockeystick/pld/reads/hockey_stick.hpp"  // detail::numpy_maximum

namespace hockeystick {
namespace pld {

// values[t] = before_{at[t]} (rising) or after_{at[t]} (decayed) of the opening comment, at[t] in [0, n].
// The recursion runs only as far as the indices asked for need it (up to the largest for the rising sums,
// down to the least for the decayed ones), and nothing of size n is allocated.
inline void geometric_sums_at(const double* p, std::int64_t n, double decay, bool rising, const std::int64_t* at,
                              std::int64_t count, double* values) {
    const double r = std::exp(-decay);
    const double a1 = -r;  // lfilter's a = (1, -r)
    std::vector<std::int64_t> order(static_cast<std::size_t>(count));
    for (std::int64_t t = 0; t < count; ++t) order[t] = t;
    // the requests in the order the recursion meets their indices
    std::sort(order.begin(), order.end(),
              [&](std::int64_t x, std::int64_t y) { return rising ? at[x] < at[y] : at[x] > at[y]; });
    std::size_t next = 0;
    const std::int64_t start = rising ? 0 : n;  // before_0 = 0, after_n = 0
    while (next < order.size() && at[order[next]] == start) values[order[next++]] = 0.0;
    double z = 0.0;
    for (std::int64_t step = 0; step < n && next < order.size(); ++step) {
        const std::int64_t i = rising ? step : n - 1 - step;
        const double y = z + 1.0 * p[i];
        z = p[i] * 0.0 - y * a1;
        const std::int64_t k = rising ? i + 1 : i;  // before_{i+1} = r y, after_i = y
        const double value = rising ? r * y : y;
        while (next < order.size() && at[order[next]] == k) values[order[next++]] = value;
    }
}

// threshold[t] for eps[t] (opening comment): a (na masses from grid index a_lo) and b (nb from b_lo).  One
// pass up the shared indices, which stops once every eps has its threshold (the running maximum reached it);
// nothing of size n is allocated.
inline void ratio_threshold(const double* a, std::int64_t a_lo, std::int64_t na, const double* b, std::int64_t b_lo,
                            std::int64_t nb, double h, double offset, const double* eps, std::int64_t count,
                            std::int64_t* threshold) {
    const std::int64_t lo = std::max(a_lo, b_lo), hi = std::min(a_lo + na, b_lo + nb);
    // numpy's order: x before v when x < v, or v is NaN and x is not (NaN sorts last)
    const auto before = [](double x, double v) { return x < v || (v != v && x == x); };
    std::vector<std::int64_t> order(static_cast<std::size_t>(count));
    for (std::int64_t t = 0; t < count; ++t) order[t] = t;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::int64_t x, std::int64_t y) { return before(eps[x], eps[y]); });
    // The eps from order[open] on still have every running maximum so far before them: their threshold is
    // the latest shared index (`last`), or a later one.  One whose eps the running maximum R_j reaches gets
    // the shared index before j, or j itself if j is the first.
    std::size_t open = 0;
    bool seen = false;  // a shared index carrying both masses met yet (grid indices may be negative)
    std::int64_t last = lo;
    double running = 0.0;
    for (std::int64_t j = lo; j < hi && open < order.size(); ++j) {
        const double x = a[j - a_lo], y = b[j - b_lo];
        if (!(x > 0.0 && y > 0.0)) continue;
        const double ratio = std::log(x) - std::log(y) + static_cast<double>(j) * h + offset;
        running = seen ? detail::numpy_maximum(running, ratio) : ratio;
        while (open < order.size() && !before(running, eps[order[open]])) threshold[order[open++]] = seen ? last : j;
        last = j;
        seen = true;
    }
    // eps above every running maximum: the last shared index; none shared: the first index both windows share
    for (; open < order.size(); ++open) threshold[order[open]] = last;
}

}  // namespace pld
}  // namespace hockeystick
