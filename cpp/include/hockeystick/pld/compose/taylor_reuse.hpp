// What taylor_band (pld/compose/taylor_spectrum.hpp) computes from a factor's masses, kept per thread so that later
// bands of the same masses reuse it: each block's moments (block_moments) and the long-double transforms of the
// moments folded at one length.  The bands of one factor are asked many times over: a composition keeps a band row
// per (factor, count), its items of one FFT length share the length and mostly the block, and a refinement composes
// the same factor again for other counts; only the band's end K, and with it the number of terms N, differs.
//
// Reuse gives the bits a fresh computation gives.  The key is the masses themselves (compared entry by entry, not
// by address) and the block B.  A block's moment of power v is the same products and sums whatever the number of
// terms taken (block_moments), so moments taken with N' >= N terms hold those of N, and folding them modulo L adds
// the same values in the same order (folded_moments).  The transforms of the folded moments are the backend's
// forward_long of N' >= N rows keeping K' >= K bins: each row is transformed alone (pld/compose/fft_backend.hpp:
// row r of the output depends on row r of the input alone, as the bindings' pocketfft backend, the one backend that
// offers forward_long, runs them: numpy's long-double loop row by row on one plan) and bins 0 .. K - 1 of a transform are the same whichever K' >= K is kept; they
// are reused only from the same backend type at the same length L.  The error bound (taylor_bin_error) is a
// function of the plan and the masses alone, so it holds for reused values as for fresh ones.
//
// Memory: at most kTaylorReuseEntries entries per thread, each a copy of the masses (8 bytes per entry), the block
// moments (16 N bytes per block) and the transforms kept (32 N K' bytes), the least recently used replaced first.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <typeinfo>
#include <vector>

#include "hockeystick/pld/compose/fft_backend.hpp"

namespace hockeystick {
namespace pld {
namespace detail {

// The entries a thread keeps: a composition's pessimistic and optimistic factors, with room for a second grid.
constexpr std::size_t kTaylorReuseEntries = 4;

// One factor's block moments and the transforms of their folding at one length.  Invariant: moments holds
// block_moments(p, n, block, moment_terms) where moment_terms > 0; where sum_terms > 0, sums holds bins
// 0 .. keep - 1 of the backend's forward_long of the first sum_terms rows of folded_moments(moments, moment_terms,
// sum_terms, length), row v at sums[v * keep], with sum_terms <= moment_terms.
struct TaylorReuse {
    std::vector<double> p;
    std::int64_t block = 0;
    int moment_terms = 0;
    std::vector<long double> moments;
    const std::type_info* backend = nullptr;
    std::int64_t length = 0, keep = 0;
    int sum_terms = 0;
    std::vector<std::complex<long double>> sums;
    std::uint64_t used = 0;

    // Whether sums holds at least `terms` rows and `bins` bins of `fft`'s transforms at `length`.
    bool holds_sums(const RealFftBackend& fft, std::int64_t at_length, int terms, std::int64_t bins) const {
        return sum_terms > 0 && backend != nullptr && *backend == typeid(fft) && length == at_length &&
               sum_terms >= terms && keep >= bins;
    }
    void hold_sums(const RealFftBackend& fft, std::int64_t at_length, int terms, std::int64_t bins) {
        backend = &typeid(fft);
        length = at_length;
        sum_terms = terms;
        keep = bins;
    }
};

class TaylorReuseCache {
  public:
    // The entry of the masses p[0 .. n) at `block`: the one held where its masses equal these bit for bit, else a
    // fresh one (moment_terms = 0) in place of the least recently used.
    TaylorReuse& entry(const double* p, std::int64_t n, std::int64_t block) {
        ++clock_;
        for (TaylorReuse& e : entries_)
            if (e.block == block && static_cast<std::int64_t>(e.p.size()) == n &&
                (n == 0 || std::memcmp(e.p.data(), p, sizeof(double) * static_cast<std::size_t>(n)) == 0)) {
                e.used = clock_;
                return e;
            }
        if (entries_.size() < kTaylorReuseEntries) {
            entries_.emplace_back();
        } else {
            auto oldest = std::min_element(entries_.begin(), entries_.end(),
                                           [](const TaylorReuse& a, const TaylorReuse& b) { return a.used < b.used; });
            *oldest = TaylorReuse{};
            std::rotate(oldest, oldest + 1, entries_.end());
        }
        TaylorReuse& e = entries_.back();
        e.p.assign(p, p + n);
        e.block = block;
        e.used = clock_;
        return e;
    }

    // Drops every entry (their memory too).
    void clear() { entries_.clear(); }

  private:
    std::vector<TaylorReuse> entries_;
    std::uint64_t clock_ = 0;
};

// This thread's cache (each thread its own: no locking, and the x87 precision control the entries were computed
// under is this thread's, as taylor_band's callers check it).
inline TaylorReuseCache& taylor_reuse_cache() {
    thread_local TaylorReuseCache cache;
    return cache;
}

}  // namespace detail
}  // namespace pld
}  // namespace hockeystick
