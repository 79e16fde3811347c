"""The mechanism run on batches that differ in c slots (a group of c), spec by spec, replace-one.

A batch drawn with replacement holds the changed record c times: the inner mechanism then sees two
batches c replace-one steps apart.  Each mechanism spec of a replace-one plan (``interop.plan``)
maps to the spec of a pair dominating every such pair:

- additive noise on a sum query, exact: each of the c changed slots moves the sum by at most the
  replace-one shift (twice the event's sensitivity), so the two sums differ by at most c times it,
  and the noise's pair at the largest shift dominates every smaller one (Neyman-Pearson: for a
  log-concave noise law F the likelihood ratio of a shift is monotone, the most powerful tests are
  thresholds, and the trade-off F(F^{-1}(1 - alpha) - shift) only falls as the shift grows; for
  integer noise the same holds between the lattice points, where the tests randomise):
  Gaussian radius r -> c r (``group_radius2``: r^2 -> c^2 r^2), Laplace scale b -> b / c (rounded
  down: a larger shift in units of the scale), discrete Laplace sensitivity s -> c s;
- a pair that already dominates ANY two inputs of the mechanism, unchanged: k-ary randomized
  response (its replace-one pair is two distinct buckets, and any two inputs are at worst that), the
  non-private pair (0, 1)-DP (P and Q disjoint);
- anything else (nested samples, an (eps, delta) pair of a sample, ...): ("group_bound", c,
  groups, mechanism), the weak-triangle group bound of ``pld.group_privacy`` on the mechanism's own
  certified curves (``groups``: the largest c asked for, so one table serves every c).

Composition: every mechanism of a plan runs on the same pair of batches, and adaptive composition
of dominating pairs holds for any fixed pair of inputs (Zhu, Dong & Wang, AISTATS 2022, Thm 10), so
the group-c plan is the composition of the group-c specs.
"""

from __future__ import annotations

import numpy as np

from .mechanism import Mechanism, Spec

ROUND_UP = 1.0 + 4.0 * np.finfo(np.float64).eps  # covers the 2 ulp of r^2 c^2


def group_radius2(radius2: float, c: int) -> float:
    """The folded Gaussian radius^2 of a group of c: (c r)^2, rounded up."""
    return radius2 if c == 1 else radius2 * c * c * ROUND_UP


def group_mechanism(mechanism: Mechanism, c: int, groups: int) -> Spec:
    """The spec dominating ``mechanism`` on inputs c replace-one steps apart: its own group of c
    (``Mechanism.group``), else the group bound (module docstring)."""
    if c == 1:
        return mechanism.spec()
    grouped = mechanism.group(c)
    return grouped.spec() if grouped is not None else ("group_bound", c, groups, mechanism.spec())
