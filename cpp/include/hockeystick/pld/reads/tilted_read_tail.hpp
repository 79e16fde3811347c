// The window tail of a tilted upper epsilon read, from the point's own composition alone, and the checks that a
// read of a window cut at it did not owe its value to the cut (pld/refine/tilted_question.hpp's TiltedReader upper
// reads, which the package's fine and finer reads and the C library make).
//
// A tilted composition cut at a window tail t (pld/reads/tilted.hpp's compose_tilted, its `tail`) moves at most t of
// the tilted mass above its window, and at most t below it, to +infinity.  A read at eps charges that mass at the
// untilt factor at the window's top, M^T e^{-lam cut} (the mass below the window adds nothing to a read), which is
// the Chernoff bound B(eps) = e^{K(lam) - lam eps} at the read's tilt (K the T rounds' summed log-moment) times
// e^{-lam (cut - eps)}.  At the answer, B is the Chernoff bound's looseness R times delta, and under the tilt of the
// answer's Chernoff exponent the tilted loss has its mean near eps and its standard deviation s = sqrt(K''), the
// window's top about z_t s above it (z_t = sqrt(2 log(1 / t)): the Chernoff edge of a tail t); so the charge is
// about 2 t R delta e^{-lam s z_t}, and the largest power of ten t with
//
//     log(2 t) + log R - a lam s z_t <= log(kReadShare)                                                     (1)
//
// (a = kReadTiltShare < 1: the answer's tilt is below the estimate's) keeps it below kReadShare of delta, at most
// kReadTail (the window's bottom, z_t s below the mean, stays below the answer).  The window's span grows as z_t: a
// cut at 1e-6 rather than the composition's default 1e-15 holds about a third fewer points.  Every tail is
// certified (the cut mass is charged), so R, lam and s need only be estimated, and they are estimated from the point
// alone (its one round's PMF on the grid, T and delta), never from a bracket already read: a point's answer is then
// the same whichever points are asked with it.
//
// The estimates are those at the Chernoff tilt lam of delta (the lam minimizing (K(lam) + log(1 / delta)) / lam),
// K'' by a central difference, and R by the saddle-point approximation of the hockey-stick divergence (Lugannani and
// Rice, Adv. Appl. Prob. 12, 1980, to first order; for delta(eps) = E[(1 - e^{eps - L})_+] the tilted density at the
// saddle point gives delta ~ B(eps) / (lam (lam + 1) sqrt(2 pi K''(lam)))): R ~ lam (lam + 1) sqrt(2 pi K''(lam)).
// Where the loss is a sum of many comparable rounds (q 0.01 over 1000 rounds, sigma 0.5 to 5, delta 1e-10 and 1e-5)
// it is within a factor 2 of the looseness at the answer; where a few rare large rounds make the loss (T q near 1
// with q <= 1e-3) the looseness is up to 1e7 times larger, and the mass above the window, wrapped around the
// circular convolution to its low losses and untilted there, adds to the read (wrapped_mass).  The read then checks
// both (cut_charge_too_large) and is made again on the uncut window where they pass kCutCheckShare and
// kWrapCheckShare of delta.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "hockeystick/pld/compose/options.hpp"
#include "hockeystick/pld/grid/moments.hpp"
#include "hockeystick/pld/grid/tilt_ladders.hpp"

namespace hockeystick {
namespace pld {

// The share of delta the cut mass's charge is held near at the answer, (1): below the charge of the uncut window's
// 1e-15 tail at the untilt factor of eps (1e-15 R delta, R >= 100 on the runs of the header's comment), so the cut
// loosens no upper side by more than the round-off already charged.
constexpr double kReadShare = 1e-13;
// The share a of the estimated lam s the answer's tilt is taken to keep in (1): the answer's tilt lies below the
// Chernoff tilt of delta (19.2 against 26.1 at sigma 2, q 0.01, 1000 rounds, delta 1e-5), and the charge of a cut at
// 1e-6 was up to 2400 times the estimate with a = 1 (e^{7.8}, a quarter of lam s z_t there).
constexpr double kReadTiltShare = 0.75;
// The largest window tail taken: the window's bottom, z_t s below the tilted mean, stays below the answer of a
// direction whose epsilon is a little below the point's.
constexpr double kReadTail = 1e-6;
// The cut mass's charge at the answer, as a share of delta, past which the read is made again on the uncut window
// (the saddle-point estimate was far below the looseness: a few rare large rounds).
constexpr double kCutCheckShare = 1e-11;
// wrapped_mass's bound at the answer, as a share of delta, past which the read is made again on the uncut window: a
// Chernoff bound, about R times what wraps; up to 2.6e-5 where the cut window's read was within 1e-9 of the uncut
// one's (q 0.01, 1000 rounds, sigma 0.5 to 5, delta 1e-10), 81 where it was 1.3e-6 above it (sigma 1, q 1e-3, 100
// rounds, delta 1e-10).
constexpr double kWrapCheckShare = 1e-3;
// The tilts tried for wrapped_mass's bound, as multiples of the window's: kWrapLadder values geometric from
// kWrapLeast to kWrapMost (wrap_rung).
constexpr int kWrapLadder = 97;
constexpr double kWrapLeast = 1.001;
constexpr double kWrapMost = 100.0;
// The rungs wrapped_mass tries first where a bound is enough: every kWrapFirstStep-th of the first kWrapFirst (up to
// 3.1 times the window's tilt); the least bound lies among the first 30 on the runs of the header's comment (q 0.01,
// 1000 rounds, sigma 0.6 to 3; sigma 0.5 to 5 at q 256 / 60000; q 1e-4, 10^4 rounds), and these alone find one
// below the read's check wherever all kWrapLadder do.
constexpr int kWrapFirst = 25;
constexpr int kWrapFirstStep = 3;
// The relative step of the central difference for K''.
constexpr double kCurvatureStep = 1e-3;

// The wrap ladder's i-th rung (pld/grid/tilt_ladders.hpp's geometric ladder).
inline double wrap_rung(int i) { return geometric_rung(kWrapLeast, kWrapMost, kWrapLadder, i); }

// The grid PMF a read tail is estimated from: its finite masses p[0 .. n) at grid indices k_lo, k_lo + 1, ... on
// the grid h (the one round's pessimistic PMF of a direction).
struct RoundMasses {
    const double* p = nullptr;
    std::int64_t n = 0;
    std::int64_t k_lo = 0;
    double h = 0.0;
};

// The saddle-point estimate lam (lam + 1) sqrt(2 pi K''(lam)) of the Chernoff bound's looseness (the header's
// comment) of `rounds` rounds of `pmf` at the tilt lam, and the tilted loss's standard deviation sqrt(K''(lam)),
// K'' by a central difference of step kCurvatureStep lam over T log sum_k p_k e^{lam l_k} (grid_log_mgf, one lane
// per lam); (inf, 0) where K'' is not finite and positive.
inline std::pair<double, double> saddle_looseness(const RoundMasses& pmf, double rounds, double lam) {
    const double step = kCurvatureStep * lam;
    const double lams[3] = {lam - step, lam, lam + step};
    double k[3];
    grid_log_mgf(pmf.p, pmf.n, pmf.k_lo, pmf.h, lams, 3, k);
    for (double& v : k) v = rounds * v;
    const double curvature = (k[2] - 2.0 * k[1] + k[0]) / std::pow(step, 2.0);
    if (!(std::isfinite(curvature) && curvature > 0.0)) return {std::numeric_limits<double>::infinity(), 0.0};
    const double spread = std::sqrt(curvature);
    return {lam * (lam + 1.0) * std::sqrt(2.0 * detail::kPi) * spread, spread};
}

// The window tail of an upper read of `rounds` rounds of `pmf` (the header's comment): the largest power of ten t in
// [kDefaultCompositionTail, kReadTail] meeting (1) with the saddle-point looseness and spread at lam (the
// Chernoff tilt of the delta asked); kDefaultCompositionTail where none does or there is no estimate.
inline double read_tail(const RoundMasses& pmf, double rounds, double lam) {
    const auto [looseness, spread] = saddle_looseness(pmf, rounds, lam);
    if (!(std::isfinite(looseness) && looseness > 0.0)) return kDefaultCompositionTail;
    const double budget = std::log(kReadShare) - std::log(looseness);
    const long first = std::lround(-std::log10(kReadTail)), last = std::lround(-std::log10(kDefaultCompositionTail));
    for (long k = first; k < last; ++k) {
        const double tail = std::pow(10.0, -static_cast<double>(k));
        const double edge = kReadTiltShare * lam * spread * std::sqrt(2.0 * std::log(1.0 / tail));
        if (std::log(2.0 * tail) - edge <= budget) return tail;
    }
    return kDefaultCompositionTail;
}

namespace read_tail_detail {

// The least of wrapped_mass's exponents K(lam) - lam x - (lam h - theta) length over `lams` (inf where none is
// finite), K = T log sum_k p_k e^{lam l_k} (grid_log_mgf: each lam's value whatever the others).
inline double least_exponent(const RoundMasses& pmf, double rounds, double theta, double x, double length,
                             const std::vector<double>& lams) {
    std::vector<double> k(lams.size());
    grid_log_mgf(pmf.p, pmf.n, pmf.k_lo, pmf.h, lams.data(), static_cast<std::int64_t>(lams.size()), k.data());
    double least = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < lams.size(); ++j) {
        const double exponent = rounds * k[j] - lams[j] * x - (lams[j] * pmf.h - theta) * length;
        if (std::isfinite(exponent) && exponent < least) least = exponent;
    }
    return least;
}

}  // namespace read_tail_detail

// A bound on what the mass above a tilted window adds to a read at grid loss x by wrapping around the circular
// convolution of `length` points (under the tilt theta per grid step): mass at grid index K lands at K - length,
// untilted there by e^{theta length} more than at K, so it adds at most e^{theta length} mass{S >= x + length h} <=
// e^{K(lam) - lam x - (lam h - theta) length} for every lam > theta / h (Chernoff; K the summed log-moment of
// `rounds` rounds of `pmf`), the least over the wrap ladder's rungs times theta / h (at most 1); where the least over
// its first rungs (every kWrapFirstStep-th of the first kWrapFirst) is at most `enough`, that one (a bound as well,
// and at most `enough` like the least over all: the other rungs' moments, a pass over the PMF each, are not taken).
// It is part of the window's values (certified either way: folded mass only adds on the pessimistic side); after
// many rounds of a heavy-tailed loss it is what a cut window's read loses.
inline double wrapped_mass(const RoundMasses& pmf, double rounds, double theta, double x, double length,
                           double enough = 0.0) {
    const double scale = theta / pmf.h;
    std::vector<double> first, rest;
    for (int i = 0; i < kWrapLadder; ++i) {
        const bool early = i < kWrapFirst && i % kWrapFirstStep == 0;
        (early ? first : rest).push_back(wrap_rung(i) * scale);
    }
    const double least = read_tail_detail::least_exponent(pmf, rounds, theta, x, length, first);
    const double bound = std::exp(std::min(least, 0.0));
    if (bound <= enough) return bound;
    const double others = read_tail_detail::least_exponent(pmf, rounds, theta, x, length, rest);
    return std::exp(std::min(std::min(least, others), 0.0));
}

// Whether a cut window's `charge` at the answer (its cut mass at the untilt factor of its top, or of the answer where
// above it) passes kCutCheckShare of delta, or its wrapped_mass there kWrapCheckShare of it: the read is then made
// again on the uncut window.
inline bool cut_charge_too_large(double charge, double wrapped, double delta) {
    return !(charge <= kCutCheckShare * delta && wrapped <= kWrapCheckShare * delta);
}

}  // namespace pld
}  // namespace hockeystick
