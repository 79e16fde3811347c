"""Floating-point error bounds for sums of products, and the outward steps that apply them.

Higham 2002 ("Accuracy and Stability of Numerical Algorithms", 2nd ed.), Lemma 3.1:
a sum of p non-negative terms, or an inner product of length p, computed in any order in binary64
has relative error at most gamma_p = p u / (1 - p u), u = 2^-53, when p u < 1.  Every sensitivity
in this package is a sum of non-negative terms formed from products of the strategy's entries, so
its computed value v satisfies |v - x| <= rel x for the exact x and a rel composed from such gammas
(``compose``), and is stepped outward to v / (1 - rel) above x and v (1 - rel) below it, each
rounded outward.
"""

from __future__ import annotations

import math

__all__ = ["UNIT_ROUNDOFF", "gamma", "widen_up", "widen_down", "compose"]

UNIT_ROUNDOFF = 2.0**-53


def gamma(p: float) -> float:
    """gamma_p = p u / (1 - p u) rounded up (Higham Lemma 3.1); refused where p u >= 1/2 (no useful bound)."""
    pu = float(p) * UNIT_ROUNDOFF
    if not pu < 0.5:
        raise ValueError(
            f"a sum of {p:g} terms is too long for a round-off bound in binary64 (p u must be < 1/2)"
        )
    return math.nextafter(pu / (1.0 - pu) * (1.0 + 4.0 * UNIT_ROUNDOFF), math.inf)


def widen_up(value: float, rel: float) -> float:
    """value / (1 - rel), rounded up: never below the exact value x when |value - x| <= rel x (rel < 1/2)."""
    if not 0.0 <= rel < 0.5:
        raise ValueError(f"a relative round-off bound must lie in [0, 1/2), got {rel!r}")
    if rel == 0.0:  # computed without rounding
        return float(value)
    return math.nextafter(float(value) / (1.0 - rel) * (1.0 + 4.0 * UNIT_ROUNDOFF), math.inf)


def widen_down(value: float, rel: float) -> float:
    """value (1 - rel), rounded down and clipped at 0: never above the exact value x when |value -
    x| <= rel x (x >= value / (1 + rel) >= value (1 - rel))."""
    if rel == 0.0:  # computed without rounding
        return float(value)
    out = float(value) * (1.0 - rel) * (1.0 - 4.0 * UNIT_ROUNDOFF)
    return max(0.0, math.nextafter(out, -math.inf)) if out > 0 else 0.0


def compose(*rels: float) -> float:
    """(1 + r_1)(1 + r_2)... - 1 rounded up: the relative error bound of a chain of steps with bounds r_i >= 0.

    Formed as r <- r + s + r s (non-negative terms, each step's round-off covered by the factor 1 +
    4u and the step up by one ulp), never as a difference from 1, which would lose the small r_i.
    """
    total = 0.0
    for s in rels:
        total = math.nextafter((total + s + total * s) * (1.0 + 4.0 * UNIT_ROUNDOFF), math.inf)
    return total
