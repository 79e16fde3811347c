// The part of a grid PMF's certified delta at eps that no finer grid removes (python
// _core.pld_reads.fixed_parts, step_sides.hpp; the test's numpy formula, the same doubles): a model for sizing the refinement's next
// grid, not a bound.  At the curve's argument a (eps moved by the loss shift s outward,
// loss_shifted), with c(a) the round-off charge of the grid points above a (charge_at_argument), u
// the suffix sums' slack and v the PMF's certified value at eps, two rows:
//   pessimistic: c(a) + u v + p_inf,        max(finite mass + p_inf - 1, s) v
//   optimistic:  2 c(a) + u v + |shift|,    s v
// the first the charges, the slack and the mass at +infinity (or the truncated tail), the second the
// cells' edge factor (the relative excess the loss shift or the finite mass past 1 carries).
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "hockeystick/pld/reads/charged_curve.hpp"
#include "hockeystick/pld/reads/charged_sides.hpp"
#include "hockeystick/pld/reads/hockey_stick.hpp"

namespace hockeystick {
namespace pld {

// r's PMF (r.eps its m arguments; r.out 2 m doubles: the first row, then the second), `values` its
// certified values at them, `finite_mass` the sum of its grid masses (the facade's, summed by numpy; read on the
// pessimistic side alone).
// Throws std::invalid_argument on a NaN argument.
inline void fixed_part(const SideRead& r, const double* values, double finite_mass) {
    const PmfView& pmf = r.pmf;
    const double k_lo = static_cast<double>(pmf.k_lo), size = static_cast<double>(pmf.n);
    const GridCharges& c = r.charges;
    const double s = pmf.loss_shift;
    const double excess = r.pessimistic ? (s > finite_mass + pmf.p_inf - 1.0 ? s : finite_mass + pmf.p_inf - 1.0) : s;
    for (std::int64_t i = 0; i < r.m; ++i) {
        if (std::isnan(r.eps[i])) throw std::invalid_argument("epsilon must not be NaN");
        const double at = loss_shifted(r.eps[i], s, !r.pessimistic);
        const double charge = charge_at_argument(at, k_lo, size, r.h, c);
        r.out[i] = r.pessimistic ? charge + c.slack * values[i] + pmf.p_inf
                                 : 2.0 * charge + c.slack * values[i] + std::abs(c.shift);
        r.out[r.m + i] = excess * values[i];
    }
}

}  // namespace pld
}  // namespace hockeystick
