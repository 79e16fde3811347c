"""The certified PLD bracket of the rounds recorded, for a schedule fixed before the run.

Composition commutes, so the rounds are kept as counts per distinct round (``Round``), and the
bracket composes each distinct round's PLD to its count (``pld.PLDAccountant``: certified upper and
lower sides, Doroshenko et al. 2022; the composition of the realized PLDs of a fixed sequence:
Koskela, Jälkö & Honkela 2020; the Poisson-subsampled Gaussian's dominating pairs: Zhu, Dong & Wang
2022).  Each distinct subsampled Gaussian round is discretized once per process
(``pld.refine.round_cache``, kept between checkpoints in bounded memory) and composed to its count;
the composition is recomputed at each checkpoint asked for, not carried from the last one: a
composed PMF used as a factor would drop its round-off and truncation charges
(``pld/reads/along_run.py`` says why).  A checkpoint so costs one composition per distinct round: a
few stages are milliseconds, a sigma that changes every round is a factor per round (use the Rényi
answers there).  The brackets after many checkpoints of one run come from one batched evaluation
(``PrivacyLedger.composition_curve``, ``pld/reads/along_run.py``): the factors are transformed once
for all checkpoints.  A matrix-mechanism round is composed at its upper sensitivity on the upper
side and at its realizable lower one on the lower side (``matrix_round``), so the bracket holds
where its sensitivity is only bounded.

With an ``accuracy`` (``pld_bracket``), rounds of one Poisson-subsampled Gaussian are read by
``pld.SubsampledGaussianPLD(sigma, q, rounds, accuracy=accuracy)``, the front door at that
accuracy (``training.DPSGD``'s bracket of the same run at that accuracy), intersected with the
grid's bracket; any other rounds keep the grid's bracket, whose reads (the question reader's tilted
composition of the factors) have no finer setting.  Either way a bracket still wider than the
accuracy warns once (``AccuracyNotMetWarning``), and none is looser than the bracket without an
accuracy: the adapters' intersection (``pld.accountants.QuestionEpsilon.bracket_to_accuracy``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Literal

from ..pld.accountants import PLDAccountant, QuestionEpsilon
from ..pld.reads import CurveAlongRun
from .round_facets import bracketed, compose_round
from .rounds import Round

__all__ = ["pld_accountant", "pld_bracket", "pld_curve"]

Side = Literal["upper", "lower"]


def pld_accountant(
    runs: Sequence[tuple[Round, int]], value_discretization_interval: float, side: Side = "upper"
) -> PLDAccountant:
    """A ``PLDAccountant`` holding each run of rounds, in order.

    Parameters
    ----------
    runs : sequence of (Round, int)
        The rounds recorded, as (round, how many times): counted per distinct round for one bracket,
        or in the order they ran for the brackets along the run (``PLDAccountant.epsilon_curve``).
    value_discretization_interval : float
        The PLD grid's spacing h, 0 < h <= 100.
    side : {"upper", "lower"}, optional
        Which sensitivity a matrix-mechanism round is composed at: its certified upper one (default;
        the accountant's both sides are then those of that mechanism) or its realizable lower one
        (the accountant's lower side is then a lower bound on the true composition's).

    Returns
    -------
    PLDAccountant
        Its ``epsilon(delta, bound="both")`` is the certified bracket of the composition at
        ``side``.
    """
    accountant = PLDAccountant(value_discretization_interval=value_discretization_interval)
    for one, rounds in runs:  # each round through its registry entry's facets (``round_facets``)
        compose_round(accountant, one, rounds, value_discretization_interval, side)
    return accountant


def _bracketed(runs: Sequence[tuple[Round, int]]) -> bool:
    """Whether a round's mechanism is known only within a bracket (a matrix mechanism's sensitivity)."""
    return any(bracketed(one) for one, _ in runs)


def pld_bracket(
    runs: Sequence[tuple[Round, int]],
    value_discretization_interval: float,
    delta: float,
    accuracy: float | None = None,
) -> tuple[float, float]:
    """The certified bracket (lower, upper) of epsilon at ``delta`` of the composition of ``runs``.

    The upper side composes matrix-mechanism rounds at their upper sensitivity, the lower side at
    their realizable lower one (one accountant where no round has a bracket).  With ``accuracy``,
    that bracket read to it (``to_accuracy``).

    Parameters
    ----------
    runs : sequence of (Round, int)
        The rounds, counted.
    value_discretization_interval : float
        The PLD grid's spacing h.
    delta : float
        The delta, 0 < delta < 1.
    accuracy : float, optional
        The width asked of the bracket, > 0 (None: the grid's bracket alone).

    Returns
    -------
    tuple of float
        (lower, upper) epsilon.
    """
    upper_side = pld_accountant(runs, value_discretization_interval)
    if not _bracketed(runs):
        lower, upper = upper_side.epsilon(delta, bound="both")  # type: ignore[misc]
    else:
        lower = pld_accountant(runs, value_discretization_interval, "lower").epsilon(
            delta, bound="lower"
        )
        upper = upper_side.epsilon(delta, bound="upper")
    if accuracy is None:
        return float(lower), float(upper)
    return to_accuracy(upper_side, delta, accuracy, float(lower), float(upper))


def to_accuracy(
    accountant: PLDAccountant, delta: float, accuracy: float, lower: float, upper: float
) -> tuple[float, float]:
    """The certified bracket [lower, upper] of ``accountant``'s composition at ``delta`` read to
    ``accuracy`` (the module docstring): rounds of one Poisson-subsampled Gaussian, as its
    composed PLD's factors describe them, intersected with ``SubsampledGaussianPLD(sigma, q,
    rounds, accuracy=accuracy)``'s bracket, any other rounds as given, with an
    ``AccuracyNotMetWarning`` where the result is still wider than ``accuracy``
    (``pld.accountants.QuestionEpsilon.bracket_to_accuracy``, the adapters' question).

    Parameters
    ----------
    accountant : PLDAccountant
        The rounds composed (``pld_accountant``, the upper side's).
    delta : float
        The delta, 0 < delta < 1.
    accuracy : float
        The width asked, > 0.
    lower, upper : float
        A certified bracket of the same composition at ``delta`` (the grid's).

    Returns
    -------
    tuple of float
        (lower, upper), never wider than given.
    """
    return QuestionEpsilon(accuracy).bracket_to_accuracy(
        accountant.composed_pld, delta, lower, upper
    )


def pld_curve(
    runs: Sequence[tuple[Round, int]],
    value_discretization_interval: float,
    delta: float,
    every: Any,
    steps: Any,
) -> CurveAlongRun:
    """The certified bracket of epsilon at ``delta`` after each checkpoint of ``runs`` in order
    (each side as ``pld_bracket`` composes it).

    Parameters
    ----------
    runs : sequence of (Round, int)
        The rounds in the order recorded.
    value_discretization_interval : float
        The PLD grid's spacing h.
    delta : float
        The delta, 0 < delta < 1.
    every, steps
        The checkpoints (``PLDAccountant.epsilon_curve``).

    Returns
    -------
    CurveAlongRun
        ``steps``, ``lower``, ``upper``.
    """
    curve = pld_accountant(runs, value_discretization_interval).epsilon_curve(
        delta, every=every, steps=steps
    )
    if not _bracketed(runs):
        return curve
    lower = pld_accountant(runs, value_discretization_interval, "lower").epsilon_curve(
        delta, steps=curve.steps
    )
    return dataclasses.replace(curve, lower=lower.lower)
