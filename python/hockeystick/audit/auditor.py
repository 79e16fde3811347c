"""``Auditor``: jax_privacy's CanaryScoreAuditor, method for method, over hockeystick.audit's functions.

The names, positional order and defaults are jax_privacy 2.0's, so that a call written for it runs
here and gives the same number (docs/audit.md lists each method beside its function); the accountant
methods (``audit_curve``, ``report``) are this package's own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import validation as _validation
from .curve import CurveAudit, audit_curve
from .epsilon import epsilon_clopper_pearson, epsilon_gdp, epsilon_raw_counts
from .one_run import epsilon_one_run, epsilon_one_run_fdp
from .resampling import BootstrapParams, bootstrap
from .roc import auroc, max_accuracy, tpr_at_fpr
from .scores import Scores, checked_scores
from .strategies import BONFERRONI
from .verdict import AuditReport, report

__all__ = ["Auditor"]


class Auditor:
    """Compute privacy estimates and bounds from the attack scores of held-in and held-out canaries.

    jax_privacy 2.0's ``CanaryScoreAuditor``, method for method: the names, positional order and
    defaults are its own, so that a call written for it runs here and gives the same number
    (docs/audit.md lists each method beside its function of ``hockeystick.audit``). ``audit_curve``
    and ``report`` are this package's own: the scores against an accountant. Each method validates
    its arguments as its function does and raises what it raises.

    Parameters
    ----------
    in_canary_scores, out_canary_scores : array_like
        Attack scores of the held-in and held-out canaries, one-dimensional, each non-empty; higher
        means "in" (negate a loss first).

    Attributes
    ----------
    scores : Scores
        The checked, sorted scores.

    Raises
    ------
    ValueError
        If either side is empty or has more than one dimension, or holds a NaN or infinite score.
    ParameterTypeError
        If a score is not a real number (strings, booleans, None).

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick import audit
    >>> rng = np.random.default_rng(0)
    >>> auditor = audit.Auditor(rng.normal(1.0, 1.0, 5000), rng.normal(0.0, 1.0, 5000))
    >>> round(auditor.tpr_at_given_fpr(0.01), 6), round(auditor.attack_auroc(), 6)
    (0.099915, 0.756442)
    >>> round(auditor.epsilon_clopper_pearson(0.05, 1e-5), 4)
    1.8682
    >>> round(auditor.epsilon_from_gdp(0.05, 1e-5), 4)
    3.8189
    """

    def __init__(self, in_canary_scores: Any, out_canary_scores: Any) -> None:
        self.scores: Scores = checked_scores(
            in_canary_scores, out_canary_scores, ("in_canary_scores", "out_canary_scores")
        )

    def tpr_at_given_fpr(self, fpr: Any, *, bootstrap_params: BootstrapParams | None = None) -> Any:
        """The largest TPR at FPR ``fpr`` (``roc.tpr_at_fpr``), or its bootstrap quantiles.

        Parameters
        ----------
        fpr : float or array_like
            False-positive rates in [0, 1] (one, with ``bootstrap_params``).
        bootstrap_params : BootstrapParams, optional
            Resample and return quantiles of the TPR instead.

        Returns
        -------
        float or numpy.ndarray
            The TPR (``fpr``'s shape), or the quantiles.

        Raises
        ------
        ValueError
            If an ``fpr`` is outside [0, 1] or NaN.
        ParameterTypeError
            If ``fpr`` is a string, a boolean or None, or an array beside ``bootstrap_params``, or
            ``bootstrap_params`` is not a ``BootstrapParams``.
        """
        if bootstrap_params is not None:
            if np.ndim(fpr) != 0:
                raise _validation.ParameterTypeError(
                    f"fpr must be one number with bootstrap_params (the bootstrap resamples one statistic), got "
                    f"an array of shape {np.shape(fpr)}; call once per FPR"
                )
            rate = _validation.single(fpr, "fpr")
            return bootstrap(self.scores, lambda s: float(tpr_at_fpr(s, rate)), bootstrap_params)
        return tpr_at_fpr(self.scores, fpr)

    def attack_auroc(self, *, bootstrap_params: BootstrapParams | None = None) -> Any:
        """The area under the ROC hull (``roc.auroc``), or its bootstrap quantiles.

        Parameters
        ----------
        bootstrap_params : BootstrapParams, optional
            Resample and return quantiles of the AUROC instead.

        Returns
        -------
        float or numpy.ndarray
            The AUROC, or the quantiles.

        Raises
        ------
        ParameterTypeError
            If ``bootstrap_params`` is not a ``BootstrapParams``.
        """
        if bootstrap_params is not None:
            return bootstrap(self.scores, auroc, bootstrap_params)
        return auroc(self.scores)

    def max_accuracy(self, *, prevalence: Any = None, significance: Any = None) -> float:
        """The largest accuracy of a threshold test (``roc.max_accuracy``).

        Parameters
        ----------
        prevalence : float, optional
            The held-in share, in [0, 1] (default: the canaries').
        significance : float, optional
            With it, per-vertex Clopper-Pearson upper limits at significance / 2.

        Returns
        -------
        float
            The accuracy.

        Raises
        ------
        ValueError
            If ``prevalence`` is outside [0, 1] or ``significance`` outside (0, 1).
        """
        return max_accuracy(self.scores, prevalence=prevalence, significance=significance)

    def epsilon_raw_counts(
        self,
        min_count: Any = 50,
        delta: Any = 0.0,
        one_sided: Any = True,
        *,
        bootstrap_params: BootstrapParams | None = None,
    ) -> Any:
        """The raw-count estimate (``epsilon.epsilon_raw_counts``), or its bootstrap quantiles.

        Parameters
        ----------
        min_count : int
            The least false positives a threshold needs, >= 1.
        delta : float
            In [0, 1).
        one_sided : bool
            False: also the reversed test.
        bootstrap_params : BootstrapParams, optional
            Resample and return quantiles of the estimate instead.

        Returns
        -------
        float or numpy.ndarray
            The estimate (not a bound), or the quantiles.

        Raises
        ------
        ValueError
            If ``min_count`` is not an integer >= 1 or ``delta`` is outside [0, 1).
        ParameterTypeError
            If ``one_sided`` is not a boolean, or ``bootstrap_params`` is not a ``BootstrapParams``.
        """
        if bootstrap_params is not None:
            return bootstrap(
                self.scores,
                lambda s: epsilon_raw_counts(
                    s, min_count=min_count, delta=delta, one_sided=one_sided
                ),
                bootstrap_params,
            )
        return epsilon_raw_counts(
            self.scores, min_count=min_count, delta=delta, one_sided=one_sided
        )

    def epsilon_clopper_pearson(
        self,
        significance: Any,
        delta: Any = 0.0,
        one_sided: Any = True,
        *,
        threshold_strategy: Any = BONFERRONI,
    ) -> float:
        """The Clopper-Pearson lower bound on epsilon (``epsilon.epsilon_clopper_pearson``).

        Parameters
        ----------
        significance : float
            In (0, 1).
        delta : float
            In [0, 1).
        one_sided : bool
            False: also the reversed test.
        threshold_strategy : Bonferroni, Simultaneous, Explicit, Split or MultiSplit
            Where the bound is read.

        Returns
        -------
        float
            The bound, holding with probability at least 1 - significance.

        Raises
        ------
        ValueError
            If ``significance`` is outside (0, 1), ``delta`` outside [0, 1), the strategy is
            refused, or ``Simultaneous`` is given with ``one_sided=False``
            (``epsilon_clopper_pearson``).
        """
        return epsilon_clopper_pearson(
            self.scores,
            significance=significance,
            delta=delta,
            one_sided=one_sided,
            threshold_strategy=threshold_strategy,
        )

    def epsilon_from_gdp(self, significance: Any, delta: Any) -> float:
        """The epsilon of the least mu-GDP the scores allow (``epsilon.epsilon_gdp``; positive mu only).

        Parameters
        ----------
        significance : float
            In (0, 1).
        delta : float
            Strictly between 0 and 1.

        Returns
        -------
        float
            The bound, for a mechanism that is mu-GDP for some mu.

        Raises
        ------
        ValueError
            If ``significance`` is outside (0, 1) or ``delta`` not strictly between 0 and 1.
        """
        return epsilon_gdp(self.scores, significance=significance, delta=delta)

    def epsilon_one_run(
        self,
        significance: Any,
        delta: Any,
        one_sided: Any = True,
        *,
        threshold_strategy: Any = BONFERRONI,
    ) -> float:
        """Steinke, Nasr and Jagielski's one-run bound (``one_run.epsilon_one_run``).

        Parameters
        ----------
        significance : float
            In (0, 1).
        delta : float
            In [0, 1).
        one_sided : bool
            Must be True.
        threshold_strategy : Bonferroni, Explicit, Split or MultiSplit
            Where the guesses' threshold is chosen.

        Returns
        -------
        float
            The bound.

        Raises
        ------
        ValueError
            If ``significance`` is outside (0, 1), ``delta`` outside [0, 1), ``one_sided`` is False,
            or the strategy is refused (``epsilon_one_run``).
        """
        return epsilon_one_run(
            self.scores,
            significance=significance,
            delta=delta,
            one_sided=one_sided,
            threshold_strategy=threshold_strategy,
        )

    def epsilon_one_run_fdp(
        self,
        significance: Any,
        delta: Any,
        one_sided: Any = True,
        *,
        threshold_strategy: Any = BONFERRONI,
    ) -> float:
        """Mahloujifar et al.'s one-run f-DP bound (``one_run.epsilon_one_run_fdp``).

        Parameters
        ----------
        significance : float
            In (0, 1).
        delta : float
            Strictly between 0 and 1.
        one_sided : bool
            Must be True.
        threshold_strategy : Bonferroni, Explicit, Split or MultiSplit
            Where the guesses' threshold is chosen.

        Returns
        -------
        float
            The largest epsilon whose Gaussian trade-off through (epsilon, delta) the scores refute.

        Raises
        ------
        ValueError
            If ``significance`` is outside (0, 1), ``delta`` not strictly between 0 and 1,
            ``one_sided`` is False, or the strategy is refused (``epsilon_one_run_fdp``).
        """
        return epsilon_one_run_fdp(
            self.scores,
            significance=significance,
            delta=delta,
            one_sided=one_sided,
            threshold_strategy=threshold_strategy,
        )

    def audit_curve(self, accountant: Any, significance: Any = 0.05, **options: Any) -> CurveAudit:
        """The scores against the accountant's certified trade-off curve (``curve.audit_curve``).

        Parameters
        ----------
        accountant : Accountant
            The run's accountant.
        significance : float
            The test's level, in (0, 1).
        **options
            ``direction``, ``method``, ``threshold_strategy`` (``audit_curve``'s).

        Returns
        -------
        CurveAudit
            The verdict.

        Raises
        ------
        ValueError
            As ``audit_curve``: a bad level, direction, method or strategy, or an accountant with
            array parameters.
        ParameterTypeError
            If ``accountant`` is not an accountant.
        """
        return audit_curve(self.scores, accountant=accountant, significance=significance, **options)

    def report(
        self, accountant: Any, delta: Any, significance: Any = 0.05, **options: Any
    ) -> AuditReport:
        """The audit beside the accountant's bracket (``verdict.report``).

        Parameters
        ----------
        accountant : Accountant
            The run's accountant.
        delta : float
            Strictly between 0 and 1.
        significance : float
            Each test's level, in (0, 1).
        **options
            ``direction``, ``method`` (``report``'s).

        Returns
        -------
        AuditReport
            The report.

        Raises
        ------
        ValueError
            As ``report``: a bad delta or level, or what ``audit_curve`` refuses.
        ParameterTypeError
            If ``accountant`` is not an accountant.
        """
        return report(
            self.scores, accountant=accountant, delta=delta, significance=significance, **options
        )
