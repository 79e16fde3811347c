// The certified upper epsilon and delta of a composed PMF read from its spectrum, without the inverse transform,
// and the certified lower ones of an optimistic composition ("Lower side" below).
//
// After many rounds the composed spectrum Y = prod_i X_i^c_i keeps only K live bins of m / 2 + 1
// (pld/compose/compose.hpp's dropped bins): 26-37 of 1921-55297 for sigma 0.5-5, q 0.01, 10^4 rounds at
// h = 1e-3 (W4).  The composed PMF is then the window of
//
//   y_n = (1/m) [Re Y_0 + 2 sum_{k=1}^{K-1} Re(Y_k w^{k n})],   w = e^{2 pi i / m}      (irfft, K <= m/4)
//
// at circular positions n = start + j, j = 0 .. W-1 (grid index k_lo + j), and the two suffix sums
// the hockey-stick curve needs (pld/reads/hockey_stick.hpp's GridProfile), over the points j >= J,
//
//   A_J = sum_{j>=J} y_j,   R_J = sum_{j>=J} e^{-(j-J) h} y_j,   D_J = A_J - R_J,
//
// are geometric sums in n: with L = W - J points, N_0 = start + J, a_k = w^{k N_0} and
// b_k = w^{k (start + W)},
//
//   A_J = (1/m) [L Re Y_0 + 2 sum_k Re(Y_k g_k (a_k - b_k))],          g_k = 1 / (1 - w^k) = (1 + i cot(pi k / m)) / 2,
//   R_J = (1/m) [Re Y_0 (1 - r^L) / (1 - r) + 2 sum_k Re(Y_k q_k (a_k - r^L b_k))],   q_k = 1 / (1 - r w^k),
//
// r = e^{-h}: O(K) per threshold J instead of an inverse transform of length m and a scan of the
// window.  The smallest grid threshold where the charged curve meets the target is found by a search that
// keeps a bisection's invariant (a threshold above the target below one that meets it: detail::crossing, its
// probes placed by interpolating log delta, about a dozen thresholds where a bisection takes log2 W ~ 17) and
// the curve inverted in its interval exactly as charged_epsilon does (pld/reads/hockey_stick.hpp).  A search on a
// curve off by its round-off may stop at another threshold than the exact scan would, never at one where the
// charged upper curve exceeds the target, so the answer is certified, and within the round-off of the scan's.  A delta at
// eps is one threshold (the first grid point at or above eps), as pld/reads/charged_curve.hpp's charged_side, with
// that step's own rounding added and the sum rounded up; an epsilon is then raised, where needed, until the
// delta read at it meets the target, so delta(epsilon(t)) <= t.
//
// Round-off.  The sums run in long double where it carries its full precision on the calling thread
// (full_long_double_precision: x86-64's 64-bit significand; a long double that is double elsewhere), else in
// double; v is that type's unit round-off (2^-64 or 2^-53), u = 2^-53 the rounding of the results to double.
// Against the same formulas in exact arithmetic on the same Y (|fl(xy) - xy| <= sqrt(5) v |x||y| for
// complex products, Brent, Percival, Zimmermann 2007; sin, cos, exp, expm1 within 3 ulps = 6 v):
//   a_k = a_{k-1} z, z = w^{N_0} from sin and cos of an angle |phi| <= pi / 4 (twiddle: within 3.01 v pi / 4)
//     turned by quarter turns: |z - w^{N_0}| <= 22 v, so |a_k - w^{k N_0}| <= 25 k v;
//   b_k = b_{k-1} w^{start + W} the same way: within 25 k v; r^L = exp(-h L) within 3 v absolute (h L v e^{-hL} + 2 v);
//   g_k from cot(x), x = pi k / m <= pi/4: within 30 v |g_k| (the angle's 3.01 v x moves cot by
//     3.01 v x / sin^2 x <= 3.73 v |g_k|, cos / sin 13 v |cot|, |cot| <= 2 |g_k|);
//   q_k = 1 / (a - i c) = (a + i c) / (a^2 + c^2), a = (1 - r) + 2 r sin^2 x > 0, c = 2 r sin x cos x (no
//     cancellation; a within 28 v, c within 27 v, relative): a^2 + c^2 within 58 v, each part within 87 v,
//     so within 87 v |q_k|;
//   Y_k g_k and Y_k q_k formed once per item: within 33 v |Y_k||g_k| and 90 v |Y_k||q_k|;
//   each term Re(t Yg), t = a_k - b_k (|t| <= 2): within |Y_k||g_k| (50 k + 75) v, and with r^L b_k
//   within |Y_k||q_k| (50 k + 217) v, whether t is formed first or the terms of a_k and of b_k are summed
//   apart (as here: the b_k sums, the same at every threshold, once per item, r^L times the second: its
//   3 v and one rounding per term are within the allowance); the sum of K + 1 terms (K + 2) v of the sum of their moduli,
//   the k = 0 terms' (1 - r^L) / (1 - r) within 15 v, the division by m v; D = A - R formed before
//   rounding (v (|A| + |R|)), then each result rounded to double (u of it).
// The bound adds these and doubles them for the second-order terms: in long double 1.6e-17 to 1.1e-16 on
// W4-like items (26-44 bins), the rounding to double dominating it; the largest error measured is 0.32 of
// the bound (tests/test_pld_spectral_profile.py's compositions).  In double it is 3e-14 to 5e-14
// there, above the inverse transform's charge it replaces, so compose_many reads spectra only where long
// double has its 64 bits (kLongPower and full precision).
// Beside the charges of the composition (the computed Y against the true spectrum: entry_error,
// total_error, spectral_l2 of ComposedPMF, without the inverse transform's, since none runs), D and R are
// raised by their bound before the curve is compared (both enter it with non-negative weights).
//
// Lower side.  The optimistic composition's charged lower curve on its window (pld/reads/charged_curve.hpp's
// charged_side and ChargedGridCurve; pld/reads/epsilon_bracket.hpp's charged_lower_epsilon) is
//   L(e) = max(0, raw(e) (1 - slack) + shift - 2 charge(points above e)),   raw(e) = D_k + w R_k + p_inf,
// w = -expm1(e - l_k) in [0, 1].  Read from the spectrum, D and R are the sums over the window of the exact
// inverse y of the composed spectrum, each within its bound above, so for every w in [0, 1]
//   D_y + w R_y >= (D - D_error) + w (R - R_error):
// the same sums with their bounds subtracted, the step's own rounding (as on the upper side) subtracted too,
// and no suffix sums (slack 0).  The charges are the composition's without the inverse transform's (none
// ran), subtracted twice as on the window (there for the entries clipped at 0; y is read unclipped here, which
// only lowers the sums, so once would do: the same curve keeps the two reads comparable), the shift (the cut
// tails, <= 0) added, the sum lowered by 4 u of its terms' magnitudes and clipped at 0; the argument is moved
// up by the loss shift and every epsilon down (loss_shifted).  A delta at eps is that value at eps, raised to
// the largest such value at a few grid points above it (k, k + 1, k + 3, ...: delta does not rise with eps,
// so a lower bound at any eps' >= eps bounds delta(eps); the window's suffix maxima, ChargedGridCurve, take
// every grid point).  An epsilon is the window scan's inversion (charged_lower_epsilon) at a grid point k
// where L(l_k) > target and L(l_{k+1}) <= target found by detail::crossing: every such k gives a certified lower
// bound (the true curve exceeds the target up to l_k and, in (l_k, l_{k+1}], up to the inverted point), and
// where L falls with k, as it does wherever the target stands above the charges, it is the scan's k, the
// highest.  In the interval the lowered R, where below 0, is moved into D (D + R <= D + w R for w in [0, 1]),
// so the inversion sees R >= 0, and a D + p_inf below 0 (sums within their round-off of 0) keeps the grid
// point.  So each lower value lies at or below the true one; against the window's lower read it is never
// higher by more than the sums' round-off bound and twice the inverse transform's charge (which the window
// carries and this read does not), and lower by at most what the window's clip at 0 adds (y's entries below
// 0, within one charge: an epsilon 4.7e-5 lower at delta 1e-9 on 10^4 rounds of sigma 0.8, q 0.01, h 1e-3,
// 1.7e-9 lower at delta 1e-5 on 14,100 rounds of sigma 1.1, q 256 / 60000, h 1e-4).
//
// Domain: 1 <= K <= m / 4 (spectral_bins_fit), W >= 1; the caller falls back to the inverse transform
// elsewhere.  tests/test_pld_spectral_profile.py checks A and R against long-double sums of the
// exact inverse over the window, and the values against the composed window's and exact Gaussian ones;
// tests/test_pld_spectral_lower.py the lower side's.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "hockeystick/pld/compose/composed_spectrum.hpp"
#include "hockeystick/pld/compose/direct_spectrum.hpp"
#include "hockeystick/pld/reads/charged_curve.hpp"
#include "hockeystick/pld/reads/hockey_stick.hpp"

namespace hockeystick {
namespace pld {

// A_J, R_J, D_J (opening comment) with bounds on the error of R and of D.
struct SpectralSums {
    double A = 0.0, R = 0.0, D = 0.0, R_error = 0.0, D_error = 0.0;
};

namespace detail {
// g_k and q_k of the opening comment for one transform length m and grid h, in working type T, with their moduli
// (which only scale the bound: |g_k| = 1 / (2 sin x), |q_k| = 1 / sqrt(a^2 + c^2)).  They depend on (m, h, k)
// alone, so the last few (m, h) read on a thread are kept: a run's checkpoints are read on a few lengths
// (compose_many's shared_transform), and each entry is what a fresh computation gives, bit for bit.
template <class T>
struct BinFactors {
    std::int64_t m = 0;
    double h = 0.0;
    std::vector<std::complex<T>> g{{0, 0}}, q{{0, 0}};  // k = 0 unused
    std::vector<double> g_mod{0.0}, q_mod{0.0};

    // Entries up to k = K - 1.
    void extend(std::int64_t K) {
        const T pi = static_cast<T>(3.141592653589793238462643383279502884L);
        const T r = std::exp(-static_cast<T>(h)), one_minus_r = -std::expm1(-static_cast<T>(h));
        for (std::int64_t k = static_cast<std::int64_t>(g.size()); k < K; ++k) {
            const T x = pi * static_cast<T>(k) / static_cast<T>(m);
            const T s1 = std::sin(x), c1 = std::cos(x), s2 = 2 * s1 * c1;  // sin 2x, without libm's reduction
            // q = 1 / (a - i c) = (a + i c) / (a^2 + c^2), a > 0: no complex division routine (__divxc3)
            const T a = one_minus_r + 2 * r * s1 * s1, c = r * s2, a2c2 = a * a + c * c;
            g.emplace_back(T(0.5), T(0.5) * (c1 / s1));
            q.emplace_back(a / a2c2, c / a2c2);
            g_mod.push_back(static_cast<double>(T(0.5) / s1));
            q_mod.push_back(static_cast<double>(1 / std::sqrt(a2c2)));
        }
    }
};

template <class T>
const BinFactors<T>& bin_factors(std::int64_t m, double h, std::int64_t K) {
    constexpr std::size_t kept = 4;
    thread_local std::vector<BinFactors<T>> slots(kept);
    thread_local std::size_t next = 0;
    for (BinFactors<T>& f : slots)
        if (f.m == m && f.h == h) {
            f.extend(K);
            return f;
        }
    BinFactors<T>& f = slots[next];
    next = (next + 1) % kept;
    f = BinFactors<T>{};
    f.m = m;
    f.h = h;
    f.extend(K);
    return f;
}

// The sums of the opening comment in working type T (long double or double), v its unit round-off.  The terms
// of b_k, which do not depend on the threshold, are summed once: sum_k Re(b_k Y_k g_k) and sum_k Re(b_k Y_k q_k),
// subtracted from the sums of a_k's terms at each threshold (the same terms summed apart; the bound covers both).
template <class T>
class SpectralSumsIn {
  public:
    explicit SpectralSumsIn(const ComposedSpectrum& s) : m_(s.m), start_(s.start), width_(s.width), h_(s.h) {
        const std::int64_t K = static_cast<std::int64_t>(s.bins.size());
        one_minus_r_ = -std::expm1(-static_cast<T>(s.h));
        y0_ = s.bins.empty() ? 0.0 : s.bins[0].real();
        yg_.reserve(static_cast<std::size_t>(std::max<std::int64_t>(K, 1)));  // filled below, not zeroed first
        yq_.reserve(static_cast<std::size_t>(std::max<std::int64_t>(K, 1)));
        yg_.emplace_back(0, 0);  // k = 0 unused
        yq_.emplace_back(0, 0);
        const BinFactors<T>& f = bin_factors<T>(s.m, s.h, K);
        const std::complex<T> zb = twiddle((s.start + s.width) % s.m, s.m);
        T br = 1, bi = 0;
        for (std::int64_t k = 1; k < K; ++k) {
            // the products written out (std::complex's operator* calls __mulxc3: at()'s comment)
            const T yr = s.bins[k].real(), yi = s.bins[k].imag();
            const T gr = f.g[k].real(), gi = f.g[k].imag(), qr = f.q[k].real(), qi = f.q[k].imag();
            yg_.emplace_back(yr * gr - yi * gi, yr * gi + yi * gr);
            yq_.emplace_back(yr * qr - yi * qi, yr * qi + yi * qr);
            const T next_r = br * zb.real() - bi * zb.imag();
            bi = br * zb.imag() + bi * zb.real();
            br = next_r;
            b_g_ += br * yg_[k].real() - bi * yg_[k].imag();
            b_q_ += br * yq_[k].real() - bi * yq_[k].imag();
            const double wy = std::abs(s.bins[k]) * (1.0 + 1e-12);
            const double wg = wy * f.g_mod[k], wq = wy * f.q_mod[k];
            term_g_ += 2.0 * wg * (50.0 * k + 75.0);  // times v
            term_q_ += 2.0 * wq * (50.0 * k + 217.0);
            moduli_g_ += 4.0 * wg;  // 2 Re(.), |t| <= 2
            moduli_q_ += 4.0 * wq;
        }
    }

    SpectralSums at(std::int64_t J) const {
        constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
        constexpr double v = 0.5 * static_cast<double>(std::numeric_limits<T>::epsilon());
        const std::int64_t K = static_cast<std::int64_t>(yg_.size()), m = m_;
        const std::int64_t L = width_ - J;
        const T hL = static_cast<T>(h_) * static_cast<T>(L);
        const T rho = std::exp(-hL);
        const std::complex<T> z = twiddle((start_ + J) % m, m);
        // the products written out: std::complex's operator* calls the C99 Annex G routine (__mulxc3), which
        // only differs for infinities and NaNs, none of which arise here
        const T zr = z.real(), zi = z.imag();
        T ar = 1, ai = 0, sa = 0, sr = 0;
        for (std::int64_t k = 1; k < K; ++k) {
            const T next_r = ar * zr - ai * zi;
            ai = ar * zi + ai * zr;
            ar = next_r;
            sa += ar * yg_[k].real() - ai * yg_[k].imag();
            sr += ar * yq_[k].real() - ai * yq_[k].imag();
        }
        sa -= b_g_;
        sr -= rho * b_q_;
        const T g0 = -std::expm1(-hL) / one_minus_r_;
        const T inv_m = T(1) / static_cast<T>(m);
        const T A = (static_cast<T>(y0_) * static_cast<T>(L) + 2 * sa) * inv_m;
        const T R = (static_cast<T>(y0_) * g0 + 2 * sr) * inv_m;
        const T D = A - R;
        SpectralSums out;
        out.A = static_cast<double>(A);
        out.R = static_cast<double>(R);
        out.D = static_cast<double>(D);
        const double y0 = std::fabs(y0_), dm = static_cast<double>(m), dL = static_cast<double>(L);
        const double g0d = static_cast<double>(g0) * (1.0 + 1e-12), summed = static_cast<double>(K + 2);
        // in units of v before the division by m (opening comment), then v of each sum for that division
        const double a_terms = summed * (y0 * dL + moduli_g_) + y0 * dL;
        const double r_terms = summed * (y0 * g0d + moduli_q_) + 15.0 * y0 * g0d;
        const double a_error = v * (a_terms + term_g_) / dm + v * std::fabs(out.A);
        const double r_error = v * (r_terms + term_q_) / dm + v * std::fabs(out.R);
        out.R_error = 2.0 * (r_error + u * std::fabs(out.R));
        out.D_error = 2.0 * (a_error + r_error + v * (std::fabs(out.A) + std::fabs(out.R)) + u * std::fabs(out.D));
        return out;
    }

  private:
    // w^j for an integer j >= 0: 2 pi j / m = c pi / 2 + (pi / 2) e / m with e = 4 (j mod m) - c m, |e| <= m / 2
    // (integers, exact), so cos and sin are taken at |phi| <= pi / 4 (no argument reduction in libm) and
    // turned by c quarter turns (exact).
    static std::complex<T> twiddle(std::int64_t j, std::int64_t m) {
        const T half_pi = static_cast<T>(1.570796326794896619231321691639751442L);
        const std::int64_t f = 4 * (j % m);
        const std::int64_t c = (2 * f + m) / (2 * m);  // the nearest quarter turn (f >= 0)
        const T phi = half_pi * static_cast<T>(f - c * m) / static_cast<T>(m);
        return quarter_turned(std::cos(phi), std::sin(phi), c);
    }

    std::int64_t m_, start_, width_;  // copied: the profile outlives no argument
    double h_;
    T one_minus_r_ = 0, b_g_ = 0, b_q_ = 0;
    double y0_ = 0.0, term_g_ = 0.0, term_q_ = 0.0, moduli_g_ = 0.0, moduli_q_ = 0.0;
    std::vector<std::complex<T>> yg_, yq_;
};

}  // namespace detail

// The sums at any threshold J of one spectrum: in long double where it runs at its full precision on this
// thread, else (or with wide = false) in double (the opening comment's v).
class SpectralProfile {
  public:
    explicit SpectralProfile(const ComposedSpectrum& s, bool wide = true) {
        if (wide && full_long_double_precision())
            wide_.emplace(s);
        else
            narrow_.emplace(s);
    }
    SpectralSums at(std::int64_t J) const { return wide_ ? wide_->at(J) : narrow_->at(J); }

  private:
    std::optional<detail::SpectralSumsIn<long double>> wide_;
    std::optional<detail::SpectralSumsIn<double>> narrow_;
};

namespace detail {
// A probe of a grid search: `above`, the exact test at a grid point; `score`, the log of the ratio it compares
// (positive where above, in exact arithmetic), used only to place the next probe.
struct Probe {
    bool above = false;
    double score = 0.0;
    double slope = std::numeric_limits<double>::quiet_NaN();  // d score / dk there, where estimated (< 0)
};

// Where crossing probes [lo, hi] next: at the last probe's Newton step where it lands inside, else where the ends'
// scores interpolate linearly to 0 (regula falsi), else at the midpoint (and there after two slow probes); always
// strictly inside.
inline std::int64_t crossing_probe(std::int64_t lo, double s_lo, std::int64_t hi, double s_hi, double newton,
                                   int slow) {
    const std::int64_t width = hi - lo;
    std::int64_t mid = lo + width / 2;
    double at = std::numeric_limits<double>::quiet_NaN();
    if (slow < 2 && newton > static_cast<double>(lo) && newton < static_cast<double>(hi))
        at = std::round(newton) - static_cast<double>(lo);
    else if (slow < 2 && std::isfinite(s_lo) && std::isfinite(s_hi) && s_lo > s_hi)
        at = std::round(static_cast<double>(width) * (s_lo / (s_lo - s_hi)));
    if (std::isfinite(at))
        mid = lo + static_cast<std::int64_t>(std::min(std::max(at, 1.0), static_cast<double>(width - 1)));
    return mid;
}

// A k in [lo, hi) with probe(k).above and !probe(k + 1).above, given lo < hi, above at lo (score s_lo) and not
// at hi (score s_hi).  Every probe keeps that invariant, as a bisection's does, so any k it ends on is such a
// point.  Each probe is placed by the last probe's Newton step where it has a slope and the step lands inside
// the interval, else by interpolating the ends' scores linearly in k (regula falsi, with the Illinois halving of
// the score of an end kept twice), else at the midpoint; and at the midpoint after two probes that did not halve
// the last probe's |score|.  Far fewer probes than a bisection's log2(hi - lo) where log delta is smooth in the
// threshold (the hockey-stick curve away from its ends), and at most about 3 log2(hi - lo) plus the halvings of
// |score| down to the grid's resolution anywhere.
template <class F>
std::int64_t crossing(std::int64_t lo, double s_lo, std::int64_t hi, double s_hi, F probe) {
    int kept_lo = 0, kept_hi = 0, slow = 0;
    double newton = std::numeric_limits<double>::quiet_NaN();  // the last probe's Newton step, where it has one
    double last = std::max(std::fabs(s_lo), std::fabs(s_hi));  // the last probe's |score|
    while (hi - lo > 1) {
        const std::int64_t mid = crossing_probe(lo, s_lo, hi, s_hi, newton, slow);
        const Probe p = probe(mid);
        newton = p.slope < 0.0 && std::isfinite(p.score) ? static_cast<double>(mid) - p.score / p.slope
                                                         : std::numeric_limits<double>::quiet_NaN();
        slow = slow < 2 && !(std::fabs(p.score) <= 0.5 * last) ? slow + 1 : 0;  // a NaN score counts as slow
        last = std::fabs(p.score);
        if (p.above) {
            lo = mid;
            s_lo = p.score;
            kept_lo = 0;
            if (++kept_hi >= 2) s_hi *= 0.5;
        } else {
            hi = mid;
            s_hi = p.score;
            kept_hi = 0;
            if (++kept_lo >= 2) s_lo *= 0.5;
        }
    }
    return lo;
}

// log(a / b) for the scores of Probe, finite for positive a and b (a 0 scored as the least double).
inline double log_ratio(double a, double b) {
    return std::log(std::max(a, std::numeric_limits<double>::min())) -
           std::log(std::max(b, std::numeric_limits<double>::min()));
}

// The pessimistic charged delta at eps (not NaN) read from `profile` (spectral_charged_delta's formula).
inline double spectral_delta_at(const SpectralProfile& profile, const ComposedSpectrum& s, double p_inf,
                                const GridCharges& ch, double eps) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    const std::int64_t n = s.width;
    const double h = s.h, k_lo = static_cast<double>(s.k_lo), size = static_cast<double>(n);
    const double e = loss_shifted(eps, ch.loss_shift, false);
    const double charge = charge_at_argument(e, k_lo, size, h, ch);
    double raw = p_inf;
    const bool below = e == -std::numeric_limits<double>::infinity();
    const double kf = below ? 0.0 : std::ceil(e / h) - k_lo;
    if (n > 0 && kf < size) {
        const std::int64_t k = kf <= 0.0 ? 0 : static_cast<std::int64_t>(kf);
        const SpectralSums v = profile.at(k);
        const double D = std::max(v.D + v.D_error, 0.0), R = std::max(v.R + v.R_error, 0.0);
        const double l_k = static_cast<double>(s.k_lo + k) * h;
        const double weight = below ? 1.0 : -std::expm1(e - l_k);  // in [0, 1]
        // raised by the rounding of this step (no suffix-sum slack covers it here): l_k = fl(k h) and the
        // difference e - l_k within u (|e| + 2 |l_k|), expm1 2u, then three products and sums 4u of the sum
        raw = D + weight * R + p_inf;
        raw += (below ? 0.0 : R * u * (std::fabs(e) + 2.0 * std::fabs(l_k) + 4.0)) + 4.0 * u * raw;
    }
    // the last two sums rounded up (one ulp covers each's half ulp)
    const double sum = raw + ch.shift + charge;
    return numpy_minimum(sum > 0.0 ? std::nextafter(sum, std::numeric_limits<double>::infinity()) : sum, 1.0);
}
}  // namespace detail

// The pessimistic charged delta (pld/reads/charged_curve.hpp's charged_side) of the window of the inverse of s at m
// epsilons (not NaN): at the argument moved by the loss shift (e = eps - s rounded down), with k the first grid
// point at or above e, D_k - expm1(e - l_k) R_k + p_inf + shift + charge(points above e), D and R read by
// SpectralProfile and raised by their bound (slack 0: no suffix sums; the charges `ch` those of the composition
// without the inverse transform's), the step's own rounding added and the sum rounded up, at most 1.  A fuzz of
// 12,000 deltas against long-double sums of the exact window found none below the exact charged curve.
inline void spectral_charged_delta(const ComposedSpectrum& s, double p_inf, const GridCharges& ch, const double* eps,
                                   std::int64_t m, double* out) {
    const SpectralProfile profile(s);
    for (std::int64_t i = 0; i < m; ++i) out[i] = detail::spectral_delta_at(profile, s, p_inf, ch, eps[i]);
}

// charged_epsilon (pld/reads/hockey_stick.hpp) on the window of the inverse of s, for m targets (the
// curve's raw part read by SpectralProfile, raised by its round-off bound; slack 0: no suffix sums
// are accumulated; the charges `ch` those of the composition without the inverse transform's).
inline void spectral_charged_epsilon(const ComposedSpectrum& s, double p_inf, const GridCharges& ch,
                                     const double* target, std::int64_t m, double* out) {
    const double inf = std::numeric_limits<double>::infinity();
    const std::int64_t n = s.width;
    const double h = s.h;
    const double one_minus_r = -std::expm1(-h);  // the curve falls by (1 - e^{-h}) R_{k+1} from k to k + 1
    const SpectralProfile profile(s);
    auto l_at = [&](std::int64_t k) { return static_cast<double>(s.k_lo + k) * h; };
    // D and R at threshold k raised by their bounds (>= the sums of the exact inverse; clipped at 0,
    // which only raises them where those sums are below 0)
    auto upper = [&](std::int64_t k) {
        const SpectralSums v = profile.at(k);
        return std::pair<double, double>{std::max(v.D + v.D_error, 0.0), std::max(v.R + v.R_error, 0.0)};
    };
    for (std::int64_t i = 0; i < m; ++i) {
        const double t = target[i];
        auto raw_target = [&](std::int64_t above) {
            return charged_want(t, ch.shift, ch.above(static_cast<double>(above)), 1.0, false);
        };
        if (n == 0 || !(raw_target(0) > 0.0) || p_inf > raw_target(0)) {
            out[i] = inf;
            continue;
        }
        // above(k): the charged curve at grid point k stands above the target (D_k + p_inf, n - 1 - k points
        // above it); `passed`: the sums of the last grid point that was not
        std::pair<double, double> passed;
        auto probe = [&](std::int64_t k) {
            const std::pair<double, double> sums = upper(k);
            const double curve = sums.first + p_inf, want = raw_target(n - 1 - k);
            const bool above = !(curve <= want);
            if (!above) passed = sums;
            return detail::Probe{above, detail::log_ratio(curve, want), -one_minus_r * sums.second / curve};
        };
        const detail::Probe top = probe(n - 1);
        if (top.above) {  // only its round-off bound keeps the top point from passing: just above it
            out[i] = loss_shifted(l_at(n - 1), ch.loss_shift, true);
            continue;
        }
        // the least k that passes with k - 1 above (k = 0: every grid point passes); `passed` holds its sums
        std::int64_t hi = 0;
        const detail::Probe bottom = n > 1 ? probe(0) : top;
        if (bottom.above) hi = detail::crossing(0, bottom.score, n - 1, top.score, probe) + 1;
        const auto [D, R] = passed;
        double eps = loss_shifted(inverted_in_interval(D, R, p_inf, raw_target(n - hi), l_at(hi), h, hi > 0),
                                  ch.loss_shift, true);
        // the delta read at that epsilon (spectral_charged_delta, whose last steps carry their own rounding)
        // meets the target too: raised where it does not, by steps that double, so delta(epsilon(t)) <= t
        double step = 4.0 * std::numeric_limits<double>::epsilon() * std::max(std::fabs(eps), 1.0);
        for (int tries = 0; std::isfinite(eps) && detail::spectral_delta_at(profile, s, p_inf, ch, eps) > t; ++tries) {
            eps = tries < 200 ? eps + step : inf;
            step *= 2.0;
        }
        out[i] = eps;
    }
}

namespace detail {
// max(0, raw + shift - charge) lowered by 4 u of its terms' magnitudes (`magnitude`: raw's): the charged value of
// the opening comment's lower side, from sums already lowered by their bounds.
inline double lowered_charged(double raw, double magnitude, double shift, double charge) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    return std::max(0.0, raw + shift - charge - 4.0 * u * (magnitude + std::fabs(shift) + charge));
}

// The optimistic charged value at e (already moved by the loss shift; not NaN) read from `profile`: the
// opening comment's lower side, max(0, raw + shift - 2 charge(points above e)) with raw from the sums lowered
// by their bounds and by the step's rounding, the sum lowered by 4 u of its terms' magnitudes.  `known`: the
// sums at grid point known_k, read already (used where e's grid point is that one).
inline double spectral_lower_value(const SpectralProfile& profile, const ComposedSpectrum& s, double p_inf,
                                   const GridCharges& ch, double e, const SpectralSums* known = nullptr,
                                   std::int64_t known_k = -1) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    const std::int64_t n = s.width;
    const double h = s.h, k_lo = static_cast<double>(s.k_lo), size = static_cast<double>(n);
    const double charge = 2.0 * charge_at_argument(e, k_lo, size, h, ch);
    double raw = p_inf, magnitude = p_inf;
    const bool below = e == -std::numeric_limits<double>::infinity();
    const double kf = below ? 0.0 : std::ceil(e / h) - k_lo;
    if (n > 0 && kf < size) {
        const std::int64_t k = kf <= 0.0 ? 0 : static_cast<std::int64_t>(kf);
        const SpectralSums v = known != nullptr && k == known_k ? *known : profile.at(k);
        const double D = v.D - v.D_error, R = v.R - v.R_error;  // at most the sums of the exact inverse
        const double l_k = static_cast<double>(s.k_lo + k) * h;
        const double x = e - l_k, weight = below ? 1.0 : -std::expm1(x);  // in [0, 1]
        // lowered by the rounding of this step, of the magnitudes (D and R may be below 0 by their round-off):
        // x within spread = u (|e| + 2 |l_k|) of e - l_k (spectral_delta_at), which moves the weight by at most
        // spread e^(x + spread) (the slope of expm1 between them; ~0 far below the grid, where the spread itself
        // is large), expm1's own rounding and the products' 4 u
        const double spread = 1.01 * u * (std::fabs(e) + 2.0 * std::fabs(l_k));
        const double moved = below ? 0.0 : spread * std::exp(x + spread) + 4.0 * u;
        magnitude = std::fabs(D) + std::fabs(R) + p_inf;
        raw = D + weight * R + p_inf;
        raw -= std::fabs(R) * moved + 4.0 * u * magnitude;
        magnitude += std::fabs(raw);
    }
    return lowered_charged(raw, magnitude, ch.shift, charge);
}
}  // namespace detail

// The optimistic charged delta (the opening comment's lower side) at m epsilons (not NaN) of the window of the
// inverse of s: at e = eps + loss shift rounded up, the charged value at e read from the spectrum, raised to
// the largest at the grid points k0 + 2^i - 1 (k0 the first at or above e) until the uncharged sums there,
// raised by their bound, fall to the best value found; the charges `ch` those of the composition without the
// inverse transform's, slack 0.  Each value is a lower bound on the true delta.
inline void spectral_lower_delta(const ComposedSpectrum& s, double p_inf, const GridCharges& ch, const double* eps,
                                 std::int64_t m, double* out) {
    const SpectralProfile profile(s);
    const std::int64_t n = s.width;
    const double h = s.h;
    for (std::int64_t i = 0; i < m; ++i) {
        const double e = loss_shifted(eps[i], ch.loss_shift, true);
        double best = detail::spectral_lower_value(profile, s, p_inf, ch, e);
        const double kf = e == -std::numeric_limits<double>::infinity() ? 0.0 : std::ceil(e / h) - s.k_lo;
        if (!(kf < static_cast<double>(n))) {
            out[i] = best;
            continue;
        }
        const std::int64_t k0 = kf <= 0.0 ? 0 : static_cast<std::int64_t>(kf);
        for (std::int64_t step = 1; k0 + step - 1 < n; step *= 2) {
            const std::int64_t j = k0 + step - 1;
            const double l_j = static_cast<double>(s.k_lo + j) * h;
            if (!(l_j >= e)) continue;  // a grid point that rounds below e bounds delta there, not at e
            const SpectralSums v = profile.at(j);
            if (v.D + v.D_error + p_inf + ch.shift <= best) break;  // no larger value from here up (to round-off)
            best = std::max(best, detail::spectral_lower_value(profile, s, p_inf, ch, l_j, &v, j));
        }
        out[i] = best;
    }
}

// charged_lower_epsilon (pld/reads/epsilon_bracket.hpp) on the window of the inverse of s, for m targets: the
// opening comment's lower side, the grid point found by detail::crossing, each answer moved down by the loss shift
// (-inf: no grid point certified above the target; +inf: the mass at +infinity alone stands above it).
inline void spectral_lower_epsilon(const ComposedSpectrum& s, double p_inf, const GridCharges& ch, const double* target,
                                   std::int64_t m, double* out) {
    const double inf = std::numeric_limits<double>::infinity();
    const std::int64_t n = s.width;
    const double h = s.h;
    const double one_minus_r = -std::expm1(-h);  // the curve falls by (1 - e^{-h}) R_{k+1} from k to k + 1
    const SpectralProfile profile(s);
    auto l_at = [&](std::int64_t k) { return static_cast<double>(s.k_lo + k) * h; };
    // the charged lower value of the uncharged curve `raw` (of magnitude `magnitude`) with `above` points above
    // (charged_lower_epsilon's lower_at, scale 1)
    auto lower_at = [&](double raw, double magnitude, std::int64_t above) {
        return detail::lowered_charged(raw, magnitude, ch.shift, 2.0 * ch.above(static_cast<double>(above)));
    };
    for (std::int64_t i = 0; i < m; ++i) {
        const double t = target[i];
        if (n == 0) {
            out[i] = -inf;
            continue;
        }
        // above(k): the charged lower curve at grid point k exceeds the target (D_k + p_inf, n - 1 - k above);
        // `failed`: the sums of the last grid point where it does not
        SpectralSums failed;
        auto probe = [&](std::int64_t k) {
            const SpectralSums v = profile.at(k);
            const double D = v.D - v.D_error, value = lower_at(D + p_inf, std::fabs(D) + p_inf, n - 1 - k);
            const bool above = value > t;
            if (!above) failed = v;
            return detail::Probe{above, detail::log_ratio(value, t), -one_minus_r * v.R / value};
        };
        const detail::Probe top = probe(n - 1);
        if (top.above) {  // above the top grid point L is max(0, p_inf + shift) (no grid point above)
            out[i] = lower_at(p_inf, p_inf, 0) > t ? inf : loss_shifted(l_at(n - 1), ch.loss_shift, false);
            continue;
        }
        // k with above(k) and !above(k + 1), or -1 (below the grid) where the bottom point is not above;
        // `failed` holds the sums at k + 1
        std::int64_t k = -1;
        const detail::Probe bottom = n > 1 ? probe(0) : top;
        if (bottom.above) k = detail::crossing(0, bottom.score, n - 1, top.score, probe);
        // invert the lowered curve on (l_k, l_{k+1}] (below the grid: (-inf, l_0]) at the charged target
        const double l = l_at(k + 1), low = k >= 0 ? l_at(k) : -inf;
        const SpectralSums v = failed;
        double D = v.D - v.D_error, R = v.R - v.R_error;
        if (R < 0.0) {  // D + R <= D + w R for w in [0, 1]
            D = std::nextafter(D + R, -inf);
            R = 0.0;
        }
        const double want = charged_want(t, ch.shift, -2.0 * ch.above(static_cast<double>(n - 1 - k)), 1.0, true);
        const double least = std::nextafter(D + p_inf, -inf);  // the curve's least value there (w = 0, at l)
        double eps;
        if (!(least >= 0.0)) {
            eps = low;  // the sums within their round-off of 0: only the grid point below is certified
        } else if (least > want) {
            eps = l;  // the lowered curve stays above want on the interval
        } else if (R > 0.0) {
            const double arg = (D + p_inf - want) / R;  // <= 0
            if (arg <= -1.0) {
                eps = low;
            } else {  // lowered by its round-off (inversion_error)
                const double clipped = std::min(arg, 0.0), at = l + std::log1p(clipped);
                eps = std::max(std::nextafter(at - inversion_error(D, p_inf, want, R, clipped, at), -inf), low);
            }
        } else {
            eps = low;
        }
        out[i] = loss_shifted(eps, ch.loss_shift, false);
    }
}

}  // namespace pld
}  // namespace hockeystick
