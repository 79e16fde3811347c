// The refinement of one Poisson-subsampled Gaussian's delta at one epsilon to a relative accuracy (the package's
// delta_accuracy="relative", pld/refine/bracket_width.py): the loop of point_refinement.hpp from the delta start
// (grid_policy.hpp's delta_start, without the epsilon criterion's move below the sampling rate), its width
// (up - lo) / max(up, delta_floor): relative to the upper delta, and below delta_floor (DELTA_FLOOR, 1e-9) relative
// to it, where every bound's grid-independent charges leave no grid that narrows the bracket.  A law is read
// through every grid.
#pragma once

#include <algorithm>

#include "hockeystick/pld/refine/fixed_grid.hpp"
#include "hockeystick/pld/refine/grid_policy.hpp"
#include "hockeystick/pld/refine/point_refinement.hpp"

namespace hockeystick {
namespace pld {

// The refined delta bracket of `rounds` rounds of the Poisson-subsampled Gaussian (noise sigma, sampling rate q,
// sensitivity) at one epsilon to the relative `accuracy` (the header's comment), each grid's bracket from
// bracket_at(h), a callable returning std::pair<double, double> (lower, upper) at that epsilon (the start grid does
// not depend on it).  0 < q < 1, accuracy > 0.
template <class BracketAt>
RefinedBracket refine_delta(double sigma, double q, double rounds, double sensitivity, double accuracy,
                            BracketAt&& bracket_at, double delta_floor = kDeltaFloor, const GridPolicy& g = {},
                            const RefinementRules& r = {}) {
    const double start = delta_start(sigma, q, rounds, sensitivity, accuracy, false, g);
    return refine_point(
        sigma, q, rounds, sensitivity, start, accuracy, bracket_at,
        [delta_floor](double lower, double upper) { return (upper - lower) / std::max(upper, delta_floor); },
        [](double) { return true; }, g, r);
}

}  // namespace pld
}  // namespace hockeystick
