// The epsilon bracket of a composed PLD whose factors describe no run the question reader reads (random allocation's
// epochs, Laplace, discrete mechanisms, mixtures, a ledger of mixed mechanisms), read under an exponential tilt on its
// own grid, from its own factors (the package's front end: python/hockeystick/pld/question/tilted_own_grid.py, bound by
// cpp/bindings/register_pld_own_grid.cpp).
//
// The plain FFT composition of T rounds carries a round-off charge proportional to the whole mass and a tail cut of
// its window, so a delta near or below them is read wide on any grid: the README's DP-SGD run on balls-in-bins
// batches (sigma 1.1, 235 steps an epoch, 60 epochs) reads [3.909, 4.999] at delta 1e-12.  The tilted composition
// (pld/reads/tilted.hpp: Keich 2005; Wilson & Keich 2016) of the same factors carries its charge relative to the
// Chernoff bound at its tilt instead.  Per neighbouring direction, its factors' pessimistic PMFs with their counts are
// composed under the tilt maximizing the Chernoff exponent lam eps - K(lam), K(lam) = sum_i c_i K_i(lam) the summed
// log-moments (tilted_question.hpp's exponent_tilt), at eps the direction's plain upper epsilon (a tilt centred near
// the answer: any tilt is valid, the choice only makes the read tight), or, where that is infinite, under the tilt
// minimizing the Chernoff epsilon (K(lam) + log(1 / delta)) / lam (delta_tilt); its optimistic PMFs (the package's
// Factor.lower_terms) under the exponent's tilt at the middle of the plain lower side and the upper side found.
// Nothing is discretized again: the factors are the PLD's own, so the bracket keeps their discretization and only the
// composition's round-off and tail cut go; each side is certified (tilted.hpp), both sides are the maximum over the
// directions (Zhu, Dong & Wang, AISTATS 2022, Sec. 5), each direction's upper side intersected with its plain one, and
// the answer is the intersection with the plain bracket given.
//
// A side is read only where the plain composition's charges (round-off, shift and the window's tail cut:
// own_grid_plain_charge) at that side pass kOwnGridChargeShare of the delta asked (below that the tilted read moves
// the side by no more than the charge does and costs a composition), and the rise of the plain curve over
// kExactRelative of the side below it (below that the side cannot move by more than that share of it).  The
// directions are taken from the largest plain upper side down; a direction's upper side is read only where its plain
// one passes the upper sides found so far (their maximum stands otherwise), its lower side only where its upper side
// passes the lower side found so far.  So the upper side depends on the plain upper sides alone, and an upper side
// asked alone is the bracket's, bit for bit.  Where a window passes kTiltMaxPoints, a tilt overflows a factor's
// moment, or a factor is not a discretized round (a composed block of rounds: OwnGridDirection's tiltable flags), the
// side keeps its plain value.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/pld/reads/charged_curve.hpp"
#include "hockeystick/pld/reads/hockey_stick.hpp"
#include "hockeystick/pld/reads/tilted.hpp"
#include "hockeystick/pld/refine/epsilon_refinement.hpp"
#include "hockeystick/pld/refine/tilted_question.hpp"

namespace hockeystick {
namespace pld {

// The plain composition's charges at a side, as a share of the delta read there, above which that side is read under
// a tilt (the header's comment).
constexpr double kOwnGridChargeShare = 1e-4;
// The tails of the tilted mass cut from each end of a tilted window: the cut mass is charged, untilted, on its side
// (tilted.hpp), which at this tail moves a read by a relative 1e-10 of the Chernoff bound at its argument, and the
// window is about 2/3 of the default tail's (1e-15).
constexpr double kOwnGridTiltedTail = 1e-10;

// One neighbouring direction of a composed PLD as its own-grid read takes it: its plain composed pessimistic PMF
// (masses referenced, with its charges), its pessimistic PMFs and counts, and its optimistic PMFs and counts.  A
// tiltable flag is false where a PMF of that side is no discretized round of that side (a composed block of rounds,
// or none given): that side is then not read under a tilt.
struct OwnGridDirection {
    TiltedWindow plain;
    std::vector<CountedPmf> ups;
    bool ups_tiltable = true;
    std::vector<CountedPmf> lows;
    bool lows_tiltable = true;
};

// The plain composed PMF's charges at the epsilon x (the header's comment): its round-off charge at the curve
// argument of x (x - loss shift, rounded down), its shift's magnitude, and its mass at +infinity beyond the factors'
// composed one (its window's tail cut, composed_infinity of the pessimistic PMFs' own masses at +infinity); inf where
// x is not finite.
inline double own_grid_plain_charge(const OwnGridDirection& d, double x) {
    if (!std::isfinite(x)) return std::numeric_limits<double>::infinity();
    std::vector<std::pair<double, std::int64_t>> masses;
    for (const CountedPmf& f : d.ups) masses.emplace_back(f.pmf->p_inf, f.count);
    const double excess = d.plain.p_inf - composed_infinity(masses, true);
    const double cut = excess > 0.0 ? excess : 0.0;
    const TiltedWindow& w = d.plain;
    const double at = loss_shifted(x, w.loss_shift, false);
    const double charge =
        std::isnan(at) ? at
                       : charge_at_argument(at, static_cast<double>(w.k_lo), static_cast<double>(w.n), w.h, w.charges);
    return charge + std::fabs(w.charges.shift) + cut;
}

// The plain composed PMF's certified upper delta at each of the epsilons xs (its charged side at their curve
// arguments), read from its suffix sums from two grid points below the least argument up (those sums run from the
// top down, so they are the whole window's there).
inline std::vector<double> own_grid_plain_delta(const TiltedWindow& w, const std::vector<double>& xs) {
    std::vector<double> at;
    for (const double x : xs) at.push_back(loss_shifted(x, w.loss_shift, false));
    const double least = *std::min_element(at.begin(), at.end());
    std::int64_t start = 0;
    const double scaled = least / w.h;
    if (std::fabs(scaled) < 0x1p62) {  // finite, and its ceiling an index
        const std::int64_t from = std::min(static_cast<std::int64_t>(std::ceil(scaled)) - w.k_lo - 2, w.n - 1);
        if (from > 0 && least > static_cast<double>(w.k_lo + from) * w.h) start = from;
    }
    const GridProfile profile(w.p + start, w.n - start, w.k_lo + start, w.h, w.p_inf);
    std::vector<double> out;
    for (const double e : at)
        out.push_back(std::isnan(e) ? e
                                    : charged_side(profile, static_cast<double>(w.k_lo), static_cast<double>(w.n), w.h,
                                                   w.charges, true, e));
    return out;
}

// Whether a side `at` of the direction moves under a tilt (the header's comment): its plain charges pass
// `share` of delta, and, at a finite side, the rise of the plain curve over the step of kExactRelative of `at` below
// it.
inline bool own_grid_moves(const OwnGridDirection& d, double at, double delta, double share) {
    const double charge = own_grid_plain_charge(d, at);
    const bool passes = !(charge <= share * delta);
    if (!(passes && std::isfinite(at))) return passes;
    const std::vector<double> rise = own_grid_plain_delta(d.plain, {at - kExactRelative * at, at});
    return !(charge <= rise[0] - rise[1]);
}

// The certified upper epsilon at delta of the pessimistic `ups` composed under a tilt (the header's comment), at most
// `upper` (their plain one); `upper` where the composition is refused.
inline double own_grid_upper(const std::vector<CountedPmf>& ups, bool tiltable, double delta, double upper,
                             RealFftBackend& fft) {
    if (!tiltable || ups.empty()) return upper;
    const double lam = std::isfinite(upper) ? exponent_tilt(ups, upper) : delta_tilt(ups, delta);
    std::optional<TiltedComposition> side;
    try {
        side.emplace(compose_tilted(ups, lam * ups.front().pmf->h, true, fft, kTiltMaxPoints, kOwnGridTiltedTail,
                                    kTiltWindowTail));
    } catch (const std::length_error&) {  // a window past the cap: the plain side stands
        return upper;
    } catch (const std::invalid_argument&) {  // a tilt past the doubles' moments: the plain side stands
        return upper;
    }
    return std::min(upper, upper_epsilon(*side, delta, std::min(upper, side->top())));
}

// The certified lower epsilon at delta of the optimistic `lows` composed under the exponent's tilt at `near`, searched
// from `up` (a certified upper epsilon) down; 0 where the composition is refused.
inline double own_grid_lower(const std::vector<CountedPmf>& lows, bool tiltable, double delta, double near, double up,
                             RealFftBackend& fft) {
    if (!tiltable || lows.empty()) return 0.0;
    try {
        const TiltedComposition side = compose_tilted(lows, exponent_tilt(lows, near) * lows.front().pmf->h, false, fft,
                                                      kTiltMaxPoints, kOwnGridTiltedTail);
        return lower_epsilon(side, delta, up);
    } catch (const std::length_error&) {  // a window past the cap: no lower side here
    } catch (const std::invalid_argument&) {  // a tilt past the doubles' moments: no lower side here
    }
    return 0.0;
}

// A direction's plain upper epsilon at delta (its composed pessimistic PMF's, at least 0) and whether its upper and
// its lower side are read under a tilt.
struct OwnGridPlainSide {
    double upper;
    bool read_upper, read_lower;
};

// Per direction: its plain side (own_grid_moves at its plain upper epsilon, and at the run's plain `lower` unless
// `upper_only`).
inline std::vector<OwnGridPlainSide> own_grid_plain_sides(const std::vector<OwnGridDirection>& directions, double delta,
                                                          double lower, bool upper_only, double share) {
    std::vector<OwnGridPlainSide> out;
    for (const OwnGridDirection& d : directions) {
        const TiltedWindow& w = d.plain;
        double eps = 0.0;
        charged_epsilon(w.p, w.n, w.k_lo, w.h, w.p_inf, w.charges, &delta, 1, &eps);
        const double side = detail::numpy_maximum(eps, 0.0);
        out.push_back(
            {side, own_grid_moves(d, side, delta, share), !upper_only && own_grid_moves(d, lower, delta, share)});
    }
    return out;
}

// (lower, upper), the PLD's certified plain epsilon bracket at delta (the maximum over the directions of each side),
// intersected with its tilted sides (the header's comment) where the plain composition's charges pass `share` of
// delta; `upper_only`: the upper side alone is read (the lower side stays `lower`).  `fft` composes the tilted
// windows.
inline std::pair<double, double> own_grid_bracket(const std::vector<OwnGridDirection>& directions, double delta,
                                                  double lower, double upper, bool upper_only, RealFftBackend& fft,
                                                  double share = kOwnGridChargeShare) {
    const std::vector<OwnGridPlainSide> plain = own_grid_plain_sides(directions, delta, lower, upper_only, share);
    if (std::none_of(plain.begin(), plain.end(),
                     [](const OwnGridPlainSide& s) { return s.read_upper || s.read_lower; }))
        return {lower, upper};
    // a NaN plain side bounds nothing: the bracket as given (and no sort over it)
    if (std::any_of(plain.begin(), plain.end(), [](const OwnGridPlainSide& s) { return std::isnan(s.upper); }))
        return {lower, upper};
    std::vector<std::size_t> order(plain.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return plain[a].upper > plain[b].upper; });
    double low = lower, up = 0.0;
    for (const std::size_t j : order) {
        const OwnGridDirection& d = directions[j];
        double up_j = plain[j].upper;
        if (plain[j].read_upper && up_j > up)  // below the upper sides read so far: their maximum stands
            up_j = own_grid_upper(d.ups, d.ups_tiltable, delta, up_j, fft);
        up = std::max(up, up_j);
        if (plain[j].read_lower && low < up_j && up_j < std::numeric_limits<double>::infinity())
            low = std::max(low, own_grid_lower(d.lows, d.lows_tiltable, delta, 0.5 * (lower + up_j), up_j, fft));
    }
    return {low, std::max(low, std::min(upper, up))};
}

}  // namespace pld
}  // namespace hockeystick
