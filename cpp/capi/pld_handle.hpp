// The C interface's PLD handle (hs_pld), shared by the mechanisms' calls (pld.cpp, pld_mechanisms.cpp): per
// neighbouring direction a multiset of factors (one mechanism's pessimistic and optimistic grid PMFs each, with its
// count of rounds), as the Python package's pld.grid.distribution.PrivacyLossDistribution holds it, composed
// through the core's FFT composition (pld/compose/compose.hpp) with the backend of cpp/backends/ chosen at configure
// time (Eigen's FFT module by default, FFTW with HOCKEYSTICK_C_FFT_FFTW).
//
// The first direction's pessimistic side, and that of every direction whose factors hold no mechanism to discretize
// again on a coarser grid, is composed when the handle is made; any other direction's (the Poisson-subsampled
// Gaussian's add direction) is composed on the first read that needs it, once: an epsilon read screens it on a
// coarser grid first (pld/refine/direction_screen.hpp) and needs it only where the screen does not clear.  Each
// direction's optimistic side is composed on the first read that needs it, once (std::call_once: pld.cpp's opening
// comment says which reads need which); so is the window of a direction whose pessimistic side is kept as a spectrum,
// where the own-grid reads need it.  The own-grid delta reads' tilted compositions are held in the handle from call
// to call under their own lock (pld/refine/own_grid_delta.hpp's OwnGridHeld), each a function of its factors and tilt
// alone.  A handle's values never change once made, so several threads may read it.
#pragma once

#include <hockeystick/pld/compose/compose.hpp>
#include <hockeystick/pld/grid/connect_dots.hpp>
#include <hockeystick/pld/reads/charged_curve.hpp>
#include <hockeystick/pld/reads/epsilon_bracket.hpp>
#include <hockeystick/pld/reads/hockey_stick.hpp>
#include <hockeystick/pld/refine/own_grid_delta.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#ifdef HOCKEYSTICK_C_FFT_FFTW
#include "fftw_backend.hpp"
#else
#include "eigen_fft_backend.hpp"
#endif

namespace hockeystick_c {

namespace pld = hockeystick::pld;

#ifdef HOCKEYSTICK_C_FFT_FFTW
using CompositionFft = hockeystick::backends::FftwBackend;
#else
using CompositionFft = hockeystick::backends::EigenFftBackend;
#endif

// The Python package's limits (pld.mechanisms.constructors): MAX_CELLS loss cells per direction, DEFAULT_TAIL
// cut per round; a composition's window of at most 2^27 grid points; at most 2^53 rounds (self_compose).
constexpr std::int64_t kMaxCells = std::int64_t(1) << 26;
constexpr std::int64_t kMaxPoints = std::int64_t(1) << 27;
constexpr std::int64_t kMaxRounds = std::int64_t(1) << 53;
constexpr double kMaxInterval = 100.0;

// One mechanism's round in one neighbouring direction: its pessimistic PMF (an upper bound on delta(eps), also
// after composition) and its optimistic PMF (a lower bound), on one loss grid.
class Factor {
  public:
    virtual ~Factor() = default;
    virtual const pld::GridPMF& upper() const = 0;
    virtual const pld::GridPMF& lower() const = 0;
    // Whether on_grid gives the factor's mechanism on another grid: false where the factor holds its PMFs only.
    virtual bool regrids() const { return false; }
    // The same mechanism's round discretized again on the grid of spacing h with `tail` beyond its integration range,
    // its pessimistic side read alone (a direction's screen); only where regrids().
    virtual std::shared_ptr<const Factor> on_grid(double h, double tail) const {
        (void)h;
        (void)tail;
        return nullptr;
    }
    // The Poisson-subsampled Gaussian round the factor discretizes, where it is one: a handle whose every factor is
    // such a round is read as its run (pld.cpp's run reads), as the package reads a PLD whose factors describe it.
    struct GaussianRound {
        double sigma, q;
        bool remove;
    };
    virtual std::optional<GaussianRound> subsampled_gaussian() const { return std::nullopt; }
};

// A factor whose two PMFs are built at once.
class BuiltFactor final : public Factor {
  public:
    BuiltFactor(pld::GridPMF upper, pld::GridPMF lower) : upper_(std::move(upper)), lower_(std::move(lower)) {}

    const pld::GridPMF& upper() const override { return upper_; }
    const pld::GridPMF& lower() const override { return lower_; }

  private:
    pld::GridPMF upper_, lower_;
};

// The factor of two PMFs made from a mechanism's cells, each carrying the loss shift of the package's factor
// (constructors._factor): `loss_shift` (the error of the losses the cells were built from) plus the cells' own
// (the larger of the two PMFs'), rounded up, or `loss_shift` alone where the cells carry none.
inline std::shared_ptr<const Factor> charged_factor(pld::GridPMF upper, pld::GridPMF lower, double loss_shift) {
    const double cells = std::max(upper.loss_shift, lower.loss_shift);
    const double shift =
        cells > 0.0 ? std::nextafter(loss_shift + cells, std::numeric_limits<double>::infinity()) : loss_shift;
    upper.loss_shift = lower.loss_shift = shift;
    return std::make_shared<const BuiltFactor>(std::move(upper), std::move(lower));
}

// `count` rounds of one factor.
struct Term {
    std::shared_ptr<const Factor> factor;
    std::int64_t count = 0;
};

// A composition: per neighbouring direction (one for a symmetric mechanism, two for remove and add) its terms, all
// on the loss grid of spacing h.
// Where `direct_bins`, each side's composition recomputes the low band of its many-round rows accurately
// (ComposeOptions::direct_bins, from an estimated charge of `direct_min_charge`): a refinement's grids, as the
// package's refinement composes them (pld/refine/points_delta_source.hpp's units).  `tail`: the mass each end
// of a composed window may drop, charged (a refinement's windows sized to the delta asked: refinement_tails.hpp).
struct Composition {
    double h = 0.0;
    std::vector<std::vector<Term>> directions;
    bool direct_bins = false;
    double direct_min_charge = pld::kDirectMinCharge;
    double tail = pld::kDefaultCompositionTail;
};

// `composition` run `count` times: every count multiplied (the factors shared).
inline Composition repeated(const Composition& composition, std::int64_t count) {
    Composition out = composition;
    for (std::vector<Term>& direction : out.directions)
        for (Term& t : direction) t.count *= count;
    return out;
}

// Both run on one neighbouring pair (the package's PrivacyLossDistribution.compose): direction by direction, a
// one-direction composition paired with each direction of the other; terms of one factor merged (counts added).
// a and b have one h and 1 or 2 directions each (checked by the caller).
inline Composition composed(const Composition& a, const Composition& b) {
    Composition out;
    out.h = a.h;
    const std::size_t n = std::max(a.directions.size(), b.directions.size());
    for (std::size_t d = 0; d < n; ++d) {
        std::vector<Term> merged = a.directions[a.directions.size() == 1 ? 0 : d];
        for (const Term& t : b.directions[b.directions.size() == 1 ? 0 : d]) {
            auto same = std::find_if(merged.begin(), merged.end(),
                                     [&](const Term& m) { return m.factor.get() == t.factor.get(); });
            if (same != merged.end())
                same->count += t.count;
            else
                merged.push_back(t);
        }
        out.directions.push_back(std::move(merged));
    }
    return out;
}

// How a side is read once composed: one epsilon search (or delta), as the facade reads a bracket at one argument.
inline const pld::SpectralReads kOneRead{1, 0};

// The listed directions' sides composed, in one compose_many (each item's result is the same alone or batched:
// pld/compose/compose.hpp); a factor shared by several directions is transformed once.
// `spectral` false: every side kept as its window (no read through the spectrum).
inline std::vector<pld::ComposedPMF> compose_sides(const Composition& c, bool pessimistic,
                                                   const std::vector<std::size_t>& directions, bool spectral = true) {
    std::vector<pld::PmfView> views;
    std::map<const Factor*, std::int64_t> index;
    std::vector<std::vector<pld::Term>> items;
    for (const std::size_t d : directions) {
        std::vector<pld::Term> item;
        for (const Term& t : c.directions[d]) {
            auto found = index.find(t.factor.get());
            if (found == index.end()) {
                found = index.emplace(t.factor.get(), static_cast<std::int64_t>(views.size())).first;
                views.push_back(pld::factor_view(pessimistic ? t.factor->upper() : t.factor->lower(), pessimistic));
            }
            item.push_back({found->second, t.count});
        }
        items.push_back(std::move(item));
    }
    CompositionFft fft;
    // A side with few live frequencies is read through its spectrum (no inverse transform), costed as one search
    // per read, as the facade reads it.
    const std::vector<pld::SpectralReads> reads(spectral ? items.size() : 0, kOneRead);
    pld::ComposeOptions options;
    options.direct_bins = c.direct_bins;
    options.direct_min_charge = c.direct_min_charge;
    return pld::compose_many(views, c.h, items, pessimistic, c.tail, kMaxPoints, fft, options, reads);
}

// The optimistic curve of a composed window at any epsilon, with its suffix maxima (the facade's GridPMF.delta).
inline pld::ChargedGridCurve lower_curve(const pld::ComposedPMF& c) {
    const pld::GridCharges ch = pld::charges_of(c);
    const std::int64_t n = static_cast<std::int64_t>(c.p.size());
    std::vector<double> charge(static_cast<std::size_t>(n) + 1);  // charge of the grid points above index j
    for (std::int64_t j = 0; j <= n; ++j) charge[static_cast<std::size_t>(j)] = ch.above(static_cast<double>(n - j));
    return pld::ChargedGridCurve(pld::GridProfile(c.p.data(), n, c.k_lo, c.h, c.p_inf), std::move(charge), ch.shift,
                                 ch.slack, ch.loss_shift, false, true);
}

// One direction's side (pessimistic or optimistic), composed on the first read that needs it unless given when the
// handle is made; its curve for delta reads built on the first such read of a window.
class LazySide {
  public:
    bool composed() const { return done_.load(std::memory_order_acquire); }

    void set(pld::ComposedPMF composed) {
        std::call_once(compose_once_, [&] {
            pmf_ = std::move(composed);
            done_.store(true, std::memory_order_release);
        });
    }

    const pld::ComposedPMF& pmf(const Composition& c, std::size_t direction, bool pessimistic, bool spectral = true) {
        std::call_once(compose_once_, [&] {
            pmf_ = std::move(compose_sides(c, pessimistic, {direction}, spectral).front());
            done_.store(true, std::memory_order_release);
        });
        return pmf_;
    }

    const pld::ChargedGridCurve& curve() {
        std::call_once(curve_once_, [&] { curve_.reset(new pld::ChargedGridCurve(lower_curve(pmf_))); });
        return *curve_;
    }

  private:
    std::once_flag compose_once_, curve_once_;
    std::atomic<bool> done_{false};
    pld::ComposedPMF pmf_;
    std::unique_ptr<pld::ChargedGridCurve> curve_;
};

inline std::vector<std::size_t> every_direction(const Composition& c) {
    std::vector<std::size_t> all(c.directions.size());
    for (std::size_t d = 0; d < all.size(); ++d) all[d] = d;
    return all;
}

// How many times coarser than the handle's grid a direction's screen is discretized (pld.cpp's epsilon reads and
// refine.cpp's grids, as the package's dominated_direction.COARSENING).
constexpr double kScreenCoarsening = 4.0;

// Whether direction d of c has a screen: not the first direction, the one the screen is read against, and every
// factor able to discretize its mechanism again.
inline bool screened(const Composition& c, std::size_t d) {
    if (d == 0) return false;
    for (const Term& t : c.directions[d])
        if (!t.factor->regrids()) return false;
    return true;
}

// Direction d of c with every factor discretized again kScreenCoarsening times coarser (at most kMaxInterval), each
// round's tail `tail`, its windows c's: the composition of its screen (screened(c, d)).
inline Composition screen_of(const Composition& c, std::size_t d, double tail) {
    Composition out;
    out.h = std::min(c.h * kScreenCoarsening, kMaxInterval);
    out.tail = c.tail;
    out.direct_bins = c.direct_bins;
    out.direct_min_charge = c.direct_min_charge;
    std::vector<Term> terms;
    for (const Term& t : c.directions[d]) terms.push_back({t.factor->on_grid(out.h, tail), t.count});
    out.directions.push_back(std::move(terms));
    return out;
}

// A direction's screen at one tail: its composition on the coarser grid (screen_of), made on the first epsilon read
// that asks it, and its pessimistic side composed then, each once.
class Screen {
  public:
    explicit Screen(double tail) : tail_(tail) {}

    const Composition& composition(const Composition& c, std::size_t direction) {
        std::call_once(made_,
                       [&] { composition_ = std::make_shared<const Composition>(screen_of(c, direction, tail_)); });
        return *composition_;
    }

    const pld::ComposedPMF& pmf(const Composition& c, std::size_t direction) {
        const Composition& screen = composition(c, direction);
        std::call_once(composed_, [&] { pmf_ = std::move(compose_sides(screen, true, {0}).front()); });
        return pmf_;
    }

  private:
    double tail_;
    std::once_flag made_, composed_;
    std::shared_ptr<const Composition> composition_;
    pld::ComposedPMF pmf_;
};

// The directions whose pessimistic sides are composed when the handle is made: those without a screen.
inline std::vector<std::size_t> unscreened(const Composition& c) {
    std::vector<std::size_t> out;
    for (std::size_t d = 0; d < c.directions.size(); ++d)
        if (!screened(c, d)) out.push_back(d);
    return out;
}

// A one-round composition of one factor per direction, on the factors' grid.
inline std::shared_ptr<const Composition> one_round(std::vector<std::shared_ptr<const Factor>> factors) {
    auto c = std::make_shared<Composition>();
    c->h = factors.front()->upper().h;
    for (std::shared_ptr<const Factor>& f : factors) c->directions.push_back({{std::move(f), 1}});
    return c;
}

}  // namespace hockeystick_c

// A PLD: its composition (the factors shared with the handles it was made from or makes), the runs of mechanisms
// it composes (`rounds`), the pessimistic sides of the directions without a screen composed, the others' and each
// direction's optimistic side composed when first needed, each screen's when first asked.
struct hs_pld {
    std::shared_ptr<const hockeystick_c::Composition> composition;
    std::int64_t rounds = 0;
    std::unique_ptr<hockeystick_c::LazySide[]> upper, lower, windows;

    hs_pld(std::shared_ptr<const hockeystick_c::Composition> c, std::int64_t n)
        : composition(std::move(c)),
          rounds(n),
          upper(new hockeystick_c::LazySide[composition->directions.size()]),
          lower(new hockeystick_c::LazySide[composition->directions.size()]),
          windows(new hockeystick_c::LazySide[composition->directions.size()]) {
        const std::vector<std::size_t> eager = hockeystick_c::unscreened(*composition);
        if (eager.empty()) return;
        std::vector<hockeystick::pld::ComposedPMF> sides = hockeystick_c::compose_sides(*composition, true, eager);
        for (std::size_t i = 0; i < eager.size(); ++i) upper[eager[i]].set(std::move(sides[i]));
    }

    std::size_t directions() const { return composition->directions.size(); }

    // Whether direction d's epsilon reads ask its screen first (pld.cpp).
    bool screened(std::size_t d) const { return hockeystick_c::screened(*composition, d); }

    const hockeystick::pld::ComposedPMF& upper_side(std::size_t d) const { return upper[d].pmf(*composition, d, true); }

    const hockeystick::pld::ComposedPMF& lower_side(std::size_t d) const {
        return lower[d].pmf(*composition, d, false);
    }

    // Direction d's composed pessimistic window, the plain PMF of the own-grid reads (pld.cpp): its pessimistic side
    // where that is kept as a window, else the same composition kept as its window, composed on first need, once.
    const hockeystick::pld::ComposedPMF& upper_window(std::size_t d) const {
        const hockeystick::pld::ComposedPMF& side = upper_side(d);
        return side.spectral ? windows[d].pmf(*composition, d, true, false) : side;
    }

    // The tilted compositions of the own-grid delta reads held from call to call (pld.cpp), within the core's
    // budget of window points; safe to share between threads (its own lock).
    mutable hockeystick::pld::OwnGridHeld own_grid_held;

    // Direction d's screen whose rounds' tail is `tail`, made on first need (each tail's once).
    hockeystick_c::Screen& screen(std::size_t d, double tail) const {
        const std::lock_guard<std::mutex> hold(screens_lock);
        std::unique_ptr<hockeystick_c::Screen>& s = screens[{d, tail}];
        if (!s) s.reset(new hockeystick_c::Screen(tail));
        return *s;
    }

  private:
    mutable std::mutex screens_lock;
    mutable std::map<std::pair<std::size_t, double>, std::unique_ptr<hockeystick_c::Screen>> screens;
};

namespace hockeystick_c {

// The plain composition's certified brackets of a handle over its directions (pld.cpp), without the tilted reads
// hs_pld_epsilon_bracket and hs_pld_delta_bracket add where the round-off charge limits them: the grid brackets the
// refinements to an accuracy read (refine.cpp), whose own tilted reads size their tails to the delta asked.
std::pair<double, double> plain_epsilon_bracket(const hs_pld& p, double delta);
std::pair<double, double> plain_delta_bracket(const hs_pld& p, double epsilon);

// The package default's fixed-grid read of a handle (its step 1, python pld/accountants/fixed_grid.py's fixed_sides):
// the certified epsilon bracket at delta over every direction, none screened, and the add direction's (the second's)
// certified upper epsilon, which the default's fine read takes in place of that direction's screen (HUGE_VAL where the
// handle has one direction).
struct FixedGridEpsilon {
    std::pair<double, double> bracket;
    double add_upper;
};
FixedGridEpsilon fixed_grid_epsilon(const hs_pld& p, double delta);

// The certified epsilon bracket of `rounds` rounds of one Poisson-subsampled Gaussian (sigma, 0 < q < 1) at the
// default accuracy, as hs_subsampled_gaussian_epsilon reads it (refine.cpp: its refinement, tilted descent and the
// default's last reads, pld/refine/last_epsilon_reads.hpp), as the package's default: the run read of a handle of one
// kind.
std::pair<double, double> run_epsilon_bracket(double sigma, double q, long long rounds, double delta);

// The certified delta bracket of that run at epsilon at the default accuracy, as hs_subsampled_gaussian_delta reads it
// (refine.cpp): the run read of a handle of one kind.
std::pair<double, double> run_delta_bracket(double sigma, double q, long long rounds, double epsilon);

}  // namespace hockeystick_c
