// The FFT backend the PLD composition is written against (pld/compose/compose.hpp).
//
// The core stays header-only and dependency-free: it never computes a Fourier
// transform itself, it asks a backend for batched real transforms of one length n,
//
//   forward:  rows real signals x_r[0..n)          -> X_r[k] = sum_j x_r[j] e^{-2 pi i j k / n},
//             k = 0 .. n/2 (the half spectrum of a real signal, n/2 + 1 bins per row);
//   inverse:  rows half spectra Y_r[0..n/2]        -> y_r[j] = (1/n) sum_k Y_r[k] e^{2 pi i j k / n}
//             (the real signal whose half spectrum is Y_r, normalized by 1/n),
//
// rows stored one after the other (row r of the real side at r n, of the spectrum at
// r (n/2 + 1)).  These are numpy/scipy's rfft and irfft along the last axis, and FFTW's
// r2c / c2r plans with the c2r output divided by n.  The Python facade plugs in scipy.fft
// (cpp/bindings/register_pld_compose.cpp); the C interface (cpp/capi) and cpp/examples/embed_pld.cpp plug in
// Eigen's FFT module or FFTW (cpp/backends/, outside the dependency-free core).
//
// Error model the composition charges (pld/compose/compose.hpp): every output entry of either
// transform is a linear form of the input with unit-modulus weights computed by at most
// ceil(log2 n) butterfly stages, so its absolute error is at most 8 u ceil(log2 n) times
// the l1 norm of the input (u = 2^-53; 8 per stage is generous for Cooley-Tukey and
// split-radix implementations such as pocketfft and FFTW).  And normwise: the error vector of
// either transform's output has Euclidean norm at most 8 u ceil(log2 n) times that of its exact
// output (for the inverse, ||y||_2 = ||Y_full||_2 / sqrt(n), Parseval), the classical bound of
// Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., 2002, Thm 24.2: for radix 2,
// log2(n) eta / (1 - log2(n) eta) with eta = mu + gamma_4 (sqrt(2) + mu), about 6.7 u per stage
// for twiddles within u; a radix-4 or radix-8 pass counts as two or three stages, and pocketfft's
// radix-3 and radix-5 passes (orthogonal maps up to scale, a few roundings per output) as their
// log2 of stages, inside the same generous 8 per stage; tests/test_pld_fft_normwise.py measures
// scipy's pocketfft against a long-double transform at every fft_length family.  The
// composition charges the inverse's error over n output points by whichever of the two is
// smaller (pld/compose/compose.hpp).  A backend that cannot promise both must not be plugged in.
//
// Optionally, a backend also transforms forward in long double (offers_forward_long, forward_long:
// the same X_r[k], input and output in long double), for the bins many rounds amplify
// (pld/compose/long_spectrum.hpp).  Its error model is the same with u_L = epsilon_L / 2 (2^-64 for
// x86-64's 80-bit format) in place of u: every output within 8 u_L ceil(log2 n) ||x||_1.  Assumed
// because the transform runs the same butterflies in long double with twiddles computed in long
// double (pocketfft, scipy.fft's backend, takes cosl / sinl of octant-reduced angles and the
// product of two tables in long double for long-double transforms; FFTW's long-double library
// computes its trigonometry in long double), and only where the x87 precision control is at 64 bits
// on the thread running the transform (the caller checks its own thread: pld/compose/direct_spectrum.hpp's
// full_long_double_precision; a backend must run forward_long on the calling thread or on threads
// whose control word it knows).  Limit: a backend that caches plans process-wide (pocketfft does)
// reuses the twiddles of the plan cached for a length, computed on whichever thread built it; the
// model assumes that thread had the full precision.  Plans this library builds are (forward_long runs
// only after the check); one built by other code (scipy.fft.rfft on numpy longdouble) while it had
// lowered the precision control is not detected (its twiddles carry 53 bits: errors ~10x the bound
// at m = 4096).  A self-test (the transform of a unit impulse against TwiddleTable) would cost one
// more long-double transform per batch, as much as the factor's own, so is not done.
// A backend that cannot promise this must not offer it; compose_batch
// then computes those bins by direct sums (pld/compose/direct_spectrum.hpp).
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <stdexcept>

namespace hockeystick {
namespace pld {

class RealFftBackend {
  public:
    virtual ~RealFftBackend() = default;
    // in: rows * n doubles; out: rows * (n / 2 + 1) complex values.  in is not modified.
    virtual void forward(std::int64_t rows, std::int64_t n, const double* in, std::complex<double>* out) = 0;
    // in: rows * (n / 2 + 1) complex values (may be overwritten); out: rows * n doubles, scaled by 1/n,
    // every one of them written (compose_batch hands an uninitialised buffer).
    virtual void inverse(std::int64_t rows, std::int64_t n, std::complex<double>* in, double* out) = 0;
    // One row whose bins from `given` on are zero (1 <= given <= n / 2 + 1): in holds bins 0 .. given - 1 (may be
    // overwritten; the memory past them, n / 2 + 1 bins in all, may hold anything on entry); out: n doubles, the
    // bits inverse(1, n, ...) gives for the row with those bins zero.  This default writes the zeros and calls it;
    // a backend that reads the given bins alone leaves the caller's zeros unwritten.
    virtual void inverse_given(std::int64_t n, std::int64_t given, std::complex<double>* in, double* out) {
        std::fill(in + given, in + n / 2 + 1, std::complex<double>(0.0, 0.0));
        inverse(1, n, in, out);
    }
    // Whether forward_long is implemented (and holds the long-double error model above).
    virtual bool offers_forward_long() const { return false; }
    // in: rows * n long doubles; out: rows * keep complex long doubles, bins 0 .. keep - 1 of each row
    // (1 <= keep <= n / 2 + 1: the caller's memory holds only the bins it uses).  in is not modified.  Each row
    // is transformed alone: row r of out is the same bits whatever the other rows, their number and keep
    // (pld/compose/taylor_reuse.hpp reuses rows on that promise).
    // Called only where offers_forward_long() is true.
    virtual void forward_long(std::int64_t /*rows*/, std::int64_t /*n*/, const long double* /*in*/,
                              std::int64_t /*keep*/, std::complex<long double>* /*out*/) {
        throw std::logic_error("forward_long called on a backend that does not offer it");
    }
};

// FFT lengths 2^a f (f in {1, 9/8, 5/4, 45/32, 3/2, 27/16, 15/8, 2}): 5-smooth, so fast for every
// mixed-radix backend, at most 12.5 % apart, so a sweep's items fall on few lengths and share
// batched transforms, while each item's length depends on itself alone (its result does not
// depend on what it is batched with).  Widths up to 64 take the next 5-smooth number.
inline std::int64_t fft_length(std::int64_t width) {
    if (width <= 64) {
        for (std::int64_t m = width < 1 ? 1 : width;; ++m) {
            std::int64_t r = m;
            for (const std::int64_t f : {2, 3, 5})
                while (r % f == 0) r /= f;
            if (r == 1) return m;
        }
    }
    std::int64_t base = 1;
    while (base * 2 <= width) base *= 2;  // 2^a <= width < 2^(a+1), a >= 6
    static const std::int64_t num[] = {1, 9, 5, 45, 3, 27, 15, 2}, den[] = {1, 8, 4, 32, 2, 16, 8, 1};
    for (int i = 0; i < 8; ++i)
        if (base / den[i] * num[i] >= width) return base / den[i] * num[i];
    return 2 * base;
}

}  // namespace pld
}  // namespace hockeystick
