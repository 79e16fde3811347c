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
// (computed from the discretized PMFs, log-MGF rounded up: pld/reads/hockey_stick.hpp),
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
// the l1 norm of its input (pld/compose/fft_backend.hpp).  After many rounds that bound, amplified
// about c-fold by the power at the live bins (|X| ~ 1 there), is the whole charge, so in a
// row where that charge reaches kDirectMinCharge (c its largest count) the low-frequency bins
// [0, K) where |X|^c > kDirectBandFloor are recomputed accurately: where the backend offers a
// long-double forward transform (pld/compose/fft_backend.hpp) and the band's direct products would cost
// more than it (kLongFftProducts), from one long-double transform of the factor's row folded in
// long double, kept in long double, each within delta_long ~ 8 u_L ceil(log2 M) ||x||_1
// (pld/compose/long_spectrum.hpp; u_L = 2^-64, so ~2000x below the FFT's 8 u ceil(log2 M) ||x||_1);
// otherwise by direct sums in long double (within a budget of products: kDirectTermsPerPoint),
// each within delta_direct ~ 1.1 u ||x||_1 (pld/compose/direct_spectrum.hpp; 8 u ceil(log2 M) ||x||_1
// is 90-160x that at M = 2^12..2^20).  The other bins keep the FFT's value and bound.  With delta_ik the bound of factor i at
// bin k, the spectrum error obeys |dY_k| <= prod (|X_ik| + delta_ik)^c_i - prod |X_ik|^c_i, plus
// the rounding of the power: taken by repeated squaring, about 2.83 u (C - 1) relative, C = sum c_i, with the
// perturbation bounded by M s / (1 - s), M = prod |X_ik|^c_i, s = sum c_i delta_ik / |X_ik|
// (pld/compose/binary_power.hpp, which states its domain), and outside that domain in polar form
// (2 u sum c_i (|log|X_ik|| + pi + 2) relative).  At a bin where every factor is a direct one and long double
// has 64 bits (x86-64), and the power's rounding in double would leave some factor's row a charge of at least a third of
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
// where smaller: the normwise model (pld/compose/fft_backend.hpp) bounds the inverse transform's own error
// vector by inverse_l2 = 8 u ceil(log2 M) ||Y||_2 / sqrt(M) in Euclidean norm, so over n points it adds
// at most inverse_l2 sqrt(n) (after few rounds ||Y||_1 / M is ~1/20 while ||Y||_2 / sqrt(M) = ||y||_2
// ~ 0.2, and n ~ 1e5 points: sigma 0.5, q 1e-4, 10 rounds, h 8e-5: 1.7e-10 -> ~1e-12, against a
// delta of 1e-9); pld/reads/hockey_stick.hpp's charged_epsilon and the facade's
// GridPMF apply them (added on the pessimistic side, twice subtracted on the optimistic
// side, where negative entries are clipped to 0).
//
// Dropped bins.  A frequency whose perturbed power prod_i (|X_ik| + delta_i)^c_i is at most
// tau = 2^-64 (kDroppedPower) is not powered: its output is 0 and its error, at most the true
// |Y_k| <= that perturbed power, is charged as 2 tau in |dY_k|.  The test is on a certified upper bound of
// the perturbed power (M* / (1 - s) by repeated squaring) or on its computed log raised by its rounding
// (2u rel in polar form, u_L (nt + 8) rel in long double,
// rel = sum_i c_i (|log|X_ik|| + pi + 2), nt factors), which grows with the counts; the per-factor
// floors that skip bins early keep 2u sum_i c_i of headroom for it.  After many rounds the live bins are a narrow low-frequency
// band (|X_k|^T ~ exp(-T var w_k^2 / 2)), so this keeps about sqrt(44 / 746) of the bins the
// underflow bound (-746) would: 1212 instead of 16385 at sigma 1, q 3.8e-3, h 6.4e-4, T = 100.
// The charge adds at most 2 tau (M / 2 + 1) 2 / M ~ 2 tau to entry_error and 2 tau sqrt(M + 2)
// to total_error: 1e-19 and 1e-16 at M = 2^20, below the round-off charges they join.
//
// Band rows.  After many rounds the live band is a few dozen bins of m / 2 + 1, so a one-term item whose
// band is estimated short (band_candidate) takes its factor's spectrum from a transform kBandSplit times
// shorter, which certifies every bin past a band end K as dropped (pld/compose/band_spectrum.hpp: the samples'
// moduli, their error and a Lipschitz bound between them), and the bins below K by direct sums
// (pld/compose/direct_spectrum.hpp, each within delta_direct < the FFT's bound): the same bins are kept and
// charged as with the full transform, at K n products instead of a length-m transform.  Where the backend transforms in long double, a band whose
// block moments cost less than its direct sums takes them instead (pld/compose/taylor_spectrum.hpp: about N n
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
// working_memory_gate() (pld/compose/working_memory_gate.hpp), so their buffers in flight stay within max(its limit,
// the largest single batch).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hockeystick/pld/compose/bands.hpp"
#include "hockeystick/pld/compose/charge.hpp"
#include "hockeystick/pld/compose/options.hpp"
#include "hockeystick/pld/compose/plan.hpp"
#include "hockeystick/pld/compose/power.hpp"
#include "hockeystick/pld/compose/spectrum.hpp"
#include "hockeystick/pld/compose/window.hpp"
#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/pld/compose/working_memory_gate.hpp"

namespace hockeystick {
namespace pld {

// Composition of one batch, in phases.  Every phase runs on all the items of the batch; each states its
// invariant once, in the comment of the structure it establishes.
//   plan     batch_plan: which accurate paths this batch may take; plan_rows: which transforms it needs
//   spectrum row_spectra: every row's half spectrum and its bound (full rows, band rows)
//   band     live_floors: the bins a row's items may keep; AccurateBands: the low band recomputed accurately
//   power    prepare_bins, ItemPowers: each item's powered spectrum and the sums its charges are made of
//   charge   inverse_and_charge: the inverse transform, the window copied out, every charge set

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
    out.loss_shift = f.loss_shift;  // one copy's losses are off by the factor's shift
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

// compose_many's scalar arguments: throws std::invalid_argument outside the domain.
inline void check_compose_arguments(double h, std::size_t items, double tail, const ComposeOptions& options,
                                    const std::vector<SpectralReads>& reads) {
    if (!(h > 0.0 && std::isfinite(h))) throw std::invalid_argument("compose: h must be positive and finite");
    if (!reads.empty() && reads.size() != items) throw std::invalid_argument("compose: one reads per item");
    if (!(options.direct_min_charge >= 0.0)) throw std::invalid_argument("compose: direct_min_charge must be >= 0");
    if (!(tail > 0.0 && tail < 1.0)) throw std::invalid_argument("compose: tail must lie in (0, 1)");
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
    detail::check_compose_arguments(h, items.size(), tail, options, reads);
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
