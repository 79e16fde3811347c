// One bin's power Y = prod_j x_j^c_j in double by repeated squaring, and a certified bound d on its distance from
// the power of any inputs z_j with |z_j - x_j| <= delta_j (pld/compose/compose.hpp's "Round-off": x_j the computed
// bins, z_j the exact DFT).  Without a logarithm, an arc tangent or a sine, its rounding grows as about 2.83 u C
// (C = sum c_j) against the polar form's 2 u sum c_j (|log|x_j|| + pi + 2) >= 10.28 u C.
//
// Theorem.  Let every complex product be taken in the textbook formula (ac - bd, ad + bc), C = sum_j c_j <= 2^40,
// rho = sqrt(2) gamma_2, gamma_2 = 2u / (1 - 2u), g >= (1 + rho)^(C - 1) - 1, and every a_j = |x_j| in
// (0, 1 + 3u].  Then, with M = prod a_j^c_j = |prod x_j^c_j|, s >= sum_j c_j delta_j / a_j, s < 1, and
// eta = C 2^-1071:
//   (i)   |Y~ - prod x_j^c_j| <= g M + eta for the computed Y~;
//   (ii)  |prod z_j^c_j - prod x_j^c_j| <= prod (a_j + delta_j)^c_j - M <= M s / (1 - s);
//   (iii) M <= (|Y~| + eta) / (1 - g), and (iii') M >= (|Y~| - eta) / (1 + g);
// so d = M* s / (1 - s) + g M* + eta bounds |Y~ - prod z_j^c_j| for any M* >= M, and M* / (1 - s) bounds the
// perturbed power P = prod (a_j + delta_j)^c_j.  A far bin (s above 2^-26: some |x_j| within 2^26 c_j delta_j) takes
// instead d = (P* - M_lo) + g M* + eta for any P* >= P and M_lo <= M, by (ii)'s first inequality, and P* bounds P.
// Proof.  (i) Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., Lemma 3.5: fl(xy) = xy (1 + e),
// |e| <= rho, absent underflow (each part's error is at most gamma_2 (|ac| + |bd|), also where a compiler
// contracts a product and the sum into one fused multiply-add).  A computed power x^e carries e - 1 such factors
// (1 + e_i): x itself none, and the product of two computed powers (e1 - 1) + (e2 - 1) + 1; the product of the
// terms' powers so carries sum_j (c_j - 1) + (n_t - 1) = C - 1, and |prod (1 + e_i) - 1| <= (1 + rho)^(C - 1) - 1
// (Higham, Lemma 3.1's proof, for complex e_i with |e_i| <= rho).  Underflow (gradual, round to nearest) adds at
// most 2^-1075 to each real product and nothing to a sum, so at most sqrt(2) 2^-1074 to a complex product; every
// partial product has modulus at most ((1 + 3u)(1 + rho))^C <= e^(7.2e-4) < 2 (C <= 2^40), so each such error
// reaches Y~ multiplied by at most 2: at most C 2^-1072.4 over the C - 1 products.  (ii) The first inequality is
// the expansion of prod (x_j + (z_j - x_j))^c_j (every term but prod x_j^c_j bounded by its moduli); the second is
// M (prod (1 + delta_j / a_j)^c_j - 1) <= M (e^s - 1) and e^s <= 1 / (1 - s).  (iii) From (i),
// M = |prod x_j^c_j| <= |Y~| + g M + eta, and |Y~| <= M + g M + eta.
//
// Evaluation (binary_power): a~_j = fl(sqrt(fl(re^2) + fl(im^2))) is within (1 + u)^2 of a_j where a~_j >= 2^-400
// (a square that underflows errs by 2^-1075, below 2^-275 of the sum), so within 1 + 2.01u: a~_j <= 1 gives
// a_j <= 1 + 3u and delta_j / a_j <= (1 + 2.01u) delta_j / a~_j.  s~ = fl(sum_j fl(c_j fl(delta_j / a~_j))), n_t
// terms (a normal or zero delta_j keeps the quotient normal), is at least (1 - u)^(n_t + 1) of its exact value,
// so s = fl(s~ (1 + (2 n_t + 8) u)) is at least sum_j c_j delta_j / a_j.  n~ = fl(sqrt(fl(Re Y~^2) + fl(Im Y~^2)))
// >= 2^-400 is within 1 + 2.01u of |Y~|.  Every later quantity is a sum, product or quotient of nonnegative
// numbers, each computed one at least (1 - u) of its exact value, and each is raised by a factor covering its
// roundings (its comment); a far bin's P* and M_lo are computed rounded up and down (perturbed_power, and
// operator()'s comment).  Outside the domain (a count sum above 2^40, some fl(re^2) + fl(im^2) above 1 or below
// 2^-800, a subnormal delta_j, n~ below 2^-400, and for a far bin some a~_j (1 + 4u) + delta_j above 1 or its
// computed power below 2^-900) the bin is not taken (BinaryPower::taken), and its caller powers it in polar form.
// Cost: about 2 log2(c_j) complex products, one division and one square root per term, one more root (a far bin:
// its real powers too), no libm call.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <vector>

#include "hockeystick/pld/compose/options.hpp"
#include "hockeystick/pld/grid/pmf_view.hpp"

namespace hockeystick {
namespace pld {
namespace detail {

// x y in the textbook formula (not std::complex's operator*, whose C99 Annex G rescue of infinities and NaNs is a
// library call; the inputs here are finite).
inline std::complex<double> textbook_product(std::complex<double> x, std::complex<double> y) {
    return {x.real() * y.real() - x.imag() * y.imag(), x.real() * y.imag() + x.imag() * y.real()};
}

// x^c, c >= 1, by repeated squaring (the bits of c from the lowest).
inline std::complex<double> squared_power(std::complex<double> x, std::int64_t c) {
    std::complex<double> power = x;
    bool have = false;
    std::complex<double> result(1.0, 0.0);
    for (;;) {
        if (c & 1) {
            result = have ? textbook_product(result, power) : power;
            have = true;
        }
        c >>= 1;
        if (c == 0) return result;
        power = textbook_product(power, power);
    }
}

// fl(sqrt(fl(re^2) + fl(im^2))): within 1 + 2.01u of |x| where it is at least 2^-400 (opening comment).
inline double squared_modulus_root(std::complex<double> x) {
    return std::sqrt(x.real() * x.real() + x.imag() * x.imag());
}

// One bin's power and bound (the opening comment's d), or not taken: then the caller powers it in polar form.
struct BinaryPower {
    bool taken = false;
    bool dropped = false;         // its perturbed power is at most tau (pld/compose/compose.hpp's dropped bins)
    std::complex<double> y;       // Y~
    double modulus = 0.0, d = 0.0;  // at least |Y~|; the bound d
};

// The powers of one item's bins, its counts fixed: the constants that depend on C alone are taken once.
class BinaryPowers {
  public:
    explicit BinaryPowers(const std::vector<std::int64_t>& counts) : counts_(counts) {
        constexpr double u = kUnitRoundoff;
        constexpr double rho = 2.8285 * u;  // >= sqrt(2) gamma_2 = 2.828427... u (1 + 2u + ...)
        constexpr double kMostCount = 0x1p40;
        double total = 0.0;
        for (const std::int64_t c : counts) total += static_cast<double>(c);  // exact below 2^53
        usable_ = total >= 1.0 && total <= kMostCount;
        const double x = (total - 1.0) * rho;
        // x / (1 - x) is increasing in x and above (1 + rho)^(C - 1) - 1; three roundings below, one on the lift
        g_ = x / (1.0 - x) * (1.0 + 8.0 * u);
        // 1 / (1 - g): the difference and quotient rounded, then the lift rounded
        inverse_slack_ = 1.0 / (1.0 - g_) * (1.0 + 4.0 * u);
        eta_ = total * 0x1p-1071;
        // at most 1 / (1 + g): the sum, the quotient and the product rounded up by at most u each, 8u taken
        lower_slack_ = 1.0 / (1.0 + g_) * (1.0 - 8.0 * u);
        const double nt = static_cast<double>(counts.size());
        s_lift_ = 1.0 + (2.0 * nt + 8.0) * u;  // exact: 1 plus an even multiple of u below 2^52
        power_lift_ = 1.0 + 4.0 * total * u;
    }

    // Y~ of the bin whose factors' values are x[0 .. n_t) and whose bounds are delta[0 .. n_t).
    BinaryPower operator()(const std::complex<double>* x, const double* delta) const {
        constexpr double u = kUnitRoundoff;
        constexpr double kLeastModulus = 0x1p-400;
        BinaryPower out;
        const Ratio r = ratio(x, delta);
        if (!(usable_ && r.inside)) return out;
        const bool near = r.near;
        const double s = r.s;
        const std::size_t nt = counts_.size();
        const double perturbed_far = near ? 0.0 : perturbed_power(x, delta);
        if (!(perturbed_far < std::numeric_limits<double>::infinity())) return out;
        std::complex<double> y = squared_power(x[0], counts_[0]);
        for (std::size_t j = 1; j < nt; ++j) y = textbook_product(y, squared_power(x[j], counts_[j]));
        const double n = squared_modulus_root(y);
        if (!(n >= kLeastModulus)) return out;
        out.taken = true;
        // M* >= (n / (1 - 2.01u) + eta) / (1 - g): two roundings, and 1 / (1 - 2.01u), within 1 + 8u
        const double m_star = (n + eta_) * inverse_slack_ * (1.0 + 8.0 * u);
        const double rest = 1.0 - s;
        // M* / (1 - s): the difference and the quotient rounded, then the lift
        const double perturbed = near ? m_star / rest * (1.0 + 4.0 * u) : perturbed_far;
        if (perturbed <= kDroppedPower) {
            out.dropped = true;
            return out;
        }
        // near: s / (1 - s) within 1 + 2.01u of its computed value; far: P* less M_lo, M_lo <= M (the opening
        // comment's (iii'): n (1 - 4u) rounded is at most n / (1 + 2.01u) <= |Y~|, the difference and the product
        // rounded up by at most u each inside lower_slack_'s 8u), the difference rounded; two products and two
        // sums rounded, then the lift
        const double excess = near ? m_star * (s / rest) : perturbed_far - (n * (1.0 - 4.0 * u) - eta_) * lower_slack_;
        out.d = (excess + g_ * m_star + eta_) * (1.0 + 8.0 * u);
        out.y = y;
        out.modulus = n * (1.0 + 4.0 * u);  // >= n / (1 - 2.01u) >= |Y~|, the product rounded
        return out;
    }

  private:
    // The terms' side of the domain (inside), and whether the bin is near (every c_j delta_j / a~_j at most
    // 2^-26, each tested on its square before the root, and s at most 2^-26), with s where it is.
    struct Ratio {
        bool inside = false, near = true;
        double s = 0.0;
    };
    Ratio ratio(const std::complex<double>* x, const double* delta) const {
        constexpr double kLeastSquare = 0x1p-800, kMostRatio = 0x1p-26;
        Ratio r;
        for (std::size_t j = 0; j < counts_.size(); ++j) {
            const double sq = x[j].real() * x[j].real() + x[j].imag() * x[j].imag();
            if (!(sq >= kLeastSquare && sq <= 1.0)) return r;  // a~_j in [2^-400, 1]: sqrt is monotone
            if (!(delta[j] == 0.0 || delta[j] >= std::numeric_limits<double>::min())) return r;
            const double cd = static_cast<double>(counts_[j]) * delta[j];
            r.near = r.near && cd * cd <= kMostRatio * kMostRatio * sq;
            if (r.near) r.s += static_cast<double>(counts_[j]) * (delta[j] / std::sqrt(sq));
        }
        r.s *= s_lift_;
        r.near = r.near && r.s <= kMostRatio;
        r.inside = true;
        return r;
    }

    static constexpr double kLeastPerturbed = 0x1p-900;  // a far bin's computed power at least this: no underflow

    // P* >= prod (a_j + delta_j)^c_j (the opening comment's far bins), or infinity where some b_j is above 1 or
    // the computed power below 2^-900: b_j = fl(fl(a~_j (1 + 4u)) + delta_j) >= (a_j + delta_j)(1 - u), its power by
    // repeated squaring at least b_j^c_j (1 - u)^(c_j - 1), the product of the n_t powers (1 - u)^(n_t - 1) more:
    // in all at least (1 - u)^(2C - 1), which 1 + 4Cu rounded covers for C <= 2^40; every b_j <= 1 keeps every
    // partial product at or above the last, so none underflows where that is at least 2^-900.
    double perturbed_power(const std::complex<double>* x, const double* delta) const {
        constexpr double u = kUnitRoundoff;
        double power = 1.0;
        for (std::size_t j = 0; j < counts_.size(); ++j) {
            const double b =
                std::sqrt(x[j].real() * x[j].real() + x[j].imag() * x[j].imag()) * (1.0 + 4.0 * u) + delta[j];
            if (!(b <= 1.0)) return std::numeric_limits<double>::infinity();
            double base = b, part = 1.0;
            for (std::int64_t c = counts_[j];;) {
                if (c & 1) part *= base;
                c >>= 1;
                if (c == 0) break;
                base *= base;
            }
            power *= part;
        }
        if (!(power >= kLeastPerturbed)) return std::numeric_limits<double>::infinity();
        return power * power_lift_;
    }

    const std::vector<std::int64_t>& counts_;
    bool usable_ = false;
    double g_ = 0.0, inverse_slack_ = 0.0, lower_slack_ = 0.0, eta_ = 0.0, s_lift_ = 1.0, power_lift_ = 1.0;
};

}  // namespace detail
}  // namespace pld
}  // namespace hockeystick
