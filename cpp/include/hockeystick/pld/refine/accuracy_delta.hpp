// The accuracy= delta bracket of T rounds of one Poisson-subsampled Gaussian at one epsilon, from the certified bracket
// its refinement to that relative accuracy reached (delta_refinement.hpp's over the C library's plain brackets, or the
// package's refinement), read by `reader` (the run's TiltedReader; 0 < q < 1: at q = 1, the Gaussian mechanism, the
// front ends answer in closed form).  The package's accuracy= delta (python/hockeystick/pld/question/default_reads.py's
// accuracy_delta_sides, through the binding's accuracy_delta) and the C library's delta call (cpp/capi/refine.cpp)
// both read it here.  The width is the relative rule (up - lo) / max(up, delta_floor) (delta_refinement.hpp's).
//
//   tilted   where wider than asked with a positive upper side (the plain composition's round-off charge, about T u
//            of the mass, and its tail cut hold the refined upper side near or above them): the tilted reads on the
//            asked accuracy's grids (tilted_delta_read);
//   default  at an accuracy at most the default's: intersected with the default's bracket (asked only where read),
//            so that such an accuracy is never looser than the default (the package answers an epsilon whose default
//            bracket is within it by that bracket and reads here only the others: default_reads.py's
//            accuracy_delta_brackets, as the C library's delta call does; the default's bracket itself is the fixed
//            grid's read by default_deltas on both doors, or in the C library, where that grid passes its caps, this
//            read at the default accuracy);
//   fine     the default's fine delta read (fine_delta.hpp) of a bracket not exact with a positive upper side, so that
//            an accuracy of any size reads delta finer than the peers' grid, as the default does: a refined bracket
//            within a relative accuracy of the floor can lie far above the truth (the README's DP-SGD run at eps 5
//            refined to 1e-3: [0, 7.05e-12], read [6.4925e-17, 6.4973e-17]);
//   rare     where rare participation's finer grids apply (rare_delta_grids.hpp's rare_delta_applies), at the
//            default's accuracy as the default reads them, at another where still wider than asked (`rare`: the
//            package reads them where no tail is given, as its default does);
//   last     at an accuracy coarser than the default's, where still wider than asked: intersected with the default's
//            bracket (rare participation at a small delta, whose tight sides come from the default's reads), as the
//            accuracy= epsilon read does (accuracy_epsilon.hpp).
// `by_width` false (the package's delta_accuracy="epsilon", whose width is epsilon's, read on epsilon's offsets and met
// by the refinement whatever the scale of delta): only the default's bracket is read, where the accuracy is at most
// the default's.
// Every bracket read is certified and intersected with the one in hand, so the result is certified and never wider
// than the refined bracket.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "hockeystick/pld/refine/fine_delta.hpp"
#include "hockeystick/pld/refine/fixed_grid.hpp"
#include "hockeystick/pld/refine/grid_policy.hpp"
#include "hockeystick/pld/refine/rare_delta_grids.hpp"
#include "hockeystick/pld/refine/tilted_question.hpp"

namespace hockeystick {
namespace pld {

// The least delta whose tails the tilted delta reads size (a bracket whose upper side is below it is read at it).
constexpr double kLeastTiltedDelta = 1e-300;

// What the front end decides: the relative accuracy asked and the default's, the width's floor, whether the width
// decides the tilted and rare reads, whether rare participation's grids are read, whether the lower side is read, and
// the cap on one round's cells of the rare reads.
struct AccuracyDeltaPlan {
    double accuracy = 1e-3, default_accuracy = 1e-3, delta_floor = kDeltaFloor;
    bool by_width = true, rare = true, read_lower = true;
    std::int64_t max_cells = 0;
    double width(double lower, double upper) const { return (upper - lower) / std::max(upper, delta_floor); }
    bool wide(double lower, double upper) const { return by_width && !(width(lower, upper) <= accuracy); }
};

// The tilted reads of the bracket [lower, upper] at eps to `accuracy` (TiltedReader::delta_bracket): on the grids of
// epsilon at the delta expected (the upper side), the tails sized for the level below it (tilted_delta_level, the
// fine delta read's), since that upper side is often the plain composition's round-off floor, far above the truth.
inline std::pair<double, double> tilted_delta_read(TiltedReader& reader, double eps, double lower, double upper,
                                                   double accuracy, double delta_floor) {
    const double expected = std::max(upper, kLeastTiltedDelta);
    const double start = epsilon_start(reader.sigma(), reader.sampling_rate(), static_cast<double>(reader.rounds()),
                                       1.0, &expected, 1, accuracy, 0.0);
    const double level = std::max(tilted_delta_level(expected), kLeastTiltedDelta);
    return reader.delta_bracket(eps, lower, upper, start, accuracy, level,
                                [delta_floor](double lo, double up) { return (up - lo) / std::max(up, delta_floor); });
}

// The rare reads of the header's comment, in place: the elements where rare participation's finer grids apply and
// `reading` (the element's bracket: at the default's accuracy every one, at another one wider than asked) read
// together on a reader of their own (its windows within kRareDeltaMaxPoints) on `fft`.
template <class Reading>
void rare_reads(const TiltedReader& reader, const std::vector<double>& eps, std::vector<double>& lower,
                std::vector<double>& upper, const AccuracyDeltaPlan& plan, Reading&& reading, RealFftBackend& fft) {
    const double q = reader.sampling_rate(), rounds = static_cast<double>(reader.rounds());
    std::vector<std::size_t> read;
    std::vector<double> at, lo, up;
    for (std::size_t i = 0; i < eps.size(); ++i)
        if (reading(lower[i], upper[i]) && rare_delta_applies(q, rounds, eps[i], lower[i], upper[i])) {
            read.push_back(i);
            at.push_back(eps[i]);
            lo.push_back(lower[i]);
            up.push_back(upper[i]);
        }
    if (read.empty()) return;
    TiltedReader finer(reader.sigma(), q, reader.rounds(), fft, plan.max_cells, kRareDeltaMaxPoints);
    rare_delta_brackets(finer, at, lo, up, plan.read_lower, fft);
    for (std::size_t k = 0; k < read.size(); ++k) {
        lower[read[k]] = lo[k];
        upper[read[k]] = up[k];
    }
}

// The default's reads of the brackets (lower[i], upper[i]) at eps[i] that its fixed grid gave (python
// pld/question/default_reads.py's delta_brackets, no tail given), in place: the fine delta read, then rare
// participation's finer grids at every element they apply to (the reads `accuracy_deltas` makes after its tilted and
// default steps at the default's accuracy).
inline void default_deltas(TiltedReader& reader, const std::vector<double>& eps, std::vector<double>& lower,
                           std::vector<double>& upper, const AccuracyDeltaPlan& plan, const SplitComposition& split,
                           RealFftBackend& rare_fft) {
    fine_delta_brackets(reader, eps, lower, upper, plan.read_lower, split);
    if (plan.rare) rare_reads(reader, eps, lower, upper, plan, [](double, double) { return true; }, rare_fft);
}

// Each bracket (lower[i], upper[i]) at eps[i] read from the refined one (the header's comment), in place:
// default_bracket(i) -> std::pair<double, double> the default's certified bracket at eps[i]; `split` the fine read's
// binomial split; `rare_fft` the rare reads' backend.  The fine and rare reads take the elements together, each read
// as asked alone (fine_delta.hpp, rare_delta_grids.hpp), so that the elements of one bucket share its compositions.
template <class DefaultBracket>
void accuracy_deltas(TiltedReader& reader, const std::vector<double>& eps, std::vector<double>& lower,
                     std::vector<double>& upper, const AccuracyDeltaPlan& plan, DefaultBracket&& default_bracket,
                     const SplitComposition& split, RealFftBackend& rare_fft) {
    const bool at_most_default = plan.accuracy <= plan.default_accuracy,
               as_default = plan.accuracy == plan.default_accuracy;
    const auto intersect_default = [&](std::size_t i) {
        const std::pair<double, double> d = default_bracket(i);
        lower[i] = std::max(lower[i], d.first);
        upper[i] = std::max(lower[i], std::min(upper[i], d.second));
    };
    for (std::size_t i = 0; i < eps.size(); ++i) {
        if (plan.wide(lower[i], upper[i]) && upper[i] > 0.0) {
            const std::pair<double, double> b =
                tilted_delta_read(reader, eps[i], lower[i], upper[i], plan.accuracy, plan.delta_floor);
            lower[i] = b.first;
            upper[i] = b.second;
        }
        if (at_most_default) intersect_default(i);
    }
    if (!plan.by_width) return;
    fine_delta_brackets(reader, eps, lower, upper, plan.read_lower, split);
    if (plan.rare)
        rare_reads(
            reader, eps, lower, upper, plan, [&](double lo, double up) { return as_default || plan.wide(lo, up); },
            rare_fft);
    for (std::size_t i = 0; i < eps.size() && !at_most_default; ++i)
        if (plan.wide(lower[i], upper[i])) intersect_default(i);
}

}  // namespace pld
}  // namespace hockeystick
