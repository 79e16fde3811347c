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
// (|phase| u_L + 2 pi u_L), its reduction by quarter turns (14 u_L: quarter_turned_phasor), exp, cos,
// sin and the product (8 u_L), then rounding to double (u relative): at most
// u_L ((n_t + 8) sum c_i (|log|X_ik|| + pi + 2) + 78) relative to both
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
// Shared transform (ComposeOptions::shared_transform: the checkpoints of a run).  Items whose windows span an
// octave or more would each take an FFT length of their own, and each length a forward transform of every
// factor.  Instead, with M the FFT length of the call's widest window, each item takes the least divisor
// m = M / s of M at or above its window (M is 5-smooth, so m is too), and a full row at length m is read from
// one length-M transform of its factor: the length-m DFT of the factor folded modulo m is bins 0, s, 2 s, ...
// of the length-M one (e^{-2 pi i j k / m} = e^{-2 pi i j (s k) / M}), each within that transform's bound
// 8 u ceil(log2 M) ||p||_1, which is charged.  Every item keeps its own window; the longer length only moves its
// round-off and dropped-bin charges (and adds the charge of the mass below the window where its own length would
// have equalled its window): 1e-8 in epsilon at delta 1e-5 on 14,100 rounds of sigma 1.1, q 256 / 60000,
// h 1e-4.  So an item's result depends on the call's widest window, certified either way.
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

// The constants of the composition, each with the reason for its value.  Cost models are in units of one
// long-double direct-sum product (pld_direct_spectrum.hpp), so that paths are compared in one currency.

// The mass each cut end of a composition window may leave out (charged, opening comment): far below any delta
// an (eps, delta) guarantee is asked for, so the cut costs nothing a user reads.
constexpr double kDefaultCompositionTail = 1e-15;
// tau of the opening comment's dropped bins: at 2^-64 the 2 tau charge per dropped bin stays below the
// round-off charges it joins, while after many rounds most bins fall below it.
constexpr double kDroppedPower = 0x1p-64;
constexpr double kLogDropped = -44.3614195558365;  // log(tau) = -64 log 2 (to 1e-15: the 2 tau charge covers it)
// Composed supports up to this many grid points are kept whole (no Chernoff cut): their transform costs less
// than the ladder of log-MGFs that would shorten it.
constexpr std::int64_t kWholeSupportWidth = 4096;
// A Chernoff window wider than this many points also tries the fixed lam ladder (chernoff_edges): the Gaussian
// ladder overshoots where the grid variance is near 0, and any lam is valid, so the extra rungs only tighten.
constexpr double kFixedLadderWidth = 1 << 20;
// From this width on, a window whose best Gaussian rung is the ladder's smallest (the sign of that overshoot)
// tries the fixed ladder too: two fast FFT lengths above the whole-support width, where a window the fixed
// rungs may cut costs more to transform than their log-MGFs, which every rounds value of a grid block shares
// (FactorMoments); a window bounded by a middle rung does not pay for them.
constexpr double kOvershotLadderWidth = 4.0 * kWholeSupportWidth;
// One batch holds at most this many doubles per array: rows still share transforms, and one batch's buffers
// stay a small part of the working-memory budget (working_memory_gate.hpp).
constexpr std::int64_t kBatchCells = std::int64_t(1) << 23;
// A batch of fewer items runs its per-bin powers on one thread: the two directions of one PLD gain less than
// an OpenMP team costs (its idle spinning is CPU time on a shared machine).
constexpr std::int64_t kLeastParallelItems = 4;
// A batch whose items visit fewer bins than this in all (their rows' candidate bins, about 30 ns of power each)
// runs its per-bin powers on one thread too: a run's checkpoints read from their spectra keep a few hundred
// bins each, a millisecond of powers that an OpenMP team would follow with as much idle spinning.
constexpr std::int64_t kLeastParallelBins = std::int64_t(1) << 16;
// Direct sums of fewer products than this run on one thread, for the same reason.
constexpr std::int64_t kLeastParallelProducts = std::int64_t(1) << 20;
// A floor above this has a normal square (below 1e-300, far above the least normal 2.2e-308), so comparing
// |X|^2 with floor^2 cannot be flipped by underflow and the square root can be skipped.
constexpr double kNormalSquareFloor = 1e-150;

// Direct bins (the opening comment's accurate low band).  A row takes them only where its estimated spectral
// charge reaches kDirectMinCharge: a hundredth of the least delta (1e-9) whose epsilon brackets are read, so
// below it the accurate bins would not move a bracket the reads resolve.
constexpr double kDirectMinCharge = 1e-11;
// The band ends at the last bin with |X|^c above this (c the row's largest count): beyond it the amplified
// error c |X|^(c-1) delta is a millionth of the peak's.
constexpr double kDirectBandFloor = 1e-6;
// Direct sums cost at most kDirectTermsPerPoint m ceil(log2 m) products per row (about one transform's cost),
// or kDirectTermsAtLeast where that is more, so that short rows get their whole band.
constexpr double kDirectTermsPerPoint = 1.0;
constexpr double kDirectTermsAtLeast = 1 << 19;
// Whether long double is x86-64's 80-bit format (a 64-bit significand, fast in hardware): the accurate paths'
// bounds use u_L = 2^-64, and the power of the direct bins is taken in long double only there.
constexpr bool kLongPower = std::numeric_limits<long double>::digits == 64;
// A long-double transform of length m costs about kLongFftProducts m ceil(log2 m) products: scipy.fft's
// long-double time per m log2 m is about a third of one x87 product's.
constexpr double kLongFftProducts = 0.35;
// A double transform of length m costs about kFftProducts m ceil(log2 m) products: scipy.fft's double time per
// m log2 m is about a tenth of one x87 product's.
constexpr double kFftProducts = 0.1;
// Band rows (pld_band_spectrum.hpp) sample the spectrum from a transform kBandSplit times shorter: the samples
// still certify the band's end (a Lipschitz bound between them) at an eighth of the transform's cost.
constexpr std::int64_t kBandSplit = 8;
// A band row needs at least this many samples: with fewer, the Lipschitz slack (pi / m_f) M1 between samples
// (pld_band_spectrum.hpp) is too wide to certify bins dropped.
constexpr std::int64_t kLeastBandSamples = 16;
// A band row is taken where its estimated band costs at most this fraction of the full row, so that the
// estimate's error rarely makes it the dearer path.
constexpr double kBandGain = 0.8;
// A band from block moments (pld_taylor_spectrum.hpp) costs about kTaylorTermProducts products per signal entry
// and term (its x87 products and sums run 16 at a time), plus its N short long-double transforms.
constexpr double kTaylorTermProducts = 0.4;
// A delta bracket carries a row's charge about three times (added on the pessimistic side, twice subtracted on
// the optimistic one: ComposedPMF), so a row keeps its power in double only where three of its charges stay
// below direct_min_charge (detail::long_power_charge).
constexpr double kChargesPerBracket = 3.0;
// One term of a spectral read (pld_spectral_profile.hpp: a long-double complex step of a geometric sum) costs
// about kSpectralTermCost times a transform's cost per m log2 m, the unit spectral_read compares in.
constexpr double kSpectralTermCost = 80.0;

// How a caller will read an item's composition (either side): `searches` epsilons (a search over the
// grid each) and `points` deltas at given epsilons (compose_many's `reads`; none: the composed window).
struct SpectralReads {
    std::int64_t searches = 0, points = 0;
};

// Whether an item whose composed spectrum keeps `live` bins is kept as those bins rather than as its window:
// where the bins fit pld_spectral_profile.hpp's bounds and reading them (about log2(width) + 3 thresholds per
// search, one per point, `live` terms each) costs less than the inverse transform of length m and the window.
inline bool spectral_read(std::int64_t live, std::int64_t m, std::int64_t width, const SpectralReads& reads) {
    if (reads.searches + reads.points <= 0 || !spectral_bins_fit(std::max<std::int64_t>(live, 1), m)) return false;
    const double thresholds =
        static_cast<double>(reads.searches) * (std::log2(static_cast<double>(std::max<std::int64_t>(width, 1))) + 3.0) +
        static_cast<double>(reads.points);
    return thresholds * static_cast<double>(std::max<std::int64_t>(live, 1)) * kSpectralTermCost <=
           static_cast<double>(m) * std::log2(static_cast<double>(m));
}

// Where one composition's output lives: grid indices a_idx .. a_idx + width - 1 of the full support starting at
// lo_full, and what the cut costs (charged: charge_above and charge_below, each at most the tail).
struct Window {
    std::vector<Term> terms;  // positive counts only
    std::int64_t lo_full = 0, a_idx = 0, width = 0;
    double p_inf = 0.0, charge_above = 0.0, charge_below = 0.0;
};

// The tuning of a composition (compose_many, compose_batch); the defaults are the facade's.
//   group_cells: at most this many doubles per array per batch (kBatchCells).
//   threads: 1 keeps the per-bin powers on the calling thread (a caller already running one composition per
//     core); otherwise a batch of several items runs them on an OpenMP team.
//   direct_bins: recompute the low band of many-round rows accurately (the opening comment): charges ~100x
//     smaller after many rounds (direct sums), ~1000x (a backend's long-double transform), at up to ~5x the
//     composition's CPU, so only worth it where the charge limits the answer (delta near it); false keeps
//     every bin's FFT value and bound.
//   long_fft_products: what a long-double transform is taken to cost, in direct products per m ceil(log2 m)
//     (kLongFftProducts; 0 takes it wherever its bound is the smaller).
//   band_rows: let many-round one-term items take their spectrum from a band row (opening comment).
//   direct_min_charge: the least estimated spectral charge of a row that takes direct bins (kDirectMinCharge;
//     0: every row whose accurate bound is the smaller, for a caller that knows the charge limits its answer).
//   shared_transform: every item's FFT length is the least divisor M / s >= its window of M, the length of the
//     call's widest window, and a full row at length m = M / s is bins 0, s, 2 s, ... of one length-M transform of
//     its factor (sum_j p_j e^{-2 pi i j k / m} = sum_j p_j e^{-2 pi i j (s k) / M}), within that transform's
//     bound 8 u ceil(log2 M) ||p||_1: one forward transform per factor for the whole call, where the items'
//     windows (a run's checkpoints) would each take a length of their own.  An item's result then depends on
//     the call's widest window (its length and bound), not on its own alone; both are certified.
struct ComposeOptions {
    std::int64_t group_cells = kBatchCells;
    int threads = 0;
    bool direct_bins = false;
    double long_fft_products = kLongFftProducts;
    bool band_rows = true;
    double direct_min_charge = kDirectMinCharge;
    bool shared_transform = false;
};

namespace detail {

constexpr double kUnitRoundoff = 0.5 * std::numeric_limits<double>::epsilon();  // u
constexpr long double kUnitRoundoffLong = 0.5L * std::numeric_limits<long double>::epsilon();  // u_L
constexpr double kPi = 3.141592653589793;
constexpr double kTwoPi = 6.283185307179586;
constexpr long double kTwoPiLong = 6.283185307179586476925286766559005768L;
constexpr long double kHalfPiLong = 1.570796326794896619231321691639751442L;

// e^{i angle} for angle in [0, 2 pi]: cos and sin taken at phi = angle - c pi / 2, c the nearest quarter turn
// (0 .. 4), and turned back by c quarter turns (exact), because glibc's x87 cosl and sinl reduce an argument past
// pi / 4 with the multi-precision Payne-Hanek routine, several times their own cost.  phi is within 14 u_L of
// angle - c pi / 2: pi / 2 rounded to long double (c u_L pi / 2 <= 2 pi u_L), the product c kHalfPiLong rounded
// (2 pi u_L) and the difference (u_L pi / 4); so e^{i angle} is off by at most 14 u_L more than cos and sin
// at angle itself.
inline std::complex<long double> quarter_turned_phasor(long double angle) {
    const int c = static_cast<int>(angle / kHalfPiLong + 0.5L);  // truncation rounds: the quotient is >= 0
    const long double phi = angle - static_cast<long double>(c) * kHalfPiLong;
    return quarter_turned(std::cos(phi), std::sin(phi), c);
}

// ceil(log2 m), at least 1: a length-m transform's stages.
inline double fft_stages(std::int64_t m) { return std::max(1.0, std::ceil(std::log2(static_cast<double>(m)))); }

// 8 u ceil(log2 m): a length-m transform's error per unit of its input's l1 norm (pld_fft_backend.hpp).
inline double fft_error_per_mass(std::int64_t m) { return 8.0 * kUnitRoundoff * fft_stages(m); }

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
    const double stages = fft_stages(m);
    const double full = kFftProducts * static_cast<double>(m) * stages;
    return direct ? full + std::min(band, kLongFftProducts * static_cast<double>(m) * stages) : full;
}

// `var`: the factor's loss variance in cells^2 (grid_loss_variance at h = 1).
inline bool band_candidate(const PmfView& f, double var, std::int64_t count, std::int64_t m, bool direct, bool taylor) {
    if (count < 2 || f.n < 1 || !(var > 0.0)) return false;
    const double m_f = static_cast<double>(m / kBandSplit);
    const double gap = -kLogDropped / static_cast<double>(count) + kPi * std::sqrt(var) / m_f;
    const double end = std::sqrt(2.0 * gap / var) * static_cast<double>(m) / kTwoPi + kBandSplit;
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

// chernoff_edges' ladder: 13 rungs lam_i z / s (logspace(-4, -0.5, 8), then 0.5, 0.7, 1, 1.4, 2 times the
// Gaussian optimum z / s, z = sqrt(2 log(1 / tail)), s the composed standard deviation), each snapped, in
// both[0 .. 12] and their negatives in both[13 .. 25]; the walk starts from rungs kFirstRung .. kFirstRung + 2.
constexpr int kLadderRungs = 13, kFirstRung = 9;

// The loss variance of the composition of `terms` (in loss units^2).
inline double composed_variance(FactorMoments& moments, const std::vector<Term>& terms) {
    double var = 0.0;
    for (const Term& t : terms) var += static_cast<double>(t.count) * moments.variance(t.factor);
    return var;
}

// The ladder's 26 lams (both signs) for a composed variance var.
inline void ladder_lams(double var, double tail, double* both) {
    const double z = std::sqrt(2.0 * std::log(1.0 / tail));
    const double big[] = {0.5, 0.7, 1.0, 1.4, 2.0};
    for (int i = 0; i < kLadderRungs; ++i) {  // rungs at least 2^(1/2) apart: distinct once snapped
        const double factor = i < 8 ? std::pow(10.0, -4.0 + 0.5 * i) : big[i - 8];
        both[i] = snapped_lam(factor * z / std::sqrt(std::max(var, 1e-300)));
        both[kLadderRungs + i] = -both[i];
    }
}

// The first rungs of every item's ladder and the three below them, where its walk usually goes next (`ladders`:
// the items whose windows chernoff_edges cuts), computed per factor in full passes of grid_log_mgf before any
// window: the items of one call (a run's checkpoints, a grid block's rounds) share most rungs, and a pass over a
// factor's masses costs about the same for eight lams as for one.  Each K(lam) is the one chernoff_edges would
// compute (FactorMoments), so no window changes.
inline void first_rungs(FactorMoments& moments, const std::vector<const std::vector<Term>*>& ladders, double tail) {
    std::map<std::int64_t, std::vector<double>> lams;  // per factor
    for (const std::vector<Term>* terms : ladders) {
        double both[2 * kLadderRungs];
        ladder_lams(composed_variance(moments, *terms), tail, both);
        for (const Term& t : *terms)
            for (int i = kFirstRung - 3; i <= kFirstRung + 2; ++i)
                for (const double lam : {both[i], both[kLadderRungs + i]}) lams[t.factor].push_back(lam);
    }
    for (auto& [factor, wanted] : lams) {
        std::vector<double> values(wanted.size());
        moments.log_mgf(factor, wanted.data(), static_cast<std::int64_t>(wanted.size()), values.data());
    }
}

// Losses (bottom, top): composed finite mass below bottom and above top each <= tail.
inline void chernoff_edges(FactorMoments& moments, const std::vector<Term>& terms, double h, double tail,
                           double& bottom, double& top) {
    constexpr int ladder = kLadderRungs;
    double both[2 * ladder];
    ladder_lams(composed_variance(moments, terms), tail, both);
    // The bound on each side, (K(lam) - log tail) / lam over lam > 0, is quasiconvex in lam (its sublevel
    // sets {lam : K(lam) - c lam + log(1/tail) <= 0} are intervals, K being convex), so on the ladder its least
    // value is found by walking from the Gaussian optimum (rungs 0.7, 1, 1.4) towards the smaller values
    // until both neighbours of the least are larger or the ladder ends: the same rung values (each K(lam)
    // is formed the same way however many lams share a pass) and the same edges as evaluating every rung,
    // at 3-6 lams per side instead of 13.  Where a value is not finite every rung is evaluated.
    const double log_tail = std::log(tail);
    double score[2][ladder];  // per side (0: top, +lam; 1: bottom, -lam) the quantity minimized
    int lo[2] = {kFirstRung, kFirstRung}, hi[2] = {kFirstRung + 2, kFirstRung + 2};
    std::vector<std::pair<int, int>> need;  // (side, rung)
    for (int side = 0; side < 2; ++side)
        for (int i = kFirstRung; i <= kFirstRung + 2; ++i) need.push_back({side, i});
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
            const int up =
                score[side][hi[side]] == least && hi[side] < ladder - 1 ? std::min(ladder - 1, hi[side] + 2) : hi[side];
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
    const bool overshot = !std::isfinite(top) || !std::isfinite(bottom) || (lo[0] == 0 && score[0][0] == top) ||
                          (lo[1] == 0 && -score[1][0] == bottom);
    // A grid variance near 0 (an optimistic PMF whose mass sits on one grid point while the
    // sampling rate is below h, with a few masses of 1e-15 some grid points away) puts every rung far
    // above the useful lam, and the window spans the whole support (1e9 points for q = 1e-4,
    // sigma = 0.5, 1e5 rounds; 3e5 of 4e5 for sigma 2.6, q 2e-4, 6e4 rounds at h = 2e-4, where lam near
    // 5e3 cuts it to a few hundred).  Then lam is also tried on a fixed ladder in loss units
    // (10^-3 .. 10^6, half decades): any lam is valid, so the edges only tighten, and windows the first
    // ladder already bounds do not pay for it.
    const double width = (top - bottom) / h;
    if (!(width < kFixedLadderWidth) || (overshot && !(width < kOvershotLadderWidth))) {
        constexpr int fixed = 19;
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
    const double rounding = 2.0 * u * (-std::log(kDirectBandFloor) + (kPi + 2.0) * c);
    return (c * delta + rounding) * std::sqrt(2.0 * weight);
}

// numpy's floored modulus (result in [0, b) for b > 0).
inline double floored_mod(double a, double b) {
    double r = std::fmod(a, b);
    if (r != 0.0 && ((r < 0.0) != (b < 0.0))) r += b;
    return r;
}

}  // namespace detail

// An item's positive terms, its mass at +infinity and its full support (w.lo_full and hi_full, grid indices:
// the window before any cut); throws std::invalid_argument / std::length_error outside the domain.
inline Window item_support(const std::vector<PmfView>& factors, const std::vector<Term>& terms, std::int64_t& hi_full) {
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
    w.lo_full = static_cast<std::int64_t>(lo);
    hi_full = static_cast<std::int64_t>(hi);
    return w;
}

// Whether an item's window is cut by Chernoff bounds (its full support is wider than kWholeSupportWidth).
inline bool cut_by_chernoff(const Window& support, std::int64_t hi_full) {
    return hi_full - support.lo_full + 1 > kWholeSupportWidth;
}

// The window of one item from its support (item_support); throws std::length_error above max_points.
inline Window composition_window(Window w, std::int64_t hi_full, double h, double tail, std::int64_t max_points,
                                 detail::FactorMoments& moments) {
    const std::int64_t lo_full = w.lo_full;
    std::int64_t a_idx = lo_full, b_idx = hi_full;
    if (cut_by_chernoff(w, hi_full)) {
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

// Composition of one batch, in phases.  Every phase runs on all the items of the batch; each states its
// invariant once, in the comment of the structure it establishes.
//   plan     batch_plan: which accurate paths this batch may take; plan_rows: which transforms it needs
//   spectrum row_spectra: every row's half spectrum and its bound (full rows, band rows)
//   band     live_floors: the bins a row's items may keep; AccurateBands: the low band recomputed accurately
//   power    prepare_bins, ItemPowers: each item's powered spectrum and the sums its charges are made of
//   charge   inverse_and_charge: the inverse transform, the window copied out, every charge set
namespace detail {

// The plan of a batch: its FFT length m and bins, the FFT's bound per unit of l1 norm, and which paths it
// takes.  Invariant: direct_on, band_on, taylor_on and spectra_on hold only where long double carries its 64
// bits on this thread now (the x87 precision control can be lowered at run time, and those paths' bounds use
// u_L = 2^-64), and threads is 1 where direct bins are asked and some thread of the OpenMP team runs below 64
// bits (a pool thread keeps the control word it was created with), so every bound holds on every thread used.
struct BatchPlan {
    std::int64_t m = 0, bins = 0;
    double stages = 1.0;  // ceil(log2 m), at least 1
    double fft_err = 0.0;  // 8 u stages: a transform's error per unit of its input's l1 norm (pld_fft_backend.hpp)
    bool pessimistic = true;
    int threads = 0;
    bool direct_on = false;  // accurate low bands (ComposeOptions::direct_bins)
    bool band_on = false;  // band rows (pld_band_spectrum.hpp)
    bool taylor_on = false;  // bands from block moments (pld_taylor_spectrum.hpp: the backend's long-double transform)
    bool spectra_on = false;  // items may be kept as their live bins (spectral_read)
    double long_fft_products = kLongFftProducts, direct_min_charge = kDirectMinCharge;
};

inline BatchPlan batch_plan(std::int64_t m, bool pessimistic, const ComposeOptions& options, const RealFftBackend& fft,
                            bool any_reads) {
    BatchPlan plan;
    plan.m = m;
    plan.bins = m / 2 + 1;
    plan.stages = fft_stages(m);
    plan.fft_err = fft_error_per_mass(m);
    plan.pessimistic = pessimistic;
    plan.threads = options.threads;
    if (options.direct_bins && kLongPower && plan.threads != 1 && !team_full_long_double_precision()) plan.threads = 1;
    const bool full_long = kLongPower && full_long_double_precision();
    plan.direct_on = options.direct_bins && full_long;
    plan.band_on = options.band_rows && full_long && m % kBandSplit == 0 && m / kBandSplit >= kLeastBandSamples;
    plan.taylor_on = full_long && fft.offers_forward_long();
    plan.spectra_on = any_reads && full_long;
    plan.long_fft_products = options.long_fft_products;
    plan.direct_min_charge = options.direct_min_charge;
    return plan;
}

// A row of spectrum: (factor, count, band row).  The count is 0 where one row serves every count of the factor
// (no direct bins, not a band row); with direct bins or a band the bins recomputed depend on the count.
using RowKey = std::tuple<std::int64_t, std::int64_t, bool>;

// The rows of a batch and the row each item's term reads.  Invariant: items sharing a key share its row (one
// transform), and a row's content depends on its key, m and the plan alone, so an item's result is the same
// alone or batched.  A one-term item whose power keeps few bins (band_candidate) reads a band row.  Rows are
// numbered full rows first, then band rows, each in the order the items first name them.
struct RowPlan {
    std::vector<RowKey> key;  // per row
    std::vector<std::int64_t> by_key;  // the rows in increasing key order (a factor's rows adjacent)
    std::vector<std::vector<std::int64_t>> item_rows;  // per item and term
    std::vector<std::int64_t> full, coarse;  // rows transformed at length m; band rows
    std::int64_t rows() const { return static_cast<std::int64_t>(key.size()); }
    std::int64_t factor(std::int64_t r) const { return std::get<0>(key[r]); }
    std::int64_t count(std::int64_t r) const { return std::get<1>(key[r]); }
};

inline RowPlan plan_rows(const std::vector<PmfView>& factors, const std::vector<const Window*>& windows,
                         const BatchPlan& plan) {
    const std::int64_t items = static_cast<std::int64_t>(windows.size());
    std::vector<std::vector<RowKey>> item_keys(items);
    std::vector<double> variance(factors.size(), -1.0);  // per factor, in cells^2: one pass over its masses
    const auto variance_of = [&](std::int64_t factor) {
        double& v = variance[static_cast<std::size_t>(factor)];
        if (v < 0.0) v = grid_loss_variance(factors[factor].p, factors[factor].n, 1.0);
        return v;
    };
    for (std::int64_t i = 0; i < items; ++i) {
        const std::vector<Term>& terms = windows[i]->terms;
        const bool band = plan.band_on && terms.size() == 1 && terms[0].count >= 2 &&
                          band_candidate(factors[terms[0].factor], variance_of(terms[0].factor), terms[0].count, plan.m,
                                         plan.direct_on, plan.taylor_on);
        for (const Term& t : terms)
            item_keys[i].push_back(RowKey(t.factor, plan.direct_on || band ? t.count : std::int64_t(0), band));
    }
    std::map<RowKey, std::int64_t> rows_of;
    for (const bool band : {false, true})
        for (const std::vector<RowKey>& keys : item_keys)
            for (const RowKey& k : keys)
                if (std::get<2>(k) == band) rows_of.emplace(k, static_cast<std::int64_t>(rows_of.size()));
    RowPlan rows;
    rows.item_rows.resize(static_cast<std::size_t>(items));
    for (std::int64_t i = 0; i < items; ++i)
        for (const RowKey& k : item_keys[i]) rows.item_rows[i].push_back(rows_of.at(k));
    rows.key.resize(rows_of.size());
    for (const auto& [key, r] : rows_of) {
        rows.key[r] = key;
        rows.by_key.push_back(r);
    }
    for (std::int64_t r = 0; r < rows.rows(); ++r) (std::get<2>(rows.key[r]) ? rows.coarse : rows.full).push_back(r);
    return rows;
}

// The rows' half spectra X (bins 0 .. m / 2) and their bounds.  Invariant: bin k of row r is within err[r] of
// the exact DFT of its factor's masses folded modulo m, within direct_err[r] where k < band[r] (the accurate
// low band, whose long-double values band_long[r] keeps where they came in long double, within long_err[r]);
// every bin from drop_from[r] on is certified dropped for every item of the row (band rows; elsewhere bins).
struct RowSpectra {
    std::int64_t bins = 0;
    std::vector<std::complex<double>> spec;  // rows x bins
    std::vector<double> err, direct_err, long_err;
    std::vector<std::int64_t> drop_from, band;
    std::vector<char> band_row;  // its band [0, drop_from) came from block moments or direct sums already
    std::vector<char> long_power;  // its items take the power of its band in long double (long_power_charge)
    std::vector<std::vector<std::complex<long double>>> band_long;
    std::vector<std::pair<double, double>> band_bounds;  // band rows: (as rounded to double, in long double)
    std::complex<double>* row(std::int64_t r) { return spec.data() + r * bins; }
    const std::complex<double>* row(std::int64_t r) const { return spec.data() + r * bins; }
};

// The rows `which`, each its factor's masses folded modulo `length`, transformed into consecutive rows of out.
inline void forward_rows(const std::vector<PmfView>& factors, const RowPlan& rows,
                         const std::vector<std::int64_t>& which, std::int64_t length, RealFftBackend& fft,
                         std::complex<double>* out) {
    if (which.empty()) return;
    const std::int64_t count = static_cast<std::int64_t>(which.size());
    std::vector<double> signal(static_cast<std::size_t>(count * length), 0.0);
    for (std::int64_t j = 0; j < count; ++j) fold(factors[rows.factor(which[j])], length, signal.data() + j * length);
    fft.forward(count, length, signal.data(), out);
}

// The length-M half spectra of the factors of a call composed with ComposeOptions::shared_transform, each
// transformed on first use and kept for the call: a full row at length m dividing M reads its bins from it.
class SharedTransform {
  public:
    SharedTransform(const std::vector<PmfView>& factors, std::int64_t M, RealFftBackend& fft)
        : factors_(factors), M_(M), fft_(fft), half_(factors.size()) {
        std::int64_t r = M;  // M's divisors: M is 5-smooth (fft_length), so products of its 2s, 3s and 5s
        std::vector<std::int64_t> primes;
        for (const std::int64_t f : {2, 3, 5})
            while (r % f == 0) {
                primes.push_back(f);
                r /= f;
            }
        divisors_ = {1};
        for (const std::int64_t f : primes) {
            std::vector<std::int64_t> more;
            for (const std::int64_t d : divisors_) more.push_back(d * f);
            divisors_.insert(divisors_.end(), more.begin(), more.end());
            std::sort(divisors_.begin(), divisors_.end());
            divisors_.erase(std::unique(divisors_.begin(), divisors_.end()), divisors_.end());
        }
    }

    // The least divisor of M that is >= width (M where width > M).
    std::int64_t length(std::int64_t width) const {
        const auto it = std::lower_bound(divisors_.begin(), divisors_.end(), width);
        return it == divisors_.end() ? M_ : *it;
    }

    bool serves(std::int64_t m) const { return m >= 1 && M_ % m == 0; }

    // What the kept half spectra may hold: 16 bytes per bin of every factor.
    std::int64_t bytes() const { return 16 * (M_ / 2 + 1) * static_cast<std::int64_t>(half_.size()); }

    // The bound of every bin read here per unit of the factor's l1 norm: the length-M transform's.
    double error_per_mass() const { return fft_error_per_mass(M_); }

    // row[k] = bin k of the factor's length-m DFT (m divides M) for k = 0 .. m / 2.
    void read(std::int64_t factor, std::int64_t m, std::complex<double>* row) {
        std::vector<std::complex<double>>& half = half_[static_cast<std::size_t>(factor)];
        if (half.empty()) {
            std::vector<double> signal(static_cast<std::size_t>(M_), 0.0);
            fold(factors_[factor], M_, signal.data());
            half.resize(static_cast<std::size_t>(M_ / 2 + 1));
            fft_.forward(1, M_, signal.data(), half.data());
        }
        const std::int64_t stride = M_ / m;
        for (std::int64_t k = 0; k <= m / 2; ++k) row[k] = half[static_cast<std::size_t>(stride * k)];
    }

  private:
    const std::vector<PmfView>& factors_;
    std::int64_t M_;
    RealFftBackend& fft_;
    std::vector<std::vector<std::complex<double>>> half_;
    std::vector<std::int64_t> divisors_;
};

// Band rows: samples of each at length m / kBandSplit certify the bin from which every bin is dropped (band_end),
// and the band below it comes from block moments (kept in long double) or direct sums, whichever costs less; a
// band found wider than the full row's cost allows takes the full transform instead (pld_band_spectrum.hpp).
inline void band_row_spectra(const std::vector<PmfView>& factors, const RowPlan& rows, const BatchPlan& plan,
                             RealFftBackend& fft, RowSpectra& s) {
    const std::int64_t m = plan.m, m_f = m / kBandSplit, bins_f = m_f / 2 + 1;
    std::vector<std::complex<double>> coarse(rows.coarse.size() * static_cast<std::size_t>(bins_f));
    forward_rows(factors, rows, rows.coarse, m_f, fft, coarse.data());
    std::unique_ptr<TwiddleTable> table;
    s.band_bounds.resize(static_cast<std::size_t>(rows.rows()));
    for (std::size_t j = 0; j < rows.coarse.size(); ++j) {
        const std::int64_t r = rows.coarse[j];
        const PmfView& pmf = factors[rows.factor(r)];
        const double l1 = finite_mass(pmf);
        const double slack =
            (folded_bin_error(l1, pmf.n, m_f) + kPi / static_cast<double>(m_f) * first_absolute_moment(pmf.p, pmf.n)) *
            (1.0 + 4.0 * kUnitRoundoff);
        const double count = static_cast<double>(rows.count(r));
        const std::int64_t end = band_end(coarse.data() + static_cast<std::int64_t>(j) * bins_f, m_f, kBandSplit,
                                          s.bins, slack, certified_drop_modulus(count, kLogDropped));
        TaylorPlan taylor;
        const double cost = band_products(pmf.n, m, end, plan.taylor_on, taylor);
        if (cost > band_row_limit(m, plan.direct_on, cost)) {
            forward_rows(factors, rows, {r}, m, fft, s.row(r));
            continue;
        }
        std::complex<double>* row = s.row(r);
        if (taylor.terms > 0) {
            s.band_long[r].resize(static_cast<std::size_t>(end));
            taylor_band(pmf.p, pmf.n, m, end, taylor, fft, s.band_long[r].data());
            for (std::int64_t k = 0; k < end; ++k)
                row[k] = std::complex<double>(static_cast<double>(s.band_long[r][k].real()),
                                              static_cast<double>(s.band_long[r][k].imag()));
            s.band_bounds[r] = {taylor_bin_error(l1, pmf.n, taylor, true), taylor_bin_error(l1, pmf.n, taylor, false)};
        } else {
            if (!table) table.reset(new TwiddleTable(m));
            for (std::int64_t k = 0; k < end; ++k) row[k] = direct_bin(pmf.p, pmf.n, k, *table);
            s.band_bounds[r] = {direct_bin_error(l1, pmf.n), direct_bin_error(l1, pmf.n)};
        }
        s.drop_from[r] = end;
        s.band_row[r] = 1;
    }
}

// Every row's spectrum: the full rows from one batched transform at length m, the band rows from theirs
// (band_row_spectra).  Establishes RowSpectra's invariant with no accurate band yet (band = 0, direct_err =
// long_err = err, err[r] = 8 u ceil(log2 m) times the factor's l1 norm).
inline RowSpectra row_spectra(const std::vector<PmfView>& factors, const RowPlan& rows, const BatchPlan& plan,
                              RealFftBackend& fft, SharedTransform* shared) {
    const std::int64_t n_rows = rows.rows();
    RowSpectra s;
    s.bins = plan.bins;
    s.spec.resize(static_cast<std::size_t>(n_rows * plan.bins));
    s.err.resize(static_cast<std::size_t>(n_rows));
    s.drop_from.assign(static_cast<std::size_t>(n_rows), plan.bins);
    s.band.assign(static_cast<std::size_t>(n_rows), 0);
    s.band_row.assign(static_cast<std::size_t>(n_rows), 0);
    s.long_power.assign(static_cast<std::size_t>(n_rows), 1);
    s.band_long.resize(static_cast<std::size_t>(n_rows));
    for (std::int64_t r = 0; r < n_rows; ++r) s.err[r] = plan.fft_err * finite_mass(factors[rows.factor(r)]);
    if (shared != nullptr && shared->serves(plan.m)) {
        for (const std::int64_t r : rows.full) {
            shared->read(rows.factor(r), plan.m, s.row(r));
            s.err[r] = shared->error_per_mass() * finite_mass(factors[rows.factor(r)]);
        }
    } else {
        forward_rows(factors, rows, rows.full, plan.m, fft, s.spec.data());
    }
    if (!rows.coarse.empty()) band_row_spectra(factors, rows, plan, fft, s);
    s.direct_err = s.err;
    s.long_err = s.err;
    return s;
}

// The live-bin floors: item[i][j] for term j of item i, and per row the loosest over its items.  Invariant: a
// bin where some term's computed |X| is at most its floor has a perturbed power below tau, so it is dropped
// without its power: |X| <= 1, so the other factors add at most c_j log1p(err_j), and 2u sum c covers the
// rounding of the drop test's log.  The floors use err[r]: with a smaller (accurate) bound a dropped bin stays
// below tau all the more.
struct LiveFloors {
    std::vector<std::vector<double>> item;
    std::vector<double> row;
};

inline LiveFloors live_floors(const std::vector<const Window*>& windows, const RowPlan& rows, const RowSpectra& s) {
    const std::int64_t items = static_cast<std::int64_t>(windows.size());
    LiveFloors floors;
    floors.item.resize(static_cast<std::size_t>(items));
    floors.row.assign(static_cast<std::size_t>(rows.rows()), std::numeric_limits<double>::infinity());
    for (std::int64_t i = 0; i < items; ++i) {
        const std::vector<Term>& terms = windows[i]->terms;
        double headroom = 1.0;
        for (std::size_t j = 0; j < terms.size(); ++j)
            headroom +=
                static_cast<double>(terms[j].count) * (std::log1p(s.err[rows.item_rows[i][j]]) + 2.0 * kUnitRoundoff);
        for (std::size_t j = 0; j < terms.size(); ++j) {
            const std::int64_t r = rows.item_rows[i][j];
            floors.item[i].push_back(std::exp((kLogDropped - headroom) / static_cast<double>(terms[j].count)) -
                                     s.err[r]);
            floors.row[r] = std::min(floors.row[r], floors.item[i].back());
        }
    }
    return floors;
}

// The accurate low band of each row (direct bins): [0, band[r]) recomputed so that its bins are within
// direct_err[r] < err[r], up to the highest bin with |X|^c above kDirectBandFloor (c the row's largest count), in
// a row where the FFT bound's charge there reaches direct_min_charge.  The source is the cheapest whose bound
// beats err[r]: block moments (pld_taylor_spectrum.hpp) where they cost less than the long-double transform;
// else the long-double transform (pld_long_spectrum.hpp, one per factor for all its rows) unless the band's
// direct sums cost less and beat err[r] too; else direct sums within the products budget (the lowest bins it
// allows).  Which bins are chosen only moves the charge; each row's choice reads its own numbers alone, so an
// item's path does not depend on its batch.  Also sets long_power[r]: whether the power of the band in double
// would leave a bracket kChargesPerBracket charges of direct_min_charge or more.
class AccurateBands {
  public:
    AccurateBands(const std::vector<PmfView>& factors, const BatchPlan& plan, RealFftBackend& fft, RowSpectra& s)
        : factors_(factors),
          plan_(plan),
          fft_(fft),
          s_(s),
          long_fft_(plan.direct_on && fft.offers_forward_long()),
          budget_(std::max(kDirectTermsPerPoint * static_cast<double>(plan.m) * plan.stages, kDirectTermsAtLeast)) {}

    void run(const std::vector<const Window*>& windows, const RowPlan& rows) {
        if (!plan_.direct_on) return;
        std::vector<double> count_max(static_cast<std::size_t>(rows.rows()), 0.0);
        for (std::size_t i = 0; i < windows.size(); ++i)
            for (std::size_t j = 0; j < windows[i]->terms.size(); ++j)
                count_max[rows.item_rows[i][j]] =
                    std::max(count_max[rows.item_rows[i][j]], static_cast<double>(windows[i]->terms[j].count));
        for (const std::int64_t r : rows.by_key) {
            if (s_.band_row[r]) {  // its band [0, drop_from) came from block moments or direct sums already
                s_.band[r] = s_.drop_from[r];
                s_.direct_err[r] = s_.band_bounds[r].first;
                s_.long_err[r] = s_.band_bounds[r].second;
                continue;
            }
            full_row(rows.factor(r), r, count_max[r]);
        }
        long_transform_bands();
    }

  private:
    // The band of the full row r (factor `factor`, largest count c), or none.
    void full_row(std::int64_t factor, std::int64_t r, double c) {
        const PmfView& pmf = factors_[factor];
        const double l1 = finite_mass(pmf);
        const double err = s_.err[r];
        const double long_bound =
            long_fft_ ? long_fft_bin_error(l1, pmf.n, plan_.m, true) : std::numeric_limits<double>::infinity();
        const double sum_bound = direct_bin_error(l1, pmf.n);
        // |X| <= 1 + err: the charge estimate is at most 2 c err sqrt(2 bins); rows under the floor even so (few
        // rounds) skip the scan
        if (!(std::min(long_bound, sum_bound) < err &&
              2.0 * c * err * std::sqrt(2.0 * static_cast<double>(s_.bins)) >= plan_.direct_min_charge))
            return;
        double weight = 0.0;  // sum over the band of |X|^(2 (c - 1))
        const std::int64_t top = band_top(s_.row(r), c, weight);
        if (!(c * err * std::sqrt(2.0 * weight) >= plan_.direct_min_charge) || top == 0) return;
        // the long-double transform unless the band is so short that its direct sums cost less
        const bool sums_cheaper = static_cast<double>(top) * static_cast<double>(pmf.n) <
                                  plan_.long_fft_products * static_cast<double>(plan_.m) * plan_.stages;
        TaylorPlan taylor;
        const double moments = band_products(pmf.n, plan_.m, top, plan_.taylor_on, taylor);
        if (taylor.terms > 0 && moments < plan_.long_fft_products * static_cast<double>(plan_.m) * plan_.stages &&
            taylor_bin_error(l1, pmf.n, taylor, true) < err) {
            s_.band[r] = top;
            s_.direct_err[r] = taylor_bin_error(l1, pmf.n, taylor, true);
            s_.long_err[r] = taylor_bin_error(l1, pmf.n, taylor, false);
            s_.band_long[r].resize(static_cast<std::size_t>(top));
            taylor_band(pmf.p, pmf.n, plan_.m, top, taylor, fft_, s_.band_long[r].data());
            std::complex<double>* row = s_.row(r);
            for (std::int64_t k = 0; k < top; ++k)
                row[k] = std::complex<double>(static_cast<double>(s_.band_long[r][k].real()),
                                              static_cast<double>(s_.band_long[r][k].imag()));
            set_long_power(r, c, weight);
            return;
        }
        if (long_bound < err && !(sums_cheaper && sum_bound < err)) {
            s_.band[r] = top;
            s_.direct_err[r] = long_bound;
            s_.long_err[r] = long_fft_bin_error(l1, pmf.n, plan_.m, false);
            long_rows_.push_back({factor, r});
            set_long_power(r, c, weight);
            return;
        }
        if (!(sum_bound < err)) return;
        s_.band[r] = std::min(top, static_cast<std::int64_t>(budget_ / static_cast<double>(pmf.n)));
        if (s_.band[r] == 0) return;
        s_.direct_err[r] = s_.long_err[r] = sum_bound;
        set_long_power(r, c, weight);
        if (!table_) table_.reset(new TwiddleTable(plan_.m));
        std::complex<double>* row = s_.row(r);
        const std::int64_t width = s_.band[r];
        const TwiddleTable& table = *table_;
#pragma omp parallel for schedule(static) if (width * pmf.n > kLeastParallelProducts && plan_.threads != 1)
        for (std::int64_t k = 0; k < width; ++k) row[k] = direct_bin(pmf.p, pmf.n, k, table);
    }

    // The end of the band of a row whose largest count is c (one past the highest bin with |X|^c above
    // kDirectBandFloor; 0: none) and, in weight, the sum over those bins of |X|^(2 (c - 1)).
    std::int64_t band_top(const std::complex<double>* row, double c, double& weight) const {
        const double band_sq = std::exp(2.0 * std::log(kDirectBandFloor) / c);  // |X|^2 above it
        std::int64_t top = 0;
        for (std::int64_t k = 0; k < s_.bins; ++k) {
            const double mod_sq = row[k].real() * row[k].real() + row[k].imag() * row[k].imag();
            if (mod_sq > band_sq) {
                top = k + 1;
                weight += std::exp((c - 1.0) * std::log(mod_sq));
            }
        }
        return top;
    }

    // Whether the band's items take the power in long double, its bins within direct_err[r] (set before).
    void set_long_power(std::int64_t r, double c, double weight) {
        s_.long_power[r] =
            kChargesPerBracket * long_power_charge(c, s_.direct_err[r], weight) >= plan_.direct_min_charge;
    }

    // One long-double transform per factor serves its rows (the same bins whichever rows ask, so the same bits
    // alone or batched), keeping the widest band they need; long_rows_ lists a factor's rows together (key order).
    void long_transform_bands() {
        std::vector<long double> folded;
        std::vector<std::complex<long double>> kept;
        for (std::size_t first = 0; first < long_rows_.size();) {
            const std::int64_t f = long_rows_[first].first;
            std::size_t last = first;
            std::int64_t keep = 0;
            for (; last < long_rows_.size() && long_rows_[last].first == f; ++last)
                keep = std::max(keep, s_.band[long_rows_[last].second]);
            const PmfView& pmf = factors_[f];
            folded.resize(static_cast<std::size_t>(plan_.m));
            fold_long(pmf.p, pmf.n, plan_.m, folded.data());
            kept.resize(static_cast<std::size_t>(keep));
            fft_.forward_long(1, plan_.m, folded.data(), keep, kept.data());
            for (std::size_t j = first; j < last; ++j) {
                const std::int64_t r = long_rows_[j].second;
                s_.band_long[r].assign(kept.begin(), kept.begin() + s_.band[r]);
                std::complex<double>* row = s_.row(r);
                for (std::int64_t k = 0; k < s_.band[r]; ++k)
                    row[k] =
                        std::complex<double>(static_cast<double>(kept[k].real()), static_cast<double>(kept[k].imag()));
            }
            first = last;
        }
    }

    const std::vector<PmfView>& factors_;
    const BatchPlan& plan_;
    RealFftBackend& fft_;
    RowSpectra& s_;
    const bool long_fft_;
    const double budget_;
    std::unique_ptr<TwiddleTable> table_;
    std::vector<std::pair<std::int64_t, std::int64_t>> long_rows_;  // (factor, row) in key order
};

// What the power in double needs of one bin X of a row alone: |X|, log|X|, log(|X| + delta), arg X and the
// rounding term |log|X|| + pi + 2 (delta = direct_err in the accurate band, err elsewhere).
struct BinTerms {
    double mod, lm, lm_pert, arg, rel;
};

inline BinTerms bin_terms(const RowSpectra& s, std::int64_t r, std::int64_t k) {
    const std::complex<double> x = s.row(r)[k];
    const double mod = std::abs(x);
    const double lm = std::log(mod);
    const double delta = k < s.band[r] ? s.direct_err[r] : s.err[r];
    return BinTerms{mod, lm, std::log(mod + delta), std::arg(x), (std::isfinite(lm) ? std::fabs(lm) : 0.0) + kPi + 2.0};
}

// Per row, the bins some item may keep (candidates, increasing) and their BinTerms computed once for all the
// items sharing the row (the same calls on the same numbers, so the same bits as an item computing them).
// Invariant: a bin of an item's first row that is not a candidate is dropped for that item (|X|^2 <= f^2 (1 -
// 16u) <= floor^2 (1 - 8u) for the item's own floor >= the row's loosest f), so an item visits only these;
// terms[r * bins + k] is read only where ready says so (left unwritten elsewhere: no pass zeroing 40 bytes per
// bin and row), and not prepared in a band whose items take the power in long double.
struct PreparedBins {
    std::unique_ptr<BinTerms[]> terms;
    std::vector<char> ready;
    std::vector<std::vector<std::int64_t>> candidates;
};

inline PreparedBins prepare_bins(const RowSpectra& s, const std::vector<double>& row_floor, const BatchPlan& plan) {
    const std::int64_t n_rows = static_cast<std::int64_t>(s.err.size()), bins = s.bins;
    PreparedBins prepared;
    prepared.terms.reset(new BinTerms[static_cast<std::size_t>(n_rows * bins)]);
    prepared.ready.assign(static_cast<std::size_t>(n_rows * bins), 0);
    prepared.candidates.resize(static_cast<std::size_t>(n_rows));
    for (std::int64_t r = 0; r < n_rows; ++r) {
        const double f = row_floor[r];
        const bool all = !(f > kNormalSquareFloor);  // then every bin: f^2 is not a normal square
        const double f_sq = all ? 0.0 : f * f * (1.0 - 16.0 * kUnitRoundoff);
        const std::int64_t long_band = plan.direct_on && s.long_power[r] ? s.band[r] : 0;
        const std::complex<double>* row = s.row(r);
        for (std::int64_t k = 0; k < s.drop_from[r]; ++k) {
            const std::complex<double> x = row[k];
            if (all || x.real() * x.real() + x.imag() * x.imag() > f_sq) {
                if (k >= long_band) {
                    prepared.terms[r * bins + k] = bin_terms(s, r, k);
                    prepared.ready[r * bins + k] = 1;
                }
                prepared.candidates[r].push_back(k);
            }
        }
    }
    return prepared;
}

// The sums an item's charges are made of (inverse_and_charge), over its powered half spectrum Y:
//   spec_l1 = 2 sum |Y_k| (the full spectrum's l1 norm, bounding the inverse's round-off), spec_sq = sum |Y_k|^2
//   raised by 1e-9 (its long-double sum's rounding, n u_L relative, far inside), d_sum = sum |dY_k| and d_sq =
//   sum |dY_k|^2 with each dropped bin's 2 tau; live: the bins [0, live) it is read through (spectral_read), or 0.
struct ItemSums {
    double spec_l1 = 0.0, spec_sq = 0.0, d_sum = 0.0, d_sq = 0.0;
    std::int64_t live = 0;
};

// Writes an item's half spectrum in increasing k: out[0 .. written) holds each visited bin's power (0 where
// dropped) and zeros for the bins between; sq sums |Y_k|^2 in long double over them (the zeros add nothing to
// it, so skipping them gives the same sum).
struct HalfSpectrumWriter {
    std::complex<double>* out;
    std::int64_t written = 0;
    long double sq = 0.0L;
    void put(std::int64_t k, std::complex<double> y) {
        if (k > written) std::fill(out + written, out + k, std::complex<double>(0.0, 0.0));
        out[k] = y;
        written = k + 1;
        if (y == std::complex<double>(0.0, 0.0)) return;
        const long double re = y.real(), im = y.imag();
        sq += re * re + im * im;
    }
};

// One live bin's power Y = prod X_j^c_j and its error bound d (the opening comment): y, the modulus it adds to
// the l1 sum, and d; dropped where the computed log of the perturbed power, raised by its rounding, is below
// log tau (then Y = 0 is charged 2 tau by the caller).
struct BinPower {
    bool dropped = false;
    std::complex<double> y;
    double modulus = 0.0, d = 0.0;
    static BinPower drop() {
        BinPower p;
        p.dropped = true;
        return p;
    }
};

// The powers of one item's bins, from the rows' spectra and the prepared terms.
class ItemPowers {
  public:
    ItemPowers(const RowSpectra& s, const PreparedBins& prepared, const BatchPlan& plan)
        : s_(s), prepared_(prepared), plan_(plan) {}

    // Item `terms` reading rows `rows` with floors `floor`: its half spectrum into out (every bin written, or the
    // live ones only where it is read through its spectrum: `read`, its width) and its sums.
    ItemSums operator()(const std::vector<Term>& terms, const std::vector<std::int64_t>& rows,
                        const std::vector<double>& floor, const SpectralReads* read, std::int64_t width,
                        std::complex<double>* out) const {
        const std::size_t nt = terms.size();
        std::vector<double> count(nt);
        for (std::size_t j = 0; j < nt; ++j) count[j] = static_cast<double>(terms[j].count);
        // The test |X| > floor without a square root where floor^2 is a normal number (no underflow in re^2 +
        // im^2 can then flip it): |X|^2 > floor^2 (1 - 8u), widened by more than the rounding of both squares,
        // so no bin the exact test keeps is dropped here (the kept ones still face the exact test on the
        // perturbed power).
        std::vector<double> floor_sq(nt);
        bool squares = true;
        for (std::size_t j = 0; j < nt; ++j) {
            floor_sq[j] = floor[j] > 0.0 ? floor[j] * floor[j] * (1.0 - 8.0 * kUnitRoundoff) : -1.0;
            squares = squares && (floor[j] <= 0.0 || floor[j] > kNormalSquareFloor);
        }
        double l1 = 0.0, ds = 0.0, dq = 0.0;
        const std::vector<std::int64_t>& visit = prepared_.candidates[rows[0]];
        // bins left at 0, each charged 2 tau (opening comment): those not visited, and those found so below
        std::int64_t dropped = s_.bins - static_cast<std::int64_t>(visit.size());
        HalfSpectrumWriter writer{out};
        for (const std::int64_t k : visit) {
            bool live = true;
            for (std::size_t j = 0; j < nt && live; ++j) {
                const std::complex<double> x = s_.row(rows[j])[k];
                live = k < s_.drop_from[rows[j]] &&
                       (squares ? x.real() * x.real() + x.imag() * x.imag() > floor_sq[j] : std::abs(x) > floor[j]);
            }
            const BinPower p =
                live ? (in_long_band(rows, k) ? long_double_power(rows, count, k) : double_power(rows, count, k))
                     : BinPower::drop();
            if (p.dropped) {
                ++dropped;
                writer.put(k, std::complex<double>(0.0, 0.0));
                continue;
            }
            writer.put(k, p.y);
            l1 += p.modulus;
            ds += p.d;
            dq += p.d * p.d;
        }
        ItemSums sums;
        if (plan_.spectra_on && spectral_read(writer.written, plan_.m, width, *read)) {
            if (writer.written == 0) out[0] = std::complex<double>(0.0, 0.0);  // every bin dropped: Y_0 = 0 read
            sums.live = std::max<std::int64_t>(writer.written, 1);
        } else {
            std::fill(out + writer.written, out + s_.bins, std::complex<double>(0.0, 0.0));
        }
        const double tau2 = 2.0 * kDroppedPower;
        sums.spec_sq = static_cast<double>(writer.sq) * (1.0 + 1e-9);
        sums.spec_l1 = 2.0 * l1;
        sums.d_sum = ds + tau2 * static_cast<double>(dropped);
        sums.d_sq = dq + tau2 * tau2 * static_cast<double>(dropped);
        return sums;
    }

  private:
    // Whether bin k is powered in long double: direct bins on, every factor's accurate band holds it, and some
    // factor's row asked for the long-double power (long_power).
    bool in_long_band(const std::vector<std::int64_t>& rows, std::int64_t k) const {
        bool direct = plan_.direct_on, any_long = false;
        for (std::size_t j = 0; j < rows.size() && direct; ++j) {
            direct = k < s_.band[rows[j]];
            any_long = any_long || s_.long_power[rows[j]];
        }
        return direct && any_long;
    }

    // The power in long double (opening comment), its bound with u_L: from the long-double bins where the band
    // came in long double (perturbed by long_err), else from the double ones (direct_err).
    BinPower long_double_power(const std::vector<std::int64_t>& rows, const std::vector<double>& count,
                               std::int64_t k) const {
        const std::size_t nt = rows.size();
        long double log_mod = 0.0L, log_mod_pert = 0.0L, phase = 0.0L, rel = 0.0L;
        for (std::size_t j = 0; j < nt; ++j) {
            const std::vector<std::complex<long double>>& kept = s_.band_long[rows[j]];
            const std::complex<long double> x = kept.empty() ? std::complex<long double>(s_.row(rows[j])[k]) : kept[k];
            const long double re = x.real(), im = x.imag();
            const long double mod = std::sqrt(re * re + im * im);
            const long double lm = std::log(mod);
            const long double c = count[j];
            log_mod += c * lm;
            log_mod_pert += c * std::log(mod + static_cast<long double>(s_.long_err[rows[j]]));
            phase += c * std::atan2(im, re);
            rel += c * ((std::isfinite(lm) ? std::fabs(lm) : 0.0L) + static_cast<long double>(kPi) + 2.0L);
        }
        // dropped only if the computed log, raised by its rounding u_L (nt + 8) rel, is below log tau
        if (!(log_mod_pert + kUnitRoundoffLong * static_cast<long double>(nt + 8) * rel > kLogDropped))
            return BinPower::drop();
        const long double modulus = std::exp(log_mod), perturbed = std::exp(log_mod_pert);
        long double angle = std::fmod(phase, kTwoPiLong);
        if (angle < 0.0L) angle += kTwoPiLong;
        const std::complex<long double> turn = quarter_turned_phasor(angle);
        BinPower p;
        p.y = std::complex<double>(static_cast<double>(modulus * turn.real()),
                                   static_cast<double>(modulus * turn.imag()));
        const long double rel_long = kUnitRoundoffLong * (static_cast<long double>(nt + 8) * rel + 78.0L);
        p.d = static_cast<double>((perturbed - modulus) + (perturbed + modulus) * rel_long +
                                  modulus * static_cast<long double>(kUnitRoundoff)) *
              (1.0 + 4.0 * kUnitRoundoff);
        p.modulus = static_cast<double>(modulus) * (1.0 + 2.0 * kUnitRoundoff);
        return p;
    }

    // The power in double in polar form, its rounding 2u sum c_i (|log|X_ik|| + pi + 2) relative.
    BinPower double_power(const std::vector<std::int64_t>& rows, const std::vector<double>& count,
                          std::int64_t k) const {
        double log_mod = 0.0, log_mod_pert = 0.0, phase = 0.0, rel = 0.0;
        for (std::size_t j = 0; j < rows.size(); ++j) {
            const std::int64_t at = rows[j] * s_.bins + k;
            const BinTerms b = prepared_.ready[at] ? prepared_.terms[at] : bin_terms(s_, rows[j], k);
            log_mod += count[j] * b.lm;
            log_mod_pert += count[j] * b.lm_pert;
            phase += count[j] * b.arg;
            rel += count[j] * b.rel;
        }
        // the computed log raised by its rounding 2u rel
        if (!(log_mod_pert + 2.0 * kUnitRoundoff * rel > kLogDropped)) return BinPower::drop();
        BinPower p;
        p.modulus = std::exp(log_mod);
        const double angle = floored_mod(phase, kTwoPi);
        p.y = std::complex<double>(p.modulus * std::cos(angle), p.modulus * std::sin(angle));
        p.d = (std::exp(log_mod_pert) - p.modulus) + p.modulus * (2.0 * kUnitRoundoff * rel);
        return p;
    }

    const RowSpectra& s_;
    const PreparedBins& prepared_;
    const BatchPlan& plan_;
};

// Every item's powered half spectrum (items x bins, row i item i's) and its sums.
struct PoweredSpectra {
    // every bin is written by its item (the live ones' powers, zeros around them), so the buffer is left
    // unwritten: std::complex<double> storage as pairs of doubles (array-compatible, [complex.numbers]; not
    // default_init.hpp's DefaultInitVector, since std::complex's default constructor itself writes zeros)
    std::unique_ptr<double[]> pairs;
    std::complex<double>* spectrum = nullptr;
    std::vector<ItemSums> sums;
};

// The phases plan_rows .. ItemPowers: the rows' spectra and bands live only inside this call, so they are freed
// before the inverse transform's buffer is allocated.
inline PoweredSpectra powered_spectra(const std::vector<PmfView>& factors, const std::vector<const Window*>& windows,
                                      const BatchPlan& plan, RealFftBackend& fft,
                                      const std::vector<SpectralReads>& reads, SharedTransform* shared) {
    const std::int64_t items = static_cast<std::int64_t>(windows.size());
    const RowPlan rows = plan_rows(factors, windows, plan);
    RowSpectra s = row_spectra(factors, rows, plan, fft, shared);
    const LiveFloors floors = live_floors(windows, rows, s);
    AccurateBands(factors, plan, fft, s).run(windows, rows);
    const PreparedBins prepared = prepare_bins(s, floors.row, plan);
    PoweredSpectra powered;
    powered.pairs.reset(new double[static_cast<std::size_t>(2 * items * plan.bins)]);
    powered.spectrum = reinterpret_cast<std::complex<double>*>(powered.pairs.get());
    powered.sums.resize(static_cast<std::size_t>(items));
    const ItemPowers power(s, prepared, plan);
    std::int64_t visits = 0;  // the bins the items' powers visit
    for (std::int64_t i = 0; i < items; ++i)
        visits += static_cast<std::int64_t>(prepared.candidates[rows.item_rows[i][0]].size());
    const bool parallel = items >= kLeastParallelItems && visits >= kLeastParallelBins && plan.threads != 1;
    static_cast<void>(parallel);  // read by the OpenMP clause only
#pragma omp parallel for schedule(dynamic, 1) if (parallel)
    for (std::int64_t i = 0; i < items; ++i)
        powered.sums[i] =
            power(windows[i]->terms, rows.item_rows[i], floors.item[i], plan.spectra_on ? &reads[i] : nullptr,
                  windows[i]->width, powered.spectrum + i * plan.bins);
    return powered;
}

// The items' results: those read through their spectra keep their live bins; the others' rows move up (in
// order) and alone go through the inverse transform, whose window is copied out.  Charges (opening comment):
// entry_error = 2 d_sum / m plus the inverse's 8 u ceil(log2 m) spec_l1 / m, total_error = ||dY||_2 plus the
// inverse's 8 u ceil(log2 m) spec_l1, spectral_l2 = ||dY||_2 / sqrt(m), inverse_l2 = 8 u ceil(log2 m) ||Y||_2 /
// sqrt(m) (0 for spectral items, which have no inverse); the mass cut above the window goes to +infinity on the
// pessimistic side, and so does the mass below it where m exceeds the window (it may fold into the window);
// the optimistic side subtracts both (shift).
inline std::vector<ComposedPMF> inverse_and_charge(const std::vector<const Window*>& windows, double h,
                                                   const BatchPlan& plan, RealFftBackend& fft,
                                                   PoweredSpectra& powered) {
    const std::int64_t items = static_cast<std::int64_t>(windows.size()), m = plan.m, bins = plan.bins;
    std::complex<double>* const spectrum = powered.spectrum;
    std::vector<ComposedPMF> result(static_cast<std::size_t>(items));
    std::int64_t transformed = 0;
    std::vector<std::int64_t> signal_row(static_cast<std::size_t>(items), -1);
    for (std::int64_t i = 0; i < items; ++i) {
        const std::int64_t live = powered.sums[i].live;
        if (live > 0) {
            const std::complex<double>* row = spectrum + i * bins;
            result[i].spectrum.bins.assign(row, row + live);
            continue;
        }
        if (transformed != i) std::copy(spectrum + i * bins, spectrum + (i + 1) * bins, spectrum + transformed * bins);
        signal_row[i] = transformed++;
    }
    std::unique_ptr<double[]> signal(new double[static_cast<std::size_t>(transformed * m)]);  // written whole
    if (transformed > 0) fft.inverse(transformed, m, spectrum, signal.get());
    powered.pairs.reset();
    for (std::int64_t i = 0; i < items; ++i) {
        const Window& w = *windows[i];
        const ItemSums& sums = powered.sums[i];
        const bool read_spectrum = sums.live > 0;
        const double inverse = read_spectrum ? 0.0 : plan.fft_err * sums.spec_l1 / static_cast<double>(m);
        const double spec_err_l2 = std::sqrt(2.0 * sums.d_sq);
        ComposedPMF& r = result[i];
        r.k_lo = w.a_idx;
        r.h = h;
        r.pessimistic = plan.pessimistic;
        r.entry_error = 2.0 * sums.d_sum / static_cast<double>(m) + inverse;
        r.total_error = spec_err_l2 + (read_spectrum ? 0.0 : plan.fft_err * sums.spec_l1);
        r.spectral_l2 = spec_err_l2 / std::sqrt(static_cast<double>(m));
        r.inverse_error = inverse;
        // ||y||_2 = ||Y_full||_2 / sqrt(m) <= sqrt(2 sum_half |Y_k|^2 / m), each operation raised by 1e-9
        r.inverse_l2 =
            read_spectrum ? 0.0 : plan.fft_err * std::sqrt(2.0 * sums.spec_sq / static_cast<double>(m)) * (1.0 + 1e-9);
        // the window starts at `start` of the circular signal (the mass below it wrapped around to the end)
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
        if (plan.pessimistic) {
            const double wrapped = m > w.width ? w.charge_below : 0.0;
            r.p_inf = std::min(1.0, w.p_inf + w.charge_above + wrapped);
        } else {
            r.p_inf = w.p_inf;
            r.shift = -(w.charge_above + w.charge_below);
        }
    }
    return result;
}

}  // namespace detail

// Composes the items of one batch on a common FFT length m (>= every window), in the phases above.
inline std::vector<ComposedPMF> compose_batch(const std::vector<PmfView>& factors, double h,
                                              const std::vector<const Window*>& windows, std::int64_t m,
                                              bool pessimistic, RealFftBackend& fft, const ComposeOptions& options = {},
                                              const std::vector<SpectralReads>& reads = {},
                                              detail::SharedTransform* shared = nullptr) {
    const detail::BatchPlan plan = detail::batch_plan(m, pessimistic, options, fft, !reads.empty());
    detail::PoweredSpectra powered = detail::powered_spectra(factors, windows, plan, fft, reads, shared);
    return detail::inverse_and_charge(windows, h, plan, fft, powered);
}

namespace detail {

// An item that is one factor once: the factor itself (no transform, no charge).
inline ComposedPMF copied_through(const PmfView& f, double h, bool pessimistic) {
    ComposedPMF out;
    out.k_lo = f.k_lo;
    out.h = h;
    out.p.assign(f.p, f.p + f.n);
    out.p_inf = f.p_inf;
    out.pessimistic = pessimistic;
    return out;
}

// Each factor's losses are off by its shift in every copy.  The k products count x shift (u each) and their
// running sum ((k - 1) u) put the computed sum within k u of the exact one (all terms >= 0), so it is raised by
// 2 (k + 2) u, then one ulp.
inline double summed_loss_shift(const std::vector<PmfView>& factors, const std::vector<Term>& terms) {
    double shift = 0.0;
    for (const Term& t : terms) shift += static_cast<double>(t.count) * factors[t.factor].loss_shift;
    const double k = static_cast<double>(terms.size());
    return shift > 0.0 ? std::nextafter(shift * (1.0 + (k + 2.0) * std::numeric_limits<double>::epsilon()),
                                        std::numeric_limits<double>::infinity())
                       : 0.0;
}

// The items `members` (indices into windows and out), all of FFT length m, composed in batches of at most
// options.group_cells doubles per array, each admitted at the working-memory gate: its FFT buffers (32 bytes
// per point of every row, 48 more for a long-double band in flight), its kept windows and the call's shared
// half spectra (SharedTransform::bytes, kept between its batches too).
inline void compose_length_group(const std::vector<PmfView>& factors, double h, const std::vector<Window>& windows,
                                 const std::vector<std::int64_t>& members, std::int64_t m, bool pessimistic,
                                 RealFftBackend& fft, const ComposeOptions& options,
                                 const std::vector<SpectralReads>& reads, SharedTransform* shared,
                                 std::vector<ComposedPMF>& out) {
    std::vector<const Window*> batch;
    std::vector<std::int64_t> idx;
    std::map<std::int64_t, bool> rows;
    const auto flush = [&] {
        if (batch.empty()) return;
        std::int64_t kept = 0;
        for (const Window* w : batch) kept += w->width;
        const std::int64_t rows_held = static_cast<std::int64_t>(std::max(rows.size(), batch.size()));
        const WorkingMemoryGate::Hold held = working_memory_gate().admit(
            m * (32 * rows_held + (options.direct_bins ? 48 : 0)) + 8 * kept + (shared ? shared->bytes() : 0));
        std::vector<SpectralReads> batch_reads;
        if (!reads.empty())
            for (const std::int64_t i : idx) batch_reads.push_back(reads[i]);
        std::vector<ComposedPMF> done =
            compose_batch(factors, h, batch, m, pessimistic, fft, options, batch_reads, shared);
        for (std::size_t j = 0; j < idx.size(); ++j) out[idx[j]] = std::move(done[j]);
        batch.clear();
        idx.clear();
        rows.clear();
    };
    for (const std::int64_t i : members) {
        std::int64_t new_rows = 0;
        for (const Term& t : windows[i].terms) new_rows += rows.count(t.factor) ? 0 : 1;
        const std::int64_t cells = (static_cast<std::int64_t>(std::max(rows.size(), batch.size())) + new_rows + 1) * m;
        if (!batch.empty() && cells > options.group_cells) flush();
        batch.push_back(&windows[i]);
        idx.push_back(i);
        for (const Term& t : windows[i].terms) rows[t.factor] = true;
    }
    flush();
}

}  // namespace detail

// Every item's composition: the plan (each item's window, composition_window; items grouped by FFT length),
// then compose_batch per batch.  Items of one FFT length share batched transforms (at most
// options.group_cells doubles per array per batch), and items of one batch sharing a factor share its forward
// transform; each item's result is the same whether composed alone or batched.  An item that is one factor
// once is copied through (no transform, no charge).  reads: per item, how its caller reads it (SpectralReads),
// or none.
inline std::vector<ComposedPMF> compose_many(const std::vector<PmfView>& factors, double h,
                                             const std::vector<std::vector<Term>>& items, bool pessimistic, double tail,
                                             std::int64_t max_points, RealFftBackend& fft,
                                             const ComposeOptions& options = {},
                                             const std::vector<SpectralReads>& reads = {}) {
    if (!(h > 0.0 && std::isfinite(h))) throw std::invalid_argument("compose: h must be positive and finite");
    if (!reads.empty() && reads.size() != items.size()) throw std::invalid_argument("compose: one reads per item");
    if (!(options.direct_min_charge >= 0.0)) throw std::invalid_argument("compose: direct_min_charge must be >= 0");
    if (!(tail > 0.0 && tail < 1.0)) throw std::invalid_argument("compose: tail must lie in (0, 1)");
    const std::int64_t n_items = static_cast<std::int64_t>(items.size());
    std::vector<ComposedPMF> out(n_items);
    std::vector<Window> windows(n_items);
    std::map<std::int64_t, std::vector<std::int64_t>> by_length;
    detail::FactorMoments moments(factors, h);
    std::vector<std::int64_t> hi_full(n_items);
    std::vector<const std::vector<Term>*> ladders;
    for (std::int64_t i = 0; i < n_items; ++i) {
        windows[i] = item_support(factors, items[i], hi_full[i]);
        if (cut_by_chernoff(windows[i], hi_full[i])) ladders.push_back(&windows[i].terms);
    }
    if (ladders.size() > 1) detail::first_rungs(moments, ladders, tail);
    std::vector<std::int64_t> composed;
    std::int64_t widest = 0;
    for (std::int64_t i = 0; i < n_items; ++i) {
        windows[i] = composition_window(std::move(windows[i]), hi_full[i], h, tail, max_points, moments);
        const Window& w = windows[i];
        if (w.terms.size() == 1 && w.terms[0].count == 1) {
            out[i] = detail::copied_through(factors[w.terms[0].factor], h, pessimistic);
        } else {
            composed.push_back(i);
            widest = std::max(widest, w.width);
        }
    }
    std::unique_ptr<detail::SharedTransform> shared;
    if (options.shared_transform && !composed.empty())
        shared.reset(new detail::SharedTransform(factors, fft_length(widest), fft));
    for (const std::int64_t i : composed)
        by_length[shared ? shared->length(windows[i].width) : fft_length(windows[i].width)].push_back(i);
    for (const auto& [m, members] : by_length)
        detail::compose_length_group(factors, h, windows, members, m, pessimistic, fft, options, reads, shared.get(),
                                     out);
    for (std::int64_t i = 0; i < n_items; ++i) out[i].loss_shift = detail::summed_loss_shift(factors, items[i]);
    return out;
}

}  // namespace pld
}  // namespace hockeystick
