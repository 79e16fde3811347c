// One point's delta bracket on one grid of the many-points refinement from its composed PMFs' reads, the whole
// assembly in the core (screened_step.hpp assembles each point's bracket with it; the tests read it through the binding
// cpp/bindings/register_pld_refine.cpp):
//
//   fixed parts   each direction's pessimistic PMF at its certified upper values, then each lower side's
//                 optimistic PMF at its charged lower values (fixed_part.hpp's two rows);
//   bracket       step_bracket.hpp's from those reads (the largest upper side, the largest lower side raised by the
//                 right offsets' rows, the fixed part of the sides that set them, the add direction's upper side,
//                 and the arguments still wider than the accuracy);
//   envelope      at those wide arguments, the lower side raised to the largest of the lower sides' suffix maxima
//                 (lower_envelope.hpp: delta does not increase, so a charged lower value at any grid point above
//                 eps bounds it too), an O(n) pass over a composed window that the other arguments do without.
//
// The same doubles as the numpy formulas and GridPMF reads each part names (tests/pld/refine/test_step_sides.py).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <vector>

#include "hockeystick/pld/reads/charged_sides.hpp"
#include "hockeystick/pld/reads/hockey_stick.hpp"  // detail::numpy_maximum
#include "hockeystick/pld/reads/lower_envelope.hpp"
#include "hockeystick/pld/refine/fixed_part.hpp"
#include "hockeystick/pld/refine/points_rules.hpp"
#include "hockeystick/pld/refine/step_bracket.hpp"

namespace hockeystick {
namespace pld {

// One side of a point's bracket: a composed PMF's read (its arguments and results left to step_sides), its values
// at the point's arguments (a pessimistic PMF's certified upper values, an optimistic one's charged lower values at
// each eps alone) and its finite mass (the sum of its grid masses, read on the pessimistic side alone).
struct StepSide {
    SideRead read{};
    const double* values = nullptr;
    double finite_mass = 0.0;
};

// The bracket of `point` on one grid (the header's comment) from its directions' pessimistic sides `uppers` (at
// least one) and the optimistic sides `lowers` that can raise its lower side (none: the lower side 0), the record
// of its grid before `before` (null: none), under `rules` (a .delta refinement's).  Throws std::invalid_argument as
// check_step_reads, fixed_part and raise_to_envelope.
inline StepBracket step_sides(const PointsRules& rules, const RefinedPoint& point, const std::vector<StepSide>& uppers,
                              const std::vector<StepSide>& lowers, const PointRecord* before) {
    const std::size_t m = point.x.size();
    std::vector<std::vector<double>> parts(uppers.size() + lowers.size(), std::vector<double>(2 * m));
    std::vector<DirectionRead> up_reads, low_reads;
    for (std::size_t d = 0; d < parts.size(); ++d) {
        const StepSide& side = d < uppers.size() ? uppers[d] : lowers[d - uppers.size()];
        SideRead r = side.read;
        r.eps = point.x.data();
        r.m = static_cast<std::int64_t>(m);
        r.out = parts[d].data();
        fixed_part(r, side.values, side.finite_mass);
        (d < uppers.size() ? up_reads : low_reads).push_back({side.values, parts[d].data()});
    }
    StepBracket b = delta_step_bracket(rules, point, up_reads, low_reads, before);
    std::vector<double> at;
    std::vector<std::size_t> where;
    for (std::size_t k = 0; k < b.wide.size(); ++k)
        if (b.wide[k]) {
            at.push_back(point.x[k]);
            where.push_back(k);
        }
    if (where.empty()) return b;
    std::vector<double> raised, largest;  // each lower side raised, then the largest of them (numpy's max over axis 0)
    for (std::size_t d = 0; d < lowers.size(); ++d) {
        raised.resize(where.size());
        for (std::size_t w = 0; w < where.size(); ++w) raised[w] = lowers[d].values[where[w]];
        raise_to_envelope(lowers[d].read, at.data(), raised.data(), static_cast<std::int64_t>(where.size()));
        if (d == 0) {
            largest = raised;
            continue;
        }
        for (std::size_t w = 0; w < where.size(); ++w) largest[w] = detail::numpy_maximum(largest[w], raised[w]);
    }
    for (std::size_t w = 0; w < where.size(); ++w)
        b.lower[where[w]] = detail::numpy_maximum(b.lower[where[w]], largest[w]);
    return b;
}

}  // namespace pld
}  // namespace hockeystick
