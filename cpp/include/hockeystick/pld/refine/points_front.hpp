// The many-points refinement as the refinement loop's front end (refinement_loop.hpp): each point's bracket on its
// grid comes from a Source (the package's reads, python/hockeystick/pld/refine/points.py through the binding
// cpp/bindings/register_pld_refine.cpp), and everything the loop does between two steps is computed here: the
// intersection with the record of the point's grid before, the width, the next grid and the record (points_rules.hpp).
//
// A Source provides
//   std::map<std::int64_t, double> first();                                  each point's first grid
//   std::vector<PointStep> steps(grids, best, complement_only);              each point's bracket on its grid
// where best holds the records of the grids before and complement_only the points whose next grid recomposes the
// complement alone (points_rules.hpp).  A source that holds a lock for its reads (the interpreter's) takes it in
// these two calls only: the rest of the loop runs without it.
//
// Done points' brackets (at their own arguments) are kept in `chosen`; `gave_up` counts the points whose coarsest fit
// stopped them (their bracket stands, wider than asked).
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "hockeystick/pld/refine/points_rules.hpp"
#include "hockeystick/pld/refine/refinement_loop.hpp"

namespace hockeystick {
namespace pld {

template <class Source>
struct PointsFront {
    using Step = PointStep;
    using Record = PointRecord;

    Source& source;
    const PointsRules& rules;
    const std::vector<RefinedPoint>& points;
    std::map<std::int64_t, std::pair<std::vector<double>, std::vector<double>>> chosen{};
    std::int64_t gave_up = 0;
    std::vector<std::int64_t> complement_only{};

    std::map<std::int64_t, double> first() { return source.first(); }
    template <class Visit>
    void brackets(const std::map<std::int64_t, double>& grids, const std::map<std::int64_t, Record>& best,
                  Visit&& visit) {
        std::vector<Step> steps = source.steps(grids, best, complement_only);
        complement_only.clear();
        for (Step& step : steps) visit(std::move(step));
    }
    static std::int64_t point(const Step& s) { return s.i; }
    static void intersect(Step& s, const Record& before) { intersect_record(s, before); }
    std::vector<double> width(const Step& s) const {
        return points_width(rules, points.at(static_cast<std::size_t>(s.i)), s.lower, s.upper);
    }
    double next_grid(const Step& s, const std::vector<double>& width, const Record* before) {
        const PointNext next = points_next_grid(rules, points.at(static_cast<std::size_t>(s.i)), s, width, before);
        gave_up += next.gave_up ? 1 : 0;
        if (next.complement_only) complement_only.push_back(s.i);
        return next.grid;
    }
    static Record record(const Step& s, const std::vector<double>& width) { return {s.h, s.lower, s.upper, width}; }
    void done(const Step& s) {
        const std::size_t own = static_cast<std::size_t>(points.at(static_cast<std::size_t>(s.i)).own);
        chosen[s.i] = {std::vector<double>(s.lower.begin(), s.lower.begin() + own),
                       std::vector<double>(s.upper.begin(), s.upper.begin() + own)};
    }
};

// Runs the refinement of `points` under `rules`, their brackets from `source` (the header's comment).
template <class Source>
PointsFront<Source> refine_many(Source& source, const PointsRules& rules, const std::vector<RefinedPoint>& points) {
    PointsFront<Source> front{source, rules, points};
    refine_points(front);
    return front;
}

}  // namespace pld
}  // namespace hockeystick
