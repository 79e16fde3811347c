// One point's delta bracket on one grid of the many-points refinement, from its neighbouring directions' reads: delta
// is the largest over the directions (Zhu, Dong & Wang, AISTATS 2022, Sec. 5), so with each direction's certified upper
// values (its composed pessimistic PMF's charged side) and the charged lower values of the directions whose optimistic
// side can raise the lower one (their composed optimistic PMFs at eps alone, no suffix maxima):
//
//   upper   the largest of the directions' upper values;
//   lower   the largest of the lower values; on the point's own arguments raised by the right offsets' rows
//           (delta_accuracy="epsilon": delta does not increase in eps, so a lower bound at eps + d bounds delta at
//           eps); 0 where no lower side was read (a point the caller settled below its floor);
//   fixed   the part of up - lo that no grid removes (fixed_part.hpp's two rows: the charges and tail, the cells'
//           edge factor), of the direction whose upper value sets the upper side, plus that of the direction whose
//           lower value sets the lower side (the first such on ties and where a value is NaN, as numpy's argmax
//           picks): a model for sizing the next grid (points_rules.hpp's charge_width), not a bound;
//   wide    the own arguments whose bracket, intersected with the record of the point's grid before (both certified),
//           is still wider than the accuracy (points_rules.hpp's points_width), and the left rows of those (their
//           lower sides certify the width): there the caller raises the lower side to its suffix maxima, an O(n) pass
//           over each composed window that the other arguments do without;
//   add     the largest upper value of the directions after the first (the add direction's), read by a later step.
//
// The layout of a point's arguments is points_rules.hpp's (own, then the right offsets' rows, then the left
// fractions').  Every operation is a numpy formula's, in its order (tests/pld/refine/test_step_bracket.py holds the
// formulas), NaN propagated as numpy's maximum and minimum propagate it, so the bracket is the same doubles, bit for
// bit, the tests' numpy reference gives (step_sides.hpp assembles a step's bracket with it).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "hockeystick/pld/reads/hockey_stick.hpp"  // detail::numpy_maximum, numpy_minimum
#include "hockeystick/pld/refine/points_rules.hpp"

namespace hockeystick {
namespace pld {

// One direction's read at a point's m arguments: its values (m) and their fixed part (2 m: the first row, then the
// second).
struct DirectionRead {
    const double* value = nullptr;
    const double* fixed = nullptr;
};

// The bracket of one point on one grid (the header's comment); `add` empty where the point has one direction.
struct StepBracket {
    std::vector<double> lower, upper, fixed, add;
    std::vector<char> wide;
};

// The index of the read whose value at argument k is the largest: the first NaN, else the first of the largest (numpy's
// argmax over the directions).
inline std::size_t largest_read(const std::vector<DirectionRead>& reads, std::size_t k) {
    std::size_t best = 0;
    for (std::size_t d = 1; d < reads.size(); ++d) {
        const double b = reads[best].value[k], v = reads[d].value[k];
        if (std::isnan(b)) break;
        if (std::isnan(v) || v > b) best = d;
    }
    return best;
}

// out (2 m, zeroed by the caller) += the fixed parts of the read whose value is the largest at each argument.
inline void add_fixed_of_largest(const std::vector<DirectionRead>& reads, std::size_t m, std::vector<double>& out) {
    for (std::size_t k = 0; k < m; ++k) {
        const DirectionRead& r = reads[largest_read(reads, k)];
        out[k] += r.fixed[k];
        out[m + k] += r.fixed[m + k];
    }
}

// The largest of the reads' values at each of m arguments (numpy's max over the directions), the reads in order.
inline std::vector<double> largest_values(const std::vector<DirectionRead>& reads, std::size_t m) {
    std::vector<double> out(reads.front().value, reads.front().value + m);
    for (std::size_t d = 1; d < reads.size(); ++d)
        for (std::size_t k = 0; k < m; ++k) out[k] = detail::numpy_maximum(out[k], reads[d].value[k]);
    return out;
}

// Throws std::invalid_argument where a point has no upper read, its arguments are not own times its rows, or the
// record of its grid before does not hold a bracket at every argument.
inline void check_step_reads(const RefinedPoint& point, const std::vector<DirectionRead>& uppers,
                             const PointRecord* before) {
    const std::size_t m = point.x.size();
    const auto own = static_cast<std::size_t>(point.own);
    if (uppers.empty()) throw std::invalid_argument("a step's bracket needs at least one direction's upper side");
    if (own == 0 || m % own != 0) throw std::invalid_argument("a point's arguments must be own times its rows");
    if (before != nullptr && (before->lower.size() != m || before->upper.size() != m))
        throw std::invalid_argument("the record of the grid before must hold a bracket at every argument");
}

// The arguments still wider than the accuracy (the header's comment): the own ones by points_rules.hpp's width of
// [lower, upper] intersected with `before` (null: none), and the left rows after the `right_rows` rows with them.
inline std::vector<char> wide_arguments(const PointsRules& rules, const RefinedPoint& point,
                                        const std::vector<double>& lower, const std::vector<double>& upper,
                                        const PointRecord* before, std::size_t right_rows) {
    const std::size_t m = point.x.size();
    const auto own = static_cast<std::size_t>(point.own);
    std::vector<double> lo = lower, up = upper;
    for (std::size_t k = 0; before != nullptr && k < m; ++k) {
        lo[k] = detail::numpy_maximum(lo[k], before->lower[k]);
        up[k] = detail::numpy_minimum(up[k], before->upper[k]);
    }
    const std::vector<double> width = points_width(rules, point, lo, up);
    std::vector<char> wide(m, 0);
    for (std::size_t k = 0; k < own; ++k) wide[k] = width[k] > rules.accuracy ? 1 : 0;
    // the left rows' lower sides certify the own arguments' width: wide with them
    for (std::size_t k = own * (1 + right_rows); k < m; ++k) wide[k] = wide[k % own];
    return wide;
}

// The bracket of `point` (its arguments x, `own` of them its own) on one grid (the header's comment) from its
// directions' upper reads `uppers` (at least one) and lower reads `lowers` (none: the lower side 0), the record of its
// grid before `before` (null: none), under `rules` (a .delta refinement's: relative_delta or epsilon_delta).
// Throws std::invalid_argument as check_step_reads.
inline StepBracket delta_step_bracket(const PointsRules& rules, const RefinedPoint& point,
                                      const std::vector<DirectionRead>& uppers,
                                      const std::vector<DirectionRead>& lowers, const PointRecord* before) {
    check_step_reads(point, uppers, before);
    const std::size_t m = point.x.size();
    const auto own = static_cast<std::size_t>(point.own);
    StepBracket b;
    b.upper = largest_values(uppers, m);
    b.fixed.assign(2 * m, 0.0);
    add_fixed_of_largest(uppers, m, b.fixed);
    if (uppers.size() > 1) b.add = largest_values(std::vector<DirectionRead>(uppers.begin() + 1, uppers.end()), m);
    if (lowers.empty()) {
        b.lower.assign(m, 0.0);
        b.wide.assign(m, 0);
        return b;
    }
    add_fixed_of_largest(lowers, m, b.fixed);
    b.lower = largest_values(lowers, m);
    // the right offsets' rows: each a lower bound on delta at the point's own arguments
    const std::size_t right_rows = std::min(m / own - 1, static_cast<std::size_t>(rules.right_rows));
    for (std::size_t row = 1; row <= right_rows; ++row)
        for (std::size_t k = 0; k < own; ++k) b.lower[k] = detail::numpy_maximum(b.lower[k], b.lower[row * own + k]);
    b.wide = wide_arguments(rules, point, b.lower, b.upper, before, right_rows);
    return b;
}

}  // namespace pld
}  // namespace hockeystick
