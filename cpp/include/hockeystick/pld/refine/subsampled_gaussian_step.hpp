// One grid's read of the epsilon refinement of T rounds of the Poisson-subsampled Gaussian (sigma per unit
// sensitivity, 0 < q < 1) at one delta: its one-round PMFs discretized (pld/grid/cells.hpp, connect_dots.hpp) and the
// screened epsilon step over them (screened_epsilon_step.hpp), epsilon = max(eps_remove, eps_add) (Zhu, Dong & Wang,
// AISTATS 2022, Sec. 5):
//   remove   both sides on h, its one round discretized at the tail refinement_tails.hpp sizes to delta, the accuracy
//            and `tail`, every window cut at the window tail it sizes;
//   screen   the add direction's pessimistic side on a grid kStepScreenCoarsening times coarser, its round at `tail`;
//   add      both sides on h at `tail`, discretized only where the screen does not clear.
// Each one-round PMF is a factor read with its suffix sums' slack and no other charge, as the package's one-round
// PLDs are (tests/pld/refine/screened_epsilon_reference.py builds the same step from them); the caller's
// compose(views, grid, items, pessimistic, window) composes each window (its backend, direct bins and cap on points).
// The default refinement of both doors reads each grid with it (default_refinement.hpp: the package's default chain
// through the binding's TiltedPointReader.default_refinement, the C library's epsilon call, cpp/capi/refine.cpp).
//
// The delta refinement's grid read at one epsilon (subsampled_gaussian_delta_step: the relative rule, delta =
// max(delta_remove, delta_add)) is screened_step.hpp's over the same factors, every round at `tail`: the remove
// direction on both sides, the screen, and the add direction on both sides where the screen does not clear.  With no
// floor and no settled delta the screen clears only where it is at or below the remove direction's lower side, so the
// bracket is the one both directions give on h (points_delta_source.hpp, the many-points delta steps, reads each unit
// with the same call over the same factors).
//
// A round with more loss cells than max_cells, or loss edges double precision cannot place within a quarter of the
// grid, is refused (RoundRefused, naming which); a window past the caller's cap on points throws what compose throws
// (compose_many: std::length_error).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "hockeystick/pld/grid/cells.hpp"
#include "hockeystick/pld/grid/connect_dots.hpp"
#include "hockeystick/pld/grid/pmf_view.hpp"
#include "hockeystick/pld/reads/charged_sides.hpp"
#include "hockeystick/pld/reads/epsilon_bracket.hpp"  // suffix_sum_slack
#include "hockeystick/pld/refine/default_refinement.hpp"  // EpsilonStepRead
#include "hockeystick/pld/refine/refinement_tails.hpp"
#include "hockeystick/pld/refine/screened_epsilon_step.hpp"
#include "hockeystick/pld/refine/screened_step.hpp"
#include "hockeystick/support/pairwise_sum.hpp"

namespace hockeystick {
namespace pld {

// The add direction's screen is read on a grid this many times coarser than the step's, at most max_interval
// (cells.hpp): its pessimistic side alone, a sixteenth of the work of both sides on the step's grid, clears the add
// direction at most rounds (the remove direction's epsilon the larger) and is the add direction's upper side there.
constexpr double kStepScreenCoarsening = 4.0;

// The grid of the add direction's screen of a step on h.
inline double step_screen_interval(double h) { return std::min(h * kStepScreenCoarsening, max_interval); }

// The run and the grid of one step read: sigma per unit sensitivity, the sampling rate, the rounds; the delta and the
// grid h; the accuracy the refinement is for and the rounds' tail.
struct SubsampledGaussianStep {
    double sigma = 1.0, q = 0.5;
    std::int64_t rounds = 1;
    double delta = 1e-5, h = 1e-4;
    double accuracy = 1e-3, tail = 1e-15;
};

// The run and the grid of one delta step read: sigma per unit sensitivity, the sampling rate, the rounds; the epsilon
// and the grid h; the rounds' and the windows' tail.
struct SubsampledGaussianDeltaStep {
    double sigma = 1.0, q = 0.5;
    std::int64_t rounds = 1;
    double epsilon = 1.0, h = 1e-4;
    double tail = 1e-15;
};

// A round the step cannot discretize on its grid h: more loss cells than the cap (`cells`), or loss edges double
// precision cannot place within a quarter of the grid (a sigma whose quantiles overflow, a rate next to 1).
struct RoundRefused : std::invalid_argument {
    RoundRefused(double grid, bool past_cap)
        : std::invalid_argument(past_cap ? "more loss cells than the cap on cells holds"
                                         : "loss edges double precision cannot place within a quarter of its spacing"),
          h(grid),
          cells(past_cap) {}
    double h;
    bool cells;
};

namespace subsampled_gaussian_step_detail {

// One round of one direction on grid h, discretized with `tail`: its pessimistic PMF, and its optimistic one where
// `optimistic`.
struct OneRound {
    GridPMF upper, lower;
};

inline OneRound one_round(double sigma, double q, double h, bool remove, bool optimistic, double tail,
                          std::int64_t max_cells) {
    Cells cells;
    try {
        cells = subsampled_gaussian_cells(sigma, q, remove, h, tail, max_cells, optimistic);
    } catch (const std::length_error&) { throw RoundRefused(h, true); } catch (const std::invalid_argument&) {
        throw RoundRefused(h, false);
    }
    return {pessimistic_pmf(cells), optimistic ? optimistic_pmf(cells) : GridPMF{}};
}

// A one-round PMF as a factor of the step (step_items.hpp): its view as composed (pmf_view.hpp's factor_view), its
// cells' loss error rounded up by one ulp as the package's one-round factors carry it (python
// pld/mechanisms/constructors.py's _factor adds it to the caller's shift, rounded up), read with its suffix sums'
// slack, no other charge; on the pessimistic side its finite mass summed as a composed window's is
// (step_items.hpp's compose_items), so that a factor passed through uncomposed (one round) sizes its fixed part
// (fixed_part.hpp) as its composition would.
inline StepFactor step_factor(const GridPMF& pmf, bool pessimistic) {
    PmfView view = factor_view(pmf, pessimistic);
    if (view.loss_shift > 0.0)
        view.loss_shift = std::nextafter(view.loss_shift, std::numeric_limits<double>::infinity());
    GridCharges charges;
    const auto n = static_cast<std::int64_t>(pmf.p.size());
    charges.slack = suffix_sum_slack(n);
    return {side_read(view, pmf.h, charges, pessimistic), pessimistic ? numpy_sum(pmf.p.data(), n) : 0.0};
}

// One step's one-round factors, their masses kept alive while the step reads them: 0 and 1 the remove direction's
// sides on h at `round_tail`, 2 the screen at `tail`; add() appends the add direction's sides on h at `tail` (3, 4) and
// gives them as the one point's add items.
struct StepRounds {
    double sigma, q, h, tail;
    std::int64_t rounds, max_cells;
    std::deque<OneRound> kept;
    std::vector<StepFactor> factors;

    StepRounds(double sigma_, double q_, double h_, std::int64_t rounds_, double round_tail, double tail_,
               std::int64_t max_cells_)
        : sigma(sigma_), q(q_), h(h_), tail(tail_), rounds(rounds_), max_cells(max_cells_) {
        kept.push_back(one_round(sigma, q, h, true, true, round_tail, max_cells));
        kept.push_back(one_round(sigma, q, step_screen_interval(h), false, false, tail, max_cells));
        factors = {step_factor(kept[0].upper, true), step_factor(kept[0].lower, false),
                   step_factor(kept[1].upper, true)};
    }
    template <class Point>
    void items_of(Point& point) const {
        point.remove_upper = {{0, rounds}};
        point.remove_lower = {{1, rounds}};
        point.screen_upper = {{2, rounds}};
    }
    std::vector<AddItems> add() {
        kept.push_back(one_round(sigma, q, h, false, true, tail, max_cells));
        factors.push_back(step_factor(kept.back().upper, true));
        factors.push_back(step_factor(kept.back().lower, false));
        return {{{{3, rounds}}, {{4, rounds}}}};
    }
};

}  // namespace subsampled_gaussian_step_detail

// The step read of `s` (the header's comment), each window composed by compose(views, grid, items, pessimistic,
// window): the certified epsilon bracket and a certified upper side of the add direction's epsilon.
template <class Compose>
EpsilonStepRead subsampled_gaussian_step(const SubsampledGaussianStep& s, std::int64_t max_cells, Compose&& compose) {
    namespace d = subsampled_gaussian_step_detail;
    const RefinementTails cut =
        refinement_tails(s.sigma, s.q, static_cast<double>(s.rounds), s.delta, s.tail, s.accuracy);
    d::StepRounds f(s.sigma, s.q, s.h, s.rounds, cut.round, s.tail, max_cells);
    EpsilonStepPoint point;
    point.delta = {s.delta};
    point.window = cut.window;
    f.items_of(point);
    auto add_items = [&f](const std::vector<std::size_t>&) { return f.add(); };
    const std::vector<EpsilonStepBracket> b =
        screened_epsilon_step(std::vector<EpsilonStepPoint>{point}, f.factors, compose, add_items);
    return {b.front().lower.front(), b.front().upper.front(), b.front().add.front()};
}

// The delta step read of `s` at the relative `rules` (the header's comment), `before` the intersection of the earlier
// grids' brackets (none on the first), each window composed by compose as above: the certified delta bracket on h
// (step_sides.hpp's, its lower side raised to the suffix maxima where still wider than the rules' accuracy).
template <class Compose>
std::pair<double, double> subsampled_gaussian_delta_step(const SubsampledGaussianDeltaStep& s, const PointsRules& rules,
                                                         const std::optional<std::pair<double, double>>& before,
                                                         std::int64_t max_cells, Compose&& compose) {
    namespace d = subsampled_gaussian_step_detail;
    d::StepRounds f(s.sigma, s.q, s.h, s.rounds, s.tail, s.tail, max_cells);
    ScreenedPoint point;
    point.point.sigma = s.sigma;
    point.point.q = s.q;
    point.point.rounds = static_cast<double>(s.rounds);
    point.point.x = {s.epsilon};
    point.point.own = 1;
    if (before) point.before = PointRecord{0.0, {before->first}, {before->second}, {}};
    point.window = s.tail;
    f.items_of(point);
    auto add_items = [&f](const std::vector<std::size_t>&) { return f.add(); };
    const std::vector<ScreenedBracket> b =
        screened_step(rules, std::vector<ScreenedPoint>{point}, f.factors, 0.0, 0.0, compose, add_items);
    return {b.front().bracket.lower.front(), b.front().bracket.upper.front()};
}

}  // namespace pld
}  // namespace hockeystick
