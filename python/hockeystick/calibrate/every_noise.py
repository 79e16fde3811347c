"""Targets every noise multiplier meets: a Poisson-sampled training run whose RDP bound at the
search floor is within the target is settled at its start, where the accountant's own bound is
evaluated."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .. import training
from ..base.accountant import Bound
from ..pld.accountants import SubsampledGaussianPLD
from ..rdp import DEFAULT_ORDERS, rdp_to_epsilon, subsampled_gaussian_rdp
from ..registry import AccountantEntry, Calibratable
from .problem import Problem
from .search_range import search_range

_RDP_MARGIN = (
    0.5  # an RDP epsilon at most this fraction of the target settles it (far beyond its rounding)
)


def every_noise_meets(
    entry: AccountantEntry,
    parameter: str,
    spec: Calibratable,
    side: Bound,
    eps: np.ndarray,
    dlt: np.ndarray,
    params: dict[str, float | np.ndarray],
    first: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Per target, whether it is settled without a search, and its value: the noise multiplier of a
    Poisson-sampled training run (``training.DPSGD``, ``DPFedAvg``), whose RDP bound at the search
    floor (``tiny ** 0.25``; the subsampled Gaussian's curve, Mironov, Talwar & Zhang 2019,
    converted by ``rdp.rdp_to_epsilon``) is at most ``_RDP_MARGIN`` times the target epsilon at the
    target delta.

    The RDP epsilon is an upper bound on the run's epsilon, and more noise is post-processing
    (adding an independent Gaussian), so then every noise multiplier searched meets the target, and
    the search would only walk down to where the PLD refuses its loss grid (a subsampled step of
    small noise reaches a privacy loss of 1 / (2 sigma^2): composing it is refused only after the
    wide grid is built, a costly trial).  Such a target's upper side gets its start instead, where
    the accountant's own certified bound was evaluated and met it; a target whose start the
    accountant refuses or finds short of the target is searched as any other.  The margin of a
    factor 2 covers the floating-point rounding of the RDP evaluation (relative errors of a few ulps
    per term); the upper side returned is certified by the accountant's bound, evaluated there,
    whatever the RDP decided.  Its lower side is 0 (the search's answer there: a lower bound, never
    above the truth, meets the target at every noise it evaluates until the range or the
    accountant's grid ends, so nothing is certain).

    Returns
    -------
    settled : ndarray of bool
        Per target, whether it is settled.
    value : ndarray
        A settled target's value: the start clipped to the search range (upper side), or 0 (lower
        side).
    """
    settled = np.zeros(eps.size, dtype=bool)
    unsettled = (settled, first)
    factory: Any = (
        entry.factory
    )  # a training entry: the class, its sampling (and steps_per_epoch) bound
    bound: dict[str, Any] = {}
    while isinstance(factory, functools.partial):
        bound, factory = {**factory.keywords, **bound}, factory.func
    poisson_run = (
        factory in (training.DPSGD, training.DPFedAvg) and bound.get("sampling") == "poisson"
    )
    if (
        not poisson_run
        or side not in ("upper", "lower")
        or parameter != "noise_multiplier"
        or not eps.size
    ):
        return unsettled
    try:
        run = entry.build(**{**params, parameter: np.ones(eps.size)})
    except (TypeError, ValueError):  # not a run in these words: the search words any refusal
        return unsettled
    pld = getattr(run, "_accountant", None)
    if not isinstance(pld, SubsampledGaussianPLD):
        return unsettled
    floor = float(np.finfo(float).tiny) ** 0.25
    rate = np.broadcast_to(np.asarray(pld.sampling_rate, dtype=float), eps.shape)
    steps = np.broadcast_to(np.asarray(run.steps, dtype=float), eps.shape)
    rates, which = np.unique(
        rate, return_inverse=True
    )  # one curve per distinct rate (a sweep repeats them)
    with np.errstate(over="ignore", invalid="ignore"):
        per_step = subsampled_gaussian_rdp(np.full(rates.size, floor), rates, DEFAULT_ORDERS)
        curves = steps[:, None] * per_step[which]
    curves = np.where(np.isnan(curves), np.inf, curves)
    bounds = np.asarray(rdp_to_epsilon(curves, DEFAULT_ORDERS, dlt), dtype=float).reshape(eps.shape)
    candidates = np.flatnonzero(bounds <= _RDP_MARGIN * eps)
    if not candidates.size:
        return unsettled
    if side == "lower":
        settled[candidates] = True
        return settled, np.zeros(eps.size)
    lower, upper = search_range(spec, params, eps.size)
    start = np.clip(first, lower, upper)
    problem = Problem(entry, parameter, spec, eps, dlt, params, side)
    excess, refused = problem.hard_side_excess(
        start[candidates], candidates
    )  # a refused start: the search moves it
    settled[candidates[~refused & (excess <= 0)]] = True
    return settled, start
