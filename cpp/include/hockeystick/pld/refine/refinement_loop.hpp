// The refinement loop every accuracy= front end drives: per point, a bracket on its grid, intersected with the
// records of its earlier grids, until the front end's rules ask no finer grid.
//
//   grids   front.first(): each point's first grid
//   step    front.brackets(grids, best, visit): each point's bracket on its grid, handed to visit one at a time
//           (a front end may compute them in units and drop each unit once visited)
//   keep    a point with a record of an earlier grid: front.intersect(step, record); every grid's bracket is
//           certified, so their intersection is (the largest lower side, the smallest upper side): a finer grid is
//           not always tighter (at a small delta the round-off charge of a larger window dominates)
//   next    front.next_grid(step, front.width(step), record or null): 0 for none, the point is done
//           (front.done(step)); else front.record(step, width) is its record and the grid its next
//
// What a front end computes on a grid, how it measures a width and which grid it asks are its own.  Front ends:
// one point at one argument (point_refinement.hpp, for the C interface's epsilon and delta calls and the package's
// one-point questions) and the package's many points and plans through the binding (cpp/bindings/
// register_pld_refine.cpp: a Python object's methods, python/hockeystick/pld/refine/controller.py's FrontEnd).
//
// A Front provides the types Step and Record and
//   std::map<std::int64_t, double> first();
//   void brackets(const std::map<std::int64_t, double>&, const std::map<std::int64_t, Record>&, Visit&&);
//   std::int64_t point(const Step&);
//   void intersect(Step&, const Record&);
//   W width(const Step&);
//   double next_grid(const Step&, const W&, const Record*);     // 0: none
//   Record record(const Step&, const W&);
//   void done(const Step&);
#pragma once

#include <cstdint>
#include <map>
#include <utility>

namespace hockeystick {
namespace pld {

// Runs the refinement of `front`'s points (the header's comment).
template <class Front>
void refine_points(Front& front) {
    using Record = typename Front::Record;
    using Step = typename Front::Step;
    std::map<std::int64_t, double> grids = front.first();
    std::map<std::int64_t, Record> best;
    while (!grids.empty()) {
        std::map<std::int64_t, double> finer;
        front.brackets(grids, best, [&](Step step) {
            const std::int64_t i = front.point(step);
            const auto found = best.find(i);
            const Record* before = found == best.end() ? nullptr : &found->second;
            if (before != nullptr) front.intersect(step, *before);  // both grids' brackets hold
            const auto width = front.width(step);
            const double next = front.next_grid(step, width, before);
            if (!(next > 0.0)) {
                front.done(step);
                return;
            }
            best.insert_or_assign(i, front.record(step, width));
            finer[i] = next;
        });
        grids = std::move(finer);
    }
}

}  // namespace pld
}  // namespace hockeystick
