// The charged hockey-stick curve of a grid PMF at many eps, every per-eps term read from tables
// built once per PMF (python pmf.GridPMF.delta_tabled: a root search queries one PMF hundreds
// of times, where numpy's per-call cost was the time).
//
// The curve is read at the argument moved by the PMF's loss shift s (loss_shifted,
// pld/reads/hockey_stick.hpp): e = eps - s rounded down on the pessimistic side (delta falls with eps,
// so a smaller argument only raises the bound), e = eps + s rounded up on the optimistic side;
// the true PLD is dominated by the built one moved up by s and dominates it moved down by s.
// Then, with raw = GridProfile::delta(e) the uncharged curve, the first grid point above e and
// the first at or above it,
//   i = min(max(floor(e / h) - k_lo + 1, 0), n),    j = min(max(ceil(e / h) - k_lo, 0), n),
// the certified side is
//   pessimistic   min(raw (1 + slack) + shift + charge[i], 1)
//   optimistic    max(max(raw (1 - slack) + shift - 2 charge[i], 0), envelope[j])
// with charge[i] the round-off charge of the n - i grid masses above e (zeros when nothing is
// charged; the facade's table) and envelope[j] the suffix maxima of the optimistic charged curve
// (the first max, unshifted) at grid points l_j, ..., l_{n-1}, 0 at n: the charge falls as eps
// rises, so the charged lower curve may rise while delta does not, and a lower bound at any
// eps' >= eps bounds delta(eps) too.  Built here once, O(n), when asked for (`with_envelope`;
// otherwise the optimistic value is the first max alone).  The charges, the shift and the slack
// are the facade's (pmf.py's module docstring; Doroshenko et al., PETS 2022, Sec. 4 for the
// optimistic order); the operations are the facade's own, in its order, so every value is the
// same double as its numpy form (numpy's maximum and minimum on ties included).
//
// charged_side gives the first max (pessimistic: the whole side) at one argument e already moved,
// with charge[i] computed as GridCharges::above(n - i) instead of read from a table: the facade's
// GridPMF.delta, which asks a PMF at a few eps once, where building the O(n) table would cost more
// than the queries.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hockeystick/pld/reads/hockey_stick.hpp"

namespace hockeystick {
namespace pld {

namespace detail {
// A grid index from its floating-point form, clipped to [0, n] (as np.minimum(np.maximum(x, 0), n)).
inline double grid_index(double x, double n) { return numpy_minimum(numpy_maximum(x, 0.0), n); }

// The first grid point above e, floor(e / h) - k_lo + 1, in floating point as the facade forms it.
inline double first_above(double e, double h, double k_lo, double n) {
    return grid_index(std::floor(e / h) - k_lo + 1.0, n);
}

// The pessimistic side, min(raw (1 + slack) + shift + charge, 1), and the optimistic charged value,
// max(raw (1 - slack) + shift - 2 charge, 0), in the facade's order of operations.
inline double pessimistic_side(double raw, double slack, double shift, double charge) {
    return numpy_minimum(raw * (1.0 + slack) + shift + charge, 1.0);
}
inline double optimistic_value(double raw, double slack, double shift, double charge) {
    return numpy_maximum(raw * (1.0 - slack) + shift - 2.0 * charge, 0.0);
}
}  // namespace detail

// The round-off charge at e of a PMF of n grid points from grid index k_lo (step h): that of the grid
// points above e, GridCharges::above of their count (the facade's GridPMF.charge_at).
inline double charge_at_argument(double e, double k_lo, double n, double h, const GridCharges& charges) {
    return charges.above(n - detail::first_above(e, h, k_lo, n));
}

// The certified side at e (moved by the loss shift already; not NaN) of a PMF of n grid points from
// grid index k_lo (step h), its uncharged curve read from `profile` (the PMF's suffix sums, or a top
// part of them, which answers every e above the grid point below the part's first), its charges,
// shift and slack from `charges` (loss_shift unused): pessimistic, the side; optimistic, the charged
// value at e alone (no suffix maxima).
inline double charged_side(const GridProfile& profile, double k_lo, double n, double h, const GridCharges& charges,
                           bool pessimistic, double e) {
    const double charge = charge_at_argument(e, k_lo, n, h, charges);
    const double raw = profile.delta(e);
    return pessimistic ? detail::pessimistic_side(raw, charges.slack, charges.shift, charge)
                       : detail::optimistic_value(raw, charges.slack, charges.shift, charge);
}

class ChargedGridCurve {
  public:
    ChargedGridCurve(GridProfile profile, std::vector<double> charge, double shift, double slack, double loss_shift,
                     bool pessimistic, bool with_envelope)
        : profile_(std::move(profile)),
          k_lo_(static_cast<double>(profile_.k_lo())),
          h_(profile_.h()),
          n_(static_cast<double>(profile_.size())),
          charge_(std::move(charge)),
          shift_(shift),
          slack_(slack),
          loss_shift_(loss_shift),
          pessimistic_(pessimistic) {
        const std::int64_t n = profile_.size();
        if (!(loss_shift_ >= 0.0 && loss_shift_ < std::numeric_limits<double>::infinity()))
            throw std::invalid_argument(
                "loss_shift must be a finite number >= 0 (NaN or < 0 moves the curve the "
                "unsafe way)");
        if (charge_.size() != static_cast<std::size_t>(n) + 1)
            throw std::invalid_argument("internal: the charge table needs one entry per grid index 0..n");
        if (pessimistic_ || !with_envelope) return;
        envelope_ = detail::numpy_suffix_maxima(
            0, n, [this](std::int64_t j) { return lower_at(static_cast<double>(profile_.k_lo() + j) * h_); });
    }

    // The suffix maxima at grid indices 0..n (empty when not built).
    const std::vector<double>& envelope() const { return envelope_; }

    // The certified side at eps (not NaN).
    double delta(double eps) const {
        const double e = loss_shifted(eps, loss_shift_, !pessimistic_);
        if (pessimistic_) return detail::pessimistic_side(profile_.delta(e), slack_, shift_, charge_at(e));
        const double low = lower_at(e);
        if (envelope_.empty()) return low;
        const double first = detail::grid_index(std::ceil(e / h_) - k_lo_, n_);  // the first grid point at or above e
        return detail::numpy_maximum(low, envelope_[static_cast<std::size_t>(first)]);
    }

  private:
    // The charge of the grid points above e.
    double charge_at(double e) const {
        return charge_[static_cast<std::size_t>(detail::first_above(e, h_, k_lo_, n_))];
    }

    // The optimistic charged value at e.
    double lower_at(double e) const {
        return detail::optimistic_value(profile_.delta(e), slack_, shift_, charge_at(e));
    }

    GridProfile profile_;
    double k_lo_, h_, n_;
    std::vector<double> charge_, envelope_;
    double shift_, slack_, loss_shift_;
    bool pessimistic_;
};

}  // namespace pld
}  // namespace hockeystick
