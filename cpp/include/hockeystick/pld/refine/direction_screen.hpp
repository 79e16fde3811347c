// The dominated-direction screen's decisions: where a point's add direction needs no composition on the fine grid,
// where its lower side needs no read at all.
//
// A run's epsilon(delta) and delta(epsilon) are the larger of its two neighbouring directions' (Zhu, Dong & Wang,
// AISTATS 2022, Sec. 5): delta = max(delta_remove, delta_add).  With L_r a certified lower bound on the remove
// direction's delta and U_a a certified upper bound on the add direction's (its pessimistic PMF composed on a coarser
// grid: the screen),
//
//   U_a <= L_r                 gives delta_add <= delta_remove: the remove direction's bracket is the run's;
//   U_a < floor                gives the run's bracket [L_r, max(U_r, U_a)], certified as a maximum of upper bounds,
//                              where the add direction's own lower side (at most U_a) certifies no width the caller
//                              asks (its floor);
//
// at every argument: the screen clears the point (screen_clears), and the add direction is neither discretized nor
// composed on the fine grid.  Epsilon reads the same way on its sides (U_a <= L_r with eps_add's screen and
// eps_remove's lower side; no floor).  The same test with the add direction's fine upper side as U_a says whether its
// optimistic side can raise the lower bound (where it does not clear, it can).  A point whose upper side (the larger
// of U_r and U_a) is below `settled` at every argument (settled_everywhere) gets no lower side: the caller asks no
// more of it there.
//
// Every comparison is IEEE's, as numpy's elementwise comparisons and np.all read them (a NaN clears nothing and
// settles nothing; np.maximum's NaN propagated), so the decisions are those of the package's numpy formulas
// (python/hockeystick/pld/refine/dominated_direction.py reads them through cpp/bindings/register_pld_refine.cpp).
#pragma once

#include <cstddef>

#include "hockeystick/pld/reads/hockey_stick.hpp"  // detail::numpy_maximum

namespace hockeystick {
namespace pld {

// Whether the screen's upper side `bound` clears the remove direction's lower side `lower` at each of m arguments:
// bound <= lower or bound < floor everywhere (floor -inf: the first test alone).  A point without a lower side
// (lower null) is cleared: its bracket's lower side is 0 whatever the add direction's.
inline bool screen_clears(const double* bound, const double* lower, std::size_t m, double floor) {
    if (lower == nullptr) return true;
    for (std::size_t k = 0; k < m; ++k)
        if (!(bound[k] <= lower[k] || bound[k] < floor)) return false;
    return true;
}

// Whether the upper side max(upper, screen) (screen null: upper alone) is below `settled` at each of m arguments.
inline bool settled_everywhere(const double* upper, const double* screen, std::size_t m, double settled) {
    for (std::size_t k = 0; k < m; ++k) {
        const double up = screen == nullptr ? upper[k] : detail::numpy_maximum(upper[k], screen[k]);
        if (!(up < settled)) return false;
    }
    return true;
}

}  // namespace pld
}  // namespace hockeystick
