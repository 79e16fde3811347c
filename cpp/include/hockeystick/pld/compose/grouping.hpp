// The batches a set of compositions is composed in: the items grouped by their windows' tail, the tails in order of
// their first item, then within a tail by grid step, the steps in order of their first item there; a batch keeps its
// items in their own order.
//
// One rule for every caller: the package's compose_all (a batch per tail) and compose_many (a batch per grid step,
// compose.hpp's compose_many takes one) read it through _core.pld_compose.composition_batches, and a delta step
// composed in one call (refine/screened_step.hpp) groups its items by it, so the step composes the package's batches.
// Keys are compared with ==, as the package's dict keys of floats are (0.0 and -0.0 one key).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

namespace hockeystick {
namespace pld {

namespace detail {

// The members of `key`'s group, the group appended at the end where `key` is new (the groups in order of first item).
template <class Members>
Members& group_of(std::vector<std::pair<double, Members>>& groups, double key) {
    for (auto& group : groups)
        if (group.first == key) return group.second;
    groups.push_back({key, Members{}});
    return groups.back().second;
}

}  // namespace detail

// The indices of the items, batched as the header's comment says, item i of tail tails[i] and grid step steps[i];
// `tails` or `steps` empty: one for every item (the other gives their number).  Throws std::invalid_argument where
// neither is empty and their lengths differ.
inline std::vector<std::vector<std::size_t>> composition_batches(const std::vector<double>& tails,
                                                                 const std::vector<double>& steps) {
    if (!tails.empty() && !steps.empty() && tails.size() != steps.size())
        throw std::invalid_argument("composition_batches needs one tail and one grid step per item");
    const std::size_t n = tails.empty() ? steps.size() : tails.size();
    using Steps = std::vector<std::pair<double, std::vector<std::size_t>>>;
    std::vector<std::pair<double, Steps>> groups;
    for (std::size_t i = 0; i < n; ++i)
        detail::group_of(detail::group_of(groups, tails.empty() ? 0.0 : tails[i]), steps.empty() ? 0.0 : steps[i])
            .push_back(i);
    std::vector<std::vector<std::size_t>> batches;
    for (auto& tail : groups)
        for (auto& step : tail.second) batches.push_back(std::move(step.second));
    return batches;
}

}  // namespace pld
}  // namespace hockeystick
