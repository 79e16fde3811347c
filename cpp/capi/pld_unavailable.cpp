// The C interface's PLD calls in a build without an FFT backend (FFTW not found at configure time): each
// returns HS_UNAVAILABLE and says why, so a caller links and learns it at run time (hs_has_pld() is 0).
#include <string>

#include "boundary.hpp"

namespace {

hs_status unavailable(const char* call) {
    return hockeystick_c::fail(HS_UNAVAILABLE, std::string(call) +
                                                   " is not in this build: libhockeystick_c was configured without an "
                                                   "FFT backend (FFTW's fftw3.h, fftw3 and fftw3l not found)");
}

}  // namespace

struct hs_pld {};

extern "C" {

int hs_has_pld(void) { return 0; }

hs_status hs_pld_subsampled_gaussian(double, double, double, hs_pld**) {
    return unavailable("hs_pld_subsampled_gaussian");
}

hs_status hs_pld_self_compose(const hs_pld*, long long, hs_pld**) { return unavailable("hs_pld_self_compose"); }

hs_status hs_pld_epsilon_bracket(const hs_pld*, double, double*, double*) {
    return unavailable("hs_pld_epsilon_bracket");
}

hs_status hs_pld_delta_bracket(const hs_pld*, double, double*, double*) { return unavailable("hs_pld_delta_bracket"); }

hs_status hs_pld_rounds(const hs_pld*, long long*) { return unavailable("hs_pld_rounds"); }

void hs_pld_free(hs_pld*) {}

}  // extern "C"
