// Shifted-interpolation bounds for the last iterate of noisy FedAvg / FedProx
// (Sun, Shen, Tao, "Convergent DP analysis for general FL: the f-DP perspective",
// paper 004, eq. 12-16 and Appendix A.3).
//
// Per round t = 0..T-1 the global map satisfies ||phi(w) - phi'(w~)|| <= rho_t ||w - w~|| + gamma_t
// (Theorem 10).  With interpolation weights lambda_{t+1} in [0, 1], lambda_T = 1 and the worst-case
// gap recursion D_0 = 0, D_{t+1} = (1 - lambda_{t+1})(rho_t D_t + gamma_t), the final model is
// T_G(sqrt(m H)/sigma)-DP with H = sum_t lambda_{t+1}^2 (rho_t D_t + gamma_t)^2  (eq. 12, 14).
//
// Three values of H are returned, all in the units of gamma^2:
//   h_composition  lambda == 1: H = sum_t gamma_t^2, plain GDP composition (always valid).
//   h0             the paper's eq. 16: (sum_t P_t gamma_t)^2 / sum_t P_t^2, P_t = prod_{j>t} rho_j.
//                  It is the Cauchy-Schwarz lower bound on H over lambda; it is attained only when
//                  the paper's condition eq. 41 (0 <= lambda <= 1) can be met.  Not a bound otherwise.
//   h_optimal      the exact minimum of H over all lambda in [0,1]^T with lambda_T = 1 (and so over
//                  the observation point t0 too: lambda = 0 before t0 is the same thing).
// Writing x_t = lambda_{t+1}(rho_t D_t + gamma_t), the problem is min sum x_t^2 subject to
// prefix constraints; in the variables y_t = x_t / R_{t+1}, R_t = prod_{j<t} rho_j, it is a weighted
// isotonic regression: the optimum is the greatest convex minorant of the cumulative-sum diagram
// with steps (1/R_{t+1}^2, gamma_t / R_{t+1}), solved exactly by pool-adjacent-violators in O(T).
// h0 is attained (eq. 41 holds) exactly when that minorant is a single segment.
//
// Products of rho overflow for long runs, so R is carried as r * 2^{256 e} with r in [2^-256, 2^256),
// and every block as (a, b) * (2^{256 e}, 2^{512 e}).  Rescaling multiplies by table powers of 2
// (exact), so a round costs no exp, log, frexp or ldexp of its own.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace hockeystick {

struct interpolation_bound {
    double h0;             // paper eq. 16 (valid only if h0_attained)
    double h_optimal;      // exact constrained minimum (always valid)
    double h_composition;  // lambda == 1 (always valid)
    bool h0_attained;      // paper eq. 41 holds
};

namespace detail {

constexpr double chunk = 0x1p256;       // one unit of the scale exponents
constexpr double chunk_inverse = 0x1p-256;

// 2^{256 d}: exact for |d| <= 3, and 0 or inf beyond (where it only decides comparisons).
inline double chunk_power(long d) {
    static constexpr double table[7] = {0x1p-768, 0x1p-512, 0x1p-256, 1.0, 0x1p256, 0x1p512, 0x1p768};
    if (d < -3) return 0.0;
    if (d > 3) return HUGE_VAL;
    return table[d + 3];
}

// A pooled block of rounds, with P~_s = 1/R_{s+1} (proportional to P_s):
// sum gamma_s P~_s = a 2^{256 e} and sum P~_s^2 = b 2^{512 e}, e the largest member's exponent.
// b >= 2^-512 (its largest member), so terms that underflow are below 1e-150 of the sum.
struct interpolation_block {
    double a, b;
    long e;
    double energy() const { return a * a / b; }  // (sum gamma P)^2 / sum P^2: scale-free
};

inline void pool(interpolation_block& into, const interpolation_block& other) {
    if (into.e >= other.e) {
        const double s = chunk_power(other.e - into.e);
        into.a += other.a * s;
        into.b += other.b * s * s;
    } else {
        const double s = chunk_power(into.e - other.e);
        into.a = into.a * s + other.a;
        into.b = into.b * s * s + other.b;
        into.e = other.e;
    }
}

// slope(x) = (x.a / x.b) 2^{-256 x.e} = (sum gamma P)/(sum P^2); true when slope(left) >= slope(right).
inline bool slope_not_below(const interpolation_block& left, const interpolation_block& right) {
    const double lhs = left.a * right.b;
    if (lhs == 0.0) return right.a == 0.0;  // slope(left) = 0
    return lhs * chunk_power(right.e - left.e) >= right.a * left.b;
}

// R <- R * rho with R = r 2^{256 e} kept in range; the rare far-out case goes through frexp.
inline void scale_product(double& r, long& e, double rho) {
    const double next = r * rho;
    if (next >= chunk_inverse && next < chunk) {
        r = next;
        return;
    }
    int er = 0, ep = 0;
    const double m = std::frexp(r, &er) * std::frexp(rho, &ep);  // in [1/4, 1)
    long bits = static_cast<long>(er) + ep;                      // r * rho = m 2^bits
    long q = bits >= 0 ? bits / 256 : -((-bits + 255) / 256);   // floor(bits / 256)
    r = std::ldexp(m, static_cast<int>(bits - 256 * q));
    e += q;
    if (r < chunk_inverse) {
        r *= chunk;
        e -= 1;
    }
}

}  // namespace detail

// round(t, rho, gamma) fills rho_t > 0 and gamma_t >= 0 for t = 0..rounds-1.
// `stack` is scratch space (reused across calls to avoid allocation).
template <class Round>
interpolation_bound shifted_interpolation_bound(std::int64_t rounds, Round&& round,
                                                std::vector<detail::interpolation_block>& stack) {
    stack.clear();
    detail::interpolation_block total{0.0, 1.0, 0};
    double r = 1.0;  // R_{t+1} = prod_{j<=t} rho_j = r 2^{256 r_exp}
    long r_exp = 0;
    double h_comp = 0.0;
    for (std::int64_t t = 0; t < rounds; ++t) {
        double rho = 1.0, gamma = 0.0;
        round(t, rho, gamma);
        detail::scale_product(r, r_exp, rho);
        h_comp += gamma * gamma;
        const double p = 1.0 / r;  // P~_t = p 2^{-256 r_exp}
        detail::interpolation_block block{gamma * p, p * p, -r_exp};
        if (t == 0)
            total = block;
        else
            detail::pool(total, block);
        // Pool adjacent violators: slopes must end non-decreasing; ties pool (same energy, one block).
        while (!stack.empty() && detail::slope_not_below(stack.back(), block)) {
            detail::pool(block, stack.back());
            stack.pop_back();
        }
        stack.push_back(block);
    }
    double h_opt = 0.0;
    for (const auto& b : stack) h_opt += b.energy();
    return {total.energy(), h_opt, h_comp, stack.size() == 1};
}

// Local learning-rate schedules of noisy FedAvg (paper 004, Theorem 12), rate a = learning_rate:
// constant eta = a; cyclic eta_{k,t} = a/(k+1); stage-wise a/(t+1); continuous a/(tK+k+1).
enum class fedavg_schedule : int { constant = 0, cyclic = 1, stagewise = 2, continuous = 3 };

// base^n for a whole n >= 0 by repeated squaring (relative error ~ 2 log2(n) ulp, no exp/log).
inline double whole_power(double base, std::int64_t n) {
    double result = 1.0;
    while (n > 0) {
        if (n & 1) result *= base;
        base *= base;
        n >>= 1;
    }
    return result;
}

// rho_t = prod_k (1 + eta_{k,t} L) (eq. 30 telescoped) and the step sum sum_k eta_{k,t}
// (eq. 29 without the factor 2V/m) for round t.
inline void fedavg_round(fedavg_schedule schedule, double a, double lipschitz, std::int64_t local_steps, std::int64_t t,
                         double& rho, double& step_sum) {
    const double K = static_cast<double>(local_steps);
    switch (schedule) {
        case fedavg_schedule::constant:
            rho = std::exp(K * std::log1p(a * lipschitz));
            step_sum = a * K;
            return;
        case fedavg_schedule::stagewise: {
            const double eta = a / static_cast<double>(t + 1);
            rho = whole_power(1.0 + eta * lipschitz, local_steps);
            step_sum = eta * K;
            return;
        }
        case fedavg_schedule::cyclic:
        case fedavg_schedule::continuous: {
            const double base = schedule == fedavg_schedule::cyclic ? 1.0 : static_cast<double>(t) * K + 1.0;
            double r = 1.0, s = 0.0;
            // Sum the small terms first: k runs from the last (smallest eta) to the first.
            for (std::int64_t k = local_steps - 1; k >= 0; --k) {
                const double eta = a / (base + static_cast<double>(k));
                r *= 1.0 + eta * lipschitz;
                s += eta;
            }
            rho = r;
            step_sum = s;
            return;
        }
    }
}

}  // namespace hockeystick
