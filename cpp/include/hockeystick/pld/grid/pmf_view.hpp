// A grid PMF as a composition factor: a view of its masses (PmfView, not owned) and the view of a discretized
// mechanism's PMF with, on the pessimistic side, its round-off deficit carried to +infinity (factor_view); and the
// unit round-offs every charge on a grid PMF is counted in.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "hockeystick/pld/grid/grid_pmf.hpp"

namespace hockeystick {
namespace pld {

// One factor: masses p[0..n) at losses (k_lo + k) h, p_inf at +infinity (not owned).
struct PmfView {
    const double* p = nullptr;
    std::int64_t n = 0;
    std::int64_t k_lo = 0;
    double p_inf = 0.0;
    double loss_shift = 0.0;  // the PMF's loss error (GridPMF::loss_shift), 0 for grid-exact losses
};

// A discretized mechanism's PMF as a factor.  On the pessimistic side every bit of mass must be
// carried: a deficit 1 - sum p - p_inf left by round-off goes to +infinity (as the facade's
// mechanisms._factor does).
inline PmfView factor_view(const GridPMF& pmf, bool pessimistic) {
    PmfView v{pmf.p.data(), static_cast<std::int64_t>(pmf.p.size()), pmf.k_lo, pmf.p_inf, pmf.loss_shift};
    if (pessimistic) {
        double mass = 0.0, carry = 0.0;  // Neumaier's compensated sum: the deficit is not the sum's round-off
        for (const double x : pmf.p) {
            const double t = mass + x;
            carry += std::fabs(mass) >= std::fabs(x) ? (mass - t) + x : (x - t) + mass;
            mass = t;
        }
        mass += carry;
        const double deficit = 1.0 - mass - pmf.p_inf;
        if (deficit > 0.0) v.p_inf += deficit;
    }
    return v;
}

namespace detail {

constexpr double kUnitRoundoff = 0.5 * std::numeric_limits<double>::epsilon();  // u
constexpr long double kUnitRoundoffLong = 0.5L * std::numeric_limits<long double>::epsilon();  // u_L

}  // namespace detail

}  // namespace pld
}  // namespace hockeystick
