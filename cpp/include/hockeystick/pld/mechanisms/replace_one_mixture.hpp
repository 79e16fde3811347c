// The Poisson-subsampled Gaussian under replace-one: a Gaussian mixture against its reflection,
//
//     P = (1 - q) N(0, sigma^2) + q N(1, sigma^2)   vs   Q = (1 - q) N(0, sigma^2) + q N(-1, sigma^2),
//
// the realizable pair dominating the Poisson-sampled Gaussian of rate q under substitution in every dimension (the
// Python package's pld.sampling.poisson_replace_one, whose module docstring has the proof by advanced joint
// convexity, Balle, Barthe & Gaboardi 2018, Thm 2; dp_accounting's REPLACE_ONE pair), and the second component of
// the truncated-Poisson mixture of Ganesh 2025, arXiv:2508.15089 (pld.sampling.truncated_subsampling, at sigma / 2).
// With t_0 = log(1 - q) and d_{+-}(x) = log q - log(1 - q) + (+-x - 1/2) / sigma^2, the loss
//
//     L(x) = log(1 - q + q e^{(x - 1/2) / sigma^2}) - log(1 - q + q e^{(-x - 1/2) / sigma^2})
//          = softplus(d_+(x)) - softplus(d_-(x)),   softplus(d) = log(1 + e^d),
//
// rises in x (its numerator's law gains, its denominator's loses), with slope (logistic(d_+) + logistic(d_-)) /
// sigma^2.  It is discretized one atom per loss cell with both sides certified (pld/mechanisms/monotone.hpp) over
// [-1 - z sigma, 1 + z sigma], z = Q^{-1}(tail / 4), which keeps all but tail / 4 of each law per end; the mass
// beyond goes to +infinity on the pessimistic sides.  The pair is symmetric (reflection swaps P and Q): its add
// direction is its remove direction.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "hockeystick/numerics/gaussian_tail.hpp"
#include "hockeystick/pld/mechanisms/gaussian_mixture.hpp"
#include "hockeystick/pld/mechanisms/monotone.hpp"

namespace hockeystick {
namespace pld {

// log(1 + e^d) without overflow: max(d, 0) + log1p(e^{-|d|}).
inline double softplus(double d) { return std::max(d, 0.0) + std::log1p(std::exp(-std::fabs(d))); }

// 1 / (1 + e^{-d}), the derivative of softplus, from the side that does not overflow.
inline double logistic(double d) {
    const double e = std::exp(-std::fabs(d));
    return d >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}

// The pair above as a monotone pair (monotone.hpp's Pair).  Throws std::invalid_argument unless sigma > 0 is finite,
// q lies in (0, 1) and tail in (0, 1).  A sigma whose square underflows leaves the loss NaN, which
// monotone_cell_atoms refuses.
class ReplaceOneMixture {
  public:
    ReplaceOneMixture(double sigma, double q, double tail) : sigma_(sigma), q_(q) {
        if (!(sigma > 0.0 && std::isfinite(sigma))) throw std::invalid_argument("sigma must be finite and > 0");
        if (!(q > 0.0 && q < 1.0)) throw std::invalid_argument("sampling_rate must lie in (0, 1)");
        if (!(tail > 0.0 && tail < 1.0)) throw std::invalid_argument("tail must lie in (0, 1)");
        variance_ = sigma * sigma;
        odds_ = std::log(q) - std::log1p(-q);
        const double z = gaussian_tail_inverse(0.25 * tail);
        x_hi_ = 1.0 + z * sigma;
    }

    double x_lo() const { return -x_hi_; }
    double x_hi() const { return x_hi_; }
    bool open_ends() const { return true; }

    double loss(double x) const { return softplus(gain(x)) - softplus(gain(-x)); }

    double slope(double x) const { return (logistic(gain(x)) + logistic(gain(-x))) / variance_; }

    double p_mass(double a, double b) const { return mixed(a, b, 1.0); }

    double q_mass(double a, double b) const { return mixed(a, b, -1.0); }

    // p_mass and q_mass with the centred component's N(0, sigma^2)(a, b] they share taken once: each the same double.
    MonotoneMasses masses(double a, double b) const {
        const double centred = (1.0 - q_) * normal_interval(a / sigma_, b / sigma_);
        return {centred + q_ * shifted(a, b, 1.0), centred + q_ * shifted(a, b, -1.0)};
    }

    bool has_inverse() const { return false; }
    double inverse(double) const { return std::numeric_limits<double>::quiet_NaN(); }
    std::vector<MonotoneAtom> atoms() const { return {}; }

  private:
    // d(x) = log(q / (1 - q)) + (x - 1/2) / sigma^2: the log-ratio of the shifted component to the centred one.
    double gain(double x) const { return odds_ + (x - 0.5) / variance_; }

    // N(shift, sigma^2)(a, b].
    double shifted(double a, double b, double shift) const {
        return normal_interval((a - shift) / sigma_, (b - shift) / sigma_);
    }

    // (1 - q) N(0, sigma^2)(a, b] + q N(shift, sigma^2)(a, b].
    double mixed(double a, double b, double shift) const {
        return (1.0 - q_) * normal_interval(a / sigma_, b / sigma_) + q_ * shifted(a, b, shift);
    }

    double sigma_, q_, variance_ = 0.0, odds_ = 0.0, x_hi_ = 0.0;
};

}  // namespace pld
}  // namespace hockeystick
