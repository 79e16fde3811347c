// What a composition of grid PMFs is given and returns, its tuning and its constants: the factors (PmfView) and
// terms (Term), the composed PMF and its charges (ComposedPMF), an item's window (Window), how a caller reads it
// (SpectralReads), the options (ComposeOptions) and the one block of constants, each with the reason for its
// value.  Invariant: every cost model here is in units of one long-double direct-sum product
// (pld/compose/direct_spectrum.hpp), so the paths of pld/compose/compose.hpp's phases are compared in one currency.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "hockeystick/pld/compose/composed_spectrum.hpp"
#include "hockeystick/pld/grid/grid_pmf.hpp"
#include "hockeystick/pld/grid/pmf_view.hpp"

namespace hockeystick {
namespace pld {

// `count` independent copies of factor number `factor`.
struct Term {
    std::int64_t factor = 0;
    std::int64_t count = 0;
};

// A composed PMF and its charges (see pld/compose/compose.hpp's opening comment; the facade's pmf.GridPMF).
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
    // The inverse transform's own error in Euclidean norm (pld/compose/fft_backend.hpp's normwise model):
    // 8 u ceil(log2 M) ||Y||_2 / sqrt(M), Y the half spectrum handed to it (pld/compose/compose.hpp).
    double inverse_l2 = std::numeric_limits<double>::infinity();
    // Where the caller reads the result through its spectrum (compose_many's `reads`): p is empty and
    // spectrum holds the live bins and the window (pld/compose/composed_spectrum.hpp); no inverse transform ran, so
    // inverse_error and inverse_l2 are 0 and total_error is the spectral part alone.
    bool spectral = false;
    ComposedSpectrum spectrum;
    // The sum of p as numpy sums it (support/pairwise_sum.hpp's numpy_sum, the facade's GridPMF.finite_mass), taken
    // by the pass that writes p while it is in cache: on the pessimistic side (the one side whose reads take it,
    // pld/refine/fixed_part.hpp), else empty.
    std::optional<double> finite_mass;
};

// The constants of the composition, each with the reason for its value.  Cost models are in units of one
// long-double direct-sum product (pld/compose/direct_spectrum.hpp), so that paths are compared in one currency.

// The mass each cut end of a composition window may leave out (charged: pld/compose/compose.hpp): far below any delta
// an (eps, delta) guarantee is asked for, so the cut costs nothing a user reads.
constexpr double kDefaultCompositionTail = 1e-15;
// tau of pld/compose/compose.hpp's dropped bins: at 2^-64 the 2 tau charge per dropped bin stays below the
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
// stay a small part of the working-memory budget (pld/compose/working_memory_gate.hpp).
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

// Direct bins (pld/compose/compose.hpp's accurate low band).  A row takes them only where its estimated spectral
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
// Band rows (pld/compose/band_spectrum.hpp) sample the spectrum from a transform kBandSplit times shorter: the samples
// still certify the band's end (a Lipschitz bound between them) at an eighth of the transform's cost.
constexpr std::int64_t kBandSplit = 8;
// A band row needs at least this many samples: with fewer, the Lipschitz slack (pi / m_f) M1 between samples
// (pld/compose/band_spectrum.hpp) is too wide to certify bins dropped.
constexpr std::int64_t kLeastBandSamples = 16;
// A band row is taken where its estimated band costs at most this fraction of the full row, so that the
// estimate's error rarely makes it the dearer path.
constexpr double kBandGain = 0.8;
// A band from block moments (pld/compose/taylor_spectrum.hpp) costs about kTaylorTermProducts products per signal entry
// and term (its x87 products and sums run 16 at a time), plus its N short long-double transforms.
constexpr double kTaylorTermProducts = 0.4;
// A delta bracket carries a row's charge about three times (added on the pessimistic side, twice subtracted on
// the optimistic one: ComposedPMF), so a row keeps its power in double only where three of its charges stay
// below direct_min_charge (detail::long_power_charge).
constexpr double kChargesPerBracket = 3.0;
// One term of a spectral read (pld/reads/spectral_profile.hpp: a long-double complex step of a geometric sum) costs
// about kSpectralTermCost times a transform's cost per m log2 m, the unit spectral_read compares in.
constexpr double kSpectralTermCost = 80.0;

// How a caller will read an item's composition (either side): `searches` epsilons (a search over the
// grid each) and `points` deltas at given epsilons (compose_many's `reads`; none: the composed window).
struct SpectralReads {
    std::int64_t searches = 0, points = 0;
};

// Whether an item whose composed spectrum keeps `live` bins is kept as those bins rather than as its window:
// where the bins fit pld/reads/spectral_profile.hpp's bounds and reading them (about log2(width) + 3 thresholds per
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
//   direct_bins: recompute the low band of many-round rows accurately (pld/compose/compose.hpp): charges ~100x
//     smaller after many rounds (direct sums), ~1000x (a backend's long-double transform), at up to ~5x the
//     composition's CPU, so only worth it where the charge limits the answer (delta near it); false keeps
//     every bin's FFT value and bound.
//   long_fft_products: what a long-double transform is taken to cost, in direct products per m ceil(log2 m)
//     (kLongFftProducts; 0 takes it wherever its bound is the smaller).
//   band_rows: let many-round one-term items take their spectrum from a band row (pld/compose/compose.hpp).
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

constexpr double kPi = 3.141592653589793;
constexpr double kTwoPi = 6.283185307179586;
constexpr long double kTwoPiLong = 6.283185307179586476925286766559005768L;
constexpr long double kHalfPiLong = 1.570796326794896619231321691639751442L;

}  // namespace detail

}  // namespace pld
}  // namespace hockeystick
