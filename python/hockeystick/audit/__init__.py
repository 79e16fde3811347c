"""Audit a training run: canary scores to epsilon lower bounds, and tests of an accountant's curve.

Insert canaries (records the attack will be asked about), train, and score every canary with an
attack (higher means "the canary was in"). Given the scores of the held-in and held-out canaries,
``hockeystick.audit`` offers jax_privacy 2.0's auditing estimators with the same meanings
(``Auditor`` mirrors its ``CanaryScoreAuditor``), their binomial tails rounded so that the stated
confidence holds, and what an accountant adds: the test of the scores against the mechanism's own
certified trade-off curve (``audit_curve``) and the audit's epsilon beside the accountant's
certified bracket (``report``). docs/audit.md is the guide.

* The scores: ``as_scores`` and ``Scores`` (two arrays, checked and sorted), ``read_csv`` (a CSV
  file with a score column and a held-in label column).
* The empirical ROC (its upper concave hull): ``tpr_at_fpr``, ``auroc``, ``max_accuracy``.
* Epsilon: ``epsilon_raw_counts`` (an estimate, not a bound), ``epsilon_clopper_pearson`` (a lower
  bound at confidence 1 - significance for independently scored canaries), ``epsilon_gdp`` (a lower
  bound if the mechanism is mu-GDP), ``epsilon_one_run`` and ``epsilon_one_run_fdp`` (one training
  run's canaries).
* Where a threshold test's bound is read: ``Bonferroni`` (jax_privacy's default), ``Simultaneous``,
  ``Explicit``, ``Split``, ``MultiSplit``.
* Resampling: ``BootstrapParams``, ``bootstrap`` (quantiles of an estimate, not bounds).
* Against an accountant: ``audit_curve`` (``CurveAudit``), ``report`` (``AuditReport``),
  ``plot_audit``.
* Planning: ``canaries_needed``, the canaries with which a threshold test refutes a claim that
  understates the leakage by a factor.

Examples
--------
>>> import numpy as np
>>> from hockeystick import audit, registry
>>> rng = np.random.default_rng(0)
>>> held_in, held_out = rng.normal(1.0, 1.0, 5000), rng.normal(0.0, 1.0, 5000)
>>> round(audit.epsilon_clopper_pearson(held_in, held_out, significance=0.05, delta=1e-5), 4)
1.8682
>>> understated = registry.get("gaussian").build(sigma=1.25)
>>> audit.audit_curve(held_in, held_out, accountant=understated).refuted
True
"""

from __future__ import annotations

from .auditor import Auditor
from .csv_scores import read_csv
from .curve import CurveAudit, audit_curve
from .epsilon import epsilon_clopper_pearson, epsilon_gdp, epsilon_raw_counts
from .one_run import epsilon_one_run, epsilon_one_run_fdp
from .picture import plot_audit
from .planning import canaries_needed
from .resampling import BootstrapParams, bootstrap
from .roc import auroc, max_accuracy, tpr_at_fpr
from .scores import Scores, as_scores
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
