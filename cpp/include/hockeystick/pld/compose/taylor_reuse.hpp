// What the long-double bands of a factor (pld/compose/bands.hpp's AccurateBands) compute from its masses, kept per
// thread so that later bands of the same masses reuse it: for taylor_band (pld/compose/taylor_spectrum.hpp) each
// block's moments (block_moments) and the long-double transforms of the moments folded at one length; for a full
// row's band from one long-double transform (pld/compose/long_spectrum.hpp) the low bins of that transform of the
// masses folded at the row's length.  The bands of one factor are asked many times over: a composition keeps a band
// row per (factor, count), its items of one FFT length share the length and mostly the block, and a refinement
// composes the same factor again for other counts (and its batches of one length again at that length); only the
// band's end K, and with it the number of terms N, differs.
//
// Reuse gives the bits a fresh computation gives.  The key is the masses themselves (compared entry by entry, not
// by address) and the block B.  A block's moment of power v is the same products and sums whatever the number of
// terms taken (block_moments), so moments taken with N' >= N terms hold those of N, and folding them modulo L adds
// the same values in the same order (folded_moments).  The transforms of the folded moments are the backend's
// forward_long of N' >= N rows keeping K' >= K bins: each row is transformed alone (pld/compose/fft_backend.hpp:
// row r of the output depends on row r of the input alone, as the bindings' pocketfft backend, the one backend that
// offers forward_long, runs them: numpy's long-double loop row by row on one plan) and bins 0 .. K - 1 of a transform are the same whichever K' >= K is kept; they
// are reused only from the same backend type at the same length L.  The same holds for the masses' own transform
// at a row's length m (fold_long of the same masses at the same m, one row, bins 0 .. K - 1 of K' >= K kept).  The
// error bounds (taylor_bin_error, long_fft_bin_error) are functions of the plan or length and the masses alone, so
// they hold for reused values as for fresh ones.
//
// Memory per thread: at most kTaylorReuseFactors factors, each a copy of its masses (8 bytes per entry), at most
// kTaylorReuseBlocks blocks of moments (16 N bytes per block), each with the transforms of at most
// kTaylorReuseLengths lengths (32 N K' bytes: K' is a narrow band's, tens to hundreds of bins), and the masses'
// own transforms at most kTaylorReuseLengths lengths (32 K' bytes each); in each list the least
// recently used is replaced first.  What a cache holds is counted at the process-wide working-memory gate
// (pld/compose/working_memory_gate.hpp) as resident bytes, reported after each band (held_bytes_to_gate) and
// released when the cache is cleared or its thread ends: its high water holds them beside the batches in flight.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <typeinfo>
#include <utility>
#include <vector>

#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/pld/compose/long_spectrum.hpp"
#include "hockeystick/pld/compose/working_memory_gate.hpp"
#include "hockeystick/support/recently_used.hpp"

namespace hockeystick {
namespace pld {
namespace detail {

// A composition's pessimistic and optimistic factors, with room for a second grid.
constexpr std::size_t kTaylorReuseFactors = 4;
// The blocks one factor's bands take: B depends on the band's end and the FFT length, so a call's items take a few.
constexpr std::size_t kTaylorReuseBlocks = 6;
// The FFT lengths one block's transforms are kept at: a call's items of one factor fall on several lengths.
constexpr std::size_t kTaylorReuseLengths = 8;

// The transforms of one block's moments folded at one length.  Invariant: sums holds bins 0 .. keep - 1 of the
// backend's forward_long of the first terms rows of folded_moments(moments, moment_terms, terms, length) of its
// TaylorMoments, row v at sums[v * keep].
struct TaylorSums {
    const std::type_info* backend = nullptr;
    std::int64_t length = 0, keep = 0;
    int terms = 0;
    std::vector<std::complex<long double>> sums;

    // Whether these hold at least `rows` rows and `bins` bins of `fft`'s transforms at `at_length`.
    bool holds(const RealFftBackend& fft, std::int64_t at_length, int rows, std::int64_t bins) const {
        return backend != nullptr && *backend == typeid(fft) && length == at_length && terms >= rows && keep >= bins;
    }
};

// One block's moments of a factor.  Invariant: moments holds block_moments(p, n, block, terms) (terms > 0 once
// computed), and every entry of sums was computed from moments of at least its terms (so from these: a moment's
// value does not depend on the terms taken).
struct TaylorMoments {
    std::int64_t block = 0;
    int terms = 0;
    std::vector<long double> moments;
    std::vector<TaylorSums> sums;  // least recently used first
};

// Bins 0 .. keep - 1 of the backend's forward_long of the factor's masses folded modulo `length` (fold_long).
struct LongBins {
    const std::type_info* backend = nullptr;
    std::int64_t length = 0, keep = 0;
    std::vector<std::complex<long double>> bins;

    // Whether these hold at least `at_least` bins of `fft`'s transform at `at_length`.
    bool holds(const RealFftBackend& fft, std::int64_t at_length, std::int64_t at_least) const {
        return backend != nullptr && *backend == typeid(fft) && length == at_length && keep >= at_least;
    }
};

// One factor: its masses (the key, compared bit for bit), its blocks' moments and its own long-double transforms,
// least recently used first.
struct TaylorReuse {
    std::vector<double> p;
    std::vector<TaylorMoments> blocks;
    std::vector<LongBins> transforms;
};

class TaylorReuseCache {
  public:
    TaylorReuseCache() = default;
    TaylorReuseCache(const TaylorReuseCache&) = delete;
    TaylorReuseCache& operator=(const TaylorReuseCache&) = delete;
    ~TaylorReuseCache() { working_memory_gate().keep(-reported_); }

    // The moments of the masses p[0 .. n) at `block`: those held where the masses equal these bit for bit, else a
    // fresh entry (terms = 0).
    TaylorMoments& moments(const double* p, std::int64_t n, std::int64_t block) {
        TaylorMoments& at = recently_used(factor(p, n).blocks, kTaylorReuseBlocks,
                                          [&](const TaylorMoments& b) { return b.block == block; });
        at.block = block;
        return at;
    }

    // Bins 0 .. keep - 1 (at least) of fft's forward_long of the masses p[0 .. n) folded modulo m (fold_long): those
    // held where they cover these, else computed (keeping the more bins of the two where some are held at m) and
    // held.
    const std::vector<std::complex<long double>>& long_bins(const double* p, std::int64_t n, std::int64_t m,
                                                            std::int64_t keep, RealFftBackend& fft) {
        std::vector<LongBins>& held = factor(p, n).transforms;
        const auto at_m = [&](const LongBins& t) { return t.holds(fft, m, 0); };
        const auto found = std::find_if(held.begin(), held.end(), at_m);
        if (found != held.end() && found->holds(fft, m, keep))
            return recently_used(held, kTaylorReuseLengths, at_m).bins;
        const std::int64_t kept = found != held.end() ? std::max(keep, found->keep) : keep;
        // computed before anything held changes: a transform that throws leaves the cache as it was
        std::vector<long double> folded(static_cast<std::size_t>(m));
        fold_long(p, n, m, folded.data());
        std::vector<std::complex<long double>> bins(static_cast<std::size_t>(kept));
        fft.forward_long(1, m, folded.data(), kept, bins.data());
        LongBins& t = recently_used(held, kTaylorReuseLengths, at_m);
        t.bins = std::move(bins);
        t.backend = &typeid(fft);
        t.length = m;
        t.keep = kept;
        return t.bins;
    }

    // Drops every entry (their memory too).
    void clear() {
        factors_.clear();
        held_bytes_to_gate();
    }

    // The bytes the entries hold: each factor's masses, each block's moments and each length's transforms.
    std::int64_t bytes() const {
        std::size_t held = 0;
        for (const TaylorReuse& f : factors_) {
            held += sizeof(double) * f.p.capacity();
            for (const TaylorMoments& b : f.blocks) {
                held += sizeof(long double) * b.moments.capacity();
                for (const TaylorSums& t : b.sums) held += sizeof(std::complex<long double>) * t.sums.capacity();
            }
            for (const LongBins& t : f.transforms) held += sizeof(std::complex<long double>) * t.bins.capacity();
        }
        return static_cast<std::int64_t>(held);
    }

    // Reports the change in bytes() since the last report to the working-memory gate (its resident bytes).
    void held_bytes_to_gate() {
        const std::int64_t now = bytes();
        working_memory_gate().keep(now - reported_);
        reported_ = now;
    }

  private:
    // The entry of the masses p[0 .. n) (equal bit for bit), else a fresh one holding a copy of them.
    TaylorReuse& factor(const double* p, std::int64_t n) {
        TaylorReuse& f = recently_used(factors_, kTaylorReuseFactors, [&](const TaylorReuse& e) {
            return static_cast<std::int64_t>(e.p.size()) == n &&
                   (n == 0 || std::memcmp(e.p.data(), p, sizeof(double) * static_cast<std::size_t>(n)) == 0);
        });
        if (f.p.empty() && n > 0) f.p.assign(p, p + n);
        return f;
    }

    std::vector<TaylorReuse> factors_;  // least recently used first
    std::int64_t reported_ = 0;  // the bytes the gate counts for this cache
};

// This thread's cache (each thread its own: no locking, and the x87 precision control the entries were computed
// under is this thread's, as taylor_band's callers check it).
inline TaylorReuseCache& taylor_reuse_cache() {
    thread_local TaylorReuseCache cache;
    return cache;
}

// The transforms `fft` gives at `length` of the first `rows` rows of the folded moments, bins 0 .. keep - 1 at
// least: those held where they cover these, else computed (widening what is held at that length, so that a call
// asking fewer rows or bins after more, or more after fewer, transforms once per length) and held.
template <class Fold>
const TaylorSums& taylor_sums(TaylorMoments& at, RealFftBackend& fft, std::int64_t length, int rows, std::int64_t keep,
                              Fold fold) {
    TaylorSums* held = nullptr;
    for (TaylorSums& s : at.sums)
        if (s.holds(fft, length, 0, 0)) held = &s;
    if (held != nullptr && held->holds(fft, length, rows, keep)) return *held;
    const int terms = held != nullptr ? std::max(rows, held->terms) : rows;
    const std::int64_t kept = held != nullptr ? std::max(keep, held->keep) : keep;
    // computed before anything held changes: a transform that throws leaves the cache as it was
    const std::vector<long double> folded = fold(terms);
    std::vector<std::complex<long double>> sums(static_cast<std::size_t>(terms * kept));
    fft.forward_long(terms, length, folded.data(), kept, sums.data());
    TaylorSums& s =
        recently_used(at.sums, kTaylorReuseLengths, [&](const TaylorSums& t) { return t.holds(fft, length, 0, 0); });
    s.sums = std::move(sums);
    s.backend = &typeid(fft);
    s.length = length;
    s.terms = terms;
    s.keep = kept;
    return s;
}

}  // namespace detail
}  // namespace pld
}  // namespace hockeystick
