// Rare participation's delta at an epsilon read on grids finer than the fine read's, as its epsilon is: the reads
// the package's default and the C library's delta call make (accuracy_delta.hpp's default_deltas).
//
// Over many rounds of a sampling rate far below the grid (q <= kTiltRareRate), nearly every round's loss lies inside
// one cell: the pessimistic PMF spreads it to the cell's ends, an excess first order in the grid over T rounds, and
// the optimistic PMF rounds it down, blind to it.  On the fine read's grid (kRareDeltaFineGrid) the upper delta of
// sigma 0.6, q 1e-5, 10^6 rounds at the certified upper epsilon of delta 1e-5 is 2.28e-5 and the lower sides (the
// fixed grid's, the max-of-outputs test's) 1.2e-6.  Here, for such a run (at least kAlignedLeastRounds rounds
// sampling the record more than kTiltSplitSampledRounds times on average: rare_delta_applies) whose delta bracket at
// eps is wider than kRareDeltaRelativeWidth of its lower side, on the grids kRareDeltaFineGrid / 4^k, k = 1 ..
// kRareDeltaGrids, one after the other:
//
// 1. the upper side is lowered to the tilted read's (TiltedReader::delta_upper under the Chernoff exponent's tilt at
//    the centre of eps's bucket, tilted_delta_centre, so that the eps of a bucket share the composition; certified),
//    its window within kRareDeltaMaxPoints;
// 2. on a grid at most q, the lower side is raised to the tilted read of the optimistic PMFs (TiltedReader::
//    delta_lower, certified), which a grid below the rate no longer blinds;
// 3. on the first kRareDeltaAlignedGrids grids, where the bracket is not yet within its width, the lower side is
//    raised to the aligned cells' read (aligned_lower.hpp's aligned_lower_delta: certified) on the grid
//    kRareDeltaFineGrid / 4 / 2^k beside it, its window within kRareDeltaMaxPoints;
//
// until the bracket is within kRareDeltaRelativeWidth of its lower side, or, the next window past
// kRareDeltaCheapPoints, within kRareDeltaWidthShare of the default epsilon tolerance or with the upper side's
// modelled excess (rare_upper_settled) within it, or the next window (kTiltGridStep times the last one's points: a
// window's span in loss is about the same on every grid) would pass its cap.  Each grid's tails are sized for the
// upper side read before it (tilted_delta_level).
//
// The width of a delta bracket [lo, up] at eps is read in epsilon: the bracket is within a width w where lo is at
// least the last upper read's delta at eps + w (the same composition read there), so that every delta in [lo, up]
// has its epsilon within w of eps by the upper read's curve: the delta bracket an epsilon bracket w wide implies.
// Every read is certified, so the bracket is their intersection with the one given, whatever the width chooses.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hockeystick/pld/refine/aligned_lower.hpp"
#include "hockeystick/pld/refine/epsilon_tolerance.hpp"
#include "hockeystick/pld/refine/tilted_question.hpp"

namespace hockeystick {
namespace pld {

// The grid of the default's fine reads, half the peers' default 1e-4 (python question.FINE_INTERVAL).
constexpr double kRareDeltaFineGrid = 5e-5;
// A bracket within this share of the default epsilon tolerance (in epsilon: the header's comment) is not read further
// where the next window passes kRareDeltaCheapPoints: the share of the epsilon path's tightest target under rare
// participation (rare_finer_grids.hpp's kFinerTightShare).
constexpr double kRareDeltaWidthShare = 1.0 / 16.0;
// A bracket whose upper side is within this share of its lower one is not read further: then, at the epsilon door's
// certified sides of a delta d, the upper side at eps_up(d) is at most (1 + kRareDeltaRelativeWidth) d and the lower
// side at eps_lo(d) at least d / (1 + kRareDeltaRelativeWidth).  Where delta falls slowly with eps (sigma 0.5, q
// 1e-4, 10^6 rounds at eps 3.9: d log delta / d eps ~ 2.8), the width in epsilon asks a relative width of 1.75e-4, a
// read on a grid four times finer (8 CPU s against 1.2).
constexpr double kRareDeltaRelativeWidth = 1e-3;
// The upper side's grids: kRareDeltaFineGrid / kTiltGridStep^k, k = 1 .. kRareDeltaGrids; a window's span in loss is
// about the same on every grid, so where the rounds' losses span little (a small q) the finest fit the cap at little
// cost.
constexpr int kRareDeltaGrids = 8;
// The aligned cells' read beside the first kRareDeltaAlignedGrids upper grids, on kRareDeltaFineGrid / 4 / 2^k:
// finer than 6.25e-6 their cells pass kAlignedMaxCells (sigma 0.5, q 1e-6 at 3.125e-6).
constexpr int kRareDeltaAlignedGrids = 2;
// The tilted windows' cap here: a read costs about 0.13 microseconds a point (sigma 0.6, q 1e-5, 10^6 rounds: 4.0e7
// points on 7.8e-7, 5.3 CPU s).  The aligned read's cap too (~2.2 GB at its peak).
constexpr std::int64_t kRareDeltaMaxPoints = std::int64_t(1) << 25;
// A grid whose window (estimated as kTiltGridStep times the last one's) holds at most this many points is read even
// where the bracket is within the width in epsilon (about 0.3 CPU s): where the rounds' losses span little, the
// epsilon door's own reads go far finer than that width asks (sigma 2, q 1e-6, 10^6 rounds at the certified upper
// epsilon of delta 1e-12, 0.0029867: the upper delta 1.44e-12 on 1.95e-7, where the width is met, 0.997e-12 on
// 1.22e-8 in 7.3e5 points).
constexpr std::int64_t kRareDeltaCheapPoints = std::int64_t(1) << 21;

// Whether the delta bracket (lower, upper) at eps of T rounds of rate q is read here: rare participation (0 < q <=
// kTiltRareRate), at least kAlignedLeastRounds rounds sampling the record more than kTiltSplitSampledRounds times on
// average (T q; below it the fine read's split read bounds both sides of the remove direction, and a window here
// costs many times more: sigma 0.8, q 1e-5, 5000 rounds at eps 0.6, 1.5 and 3 read 0.8 CPU s there, 17 s here), a
// finite eps > 0 and an upper side at least kAlignedLeastDelta, more than kRareDeltaRelativeWidth above the lower
// side.
inline bool rare_delta_applies(double q, double rounds, double eps, double lower, double upper) {
    return q > 0.0 && q <= kTiltRareRate && rounds >= static_cast<double>(kAlignedLeastRounds) &&
           q * rounds > kTiltSplitSampledRounds && std::isfinite(eps) && eps > 0.0 && upper >= kAlignedLeastDelta &&
           upper > lower * (1.0 + kRareDeltaRelativeWidth);
}

// Whether the upper reads need go no finer: the upper side's excess over the truth modelled as first order in the
// grid (the pessimistic PMF's spread of rare losses), so that after a fall from `before` (on a grid kTiltGridStep
// times coarser) to `found` what is left of it is the fall's ln(before / found) / (kTiltGridStep - 1), at most that of
// one width in epsilon, ln(found / shifted) (the read at eps + the width).  It only chooses the grids: every read is
// certified whatever it chooses.
inline bool rare_upper_settled(double before, double found, double shifted) {
    if (!(std::isfinite(before) && found > 0.0 && shifted > 0.0)) return false;
    return std::log(before / found) / (kTiltGridStep - 1.0) <= std::log(found / shifted);
}

namespace rare_delta_detail {

// rare_delta_brackets' state of each eps: whether it is still read, its bucket (centre, level), its width in epsilon,
// its last window's points and its last upper read.
struct Elements {
    std::vector<char> reading;
    std::vector<double> centre, level, width, window, before;
};

// The state before the first grid: each eps read where rare_delta_applies, under its bucket's key.
inline Elements start(double q, double t, const std::vector<double>& eps, const std::vector<double>& lower,
                      const std::vector<double>& upper) {
    const std::size_t n = eps.size();
    Elements e{std::vector<char>(n),        std::vector<double>(n, 0.0),
               std::vector<double>(n, 1.0), std::vector<double>(n),
               std::vector<double>(n, 0.0), std::vector<double>(n, std::numeric_limits<double>::infinity())};
    for (std::size_t i = 0; i < n; ++i) {
        e.reading[i] = rare_delta_applies(q, t, eps[i], lower[i], upper[i]);
        if (e.reading[i]) {
            e.centre[i] = tilted_delta_centre(eps[i]);
            e.level[i] = tilted_delta_level(upper[i]);
        }
        const double at = std::isfinite(eps[i]) ? eps[i] : 0.0;
        e.width[i] = kRareDeltaWidthShare * std::max(kDefaultEpsilonAccuracy, kDefaultEpsilonRelativeAccuracy * at);
    }
    return e;
}

// The buckets read on the next grid, in order: those of the eps still read whose next window (kTiltGridStep times the
// last one's points) fits the cap (the others read no further).
inline std::set<std::pair<double, double>> next_keys(Elements& e) {
    std::set<std::pair<double, double>> keys;
    for (std::size_t i = 0; i < e.reading.size(); ++i) {
        e.reading[i] = e.reading[i] && e.window[i] * kTiltGridStep <= static_cast<double>(kRareDeltaMaxPoints);
        if (e.reading[i]) keys.insert({e.centre[i], e.level[i]});
    }
    return keys;
}

// Whether [lo, up] needs no finer read: within kRareDeltaRelativeWidth of its lower side, or within the width in
// epsilon (lo at least `shifted`, the upper read's delta at eps plus that width).
inline bool within(double lo, double up, double shifted) {
    return lo >= shifted || up <= lo * (1.0 + kRareDeltaRelativeWidth);
}

// The lower sides of the eps at[j] (one bucket, (c, lv)) not yet within their width raised to the aligned cells' read
// on grid h (certified; 0 where its window or cells pass their caps), the upper sides kept at least the lower ones.
inline void raise_by_aligned(const TiltedReader& reader, RealFftBackend& fft, const std::vector<double>& eps,
                             const std::vector<std::size_t>& at, const std::vector<double>& shifted, double c,
                             double lv, double h, std::vector<double>& lower, std::vector<double>& upper) {
    std::vector<std::size_t> wide;
    std::vector<double> xs;
    for (std::size_t j = 0; j < at.size(); ++j)
        if (!within(lower[at[j]], upper[at[j]], shifted[j])) {
            wide.push_back(at[j]);
            xs.push_back(eps[at[j]]);
        }
    if (!wide.empty()) {
        std::vector<double> aligned(xs.size(), 0.0);
        try {
            aligned = aligned_lower_delta(reader.sigma(), reader.sampling_rate(), reader.rounds(), xs, c, lv, h,
                                          round_tilt, fft, kRareDeltaMaxPoints)
                          .first;
        } catch (const std::logic_error&) {  // past its window's cap or its cells'
        }
        for (std::size_t m = 0; m < wide.size(); ++m) lower[wide[m]] = std::max(lower[wide[m]], aligned[m]);
    }
    for (const std::size_t i : at) upper[i] = std::max(lower[i], upper[i]);
}

// After a bucket's reads on a grid: each eps's next tails sized for the upper side read (its level, a function of eps
// and the reads before: as asked alone), and whether it is read further (the header's comment).
inline void settle(Elements& e, const std::vector<std::size_t>& at, const std::vector<double>& found,
                   const std::vector<double>& shifted, const std::vector<double>& lower,
                   const std::vector<double>& upper) {
    for (std::size_t j = 0; j < at.size(); ++j) {
        const std::size_t i = at[j];
        if (upper[i] > 0.0) e.level[i] = std::min(e.level[i], tilted_delta_level(upper[i]));
        const bool costly = e.window[i] * kTiltGridStep > static_cast<double>(kRareDeltaCheapPoints);
        const bool settled =
            upper[i] <= lower[i] * (1.0 + kRareDeltaRelativeWidth) ||
            (costly && (lower[i] >= shifted[j] || rare_upper_settled(e.before[i], found[j], shifted[j])));
        e.reading[i] = !settled;
        e.before[i] = found[j];
    }
}

// One bucket (c, lv) of the eps still read, on grid h (the k-th), read (the header's comment: steps 1 to 3, the
// lower side's where read_lower, the optimistic PMFs' where tilted_lower) and settled.  A window past the cap or a
// tilt refused ends the bucket's reads.
inline void read_bucket(TiltedReader& reader, RealFftBackend& fft, const std::vector<double>& eps, Elements& e,
                        double c, double lv, double h, int k, bool read_lower, std::vector<double>& lower,
                        std::vector<double>& upper) {
    std::vector<std::size_t> at;
    std::vector<double> x, xw;
    for (std::size_t i = 0; i < eps.size(); ++i)
        if (e.reading[i] && e.centre[i] == c && e.level[i] == lv) {
            at.push_back(i);
            x.push_back(eps[i]);
            xw.push_back(eps[i] + e.width[i]);
        }
    if (at.empty()) return;
    const bool tilted_lower = read_lower && h <= reader.sampling_rate();  // below the rate it sees the losses
    std::vector<double> found, low(at.size(), 0.0), shifted;
    try {
        if (tilted_lower) reader.discretize(h, lv);
        found = reader.delta_upper(x, h, c, lv);
        if (tilted_lower) low = reader.delta_lower(x, h, c, lv);
        shifted = reader.delta_upper(xw, h, c, lv);
    } catch (const std::logic_error&) {  // a window past the cap, or a tilt refused: no finer grid fits
        reader.forget_windows();
        for (const std::size_t i : at) e.reading[i] = false;
        return;
    }
    const double points = static_cast<double>(reader.window_points(h));
    reader.forget_windows();
    for (std::size_t j = 0; j < at.size(); ++j) {
        e.window[at[j]] = points;
        lower[at[j]] = std::max(lower[at[j]], low[j]);
        upper[at[j]] = std::max(lower[at[j]], std::min(upper[at[j]], found[j]));
    }
    if (read_lower && k < kRareDeltaAlignedGrids)  // step 3, where not yet within the width
        raise_by_aligned(reader, fft, eps, at, shifted, c, lv, kRareDeltaFineGrid / 4.0 / std::ldexp(1.0, k), lower,
                         upper);
    settle(e, at, found, shifted, lower, upper);
}

}  // namespace rare_delta_detail

// Each delta bracket (lower[i], upper[i]) at eps[i] of the run `reader` reads (its windows within kRareDeltaMaxPoints,
// the tails each read's level allows) intersected with the reads of the header's comment where rare_delta_applies; as
// given elsewhere.  Every eps is read under the Chernoff exponent's tilt at its bucket's centre, its tails sized for
// its level (tilted_delta_level of its upper side, then lowered after each grid to that of the upper side read there),
// so that the eps of one (centre, level) share each grid's compositions; each element's grids and bracket are those
// it gets asked alone, bit for bit (its choices read its own values and the window its own key composed).
// `read_lower`: whether the lower side is read (steps 2 and 3); a caller asking the upper side alone reads the upper
// side's grids, and stops where the cap or rare_upper_settled stops them.  `fft`: the aligned reads' backend.
inline void rare_delta_brackets(TiltedReader& reader, const std::vector<double>& eps, std::vector<double>& lower,
                                std::vector<double>& upper, bool read_lower, RealFftBackend& fft) {
    namespace d = rare_delta_detail;
    d::Elements e = d::start(reader.sampling_rate(), static_cast<double>(reader.rounds()), eps, lower, upper);
    double h = kRareDeltaFineGrid;
    for (int k = 0; k < kRareDeltaGrids; ++k) {
        h /= kTiltGridStep;
        const std::set<std::pair<double, double>> keys = d::next_keys(e);
        if (keys.empty()) break;
        for (const std::pair<double, double>& key : keys)
            d::read_bucket(reader, fft, eps, e, key.first, key.second, h, k, read_lower, lower, upper);
    }
    for (std::size_t i = 0; i < eps.size(); ++i) upper[i] = std::max(lower[i], upper[i]);
}

}  // namespace pld
}  // namespace hockeystick
