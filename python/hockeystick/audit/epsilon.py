"""Epsilon from threshold tests on the canary scores: raw counts, Clopper-Pearson limits, a GDP fit.

(epsilon, delta)-DP bounds every test: TPR <= e^eps FPR + delta, and, for the reversed test ("in"
when the score is below the threshold), TNR <= e^eps FNR + delta.  So

* ``epsilon_raw_counts``: max over hull vertices with at least ``min_count`` false positives of
  log((TPR - delta) / FPR), and the hull's TPR at FPR min_count / n_out (jax_privacy's
  ``epsilon_raw_counts``).  An estimate, not a bound: it exceeds the true epsilon about half the
  time where the best test is resolved.
* ``epsilon_clopper_pearson``: log((TPR_low - delta) / FPR_up) with Clopper-Pearson limits at
  significance / 2 each (Jagielski, Ullman, Oprea 2020; jax_privacy's ``epsilon_clopper_pearson``),
  at the thresholds the strategy (``strategies.py``) picks: a lower bound on epsilon holding with
  probability at least 1 - significance for canaries scored independently.
* ``epsilon_gdp``: mu_low = max over hull vertices of Q^-1(FPR_up) - Phi^-1(FNR_up), the limits at
  significance / (2 x vertices) (Nasr et al. 2023; jax_privacy's ``epsilon_from_gdp``), then the
  epsilon of mu_low-GDP at delta.  A lower bound for a mechanism that is mu-GDP for some mu (a
  Gaussian mechanism, DP-SGD in its central-limit regime).  jax_privacy takes max |mu|: a negative
  mu there (FPR_up + FNR_up > 1) comes from upper limits of rates whose reversed test needs lower
  limits, and bounds nothing; here only positive mu counts.

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

__all__ = [
    "epsilon_clopper_pearson",
    "epsilon_gdp",
    "epsilon_raw_counts",
    "log_ratio_lower",
    "split_parts",
]

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
    # the subtraction high - delta and each log err by u relative; the difference by u of its
    # magnitude
    return np.where(np.isfinite(value), value - 4 * _U * (np.abs(a) + np.abs(b)) - 8 * _U, -np.inf)


def epsilon_raw_counts(
    scores: Any,
    out_scores: Any = None,
    *,
    min_count: Any = 50,
    delta: Any = 0.0,
    one_sided: Any = True,
) -> float:
    r"""Estimate epsilon as log((TPR - delta) / FPR) at the best threshold with ``min_count`` false positives.

    Over the ROC hull's vertices with at least ``min_count`` false positives, and at the hull's TPR
    at FPR = min_count / n_out,

    .. math::

        \hat\varepsilon = \max\Bigl(0,\ \max_t \log\frac{\mathrm{TPR}(t) - \delta}{\mathrm{FPR}(t)}\Bigr)

    (jax_privacy's ``epsilon_raw_counts``). An estimate, not a bound: it exceeds the true epsilon
    about half of the time where the best test is resolved; use it to read a trend, never to refute
    an accountant.

    Parameters
    ----------
    scores : Scores or array_like
        The canary scores (``Scores``), or the held-in scores with ``out_scores``.
    out_scores : array_like, optional
        The held-out scores when ``scores`` is an array.
    min_count : int, optional
        The least number of false positives (false negatives, for the reversed test) a threshold
        needs, an integer >= 1 (default 50): fewer makes the estimate noisy, more biases it
        towards 0. At ``min_count`` >= n_out the estimate is 0.
    delta : float, optional
        The delta of the claim, in [0, 1) (default 0).
    one_sided : bool, optional
        True (default): the "in" test only; False: also the reversed test, log((TNR - delta) / FNR).

    Returns
    -------
    float
        The estimate, >= 0.

    Raises
    ------
    ValueError
        If the scores are refused (``as_scores``), ``min_count`` is not an integer >= 1, or
        ``delta`` is outside [0, 1) or NaN.
    ParameterTypeError
        If an argument is a string, None, or (but for ``one_sided``) a boolean; or ``one_sided`` is
        not a boolean.

    See Also
    --------
    epsilon_clopper_pearson : A lower bound at a stated confidence.

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick import audit
    >>> rng = np.random.default_rng(0)
    >>> held_in, held_out = rng.normal(1.0, 1.0, 5000), rng.normal(0.0, 1.0, 5000)
    >>> round(audit.epsilon_raw_counts(held_in, held_out, min_count=50), 4)
    2.3017
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
    r"""Bound epsilon from below at confidence 1 - ``significance`` with Clopper-Pearson limits on the rates.

    (epsilon, delta)-DP bounds every threshold test: TPR <= e^epsilon FPR + delta. With a
    Clopper-Pearson lower limit on the TPR and an upper limit on the FPR, each at significance / 2
    (divided further by the strategy's family), at the thresholds the strategy picks,

    .. math::

        \varepsilon_{\mathrm{low}} = \max\Bigl(0,\ \max_t \log\frac{\mathrm{TPR}_{\mathrm{low}}(t) - \delta}
        {\mathrm{FPR}_{\mathrm{up}}(t)}\Bigr),

    lowered past its round-off (jax_privacy's ``epsilon_clopper_pearson``; its limits here are
    rounded outward so that the confidence holds). A lower bound on epsilon holding with probability
    at least 1 - ``significance`` for canaries scored independently.

    Parameters
    ----------
    scores : Scores or array_like
        The canary scores (``Scores``), or the held-in scores with ``out_scores``.
    out_scores : array_like, optional
        The held-out scores when ``scores`` is an array.
    significance : float
        The probability that the bound fails, in (0, 1).
    delta : float, optional
        The delta of the claim, in [0, 1) (default 0).
    one_sided : bool, optional
        True (default): the "in" test only; False: also the reversed test, log((TNR_low - delta) /
        FNR_up) (not with ``Simultaneous``).
    threshold_strategy : Bonferroni, Simultaneous, Explicit, Split or MultiSplit, optional
        Where the bound is read (default ``Bonferroni()``, jax_privacy's); a ``MultiSplit`` returns
        the median of its splits' bounds.

    Returns
    -------
    float
        The bound, >= 0.

    Raises
    ------
    ValueError
        If the scores are refused (``as_scores``), ``significance`` is outside (0, 1), ``delta`` is
        outside [0, 1), ``threshold_strategy`` is not one of the five or carries an infinite
        threshold, a fraction outside (0, 1), a number of splits below 1 or a negative seed, a split
        leaves a part without an in- or an out-canary, or ``Simultaneous`` is given with
        ``one_sided=False``.
    ParameterTypeError
        If an argument is a string, None or a boolean where a number is expected, or ``one_sided``
        is not a boolean.

    See Also
    --------
    epsilon_gdp : A tighter lower bound for a mechanism that is mu-GDP.
    epsilon_one_run : The bound of one training run's canaries.

    References
    ----------
    Jagielski, Ullman & Oprea 2020 (the Clopper-Pearson audit); Clopper & Pearson 1934 (the limits).

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick import audit
    >>> rng = np.random.default_rng(0)
    >>> held_in, held_out = rng.normal(1.0, 1.0, 5000), rng.normal(0.0, 1.0, 5000)
    >>> round(audit.epsilon_clopper_pearson(held_in, held_out, significance=0.05, delta=1e-5), 4)
    1.8682
    >>> simultaneous = audit.Simultaneous()
    >>> round(audit.epsilon_clopper_pearson(held_in, held_out, significance=0.05, delta=1e-5,
    ...                                     threshold_strategy=simultaneous), 4)
    1.6339
    """
    data = as_scores(scores, out_scores)
    s = significance_level(significance)
    d = delta_value(delta, zero=True)
    single = _validation.flag(one_sided, "one_sided")
    strategy = check_strategy(
        threshold_strategy, (Bonferroni, Simultaneous, Explicit, Split, MultiSplit)
    )
    if isinstance(strategy, Simultaneous) and not single:
        raise ValueError(
            "one_sided must be True with Simultaneous(): its family is the in-canaries' scores"
        )
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
        The bound and the threshold chosen (the best one even where the bound is 0; +inf where no
        TPR lower limit exceeds delta; NaN for a ``MultiSplit``, whose median has no one threshold).
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
            values.append(
                _cp_at(second, significance / 2, delta, one_sided, np.array([threshold]))[0]
            )
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
    forward = log_ratio_lower(
        clopper_pearson_lower(tp, n_in, half), delta, clopper_pearson_upper(fp, n_out, half)
    )
    eps, best = _best_index(forward)
    if not one_sided:
        reverse = log_ratio_lower(
            clopper_pearson_lower(n_out - fp, n_out, half),
            delta,
            clopper_pearson_upper(n_in - tp, n_in, half),
        )
        eps_reverse, best_reverse = _best_index(reverse)
        if eps_reverse > eps:
            eps, best = eps_reverse, best_reverse
    return eps, math.inf if best is None else float(thresholds[best])


def _best_index(values: np.ndarray) -> tuple[float, int | None]:
    """The largest value (0 where it is not positive) and its index, the last one where several tie
    (the lowest threshold, as jax_privacy's ``eps_and_idx`` picks in its ascending order); None
    where no value is finite (no TPR lower limit above delta).

    A threshold is chosen this way even where its value is not positive: a ``Split`` audits its
    second part at the threshold its first part's search returns, as jax_privacy does."""
    if not np.isfinite(values).any():
        return 0.0, None
    best = int(values.size - 1 - np.argmax(values[::-1]))
    return max(0.0, float(values[best])), best


def split_parts(
    data: Scores, strategy: Split | MultiSplit, seed: Any = None
) -> tuple[Scores, Scores]:
    """The two parts of a ``Split``: each side permuted by numpy's default generator seeded with
    ``seed`` (default ``strategy.seed``; in-canaries first), its first ``int(size x
    threshold_estimation_frac)`` scores in the first part.

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
    for given in data.order_given:
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
    r"""Bound epsilon at ``delta`` from below for a mu-GDP mechanism: the epsilon of the least mu the scores allow.

    A mu-GDP mechanism's tests satisfy :math:`\Phi^{-1}(1 - \mathrm{FPR}) - \Phi^{-1}(\mathrm{FNR})
    \le \mu`. With Clopper-Pearson upper limits on the FPR and the FNR at every ROC hull vertex,
    each at significance / (2 x vertices),

    .. math::

        \mu_{\mathrm{low}} = \max\Bigl(0,\ \max_t\ \Phi^{-1}(1 - \mathrm{FPR}_{\mathrm{up}}(t))
        - \Phi^{-1}(\mathrm{FNR}_{\mathrm{up}}(t))\Bigr)

    over the vertices where both limits are below 1 - delta, lowered past its round-off; the result
    is the epsilon of mu_low-GDP at ``delta``, the root of :math:`\delta = \Phi(\mu/2 -
    \varepsilon/\mu) - e^{\varepsilon}\Phi(-\mu/2 - \varepsilon/\mu)` rounded down (jax_privacy's
    ``epsilon_from_gdp``, which takes the largest absolute mu: a negative mu bounds nothing, so here
    only a positive mu counts). A lower bound holding with probability at least 1 - ``significance``
    if the mechanism is mu-GDP for some mu (a Gaussian mechanism, DP-SGD in its central-limit
    regime); not otherwise.

    Parameters
    ----------
    scores : Scores or array_like
        The canary scores (``Scores``), or the held-in scores with ``out_scores``.
    out_scores : array_like, optional
        The held-out scores when ``scores`` is an array.
    significance : float
        The probability that the bound fails, in (0, 1).
    delta : float
        The delta at which epsilon is read, strictly between 0 and 1.

    Returns
    -------
    float
        The bound, >= 0 (0 where no positive mu is found).

    Raises
    ------
    ValueError
        If the scores are refused (``as_scores``), ``significance`` is outside (0, 1), or ``delta``
        is not strictly between 0 and 1.
    ParameterTypeError
        If an argument is a string, a boolean or None.

    References
    ----------
    Nasr et al. 2023 (the GDP fit of an audit); Dong, Roth & Su 2022 (mu-GDP and its epsilon at
    delta).

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick import audit
    >>> rng = np.random.default_rng(0)
    >>> held_in, held_out = rng.normal(1.0, 1.0, 5000), rng.normal(0.0, 1.0, 5000)
    >>> round(audit.epsilon_gdp(held_in, held_out, significance=0.05, delta=1e-5), 4)
    3.8189
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
