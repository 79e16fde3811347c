// The many-points delta refinement's reads of Poisson-subsampled Gaussian points, as the refinement loop's Source
// (points_front.hpp): each step's points in units, each unit's brackets read by the screened step over one-round
// factors discretized here, and delta near 1's reads on them, with no call into the caller inside the loop.  The
// package's SubsampledGaussianPLD(..., accuracy=...).delta of several points or epsilons drives it
// (python/hockeystick/pld/refine/points.py, through cpp/bindings/register_pld_points_delta.cpp).  Its first grids, and
// the points their upper side alone settles there, are points_delta_start.hpp's.
//
// A step's units:
//   batches  the points of the step less those recomposing the complement alone, by composition kind (a point on the
//            grid it was on recomposes with direct bins from plan.same_grid_charge; a point after its first grid, or
//            starting below its sampling rate, with direct bins from kDirectMinCharge; the others without), the kinds
//            in that order from the plain one, each cut into runs of at most plan.batch points whose estimated windows
//            (loss_span / h) fit plan.budget;
//   only     then the points whose every argument still too wide took the complement's bracket on their last grid
//            (points_rules.hpp's next grid), in such runs: their bracket is their record, its fixed part 0, and the
//            complement is read again on the new grid.
// A unit's brackets are the screened step's (screened_step.hpp) over the points' factors (subsampled_gaussian_step.hpp's
// one rounds: the remove direction on both sides at its round tail, the screen on a grid kStepScreenCoarsening times
// coarser, the add direction on both sides where the screen does not clear), every window at its tail: with
// plan.by_epsilon (the epsilon rule) the tails refinement_tails.hpp sizes to plan.settled, each round tail the least
// over the unit's points of one (sigma, q, sensitivity), else plan.tail.  A unit whose window passes the cap on points
// is read point by point; a point refused alone stops (`stop`), its bracket its record (or [0, 1] on its first grid),
// certified: one refusal counted in `refused` a point.  Then delta near 1: the lower side raised to the affinity bound
// where the upper side is above plan.near_one (affinity_ceiling.hpp), and the bracket intersected with the
// complement's on the unit's grid where it is above plan.complement_above (complement.hpp: the points of one (sigma /
// sensitivity, q, h) read together, the add direction composed only where its upper side over the point's grids is
// not below the remove direction's), the fixed part cleared where it was taken (the gap then narrows with the grid).
//
// A round the grid cannot discretize throws RoundRefused; a window past the cap read alone is the point's stop, never
// an error.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "hockeystick/pld/reads/affinity_ceiling.hpp"
#include "hockeystick/pld/reads/complement.hpp"
#include "hockeystick/pld/refine/grid_policy.hpp"
#include "hockeystick/pld/refine/points_delta_start.hpp"
#include "hockeystick/pld/refine/points_front.hpp"
#include "hockeystick/pld/refine/refinement_tails.hpp"
#include "hockeystick/pld/refine/screened_step.hpp"
#include "hockeystick/pld/refine/subsampled_gaussian_step.hpp"

namespace hockeystick {
namespace pld {

// What the front end decides (the header's comment): the steps' rules, the tails and the accuracy the epsilon rule
// sizes them by, the screen's floor and the settled delta, the units' direct-bins charge on a grid asked again, their
// budget and size, delta near 1's thresholds, the cap on one round's cells, and the start's grid policies and right
// offsets (points_delta_start.hpp).
struct PointsDeltaPlan {
    PointsRules step_rules{};
    double tail = kDefaultCompositionTail, accuracy = 1e-3;
    bool by_epsilon = false;
    double floor = 0.0, settled = 0.0;
    double same_grid_charge = 1e-13;
    double budget = 2097152.0;
    std::int64_t batch = 64;
    double near_one = 1.0 - 1e-6, complement_above = kComplementAbove;
    std::int64_t max_cells = 0;
    GridPolicy policy{}, start_policy{};
    std::int64_t right_rows = 0;
    DeltaStartPlan start() const {
        return {policy, start_policy, accuracy, by_epsilon, settled, right_rows, budget, batch};
    }
};

// The one-round masses a call keeps for its later units and steps (a step's units, and a grid asked again, read the
// same rounds): 64 MB.
constexpr std::int64_t kKeptFactorMasses = std::int64_t{1} << 23;

namespace points_delta_detail {

// One unit of a step: its points, whether it composes direct bins and from what charge, and whether it recomposes the
// complement alone.
struct Unit {
    std::vector<std::int64_t> points;
    bool direct = false;
    double charge = kDirectMinCharge;
    bool complement_only = false;
};

// A point's bracket on its grid as the unit reads it: its sides, the fixed part (two rows), the add direction's upper
// side (empty: none read).
struct Found {
    std::vector<double> lower, upper, fixed, add;
};

// The one-round factors of a call's units, each (sigma / sensitivity, q, grid, direction, side, tail) discretized once
// while the kept masses stay within kKeptFactorMasses (cleared between units past it).
struct UnitFactors {
    std::int64_t max_cells;
    std::int64_t masses = 0;
    std::deque<subsampled_gaussian_step_detail::OneRound> kept{};
    std::map<std::tuple<double, double, double, bool, bool, double>, std::pair<std::size_t, std::size_t>> index{};
    std::vector<StepFactor> factors{};

    // The (pessimistic, optimistic) factor indices of one direction's round (the optimistic one where asked: else the
    // pessimistic one's index twice).
    std::pair<std::size_t, std::size_t> of(double noise, double q, double h, bool remove, bool optimistic,
                                           double tail) {
        const auto key = std::make_tuple(noise, q, h, remove, optimistic, tail);
        const auto found = index.find(key);
        if (found != index.end()) return found->second;
        kept.push_back(subsampled_gaussian_step_detail::one_round(noise, q, h, remove, optimistic, tail, max_cells));
        const subsampled_gaussian_step_detail::OneRound& r = kept.back();
        masses += static_cast<std::int64_t>(r.upper.p.size() + r.lower.p.size());
        std::pair<std::size_t, std::size_t> at{factors.size(), factors.size()};
        factors.push_back(subsampled_gaussian_step_detail::step_factor(r.upper, true));
        if (optimistic) {
            at.second = factors.size();
            factors.push_back(subsampled_gaussian_step_detail::step_factor(r.lower, false));
        }
        index.emplace(key, at);
        return at;
    }
    // Drops every factor once the kept masses pass the budget (between units: no unit holds an index then).
    void within_budget() {
        if (masses <= kKeptFactorMasses) return;
        kept.clear();
        index.clear();
        factors.clear();
        masses = 0;
    }
};

}  // namespace points_delta_detail

// The Source of the header's comment: compose_for(direct, min_charge) gives the composition (compose(views, grid,
// items, pessimistic, window), within the caller's cap on points) of a unit's kind, and the complement's (direct bins
// from kDirectMinCharge).
template <class ComposeFor>
struct PointsDeltaSource {
    const std::vector<RefinedPoint>& points;
    const PointsDeltaPlan& plan;
    ComposeFor& compose_for;
    std::set<std::int64_t> only{}, stopped{};
    std::map<std::int64_t, std::vector<double>> add_upper{};
    std::map<std::tuple<double, double, double>, LogAffinity> affinities{};
    std::map<std::tuple<double, double, double>, std::optional<std::vector<ComplementDirection>>> complements{};
    points_delta_detail::UnitFactors rounds_kept{plan.max_cells};
    std::vector<double> visited{};  // each unit's grids as its screened step reads them, one a point
    std::int64_t refused = 0;
    double refused_noise = 0.0, refused_rate = 0.0;  // the run of a round a grid could not discretize

    std::set<std::int64_t> below_rate{};
    std::map<std::int64_t, std::vector<double>> settled{};  // the points settled before the loop, their upper sides

    // Each point's first grid less the points their upper side settles there (points_delta_start.hpp).
    std::map<std::int64_t, double> first() {
        const DeltaStartPlan start = plan.start();
        std::map<std::int64_t, double> grids = first_delta_grids(points, start, below_rate);
        settled =
            settled_delta_uppers(points, below_rate, start,
                                 [&](const std::vector<std::int64_t>& batch, const std::map<std::int64_t, double>& hs) {
                                     return span_uppers(batch, hs);
                                 });
        for (const auto& [i, up] : settled) grids.erase(i);
        return grids;
    }

    // The settled points' brackets at their own arguments: [0, their upper side].
    std::map<std::int64_t, std::pair<std::vector<double>, std::vector<double>>> settled_brackets() const {
        std::map<std::int64_t, std::pair<std::vector<double>, std::vector<double>>> out;
        for (const auto& [i, up] : settled) {
            const auto own = static_cast<std::ptrdiff_t>(points[static_cast<std::size_t>(i)].own);
            out.emplace(i, std::make_pair(std::vector<double>(static_cast<std::size_t>(own), 0.0),
                                          std::vector<double>(up.begin(), up.begin() + own)));
        }
        return out;
    }

    // The certified upper side of each point of `batch` alone on its grid (screened_step.hpp's screened_uppers, at the
    // unit's tails): the remove direction's pessimistic side, no optimistic one discretized, and the screen; +inf
    // (not settled) where a window passes the cap on points.
    std::vector<std::vector<double>> span_uppers(const std::vector<std::int64_t>& batch,
                                                 const std::map<std::int64_t, double>& grids) {
        const std::vector<std::pair<double, double>> tails = unit_tails(batch);
        points_delta_detail::UnitFactors& f = rounds_kept;
        f.within_budget();
        std::vector<ScreenedPoint> step(batch.size());
        for (std::size_t k = 0; k < batch.size(); ++k) {
            ScreenedPoint& s = step[k];
            s.point = settled_arguments(points[static_cast<std::size_t>(batch[k])], plan.right_rows);
            s.window = tails[k].second;
            round_items(s, batch[k], grids.at(batch[k]), tails[k].first, false);
        }
        try {
            return screened_uppers(step, f.factors, compose_for(false, kDirectMinCharge));
        } catch (const std::length_error&) {
            std::vector<std::vector<double>> out;
            for (const ScreenedPoint& s : step)
                out.emplace_back(s.point.x.size(), std::numeric_limits<double>::infinity());
            return out;
        }
    }

    std::vector<PointStep> steps(const std::map<std::int64_t, double>& grids,
                                 const std::map<std::int64_t, PointRecord>& best,
                                 const std::vector<std::int64_t>& complement_only) {
        only = std::set<std::int64_t>(complement_only.begin(), complement_only.end());
        std::vector<PointStep> out;
        for (const points_delta_detail::Unit& unit : units(grids, best)) {
            std::vector<points_delta_detail::Found> found =
                unit.complement_only ? recorded(unit.points, best) : read_unit(unit, grids, best);
            for (std::size_t k = 0; k < unit.points.size(); ++k) fold_add(unit.points[k], found[k].add);
            near_one_sides(unit, grids, found, out);
        }
        return out;
    }

    // The units of one step (the header's comment).
    std::vector<points_delta_detail::Unit> units(const std::map<std::int64_t, double>& grids,
                                                 const std::map<std::int64_t, PointRecord>& best) const {
        using Kind = std::pair<bool, double>;  // direct, -charge (-inf: kDirectMinCharge), sorted as the kinds go
        std::map<Kind, std::vector<std::pair<std::int64_t, double>>> kinds;
        const double none = -std::numeric_limits<double>::infinity();
        for (const auto& [i, h] : grids) {
            if (only.count(i)) continue;
            const auto before = best.find(i);
            const Kind kind = before != best.end() && before->second.h == h
                                  ? Kind{true, -plan.same_grid_charge}
                                  : Kind{before != best.end() || below_rate.count(i) > 0, none};
            kinds[kind].emplace_back(i, span(i) / h);
        }
        std::vector<points_delta_detail::Unit> out;
        for (const auto& [kind, sizes] : kinds)
            for (std::vector<std::int64_t>& batch : within_budget(sizes, plan.budget, plan.batch))
                out.push_back({std::move(batch), kind.first, kind.second == none ? kDirectMinCharge : -kind.second});
        std::vector<std::pair<std::int64_t, double>> spans;
        for (const std::int64_t i : only) spans.emplace_back(i, span(i) / grids.at(i));
        for (std::vector<std::int64_t>& batch : within_budget(spans, plan.budget, plan.batch))
            out.push_back({std::move(batch), true, kDirectMinCharge, true});
        return out;
    }

    double span(std::int64_t i) const {
        const RefinedPoint& p = points[static_cast<std::size_t>(i)];
        return loss_span(p.sigma, p.q, p.rounds, p.sensitivity);
    }

    // A complement-only unit's brackets: the records of the points' last grids, no fixed part.
    std::vector<points_delta_detail::Found> recorded(const std::vector<std::int64_t>& unit,
                                                     const std::map<std::int64_t, PointRecord>& best) const {
        std::vector<points_delta_detail::Found> out;
        for (const std::int64_t i : unit) {
            const PointRecord& r = best.at(i);
            out.push_back({r.lower, r.upper, std::vector<double>(2 * r.lower.size(), 0.0), add_of(i)});
        }
        return out;
    }

    std::vector<double> add_of(std::int64_t i) const {
        const auto a = add_upper.find(i);
        return a == add_upper.end() ? std::vector<double>{} : a->second;
    }

    // Every grid's add-direction upper side holds: the least over the point's grids.
    void fold_add(std::int64_t i, const std::vector<double>& add) {
        if (add.empty()) return;
        auto [at, fresh] = add_upper.emplace(i, add);
        if (!fresh)
            for (std::size_t k = 0; k < add.size(); ++k) at->second[k] = std::min(add[k], at->second[k]);
    }

    // A unit's brackets; where a window passes the cap, each point alone, and a point refused alone stops.
    std::vector<points_delta_detail::Found> read_unit(const points_delta_detail::Unit& unit,
                                                      const std::map<std::int64_t, double>& grids,
                                                      const std::map<std::int64_t, PointRecord>& best) {
        try {
            return step_brackets(unit.points, grids, best, unit.direct, unit.charge);
        } catch (const std::length_error&) {}
        std::vector<points_delta_detail::Found> out;
        for (const std::int64_t i : unit.points) {
            try {
                if (unit.points.size() == 1) throw std::length_error("the composed loss window passes the cap");
                out.push_back(step_brackets({i}, grids, best, unit.direct, unit.charge).front());
                continue;
            } catch (const std::length_error&) {}
            stopped.insert(i);
            ++refused;
            const std::size_t m = points[static_cast<std::size_t>(i)].x.size();
            const auto before = best.find(i);
            if (before != best.end())
                out.push_back({before->second.lower, before->second.upper, std::vector<double>(2 * m, 0.0), add_of(i)});
            else
                out.push_back({std::vector<double>(m, 0.0), std::vector<double>(m, 1.0),
                               std::vector<double>(2 * m, 0.0), add_of(i)});
        }
        return out;
    }

    // The screened step's brackets of the points of `unit` on their grids (the header's comment).
    std::vector<points_delta_detail::Found> step_brackets(const std::vector<std::int64_t>& unit,
                                                          const std::map<std::int64_t, double>& grids,
                                                          const std::map<std::int64_t, PointRecord>& best, bool direct,
                                                          double charge) {
        for (const std::int64_t i : unit) visited.push_back(grids.at(i));
        const std::vector<std::pair<double, double>> tails = unit_tails(unit);
        points_delta_detail::UnitFactors& f = rounds_kept;
        f.within_budget();
        std::vector<ScreenedPoint> step(unit.size());
        for (std::size_t k = 0; k < unit.size(); ++k) {
            const RefinedPoint& p = points[static_cast<std::size_t>(unit[k])];
            ScreenedPoint& s = step[k];
            s.point.x = p.x;
            s.point.own = p.own;
            const auto before = best.find(unit[k]);
            if (before != best.end()) s.before = PointRecord{0.0, before->second.lower, before->second.upper, {}};
            s.window = tails[k].second;
            round_items(s, unit[k], grids.at(unit[k]), tails[k].first, true);
        }
        const auto add_items = [&](const std::vector<std::size_t>& rest) {
            std::vector<AddItems> out;
            for (const std::size_t k : rest) {
                const RefinedPoint& p = points[static_cast<std::size_t>(unit[k])];
                refused_noise = p.sigma / p.sensitivity;
                refused_rate = p.q;
                const auto add = f.of(p.sigma / p.sensitivity, p.q, grids.at(unit[k]), false, true, plan.tail);
                const std::int64_t rounds = static_cast<std::int64_t>(p.rounds);
                out.push_back({{{add.first, rounds}}, {{add.second, rounds}}});
            }
            return out;
        };
        auto& compose = compose_for(direct, charge);
        const std::vector<ScreenedBracket> found =
            screened_step(plan.step_rules, step, f.factors, plan.floor, plan.settled, compose, add_items);
        std::vector<points_delta_detail::Found> out;
        for (const ScreenedBracket& s : found)
            out.push_back({s.bracket.lower, s.bracket.upper, s.bracket.fixed, s.bracket.add});
        return out;
    }

    // Point i's items on grid h in `s`: its remove direction at `round_tail` (both sides where `optimistic`, else the
    // pessimistic one alone, no optimistic side discretized) and its screen, from the call's kept factors (the remove
    // direction's first); its run kept for the message of a round the grid cannot discretize.
    void round_items(ScreenedPoint& s, std::int64_t i, double h, double round_tail, bool optimistic) {
        const RefinedPoint& p = points[static_cast<std::size_t>(i)];
        const double noise = p.sigma / p.sensitivity;
        const std::int64_t rounds = static_cast<std::int64_t>(p.rounds);
        refused_noise = noise;
        refused_rate = p.q;
        const auto remove = rounds_kept.of(noise, p.q, h, true, optimistic, round_tail);
        s.remove_upper = {{remove.first, rounds}};
        if (optimistic) s.remove_lower = {{remove.second, rounds}};
        s.screen_upper = {{rounds_kept.of(noise, p.q, step_screen_interval(h), false, false, plan.tail).first, rounds}};
    }

    // Per point of a unit, its round tail and its windows' tail (the header's comment).
    std::vector<std::pair<double, double>> unit_tails(const std::vector<std::int64_t>& unit) const {
        std::vector<std::pair<double, double>> out;
        std::map<std::tuple<double, double, double>, double> least;
        for (const std::int64_t i : unit) {
            const RefinedPoint& p = points[static_cast<std::size_t>(i)];
            std::pair<double, double> t{plan.tail, plan.tail};
            if (plan.by_epsilon) {
                const RefinementTails cut =
                    refinement_tails(p.sigma / p.sensitivity, p.q, p.rounds, plan.settled, plan.tail, plan.accuracy);
                t = {cut.round, cut.window};
            }
            const auto key = std::make_tuple(p.sigma, p.q, p.sensitivity);
            const auto [at, fresh] = least.emplace(key, t.first);
            if (!fresh) at->second = std::min(at->second, t.first);
            out.push_back(t);
        }
        for (std::size_t k = 0; k < unit.size(); ++k) {
            const RefinedPoint& p = points[static_cast<std::size_t>(unit[k])];
            out[k].first = least.at(std::make_tuple(p.sigma, p.q, p.sensitivity));
        }
        return out;
    }

    // Delta near 1 on a unit's brackets (the header's comment), each then handed to the loop.
    void near_one_sides(const points_delta_detail::Unit& unit, const std::map<std::int64_t, double>& grids,
                        std::vector<points_delta_detail::Found>& found, std::vector<PointStep>& out) {
        std::vector<std::vector<char>> taken(unit.points.size());
        if (!unit.complement_only)
            for (std::size_t k = 0; k < unit.points.size(); ++k) raise_near_one(unit.points[k], found[k]);
        complement_sides(unit.points, grids, found, taken);
        for (std::size_t k = 0; k < unit.points.size(); ++k) {
            const std::int64_t i = unit.points[k];
            PointStep s;
            s.i = i;
            s.h = grids.at(i);
            s.lower = std::move(found[k].lower);
            s.upper = std::move(found[k].upper);
            s.fixed = std::move(found[k].fixed);
            const std::size_t m = s.lower.size();
            for (std::size_t a = 0; a < taken[k].size(); ++a)
                if (taken[k][a]) s.fixed[a] = s.fixed[m + a] = 0.0;
            s.near = std::move(taken[k]);
            s.direct = unit.direct;
            s.stop = stopped.count(i) > 0;
            out.push_back(std::move(s));
        }
    }

    // The lower side raised to the affinity bound where the upper side is above plan.near_one.
    void raise_near_one(std::int64_t i, points_delta_detail::Found& b) {
        const RefinedPoint& p = points[static_cast<std::size_t>(i)];
        const LogAffinity* table = nullptr;
        for (std::size_t a = 0; a < b.upper.size(); ++a) {
            if (!(b.upper[a] > plan.near_one)) continue;
            if (!table) {
                const auto key = std::make_tuple(p.sigma, p.q, p.sensitivity);
                auto found = affinities.find(key);
                if (found == affinities.end())
                    found =
                        affinities.emplace(key, subsampled_gaussian_log_affinity(p.sigma / p.sensitivity, p.q)).first;
                table = &found->second;
            }
            b.lower[a] = std::max(b.lower[a], delta_lower_near_one(*table, p.rounds, p.x[a]));
        }
    }

    // Both directions' complement factors at (sigma / sensitivity, q, h), read once a call; none where they cannot be
    // built.
    const std::optional<std::vector<ComplementDirection>>& complement_factors(double noise, double q, double h) {
        const auto key = std::make_tuple(noise, q, h);
        auto found = complements.find(key);
        if (found == complements.end()) {
            std::optional<std::vector<ComplementDirection>> f;
            try {
                f = subsampled_gaussian_complement_factors(noise, q, h);
            } catch (const std::invalid_argument&) {
            } catch (const std::length_error&) {}
            found = complements.emplace(key, std::move(f)).first;
        }
        return found->second;
    }

    // The brackets above plan.complement_above somewhere, on a grid the complement reads, intersected with the
    // complement's there, the points of one (sigma / sensitivity, q, h) composed together; where it was taken, in
    // `taken`.  A group whose factors or windows cannot be built is left as it is.
    void complement_sides(const std::vector<std::int64_t>& unit, const std::map<std::int64_t, double>& grids,
                          std::vector<points_delta_detail::Found>& found, std::vector<std::vector<char>>& taken) {
        std::map<std::tuple<double, double, double>, std::vector<std::size_t>> groups;
        std::vector<std::tuple<double, double, double>> order;
        for (std::size_t k = 0; k < unit.size(); ++k) {
            const RefinedPoint& p = points[static_cast<std::size_t>(unit[k])];
            const double h = grids.at(unit[k]);
            const bool above = std::any_of(found[k].upper.begin(), found[k].upper.end(),
                                           [&](double u) { return u > plan.complement_above; });
            if (!(h <= kComplementMaxInterval && above)) continue;
            const auto key = std::make_tuple(p.sigma / p.sensitivity, p.q, h);
            if (!groups.count(key)) order.push_back(key);
            groups[key].push_back(k);
        }
        for (const auto& key : order) complement_group(unit, key, groups.at(key), found, taken);
    }

    void complement_group(const std::vector<std::int64_t>& unit, const std::tuple<double, double, double>& key,
                          const std::vector<std::size_t>& members, std::vector<points_delta_detail::Found>& found,
                          std::vector<std::vector<char>>& taken) {
        const auto& factors = complement_factors(std::get<0>(key), std::get<1>(key), std::get<2>(key));
        if (!factors) return;
        std::vector<std::int64_t> rounds;
        std::vector<std::vector<double>> eps;
        std::vector<std::optional<std::vector<double>>> others;
        std::vector<std::vector<std::size_t>> where(members.size());
        for (std::size_t g = 0; g < members.size(); ++g) {
            const std::size_t k = members[g];
            const RefinedPoint& p = points[static_cast<std::size_t>(unit[k])];
            const std::vector<double> add = add_of(unit[k]);
            std::vector<double> at, known;
            for (std::size_t a = 0; a < found[k].upper.size(); ++a)
                if (found[k].upper[a] > plan.complement_above) {
                    where[g].push_back(a);
                    at.push_back(p.x[a]);
                    if (!add.empty()) known.push_back(add[a]);
                }
            rounds.push_back(static_cast<std::int64_t>(p.rounds));
            eps.push_back(std::move(at));
            others.push_back(add.empty() ? std::nullopt : std::optional<std::vector<double>>(std::move(known)));
        }
        std::vector<ComplementBracket> read;
        try {
            auto& compose = compose_for(true, kDirectMinCharge);
            read = complement_delta_brackets(*factors, rounds, eps, others, compose);
        } catch (const std::invalid_argument&) { return; } catch (const std::length_error&) {
            return;
        }
        for (std::size_t g = 0; g < members.size(); ++g) {
            const std::size_t k = members[g];
            taken[k].assign(found[k].upper.size(), 0);
            for (std::size_t e = 0; e < where[g].size(); ++e) {
                const std::size_t a = where[g][e];
                found[k].lower[a] = std::max(found[k].lower[a], read[g].lower[e]);
                found[k].upper[a] = std::min(found[k].upper[a], read[g].upper[e]);
                taken[k][a] = 1;
            }
        }
    }
};

}  // namespace pld
}  // namespace hockeystick
