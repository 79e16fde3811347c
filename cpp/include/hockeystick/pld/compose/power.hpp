// Each item's powered half spectrum Y = prod X_j^c_j and the sums its charges are made of (pld/compose/compose.hpp's
// phase "power": prepare_bins, ItemPowers, powered_spectra), in double by repeated squaring
// (pld/compose/binary_power.hpp) or, where that bound does not hold, in polar form, or, in an accurate band that
// asks for it, in long double.  Invariant: every bin an item keeps is within its d of the exact power
// (pld/compose/compose.hpp's opening comment, "Round-off"), and every bin left at 0 has a perturbed power at most
// tau = 2^-64, charged 2 tau.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "hockeystick/pld/compose/bands.hpp"
#include "hockeystick/pld/compose/binary_power.hpp"
#include "hockeystick/pld/compose/options.hpp"
#include "hockeystick/pld/compose/plan.hpp"
#include "hockeystick/pld/compose/spectrum.hpp"
#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/pld/compose/composed_spectrum.hpp"

namespace hockeystick {
namespace pld {
namespace detail {

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

// numpy's floored modulus (result in [0, b) for b > 0).
inline double floored_mod(double a, double b) {
    double r = std::fmod(a, b);
    if (r != 0.0 && ((r < 0.0) != (b < 0.0))) r += b;
    return r;
}

// What the power in polar form needs of one bin X of a row alone: |X|, log|X|, log(|X| + delta), arg X and the
// rounding term |log|X|| + pi + 2 (delta = the row's bound at k, bin_bound).
struct BinTerms {
    double mod, lm, lm_pert, arg, rel;
};

// The bound of row r's bin k: direct_err in the accurate band, err elsewhere.
inline double bin_bound(const RowSpectra& s, std::int64_t r, std::int64_t k) {
    return k < s.band[r] ? s.direct_err[r] : s.err[r];
}

inline BinTerms bin_terms(const RowSpectra& s, std::int64_t r, std::int64_t k) {
    const std::complex<double> x = s.row(r)[k];
    const double mod = std::abs(x);
    const double lm = std::log(mod);
    const double delta = bin_bound(s, r, k);
    return BinTerms{mod, lm, std::log(mod + delta), std::arg(x), (std::isfinite(lm) ? std::fabs(lm) : 0.0) + kPi + 2.0};
}

// An item's live-bin test, one term a factor row: bin k is above every term's floor (in squares where every floor^2
// is a normal number: |X|^2 > floor^2 (1 - 8u), widened by more than the rounding of both squares, so no bin the
// exact test keeps is dropped here; the kept ones still face the exact test on the perturbed power) and below
// every row's drop_from.  Asked once per item and bin, by prepare_bins, whose PreparedBins::live the item's powers
// then visit.
class LiveTest {
  public:
    LiveTest(const RowSpectra& s, const std::vector<std::int64_t>& rows, const std::vector<double>& floor)
        : s_(s), rows_(rows), floor_(floor), floor_sq_(floor.size()) {
        for (std::size_t j = 0; j < floor.size(); ++j) {
            floor_sq_[j] = floor[j] > 0.0 ? floor[j] * floor[j] * (1.0 - 8.0 * kUnitRoundoff) : -1.0;
            squares_ = squares_ && (floor[j] <= 0.0 || floor[j] > kNormalSquareFloor);
        }
    }
    bool operator()(std::int64_t k) const {
        bool live = true;
        for (std::size_t j = 0; j < rows_.size() && live; ++j) {
            const std::complex<double> x = s_.row(rows_[j])[k];
            live = k < s_.drop_from[rows_[j]] &&
                   (squares_ ? x.real() * x.real() + x.imag() * x.imag() > floor_sq_[j] : std::abs(x) > floor_[j]);
        }
        return live;
    }

  private:
    const RowSpectra& s_;
    const std::vector<std::int64_t>& rows_;
    const std::vector<double>& floor_;
    std::vector<double> floor_sq_;
    bool squares_ = true;
};

// Whether an item reading `rows` powers bin k in long double: direct bins on, every factor's accurate band holds
// it, and some factor's row asked for the long-double power (long_power).
inline bool in_long_band(const RowSpectra& s, const BatchPlan& plan, const std::vector<std::int64_t>& rows,
                         std::int64_t k) {
    bool direct = plan.direct_on, any_long = false;
    for (std::size_t j = 0; j < rows.size() && direct; ++j) {
        direct = k < s.band[rows[j]];
        any_long = any_long || s.long_power[rows[j]];
    }
    return direct && any_long;
}

// Per row, the bins some item may keep (candidates, increasing), and per item the bins its LiveTest keeps.
// Invariant: a bin of an item's row that is not a candidate is dropped for that item (|X|^2 <= f^2 (1 - 16u) <=
// floor^2 (1 - 8u) for the item's own floor >= the row's loosest f), so an item visits only its first row's
// candidates.
struct PreparedBins {
    std::vector<std::vector<std::int64_t>> candidates;
    std::vector<std::vector<std::int64_t>> live;  // per item, the bins its LiveTest keeps (increasing)
};

inline PreparedBins prepare_bins(const RowSpectra& s, const std::vector<double>& row_floor, const RowPlan& rows,
                                 const LiveFloors& floors) {
    const std::int64_t n_rows = static_cast<std::int64_t>(s.err.size());
    PreparedBins prepared;
    prepared.candidates.resize(static_cast<std::size_t>(n_rows));
    for (std::int64_t r = 0; r < n_rows; ++r) {
        const double f = row_floor[r];
        const bool all = !(f > kNormalSquareFloor);  // then every bin: f^2 is not a normal square
        const double f_sq = all ? 0.0 : f * f * (1.0 - 16.0 * kUnitRoundoff);
        const std::complex<double>* row = s.row(r);
        for (std::int64_t k = 0; k < s.drop_from[r]; ++k) {
            const std::complex<double> x = row[k];
            if (all || x.real() * x.real() + x.imag() * x.imag() > f_sq) prepared.candidates[r].push_back(k);
        }
    }
    prepared.live.resize(rows.item_rows.size());
    for (std::size_t i = 0; i < rows.item_rows.size(); ++i) {
        const std::vector<std::int64_t>& item = rows.item_rows[i];
        const LiveTest live(s, item, floors.item[i]);
        for (const std::int64_t k : prepared.candidates[item[0]])
            if (live(k)) prepared.live[i].push_back(k);
    }
    return prepared;
}

// The sums an item's charges are made of (inverse_and_charge), over its powered half spectrum Y:
//   spec_l1 = 2 sum |Y_k| (the full spectrum's l1 norm, bounding the inverse's round-off), spec_sq = sum |Y_k|^2
//   raised by 1e-9 (its long-double sum's rounding, n u_L relative, far inside), d_sum = sum |dY_k| and d_sq =
//   sum |dY_k|^2 with each dropped bin's 2 tau; live: the bins [0, live) it is read through (spectral_read), or 0;
//   written: the bins [0, written) of its half spectrum that hold its powers (at least 1), every bin past them zero
//   and left unwritten.
struct ItemSums {
    double spec_l1 = 0.0, spec_sq = 0.0, d_sum = 0.0, d_sq = 0.0;
    std::int64_t live = 0, written = 1;
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

// One live bin's power Y = prod X_j^c_j and its error bound d (pld/compose/compose.hpp): y, the modulus it adds to
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

// The powers of one item's bins, from the rows' spectra.
class ItemPowers {
  public:
    ItemPowers(const RowSpectra& s, const PreparedBins& prepared, const BatchPlan& plan)
        : s_(s), prepared_(prepared), plan_(plan) {}

    // Item `terms` reading rows `rows`, `live` the bins its LiveTest keeps (PreparedBins::live): its half spectrum
    // into out (bins [0, written), every later bin zero and left unwritten; where it is read through its spectrum,
    // `read` and its width, the live ones) and its sums.
    ItemSums operator()(const std::vector<Term>& terms, const std::vector<std::int64_t>& rows,
                        const std::vector<std::int64_t>& live, const SpectralReads* read, std::int64_t width,
                        std::complex<double>* out) const {
        const std::size_t nt = terms.size();
        std::vector<double> count(nt);
        std::vector<std::int64_t> counts(nt);
        for (std::size_t j = 0; j < nt; ++j) {
            count[j] = static_cast<double>(terms[j].count);
            counts[j] = terms[j].count;
        }
        const BinaryPowers binary(counts);
        std::vector<std::complex<double>> x(nt);
        std::vector<double> delta(nt);
        double l1 = 0.0, ds = 0.0, dq = 0.0;
        const std::vector<std::int64_t>& visit = prepared_.candidates[rows[0]];
        // bins left at 0, each charged 2 tau (pld/compose/compose.hpp): those not visited, and those found so below
        std::int64_t dropped = s_.bins - static_cast<std::int64_t>(visit.size());
        HalfSpectrumWriter writer{out};
        std::size_t next = 0;  // live[next] is the first live bin not yet visited (both lists increasing)
        for (const std::int64_t k : visit) {
            const bool kept = next < live.size() && live[next] == k;
            next += kept ? 1 : 0;
            const BinPower p =
                kept ? (in_long_band(s_, plan_, rows, k) ? long_double_power(rows, count, k)
                                                         : double_power(rows, count, binary, x.data(), delta.data(), k))
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
        if (writer.written == 0) out[0] = std::complex<double>(0.0, 0.0);  // every bin dropped: Y_0 = 0 read
        sums.written = std::max<std::int64_t>(writer.written, 1);
        if (plan_.spectra_on && spectral_read(writer.written, plan_.m, width, *read)) sums.live = sums.written;
        const double tau2 = 2.0 * kDroppedPower;
        sums.spec_sq = static_cast<double>(writer.sq) * (1.0 + 1e-9);
        sums.spec_l1 = 2.0 * l1;
        sums.d_sum = ds + tau2 * static_cast<double>(dropped);
        sums.d_sq = dq + tau2 * tau2 * static_cast<double>(dropped);
        return sums;
    }

  private:
    // The power in long double (pld/compose/compose.hpp), its bound with u_L: from the long-double bins where the band
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

    // The power in double: by repeated squaring (pld/compose/binary_power.hpp) where its bound holds, x and delta
    // the item's scratch for the rows' bins and bounds; else in polar form (polar_power).
    BinPower double_power(const std::vector<std::int64_t>& rows, const std::vector<double>& count,
                          const BinaryPowers& binary, std::complex<double>* x, double* delta, std::int64_t k) const {
        for (std::size_t j = 0; j < rows.size(); ++j) {
            x[j] = s_.row(rows[j])[k];
            delta[j] = bin_bound(s_, rows[j], k);
        }
        const BinaryPower b = binary(x, delta);
        if (!b.taken) return polar_power(rows, count, k);
        if (b.dropped) return BinPower::drop();
        BinPower p;
        p.y = b.y;
        p.modulus = b.modulus;
        p.d = b.d;
        return p;
    }

    // The power in double in polar form, its rounding 2u sum c_i (|log|X_ik|| + pi + 2) relative.
    BinPower polar_power(const std::vector<std::int64_t>& rows, const std::vector<double>& count,
                         std::int64_t k) const {
        double log_mod = 0.0, log_mod_pert = 0.0, phase = 0.0, rel = 0.0;
        for (std::size_t j = 0; j < rows.size(); ++j) {
            const BinTerms b = bin_terms(s_, rows[j], k);
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
    // bins [0, written) of each row are written by its item (the live ones' powers, zeros between them), and the
    // zeros past them by the inverse transform's caller where a transform reads them (inverse_and_charge), so the
    // buffer is left unwritten: std::complex<double> storage as pairs of doubles (array-compatible,
    // [complex.numbers]; not support/default_init.hpp's DefaultInitVector, since std::complex's default
    // constructor itself writes zeros)
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
    const PreparedBins prepared = prepare_bins(s, floors.row, rows, floors);
    PoweredSpectra powered;
    powered.pairs.reset(new double[static_cast<std::size_t>(2 * items * plan.bins)]);
    powered.spectrum = reinterpret_cast<std::complex<double>*>(powered.pairs.get());
    powered.sums.resize(static_cast<std::size_t>(items));
    const ItemPowers power(s, prepared, plan);
    std::int64_t visits = 0;  // the bins the items' powers visit
    for (std::int64_t i = 0; i < items; ++i)
        visits += static_cast<std::int64_t>(prepared.candidates[rows.item_rows[i][0]].size());
    const bool parallel = items >= kLeastParallelItems && visits >= kLeastParallelBins && plan.team_allowed();
    static_cast<void>(parallel);  // read by the OpenMP clause only
#pragma omp parallel for schedule(dynamic, 1) if (parallel)
    for (std::int64_t i = 0; i < items; ++i)
        powered.sums[i] =
            power(windows[i]->terms, rows.item_rows[i], prepared.live[i], plan.spectra_on ? &reads[i] : nullptr,
                  windows[i]->width, powered.spectrum + i * plan.bins);
    return powered;
}

}  // namespace detail
}  // namespace pld
}  // namespace hockeystick
