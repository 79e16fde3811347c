// The PLD composition's FFT backend (pld/compose/fft_backend.hpp) on FFTW's batched r2c / c2r plans, with FFTW's
// long-double library for the optional long-double forward transform: the option of libhockeystick_c
// (-DHOCKEYSTICK_C_FFT=fftw) and of cpp/examples/embed_pld.cpp (-DHOCKEYSTICK_EXAMPLE_FFTW), linked with
// -lfftw3 -lfftw3l.  FFTW is GPL-2.0-or-later: a program or library linked with it is distributed under the GPL's
// terms (docs/embedding.md); it comes from the system's package manager (apt-get install libfftw3-dev: the double
// and long-double libraries) and is not part of hockeystick.
//
// Thread safety: FFTW's planner keeps global state (its twiddle tables, wisdom) and only fftw_execute is
// thread-safe, so every plan is made and destroyed under one lock; callers on several threads (the C interface's,
// each composing its own PLD) may then compose at once.  The lock guards this backend's planner calls only: a
// program that also plans with FFTW elsewhere must serialize those calls with these itself.
#pragma once

#include <hockeystick/pld/compose/fft_backend.hpp>
#include <hockeystick/pld/compose/options.hpp>

#include <fftw3.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace hockeystick::backends {

inline std::mutex& fftw_planner_lock() {
    static std::mutex lock;
    return lock;
}

// FFTW returns no plan for a transform it cannot make (a length beyond int, memory).
inline void fftw_planned(bool made) {
    if (!made) throw std::runtime_error("FFTW made no plan for the composition's transform");
}

class FftwBackend final : public hockeystick::pld::RealFftBackend {
  public:
    void forward(std::int64_t rows, std::int64_t n, const double* in, std::complex<double>* out) override {
        const int len = static_cast<int>(n), bins = static_cast<int>(n / 2 + 1);
        fftw_plan plan;
        {
            // FFTW_ESTIMATE plans without touching the arrays; an r2c plan leaves its input intact.
            std::lock_guard<std::mutex> guard(fftw_planner_lock());
            plan = fftw_plan_many_dft_r2c(1, &len, static_cast<int>(rows), const_cast<double*>(in), nullptr, 1, len,
                                          reinterpret_cast<fftw_complex*>(out), nullptr, 1, bins, FFTW_ESTIMATE);
        }
        fftw_planned(plan != nullptr);
        fftw_execute(plan);
        std::lock_guard<std::mutex> guard(fftw_planner_lock());
        fftw_destroy_plan(plan);
    }

    void inverse(std::int64_t rows, std::int64_t n, std::complex<double>* in, double* out) override {
        const int len = static_cast<int>(n), bins = static_cast<int>(n / 2 + 1);
        fftw_plan plan;
        {
            std::lock_guard<std::mutex> guard(fftw_planner_lock());
            plan = fftw_plan_many_dft_c2r(1, &len, static_cast<int>(rows), reinterpret_cast<fftw_complex*>(in), nullptr,
                                          1, bins, out, nullptr, 1, len, FFTW_ESTIMATE);
        }
        fftw_planned(plan != nullptr);
        fftw_execute(plan);
        {
            std::lock_guard<std::mutex> guard(fftw_planner_lock());
            fftw_destroy_plan(plan);
        }
        const double scale = 1.0 / static_cast<double>(n);
        for (std::int64_t i = 0; i < rows * n; ++i) out[i] *= scale;
    }

    // FFTW's long-double library computes its trigonometry and butterflies in long double: the model of
    // pld/compose/fft_backend.hpp with u_L, offered where long double has a 64-bit significand; it runs on the
    // calling thread (the x87 precision control is per thread).  FFTW shares twiddle tables between plans, so the
    // plan-cache limit of pld/compose/fft_backend.hpp applies to it too.
    bool offers_forward_long() const override { return hockeystick::pld::kLongPower; }

    void forward_long(std::int64_t rows, std::int64_t n, const long double* in, std::int64_t keep,
                      std::complex<long double>* out) override {
        const int len = static_cast<int>(n), bins = static_cast<int>(n / 2 + 1);
        std::vector<std::complex<long double>> whole(static_cast<std::size_t>(rows * bins));
        fftwl_plan plan;
        {
            std::lock_guard<std::mutex> guard(fftw_planner_lock());
            plan = fftwl_plan_many_dft_r2c(1, &len, static_cast<int>(rows), const_cast<long double*>(in), nullptr, 1,
                                           len, reinterpret_cast<fftwl_complex*>(whole.data()), nullptr, 1, bins,
                                           FFTW_ESTIMATE);
        }
        fftw_planned(plan != nullptr);
        fftwl_execute(plan);
        {
            std::lock_guard<std::mutex> guard(fftw_planner_lock());
            fftwl_destroy_plan(plan);
        }
        for (std::int64_t r = 0; r < rows; ++r)
            std::copy(whole.begin() + r * bins, whole.begin() + r * bins + keep, out + r * keep);
    }
};

}  // namespace hockeystick::backends
