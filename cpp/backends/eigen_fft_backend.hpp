// The PLD composition's FFT backend (pld/compose/fft_backend.hpp) on Eigen's FFT module, the default of
// libhockeystick_c (cpp/capi) and of cpp/examples/embed_pld.cpp.  Eigen is MPL-2.0 and header-only, from a
// package (Debian's libeigen3-dev, the index's cmeel-eigen): a program built with it stays under its own licence,
// MPL-2.0 asking only that changes to Eigen's own files stay open.  Its FFT module (unsupported/Eigen/FFT) runs kissfft's mixed-radix transforms (radix 2,
// 3, 4 and 5: every length fft_length gives is 5-smooth) and, for a length divisible by 4, a real transform as a
// complex one of half the length and one more twiddle pass.
//
// Double: forward and inverse, half spectra (HalfSpectrum), the inverse scaled by 1/n (Eigen's default).  Their
// error is the model of pld/compose/fft_backend.hpp, measured against scipy's long-double transforms at every
// fft_length family by tests/core/test_eigen_fft_backend.py.
//
// Long double: forward_long, the optional transform for the bins many rounds amplify (pld/compose/long_spectrum.hpp,
// taylor_spectrum.hpp), is Eigen's kissfft in long double with twiddles computed in long double (eigen_long_fft.hpp:
// Eigen 3.4's own FFT<long double> takes its twiddles from double cos and sin, which misses the long-double model).
// Offered where long double has a 64-bit significand (kLongPower); run on the calling thread, whose x87 precision
// control the caller checks, its plans made on that thread in the call that first needs them.  The same test
// measures every bin against a 100-bit reference at every fft_length family, at odd lengths and at 2 mod 4.
//
// Plans.  An Eigen FFT object keeps a plan (its twiddles: one sin and cos per point) per length it has transformed,
// and its scratch buffers; making the plan costs about a third of a transform (in long double, with long-double
// trigonometry, about one transform), so they are kept between calls.  The rule (PlanCache): each thread keeps its
// own FFT objects, one in double and one in long double (thread_local: nothing is shared between threads, so
// threads compose at once without a lock), each holding the plans of the lengths it transformed while their sum
// stays within its budget (kCachedPlanPoints, kCachedLongPlanPoints); a length that would pass it drops the plans
// held first, and a length above it alone is planned for that call only.  At about 28 bytes a point in double
// (forward and inverse twiddles, the real pass's twiddles, the scratch buffer) and 48 in long double (the forward
// twiddles of n/2 points, the real pass's, the half spectrum) a thread so keeps at most about 110 MB.  A kept plan
// is the one a fresh object would make (the same twiddles), so every transform is the same, bit for bit, cold or
// warm.  forward_long keeping every bin (n/2 + 1) transforms each row straight into its row of the output; the
// half-spectrum buffer serves the calls that keep fewer, whose bins are copied from it (the same values).
#pragma once

#include <hockeystick/pld/compose/fft_backend.hpp>
#include <hockeystick/pld/compose/options.hpp>

#include <unsupported/Eigen/FFT>

#include "eigen_long_fft.hpp"

#include <algorithm>
#include <complex>
#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace hockeystick::backends {

// The most points (the sum of the lengths) whose plans one thread keeps between transforms, in double and in long
// double.
constexpr std::int64_t kCachedPlanPoints = std::int64_t(1) << 21;
constexpr std::int64_t kCachedLongPlanPoints = std::int64_t(1) << 20;

// The double transforms' FFT object: Eigen's, giving and taking half spectra.
struct EigenDoubleFft {
    EigenDoubleFft() { fft.SetFlag(Eigen::FFT<double>::HalfSpectrum); }
    void clear() { fft.impl().clear(); }
    Eigen::FFT<double> fft;
};

// The long-double forward transform's FFT object and its half-spectrum buffer (for calls keeping fewer bins).
struct EigenLongDoubleFft {
    void clear() {
        fft.clear();
        half.clear();
        half.shrink_to_fit();
    }
    EigenLongFft fft;
    std::vector<std::complex<long double>> half;
};

// One thread's FFT object of one kind and the lengths whose plans it holds, at most Budget points (the rule above).
template <class Transform, std::int64_t Budget>
class PlanCache {
  public:
    // The thread's object ready for length n, or `once`, a call-local object, where n alone passes the budget.
    Transform& for_length(std::int64_t n, Transform& once) {
        if (n > Budget) return once;
        if (held_.count(n) == 0) {
            if (points_ + n > Budget) {
                transform_.clear();
                held_.clear();
                points_ = 0;
            }
            held_.insert(n);
            points_ += n;
        }
        return transform_;
    }

    static PlanCache& of_this_thread() {
        thread_local PlanCache cache;
        return cache;
    }

  private:
    PlanCache() = default;
    Transform transform_;
    std::set<std::int64_t> held_;
    std::int64_t points_ = 0;
};

using EigenPlanCache = PlanCache<EigenDoubleFft, kCachedPlanPoints>;
using EigenLongPlanCache = PlanCache<EigenLongDoubleFft, kCachedLongPlanPoints>;

// kissfft (Eigen's FFT module, eigen_long_fft.hpp too) factors and indexes a transform's points with int: a longer
// length is refused (std::length_error, the core's refusal of a window beyond its limits), not overflowed.
inline void require_int_length(std::int64_t n) {
    if (n < 1 || n > std::numeric_limits<int>::max())
        throw std::length_error("an FFT of " + std::to_string(n) +
                                " points: Eigen's FFT module transforms 1 to 2^31 - 1 points");
}

class EigenFftBackend final : public hockeystick::pld::RealFftBackend {
  public:
    void forward(std::int64_t rows, std::int64_t n, const double* in, std::complex<double>* out) override {
        require_int_length(n);
        // one point is its own transform; kissfft factors no radix out of 1 and its butterflies read past the empty plan
        if (n == 1) {
            for (std::int64_t r = 0; r < rows; ++r) out[r] = in[r];
            return;
        }
        EigenDoubleFft once;  // bins 0 .. n / 2 of each row
        Eigen::FFT<double>& fft = EigenPlanCache::of_this_thread().for_length(n, once).fft;
        const std::int64_t bins = n / 2 + 1;
        for (std::int64_t r = 0; r < rows; ++r) fft.fwd(out + r * bins, in + r * n, n);
    }
    void inverse(std::int64_t rows, std::int64_t n, std::complex<double>* in, double* out) override {
        require_int_length(n);
        if (n == 1) {  // one point is its own transform (the scale 1/n is 1)
            for (std::int64_t r = 0; r < rows; ++r) out[r] = in[r].real();
            return;
        }
        EigenDoubleFft once;  // the input is a half spectrum; the output scaled by 1/n
        Eigen::FFT<double>& fft = EigenPlanCache::of_this_thread().for_length(n, once).fft;
        const std::int64_t bins = n / 2 + 1;
        for (std::int64_t r = 0; r < rows; ++r) fft.inv(out + r * n, in + r * bins, n);
    }

    // eigen_long_fft.hpp's transform: pld/compose/fft_backend.hpp's long-double model where long double has its
    // 64-bit significand, on the calling thread.
    bool offers_forward_long() const override { return hockeystick::pld::kLongPower; }

    void forward_long(std::int64_t rows, std::int64_t n, const long double* in, std::int64_t keep,
                      std::complex<long double>* out) override {
        if (keep < 1 || keep > n / 2 + 1) throw std::invalid_argument("forward_long: keep must lie in [1, n / 2 + 1]");
        require_int_length(n);
        if (n == 1) {  // one point is its own transform
            for (std::int64_t r = 0; r < rows; ++r) out[r] = in[r];
            return;
        }
        EigenLongDoubleFft once;
        EigenLongDoubleFft& fft = EigenLongPlanCache::of_this_thread().for_length(n, once);
        const std::int64_t bins = n / 2 + 1;
        if (keep == bins) {  // every bin kept: each row's half spectrum is its row of out
            for (std::int64_t r = 0; r < rows; ++r) fft.fft.forward_half(n, in + r * n, out + r * bins);
            return;
        }
        fft.half.resize(static_cast<std::size_t>(bins));
        for (std::int64_t r = 0; r < rows; ++r) {
            fft.fft.forward_half(n, in + r * n, fft.half.data());
            std::copy(fft.half.begin(), fft.half.begin() + keep, out + r * keep);
        }
    }
};

}  // namespace hockeystick::backends
