// The charged hockey-stick curve of a grid PMF at many eps, every per-eps term read from tables
// built once per PMF (python pmf.GridPMF.delta_tabled: a root search queries one PMF hundreds
// of times, where numpy's per-call cost was the time).
//
// The curve is read at the argument moved by the PMF's loss shift s (loss_shifted,
// pld_hockey_stick.hpp): e = eps - s rounded down on the pessimistic side (delta falls with eps,
// so a smaller argument only raises the bound), e = eps + s rounded up on the optimistic side;
// the true PLD is dominated by the built one moved up by s and dominates it moved down by s.
// Then, with raw = GridProfile::delta(e) the uncharged curve, the first grid point above e and
// the first at or above it,
//   i = min(max(floor(e / h) - k_lo + 1, 0), n),    j = min(max(ceil(e / h) - k_lo, 0), n),
// the certified side is
//   pessimistic   min(raw (1 + slack) + shift + charge[i], 1)
//   optimistic    max(max(raw (1 - slack) + shift - 2 charge[i], 0), envelope[j])
// with charge[i] the round-off charge of the n - i grid masses above e (zeros when nothing is
// charged) and envelope[j] the suffix maxima of the optimistic charged curve at grid points
// j, ..., n - 1 (0 at n; empty: no suffix maxima, the optimistic value is the first max alone).
// Both tables, the shift and the slack are the facade's (pmf.py's module docstring gives the
// charges, Doroshenko et al., PETS 2022, Sec. 4 the optimistic order); the operations are the
// facade's own, in its order, so every value is the same double as its numpy form.
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "pld_hockey_stick.hpp"

namespace hockeystick {
namespace pld {

class ChargedGridCurve {
   public:
    ChargedGridCurve(GridProfile profile, std::vector<double> charge, std::vector<double> envelope, double shift,
                     double slack, double loss_shift, bool pessimistic)
        : profile_(std::move(profile)), k_lo_(static_cast<double>(profile_.k_lo())), h_(profile_.h()),
          n_(static_cast<double>(profile_.size())),
          charge_(std::move(charge)), envelope_(std::move(envelope)), shift_(shift), slack_(slack),
          loss_shift_(loss_shift), pessimistic_(pessimistic) {
        const std::size_t points = static_cast<std::size_t>(profile_.size()) + 1;
        if (charge_.size() != points || !(envelope_.empty() || envelope_.size() == points))
            throw std::invalid_argument("internal: the charge and envelope tables need one entry per grid index 0..n");
    }

    // The certified side at eps (not NaN).
    double delta(double eps) const {
        const double e = loss_shifted(eps, loss_shift_, !pessimistic_);
        const double raw = profile_.delta(e), scaled = e / h_;
        const double charge = charge_[index(std::floor(scaled) - k_lo_ + 1.0)];
        if (pessimistic_) return smaller(raw * (1.0 + slack_) + shift_ + charge, 1.0);
        const double low = larger(raw * (1.0 - slack_) + shift_ - 2.0 * charge, 0.0);
        if (envelope_.empty()) return low;
        return larger(low, envelope_[index(std::ceil(scaled) - k_lo_)]);
    }

   private:
    // numpy's maximum and minimum of two numbers (not NaN here): the second one unless the first is
    // larger (smaller), so that a tie of 0 and -0 gives the facade's sign of zero.
    static double larger(double a, double b) { return a > b ? a : b; }
    static double smaller(double a, double b) { return a < b ? a : b; }

    // A grid index from its floating-point form, clipped to [0, n] (as np.minimum(np.maximum(x, 0), n)).
    std::size_t index(double x) const { return static_cast<std::size_t>(smaller(larger(x, 0.0), n_)); }

    GridProfile profile_;
    double k_lo_, h_, n_;
    std::vector<double> charge_, envelope_;
    double shift_, slack_, loss_shift_;
    bool pessimistic_;
};

}  // namespace pld
}  // namespace hockeystick
