// The default's fine epsilon read (fine_epsilon.hpp) as the default refinement's settle (default_refinement.hpp): the
// read beside the grid ladder of one point at one delta, tried once, the first time the refinement's bracket is finite
// and at most kFineSettleWidths default tolerances wide; where the read brings it within the default tolerance, its
// bracket (certified: the read's sides intersected with the one given) settles the point, which asks no finer grid;
// elsewhere the kept reader forgets its windows, its discretized rounds kept for the default's last reads
// (last_epsilon_reads.hpp) of the same point.  The package's default chain (python pld/question/default_reads.py, step
// 2, through the binding's TiltedPointReader.default_refinement) and the C library's epsilon call (cpp/capi/refine.cpp)
// settle with it.
#pragma once

#include <cmath>
#include <optional>
#include <utility>

#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/pld/refine/epsilon_tolerance.hpp"
#include "hockeystick/pld/refine/fine_epsilon.hpp"
#include "hockeystick/pld/refine/split_read.hpp"
#include "hockeystick/pld/refine/tilted_question.hpp"

namespace hockeystick {
namespace pld {

// The refinement's brackets the fine read is tried on: at most this many default tolerances wide.  The read lowers the
// upper side only (to within ~1e-4 of the truth on the runs the default answers), so a bracket whose lower side is
// further below cannot settle and the read would be wasted; at 4, the README run (sigma 1.1, q 256/60 000, 14 100
// steps) at delta 1e-10 settles after one grid (width 1.03 tolerances) where the refinement to half the tolerance took
// two, and at 1e-12 (58 tolerances) goes on.
constexpr double kFineSettleWidths = 4.0;

// The settle of `point` at `delta`, its fine read by the `kept` reader on `fft` (the split read's windows on `split`):
// settle(lower, upper, add) with the refinement's bracket so far and its add direction's certified upper side (inf:
// none) gives the settling bracket or none.  `tried`: whether the read was made; `read`: whether it settled.
struct FineSettle {
    const FineEpsilonPoint& point;
    double delta;
    TiltedReader& kept;
    RealFftBackend& fft;
    const SplitComposition& split;
    bool tried = false, read = false;

    std::optional<std::pair<double, double>> operator()(double lower, double upper, double add) {
        if (tried || !std::isfinite(upper) || !kDefaultEpsilonTolerance.scaled(kFineSettleWidths).within(lower, upper))
            return std::nullopt;
        tried = true;
        const std::pair<double, double> b = fine_epsilon_bracket(point, delta, lower, upper, add, kept, fft, split);
        if (!kDefaultEpsilonTolerance.within(b.first, b.second)) {
            kept.forget_windows();
            return std::nullopt;
        }
        read = true;
        return b;
    }
};

}  // namespace pld
}  // namespace hockeystick
