"""The certified epsilon bracket a delta bracket implies: its width, from two certified delta brackets.

A delta bracket lo <= delta(eps0) <= up at eps0 answers "what epsilon goes with delta* = up?":
eps0 is a certified upper bound on epsilon(delta*) = inf{eps : delta(eps) <= delta*}, since
delta(eps0) <= up.  A certified lower bound eps1 needs delta(eps1) > delta* = up, i.e. a
certified lower bound on delta to the left of eps0, which the bracket at eps0 alone does not give.
Convexity does, in gamma = e^eps (not in eps):

    delta(gamma) = sup_S P(S) - gamma Q(S)

is a supremum of affine functions of gamma, so convex and non-increasing in gamma (Balle,
Barthe, Gaboardi, Hsu, Sato, "Hypothesis testing interpretations and Renyi differential
privacy", AISTATS 2020, Sec. 3: the privacy profile); the maximum over neighbouring directions,
and any composition, are too.  In eps it is not convex in general (one atom at loss l gives
1 - e^{eps - l}, concave below l), so a slope in eps is not a certified slope; and the computed
optimistic curve need not be convex at all, so its own slope certifies nothing either.  What
holds: for gamma1 < gamma0 < gamma2, the chord slopes of a convex function increase,

    delta(gamma1) >= delta(gamma0) + (gamma0 - gamma1) (delta(gamma0) - delta(gamma2)) / (gamma2 - gamma0),

and the right side increases with delta(gamma0) and decreases with delta(gamma2), so it stays a
lower bound with delta(gamma0) >= lo and delta(gamma2) <= up2 (the certified upper bound at a
point eps2 > eps0).  With drop = lo - up2 > 0 this is >= up as soon as

    gamma0 - gamma1 >= (up - lo) (gamma2 - gamma0) / drop,

and then delta(gamma) > up for every gamma < gamma1 (the chord slope to the left is < 0), so
epsilon(up) >= eps1 = eps0 + log(1 - x), x = (up - lo) expm1(eps2 - eps0) / drop; the certified
epsilon bracket at delta* = up is [eps1, eps0], of width -log1p(-x) (at most eps0, since epsilon
>= 0; infinite when drop <= 0 or x >= 1: this eps2 certifies nothing).  Each eps2 gives a valid
width, so the least over several is too.  The width is about (up - lo) / (|d delta / d eps| eps-wise)
when eps2 - eps0 is small beside the curve's scale and large beside (up - lo) / |d delta / d eps|.
"""

from __future__ import annotations

import numpy as np

# Offsets eps2 - eps0 tried by the accountant (the least width wins): a short chord tracks the
# slope where the bracket is narrow, a longer one where the bracket's width would swamp it.
RIGHT_OFFSETS = (0.01, 0.04, 0.16)
# Relative inflation covering the round-off of the few operations below (each within 1 ulp).
_ROUNDING = 1.0 + 1e-12


def certified_epsilon_width(epsilon: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                            right_epsilon: np.ndarray, right_upper: np.ndarray) -> np.ndarray:
    """Width of the certified epsilon bracket at delta* = ``upper`` implied by a delta bracket
    [``lower``, ``upper``] at ``epsilon`` and a certified upper bound ``right_upper`` on delta at
    ``right_epsilon`` > ``epsilon`` (arrays that broadcast): -log1p(-x), x = (upper - lower)
    expm1(right_epsilon - epsilon) / (lower - right_upper), rounded up; at most ``epsilon``;
    ``inf`` where lower <= right_upper or right_epsilon <= epsilon (this right point certifies
    nothing: e.g. epsilon = inf, or epsilon + d rounding back to epsilon) or x >= 1.  The
    derivation (convexity of delta in e^eps) is in the module docstring.
    """
    eps, lo, up, eps2, up2 = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in
                                                   (epsilon, lower, upper, right_epsilon, right_upper)))
    drop = np.where(eps2 > eps, lo - up2, 0.0)   # eps2 == eps (eps = inf, or eps + d rounding to eps): nothing
    gap = np.maximum(up - lo, 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x = np.where(drop > 0.0, gap * np.expm1(eps2 - eps) / np.where(drop > 0.0, drop, 1.0) * _ROUNDING, np.inf)
    inside = x < 1.0
    width = np.where(inside, -np.log1p(-np.where(inside, x, 0.0)) * _ROUNDING, np.inf)
    return np.minimum(width, np.maximum(eps, 0.0))
