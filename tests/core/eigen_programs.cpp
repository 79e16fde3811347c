// The C++ programs the tests run with Eigen's FFT backend, compiled as one translation unit (tests/core/conftest.py's
// eigen_programs): cpp/examples/embed_pld.cpp (tests/core/test_embed_pld_example.py), cpp/capi/tests/tilted_gaussian.cpp
// (tests/core/test_capi_tilted.py) and tests/core/eigen_fft_probe.cpp (tests/core/test_eigen_fft_backend.py).  They
// instantiate the same core templates on the same backend, so one unit compiles all three in about half the CPU of
// one unit each.  Each program's main is renamed as it is included, and the first argument names the one to run:
//   eigen_programs embed_pld                     what embed_pld prints
//   eigen_programs tilted_gaussian               what tilted_gaussian prints
//   eigen_programs eigen_fft_probe MODE ...      the probe, MODE and its arguments as it takes them
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

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
    if (argc >= 2 && std::strcmp(argv[1], "embed_pld") == 0) return embed_pld_main();
    if (argc >= 2 && std::strcmp(argv[1], "tilted_gaussian") == 0) return tilted_gaussian_main();
    if (argc >= 2 && std::strcmp(argv[1], "eigen_fft_probe") == 0) return eigen_fft_probe_main(argc - 1, argv + 1);
    std::fprintf(stderr, "usage: %s embed_pld | tilted_gaussian | eigen_fft_probe MODE ...\n", argv[0]);
    return 2;
}
