// The inverse transform of a batch and every item's charges (pld/compose/compose.hpp's phase "charge":
// inverse_and_charge).  Invariant: an item's ComposedPMF carries the round-off and dropped-bin charges of its
// powered spectrum and of the inverse transform, and the window's cut (the mass above it, and below it where m
// exceeds the window, to +infinity on the pessimistic side; both subtracted on the optimistic side).
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "hockeystick/pld/compose/options.hpp"
#include "hockeystick/pld/compose/plan.hpp"
#include "hockeystick/pld/compose/power.hpp"
#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/support/pairwise_sum.hpp"

namespace hockeystick {
namespace pld {
namespace detail {

// The inverse transform of the `transformed` rows at the front of the powered spectra (signal_row[i]: item i's row
// among them, or -1), into signal (transformed x m).  A row's bins past its written ones are zero: one row goes to
// the backend's inverse_given (which may read its written bins alone), several have their zeros written and go
// through one batched inverse.
inline void inverse_rows(PoweredSpectra& powered, const std::vector<std::int64_t>& signal_row, std::int64_t transformed,
                         std::int64_t m, std::int64_t bins, RealFftBackend& fft, double* signal) {
    std::complex<double>* const spectrum = powered.spectrum;
    if (transformed == 1) {
        const std::int64_t i = std::find(signal_row.begin(), signal_row.end(), 0) - signal_row.begin();
        fft.inverse_given(m, powered.sums[i].written, spectrum, signal);
        return;
    }
    for (std::size_t i = 0; i < signal_row.size(); ++i)
        if (signal_row[i] >= 0)
            std::fill(spectrum + signal_row[i] * bins + powered.sums[i].written, spectrum + (signal_row[i] + 1) * bins,
                      std::complex<double>(0.0, 0.0));
    if (transformed > 1) fft.inverse(transformed, m, spectrum, signal);
}

// The items' results: those read through their spectra keep their live bins; the others' rows move up (in
// order) and alone go through the inverse transform (inverse_rows), whose window is copied out.  Charges
// (pld/compose/compose.hpp):
// entry_error = 2 d_sum / m plus the inverse's 8 u ceil(log2 m) spec_l1 / m, total_error = ||dY||_2 plus the
// inverse's 8 u ceil(log2 m) spec_l1, spectral_l2 = ||dY||_2 / sqrt(m), inverse_l2 = 8 u ceil(log2 m) ||Y||_2 /
// sqrt(m) (0 for spectral items, which have no inverse); the mass cut above the window goes to +infinity on the
// pessimistic side, and so does the mass below it where m exceeds the window (it may fold into the window);
// the optimistic side subtracts both (shift).  A pessimistic item's window carries its sum as numpy sums it
// (finite_mass), taken while the window is in cache.
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
        const std::int64_t written = powered.sums[i].written;
        if (transformed != i)
            std::copy(spectrum + i * bins, spectrum + i * bins + written, spectrum + transformed * bins);
        signal_row[i] = transformed++;
    }
    std::unique_ptr<double[]> signal(new double[static_cast<std::size_t>(transformed * m)]);  // written whole
    inverse_rows(powered, signal_row, transformed, m, bins, fft, signal.get());
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
            if (plan.pessimistic) r.finite_mass = numpy_sum(r.p.data(), static_cast<std::int64_t>(r.p.size()));
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
}  // namespace pld
}  // namespace hockeystick
