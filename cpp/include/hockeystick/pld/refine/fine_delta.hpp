// The default's fine delta read of one point (sigma per unit sensitivity, 0 < q < 1, T rounds of the
// Poisson-subsampled Gaussian): each delta bracket at an epsilon, not yet exact, intersected with the reads of the grid
// kRareDeltaFineGrid (half the peers' default 1e-4), so that the default's delta is read finer than the peers' grid,
// as its epsilon is (tilted_question.hpp's fine_upper).  The package's default delta reads it (python
// pld/question/tilted_question.py's fine_delta_brackets, the front end that keeps the readers), and so does the C
// library's delta call (cpp/capi/refine.cpp), so both doors read one bracket.
//
// 1. The lower side is raised to the max-of-outputs test's where higher (pld/reads/max_of_outputs.hpp: certified, no
//    grid; where T q >= 1 at a small delta the only lower side near the truth); a bracket that makes exact is not
//    read further (the read could lower its upper side by at most kExactRelative of it).
// 2. The epsilons are read in buckets of one (centre, level) (tilted_delta_centre, tilted_delta_level: a function of
//    eps and its upper side alone), so that every element's bracket is the one it gets asked alone, whatever else is
//    asked with it; per bucket (fine_delta_bucket):
//    - the upper side lowered to TiltedReader::delta_upper's on the grid (each direction composed once a bucket under
//      the Chernoff exponent's tilt at the centre, the tails sized for the level), as given where a window passes the
//      cap or a tilt overflows a moment;
//    - where the grid is at most q (it then sees the rounds' losses, which a coarser one rounds down to 0) and the
//      lower side is asked, those not yet exact raised to TiltedReader::delta_lower's (the optimistic rounds, the same
//      tilt and tails; the README's DP-SGD run at its certified lower epsilon of delta 1e-10 reads 1.0056e-10 there,
//      the max-of-outputs test 1.4e-21);
//    - where T q is at most kTiltSplitSampledRounds, those not yet exact at a positive eps intersected with the split
//      read (split_read.hpp's split_delta_read): the remove direction's rounds read as a sum over how many pass
//      centre / T, the upper side the larger of it and TiltedReader::add_screens' bound on the add direction (under
//      the tilt at the centre), the lower side, where asked, the remove direction's optimistic split.
//    A bracket whose upper side fell below a level under the one its tails were sized for, where their charge is
//    not negligible against it, is read again at its new level (kFineDeltaPasses passes at most), its lower and
//    split reads left to that pass (their tails too would be sized for the stale level): each pass's bucket is a
//    function of the element's own bracket, so an element still reads as asked alone.
// 3. The held compositions are cut to kTiltDeltaWindowPoints per side after the read, for the reads that come later.
//
// Every read is certified at any tilt, tail and split point (their headers): these choices make it tight, never valid.
// Each side is the maximum over the neighbouring directions (Zhu, Dong & Wang, AISTATS 2022, Sec. 5).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/pld/reads/max_of_outputs.hpp"
#include "hockeystick/pld/refine/epsilon_refinement.hpp"
#include "hockeystick/pld/refine/rare_delta_grids.hpp"
#include "hockeystick/pld/refine/split_read.hpp"
#include "hockeystick/pld/refine/tilted_question.hpp"

namespace hockeystick {
namespace pld {

// The passes of the fine delta read (step 2 of the opening comment): a bracket not exact whose upper side a pass
// lowers past a level below the one its tails were sized for, and whose tails' charge there (up to kTiltedTailShare
// of that level) passes kExactRelative of the upper side found, is read again at the new level: tails sized for a
// delta far above the truth charge more than it.  DP-FedAvg (sigma 1, q 1e-3, 5000 rounds) at eps 3: the fixed grid's
// upper side 1e-10 sizes tails that leave [1.95e-21, 9.97e-21]; read again at the level of 9.97e-21,
// [3.1629e-21, 3.1635e-21].
constexpr int kFineDeltaPasses = 3;

// The elements of `at` (indices into lower and upper) whose bracket is not exact, at a positive eps where `positive`.
inline std::vector<std::size_t> not_exact(const std::vector<std::size_t>& at, const std::vector<double>& eps,
                                          const std::vector<double>& lower, const std::vector<double>& upper,
                                          bool positive) {
    std::vector<std::size_t> out;
    for (const std::size_t i : at)
        if (!exact_bracket(lower[i], upper[i]) && (!positive || eps[i] > 0.0)) out.push_back(i);
    return out;
}

// The values of `all` at the indices `at`.
inline std::vector<double> taken(const std::vector<double>& all, const std::vector<std::size_t>& at) {
    std::vector<double> out;
    out.reserve(at.size());
    for (const std::size_t i : at) out.push_back(all[i]);
    return out;
}

// The lower sides of the brackets at the indices `wide` raised to the tilted read of the optimistic rounds on
// kRareDeltaFineGrid under the exponent's tilt at `centre`, the tails sized for `level` (TiltedReader::delta_lower);
// as given where the rounds pass the cells or the grid is finer than their loss edges resolve.
inline void optimistic_delta_read(TiltedReader& reader, const std::vector<double>& eps, std::vector<double>& lower,
                                  std::vector<double>& upper, const std::vector<std::size_t>& wide, double centre,
                                  double level) {
    try {
        const std::vector<double> low = reader.delta_lower(taken(eps, wide), kRareDeltaFineGrid, centre, level);
        for (std::size_t j = 0; j < wide.size(); ++j) {
            lower[wide[j]] = std::max(lower[wide[j]], low[j]);
            upper[wide[j]] = std::max(lower[wide[j]], upper[wide[j]]);
        }
    } catch (const std::length_error&) {  // the rounds past the cells: the lower sides as given
    } catch (const std::invalid_argument&) {  // a grid finer than the rounds' loss edges resolve: as given
    }
}

// Whether the bracket (lower, upper) read with tails sized for `level` is read again at the level of its upper side
// (kFineDeltaPasses): not exact, its upper side positive with a level below `level` (tilted_delta_level), and the
// tails' charge (up to kTiltedTailShare of `level`) past kExactRelative of it.
inline bool stale_level(double lower, double upper, double level) {
    return upper > 0.0 && !exact_bracket(lower, upper) && kTiltedTailShare * level > kExactRelative * upper &&
           tilted_delta_level(upper) < level;
}

// One bucket of the fine delta read (step 2 of the opening comment): the brackets at the indices `at` of eps, every
// one with the same (centre, level), read in place.  `last`: no pass follows; otherwise a bracket whose upper read
// leaves its level stale (stale_level) takes neither the lower nor the split read here, the next pass reading it
// at its new level (the DP-FedAvg run at eps 3 of kFineDeltaPasses' comment, whose tails sized for 1e-10 leave the
// upper side at 9.97e-21: the lower and split reads of that pass are the next pass's, at the level of 9.97e-21).
inline void fine_delta_bucket(TiltedReader& reader, const std::vector<double>& eps, std::vector<double>& lower,
                              std::vector<double>& upper, const std::vector<std::size_t>& at, double centre,
                              double level, bool read_lower, const SplitComposition& split_composition, bool last) {
    const double h = kRareDeltaFineGrid;
    const double q = reader.sampling_rate();
    const bool split = q * static_cast<double>(reader.rounds()) <= kTiltSplitSampledRounds;
    const bool tilted_lower = read_lower && h <= q;
    const std::vector<double> x = taken(eps, at);
    std::vector<double> found;
    try {
        // the split's lower side and the lower read read the optimistic sides too: both sides discretized in one call
        if ((split && read_lower) || tilted_lower) reader.discretize(h, level);
        found = reader.delta_upper(x, h, centre, level);
    } catch (const std::length_error&) {  // a window past the cap: the brackets as given
        found = taken(upper, at);
    } catch (const std::invalid_argument&) {  // a tilt past the doubles' moments
        found = taken(upper, at);
    }
    std::vector<std::size_t> current;  // those whose level stays (every one on the last pass)
    for (std::size_t j = 0; j < at.size(); ++j) {
        const std::size_t i = at[j];
        upper[i] = std::max(lower[i], std::min(upper[i], found[j]));
        if (last || !stale_level(lower[i], upper[i], level)) current.push_back(i);
    }
    const std::vector<std::size_t> wide = not_exact(current, eps, lower, upper, false);
    if (tilted_lower && !wide.empty()) optimistic_delta_read(reader, eps, lower, upper, wide, centre, level);
    const std::vector<std::size_t> positive = not_exact(current, eps, lower, upper, true);
    if (!split || positive.empty()) return;
    std::vector<double> lo = taken(lower, positive), up = taken(upper, positive);
    split_delta_read(reader, taken(eps, positive), lo, up, centre, level, read_lower, split_composition);
    for (std::size_t j = 0; j < positive.size(); ++j) {
        lower[positive[j]] = lo[j];
        upper[positive[j]] = up[j];
    }
}

// One pass of the fine delta read over the brackets at the indices `todo` (step 2 of the opening comment), in place:
// those read in buckets of (centre, level); returns those to read again (kFineDeltaPasses).
inline std::vector<std::size_t> fine_delta_pass(TiltedReader& reader, const std::vector<double>& eps,
                                                std::vector<double>& lower, std::vector<double>& upper,
                                                const std::vector<std::size_t>& todo, bool read_lower,
                                                const SplitComposition& split, bool last) {
    std::vector<std::pair<double, double>> keys;
    for (const std::size_t i : todo) keys.emplace_back(tilted_delta_centre(eps[i]), tilted_delta_level(upper[i]));
    const std::set<std::pair<double, double>> buckets(keys.begin(), keys.end());
    for (const std::pair<double, double>& key : buckets) {
        std::vector<std::size_t> at;
        for (std::size_t j = 0; j < todo.size(); ++j)
            if (keys[j] == key) at.push_back(todo[j]);
        fine_delta_bucket(reader, eps, lower, upper, at, key.first, key.second, read_lower, split, last);
    }
    std::vector<std::size_t> again;  // where the tails' charge may still move the upper side
    for (std::size_t j = 0; j < todo.size(); ++j)
        if (stale_level(lower[todo[j]], upper[todo[j]], keys[j].second)) again.push_back(todo[j]);
    return again;
}

// Each delta bracket (lower[i], upper[i]) at eps[i] of the reader's point with a finite eps, a positive upper side and
// not yet exact, read finer (the opening comment), in place.  `read_lower`: the lower side is asked (else only the
// max-of-outputs test raises it).  The reader's held compositions are cut to kTiltDeltaWindowPoints after the read.
inline void fine_delta_brackets(TiltedReader& reader, const std::vector<double>& eps, std::vector<double>& lower,
                                std::vector<double>& upper, bool read_lower, const SplitComposition& split) {
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < eps.size(); ++i)
        if (std::isfinite(eps[i]) && upper[i] > 0.0 && !exact_bracket(lower[i], upper[i])) todo.push_back(i);
    if (todo.empty()) return;
    const MaxOutputsLadder ladder(reader.output_segments());  // one ladder, each eps on its own finer one
    for (const std::size_t i : todo) {
        lower[i] = std::max(lower[i], ladder.delta(eps[i], true));
        upper[i] = std::max(lower[i], upper[i]);
    }
    todo = not_exact(todo, eps, lower, upper, false);
    try {
        for (int pass = 0; pass < kFineDeltaPasses && !todo.empty(); ++pass)
            todo = fine_delta_pass(reader, eps, lower, upper, todo, read_lower, split, pass + 1 == kFineDeltaPasses);
    } catch (...) {
        reader.keep_windows(kTiltDeltaWindowPoints);
        throw;
    }
    reader.keep_windows(kTiltDeltaWindowPoints);
}

}  // namespace pld
}  // namespace hockeystick
