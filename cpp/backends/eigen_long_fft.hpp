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
// every length fft_length gives is 5-smooth) and installs, before Eigen makes them, the twiddles of LongTwiddles.
//
// Twiddles (LongTwiddles).  W_n^t = e^{-2 pi i t / n}: the angle's octant found in integers (8 t = o n + r), the
// reduced angle phi = pi a / (4 n) in [0, pi/4] (a = r or n - r, a multiple of g = gcd(8, n), so a table of
// n / g + 1 sines and cosines serves every t).  phi is carried as p + lo: pi / (4 n) = c_hi + c_lo with c_hi of
// 32 significant bits, so a c_hi is exact (a < 2^31), and c_lo = ((pi_hi - 4 n c_hi) + pi_lo) / (4 n) (the
// difference exact, Sterbenz; pi = pi_hi + pi_lo); p = a c_hi + a c_lo rounded and lo = (a c_hi - p) + a c_lo
// (the difference exact), |lo| <= u_L p.  Then cos phi = cosl(p) - sinl(p) lo and sin phi = sinl(p) + cosl(p) lo
// (dropped terms below lo^2): each part within cosl's or sinl's own error (glibc's ldbl-96: 1 ulp) plus about one
// rounding, about 1.5 u_L; the octant's symmetries are exact (swaps and signs).
//
// Error of the transform.  The butterflies are those of Eigen's double transforms, whose error the same test
// measures within the model (pld/compose/fft_backend.hpp), now in long double with twiddles as close relative to
// u_L as Eigen's double ones are relative to u: the contract's own ground for a long-double transform.  A
// first-order worst-case count (per output, relative to the sum of the moduli of the butterfly's inputs, each a
// partial DFT of a decimated part of x, so the stages' errors add up to a multiple of ||x||_1; a twiddle product
// sqrt(2) gamma_2 + mu <= 4.4 u_L, Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., 2002,
// Lemma 3.5, mu the twiddle's error; one u_L a sum) gives 5 to 7.5 u_L per log2 stage (radix 4 and 5 the least,
// radix 3 the most), and for a length divisible by 4 the real pass mixes bins k and n/2 - k of the half-length
// complex transform with weights (1 +- w) / 2 whose moduli sum to at most sqrt(2): of the model's order, within
// it for lengths of mostly radix 4 and 5, and up to about 1.3 times it for mostly radix-3 lengths were every
// rounding aligned, as for the other backends the contract names a generous model rather than a proof.
// tests/core/test_eigen_fft_backend.py measures every bin against a 100-bit reference: at most 0.08 of the bound.
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
#include <numeric>
#include <complex>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <vector>

namespace hockeystick::backends {

// The twiddles W_n^t, 0 <= t < n, of one length n (1 <= n < 2^31): the opening comment's table and reduction.
class LongTwiddles {
  public:
    explicit LongTwiddles(std::int64_t n) : n_(n), step_(std::gcd<std::int64_t, std::int64_t>(8, n)) {
        // pi = kPiHigh + kPiLow: kPiHigh the long double nearest pi, kPiLow the rest rounded (mpmath, 200 bits)
        constexpr long double kPiHigh = 3.141592653589793238462643383279502884L;
        constexpr long double kPiLow = -5.01655761266833202355732708033e-20L;
        const long double den = 4.0L * static_cast<long double>(n);
        int exponent = 0;
        std::frexp(kPiHigh / den, &exponent);  // pi / (4 n) in [2^(exponent - 1), 2^exponent)
        const long double c_hi = std::ldexp(std::floor(std::ldexp(kPiHigh / den, 32 - exponent)), exponent - 32);
        const long double c_lo = ((kPiHigh - den * c_hi) + kPiLow) / den;
        const std::int64_t entries = n / step_ + 1;
        cos_.resize(static_cast<std::size_t>(entries));
        sin_.resize(static_cast<std::size_t>(entries));
        for (std::int64_t i = 0; i < entries; ++i) {
            const long double a = static_cast<long double>(i * step_);
            const long double high = a * c_hi, low = a * c_lo;  // high exact: a < 2^31, c_hi of 32 bits
            const long double p = high + low, lo = (high - p) + low;
            const long double sp = std::sin(p), cp = std::cos(p);
            cos_[static_cast<std::size_t>(i)] = cp - sp * lo;
            sin_[static_cast<std::size_t>(i)] = sp + cp * lo;
        }
    }

    // W_n^t, 0 <= t < n.
    std::complex<long double> operator()(std::int64_t t) const {
        const std::int64_t octant = (8 * t) / n_, rest = 8 * t - octant * n_;
        const std::size_t i = static_cast<std::size_t>(((octant % 2 == 0) ? rest : n_ - rest) / step_);
        const long double c = cos_[i], s = sin_[i];  // of phi = (pi / 4) a / n in [0, pi / 4]
        // theta = phi, pi/2 - phi, pi/2 + phi, pi - phi, pi + phi, 3 pi/2 - phi, 3 pi/2 + phi, 2 pi - phi by octant:
        // cos and sin swapped in octants 1, 2, 5 and 6, cos negative in 2 to 5, sin negative in 4 to 7
        const bool swapped = ((octant + 1) / 2) % 2 == 1;
        const long double cos_t = (octant >= 2 && octant <= 5 ? -1.0L : 1.0L) * (swapped ? s : c);
        const long double sin_t = (octant >= 4 ? -1.0L : 1.0L) * (swapped ? c : s);
        return {cos_t, -sin_t};
    }

  private:
    std::int64_t n_, step_;
    std::vector<long double> cos_, sin_;
};

// Eigen's kissfft in long double with LongTwiddles installed in its plans (the opening comment).
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
            if (!planned(len / 2) || !real_twiddles_held(len / 4)) {
                const LongTwiddles twiddles(n);
                install_plan(len / 2, twiddles, 2);
                install_real_twiddles(len / 4, twiddles);
            }
        } else if (!planned(len)) {
            install_plan(len, LongTwiddles(n), 1);
        }
        fwd(half, in, len);
    }

  private:
    bool planned(int nfft) const {
        const auto plan = m_plans.find(PlanKey(nfft, false));
        return plan != m_plans.end() && !plan->second.m_twiddles.empty();
    }
    bool real_twiddles_held(int quarter) const {
        const auto table = m_realTwiddles.find(quarter);
        return table != m_realTwiddles.end() && static_cast<int>(table->second.size()) == quarter;
    }

    // Eigen's forward plan of nfft points with twiddles W_nfft^i = W_n^(i stride) (n = nfft stride): what
    // kissfft_impl::get_plan makes, the twiddles aside (get_plan then finds it and keeps it).
    void install_plan(int nfft, const LongTwiddles& twiddles, int stride) {
        PlanData& plan = m_plans[PlanKey(nfft, false)];
        plan.m_inverse = false;
        plan.m_twiddles.resize(static_cast<std::size_t>(nfft));
        for (int i = 0; i < nfft; ++i)
            plan.m_twiddles[static_cast<std::size_t>(i)] = twiddles(static_cast<std::int64_t>(i) * stride);
        plan.m_stageRadix.clear();
        plan.m_stageRemainder.clear();
        plan.factorize(nfft);
    }

    // The real pass's twiddles for n = 4 quarter points: e^{-i pi (k / (n/2) + 1/2)} = -i W_n^k, k = 1 .. quarter,
    // what kissfft_impl::real_twiddles computes (it keeps a table of the right size).
    void install_real_twiddles(int quarter, const LongTwiddles& twiddles) {
        std::vector<Complex>& table = m_realTwiddles[quarter];
        table.resize(static_cast<std::size_t>(quarter));
        for (int k = 1; k <= quarter; ++k) {
            const Complex w = twiddles(k);  // cos - i sin; times -i: -sin - i cos
            table[static_cast<std::size_t>(k - 1)] = Complex(w.imag(), -w.real());
        }
    }
};

}  // namespace hockeystick::backends
