"""Finite privacy-loss distributions composed exactly (no loss grid), alone or beside a grid PLD.

A mechanism with a finite dominating pair (P, Q) (discrete Laplace, randomized response, the
canonical (eps, delta) pair, their Poisson-subsampled pairs) has a PLD with finitely many atoms:
P-mass p_j at loss l_j = log(P_j / Q_j), and P-mass at +infinity where Q_j = 0.  Composing k such
rounds only adds losses, so the composed PLD is again finite; its privacy profile is

    delta(eps) = sum_j p_j (1 - e^{eps - l_j})_+ + p_inf,

and composing it with any other PLD G (losses add, Doroshenko et al., PETS 2022, Sec. 4) gives

    delta(eps) = sum_j p_j delta_G(eps - l_j) + p_inf                                      (*)

(condition on the finite part's loss; delta_G is G's profile extended to eps < 0, which every
certified side of a grid PMF answers).  Placing these atoms on a loss grid instead moves each by
up to one grid step per round, so a k-fold composition of atoms narrows its bracket only like k h.
Here they are never put on the grid.

Certification.  delta above is non-decreasing in every l_j and every p_j, and shifting every loss
by at most e changes delta(eps) to a value between delta(eps - e) and delta(eps + e); so:
- losses are kept as integer multiples ``index`` of a spacing ``eta`` with a bound ``loss_error``
  on |true loss - index * eta| for every atom: a pair whose losses are integer multiples of its
  smallest non-zero |loss| (within 1e-9 relative, the discrepancy counted in the bound: discrete
  Laplace, randomized response under replace-one, the canonical pair) keeps that lattice, so a
  k-fold composition has only k (s + 1) atoms; any other pair is rounded to the sub-grid ``ETA``.
  The bound starts at the round-off of log(P_j) - log(Q_j) (4u(|log P_j| + |log Q_j|) + 32u,
  u = 2^-53, covering the few-ulp error of the masses themselves) plus the rounding, and adds up
  under composition (losses add); the upper side is evaluated at eps - loss_error, the lower side
  at eps + loss_error;
- each mass carries a bound ``rel_error`` on its relative round-off (16u for a pair's masses, the
  two factors' bounds plus 2u per product and (m - 1)u per merged sum of m terms), and every
  delta is widened (upper) or narrowed (lower) by it and by the round-off of the sum (*).
A composition whose atoms would exceed ``MAX_ATOMS`` is merged onto a grid twice as coarse
(nearest point, its half-step added to ``loss_error``), so the count stays bounded and both
sides stay certified.

Long compositions (``_window_power``, ``_compose_windowed``).  A self-composition whose lattice
fills its span, or whose result could pass ``MAX_ATOMS`` atoms, and a composition of more than
``WINDOW_PRODUCTS`` products of atoms, run on a window: masses on a stride of the lattice, convolved
directly (no FFT round-off to charge), with masses below ``WINDOW_FLOOR`` = 2^-1000 dropped (no
subnormal mass is ever kept, so every kept sum keeps its relative bound) and the window coarsened to
at most ``WINDOW_POINTS`` points (nearest point of a lattice twice as coarse, as above).  The
dropped P-mass, and the at most 2^-1074 per product lost to underflow, is ``missing``: on the upper
side at the window's ``reach`` (an index at or above every mass's, kept or dropped; at least 2^-1000
there), left out on the lower side (``lower``).  So 10^8 runs of a discrete Laplace cost ~27
convolutions of <= 2^13 points.

Masses near underflow.  Below the smallest normal double (2^-1022) a computed mass has no relative
error bound: each operation errs by up to 2^-1074 absolute, and a mass whose true value is below
~2^-1075 (e^-800, say) is computed as 0.  So a pair's masses are taken to be within 16u relative
plus, below 2^-1022, ``SUBNORMAL_SLACK`` = 16 2^-1074 absolute of the truth (masses at least 2^-1022
within 16u, as before; a P-mass computed 0 is dropped, as before).  An outcome with a mass below
2^-1022 (a Q-mass computed 0 included) has a loss known only within [log p_lo - log q_hi, log p_hi -
log q_lo] (the masses' ranges widened by 32u, covering their own rounding), so each side gets its
own atoms: the upper side puts P-mass p_hi at the top of that range, the lower side P-mass p_lo at
its bottom, both rounded outward onto the pair's lattice.  No subnormal P-mass is kept at a finite
loss: each product with it (a delta's p (1 - e^{eps - l}), a composition's p m) would err by up to
2^-1075 absolute, which no relative charge covers (one exemption:
``discrete_laplace.discrete_laplace_atoms``, whose relative charge covers it, as its docstring
shows).  So (``split_near_underflow``, the one rule the grid path shares) the outcomes with p <
2^-1022 (or q_lo = 0) are pooled: the upper side puts max(sum p_hi, ``INFINITY_FLOOR`` = 2^-1000) at
the top of their losses (+infinity only where some q_lo = 0: the true loss may be infinite), so
delta rises by at most max(sum p_hi, 2^-1000) per pair and a pure epsilon stays finite; the lower
side puts their rounded-down sum p_lo at the least of their losses where it is normal, else drops
them (delta falls by less than 2^-1022).  Likewise a composition some of whose products fall below
2^-1022 (``_underflow_charged``) moves those masses and products 2^-1075 to its top finite loss (at
least 2^-1000 there) on the upper side and drops its masses below 2^-1000 on the lower side.  The
lower side's atoms are ``Atoms.lower`` (None where the sides share their atoms; built only when a
lower side is asked for); ``compose`` and ``self_compose`` compose each side's atoms (the lower
side's folded into [-745, 745], ``_folded``, so their count stays bounded), and ``delta``,
``delta_with`` and ``pure_epsilon`` read the side's own.  A Q-mass given as exactly 0 (the canonical
(eps, delta) pair) is therefore placed at loss ~log p + 741 on the lower side (q_hi = 32 2^-1074,
less a lattice step or two): its delta is exact up to a relative e^{eps - log p - 741}, that is to
round-off for every eps below ~700; above ~740 the lower side falls towards 0, and the lower epsilon
of a target below that P-mass is ~741 + log p (a lower bound; the true one is infinite).

Few atoms (a lone or briefly self-composed pair: at most ``LEAN_ATOMS``) take a lean path in plain
Python floats (``math``), the same operations on the same doubles as the numpy path, summed in
order (a sequential sum of n non-negative terms errs by at most (n - 1)u relative, inside the same
charge), so that few atoms do not pay numpy's per-call cost.

This module is the public face of finite atoms: the method above, and its public names re-exported
from the pieces that compute them, one idea each: ``atoms`` (``Atoms`` and the rules every
composition keeps), ``atoms_from_pairs`` (a pair's atoms), ``atoms_compose`` (compositions),
``atoms_window`` (long compositions on a window), ``atoms_delta`` (delta(eps) on each side) and
``atoms_epsilon`` (epsilon(delta)).  Modules of the package import from the pieces; users, the
documentation and the old path ``hockeystick.pld.finite_atoms`` import from here.
"""

from ..grid.atoms import (
    ETA,
    FOLD_LOSS,
    INFINITY_FLOOR,
    LEAN_ATOMS,
    MAX_ATOMS,
    SMALLEST_NORMAL,
    SUBNORMAL_SLACK,
    UNIT_ROUNDOFF,
    WINDOW_FLOOR,
    WINDOW_POINTS,
    WINDOW_PRODUCTS,
    Atoms,
)
from ..mechanisms.atoms_from_pairs import (
    NearUnderflowSplit,
    loss_round_off,
    mass_range,
    pair_atoms,
    split_near_underflow,
)
from .atoms_compose import compose, compose_all, self_compose
from .atoms_delta import delta, delta_with, grid_side
from .atoms_epsilon import epsilon_search, pure_epsilon, pure_epsilon_bracket

__all__ = [
    "ETA",
    "FOLD_LOSS",
    "INFINITY_FLOOR",
    "LEAN_ATOMS",
    "MAX_ATOMS",
    "SMALLEST_NORMAL",
    "SUBNORMAL_SLACK",
    "UNIT_ROUNDOFF",
    "WINDOW_FLOOR",
    "WINDOW_POINTS",
    "WINDOW_PRODUCTS",
    "Atoms",
    "NearUnderflowSplit",
    "compose",
    "compose_all",
    "delta",
    "delta_with",
    "epsilon_search",
    "grid_side",
    "loss_round_off",
    "mass_range",
    "pair_atoms",
    "pure_epsilon",
    "pure_epsilon_bracket",
    "self_compose",
    "split_near_underflow",
]
