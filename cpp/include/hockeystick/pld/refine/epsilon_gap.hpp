// The epsilon gap of a delta bracket: how far right of eps the upper curve falls to the lower side there, eps* - eps,
// eps* where the chord in gamma = e^eps between the two arguments that straddle the crossing meets `lower`: the first
// argument of x beyond eps whose upper value is <= lower, and the argument before it (eps itself, with `upper`, if none
// of x lies between).  Where no argument beyond eps has an upper value <= lower but lower > 0, the line through the
// two largest arguments' upper values, extended (a delta near 1 whose drop over the arguments is less than the
// bracket's gap); +inf where that line does not fall (flat) or lower is 0.
//
// A model for sizing a refinement's next grid, not a bound (python/hockeystick/pld/reads/epsilon_width.py,
// epsilon_gap, has the reasoning: the upper curve is convex in gamma, so the chord read between two arguments is at
// or right of the curve's own crossing, the extended one at or left of it).  The gap shrinks with the grid about like
// h^2, so it foretells the next grid's width where the width itself is capped or a step of the offsets
// (points_rules.hpp).  The numpy formula's operations in its order, NaN propagated as numpy's maximum and clip do.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "hockeystick/pld/reads/hockey_stick.hpp"  // detail::numpy_minimum, numpy_maximum

namespace hockeystick {
namespace pld {

// The curve's other arguments sorted (stably) with their upper values: what every gap of one bracket reads.
struct GapCurve {
    std::vector<double> x, upper;

    GapCurve(const double* xs, const double* ups, std::int64_t n) {
        std::vector<std::int64_t> order(static_cast<std::size_t>(n));
        std::iota(order.begin(), order.end(), std::int64_t{0});
        std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return xs[a] < xs[b]; });
        x.reserve(order.size());
        upper.reserve(order.size());
        for (const std::int64_t k : order) x.push_back(xs[k]), upper.push_back(ups[k]);
    }
};

namespace epsilon_gap_detail {

// The gap read beyond the last argument: the line through the last two upper values, extended to `lower` (+inf where
// that line does not fall, or where lower is 0 or the last argument is not right of eps).
inline double beyond_last(double eps, double lower, const std::vector<double>& xs, const std::vector<double>& us) {
    const double inf = std::numeric_limits<double>::infinity();
    const std::size_t n = xs.size();
    const double fall = n > 1 ? us[n - 2] - us[n - 1] : 0.0;
    if (!(fall > 0.0)) return inf;
    const double g_last = std::exp(xs[n - 1] - eps), g_before = std::exp(xs[n - 2] - eps);
    const double beyond = std::log(g_last + (us[n - 1] - lower) * (g_last - g_before) / fall);
    const bool extended = lower > 0.0 && xs[n - 1] > eps && std::isfinite(beyond);
    return extended ? beyond : inf;
}

// The gap read between arguments j - 1 (or eps itself) and j, the first argument right of eps at or below `lower`.
inline double between(double eps, double lower, double upper, std::size_t j, const std::vector<double>& xs,
                      const std::vector<double>& us) {
    namespace d = detail;
    const std::size_t left = j > 0 ? j - 1 : 0;
    const bool inside = j > 0 && xs[left] > eps;
    const double x_left = inside ? xs[left] : eps;
    const double u_left = d::numpy_maximum(inside ? us[left] : upper, lower);
    const double u_right = us[j];
    const double ratio = u_left > u_right ? (u_left - lower) / (u_left - u_right) : 1.0;
    const double t = d::numpy_minimum(d::numpy_maximum(ratio, 0.0), 1.0);  // np.clip
    const double g_left = std::exp(x_left - eps), g_right = std::exp(xs[j] - eps);
    return std::log(g_left + t * (g_right - g_left));
}

}  // namespace epsilon_gap_detail

// The gap (the header's comment) at eps with bracket [lower, upper] against `curve`.
inline double epsilon_gap(double eps, double lower, double upper, const GapCurve& curve) {
    const std::vector<double>& xs = curve.x;
    const std::vector<double>& us = curve.upper;
    if (xs.empty()) return std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < xs.size(); ++j)
        if (xs[j] > eps && us[j] <= lower) return epsilon_gap_detail::between(eps, lower, upper, j, xs, us);
    return epsilon_gap_detail::beyond_last(eps, lower, xs, us);
}

}  // namespace pld
}  // namespace hockeystick
