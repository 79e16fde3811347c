// The C++ programs the tests run with Eigen's FFT backend, compiled as one translation unit (tests/core/conftest.py's
// eigen_programs): cpp/examples/embed_pld.cpp (tests/core/test_embed_pld_example.py), cpp/capi/tests/tilted_gaussian.cpp
// (tests/core/test_capi_tilted.py) and tests/core/eigen_fft_probe.cpp (tests/core/test_eigen_fft_backend.py); with
// -DHOCKEYSTICK_PROGRAMS_FFTW (where FFTW's header is found; linked with -lfftw3 -lfftw3l) embed_pld.cpp once more
// with FFTW's backend.  They instantiate the same core templates (the composition takes its backend through the
// virtual RealFftBackend), so one unit compiles all of them in about half the CPU of one unit each.  Each program's
// main is renamed as it is included, and the first argument names the one to run:
//   eigen_programs embed_pld                     what embed_pld prints
//   eigen_programs tilted_gaussian               what tilted_gaussian prints
//   eigen_programs eigen_fft_probe MODE ...      the probe, MODE and its arguments as it takes them
//   eigen_programs embed_pld_fftw                what embed_pld built with -DHOCKEYSTICK_EXAMPLE_FFTW prints
// embed_pld.cpp comes first, so that its own includes alone must compile it, as a user's build of it does.
#define main embed_pld_main
#include "../../cpp/examples/embed_pld.cpp"
#undef main
#define main tilted_gaussian_main
#include "../../cpp/capi/tests/tilted_gaussian.cpp"
#undef main
#define main eigen_fft_probe_main
#include "eigen_fft_probe.cpp"
#undef main
#ifdef HOCKEYSTICK_PROGRAMS_FFTW
// embed_pld.cpp again, with FFTW's backend as -DHOCKEYSTICK_EXAMPLE_FFTW selects it, in a namespace of its own; its
// backend's header first, at global scope, so that its standard and FFTW headers are not declared in that namespace
#include "fftw_backend.hpp"
#define HOCKEYSTICK_EXAMPLE_FFTW
#define main embed_pld_fftw_main
namespace embed_pld_fftw {
#include "../../cpp/examples/embed_pld.cpp"
}  // namespace embed_pld_fftw
#undef main
#endif

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
    if (argc >= 2 && std::strcmp(argv[1], "embed_pld") == 0) return embed_pld_main();
    if (argc >= 2 && std::strcmp(argv[1], "tilted_gaussian") == 0) return tilted_gaussian_main();
    if (argc >= 2 && std::strcmp(argv[1], "eigen_fft_probe") == 0) return eigen_fft_probe_main(argc - 1, argv + 1);
#ifdef HOCKEYSTICK_PROGRAMS_FFTW
    if (argc >= 2 && std::strcmp(argv[1], "embed_pld_fftw") == 0) return embed_pld_fftw::embed_pld_fftw_main();
#endif
    std::fprintf(stderr, "usage: %s embed_pld | tilted_gaussian | eigen_fft_probe MODE ... | embed_pld_fftw\n",
                 argv[0]);
    return 2;
}
