// The sums of products shared by every contraction bound (papers 000 and 002).
//
// With a_t the first-round divergence and b_j the contraction factor of round j:
//
//   general     S_T = sum_{t=1..T} a_t prod_{j=t+1..T} b_j            (000 Thm 2)
//               by S_t = b_t S_{t-1} + a_t, O(T).
//   random stop R   = sum_{tau=tau0..T} S_tau                          (000 Cor 3, alpha-suffix)
//               accumulated during the same recursion, O(T) instead of O(T^2).
//   geometric   G(b, T) = sum_{k<T} b^k = (1 - b^T) / (1 - b)          (constant schedule)
//               = -expm1(T log b) / (1 - b), with log b = log1p(-(1 - b)) and 1 - b
//               taken from the factor's accurate complement: no cancellation as b -> 1
//               (G -> T) or b -> 0 (G -> 1); T = inf gives 1 / (1 - b) (002 eq. 16), by the
//               factor's log(1 - b) where 1 - b is subnormal or below the double range.
//   random-stop geometric  sum_{tau=tau0..T} G(b, tau) = H(N) + G(b, tau0) G(b, N),
//               N = T - tau0 + 1,  H(N) = sum_{k<N} G(b, k) = (N - G(b, N)) / (1 - b)
//                 = [expm1(N l) - N expm1(l)] / (1 - b)^2,  l = log b;
//               for |N l| <= 1 the bracket is summed as sum_{k>=2} ((N l)^k - N l^k) / k!
//               (no cancellation as b -> 1, where H -> N(N-1)/2).  All terms positive.
//
// Every routine returns log of the sum and its slope d/d eps (NaN when not formed),
// so bounds far below 1e-308 stay finite and the epsilon solver can take Newton steps.
// The general recursion runs in linear space (relative error ~ u per round, damped by
// the contraction) and switches to a log-scaled representation only when a term
// underflows; when b_t > 1/2 it uses S - (1 - b_t) S, so the rounding of b_t near 1
// does not accumulate over the ~1/(1 - b) rounds the recursion remembers.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "hockeystick/contraction/factor.hpp"
#include "hockeystick/numerics/error_free.hpp"

namespace hockeystick {

struct log_and_slope {
    double log_value;  // log of the quantity (-inf when it is 0)
    double slope;      // d log(quantity) / d eps (NaN when not available)
};

namespace detail {

// sum_{k>=2} x^k / k!  = expm1(x) - x, for |x| <= 1 (series, no cancellation).
inline double expm1_minus_identity(double x) {
    double term = 0.5 * x * x;
    double sum = term;
    for (int k = 3; k < 40; ++k) {
        term *= x / k;
        sum += term;
        if (std::fabs(term) <= 1e-17 * std::fabs(sum)) break;
    }
    return sum;
}

inline double log_add_exp(double x, double y) {
    if (x == -inf) return y;
    if (y == -inf) return x;
    const double m = x > y ? x : y;
    return m + std::log1p(std::exp(-std::fabs(x - y)));
}

}  // namespace detail

// log G(b, terms), G = sum_{k < terms} b^k, terms >= 1 (integer or +inf).
// The closed forms read only b's log_value, complement and (terms = inf) log_complement.
inline double log_geometric_sum(const contraction_factor& b, double terms) {
    if (b.log_value == -detail::inf) return 0.0;
    if (std::isinf(terms) && detail::log_complement_serves(b)) return -b.log_complement;  // 1 / (1 - b)
    if (b.complement == 0.0) return std::log(terms);
    return std::log(-std::expm1(terms * b.log_value)) - std::log(b.complement);
}

// log G(b, terms) and d log G / d eps = (d log G / d b) * b * (d log b / d eps), with
// d log G / d b = 1/(1 - b) - T b^{T-1} / (1 - b^T) in [0, T - 1] (clamped there: near
// b = 1 the difference cancels, and Newton needs only a few correct digits of it).  Where terms = inf and
// 1 - b is below the double range the slope is not formed (NaN).
inline log_and_slope log_geometric_sum_and_slope(const contraction_factor& b, double terms) {
    if (b.log_value == -detail::inf) return {0.0, 0.0};
    if (std::isinf(terms) && detail::log_complement_serves(b)) return {-b.log_complement, detail::nan};
    if (b.complement == 0.0) return {std::log(terms), 0.0};
    if (std::isinf(terms)) return {-std::log(b.complement), b.value * b.log_slope / b.complement};
    const double power_minus_one = std::expm1(terms * b.log_value);  // b^T - 1 < 0
    const double log_sum = std::log(-power_minus_one) - std::log(b.complement);
    if (terms <= 1.0) return {log_sum, 0.0};
    double dlog_db = 1.0 / b.complement - terms * ((1.0 + power_minus_one) / b.value) / -power_minus_one;
    if (!(dlog_db >= 0.0)) dlog_db = 0.0;
    if (dlog_db > terms - 1.0) dlog_db = terms - 1.0;
    return {log_sum, dlog_db * b.value * b.log_slope};
}

// log sum_{tau = first_stop..terms} G(b, tau), 1 <= first_stop <= terms.
inline double log_random_stop_geometric_sum(const contraction_factor& b, double terms, double first_stop) {
    const double count = terms - first_stop + 1.0;  // N
    double nested;                                   // H(N) = sum_{k<N} G(b, k)
    if (b.log_value == -detail::inf) {
        nested = count - 1.0;
    } else if (b.complement == 0.0) {
        nested = 0.5 * count * (count - 1.0);
    } else {
        const double l = b.log_value;
        const double bracket = (std::fabs(count * l) <= 1.0)
                                   ? detail::expm1_minus_identity(count * l) - count * detail::expm1_minus_identity(l)
                                   : std::expm1(count * l) + count * b.complement;
        nested = bracket / b.complement / b.complement;
    }
    const double log_cross = log_geometric_sum(b, first_stop) + log_geometric_sum(b, count);
    return nested > 0.0 ? detail::log_add_exp(std::log(nested), log_cross) : log_cross;
}

namespace detail {

// b S_t with its error term, S_t = s + s_err: as S - (1 - b) S where b is near 1, so that b's rounding there does
// not accumulate over the rounds.
inline void carried_sum(const contraction_factor& b, double s, double s_err, double& carried, double& carried_err) {
    if (b.complement < 0.5) {  // b S = S - (1 - b) S: b's rounding near 1 does not accumulate
        const double_double c = two_sum(s, -(b.complement * s));
        carried = c.hi;
        carried_err = c.lo + (s_err - b.complement * s_err);
    } else {
        carried = b.value * s;
        carried_err = b.value * s_err;
    }
}

}  // namespace detail

// The general recursion.  factors(t, a, b) fills the factors of round t = 0..rounds-1.
// first_stop = 0 returns log S_T; first_stop in 1..rounds returns log sum_{tau >= first_stop} S_tau.
template <class Factors>
log_and_slope contraction_recursion(std::int64_t rounds, std::int64_t first_stop, Factors factors) {
    constexpr double tiny = 1e-250;
    double scale = 0.0;             // log of the common scale of s and r
    double s = 0.0, s_err = 0.0;    // S_t / e^scale = s + s_err (compensated: T up to 1e7 stays at ~u)
    double s_slope = 0.0;           // d log S_t / d eps
    double r = 0.0, r_err = 0.0;    // R / e^scale = r + r_err
    double r_deriv = 0.0;           // dR/d eps / e^scale
    contraction_factor a{}, b{};
    for (std::int64_t t = 0; t < rounds; ++t) {
        factors(t, a, b);
        if (scale == 0.0 && a.value >= tiny) {
            double carried, carried_err;
            detail::carried_sum(b, s, s_err, carried, carried_err);
            const double_double next = two_sum(carried, a.value);
            double slope = a.value * a.log_slope;
            if (carried > 0.0) slope += carried * (b.log_slope + s_slope);
            s = next.hi;
            s_err = next.lo + carried_err;
            s_slope = slope / s;
        } else {
            s += s_err;
            s_err = 0.0;
            const double log_carried = (s > 0.0) ? std::log(s) + scale + b.log_value : -detail::inf;
            const double log_next = detail::log_add_exp(log_carried, a.log_value);
            if (log_next == -detail::inf) continue;  // still exactly 0
            const double w_carried = std::exp(log_carried - log_next);
            const double w_first = std::exp(a.log_value - log_next);
            double slope = 0.0;
            if (w_carried > 0.0) slope += w_carried * (b.log_slope + s_slope);
            if (w_first > 0.0) slope += w_first * a.log_slope;
            s_slope = slope;
            const double new_scale = (log_next < std::log(tiny)) ? log_next : 0.0;
            const double rescale = std::exp(scale - new_scale);
            r = (r + r_err) * rescale;
            r_err = 0.0;
            r_deriv *= rescale;
            scale = new_scale;
            s = std::exp(log_next - scale);
        }
        if (first_stop > 0 && t + 1 >= first_stop) {
            const double_double sum = two_sum(r, s);
            r = sum.hi;
            r_err += sum.lo + s_err;
            r_deriv += s * s_slope;
        }
    }
    const double total = first_stop > 0 ? r + r_err : s + s_err;
    if (!(total > 0.0)) return {-detail::inf, detail::nan};
    return {std::log(total) + scale, first_stop > 0 ? r_deriv / total : s_slope};
}

}  // namespace hockeystick
