// The law of A + B for independent A and B on a grid 0 = g_0 < g_1 < ... < g_top, kept above or below
// the true sum in the convex order: the two steps of random allocation's one-epoch law
// (python/hockeystick/pld/sampling/random_allocation.py, where the grid and the proof are described).
//
// spread_sum (upper): A and B sit on grid points.  A sum s in [g_k, g_k+1) goes to g_k and g_k+1 with
// masses m (g_k+1 - s) / gap and m (s - g_k) / gap (a mean-preserving spread); a sum at or above g_top
// stays at g_top and its excess of mean m (s - g_top) goes to +infinity; a pair whose smaller term is
// more than `exact_ratio` times below the larger keeps the larger and sends the smaller's mean m g to
// +infinity (their sum would round); a product of less than `negligible` mass and weight goes to 0
// with its mean at +infinity (both spreads).  Grid values carry short significands, so every other
// sum is exact and each emitted mass is a few correctly rounded operations from its exact value.
//
// merged_sum (lower): A and B are atoms (Q-mass q, weight w = E[S; atom], mean w / q).  The atoms of
// each cell [g_k, g_k+1) (the top cell unbounded) are merged: masses and weights summed (a
// mean-preserving contraction); a product of less than `negligible` mass and weight is dropped (an
// atom dropped whole only lowers every hockey-stick term).
//
// Both return the most terms summed into one cell (each sum of positive terms then errs by at most
// (terms - 1) u relative) and, for the spread, the mean sent to +infinity.  With `square` (B is A),
// each unordered pair is formed once and counted twice off the diagonal.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace hockeystick::pld {

struct AllocationSum {
    double infinite = 0.0;       // mean sent to +infinity (spread only)
    std::int64_t most_terms = 0; // the most terms summed into one cell
};

namespace detail {

// The cell [g_k, g_k+1) holding s >= 0 (top for s >= g_top), starting the search at k (any start).
inline std::int64_t cell_of(const double* grid, std::int64_t top, double s, std::int64_t k) {
    k = std::min(std::max(k, std::int64_t{0}), top);
    while (k > 0 && grid[k] > s) --k;
    while (k < top && grid[k + 1] <= s) ++k;
    return k;
}

inline std::int64_t most(const std::vector<std::int64_t>& terms) {
    return terms.empty() ? 0 : *std::max_element(terms.begin(), terms.end());
}

}  // namespace detail

inline AllocationSum spread_sum(const double* grid, std::int64_t size, const double* a, const double* b, bool square,
                                double exact_ratio, double negligible, double* out) {
    const std::int64_t top = size - 1;
    constexpr double subnormal_error = 4.9406564584124654e-324;  // a product's absolute error below 2^-1022
    std::vector<std::int64_t> terms(static_cast<std::size_t>(size), 0);
    AllocationSum result;
    for (std::int64_t i = 0; i < size; ++i) {
        if (!(a[i] > 0.0)) continue;
        std::int64_t k = i;
        for (std::int64_t j = square ? i : 0; j < size; ++j) {
            if (!(b[j] > 0.0)) continue;
            const double count = (square && j != i) ? 2.0 : 1.0;
            const double mass = a[i] * b[j] * count;
            const double small = std::min(grid[i], grid[j]), big = std::max(grid[i], grid[j]);
            const bool far = small * exact_ratio < big;
            const double s = far ? big : small + big;
            if (mass * std::max(s, 1.0) < negligible) {
                out[0] += mass;
                result.infinite += (mass + subnormal_error) * s;
                ++terms[0];
                continue;
            }
            if (far) result.infinite += mass * small;
            k = detail::cell_of(grid, top, s, k);
            if (k == top) {
                out[top] += mass;
                result.infinite += mass * (s - grid[top]);
                ++terms[static_cast<std::size_t>(top)];
                continue;
            }
            const double gap = grid[k + 1] - grid[k];
            out[k] += mass * ((grid[k + 1] - s) / gap);
            out[k + 1] += mass * ((s - grid[k]) / gap);
            ++terms[static_cast<std::size_t>(k)];
            ++terms[static_cast<std::size_t>(k + 1)];
        }
    }
    result.most_terms = detail::most(terms);
    return result;
}

inline AllocationSum merged_sum(const double* grid, std::int64_t size, const double* qa, const double* wa,
                                const double* qb, const double* wb, bool square, double negligible, double* q_out,
                                double* w_out) {
    const std::int64_t top = size - 1;
    std::vector<std::int64_t> terms(static_cast<std::size_t>(size), 0);
    for (std::int64_t i = 0; i < size; ++i) {
        if (!(qa[i] > 0.0)) continue;
        const double mean_a = wa[i] / qa[i];
        std::int64_t k = i;
        for (std::int64_t j = square ? i : 0; j < size; ++j) {
            if (!(qb[j] > 0.0)) continue;
            const double count = (square && j != i) ? 2.0 : 1.0;
            const double s = mean_a + wb[j] / qb[j];
            const double mass = qa[i] * qb[j] * count;
            if (mass * std::max(s, 1.0) < negligible) continue;
            k = detail::cell_of(grid, top, s, k);
            q_out[k] += mass;
            w_out[k] += (wa[i] * qb[j] + qa[i] * wb[j]) * count;
            ++terms[static_cast<std::size_t>(k)];
        }
    }
    return {0.0, detail::most(terms)};
}

}  // namespace hockeystick::pld
