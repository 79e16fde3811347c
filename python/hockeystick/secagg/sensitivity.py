r"""The sensitivity of the secure-aggregation pipeline on the integers: clip, scale, rotate, round.

Each client clips its update x to L2 norm at most c, divides it by the granularity gamma (the
integer grid's step in the update's units), applies the shared random rotation and rounds each
coordinate to an integer by randomized rounding (Kairouz, Liu & Steinke 2021, "The distributed
discrete Gaussian mechanism for federated learning with secure aggregation", ICML, Sec. 4; KLS21
below).  The mechanisms of this subpackage see only the integer vectors, so their guarantee is
stated for integer shifts Delta in Z^d with
||Delta||_2 <= Delta_2 and ||Delta||_1 <= Delta_1:

* Rotation.  An orthogonal map keeps the L2 norm, so the rotated vector has norm <= c / gamma.  d is
  the dimension of the vector that is rounded and noised (after any padding the rotation needs, e.g.
  to a power of 2 for a randomized Walsh-Hadamard transform).  The rotation enters the accounting
  only through the modular wrap-around's probability (``modular_wrap``): it flattens the coordinates
  so that few of them approach the modulus.
* Randomized rounding of y in R^d: each coordinate goes to floor(y_j) + Bernoulli(y_j - floor(y_j)),
  so
  ||round(y) - y||_2 < sqrt(d) always, and ||round(y)||_2 <= ||y||_2 + sqrt(d) (the triangle inequality).
  KLS21, Prop. 22 (conditional randomized rounding; the bound Thm. 1 reads, as accounting_utils'
  ``rounded_l2_norm_bound`` computes it): with probability at least 1 - beta,

  .. math::

      \|\mathrm{round}(y)\|_2^2 \le \|y\|_2^2 + \frac{d}{4}
          + \sqrt{2\log(1/\beta)}\,\Bigl(\|y\|_2 + \frac{\sqrt d}{2}\Bigr).

  Conditional rounding (``rounding="conditional"``) re-draws the rounding until the bound holds: the bound
  is then enforced, beta enters only the error (the expected number of re-draws is at most 1 / (1 - beta)).
  Unconditional rounding (``rounding="unconditional"``) only holds it with probability 1 - beta: the
  guarantee's delta grows by beta (the failure event, of probability beta, is charged in full).
  beta = 0 gives the deterministic bound ||y||_2 + sqrt(d).  Delta_2 is the smaller of the two bounds.
* L1.  For an integer vector every non-zero coordinate has |v_j| >= 1, so |v_j| <= v_j^2 and
  ||v||_1 <= ||v||_2^2; with Cauchy-Schwarz ||v||_1 <= sqrt(d) ||v||_2 (KLS21, Sec. 4.1):
  Delta_1 = min(sqrt(d) Delta_2, Delta_2^2).

Neighbouring: one client's clipped update replaced by zero (the KLS21 convention: the client still
runs the protocol and adds its noise), so the sum moves by that client's rounded vector.

Every bound is rounded up (each value carries a few roundings; they are widened by 16 units in the
last place, relative).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from ..base.validation import choice, count, in_interval, positive_number, single

__all__ = [
    "ROUNDINGS",
    "IntegerSensitivity",
    "integer_l1_bound",
    "integer_sensitivity",
    "rounded_l2_norm_bound",
]

Rounding = Literal["conditional", "unconditional"]
ROUNDINGS: tuple[Rounding, ...] = ("conditional", "unconditional")

_WIDEN = 1.0 + 16.0 * 2.0**-53  # a few roundings of non-negative terms, relative


def _up(x: float) -> float:
    return math.nextafter(x * _WIDEN, math.inf)


def rounded_l2_norm_bound(norm: float, dimension: int, beta: float = 0.0) -> float:
    r"""The L2 norm bound after randomized rounding to Z^d of a vector of norm at most ``norm`` (KLS21, Prop. 22).

    .. math::

        \Delta_2 = \min\Bigl(\|y\| + \sqrt d,\ \sqrt{\|y\|^2 + d/4 + \sqrt{2\log(1/\beta)}\,(\|y\| + \sqrt d / 2)}\Bigr),

    the second term only for beta > 0 (it holds with probability >= 1 - beta), rounded up.

    Parameters
    ----------
    norm : float
        The norm bound of the vector before rounding, in integer units (c / gamma), finite and > 0.
    dimension : int
        d, the number of coordinates rounded, >= 1.
    beta : float, optional
        The rounding's failure probability, 0 <= beta < 1 (default 0: the deterministic bound).

    Returns
    -------
    float
        Delta_2, an upper bound on the rounded vector's L2 norm (outside an event of probability
        beta).

    Raises
    ------
    ValueError
        If ``norm`` is not finite and > 0, ``dimension`` not an integer >= 1, or ``beta`` outside
        [0, 1).

    References
    ----------
    Kairouz, Liu & Steinke 2021, Prop. 22 and Thm. 1 (and google-research/federated,
    distributed_dp/accounting_utils.py).

    Examples
    --------
    >>> from hockeystick.secagg import rounded_l2_norm_bound
    >>> round(rounded_l2_norm_bound(100.0, 100), 6)
    110.0
    >>> round(rounded_l2_norm_bound(100.0, 100, beta=0.01), 4)
    101.7038
    """
    y = positive_number(norm, "norm")
    d = count(dimension, "dimension")
    b = float(in_interval(single(beta, "beta"), "beta", 0.0, 1.0, open_low=False, open_high=True))
    deterministic = _up(y + math.sqrt(d))
    if b == 0.0:
        return deterministic
    root_d = math.sqrt(d)
    squared = y * y + 0.25 * d + math.sqrt(2.0 * math.log(1.0 / b)) * (y + 0.5 * root_d)
    return min(deterministic, _up(math.sqrt(_up(squared))))


def integer_l1_bound(l2_bound: float, dimension: int) -> float:
    r"""The L1 bound of an integer vector of L2 norm at most ``l2_bound``: min(sqrt(d) Delta_2, Delta_2^2).

    Parameters
    ----------
    l2_bound : float
        Delta_2, finite and > 0.
    dimension : int
        d, >= 1.

    Returns
    -------
    float
        Delta_1, rounded up.

    Raises
    ------
    ValueError
        If ``l2_bound`` is not finite and > 0 or ``dimension`` not an integer >= 1.

    References
    ----------
    Kairouz, Liu & Steinke 2021, Sec. 4.1 (``|v_j| <= v_j^2`` for integers; Cauchy-Schwarz).

    Examples
    --------
    >>> from hockeystick.secagg import integer_l1_bound
    >>> round(integer_l1_bound(3.0, 100), 9), round(integer_l1_bound(30.0, 100), 9)
    (9.0, 300.0)
    """
    l2 = positive_number(l2_bound, "l2_bound")
    d = count(dimension, "dimension")
    return min(_up(math.sqrt(d) * l2), _up(l2 * l2))


@dataclass(frozen=True)
class IntegerSensitivity:
    """The integer pipeline's sensitivity (module docstring): what the mechanisms' bounds read.

    Parameters
    ----------
    l2 : float
        Delta_2, the rounded vector's L2 bound (rounded up).
    l1 : float
        Delta_1 = min(sqrt(d) Delta_2, Delta_2^2) (rounded up).
    dimension : int
        d.
    realizable_shift : int
        floor(c / gamma): a client whose rotated, scaled update is that integer on one coordinate
        and 0 elsewhere has norm <= c / gamma and rounds to itself, so this one-coordinate shift is
        realized by the pipeline (the lower side's shift; 0 when c / gamma < 1).
    delta_cost : float
        What the rounding adds to delta: beta for unconditional rounding, 0 for conditional
        rounding.
    """

    l2: float
    l1: float
    dimension: int
    realizable_shift: int
    delta_cost: float


def integer_sensitivity(
    *,
    clip_norm: float,
    granularity: float,
    dimension: int,
    beta: float = 0.0,
    rounding: Rounding = "conditional",
) -> IntegerSensitivity:
    r"""Delta_2 and Delta_1 of the clipped, scaled, rotated and rounded client vector (module docstring).

    Parameters
    ----------
    clip_norm : float
        c, the L2 clip norm of an update, finite and > 0.
    granularity : float
        gamma, the integer grid's step in the update's units (the client sends round(x / gamma)),
        finite, > 0.
    dimension : int
        d, the number of coordinates rounded and noised (after the rotation's padding), >= 1.
    beta : float, optional
        The rounding's failure probability, 0 <= beta < 1 (default 0: the deterministic bound c /
        gamma + sqrt(d)).
    rounding : {"conditional", "unconditional"}, optional
        Conditional rounding enforces the beta bound (beta enters only the error); unconditional
        rounding adds beta to delta.

    Returns
    -------
    IntegerSensitivity
        The bounds, the realizable one-coordinate shift and the delta the rounding costs.

    Raises
    ------
    ValueError
        If ``clip_norm`` or ``granularity`` is not finite and > 0, ``dimension`` not an integer >=
        1, ``beta`` outside [0, 1), ``rounding`` not one of the two, or c / gamma above 2^52 (the
        shift would not be an exact integer).

    References
    ----------
    Kairouz, Liu & Steinke 2021, Sec. 4.1, Prop. 22 and Thm. 1.

    Examples
    --------
    >>> from hockeystick.secagg import integer_sensitivity
    >>> s = integer_sensitivity(clip_norm=1.0, granularity=0.125, dimension=100)
    >>> round(s.l2, 9), s.realizable_shift, s.delta_cost
    (18.0, 8, 0.0)
    """
    c = positive_number(clip_norm, "clip_norm")
    g = positive_number(granularity, "granularity")
    d = count(dimension, "dimension")
    side = choice(rounding, "rounding", ROUNDINGS)
    b = float(in_interval(single(beta, "beta"), "beta", 0.0, 1.0, open_low=False, open_high=True))
    scaled = c / g
    if not scaled <= 2.0**52:
        raise ValueError(
            f"granularity must be at least clip_norm / 2^52 (the scaled clip norm c / gamma must be an exactly "
            f"representable integer range), got granularity = {granularity!r} with clip_norm = {clip_norm!r}"
        )
    l2 = rounded_l2_norm_bound(_up(scaled), d, b)
    realizable = int(math.floor(scaled))
    while realizable > 0 and Fraction(realizable) * Fraction(g) > Fraction(
        c
    ):  # exactly: k gamma <= c
        realizable -= 1
    return IntegerSensitivity(
        l2=l2,
        l1=integer_l1_bound(l2, d),
        dimension=d,
        realizable_shift=realizable,
        delta_cost=b if side == "unconditional" else 0.0,
    )
