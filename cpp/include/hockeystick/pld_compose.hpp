// Composition of grid PMFs: one forward FFT per factor, a pointwise power, one inverse FFT,
// with the truncation (aliasing) and round-off charged in the safe direction.
//
// The losses of independent rounds add, so the composed PLD is the convolution of the
// per-round PMFs (pessimistic with pessimistic, optimistic with optimistic; composition
// preserves both orders, by Blackwell's theorem for the connect-the-dots pairs and by
// coupling for rounded ones; Doroshenko, Ghazi, Kamath, Kumar, Manurangsi, PETS 2022,
// Sec. 4).  The finite parts convolve; the mass at +infinity composes as
// 1 - prod_i (1 - p_inf,i)^c_i.
//
// Window.  The support of a T-fold composition is T times wider than one round, so the
// output is cut to grid indices [a, b] where Chernoff bounds on the composed finite part
// (computed from the discretized PMFs, log-MGF rounded up: pld_hockey_stick.hpp),
//     mass{S >= b h} <= exp(K(lam) - lam b h),   mass{S <= a h} <= exp(K(-lam) + lam a h),
//     K(lam) = sum_i c_i log sum_k p_ik e^{lam l_ik},
// are at most `tail` each (lam tried on a fixed ladder around the Gaussian optimum
// z / s, z = sqrt(2 log(1/tail)), s the composed standard deviation, each rung rounded to the
// nearest 2^(k/4) so that the items of one call sharing a factor share its K(lam) values; any
// lam is valid).
// The FFT length M >= window is a fast size (fft_length); circular convolution folds
// the outside mass into the M points, of which the window is kept.  Pessimistic side:
// the mass above the window is charged to +infinity, and so is the mass below it when
// M > window (it may fold above the window; folded into it, it only adds).  Optimistic
// side: both bounds are subtracted (a negative `shift`).
//
// Round-off.  Each transform's output entries are off by at most 8 u ceil(log2 M) times
// the l1 norm of its input (pld_fft_backend.hpp).  After many rounds that bound, amplified
// about c-fold by the power at the live bins (|X| ~ 1 there), is the whole charge, so in a
// row where that charge reaches kDirectMinCharge (c its largest count) the low-frequency bins
// [0, K) where |X|^c > kDirectBandFloor are recomputed accurately: where the backend offers a
// long-double forward transform (pld_fft_backend.hpp) and the band's direct products would cost
// more than it (kLongFftProducts), from one long-double transform of the factor's row folded in
// long double, kept in long double, each within delta_long ~ 8 u_L ceil(log2 M) ||x||_1
// (pld_long_spectrum.hpp; u_L = 2^-64, so ~2000x below the FFT's 8 u ceil(log2 M) ||x||_1);
// otherwise by direct sums in long double (within a budget of products: kDirectTermsPerPoint),
// each within delta_direct ~ 1.1 u ||x||_1 (pld_direct_spectrum.hpp; 8 u ceil(log2 M) ||x||_1
// is 90-160x that at M = 2^12..2^20).  The other bins keep the FFT's value and bound.  With delta_ik the bound of factor i at
// bin k, the spectrum error obeys |dY_k| <= prod (|X_ik| + delta_ik)^c_i - prod |X_ik|^c_i, plus
// the rounding of the power taken in polar form (2 u sum c_i (|log|X_ik|| + pi + 2)
// relative).  At a bin where every factor is a direct one and long double has 64 bits
// (x86-64), and the power's rounding in double would leave some factor's row a charge of at least a third of
// direct_min_charge (detail::long_power_charge, kChargesPerBracket: many rounds; few rounds over a wide band
// keep theirs below it in double, at 40-70 % of the CPU: sigma 0.6, q 1.4e-4, 10-200 rounds at h = 1.1e-4), the power
// and the perturbed power are taken in long double instead (u_L = 2^-64;
// glibc's logl, atan2l, expl, cosl, sinl within 2 ulp), from the long-double bins where the
// transform gave them (perturbed by delta_long), else from the double ones (delta_direct):
// |X| from the parts (2 u_L),
// log (2 ulp + that), atan2 (2 ulp of at most pi), the products c log|X|, c arg X and their
// sum over the n_t factors ((n_t + 1) u_L of the sum of magnitudes), fmod by 2 pi rounded
// (|phase| u_L + 2 pi u_L), exp, cos, sin and the product (8 u_L), then rounding to double (u
// relative): at most u_L ((n_t + 8) sum c_i (|log|X_ik|| + pi + 2) + 64) relative to both
// powers, charged on both (the difference of the two exps may lose that much of each), plus u,
// the whole rounded up by 1 + 4u; after many rounds this is ~2000x below the double power's
// charge, leaving c delta_direct (or c delta_long) as the charge.  Per output entry the error is at most
// (1/M) sum_k |dY_k| plus the inverse transform's own (8 u ceil(log2 M) ||Y||_1 / M); in
// Euclidean norm the first part is at most ||dY||_2 / sqrt(M) (Parseval).  The result
// carries five numbers (ComposedPMF) from
// which delta(eps) is charged: entry_error per grid point above eps, capped by
// total_error and by spectral_l2 sqrt(n) + inverse_error n (Cauchy-Schwarz over n points
// with weights in [0, 1]), the inverse's part inverse_error n there being replaced by inverse_l2 sqrt(n)
// where smaller: the normwise model (pld_fft_backend.hpp) bounds the inverse transform's own error
// vector by inverse_l2 = 8 u ceil(log2 M) ||Y||_2 / sqrt(M) in Euclidean norm, so over n points it adds
// at most inverse_l2 sqrt(n) (after few rounds ||Y||_1 / M is ~1/20 while ||Y||_2 / sqrt(M) = ||y||_2
// ~ 0.2, and n ~ 1e5 points: sigma 0.5, q 1e-4, 10 rounds, h 8e-5: 1.7e-10 -> ~1e-12, against a
// delta of 1e-9); pld_hockey_stick.hpp's charged_epsilon and the facade's
// GridPMF apply them (added on the pessimistic side, twice subtracted on the optimistic
// side, where negative entries are clipped to 0).
//
// Dropped bins.  A frequency whose perturbed power prod_i (|X_ik| + delta_i)^c_i is at most
// tau = 2^-64 (kDroppedPower) is not powered: its output is 0 and its error, at most the true
// |Y_k| <= that perturbed power, is charged as 2 tau in |dY_k|.  The test is on the computed log
// of the perturbed power raised by its rounding (2u rel in double, u_L (nt + 8) rel in long double,
// rel = sum_i c_i (|log|X_ik|| + pi + 2), nt factors), which grows with the counts; the per-factor
// floors that skip bins early keep 2u sum_i c_i of headroom for it.  After many rounds the live bins are a narrow low-frequency
// band (|X_k|^T ~ exp(-T var w_k^2 / 2)), so this keeps about sqrt(44 / 746) of the bins the
// underflow bound (-746) would: 1212 instead of 16385 at sigma 1, q 3.8e-3, h 6.4e-4, T = 100.
// The charge adds at most 2 tau (M / 2 + 1) 2 / M ~ 2 tau to entry_error and 2 tau sqrt(M + 2)
// to total_error: 1e-19 and 1e-16 at M = 2^20, below the round-off charges they join.
//
// Band rows.  After many rounds the live band is a few dozen bins of m / 2 + 1, so a one-term item whose
// band is estimated short (band_candidate) takes its factor's spectrum from a transform kBandSplit times
// shorter, which certifies every bin past a band end K as dropped (pld_band_spectrum.hpp: the samples'
// moduli, their error and a Lipschitz bound between them), and the bins below K by direct sums
// (pld_direct_spectrum.hpp, each within delta_direct < the FFT's bound): the same bins are kept and
// charged as with the full transform, at K n products instead of a length-m transform.  Where the backend transforms in long double, a band whose
// block moments cost less than its direct sums takes them instead (pld_taylor_spectrum.hpp: about N n
// products, N ~ 12-14, and N transforms of length m / B), kept in long double within delta_taylor, so
// with direct bins most many-round one-term items are band rows (no length-m forward transform in double
// or long double), and a full row whose long-double band costs less from block moments than from the
// long-double transform takes those.  A band found wider
// than estimated takes the full transform.
//
// Domain: all factors on one grid h, counts >= 0 (0 ignored), at least one positive count;
// a window above max_points grid points throws std::length_error before anything is
// allocated for it.  Memory of one batch: about 32 bytes per FFT point of every row
// (signal, spectrum, output) plus the kept windows; batches hold at most group_cells
// doubles per array.  Rows given long-double bands (direct bins) add, while one factor's transform
// is in flight, its folded signal (16 bytes per point), the kept band (32 bytes per bin kept) and
// the scipy backend's long-double half spectrum (16 bytes per point, freed after the call): about
// 48 bytes per FFT point for the one factor in flight (not per row, so not capped by group_cells),
// plus each long row's kept band until the powers are taken.  Measured: peak +61 MB (243 -> 304 MB)
// for sigma 0.5, q 1e-4, h 1e-5, 1e5 rounds (window 1.26e6 points, m = 1310720).
// Threads composing at once share one budget: each batch waits for its estimated bytes at the process-wide
// working_memory_gate() (working_memory_gate.hpp), so their buffers in flight stay within max(its limit,
// the largest single batch).
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "pld_band_spectrum.hpp"
#include "pld_connect_dots.hpp"
#include "pld_direct_spectrum.hpp"
#include "pld_fft_backend.hpp"
#include "pld_hockey_stick.hpp"
#include "pld_long_spectrum.hpp"
#include "pld_spectral_profile.hpp"
#include "pld_taylor_spectrum.hpp"
#include "working_memory_gate.hpp"

namespace hockeystick {
namespace pld {

// One factor: masses p[0..n) at losses (k_lo + k) h, p_inf at +infinity (not owned).
struct PmfView {
    const double* p = nullptr;
    std::int64_t n = 0;
    std::int64_t k_lo = 0;
    double p_inf = 0.0;
    double loss_shift = 0.0;  // the PMF's loss error (GridPMF::loss_shift), 0 for grid-exact losses
};

// A discretized mechanism's PMF as a factor.  On the pessimistic side every bit of mass must be
// carried: a deficit 1 - sum p - p_inf left by round-off goes to +infinity (as the facade's
// mechanisms._factor does).
inline PmfView factor_view(const GridPMF& pmf, bool pessimistic) {
    PmfView v{pmf.p.data(), static_cast<std::int64_t>(pmf.p.size()), pmf.k_lo, pmf.p_inf, pmf.loss_shift};
    if (pessimistic) {
        double mass = 0.0, carry = 0.0;  // Neumaier's compensated sum: the deficit is not the sum's round-off
        for (const double x : pmf.p) {
            const double t = mass + x;
            carry += std::fabs(mass) >= std::fabs(x) ? (mass - t) + x : (x - t) + mass;
            mass = t;
        }
        mass += carry;
        const double deficit = 1.0 - mass - pmf.p_inf;
        if (deficit > 0.0) v.p_inf += deficit;
    }
    return v;
}

// `count` independent copies of factor number `factor`.
struct Term {
    std::int64_t factor = 0;
    std::int64_t count = 0;
};

// A composed PMF and its charges (see the opening comment; the facade's pmf.GridPMF).
struct ComposedPMF {
    std::int64_t k_lo = 0;
    double h = 0.0;
    std::vector<double> p;
    double p_inf = 0.0;
    double shift = 0.0;
    bool pessimistic = true;
    double entry_error = 0.0, total_error = 0.0;
    double spectral_l2 = std::numeric_limits<double>::infinity(), inverse_error = 0.0;
    double loss_shift = 0.0;  // sum over the terms of count x the factor's loss_shift, rounded up
    // The inverse transform's own error in Euclidean norm (pld_fft_backend.hpp's normwise model):
    // 8 u ceil(log2 M) ||Y||_2 / sqrt(M), Y the half spectrum handed to it (opening comment).
    double inverse_l2 = std::numeric_limits<double>::infinity();
    // Where the caller reads the result through its spectrum (compose_many's `reads`): p is empty and
    // spectrum holds the live bins and the window (pld_spectral_profile.hpp); no inverse transform ran, so
    // inverse_error and inverse_l2 are 0 and total_error is the spectral part alone.
    bool spectral = false;
    ComposedSpectrum spectrum;
};

constexpr double kDefaultCompositionTail = 1e-15;
constexpr double kDroppedPower = 0x1p-64;  // tau of the opening comment's dropped bins
constexpr double kLogDropped = -44.3614195558365;  // log(tau) = -64 log 2 (to 1e-15: the 2 tau charge covers it)
constexpr std::int64_t kDirectWindow = 4096;  // full supports up to this wide are kept whole
constexpr double kFallbackLadderPoints = 1 << 20;  // wider Chernoff windows also try fixed lams
// Batches of fewer items run their per-bin loop on one thread: the two directions of one PLD
// gain less than an OpenMP team costs (its idle spinning is CPU time) on a shared machine.
constexpr std::int64_t kParallelItems = 4;
// Low-frequency bins are recomputed (pld_long_spectrum.hpp, pld_direct_spectrum.hpp) up to the highest
// bin with |X|^c above kDirectBandFloor, c a row's largest count (beyond it the amplified error
// c |X|^(c-1) delta is a millionth of the peak's), by direct sums at most kDirectTermsPerPoint
// m ceil(log2 m) products per row, or kDirectTermsAtLeast if more (~9 ns each), in a row where the FFT bound's
// charge at those bins, about c delta (2 sum |X|^(2(c-1)))^(1/2) (the spectral_l2 part of
// total_error), reaches kDirectMinCharge: many rounds, where the power amplifies delta about
// c-fold; below it the direct bins would move delta by less than 1e-11, a hundredth of the delta of
// 1e-9 a G1-style epsilon bracket still reads (a threshold of 1e-10 leaves sigma 0.576, q 1e-4, 295
// rounds at [7.3e-10, 1.01e-9], its rows' charge estimate 9.4e-11, short of G1's criterion).  Only where long double
// is x86-64's 80-bit format (64 bits: fast in hardware), where the power of the direct bins is
// also taken in long double, its rounding charged with u_L = 2^-64 instead of u.
constexpr double kDirectMinCharge = 1e-11;
constexpr double kDirectBandFloor = 1e-6;
constexpr double kDirectTermsPerPoint = 1.0;
constexpr double kDirectTermsAtLeast = 1 << 19;  // a few ms: short rows get their whole band
constexpr bool kLongPower = std::numeric_limits<long double>::digits == 64;
// A long-double transform of length m costs about as much as kLongFftProducts m ceil(log2 m) direct-sum
// products (scipy.fft: ~15 ms at m = 2^18, 3.2 ns per m log2 m; the x87 products ~9 ns each).
constexpr double kLongFftProducts = 0.35;
// A double transform of length m costs about as much as kFftProducts m ceil(log2 m) direct-sum products
// (scipy.fft: 6.1 ms at m = 491520, 0.65 ns per m log2 m, against ~6.5 ns per long-double product).
constexpr double kFftProducts = 0.1;
// Band rows (pld_band_spectrum.hpp): samples from a transform kBandSplit times shorter, taken where the
// estimated band's direct products cost at most kBandGain of the full transform.
constexpr std::int64_t kBandSplit = 8;
constexpr double kBandGain = 0.8;
// A band from block moments (pld_taylor_spectrum.hpp) costs about kTaylorTermProducts direct-sum products per
// signal entry and term (x87 products and sums advanced 16 at a time: ~2.7 ns each) plus its N short
// long-double transforms (kLongFftProducts L ceil(log2 L) each).
constexpr double kTaylorTermProducts = 0.4;
// A delta bracket carries a row's charge about three times (added on the pessimistic side, twice subtracted on the
// optimistic one: ComposedPMF), so a row keeps its power in double only where three of its charges stay below
// direct_min_charge (detail::long_power_charge).  Comparing one charge with it, G1's sigma 0.5, q 1.8e-3, 1931
// rounds, eps 9.5 was left at [9.997e-10, 1.026e-9], where the long-double power gives [1.0127e-9, 1.0197e-9].
constexpr double kChargesPerBracket = 3.0;

// Where one composition's output lives: grid indices a_idx .. a_idx + width - 1, what the cut costs.
// How a caller will read an item's pessimistic composition: `searches` epsilons (a bisection over the
// grid each) and `points` deltas at given epsilons (compose_many's `reads`; none: the composed window).
struct SpectralReads {
    std::int64_t searches = 0, points = 0;
};

// Whether an item whose composed spectrum keeps `live` bins is kept as those bins rather than as its window:
// where the bins fit pld_spectral_profile.hpp's bounds and reading them (about log2(width) + 3 thresholds per
// search, one per point, `live` terms each) costs less than the inverse transform of length m and the window;
// kSpectralTermCost: one term's cost in units of m log2 m of the transform (W4's items, about 28 bins of
// m ~ 11,700: the spectral read costs less up to 4 searches per item).
constexpr double kSpectralTermCost = 80.0;
inline bool spectral_read(std::int64_t live, std::int64_t m, std::int64_t width, const SpectralReads& reads) {
    if (reads.searches + reads.points <= 0 || !spectral_bins_fit(std::max<std::int64_t>(live, 1), m)) return false;
    const double thresholds = static_cast<double>(reads.searches) *
                                  (std::log2(static_cast<double>(std::max<std::int64_t>(width, 1))) + 3.0) +
                              static_cast<double>(reads.points);
    return thresholds * static_cast<double>(std::max<std::int64_t>(live, 1)) * kSpectralTermCost <=
           static_cast<double>(m) * std::log2(static_cast<double>(m));
}

struct Window {
    std::vector<Term> terms;  // positive counts only
    std::int64_t lo_full = 0, a_idx = 0, width = 0;
    double p_inf = 0.0, charge_above = 0.0, charge_below = 0.0;
};

namespace detail {

inline double finite_mass(const PmfView& f) {
    double s = 0.0;
    for (std::int64_t k = 0; k < f.n; ++k) s += f.p[k];
    // Rounded up by the sum's own error bound (n u relative): it only scales an error bound.
    return s * (1.0 + (static_cast<double>(f.n) + 1.0) * 0.5 * std::numeric_limits<double>::epsilon());
}

// out[0 .. len) (zeros on entry) += the factor's masses folded modulo len.
inline void fold(const PmfView& f, std::int64_t len, double* out) {
    for (std::int64_t k0 = 0; k0 < f.n; k0 += len)
        for (std::int64_t k = k0; k < std::min(f.n, k0 + len); ++k) out[k - k0] += f.p[k];
}

// Whether `count` copies of factor f on FFT length m likely keep so few bins that the band path
// (pld_band_spectrum.hpp) costs less than the full transform: the band's end estimated from the
// Gaussian shape |X(w)| ~ 1 - var w^2 / 2 (var in cells^2) where 1 - |X| reaches the drop threshold's
// gap 44.4 / count plus the samples' Lipschitz slack (pi / m_f) sd (M1 <= sd; G1's rows: M1 ~ 0.6-0.8 sd,
// and the certified end ~2/3 of this estimate).  An estimate only: band_end certifies, and a band found wider falls back to the full transform.
// What the band [0, keep) of a factor of n entries costs at length m, in direct-sum products: the least of its
// direct sums and, where `taylor` (a long-double backend) and a plan exists, its block moments (plan set then).
inline double band_products(std::int64_t n, std::int64_t m, std::int64_t keep, bool taylor, TaylorPlan& plan) {
    const double sums = static_cast<double>(keep) * static_cast<double>(n);
    plan = TaylorPlan{};
    if (!taylor || keep < 1 || !taylor_plan(m, keep, plan)) return sums;
    const double length = static_cast<double>(plan.length);
    const double moments = plan.terms * (kTaylorTermProducts * static_cast<double>(n) +
                                         kLongFftProducts * length * std::max(1.0, std::ceil(std::log2(length))));
    if (moments < sums) return moments;
    plan = TaylorPlan{};
    return sums;
}

// The products a band row may cost at length m before the full row is the cheaper: the full transform's
// (kFftProducts m ceil(log2 m)), and with direct bins (`direct`) also what the full row's own accurate band
// would cost (`band`, at most a long-double transform: kLongFftProducts m ceil(log2 m)).
inline double band_row_limit(std::int64_t m, bool direct, double band) {
    const double stages = std::max(1.0, std::ceil(std::log2(static_cast<double>(m))));
    const double full = kFftProducts * static_cast<double>(m) * stages;
    return direct ? full + std::min(band, kLongFftProducts * static_cast<double>(m) * stages) : full;
}

inline bool band_candidate(const PmfView& f, std::int64_t count, std::int64_t m, bool direct, bool taylor) {
    if (count < 2 || f.n < 1) return false;
    const double var = grid_loss_variance(f.p, f.n, 1.0);
    if (!(var > 0.0)) return false;
    const double m_f = static_cast<double>(m / kBandSplit);
    const double gap = -kLogDropped / static_cast<double>(count) + 3.141592653589793 * std::sqrt(var) / m_f;
    const double end = std::sqrt(2.0 * gap / var) * static_cast<double>(m) / 6.283185307179586 + kBandSplit;
    if (!(end < static_cast<double>(m / 2 + 1))) return false;
    TaylorPlan plan;
    const double band = band_products(f.n, m, static_cast<std::int64_t>(std::ceil(end)), taylor, plan);
    return band < kBandGain * band_row_limit(m, direct, band);
}

// Each factor's log-MGF K(lam) (grid_log_mgf, rounded up) and loss variance as chernoff_edges asks for them,
// kept for the items of one compose_many call: items sharing a factor (every rounds value of a grid block)
// ask for many of the same lams, their ladders being snapped to one grid (chernoff_edges).  A value
// depends on the factor and lam alone, so an item's window is the same whatever else the call composes.
class FactorMoments {
   public:
    explicit FactorMoments(const std::vector<PmfView>& factors, double h)
        : factors_(factors), h_(h), variance_(factors.size(), -1.0), mgf_(factors.size()) {}

    double variance(std::int64_t factor) {
        double& v = variance_[static_cast<std::size_t>(factor)];
        if (v < 0.0) v = grid_loss_variance(factors_[factor].p, factors_[factor].n, h_);
        return v;
    }

    // out[j] = K(lam[j]) of the factor, computing those not kept yet in one grid_log_mgf call.
    void log_mgf(std::int64_t factor, const double* lam, std::int64_t m, double* out) {
        std::map<double, double>& kept = mgf_[static_cast<std::size_t>(factor)];
        std::vector<double> missing;
        for (std::int64_t j = 0; j < m; ++j)
            if (!kept.count(lam[j]) && std::find(missing.begin(), missing.end(), lam[j]) == missing.end())
                missing.push_back(lam[j]);
        if (!missing.empty()) {
            std::vector<double> values(missing.size());
            const PmfView& f = factors_[factor];
            grid_log_mgf(f.p, f.n, f.k_lo, h_, missing.data(), static_cast<std::int64_t>(missing.size()),
                         values.data());
            for (std::size_t j = 0; j < missing.size(); ++j) kept.emplace(missing[j], values[j]);
        }
        for (std::int64_t j = 0; j < m; ++j) out[j] = kept.at(lam[j]);
    }

   private:
    const std::vector<PmfView>& factors_;
    double h_;
    std::vector<double> variance_;
    std::vector<std::map<double, double>> mgf_;
};

// lam rounded to the nearest 2^(k/4) (k an integer): the ladders of items with nearby variances share rungs.
inline double snapped_lam(double lam) { return std::exp2(std::round(4.0 * std::log2(lam)) / 4.0); }

// Losses (bottom, top): composed finite mass below bottom and above top each <= tail.
inline void chernoff_edges(FactorMoments& moments, const std::vector<Term>& terms, double h,
                           double tail, double& bottom, double& top) {
    constexpr int ladder = 13;
    double lam_factor[ladder];
    for (int i = 0; i < 8; ++i) lam_factor[i] = std::pow(10.0, -4.0 + 0.5 * i);  // logspace(-4, -0.5, 8)
    const double big[] = {0.5, 0.7, 1.0, 1.4, 2.0};
    for (int i = 0; i < 5; ++i) lam_factor[8 + i] = big[i];
    double var = 0.0;
    for (const Term& t : terms) var += static_cast<double>(t.count) * moments.variance(t.factor);
    const double z = std::sqrt(2.0 * std::log(1.0 / tail));
    double both[2 * ladder];
    for (int i = 0; i < ladder; ++i) {  // rungs at least 2^(1/2) apart: distinct once snapped
        both[i] = snapped_lam(lam_factor[i] * z / std::sqrt(std::max(var, 1e-300)));
        both[ladder + i] = -both[i];
    }
    // The bound on each side, (K(lam) - log tail) / lam over lam > 0, is quasiconvex in lam (its sublevel
    // sets {lam : K(lam) - c lam + log(1/tail) <= 0} are intervals, K being convex), so on the ladder its least
    // value is found by walking from the Gaussian optimum (rungs 0.7, 1, 1.4) towards the smaller values
    // until both neighbours of the least are larger or the ladder ends: the same rung values (each K(lam)
    // is formed the same way however many lams share a pass) and the same edges as evaluating every rung,
    // at 3-6 lams per side instead of 13.  Where a value is not finite every rung is evaluated.
    const double log_tail = std::log(tail);
    double score[2][ladder];  // per side (0: top, +lam; 1: bottom, -lam) the quantity minimized
    int lo[2] = {9, 9}, hi[2] = {11, 11};
    std::vector<std::pair<int, int>> need;  // (side, rung)
    for (int side = 0; side < 2; ++side)
        for (int i = 9; i <= 11; ++i) need.push_back({side, i});
    bool whole[2] = {false, false};
    while (!need.empty()) {
        const std::int64_t m = static_cast<std::int64_t>(need.size());
        std::vector<double> lams(m), k(m, 0.0), one(m);
        for (std::int64_t j = 0; j < m; ++j) lams[j] = both[need[j].first * ladder + need[j].second];
        for (const Term& t : terms) {
            moments.log_mgf(t.factor, lams.data(), m, one.data());
            for (std::int64_t j = 0; j < m; ++j) k[j] += static_cast<double>(t.count) * one[j];
        }
        for (std::int64_t j = 0; j < m; ++j) {
            const auto [side, i] = need[j];
            score[side][i] = side == 0 ? (k[j] - log_tail) / both[i] : -((log_tail - k[j]) / both[i]);
        }
        need.clear();
        for (int side = 0; side < 2; ++side) {
            if (whole[side]) continue;
            double least = std::numeric_limits<double>::infinity();
            bool finite = true;
            for (int i = lo[side]; i <= hi[side]; ++i) {
                finite = finite && std::isfinite(score[side][i]);
                least = std::min(least, score[side][i]);
            }
            if (!finite) {  // every rung, reduced as std::min / std::max reduce (a NaN is never picked)
                whole[side] = true;
                for (int i = 0; i < ladder; ++i)
                    if (i < lo[side] || i > hi[side]) need.push_back({side, i});
                lo[side] = 0;
                hi[side] = ladder - 1;
                continue;
            }
            const int down = score[side][lo[side]] == least && lo[side] > 0 ? std::max(0, lo[side] - 3) : lo[side];
            const int up = score[side][hi[side]] == least && hi[side] < ladder - 1 ? std::min(ladder - 1, hi[side] + 2)
                                                                                   : hi[side];
            for (int i = down; i < lo[side]; ++i) need.push_back({side, i});
            for (int i = hi[side] + 1; i <= up; ++i) need.push_back({side, i});
            lo[side] = down;
            hi[side] = up;
        }
    }
    top = std::numeric_limits<double>::infinity();
    bottom = -std::numeric_limits<double>::infinity();
    for (int i = lo[0]; i <= hi[0]; ++i) top = std::min(top, score[0][i]);
    for (int i = lo[1]; i <= hi[1]; ++i) bottom = std::max(bottom, -score[1][i]);
    // A grid variance near 0 (an optimistic PMF whose mass sits on one grid point while the
    // sampling rate is below h) puts every rung far above the useful lam, and the window spans
    // the whole support (1e9 points for q = 1e-4, sigma = 0.5, 1e5 rounds).  Then lam is also
    // tried on a fixed ladder in loss units (10^-3 .. 10^2): any lam is valid, so the edges only
    // tighten, and windows the first ladder already bounds do not pay for it.
    if (!((top - bottom) / h < kFallbackLadderPoints)) {
        constexpr int fixed = 11;
        double lam[2 * fixed], k_fixed[2 * fixed] = {}, part[2 * fixed];
        for (int i = 0; i < fixed; ++i) {
            lam[i] = std::pow(10.0, -3.0 + 0.5 * i);
            lam[fixed + i] = -lam[i];
        }
        for (const Term& t : terms) {
            moments.log_mgf(t.factor, lam, 2 * fixed, part);
            for (int i = 0; i < 2 * fixed; ++i) k_fixed[i] += static_cast<double>(t.count) * part[i];
        }
        for (int i = 0; i < fixed; ++i) {
            top = std::min(top, (k_fixed[i] - log_tail) / lam[i]);
            bottom = std::max(bottom, (log_tail - k_fixed[fixed + i]) / lam[i]);
        }
    }
}

// A row's estimated charge with its band's bins within `delta` (direct bins) and the power taken in double:
// per bin about c delta |X|^(c-1) from the bins plus the power's rounding 2u sum c (|log|X|| + pi + 2)
// |X|^c, where |log|X|| < -log(kDirectBandFloor) / c in the band, over `weight` = sum |X|^(2 (c - 1)) in
// Euclidean norm (the spectral_l2 part of total_error).  Where kChargesPerBracket of it stay below
// direct_min_charge the power in long double would only lower a charge the brackets already read as below the
// rows' threshold, at ~10 x87 calls a bin.
inline double long_power_charge(double c, double delta, double weight) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    const double rounding = 2.0 * u * (-std::log(kDirectBandFloor) + (3.141592653589793 + 2.0) * c);
    return (c * delta + rounding) * std::sqrt(2.0 * weight);
}

// numpy's floored modulus (result in [0, b) for b > 0).
inline double floored_mod(double a, double b) {
    double r = std::fmod(a, b);
    if (r != 0.0 && ((r < 0.0) != (b < 0.0))) r += b;
    return r;
}

}  // namespace detail

// The window of one item; throws std::invalid_argument / std::length_error outside the domain.
inline Window composition_window(const std::vector<PmfView>& factors, double h, const std::vector<Term>& terms,
                                 double tail, std::int64_t max_points, detail::FactorMoments& moments) {
    Window w;
    for (const Term& t : terms) {
        if (t.count < 0) throw std::invalid_argument("compose: counts must be >= 0");
        if (t.factor < 0 || t.factor >= static_cast<std::int64_t>(factors.size()))
            throw std::invalid_argument("compose: factor index out of range");
        if (t.count > 0) w.terms.push_back(t);
    }
    if (w.terms.empty()) throw std::invalid_argument("compose needs at least one factor with a positive count");
    double log_finite = 0.0;
    double lo = 0.0, hi = 0.0;  // in double: a count times a grid offset may exceed int64
    for (const Term& t : w.terms) {
        const PmfView& f = factors[t.factor];
        if (f.n < 1) throw std::invalid_argument("compose: a factor has no grid points");
        const double c = static_cast<double>(t.count);
        log_finite += f.p_inf < 1.0 ? c * std::log1p(-f.p_inf) : -std::numeric_limits<double>::infinity();
        lo += c * static_cast<double>(f.k_lo);
        hi += c * static_cast<double>(f.k_lo + f.n - 1);
    }
    if (!(std::fabs(lo) < 9e15 && std::fabs(hi) < 9e15))
        throw std::length_error("the composed loss grid spans more than 9e15 grid points");
    w.p_inf = -std::expm1(log_finite);
    const std::int64_t lo_full = static_cast<std::int64_t>(lo), hi_full = static_cast<std::int64_t>(hi);
    std::int64_t a_idx = lo_full, b_idx = hi_full;
    if (hi_full - lo_full + 1 > kDirectWindow) {
        double bottom = 0.0, top = 0.0;
        detail::chernoff_edges(moments, w.terms, h, tail, bottom, top);
        const double top_idx = std::ceil(top / h), bottom_idx = std::floor(bottom / h);
        // Clamped to the full support (an edge at -inf or +inf: no finite mass to speak of, e.g.
        // every factor's mass at +infinity); if the two edges cross, the finite mass is at most
        // 2 tail and both are charged: one grid point is kept.
        if (top_idx < static_cast<double>(hi_full)) {
            b_idx = static_cast<std::int64_t>(std::max(top_idx, static_cast<double>(lo_full)));
            w.charge_above = tail;
        }
        if (bottom_idx > static_cast<double>(lo_full)) {
            a_idx = static_cast<std::int64_t>(std::min(bottom_idx, static_cast<double>(hi_full)));
            w.charge_below = tail;
        }
        a_idx = std::min(a_idx, b_idx);
    }
    w.lo_full = lo_full;
    w.a_idx = a_idx;
    w.width = b_idx - a_idx + 1;
    if (w.width > max_points)
        throw std::length_error("the composed loss window needs " + std::to_string(w.width) +
                                " grid points (max_points=" + std::to_string(max_points) + ")");
    return w;
}

// Whether long double carries its full 64 bits on every thread of the OpenMP team compose_batch's parallel
// regions use (they carry no num_threads clause, so they run on the same pool; a pool thread keeps the x87
// control word it was created with, whatever the calling thread's is now).
inline bool team_full_long_double_precision() {
    bool full = true;
#pragma omp parallel reduction(&& : full)
    full = full_long_double_precision();
    return full;
}

// Composes the items of one batch on a common FFT length m (>= every window).
inline std::vector<ComposedPMF> compose_batch(const std::vector<PmfView>& factors, double h,
                                              const std::vector<const Window*>& windows, std::int64_t m,
                                              bool pessimistic, RealFftBackend& fft, int threads = 0,
                                              bool direct_bins = false, double long_fft_products = kLongFftProducts,
                                              bool band_rows = true, double direct_min_charge = kDirectMinCharge,
                                              const std::vector<SpectralReads>& reads = {}) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    constexpr double two_pi = 6.283185307179586;
    constexpr double pi = 3.141592653589793;
    constexpr long double u_long = 0.5L * std::numeric_limits<long double>::epsilon();
    const std::int64_t bins = m / 2 + 1;
    const double stages = std::max(1.0, std::ceil(std::log2(static_cast<double>(m))));
    const double fft_err = 8.0 * u * stages;
    const std::int64_t items = static_cast<std::int64_t>(windows.size());
    // Direct bins only where long double really carries 64 bits now (the x87 precision control can be
    // set to 53 bits at run time, and the bounds use u_L = 2^-64).
    // OpenMP pool threads keep the control word they were created with: if a thread of the team the parallel
    // regions below would use runs below 64 bits, they run on this thread alone (the same bits).
    if (direct_bins && kLongPower && threads != 1 && !team_full_long_double_precision()) threads = 1;
    const bool direct_on = direct_bins && kLongPower && full_long_double_precision();
    // One row per distinct factor of the batch: items sharing a factor share its transform.  With
    // direct bins, one per (factor, count): the band recomputed depends on the count, so an item's
    // result stays the same alone or batched.  A one-term item whose c-fold power keeps few bins
    // (band_candidate) gets a row of its own (factor, count), transformed at length m / kBandSplit and
    // completed by direct sums (pld_band_spectrum.hpp); those rows come after the others.
    const bool band_on =
        band_rows && kLongPower && m % kBandSplit == 0 && m / kBandSplit >= 16 && full_long_double_precision();
    // bands from block moments (pld_taylor_spectrum.hpp) need the backend's long-double transform
    const bool taylor_on = kLongPower && full_long_double_precision() && fft.offers_forward_long();
    using RowKey = std::tuple<std::int64_t, std::int64_t, bool>;
    std::map<RowKey, std::int64_t> rows_of;
    std::vector<std::vector<RowKey>> item_keys(items);
    for (std::int64_t i = 0; i < items; ++i) {
        const std::vector<Term>& terms = windows[i]->terms;
        const bool band =
            band_on && terms.size() == 1 &&
            detail::band_candidate(factors[terms[0].factor], terms[0].count, m, direct_on, taylor_on);
        for (const Term& t : terms)
            item_keys[i].push_back(RowKey(t.factor, direct_on || band ? t.count : std::int64_t(0), band));
    }
    for (const bool band : {false, true})
        for (const std::vector<RowKey>& keys : item_keys)
            for (const RowKey& k : keys)
                if (std::get<2>(k) == band) rows_of.emplace(k, static_cast<std::int64_t>(rows_of.size()));
    std::vector<std::vector<std::int64_t>> item_rows(items);
    for (std::int64_t i = 0; i < items; ++i)
        for (const RowKey& k : item_keys[i]) item_rows[i].push_back(rows_of.at(k));
    const std::int64_t rows = static_cast<std::int64_t>(rows_of.size());
    std::vector<std::complex<double>> spec(static_cast<std::size_t>(rows * bins));
    std::vector<double> err(rows);
    // Per row, the first bin from which every bin is certified dropped (band rows; bins elsewhere).
    std::vector<std::int64_t> drop_from(rows, bins);
    std::vector<char> band_row(rows, 0);
    // Rows whose band came in long double (block moments or a long-double transform), and its two bounds:
    // as kept in long double (long_err) and as rounded to double into spec (direct_err).
    std::vector<std::vector<std::complex<long double>>> band_long(rows);
    std::vector<double> direct_err, long_err;  // filled below (from err)
    std::vector<RowKey> row_key(rows);
    for (const auto& [key, r] : rows_of) row_key[r] = key;
    std::vector<std::int64_t> full, coarse_rows;  // the full rows come first (the order rows_of was built in)
    std::vector<std::pair<double, double>> band_bounds;  // band rows: (as rounded to double, in long double)
    for (std::int64_t r = 0; r < rows; ++r) {
        err[r] = fft_err * detail::finite_mass(factors[std::get<0>(row_key[r])]);
        (std::get<2>(row_key[r]) ? coarse_rows : full).push_back(r);
    }
    // the rows `which` folded at `length` into consecutive signal rows, transformed into out (consecutive rows)
    const auto forward_rows = [&](const std::vector<std::int64_t>& which, std::int64_t length,
                                  std::complex<double>* out) {
        if (which.empty()) return;
        const std::int64_t count = static_cast<std::int64_t>(which.size());
        std::vector<double> signal(static_cast<std::size_t>(count * length), 0.0);
        for (std::int64_t j = 0; j < count; ++j)
            detail::fold(factors[std::get<0>(row_key[which[j]])], length, signal.data() + j * length);
        fft.forward(count, length, signal.data(), out);
    };
    forward_rows(full, m, spec.data());
    if (!coarse_rows.empty()) {  // band rows: samples at length m_f, the band by direct sums (pld_band_spectrum.hpp)
        const std::int64_t m_f = m / kBandSplit, bins_f = m_f / 2 + 1;
        std::vector<std::complex<double>> coarse(coarse_rows.size() * static_cast<std::size_t>(bins_f));
        forward_rows(coarse_rows, m_f, coarse.data());
        std::unique_ptr<TwiddleTable> table;
        band_bounds.resize(static_cast<std::size_t>(rows));
        for (std::size_t j = 0; j < coarse_rows.size(); ++j) {
            const std::int64_t r = coarse_rows[j];
            const PmfView& pmf = factors[std::get<0>(row_key[r])];
            const double l1 = detail::finite_mass(pmf);
            const double slack = (folded_bin_error(l1, pmf.n, m_f) +
                                  pi / static_cast<double>(m_f) * first_absolute_moment(pmf.p, pmf.n)) * (1.0 + 4.0 * u);
            const double count = static_cast<double>(std::get<1>(row_key[r]));
            const std::int64_t end = band_end(coarse.data() + static_cast<std::int64_t>(j) * bins_f, m_f, kBandSplit,
                                              bins, slack, certified_drop_modulus(count, kLogDropped));
            TaylorPlan plan;
            const double cost = detail::band_products(pmf.n, m, end, taylor_on, plan);
            if (cost > detail::band_row_limit(m, direct_on, cost)) {
                forward_rows({r}, m, spec.data() + r * bins);   // the band is wider than estimated: the full transform
                continue;
            }
            if (plan.terms > 0) {  // block moments, kept in long double
                band_long[r].resize(static_cast<std::size_t>(end));
                taylor_band(pmf.p, pmf.n, m, end, plan, fft, band_long[r].data());
                for (std::int64_t k = 0; k < end; ++k)
                    spec[r * bins + k] = std::complex<double>(static_cast<double>(band_long[r][k].real()),
                                                              static_cast<double>(band_long[r][k].imag()));
                band_bounds[r] = {taylor_bin_error(l1, pmf.n, plan, true), taylor_bin_error(l1, pmf.n, plan, false)};
            } else {
                if (!table) table.reset(new TwiddleTable(m));
                for (std::int64_t k = 0; k < end; ++k) spec[r * bins + k] = direct_bin(pmf.p, pmf.n, k, *table);
                band_bounds[r] = {direct_bin_error(l1, pmf.n), direct_bin_error(l1, pmf.n)};
            }
            drop_from[r] = end;
            band_row[r] = 1;
        }
    }
    // Every item's live-bin floors first: |X| <= 1, so the other factors add at most
    // c_j log1p(delta_j): a bin is live only if each factor alone clears the dropped-bin bound
    // log(tau) less that headroom.
    std::vector<std::vector<double>> floors(items);
    std::vector<double> row_floor(rows, std::numeric_limits<double>::infinity());  // the loosest over items
    for (std::int64_t i = 0; i < items; ++i) {
        const std::vector<Term>& terms = windows[i]->terms;
        double headroom = 1.0;
        // 2u sum c: the rounding of the computed log of the perturbed power (the drop test below)
        for (std::size_t j = 0; j < terms.size(); ++j)
            headroom += static_cast<double>(terms[j].count) * (std::log1p(err[item_rows[i][j]]) + 2.0 * u);
        for (std::size_t j = 0; j < terms.size(); ++j) {
            const std::int64_t r = item_rows[i][j];
            floors[i].push_back(std::exp((kLogDropped - headroom) / static_cast<double>(terms[j].count)) - err[r]);
            row_floor[r] = std::min(row_floor[r], floors[i].back());
        }
    }
    // Per row, the low band of bins [0, band[r]) recomputed accurately, their bound direct_err[r] (as
    // doubles in spec) instead of err[r]: up to the highest bin with |X|^c_max above kDirectBandFloor,
    // where the FFT bound's charge there reaches kDirectMinCharge and the accurate bound is the smaller.
    // Where the backend offers a long-double forward transform, one transform per factor gives its rows'
    // bands (pld_long_spectrum.hpp), kept in long double for the power (band_long[r], bound long_err[r]);
    // otherwise blocked direct sums (pld_direct_spectrum.hpp) give them, within a budget of products
    // (else the lowest bins the budget allows), long_err[r] = direct_err[r].  Which bins are chosen only
    // moves the charge.  The floors above keep err[r]: with the smaller bound a dropped bin stays
    // below tau all the more.
    std::vector<std::int64_t> band(rows, 0);
    // Per row with a band, whether its items take the power in long double (long_power_charge) or in double.
    std::vector<char> long_power(rows, 1);
    direct_err = err;
    long_err = err;
    {
        const bool long_fft = direct_on && fft.offers_forward_long();
        std::vector<double> count_max(rows, 0.0);
        for (std::int64_t i = 0; i < items; ++i)
            for (std::size_t j = 0; j < windows[i]->terms.size(); ++j)
                count_max[item_rows[i][j]] =
                    std::max(count_max[item_rows[i][j]], static_cast<double>(windows[i]->terms[j].count));
        const double budget = std::max(kDirectTermsPerPoint * static_cast<double>(m) * stages, kDirectTermsAtLeast);
        std::unique_ptr<TwiddleTable> table;
        std::vector<std::pair<std::int64_t, std::int64_t>> long_rows;  // (factor, row) in rows_of's order
        for (const auto& [key, r] : rows_of) {
            if (!direct_on) break;
            const PmfView& pmf = factors[std::get<0>(key)];
            const double l1 = detail::finite_mass(pmf);
            if (band_row[r]) {  // its band [0, drop_from) came from block moments or direct sums already
                band[r] = drop_from[r];
                direct_err[r] = band_bounds[r].first;
                long_err[r] = band_bounds[r].second;
                continue;
            }
            const double long_bound =
                long_fft ? long_fft_bin_error(l1, pmf.n, m, true) : std::numeric_limits<double>::infinity();
            const double sum_bound = direct_bin_error(l1, pmf.n);
            const double c = count_max[r];
            // |X| <= 1 + err: the estimate below is at most 2 c err sqrt(2 bins); rows under the floor even so
            // (few rounds) skip the scan
            if (!(std::min(long_bound, sum_bound) < err[r] &&
                  2.0 * c * err[r] * std::sqrt(2.0 * static_cast<double>(bins)) >= direct_min_charge))
                continue;
            const double band_sq = std::exp(2.0 * std::log(kDirectBandFloor) / c);  // |X|^2 above it
            std::int64_t top = 0;
            double weight = 0.0;  // sum over the band of |X|^(2 (c - 1))
            for (std::int64_t k = 0; k < bins; ++k) {
                const std::complex<double> x = spec[r * bins + k];
                const double mod_sq = x.real() * x.real() + x.imag() * x.imag();
                if (mod_sq > band_sq) {
                    top = k + 1;
                    weight += std::exp((c - 1.0) * std::log(mod_sq));
                }
            }
            if (!(c * err[r] * std::sqrt(2.0 * weight) >= direct_min_charge) || top == 0) continue;
            // with the band's bins within direct_err[r] (set below), whether the power's own rounding in double
            // would leave a bracket of the row's items kChargesPerBracket charges of direct_min_charge or more
            const auto power_in_long = [&] {
                const double charge = detail::long_power_charge(c, direct_err[r], weight);
                long_power[r] = kChargesPerBracket * charge >= direct_min_charge;
            };
            // The long-double transform where it beats the direct sums' bound, unless the band is so short
            // that its products cost less than the transform (long_fft_products; the row's own numbers only,
            // so an item's path does not depend on its batch).
            const bool sums_cheaper = static_cast<double>(top) * static_cast<double>(pmf.n) <
                                      long_fft_products * static_cast<double>(m) * stages;
            // Block moments for this row alone (its plan depends on its own band) where they cost less than both
            // the long-double transform and the direct sums.
            TaylorPlan plan;
            const double moments = detail::band_products(pmf.n, m, top, taylor_on, plan);
            if (plan.terms > 0 && moments < long_fft_products * static_cast<double>(m) * stages &&
                taylor_bin_error(l1, pmf.n, plan, true) < err[r]) {
                band[r] = top;
                direct_err[r] = taylor_bin_error(l1, pmf.n, plan, true);
                long_err[r] = taylor_bin_error(l1, pmf.n, plan, false);
                band_long[r].resize(static_cast<std::size_t>(top));
                taylor_band(pmf.p, pmf.n, m, top, plan, fft, band_long[r].data());
                std::complex<double>* row = spec.data() + r * bins;
                for (std::int64_t k = 0; k < top; ++k)
                    row[k] = std::complex<double>(static_cast<double>(band_long[r][k].real()),
                                                  static_cast<double>(band_long[r][k].imag()));
                power_in_long();
                continue;
            }
            if (long_bound < err[r] && !(sums_cheaper && sum_bound < err[r])) {
                band[r] = top;
                direct_err[r] = long_bound;
                long_err[r] = long_fft_bin_error(l1, pmf.n, m, false);
                long_rows.push_back({std::get<0>(key), r});
                power_in_long();
                continue;
            }
            if (!(sum_bound < err[r])) continue;
            band[r] = std::min(top, static_cast<std::int64_t>(budget / static_cast<double>(pmf.n)));
            if (band[r] == 0) continue;
            direct_err[r] = long_err[r] = sum_bound;
            power_in_long();
            if (!table) table.reset(new TwiddleTable(m));
            std::complex<double>* row = spec.data() + r * bins;
            const std::int64_t width = band[r];
#pragma omp parallel for schedule(static) if (width * pmf.n > (std::int64_t(1) << 20) && threads != 1)
            for (std::int64_t k = 0; k < width; ++k) row[k] = direct_bin(pmf.p, pmf.n, k, *table);
        }
        // One long-double transform per factor serves its rows (the same bins whichever rows ask, so the same
        // bits alone or batched), keeping the widest band they need.
        std::vector<long double> folded;
        std::vector<std::complex<long double>> kept;
        for (std::size_t first = 0; first < long_rows.size();) {
            const std::int64_t f = long_rows[first].first;
            std::size_t last = first;
            std::int64_t keep = 0;
            for (; last < long_rows.size() && long_rows[last].first == f; ++last)
                keep = std::max(keep, band[long_rows[last].second]);
            const PmfView& pmf = factors[f];
            folded.resize(static_cast<std::size_t>(m));
            fold_long(pmf.p, pmf.n, m, folded.data());
            kept.resize(static_cast<std::size_t>(keep));
            fft.forward_long(1, m, folded.data(), keep, kept.data());
            for (std::size_t j = first; j < last; ++j) {
                const std::int64_t r = long_rows[j].second;
                band_long[r].assign(kept.begin(), kept.begin() + band[r]);
                std::complex<double>* row = spec.data() + r * bins;
                for (std::int64_t k = 0; k < band[r]; ++k)
                    row[k] = std::complex<double>(static_cast<double>(kept[k].real()),
                                                  static_cast<double>(kept[k].imag()));
            }
            first = last;
        }
    }
    // Per row and bin, what the power needs of X alone (|X|, log|X|, log(|X| + delta), arg X and
    // the rounding term), computed once for all the items sharing the row instead of once per item
    // (the same calls on the same numbers, so the same bits), at the bins some item may keep
    // (|X|^2 above the loosest floor squared, widened by 16u; all bins where that floor is not a
    // normal square); an item finding a bin not prepared computes it itself.
    struct BinTerms {
        double mod, lm, lm_pert, arg, rel;
    };
    // Read only where `ready` says so, so left uninitialized (no pass zeroing 40 bytes per bin and row).
    std::unique_ptr<BinTerms[]> prepared(new BinTerms[static_cast<std::size_t>(rows * bins)]);
    std::vector<char> ready(static_cast<std::size_t>(rows * bins), 0);
    const auto bin_terms = [&](std::int64_t r, std::int64_t k) {
        const std::complex<double> x = spec[r * bins + k];
        const double mod = std::abs(x);
        const double lm = std::log(mod);
        const double delta = k < band[r] ? direct_err[r] : err[r];
        return BinTerms{mod, lm, std::log(mod + delta), std::arg(x), (std::isfinite(lm) ? std::fabs(lm) : 0.0) + pi + 2.0};
    };
    // Per row, those bins in increasing order: an item's bins outside its first row's list are dropped
    // (|X|^2 <= f^2 (1 - 16u) <= floor^2 (1 - 8u) for the item's own floor >= f), so it visits only these.
    std::vector<std::vector<std::int64_t>> candidates(rows);
    for (std::int64_t r = 0; r < rows; ++r) {
        const double f = row_floor[r];
        const bool all = !(f > 1e-150);
        const double f_sq = all ? 0.0 : f * f * (1.0 - 16.0 * u);
        // the band of a row whose items take the power in long double there needs none of these (an item of
        // several rows that takes it in double computes them itself)
        const std::int64_t long_band = direct_on && long_power[r] ? band[r] : 0;
        for (std::int64_t k = 0; k < drop_from[r]; ++k) {
            const std::complex<double> x = spec[r * bins + k];
            if (all || x.real() * x.real() + x.imag() * x.imag() > f_sq) {
                if (k >= long_band) {
                    prepared[r * bins + k] = bin_terms(r, k);
                    ready[r * bins + k] = 1;
                }
                candidates[r].push_back(k);
            }
        }
    }
    // Every bin is written by its item below (the live ones' powers, zeros around them), so the buffer is left
    // uninitialized: std::complex<double> storage as pairs of doubles (array-compatible, [complex.numbers]; not
    // default_init.hpp's DefaultInitVector, since std::complex's default constructor itself writes zeros).
    std::unique_ptr<double[]> spectrum_pairs(new double[static_cast<std::size_t>(2 * items * bins)]);
    std::complex<double>* const spectrum = reinterpret_cast<std::complex<double>*>(spectrum_pairs.get());
    std::vector<double> spec_l1(items), d_sum(items), d_sq(items), spec_sq(items);
    // Per item, the live bins [0, live) where it is read through its spectrum (spectral_read), else 0: only
    // where long double has its 64 bits here (pld_spectral_profile.hpp's bound in double exceeds the inverse
    // transform's charge it would replace).
    std::vector<std::int64_t> live(items, 0);
    const bool spectra_on = pessimistic && !reads.empty() && kLongPower && full_long_double_precision();
    static_cast<void>(threads);  // read by the OpenMP clause only
#pragma omp parallel for schedule(dynamic, 1) if (items >= kParallelItems && threads != 1)
    for (std::int64_t i = 0; i < items; ++i) {
        const std::vector<Term>& terms = windows[i]->terms;
        const std::size_t nt = terms.size();
        std::vector<std::int64_t> row(nt);
        std::vector<double> count(nt);
        const std::vector<double>& floor = floors[i];
        for (std::size_t j = 0; j < nt; ++j) {
            row[j] = item_rows[i][j];
            count[j] = static_cast<double>(terms[j].count);
        }
        // The test |X| > floor without a square root where floor^2 is a normal number (no
        // underflow in re^2 + im^2 can then flip it): |X|^2 > floor^2 (1 - 8u), widened by more
        // than the rounding of both squares, so no bin the exact test keeps is dropped here (the
        // kept ones still face the exact test on the perturbed power below).
        std::vector<double> floor_sq(nt);
        bool squares = true;
        for (std::size_t j = 0; j < nt; ++j) {
            floor_sq[j] = floor[j] > 0.0 ? floor[j] * floor[j] * (1.0 - 8.0 * u) : -1.0;
            squares = squares && (floor[j] <= 0.0 || floor[j] > 1e-150);
        }
        double l1 = 0.0, ds = 0.0, dq = 0.0;
        const std::vector<std::int64_t>& visit = candidates[row[0]];
        // bins left at 0, each charged 2 tau (opening comment): those not visited, and those found so below
        std::int64_t dropped = bins - static_cast<std::int64_t>(visit.size());
        std::complex<double>* out = spectrum + i * bins;
        // out[0 .. written) is set: each visited bin's power (0 where dropped), zeros for the bins between; with
        // the sum of |Y_k|^2 in long double over them, in increasing k (the zeros add nothing to it: the same sum)
        std::int64_t written = 0;
        long double sq = 0.0L;
        const auto put = [&](std::int64_t k, std::complex<double> y) {
            if (k > written) std::fill(out + written, out + k, std::complex<double>(0.0, 0.0));
            out[k] = y;
            written = k + 1;
            if (y == std::complex<double>(0.0, 0.0)) return;  // adds 0 to sq: the same sum
            const long double re = y.real(), im = y.imag();
            sq += re * re + im * im;
        };
        for (const std::int64_t k : visit) {
            bool live = true;
            for (std::size_t j = 0; j < nt && live; ++j) {
                const std::complex<double> x = spec[row[j] * bins + k];
                live = k < drop_from[row[j]] &&
                       (squares ? x.real() * x.real() + x.imag() * x.imag() > floor_sq[j] : std::abs(x) > floor[j]);
            }
            if (!live) {
                ++dropped;
                put(k, std::complex<double>(0.0, 0.0));
                continue;
            }
            bool direct = direct_on, any_long = false;
            for (std::size_t j = 0; j < nt && direct; ++j) {
                direct = k < band[row[j]];
                any_long = any_long || long_power[row[j]];
            }
            direct = direct && any_long;
            if (direct) {  // the power in long double (opening comment), its bound with u_L
                constexpr long double two_pi_long = 6.283185307179586476925286766559005768L;
                long double log_mod = 0.0L, log_mod_pert = 0.0L, phase = 0.0L, rel = 0.0L;
                for (std::size_t j = 0; j < nt; ++j) {
                    const std::vector<std::complex<long double>>& kept = band_long[row[j]];
                    const std::complex<long double> x =
                        kept.empty() ? std::complex<long double>(spec[row[j] * bins + k]) : kept[k];
                    const long double re = x.real(), im = x.imag();
                    const long double mod = std::sqrt(re * re + im * im);
                    const long double lm = std::log(mod);
                    const long double c = count[j];
                    log_mod += c * lm;
                    log_mod_pert += c * std::log(mod + static_cast<long double>(long_err[row[j]]));
                    phase += c * std::atan2(im, re);
                    rel += c * ((std::isfinite(lm) ? std::fabs(lm) : 0.0L) + static_cast<long double>(pi) + 2.0L);
                }
                // dropped only if the computed log, raised by its rounding u_L (nt + 8) rel, is below log tau
                if (!(log_mod_pert + u_long * static_cast<long double>(nt + 8) * rel > kLogDropped)) {
                    ++dropped;
                    put(k, std::complex<double>(0.0, 0.0));
                    continue;
                }
                const long double modulus = std::exp(log_mod), perturbed = std::exp(log_mod_pert);
                long double angle = std::fmod(phase, two_pi_long);
                if (angle < 0.0L) angle += two_pi_long;
                put(k, std::complex<double>(static_cast<double>(modulus * std::cos(angle)),
                                            static_cast<double>(modulus * std::sin(angle))));
                const long double rel_long = u_long * (static_cast<long double>(nt + 8) * rel + 64.0L);
                const double d = static_cast<double>((perturbed - modulus) + (perturbed + modulus) * rel_long +
                                                     modulus * static_cast<long double>(u)) * (1.0 + 4.0 * u);
                l1 += static_cast<double>(modulus) * (1.0 + 2.0 * u);
                ds += d;
                dq += d * d;
                continue;
            }
            double log_mod = 0.0, log_mod_pert = 0.0, phase = 0.0, rel = 0.0;
            for (std::size_t j = 0; j < nt; ++j) {
                const std::int64_t at = row[j] * bins + k;
                const BinTerms b = ready[at] ? prepared[at] : bin_terms(row[j], k);
                log_mod += count[j] * b.lm;
                log_mod_pert += count[j] * b.lm_pert;
                phase += count[j] * b.arg;
                rel += count[j] * b.rel;
            }
            if (!(log_mod_pert + 2.0 * u * rel > kLogDropped)) {  // the computed log raised by its rounding 2u rel
                ++dropped;
                put(k, std::complex<double>(0.0, 0.0));
                continue;
            }
            const double modulus = std::exp(log_mod);
            const double angle = detail::floored_mod(phase, two_pi);
            put(k, std::complex<double>(modulus * std::cos(angle), modulus * std::sin(angle)));
            const double d = (std::exp(log_mod_pert) - modulus) + modulus * (2.0 * u * rel);
            l1 += modulus;
            ds += d;
            dq += d * d;
        }
        if (spectra_on && spectral_read(written, m, windows[i]->width, reads[i])) {
            if (written == 0) out[0] = std::complex<double>(0.0, 0.0);  // every bin dropped: Y_0 = 0 read
            live[i] = std::max<std::int64_t>(written, 1);
        } else {
            std::fill(out + written, out + bins, std::complex<double>(0.0, 0.0));
        }
        const double tau2 = 2.0 * kDroppedPower;
        // sq: sum |Y_k|^2 over the half spectrum as handed to the inverse, in long double (n terms: within
        // n u_L relative, far inside the 1e-9 the result is raised by)
        spec_sq[i] = static_cast<double>(sq) * (1.0 + 1e-9);
        spec_l1[i] = 2.0 * l1;
        d_sum[i] = ds + tau2 * static_cast<double>(dropped);
        d_sq[i] = dq + tau2 * tau2 * static_cast<double>(dropped);
    }
    spec.clear();
    spec.shrink_to_fit();
    prepared.reset();
    std::vector<ComposedPMF> result(items);
    // The items read through their spectra keep their live bins; the others' rows move up (in order) and
    // alone go through the inverse transform.
    std::int64_t transformed = 0;
    std::vector<std::int64_t> signal_row(items, -1);
    for (std::int64_t i = 0; i < items; ++i) {
        if (live[i] > 0) {
            const std::complex<double>* row = spectrum + i * bins;
            result[i].spectrum.bins.assign(row, row + live[i]);
            continue;
        }
        if (transformed != i) std::copy(spectrum + i * bins, spectrum + (i + 1) * bins, spectrum + transformed * bins);
        signal_row[i] = transformed++;
    }
    std::unique_ptr<double[]> signal(new double[static_cast<std::size_t>(transformed * m)]);  // written whole
    if (transformed > 0) fft.inverse(transformed, m, spectrum, signal.get());
    spectrum_pairs.reset();
    for (std::int64_t i = 0; i < items; ++i) {
        const Window& w = *windows[i];
        const bool read_spectrum = live[i] > 0;
        const double inverse = read_spectrum ? 0.0 : fft_err * spec_l1[i] / static_cast<double>(m);
        const double spec_err_l2 = std::sqrt(2.0 * d_sq[i]);
        ComposedPMF& r = result[i];
        r.k_lo = w.a_idx;
        r.h = h;
        r.pessimistic = pessimistic;
        r.entry_error = 2.0 * d_sum[i] / static_cast<double>(m) + inverse;
        r.total_error = spec_err_l2 + (read_spectrum ? 0.0 : fft_err * spec_l1[i]);
        r.spectral_l2 = spec_err_l2 / std::sqrt(static_cast<double>(m));
        r.inverse_error = inverse;
        // ||y||_2 = ||Y_full||_2 / sqrt(m) <= sqrt(2 sum_half |Y_k|^2 / m), each operation raised by 1e-9
        r.inverse_l2 = read_spectrum ? 0.0 : fft_err * std::sqrt(2.0 * spec_sq[i] / static_cast<double>(m)) * (1.0 + 1e-9);
        // Only the window is kept: above it lies true mass (charged to +infinity already) and,
        // when m exceeds the window, mass from below it wrapped around (charged now).
        const std::int64_t start = ((w.a_idx - w.lo_full) % m + m) % m;
        if (read_spectrum) {
            r.spectral = true;
            r.spectrum.m = m;
            r.spectrum.start = start;
            r.spectrum.width = w.width;
            r.spectrum.k_lo = w.a_idx;
            r.spectrum.h = h;
        } else {
            // copied (appended: no pass zeroing the window first), then clipped at 0 in place: two passes the
            // compiler vectorizes instead of one of push_backs
            r.p.reserve(static_cast<std::size_t>(w.width));
            const double* row = signal.get() + signal_row[i] * m;
            const std::int64_t first = std::min(w.width, m - start);  // the rest wraps to the front
            r.p.insert(r.p.end(), row + start, row + start + first);
            r.p.insert(r.p.end(), row, row + (w.width - first));
            for (double& v : r.p) v = std::max(v, 0.0);
        }
        if (pessimistic) {
            const double wrapped = m > w.width ? w.charge_below : 0.0;
            r.p_inf = std::min(1.0, w.p_inf + w.charge_above + wrapped);
        } else {
            r.p_inf = w.p_inf;
            r.shift = -(w.charge_above + w.charge_below);
        }
    }
    return result;
}

// Every item's composition.  Items of one FFT length share batched transforms (at most
// group_cells doubles per array per batch), and items of one batch sharing a factor share
// its forward transform; each item's result is the same whether composed alone or batched.
// An item that is one factor once is copied through (no transform, no charge).  threads = 1 keeps
// the per-bin powers on the calling thread (a caller already running one composition per core);
// otherwise a batch of several items runs them on an OpenMP team.  direct_bins = true recomputes the low
// band of many-round rows accurately (the opening comment): charges ~100x smaller after many rounds
// (direct sums), ~1000x (a backend's long-double transform), at up to ~5x the composition's CPU, so only
// worth it where the charge limits the answer (delta near it); false keeps every bin's FFT value and
// bound.  long_fft_products: what a long-double transform is taken to cost, in direct products per
// m ceil(log2 m) (kLongFftProducts; 0 takes it wherever its bound is the smaller).  direct_min_charge: the
// least estimated spectral charge of a row that takes direct bins (kDirectMinCharge; 0: every row whose
// accurate bound is the smaller, for a caller that knows the charge limits its answer).
inline std::vector<ComposedPMF> compose_many(const std::vector<PmfView>& factors, double h,
                                             const std::vector<std::vector<Term>>& items, bool pessimistic,
                                             double tail, std::int64_t max_points, RealFftBackend& fft,
                                             std::int64_t group_cells = std::int64_t(1) << 23, int threads = 0,
                                             bool direct_bins = false, double long_fft_products = kLongFftProducts,
                                             bool band_rows = true, double direct_min_charge = kDirectMinCharge,
                                             const std::vector<SpectralReads>& reads = {}) {
    if (!(h > 0.0 && std::isfinite(h))) throw std::invalid_argument("compose: h must be positive and finite");
    if (!reads.empty() && reads.size() != items.size()) throw std::invalid_argument("compose: one reads per item");
    if (!(direct_min_charge >= 0.0)) throw std::invalid_argument("compose: direct_min_charge must be >= 0");
    if (!(tail > 0.0 && tail < 1.0)) throw std::invalid_argument("compose: tail must lie in (0, 1)");
    const std::int64_t n_items = static_cast<std::int64_t>(items.size());
    std::vector<ComposedPMF> out(n_items);
    std::vector<Window> windows(n_items);
    std::map<std::int64_t, std::vector<std::int64_t>> by_length;
    detail::FactorMoments moments(factors, h);
    for (std::int64_t i = 0; i < n_items; ++i) {
        windows[i] = composition_window(factors, h, items[i], tail, max_points, moments);
        const Window& w = windows[i];
        if (w.terms.size() == 1 && w.terms[0].count == 1) {
            const PmfView& f = factors[w.terms[0].factor];
            out[i].k_lo = f.k_lo;
            out[i].h = h;
            out[i].p.assign(f.p, f.p + f.n);
            out[i].p_inf = f.p_inf;
            out[i].pessimistic = pessimistic;
            continue;
        }
        by_length[fft_length(w.width)].push_back(i);
    }
    for (const auto& [m, members] : by_length) {
        std::vector<const Window*> batch;
        std::vector<std::int64_t> idx;
        std::map<std::int64_t, bool> rows;
        auto flush = [&] {
            if (batch.empty()) return;
            // its FFT buffers (32 bytes per point of every row, 48 for a long-double band in flight) and
            // kept windows, admitted beside the other threads' batches (working_memory_gate.hpp)
            std::int64_t kept = 0;
            for (const Window* w : batch) kept += w->width;
            const std::int64_t rows_held = static_cast<std::int64_t>(std::max(rows.size(), batch.size()));
            const WorkingMemoryGate::Hold held =
                working_memory_gate().admit(m * (32 * rows_held + (direct_bins ? 48 : 0)) + 8 * kept);
            std::vector<SpectralReads> batch_reads;
            if (!reads.empty())
                for (const std::int64_t i : idx) batch_reads.push_back(reads[i]);
            std::vector<ComposedPMF> done = compose_batch(factors, h, batch, m, pessimistic, fft, threads, direct_bins,
                                                          long_fft_products, band_rows, direct_min_charge, batch_reads);
            for (std::size_t j = 0; j < idx.size(); ++j) out[idx[j]] = std::move(done[j]);
            batch.clear();
            idx.clear();
            rows.clear();
        };
        for (const std::int64_t i : members) {
            std::int64_t new_rows = 0;
            for (const Term& t : windows[i].terms) new_rows += rows.count(t.factor) ? 0 : 1;
            const std::int64_t cells = (static_cast<std::int64_t>(std::max(rows.size(), batch.size())) + new_rows + 1) * m;
            if (!batch.empty() && cells > group_cells) flush();
            batch.push_back(&windows[i]);
            idx.push_back(i);
            for (const Term& t : windows[i].terms) rows[t.factor] = true;
        }
        flush();
    }
    // Each factor's losses are off by its shift in every copy.  The k products count x shift (u each) and
    // their running sum ((k - 1) u) put the computed sum within k u of the exact one (all terms >= 0), so
    // it is raised by 2 (k + 2) u, then one ulp.
    for (std::int64_t i = 0; i < n_items; ++i) {
        double shift = 0.0;
        for (const Term& t : items[i]) shift += static_cast<double>(t.count) * factors[t.factor].loss_shift;
        const double k = static_cast<double>(items[i].size());
        out[i].loss_shift = shift > 0.0 ? std::nextafter(shift * (1.0 + (k + 2.0) * std::numeric_limits<double>::epsilon()),
                                                         std::numeric_limits<double>::infinity())
                                        : 0.0;
    }
    return out;
}

}  // namespace pld
}  // namespace hockeystick
