"""Where a calibration through the subsampled-Gaussian PLD starts: the central-limit estimate.

For T rounds of the Poisson-subsampled Gaussian with rate q and noise s = sigma / sensitivity,
the composed privacy loss tends to that of mu-GDP with

    mu = q sqrt(T (e^{1/s^2} - 1))

(Bu, Dong, Long, Su, "Deep learning with Gaussian differential privacy", HDSR 2020, Thm 5; Dong,
Roth, Su, JRSS-B 2022, Cor. 5.4), and mu-GDP meets (eps, delta) exactly when mu = theta_radius(eps,
delta) (paper 004, eq. 8).  Solved for sigma, rounds or q in closed form, that is where
``calibrate`` starts bracketing with small steps, instead of at 1 with factors 4, 16, 256, ...
(which pass through 1e9 rounds, or sigma = 1/4, on the way).  Only the start: the answer is
bracketed and checked on the PLD itself, so a poor estimate costs steps, never validity.  The
approximation is optimistic for heavy-tailed losses (small sigma, few rounds): there it falls below
the calibrated sigma. With q = 1 the rounds are Gaussian and mu = sqrt(T) / s exactly.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ...numerics.hockey_stick import theta_radius
from ..mechanisms.constructors import DEFAULT_INTERVAL

_EXP_CAP = 700.0  # e^{1/s^2} - 1 overflows beyond this exponent; such an s is far below any answer


def calibration_start(
    parameter: str, epsilon: np.ndarray, delta: np.ndarray, params: Mapping[str, float | np.ndarray]
) -> np.ndarray | None:
    """Per target, the central-limit value of ``parameter`` (sigma, rounds or sampling_rate) meeting
    (epsilon, delta) given the other parameters; None for another parameter.  Where the estimate is
    not a positive finite number (a target no value meets), 1 (``calibrate``'s default start)."""
    if parameter not in ("sigma", "rounds", "sampling_rate"):
        return None
    mu = np.asarray(theta_radius(np.asarray(epsilon, float), np.asarray(delta, float)), dtype=float)
    sensitivity = np.asarray(params.get("sensitivity", 1.0), dtype=float)
    q = np.asarray(params.get("sampling_rate", 1.0), dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if parameter == "sigma":
            t = np.asarray(params["rounds"], dtype=float)
            clt = 1.0 / np.sqrt(np.log1p(mu * mu / (q * q * t)))
            estimate = np.where(q == 1.0, np.sqrt(t) / mu, clt) * sensitivity
        else:
            s = np.asarray(params["sigma"], dtype=float) / sensitivity
            gain = np.expm1(np.minimum(1.0 / (s * s), _EXP_CAP))  # e^{1/s^2} - 1
            if parameter == "rounds":
                estimate = np.round(np.where(q == 1.0, (mu * s) ** 2, mu * mu / (q * q * gain)))
            else:
                estimate = np.minimum(
                    mu / np.sqrt(np.asarray(params["rounds"], dtype=float) * gain), 1.0
                )
    estimate = np.broadcast_to(estimate, np.shape(epsilon))
    return np.where(np.isfinite(estimate) & (estimate > 0), estimate, 1.0)


COARSE_FACTORS = (
    20.0,
    10.0,
)  # the coarse grids, as multiples of the requested one (coarsest first)
COARSEST_GRID = 0.02  # ... never coarser than this (the h^2 law of the shift holds below it)


def calibration_grids(
    parameter: str, params: Mapping[str, float | np.ndarray]
) -> list[tuple[float, dict[str, float]]]:
    """Coarser grids on which ``calibrate`` solves first, then the requested grid h: [(h_k,
    overrides_k)], coarsest first, the requested grid last (overrides {}); [] where there are none
    to use.

    Every grid's bound is certified, so the grids only move where the search on the requested grid
    starts, never what it accepts.  On grid h the calibrated log value lies about c h^2 from its
    limit (the bracket of the connect-the-dots PLD shrinks like h^2, see ``grid_start.StartGrid``),
    so two coarse answers extrapolate (Richardson) to the requested grid, and a coarse evaluation
    costs a fraction of a fine one (window and cells scale like 1/h).  None with ``accuracy=`` (the
    grid is chosen per point there) or where the requested grid is already too coarse for two
    coarser grids below ``COARSEST_GRID``, or than the least sampling rate: on a grid coarser than
    the rate, a round's loss spans less than a cell, so its composition's shift is first order in
    the grid (no h^2 law to extrapolate) and cannot answer however fine the grid is
    (``question.plain_grid_misses``), where the accountant reads the default besides on every trial.
    """
    if parameter not in ("sigma", "rounds", "sampling_rate") or params.get("accuracy") is not None:
        return []
    given = params.get("value_discretization_interval")
    h = DEFAULT_INTERVAL if given is None else np.asarray(given, dtype=float)
    if np.ndim(h) != 0 or not 0 < float(h) * max(COARSE_FACTORS) <= COARSEST_GRID:
        return []
    h = float(h)
    rate = params.get("sampling_rate")
    if rate is not None and float(h) * max(COARSE_FACTORS) > float(np.min(rate)):
        return []
    return [(k * h, {"value_discretization_interval": k * h}) for k in COARSE_FACTORS] + [(h, {})]
