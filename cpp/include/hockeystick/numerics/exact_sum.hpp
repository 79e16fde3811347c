// The correctly rounded sum of n finite doubles (round half to even), the value Python's math.fsum returns: the
// running sum kept exactly as Shewchuk's nonoverlapping partials, each new term added to them by error-free two-sums,
// and the partials summed from the largest down with the half-even correction of the last step.  Reference: J. R.
// Shewchuk, "Adaptive precision floating-point arithmetic and fast robust geometric predicates", Discrete Comput.
// Geom. 18 (1997), 305-363.  Requires round-to-nearest and no contraction into an FMA (the build passes
// -ffp-contract=off).
#pragma once

#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

namespace hockeystick {

inline double exact_sum(const double* x, std::size_t n) {
    std::vector<double> partials;
    for (std::size_t i = 0; i < n; ++i) {
        double v = x[i];
        std::size_t kept = 0;
        for (std::size_t j = 0; j < partials.size(); ++j) {
            double y = partials[j];
            if (std::fabs(v) < std::fabs(y)) std::swap(v, y);
            const double hi = v + y;
            const double lo = y - (hi - v);
            if (lo != 0.0) partials[kept++] = lo;
            v = hi;
        }
        partials.resize(kept);
        if (v != 0.0) partials.push_back(v);
    }
    if (partials.empty()) return 0.0;
    std::size_t j = partials.size() - 1;
    double hi = partials[j], lo = 0.0;
    while (j > 0) {
        const double v = hi;
        const double y = partials[--j];
        hi = v + y;
        lo = y - (hi - v);
        if (lo != 0.0) break;
    }
    // a half-way case rounded to even in the wrong direction by the last addition: correct it
    if (j > 0 && ((lo < 0.0 && partials[j - 1] < 0.0) || (lo > 0.0 && partials[j - 1] > 0.0))) {
        const double y = lo * 2.0;
        const double v = hi + y;
        if (y == v - hi) hi = v;
    }
    return hi;
}

}  // namespace hockeystick
