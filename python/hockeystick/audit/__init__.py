"""Auditing a training run: canary scores to epsilon lower bounds, tests of an accountant's curve (docs/audit.md).

Given attack scores of held-in and held-out canaries (higher means "in"), ``hockeystick.audit`` offers
jax_privacy's auditing estimators with the same meanings (``Auditor`` mirrors its CanaryScoreAuditor),
their binomial tails rounded so that the stated confidence holds, and what an accountant adds: the test
of the scores against the mechanism's own certified trade-off curve (``audit_curve``) and the audit's
epsilon beside the accountant's certified bracket (``report``).
"""

from __future__ import annotations

from .auditor import Auditor
from .curve import CurveAudit, audit_curve
from .epsilon import epsilon_clopper_pearson, epsilon_gdp, epsilon_raw_counts
from .one_run import epsilon_one_run, epsilon_one_run_fdp
from .picture import plot_audit
from .planning import canaries_needed
from .resampling import BootstrapParams, bootstrap
from .roc import auroc, max_accuracy, tpr_at_fpr
from .scores import Scores, as_scores, read_csv
from .strategies import Bonferroni, Explicit, MultiSplit, Simultaneous, Split
from .verdict import AuditReport, report

__all__ = [
    "AuditReport",
    "Auditor",
    "Bonferroni",
    "BootstrapParams",
    "CurveAudit",
    "Explicit",
    "MultiSplit",
    "Scores",
    "Simultaneous",
    "Split",
    "as_scores",
    "audit_curve",
    "auroc",
    "bootstrap",
    "canaries_needed",
    "epsilon_clopper_pearson",
    "epsilon_gdp",
    "epsilon_one_run",
    "epsilon_one_run_fdp",
    "epsilon_raw_counts",
    "max_accuracy",
    "plot_audit",
    "read_csv",
    "report",
    "tpr_at_fpr",
]
