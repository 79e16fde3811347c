// The RDP conversion's certified upper epsilon of T rounds of the Poisson-subsampled Gaussian at delta: the cap the
// default epsilon chain lowers its tilted upper side to where no tail is given (default_epsilon.hpp's and
// accuracy_epsilon.hpp's plan.cap), past the PLD reads' charges (at a delta below about 1e-200 the tilted windows pass
// their caps and only this side is finite).  Both doors read this one cap, at dp_accounting's default orders
// (kRdpCapOrders and kRdpCapFractionalOrders): the package's (python pld/refine/question.py's rdp_upper, through the
// binding) and the C library's epsilon call.
//
// One round's curve at an integer order alpha (Mironov, Talwar & Zhang 2019, Sec. 3.3: the binomial expansion, whose
// terms i = 0, 1 sum with the weights to 1, so every term left is positive and nothing cancels):
//
//     eps_R(alpha) = log(1 + sum_{i=2}^{alpha} C(alpha, i) (1 - q)^{alpha - i} q^i (e^{(i^2 - i) / (2 sigma^2)} - 1))
//                    / (alpha - 1),
//
// each term's logarithm a sum of rounded quantities (log C(alpha, i) as the running sum of log(alpha - k + 1) - log k,
// k <= i; i log q, (alpha - i) log(1 - q); log(e^x - 1) = x + log(-expm1(-x))), its absolute error at most 8 u S
// (u = 2^-53, S = 3 log alpha_max! + alpha_max (|log q| + |log(1 - q)|) + alpha_max^2 / (2 sigma^2) + 1 bounds the
// magnitudes summed, the running sum's among them), the log-sum-exp from its largest term adding (alpha + 4) u
// relative: the curve is widened by 16 u S + 8 alpha_max u relative and stepped one ulp up (python
// rdp/integer_orders.py's subsampled_gaussian_rdp_upper, the ledger's, the same bound).
//
// At a fractional order alpha (the same paper, Sec. 3.3, the two-sided series; w = 1 / (2 sigma^2), z0 = sigma^2
// log(1/q - 1) + 1/2, j = alpha - i):
//
//     A = sum_{i >= 0} |C(alpha, i)| [q^i (1-q)^j e^{(i^2 - i) w} Phi((z0 - i) / sigma)
//                                     + q^j (1-q)^i e^{(j^2 - j) w} Phi((j - z0) / sigma)],
//     eps_R = log A / (alpha - 1),
//
// the binomials' magnitudes summed (dp_accounting's series: a sum above the signed one, so an upper bound), term by
// term until dp_accounting's stop (both parts falling and below e^-30 of the sum) past N + 1 >= max(alpha, z0,
// alpha - z0), N the last term summed, and on until the rest's bound below is at most kRdpRestShare of log A (or the
// last term).  Past N every term is bounded: Phi(-x) <= m(x) e^{-x^2 / 2} (x >= 0, m(x) = min(1, 1 / (x sqrt(2 pi))),
// Mills) turns either part into |C(alpha, i)| (1 - q)^alpha e^{-z0^2 w} m (the exponents' i-dependence cancels:
// (2 z0 - 1) w = log((1 - q) / q); x >= (N + 1 - z0) / sigma in the first part, (N + 1 - alpha + z0) / sigma in the
// second, m0 and m1 at those), and 1 / |Gamma(alpha - i + 1)| <= Gamma(i - alpha) / pi (the reflection formula,
// i > alpha) with the telescoping Gamma(i - alpha) / Gamma(i + 1) = (Gamma(i - alpha) / Gamma(i) - Gamma(i + 1 - alpha)
// / Gamma(i + 1)) / alpha bounds the rest of the series by
//
//     (m0 + m1) (1 - q)^alpha e^{-z0^2 w} Gamma(alpha + 1) Gamma(N + 1 - alpha) / (pi alpha Gamma(N + 1)),
//
// doubled for lgamma's rounding and added.  Each term's exponent is a sum of rounded quantities of magnitude at most
// S_i (its parts' magnitudes, |log Phi| and |x| three times each for log Phi's own error and its argument's), so each
// term is raised by 16 u S_i and by 2 (i + 1) u for its binomial's recursion, and log A by (N + 8) u for the
// log-sum-exp, before the rest is added; a series that does not settle within
// kRdpSeriesTerms terms, or whose log A is below kRdpFractionalFloor (rounding, not a curve: tiny q), leaves that order
// out (eps_R = inf).  T rounds: T eps_R(alpha) (Mironov 2017, Prop. 1), stepped one ulp up.
//
// The conversion (Balle et al. 2020, Thm 21; Canonne, Kamath & Steinke 2020, Prop. 12):
//
//     eps(delta) = min_alpha  T eps_R(alpha) + log(1 - 1 / alpha) - (log delta + log alpha) / (alpha - 1),
//
// 0 where delta^2 > 1 - e^{-T eps_R(alpha)} at some order (the total-variation bound, Bretagnolle & Huber 1979), the
// least over the orders rounded up by kRdpCapMargin relative (the package's RDP_MARGIN: a few roundings of each
// order's three terms, each at most a few u of the largest) and one ulp.  q = 1: alpha / (2 sigma^2), the Gaussian
// mechanism's curve (Mironov 2017, Prop. 7), widened by 4 u and stepped one ulp up.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>

#include "hockeystick/numerics/gaussian_tail.hpp"
#include "hockeystick/pld/refine/grid_policy.hpp"

namespace hockeystick {
namespace pld {

// The integer orders among dp_accounting's default RDP orders (python hockeystick.rdp.DEFAULT_ORDERS): 2 to 63, then
// 128, 256, 512 and 1024.
inline constexpr std::array<int, 66> kRdpCapOrders = {
    2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,  21,  22,  23,
    24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42,  43,  44,  45,
    46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 128, 256, 512, 1024};

// The fractional orders among dp_accounting's default RDP orders: 1 + x / 10 for x in 1 to 99 (1.1 to 10.9, formed as
// python hockeystick.rdp.DEFAULT_ORDERS forms them), x not a multiple of ten.
inline const std::array<double, 90>& rdp_cap_fractional_orders() {
    static const std::array<double, 90> orders = [] {
        std::array<double, 90> a{};
        std::size_t n = 0;
        for (int x = 1; x < 100; ++x)
            if (x % 10 != 0) a[n++] = 1.0 + x / 10.0;
        return a;
    }();
    return orders;
}

// The conversion's relative round-up (the package's refine/question.py RDP_MARGIN).
constexpr double kRdpCapMargin = 1e-9;
// The fractional series: at most this many terms (dp_accounting's), stopped where both parts fall below
// e^-kRdpSeriesStop of the sum, and left out where log A is below kRdpFractionalFloor (its terms are about 1 and only
// their sum is near 1, so such a log A is rounding).
constexpr int kRdpSeriesTerms = 1000;
constexpr double kRdpSeriesStop = 30.0;
constexpr double kRdpFractionalFloor = 1e-10;
// The series goes on past dp_accounting's stop until the bound on its rest is at most this share of log A (its terms
// fall only polynomially near alpha = 1), up to kRdpSeriesTerms; the bound is added either way.
constexpr double kRdpRestShare = 1e-6;

namespace rdp_cap_detail {

constexpr double kUnitRoundoff = 0x1p-53;
constexpr double kPi = 3.141592653589793;
constexpr double kSqrtTwoPi = 2.5066282746310002;

// One round's curve at the integer order alpha, before its widening (the header's sum, in log space).
inline double one_round_curve(double sigma, double q, int alpha) {
    const double log_q = std::log(q), log_1mq = std::log1p(-q), inv2s2 = 0.5 / (sigma * sigma);
    double log_binomial = std::log(static_cast<double>(alpha)), peak = -HUGE_VAL;
    std::array<double, 1024> terms{};
    for (int i = 2; i <= alpha; ++i) {
        log_binomial += std::log(static_cast<double>(alpha - i + 1)) - std::log(static_cast<double>(i));
        const double x = (static_cast<double>(i) * i - i) * inv2s2;
        const double log_expm1 = x + std::log(-std::expm1(-x));
        terms[static_cast<std::size_t>(i - 2)] = log_binomial + i * (log_q - log_1mq) + log_expm1;
        peak = std::max(peak, terms[static_cast<std::size_t>(i - 2)]);
    }
    if (std::isinf(peak) && peak > 0.0) return HUGE_VAL;
    double sum = 0.0;
    for (int i = 2; i <= alpha; ++i) sum += std::exp(terms[static_cast<std::size_t>(i - 2)] - peak);
    const double log_sum = peak + alpha * log_1mq + std::log(sum);
    const double log_a = log_sum > 0.0 ? log_sum + std::log1p(std::exp(-log_sum)) : std::log1p(std::exp(log_sum));
    return std::max(log_a, 0.0) / (alpha - 1.0);
}

// The Gaussian mechanism's curve alpha / (2 sigma^2) (q = 1), widened by 4 u and stepped one ulp up.
inline double gaussian_curve(double sigma, double alpha) {
    return std::nextafter(alpha / (2.0 * sigma * sigma) * (1.0 + 4.0 * kUnitRoundoff), HUGE_VAL);
}

// One round's certified upper curve at the fractional order alpha (the header's series, its rest bounded, raised for
// rounding, stepped one ulp up); inf where the series does not settle or log A is rounding.
inline double fractional_curve(double sigma, double q, double alpha) {
    const double log_q = std::log(q), log_1mq = std::log1p(-q), w = 0.5 / (sigma * sigma);
    const double z0 = sigma * sigma * (log_1mq - log_q) + 0.5;
    const double reach = std::max({alpha, z0, alpha - z0});  // the rest's bound needs N + 1 >= reach
    double sum0 = -HUGE_VAL, sum1 = -HUGE_VAL, last0 = -HUGE_VAL, last1 = -HUGE_VAL;
    // log of the rest's bound past the last term n (the header's), before its doubling for lgamma
    const auto log_rest = [&](int n) {
        const double mills0 = std::min(1.0, sigma / (kSqrtTwoPi * (n + 1.0 - z0))),
                     mills1 = std::min(1.0, sigma / (kSqrtTwoPi * (n + 1.0 - alpha + z0)));
        return std::log(mills0 + mills1) + alpha * log_1mq - z0 * z0 * w + std::lgamma(alpha + 1.0) -
               std::log(kPi * alpha) + std::lgamma(n + 1.0 - alpha) - std::lgamma(n + 1.0);
    };
    double binomial = 1.0;  // |C(alpha, i)|, by the recursion C(alpha, i) = C(alpha, i - 1) (alpha - i + 1) / i
    int n = 0;  // the last term summed
    bool settled = false;
    for (int i = 0; i < kRdpSeriesTerms; ++i) {
        if (i > 0) binomial *= std::fabs(alpha - i + 1.0) / i;
        const double j = alpha - i, log_binomial = std::log(binomial);
        const double x0 = (z0 - i) / sigma, x1 = (j - z0) / sigma;
        const double phi0 = log_gaussian_tail(-x0), phi1 = log_gaussian_tail(-x1);
        const double quadratic0 = (static_cast<double>(i) * i - i) * w, quadratic1 = (j * j - j) * w;
        // each term raised by the rounding of its exponent (the header's S_f, 16 u of it) and of its binomial
        const double shared =
            std::fabs(log_binomial) + (i + std::fabs(j)) * (std::fabs(log_q) + std::fabs(log_1mq)) + 1.0;
        const double raise0 = 16.0 * kUnitRoundoff *
                              (shared + std::fabs(quadratic0) + 3.0 * (std::fabs(phi0) + std::fabs(x0))),
                     raise1 = 16.0 * kUnitRoundoff *
                              (shared + std::fabs(quadratic1) + 3.0 * (std::fabs(phi1) + std::fabs(x1)));
        const double binomial_raise = 2.0 * (i + 1.0) * kUnitRoundoff;
        const double s0 = log_binomial + i * log_q + j * log_1mq + quadratic0 + phi0 + raise0 + binomial_raise;
        const double s1 = log_binomial + j * log_q + i * log_1mq + quadratic1 + phi1 + raise1 + binomial_raise;
        sum0 = grid_policy_detail::logaddexp(sum0, s0);
        sum1 = grid_policy_detail::logaddexp(sum1, s1);
        n = i;
        const bool falling =
            s0 < last0 && s1 < last1 && std::max(s0, s1) < grid_policy_detail::logaddexp(sum0, sum1) - kRdpSeriesStop;
        last0 = s0, last1 = s1;
        // settled: dp_accounting's stop past the rest bound's reach; read once the rest is at most kRdpRestShare of
        // log A, or at the last term
        settled = falling && n + 1.0 >= reach;
        if (settled && log_rest(n) <= std::log(kRdpRestShare * std::max(grid_policy_detail::logaddexp(sum0, sum1),
                                                                        kRdpFractionalFloor)))
            break;
    }
    if (!settled) return HUGE_VAL;  // no settled series: the order left out (inf is always safe)
    const double log_a =
        grid_policy_detail::logaddexp(sum0, sum1) + (n + 8.0) * kUnitRoundoff;  // the log-sum-exp's own rounding
    if (!(log_a >= kRdpFractionalFloor) || std::isinf(log_a)) return HUGE_VAL;
    const double bounded =
        std::nextafter(grid_policy_detail::logaddexp(log_a, log_rest(n) + std::log(2.0)), HUGE_VAL);  // x2: lgamma
    return std::nextafter(bounded / (alpha - 1.0) * (1.0 + 2.0 * kUnitRoundoff), HUGE_VAL);
}

}  // namespace rdp_cap_detail

// One round's certified upper RDP curve at the integer order alpha (2 <= alpha <= 1024) of the Poisson-subsampled
// Gaussian of noise multiplier sigma > 0 at rate q in (0, 1] (the header's comment); inf where its terms overflow.
inline double subsampled_gaussian_rdp_upper(double sigma, double q, int alpha) {
    namespace d = rdp_cap_detail;
    if (!(alpha >= 2 && alpha <= 1024)) throw std::invalid_argument("the RDP order must be an integer in [2, 1024]");
    if (q == 1.0) return d::gaussian_curve(sigma, alpha);
    const double top = kRdpCapOrders.back();
    const double magnitude = 3.0 * std::lgamma(top + 1.0) + top * (std::fabs(std::log(q)) + std::fabs(std::log1p(-q))) +
                             top * top * (0.5 / (sigma * sigma)) + 1.0;
    const double margin = 16.0 * d::kUnitRoundoff * magnitude + 8.0 * d::kUnitRoundoff * top;
    return std::nextafter(d::one_round_curve(sigma, q, alpha) * (1.0 + margin), HUGE_VAL);
}

// One round's certified upper RDP curve at the fractional order alpha in (1, 11) (the header's comment): the series,
// or where q = 1 the Gaussian's alpha / (2 sigma^2) widened as at an integer order; inf where the series does not
// settle or is rounding.
inline double subsampled_gaussian_fractional_rdp_upper(double sigma, double q, double alpha) {
    namespace d = rdp_cap_detail;
    if (!(alpha > 1.0 && alpha < 11.0) || alpha == std::floor(alpha))
        throw std::invalid_argument("the fractional RDP order must lie in (1, 11) and not be an integer");
    if (q == 1.0) return d::gaussian_curve(sigma, alpha);
    return d::fractional_curve(sigma, q, alpha);
}

// The RDP conversion's certified upper epsilon of `rounds` rounds at delta in (0, 1) (the header's comment): inf where
// no order certifies delta.
inline double subsampled_gaussian_rdp_epsilon(double sigma, double q, double rounds, double delta) {
    if (!(sigma > 0.0 && std::isfinite(sigma)) || !(q > 0.0 && q <= 1.0) || !(rounds >= 1.0) ||
        !(delta > 0.0 && delta < 1.0))
        throw std::invalid_argument("the RDP cap needs sigma > 0, q in (0, 1], rounds >= 1 and delta in (0, 1)");
    const double log_delta = std::log(delta);
    double least = HUGE_VAL;
    bool total_variation = false;
    const auto convert = [&](double alpha, double curve) {
        const double r = std::nextafter(rounds * curve, HUGE_VAL);
        if (delta * delta + std::expm1(-r) > 0.0) total_variation = true;  // the total-variation bound
        const double eps = r + std::log1p(-1.0 / alpha) - (log_delta + std::log(alpha)) / (alpha - 1.0);
        if (!std::isnan(eps)) least = std::min(least, eps);
    };
    for (const int order : kRdpCapOrders) convert(order, subsampled_gaussian_rdp_upper(sigma, q, order));
    for (const double alpha : rdp_cap_fractional_orders())
        convert(alpha, subsampled_gaussian_fractional_rdp_upper(sigma, q, alpha));
    if (total_variation) return 0.0;
    return std::isfinite(least) ? std::nextafter(std::max(0.0, least) * (1.0 + kRdpCapMargin), HUGE_VAL) : least;
}

}  // namespace pld
}  // namespace hockeystick
