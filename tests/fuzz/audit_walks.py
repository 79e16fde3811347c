"""The argument walk's entries (``tests/test_fuzz_public_api.py``) for ``hockeystick.audit``: every public name,
the CSV reader's arguments, and the ``hockeystick audit`` command line's flags.  The walk is over the audit's own
arguments on small score sets (60 canaries a side); each argument in turn takes every walk value, the others
valid, and each call answers without NaN or refuses naming the argument."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np

from hockeystick import audit, registry

_RNG = np.random.default_rng(17)
IN, OUT = _RNG.normal(1.5, 1.0, 60), _RNG.normal(0.0, 1.0, 60)
SCORES = audit.as_scores(IN, OUT)
GAUSSIAN = registry.get("gaussian").build(sigma=1.0)
FOLDER = tempfile.mkdtemp(prefix="hockeystick-audit-walk-")
CSV = os.path.join(FOLDER, "scores.csv")
with open(CSV, "w", encoding="utf-8") as _handle:
    _handle.write(
        "score,in\n"
        + "".join(f"{v!r},1\n" for v in IN.tolist())
        + "".join(f"{v!r},0\n" for v in OUT.tolist())
    )

_CP = dict(scores=IN, out_scores=OUT, significance=0.05)


def _cp(strategy: Any) -> float:
    return audit.epsilon_clopper_pearson(IN, OUT, significance=0.05, threshold_strategy=strategy)


AUDIT_WALKS: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
    ("audit.as_scores", audit.as_scores, dict(in_scores=IN, out_scores=OUT)),
    ("audit.Scores", lambda **kw: audit.auroc(audit.Scores(**kw)), dict(held_in=IN, held_out=OUT)),
    ("audit.read_csv", audit.read_csv, dict(path=CSV, score_column="score", label_column="in")),
    ("audit.tpr_at_fpr", audit.tpr_at_fpr, dict(scores=IN, fpr=0.1, out_scores=OUT)),
    ("audit.auroc", audit.auroc, dict(scores=IN, out_scores=OUT)),
    (
        "audit.max_accuracy",
        audit.max_accuracy,
        dict(scores=IN, out_scores=OUT, prevalence=0.3, significance=0.05),
    ),
    (
        "audit.epsilon_raw_counts",
        audit.epsilon_raw_counts,
        dict(scores=IN, out_scores=OUT, min_count=5, delta=1e-3, one_sided=False),
    ),
    (
        "audit.epsilon_clopper_pearson",
        audit.epsilon_clopper_pearson,
        dict(**_CP, delta=1e-3, one_sided=True, threshold_strategy=audit.Bonferroni()),
    ),
    ("audit.epsilon_gdp", audit.epsilon_gdp, dict(**_CP, delta=1e-5)),
    (
        "audit.epsilon_one_run",
        audit.epsilon_one_run,
        dict(**_CP, delta=1e-5, one_sided=True, threshold_strategy=audit.Bonferroni()),
    ),
    (
        "audit.epsilon_one_run_fdp",
        audit.epsilon_one_run_fdp,
        dict(**_CP, delta=1e-5, one_sided=True, threshold_strategy=audit.Explicit(1.0)),
    ),
    ("audit.Bonferroni", lambda **kw: _cp(audit.Bonferroni(**kw)), {}),
    ("audit.Simultaneous", lambda **kw: _cp(audit.Simultaneous(**kw)), {}),
    ("audit.Explicit", lambda **kw: _cp(audit.Explicit(**kw)), dict(threshold=1.0)),
    (
        "audit.Split",
        lambda **kw: _cp(audit.Split(**kw)),
        dict(threshold_estimation_frac=0.5, seed=2),
    ),
    (
        "audit.MultiSplit",
        lambda **kw: _cp(audit.MultiSplit(**kw)),
        dict(num_samples=3, threshold_estimation_frac=0.5, seed=2),
    ),
    (
        "audit.BootstrapParams",
        lambda **kw: audit.bootstrap(SCORES, audit.auroc, audit.BootstrapParams(**kw)),
        dict(
            num_samples=5,
            quantiles=(0.025, 0.975),
            bias_correction=True,
            acceleration=False,
            seed=1,
        ),
    ),
    (
        "audit.bootstrap",
        audit.bootstrap,
        dict(
            scores=IN,
            statistic=audit.auroc,
            params=audit.BootstrapParams(num_samples=5, seed=1),
            out_scores=OUT,
        ),
    ),
    (
        "audit.Auditor",
        lambda **kw: audit.Auditor(**kw).epsilon_clopper_pearson(0.05),
        dict(in_canary_scores=IN, out_canary_scores=OUT),
    ),
    (
        "audit.audit_curve",
        lambda **kw: audit.audit_curve(IN, OUT, **kw).refuted,
        dict(
            accountant=GAUSSIAN, significance=0.05, direction="symmetric", method="clopper_pearson"
        ),
    ),
    (
        "audit.CurveAudit",
        lambda **kw: audit.audit_curve(IN, OUT, accountant=GAUSSIAN, **kw).excess,
        dict(significance=0.05),
    ),
    (
        "audit.report",
        lambda **kw: audit.report(IN, OUT, **kw).gap,
        dict(
            accountant=GAUSSIAN,
            delta=1e-5,
            significance=0.05,
            direction="symmetric",
            method="clopper_pearson",
        ),
    ),
    (
        "audit.AuditReport",
        lambda **kw: audit.report(IN, OUT, accountant=GAUSSIAN, **kw).table(),
        dict(delta=1e-5, significance=0.05),
    ),
    (
        "audit.plot_audit",
        lambda **kw: audit.plot_audit(IN, OUT, **kw) and None,
        dict(accountant=GAUSSIAN, significance=0.05, direction="symmetric", path=None),
    ),
    (
        "audit.canaries_needed",
        audit.canaries_needed,
        dict(epsilon=1.0, factor=2.0, fpr=0.01, delta=0.0, significance=0.05, power=0.5),
    ),
]

# ``hockeystick audit``'s flags and a valid value of each: the command line walk gives each flag every walk
# value as text (str()), the others valid; it exits 0, or 2 with one line naming the flag
AUDIT_FLAGS: dict[str, str] = {
    "--delta": "1e-5",
    "--significance": "0.05",
    "--direction": "symmetric",
    "--method": "clopper_pearson",
    "--score-column": "score",
    "--label-column": "in",
}
AUDIT_ARGV: list[str] = ["audit", CSV, "-a", "gaussian", "-p", "sigma=1"]
