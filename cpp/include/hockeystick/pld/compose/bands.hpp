// Which bins of a row its items may keep (live_floors: LiveFloors) and the low band recomputed accurately where
// the FFT's bound would dominate the charge (AccurateBands: pld/compose/compose.hpp's phase "band", its direct bins).
// Invariant: a bin at or below its term's floor has a perturbed power below tau = 2^-64 (dropped without its
// power), and bins [0, band[r]) of a row are within direct_err[r] < err[r] (within long_err[r] in long double).
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "hockeystick/pld/compose/options.hpp"
#include "hockeystick/pld/compose/plan.hpp"
#include "hockeystick/pld/compose/spectrum.hpp"
#include "hockeystick/pld/compose/direct_spectrum.hpp"
#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/pld/compose/long_spectrum.hpp"
#include "hockeystick/pld/compose/taylor_spectrum.hpp"

namespace hockeystick {
namespace pld {
namespace detail {

// A row's estimated charge with its band's bins within `delta` (direct bins) and the power taken in double:
// per bin about c delta |X|^(c-1) from the bins plus the power's rounding, at most the polar form's
// 2u sum c (|log|X|| + pi + 2) |X|^c (repeated squaring's 2.83 u c is below it: pld/compose/binary_power.hpp),
// where |log|X|| < -log(kDirectBandFloor) / c in the band, over `weight` = sum |X|^(2 (c - 1)) in Euclidean norm
// (the spectral_l2 part of total_error).  Where kChargesPerBracket of it stay below direct_min_charge the power
// in long double would only lower a charge the brackets already read as below the rows' threshold, at ~10 x87
// calls a bin.
inline double long_power_charge(double c, double delta, double weight) {
    constexpr double u = 0.5 * std::numeric_limits<double>::epsilon();
    const double rounding = 2.0 * u * (-std::log(kDirectBandFloor) + (kPi + 2.0) * c);
    return (c * delta + rounding) * std::sqrt(2.0 * weight);
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
// beats err[r]: block moments (pld/compose/taylor_spectrum.hpp) where they cost less than the long-double transform;
// else the long-double transform (pld/compose/long_spectrum.hpp, one per factor for all its rows) unless the band's
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
            moments_band(pmf, r, l1, top, taylor);
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
        direct_sums_band(pmf, r, top, sum_bound, c, weight);
    }

    // The band [0, top) of row r from block moments (pld/compose/taylor_spectrum.hpp), kept in long double.
    void moments_band(const PmfView& pmf, std::int64_t r, double l1, std::int64_t top, const TaylorPlan& taylor) {
        s_.band[r] = top;
        s_.direct_err[r] = taylor_bin_error(l1, pmf.n, taylor, true);
        s_.long_err[r] = taylor_bin_error(l1, pmf.n, taylor, false);
        s_.band_long[r].resize(static_cast<std::size_t>(top));
        taylor_band(pmf.p, pmf.n, plan_.m, top, taylor, fft_, s_.band_long[r].data());
        std::complex<double>* row = s_.row(r);
        for (std::int64_t k = 0; k < top; ++k)
            row[k] = std::complex<double>(static_cast<double>(s_.band_long[r][k].real()),
                                          static_cast<double>(s_.band_long[r][k].imag()));
    }

    // The band of row r by direct sums (pld/compose/direct_spectrum.hpp), its lowest bins up to top that the products
    // budget allows, each within sum_bound.
    void direct_sums_band(const PmfView& pmf, std::int64_t r, std::int64_t top, double sum_bound, double c,
                          double weight) {
        s_.band[r] = std::min(top, static_cast<std::int64_t>(budget_ / static_cast<double>(pmf.n)));
        if (s_.band[r] == 0) return;
        s_.direct_err[r] = s_.long_err[r] = sum_bound;
        set_long_power(r, c, weight);
        std::complex<double>* row = s_.row(r);
        const std::int64_t width = s_.band[r];
        const TwiddleTable& table = twiddle_table(plan_.m);
#pragma omp parallel for schedule(static) if (width * pmf.n > kLeastParallelProducts && plan_.team_allowed())
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
    // The transform is this thread's reuse cache's where an earlier band of the same masses at m took it (the same
    // bits: pld/compose/taylor_reuse.hpp).
    void long_transform_bands() {
        for (std::size_t first = 0; first < long_rows_.size();) {
            const std::int64_t f = long_rows_[first].first;
            std::size_t last = first;
            std::int64_t keep = 0;
            for (; last < long_rows_.size() && long_rows_[last].first == f; ++last)
                keep = std::max(keep, s_.band[long_rows_[last].second]);
            const PmfView& pmf = factors_[f];
            const std::vector<std::complex<long double>>& kept =
                taylor_reuse_cache().long_bins(pmf.p, pmf.n, plan_.m, keep, fft_);
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
        if (!long_rows_.empty()) taylor_reuse_cache().held_bytes_to_gate();
    }

    const std::vector<PmfView>& factors_;
    const BatchPlan& plan_;
    RealFftBackend& fft_;
    RowSpectra& s_;
    const bool long_fft_;
    const double budget_;
    std::vector<std::pair<std::int64_t, std::int64_t>> long_rows_;  // (factor, row) in key order
};

}  // namespace detail
}  // namespace pld
}  // namespace hockeystick
