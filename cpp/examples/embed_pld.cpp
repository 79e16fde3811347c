// Embedding the PLD composition without Python, with Eigen's FFT module (MPL-2.0) as the FFT backend
// (cpp/backends/, the backends the C interface uses too):
//   c++ -std=c++17 -O2 -ffp-contract=off -I cpp/include -I cpp/backends -I /usr/include/eigen3
//       cpp/examples/embed_pld.cpp -o embed_pld
// (Eigen from the system's package manager, e.g. apt-get install libeigen3-dev, or the index's cmeel-eigen; it is
// not part of hockeystick), or with FFTW (GPL-2.0-or-later); either gives the composition a long-double forward
// transform too:
//   c++ -std=c++17 -O2 -ffp-contract=off -I cpp/include -I cpp/backends -DHOCKEYSTICK_EXAMPLE_FFTW
//       cpp/examples/embed_pld.cpp -lfftw3 -lfftw3l -o embed_pld
// (apt-get install libfftw3-dev: the double and long-double libraries).  Prints the backend's name, then the
// certified epsilon bracket of
//   "poisson": 10^4 rounds of the Poisson-subsampled Gaussian (sigma 1, rate 0.01), delta 1e-5;
//   "gaussian": 100 rounds of the Gaussian mechanism (sigma 10), delta 1e-5, whose exact value
//               is known in closed form (theta_radius: the example prints it too);
// and "charges": the round-off charge (total_error) of 47149 rounds of the subsampled Gaussian
// (sigma 0.5, rate 1e-4, remove direction, h 2e-3), FFT bins only and with direct bins (their low
// band from the backend's long-double transform).
#include <hockeystick/hockeystick.hpp>
#include <hockeystick/pld/compose/compose.hpp>
#include <hockeystick/pld/reads/epsilon_bracket.hpp>

#ifdef HOCKEYSTICK_EXAMPLE_FFTW
#include "fftw_backend.hpp"
using ExampleFft = hockeystick::backends::FftwBackend;
constexpr const char* kBackendName = "fftw";
#else
#include "eigen_fft_backend.hpp"
using ExampleFft = hockeystick::backends::EigenFftBackend;
constexpr const char* kBackendName = "eigen";
#endif

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace pld = hockeystick::pld;

// The certified bracket of `rounds` rounds of the subsampled Gaussian on grid h.
void print_bracket(const char* name, double sigma, double q, std::int64_t rounds, double delta, double h) {
    const double tail = pld::kDefaultCompositionTail;
    std::vector<pld::GridPMF> upper, lower;
    for (const bool remove : {true, false}) {
        if (!remove && q == 1.0) break;  // the Gaussian mechanism is symmetric: one direction
        const pld::Cells cells = pld::subsampled_gaussian_cells(sigma, q, remove, h, tail, std::int64_t(1) << 26);
        upper.push_back(pld::pessimistic_pmf(cells));
        lower.push_back(pld::optimistic_pmf(cells));
    }
    std::vector<pld::PmfView> up_views, low_views;
    std::vector<std::vector<pld::Term>> items;
    for (std::size_t d = 0; d < upper.size(); ++d) {
        up_views.push_back(pld::factor_view(upper[d], true));
        low_views.push_back(pld::factor_view(lower[d], false));
        items.push_back({{static_cast<std::int64_t>(d), rounds}});
    }
    ExampleFft fft;
    const std::int64_t max_points = std::int64_t(1) << 27;
    // The upper side is read once per direction: where the composition keeps few live frequencies, from those
    // (pld/reads/spectral_profile.hpp, no inverse transform; pld::epsilon_bracket reads either form).
    const std::vector<pld::SpectralReads> reads(items.size(), pld::SpectralReads{1, 0});
    const auto composed_up = pld::compose_many(up_views, h, items, true, tail, max_points, fft, {}, reads);
    const auto composed_low = pld::compose_many(low_views, h, items, false, tail, max_points, fft);
    double lo = 0.0, hi = 0.0;
    pld::epsilon_bracket(composed_up, composed_low, delta, lo, hi);
    std::printf("%s %.17g %.17g %lld %.17g %.17g %.17g %.17g\n", name, sigma, q, static_cast<long long>(rounds), h,
                delta, lo, hi);
}

// The remove direction's pessimistic round-off charge after `rounds` rounds, FFT bins only and with direct bins.
void print_charges(double sigma, double q, std::int64_t rounds, double h) {
    const double tail = pld::kDefaultCompositionTail;
    const pld::Cells cells = pld::subsampled_gaussian_cells(sigma, q, true, h, tail, std::int64_t(1) << 26);
    const pld::GridPMF upper = pld::pessimistic_pmf(cells);
    const std::vector<pld::PmfView> views{pld::factor_view(upper, true)};
    const std::vector<std::vector<pld::Term>> items{{{0, rounds}}};
    ExampleFft fft;
    const std::int64_t max_points = std::int64_t(1) << 27;
    const auto fft_only = pld::compose_many(views, h, items, true, tail, max_points, fft);
    pld::ComposeOptions accurate;  // direct bins, the per-bin powers on this thread
    accurate.threads = 1;
    accurate.direct_bins = true;
    const auto direct = pld::compose_many(views, h, items, true, tail, max_points, fft, accurate);
    std::printf("charges %.17g %.17g %lld %.17g %.17g %.17g\n", sigma, q, static_cast<long long>(rounds), h,
                fft_only[0].total_error, direct[0].total_error);
}

int main() {
    std::printf("backend %s\n", kBackendName);
    print_bracket("poisson", 1.0, 0.01, 10000, 1e-5, 1e-4);
    print_bracket("gaussian", 10.0, 1.0, 100, 1e-5, 1e-3);
    // Exact: T rounds of the Gaussian mechanism are one with sigma / sqrt(T) (theta_epsilon).
    std::printf("exact_gaussian %.17g\n", hockeystick::theta_epsilon(std::sqrt(100.0) / 10.0, 1e-5));
    print_charges(0.5, 1e-4, 47149, 2e-3);
    return 0;
}
