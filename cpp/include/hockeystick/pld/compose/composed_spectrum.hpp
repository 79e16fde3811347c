// What a composition hands its reads when it keeps a composed PMF as its spectrum: the live bins of the half
// spectrum and the window they are read on (ComposedSpectrum), when that is possible (spectral_bins_fit), and the
// exact quarter turns of a bin's phasor (detail::quarter_turned) that the composition's powers and the spectral
// reads both take.  The reads themselves (the certified epsilon and delta from those bins, no inverse transform)
// are one stage up, in pld/reads/spectral_profile.hpp, whose opening comment derives the bounds the K <= m / 4
// rule keeps valid.
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

namespace hockeystick {
namespace pld {

// Whether K live half-spectrum bins of a length-m transform can be read by pld/reads/spectral_profile.hpp
// (K <= m / 4: its bounds take pi k / m <= pi / 4 and no Nyquist bin).
inline bool spectral_bins_fit(std::int64_t bins, std::int64_t m) { return bins >= 1 && 4 * bins <= m; }

// The live bins of a composed PMF, the window they are read on and the composition's charges.
struct ComposedSpectrum {
    std::int64_t m = 0;  // the transform length
    std::vector<std::complex<double>> bins;  // Y_0 .. Y_{K-1}; every other bin of the half spectrum is 0
    std::int64_t start = 0;  // circular position of window point 0
    std::int64_t width = 0;  // W window points, grid indices k_lo .. k_lo + W - 1
    std::int64_t k_lo = 0;
    double h = 0.0;
};

namespace detail {
// e^{i (phi + c pi / 2)} from cs = cos phi and sn = sin phi, for an integer c >= 0: c quarter turns, exact (a swap
// and signs), so that libm's cos and sin need only |phi| <= pi / 4, where they reduce no argument.
template <class T>
std::complex<T> quarter_turned(T cs, T sn, std::int64_t c) {
    switch (c % 4) {
        case 0:
            return {cs, sn};
        case 1:
            return {-sn, cs};
        case 2:
            return {-cs, -sn};
        default:
            return {sn, -cs};
    }
}
}  // namespace detail

}  // namespace pld
}  // namespace hockeystick
