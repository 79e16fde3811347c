// The certified epsilon bracket of composed PMFs (pld/compose/compose.hpp): the optimistic side's
// scan, and the whole bracket of a PLD given by its composed directions.
//
// Upper side: charged_epsilon (pld/reads/hockey_stick.hpp) on each pessimistic PMF.
// Lower side: an optimistic PMF with charges gives a certified lower curve at every eps,
//   L(eps) = max(0, delta_raw(eps) (1 - slack) + shift - 2 charge(#grid points above eps)),
// delta_raw(eps) = sum_k p_k (1 - e^{eps - l_k})_+ + p_inf (the charge is twice subtracted
// because negative entries were clipped to 0; Doroshenko et al., PETS 2022, Sec. 4 for the
// optimistic order).  The true epsilon(target) is the smallest eps with delta(eps) <= target,
// so every eps with L(eps) > target lies below it: the answer is the supremum of those.  The
// charge falls as eps rises, so L may rise between grid points; one scan down from the top of
// the grid finds the highest grid point l_k with L(l_k) > target, and on (l_k, l_{k+1}] (the
// charge constant there) the uncharged curve is inverted at (target - shift + 2 charge) /
// (1 - slack), clamped to the interval (below the grid: no lower end).  As charged_epsilon:
// targets sorted, each scan continues where the previous stopped, O(n + m log m).  Above the
// grid L is max(0, p_inf (1 - slack) + shift): where that exceeds the target the answer is +inf.
// Each answer is then moved by the loss shift (loss_shifted: - s rounded down).
//
// slack = 4 (n + 4) u is the relative round-off of the suffix sums (pld/reads/hockey_stick.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "hockeystick/pld/reads/charged_curve.hpp"
#include "hockeystick/pld/compose/compose.hpp"
#include "hockeystick/pld/reads/hockey_stick.hpp"
#include "hockeystick/pld/reads/spectral_profile.hpp"

namespace hockeystick {
namespace pld {

inline double suffix_sum_slack(std::int64_t n) {
    return 4.0 * (static_cast<double>(n) + 4.0) * 0.5 * std::numeric_limits<double>::epsilon();
}

// A composed PMF's charges, its loss shift included (the factors' GridPMF::loss_shift, summed by
// compose_many: the cells' edges and snapped atoms; the facade reads the same sum back as its
// GridPMF.loss_shift and passes it to the scans itself).
inline GridCharges charges_of(const ComposedPMF& c) {
    return GridCharges{c.shift,       suffix_sum_slack(static_cast<std::int64_t>(c.p.size())),
                       c.entry_error, c.total_error,
                       c.spectral_l2, c.inverse_error,
                       c.loss_shift,  c.inverse_l2};
}

// charged_epsilon of a pessimistic composed PMF, for m targets: on its window, or read through its
// spectrum where the composition kept that instead (ComposedPMF::spectral, pld/reads/spectral_profile.hpp;
// no suffix sums there, so no slack).
inline void composed_epsilon(const ComposedPMF& c, const double* target, std::int64_t m, double* out) {
    if (!c.spectral) {
        charged_epsilon(c.p.data(), static_cast<std::int64_t>(c.p.size()), c.k_lo, c.h, c.p_inf, charges_of(c), target,
                        m, out);
        return;
    }
    GridCharges ch = charges_of(c);
    ch.slack = 0.0;
    spectral_charged_epsilon(c.spectrum, c.p_inf, ch, target, m, out);
}

// The pessimistic charged delta of a composed PMF at m epsilons (not NaN): charged_side on its window
// (pld/reads/charged_curve.hpp, the facade's GridPMF.delta), or read through its spectrum where the composition
// kept that instead.
inline void composed_delta(const ComposedPMF& c, const double* eps, std::int64_t m, double* out) {
    GridCharges ch = charges_of(c);
    if (c.spectral) {
        ch.slack = 0.0;
        spectral_charged_delta(c.spectrum, c.p_inf, ch, eps, m, out);
        return;
    }
    const std::int64_t n = static_cast<std::int64_t>(c.p.size());
    const GridProfile profile(c.p.data(), n, c.k_lo, c.h, c.p_inf);
    for (std::int64_t i = 0; i < m; ++i)
        out[i] = charged_side(profile, static_cast<double>(c.k_lo), static_cast<double>(n), c.h, ch, true,
                              loss_shifted(eps[i], ch.loss_shift, false));
}

// Largest eps known to lie at or below the true epsilon(target) for each target (-inf: none above).
inline void charged_lower_epsilon(const double* p, std::int64_t n, std::int64_t k_lo, double h, double p_inf,
                                  const GridCharges& ch, const double* target, std::int64_t m, double* out) {
    const double inf = std::numeric_limits<double>::infinity();
    const double scale = 1.0 - ch.slack;
    auto l_at = [&](std::int64_t k) { return static_cast<double>(k_lo + k) * h; };
    std::vector<std::int64_t> order(m);
    for (std::int64_t i = 0; i < m; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return target[a] < target[b]; });
    const double decay = std::exp(-h), grow = -std::expm1(-h);
    std::int64_t k = n - 1;   // next grid point to test
    double R = 0.0, D = 0.0;  // R_{k+1}, D_{k+1}
    for (const std::int64_t i : order) {
        const double t = target[i];
        auto lower_at = [&](double raw, std::int64_t above) {  // rounded down by 4 u of its terms
            const double charge = 2.0 * ch.above(static_cast<double>(above)), scaled = raw * scale;
            const double error = 2.0 * std::numeric_limits<double>::epsilon() * (scaled + std::fabs(ch.shift) + charge);
            return std::max(0.0, scaled + ch.shift - charge - error);
        };
        bool stopped = false;
        for (; k >= 0; --k) {
            const double Rk = p[k] + decay * R, Dk = D + grow * R;
            if (lower_at(Dk + p_inf, n - 1 - k) > t) {
                stopped = true;
                break;
            }
            R = Rk;
            D = Dk;
        }
        if (n == 0) {
            out[i] = -inf;
            continue;
        }
        if (stopped && k == n - 1) {  // L exceeds the target at the top grid point; above it L is
            // the constant max(0, p_inf (1 - slack) + shift) (no grid point above: no charge)
            out[i] = lower_at(p_inf, 0) > t ? inf : loss_shifted(l_at(n - 1), ch.loss_shift, false);
            continue;
        }
        // Invert delta_raw on (l_k, l_{k+1}] (below the grid: (-inf, l_0]) at the charged target.
        const double l = l_at(k + 1), low = stopped ? l_at(k) : -inf;
        const double want = charged_want(t, ch.shift, -2.0 * ch.above(static_cast<double>(n - 1 - k)), scale, true);
        double eps;
        if (!(want > 0.0) || p_inf > want) {
            eps = l;  // the uncharged curve stays above want: its inverse is +inf, clamped
        } else if (R > 0.0) {
            const double arg = (D + p_inf - want) / R;
            if (arg <= -1.0) {
                eps = low;
            } else {  // lowered by its round-off (inversion_error; at l where the arg is >= 0)
                const double clipped = std::min(arg, 0.0), at = l + std::log1p(clipped);
                eps = std::max(std::nextafter(at - inversion_error(D, p_inf, want, R, clipped, at), -inf), low);
            }
        } else {
            eps = D + p_inf <= want ? low : l;
        }
        out[i] = loss_shifted(eps, ch.loss_shift, false);
    }
}

// [lower, upper] on epsilon(target) of a PLD whose directions were composed to `pessimistic`
// (upper) and `optimistic` (lower) PMFs: the largest of each side over directions, at least 0.
inline void epsilon_bracket(const std::vector<ComposedPMF>& pessimistic, const std::vector<ComposedPMF>& optimistic,
                            double target, double& lower, double& upper) {
    lower = upper = 0.0;
    for (const ComposedPMF& c : pessimistic) {
        double e = 0.0;
        composed_epsilon(c, &target, 1, &e);
        upper = std::max(upper, e);
    }
    for (const ComposedPMF& c : optimistic) {
        double e = 0.0;
        charged_lower_epsilon(c.p.data(), static_cast<std::int64_t>(c.p.size()), c.k_lo, c.h, c.p_inf, charges_of(c),
                              &target, 1, &e);
        lower = std::max(lower, e);
    }
}

}  // namespace pld
}  // namespace hockeystick
