// A certified epsilon(delta) from one certified side of delta(eps), by a bracketing root search whose every step
// evaluates the side at a batch of points (python pld/compose/atoms_epsilon.py's epsilon_search calls it).
//
// Invariant: lo with delta(lo) > target and hi with delta(hi) <= target, both evaluated.  On the upper side the
// answer is hi (the true epsilon is at most hi, as delta_up(hi) <= target; +inf where even `top`, above every finite
// loss, fails; 0 where eps = 0 meets the target); on the lower side lo (the true delta exceeds the target there, so
// the true epsilon is at least lo; `top` where top still exceeds it).  Only evaluated values decide an end, so the
// answer is rounded outward by construction: no interpolated point is ever reported, and neither side needs the
// computed curve to be monotone.  Every comparison is on the evaluated doubles; NaN is refused.
//
// The steps: Illinois false position of g = log max(delta, 1e-300) - log target (nearly linear in eps), with a
// bisection whenever two steps have not halved the interval, until hi - lo <= max(tolerance, 4 ulp(hi)).  `hints`
// (points expected near the answer: a coarser grid's bracket, the other side's epsilon) are evaluated with 0 and
// `top` in one call, and the search starts from the narrowest bracket any evaluated pair gives; without hints,
// `first_pass` evenly spaced points play their part.  `cluster` > 0 evaluates, in the same call as each false
// position x, the points x +- inner tolerance r^i (i < cluster / 2, r >= 2 reaching the even spacing) and `cluster`
// points evenly over the bracket (which then shrinks at least cluster + 1 times a call), x itself aimed by inverse
// cubic interpolation through the evaluated points nearest each end; the first call puts such a cluster (reaching
// the other hints) around every hint.  Every point is computed as the package's numpy formulas compute it (the same
// operations in the same order, -ffp-contract=off, libm's log and pow), so the answer is the same double.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace hockeystick {
namespace pld {

// A cluster puts points at x +- epsilon_search_inner tolerance r^i, r >= 2: neighbours less than tolerance apart.
constexpr double epsilon_search_inner = 0.45;

// What the search asks: the side (upper), the target delta, a point above every finite loss (`top`, delta is
// constant beyond it), the width to narrow to, and where to look first (opening comment).
struct EpsilonSearchQuestion {
    double target = 0.0;
    bool upper = true;
    double top = 0.0;
    double tolerance = 0.0;
    std::vector<double> hints;
    int first_pass = 0;
    int cluster = 0;
};

namespace epsilon_search_detail {

// g = log max(delta, 1e-300) - log target: nearly linear in eps, where the false position aims.
inline double log_gap(double value, double log_target) { return std::log(std::max(value, 1e-300)) - log_target; }

// Python's math.ulp of a finite or infinite double.
inline double ulp(double x) {
    const double inf = std::numeric_limits<double>::infinity();
    x = std::fabs(x);
    if (std::isinf(x) || std::isnan(x)) return x;
    const double up = std::nextafter(x, inf);
    return std::isinf(up) ? x - std::nextafter(x, -inf) : up - x;
}

// inner tolerance r^i, i < half, with r >= 2 reaching `reach` at i = half - 1.
inline std::vector<double> spread(int half, double reach, double tolerance) {
    const double ratio =
        std::max(2.0, std::pow(reach / (epsilon_search_inner * tolerance), 1.0 / std::max(half - 1, 1)));
    std::vector<double> out(static_cast<std::size_t>(half));
    for (int i = 0; i < half; ++i) out[i] = epsilon_search_inner * tolerance * std::pow(ratio, static_cast<double>(i));
    return out;
}

// The points evaluated with 0 and top: each hint with a cluster around it reaching the others where cluster > 0,
// the hints alone where not; without hints, first_pass evenly spaced points of (0, top) (numpy's linspace).
inline std::vector<double> guesses(const EpsilonSearchQuestion& q) {
    std::vector<double> out;
    if (q.hints.empty()) {
        const double div = q.first_pass + 1.0, step = q.top / div;
        for (int i = 1; i <= q.first_pass; ++i) out.push_back(step == 0.0 ? i / div * q.top : i * step + 0.0);
        return out;
    }
    if (q.cluster <= 0) return q.hints;
    const auto [least, most] = std::minmax_element(q.hints.begin(), q.hints.end());
    const std::vector<double> s =
        spread(std::max(q.cluster / 2, 1), std::max(*most - *least, 2.0 * q.tolerance), q.tolerance);
    for (const double centre : q.hints) {
        for (const double d : s) out.push_back(centre + -d);
        for (const double d : s) out.push_back(centre + d);
        out.push_back(centre);
    }
    return out;
}

// `cluster` points evenly over (lo, hi) and x +- inner tolerance r^i reaching the even spacing: those strictly
// inside (lo, hi), sorted.
inline std::vector<double> cluster_points(double lo, double hi, double x, int cluster, double tolerance) {
    std::vector<double> around;
    for (int k = 1; k <= cluster; ++k) around.push_back(lo + (hi - lo) * k / (cluster + 1.0));
    const std::vector<double> s = spread(std::max(cluster / 2, 1), (hi - lo) / (cluster + 1.0), tolerance);
    for (const double d : s) around.push_back(x - d);
    around.push_back(x);
    for (const double d : s) around.push_back(x + d);
    std::sort(around.begin(), around.end());
    std::vector<double> out;
    for (const double v : around)
        if (v > lo && v < hi) out.push_back(v);
    return out;
}

// Up to two points of positive value at or below lo (the nearest) and up to two at or above hi (the nearest), in
// increasing x as (x, value); none where a side has no positive value.
inline std::vector<std::pair<double, double>> points_beside(const std::vector<double>& xs,
                                                            const std::vector<double>& values, double lo, double hi) {
    std::vector<std::pair<double, double>> l, r;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        if (!(values[i] > 0.0)) continue;
        if (xs[i] <= lo) l.emplace_back(xs[i], values[i]);
        if (xs[i] >= hi) r.emplace_back(xs[i], values[i]);
    }
    if (l.empty() || r.empty()) return {};
    const auto by_x = [](const std::pair<double, double>& a, const std::pair<double, double>& b) {
        return a.first < b.first;
    };
    std::sort(l.begin(), l.end(), by_x);
    std::sort(r.begin(), r.end(), by_x);
    std::vector<std::pair<double, double>> p(l.end() - std::min<std::size_t>(l.size(), 2), l.end());
    p.insert(p.end(), r.begin(), r.begin() + std::min<std::size_t>(r.size(), 2));
    return p;
}

// The x where the polynomial through (g_i, x_i) (Lagrange form) takes g = 0.
inline double lagrange_at_zero(const std::vector<double>& px, const std::vector<double>& pg) {
    double estimate = 0.0;
    for (std::size_t i = 0; i < px.size(); ++i) {
        double weight = 1.0;
        for (std::size_t j = 0; j < px.size(); ++j)
            if (j != i) weight *= pg[j] / (pg[j] - pg[i]);
        estimate += px[i] * weight;
    }
    return estimate;
}

// Where log delta crosses the target, by inverse interpolation (x as a polynomial in g, Lagrange form at g = 0)
// through lo, hi and the nearest evaluated points beyond each (up to two a side); `fallback` where a side has no
// positive value, fewer than three points are found, they are not strictly decreasing in delta, or the estimate
// leaves (lo, hi).  Only where the search looks next: every answer is evaluated.
inline double inverse_cubic(const std::vector<double>& xs, const std::vector<double>& values, double lo, double hi,
                            double log_target, double fallback) {
    const std::vector<std::pair<double, double>> p = points_beside(xs, values, lo, hi);
    if (p.size() < 3) return fallback;
    std::vector<double> px, pg;
    for (const auto& [x, v] : p) {
        px.push_back(x);
        pg.push_back(std::log(v) - log_target);
    }
    for (std::size_t i = 1; i < p.size(); ++i)
        if (!(px[i] - px[i - 1] > 0.0 && pg[i] - pg[i - 1] < 0.0)) return fallback;
    const double estimate = lagrange_at_zero(px, pg);
    return lo < estimate && estimate < hi ? estimate : fallback;
}

// lo with delta(lo) > target and hi with delta(hi) <= target, with g at each; kept is -1 where the last step moved lo
// only, +1 where it moved hi only, 0 otherwise (Illinois: a side moved twice in a row halves the other side's g).
struct Bracket {
    double lo, hi, g_lo, g_hi;
    int kept = 0;

    // The false position of g = 0 on (lo, hi); the midpoint where g does not fall across it.
    double false_position() const { return g_hi < g_lo ? hi - g_hi * (hi - lo) / (g_hi - g_lo) : 0.5 * (lo + hi); }

    // Moves lo and/or hi (each where its flag is set), then the Illinois halving.
    void move(bool move_lo, double x_lo, double gx_lo, bool move_hi, double x_hi, double gx_hi) {
        if (move_lo) lo = x_lo, g_lo = gx_lo;
        if (move_hi) hi = x_hi, g_hi = gx_hi;
        if (move_lo && move_hi) {
            kept = 0;
        } else if (move_lo) {
            if (kept == -1) g_hi = 0.5 * g_hi;
            kept = -1;
        } else {
            if (kept == 1) g_lo = 0.5 * g_lo;
            kept = 1;
        }
    }
};

inline void check_values(const std::vector<double>& points, const std::vector<double>& values) {
    if (values.size() != points.size())
        throw std::invalid_argument("delta_of must return one delta per point asked (epsilon_search)");
    for (const double v : values)
        if (std::isnan(v)) throw std::invalid_argument("delta_of returned NaN: the side curve is not a bound");
}

// The question's refusals that need no evaluation.
inline void check_question(const EpsilonSearchQuestion& q) {
    if (!(q.tolerance >= 0.0)) throw std::invalid_argument("tolerance must be >= 0 (the bracket's final width)");
    if (!(q.top >= 0.0 && std::isfinite(q.top)))
        throw std::invalid_argument("top must be finite and >= 0 (a point above every finite loss)");
}

// The first call's points: 0, top and the guesses inside (0, top), sorted, each once.
inline std::vector<double> first_points(const EpsilonSearchQuestion& q) {
    std::vector<double> points{0.0, q.top};
    for (const double x : guesses(q))
        if (0.0 < x && x < q.top) points.push_back(x);
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    return points;
}

// The answer the first call's ends settle (opening comment: +inf, 0 or top), none where they settle none.
inline std::optional<double> settled_end(const std::vector<double>& values, const EpsilonSearchQuestion& q) {
    if (q.upper && values.back() > q.target) return std::numeric_limits<double>::infinity();
    if (values.front() <= q.target) return 0.0;
    if (!q.upper && values.back() > q.target) return q.top;
    return std::nullopt;
}

// The narrowest bracket of the first call: its first point at or below the target and the point before it.
inline Bracket first_bracket(const std::vector<double>& points, const std::vector<double>& values, double target,
                             double log_target) {
    std::size_t first = 1;
    while (!(values[first] <= target)) ++first;
    return Bracket{points[first - 1], points[first], log_gap(values[first - 1], log_target),
                   log_gap(values[first], log_target)};
}

// Where step `steps` evaluates: the false position, aimed by the inverse cubic through `seen` on a cluster step that
// is not a third; every third step a bisection where the two before it have not halved the interval (width_before
// is that width, updated here); kept a quarter tolerance inside the bracket.
inline double next_point(const Bracket& b, int steps, double& width_before, const EpsilonSearchQuestion& q,
                         const std::vector<double>& seen_x, const std::vector<double>& seen_v, double log_target) {
    double x = b.false_position();
    if (q.cluster > 0 && steps % 3 != 0) x = inverse_cubic(seen_x, seen_v, b.lo, b.hi, log_target, x);
    if (steps % 3 == 0) {
        if (b.hi - b.lo > 0.5 * width_before) x = 0.5 * (b.lo + b.hi);
        width_before = b.hi - b.lo;
    }
    const double margin = 0.25 * q.tolerance;
    return std::min(std::max(x, b.lo + margin), b.hi - margin);
}

// A cluster step around x (opening comment): its points evaluated in one call, kept in `seen`, and the bracket
// moved to the last point above the target and the first at or below it.
template <class DeltaOf>
void cluster_step(DeltaOf& delta_of, Bracket& b, double x, const EpsilonSearchQuestion& q, double log_target,
                  std::vector<double>& seen_x, std::vector<double>& seen_v) {
    const std::vector<double> trial = cluster_points(b.lo, b.hi, x, q.cluster, q.tolerance);
    std::vector<double> tried(trial.size(), 0.0);
    delta_of(trial, tried);
    check_values(trial, tried);
    seen_x.insert(seen_x.end(), trial.begin(), trial.end());
    seen_v.insert(seen_v.end(), tried.begin(), tried.end());
    std::size_t k = 0;  // the first trial point at or below the target (trial.size() where none is)
    while (k < trial.size() && !(tried[k] <= q.target)) ++k;
    const bool move_lo = k > 0, move_hi = k < trial.size();
    b.move(move_lo, move_lo ? trial[k - 1] : 0.0, move_lo ? log_gap(tried[k - 1], log_target) : 0.0, move_hi,
           move_hi ? trial[k] : 0.0, move_hi ? log_gap(tried[k], log_target) : 0.0);
}

// A step of one point x: the side its value puts it on (the gap is floored: a target below 1e-300) moves.
template <class DeltaOf>
void single_step(DeltaOf& delta_of, Bracket& b, double x, const EpsilonSearchQuestion& q, double log_target) {
    const std::vector<double> trial(1, x);
    std::vector<double> tried(1, 0.0);
    delta_of(trial, tried);
    check_values(trial, tried);
    const double gx = log_gap(tried[0], log_target);
    if (tried[0] > q.target) {
        b.move(true, x, gx, false, 0.0, 0.0);
    } else {
        b.move(false, 0.0, 0.0, true, x, gx);
    }
}

}  // namespace epsilon_search_detail

// The certified epsilon (opening comment).  delta_of(points, values) fills values (resized by the caller to
// points.size()) with the side's delta at each point of the sorted batch.  Throws std::invalid_argument where the
// tolerance is not >= 0 or top is not finite and >= 0, where delta_of returns NaN or a batch of the wrong size, and
// where the target is not > 0 with the ends unsettled (log target undefined).
template <class DeltaOf>
double epsilon_root_search(DeltaOf&& delta_of, const EpsilonSearchQuestion& q) {
    namespace d = epsilon_search_detail;
    d::check_question(q);
    const std::vector<double> points = d::first_points(q);
    std::vector<double> values(points.size());
    delta_of(points, values);
    d::check_values(points, values);
    if (const std::optional<double> end = d::settled_end(values, q)) return *end;
    if (!(q.target > 0.0)) throw std::invalid_argument("target must be > 0 (delta's logarithm aims the search)");
    const double log_target = std::log(q.target);
    d::Bracket b = d::first_bracket(points, values, q.target, log_target);
    double width_before = b.hi - b.lo;
    // cluster steps: every evaluated point, for the inverse cubic interpolation beside the bracket
    std::vector<double> seen_x, seen_v;
    if (q.cluster > 0) seen_x = points, seen_v = values;
    for (int steps = 1; b.hi - b.lo > std::max(q.tolerance, 4.0 * d::ulp(b.hi)); ++steps) {
        const double x = d::next_point(b, steps, width_before, q, seen_x, seen_v, log_target);
        if (q.cluster > 0) {
            d::cluster_step(delta_of, b, x, q, log_target, seen_x, seen_v);
        } else {
            d::single_step(delta_of, b, x, q, log_target);
        }
    }
    return q.upper ? b.hi : b.lo;
}

}  // namespace pld
}  // namespace hockeystick
