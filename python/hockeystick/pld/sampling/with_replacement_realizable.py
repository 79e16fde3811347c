"""A realizable pair of sampling WITH replacement around additive noise: the certified LOWER side.

K draws with replacement from n records, replace-one neighbours, the inner mechanism adding noise N
to a sum of the drawn records' contributions (shift 1 per changed slot in the units of its spec).
Every other record and the new record at -1/2, the old one at +1/2 (shifted so that Q sits at 0):
the old record is drawn c ~ Binom(K, 1/n) times (b_c), each copy moving the sum by 1, so
    P = sum_c b_c N_c  vs  Q = N_0,   N_c the noise law shifted by c
(the construction of ``pld.with_replacement_subsampled_gaussian``'s realizable pair).  Both orders
are neighbouring datasets, so the curve of either order is at most the mechanism's worst case, and
their maximum is a certified lower bound on it (Zhu, Dong & Wang, AISTATS 2022: a dominating pair's
curve is at least that of every neighbouring pair).

Copy counts beyond c_max (``copy_count_weights``: tail mass t) are moved to c = 0:
P' = P_trunc + t N_0 with P_trunc = sum_{c <= c_max} b_c N_c.  Since P_trunc <= P and
P_trunc <= P' <= P_trunc + t N_0 as measures, for g = e^eps >= 0
    remove: H_P(g) = int (dP - g dQ)_+  lies in [H_P'(g) - t, H_P'(g) + t],
    add:    A_P(g) = int (dQ - g dP)_+  lies in [A_P'(g) - g t, A_P'(g) + g t]
((a + x)_+ <= a_+ + x for x >= 0, integrated).  ``SLACK`` is added to t for the floating-point
error of the tabulated b_c (scipy's binomial pmf, ~1e-14 relative): a change of the weights by w in
total variation moves each curve by at most w (remove) or g w (add).  The lower side subtracts the
slack, the upper side (used only for the tent secants of ``subsampled_pair.grid_factor``) adds it.

P' is computed on its certified sides: Laplace (scale b, shifts c) by ``laplace_mixture`` on grid h
(both PMFs certified; where its largest loss c_max / b passes ``LOSS_CAP`` and e^loss would
overflow, the pair post-processed by the tests x > c + 1/2 instead, a lower side only), discrete
Laplace (parameter a, shifts c s) as a finite pair in closed form (the outcomes x <= 0 and x >=
c_max s merged, a lossless post-processing: the loss is constant there):
    P_m(x <= 0) = e^{-a m} / (1 + e^{-a}),  P_m(x >= S) = e^{-a (S - m)} / (1 + e^{-a}),
    P_m(x) = tanh(a/2) e^{-a |x - m|}  (0 < x < S = c_max s),
(``pld.discrete_laplace``'s masses; each within 16 + a S ulps), delta(g) = sum_x (p_x - g q_x)_+
evaluated with p lowered and q raised by that relative error (lower side), the other way (upper).
"""

from __future__ import annotations

import math

import numpy as np

from ..mechanisms.laplace_mixture import laplace_mixture
from .subsampled_pair import Curve

SLACK = 1e-10  # covers the floating-point error of the tabulated b_c, in total variation
UNIT_ROUNDOFF = np.finfo(np.float64).eps / 2
CHUNK = 256  # eps values per block of the finite pair's (eps, outcome) table
SUBNORMAL_ERROR = (
    2.0**-1000
)  # absolute error of a mass near or below the subnormal range (each op errs 2^-1074)
LOSS_CAP = (
    500.0  # beyond this largest loss the mixture's e^loss nears overflow: threshold tests instead
)

Sides = tuple[Curve, Curve | None]  # (lower, upper or None) of one direction's curve delta(eps)


def _charged(curve: Curve, slack: float, add: bool, upper: bool) -> Curve:
    """``curve`` moved by the dropped mass ``slack`` (times e^eps in the add order), down for the
    lower side, up for the upper; clipped to [0, 1]."""

    def moved(eps: np.ndarray) -> np.ndarray:
        e = np.asarray(eps, dtype=np.float64)
        charge = slack * np.exp(np.minimum(e, 700.0)) if add else np.full(e.shape, slack)
        value = np.asarray(curve(e), dtype=np.float64)
        return np.clip(value + charge if upper else value - charge, 0.0, 1.0)

    return moved


def _mixture_weights(weights: np.ndarray, tail: float) -> tuple[list[float], float]:
    """b_0 .. b_cmax with every missing mass moved to c = 0 (they sum to 1), and the slack to charge."""
    w = [float(x) for x in weights]
    w[0] = max(1.0 - math.fsum(w[1:]), 0.0)
    return w, float(tail) + SLACK


def _laplace_tests(scale: float, w: list[float], slack: float) -> list[Sides]:
    """The pair post-processed by the tests x > c + 1/2 (c = 0 .. c_max - 1), each a two-outcome
    pair (Laplace survival P(Lap(m, b) > t) = e^{-(t - m)/b} / 2 for t >= m), their curves'
    pointwise maximum: a lower side (post-processing only lowers a curve) where the losses pass
    ``LOSS_CAP``."""
    b = float(scale)

    def above(t: float, m: float) -> float:
        return 0.5 * math.exp(-(t - m) / b) if t >= m else 1.0 - 0.5 * math.exp((t - m) / b)

    rel = 64.0 * UNIT_ROUNDOFF
    sides: list[list[Curve]] = [[], []]
    for t in (c + 0.5 for c in range(len(w) - 1)):
        p1 = math.fsum(wc * above(t, float(c)) for c, wc in enumerate(w))
        p, q = np.array([1.0 - p1, p1]), np.array([1.0 - above(t, 0.0), above(t, 0.0)])
        for order, (x, y) in enumerate([(p, q), (q, p)]):
            sides[order].append(_charged(_finite_curve(x, y, rel, False), slack, order == 1, False))
    return [(pointwise_max(sides[0]), None), (pointwise_max(sides[1]), None)]


def laplace_sides(scale: float, weights: np.ndarray, tail: float, h: float) -> list[Sides]:
    """(lower, upper) per order (remove, add) of sum_c b_c Lap(c, scale) vs Lap(0, scale), charged
    for the dropped copy counts (module docstring), at any real eps; ``laplace_mixture`` on grid h,
    or where its losses c_max / scale pass ``LOSS_CAP`` (e^loss overflows), the threshold tests'
    lower side alone (``_laplace_tests``; upper None: the caller's bound serves the secants)."""
    w, slack = _mixture_weights(weights, tail)
    if (len(w) - 1) / float(scale) > LOSS_CAP:
        return _laplace_tests(scale, w, slack)
    shifts = [float(c) for c in range(len(w))]
    pld = laplace_mixture(float(scale), shifts, w, value_discretization_interval=h)
    sides: list[Sides] = []
    for order, direction in enumerate(pld.directions):
        factor = next(iter(direction))
        assert factor.lower is not None
        sides.append(
            (
                _charged(factor.lower.delta_tabled, slack, order == 1, False),
                _charged(factor.upper.delta_tabled, slack, order == 1, True),
            )
        )
    return sides


def _discrete_laplace_masses(
    a: float, s: int, weights: list[float]
) -> tuple[np.ndarray, np.ndarray]:
    """P' and Q on the merged outcomes x <= 0, 1 .. S - 1, x >= S (S = c_max s) (module docstring)."""
    big = (len(weights) - 1) * s
    x = np.arange(1, big)
    norm = 1.0 / (1.0 + math.exp(-a))
    t = math.tanh(a / 2.0)

    def component(m: int) -> np.ndarray:
        return np.concatenate(
            [
                [math.exp(-a * m) * norm],
                t * np.exp(-a * np.abs(x - m)),
                [math.exp(-a * (big - m)) * norm],
            ]
        )

    p = sum(wc * component(c * s) for c, wc in enumerate(weights))
    return np.asarray(p, dtype=np.float64), component(0)


def _finite_curve(p: np.ndarray, q: np.ndarray, rel: float, upper: bool) -> Curve:
    """delta(eps) = sum_x (p_x - e^eps q_x)_+ with the masses moved by ``rel`` towards the side asked for."""
    grow, shrink = 1.0 + rel, 1.0 - rel
    # plus the absolute error of a mass that underflowed (subnormal or 0 where the truth is below
    # 2^-1074)
    tiny = SUBNORMAL_ERROR
    up_p, up_q = p * grow + tiny, np.maximum(q * shrink - tiny, 0.0)
    lo_p, lo_q = np.maximum(p * shrink - tiny, 0.0), q * grow + tiny
    pp, qq = (up_p, up_q) if upper else (lo_p, lo_q)

    def curve(eps: np.ndarray) -> np.ndarray:
        e = np.asarray(eps, dtype=np.float64)
        out = np.empty(e.shape)
        for i in range(0, e.size, CHUNK):
            g = np.exp(np.minimum(e[i : i + CHUNK], 700.0))[:, None]
            out[i : i + CHUNK] = np.maximum(pp[None, :] - g * qq[None, :], 0.0).sum(axis=1)
        return np.clip(out * (grow if upper else shrink), 0.0, 1.0)

    return curve


def discrete_laplace_sides(
    parameter: float, sensitivity: int, weights: np.ndarray, tail: float
) -> list[Sides]:
    """(lower, upper) per order (remove, add) of sum_c b_c DLap(c s) vs DLap(0), parameter a, shift
    s per copy, charged for the dropped copy counts (module docstring), at any real eps; exact up to
    round-off."""
    a, s = float(parameter), int(sensitivity)
    w, slack = _mixture_weights(weights, tail)
    p, q = _discrete_laplace_masses(a, s, w)
    # each mass within (16 + a k) ulps, a k its exp's argument (``pld.discrete_laplace``): below 750
    # for every mass that does not underflow (those carry the absolute SUBNORMAL_ERROR); the
    # weighted sum and the sum over x a few more
    rel = (64.0 + min(a * (len(w) - 1) * s, 750.0) + p.size) * UNIT_ROUNDOFF
    return [
        (
            _charged(_finite_curve(x, y, rel, False), slack, order == 1, False),
            _charged(_finite_curve(x, y, rel, True), slack, order == 1, True),
        )
        for order, (x, y) in enumerate([(p, q), (q, p)])
    ]


def pointwise_max(curves: list[Curve]) -> Curve:
    """The pointwise maximum of lower sides (each below the same curve: so is their maximum)."""
    if len(curves) == 1:
        return curves[0]
    return lambda eps: np.max([f(eps) for f in curves], axis=0)
