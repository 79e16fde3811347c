"""The scores against the mechanism's own certified trade-off curve: does the run leak more than accounted?

An accountant certifies that its mechanism is f-DP with f = the lower side of
``risk.tradeoff_curve``: every test's TPR at FPR alpha is at most T(alpha) =
``risk.tpr_at_fpr(accountant, alpha, bound="upper")``. The claim is tested, at significance
``significance``, in one of two ways:

* ``method="clopper_pearson"``: at each threshold the strategy picks, a Clopper-Pearson lower limit
  TPR_low and upper limit FPR_up.  T does not decrease, so where both limits hold, TPR <= T(FPR) <=
  T(FPR_up); a threshold with TPR_low > T(FPR_up) refutes the claim.  With ``Simultaneous()`` (the
  default) all limits hold at once with probability at least 1 - significance (``strategies.py``):
  if the accountant is right, the claim is refuted with probability at most ``significance``.  Any
  accountant, any direction (``direction="remove"``: membership inference against a PLD that keeps
  its directions).
* ``method="one_run_fdp"``: Mahloujifar et al. 2024's one-run test of the claim f-DP, f the
  certified curve (the symmetric one), read below its grid values: f does not increase, so at x
  between grid points a_j < x <= a_j+1, f(x) >= f(a_j+1) >= the certified lower side there.  For the
  one-run setting (canaries included independently with probability 1/2 in one training run).

The report's witness is the threshold with the largest TPR_low - T(FPR_up) (Clopper-Pearson), or the
first refuting threshold (one run).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, cast

import numpy as np

from .. import risk
from ..base import validation as _validation
from ._checks import accountant_value, significance_level
from .epsilon import split_parts
from .one_run import Tradeoff, fdp_refutes
from .scores import Scores, as_scores
from .strategies import Bonferroni, Explicit, Simultaneous, Split, Strategy, check_strategy
from .tails import clopper_pearson_lower, clopper_pearson_upper

__all__ = ["CurveAudit", "audit_curve", "certified_tradeoff"]

# the two curve tests (``audit_curve``'s ``method``)
CurveMethod = Literal["clopper_pearson", "one_run_fdp"]
METHODS: tuple[CurveMethod, ...] = ("clopper_pearson", "one_run_fdp")
# where the one-run test reads the certified curve: 0, 1 and log-spaced towards both ends (the test
# reads f(1 - r) for r down to significance / m, so the grid must resolve x near 1 as finely as
# near 0)
_TAIL = np.geomspace(1e-13, 0.5, 1500)
_GRID = np.unique(np.concatenate([[0.0, 1.0], _TAIL, 1.0 - _TAIL]))


@dataclass(frozen=True)
class CurveAudit:
    """Hold the verdict of the canary scores against an accountant's certified trade-off curve.

    ``audit_curve`` returns it; the fields are not checked here. The property ``excess`` is
    tpr_lower - tpr_certified, positive where the curve is refuted (None for the one-run test).

    Parameters
    ----------
    refuted : bool
        Whether the scores refute the curve at ``significance``.
    significance : float
        The test's level: the probability of refuting a right accountant is at most this.
    method : {"clopper_pearson", "one_run_fdp"}
        The curve test (``METHODS``).
    threshold : float
        The witness threshold: the one with the largest TPR_low - T(FPR_up) (Clopper-Pearson), or
        the first refuting one, else the one of the highest precision (one run); +inf where no
        threshold was tested.
    tpr_lower, fpr_upper, tpr_certified : float or None, optional
        Clopper-Pearson: the witness's TPR lower limit, FPR upper limit and the certified upper TPR
        T(FPR_up) there (None, the default, for the one-run test).
    """

    refuted: bool
    significance: float
    method: CurveMethod
    threshold: float
    tpr_lower: float | None = None
    fpr_upper: float | None = None
    tpr_certified: float | None = None

    @property
    def excess(self) -> float | None:
        """TPR_low - T(FPR_up) at the witness: positive where the curve is refuted (None for the one run)."""
        if self.tpr_lower is None or self.tpr_certified is None:
            return None
        return self.tpr_lower - self.tpr_certified


def audit_curve(
    scores: Any,
    out_scores: Any = None,
    *,
    accountant: Any,
    significance: Any = 0.05,
    direction: Any = "symmetric",
    method: Any = "clopper_pearson",
    threshold_strategy: Any = None,
) -> CurveAudit:
    r"""Test the claim that the mechanism is f-DP with f the accountant's certified trade-off curve.

    An accountant certifies that no test of its mechanism reaches a TPR above T(alpha) =
    ``risk.tpr_at_fpr(accountant, alpha, bound="upper")`` at FPR alpha. With
    ``method="clopper_pearson"``, a Clopper-Pearson lower limit TPR_low and upper limit FPR_up at
    each threshold the strategy picks (each at significance / 2, divided by the strategy's family);
    T does not decrease, so where the limits hold TPR <= T(FPR) <= T(FPR_up), and a threshold with

    .. math::

        \mathrm{TPR}_{\mathrm{low}}(t) > T(\mathrm{FPR}_{\mathrm{up}}(t))

    refutes the accountant. With ``method="one_run_fdp"``, Mahloujifar et al.'s one-run test of the
    claim f-DP, f the certified symmetric curve read below its values on a grid of 3002 points. A
    right accountant is refuted with probability at most ``significance``. The curve is a far
    stronger claim than one (epsilon, delta) point: it can be refuted where no epsilon bound reaches
    the accountant's epsilon.

    Parameters
    ----------
    scores : Scores or array_like
        The canary scores (``Scores``), or the held-in scores with ``out_scores``.
    out_scores : array_like, optional
        The held-out scores when ``scores`` is an array.
    accountant : Accountant
        Any accountant describing the run, with scalar parameters (one mechanism), e.g.
        ``registry.get("dp_sgd").build(...)``.
    significance : float, optional
        The test's level, in (0, 1) (default 0.05).
    direction : {"symmetric", "remove", "add"}, optional
        The curve's direction (``risk.tradeoff_curve``; default "symmetric"); "remove" (membership
        inference) and "add" need a PLD accountant that keeps its directions, and the
        Clopper-Pearson method.
    method : {"clopper_pearson", "one_run_fdp"}, optional
        The test (default "clopper_pearson"); "one_run_fdp" is for the one-run setting (canaries
        included independently with probability 1/2 in one training run).
    threshold_strategy : Simultaneous, Bonferroni, Explicit or Split, optional
        Where the test looks: default ``Simultaneous()`` for the Clopper-Pearson method,
        ``Bonferroni()`` for the one-run test (which does not take ``Simultaneous``).

    Returns
    -------
    CurveAudit
        The verdict and its witness.

    Raises
    ------
    ValueError
        If the scores are refused (``as_scores``), ``significance`` is outside (0, 1), ``direction``
        or ``method`` is not one of its values, ``direction`` is not "symmetric" with the one-run
        method or with an accountant that keeps no directions, the strategy is not one the method
        takes (or carries a bad field), or the accountant has array parameters.
    ParameterTypeError
        If ``accountant`` is not an accountant (no ``.delta(epsilon, bound=...)``), or an argument
        is a string, a boolean or None where a number is expected.

    See Also
    --------
    report : The curve test beside the audit's epsilon and the accountant's bracket.

    References
    ----------
    Dong, Roth & Su 2022 (f-DP and trade-off functions); Clopper & Pearson 1934 (the limits);
    Mahloujifar, Melis & Chaudhuri 2024 (the one-run f-DP test).

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick import audit, registry
    >>> rng = np.random.default_rng(0)
    >>> held_in, held_out = rng.normal(1.0, 1.0, 5000), rng.normal(0.0, 1.0, 5000)
    >>> understated = registry.get("gaussian").build(sigma=1.25)
    >>> verdict = audit.audit_curve(held_in, held_out, accountant=understated)
    >>> verdict.refuted
    True
    >>> [round(v, 5) for v in (verdict.tpr_lower, verdict.fpr_upper, verdict.tpr_certified)]
    [0.35347, 0.11212, 0.33894]
    >>> audit.audit_curve(held_in, held_out, accountant=registry.get("gaussian").build(sigma=1.0)).refuted
    False
    """
    data = as_scores(scores, out_scores)
    s = significance_level(significance)
    verdict, _ = curve_and_certified_tprs(
        data,
        accountant_value(accountant),
        s,
        direction,
        method,
        threshold_strategy,
        _NO_FPRS,
    )
    return verdict


_NO_FPRS = np.zeros(0)


def curve_and_certified_tprs(
    data: Scores,
    accountant: Any,
    significance: float,
    direction: Any,
    method: Any,
    threshold_strategy: Any,
    fprs: np.ndarray,
) -> tuple[CurveAudit, np.ndarray]:
    """``audit_curve``'s verdict on checked scores, accountant and significance, and the accountant's
    certified upper TPR at ``fprs`` (``risk.tpr_at_fpr``, the same direction).

    The Clopper-Pearson test reads the TPRs at its FPR limits and at ``fprs`` from one power
    bracket: the profile's nodes are evaluated once for both (``report``'s two reads of one
    accountant), and the nodes refined for one FPR only add to another's minimum over nodes, so
    each TPR is the one a separate read gives or below it, certified as that is.

    Parameters
    ----------
    data : Scores
        The canary scores.
    accountant : Accountant
        The run's accountant (checked: ``accountant_value``).
    significance : float
        The test's level, in (0, 1) (checked).
    direction, method, threshold_strategy
        As ``audit_curve``'s.
    fprs : numpy.ndarray
        FPRs in [0, 1], one dimension (possibly empty).

    Returns
    -------
    tuple
        (the ``CurveAudit``, the certified upper TPR at each of ``fprs``).

    Raises
    ------
    ValueError
        As ``audit_curve``'s for ``direction``, ``method`` and the strategy.
    """
    side = _validation.choice(direction, "direction", risk.DIRECTIONS)
    how = _validation.choice(method, "method", METHODS)
    if how == "one_run_fdp":
        if side != "symmetric":
            raise ValueError(
                f'direction must be "symmetric" with method="one_run_fdp", got {side!r}: the one-run test reads '
                "a symmetric trade-off function; the Clopper-Pearson method takes the directions"
            )
        given = Bonferroni() if threshold_strategy is None else threshold_strategy
        strategy = check_strategy(given, (Bonferroni, Explicit, Split))
        verdict = _one_run(data, significance, certified_tradeoff(accountant), strategy)
        return verdict, _certified_tprs(accountant, fprs, side)
    given = Simultaneous() if threshold_strategy is None else threshold_strategy
    strategy = check_strategy(given, (Simultaneous, Bonferroni, Explicit, Split))
    return _clopper_pearson(data, significance, accountant, side, strategy, fprs)


def _certified_tprs(accountant: Any, fprs: np.ndarray, direction: str) -> np.ndarray:
    """The accountant's certified upper TPR at ``fprs`` (none read where there is none)."""
    if fprs.size == 0:
        return np.zeros(0)
    return np.asarray(
        risk.tpr_at_fpr(accountant, fprs, bound="upper", direction=cast(risk.Direction, direction)),
        dtype=np.float64,
    )


def certified_tradeoff(accountant: Any) -> Tradeoff:
    """x -> a lower bound on the accountant's trade-off curve f(x) (symmetric), from its certified
    lower side on a grid of 3002 points (log-spaced towards 0 and 1): the value at the first grid
    point at or above x.

    Parameters
    ----------
    accountant : Accountant
        One mechanism.

    Returns
    -------
    callable
        The lower bound, a function of x in [0, 1].
    """
    values = np.asarray(risk.tradeoff_curve(accountant, _GRID, bound="lower"), dtype=np.float64)

    def f(x: float) -> float:
        return float(values[min(int(np.searchsorted(_GRID, x, side="left")), _GRID.size - 1)])

    return f


def _clopper_pearson(
    data: Scores,
    significance: float,
    accountant: Any,
    direction: str,
    strategy: Strategy,
    fprs: np.ndarray,
) -> tuple[CurveAudit, np.ndarray]:
    if isinstance(strategy, Explicit):
        return _cp_test(
            data,
            significance / 2,
            accountant,
            direction,
            np.array([float(strategy.threshold)]),
            fprs,
        )
    if isinstance(strategy, Split):
        first, second = split_parts(data, strategy)
        chosen, _ = _cp_test(
            first, significance / 2, accountant, direction, first.hull.thresholds, _NO_FPRS
        )
        return _cp_test(
            second, significance / 2, accountant, direction, np.array([chosen.threshold]), fprs
        )
    hull = data.hull
    if isinstance(strategy, Simultaneous):
        at_in = hull.thresholds[np.isin(hull.thresholds, data.held_in)]
        return _cp_test(
            data, significance / (2 * data.n_in), accountant, direction, at_in, fprs, significance
        )
    return _cp_test(
        data,
        significance / (2 * hull.thresholds.size),
        accountant,
        direction,
        hull.thresholds,
        fprs,
        significance,
    )


def _cp_test(
    data: Scores,
    per_limit: float,
    accountant: Any,
    direction: str,
    thresholds: np.ndarray,
    fprs: np.ndarray,
    significance: float | None = None,
) -> tuple[CurveAudit, np.ndarray]:
    """The Clopper-Pearson test at ``thresholds``, each limit at ``per_limit``, and the certified
    upper TPR at ``fprs``, read with the limits' (``curve_and_certified_tprs``)."""
    level = 2 * per_limit if significance is None else significance
    if thresholds.size == 0:
        verdict = CurveAudit(False, level, "clopper_pearson", math.inf)
        return verdict, _certified_tprs(accountant, fprs, direction)
    tp, fp = data.counts(thresholds)
    tpr_low = clopper_pearson_lower(tp, np.int64(data.n_in), per_limit)
    fpr_up = clopper_pearson_upper(fp, np.int64(data.n_out), per_limit)
    read = _certified_tprs(accountant, np.concatenate([fpr_up, fprs]), direction)
    certified, at_fprs = read[: fpr_up.size], read[fpr_up.size :]
    k = int(np.argmax(tpr_low - certified))
    verdict = CurveAudit(
        bool(tpr_low[k] > certified[k]),
        level,
        "clopper_pearson",
        float(thresholds[k]),
        float(tpr_low[k]),
        float(fpr_up[k]),
        float(certified[k]),
    )
    return verdict, at_fprs


def _one_run(data: Scores, significance: float, f: Tradeoff, strategy: Strategy) -> CurveAudit:
    if isinstance(strategy, Explicit):
        return _fdp_test(data, significance, f, np.array([float(strategy.threshold)]), significance)
    if isinstance(strategy, Split):
        first, second = split_parts(data, strategy)
        chosen = _fdp_test(first, significance, f, first.hull.thresholds, significance)
        return _fdp_test(second, significance, f, np.array([chosen.threshold]), significance)
    hull = data.hull
    return _fdp_test(data, significance / hull.thresholds.size, f, hull.thresholds, significance)


def _fdp_test(
    data: Scores, per_test: float, f: Tradeoff, thresholds: np.ndarray, significance: float
) -> CurveAudit:
    """The one-run test at each threshold at ``per_test``: the first refuting one, by precision."""
    m = data.n_in + data.n_out
    tp, fp = data.counts(thresholds)
    guesses = tp + fp
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(guesses > 0, tp / np.maximum(guesses, 1), 0.0)
    for k in np.argsort(-precision, kind="stable"):
        if fdp_refutes(m, int(guesses[k]), int(tp[k]), per_test, f):
            return CurveAudit(True, significance, "one_run_fdp", float(thresholds[k]))
    best = int(np.argmax(precision)) if thresholds.size else 0
    return CurveAudit(
        False, significance, "one_run_fdp", float(thresholds[best]) if thresholds.size else math.inf
    )
