"""The audit's verdict beside the accountant's certified bracket, in one table.

For a run accounted by ``accountant`` and audited with canary scores, at confidence 1 -
significance:

* the audit's epsilon lower bound at ``delta``: Clopper-Pearson limits at every in-canary's score at
  once (``Simultaneous()``, the family fixed before the scores are seen; ``epsilon.py``);
* the accountant's certified [lower, upper] epsilon at ``delta`` (the lower side where it certifies
  one);
* the gap, certified upper minus the audit's lower bound: the leakage the audit cannot yet exclude
  beyond what it demonstrates.  A negative gap refutes the accountant's epsilon;
* the test of the scores against the accountant's whole certified trade-off curve (``curve.py``),
  which can refute an accountant whose epsilon the scores do not reach: its curve is a stronger
  claim;
* the empirical AUROC and TPR at a few FPRs beside the certified TPR there.

The two tests spend ``significance`` each: the table's verdicts hold jointly at 1 - 2 significance.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import risk
from ..base import validation as _validation
from ..base.outward_text import outward_text
from ._checks import accountant_value, delta_value, significance_level
from .curve import CurveAudit, curve_and_certified_tprs
from .epsilon import clopper_pearson_search
from .roc import auroc, tpr_at_fpr
from .scores import as_scores
from .strategies import Simultaneous

__all__ = ["AuditReport", "report"]

REPORT_FPRS = (1e-3, 1e-2, 1e-1)


@dataclass(frozen=True)
class AuditReport:
    """Hold the audit of one run beside its accountant's certified bracket (what ``report`` returns).

    The fields are not checked here; ``table()`` formats them as ``hockeystick audit`` prints them.
    The property ``gap`` is epsilon_upper - epsilon_audit, the leakage the audit cannot yet exclude
    beyond what it demonstrates (negative refutes the accountant's epsilon); ``refuted`` is whether
    the scores refute the accountant: a negative ``gap`` or a refuted ``curve``.

    Parameters
    ----------
    significance, delta : float
        The level of each test and the delta of the epsilons.
    n_in, n_out : int
        The numbers of held-in and held-out canaries.
    epsilon_audit : float
        The audit's epsilon lower bound at ``delta`` (simultaneous Clopper-Pearson), holding with
        probability at least 1 - significance.
    epsilon_lower : float or None
        The accountant's certified lower epsilon at ``delta`` (None where it certifies no lower
        side).
    epsilon_upper : float
        The accountant's certified upper epsilon at ``delta``.
    curve : CurveAudit
        The scores against the accountant's certified trade-off curve.
    auroc : float
        The empirical AUROC (the ROC hull's).
    fprs, tpr_empirical, tpr_certified : tuple of float
        FPRs, the hull's TPR there and the accountant's certified upper TPR there.
    direction : str
        The curve's direction.
    """

    significance: float
    delta: float
    n_in: int
    n_out: int
    epsilon_audit: float
    epsilon_lower: float | None
    epsilon_upper: float
    curve: CurveAudit
    auroc: float
    fprs: tuple[float, ...]
    tpr_empirical: tuple[float, ...]
    tpr_certified: tuple[float, ...]
    direction: str

    @property
    def gap(self) -> float:
        """The accountant's certified upper epsilon minus the audit's lower bound (negative: refuted)."""
        return self.epsilon_upper - self.epsilon_audit

    @property
    def refuted(self) -> bool:
        """Whether the scores refute the accountant: its epsilon or its trade-off curve."""
        return self.gap < 0 or self.curve.refuted

    def table(self) -> str:
        """The report as tab-separated lines (what ``hockeystick audit`` prints).

        Returns
        -------
        str
            The table.
        """
        confidence = f"{1 - self.significance:g}"
        lower = "-" if self.epsilon_lower is None else outward_text(self.epsilon_lower, "lower")
        lines = [
            f"canaries\t{self.n_in} in\t{self.n_out} out",
            f"epsilon at delta={self.delta:g}\taudit lower bound ({confidence})\taccountant lower\taccountant upper\tgap",
            f"\t{self.epsilon_audit:.6g}\t{lower}\t{outward_text(self.epsilon_upper, 'upper')}\t{self.gap:.6g}",
        ]
        c = self.curve
        verdict = "REFUTED" if c.refuted else "not refuted"
        lines.append(
            f"certified trade-off curve ({self.direction}, {c.method}, {confidence})\t{verdict}"
        )
        if c.tpr_lower is not None and c.fpr_upper is not None and c.tpr_certified is not None:
            # the witness where the curve is refuted; else the threshold nearest to refuting it
            name = "witness threshold" if c.refuted else "closest threshold (not refuting)"
            lines.append(
                f"\t{name} {c.threshold:.6g}: TPR >= {c.tpr_lower:.6g} at FPR <= {c.fpr_upper:.6g}; "
                f"certified TPR <= {outward_text(c.tpr_certified, 'upper')} there"
            )
        lines.append(f"AUROC\t{self.auroc:.6g}")
        lines.append("fpr\ttpr empirical\ttpr certified upper")
        above = False
        for f, e, t in zip(self.fprs, self.tpr_empirical, self.tpr_certified):
            mark = " *" if e > t else ""
            above = above or e > t
            lines.append(f"{f:g}\t{e:.6g}{mark}\t{outward_text(t, 'upper')}")
        if above:
            lines.append(
                f"*\tthe empirical TPR, a point estimate with sampling error, is above the certified TPR; the curve "
                f"test, which allows for that error at confidence {confidence}, "
                + (
                    "refutes the accountant"
                    if c.refuted
                    else "does not refute it: more canaries can decide"
                )
            )
        lines.append(
            f"verdict\t{'the scores refute the accountant' if self.refuted else 'consistent with the accountant'}"
        )
        return "\n".join(lines)


def report(
    scores: Any,
    out_scores: Any = None,
    *,
    accountant: Any,
    delta: Any,
    significance: Any = 0.05,
    direction: Any = "symmetric",
    method: Any = "clopper_pearson",
) -> AuditReport:
    """Audit the canary scores and set the result beside the accountant's certified epsilon bracket.

    At ``delta``: the audit's epsilon lower bound (Clopper-Pearson limits at every in-canary's score
    at once, ``Simultaneous()``), the accountant's certified [lower, upper] epsilon (the lower side
    where the accountant certifies one), their gap, the test of the scores against the accountant's
    certified trade-off curve (``audit_curve``), the empirical AUROC, and the hull's TPR at the FPRs
    1e-3, 1e-2 and 1e-1 beside the certified upper TPR there. The two tests spend ``significance``
    each: the verdicts hold jointly with probability at least 1 - 2 significance.

    Parameters
    ----------
    scores : Scores or array_like
        The canary scores (``Scores``), or the held-in scores with ``out_scores``.
    out_scores : array_like, optional
        The held-out scores when ``scores`` is an array.
    accountant : Accountant
        The run's accountant, with scalar parameters (one mechanism).
    delta : float
        The delta of the epsilons compared, strictly between 0 and 1.
    significance : float, optional
        Each test's level, in (0, 1) (default 0.05).
    direction : {"symmetric", "remove", "add"}, optional
        The certified curve's direction (``audit_curve``; default "symmetric").
    method : {"clopper_pearson", "one_run_fdp"}, optional
        The curve test (``audit_curve``; default "clopper_pearson").

    Returns
    -------
    AuditReport
        The report; ``.table()`` formats it.

    Raises
    ------
    ValueError
        If the scores are refused (``as_scores``), ``delta`` is not strictly between 0 and 1,
        ``significance`` is outside (0, 1), or ``audit_curve`` refuses ``direction``, ``method`` or
        the accountant.
    ParameterTypeError
        If ``accountant`` is not an accountant, or an argument is a string, a boolean or None where
        a number is expected.

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick import audit, registry
    >>> rng = np.random.default_rng(0)
    >>> held_in, held_out = rng.normal(1.0, 1.0, 5000), rng.normal(0.0, 1.0, 5000)
    >>> right = registry.get("gaussian").build(sigma=1.0)
    >>> result = audit.report(held_in, held_out, accountant=right, delta=1e-5)
    >>> [round(v, 4) for v in (result.epsilon_audit, result.epsilon_upper, result.gap)]
    [1.6339, 4.3772, 2.7433]
    >>> result.refuted
    False
    """
    data = as_scores(scores, out_scores)
    s = significance_level(significance)
    d = delta_value(delta, zero=False)
    side = _validation.choice(direction, "direction", risk.DIRECTIONS)
    accountant = accountant_value(accountant, ("delta", "epsilon"))
    fprs = np.array(REPORT_FPRS)
    verdict, certified = curve_and_certified_tprs(data, accountant, s, side, method, None, fprs)
    eps_audit, _ = clopper_pearson_search(data, s, d, True, Simultaneous())
    lower, upper = _accountant_epsilon(accountant, d)
    empirical = np.asarray(tpr_at_fpr(data, fprs), dtype=np.float64)
    return AuditReport(
        significance=s,
        delta=d,
        n_in=data.n_in,
        n_out=data.n_out,
        epsilon_audit=eps_audit,
        epsilon_lower=lower,
        epsilon_upper=upper,
        curve=verdict,
        auroc=auroc(data),
        fprs=tuple(float(v) for v in fprs),
        tpr_empirical=tuple(float(v) for v in empirical),
        tpr_certified=tuple(float(v) for v in certified),
        direction=side,
    )


def _accountant_epsilon(accountant: Any, delta: float) -> tuple[float | None, float]:
    """The accountant's certified (lower, upper) epsilon at ``delta``; lower None where it gives no
    lower side (it refuses bound="both" with a ValueError naming ``bound``)."""
    try:
        lower, upper = accountant.epsilon(delta, bound="both")
    except ValueError as err:
        if "bound" not in str(err):
            raise
        return None, _one_number(accountant.epsilon(delta, bound="upper"))
    return _one_number(lower), _one_number(upper)


def _one_number(value: Any) -> float:
    """The accountant's epsilon as one float (an accountant with array parameters gives an array)."""
    if np.ndim(value) != 0:
        raise ValueError(
            f"accountant must describe one mechanism (scalar parameters): its epsilon has shape {np.shape(value)}; "
            "build one accountant per point"
        )
    return float(value)
