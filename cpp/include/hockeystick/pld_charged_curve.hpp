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
// charged; the facade's table) and envelope[j] the suffix maxima of the optimistic charged curve
// (the first max, unshifted) at grid points l_j, ..., l_{n-1}, 0 at n: the charge falls as eps
// rises, so the charged lower curve may rise while delta does not, and a lower bound at any
// eps' >= eps bounds delta(eps) too.  Built here once, O(n), when asked for (`with_envelope`;
// otherwise the optimistic value is the first max alone).  The charges, the shift and the slack
// are the facade's (pmf.py's module docstring; Doroshenko et al., PETS 2022, Sec. 4 for the
// optimistic order); the operations are the facade's own, in its order, so every value is the
// same double as its numpy form (numpy's maximum and minimum on ties included).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "pld_hockey_stick.hpp"

namespace hockeystick {
namespace pld {

class ChargedGridCurve {
   public:
    ChargedGridCurve(GridProfile profile, std::vector<double> charge, double shift, double slack, double loss_shift,
                     bool pessimistic, bool with_envelope)
        : profile_(std::move(profile)), k_lo_(static_cast<double>(profile_.k_lo())), h_(profile_.h()),
          n_(static_cast<double>(profile_.size())), charge_(std::move(charge)), shift_(shift), slack_(slack),
          loss_shift_(loss_shift), pessimistic_(pessimistic) {
        const std::int64_t n = profile_.size();
        if (!(loss_shift_ >= 0.0 && loss_shift_ < std::numeric_limits<double>::infinity()))
            throw std::invalid_argument("loss_shift must be a finite number >= 0 (NaN or < 0 moves the curve the "
                                        "unsafe way)");
        if (charge_.size() != static_cast<std::size_t>(n) + 1)
            throw std::invalid_argument("internal: the charge table needs one entry per grid index 0..n");
        if (pessimistic_ || !with_envelope) return;
        envelope_.assign(static_cast<std::size_t>(n) + 1, 0.0);
        for (std::int64_t j = n - 1; j >= 0; --j) {  // np.maximum.accumulate over the reversed grid
            const double value = lower_at(static_cast<double>(profile_.k_lo() + j) * h_);
            envelope_[j] = j == n - 1 ? value : larger(envelope_[j + 1], value);
        }
    }

    // The suffix maxima at grid indices 0..n (empty when not built).
    const std::vector<double>& envelope() const { return envelope_; }

    // The certified side at eps (not NaN).
    double delta(double eps) const {
        const double e = loss_shifted(eps, loss_shift_, !pessimistic_);
        if (pessimistic_) return smaller(profile_.delta(e) * (1.0 + slack_) + shift_ + charge_at(e), 1.0);
        const double low = lower_at(e);
        if (envelope_.empty()) return low;
        return larger(low, envelope_[index(std::ceil(e / h_) - k_lo_)]);
    }

   private:
    // numpy's maximum and minimum of two numbers (not NaN here): the second one unless the first is
    // larger (smaller), so that a tie of 0 and -0 gives the facade's sign of zero.
    static double larger(double a, double b) { return a > b ? a : b; }
    static double smaller(double a, double b) { return a < b ? a : b; }

    // A grid index from its floating-point form, clipped to [0, n] (as np.minimum(np.maximum(x, 0), n)).
    std::size_t index(double x) const { return static_cast<std::size_t>(smaller(larger(x, 0.0), n_)); }

    // The charge of the grid points above e (the first one above: floor(e / h) - k_lo + 1).
    double charge_at(double e) const { return charge_[index(std::floor(e / h_) - k_lo_ + 1.0)]; }

    // The optimistic charged value at e, max(raw (1 - slack) + shift - 2 charge, 0).
    double lower_at(double e) const {
        return larger(profile_.delta(e) * (1.0 - slack_) + shift_ - 2.0 * charge_at(e), 0.0);
    }

    GridProfile profile_;
    double k_lo_, h_, n_;
    std::vector<double> charge_, envelope_;
    double shift_, slack_, loss_shift_;
    bool pessimistic_;
};

}  // namespace pld
}  // namespace hockeystick
