// The sum of n doubles in the order numpy's float64 sum of a contiguous array takes them (numpy.add.reduce: 0.0
// plus its pairwise sum), so a value the facade reads as numpy's sum (pmf.GridPMF.finite_mass) can be computed in
// the core, the same bits, where the masses are still in cache (pld/compose/charge.hpp).
//
// The order (numpy's documented pairwise summation, numpy/_core/src/umath/loops_utils.h.src): fewer than 8 terms
// are added left to right onto 0.0; up to 128 terms go to 8 running sums, term i to sum i mod 8 over the leading
// multiple of 8, then ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)), then the rest left to right; more than
// 128 are split at half the count rounded down to a multiple of 8, and the two halves' sums added.  Every
// addition is an IEEE double addition in that order (no reassociation: the core is built without fast-math), so
// the result equals numpy's whatever the compiler vectorizes.  Header-only, no dependency.
#pragma once

#include <cstdint>

namespace hockeystick {

namespace detail {

// numpy's pairwise sum of p[0 .. n) (the order above), without the leading 0.0.
inline double pairwise_block_sum(const double* p, std::int64_t n) {
    if (n < 8) {
        double s = 0.0;
        for (std::int64_t i = 0; i < n; ++i) s += p[i];
        return s;
    }
    if (n <= 128) {
        double r[8];
        for (int j = 0; j < 8; ++j) r[j] = p[j];
        std::int64_t i = 8;
        for (; i < n - n % 8; i += 8)
            for (int j = 0; j < 8; ++j) r[j] += p[i + j];
        double s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; ++i) s += p[i];
        return s;
    }
    std::int64_t half = n / 2;
    half -= half % 8;
    return pairwise_block_sum(p, half) + pairwise_block_sum(p + half, n - half);
}

}  // namespace detail

// float(numpy.sum(p[0 .. n))) for a contiguous float64 array, bit for bit: 0.0 plus the pairwise sum.
inline double numpy_sum(const double* p, std::int64_t n) { return 0.0 + detail::pairwise_block_sum(p, n); }

}  // namespace hockeystick
