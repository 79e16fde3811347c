"""Certified delta brackets of the Poisson-subsampled Gaussian, the add direction screened on a coarse
grid (the refinement's delta steps; its epsilon steps are the core's step read's,
cpp/include/hockeystick/pld/refine/subsampled_gaussian_step.hpp, which screens the same way).

A run's epsilon(delta) is the larger of its two neighbouring directions' (Zhu, Dong, Wang,
AISTATS 2022, Sec. 5): eps = max(eps_remove, eps_add), so with certified brackets
[lo_r, up_r] of the remove direction and any certified upper bound U_a >= eps_add,

    U_a <= lo_r  implies  eps_add <= lo_r <= eps_remove,  so  eps = eps_remove in [lo_r, up_r],

and the add direction's own bracket is not needed.  For small sampling rates the remove direction is
far ahead (q = 1e-3, sigma = 0.8, 10^5 rounds, delta = 1e-5: eps_add <= 2.43, eps_remove >= 2.57),
so U_a comes from the add direction's pessimistic PMF on a grid ``COARSENING`` = 4 times coarser (4
times fewer cells and transform points, no optimistic side; at h = 8.5e-5 its upper bound moves from
2.425 to 2.432, against a margin of 0.14), and the add direction is not discretized on the fine grid
at all.  Where the screen does not clear (U_a > lo_r at some argument), the add direction is
composed on the fine grid too and the bracket is the maximum of both directions' sides, the same
numbers ``PrivacyLossDistribution.epsilon`` gives for the two-direction PLD on that grid.

Delta the same way (the core's screened step, cpp/include/hockeystick/pld/refine/screened_step.hpp,
which the many-points delta refinement reads each grid with, points_delta_source.hpp): delta = max(delta_remove, delta_add), so with L_r a certified
lower bound on the remove direction's delta and U_a a certified upper bound on the add direction's,
U_a <= L_r at every argument gives delta_add <= delta_remove there, and the remove direction's
bracket is the mechanism's.  The screen's upper side and the remove direction's charged lower values
(no suffix maxima) decide.  Arguments where U_a is below a ``floor`` the caller names clear too:
there the bracket's upper side is max(up_r, U_a), certified as a maximum of upper bounds, and its
lower side lo_r, certified as delta >= delta_remove; the add direction's own lower side, at most
U_a, is left out (the epsilon rule's floor is a tenth of DELTA_FLOOR: such a lower side can
certify no epsilon width beside an upper side above DELTA_FLOOR; the relative rule, which reads a
bracket below that floor to its own width, names none, so its screen clears by domination alone and
its bracket is the one of both directions on the fine grid).  Far above delta's floor the add
direction's upper bound is its mass at +infinity and charges (sigma 2.05, q 7.8e-3, 10^4 rounds:
5e-12 beside the remove direction's 1e-13 at eps >= 3), so without the floor almost no point would
clear.  Where the screen clears, the add direction is neither discretized nor composed on the fine
grid.  The screen's decisions (where it clears, where a point's upper side settles it, where the add
direction's optimistic side can raise the lower one) are the core's
(cpp/include/hockeystick/pld/refine/direction_screen.hpp), and so are the upper side alone that
settles a point before the refinement's loop (pld/refine/points_delta_start.hpp) and the loop's
steps (points_delta_source.hpp); this module states their contract and keeps the screen's
coarsening.
"""

from __future__ import annotations

from ... import _core

# the add direction's screen is read on a grid this many times coarser (the core's kStepScreenCoarsening,
# pld/refine/subsampled_gaussian_step.hpp, which gives the reason)
COARSENING = float(_core.pld_refine.step_screen_coarsening)
