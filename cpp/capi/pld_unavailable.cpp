// The C interface's PLD calls in a build without an FFT backend (none found at configure time, or
// HOCKEYSTICK_C_FFT=none): each returns HS_UNAVAILABLE and says why, so a caller links and learns it at run time
// (hs_has_pld() is 0, hs_fft_backend() is "").
#include <string>

#include "boundary.hpp"

namespace {

hs_status unavailable(const char* call) {
    return hockeystick_c::fail(HS_UNAVAILABLE, std::string(call) +
                                                   " is not in this build: libhockeystick_c was configured without an "
                                                   "FFT backend (rebuild it with Eigen's headers found, or with "
                                                   "-DHOCKEYSTICK_C_FFT=fftw and FFTW's)");
}

}  // namespace

struct hs_pld {};

extern "C" {

int hs_has_pld(void) { return 0; }

const char* hs_fft_backend(void) { return ""; }

hs_status hs_pld_subsampled_gaussian(double, double, double, hs_pld**) {
    return unavailable("hs_pld_subsampled_gaussian");
}

hs_status hs_pld_self_compose(const hs_pld*, long long, hs_pld**) { return unavailable("hs_pld_self_compose"); }

hs_status hs_pld_epsilon_bracket(const hs_pld*, double, double*, double*) {
    return unavailable("hs_pld_epsilon_bracket");
}

hs_status hs_pld_delta_bracket(const hs_pld*, double, double*, double*) { return unavailable("hs_pld_delta_bracket"); }

hs_status hs_pld_composition_epsilon_bracket(const hs_pld*, double, double*, double*) {
    return unavailable("hs_pld_composition_epsilon_bracket");
}

hs_status hs_pld_composition_delta_bracket(const hs_pld*, double, double*, double*) {
    return unavailable("hs_pld_composition_delta_bracket");
}

hs_status hs_pld_rounds(const hs_pld*, long long*) { return unavailable("hs_pld_rounds"); }

hs_status hs_subsampled_gaussian_epsilon(double, double, long long, double, double, double*, double*) {
    return unavailable("hs_subsampled_gaussian_epsilon");
}

hs_status hs_subsampled_gaussian_delta(double, double, long long, double, double, double*, double*) {
    return unavailable("hs_subsampled_gaussian_delta");
}

hs_status hs_subsampled_gaussian_sigma(double, double, double, long long, double, double*) {
    return unavailable("hs_subsampled_gaussian_sigma");
}

hs_status hs_pld_compose(const hs_pld*, const hs_pld*, hs_pld**) { return unavailable("hs_pld_compose"); }

hs_status hs_pld_laplace(double, double, double, double, hs_pld**) { return unavailable("hs_pld_laplace"); }

hs_status hs_pld_fixed_size_gaussian(double, long long, long long, double, double, hs_pld**) {
    return unavailable("hs_pld_fixed_size_gaussian");
}

void hs_pld_free(hs_pld*) {}

}  // extern "C"
