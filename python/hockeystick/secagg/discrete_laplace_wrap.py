r"""Modular wrap-around of the distributed discrete Laplace: the probability that the sum leaves the modulus 2^b.

As ``modular_wrap`` for the other noises: a coordinate S = signal + rounding + noise wraps only
where |S| >= m = 2^{b-1} (less the n clients' conditional rounding, charged in full), the signal and
the unconditional rounding v-subgaussian, v = rho (n c / gamma)^2 / d + n / 4 (the rotation's
flatness rho; Hoeffding), and the noise the survivors' GDL(beta, a) = NB(beta, 1 - e^{-a}) -
NB(beta, 1 - e^{-a}) (``distributed_discrete_laplace``), whose moment generating function is, for
|t| < a,

.. math::

    E e^{tN} = \Bigl(\frac{(1 - e^{-a})^2}{(1 - e^{t - a})(1 - e^{-t - a})}\Bigr)^{\beta}.

By Chernoff's bound, for every 0 < t < a, P(|S| >= m) <= 2 exp(t^2 v / 2 + log E e^{tN} - t m); the
exponent is convex in t (a sum of cumulant generating functions and a linear term), minimised by
ternary search (any t gives a valid bound), and the union over the d coordinates gives the round's
bound, widened by 1e-9 relative.
"""

from __future__ import annotations

import math

from ..base.validation import choice, count, positive_number
from .sensitivity import ROUNDINGS, Rounding

__all__ = ["discrete_laplace_wrap_probability"]

_SMALLEST = 5e-324


def _exponent(t: float, v: float, beta: float, a: float, m: float) -> float:
    cumulant = beta * (
        2.0 * math.log(-math.expm1(-a))
        - math.log(-math.expm1(t - a))
        - math.log(-math.expm1(-t - a))
    )
    return t * t * v / 2.0 + cumulant - t * m


def discrete_laplace_wrap_probability(
    *,
    bits: int,
    clients: int,
    expected_clients: int,
    dimension: int,
    clip_norm: float,
    granularity: float,
    scale: float,
    rounding: Rounding = "conditional",
    flatness: float = 1.0,
) -> float:
    """A bound on the probability that one round's sum wraps modulo 2^b (module docstring).

    Parameters
    ----------
    bits : int
        b, 1 <= b <= 62.
    clients : int
        n, the clients in the sum (their signal and shares), >= 1.
    expected_clients : int
        E, the clients whose shares make the full noise: the noise is GDL(n / E, gamma / scale).
    dimension : int
        d >= 1.
    clip_norm : float
        c > 0.
    granularity : float
        gamma > 0.
    scale : float
        The full discrete Laplace's scale in the update's units, > 0.
    rounding : {"conditional", "unconditional"}, optional
        The randomized rounding (``modular_wrap``).
    flatness : float, optional
        rho, the rotation's flatness (default 1).

    Returns
    -------
    float
        The bound, in [0, 1].

    Raises
    ------
    ValueError
        An argument outside its rule.

    Examples
    --------
    >>> from hockeystick.secagg.discrete_laplace_wrap import discrete_laplace_wrap_probability
    >>> p = discrete_laplace_wrap_probability(bits=20, clients=100, expected_clients=100, dimension=1000,
    ...                                       clip_norm=1.0, granularity=1e-3, scale=0.5)
    >>> p < 1e-6
    True
    """
    b = count(bits, "bits", maximum=62)
    n, e, d = (
        count(clients, "clients"),
        count(expected_clients, "expected_clients"),
        count(dimension, "dimension"),
    )
    c, g = positive_number(clip_norm, "clip_norm"), positive_number(granularity, "granularity")
    a = g / positive_number(scale, "scale")
    conditional = choice(rounding, "rounding", ROUNDINGS) == "conditional"
    v = positive_number(flatness, "flatness") * (n * c / g) ** 2 / d + (
        0.0 if conditional else n / 4.0
    )
    m = 2.0 ** (b - 1) - (n if conditional else 0)
    if m <= 0.0 or not a > 0.0:
        return 1.0
    beta = n / e
    lo, hi = 0.0, a * (1.0 - 1e-12)
    for _ in range(200):  # ternary search on the convex exponent over (0, a)
        left, right = lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0
        if _exponent(left, v, beta, a, m) <= _exponent(right, v, beta, a, m):
            hi = right
        else:
            lo = left
    t = 0.5 * (lo + hi)
    best = min(0.0, _exponent(t, v, beta, a, m)) if t > 0.0 else 0.0
    log_bound = math.log(2.0 * d) + best
    return min(1.0, max(math.exp(log_bound + 1e-9 * abs(log_bound)), _SMALLEST))
