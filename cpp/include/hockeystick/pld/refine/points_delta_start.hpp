// Where the many-points delta refinement starts (points_delta_source.hpp's first()): each point's first grid, the
// points that start below their sampling rate, and among those the points their upper side alone settles before the
// loop, whose brackets are [0, that upper side].
//
//   first grid   delta_start (grid_policy.hpp) of the point at the accuracy, under the epsilon rule with the start
//                policy (its below-rate start at rates up to its own limit), within the memory's window
//                (within_window), and no finer than the point's coarsest fit: a coarser grid is certified too;
//   below rate   under the epsilon rule, a first grid finer than the point's span start (span_start): the refinement
//                composes it with direct bins, finely, where many points lie below the settled delta at every
//                argument, which the span grid shows at a small part of that cost;
//   settled      a below-rate point whose certified upper side on its span grid (the remove direction's pessimistic
//                side and the add direction's screen, screened_step.hpp's screened_uppers) is below `settled` at
//                every argument it reads there (its own and its right offsets: delta is larger at the left ones) is
//                done, its lower side 0 (certified: delta >= 0; the epsilon rule certifies no width from a lower side
//                below the floor beside such an upper side).
//
// Delta grows with the rounds, so among the below-rate points of one (sigma, q, sensitivity) those that settle are the
// ones with the fewest rounds: the fewest-rounds point is read alone, and where it settles a bisection over the rounds
// finds the last that does; the points below it are then read in runs within the window budget, those above it not at
// all (the span grid's composition is wasted where a point does not settle).  Which points settle decides grids only:
// every bracket is certified on its own.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "hockeystick/pld/refine/direction_screen.hpp"
#include "hockeystick/pld/refine/grid_policy.hpp"
#include "hockeystick/pld/refine/points_rules.hpp"

namespace hockeystick {
namespace pld {

// The start's rules: the grid policy (the ladder, the window cap, the span start), the first grid's policy (the
// epsilon rule's below-rate limit), the accuracy, whether the epsilon rule applies, the delta a point settles below,
// how many right offsets follow a point's own arguments, and the window budget and points of a settled read's runs.
struct DeltaStartPlan {
    GridPolicy policy{}, start_policy{};
    double accuracy = 1e-3;
    bool by_epsilon = false;
    double settled = 0.0;
    std::int64_t right_rows = 0;
    double budget = 2097152.0;
    std::int64_t batch = 64;
};

// Consecutive runs of at most `batch` (index, estimated window points) whose points fit `budget`.
inline std::vector<std::vector<std::int64_t>> within_budget(const std::vector<std::pair<std::int64_t, double>>& sizes,
                                                            double budget, std::int64_t batch) {
    std::vector<std::vector<std::int64_t>> out(1);
    double used = 0.0;
    for (const auto& [i, size] : sizes) {
        if (!out.back().empty() && (static_cast<std::int64_t>(out.back().size()) >= batch || used + size > budget)) {
            out.emplace_back();
            used = 0.0;
        }
        out.back().push_back(i);
        used += size;
    }
    if (out.back().empty()) out.pop_back();
    return out;
}

// Each point's first grid (the header's comment), and in `below_rate` the points that start below their sampling rate.
inline std::map<std::int64_t, double> first_delta_grids(const std::vector<RefinedPoint>& points,
                                                        const DeltaStartPlan& plan,
                                                        std::set<std::int64_t>& below_rate) {
    std::map<std::int64_t, double> out;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const RefinedPoint& p = points[i];
        const double start =
            delta_start(p.sigma, p.q, p.rounds, p.sensitivity, plan.accuracy, plan.by_epsilon, plan.start_policy);
        const double h =
            std::max(within_window(p.sigma, p.q, p.rounds, p.sensitivity, start, plan.policy), p.coarsest_fit);
        out[static_cast<std::int64_t>(i)] = h;
        if (plan.by_epsilon && h < span_start(p.sigma, p.q, p.rounds, p.sensitivity, plan.accuracy, plan.policy))
            below_rate.insert(static_cast<std::int64_t>(i));
    }
    return out;
}

// The point read by the settled test: its own arguments and its right offsets' rows.
inline RefinedPoint settled_arguments(const RefinedPoint& p, std::int64_t right_rows) {
    RefinedPoint out = p;
    const std::int64_t own = p.own, rows = own > 0 ? static_cast<std::int64_t>(p.x.size()) / own - 1 : 0;
    out.x.resize(static_cast<std::size_t>(own * (1 + std::min(rows, right_rows))));
    return out;
}

// The points of `pending` (below-rate points) that settle (the header's comment), with their upper sides at their
// settled arguments: uppers(batch, grids) -> one certified upper side a point of `batch` (indices into points) on its
// grid (span_start), at its settled_arguments.
template <class Uppers>
std::map<std::int64_t, std::vector<double>> settled_delta_uppers(const std::vector<RefinedPoint>& points,
                                                                 const std::set<std::int64_t>& pending,
                                                                 const DeltaStartPlan& plan, Uppers&& uppers) {
    std::map<std::int64_t, double> grids;
    for (const std::int64_t i : pending) {
        const RefinedPoint& p = points[static_cast<std::size_t>(i)];
        grids[i] = span_start(p.sigma, p.q, p.rounds, p.sensitivity, plan.accuracy, plan.policy);
    }
    std::map<std::int64_t, std::vector<double>> tried;
    const auto read = [&](const std::vector<std::int64_t>& batch) {
        std::vector<std::vector<double>> found = uppers(batch, grids);
        for (std::size_t k = 0; k < batch.size(); ++k) tried[batch[k]] = std::move(found[k]);
    };
    const auto below = [&](const std::vector<double>& up) {
        return settled_everywhere(up.data(), nullptr, up.size(), plan.settled);
    };
    const auto settles = [&](std::int64_t i) {
        if (!tried.count(i)) read({i});
        return below(tried.at(i));
    };
    using Pair = std::tuple<double, double, double>;
    std::vector<Pair> order;
    std::map<Pair, std::vector<std::int64_t>> pairs;
    for (const std::int64_t i : pending) {
        const RefinedPoint& p = points[static_cast<std::size_t>(i)];
        const Pair key{p.sigma, p.q, p.sensitivity};
        if (!pairs.count(key)) order.push_back(key);
        pairs[key].push_back(i);
    }
    std::vector<std::pair<std::int64_t, double>> candidates;
    for (const Pair& key : order) {
        std::vector<std::int64_t>& group = pairs.at(key);
        std::stable_sort(group.begin(), group.end(), [&](std::int64_t a, std::int64_t b) {
            return points[static_cast<std::size_t>(a)].rounds < points[static_cast<std::size_t>(b)].rounds;
        });
        if (!settles(group.front())) continue;
        std::size_t low = 1, high = group.size();  // group[:low] ends with a point that settles, group[high:] none
        while (low < high) {
            const std::size_t mid = (low + high) / 2;
            if (settles(group[mid]))
                low = mid + 1;
            else
                high = mid;
        }
        for (std::size_t k = 0; k < low; ++k) {
            const std::int64_t i = group[k];
            const RefinedPoint& p = points[static_cast<std::size_t>(i)];
            if (!tried.count(i))
                candidates.emplace_back(i, loss_span(p.sigma, p.q, p.rounds, p.sensitivity) / grids[i]);
        }
    }
    for (const std::vector<std::int64_t>& run : within_budget(candidates, plan.budget, plan.batch)) read(run);
    std::map<std::int64_t, std::vector<double>> out;
    for (auto& [i, up] : tried)
        if (below(up)) out.emplace(i, std::move(up));
    return out;
}

}  // namespace pld
}  // namespace hockeystick
