// The plan of one batch of a composition (pld/compose/compose.hpp's phase "plan"): which accurate paths it may take
// (batch_plan: BatchPlan) and which transforms it needs (plan_rows: RowPlan), with the cost models that choose
// between a band row and a full row (band_products, band_row_limit, band_candidate).  Invariant: a path whose
// bound uses u_L = 2^-64 is planned only where long double carries its 64 bits on every thread used, and a row's
// content depends on its key, m and the plan alone, so an item's result is the same alone or batched.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "hockeystick/pld/compose/options.hpp"
#include "hockeystick/pld/grid/moments.hpp"
#include "hockeystick/pld/compose/direct_spectrum.hpp"
#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/pld/compose/taylor_spectrum.hpp"

namespace hockeystick {
namespace pld {
namespace detail {

// ceil(log2 m), at least 1: a length-m transform's stages.
inline double fft_stages(std::int64_t m) { return std::max(1.0, std::ceil(std::log2(static_cast<double>(m)))); }

// 8 u ceil(log2 m): a length-m transform's error per unit of its input's l1 norm (pld/compose/fft_backend.hpp).
inline double fft_error_per_mass(std::int64_t m) { return 8.0 * kUnitRoundoff * fft_stages(m); }

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

// Whether `count` copies of factor f on FFT length m likely keep so few bins that the band path
// (pld/compose/band_spectrum.hpp) costs less than the full transform: the band's end estimated from the
// Gaussian shape |X(w)| ~ 1 - var w^2 / 2 (var in cells^2) where 1 - |X| reaches the drop threshold's
// gap 44.4 / count plus the samples' Lipschitz slack (pi / m_f) sd (M1 <= sd; G1's rows: M1 ~ 0.6-0.8 sd,
// and the certified end ~2/3 of this estimate).  An estimate only: band_end certifies, and a band found wider falls back to the full transform.
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

}  // namespace detail

// Whether long double carries its full 64 bits on every thread of the OpenMP team compose_batch's parallel
// regions use (they carry no num_threads clause, so they run on the same pool; a pool thread keeps the x87
// control word it was created with, whatever the calling thread's is now).
inline bool team_full_long_double_precision() {
    bool full = true;
#pragma omp parallel reduction(&& : full)
    full = full_long_double_precision();
    return full;
}

namespace detail {

// The plan of a batch: its FFT length m and bins, the FFT's bound per unit of l1 norm, and which paths it
// takes.  Invariant: direct_on, band_on, taylor_on and spectra_on hold only where long double carries its 64
// bits on this thread now (the x87 precision control can be lowered at run time, and those paths' bounds use
// u_L = 2^-64), and team_allowed() is false where threads is 1, or where direct bins are asked and some thread of
// the OpenMP team runs below 64 bits (a pool thread keeps the control word it was created with), so every bound
// holds on every thread used.
struct BatchPlan {
    std::int64_t m = 0, bins = 0;
    double stages = 1.0;  // ceil(log2 m), at least 1
    // 8 u stages: a transform's error per unit of its input's l1 norm (pld/compose/fft_backend.hpp)
    double fft_err = 0.0;
    bool pessimistic = true;
    int threads = 0;
    bool direct_on = false;  // accurate low bands (ComposeOptions::direct_bins)
    bool band_on = false;  // band rows (pld/compose/band_spectrum.hpp)
    // bands from block moments (pld/compose/taylor_spectrum.hpp: the backend's long-double transform)
    bool taylor_on = false;
    bool spectra_on = false;  // items may be kept as their live bins (spectral_read)
    double long_fft_products = kLongFftProducts, direct_min_charge = kDirectMinCharge;
    bool probe_team = false;  // direct bins asked on a team: team_allowed probes its long double first

    // Whether a parallel region of this batch (one whose work passed its own threshold) may run on the OpenMP
    // team.  The team is probed (team_full_long_double_precision) by the first region that asks, not when the
    // plan is made: the probe is a parallel region itself, and in a batch whose regions all stay on the calling
    // thread it would wake the team only to leave its threads spinning idle after it (cpp/bindings/loops.hpp's
    // parallel_work gives the cost).
    bool team_allowed() const {
        if (threads == 1) return false;
        if (probe_team && team_probe < 0) team_probe = team_full_long_double_precision() ? 1 : 0;
        return !probe_team || team_probe == 1;
    }
    mutable int team_probe = -1;  // team_allowed's probe: -1 not yet asked, else its answer
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
    plan.probe_team = options.direct_bins && kLongPower && plan.threads != 1;
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

// Each item's row keys, one per term: a one-term item whose power keeps few bins (band_candidate) reads a band row.
inline std::vector<std::vector<RowKey>> item_row_keys(const std::vector<PmfView>& factors,
                                                      const std::vector<const Window*>& windows,
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
    return item_keys;
}

inline RowPlan plan_rows(const std::vector<PmfView>& factors, const std::vector<const Window*>& windows,
                         const BatchPlan& plan) {
    const std::int64_t items = static_cast<std::int64_t>(windows.size());
    const std::vector<std::vector<RowKey>> item_keys = item_row_keys(factors, windows, plan);
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

}  // namespace detail
}  // namespace pld
}  // namespace hockeystick
