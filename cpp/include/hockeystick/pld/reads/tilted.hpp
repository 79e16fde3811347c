// Composition under an exponential tilt: the hockey-stick curve of a long composition read far out in its tail with
// a round-off charge relative to the curve rather than to the total mass (python/hockeystick/pld/compose/tilted.py,
// whose docstring this header follows step for step).
//
// The FFT composition's round-off is bounded normwise (pld/compose/compose.hpp: an absolute error E of the order of
// u times the composition depth, per unit of total mass), so no delta much below E can be read tightly from it.
// Convolution commutes with exponential tilting (Keich, "sFFT: a faster accurate computation of the p-value of the
// entropy score", J. Comput. Biol. 12, 2005; Wilson & Keich, 2016): for a factor's masses p_k at losses k h, any
// theta > 0 and any positive normalizer M (near sum_k p_k e^{theta k}, so the tilted masses sum to about 1),
//
//     p~_k = p_k e^{theta k} / M,        P_T(K) = M^T e^{-theta K} P~_T(K)                              (1)
//
// exactly, P_T and P~_T the T-fold compositions (several factors: the product of their M_i^{c_i}).  Composing p~
// with the certified composition (compose_many) and untilting by (1), an error e~_K of the tilted window becomes
// M^T e^{-theta K} e~_K, so on
//
//     delta(eps) = sum_{K h > eps} (1 - e^{eps - K h}) P_T(K) + p_inf
//
// it adds at most M^T e^{-theta eps / h} times the tilted window's charge of a weighted sum of its masses, the
// weights (1 - e^{eps - K h}) e^{-theta (K - eps / h)} in [0, 1] over K h > eps (tilted_window_charge,
// pld/reads/tilted_charge.hpp): E times the Chernoff bound at theta, a relative error.  The weights fall
// geometrically, so their sum and Euclidean norm, bounded in closed form, lie far below the count of masses above
// eps and its square root (every mass at weight 1, charge_at_argument's; the lesser is kept).  The tilted window's
// truncation is charged the same way: the mass folded into the window from outside (the optimistic side's negative
// shift) is a tilted mass at a loss above eps where it counts, so it adds at most M^T e^{-theta eps / h} times
// itself; the pessimistic side's mass moved to +infinity lies above the window (at grid losses from
// TiltedComposition::cut up), so it adds at most M^T e^{-theta max(eps, cut) / h} times itself, or below it (folded
// above it by the circular convolution), where it adds nothing to a read.  The mass below the window
// is unknown after untilting (there e^{-theta K} is large), so a read is valid only at eps at or above the window's
// lowest loss (TiltedComposition::floor); below it the read is trivial (1 on the upper side, 0 on the lower).  The
// factors' mass at +infinity is not tilted: it composes as 1 - prod (1 - p_inf,i)^{c_i}, added rounded outward
// (upper side) or inward (lower side).  The factors' discretization and truncation keep their meaning (the tilt
// changes only how the composition of the same measures is computed), and so does their loss shift s: the curve is
// read at eps - s (upper) or eps + s (lower), rounded outward (loss_shifted).
//
// Rounding outward.  The tilted masses and the untilted entries are those of pld/compose/tilted_masses.hpp, rounded
// outward there (its comment: libm's exp and log inside a relative margin).  The untilted entries' suffix sums carry
// suffix_sum_slack as any grid's; the products that may underflow are covered by an absolute kTiltTiny per entry.
//
// upper_epsilon and lower_epsilon invert a side: a certified epsilon is one whose certified delta was evaluated on
// the right side of the target, found by a bracketing search (python pld/compose/atoms_epsilon.py's epsilon_search:
// Illinois false position on log delta, a bisection whenever two steps have not halved the interval).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hockeystick/pld/compose/compose.hpp"
#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/pld/compose/options.hpp"
#include "hockeystick/pld/compose/tilted_masses.hpp"
#include "hockeystick/pld/grid/grid_pmf.hpp"
#include "hockeystick/pld/grid/tilt_ladders.hpp"
#include "hockeystick/pld/reads/charged_curve.hpp"
#include "hockeystick/pld/reads/cut_window_mass.hpp"
#include "hockeystick/pld/reads/epsilon_bracket.hpp"
#include "hockeystick/pld/reads/hockey_stick.hpp"
#include "hockeystick/pld/reads/tilted_charge.hpp"

namespace hockeystick {
namespace pld {

// Exponents beyond this are not formed: untilted entries whose factor would exceed e^kTiltMaxExponent lie below
// every eps that can be read (TiltedComposition::floor).
constexpr double kTiltMaxExponent = 700.0;
// The absolute error of a product that underflows, per entry (2^-1074, the least subnormal, with room).
constexpr double kTiltTiny = 0x1p-1060;
// The widest tilted window composed by default: beyond it a tilted read costs more than its grid is worth.
constexpr std::int64_t kTiltMaxPoints = std::int64_t(1) << 22;
// How far past a cut window's top upper_epsilon looks for its start: the window's span, doubled this many times.
constexpr int kCutDoublings = 6;

namespace tilted_detail {
constexpr double kUnit = 0x1p-53;  // u
}  // namespace tilted_detail

// 1 - prod_i (1 - p_inf,i)^{c_i} over (p_inf, count) pairs, rounded up (`pessimistic`) or down by a relative 1e-12
// (far above the few roundings of log1p, the products and expm1).
inline double composed_infinity(const std::vector<std::pair<double, std::int64_t>>& masses, bool pessimistic) {
    double log_kept = 0.0;
    for (const auto& [p_inf, count] : masses)
        if (p_inf > 0.0) log_kept += static_cast<double>(count) * std::log1p(-p_inf);
    const double mass = -std::expm1(log_kept);
    return pessimistic ? std::min(1.0, mass * (1.0 + 1e-12)) : std::max(0.0, mass * (1.0 - 1e-12));
}

// The tilts lam (per unit loss) and the factors' summed log-moments K(lam) (raised) of the Chernoff bound on the mass
// above a window cut short (pld/reads/cut_window_mass.hpp); empty where the window is whole.
struct CutMoments {
    std::vector<double> lams, k;
};

// The composition of some factors computed under the tilt theta (the header's comment): the tilted window (a
// composed PMF with its charges), T log M (log_scale: sum of count x log M_i) and the sum of those terms' magnitudes
// (which bounds the rounding of that sum), the factors' composed mass at +infinity (rounded on the side) and the
// side; the untilted suffix sums from the floor up, built once.
class TiltedComposition {
  public:
    TiltedComposition(ComposedPMF window, double theta, double log_scale, double scale_magnitude, double p_inf,
                      bool pessimistic, CutMoments above = {})
        : window_(std::move(window)),
          theta_(theta),
          log_scale_(log_scale),
          scale_magnitude_(scale_magnitude),
          p_inf_(p_inf),
          pessimistic_(pessimistic),
          charges_(charges_of(window_)),
          floor_index_(floor_index_of()),
          masses_(untilted_masses()),
          untilted_(masses_.data(), static_cast<std::int64_t>(masses_.size()), floor_index_, window_.h, 0.0),
          slack_(suffix_sum_slack(static_cast<std::int64_t>(masses_.size()))),
          above_(std::move(above)) {}

    double h() const { return window_.h; }
    bool pessimistic() const { return pessimistic_; }
    // Whether the window was cut short, its mass above charged by the Chernoff bound (CutMoments).
    bool cut_short() const { return !above_.lams.empty(); }
    const ComposedPMF& window() const { return window_; }

    // The least curve argument read: the loss of the least grid index whose untilt factor e^{log_scale - theta K}
    // stays below e^kTiltMaxExponent, at least the window's lowest.
    double floor() const { return static_cast<double>(floor_index_) * window_.h; }

    // The least grid loss above the window (its mass there is cut: at +infinity on the pessimistic side).
    double cut() const {
        return static_cast<double>(window_.k_lo + static_cast<std::int64_t>(window_.p.size())) * window_.h;
    }

    // A loss above every loss of the window (its last grid point's, one cell up, with the loss shift): above it only
    // the mass at +infinity is left, so an epsilon search need not start higher.
    double top() const {
        return static_cast<double>(window_.k_lo + static_cast<std::int64_t>(window_.p.size()) + 1) * window_.h +
               window_.loss_shift;
    }

    // An upper bound on e^{log_scale - theta K} over grid losses K h >= x (x >= floor()); 0 where theta x / h is
    // infinite (x infinite, or x / h past the doubles): there, as wherever the factor underflows, its products are
    // below the absolute kTiltTiny per entry a side adds (the product 0 x inf would be NaN).
    double untilt_factor(double x) const {
        return pld::untilt_factor(theta_ * (x / window_.h), log_scale_, scale_magnitude_);
    }

    // The certified delta on this side at the curve argument x (already moved by the loss shift): the untilted curve
    // raised (lowered) by its slack and by the untilt factor at x times the tilted window's round-off charge of the
    // weighted sum read at x (tilted_window_charge; twice on the lower side) and its truncated masses, plus the mass at +infinity; trivial (1 or 0) below floor().
    double side_at(double x) const {
        if (!(x >= floor())) return pessimistic_ ? 1.0 : 0.0;
        constexpr double u = tilted_detail::kUnit;
        const double raw = untilted_.delta(x);
        const double charge = tilted_window_charge(x, window_.k_lo, static_cast<std::int64_t>(window_.p.size()),
                                                   window_.h, theta_, charges_);
        const double factor = untilt_factor(x);
        const double tiny = (static_cast<double>(masses_.size()) + 8.0) * kTiltTiny;
        const double up = 1.0 + 8.0 * u, down = 1.0 - 8.0 * u;
        if (pessimistic_) {
            // a window cut short: its mass above, bounded untilted at max(x, cut()) (chernoff_above); else its mass
            // at +inf, at losses >= cut() (or below the window: below every read, no delta there), untilted by at
            // most the factor at cut()
            const double above = cut_short()
                                     ? chernoff_above(above_.lams.data(), above_.k.data(),
                                                      static_cast<std::int64_t>(above_.lams.size()), std::max(x, cut()))
                                     : untilt_factor(std::max(x, cut())) * window_.p_inf * up;
            const double value =
                raw * (1.0 + slack_) + factor * (charge + std::fabs(window_.shift)) * up + above + p_inf_ + tiny;
            return std::min(1.0, value * up);
        }
        const double subtracted = factor * (2.0 * charge + std::fabs(window_.shift)) * up + tiny;
        double value = raw * (1.0 - slack_) * down - subtracted;
        value = value > 0.0 ? value * down : value * up;
        return std::max(0.0, value + p_inf_ * down);
    }

    // The certified delta on this side at eps: side_at of eps moved by the loss shift s (eps - s rounded down on the
    // upper side, eps + s rounded up on the lower one).
    double delta(double eps) const { return side_at(loss_shifted(eps, window_.loss_shift, !pessimistic_)); }

  private:
    std::int64_t floor_index_of() const {
        const double n = static_cast<double>(window_.p.size());
        const double least = std::ceil((log_scale_ - kTiltMaxExponent) / theta_) + 1.0;
        const double lowest = static_cast<double>(window_.k_lo);
        // past the window's top: no entry is read (every argument below floor() is trivial, above it only p_inf)
        if (!(least <= lowest + n)) return window_.k_lo + static_cast<std::int64_t>(window_.p.size());
        if (!(least > lowest)) return window_.k_lo;  // (also where least is below the integers' range)
        return static_cast<std::int64_t>(least);
    }

    // The untilted window from floor_index_ up, each entry rounded outward on the side.
    std::vector<double> untilted_masses() const {
        const std::int64_t start = floor_index_ - window_.k_lo;
        const std::int64_t n = static_cast<std::int64_t>(window_.p.size()) - start;
        std::vector<double> out(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
        if (n > 0)
            pld::untilted_masses(window_.p.data() + start, n, floor_index_, theta_, log_scale_, scale_magnitude_,
                                 pessimistic_, out.data());
        return out;
    }

    ComposedPMF window_;
    double theta_, log_scale_, scale_magnitude_, p_inf_;
    bool pessimistic_;
    GridCharges charges_;
    std::int64_t floor_index_;
    std::vector<double> masses_;
    GridProfile untilted_;
    double slack_;
    CutMoments above_;
};

// One factor of a composition and its count.
struct CountedPmf {
    const GridPMF* pmf = nullptr;
    std::int64_t count = 0;
};

// The cut window's Chernoff moments of `factors` (one grid): the tilts above_rung(i) / h and K(lam) = sum_i c_i
// log sum_k p_ik e^{lam l_k} there (grid_log_mgf, rounded up; summed_log_moments).
inline CutMoments cut_moments(const std::vector<CountedPmf>& factors) {
    const double h = factors.front().pmf->h;
    CutMoments out;
    for (int i = 0; i < kAboveLadder; ++i) out.lams.push_back(above_rung(i) / h);
    const std::int64_t m = kAboveLadder;
    std::vector<double> terms(factors.size() * static_cast<std::size_t>(m));
    for (std::size_t f = 0; f < factors.size(); ++f) {
        const GridPMF& pmf = *factors[f].pmf;
        double* row = terms.data() + f * static_cast<std::size_t>(m);
        grid_log_mgf(pmf.p.data(), static_cast<std::int64_t>(pmf.p.size()), pmf.k_lo, pmf.h, out.lams.data(), m, row);
        for (std::int64_t j = 0; j < m; ++j) row[j] = static_cast<double>(factors[f].count) * row[j];
    }
    out.k.assign(static_cast<std::size_t>(m), 0.0);
    summed_log_moments(terms.data(), static_cast<std::int64_t>(factors.size()), m, out.k.data());
    return out;
}

// The composition of `factors` (all on one grid and side, positive counts) computed under the tilt theta > 0 per grid
// step (lam = theta / h): each factor tilted (tilted_factor), composed by the certified composition (compose_many,
// `tail` its window's, direct bins where the charge reaches options.direct_min_charge, `max_points` its window's
// cap), and read untilted (TiltedComposition).  Where that window passes max_points and `window_tail` is > 0, the
// pessimistic side is composed again with a window whose tails are window_tail each, the mass above it charged by its
// Chernoff bound at the read's eps or the window's top (cut_moments, chernoff_above) and the mass below it not at all
// (every read is at or above the window).  The factors' mass at +infinity counts their round-off deficit on the
// pessimistic side (factor_view).  Throws std::invalid_argument (theta not finite and > 0, a tilted moment that
// overflows) or std::length_error (a window past max_points, not cut).
inline TiltedComposition compose_tilted(const std::vector<CountedPmf>& factors, double theta, bool pessimistic,
                                        RealFftBackend& fft, std::int64_t max_points = kTiltMaxPoints,
                                        double tail = kDefaultCompositionTail, double window_tail = 0.0) {
    if (!(std::isfinite(theta) && theta > 0.0))
        throw std::invalid_argument("compose_tilted: theta must be a finite number > 0 (the tilt per grid step)");
    if (factors.empty()) throw std::invalid_argument("compose_tilted: no factor");
    std::vector<TiltedFactor> tilted;
    tilted.reserve(factors.size());
    std::vector<PmfView> views;
    std::vector<Term> terms;
    std::vector<std::pair<double, std::int64_t>> infinity;
    double log_scale = 0.0, magnitude = 0.0;
    for (const CountedPmf& f : factors) {
        tilted.push_back(tilted_factor(*f.pmf, theta, pessimistic));
        const double scaled = static_cast<double>(f.count) * tilted.back().log_m;
        log_scale += scaled;
        magnitude += std::fabs(scaled);
        infinity.emplace_back(factor_view(*f.pmf, pessimistic).p_inf, f.count);
    }
    for (std::size_t i = 0; i < tilted.size(); ++i) {
        const GridPMF& t = tilted[i].pmf;
        views.push_back({t.p.data(), static_cast<std::int64_t>(t.p.size()), t.k_lo, 0.0, t.loss_shift});
        terms.push_back({static_cast<std::int64_t>(i), factors[i].count});
    }
    ComposeOptions options;
    options.direct_bins = true;
    options.threads = 1;
    const double h = tilted.front().pmf.h;
    try {
        std::vector<ComposedPMF> window = compose_many(views, h, {terms}, pessimistic, tail, max_points, fft, options);
        return TiltedComposition(std::move(window.front()), theta, log_scale, magnitude,
                                 composed_infinity(infinity, pessimistic), pessimistic);
    } catch (const std::length_error&) {
        if (!pessimistic || !(window_tail > 0.0)) throw;
    }
    std::vector<ComposedPMF> window = compose_many(views, h, {terms}, true, window_tail, max_points, fft, options);
    return TiltedComposition(std::move(window.front()), theta, log_scale, magnitude, composed_infinity(infinity, true),
                             true, cut_moments(factors));
}

namespace tilted_detail {

// g = log delta - log target (delta floored at 1e-300): nearly linear in eps, where the false position aims.
inline double log_gap(double value, double log_target) { return std::log(std::max(value, 1e-300)) - log_target; }

// lo with delta(lo) > target and hi with delta(hi) <= target, both evaluated, with g (log_gap) at each; `kept` is -1
// where the last step moved lo, +1 where it moved hi (Illinois: a side moved twice in a row halves the other's g).
struct SearchBracket {
    double lo, hi, g_lo, g_hi;
    int kept = 0;

    // The false position of g = 0 on (lo, hi); the midpoint where g does not fall across it.
    double false_position() const { return g_hi < g_lo ? hi - g_hi * (hi - lo) / (g_hi - g_lo) : 0.5 * (lo + hi); }

    // x (its g) becomes lo where its delta is above the target, else hi; then the Illinois halving.
    void move(double x, double g, bool above) {
        if (above) {
            lo = x;
            g_lo = g;
            if (kept == -1) g_hi *= 0.5;
            kept = -1;
        } else {
            hi = x;
            g_hi = g;
            if (kept == 1) g_lo *= 0.5;
            kept = 1;
        }
    }
};

// The next point of the search on b, within (lo, hi) and a quarter tolerance from either end where there is room:
// the false position, a bisection on every third step where the two before have not halved the interval.
inline double next_point(const SearchBracket& b, int steps, double& width_before, double tolerance) {
    double x = b.false_position();
    if (steps % 3 == 0) {
        if (b.hi - b.lo > 0.5 * width_before) x = 0.5 * (b.lo + b.hi);
        width_before = b.hi - b.lo;
    }
    const double margin = 0.25 * tolerance;
    x = std::min(std::max(x, b.lo + margin), b.hi - margin);
    return x > b.lo && x < b.hi ? x : 0.5 * (b.lo + b.hi);
}

}  // namespace tilted_detail

// A certified epsilon from the certified side delta_of (a callable double -> double) of one composition, by a
// bracketing search from lo = 0 and hi = top (python atoms_epsilon.epsilon_search without hints): it keeps lo with
// delta_of(lo) > target and hi with delta_of(hi) <= target, both evaluated, and narrows them by Illinois false
// position on log delta, bisecting whenever two steps have not halved the interval, until hi - lo <=
// max(tolerance, 4 ulp(hi)).  Upper side: hi (inf where even top fails, 0 where 0 meets the target); lower side: lo
// (top where top still exceeds the target).  Neither needs the computed side to be monotone.
template <class DeltaOf>
double epsilon_search(DeltaOf&& delta_of, double target, bool upper, double top, double tolerance) {
    const double inf = std::numeric_limits<double>::infinity();
    const double v_lo = delta_of(0.0), v_hi = delta_of(top);
    if (upper && v_hi > target) return inf;
    if (v_lo <= target) return 0.0;
    if (!upper && v_hi > target) return top;
    const double log_target = std::log(target);
    tilted_detail::SearchBracket b{0.0, top, tilted_detail::log_gap(v_lo, log_target),
                                   tilted_detail::log_gap(v_hi, log_target)};
    double width_before = b.hi - b.lo;
    for (int steps = 1; b.hi - b.lo > std::max(tolerance, 4.0 * (std::nextafter(b.hi, inf) - b.hi)); ++steps) {
        const double x = tilted_detail::next_point(b, steps, width_before, tolerance);
        if (!(x > b.lo && x < b.hi)) break;  // adjacent doubles: nothing lies between
        const double value = delta_of(x);
        b.move(x, tilted_detail::log_gap(value, log_target), value > target);
    }
    return upper ? b.hi : b.lo;
}

// A certified upper bound on epsilon(delta) in [0, start] (past it where the window is cut short and start is at its
// top) of a pessimistic tilted composition: an eps whose certified upper delta was checked at most delta, found to
// the doubles' spacing (inf where not even start qualifies).
inline double upper_epsilon(const TiltedComposition& c, double delta, double start) {
    if (!c.pessimistic()) throw std::invalid_argument("upper_epsilon needs the pessimistic side's composition");
    if (c.cut_short() && std::isfinite(start) && start >= c.top()) {
        // a window cut short: past its top the curve is the cut mass's Chernoff bound, read out to where it meets
        // delta (the window's span doubled at most kCutDoublings times)
        double span = std::max(c.top() - c.floor(), c.h());
        for (int i = 0; i < kCutDoublings && c.delta(start) > delta; ++i) {
            start += span;
            span *= 2.0;
        }
    }
    if (!(std::isfinite(start) && c.delta(start) <= delta)) return std::numeric_limits<double>::infinity();
    const double ulp = std::nextafter(start, std::numeric_limits<double>::infinity()) - start;
    return epsilon_search([&](double x) { return c.delta(x); }, delta, true, start, 4.0 * ulp);
}

// A certified lower bound on epsilon(delta), at least `start`, of an optimistic tilted composition: the largest eps
// found whose certified lower delta exceeds delta (delta falls with eps, so delta(e) > delta for every e below it),
// `start` where none is.  The lower side is no monotone curve: far below the tilt's centre the untilt factor times
// the charge exceeds the curve and the side is 0.  So the eps from `near` (an upper epsilon) down to the read's floor
// are tried at `points` even steps, from the top, and the first that qualifies is moved up by bisection towards the
// step above it (`steps` halvings at most).
inline double lower_epsilon(const TiltedComposition& c, double delta, double near, double start = 0.0, int points = 64,
                            int steps = 60) {
    if (c.pessimistic()) throw std::invalid_argument("lower_epsilon needs the optimistic side's composition");
    const double top = c.top(), floor = c.floor();
    if (!(std::isfinite(near) && near > floor)) return start;
    double low = 0.0, high = 0.0;
    bool found = false;
    for (int i = 0; i <= points; ++i) {
        const double x = near - (near - floor) * static_cast<double>(i) / static_cast<double>(points);
        if (c.delta(x) > delta) {
            low = x;
            high = i == 0 ? top : near - (near - floor) * static_cast<double>(i - 1) / static_cast<double>(points);
            found = true;
            break;
        }
    }
    if (!found) return start;
    for (int s = 0; s < steps; ++s) {
        const double mid = 0.5 * (low + high);
        if (!(low < mid && mid < high)) break;
        if (c.delta(mid) > delta)
            low = mid;
        else
            high = mid;
    }
    return std::max(start, low);
}

}  // namespace pld
}  // namespace hockeystick
