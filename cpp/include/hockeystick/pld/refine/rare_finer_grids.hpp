// Rare participation's last epsilon reads of one point (sigma per unit sensitivity, 0 < q <= kTiltRareRate, T rounds
// of the Poisson-subsampled Gaussian): a default bracket still wider than the tolerance read on grids finer than the
// tilted reads' window cap allows, under larger caps of its own, and one within the tolerance but wider than a
// sixteenth of it given the aligned cells' lower read.  The package's default reads them last but one
// (python pld/question/default_reads.py, step 6).
//
// Over many rounds of a sampling rate far below the grid (q <= 1e-5, T q of 10 to 100), nearly every round's loss is
// of order q, far inside one cell.  The pessimistic PMF spreads each such atom to the cell's ends (connect-the-dots),
// which keeps the mean of e^-L but adds about h |l| of variance a round; over T rounds that is first order in h, so the
// upper side's excess falls about twofold a halving of the grid where the one-round loss is below it (sigma 0.5,
// q 1e-6, 10^8 rounds, delta 1e-8: 0.97038, 0.96832, 0.96740, 0.96698, 0.96683 on 1.25e-5 down to 7.8e-7), not
// fourfold.  The aligned cells' lower side (aligned_lower.hpp) loses a second-order amount, but its window over such
// runs is wide too.  On the tilted reads' cap (2^22 points) both stop a few halvings short: the six points of the box
// at sigma 0.5 with 10^7 and 10^8 rounds kept brackets 3.6 to 7.2 tolerances wide.
//
// finer_grids_bracket, for a bracket wider than the tolerance (finer_applies):
// 1. the upper side read (TiltedReader::exponent_read, certified) on kFinerFirstGrid, whose window sizes the reads
//    after it (a window's span in loss is about the same on every grid);
// 2. where still wide, the lower side read by the aligned cells (aligned_read, certified) on the finest of
//    kFinerLowerGrids whose window, estimated as kFinerLowerWindowRatio times the upper read's at that grid, fits
//    kFinerLowerMaxPoints;
// 3. where still wide, the upper side read on half of kFinerFirstGrid, then, where still wide, on the coarsest grid
//    whose modelled upper side meets the lower one within kFinerTargetShare of the tolerance (finer_halvings), at most
//    kFinerUpperHalvings halvings of kFinerFirstGrid, its window within kFinerUpperMaxPoints: one read, not a ladder,
//    since a read costs about its window's points.
// For a bracket within the tolerance but wider than kFinerTightShare of it (tight_applies), the lower side is raised
// to TiltedReader::rare_lower's (the aligned cells on kTiltRareLowerGrid).  There the lower side is the optimistic
// reads', which round every round's loss down (first order in the grid), while the upper side is the fine read's,
// whose pessimistic excess is a few 1e-5 after 10^4 to 10^6 rounds: the bracket's width is mostly the lower side's.
// dp_accounting's default (the pessimistic PMF on its 1e-4 grid, uncertified: its FFT's round-off is of order T u of
// the total mass) can fall between such sides, below the truth: sigma 0.6, q 1e-5, 10^6 rounds, delta 1e-10 reads
// 1.077178 against [1.077060, 1.077481], and the aligned cells on 1.25e-5 certify 1.077214.
//
// Every read is certified, so the bracket is the intersection; a window refused (the caps, an edge or a tilt) leaves
// that side as it was.  Memory: the pessimistic tilted read holds about 45 bytes a point of its window at its peak
// (48 M points, 2.1 GB resident), the aligned read about 65 (17.6 M points, 1.15 GB); the caps keep each under 3 GB.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>

#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/pld/refine/aligned_lower.hpp"
#include "hockeystick/pld/refine/epsilon_tolerance.hpp"
#include "hockeystick/pld/refine/rare_delta_grids.hpp"
#include "hockeystick/pld/refine/tilted_question.hpp"

namespace hockeystick {
namespace pld {

// The first grid of the upper side's reads: the rare lower read's, the finest of the rare upper reads', a quarter of
// the fine read's.
constexpr double kFinerFirstGrid = kTiltRareLowerGrid;
// The most halvings of kFinerFirstGrid the upper side is read on (7.8e-7): past it the window of the runs in the box
// passes kFinerUpperMaxPoints anyway.
constexpr int kFinerUpperHalvings = 4;
// The upper read's window cap: 2^26 points, ~3 GB at its peak.
constexpr std::int64_t kFinerUpperMaxPoints = std::int64_t(1) << 26;
// The aligned read's grids, finest first: on a grid finer than 6.25e-6 its cells pass kAlignedMaxCells (sigma 0.5,
// q 1e-6 at 3.125e-6).
constexpr double kFinerLowerGrids[] = {kFinerFirstGrid / 2.0, kFinerFirstGrid};
// The aligned read's window cap: 2^25 points, ~2.2 GB at its peak.
constexpr std::int64_t kFinerLowerMaxPoints = std::int64_t(1) << 25;
// The last upper read's grid is chosen so that its modelled upper side is within this share of the tolerance above
// the lower side (finer_halvings).
constexpr double kFinerTargetShare = 0.75;
// The aligned read's window over the pessimistic tilted read's on the same grid (its window is uncut, at 1e-3 delta):
// 1.8 to 2.2 on the box's wide points, with room.
constexpr double kFinerLowerWindowRatio = 2.5;
// A bracket within the tolerance wider than this share of it has its lower side read by the aligned cells
// (tight_applies): a sixteenth, 6.25e-5 below epsilon 4, below the distance between the sides where dp_accounting's
// default fell between them (7e-5 to 1.2e-4 above the lower side).
constexpr double kFinerTightShare = 1.0 / 16.0;

// The window caps of the finer reads: the upper reads' and the aligned read's.
struct FinerCaps {
    std::int64_t upper_max_points = kFinerUpperMaxPoints;
    std::int64_t lower_max_points = kFinerLowerMaxPoints;
};

namespace finer_detail {

// Whether [lower, upper] is within `share` of the default tolerance.
inline bool within(double lower, double upper, double share = 1.0) {
    return kDefaultEpsilonTolerance.scaled(share).within(lower, upper);
}

// The domain both reads share: rare participation (0 < q <= kTiltRareRate), at least kAlignedLeastRounds rounds,
// delta at least kAlignedLeastDelta, a finite upper side.
inline bool rare_domain(double q, std::int64_t rounds, double delta, double upper) {
    return q > 0.0 && q <= kTiltRareRate && rounds >= kAlignedLeastRounds && delta >= kAlignedLeastDelta &&
           std::isfinite(upper);
}

}  // namespace finer_detail

// Whether finer_grids_bracket reads [lower, upper] at delta: the rare domain and a bracket wider than the tolerance.
inline bool finer_applies(double q, std::int64_t rounds, double delta, double lower, double upper) {
    return finer_detail::rare_domain(q, rounds, delta, upper) && !finer_detail::within(lower, upper);
}

// Whether tight_bracket reads [lower, upper] at delta: the rare domain and a bracket within the tolerance but wider
// than kFinerTightShare of it.
inline bool tight_applies(double q, std::int64_t rounds, double delta, double lower, double upper) {
    return finer_detail::rare_domain(q, rounds, delta, upper) && finer_detail::within(lower, upper) &&
           !finer_detail::within(lower, upper, kFinerTightShare);
}

// The finest of kFinerLowerGrids whose aligned window, estimated as kFinerLowerWindowRatio times the upper read's
// (`window` points on kFinerFirstGrid, scaled by the grids' ratio), fits `max_points`; 0 where none does or no window
// was read.
inline double finer_lower_grid(std::int64_t window, std::int64_t max_points = kFinerLowerMaxPoints) {
    if (window <= 0) return 0.0;
    for (const double h : kFinerLowerGrids)
        if (kFinerLowerWindowRatio * static_cast<double>(window) * (kFinerFirstGrid / h) <=
            static_cast<double>(max_points))
            return h;
    return 0.0;
}

// How many halvings of kFinerFirstGrid / 2 the last upper read takes: among the k >= 1 up to kFinerUpperHalvings - 1
// whose window (`window` points on kFinerFirstGrid, 2^(k+1) times as many on the grid read) fits `max_points`,
// the fewest whose modelled upper side is within kFinerTargetShare of the tolerance above `lower`, else the most; 0
// where none fits, or where the second read fell by nothing.  The model: from the reads `first` (on kFinerFirstGrid)
// and `second` (on half of it), each further halving falls by half the fall before it (a first-order excess, the
// slowest fall seen), so k halvings read second - (first - second) (1 - 2^-k).  It only chooses the grid: every read
// is certified whatever it chooses.
inline int finer_halvings(double first, double second, double lower, std::int64_t window,
                          std::int64_t max_points = kFinerUpperMaxPoints) {
    const double fall = first - second;
    if (!(std::isfinite(fall) && fall > 0.0 && window > 0)) return 0;
    const double target = lower + kFinerTargetShare * kDefaultEpsilonTolerance.at(lower);
    int most = 0;
    for (int k = 1; k < kFinerUpperHalvings; ++k) {
        if (static_cast<double>(window) * std::ldexp(1.0, k + 1) > static_cast<double>(max_points)) continue;
        if (second - fall * (1.0 - std::ldexp(1.0, -k)) <= target) return k;
        most = k;
    }
    return most;
}

namespace finer_detail {

// One upper read on grid h (TiltedReader::exponent_read within the reader's cap, a window past it cut at
// kTiltWindowTail, the add direction screened, searched from `lower`): (upper, the least window's points), (inf, 0)
// where a window passes the caps or a tilt overflows a moment; the discretized rounds freed after the read.
inline std::pair<double, std::int64_t> upper_read(TiltedReader& reader, double delta, double h, double upper,
                                                  double lower, std::int64_t max_points) {
    const TiltedReader::UpperRule rule{max_points, kTiltWindowTail, true, std::numeric_limits<double>::infinity()};
    std::pair<double, std::int64_t> out{std::numeric_limits<double>::infinity(), 0};
    try {
        const TiltedReader::GridUpper read = reader.exponent_read(delta, h, upper, rule, lower);
        out = {read.upper, read.points};
    } catch (const std::length_error&) {  // a window past the caps: no upper side from this grid
    } catch (const std::invalid_argument&) {  // a tilt past the doubles' moments
    }
    reader.forget_rounds();
    return out;
}

}  // namespace finer_detail

// (lower, upper) at delta of `reader`'s point intersected with the reads of the opening comment where finer_applies,
// their windows within `caps` (the reader's own cap at least caps.upper_max_points); as given elsewhere.  `fft`
// composes the aligned read's window.  Certified: every read is.
inline std::pair<double, double> finer_grids_bracket(TiltedReader& reader, double delta, double lower, double upper,
                                                     RealFftBackend& fft, const FinerCaps& caps = FinerCaps{}) {
    const double q = reader.sampling_rate();
    if (!finer_applies(q, reader.rounds(), delta, lower, upper)) return {lower, upper};
    const auto read = [&](double h) {
        return finer_detail::upper_read(reader, delta, h, upper, lower, caps.upper_max_points);
    };
    const auto [first, window] = read(kFinerFirstGrid);
    upper = std::max(lower, std::min(upper, first));
    const double h = finer_lower_grid(window, caps.lower_max_points);
    if (h > 0.0 && !finer_detail::within(lower, upper)) {
        try {
            lower = std::max(lower, aligned_read(reader.sigma(), q, reader.rounds(), delta, upper, h, round_tilt, fft,
                                                 caps.lower_max_points)
                                        .lower);
        } catch (const std::logic_error&) {  // its window or cells past their caps, an edge or a tilt refused
        }
        upper = std::max(lower, upper);
    }
    if (finer_detail::within(lower, upper)) return {lower, upper};
    const double second = read(kFinerFirstGrid / 2.0).first;
    upper = std::max(lower, std::min(upper, second));
    const int k =
        finer_detail::within(lower, upper) ? 0 : finer_halvings(first, second, lower, window, caps.upper_max_points);
    if (k > 0) {
        const double last = read(std::ldexp(kFinerFirstGrid, -(k + 1))).first;
        upper = std::max(lower, std::min(upper, last));
    }
    return {lower, upper};
}

// (lower, upper) at delta of `reader`'s point with its lower side raised to TiltedReader::rare_lower's where
// tight_applies; as given elsewhere.  Certified.
inline std::pair<double, double> tight_bracket(TiltedReader& reader, double delta, double lower, double upper) {
    if (!tight_applies(reader.sampling_rate(), reader.rounds(), delta, lower, upper)) return {lower, upper};
    lower = reader.rare_lower(delta, lower, upper);
    return {lower, std::max(lower, upper)};
}

// finer_grids_bracket where it applies, else tight_bracket: rare participation's last reads of one bracket.
inline std::pair<double, double> rare_finer_bracket(TiltedReader& reader, double delta, double lower, double upper,
                                                    RealFftBackend& fft, const FinerCaps& caps = FinerCaps{}) {
    if (finer_applies(reader.sampling_rate(), reader.rounds(), delta, lower, upper))
        return finer_grids_bracket(reader, delta, lower, upper, fft, caps);
    return tight_bracket(reader, delta, lower, upper);
}

}  // namespace pld
}  // namespace hockeystick
