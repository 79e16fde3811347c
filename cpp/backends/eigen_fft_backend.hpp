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
// Thread safety: an Eigen::FFT object keeps its plans and scratch buffers, so each call makes its own; nothing is
// shared between calls, so threads compose at once without a lock.
#pragma once

#include <hockeystick/pld/compose/fft_backend.hpp>

#include <unsupported/Eigen/FFT>

#include <complex>
#include <cstdint>

namespace hockeystick::backends {

class EigenFftBackend final : public hockeystick::pld::RealFftBackend {
  public:
    void forward(std::int64_t rows, std::int64_t n, const double* in, std::complex<double>* out) override {
        Eigen::FFT<double> fft;
        fft.SetFlag(Eigen::FFT<double>::HalfSpectrum);  // bins 0 .. n / 2 of each row
        const std::int64_t bins = n / 2 + 1;
        for (std::int64_t r = 0; r < rows; ++r) fft.fwd(out + r * bins, in + r * n, n);
    }
    void inverse(std::int64_t rows, std::int64_t n, std::complex<double>* in, double* out) override {
        Eigen::FFT<double> fft;
        fft.SetFlag(Eigen::FFT<double>::HalfSpectrum);  // the input is a half spectrum; the output scaled by 1/n
        const std::int64_t bins = n / 2 + 1;
        for (std::int64_t r = 0; r < rows; ++r) fft.inv(out + r * n, in + r * bins, n);
    }
};

}  // namespace hockeystick::backends
