// The pair dominating every epsilon-bounded-range pair (the Python package's hockeystick.pld.exponential_mechanism,
// whose selection module's docstring has the proof): on y in [-epsilon/2, epsilon/2] the densities
// P ~ e^{y} and Q ~ e^{-y}, loss L(y) = 2y, whose profile
//
//     delta*(eps') = (e^{epsilon/2} - e^{eps'/2})^2 / (e^epsilon - 1),  eps' in [-epsilon, epsilon],
//
// is the supremum over the binary pairs every epsilon-BR pair post-processes (Durfee & Rogers, NeurIPS 2019;
// Dong, Durfee & Rogers, ICML 2020, Sec. 3.1 and 4).  It is symmetric (y -> -y swaps P and Q).  Its loss is
// linear, so the cuts are in closed form, and the masses of (a, b] are, with Z = e^{epsilon/2} (1 - e^{-epsilon}),
//
//     P(a, b] = (e^b - e^a) / Z = e^{a - epsilon/2} expm1(b - a) / (1 - e^{-epsilon}),
//     Q(a, b] = (e^{-a} - e^{-b}) / Z = e^{-b - epsilon/2} expm1(b - a) / (1 - e^{-epsilon}),
//
// each a few ulp and nothing overflowing.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "hockeystick/pld/mechanisms/monotone.hpp"

namespace hockeystick {
namespace pld {

// The bounded-range pair of parameter epsilon as a monotone pair (pld/mechanisms/monotone.hpp's Pair).  Throws
// std::invalid_argument unless epsilon is finite and epsilon / 2 > 0 (the caller gives epsilon = 5e-324, whose half
// underflows, the (epsilon, 0)-DP pair instead).
class BoundedRange {
  public:
    explicit BoundedRange(double epsilon) : half_(0.5 * epsilon), norm_(-std::expm1(-epsilon)) {
        if (!(half_ > 0.0 && std::isfinite(epsilon)))
            throw std::invalid_argument("epsilon must be finite with epsilon / 2 > 0");
    }

    double x_lo() const { return -half_; }
    double x_hi() const { return half_; }
    bool open_ends() const { return false; }
    double loss(double y) const { return 2.0 * y; }
    double slope(double) const { return 2.0; }

    double p_mass(double a, double b) const {
        const double lo = clipped_lo(a), hi = clipped_hi(b, lo);
        return std::exp(lo - half_) * std::expm1(hi - lo) / norm_;
    }

    double q_mass(double a, double b) const {
        const double lo = clipped_lo(a), hi = clipped_hi(b, lo);
        return std::exp(-hi - half_) * std::expm1(hi - lo) / norm_;
    }

    // p_mass and q_mass with the clipped ends and expm1(hi - lo) they share taken once: each the same double.
    MonotoneMasses masses(double a, double b) const {
        const double lo = clipped_lo(a), hi = clipped_hi(b, lo), width = std::expm1(hi - lo);
        return {std::exp(lo - half_) * width / norm_, std::exp(-hi - half_) * width / norm_};
    }

    bool has_inverse() const { return true; }
    double inverse(double target) const { return 0.5 * target; }
    std::vector<MonotoneAtom> atoms() const { return {}; }

  private:
    // (a, b] clipped to the support: a into [-epsilon/2, epsilon/2], b into [a, epsilon/2].
    double clipped_lo(double a) const { return detail::clipped(a, -half_, half_); }
    double clipped_hi(double b, double lo) const { return detail::clipped(b, lo, half_); }

    double half_, norm_;
};

// The bounded-range pair's two directions (each the other mirrored), both sides each, on the grid of spacing h.
inline MonotoneSides bounded_range_sides(double epsilon, double h, std::int64_t max_cells) {
    return monotone_sides(BoundedRange(epsilon), h, max_cells);
}

}  // namespace pld
}  // namespace hockeystick
