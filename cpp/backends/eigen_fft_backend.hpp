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
// No long-double forward transform is offered: Eigen 3.4's kissfft computes a plan's twiddles from a double angle
// with double cos and sin for every scalar type (ei_kissfft_impl.h, make_twiddles), so FFT<long double> carries
// twiddle errors of about u = 2^-53, not u_L = 2^-64, and misses the long-double model (the same test measures
// it); the composition then computes the bins many rounds amplify by direct sums (pld/compose/direct_spectrum.hpp).
//
// Plans.  An Eigen::FFT object keeps a plan (its twiddles: one sin and cos per point) per length it has transformed,
// and its scratch buffers; making the plan costs about a third of a transform, so they are kept between calls.
// The rule (EigenPlanCache): each thread keeps its own Eigen::FFT (thread_local: nothing is shared between
// threads, so threads compose at once without a lock), holding the plans of the lengths it transformed while their
// sum stays within kCachedPlanPoints; a length that would pass it drops the plans held first, and a length above
// it alone is planned for that call only.  At about 28 bytes a point (forward and inverse twiddles, the real
// pass's twiddles, the scratch buffer) a thread so keeps at most about 60 MB.  A kept plan is the one a fresh
// object would make (the same double angles), so every transform is the same, bit for bit, cold or warm.
#pragma once

#include <hockeystick/pld/compose/fft_backend.hpp>

#include <unsupported/Eigen/FFT>

#include <complex>
#include <cstdint>
#include <set>

namespace hockeystick::backends {

// The most points (the sum of the lengths) whose plans one thread keeps between transforms.
constexpr std::int64_t kCachedPlanPoints = std::int64_t(1) << 21;

// One thread's Eigen::FFT and the lengths whose plans it holds (the rule above).
class EigenPlanCache {
  public:
    // The thread's FFT object ready for length n (HalfSpectrum set), or `once`, a call-local object, where n alone
    // passes the budget.
    Eigen::FFT<double>& for_length(std::int64_t n, Eigen::FFT<double>& once) {
        if (n > kCachedPlanPoints) return once;
        if (held_.count(n) == 0) {
            if (points_ + n > kCachedPlanPoints) {
                fft_.impl().clear();
                held_.clear();
                points_ = 0;
            }
            held_.insert(n);
            points_ += n;
        }
        return fft_;
    }

    static EigenPlanCache& of_this_thread() {
        thread_local EigenPlanCache cache;
        return cache;
    }

  private:
    EigenPlanCache() { fft_.SetFlag(Eigen::FFT<double>::HalfSpectrum); }
    Eigen::FFT<double> fft_;
    std::set<std::int64_t> held_;
    std::int64_t points_ = 0;
};

class EigenFftBackend final : public hockeystick::pld::RealFftBackend {
  public:
    void forward(std::int64_t rows, std::int64_t n, const double* in, std::complex<double>* out) override {
        Eigen::FFT<double> once;
        once.SetFlag(Eigen::FFT<double>::HalfSpectrum);  // bins 0 .. n / 2 of each row
        Eigen::FFT<double>& fft = EigenPlanCache::of_this_thread().for_length(n, once);
        const std::int64_t bins = n / 2 + 1;
        for (std::int64_t r = 0; r < rows; ++r) fft.fwd(out + r * bins, in + r * n, n);
    }
    void inverse(std::int64_t rows, std::int64_t n, std::complex<double>* in, double* out) override {
        Eigen::FFT<double> once;
        once.SetFlag(Eigen::FFT<double>::HalfSpectrum);  // the input is a half spectrum; the output scaled by 1/n
        Eigen::FFT<double>& fft = EigenPlanCache::of_this_thread().for_length(n, once);
        const std::int64_t bins = n / 2 + 1;
        for (std::int64_t r = 0; r < rows; ++r) fft.inv(out + r * n, in + r * bins, n);
    }
};

}  // namespace hockeystick::backends
