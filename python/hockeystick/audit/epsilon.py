"""Epsilon from threshold tests on the canary scores: raw counts, Clopper-Pearson limits, a GDP fit.

(epsilon, delta)-DP bounds every test: TPR <= e^eps FPR + delta, and, for the reversed test ("in" when the
score is below the threshold), TNR <= e^eps FNR + delta.  So

* ``epsilon_raw_counts``: max over hull vertices with at least ``min_count`` false positives of
  log((TPR - delta) / FPR), and the hull's TPR at FPR min_count / n_out (jax_privacy's
  ``epsilon_raw_counts``).  An estimate, not a bound: it exceeds the true epsilon about half the time
  where the best test is resolved.
* ``epsilon_clopper_pearson``: log((TPR_low - delta) / FPR_up) with Clopper-Pearson limits at
  significance / 2 each (Jagielski, Ullman, Oprea 2020; jax_privacy's ``epsilon_clopper_pearson``), at the
  thresholds the strategy (``strategies.py``) picks: a lower bound on epsilon holding with probability at
  least 1 - significance for canaries scored independently.
* ``epsilon_gdp``: mu_low = max over hull vertices of Q^-1(FPR_up) - Phi^-1(FNR_up), the limits at
  significance / (2 x vertices) (Nasr et al. 2023; jax_privacy's ``epsilon_from_gdp``), then the epsilon of
  mu_low-GDP at delta.  A lower bound for a mechanism that is mu-GDP for some mu (a Gaussian mechanism,
  DP-SGD in its central-limit regime).  jax_privacy takes max |mu|: a negative mu there (FPR_up + FNR_up > 1)
  comes from upper limits of rates whose reversed test needs lower limits, and bounds nothing; here only
  positive mu counts.

Every logarithm difference is lowered by 4 u times its magnitude (u = 2^-53) past its round-off.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..base import validation as _validation
from ..numerics.certified_theta import theta_epsilon_lower
from ._checks import delta_value, significance_level
from .roc import hull_tpr
from .scores import Scores, as_scores
from .strategies import (
    BONFERRONI,
    Bonferroni,
    Explicit,
    MultiSplit,
    Simultaneous,
    Split,
    Strategy,
    check_strategy,
    split_seeds,
)
from .tails import clopper_pearson_lower, clopper_pearson_upper

__all__ = ["epsilon_clopper_pearson", "epsilon_gdp", "epsilon_raw_counts", "log_ratio_lower", "split_parts"]

_U = 2.0**-53


def log_ratio_lower(high: np.ndarray, delta: float, low: np.ndarray) -> np.ndarray:
    """log(high - delta) - log(low), lowered past its round-off (-inf where high <= delta).

    Parameters
    ----------
    high : numpy.ndarray
        Lower bounds on a rate (TPR).
    delta : float
        Subtracted from ``high``.
    low : numpy.ndarray
        Upper bounds on the other rate (FPR), > 0.

    Returns
    -------
    numpy.ndarray
        The lowered difference of logarithms.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.log(np.where(high > delta, high - delta, 0.0))
        b = np.log(low)
        value = a - b
    # the subtraction high - delta and each log err by u relative; the difference by u of its magnitude
    return np.where(np.isfinite(value), value - 4 * _U * (np.abs(a) + np.abs(b)) - 8 * _U, -np.inf)


def epsilon_raw_counts(
    scores: Any, out_scores: Any = None, *, min_count: Any = 50, delta: Any = 0.0, one_sided: Any = True
) -> float:
    """The estimate log((TPR - delta) / FPR) at the best threshold with at least ``min_count`` false positives.

    Parameters
    ----------
    scores : Scores or array_like
        The canary scores (``Scores``), or the held-in scores with ``out_scores``.
    out_scores : array_like, optional
        The held-out scores when ``scores`` is an array.
    min_count : int
        The least number of false positives (false negatives, for the reversed test) a threshold needs,
        >= 1: fewer makes the estimate noisy, more biases it towards 0.
    delta : float
        In [0, 1).
    one_sided : bool
        False: also the reversed test (TNR against FNR).

    Returns
    -------
    float
        The estimate, >= 0 (not a bound: see the module docstring).

    Raises
    ------
    ValueError
        A bad argument (named).
    """
    data = as_scores(scores, out_scores)
    least = _validation.count(min_count, "min_count", minimum=1)
    d = delta_value(delta, zero=True)
    both = not _validation.flag(one_sided, "one_sided")
    hull = data.hull
    eps = _raw(hull.tp, hull.fp, least, d)
    if both:
        eps = max(eps, _raw((data.n_out - hull.fp)[::-1], (data.n_in - hull.tp)[::-1], least, d))
    return max(eps, 0.0)


def _raw(tp: np.ndarray, fp: np.ndarray, least: int, delta: float) -> float:
    """jax_privacy's raw-count estimate on one orientation of the hull (counts ascending)."""
    n_pos, n_neg = int(tp[-1]), int(fp[-1])
    if least >= n_neg:
        return 0.0
    floor = least / n_neg
    tpr_floor = float(hull_tpr(tp, fp, np.array(floor)))
    if delta == 0.0:
        return math.log(tpr_floor / floor) if tpr_floor > 0 else 0.0
    first = max(0.0, math.log(tpr_floor - delta) - math.log(floor)) if tpr_floor > delta else 0.0
    tpr, fpr = tp / n_pos, fp / n_neg
    valid = (fp >= least) & (tpr > delta)
    with np.errstate(divide="ignore"):
        values = np.log(tpr[valid] - delta) - np.log(fpr[valid])
    return float(np.max(values, initial=first))


def epsilon_clopper_pearson(
    scores: Any,
    out_scores: Any = None,
    *,
    significance: Any,
    delta: Any = 0.0,
    one_sided: Any = True,
    threshold_strategy: Any = BONFERRONI,
) -> float:
    """A lower bound on epsilon at confidence 1 - ``significance`` from Clopper-Pearson limits on the rates.

    Parameters
    ----------
    scores : Scores or array_like
        The canary scores (``Scores``), or the held-in scores with ``out_scores``.
    out_scores : array_like, optional
        The held-out scores when ``scores`` is an array.
    significance : float
        The probability that the bound fails, in (0, 1).
    delta : float
        In [0, 1).
    one_sided : bool
        False: also the reversed test (not with ``Simultaneous``).
    threshold_strategy : Bonferroni, Simultaneous, Explicit, Split or MultiSplit
        Where the bound is read (``hockeystick.audit.strategies``).

    Returns
    -------
    float
        The bound, >= 0.

    Raises
    ------
    ValueError
        A bad argument (named), or ``Simultaneous`` with ``one_sided=False``.
    """
    data = as_scores(scores, out_scores)
    s = significance_level(significance)
    d = delta_value(delta, zero=True)
    single = _validation.flag(one_sided, "one_sided")
    strategy = check_strategy(threshold_strategy, (Bonferroni, Simultaneous, Explicit, Split, MultiSplit))
    if isinstance(strategy, Simultaneous) and not single:
        raise ValueError("one_sided must be True with Simultaneous(): its family is the in-canaries' scores")
    return clopper_pearson_search(data, s, d, single, strategy)[0]


def clopper_pearson_search(
    data: Scores, significance: float, delta: float, one_sided: bool, strategy: Strategy
) -> tuple[float, float]:
    """(epsilon lower bound, its threshold) by ``strategy`` (checked arguments).

    Parameters
    ----------
    data : Scores
        The canary scores.
    significance, delta : float
        Checked values.
    one_sided : bool
        Only the "in" test.
    strategy : Strategy
        Where the bound is read.

    Returns
    -------
    tuple of float
        The bound and the threshold attaining it (+inf where none is positive; NaN for a ``MultiSplit``,
        whose median has no one threshold).
    """
    if isinstance(strategy, Explicit):
        return _cp_at(data, significance, delta, one_sided, np.array([float(strategy.threshold)]))
    if isinstance(strategy, Split):
        first, second = split_parts(data, strategy)
        _, threshold = _cp_at(first, significance, delta, one_sided, None)
        return _cp_at(second, significance, delta, one_sided, np.array([threshold]))
    if isinstance(strategy, MultiSplit):
        values = []
        for seed in split_seeds(strategy):
            first, second = split_parts(data, strategy, seed)
            _, threshold = _cp_at(first, significance / 2, delta, one_sided, None)
            values.append(_cp_at(second, significance / 2, delta, one_sided, np.array([threshold]))[0])
        return float(np.median(values)), math.nan
    hull = data.hull
    if isinstance(strategy, Simultaneous):
        at_in = np.isin(hull.thresholds, data.held_in)
        return _cp_at(data, significance / data.n_in, delta, True, hull.thresholds[at_in])
    return _cp_at(data, significance / hull.thresholds.size, delta, one_sided, None)


def _cp_at(
    data: Scores, significance: float, delta: float, one_sided: bool, thresholds: np.ndarray | None
) -> tuple[float, float]:
    """The best Clopper-Pearson epsilon over ``thresholds`` (None: the hull's vertices), each rate's
    limit at significance / 2, and the threshold attaining it."""
    if thresholds is None:
        hull = data.hull
        thresholds, tp, fp = hull.thresholds, hull.tp, hull.fp
    else:
        tp, fp = data.counts(thresholds)
    if thresholds.size == 0:
        return 0.0, math.inf
    half = significance / 2
    n_in, n_out = np.int64(data.n_in), np.int64(data.n_out)
    values = log_ratio_lower(clopper_pearson_lower(tp, n_in, half), delta, clopper_pearson_upper(fp, n_out, half))
    if not one_sided:
        reverse = log_ratio_lower(
            clopper_pearson_lower(n_out - fp, n_out, half), delta, clopper_pearson_upper(n_in - tp, n_in, half)
        )
        values = np.maximum(values, reverse)
    best = int(np.argmax(values))
    if not values[best] > 0.0:
        return 0.0, math.inf
    return float(values[best]), float(thresholds[best])


def split_parts(data: Scores, strategy: Split | MultiSplit, seed: Any = None) -> tuple[Scores, Scores]:
    """The two parts of a ``Split``: each side permuted by numpy's default generator seeded with
    ``seed`` (default ``strategy.seed``; in-canaries first), its first ``int(size x threshold_estimation_frac)``
    scores in the first part.

    Parameters
    ----------
    data : Scores
        The canary scores.
    strategy : Split or MultiSplit
        The fraction and seed.
    seed : int, optional
        The generator's seed instead of ``strategy.seed`` (one split of a ``MultiSplit``).

    Returns
    -------
    tuple of Scores
        The part choosing the threshold and the part bounding at it.

    Raises
    ------
    ValueError
        A part without an in- or an out-canary.
    """
    rng = np.random.default_rng(strategy.seed if seed is None else seed)
    parts = []
    for given in data.given:
        order = rng.permutation(given.size)
        cut = int(given.size * float(strategy.threshold_estimation_frac))
        parts.append((given[order[:cut]], given[order[cut:]]))
    (in_a, in_b), (out_a, out_b) = parts
    if min(in_a.size, in_b.size, out_a.size, out_b.size) == 0:
        raise ValueError(
            "threshold_estimation_frac must leave canaries of both kinds in both parts, got "
            f"threshold_estimation_frac = {strategy.threshold_estimation_frac!r} "
            f"with {data.n_in} in- and {data.n_out} out-canaries; use more canaries or a fraction nearer 0.5"
        )
    return data.subset(in_a, out_a), data.subset(in_b, out_b)


def epsilon_gdp(scores: Any, out_scores: Any = None, *, significance: Any, delta: Any) -> float:
    """A lower bound on epsilon at ``delta`` assuming the mechanism is mu-GDP: the epsilon of the least mu
    the scores allow at confidence 1 - ``significance``.

    Parameters
    ----------
    scores : Scores or array_like
        The canary scores (``Scores``), or the held-in scores with ``out_scores``.
    out_scores : array_like, optional
        The held-out scores when ``scores`` is an array.
    significance : float
        In (0, 1).
    delta : float
        Strictly between 0 and 1.

    Returns
    -------
    float
        The bound, >= 0 (certified_theta's lower epsilon of mu_low-GDP).

    Raises
    ------
    ValueError
        A bad argument (named).
    """
    data = as_scores(scores, out_scores)
    s = significance_level(significance)
    d = delta_value(delta, zero=False)
    mu = gdp_mu_lower(data, s, d)
    return float(theta_epsilon_lower(mu, d)) if mu > 0.0 else 0.0


def gdp_mu_lower(data: Scores, significance: float, delta: float) -> float:
    """The least mu >= 0 of a mu-GDP mechanism the scores allow (0 where none is positive).

    Parameters
    ----------
    data : Scores
        The canary scores.
    significance, delta : float
        Checked values.

    Returns
    -------
    float
        mu_low, lowered past its round-off.
    """
    from scipy import special  # lazy: scipy loads at its first use, not with the package

    hull = data.hull
    per = significance / (2 * hull.thresholds.size)
    fpr_up = clopper_pearson_upper(hull.fp, np.int64(data.n_out), per)
    fnr_up = clopper_pearson_upper(data.n_in - hull.tp, np.int64(data.n_in), per)
    usable = np.maximum(fpr_up, fnr_up) < 1.0 - delta
    if not usable.any():
        return 0.0
    a, b = -special.ndtri(fpr_up[usable]), -special.ndtri(fnr_up[usable])
    mu = a + b - 1e-12 * (np.abs(a) + np.abs(b))  # ndtri's relative error is below 1e-15
    return max(float(np.max(mu)), 0.0)
