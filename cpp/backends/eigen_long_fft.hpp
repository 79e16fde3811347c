// Eigen's FFT module in long double with twiddles computed in long double: the forward transform the Eigen
// backend offers as forward_long (pld/compose/fft_backend.hpp's long-double model, every bin within
// 8 u_L ceil(log2 n) ||x||_1, u_L = 2^-64).
//
// Why not Eigen::FFT<long double> as it is: Eigen 3.4's kissfft (unsupported/Eigen/src/FFT/ei_kissfft_impl.h,
// kiss_cpx_fft::make_twiddles) computes a plan's twiddles from a double angle with double cos and sin for every
// scalar type, so its long-double transform carries twiddle errors of about u = 2^-53 and misses the model by
// about 30 times (tests/core/test_eigen_fft_backend.py measures both).  Its butterflies are written on the
// scalar type and its real transform's twiddles (kissfft_impl::real_twiddles) in it too, but from an angle rounded
// three times.  EigenLongFft keeps Eigen's butterflies and its plans' factorizations (radix 4, then 2, 3 and 5:
// every length fft_length gives is 5-smooth) and installs, before Eigen makes them, the twiddles of long_twiddle.
//
// Twiddles.  long_twiddle(t, n) = e^{-2 pi i t / n}: the angle's octant found in integers (8 t = o n + r), the
// reduced angle phi = pi a / (4 n) in [0, pi/4] (a = r or n - r), carried as p + lo with |lo| <= ~2 u_L phi:
// a / (4 n) = f + e / (4 n) with e = a - f (4 n) exact (fmal), pi = pi_hi + pi_lo, p = pi_hi f rounded and its
// error pi_hi f - p exact (fmal).  Then cos phi = cosl(p) - sinl(p) lo and sin phi = sinl(p) + cosl(p) lo, whose
// dropped terms are below lo^2 < 10 u_L^2: each part within cosl's or sinl's own error (glibc's ldbl-96: 1 ulp)
// plus one rounding, about 1.5 u_L, and the octant's symmetries are exact (swaps and signs).
//
// Error of the transform (first order in u_L, per output relative to the sum of the moduli of the butterfly's
// inputs, each a partial DFT of a decimated part of x, so that the stages' errors add up to a multiple of
// ||x||_1): a twiddle product errs by sqrt(2) gamma_2 + mu <= 4.4 u_L (Higham, Accuracy and Stability of
// Numerical Algorithms, 2nd ed., 2002, Lemma 3.5; mu the twiddle's 1.5 u_L) and each complex sum or real scaling
// by one u_L; Eigen's radix-2 butterfly then costs 5.4 u_L, radix-4 6.4 (two log2 stages), radix-3 8.6 (log2 3 of
// them), radix-5 10.9 (log2 5): at most 5.4 u_L per log2 stage.  A length not divisible by 4 is transformed as a
// complex signal (log2 n stages); one divisible by 4 as a complex one of n/2 points (z_j = x_2j + i x_2j+1,
// ||z||_1 <= ||x||_1) and a real pass mixing bins k and n/2 - k with weights (1 +- w) / 2, whose moduli sum to
// at most sqrt(2), and adding about 8.4 u_L ||x||_1 of its own: sqrt(2) 5.4 (ceil(log2 n) - 1) + 8.4 <= 8
// ceil(log2 n) for n >= 4.  So the contract's 8 u_L ceil(log2 n) ||x||_1 holds with the slack it keeps for the
// second-order terms; tests/core/test_eigen_fft_backend.py measures every bin against a 100-bit reference.
//
// Domain: long double with a 64-bit significand (x86-64's 80-bit format: the Eigen backend offers forward_long
// only there, pld/compose/options.hpp's kLongPower), the x87 precision control at 64 bits on the calling thread
// (the caller's check, pld/compose/direct_spectrum.hpp's full_long_double_precision): the twiddles are computed on
// it, in the call that first transforms at that length, and the butterflies run on it.  Eigen 3.4's kissfft_impl
// (its protected plan map, PlanData and real-twiddle map, which this class fills): a later Eigen that renames
// them fails to compile here rather than change the numbers.  1 <= n < 2^31 (Eigen's plans take int lengths).
#pragma once

#include <unsupported/Eigen/FFT>
#if defined(EIGEN_FFTW_DEFAULT) || defined(EIGEN_MKL_DEFAULT)
#include <unsupported/Eigen/src/FFT/ei_kissfft_impl.h>  // Eigen's FFT header then leaves kissfft out
#endif

#include <cmath>
#include <complex>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <vector>

namespace hockeystick::backends {

// e^{-2 pi i t / n} for 0 <= t < n, 1 <= n < 2^60, within about 1.5 u_L in each part (the opening comment).
inline std::complex<long double> long_twiddle(std::int64_t t, std::int64_t n) {
    // pi = kPiHigh + kPiLow: kPiHigh the long double nearest pi, kPiLow the rest rounded (mpmath, 200 bits)
    constexpr long double kPiHigh = 3.141592653589793238462643383279502884L;
    constexpr long double kPiLow = -5.01655761266833202355732708033e-20L;
    const std::int64_t octant = (8 * t) / n, rest = 8 * t - octant * n;
    const std::int64_t a = (octant % 2 == 0) ? rest : n - rest;  // phi = (pi / 4) a / n in [0, pi / 4]
    const long double num = static_cast<long double>(a), den = 4.0L * static_cast<long double>(n);
    const long double f = num / den;
    const long double e = std::fma(-f, den, num);  // a - f (4 n), exact
    const long double p = kPiHigh * f;
    const long double lo = std::fma(kPiHigh, f, -p) + (kPiHigh * (e / den) + kPiLow * f);
    const long double sp = std::sin(p), cp = std::cos(p);
    const long double c = cp - sp * lo, s = sp + cp * lo;  // cos phi, sin phi
    // theta = phi, pi/2 - phi, pi/2 + phi, pi - phi, pi + phi, 3 pi/2 - phi, 3 pi/2 + phi, 2 pi - phi by octant:
    // cos and sin swapped in octants 1, 2, 5 and 6, cos negative in 2 to 5, sin negative in 4 to 7
    const bool swapped = ((octant + 1) / 2) % 2 == 1;
    const long double cos_t = (octant >= 2 && octant <= 5 ? -1.0L : 1.0L) * (swapped ? s : c);
    const long double sin_t = (octant >= 4 ? -1.0L : 1.0L) * (swapped ? c : s);
    return {cos_t, -sin_t};
}

// Eigen's kissfft in long double with long_twiddle's twiddles installed in its plans (the opening comment).
class EigenLongFft : public Eigen::internal::kissfft_impl<long double> {
  public:
    using Complex = std::complex<long double>;

    // half[0 .. n/2] = bins 0 .. n/2 of the DFT of in[0 .. n), in long double.  half holds n/2 + 1 values.
    void forward_half(std::int64_t n, const long double* in, Complex* half) {
        if (n < 1 || n > std::int64_t(0x7fffffff))
            throw std::invalid_argument("EigenLongFft: the length must lie in [1, 2^31)");
        if (n == 1) {  // Eigen's plan of one point has no butterfly to run
            half[0] = Complex(in[0], 0.0L);
            return;
        }
        const int len = static_cast<int>(n);
        if (len % 4 == 0) {  // Eigen's real pass: a complex transform of n/2 points and twiddles of n/4
            install_plan(len / 2);
            install_real_twiddles(len / 4);
        } else {
            install_plan(len);
        }
        fwd(half, in, len);
    }

  private:
    // Eigen's forward plan of nfft points, made here with long_twiddle's twiddles where it is not yet held: what
    // kissfft_impl::get_plan makes, the twiddles aside (get_plan then finds it and keeps it).
    void install_plan(int nfft) {
        PlanData& plan = m_plans[PlanKey(nfft, false)];
        if (!plan.m_twiddles.empty()) return;
        plan.m_inverse = false;
        plan.m_twiddles.resize(static_cast<std::size_t>(nfft));
        for (int t = 0; t < nfft; ++t) plan.m_twiddles[static_cast<std::size_t>(t)] = long_twiddle(t, nfft);
        plan.factorize(nfft);
    }

    // The real pass's twiddles for n = 4 quarter points: e^{-i pi (k / (n/2) + 1/2)} = -i W_n^k, k = 1 .. quarter,
    // what kissfft_impl::real_twiddles computes (it keeps a table of the right size).
    void install_real_twiddles(int quarter) {
        std::vector<Complex>& table = m_realTwiddles[quarter];
        if (static_cast<int>(table.size()) == quarter) return;
        table.resize(static_cast<std::size_t>(quarter));
        const std::int64_t n = std::int64_t(4) * quarter;
        for (int k = 1; k <= quarter; ++k) {
            const Complex w = long_twiddle(k, n);  // cos - i sin; times -i: -sin - i cos
            table[static_cast<std::size_t>(k - 1)] = Complex(w.imag(), -w.real());
        }
    }
};

}  // namespace hockeystick::backends
