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
// Products of rho overflow for long runs, so every block carries its own scale exponent.
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

// A pooled block of rounds: sum gamma_s P_s = a e^c, sum P_s^2 = b e^{2c}.
struct interpolation_block {
    double c, a, b;
    double log_slope() const { return std::log(a / b) - c; }  // log of (sum gamma P)/(sum P^2)
    double energy() const { return a * a / b; }              // (sum gamma P)^2 / sum P^2, scale-free
};

inline void pool(interpolation_block& into, const interpolation_block& other) {
    const double c = into.c > other.c ? into.c : other.c;
    const double s1 = std::exp(into.c - c), s2 = std::exp(other.c - c);
    into.a = into.a * s1 + other.a * s2;
    into.b = into.b * s1 * s1 + other.b * s2 * s2;
    into.c = c;
}

}  // namespace detail

// round(t, log_rho, gamma) fills log rho_t and gamma_t >= 0 for t = 0..rounds-1.
// `stack` is scratch space (reused across calls to avoid allocation).
template <class Round>
interpolation_bound shifted_interpolation_bound(std::int64_t rounds, Round&& round,
                                                std::vector<detail::interpolation_block>& stack) {
    stack.clear();
    detail::interpolation_block total{0.0, 0.0, 0.0};
    double log_r = 0.0;  // log R_{t+1} = sum_{j<=t} log rho_j
    double h_comp = 0.0;
    for (std::int64_t t = 0; t < rounds; ++t) {
        double log_rho = 0.0, gamma = 0.0;
        round(t, log_rho, gamma);
        log_r += log_rho;
        h_comp += gamma * gamma;
        // P_t is proportional to 1/R_{t+1}; the common factor cancels in every ratio used.
        detail::interpolation_block block{-log_r, gamma, 1.0};
        if (t == 0) total = block; else detail::pool(total, block);
        while (!stack.empty() && stack.back().log_slope() >= block.log_slope()) {  // ties pool: same energy, one block
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

// log rho_t = sum_k log(1 + eta_{k,t} L) (eq. 30 telescoped) and the step sum sum_k eta_{k,t}
// (eq. 29 without the factor 2V/m) for round t.
inline void fedavg_round(fedavg_schedule schedule, double a, double lipschitz, std::int64_t local_steps,
                         std::int64_t t, double& log_rho, double& step_sum) {
    const double K = static_cast<double>(local_steps);
    switch (schedule) {
        case fedavg_schedule::constant:
            log_rho = K * std::log1p(a * lipschitz);
            step_sum = a * K;
            return;
        case fedavg_schedule::stagewise: {
            const double eta = a / static_cast<double>(t + 1);
            log_rho = K * std::log1p(eta * lipschitz);
            step_sum = eta * K;
            return;
        }
        case fedavg_schedule::cyclic:
        case fedavg_schedule::continuous: {
            const double base = schedule == fedavg_schedule::cyclic ? 1.0 : static_cast<double>(t) * K + 1.0;
            double lr = 0.0, s = 0.0;
            // Sum the small terms first: k runs from the last (smallest eta) to the first.
            for (std::int64_t k = local_steps - 1; k >= 0; --k) {
                const double eta = a / (base + static_cast<double>(k));
                lr += std::log1p(eta * lipschitz);
                s += eta;
            }
            log_rho = lr;
            step_sum = s;
            return;
        }
    }
}

}  // namespace hockeystick
