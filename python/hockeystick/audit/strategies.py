"""Where a threshold test's bound is read: the threshold strategies (jax_privacy's three, and one more).

A bound computed at a threshold chosen by looking at the scores must pay for the choice:

* ``Bonferroni()`` (jax_privacy's): every vertex of the ROC hull, each at significance / (number of
  vertices).  The vertices are chosen from the scores, so the divisor counts a family the data
  picked.
* ``Simultaneous()``: every vertex at an in-canary's score, each at significance / (number of
  in-canaries).  The family is fixed before the scores are seen: the k-th largest in-score x_(k) has
  P(score >= x_(k)) distributed as the k-th smallest of n uniforms, Beta(k, n - k + 1),
  (stochastically larger for discrete scores), so the Clopper-Pearson lower limit for k of n bounds
  the TPR at it, and given the in-scores the out-canaries above it are Binomial(n_out, FPR): the
  union bound over k = 1..n_in covers every threshold at once.  Clopper-Pearson bounds only.
* ``Explicit(threshold)``: one threshold fixed in advance, at the full significance.
* ``Split(threshold_estimation_frac, seed)``: the threshold chosen on a random part of each side
  (that share of it), the bound computed on the rest at the full significance (the parts drawn as
  jax_privacy draws them, so that the same seed gives the same parts).
* ``MultiSplit(num_samples, threshold_estimation_frac, seed)``: the median of ``num_samples``
  splits' bounds, each at significance / 2 (Meinshausen, Meier, Buehlmann 2009, Thm 3.1: twice the
  median of p-values is a p-value), the splits' seeds drawn as jax_privacy draws them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from ..base import validation as _validation
from ._checks import seed_value

__all__ = [
    "BONFERRONI",
    "Bonferroni",
    "Explicit",
    "MultiSplit",
    "Simultaneous",
    "Split",
    "Strategy",
    "check_strategy",
    "split_seeds",
]


@dataclass(frozen=True)
class Bonferroni:
    """Read a threshold test's bound at every ROC hull vertex, each at significance / (number of vertices).

    jax_privacy's default strategy. The vertices are chosen from the scores, so the divisor counts a
    family the data picked; the cost is log(vertices) in the bound's confidence.

    See Also
    --------
    Simultaneous : A family fixed before the scores are seen.

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick import audit
    >>> rng = np.random.default_rng(0)
    >>> held_in, held_out = rng.normal(1.0, 1.0, 500), rng.normal(0.0, 1.0, 500)
    >>> eps = audit.epsilon_clopper_pearson(held_in, held_out, significance=0.05, threshold_strategy=audit.Bonferroni())
    >>> eps > 0
    True
    """


@dataclass(frozen=True)
class Simultaneous:
    """Read a bound at every hull vertex at an in-canary's score, each at significance / n_in.

    The family is fixed before the scores are seen: the k-th largest in-score's TPR is distributed
    as Beta(k, n_in - k + 1) (stochastically larger for discrete scores), so its Clopper-Pearson
    lower limit bounds it, and given the in-scores the out-canaries above it are Binomial(n_out,
    FPR); the union bound over k = 1, ..., n_in covers every threshold at once. Clopper-Pearson
    bounds only (``epsilon_clopper_pearson`` with ``one_sided=True``, ``audit_curve``), not the
    one-run audits. ``report`` and ``audit_curve`` use it.

    See Also
    --------
    Bonferroni : jax_privacy's default, over the hull's vertices.
    """


@dataclass(frozen=True)
class Explicit:
    """Read a bound at one threshold fixed before the scores were seen, at the full significance.

    A score >= ``threshold`` decides "in". The threshold is checked by the estimator that takes the
    strategy, not here.

    Parameters
    ----------
    threshold : float
        The threshold, finite (an estimator refuses an infinite or NaN one with a ValueError).
    """

    threshold: float


@dataclass(frozen=True)
class Split:
    """Choose the threshold on a random part of the scores and compute the bound on the rest.

    Each side is permuted by numpy's default generator seeded with ``seed`` (in-canaries first, as
    jax_privacy draws them, so that the same seed gives the same parts); the first
    ``int(size * threshold_estimation_frac)`` scores of each side choose the threshold, the others
    give the bound at the full significance. The fields are checked by the estimator that takes the
    strategy, not here.

    Parameters
    ----------
    threshold_estimation_frac : float, optional
        The share of each side used to choose the threshold, in (0, 1) (default 0.5); both parts
        must keep an in- and an out-canary.
    seed : int or None, optional
        The seed of numpy's default generator drawing the parts, an integer >= 0 (default None:
        fresh entropy, a different split each call).
    """

    threshold_estimation_frac: float = 0.5
    seed: int | None = None


@dataclass(frozen=True)
class MultiSplit:
    """Take the median of many splits' bounds, each computed at half the significance.

    Twice the median of p-values is a p-value (Meinshausen, Meier & Buehlmann 2009, Thm 3.1), so the
    median of ``num_samples`` ``Split`` bounds, each at significance / 2, holds at the full
    significance. numpy's default generator seeded with ``seed`` draws the splits' seeds (integers
    below 2^63 - 1, as jax_privacy draws them). The fields are checked by the estimator that takes
    the strategy, not here.

    Parameters
    ----------
    num_samples : int, optional
        The number of splits, an integer >= 1 (default 100).
    threshold_estimation_frac : float, optional
        As ``Split``'s, in (0, 1) (default 0.5).
    seed : int or None, optional
        The seed of the generator drawing each split's seed, an integer >= 0 (default None: fresh
        entropy).
    """

    num_samples: int = 100
    threshold_estimation_frac: float = 0.5
    seed: int | None = None


Strategy = Bonferroni | Simultaneous | Explicit | Split | MultiSplit
BONFERRONI = Bonferroni()  # the default strategy


def split_seeds(strategy: MultiSplit) -> np.ndarray:
    """The seeds of a ``MultiSplit``'s splits: numpy's default generator seeded with
    ``strategy.seed`` draws ``num_samples`` integers below 2^63 - 1 (as jax_privacy draws them).

    Parameters
    ----------
    strategy : MultiSplit
        The strategy.

    Returns
    -------
    numpy.ndarray
        The seeds (int64).
    """
    rng = np.random.default_rng(strategy.seed)
    return rng.integers(np.iinfo(np.int64).max, size=int(strategy.num_samples))


def check_strategy(strategy: Any, allowed: tuple[type, ...]) -> Strategy:
    """``strategy``, checked: one of ``allowed``, with a finite threshold or a fraction in (0, 1).

    Parameters
    ----------
    strategy : object
        The strategy given.
    allowed : tuple of type
        The strategy classes the estimator takes.

    Returns
    -------
    Strategy
        It.

    Raises
    ------
    ValueError
        Another kind of strategy, or a bad threshold, fraction, number of splits or seed.
    """
    if not isinstance(strategy, allowed):
        names = ", ".join(f"{c.__name__}()" for c in allowed)
        raise ValueError(
            f"threshold_strategy must be one of {names} (hockeystick.audit), got {strategy!r}"
        )
    if isinstance(strategy, Explicit):
        value = _validation.single(strategy.threshold, "threshold")
        if not math.isfinite(value):
            raise ValueError(f"threshold must be finite, got {strategy.threshold!r}")
    if isinstance(strategy, (Split, MultiSplit)):
        name = "threshold_estimation_frac"
        _validation.in_interval(
            _validation.single(strategy.threshold_estimation_frac, name),
            name,
            0.0,
            1.0,
            open_low=True,
            open_high=True,
        )
        if isinstance(strategy, MultiSplit):
            _validation.count(strategy.num_samples, "num_samples", minimum=1)
        seed_value(strategy.seed)
    return cast(Strategy, strategy)
