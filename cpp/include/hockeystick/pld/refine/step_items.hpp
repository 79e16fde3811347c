// The items of a refinement step composed as the package composes them: one-round PMFs as composition factors and
// reads (StepFactor), a direction of a point on one side as (factor, count) terms (StepItem), composed on one side in
// the package's batches (compose/grouping.hpp: one batch per tail and grid step, each factor listed once, as the
// facade's compose_many lists it), an item that is one factor once on the side asked for passed through as that
// factor with its own charges (python/hockeystick/pld/compose/fft.py's _split), and each window read as the facade's
// GridPMF reads it (its charges, pld/reads/epsilon_bracket.hpp's charges_of).  So a step composed here in one call
// gives the doubles of the package's compose_all over the same items (screened_step.hpp for delta,
// screened_epsilon_step.hpp for epsilon).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hockeystick/pld/compose/grouping.hpp"
#include "hockeystick/pld/compose/options.hpp"
#include "hockeystick/pld/reads/charged_sides.hpp"
#include "hockeystick/pld/reads/epsilon_bracket.hpp"  // charges_of
#include "hockeystick/support/pairwise_sum.hpp"

namespace hockeystick {
namespace pld {

// A one-round PMF as a composition factor and as a read (its masses, grid step, charges and side), with its finite
// mass where it is pessimistic (GridPMF.finite_mass: the fixed part of a side it sets alone reads it).
struct StepFactor {
    SideRead read{};
    double finite_mass = 0.0;
};

// One direction of a point on one side: (factor index into the step's factors, count) terms.
using StepItem = std::vector<std::pair<std::size_t, std::int64_t>>;

// The add direction of a point whose screen did not clear (screened_step.hpp, screened_epsilon_step.hpp), on both
// sides.
struct AddItems {
    StepItem upper{}, lower{};
};

// A composed window (or a factor passed through) as a read, its masses kept alive by the owner of `kept`.
struct StepWindow {
    SideRead read{};
    double finite_mass = 0.0;
};

namespace step_items_detail {

// The item's terms with a positive count, and their grid step (one for all, as compose_many asks).
inline StepItem live_terms(const std::vector<StepFactor>& factors, const StepItem& item, double& h) {
    StepItem live;
    for (const auto& term : item)
        if (term.second > 0) live.push_back(term);
    if (live.empty()) throw std::invalid_argument("compose needs at least one factor with a positive count");
    h = factors[live[0].first].read.h;
    for (const auto& term : live)
        if (factors[term.first].read.h != h)
            throw std::invalid_argument("all factors must share one value_discretization_interval");
    return live;
}

// One batch (one tail, one grid step) composed: each factor listed once, the windows kept in `kept` (a deque: their
// masses stay where they are) and read as the facade's GridPMF reads them.
template <class Compose>
void compose_batch(const std::vector<StepFactor>& factors, const std::vector<StepItem>& live,
                   const std::vector<std::size_t>& members, double h, double tail, bool pessimistic, Compose& compose,
                   std::deque<ComposedPMF>& kept, std::vector<StepWindow>& out) {
    std::map<std::size_t, std::int64_t> index;
    std::vector<PmfView> views;
    std::vector<std::vector<Term>> terms;
    for (const std::size_t i : members) {
        terms.emplace_back();
        for (const auto& [f, count] : live[i]) {
            const auto found = index.emplace(f, static_cast<std::int64_t>(views.size()));
            if (found.second) views.push_back(factors[f].read.pmf);
            terms.back().push_back({found.first->second, count});
        }
    }
    std::vector<ComposedPMF> done = compose(views, h, terms, pessimistic, tail);
    for (std::size_t k = 0; k < members.size(); ++k) {
        kept.push_back(std::move(done[k]));
        const ComposedPMF& r = kept.back();
        const PmfView view{r.p.data(), static_cast<std::int64_t>(r.p.size()), r.k_lo, r.p_inf, r.loss_shift};
        double mass = 0.0;  // GridPMF.finite_mass, read on the pessimistic side alone
        if (pessimistic) mass = r.finite_mass.has_value() ? *r.finite_mass : numpy_sum(r.p.data(), view.n);
        out[members[k]] = {side_read(view, h, charges_of(r), pessimistic), mass};
    }
}

}  // namespace step_items_detail

// compose(views, h, terms, pessimistic, tail) -> std::vector<ComposedPMF>: each item of `items` (terms over
// `factors`) composed on one side at its tail, in the package's batches (compose/grouping.hpp); an item that is one
// factor once on the side asked for is that factor, as _split passes it.  The windows are kept in `kept` (a deque:
// their masses stay where they are).
template <class Compose>
std::vector<StepWindow> compose_items(const std::vector<StepFactor>& factors, const std::vector<const StepItem*>& items,
                                      const std::vector<double>& tails, bool pessimistic, Compose& compose,
                                      std::deque<ComposedPMF>& kept) {
    std::vector<StepWindow> out(items.size());
    std::vector<StepItem> live(items.size());
    std::vector<std::size_t> composed;  // the items composed, with their tails and grid steps
    std::vector<double> composed_tails, steps;
    for (std::size_t i = 0; i < items.size(); ++i) {
        double h = 0.0;
        live[i] = step_items_detail::live_terms(factors, *items[i], h);
        const StepFactor& only = factors[live[i][0].first];
        if (live[i].size() == 1 && live[i][0].second == 1 && only.read.pessimistic == pessimistic) {
            out[i] = {only.read, only.finite_mass};
        } else {
            composed.push_back(i);
            composed_tails.push_back(tails[i]);
            steps.push_back(h);
        }
    }
    for (const std::vector<std::size_t>& batch : composition_batches(composed_tails, steps)) {
        std::vector<std::size_t> members;
        for (const std::size_t k : batch) members.push_back(composed[k]);
        step_items_detail::compose_batch(factors, live, members, steps[batch[0]], composed_tails[batch[0]], pessimistic,
                                         compose, kept, out);
    }
    return out;
}

}  // namespace pld
}  // namespace hockeystick
