// The RDP conversion's certified upper epsilon of T rounds of the Poisson-subsampled Gaussian at delta: the cap the
// default epsilon chain lowers its tilted upper side to where no tail is given (default_epsilon.hpp's and
// accuracy_epsilon.hpp's plan.cap), past the PLD reads' charges (at a delta below about 1e-200 the tilted windows pass
// their caps and only this side is finite).  The package's cap (python pld/refine/question.py's rdp_upper) reads the
// RDP accountant at dp_accounting's default orders, fractional ones among them; the C library's epsilon call reads this
// one at the integer orders of those (kRdpCapOrders), where the two curves are the same sum: where the least of the
// package's conversion falls on such an order, as at the small deltas where the cap decides, both caps agree to their
// margins, and elsewhere this one is at least the package's.
//
// One round's curve at an integer order alpha (Mironov, Talwar & Zhang 2019, Sec. 3.3: the binomial expansion, whose
// terms i = 0, 1 sum with the weights to 1, so every term left is positive and nothing cancels):
//
//     eps_R(alpha) = log(1 + sum_{i=2}^{alpha} C(alpha, i) (1 - q)^{alpha - i} q^i (e^{(i^2 - i) / (2 sigma^2)} - 1))
//                    / (alpha - 1),
//
// each term's logarithm a sum of rounded quantities (log C(alpha, i) from the double recursion C(alpha, i) =
// C(alpha, i - 1) (alpha - i + 1) / i, within 2 alpha u relative, C(1024, 512) < 2^1020; i log q, (alpha - i)
// log(1 - q); log(e^x - 1) = x + log(-expm1(-x))), its absolute error at most 8 u S (u = 2^-53, S = 3 log alpha_max! +
// alpha_max (|log q| + |log(1 - q)|) + alpha_max^2 / (2 sigma^2) + 1 bounds the magnitudes summed, and 2 alpha_max u
// of the recursion is below u S), the log-sum-exp from its largest term adding (alpha + 4) u relative: the curve is
// widened by 16 u S + 8 alpha_max u relative and stepped one ulp up (python rdp/integer_orders.py's
// subsampled_gaussian_rdp_upper, the ledger's, the same bound).  T rounds: T eps_R(alpha) (Mironov 2017, Prop. 1),
// stepped one ulp up.
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

namespace hockeystick {
namespace pld {

// The integer orders among dp_accounting's default RDP orders (python hockeystick.rdp.DEFAULT_ORDERS): 2 to 63, then
// 128, 256, 512 and 1024.
inline constexpr std::array<int, 66> kRdpCapOrders = {
    2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,  21,  22,  23,
    24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42,  43,  44,  45,
    46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 128, 256, 512, 1024};

// The conversion's relative round-up (the package's refine/question.py RDP_MARGIN).
constexpr double kRdpCapMargin = 1e-9;

namespace rdp_cap_detail {

constexpr double kUnitRoundoff = 0x1p-53;

// One round's curve at the integer order alpha, before its widening (the header's sum, in log space).
inline double one_round_curve(double sigma, double q, int alpha) {
    const double log_q = std::log(q), log_1mq = std::log1p(-q), inv2s2 = 0.5 / (sigma * sigma);
    double binomial = static_cast<double>(alpha), peak = -HUGE_VAL;
    std::array<double, 1024> terms{};
    for (int i = 2; i <= alpha; ++i) {
        binomial = binomial * static_cast<double>(alpha - i + 1) / static_cast<double>(i);
        const double log_binomial = std::log(binomial);
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

}  // namespace rdp_cap_detail

// One round's certified upper RDP curve at the integer order alpha (2 <= alpha <= 1024) of the Poisson-subsampled
// Gaussian of noise multiplier sigma > 0 at rate q in (0, 1] (the header's comment); inf where its terms overflow.
inline double subsampled_gaussian_rdp_upper(double sigma, double q, int alpha) {
    namespace d = rdp_cap_detail;
    if (!(alpha >= 2 && alpha <= 1024)) throw std::invalid_argument("the RDP order must be an integer in [2, 1024]");
    if (q == 1.0) return std::nextafter(alpha / (2.0 * sigma * sigma) * (1.0 + 4.0 * d::kUnitRoundoff), HUGE_VAL);
    const double top = kRdpCapOrders.back();
    const double magnitude = 3.0 * std::lgamma(top + 1.0) + top * (std::fabs(std::log(q)) + std::fabs(std::log1p(-q))) +
                             top * top * (0.5 / (sigma * sigma)) + 1.0;
    const double margin = 16.0 * d::kUnitRoundoff * magnitude + 8.0 * d::kUnitRoundoff * top;
    return std::nextafter(d::one_round_curve(sigma, q, alpha) * (1.0 + margin), HUGE_VAL);
}

// The RDP conversion's certified upper epsilon of `rounds` rounds at delta in (0, 1) (the header's comment): inf where
// no order certifies delta.
inline double subsampled_gaussian_rdp_epsilon(double sigma, double q, double rounds, double delta) {
    if (!(sigma > 0.0 && std::isfinite(sigma)) || !(q > 0.0 && q <= 1.0) || !(rounds >= 1.0) ||
        !(delta > 0.0 && delta < 1.0))
        throw std::invalid_argument("the RDP cap needs sigma > 0, q in (0, 1], rounds >= 1 and delta in (0, 1)");
    const double log_delta = std::log(delta);
    double least = HUGE_VAL;
    for (const int order : kRdpCapOrders) {
        const double alpha = order;
        const double r = std::nextafter(rounds * subsampled_gaussian_rdp_upper(sigma, q, order), HUGE_VAL);
        if (delta * delta + std::expm1(-r) > 0.0) return 0.0;  // the total-variation bound
        const double eps = r + std::log1p(-1.0 / alpha) - (log_delta + std::log(alpha)) / (alpha - 1.0);
        if (!std::isnan(eps)) least = std::min(least, eps);
    }
    return std::isfinite(least) ? std::nextafter(std::max(0.0, least) * (1.0 + kRdpCapMargin), HUGE_VAL) : least;
}

}  // namespace pld
}  // namespace hockeystick
