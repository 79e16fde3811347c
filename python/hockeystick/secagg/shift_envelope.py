r"""One pair that dominates every integer shift of a symmetric noise at once: the envelope of their profiles.

A round of a one-coordinate additive mechanism releases N + x for the client's integer x, so a
neighbouring pair of inputs is (N + s, N) for some integer shift 0 < |s| <= K, in either direction.
Where N is log-concave the largest shift dominates the others
(``distributed_discrete_laplace.dominating_shift_pld``); the generalized discrete Laplace below one
full share (its mass piled up at 0) is not log-concave, and no ordering of its shifts is proved.
This module dominates all of them together.

Profiles.  Write delta_s(gamma) = sum_y (P_s(y) - gamma Q(y))_+ for the pair (N + s, N).  N
symmetric, the pairs (N - s, N), (N, N + s) and (N, N - s) are (N + s, N) with the outcomes
reflected or translated: the same profile.  Take f(gamma) >= max_{1 <= s <= K} delta_s(gamma), f
convex and non-increasing on [0, infinity) with f(0) = 1, piecewise linear:

.. math::

    f(\gamma) = f_\infty + \sum_k q_k (\gamma_k - \gamma)_+,
    \qquad q_k > 0, \quad f_\infty + \sum_k q_k \gamma_k = 1.

It is the profile of the pair with P-masses p_k = gamma_k q_k at loss log gamma_k (and f_infinity at
loss +infinity) against Q-masses q_k: every round's pair has a trade-off function at least that
pair's (the profile and the trade-off function are convex conjugates: Dong, Roth & Su 2022,
"Gaussian differential privacy", JRSS-B, Prop. 2.12; a pointwise maximum of profiles is the
conjugate of the convex hull of the least trade-off function), so the pair dominates each round, and
by Dong, Roth & Su 2022, Thm. 3.2 (adaptive composition of f-DP) its T-fold composition dominates T
rounds whatever shift each round takes.  Lowering any p_k or q_k only raises the profile 1 - sum_k
min(p_k, gamma q_k).

Construction (connect the dots: Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022, "Connect the
dots: tighter discrete approximations of privacy loss distributions", PETS, Sec. 3).  At the grid
points eps_j = j h (h coarser where reach / h passes 4096), |eps_j| <= reach + 4 h, d_j is the
largest certified upper delta_s(eps_j) over the shifts (each shift's lattice pair, its pessimistic
side), replaced by its running minimum in j (delta_s is non-increasing, so a running minimum of
upper bounds is one).  f is the lower convex hull of (0, 1) and the points (e^{eps_j}, d_j) (e^{eps_j}
at 50 digits, each turn's sign decided as that arithmetic decides it: ``_lower_hull``), flat after
the last: on each chord between two hull points it lies above every delta_s (each is convex
and at most both ends), and the hull is convex.  The slopes, their changes q_k and gamma_k q_k are
computed by mpmath at 50 digits, each change lowered by 1e-45 of its two slopes (their rounding) and
each product by 1e-40 relative, then rounded down to doubles: the pair given is lowered.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..pld.grid import PrivacyLossDistribution
from ..pld.mechanisms import checked_interval, pair_factor
from .distributed_discrete_laplace import dominating_shift_pld
from .lattice_pld import Masses

__all__ = ["MAX_ENVELOPE_SHIFTS", "shift_envelope_pld"]

MAX_ENVELOPE_SHIFTS = 64  # the shifts' lattice pairs built and read; more: no envelope
_DIGITS = 50
_MAX_POINTS = (
    4096  # the profiles' points a side of 0: beyond, coarser (any spacing gives an upper bound)
)


def _scaled(parts: list[tuple[int, int]]) -> list[int]:
    """Numbers m 2^e, given as (m, e), as integers on one binary scale (value = out 2^e0, e0 common)."""
    low = min((exp for man, exp in parts if man), default=0)
    return [man << (exp - low) if man else 0 for man, exp in parts]


def _lower_hull(eps: np.ndarray, profile: np.ndarray) -> list[tuple[Any, Any]]:
    """The lower convex hull of (0, 1) and the points (e^{eps_j}, d_j), eps ascending, as mpmath
    pairs: e^{eps_j} at the working precision p, d_j exact; Andrew's monotone chain, collinear
    points dropped.

    Each turn (x2 - x1)(y3 - y1) - (y2 - y1)(x3 - x1) is decided as the arithmetic at p decides it:
    its seven roundings move it by less than 6 2^-p (|A| + |B|), A and B its two products, so where
    the exact turn (integers on the points' binary values) is farther than 16 2^-p (|A| + |B|) from
    0 the rounded one has its sign, and only nearer is it evaluated in mpmath.
    """
    import mpmath  # lazy: only here
    from mpmath import libmp

    prec = mpmath.mp.prec
    # e^{eps_j} rounded to p bits as mpmath.exp rounds it, as (sign, mantissa, exponent, bits)
    powers = [libmp.mpf_exp(libmp.from_float(e), prec, libmp.round_nearest) for e in eps.tolist()]
    xs = _scaled([(0, 0)] + [(-man if sign else man, exp) for sign, man, exp, _ in powers])
    ratios = [value.as_integer_ratio() for value in [1.0] + profile.tolist()]
    ys = _scaled([(num, 1 - den.bit_length()) for num, den in ratios])  # den = 2^(bits - 1)

    def point(i: int) -> tuple[Any, Any]:
        if i == 0:
            return mpmath.mpf(0), mpmath.mpf(1)
        # powers[i - 1] is mpmath.exp(eps_j) at p: the same rounding of the same argument
        return mpmath.mp.make_mpf(powers[i - 1]), mpmath.mpf(float(profile[i - 1]))

    scale = 1 << (prec - 4)
    hull: list[int] = []
    for k in range(len(xs)):
        while len(hull) >= 2:
            i, j = hull[-2], hull[-1]
            first = (xs[j] - xs[i]) * (ys[k] - ys[i])
            second = (ys[j] - ys[i]) * (xs[k] - xs[i])
            turn = first - second
            if abs(turn) * scale > abs(first) + abs(second):
                drop = turn < 0
            else:
                (x1, y1), (x2, y2), (x3, y3) = point(i), point(j), point(k)
                drop = (x2 - x1) * (y3 - y1) - (y2 - y1) * (x3 - x1) <= 0
            if not drop:
                break
            hull.pop()
        hull.append(k)
    return [point(i) for i in hull]


def _down(value: Any, lowering: Any) -> float:
    """A non-negative mpmath number as a double at most it (lowered by ``lowering``, then an ulp)."""
    out = float(value * lowering)
    return max(0.0, math.nextafter(out, -math.inf)) if out > 0.0 else 0.0


def shift_envelope_pld(
    masses: Masses, largest_shift: int, reach: float, value_discretization_interval: float
) -> PrivacyLossDistribution:
    """A pair whose profile is at least every shift's, 1 .. ``largest_shift``, of the symmetric noise N.

    Parameters
    ----------
    masses : tuple
        (x0, masses, errors, outside) of N, symmetric about 0
        (``distributed_discrete_laplace.gdl_masses``).
    largest_shift : int
        K, 1 <= K <= ``MAX_ENVELOPE_SHIFTS``.
    reach : float
        The profiles' points span losses -reach - 4 h .. reach + 4 h (reach > 0); what lies beyond
        is charged at +infinity: a bound on every shift's largest loss (a pure eps) keeps the
        envelope tight.
    value_discretization_interval : float
        h: the points' spacing and the PLD's grid.

    Returns
    -------
    PrivacyLossDistribution
        One direction (every shift, both directions, below it: module docstring); its pessimistic
        side (``bound="upper"``) is a certified upper bound on every shift's hockey-stick
        divergence, also after composition.

    Raises
    ------
    ValueError
        ``largest_shift`` outside [1, ``MAX_ENVELOPE_SHIFTS``] or the window, or ``reach`` not
        positive.

    Examples
    --------
    >>> from hockeystick.secagg.distributed_discrete_laplace import gdl_masses, dominating_shift_pld
    >>> from hockeystick.secagg.shift_envelope import shift_envelope_pld
    >>> noise = gdl_masses(0.5, 0.4)
    >>> envelope = shift_envelope_pld(noise, 3, 2.5, 1e-3)
    >>> all(envelope.delta(e, bound="upper") >= dominating_shift_pld(noise, s, 1e-3).delta(e, bound="upper")
    ...     for e in (0.0, 0.5, 1.0) for s in (1, 2, 3))
    True
    """
    import mpmath  # lazy: only here

    h = checked_interval(value_discretization_interval)
    if not (isinstance(largest_shift, int) and 1 <= largest_shift <= MAX_ENVELOPE_SHIFTS):
        raise ValueError(
            f"largest_shift must be an integer in [1, {MAX_ENVELOPE_SHIFTS}], got {largest_shift!r}"
        )
    if not (reach > 0.0 and math.isfinite(reach)):
        raise ValueError(f"reach must be finite and > 0, got {reach!r}")
    # the lattice pairs' pessimistic losses sit up to a cell above the true ones: 4 cells past reach
    span = reach + 4.0 * h
    steps = min(int(math.ceil(span / h)), _MAX_POINTS)  # spacing h, or span / _MAX_POINTS
    spacing = span / steps if steps == _MAX_POINTS else h
    eps = np.arange(-steps, steps + 1, dtype=np.float64) * spacing
    profile = np.zeros(eps.size)
    for shift in range(1, largest_shift + 1):
        pair = dominating_shift_pld(masses, shift, h)
        profile = np.maximum(profile, np.asarray(pair.delta(eps, bound="upper"), dtype=float))
    profile = np.minimum.accumulate(np.minimum(profile, 1.0))  # each delta_s is non-increasing
    with mpmath.workdps(_DIGITS):
        hull = _lower_hull(eps, profile)
        slopes = [(y2 - y1) / (x2 - x1) for (x1, y1), (x2, y2) in zip(hull, hull[1:])] + [
            mpmath.mpf(0)
        ]
        lowering = 1 - mpmath.mpf("1e-40")
        p_masses, q_masses = [], []
        for k in range(1, len(hull)):  # a vertex after (0, 1): its Q-mass is the slope's rise there
            # less the slopes' own rounding at 50 digits (1e-48 relative; 1e-45 charged)
            margin = mpmath.mpf("1e-45") * (abs(slopes[k]) + abs(slopes[k - 1]))
            rise = slopes[k] - slopes[k - 1] - margin
            if rise > 0:
                q_masses.append(_down(rise, lowering))
                p_masses.append(_down(hull[k][0] * rise, lowering))
    p, q = np.array(p_masses), np.array(q_masses)
    keep = (p > 0.0) & (q > 0.0)  # a mass rounded to 0 is lowered: the profile only rises
    factor = pair_factor(p[keep], q[keep], "gdl_shift_envelope", h, exact_zeros=True)
    return PrivacyLossDistribution([{factor: 1}])
