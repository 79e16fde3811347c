// Laplace location mixtures against Lap(0, b): the Poisson-subsampled Laplace mechanism and its generalisations
// (the Python package's hockeystick.pld.laplace_mixture and subsampled_laplace).
//
//     remove: P = sum_i w_i Lap(s_i, b)  vs  Q = Lap(0, b);   add: the pair swapped,
//
// shifts s_i >= 0, weights w_i > 0 summing to 1.  Each ratio Lap(s_i, b) / Lap(0, b) = e^{(|x| - |x - s_i|) / b} is
// non-decreasing (log-concave noise), so the loss L(x) = log sum_i w_i e^{(|x| - |x - s_i|) / b} is constant for
// x <= 0 and for x >= max s_i (two exact atoms) and strictly increasing between, where it is discretized one atom
// per loss cell, both sides certified (pld/mechanisms/monotone.hpp).  Poisson subsampling at rate q is the mixture
// s = (0, sensitivity), w = (1 - q, q) (Zhu, Dong & Wang, AISTATS 2022, Thm 11: the remove and add pairs dominate
// the subsampled mechanism under add/remove neighbours).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "hockeystick/pld/mechanisms/monotone.hpp"

namespace hockeystick {
namespace pld {

namespace detail {

// log(e^x + e^y) as numpy's logaddexp: x + log1p(e^{y - x}) from the larger, ln 2 added for equal arguments.
inline double log_add_exp(double x, double y) {
    if (x == y) return x + 0.693147180559945309417232121458176568;  // infinities of one sign included
    const double d = x - y;
    if (d > 0.0) return x + std::log1p(std::exp(-d));
    if (d <= 0.0) return y + std::log1p(std::exp(d));
    return d;  // NaN
}

// Lap(m, b) mass of (a, c], from the tail each end lies in (no cancellation).
inline double laplace_interval(double a, double c, double m, double b) {
    const double u = (a - m) / b, v = (c - m) / b;
    double mass = 0.0;
    if (v <= 0.0)  // both ends below m
        mass = 0.5 * std::exp(std::min(v, 0.0)) * -std::expm1(std::min(u, 0.0) - std::min(v, 0.0));
    else if (u >= 0.0)  // both above m
        mass = 0.5 * std::exp(-std::max(u, 0.0)) * -std::expm1(std::max(u, 0.0) - std::max(v, 0.0));
    else
        mass = 1.0 - 0.5 * std::exp(u) - 0.5 * std::exp(-v);
    return std::isnan(mass) ? mass : std::max(mass, 0.0);
}

}  // namespace detail

// The remove pair sum_i w_i Lap(s_i, b) vs Lap(0, b) as a monotone pair (pld/mechanisms/monotone.hpp's Pair) on
// [0, max s_i].  Throws std::invalid_argument unless b > 0 is finite, the shifts are finite and >= 0 with one > 0,
// and the weights are > 0 (one per shift; the caller drops zero weights and checks their sum).
class LaplaceMixture {
  public:
    LaplaceMixture(double scale, std::vector<double> shifts, std::vector<double> weights)
        : b_(scale), s_(std::move(shifts)), w_(std::move(weights)) {
        if (!(b_ > 0.0 && std::isfinite(b_))) throw std::invalid_argument("scale must be finite and > 0");
        if (s_.empty() || s_.size() != w_.size())
            throw std::invalid_argument("shifts and weights must be non-empty and of one length");
        for (std::size_t i = 0; i < s_.size(); ++i) {
            if (!(s_[i] >= 0.0 && std::isfinite(s_[i]))) throw std::invalid_argument("shifts must be finite and >= 0");
            if (!(w_[i] > 0.0 && std::isfinite(w_[i]))) throw std::invalid_argument("weights must be finite and > 0");
            log_w_.push_back(std::log(w_[i]));
            at_zero_.push_back(s_[i] == 0.0 && !std::signbit(s_[i]));
        }
        top_ = *std::max_element(s_.begin(), s_.end());
        if (!(top_ > 0.0)) throw std::invalid_argument("the largest shift must be > 0 (else the pair is one law)");
        inverse_pieces();
    }

    double x_lo() const { return 0.0; }
    double x_hi() const { return top_; }
    bool open_ends() const { return false; }  // the two flat ends are atoms

    // L(x) = log sum_i e^{log w_i + (|x| - |x - s_i|) / b}, summed by log_add_exp in the components' order.
    double loss(double x) const {
        double total = term(x, 0);
        for (std::size_t i = 1; i < s_.size(); ++i) total = detail::log_add_exp(total, term(x, i));
        return total;
    }

    // dL/dx: on (0, top) each component's exponent has slope 2/b before its shift and 0 after.
    double slope(double x) const {
        const double total = loss(x);
        double sum = 0.0;
        for (std::size_t i = 0; i < s_.size(); ++i) sum += std::exp(term(x, i) - total) * (x < s_[i] ? 1.0 : 0.0);
        return sum * (2.0 / b_);
    }

    double p_mass(double a, double c) const {
        double sum = 0.0;
        for (std::size_t i = 0; i < s_.size(); ++i) sum += w_[i] * detail::laplace_interval(a, c, s_[i], b_);
        return sum;
    }

    double q_mass(double a, double c) const { return detail::laplace_interval(a, c, 0.0, b_); }

    // p_mass and q_mass, Q's Lap(0, b) mass taken once for the components at shift +0 (Poisson sampling's first):
    // the same call with the same arguments there, so each is the same double.
    MonotoneMasses masses(double a, double c) const {
        const double q = q_mass(a, c);
        double sum = 0.0;
        for (std::size_t i = 0; i < s_.size(); ++i)
            sum += w_[i] * (at_zero_[i] ? q : detail::laplace_interval(a, c, s_[i], b_));
        return {sum, q};
    }

    bool has_inverse() const { return true; }

    // x in (0, top) with L(x) = target, in closed form (an estimate: monotone_cell_atoms checks it).  Between
    // consecutive shifts t_j <= x < t_{j+1} (t_0 = 0) each component is past its shift (term w_i e^{s_i / b}) or not
    // (w_i e^{(2x - s_i) / b}), so L(x) = log(C_j + D_j e^{2x / b}), C_j = sum_{s_i <= t_j} w_i e^{s_i / b},
    // D_j = sum_{s_i > t_j} w_i e^{-s_i / b}, and x = (b / 2) log((e^L - C_j) / D_j) on the piece whose end losses
    // bracket L.
    double inverse(double target) const {
        const std::size_t pieces = ends_.size() - 1;
        std::size_t j =
            static_cast<std::size_t>(std::upper_bound(at_ends_.begin(), at_ends_.end(), target) - at_ends_.begin());
        j = j == 0 ? 0 : std::min(j - 1, pieces - 1);
        return 0.5 * b_ * std::log((std::exp(target) - c_[j]) / d_[j]);
    }

    // The two flat parts: L(x <= 0) with P(x <= 0) and Q(x <= 0) = 1/2, L(x >= top) with P(x >= top) and
    // Q(x >= top) = e^{-top / b} / 2.
    std::vector<MonotoneAtom> atoms() const {
        double p_left = 0.0, p_right = 0.0;
        for (std::size_t i = 0; i < s_.size(); ++i) p_left += w_[i] * 0.5 * std::exp(-s_[i] / b_);
        for (std::size_t i = 0; i < s_.size(); ++i) p_right += w_[i] * 0.5 * std::exp((s_[i] - top_) / b_);
        return {{loss(0.0), p_left, 0.5}, {loss(top_), p_right, 0.5 * std::exp(-top_ / b_)}};
    }

  private:
    double term(double x, std::size_t i) const { return log_w_[i] + (std::fabs(x) - std::fabs(x - s_[i])) / b_; }

    // The inverse's pieces: the ends t_j (0 and the positive shifts, sorted, distinct), C_j, D_j and L(t_j).
    void inverse_pieces() {
        ends_.push_back(0.0);
        for (const double s : s_)
            if (s > 0.0) ends_.push_back(s);
        std::sort(ends_.begin(), ends_.end());
        ends_.erase(std::unique(ends_.begin(), ends_.end()), ends_.end());
        for (const double t : ends_) {
            double c = 0.0, d = 0.0;
            for (std::size_t i = 0; i < s_.size(); ++i) {
                c += s_[i] <= t ? w_[i] * std::exp(s_[i] / b_) : 0.0;
                d += s_[i] <= t ? 0.0 : w_[i] * std::exp(-s_[i] / b_);
            }
            c_.push_back(c);
            d_.push_back(d);
            at_ends_.push_back(std::log(c + d * std::exp(2.0 * t / b_)));
        }
    }

    double b_, top_ = 0.0;
    std::vector<double> s_, w_, log_w_, ends_, c_, d_, at_ends_;
    std::vector<bool> at_zero_;  // the shift is +0 (its P component is Q's law)
};

// The losses of the remove pair's two atoms, L(x <= 0) <= 0 <= L(x >= max s_i) (the add pair's are their
// negatives): a grid through both keeps them exact.
inline std::pair<double, double> laplace_mixture_atom_losses(const LaplaceMixture& mixture) {
    return {mixture.loss(0.0), mixture.loss(mixture.x_hi())};
}

// The remove and add directions of the Laplace mixture, both sides each, on the grid of spacing h.
inline MonotoneSides laplace_mixture_sides(double scale, const std::vector<double>& shifts,
                                           const std::vector<double>& weights, double h, std::int64_t max_cells) {
    return monotone_sides(LaplaceMixture(scale, shifts, weights), h, max_cells);
}

}  // namespace pld
}  // namespace hockeystick
