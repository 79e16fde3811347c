"""The discrete Laplace mechanism: an exact finite PLD.

Discrete Laplace DLap(a), pmf tanh(a/2) e^{-a|x|} on the integers, shift s (a positive integer;
dp_accounting's ``DiscreteLaplaceDpEvent``; Inusah & Kozubowski 2006).  With P = DLap(a) + s and
Q = DLap(a) the loss a(|x| - |x - s|) is -a s for x <= 0, a s for x >= s and a(2x - s) between, so
merging each end (one loss each, a lossless post-processing) leaves s + 1 outcomes with
    P(x <= 0) = Q(x >= s) = e^{-a s} / (1 + e^{-a}),  P(x >= s) = Q(x <= 0) = 1 / (1 + e^{-a}),
    P(x) = tanh(a/2) e^{-a (s - x)},  Q(x) = tanh(a/2) e^{-a x}  (0 < x < s):
an exact finite pair (its masses sum to 1 exactly), symmetric (x -> s - x swaps P and Q), so one
direction serves add and remove.
"""

from __future__ import annotations

import math

import numpy as np

from .distribution import PrivacyLossDistribution
from .mechanisms import DEFAULT_INTERVAL, _positive, from_distributions


def discrete_laplace_pair(parameter: float, sensitivity: int) -> tuple[np.ndarray, np.ndarray]:
    """The exact merged pair above (P, Q), for a > 0 and integer s >= 1."""
    # a valid float skips the array validation (its cost would be a third of a lone pair's accounting)
    a = parameter if type(parameter) is float and 0.0 < parameter < math.inf else _positive("parameter", parameter)
    s = sensitivity
    if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 1:
        raise ValueError(f"sensitivity must be a positive integer, got {sensitivity!r}")
    norm = 1.0 / (1.0 + math.exp(-a))
    t = math.tanh(a / 2.0)
    s = int(s)
    # plain floats: a pair has s + 1 outcomes (a handful), where numpy's per-call cost would dominate
    p = [math.exp(-a * s) * norm] + [t * math.exp(-a * (s - x)) for x in range(1, s)] + [norm]
    return np.array(p, dtype=np.float64), np.array(p[::-1], dtype=np.float64)


def discrete_laplace(parameter: float, sensitivity: int = 1, *,
                     value_discretization_interval: float = DEFAULT_INTERVAL) -> PrivacyLossDistribution:
    """The PLD of the discrete Laplace mechanism (exact finite pair, see the module docstring)."""
    p, q = discrete_laplace_pair(parameter, sensitivity)
    return from_distributions(p, q, value_discretization_interval=value_discretization_interval, symmetric=True)
