// The certified epsilon bracket a delta bracket implies: its width at delta* = up, from a
// certified bracket lo <= delta(eps0) <= up and a certified bound on delta at a second argument.
// (python/hockeystick/pld/reads/epsilon_width.py has the derivation; the accountant's refinement asks
// for these widths at every step, so they are computed here, not in numpy.)
//
// eps0 is a certified upper bound on epsilon(up) = inf{eps : delta(eps) <= up}, since delta(eps0)
// <= up.  A lower end needs a certified lower bound on delta above up to the left of eps0:
//
//   chord (to the right):  delta(gamma) = sup_S P(S) - gamma Q(S) is convex and non-increasing
//     in gamma = e^eps (Balle, Barthe, Gaboardi, Hsu, Sato, AISTATS 2020, Sec. 3), so with a
//     certified upper bound up2 at eps2 > eps0 and drop = lo - up2 > 0,
//         x = (up - lo) expm1(eps2 - eps0) / drop,   width = -log1p(-x)   (x < 1),
//     +inf where drop <= 0, eps2 <= eps0 (eps0 = inf, or eps0 + d rounding back to eps0) or x >= 1;
//   left (monotone):  a certified lower bound lo1 > up at eps1 < eps0 gives width eps0 - eps1
//     (delta does not increase), +inf elsewhere.
//
// Each width is rounded up by the relative epsilon_width_rounding (1 + 1e-12: the few operations'
// round-off, each within an ulp, libm's expm1 and log1p included) and capped at max(eps0, 0)
// (epsilon >= 0).  The least over several second arguments is a valid width too.
//
// Domain: any doubles.  NaN propagates as numpy's minimum and maximum propagate it (a NaN eps0
// gives NaN; a NaN bound leaves its width +inf, then capped), so the facade's arrays keep the values
// the numpy formulas gave.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "hockeystick/pld/reads/hockey_stick.hpp"  // detail::numpy_minimum, numpy_maximum

namespace hockeystick {
namespace pld {

constexpr double epsilon_width_rounding = 1.0 + 1e-12;

// The chord's width (opening comment) at eps0 with bracket [lo, up], from up2 at eps2.
inline double chord_epsilon_width(double eps0, double lo, double up, double eps2, double up2) {
    const double inf = std::numeric_limits<double>::infinity();
    const double drop = eps2 > eps0 ? lo - up2 : 0.0;
    const double gap = detail::numpy_maximum(up - lo, 0.0);
    const double x = drop > 0.0 ? gap * std::expm1(eps2 - eps0) / drop * epsilon_width_rounding : inf;
    const double width = x < 1.0 ? -std::log1p(-x) * epsilon_width_rounding : inf;
    return detail::numpy_minimum(width, detail::numpy_maximum(eps0, 0.0));
}

// The left width (opening comment) at eps0 with upper bound up, from the lower bound lo1 at eps1.
inline double left_epsilon_width(double eps0, double up, double eps1, double lo1) {
    const double inf = std::numeric_limits<double>::infinity();
    const double width = lo1 > up && eps1 < eps0 ? (eps0 - eps1) * epsilon_width_rounding : inf;
    return detail::numpy_minimum(width, detail::numpy_maximum(eps0, 0.0));
}

// A point's least width at each of its `own` arguments.  Layout of x, lower and upper (size
// entries, a multiple of own): the own arguments, then right_rows rows of own arguments each to
// their right (their upper sides feed the chord), then the remaining rows to their left (their
// lower sides feed the left width).  out: own entries.
inline void least_epsilon_width(const double* x, const double* lower, const double* upper, std::int64_t size,
                                std::int64_t own, std::int64_t right_rows, double* out) {
    const double inf = std::numeric_limits<double>::infinity();
    const std::int64_t rows = own > 0 ? size / own - 1 : 0;
    const std::int64_t right = std::min(rows, right_rows);
    for (std::int64_t i = 0; i < own; ++i) {
        double chord = inf, left = inf;
        for (std::int64_t r = 1; r <= right; ++r) {
            const std::int64_t k = r * own + i;
            chord = detail::numpy_minimum(chord, chord_epsilon_width(x[i], lower[i], upper[i], x[k], upper[k]));
        }
        for (std::int64_t r = right + 1; r <= rows; ++r) {
            const std::int64_t k = r * own + i;
            left = detail::numpy_minimum(left, left_epsilon_width(x[i], upper[i], x[k], lower[k]));
        }
        out[i] = detail::numpy_minimum(chord, left);
    }
}

}  // namespace pld
}  // namespace hockeystick
