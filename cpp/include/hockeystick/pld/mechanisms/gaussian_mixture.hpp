// Gaussian location mixtures against N(0, sigma^2): the mixture-of-Gaussians mechanism (the Python package's
// hockeystick.pld.mixture_of_gaussians; dp_accounting's MixtureOfGaussiansDpEvent).
//
//     remove: P = sum_i w_i N(s_i, sigma^2)  vs  Q = N(0, sigma^2);   add: the pair swapped,
//
// shifts s_i >= 0, weights w_i > 0 summing to 1 (Choquette-Choo, Ganesh, Steinke & Thakurta, "Privacy amplification
// for matrix mechanisms", ICLR 2024, Sec. 4; a vector mechanism is dominated by the scalar one with each
// sensitivity vector replaced by its norm, their Cor. 4.7).  The loss
//
//     L(x) = log sum_i w_i e^{(s_i x - s_i^2 / 2) / sigma^2}
//
// is a log-sum-exp of non-decreasing affine functions, strictly increasing where some s_i > 0, and is discretized
// one atom per loss cell with both sides certified (pld/mechanisms/monotone.hpp) over the x-range keeping all but
// tail / 4 of P and of Q, [-z sigma, max s_i + z sigma] with z = Q^{-1}(tail / 4), or over the caller's range and
// from log-weights (GaussianMixture::from_log_weights); the mass beyond it goes to +infinity on the pessimistic
// sides.  s = (0, 1), w = (1 - q, q) is the Poisson-subsampled Gaussian.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hockeystick/numerics/gaussian_tail.hpp"
#include "hockeystick/pld/mechanisms/monotone.hpp"
#include "hockeystick/simd/exp_arrays.hpp"

namespace hockeystick {
namespace pld {

// P(a < Z <= b) for Z ~ N(0, 1), from the tail each end lies in (no cancellation in the tails): below 0 as
// Q(-b) differences, above 0 as Q(a) - Q(b), across 0 the two halves added; never negative (NaN kept).
inline double normal_interval(double a, double b) {
    const double lower = gaussian_tail(-std::min(b, 0.0)) - gaussian_tail(-std::min(a, 0.0));
    const double upper = gaussian_tail(std::max(a, 0.0)) - gaussian_tail(std::max(b, 0.0));
    const double mass = b <= 0.0 ? lower : (a >= 0.0 ? upper : lower + upper);
    return std::isnan(mass) ? mass : std::max(mass, 0.0);
}

// The remove pair sum_i w_i N(s_i, sigma^2) vs N(0, sigma^2) as a monotone pair (pld/mechanisms/monotone.hpp's
// Pair) on [-z sigma, top + z sigma] with z = Q^{-1}(cut), open-ended (the cut tails go to +infinity on the
// pessimistic sides).  The constructor takes the weights (> 0, one per shift; the caller drops zero weights and
// checks their sum) and keeps all but tail / 4 of each law per end (cut = tail / 4, top = max s_i);
// from_log_weights takes log w_i and the caller's cut and top (a mixture whose weights lie below the doubles, or
// whose range leaves out a component the caller accounts for: pld.sampling's examples-per-user pair).  Throws
// std::invalid_argument unless sigma > 0 is finite, the shifts are finite and >= 0 with one > 0, the weights are
// finite and > 0 (the log-weights finite), tail lies in (0, 1) (cut in (0, 1/2)) and top is finite and > 0.  A sigma
// whose square underflows (below ~1e-162) leaves the loss NaN, which monotone_cell_atoms refuses naming sigma.
// Not for concurrent use of one object: loss and slope share a scratch array.
class GaussianMixture {
  public:
    GaussianMixture(double sigma, std::vector<double> shifts, std::vector<double> weights, double tail)
        : GaussianMixture(sigma, shifts, weights, logs_of(weights), quarter_of(tail), largest_of(shifts)) {}

    static GaussianMixture from_log_weights(double sigma, std::vector<double> shifts, std::vector<double> log_weights,
                                            double cut, double top) {
        std::vector<double> weights(log_weights.size());
        for (std::size_t i = 0; i < weights.size(); ++i) {
            if (!std::isfinite(log_weights[i])) throw std::invalid_argument("log_weights must be finite");
            weights[i] = std::exp(log_weights[i]);  // below the doubles' range: 0, adding nothing to a mass
        }
        return GaussianMixture(sigma, std::move(shifts), std::move(weights), std::move(log_weights), cut, top);
    }

    double x_lo() const { return x_lo_; }
    double x_hi() const { return x_hi_; }
    bool open_ends() const { return true; }

    // L(x) = log sum_i e^{t_i}, t_i = log w_i + (s_i x - s_i^2 / 2) / sigma^2, from the largest term.
    double loss(double x) const {
        const double top = softmax(x);
        return std::log(total_) + top;
    }

    // dL/dx = sum_i s_i e^{t_i - L} / sigma^2 (the softmax-weighted mean shift over sigma^2).
    double slope(double x) const {
        softmax(x);
        double sum = 0.0;
        for (std::size_t i = 0; i < s_.size(); ++i) sum += scratch_[i] / total_ * s_[i];
        return sum / variance_;
    }

    double p_mass(double a, double b) const {
        double sum = 0.0;
        for (std::size_t i = 0; i < s_.size(); ++i)
            sum += w_[i] * normal_interval((a - s_[i]) / sigma_, (b - s_[i]) / sigma_);
        return sum;
    }

    double q_mass(double a, double b) const { return normal_interval(a / sigma_, b / sigma_); }

    // p_mass and q_mass, Q's N(0, sigma^2) mass taken once for the components at shift +0: there (a - s) / sigma
    // is a / sigma exactly (x - (+0) = x), so each is the same double.
    MonotoneMasses masses(double a, double b) const {
        const double q = q_mass(a, b);
        double sum = 0.0;
        for (std::size_t i = 0; i < s_.size(); ++i)
            sum += w_[i] * (at_zero_[i] ? q : normal_interval((a - s_[i]) / sigma_, (b - s_[i]) / sigma_));
        return {sum, q};
    }

    // A closed form where every positive shift is one value s: L(x) = log(W_0 + W_s e^{(s x - s^2 / 2) / sigma^2})
    // (W_0, W_s the weights at 0 and at s), so x = (sigma^2 log((e^L - W_0) / W_s) + s^2 / 2) / s (an estimate:
    // monotone_cell_atoms checks it; near L = log W_0 the difference cancels and the Newton search takes over).
    bool has_inverse() const { return one_shift_; }

    double inverse(double target) const {
        return (variance_ * std::log((std::exp(target) - w_zero_) / w_shift_) + 0.5 * top_ * top_) / top_;
    }

    std::vector<MonotoneAtom> atoms() const { return {}; }

  private:
    GaussianMixture(double sigma, std::vector<double> shifts, std::vector<double> weights,
                    std::vector<double> log_weights, double cut, double top)
        : sigma_(sigma), s_(std::move(shifts)), w_(std::move(weights)), log_w_(std::move(log_weights)) {
        if (!(sigma_ > 0.0 && std::isfinite(sigma_))) throw std::invalid_argument("sigma must be finite and > 0");
        if (s_.empty() || s_.size() != w_.size())
            throw std::invalid_argument("shifts and weights must be non-empty and of one length");
        if (!(cut > 0.0 && cut < 0.5)) throw std::invalid_argument("cut must lie in (0, 1/2)");
        for (std::size_t i = 0; i < s_.size(); ++i) {
            if (!(s_[i] >= 0.0 && std::isfinite(s_[i]))) throw std::invalid_argument("shifts must be finite and >= 0");
            half_square_.push_back(0.5 * s_[i] * s_[i]);
            at_zero_.push_back(s_[i] == 0.0 && !std::signbit(s_[i]));
        }
        top_ = *std::max_element(s_.begin(), s_.end());
        if (!(top_ > 0.0)) throw std::invalid_argument("the largest shift must be > 0 (else the pair is one law)");
        if (!(top > 0.0 && std::isfinite(top))) throw std::invalid_argument("top must be finite and > 0");
        variance_ = sigma_ * sigma_;
        const double z = gaussian_tail_inverse(cut);
        x_lo_ = -z * sigma_;
        x_hi_ = top + z * sigma_;
        scratch_.resize(s_.size());
        inverse_piece();
    }

    // log w_i of weights each finite and > 0 (refused otherwise).
    static std::vector<double> logs_of(const std::vector<double>& weights) {
        std::vector<double> logs;
        for (const double w : weights) {
            if (!(w > 0.0 && std::isfinite(w))) throw std::invalid_argument("weights must be finite and > 0");
            logs.push_back(std::log(w));
        }
        return logs;
    }

    // tail / 4, each end's share of the cut mass (tail in (0, 1), refused otherwise).
    static double quarter_of(double tail) {
        if (!(tail > 0.0 && tail < 1.0)) throw std::invalid_argument("tail must lie in (0, 1)");
        return 0.25 * tail;
    }

    // The largest shift (0 for none: the constructor refuses an empty mixture).
    static double largest_of(const std::vector<double>& shifts) {
        return shifts.empty() ? 0.0 : *std::max_element(shifts.begin(), shifts.end());
    }

    // e^{t_i - max_j t_j} into scratch_, their sum into total_; returns the largest t_j.
    double softmax(double x) const {
        double top = -std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < s_.size(); ++i) {
            scratch_[i] = log_w_[i] + (s_[i] * x - half_square_[i]) / variance_;
            top = std::isnan(scratch_[i]) || std::isnan(top) ? std::numeric_limits<double>::quiet_NaN()
                                                             : std::max(top, scratch_[i]);
        }
        for (double& t : scratch_) t -= top;
        hockeystick::detail::exp_in_place(scratch_.data(), static_cast<std::int64_t>(scratch_.size()));
        total_ = 0.0;
        for (const double e : scratch_) total_ += e;
        return top;
    }

    // Whether the positive shifts are one value, and then the weights at 0 and at it.
    void inverse_piece() {
        one_shift_ = true;
        for (std::size_t i = 0; i < s_.size(); ++i) {
            if (s_[i] == 0.0)
                w_zero_ += w_[i];
            else if (s_[i] == top_)
                w_shift_ += w_[i];
            else
                one_shift_ = false;
        }
    }

    double sigma_, variance_ = 0.0, top_ = 0.0, x_lo_ = 0.0, x_hi_ = 0.0;
    std::vector<double> s_, w_, log_w_, half_square_;
    std::vector<bool> at_zero_;  // the shift is +0 (its P component is Q's law)
    bool one_shift_ = false;
    double w_zero_ = 0.0, w_shift_ = 0.0;
    mutable std::vector<double> scratch_;
    mutable double total_ = 0.0;
};

// The remove and add directions of the Gaussian mixture (weights w_i, tail / 4 cut per end), both sides each, on the
// grid of spacing h.
inline MonotoneSides gaussian_mixture_sides(double sigma, const std::vector<double>& shifts,
                                            const std::vector<double>& weights, double tail, double h,
                                            std::int64_t max_cells) {
    return monotone_sides(GaussianMixture(sigma, shifts, weights, tail), h, max_cells);
}

}  // namespace pld
}  // namespace hockeystick
