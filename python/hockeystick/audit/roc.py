"""The empirical ROC of the canary scores: TPR at FPR, AUROC, maximum accuracy (jax_privacy's meanings).

All three read the ROC hull (``Scores.hull``): the tests that may randomize between two thresholds.

* ``tpr_at_fpr(fpr)``: the hull's TPR at FPR ``fpr``, linear between its vertices.
* ``auroc``: the area under the hull (trapezoids between its vertices).
* ``max_accuracy``: the largest prevalence TPR + (1 - prevalence) TNR over its vertices; with
  ``significance``, each vertex's TPR and TNR replaced by Clopper-Pearson upper limits at
  ``significance / 2`` (per vertex, as the anchor: no correction for the number of vertices).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import validation as _validation
from ._checks import significance_level
from .scores import as_scores
from .tails import clopper_pearson_upper

__all__ = ["auroc", "hull_tpr", "max_accuracy", "tpr_at_fpr"]


def tpr_at_fpr(scores: Any, fpr: Any, out_scores: Any = None) -> Any:
    """Compute the largest TPR of a (randomized) threshold test with false-positive rate ``fpr``.

    The ROC hull's TPR at FPR ``fpr``, linear between its vertices: the tests that may randomize
    between two thresholds (jax_privacy's ``tpr_at_given_fpr``).

    Parameters
    ----------
    scores : Scores or array_like
        The canary scores (``Scores``), or the held-in scores with ``out_scores``.
    fpr : float or array_like
        False-positive rates in [0, 1].
    out_scores : array_like, optional
        The held-out scores when ``scores`` is an array.

    Returns
    -------
    float or numpy.ndarray
        The TPR at each ``fpr``, in [0, 1] (``fpr``'s shape; a float for a scalar).

    Raises
    ------
    ValueError
        If the scores are refused (``as_scores``), or an ``fpr`` is outside [0, 1] or NaN.
    ParameterTypeError
        If ``fpr`` is a string, a boolean or None.

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick import audit
    >>> rng = np.random.default_rng(0)
    >>> scores = audit.as_scores(rng.normal(1.0, 1.0, 5000), rng.normal(0.0, 1.0, 5000))
    >>> round(audit.tpr_at_fpr(scores, 0.01), 6)
    0.099915
    """
    data = as_scores(scores, out_scores)
    rates = _validation.in_interval(fpr, "fpr", 0.0, 1.0, open_low=False, open_high=False)
    hull = data.hull
    out = hull_tpr(hull.tp, hull.fp, rates)
    return float(out) if out.ndim == 0 else out


def hull_tpr(tp: np.ndarray, fp: np.ndarray, fpr: np.ndarray) -> np.ndarray:
    """The TPR, linear between the vertices (``tp``, ``fp``: counts ascending, the totals last), at FPR ``fpr``.

    Parameters
    ----------
    tp, fp : numpy.ndarray
        A hull's vertices, ascending from (0, 0) to the totals.
    fpr : numpy.ndarray
        False-positive rates in [0, 1].

    Returns
    -------
    numpy.ndarray
        The TPR at each, of ``fpr``'s shape.
    """
    target = fpr * fp[-1]
    # the first vertex with FP beyond the target (the last one at FPR 1), and the one before it
    right = np.minimum(np.searchsorted(fp, target, side="right"), fp.size - 1)
    fp_left, fp_right = fp[right - 1], fp[right]
    tp_left, tp_right = tp[right - 1], tp[right]
    share = (target - fp_left) / (fp_right - fp_left)
    return np.asarray((tp_left + share * (tp_right - tp_left)) / tp[-1])


def auroc(scores: Any, out_scores: Any = None) -> float:
    r"""Compute the area under the ROC hull (tests that may randomize between two thresholds).

    Trapezoids between the hull's vertices (jax_privacy's ``attack_auroc``):

    .. math::

        \mathrm{AUROC} = \sum_k \tfrac12 (\mathrm{TPR}_k + \mathrm{TPR}_{k+1})(\mathrm{FPR}_{k+1} - \mathrm{FPR}_k).

    Parameters
    ----------
    scores : Scores or array_like
        The canary scores (``Scores``), or the held-in scores with ``out_scores``.
    out_scores : array_like, optional
        The held-out scores when ``scores`` is an array.

    Returns
    -------
    float
        The area, in [1/2, 1].

    Raises
    ------
    ValueError
        If the scores are refused (``as_scores``).

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick import audit
    >>> rng = np.random.default_rng(0)
    >>> scores = audit.as_scores(rng.normal(1.0, 1.0, 5000), rng.normal(0.0, 1.0, 5000))
    >>> round(audit.auroc(scores), 6)
    0.756442
    """
    data = as_scores(scores, out_scores)
    hull = data.hull
    tpr = hull.tp / data.n_in
    fpr = hull.fp / data.n_out
    return float(0.5 * np.dot(tpr[1:] + tpr[:-1], np.diff(fpr)))


def max_accuracy(
    scores: Any, out_scores: Any = None, *, prevalence: Any = None, significance: Any = None
) -> float:
    r"""Compute the largest accuracy of a threshold test, prevalence TPR + (1 - prevalence) TNR.

    The maximum over the ROC hull's vertices of :math:`p\,\mathrm{TPR} + (1 - p)\,\mathrm{TNR}`,
    p the prevalence (jax_privacy's ``max_accuracy``).

    Parameters
    ----------
    scores : Scores or array_like
        The canary scores (``Scores``), or the held-in scores with ``out_scores``.
    out_scores : array_like, optional
        The held-out scores when ``scores`` is an array.
    prevalence : float, optional
        The share p of held-in canaries among those tested, in [0, 1]; default their share here,
        n_in / (n_in + n_out).
    significance : float, optional
        With it, in (0, 1), each vertex's TPR and TNR are Clopper-Pearson upper limits at
        ``significance / 2``: a per-vertex upper limit, as jax_privacy computes it (no correction
        for the number of vertices, so not a bound on the maximum at 1 - significance).

    Returns
    -------
    float
        The accuracy, in [0, 1].

    Raises
    ------
    ValueError
        If the scores are refused (``as_scores``), ``prevalence`` is outside [0, 1] or
        ``significance`` outside (0, 1), or either is NaN.
    ParameterTypeError
        If ``prevalence`` or ``significance`` is a string or a boolean.

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick import audit
    >>> rng = np.random.default_rng(0)
    >>> scores = audit.as_scores(rng.normal(1.0, 1.0, 5000), rng.normal(0.0, 1.0, 5000))
    >>> round(audit.max_accuracy(scores), 4)
    0.6826
    """
    scores = as_scores(scores, out_scores)
    hull = scores.hull
    share = (
        scores.n_in / (scores.n_in + scores.n_out)
        if prevalence is None
        else float(
            _validation.in_interval(
                _validation.single(prevalence, "prevalence"),
                "prevalence",
                0.0,
                1.0,
                open_low=False,
                open_high=False,
            )
        )
    )
    tn = scores.n_out - hull.fp
    if significance is None:
        tpr, tnr = hull.tp / scores.n_in, tn / scores.n_out
    else:
        s = significance_level(significance) / 2
        tpr = clopper_pearson_upper(hull.tp, np.int64(scores.n_in), s)
        tnr = clopper_pearson_upper(tn, np.int64(scores.n_out), s)
    return float(np.max(share * tpr + (1.0 - share) * tnr))
