"""``Auditor``: jax_privacy's CanaryScoreAuditor, method for method, over hockeystick.audit's functions.

The names, positional order and defaults are jax_privacy 2.0's, so that a call written for it runs here
and gives the same number (docs/audit.md lists each method beside its function); the accountant methods
(``audit_curve``, ``report``) are this package's own.
"""

from __future__ import annotations

from typing import Any

from .curve import CurveAudit, audit_curve
from .epsilon import epsilon_clopper_pearson, epsilon_gdp, epsilon_raw_counts
from .one_run import epsilon_one_run, epsilon_one_run_fdp
from .resampling import BootstrapParams, bootstrap
from .roc import auroc, max_accuracy, tpr_at_fpr
from .scores import Scores, as_scores
from .strategies import BONFERRONI
from .verdict import AuditReport, report

__all__ = ["Auditor"]


class Auditor:
    """Privacy estimates and bounds from the attack scores of held-in and held-out canaries.

    Parameters
    ----------
    in_canary_scores, out_canary_scores : array_like
        Attack scores; higher means "in" (negate a loss first).

    Raises
    ------
    ValueError
        An empty side, or a NaN or infinite score.
    """

    def __init__(self, in_canary_scores: Any, out_canary_scores: Any) -> None:
        self.scores: Scores = as_scores(in_canary_scores, out_canary_scores)

    def tpr_at_given_fpr(self, fpr: Any, *, bootstrap_params: BootstrapParams | None = None) -> Any:
        """The largest TPR at FPR ``fpr`` (``roc.tpr_at_fpr``); with ``bootstrap_params`` (a scalar ``fpr``),
        its bootstrap quantiles."""
        if bootstrap_params is not None:
            return bootstrap(self.scores, lambda s: float(tpr_at_fpr(s, fpr)), bootstrap_params)
        return tpr_at_fpr(self.scores, fpr)

    def attack_auroc(self, *, bootstrap_params: BootstrapParams | None = None) -> Any:
        """The area under the ROC hull (``roc.auroc``), or its bootstrap quantiles."""
        if bootstrap_params is not None:
            return bootstrap(self.scores, auroc, bootstrap_params)
        return auroc(self.scores)

    def max_accuracy(self, *, prevalence: Any = None, significance: Any = None) -> float:
        """The largest accuracy of a threshold test (``roc.max_accuracy``)."""
        return max_accuracy(self.scores, prevalence=prevalence, significance=significance)

    def epsilon_raw_counts(
        self,
        min_count: Any = 50,
        delta: Any = 0.0,
        one_sided: Any = True,
        *,
        bootstrap_params: BootstrapParams | None = None,
    ) -> Any:
        """The raw-count estimate (``epsilon.epsilon_raw_counts``), or its bootstrap quantiles."""
        if bootstrap_params is not None:
            return bootstrap(
                self.scores,
                lambda s: epsilon_raw_counts(s, min_count=min_count, delta=delta, one_sided=one_sided),
                bootstrap_params,
            )
        return epsilon_raw_counts(self.scores, min_count=min_count, delta=delta, one_sided=one_sided)

    def epsilon_clopper_pearson(
        self, significance: Any, delta: Any = 0.0, one_sided: Any = True, *, threshold_strategy: Any = BONFERRONI
    ) -> float:
        """The Clopper-Pearson lower bound on epsilon (``epsilon.epsilon_clopper_pearson``)."""
        return epsilon_clopper_pearson(
            self.scores,
            significance=significance,
            delta=delta,
            one_sided=one_sided,
            threshold_strategy=threshold_strategy,
        )

    def epsilon_from_gdp(self, significance: Any, delta: Any) -> float:
        """The epsilon of the least mu-GDP the scores allow (``epsilon.epsilon_gdp``; positive mu only)."""
        return epsilon_gdp(self.scores, significance=significance, delta=delta)

    def epsilon_one_run(
        self, significance: Any, delta: Any, one_sided: Any = True, *, threshold_strategy: Any = BONFERRONI
    ) -> float:
        """Steinke, Nasr and Jagielski's one-run bound (``one_run.epsilon_one_run``)."""
        return epsilon_one_run(
            self.scores,
            significance=significance,
            delta=delta,
            one_sided=one_sided,
            threshold_strategy=threshold_strategy,
        )

    def epsilon_one_run_fdp(
        self, significance: Any, delta: Any, one_sided: Any = True, *, threshold_strategy: Any = BONFERRONI
    ) -> float:
        """Mahloujifar et al.'s one-run f-DP bound (``one_run.epsilon_one_run_fdp``)."""
        return epsilon_one_run_fdp(
            self.scores,
            significance=significance,
            delta=delta,
            one_sided=one_sided,
            threshold_strategy=threshold_strategy,
        )

    def audit_curve(self, accountant: Any, significance: Any = 0.05, **options: Any) -> CurveAudit:
        """The scores against the accountant's certified trade-off curve (``curve.audit_curve``; ``options``:
        direction, method, threshold_strategy)."""
        return audit_curve(self.scores, accountant=accountant, significance=significance, **options)

    def report(self, accountant: Any, delta: Any, significance: Any = 0.05, **options: Any) -> AuditReport:
        """The audit beside the accountant's bracket (``report.report``; ``options``: direction, method)."""
        return report(self.scores, accountant=accountant, delta=delta, significance=significance, **options)
