// The delta bracket of a composed PLD whose factors describe no run the question reader reads (random allocation's
// epochs, Laplace, discrete mechanisms, mixtures, a ledger of mixed mechanisms), read under exponential tilts of a
// ladder fixed in advance, on its own grid, from its own factors (its epsilon: own_grid.hpp; the package's front end:
// python/hockeystick/pld/question/tilted_own_grid_delta.py, bound by cpp/bindings/register_pld_own_grid.cpp).
//
// The plain FFT composition's round-off charge (about T u of the whole mass) and the tail cut of its window sit far
// above a delta of 1e-10: the README's DP-SGD run on balls-in-bins batches (sigma 1.1, 235 steps an epoch, 60 epochs)
// reads delta in [9.17e-11, 1.021e-10] at the upper epsilon of delta 1e-10 and in [0, 2.85e-12] at that of 1e-12, so
// that its delta(eps) and epsilon(delta) disagree.  Per neighbouring direction, its factors' pessimistic PMFs with
// their counts (the upper side), or its optimistic ones (the lower side), are composed under an exponential tilt
// (pld/reads/tilted.hpp: Keich 2005; Wilson & Keich 2016), whose read is certified at any tilt and carries its charge
// relative to the Chernoff bound there; the tilt only makes it tight.  The tilt of eps is a function of eps and the
// side's PMFs alone, so that an eps asked in an array is read as asked alone: eps's rung c (tilted_delta_centre: a
// tilt at a centre a little below eps reads as tight as one at eps) gives the tilt maximizing the Chernoff exponent
// lam c - K(lam) (exponent_tilt), taken down to the rung of the ladder (every kTiltCoarseStep-th tilt_rung) at or
// below it (own_grid_ladder_tilt), so that the rungs of eps whose tilts lie close (a heavy loss tail's, whose tilt
// grows slowly in eps) share one composition.  Every eps of one tilt is read from one composition per direction and
// side; the compositions are held from call to call (OwnGridHeld) by the PMFs' contents, counts, side and tilt,
// within a budget of window points, the least recently used forgotten first: a curve of deltas asked again (the risk
// family's directional profiles, whose one-direction PLDs are built again call after call) reads the windows held.
//
// A direction's side is read only where the plain composition's charges at eps (own_grid_plain_charge) pass
// kOwnGridChargeShare of the plain delta there (the direction's plain upper side, for its upper read; the bracket's
// plain lower side, for the lower read): elsewhere the read could move the side by no more than about that share,
// and the bracket given stands, bit for bit.  The directions are taken from the largest plain upper side down; a
// direction's upper side is read only where its plain one passes the upper sides found so far, its lower side only
// where its plain upper side passes the lower side found so far.  Each direction's upper side is intersected with
// its plain one, both sides are the maximum over the directions (Zhu, Dong & Wang, AISTATS 2022, Sec. 5), and the
// answer is the intersection with the plain bracket given.  Each side depends on the plain values alone, so a side
// asked alone is the bracket's, bit for bit.  Nothing is discretized again.  A side keeps its plain value where a
// window passes kTiltMaxPoints, a tilt overflows a factor's moment, or a factor is not a discretized round.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/pld/grid/tilt_ladders.hpp"
#include "hockeystick/pld/reads/tilted.hpp"
#include "hockeystick/pld/refine/own_grid.hpp"
#include "hockeystick/pld/refine/tilted_question.hpp"

namespace hockeystick {
namespace pld {

// The ladder tilts held between calls (OwnGridHeld::tilt), the oldest forgotten first.
constexpr std::size_t kOwnGridHeldTilts = 1024;

// The rung of the ladder (every kTiltCoarseStep-th tilt_rung) at or below the tilt maximizing the Chernoff exponent
// lam centre - K(lam) of `terms` (exponent_tilt), its least rung below the ladder.
inline double own_grid_ladder_tilt(const std::vector<CountedPmf>& terms, double centre) {
    const double lam = exponent_tilt(terms, centre);
    int rung = 0;
    for (int i = kTiltCoarseStep; i < kTiltLadder && tilt_rung(i) <= lam; i += kTiltCoarseStep) rung = i;
    return tilt_rung(rung);
}

// A 128-bit digest of n masses (two independent 64-bit hashes of their bit patterns, each word mixed by SplitMix64's
// finalizer: Steele, Lea & Flood, OOPSLA 2014), as four 32-bit halves held exactly in doubles.
inline std::vector<double> own_grid_masses_digest(const double* p, std::size_t n) {
    const auto mix = [](std::uint64_t x) {
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
        return x ^ (x >> 31);
    };
    std::uint64_t a = 0x9e3779b97f4a7c15ULL, b = 0xd1b54a32d192ed03ULL;
    for (std::size_t i = 0; i < n; ++i) {
        std::uint64_t w = 0;
        std::memcpy(&w, p + i, sizeof w);
        a = mix(a ^ w) + 0x9e3779b97f4a7c15ULL;
        b = mix(b + w * 0xff51afd7ed558ccdULL) ^ (b >> 17);
    }
    return {static_cast<double>(a >> 32), static_cast<double>(a & 0xffffffffULL), static_cast<double>(b >> 32),
            static_cast<double>(b & 0xffffffffULL)};
}

// What a composition reads of one side's terms: per term its count, grid, mass at +infinity, loss shift, size and a
// 128-bit digest of its masses (own_grid_masses_digest: a key of a few doubles, not a copy of the masses, however
// many compositions are held), and the side; equal keys compose to the same window.
inline std::vector<double> own_grid_terms_key(const std::vector<CountedPmf>& terms, bool pessimistic) {
    std::vector<double> key{pessimistic ? 1.0 : 0.0};
    for (const CountedPmf& t : terms) {
        const GridPMF& p = *t.pmf;
        key.insert(key.end(), {static_cast<double>(t.count), static_cast<double>(p.k_lo), p.h, p.p_inf, p.loss_shift,
                               static_cast<double>(p.p.size())});
        const std::vector<double> digest = own_grid_masses_digest(p.p.data(), p.p.size());
        key.insert(key.end(), digest.begin(), digest.end());
    }
    return key;
}

// The tilts and tilted compositions held from call to call (the header's comment): a tilt per (terms, centre), at
// most kOwnGridHeldTilts, the oldest forgotten first; a composition per (terms, side, tilt), the least recently used
// forgotten first before a new one is held until those left hold at most `points` window points.  Safe to share
// between threads (a held composition is read through its own shared pointer).
class OwnGridHeld {
  public:
    explicit OwnGridHeld(std::int64_t points = kTiltDeltaWindowPoints) : points_(points) {}

    std::int64_t points() const {
        const std::lock_guard<std::mutex> lock(mutex_);
        return points_;
    }
    void set_points(std::int64_t points) {
        const std::lock_guard<std::mutex> lock(mutex_);
        points_ = points;
    }
    // The compositions made so far: (upper side, lower side).
    std::pair<std::int64_t, std::int64_t> made() const {
        const std::lock_guard<std::mutex> lock(mutex_);
        return {made_[1], made_[0]};
    }

    // own_grid_ladder_tilt of `terms` (`key` what they hold) at `centre`, held.
    double tilt(const std::vector<CountedPmf>& terms, const std::vector<double>& key, double centre) {
        std::pair<std::vector<double>, double> slot{key, centre};
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            const auto found = tilts_.find(slot);
            if (found != tilts_.end()) return found->second;
        }
        const double lam = own_grid_ladder_tilt(terms, centre);
        const std::lock_guard<std::mutex> lock(mutex_);
        while (tilts_.size() >= kOwnGridHeldTilts && !tilt_order_.empty()) {
            tilts_.erase(tilt_order_.front());
            tilt_order_.pop_front();
        }
        if (tilts_.emplace(slot, lam).second) tilt_order_.push_back(std::move(slot));
        return lam;
    }

    // `terms` composed under the tilt lam (per unit loss) on the side asked, with a window of tails
    // kOwnGridTiltedTail of the tilted mass, at most kTiltMaxPoints points (the pessimistic side's cut at
    // kTiltWindowTail past them), held; null where the composition is refused.
    std::shared_ptr<const TiltedComposition> window(const std::vector<CountedPmf>& terms,
                                                    const std::vector<double>& key, double lam, bool pessimistic,
                                                    RealFftBackend& fft) {
        const std::pair<std::vector<double>, double> slot{key, lam};
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            const auto found = held_.find(slot);
            if (found != held_.end()) {  // the most recently used last
                order_.splice(order_.end(), order_, found->second);
                return found->second->read;
            }
        }
        std::shared_ptr<const TiltedComposition> read;
        std::int64_t size = 0;
        try {
            const HeldTilted side =
                compose_tilted_held(terms, lam * terms.front().pmf->h, pessimistic, fft, kTiltMaxPoints,
                                    kOwnGridTiltedTail, pessimistic ? kTiltWindowTail : 0.0);
            size = static_cast<std::int64_t>(side.window.p.size());
            read = std::make_shared<const TiltedComposition>(side.read());
        } catch (const std::length_error&) {  // a window past the cap: the plain side stands
            return nullptr;
        } catch (const std::invalid_argument&) {  // a tilt past the doubles' moments: the plain side stands
            return nullptr;
        }
        const std::lock_guard<std::mutex> lock(mutex_);
        ++made_[pessimistic ? 1 : 0];
        forget_least_used();
        if (held_.find(slot) == held_.end()) {
            order_.push_back({slot, read, size});
            held_.emplace(slot, std::prev(order_.end()));
        }
        return read;
    }

  private:
    using Slot = std::pair<std::vector<double>, double>;
    struct Entry {
        Slot slot;
        std::shared_ptr<const TiltedComposition> read;
        std::int64_t size;
    };

    // Forgets the held compositions from the least recently used on until those left hold at most points_ window
    // points.  Under the lock.
    void forget_least_used() {
        std::int64_t total = 0;
        for (const Entry& e : order_) total += e.size;
        while (!order_.empty() && total > points_) {
            total -= order_.front().size;
            held_.erase(order_.front().slot);
            order_.pop_front();
        }
    }

    std::int64_t points_;
    std::int64_t made_[2] = {0, 0};
    mutable std::mutex mutex_;
    std::map<Slot, double> tilts_;
    std::list<Slot> tilt_order_;
    std::list<Entry> order_;
    std::map<Slot, std::list<Entry>::iterator> held_;
};

// One direction's certified deltas on one side at each of eps (> 0, finite), each read under the ladder's tilt of
// its rung (tilted_delta_centre, OwnGridHeld::tilt, OwnGridHeld::window); `plain` (the side's value where no window
// is read) where the side is not tiltable or the composition is refused.
inline std::vector<double> own_grid_tilted_deltas(const OwnGridDirection& d, bool pessimistic,
                                                  const std::vector<double>& eps, std::vector<double> plain,
                                                  OwnGridHeld& held, RealFftBackend& fft) {
    const std::vector<CountedPmf>& terms = pessimistic ? d.ups : d.lows;
    if (!(pessimistic ? d.ups_tiltable : d.lows_tiltable) || terms.empty()) return plain;
    const std::vector<double> key = own_grid_terms_key(terms, pessimistic);
    std::map<double, double> tilts;
    std::vector<double> lams;
    for (const double x : eps) {
        const double centre = tilted_delta_centre(x);
        auto found = tilts.find(centre);
        if (found == tilts.end()) found = tilts.emplace(centre, held.tilt(terms, key, centre)).first;
        lams.push_back(found->second);
    }
    std::vector<double> distinct(lams);
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    for (const double lam : distinct) {
        const std::shared_ptr<const TiltedComposition> side = held.window(terms, key, lam, pessimistic, fft);
        if (!side) continue;
        for (std::size_t i = 0; i < eps.size(); ++i)
            if (lams[i] == lam) plain[i] = side->delta(eps[i]);
    }
    return plain;
}

// The values of `v` at the indices `at`.
inline std::vector<double> own_grid_taken(const std::vector<double>& v, const std::vector<std::size_t>& at) {
    std::vector<double> out;
    for (const std::size_t i : at) out.push_back(v[i]);
    return out;
}

// Each direction's plain upper delta at the epsilons `at` and where its upper and its lower side are read (the
// header's comment): its plain charges pass `share` of its plain upper delta (`read_upper`), or of the bracket's
// plain lower side `lows` (`read_lower`).
struct OwnGridPlainDeltas {
    std::vector<std::vector<double>> plain;
    std::vector<std::vector<bool>> read_up, read_low;
    bool any = false;
};

inline OwnGridPlainDeltas own_grid_plain_deltas(const std::vector<OwnGridDirection>& directions,
                                                const std::vector<double>& at, const std::vector<double>& lows,
                                                bool read_upper, bool read_lower, double share) {
    OwnGridPlainDeltas out;
    for (const OwnGridDirection& d : directions) {
        out.plain.push_back(own_grid_plain_delta(d.plain, at));
        std::vector<bool> up(at.size(), false), low(at.size(), false);
        for (std::size_t i = 0; i < at.size(); ++i) {
            const double charge = own_grid_plain_charge(d, at[i]);
            up[i] = read_upper && !(charge <= share * out.plain.back()[i]);
            low[i] = read_lower && !(charge <= share * lows[i]);
            out.any = out.any || up[i] || low[i];
        }
        out.read_up.push_back(std::move(up));
        out.read_low.push_back(std::move(low));
    }
    return out;
}

// One side's maximum over the directions, in `order` (the header's comment): per direction, the elements where its
// side is read and its plain upper delta passes the side so far (`bound`) are read under their tilts, and the side
// found (the upper side: its plain one lowered to the tilted one, then the maximum taken; the lower side: raised to
// the tilted one).
inline std::vector<double> own_grid_side(const std::vector<OwnGridDirection>& directions, const OwnGridPlainDeltas& p,
                                         const std::vector<std::size_t>& order, const std::vector<double>& at,
                                         std::vector<double> side, bool pessimistic, OwnGridHeld& held,
                                         RealFftBackend& fft) {
    for (const std::size_t d : order) {
        const std::vector<bool>& reads = pessimistic ? p.read_up[d] : p.read_low[d];
        std::vector<double> found = pessimistic ? p.plain[d] : side;
        std::vector<std::size_t> need;
        for (std::size_t i = 0; i < at.size(); ++i)
            if (reads[i] && p.plain[d][i] > side[i]) need.push_back(i);
        if (!need.empty()) {
            const std::vector<double> tilted = own_grid_tilted_deltas(
                directions[d], pessimistic, own_grid_taken(at, need), own_grid_taken(found, need), held, fft);
            for (std::size_t k = 0; k < need.size(); ++k)
                found[need[k]] = pessimistic ? detail::numpy_minimum(found[need[k]], tilted[k])
                                             : detail::numpy_maximum(found[need[k]], tilted[k]);
        }
        for (std::size_t i = 0; i < at.size(); ++i)
            side[i] = pessimistic ? detail::numpy_maximum(side[i], found[i]) : found[i];
    }
    return side;
}

// (lower, upper), the PLD's certified plain delta brackets at the m epsilons eps (the maximum over the directions of
// each side), intersected in place with its tilted sides (the header's comment) where the plain composition's
// charges pass `share` of the plain delta; `read_upper` / `read_lower`: the sides asked for (the other keeps its
// plain value).  The epsilons not finite and > 0 keep their plain bracket.  `held` holds the compositions between
// calls, `fft` composes them.
inline void own_grid_deltas(const std::vector<OwnGridDirection>& directions, const double* eps, std::int64_t m,
                            double* lower, double* upper, bool read_upper, bool read_lower, OwnGridHeld& held,
                            RealFftBackend& fft, double share = kOwnGridChargeShare) {
    std::vector<std::size_t> live;
    for (std::int64_t i = 0; i < m; ++i)
        if (std::isfinite(eps[i]) && eps[i] > 0.0) live.push_back(static_cast<std::size_t>(i));
    if (live.empty()) return;
    std::vector<double> at, lows;
    for (const std::size_t i : live) at.push_back(eps[i]), lows.push_back(lower[i]);
    const OwnGridPlainDeltas p = own_grid_plain_deltas(directions, at, lows, read_upper, read_lower, share);
    if (!p.any) return;
    std::vector<double> tops;
    for (const std::vector<double>& v : p.plain) tops.push_back(*std::max_element(v.begin(), v.end()));
    std::vector<std::size_t> order(directions.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return tops[a] > tops[b]; });
    const std::vector<double> up =
        own_grid_side(directions, p, order, at, std::vector<double>(at.size(), 0.0), true, held, fft);
    const std::vector<double> low = own_grid_side(directions, p, order, at, lows, false, held, fft);
    for (std::size_t k = 0; k < live.size(); ++k) {
        lower[live[k]] = low[k];
        upper[live[k]] = detail::numpy_maximum(low[k], detail::numpy_minimum(upper[live[k]], up[k]));
    }
}

}  // namespace pld
}  // namespace hockeystick
