// The grid-and-tail policy of an accuracy-driven refinement: the grid a point (sigma, q, rounds, sensitivity)
// starts from and the tail cut from each round's loss, as pure functions of the point, the deltas asked, the
// accuracy and the tuning constants.  Nothing here affects what is certified: every grid's bracket is certified, a
// coarser one only wider; these rules choose which grids are built.
//
// The Python package calls these functions (pld/grid/grid_start.py, its constants in pld/grid/constants.py passed
// as a GridPolicy at call time); the C interface's refinement (epsilon_refinement.hpp) calls them with the defaults.
//
//   loss_span     the estimated loss span of T composed rounds (memory and start only): one round spans about
//                 log(1 - q + q e^{(1/2 + z s)/s^2}) - log(1 - q) (z = 8.5 standard deviations, s = sigma /
//                 sensitivity), its variance is about q^2 (e^{1/s^2} - 1), so T rounds span about
//                 2 z sqrt(T var) plus two rounds' spans (at most T rounds' spans);
//   ladder_rung   h rounded down to FINEST 2^(k/2), k an integer, no rung below LOWEST;
//   start_default the h at which the bracket's h^2 law predicts 0.64 accuracy from a reference bracket 4.2e-2 wide
//                 at h = 2e-3, between FINEST and COARSEST_INTERVAL;
//   epsilon_start the connect-the-dots model (Doroshenko et al., PETS 2022, the pessimistic and split-tent
//                 optimistic sides of pld/grid/connect_dots.hpp): each side's composition error comes from the
//                 loss variance the grid adds, ~h^2/6 per round, and the mean's drift with it, so an epsilon
//                 bracket at z = sqrt(2 log(1/delta)) standard deviations of a composed loss of spread
//                 S = sqrt(T q^2 (e^{1/s^2} - 1)) is about (T h^2 / 7)(1 + z / S) wide (the 7 fitted to the
//                 split-tent lower side); solved for 0.9 of the tolerance, no finer than a quarter of the default;
//                 with a relative tolerance max(accuracy, relative eps) at the central limit's eps,
//                 S^2 / 2 + z S, the finest over the deltas; then below_rate_start;
//   question_tail the tail cut from each round: DEFAULT_TAIL, or less where T rounds' cuts (at most T tail at
//                 +infinity on the upper side) would pass share delta; at least SMALLEST_TAIL;
//   coarsest_fit  the least grid on which one round's loss span in the remove direction up to where its
//                 discretization cuts `tail` of the mass, log(1 - q + q e^{(2 x c - c^2) / (2 sigma^2)}) - log(1 - q)
//                 at x the larger of sigma Qbar^-1(tail) (the unsampled part's cut) and c + sigma
//                 Qbar^-1(min(1/2, tail / q)) (the sampled part's), fits a quarter of MAX_WINDOW points: a composed
//                 window holds at least that span, which loss_span's 8.5 deviations do not bound at small tails
//                 (sigma 1.2, q 1.1e-6, 79 rounds, tail 1e-300: one round spans ~17, not ~1); 0 where the span is not
//                 a finite number (sigma / sensitivity out of the discretization's range, which refuses it by name).
//
// Every operation is the Python formula's, in its order, through the same libm calls (log1p, expm1, log2, pow,
// numpy's logaddexp), so the values are equal bit for bit.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "hockeystick/numerics/gaussian_tail.hpp"

namespace hockeystick {
namespace pld {

// The tuning constants the policy reads (python/hockeystick/pld/grid/constants.py: what each means and why).
struct GridPolicy {
    double finest_interval = 1e-5;
    double lowest_interval = 1e-5 * 0.0009765625;  // FINEST 2^-10
    double coarsest_interval = 2e-3;
    double coarsest_start = 1.0;
    double start_points = 8192.0;
    double below_rate_margin = 1.2;
    double below_rate_start_max_rate = 4e-3;
    double below_rate_start_max_refinement = 16.0;
    double below_rate_finest_divisor = 8.0;
    double max_window = 4194304.0;  // 2^22
};

// The question tail's constants (python/hockeystick/pld/refine/question.py).
struct TailPolicy {
    double default_tail = 1e-15;
    double smallest_tail = 1e-300;
    double share = 1e-3;
};

namespace grid_policy_detail {

// numpy's logaddexp (npy_logaddexp), operation for operation.
inline double logaddexp(double x, double y) {
    if (x == y) return x + 0.693147180559945309417232121458176568;  // NPY_LOGE2
    const double tmp = x - y;
    if (tmp > 0) return x + std::log1p(std::exp(-tmp));
    if (tmp <= 0) return y + std::log1p(std::exp(tmp));
    return tmp;  // NaN
}

inline double clipped_noise(double sigma, double sensitivity) {
    return std::min(std::max(sigma / sensitivity, 1e-100), 1e100);  // 1/s^2 neither overflows nor vanishes
}

// sqrt(T q^2 (e^{1/s^2} - 1)): the composed loss's standard deviation for small q.
inline double composed_spread(double s, double q, double rounds) {
    return std::sqrt(rounds * q * q * std::expm1(std::min(1.0 / (s * s), 700.0)));
}

}  // namespace grid_policy_detail

// loss_span: the estimated loss span of `rounds` composed rounds (the header's comment).  0 < q < 1.
inline double loss_span(double sigma, double q, double rounds, double sensitivity) {
    if (!(q > 0.0 && q < 1.0))
        throw std::domain_error("loss_span: the sampling rate must lie strictly between 0 and 1");
    const double z = 8.5;
    const double s = grid_policy_detail::clipped_noise(sigma, sensitivity);
    const double one_round =
        grid_policy_detail::logaddexp(std::log1p(-q), std::log(q) + (0.5 + z * s) / (s * s)) - std::log1p(-q);
    const double spread = 2 * z * grid_policy_detail::composed_spread(s, q, rounds);
    return std::min(spread + 2 * one_round, rounds * one_round);
}

// h rounded down to the ladder FINEST 2^(k/2), no rung below LOWEST.
inline double ladder_rung(double h, const GridPolicy& g = {}) {
    const double lowest = std::floor(2.0 * std::log2(g.lowest_interval / g.finest_interval) + 0.5);
    const double k = std::floor(2.0 * std::log2(h / g.finest_interval) + 1e-9);
    return g.finest_interval * std::pow(2.0, std::max(k, lowest) / 2.0);
}

// The finest grid a refinement builds at sampling rate q: FINEST, or the rung at or below q / DIVISOR.
inline double finest_interval(double q, const GridPolicy& g = {}) {
    const double below = ladder_rung(std::max(q / g.below_rate_finest_divisor, g.lowest_interval), g);
    return std::min(g.finest_interval, below);
}

// h, or where the point's composed window on it would exceed MAX_WINDOW points by loss_span's estimate, the finest
// ladder rung on which it does not (no coarser than COARSEST_START).
inline double within_window(double sigma, double q, double rounds, double sensitivity, double h,
                            const GridPolicy& g = {}) {
    const double span = loss_span(sigma, q, rounds, sensitivity);
    const double least = std::min(span / g.max_window, std::max(h, g.coarsest_start));
    if (h >= least) return h;
    const double k = std::ceil(2.0 * std::log2(least / g.finest_interval) - 1e-9);
    return g.finest_interval * std::pow(2.0, std::max(k, 0.0) / 2.0);
}

// The start without a point: the h^2 law's grid for 0.64 accuracy, in [FINEST, COARSEST_INTERVAL].
inline double start_default(double accuracy, const GridPolicy& g = {}) {
    return std::max(g.finest_interval, g.coarsest_interval * std::min(1.0, 0.8 * std::sqrt(accuracy / 4.2e-2)));
}

// The .delta start: the h that puts the composed span on START_POINTS points (at most COARSEST_START), no finer
// than the default, on the ladder.
inline double span_start(double sigma, double q, double rounds, double sensitivity, double accuracy,
                         const GridPolicy& g = {}) {
    const double span = loss_span(sigma, q, rounds, sensitivity) / g.start_points;
    return ladder_rung(std::max(start_default(accuracy, g), std::min(g.coarsest_start, span)), g);
}

// The ladder's rung at or below q / BELOW_RATE_MARGIN: the coarsest grid on which q's optimistic side is not blind.
inline double below_rate(double q, const GridPolicy& g = {}) {
    return ladder_rung(q / g.below_rate_margin * (1.0 - 1e-9), g);
}

// `start`, or where the sampling rate q is below it, the rung below q (below_rate) if q is at most
// BELOW_RATE_START_MAX_RATE and that rung at most BELOW_RATE_START_MAX_REFINEMENT times finer.
inline double below_rate_start(double start, double q, const GridPolicy& g = {}) {
    if (q >= start || q > g.below_rate_start_max_rate || q <= g.lowest_interval) return start;
    const double below = below_rate(q, g);
    return start <= g.below_rate_start_max_refinement * below ? below : start;
}

// The .epsilon start at the `n` deltas `x` (0 < x < 1; n = 0: the finest start the model can choose), tolerance
// max(accuracy, relative_accuracy eps) (relative_accuracy 0: accuracy).
inline double epsilon_start(double sigma, double q, double rounds, double sensitivity, const double* x, std::int64_t n,
                            double accuracy, double relative_accuracy, const GridPolicy& g = {}) {
    const double start = start_default(accuracy, g);
    if (n == 0) return std::max(0.25 * start, g.finest_interval);
    const double s = grid_policy_detail::clipped_noise(sigma, sensitivity);
    const double spread = grid_policy_detail::composed_spread(s, q, rounds);
    const double least_delta = *std::min_element(x, x + n);
    const double z = std::sqrt(-2.0 * std::log(least_delta));  // -log: 1 / 5e-324 overflows
    double h = std::sqrt(7.0 * 0.9 * accuracy / (rounds * (1.0 + z / std::max(spread, 1e-300))));
    if (relative_accuracy > 0) {
        h = HUGE_VAL;
        for (std::int64_t i = 0; i < n; ++i) {
            const double zs = std::sqrt(-2.0 * std::log(x[i]));
            const double tolerance = std::max(accuracy, relative_accuracy * (spread * spread / 2.0 + zs * spread));
            h = std::min(h, std::sqrt(7.0 * 0.9 * tolerance / (rounds * (1.0 + zs / std::max(spread, 1e-300)))));
        }
    }
    const double clipped = std::min(std::max(std::max(h, 0.25 * start), g.finest_interval), g.coarsest_interval);
    return below_rate_start(clipped, q, g);
}

// The .delta start: span_start, moved below the sampling rate by below_rate_start under the epsilon criterion.
inline double delta_start(double sigma, double q, double rounds, double sensitivity, double accuracy,
                          bool epsilon_criterion, const GridPolicy& g = {}) {
    const double start = span_start(sigma, q, rounds, sensitivity, accuracy, g);
    return epsilon_criterion ? below_rate_start(start, q, g) : start;
}

// The tail cut from each of `rounds` rounds' loss for a question at `delta` (the header's comment).
inline double question_tail(double rounds, double delta, const TailPolicy& t = {}) {
    return std::min(t.default_tail, std::max(t.smallest_tail, t.share * delta / rounds));
}

// One round's loss span at `tail` in the remove direction (the header's coarsest_fit), 0 where not finite.
inline double round_tail_span(double sigma, double q, double sensitivity, double tail) {
    const double unsampled = gaussian_tail_inverse(tail), sampled = gaussian_tail_inverse(std::min(0.5, tail / q));
    const double c = sensitivity;
    const double cut = std::max(sigma * unsampled, c + sigma * sampled);
    const double exponent = (2.0 * cut * c - c * c) / (2.0 * sigma * sigma);
    const double top = exponent > 0.0 ? std::log(q) + exponent + std::log1p(std::exp(-exponent) * (1.0 - q) / q) : 0.0;
    const double span = std::max(top, 0.0) - std::log1p(-q);
    return std::isfinite(span) ? span : 0.0;
}

// The least grid on which round_tail_span fits a quarter of max_window points (the header's coarsest_fit).
inline double coarsest_fit(double sigma, double q, double sensitivity, double tail, const GridPolicy& g = {}) {
    return round_tail_span(sigma, q, sensitivity, tail) / (g.max_window / 4.0);
}

}  // namespace pld
}  // namespace hockeystick
