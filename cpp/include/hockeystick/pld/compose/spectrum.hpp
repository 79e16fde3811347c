// The rows' half spectra of one batch (pld/compose/compose.hpp's phase "spectrum"): full rows from one batched
// transform at length m or from the call's shared length-M transform (SharedTransform), band rows from a transform
// kBandSplit times shorter and their band by block moments or direct sums (band_row_spectra).  Invariant
// (RowSpectra): bin k of row r is within err[r] of the exact DFT of its factor's masses folded modulo m, and
// every bin from drop_from[r] on is certified dropped for every item of the row.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "hockeystick/pld/compose/band_spectrum.hpp"
#include "hockeystick/pld/compose/options.hpp"
#include "hockeystick/pld/compose/plan.hpp"
#include "hockeystick/pld/compose/direct_spectrum.hpp"
#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/pld/compose/taylor_spectrum.hpp"

namespace hockeystick {
namespace pld {
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

// The rows' half spectra X (bins 0 .. m / 2) and their bounds.  Invariant: bin k of row r is within err[r] of
// the exact DFT of its factor's masses folded modulo m, within direct_err[r] where k < band[r] (the accurate
// low band, whose long-double values band_long[r] keeps where they came in long double, within long_err[r]);
// every bin from drop_from[r] on is certified dropped for every item of the row (band rows; elsewhere bins).
struct RowSpectra {
    std::int64_t bins = 0;
    // rows x bins, left unwritten on allocation (std::complex<double> storage as pairs of doubles, array-compatible:
    // [complex.numbers]): a full row's transform writes all its bins, a band row its band [0, drop_from), and no bin
    // of a band row from drop_from on is read (prepare_bins and ItemPowers visit k < drop_from, band_top full rows)
    std::unique_ptr<double[]> pairs;
    std::complex<double>* spec = nullptr;
    std::vector<double> err, direct_err, long_err;
    std::vector<std::int64_t> drop_from, band;
    std::vector<char> band_row;  // its band [0, drop_from) came from block moments or direct sums already
    std::vector<char> long_power;  // its items take the power of its band in long double (long_power_charge)
    std::vector<std::vector<std::complex<long double>>> band_long;
    std::vector<std::pair<double, double>> band_bounds;  // band rows: (as rounded to double, in long double)
    std::complex<double>* row(std::int64_t r) { return spec + r * bins; }
    const std::complex<double>* row(std::int64_t r) const { return spec + r * bins; }
};

// The rows `which`, each its factor's masses folded modulo `length`, transformed into consecutive rows of out.  Rows
// of one factor (keys that differ in their count alone: direct bins, band rows) hold the same transform, so each
// factor is transformed once and its spectrum copied to its other rows: the same bits, as the backend transforms
// each row of a batch alone (pld/compose/plan.hpp's RowPlan: a row's content depends on its key, m and the plan).
inline void forward_rows(const std::vector<PmfView>& factors, const RowPlan& rows,
                         const std::vector<std::int64_t>& which, std::int64_t length, RealFftBackend& fft,
                         std::complex<double>* out) {
    if (which.empty()) return;
    const std::int64_t count = static_cast<std::int64_t>(which.size()), bins = length / 2 + 1;
    std::map<std::int64_t, std::int64_t> slot_of;  // factor -> its row among the distinct ones transformed
    std::vector<std::int64_t> slot(static_cast<std::size_t>(count));
    for (std::int64_t j = 0; j < count; ++j)
        slot[j] = slot_of.emplace(rows.factor(which[j]), static_cast<std::int64_t>(slot_of.size())).first->second;
    const std::int64_t distinct = static_cast<std::int64_t>(slot_of.size());
    std::vector<double> signal(static_cast<std::size_t>(distinct * length), 0.0);
    for (const auto& [factor, at] : slot_of) fold(factors[factor], length, signal.data() + at * length);
    if (distinct == count && std::is_sorted(slot.begin(), slot.end())) {
        fft.forward(count, length, signal.data(), out);
        return;
    }
    std::vector<std::complex<double>> spectra(static_cast<std::size_t>(distinct * bins));
    fft.forward(distinct, length, signal.data(), spectra.data());
    for (std::int64_t j = 0; j < count; ++j)
        std::copy(spectra.begin() + slot[j] * bins, spectra.begin() + (slot[j] + 1) * bins, out + j * bins);
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
// band found wider than the full row's cost allows takes the full transform instead (pld/compose/band_spectrum.hpp).
inline void band_row_spectra(const std::vector<PmfView>& factors, const RowPlan& rows, const BatchPlan& plan,
                             RealFftBackend& fft, RowSpectra& s) {
    const std::int64_t m = plan.m, m_f = m / kBandSplit, bins_f = m_f / 2 + 1;
    std::vector<std::complex<double>> coarse(rows.coarse.size() * static_cast<std::size_t>(bins_f));
    forward_rows(factors, rows, rows.coarse, m_f, fft, coarse.data());
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
            const TwiddleTable& table = twiddle_table(m);
            for (std::int64_t k = 0; k < end; ++k) row[k] = direct_bin(pmf.p, pmf.n, k, table);
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
    s.pairs.reset(new double[static_cast<std::size_t>(2 * n_rows * plan.bins)]);
    s.spec = reinterpret_cast<std::complex<double>*>(s.pairs.get());
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
        forward_rows(factors, rows, rows.full, plan.m, fft, s.spec);
    }
    if (!rows.coarse.empty()) band_row_spectra(factors, rows, plan, fft, s);
    s.direct_err = s.err;
    s.long_err = s.err;
    return s;
}

}  // namespace detail
}  // namespace pld
}  // namespace hockeystick
