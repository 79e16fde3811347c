"""Epsilon of a described run of several Poisson-subsampled Gaussians on the default grid, narrowed
at the question's tail.

The run is the one the accountant's composed PLD describes (``question.described_run``: rounds of
each distinct (noise sigma / sensitivity, rate q), in the order first met), not a list its door
keeps beside it.  Its certified bracket on the accountant's grid and tail
(``PLDAccountant.epsilon``, read per question, pld/question) is

* intersected, where the tails cut from the run's T rounds would pass ``TAIL_SHARE`` of the least
  delta asked (``refine.question.question_tail``), with the bracket of the same rounds composed at
  that smaller tail (each certified, so is their intersection);
* its upper side, where the bracket is left wider than the default tolerance
  (``refine.question.within_tolerance``), lowered to the RDP conversion's epsilon of the run where
  smaller: the rounds' Rényi curves add up (Mironov 2017, Prop. 1), each the subsampled Gaussian's
  at dp_accounting's orders (Mironov, Talwar & Zhang 2019), converted by Balle et al. 2020, Thm. 21,
  and rounded up by ``RDP_MARGIN`` relative as the single run's default rounds it.

A run of one kind of round, or one the PLD does not describe so, is the accountant's bracket alone.
"""

from __future__ import annotations

import numpy as np

from ...base import validation as _validation
from ...base.accountant import Bound
from ...base.elementwise import ArrayLike
from ..grid import DEFAULT_TAIL, Result
from ..question.described_run import Segment, subsampled_segments
from ..refine import RDP_MARGIN, question_tail, within_tolerance
from .subsampled_gaussian import PLDAccountant


def tail_narrowed_epsilon(
    accountant: PLDAccountant, delta: ArrayLike, *, bound: Bound = "upper"
) -> Result:
    """Certified bound(s) on epsilon at ``delta`` of the run ``accountant`` composed (module
    docstring).

    Parameters
    ----------
    accountant : PLDAccountant
        The accountant of the run, on its default grid and tail.
    delta : array_like
        The deltas, each in (0, 1).
    bound : {"upper", "lower", "both"}, optional
        The side(s) returned.

    Returns
    -------
    float, numpy.ndarray or tuple
        As ``PLDAccountant.epsilon``.

    Raises
    ------
    ValueError
        If ``bound`` is not a side or a delta is outside (0, 1).
    """
    side = _validation.bound_side(bound)
    deltas = _validation.delta_values(delta)
    pld = accountant.composed_pld
    segments = None if pld is None else subsampled_segments(pld)
    if segments is None or len(segments) < 2:
        return accountant.epsilon(delta, bound=bound)
    bracket = accountant.epsilon(deltas, bound="both")
    lower, upper = (np.asarray(x) for x in bracket)  # type: ignore[union-attr]
    rounds = sum(count for _, count in segments)
    tail = question_tail(rounds, float(np.min(deltas))) if deltas.size else DEFAULT_TAIL
    if tail < DEFAULT_TAIL:
        at_tail = _composed(segments, tail).epsilon(deltas, bound="both")
        lower_q, upper_q = at_tail  # type: ignore[misc]
        lower, upper = np.maximum(lower, lower_q), np.minimum(upper, upper_q)
    wide = ~within_tolerance(lower, upper)
    if np.any(wide):
        upper = np.where(wide, np.minimum(upper, _rdp_upper(segments, deltas)), upper)
    sides = tuple(float(x) if x.ndim == 0 else x for x in (lower, upper))
    picked = sides if side == "both" else sides[0] if side == "lower" else sides[1]
    return picked  # type: ignore[return-value]


def _composed(segments: list[Segment], tail: float) -> PLDAccountant:
    """The run's rounds composed on the default grid at ``tail``."""
    accountant = PLDAccountant(tail=tail)
    for (noise, q, _), count in segments:
        accountant.compose_subsampled_gaussian(noise, q, count)
    return accountant


def _rdp_upper(segments: list[Segment], deltas: np.ndarray) -> np.ndarray:
    """The RDP conversion's epsilon of the run at ``deltas``, rounded up by ``RDP_MARGIN`` relative
    (module docstring)."""
    from ...rdp import DEFAULT_ORDERS, SubsampledGaussianRDP, rdp_to_epsilon  # only wide brackets

    rdp = SubsampledGaussianRDP(
        sigma=[noise for (noise, _, _), _ in segments],
        sampling_rate=[q for (_, q, _), _ in segments],
        rounds=[count for _, count in segments],
        orders=DEFAULT_ORDERS,
    )
    total = rdp.rdp.sum(axis=0)
    return np.asarray(rdp_to_epsilon(total, rdp.orders, deltas), dtype=np.float64) * (
        1.0 + RDP_MARGIN
    )
