"""The certified epsilon bracket a delta bracket implies: its width, from two certified delta brackets.

Two ways, the least width winning: convexity in e^eps through a certified upper bound to the right
(``certified_epsilon_width``, below), or monotonicity through a certified lower bound to the left
(``left_epsilon_width``), which stays tight where delta falls steeply (near 1e-9).  Both are
computed by the core (cpp/include/hockeystick/pld/reads/epsilon_width.hpp), which also gives the
accountant a point's least width over its shifted arguments in one call.

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
epsilon bracket at delta* = up is [eps1, eps0], of width -log1p(-x) (at most eps0, since epsilon >=
0; infinite when drop <= 0 or x >= 1: this eps2 certifies nothing).  Each eps2 gives a valid width,
so the least over several is too.  The width is about (up - lo) / (|d delta / d eps| eps-wise) when
eps2 - eps0 is small beside the curve's scale and large beside (up - lo) / |d delta / d eps|.

Where no offset certifies a width (lo <= up2 for every eps2 tried), the bracket's gap is best read
in epsilon as well: the epsilon gap at eps0 is how far right the upper curve falls to lo, G = eps* -
eps0 with up(eps*) = lo (``epsilon_gap``); the certified width needs G below the offsets, and G
shrinks with the grid like the bracket does (about h^2: sigma 2.05, q 0.048, 56899 rounds, eps 8:
G = 0.69, 0.16, 0.04, 0.01 at h = 1.02e-2, 5.1e-3, 2.6e-3, 1.3e-3), so it sizes the next grid where
the width itself is only capped.
"""

from __future__ import annotations

import numpy as np

from ... import _core

# Offsets eps2 - eps0 tried by the accountant (the least width wins): a short chord tracks the
# slope where the bracket is narrow, a longer one where the bracket's width would swamp it.
RIGHT_OFFSETS = (0.01, 0.04, 0.16)
# Offsets eps0 - eps1 tried to the left by the accountant, as fractions of its accuracy
# (``left_epsilon_width``; the least width over both sides wins); 0.99, not 1: the width is eps0 -
# eps1 rounded up, so an offset of exactly the accuracy would certify a width just above it.
LEFT_FRACTIONS = (0.99, 2.0, 3.0)


def certified_epsilon_width(
    epsilon: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    right_epsilon: np.ndarray,
    right_upper: np.ndarray,
) -> np.ndarray:
    """Width of the certified epsilon bracket at delta* = ``upper`` implied by a delta bracket
    [``lower``, ``upper``] at ``epsilon`` and a certified upper bound ``right_upper`` on delta at
    ``right_epsilon`` > ``epsilon`` (arrays that broadcast): -log1p(-x), x = (upper - lower)
    expm1(right_epsilon - epsilon) / (lower - right_upper), rounded up; at most ``epsilon``;
    ``inf`` where lower <= right_upper or right_epsilon <= epsilon (this right point certifies
    nothing: e.g. epsilon = inf, or epsilon + d rounding back to epsilon) or x >= 1.  The
    derivation (convexity of delta in e^eps) is in the module docstring.
    """
    epsilon, lower, upper, right_epsilon, right_upper = np.broadcast_arrays(
        *(
            np.asarray(v, dtype=np.float64)
            for v in (epsilon, lower, upper, right_epsilon, right_upper)
        )
    )
    return _core.pld_reads.chord_epsilon_width(
        epsilon, lower=lower, upper=upper, right_epsilon=right_epsilon, right_upper=right_upper
    )[()]


def left_epsilon_width(
    epsilon: np.ndarray, upper: np.ndarray, left_epsilon: np.ndarray, left_lower: np.ndarray
) -> np.ndarray:
    """Width of the certified epsilon bracket at delta* = ``upper`` (a certified upper bound on
    delta at ``epsilon``) implied by a certified lower bound ``left_lower`` on delta at
    ``left_epsilon`` < ``epsilon`` (arrays that broadcast): ``epsilon - left_epsilon``, rounded up,
    where ``left_lower > upper``; at most ``epsilon``; ``inf`` elsewhere.

    delta is non-increasing in eps, so delta(eps) >= delta(eps1) >= left_lower > delta* for every
    eps <= eps1: epsilon(delta*) = inf{eps : delta(eps) <= delta*} >= eps1, and epsilon(delta*) <=
    eps0 since delta(eps0) <= upper.  No convexity is used, so unlike ``certified_epsilon_width``
    the width does not grow where delta falls steeply (delta ~ 1e-9, halving every 0.01 of eps: a
    bracket 4x wide in delta is about 0.02 wide in epsilon this way and 0.4 by the chord in e^eps).
    """
    epsilon, upper, left_epsilon, left_lower = np.broadcast_arrays(
        *(np.asarray(v, dtype=np.float64) for v in (epsilon, upper, left_epsilon, left_lower))
    )
    return _core.pld_reads.left_epsilon_width(
        epsilon, upper=upper, left_epsilon=left_epsilon, left_lower=left_lower
    )[()]


def epsilon_gap(
    epsilon: np.ndarray, lower: np.ndarray, upper: np.ndarray, x: np.ndarray, upper_x: np.ndarray
) -> np.ndarray:
    """How far right of each ``epsilon`` the upper curve falls to ``lower`` there: eps* - epsilon,
    eps* where the chord in gamma = e^eps between the two arguments that straddle the crossing meets
    ``lower``: the first argument of ``x`` beyond epsilon whose ``upper_x`` is <= ``lower``, and the
    argument before it (epsilon itself, with ``upper``, if none of ``x`` lies between).  Where no
    argument of ``x`` beyond epsilon has ``upper_x`` <= ``lower`` but ``lower`` > 0, the line
    through the two largest arguments' upper values, extended (a delta near 1 whose drop over the
    arguments is less than the bracket's gap); ``inf`` where that line does not fall (flat) or
    ``lower`` is 0.  1-d arrays: ``epsilon``, ``lower`` and ``upper`` one per epsilon, ``x`` and
    ``upper_x`` the curve's other arguments and values, any order.

    A model for sizing the next grid, not a bound: the upper curve is convex in gamma (module
    docstring), so a chord between two of its points lies above it between them and below it beyond
    them: the crossing read between two arguments is at or right of the curve's own (the gap is
    overestimated), the extended one at or left of it (underestimated), where the upper values are a
    convex curve's.
    """
    order = np.argsort(x, kind="stable")
    xs, us = np.asarray(x, dtype=np.float64)[order], np.asarray(upper_x, dtype=np.float64)[order]
    eps, lo, up = (np.asarray(v, dtype=np.float64) for v in (epsilon, lower, upper))
    if xs.size == 0:
        return np.full(eps.shape, np.inf)
    below = (xs[None, :] > eps[:, None]) & (us[None, :] <= lo[:, None])
    found = below.any(axis=1)
    j = np.argmax(below, axis=1)
    left = np.maximum(j - 1, 0)
    between = found & (j > 0) & (xs[left] > eps)
    x_left = np.where(between, xs[left], eps)
    u_left = np.maximum(np.where(between, us[left], up), lo)
    u_right = us[j]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t = np.clip(np.where(u_left > u_right, (u_left - lo) / (u_left - u_right), 1.0), 0.0, 1.0)
        g_left, g_right = np.exp(x_left - eps), np.exp(xs[j] - eps)
        gap = np.log(g_left + t * (g_right - g_left))
        # beyond the last argument: the line through the last two, extended to lower
        fall = float(us[-2] - us[-1]) if xs.size > 1 else 0.0
        if fall > 0.0:
            g_last, g_before = np.exp(xs[-1] - eps), np.exp(xs[-2] - eps)
            beyond = np.log(g_last + (us[-1] - lo) * (g_last - g_before) / fall)
        else:
            beyond = np.full(eps.shape, np.inf)
    extended = ~found & (lo > 0.0) & (xs[-1] > eps) & np.isfinite(beyond)
    return np.where(found, gap, np.where(extended, beyond, np.inf))
