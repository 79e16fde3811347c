// The per-step rules of the many-points refinement (the package's SubsampledGaussianPLD and its kin with accuracy=):
// how wide a point's bracket is in the accuracy's units, and which grid it asks next.  Each point is refined on its own
// grid ladder (points_front.hpp drives these rules in the refinement loop, refinement_loop.hpp); its brackets are
// read by points_delta_source.hpp.
//
// A point's arguments x (size entries): for .epsilon its deltas, for .delta its epsilons; under
// delta_accuracy="epsilon" the point's `own` epsilons, then one row of `own` per right offset (RIGHT_OFFSETS), then one
// per left fraction (LEFT_FRACTIONS) (python/hockeystick/pld/refine/bracket_width.py, offset_rows).
//
//   width            .epsilon: the epsilon gap up - lo (0 where lo == up), times accuracy / max(accuracy,
//                    relative_accuracy up) where a relative accuracy is asked; .delta, "relative": (up - lo) /
//                    max(up, DELTA_FLOOR); .delta, "epsilon": the certified epsilon width at delta = up
//                    (pld/reads/epsilon_width.hpp's least_epsilon_width over the offsets' rows), 0 (done) where
//                    up < DELTA_FLOOR or lo >= DELTA_CEILING (no epsilon bracket is certifiable there), at most 1e100
//                    so that the fits stay finite;
//   charge_width     "epsilon": the epsilon width the gap's grid-independent part alone leaves (fixed[0]: the round-off
//                    charges, slack and mass at +infinity; plus where up > NEAR_ONE the cells' edge factor fixed[1]),
//                    that of [up - fixed, up]; 0 where the grid's part leads (the charges less than half the gap; the
//                    lower side 0 at q < h; up above NEAR_ONE with the edge factor less than half the gap);
//   charged          too wide, with charge_width above 0.9 accuracy: no grid narrows those;
//   capped           "epsilon": too wide, not charged, the width its cap eps (no certified chord); blind where the
//                    lower side is 0 at q < h;
//   capped_interval  the capped arguments' grid: 0.9 h; blind ones h 0.9 sqrt(accuracy / widest blind width), at most
//                    the ladder's rung below q where q > LOWEST_INTERVAL; the others h max(min ratio, CAPPED_STEP),
//                    ratio sqrt(GAP_TARGET accuracy / G) with G their epsilon gap (epsilon_gap.hpp), NO_LOWER_STEP
//                    where G is not read and the lower side is 0, else 0; the least of those;
//   offset_limited   "epsilon", on a first step: the arguments too wide (not capped or charged) whose width is more
//                    than OFFSET_LIMITED times their gap G ask h min(0.9, sqrt(OFFSET_GAP_TARGET accuracy / max G));
//   next_interval    next_grid.hpp's first_step (no fit through two grids), charged_step ("epsilon", a law through
//                    the two grids with the charges known) or fitted_step (the h^2 law);
//   next grid        none where the point stops (its window refused, or a read beside the ladder settled it); a grid
//                    finer than h within MAX_WINDOW (grid_policy.hpp's within_window) and no finer than its
//                    coarsest fit (one round's span at the question's tail on a quarter of the window: where that
//                    stops it, it gives up); h again after a unit that composed direct bins is none; where every
//                    argument still too wide took the complement's bracket (`near`), the next grid recomposes the
//                    complement alone.
//
// The rules are numpy formulas' (tests/pld/refine/numpy_next_grid.py transcribes them, the tests' reference); every
// operation here is theirs, in their order, NaN propagated as numpy's maximum
// and minimum propagate it, so the grids asked are the same.  The tuning constants' meaning and values:
// python/hockeystick/pld/refine/tuning.py and constants.py.  Nothing here affects what is certified: every grid's
// bracket is, and these rules only choose which grids are built.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "hockeystick/pld/reads/epsilon_width.hpp"
#include "hockeystick/pld/reads/hockey_stick.hpp"  // detail::numpy_minimum, numpy_maximum
#include "hockeystick/pld/refine/epsilon_gap.hpp"
#include "hockeystick/pld/refine/epsilon_refinement.hpp"  // epsilon_width
#include "hockeystick/pld/refine/grid_policy.hpp"
#include "hockeystick/pld/refine/next_grid.hpp"

namespace hockeystick {
namespace pld {

// What a point's width measures: .epsilon's epsilon gap, .delta's relative gap, or .delta's certified epsilon width
// (delta_accuracy="epsilon").
enum class PointsWidth { epsilon, relative_delta, epsilon_delta };

// The rules' accuracy and constants (python/hockeystick/pld/refine/tuning.py and constants.py).
struct PointsRules {
    PointsWidth kind = PointsWidth::epsilon;
    double accuracy = 1e-2;
    double relative_accuracy = 0.0;
    std::int64_t right_rows = 3;  // len(RIGHT_OFFSETS)
    double delta_floor = 1e-9;
    double delta_ceiling = 1.0 - 1e-9;
    double near_one = 1.0 - 1e-6;
    double capped_step = 1.0 / 32.0;
    double no_lower_step = 0.25;
    double gap_target = 1.0;
    double offset_limited = 2.0;
    double offset_gap_target = 0.5;
    NextGridTuning tuning{};
    GridPolicy policy{};
};

// One point of the refinement: (sigma, q, rounds, sensitivity), its arguments (the header's layout) and the least grid
// its coarsest fit allows.
struct RefinedPoint {
    double sigma = 0.0, q = 0.0, rounds = 0.0, sensitivity = 1.0;
    std::vector<double> x;
    std::int64_t own = 0;
    double coarsest_fit = 0.0;
};

// A point's bracket on one grid: its sides at every argument, the gap's grid-independent part (two rows of size:
// fixed[0] the charges, fixed[1] the cells' edge factor; empty where none is read), where the complement's bracket was
// taken (empty: nowhere), whether its unit composed direct bins, and whether it stops (its window refused, or settled).
struct PointStep {
    std::int64_t i = 0;
    double h = 0.0;
    std::vector<double> lower, upper, fixed;
    std::vector<char> near;
    bool direct = false, stop = false;
};

// What the rules read of a grid a point moves on from.
struct PointRecord {
    double h = 0.0;
    std::vector<double> lower, upper, width;
};

// The grid a point asks next (0: none, the point is done; NaN where an infinite width was fitted), whether its
// coarsest fit stopped it (it gives up: its bracket stands), and whether that grid recomposes the complement alone.
struct PointNext {
    double grid = 0.0;
    bool gave_up = false;
    bool complement_only = false;
};

namespace points_rules_detail {

using Asked = std::optional<double>;  // a grid asked, or none

// Python's min of two grids asked, none standing for no ask.
inline Asked least(Asked a, Asked b) {
    if (!a) return b;
    if (!b) return a;
    return *b < *a ? b : a;
}

// numpy's max of a non-empty sequence: NaN if any element is NaN.
struct NumpyMax {
    double value = -std::numeric_limits<double>::infinity();
    bool any = false;
    void add(double v) {
        if (!any || (!std::isnan(value) && (std::isnan(v) || v > value))) value = v;
        any = true;
    }
};

// charge_width (the header's comment) at the point's own arguments.
inline std::vector<double> charge_width(const PointsRules& r, const RefinedPoint& p, const PointStep& s) {
    const std::size_t size = p.x.size(), own = static_cast<std::size_t>(p.own);
    std::vector<double> part(size), floor(size), alone(own);
    for (std::size_t k = 0; k < size; ++k) {
        part[k] = s.fixed[k] + (s.upper[k] > r.near_one ? s.fixed[size + k] : 0.0);
        floor[k] = s.upper[k] - part[k];
    }
    least_epsilon_width(p.x.data(), floor.data(), s.upper.data(), static_cast<std::int64_t>(size), p.own, r.right_rows,
                        alone.data());
    for (std::size_t k = 0; k < own; ++k) {
        const double top = s.upper[k], gap = top - s.lower[k], excess = s.fixed[size + k];
        const bool grid_led =
            gap >= 2.0 * part[k] || (top > r.near_one && gap >= 2.0 * excess) || (s.lower[k] == 0.0 && p.q < s.h);
        if (grid_led) alone[k] = 0.0;
    }
    return alone;
}

// The offsets' rows as the curve every gap of a step reads (x[own:] and their upper sides).
inline GapCurve offsets_curve(const RefinedPoint& p, const PointStep& s) {
    const std::size_t own = static_cast<std::size_t>(p.own);
    return GapCurve(p.x.data() + own, s.upper.data() + own, static_cast<std::int64_t>(p.x.size() - own));
}

// capped_interval (the header's comment): the grid the capped arguments ask (none where none is capped).
inline Asked capped_interval(const PointsRules& r, const RefinedPoint& p, const PointStep& s,
                             const std::vector<double>& width, const std::vector<char>& capped,
                             const std::vector<char>& blind) {
    namespace d = next_grid_detail;
    const double h = s.h, q = p.q;
    bool any_capped = false;
    NumpyMax widest;
    d::NumpyMin ratio;
    std::optional<GapCurve> curve;
    for (std::size_t k = 0; k < width.size(); ++k) {
        if (!capped[k]) continue;
        any_capped = true;
        if (blind[k]) {
            widest.add(width[k]);
            continue;
        }
        if (!curve) curve.emplace(offsets_curve(p, s));
        const double gap = epsilon_gap(p.x[k], s.lower[k], s.upper[k], *curve);
        const double no_lower = s.lower[k] == 0.0 ? r.no_lower_step : 0.0;
        ratio.add(std::isfinite(gap) ? std::sqrt(r.gap_target * r.accuracy / gap) : no_lower);
    }
    if (!any_capped) return std::nullopt;
    double wanted = 0.9 * h;
    if (widest.any) {
        const double jump = h * 0.9 * std::sqrt(r.accuracy / widest.value);
        const double rung = q > r.policy.lowest_interval ? ladder_rung(q * (1.0 - 1e-6), r.policy) : jump;
        wanted = d::py_min(wanted, q > r.policy.lowest_interval ? d::py_min(jump, rung) : jump);
    }
    if (ratio.any) wanted = d::py_min(wanted, h * d::py_max(ratio.value, r.capped_step));
    return wanted;
}

// offset_limited (the header's comment): marks the limited arguments in `limited`, returns their grid (none where
// none is).
inline Asked offset_limited(const PointsRules& r, const RefinedPoint& p, const PointStep& s,
                            const std::vector<double>& width, const std::vector<char>& skip,
                            std::vector<char>& limited) {
    NumpyMax largest;
    std::optional<GapCurve> curve;
    for (std::size_t k = 0; k < width.size(); ++k) {
        if (!(width[k] > r.accuracy && !skip[k])) continue;
        if (!curve) curve.emplace(offsets_curve(p, s));
        const double gap = epsilon_gap(p.x[k], s.lower[k], s.upper[k], *curve);
        if (std::isfinite(gap) && gap > 0.0 && width[k] > r.offset_limited * gap) limited[k] = 1, largest.add(gap);
    }
    if (!largest.any) return std::nullopt;
    const double target = r.offset_gap_target * r.accuracy;
    return s.h * next_grid_detail::py_min(0.9, std::sqrt(target / largest.value));
}

// The masks next_interval reads: too wide, charge-limited (`alone` above 0.9 accuracy), and scaling like h^2 (wide,
// neither capped nor charged); whether any is wide, and any wide and charged.
struct IntervalMasks {
    std::unique_ptr<bool[]> wide, charged, scaling;
    bool any_wide = false, recompose = false;

    IntervalMasks(const PointsRules& r, const std::vector<double>& width, const std::vector<char>& capped,
                  const std::vector<double>* alone)
        : wide(new bool[width.size()]), charged(new bool[width.size()]), scaling(new bool[width.size()]) {
        for (std::size_t k = 0; k < width.size(); ++k) {
            wide[k] = width[k] > r.accuracy;
            charged[k] = alone != nullptr && wide[k] && (*alone)[k] > 0.9 * r.accuracy;
            scaling[k] = wide[k] && !capped[k] && !charged[k];
            any_wide = any_wide || wide[k];
            recompose = recompose || (wide[k] && charged[k]);
        }
    }
};

// next_interval (the header's comment): `before` null where no law is read through two grids, `alone` null
// outside delta_accuracy="epsilon".
inline Asked next_interval(const PointsRules& r, const RefinedPoint& p, double h, const std::vector<double>& width,
                           const PointRecord* before, const std::vector<char>& capped, Asked capped_h,
                           const std::vector<double>* alone) {
    const IntervalMasks m(r, width, capped, alone);
    if (!m.any_wide) return std::nullopt;
    const double finest = finest_interval(p.q, r.policy);
    const std::int64_t n = static_cast<std::int64_t>(width.size());
    double asked = 0.0;
    if (before == nullptr || before->h <= h) {
        asked = first_step(h, width.data(), m.scaling.get(), n, capped_h.value_or(0.0),
                           before == nullptr && m.recompose, finest, r.accuracy, &r.policy);
    } else if (h <= finest) {
        return std::nullopt;
    } else if (alone != nullptr) {
        asked = charged_step(h, before->h, width.data(), before->width.data(), alone->data(), p.x.data(), m.wide.get(),
                             m.charged.get(), n, p.q, finest, r.accuracy, r.tuning, &r.policy);
    } else {
        asked = fitted_step(h, before->h, width.data(), before->width.data(), m.wide.get(), n, finest, r.accuracy,
                            r.tuning, &r.policy);
    }
    return asked == 0.0 ? Asked() : Asked(asked);
}

// delta_accuracy="epsilon": marks the capped arguments (and, on a first step, the offset-limited ones) in `capped`
// and returns the grid they ask; `alone` is charge_width's.
inline Asked epsilon_criterion_asks(const PointsRules& r, const RefinedPoint& p, const PointStep& s,
                                    const std::vector<double>& width, const PointRecord* before,
                                    const std::vector<double>& alone, std::vector<char>& capped) {
    const std::size_t n = width.size();
    std::vector<char> blind(n, 0), skip(n, 0);
    for (std::size_t k = 0; k < n; ++k) {
        const bool charged = width[k] > r.accuracy && alone[k] > 0.9 * r.accuracy;
        capped[k] = width[k] > r.accuracy && width[k] >= p.x[k] * (1.0 - 1e-9) && !charged;
        blind[k] = capped[k] && s.lower[k] == 0.0 && p.q < s.h;
        skip[k] = capped[k] || charged;
    }
    const Asked capped_h = capped_interval(r, p, s, width, capped, blind);
    if (!(before == nullptr || before->h <= s.h)) return capped_h;
    std::vector<char> limited(n, 0);  // a first step: the widths' rule
    const Asked limited_h = offset_limited(r, p, s, width, skip, limited);
    for (std::size_t k = 0; k < n; ++k) capped[k] = capped[k] || limited[k];
    return least(capped_h, limited_h);
}

// Whether an epsilon question's grid before left a lower epsilon 0 where too wide (blind: its width was the upper
// side's alone): no law is fitted through it, and the next grid is asked as a first one's.
inline bool blind_before(const PointsRules& r, const PointRecord& before) {
    bool blind = false;
    for (std::size_t k = 0; k < before.width.size(); ++k)
        blind = blind || (before.width[k] > r.accuracy && before.lower[k] == 0.0);
    return blind;
}

// The grid rules' ask for a point (the header's charged, capped, offset-limited arguments, then next_interval).
inline Asked asked(const PointsRules& r, const RefinedPoint& p, const PointStep& s, const std::vector<double>& width,
                   const PointRecord* before) {
    std::vector<char> capped(width.size(), 0);
    std::vector<double> alone;
    Asked capped_h;
    const bool by_epsilon = r.kind == PointsWidth::epsilon_delta;
    if (by_epsilon) {
        alone = charge_width(r, p, s);
        capped_h = epsilon_criterion_asks(r, p, s, width, before, alone, capped);
    }
    if (r.kind == PointsWidth::epsilon && before != nullptr && blind_before(r, *before)) before = nullptr;
    return next_interval(r, p, s.h, width, before, capped, capped_h, by_epsilon ? &alone : nullptr);
}

}  // namespace points_rules_detail

// How wide the bracket [lower, upper] at the point's arguments is in the accuracy's units (the header's `width`): one
// entry per own argument.
inline std::vector<double> points_width(const PointsRules& r, const RefinedPoint& p, const std::vector<double>& lower,
                                        const std::vector<double>& upper) {
    namespace d = detail;
    const std::size_t size = lower.size();
    if (r.kind == PointsWidth::epsilon_delta) {
        std::vector<double> width(static_cast<std::size_t>(p.own));
        least_epsilon_width(p.x.data(), lower.data(), upper.data(), static_cast<std::int64_t>(size), p.own,
                            r.right_rows, width.data());
        for (std::size_t k = 0; k < width.size(); ++k) {
            const bool done = upper[k] < r.delta_floor || lower[k] >= r.delta_ceiling;
            width[k] = done ? 0.0 : d::numpy_minimum(width[k], 1e100);
        }
        return width;
    }
    std::vector<double> width(size);
    for (std::size_t k = 0; k < size; ++k) {
        if (r.kind == PointsWidth::relative_delta) {
            width[k] = (upper[k] - lower[k]) / d::numpy_maximum(upper[k], r.delta_floor);
            continue;
        }
        width[k] = epsilon_width(lower[k], upper[k], r.accuracy, r.relative_accuracy);
    }
    return width;
}

// A step's bracket intersected with the record of the point's grid before: both are certified, so their intersection
// is (the largest lower side, the smallest upper side; NaN propagated as numpy's).
inline void intersect_record(PointStep& s, const PointRecord& before) {
    for (std::size_t k = 0; k < s.lower.size(); ++k) {
        s.lower[k] = detail::numpy_maximum(s.lower[k], before.lower[k]);
        s.upper[k] = detail::numpy_minimum(s.upper[k], before.upper[k]);
    }
}

// The grid point p asks after step s whose widths are `width` (`before`: its record of the grid before, or null) (the
// header's `next grid`).
inline PointNext points_next_grid(const PointsRules& r, const RefinedPoint& p, const PointStep& s,
                                  const std::vector<double>& width, const PointRecord* before) {
    namespace d = next_grid_detail;
    PointNext next;
    if (s.stop) return next;
    std::optional<double> finer = points_rules_detail::asked(r, p, s, width, before);
    if (finer && *finer < s.h) {
        const double fit = p.coarsest_fit;
        const double window = within_window(p.sigma, p.q, p.rounds, p.sensitivity, *finer, r.policy);
        finer = d::py_max(window, fit);
        next.gave_up = *finer >= s.h && fit >= window;  // stopped by one round's span at its tail
        if (!(*finer < s.h)) finer.reset();  // no finer grid fits MAX_WINDOW: this bracket stands
    }
    if (finer && *finer == s.h && s.direct) finer.reset();  // the same grid again only adds the direct bins it had
    if (!finer) return next;
    next.grid = *finer;
    if (!s.near.empty()) {
        bool all = true;
        for (std::size_t k = 0; k < width.size(); ++k) all = all && (!(width[k] > r.accuracy) || s.near[k] != 0);
        next.complement_only = all;
    }
    return next;
}

}  // namespace pld
}  // namespace hockeystick
