// An .epsilon refinement step of Poisson-subsampled Gaussian points, its add direction screened on a coarse grid, from
// the one-round factors to the brackets in one pass without the interpreter lock (subsampled_gaussian_step.hpp reads
// each grid of both doors' epsilon refinements through it: the package's, every point alone, and the C library's,
// cpp/capi/refine.cpp; bound as _core.pld_refine.screened_epsilon_step, whose reference inputs the package's own
// one-round factors give in tests/pld/refine/screened_epsilon_reference.py).
//
// epsilon = max(eps_remove, eps_add) (Zhu, Dong & Wang, AISTATS 2022, Sec. 5), so with a certified bracket
// [L_r, U_r] of the remove direction and any certified upper bound U_a >= eps_add, U_a <= L_r gives
// eps_add <= L_r <= eps_remove and the bracket is the remove direction's.  Per point, at its deltas, its windows cut
// at its window's tail:
//
//   1. the remove direction composed on its pessimistic side (one batch over the points), then on its optimistic side
//      (one batch): U_r, the pessimistic scan (pld/reads/hockey_stick.hpp's charged_epsilon), and L_r, the optimistic
//      one (pld/reads/epsilon_bracket.hpp's charged_lower_epsilon), each at least 0;
//   2. the screen, the add direction's pessimistic side on a coarser grid, composed (one batch) and read: U_a;
//   3. where U_a <= L_r at every delta (direction_screen.hpp's screen_clears), the point's bracket is [L_r, U_r] and
//      U_a its add direction's upper side; elsewhere the add direction's one-round factors, asked of the caller for
//      those points alone, composed on the fine grid on both sides and read, [L_a, U_a'], and the bracket is
//      [max(L_r, L_a), max(U_r, U_a')], its add direction's upper side min(U_a', U_a).
//
// Every bracket is the maximum over the directions of certified sides, so certified.  The compositions are batched
// and read as the package's compose_all and GridPMF.epsilon batch and read them (step_items.hpp), so the brackets are
// the doubles of the package's PrivacyLossDistribution brackets over the same one-round factors
// (tests/pld/refine/test_screened_epsilon_step.py).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <stdexcept>
#include <vector>

#include "hockeystick/pld/reads/epsilon_bracket.hpp"
#include "hockeystick/pld/reads/hockey_stick.hpp"
#include "hockeystick/pld/refine/direction_screen.hpp"
#include "hockeystick/pld/refine/step_items.hpp"

namespace hockeystick {
namespace pld {

// A point of the step: its deltas, its windows' tail, its remove direction on both sides and its screen.
struct EpsilonStepPoint {
    std::vector<double> delta{};
    double window = 0.0;
    StepItem remove_upper{}, remove_lower{}, screen_upper{};
};

// A point's bracket at its deltas, and a certified upper side of its add direction's epsilon there.
struct EpsilonStepBracket {
    std::vector<double> lower{}, upper{}, add{};
};

namespace screened_epsilon_detail {

// A window's certified epsilon at `delta`, at least 0: the pessimistic side's upper scan, the optimistic side's lower
// scan (as GridPMF.epsilon, clipped at 0 as PrivacyLossDistribution's brackets clip it).
inline std::vector<double> window_epsilon(const StepWindow& w, const std::vector<double>& delta) {
    std::vector<double> out(delta.size());
    const SideRead& r = w.read;
    const auto m = static_cast<std::int64_t>(delta.size());
    if (r.pessimistic)
        charged_epsilon(r.pmf.p, r.pmf.n, r.pmf.k_lo, r.h, r.pmf.p_inf, r.charges, delta.data(), m, out.data());
    else
        charged_lower_epsilon(r.pmf.p, r.pmf.n, r.pmf.k_lo, r.h, r.pmf.p_inf, r.charges, delta.data(), m, out.data());
    for (double& e : out) e = std::max(e, 0.0);
    return out;
}

// The items of the points `which`, one per point, composed on one side at the points' windows' tails and read at
// their deltas.
template <class Compose>
std::vector<std::vector<double>> composed_epsilons(const std::vector<StepFactor>& factors,
                                                   const std::vector<EpsilonStepPoint>& points,
                                                   const std::vector<std::size_t>& which,
                                                   const std::vector<const StepItem*>& items, bool pessimistic,
                                                   Compose& compose, std::deque<ComposedPMF>& kept) {
    std::vector<double> tails;
    for (const std::size_t i : which) tails.push_back(points[i].window);
    const std::vector<StepWindow> done = compose_items(factors, items, tails, pessimistic, compose, kept);
    std::vector<std::vector<double>> out;
    for (std::size_t k = 0; k < which.size(); ++k) out.push_back(window_epsilon(done[k], points[which[k]].delta));
    return out;
}

}  // namespace screened_epsilon_detail

// The brackets of `points` (the header's comment), the one-round factors in `factors`: compose(views, h, terms,
// pessimistic, tail) -> std::vector<ComposedPMF> the caller's composition on its FFT backend, add_items(rest) ->
// std::vector<AddItems> (step_items.hpp) the add direction of each point of `rest` (indices
// into points), its factors appended to `factors` by the caller.  Throws std::invalid_argument as compose_many and
// the scans do.
template <class Compose, class AddDirection>
std::vector<EpsilonStepBracket> screened_epsilon_step(const std::vector<EpsilonStepPoint>& points,
                                                      std::vector<StepFactor>& factors, Compose& compose,
                                                      AddDirection&& add_items) {
    namespace d = screened_epsilon_detail;
    const std::size_t n = points.size();
    std::deque<ComposedPMF> kept;
    std::vector<std::size_t> all(n), rest;
    for (std::size_t i = 0; i < n; ++i) all[i] = i;
    std::vector<const StepItem*> uppers, lowers, screens;
    for (const EpsilonStepPoint& p : points) {
        uppers.push_back(&p.remove_upper);
        lowers.push_back(&p.remove_lower);
        screens.push_back(&p.screen_upper);
    }
    // 1. the remove direction, its pessimistic side then its optimistic side; 2. the screen
    const auto up = d::composed_epsilons(factors, points, all, uppers, true, compose, kept);
    const auto lo = d::composed_epsilons(factors, points, all, lowers, false, compose, kept);
    const auto screened = d::composed_epsilons(factors, points, all, screens, true, compose, kept);
    std::vector<EpsilonStepBracket> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        out[i] = {lo[i], up[i], screened[i]};
        if (!screen_clears(screened[i].data(), lo[i].data(), screened[i].size(),
                           -std::numeric_limits<double>::infinity()))
            rest.push_back(i);
    }
    if (rest.empty()) return out;
    // 3. the add direction on the fine grid where the screen did not clear
    const auto adds = add_items(rest);
    if (adds.size() != rest.size()) throw std::invalid_argument("internal: one add direction a point not cleared");
    uppers.clear();
    lowers.clear();
    for (const auto& a : adds) {
        uppers.push_back(&a.upper);
        lowers.push_back(&a.lower);
    }
    const auto add_up = d::composed_epsilons(factors, points, rest, uppers, true, compose, kept);
    const auto add_lo = d::composed_epsilons(factors, points, rest, lowers, false, compose, kept);
    for (std::size_t k = 0; k < rest.size(); ++k) {
        EpsilonStepBracket& b = out[rest[k]];
        for (std::size_t j = 0; j < b.lower.size(); ++j) {
            b.lower[j] = std::max(b.lower[j], add_lo[k][j]);
            b.upper[j] = std::max(b.upper[j], add_up[k][j]);
            b.add[j] = std::min(add_up[k][j], screened[rest[k]][j]);
        }
    }
    return out;
}

}  // namespace pld
}  // namespace hockeystick
