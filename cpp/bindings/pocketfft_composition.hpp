// The package's composition (pld/compose/compose.hpp's compose_many) on pocketfft, for the bindings that compose
// several batches inside one call without the GIL: the FFT backend of register_pld_compose.cpp (numpy.fft's loops on
// one thread without the GIL; scipy.fft's, under it, for several threads and long double), the facade's tuning, and
// its refusals as the facade's ValueError.
#pragma once

#include <hockeystick/pld/compose/compose.hpp>

#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace hockeystick_bindings {

namespace py = pybind11;

// compose_many with its backend and options fixed: made and destroyed with the GIL held, called without it (the
// backend takes the GIL itself for a transform numpy's loops cannot run).  `workers`: scipy.fft's (None: all cores
// for a batch of several rows; 1: one thread for the transforms and the per-bin powers alike); `long_fft`: the
// backend may offer its long-double transform where options.direct_bins asks for one.
class PocketfftComposition {
  public:
    PocketfftComposition(py::object workers, hockeystick::pld::ComposeOptions options, bool long_fft,
                         std::int64_t max_points);
    ~PocketfftComposition();
    PocketfftComposition(const PocketfftComposition&) = delete;
    PocketfftComposition& operator=(const PocketfftComposition&) = delete;

    std::vector<hockeystick::pld::ComposedPMF> operator()(
        const std::vector<hockeystick::pld::PmfView>& factors, double h,
        const std::vector<std::vector<hockeystick::pld::Term>>& items, bool pessimistic, double tail,
        const std::vector<hockeystick::pld::SpectralReads>& reads = {}) const;

    // The backend, for a core read that composes through it (pld/refine/tilted_question.hpp's TiltedReader).
    hockeystick::pld::RealFftBackend& fft() const { return *fft_; }

  private:
    std::unique_ptr<hockeystick::pld::RealFftBackend> fft_;
    hockeystick::pld::ComposeOptions options_;
    std::int64_t max_points_;
};

// The tilted reads' composition options: direct bins (the tilted compositions' accurate low-frequency bins, in long
// double where offered).
inline hockeystick::pld::ComposeOptions tilted_options() {
    hockeystick::pld::ComposeOptions o;
    o.direct_bins = true;
    return o;
}

// The OpenMP threads of a read's discretizations (pld/grid/cells.hpp's cell loops): `workers` where given (an
// accountant's worker thread passes 1, so that its reads open no nested team), else every core.
inline int region_threads(const py::object& workers) {
#ifdef _OPENMP
    return workers.is_none() ? omp_get_max_threads() : std::max(1, workers.cast<int>());
#else
    (void)workers;
    return 1;
#endif
}

// A composition's refusal (std::length_error: a window above max_points; std::invalid_argument) as the facade's
// ValueError, with the advice for a window too wide.  Under the GIL.
[[noreturn]] void raise_composition_refusal(const std::exception& e);

}  // namespace hockeystick_bindings
