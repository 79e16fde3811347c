// The round-off charge a tilted window (pld/reads/tilted.hpp) adds to the untilted curve it is read as, charged on
// the weighted sum that curve reads rather than on every mass above the read at weight 1 (tilted.hpp's read charges
// through tilted_window_charge; python pld/compose/tilted.py's tilted_weights is a front end over tilted_weights).
//
// What is charged.  Untilting a window composed under the tilt theta per grid step (p~_K = P_T(K) e^{theta K} /
// M^T, tilted.hpp's (1)) turns an error e~_K of the tilted entry K into M^T e^{-theta K} e~_K, so on
//
//     delta(x) = sum_{K h > x} (1 - e^{x - K h}) P_T(K) + p_inf
//
// the window's errors add M^T e^{-theta x / h} sum_K w_K e~_K with the weights
//
//     w_K = (1 - e^{x - K h}) e^{-theta (K - x / h)} = (1 - e^{-h j}) e^{-theta j},   j = K - x / h > 0,
//
// each in [0, 1].  The composition's round-off bounds a weighted sum of its entries by the sum S and the Euclidean
// norm N of the weights (GridCharges::weighted, pld/reads/hockey_stick.hpp: min(entry S, total, l2 N + min(inverse
// S, inverse_l2 N)), the l2 terms by Cauchy-Schwarz over the weights), so any upper bounds on S and N give a
// certified charge.  Two are kept, the lesser of each: the count m of the window's grid indices at or above
// floor(x / h) (one more than those above x, for the rounding of x / h) and sqrt(m), every weight taken at 1 (the
// plain charge, charge_at_argument's); and the weights summed to infinity in closed form (tilted_weights), which
// fall geometrically in j: about 1 / (lam^2 h) and 1 / (2 lam^1.5 h^0.5) at lam = theta / h, far below m and
// sqrt(m) where millions of masses lie above x (sigma 0.6, q 1e-5, 10^6 rounds, delta 1e-10, lam 6.8 on h 2.5e-5:
// a norm ~6 against ~1900).
//
// The closed form.  With j0 in (0, 1] the distance from x / h up to the first grid index above it (j = j0, j0 + 1,
// ...) and G(a) = sum_j e^{-a j} = e^{-a j0} / (1 - e^{-a}),
//
//     sum w = G(theta) - G(theta + h),        sum w^2 = G(2 theta) - 2 G(2 theta + h) + G(2 theta + 2 h).
//
// Rounding outward.  j0 = floor(p) + 1 - p (p = x / h as computed) is within 4 u (|p| + 1) of its value (u =
// 2^-53), so each G, falling in j0, has its positive terms taken at j0 lowered by that slack (at least 0) and its
// negative ones at j0 raised by it (at most 1, and the slack again); each G is then within a few u (exp, expm1, a
// product, a quotient), so the differences are raised by 64 u of their terms' magnitudes, and the norm by 4 u for
// its square root.  A difference not positive (the terms cancel below their rounding, or underflow) or arguments
// not finite and positive give no closed-form bound: (inf, inf), which leaves the plain charge.
//
// Edges.  x at or above the window's top grid index plus one (x / h, including x = inf and an x / h that overflows
// to inf, e.g. x = 1e308 on a fine grid) has no mass above it: charge 0, with no product formed.  x = -inf weighs
// the whole window (m = its size, no closed form).  A window that charges nothing (total 0) is charged 0.  NaN x, a
// step h not finite and > 0 or a negative size: NaN (no bound is known there; the caller's NaN policy applies).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "hockeystick/pld/reads/hockey_stick.hpp"

namespace hockeystick {
namespace pld {

// Upper bounds on the sum and the Euclidean norm of the weights a tilted window's errors carry on the untilted curve.
struct TiltedWeights {
    double sum = std::numeric_limits<double>::infinity();
    double norm = std::numeric_limits<double>::infinity();
};

namespace tilted_charge_detail {
constexpr double kUnit = 0x1p-53;  // u

// G(a) = e^{-a at} / (1 - e^{-a}), the sum of e^{-a j} over j = at, at + 1, ...
inline double geometric_tail(double a, double at) { return std::exp(-a * at) / -std::expm1(-a); }
}  // namespace tilted_charge_detail

// Upper bounds on sum_j w_j and (sum_j w_j^2)^{1/2}, w_j = (1 - e^{-h j}) e^{-theta j} over j = j0, j0 + 1, ...
// (j0 in (0, 1] the distance from `position` = x / h up to the first grid index above it), in closed form and
// rounded up (the header's comment); (inf, inf) where position is not finite, theta or h not > 0, or a difference
// is not positive.
inline TiltedWeights tilted_weights(double position, double theta, double h) {
    namespace d = tilted_charge_detail;
    constexpr double u = d::kUnit;
    if (!(std::isfinite(position) && theta > 0.0 && h > 0.0)) return {};
    const double j0 = std::floor(position) + 1.0 - position;
    const double slack = 4.0 * u * (std::fabs(position) + 1.0);
    const double low = std::max(0.0, j0 - slack), high = std::min(1.0, j0 + slack) + slack;
    const double plus = d::geometric_tail(theta, low), minus = d::geometric_tail(theta + h, high);
    const double total = plus - minus + 64.0 * u * (plus + minus);
    const double plus_sq = d::geometric_tail(2.0 * theta, low) + d::geometric_tail(2.0 * theta + 2.0 * h, low);
    const double minus_sq = 2.0 * d::geometric_tail(2.0 * theta + h, high);
    const double square = plus_sq - minus_sq + 64.0 * u * (plus_sq + minus_sq);
    if (!(total > 0.0 && square > 0.0)) return {};
    return {total, std::sqrt(square) * (1.0 + 4.0 * u)};
}

// The round-off charge, on the untilted curve at the argument x (already moved by the loss shift), of a window of
// `size` grid masses from grid index k_lo (step h) composed under the tilt theta per grid step, before the untilt
// factor M^T e^{-theta x / h}: charges.weighted(S, N) at S and N the lesser of tilted_weights' bounds and the count
// m of the window's indices at or above floor(x / h) and sqrt(m) (the header's comment).  0 above the window or at
// x = inf, or where the window charges nothing; NaN for a NaN x, a step h not finite and > 0 or a negative size.
inline double tilted_window_charge(double x, std::int64_t k_lo, std::int64_t size, double h, double theta,
                                   const GridCharges& charges) {
    if (std::isnan(x) || !(h > 0.0 && std::isfinite(h)) || size < 0) return std::numeric_limits<double>::quiet_NaN();
    if (charges.total == 0.0) return 0.0;
    const double position = x / h;
    const double end = static_cast<double>(k_lo + size);  // one past the top grid index (exact below 2^53)
    if (!(position < end)) return 0.0;                     // above the window (or infinite): no mass weighs
    // the indices from max(floor(x / h), k_lo) to the top; in doubles, so that a far negative x does not overflow
    const double first = std::max(std::floor(position), static_cast<double>(k_lo));
    const double count = std::max(0.0, std::min(static_cast<double>(size), end - first));
    if (count == 0.0) return 0.0;
    const TiltedWeights w = tilted_weights(position, theta, h);
    return charges.weighted(std::min(w.sum, count), std::min(w.norm, std::sqrt(count)));
}

}  // namespace pld
}  // namespace hockeystick
