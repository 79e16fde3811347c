// A .delta refinement step of Poisson-subsampled Gaussian points under the epsilon rule, its add direction screened on
// a coarse grid, from the one-round factors to the brackets in one pass without the interpreter lock: the
// compositions, their charged reads, the screen's decisions and the assembly (the many-points refinement reads each
// unit of a step with it, points_delta_source.hpp; the one-point delta step read, subsampled_gaussian_step.hpp).
//
// delta = max(delta_remove, delta_add) (Zhu, Dong & Wang, AISTATS 2022, Sec. 5).  Per point, with its window's tail:
//
//   1. the remove direction's pessimistic side and the screen (the add direction's pessimistic side on a coarser
//      grid) composed, read at the point's arguments: U_r, U_a;
//   2. where max(U_r, U_a) is below `settled` at every argument, no lower side (direction_screen.hpp's
//      settled_everywhere); elsewhere the remove direction's optimistic side composed and read: L_r (charged values,
//      no suffix maxima);
//   3. where U_a <= L_r or U_a < `floor` at every argument (direction_screen.hpp's screen_clears), the point's sides
//      are U_r, U_a and L_r; elsewhere the add direction's one-round factor (asked of the caller then, for those
//      points alone) composed on the fine grid: its pessimistic side U_a' in place of the screen, and its optimistic
//      side L_a where U_a' <= L_r fails somewhere;
//   4. the bracket from those sides (step_sides.hpp).
//
// Every composition is batched as the package batches it, and an item that is one factor once on the side asked for
// is that factor as it is, with its own charges (step_items.hpp); a composed window is read as GridPMF reads it
// (charged_sides.hpp), so the brackets are the doubles of the package's PMF-by-PMF formulas
// (tests/pld/refine/test_screened_step.py).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hockeystick/pld/reads/charged_sides.hpp"
#include "hockeystick/pld/refine/direction_screen.hpp"
#include "hockeystick/pld/refine/step_items.hpp"
#include "hockeystick/pld/refine/step_sides.hpp"

namespace hockeystick {
namespace pld {

// A point of the step: its arguments (own and right offsets, step_sides.hpp's RefinedPoint), its record of earlier
// grids (none before its first), its window's tail, its remove direction on both sides and its screen.
struct ScreenedPoint {
    RefinedPoint point{};
    std::optional<PointRecord> before{};
    double window = 0.0;
    StepItem remove_upper{}, remove_lower{}, screen_upper{};
};

// What decided a point's sides: whether the screen cleared it, whether it settled (no lower side), whether the add
// direction's optimistic side was composed.
struct ScreenDecisions {
    bool cleared = false, settled = false, add_lower = false;
};

// A point's result: its bracket and the decisions behind it.
struct ScreenedBracket {
    StepBracket bracket{};
    ScreenDecisions decisions{};
};

namespace detail {

// The window's charged side at the point's arguments (GridPMF.delta, no suffix maxima on the optimistic side).
inline std::vector<double> read_window(const StepWindow& w, const RefinedPoint& point) {
    std::vector<double> out(point.x.size()), moved;
    SideRead r = w.read;
    r.eps = point.x.data();
    r.m = static_cast<std::int64_t>(point.x.size());
    r.out = out.data();
    read_charged_side(r, moved);
    return out;
}

// One side of a direction at each point of a step: its window and its values at the point's arguments (none where
// the direction is not composed on that side).
struct StepReads {
    std::vector<StepWindow> windows;
    std::vector<std::vector<double>> values;
    explicit StepReads(std::size_t n) : windows(n), values(n) {}
};

// The items of the points `which` composed on one side at their windows' tails, read into `reads` at those points.
template <class Compose>
void compose_and_read(const std::vector<StepFactor>& factors, const std::vector<ScreenedPoint>& points,
                      const std::vector<std::size_t>& which, const std::vector<const StepItem*>& items,
                      bool pessimistic, Compose& compose, std::deque<ComposedPMF>& kept, StepReads& reads) {
    std::vector<double> tails;
    for (const std::size_t i : which) tails.push_back(points[i].window);
    const std::vector<StepWindow> done = compose_items(factors, items, tails, pessimistic, compose, kept);
    for (std::size_t k = 0; k < which.size(); ++k) {
        reads.windows[which[k]] = done[k];
        reads.values[which[k]] = read_window(done[k], points[which[k]].point);
    }
}

// Step 1 of the header's comment: the remove direction's pessimistic side and the screen of every point composed in
// one batch (the remove direction's items first), at the points' windows' tails, read into `remove` and `screen`.
template <class Compose>
void upper_reads(const std::vector<StepFactor>& factors, const std::vector<ScreenedPoint>& points, Compose& compose,
                 std::deque<ComposedPMF>& kept, StepReads& remove, StepReads& screen) {
    const std::size_t n = points.size();
    std::vector<const StepItem*> items;
    std::vector<double> tails;
    for (const ScreenedPoint& p : points) items.push_back(&p.remove_upper);
    for (const ScreenedPoint& p : points) items.push_back(&p.screen_upper);
    for (std::size_t k = 0; k < 2 * n; ++k) tails.push_back(points[k % n].window);
    const std::vector<StepWindow> done = compose_items(factors, items, tails, true, compose, kept);
    for (std::size_t i = 0; i < n; ++i) {
        remove.windows[i] = done[i];
        remove.values[i] = read_window(done[i], points[i].point);
        screen.windows[i] = done[n + i];
        screen.values[i] = read_window(done[n + i], points[i].point);
    }
}

// The add direction of the points `rest` (their screens did not clear) on the fine grid, asked of add_items: its
// pessimistic side composed and read into `add`, and its optimistic side into `add_lower` where its upper values are
// not all at or below the remove direction's lower ones (every such point has them: a point without clears).
template <class Compose, class AddDirection>
void add_sides(std::vector<StepFactor>& factors, const std::vector<ScreenedPoint>& points,
               const std::vector<std::size_t>& rest, const StepReads& remove_lower, Compose& compose,
               std::deque<ComposedPMF>& kept, AddDirection& add_items, std::vector<ScreenDecisions>& decisions,
               StepReads& add, StepReads& add_lower) {
    const std::vector<AddItems> adds = add_items(rest);
    if (adds.size() != rest.size()) throw std::invalid_argument("internal: one add direction a point not cleared");
    std::vector<const StepItem*> items;
    for (const AddItems& a : adds) items.push_back(&a.upper);
    compose_and_read(factors, points, rest, items, true, compose, kept, add);
    items.clear();
    std::vector<std::size_t> needed;
    for (std::size_t k = 0; k < rest.size(); ++k) {
        const std::size_t i = rest[k];
        const std::vector<double>& up = add.values[i];
        decisions[i].add_lower = !screen_clears(up.data(), remove_lower.values[i].data(), up.size(),
                                                -std::numeric_limits<double>::infinity());
        if (decisions[i].add_lower) {
            needed.push_back(i);
            items.push_back(&adds[k].lower);
        }
    }
    compose_and_read(factors, points, needed, items, false, compose, kept, add_lower);
}

// The point's sides as step_sides takes them: its upper sides (the remove direction's, then the screen's where it
// cleared, else the add direction's) and the lower sides that can raise its lower one.
inline ScreenedBracket assembled(const PointsRules& rules, const ScreenedPoint& p, std::size_t i,
                                 const ScreenDecisions& decisions, const std::vector<const StepReads*>& upper,
                                 const StepReads& remove_lower, const StepReads& add_lower) {
    const StepReads& second = decisions.cleared ? *upper[1] : *upper[2];
    const std::vector<StepSide> ups{
        {upper[0]->windows[i].read, upper[0]->values[i].data(), upper[0]->windows[i].finite_mass},
        {second.windows[i].read, second.values[i].data(), second.windows[i].finite_mass}};
    std::vector<StepSide> lows;
    if (!decisions.settled) lows.push_back({remove_lower.windows[i].read, remove_lower.values[i].data(), 0.0});
    if (decisions.add_lower) lows.push_back({add_lower.windows[i].read, add_lower.values[i].data(), 0.0});
    return {step_sides(rules, p.point, ups, lows, p.before ? &*p.before : nullptr), decisions};
}

}  // namespace detail

// The brackets of `points` (the header's comment) under `rules`, at the screen's `floor` and the `settled` delta, the
// one-round factors in `factors`: compose as above (the caller's composition on its FFT backend), add_items(rest)
// -> std::vector<AddItems> the add direction of each point of `rest` (indices into points), its factors appended to
// `factors` by the caller.  Throws std::invalid_argument as compose_many, read_charged_side and step_sides.
template <class Compose, class AddDirection>
std::vector<ScreenedBracket> screened_step(const PointsRules& rules, const std::vector<ScreenedPoint>& points,
                                           std::vector<StepFactor>& factors, double floor, double settled,
                                           Compose& compose, AddDirection&& add_items) {
    const std::size_t n = points.size();
    std::deque<ComposedPMF> kept;
    detail::StepReads remove(n), screen(n), remove_lower(n), add(n), add_lower(n);
    std::vector<std::size_t> open, rest;
    std::vector<const StepItem*> items;
    // 1. both pessimistic sides in one batch, the remove direction's items first
    detail::upper_reads(factors, points, compose, kept, remove, screen);
    // 2. the remove direction's lower side where the point does not settle
    std::vector<ScreenDecisions> decisions(n);
    items.clear();
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t m = remove.values[i].size();
        decisions[i].settled = settled_everywhere(remove.values[i].data(), screen.values[i].data(), m, settled);
        if (!decisions[i].settled) {
            open.push_back(i);
            items.push_back(&points[i].remove_lower);
        }
    }
    detail::compose_and_read(factors, points, open, items, false, compose, kept, remove_lower);
    // 3. the screen's decision; the add direction on the fine grid where it does not clear
    for (std::size_t i = 0; i < n; ++i) {
        const double* lower = decisions[i].settled ? nullptr : remove_lower.values[i].data();
        decisions[i].cleared = screen_clears(screen.values[i].data(), lower, screen.values[i].size(), floor);
        if (!decisions[i].cleared) rest.push_back(i);
    }
    if (!rest.empty())
        detail::add_sides(factors, points, rest, remove_lower, compose, kept, add_items, decisions, add, add_lower);
    // 4. the brackets
    std::vector<ScreenedBracket> out;
    const std::vector<const detail::StepReads*> upper{&remove, &screen, &add};
    for (std::size_t i = 0; i < n; ++i)
        out.push_back(detail::assembled(rules, points[i], i, decisions[i], upper, remove_lower, add_lower));
    return out;
}

// The certified upper side of each of `points` alone (step 1 of the header's comment, no lower side, no add direction
// on the fine grid): the larger of its remove direction's pessimistic side and its screen at its arguments, both
// composed in one batch as screened_step composes them.  The many-points refinement reads it to find the points the
// upper side alone settles before its loop (points_delta_start.hpp).
template <class Compose>
std::vector<std::vector<double>> screened_uppers(const std::vector<ScreenedPoint>& points,
                                                 const std::vector<StepFactor>& factors, Compose& compose) {
    const std::size_t n = points.size();
    std::deque<ComposedPMF> kept;
    detail::StepReads remove(n), screen(n);
    detail::upper_reads(factors, points, compose, kept, remove, screen);
    std::vector<std::vector<double>> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        out[i].resize(remove.values[i].size());
        for (std::size_t k = 0; k < out[i].size(); ++k)
            out[i][k] = detail::numpy_maximum(remove.values[i][k], screen.values[i][k]);
    }
    return out;
}

}  // namespace pld
}  // namespace hockeystick
