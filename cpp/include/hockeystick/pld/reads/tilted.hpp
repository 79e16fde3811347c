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
// lowest loss (TiltedComposition::floor, raised where the untilt factor passes e^kTiltMaxExponent and to a least
// argument read where one is given); below it the read is trivial (1 on the upper side, 0 on the lower).  The
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
// the right side of the target, found by a bracketing search (upper_epsilon: pld/reads/epsilon_root_search.hpp's,
// Illinois false position on log delta, a bisection whenever two steps have not halved the interval; lower_epsilon:
// even steps from an upper epsilon down to the floor, the first that qualifies moved up by bisection, the lower side
// being no monotone curve).
//
// The Python package reads its tilted compositions and searches their epsilons through this header
// (cpp/bindings/register_pld_tilted_read.cpp, python pld/compose/tilted.py), so the package's and the C library's
// reads are one arithmetic.
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
#include "hockeystick/pld/reads/epsilon_root_search.hpp"
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

// A tilted window as its read takes it: its masses p[0, n) at grid indices k_lo, k_lo + 1, ... (read while the read
// is built, not kept: a window after many rounds holds millions of points), its grid step, its mass at +infinity, its
// shift (the charge of its truncation) and loss shift, and its round-off charges (charges_of's).
struct TiltedWindow {
    const double* p = nullptr;
    std::int64_t n = 0, k_lo = 0;
    double h = 0.0, p_inf = 0.0, shift = 0.0, loss_shift = 0.0;
    GridCharges charges;
};

// The read's view of a composed window (its masses referenced, not copied).
inline TiltedWindow tilted_window(const ComposedPMF& w) {
    return {w.p.data(),   static_cast<std::int64_t>(w.p.size()), w.k_lo, w.h, w.p_inf, w.shift, w.loss_shift,
            charges_of(w)};
}

// The composition of some factors computed under the tilt theta (the header's comment): the tilted window (a
// composed PMF with its charges: TiltedWindow), T log M (log_scale: sum of count x log M_i) and the sum of those terms' magnitudes
// (which bounds the rounding of that sum), the factors' composed mass at +infinity (rounded on the side) and the
// side; the untilted suffix sums from the floor up, built once.  `least_read` (where above -inf): no curve argument
// below it is read, so the suffix sums start at it rather than at the window's bottom (an epsilon search above a
// certified lower epsilon needs no more, and a window after many rounds reaches far below the answer).
class TiltedComposition {
  public:
    TiltedComposition(const TiltedWindow& window, double theta, double log_scale, double scale_magnitude, double p_inf,
                      bool pessimistic, CutMoments above = {},
                      double least_read = -std::numeric_limits<double>::infinity())
        : k_lo_(window.k_lo),
          n_(window.n),
          h_(window.h),
          window_inf_(window.p_inf),
          shift_(window.shift),
          loss_shift_(window.loss_shift),
          theta_(theta),
          log_scale_(log_scale),
          scale_magnitude_(scale_magnitude),
          p_inf_(p_inf),
          pessimistic_(pessimistic),
          charges_(window.charges),
          floor_index_(floor_index_of(least_read)),
          masses_(untilted_masses(window.p)),
          untilted_(masses_.data(), static_cast<std::int64_t>(masses_.size()), profile_start(), h_, 0.0),
          slack_(suffix_sum_slack(static_cast<std::int64_t>(masses_.size()))),
          above_(std::move(above)) {}

    TiltedComposition(const ComposedPMF& window, double theta, double log_scale, double scale_magnitude, double p_inf,
                      bool pessimistic, CutMoments above = {},
                      double least_read = -std::numeric_limits<double>::infinity())
        : TiltedComposition(tilted_window(window), theta, log_scale, scale_magnitude, p_inf, pessimistic,
                            std::move(above), least_read) {}

    double h() const { return h_; }
    bool pessimistic() const { return pessimistic_; }
    // Whether the window was cut short, its mass above charged by the Chernoff bound (CutMoments).
    bool cut_short() const { return !above_.lams.empty(); }
    // The count of the window's masses.
    std::int64_t points() const { return n_; }
    // The window's mass at +infinity (its cut mass on the pessimistic side), its loss shift and its tilt per grid step.
    double window_inf() const { return window_inf_; }
    double loss_shift() const { return loss_shift_; }
    double theta() const { return theta_; }

    // The least grid index read (an integer, held as a double: it may lie past the window's top, where every read
    // below it is trivial and above it only the mass at +infinity is left): the least whose untilt factor
    // e^{log_scale - theta K} stays below e^kTiltMaxExponent, at least floor(least_read / h) and the window's lowest.
    double floor_index() const { return floor_index_; }

    // The least curve argument read: the loss of floor_index().
    double floor() const { return floor_index_ * h_; }

    // floor_index() of the whole window (no least_read): the one a read from the window's bottom would have, known
    // without its suffix sums.
    double window_floor_index() const { return floor_index_of(-std::numeric_limits<double>::infinity()); }

    // The loss of window_floor_index(): floor() of the whole window.
    double window_floor() const { return window_floor_index() * h_; }

    // The relative slack of the untilted suffix sums (suffix_sum_slack of their count).
    double slack() const { return slack_; }

    // The least grid loss above the window (its mass there is cut: at +infinity on the pessimistic side).
    double cut() const { return static_cast<double>(k_lo_ + n_) * h_; }

    // A loss above every loss of the window (its last grid point's, one cell up, with the loss shift): above it only
    // the mass at +infinity is left, so an epsilon search need not start higher.
    double top() const { return static_cast<double>(k_lo_ + n_ + 1) * h_ + loss_shift_; }

    // An upper bound on e^{log_scale - theta K} over grid losses K h >= x (x >= floor()); 0 where theta x / h is
    // infinite (x infinite, or x / h past the doubles): there, as wherever the factor underflows, its products are
    // below the absolute kTiltTiny per entry a side adds (the product 0 x inf would be NaN).
    double untilt_factor(double x) const { return pld::untilt_factor(theta_ * (x / h_), log_scale_, scale_magnitude_); }

    // The certified delta on this side at the curve argument x (already moved by the loss shift): the untilted curve
    // raised (lowered) by its slack and by the untilt factor at x times the tilted window's round-off charge of the
    // weighted sum read at x (tilted_window_charge; twice on the lower side) and its truncated masses, plus the mass at +infinity; trivial (1 or 0) below floor().
    double side_at(double x) const {
        if (!(x >= floor())) return pessimistic_ ? 1.0 : 0.0;
        constexpr double u = tilted_detail::kUnit;
        const double raw = untilted_.delta(x);
        const double charge = tilted_window_charge(x, k_lo_, n_, h_, theta_, charges_);
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
                                     : untilt_factor(std::max(x, cut())) * window_inf_ * up;
            const double value =
                raw * (1.0 + slack_) + factor * (charge + std::fabs(shift_)) * up + above + p_inf_ + tiny;
            return std::min(1.0, value * up);
        }
        const double subtracted = factor * (2.0 * charge + std::fabs(shift_)) * up + tiny;
        double value = raw * (1.0 - slack_) * down - subtracted;
        value = value > 0.0 ? value * down : value * up;
        return std::max(0.0, value + p_inf_ * down);
    }

    // The certified delta on this side at eps: side_at of eps moved by the loss shift s (eps - s rounded down on the
    // upper side, eps + s rounded up on the lower one).
    double delta(double eps) const { return side_at(loss_shifted(eps, loss_shift_, !pessimistic_)); }

  private:
    // floor_index() (the lesser of two integers in doubles is exact; the window's lowest index where least is NaN or
    // below every integer).
    double floor_index_of(double least_read) const {
        double least = std::ceil((log_scale_ - kTiltMaxExponent) / theta_) + 1.0;
        if (least_read > -std::numeric_limits<double>::infinity()) least = std::max(least, std::floor(least_read / h_));
        return std::max(static_cast<double>(k_lo_), least);
    }

    // The grid index of the first untilted entry: floor_index_, or the window's top where it lies past it (no entry).
    std::int64_t profile_start() const {
        const std::int64_t top = k_lo_ + n_;
        return floor_index_ < static_cast<double>(top) ? static_cast<std::int64_t>(floor_index_) : top;
    }

    // The untilted window (its masses p) from floor_index_ up, each entry rounded outward on the side.
    std::vector<double> untilted_masses(const double* p) const {
        const std::int64_t first = profile_start();
        const std::int64_t start = first - k_lo_;
        const std::int64_t n = n_ - start;
        std::vector<double> out(static_cast<std::size_t>(n));
        if (n > 0)
            pld::untilted_masses(p + start, n, first, theta_, log_scale_, scale_magnitude_, pessimistic_, out.data());
        return out;
    }

    std::int64_t k_lo_, n_;
    double h_, window_inf_, shift_, loss_shift_;
    double theta_, log_scale_, scale_magnitude_, p_inf_;
    bool pessimistic_;
    GridCharges charges_;
    double floor_index_;
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

// A tilted composition's window held for more than one read (compose_tilted_held): the composed window under the tilt
// theta per grid step and what TiltedComposition reads it with; read(least) is the read from the curve argument
// `least` up (TiltedComposition's least_read), read() the whole window's.
struct HeldTilted {
    ComposedPMF window;
    double theta, log_scale, magnitude, p_inf;
    bool pessimistic;
    CutMoments above;

    TiltedComposition read(double least = -std::numeric_limits<double>::infinity()) const {
        return TiltedComposition(window, theta, log_scale, magnitude, p_inf, pessimistic, above, least);
    }
};

// The composition of `factors` (all on one grid and side, positive counts) computed under the tilt theta > 0 per grid
// step (lam = theta / h): each factor tilted (tilted_factor), composed by the certified composition (compose_many,
// `tail` its window's, direct bins where the charge reaches options.direct_min_charge, `max_points` its window's
// cap), and read untilted (TiltedComposition).  Where that window passes max_points and `window_tail` is > 0, the
// pessimistic side is composed again with a window whose tails are window_tail each, the mass above it charged by its
// Chernoff bound at the read's eps or the window's top (cut_moments, chernoff_above) and the mass below it not at all
// (every read is at or above the window).  The factors' mass at +infinity counts their round-off deficit on the
// pessimistic side (pld/grid/pmf_view.hpp's factor_view: a GridPMF of the core need not carry it, and where it does, as
// the package's factors do, the view adds nothing).  Throws std::invalid_argument (theta not finite and > 0, a tilted
// moment that overflows) or std::length_error (a window past max_points, not cut).
inline HeldTilted compose_tilted_held(const std::vector<CountedPmf>& factors, double theta, bool pessimistic,
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
        return {std::move(window.front()),
                theta,
                log_scale,
                magnitude,
                composed_infinity(infinity, pessimistic),
                pessimistic,
                {}};
    } catch (const std::length_error&) {
        if (!pessimistic || !(window_tail > 0.0)) throw;
    }
    std::vector<ComposedPMF> window = compose_many(views, h, {terms}, true, window_tail, max_points, fft, options);
    return {std::move(window.front()),         theta, log_scale,           magnitude,
            composed_infinity(infinity, true), true,  cut_moments(factors)};
}

// compose_tilted_held's window read whole.
inline TiltedComposition compose_tilted(const std::vector<CountedPmf>& factors, double theta, bool pessimistic,
                                        RealFftBackend& fft, std::int64_t max_points = kTiltMaxPoints,
                                        double tail = kDefaultCompositionTail, double window_tail = 0.0) {
    return compose_tilted_held(factors, theta, pessimistic, fft, max_points, tail, window_tail).read();
}

// A certified upper bound on epsilon(delta) in [0, start] (past it where the window is cut short and start is at its
// top) of a pessimistic tilted composition: an eps whose certified upper delta was checked at most delta, found by
// epsilon_root_search (no hints, one point a step) to 4 ulps of start (inf where not even start qualifies).  Throws
// std::invalid_argument where start qualifies and is below 0 (epsilon_root_search's top).
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
    EpsilonSearchQuestion q;
    q.target = delta;
    q.upper = true;
    q.top = start;
    q.tolerance = 4.0 * epsilon_search_detail::ulp(start);
    return epsilon_root_search(
        [&](const std::vector<double>& points, std::vector<double>& values) {
            for (std::size_t i = 0; i < points.size(); ++i) values[i] = c.delta(points[i]);
        },
        q);
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
