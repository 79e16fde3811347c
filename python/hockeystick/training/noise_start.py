"""Where ``calibrate`` starts its search for a run's noise multiplier: a central-limit estimate per
target, and the coarser grids whose extrapolated answers start the search on the run's own grid
(only the start: the answer is bracketed and checked on the accountant itself)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..numerics.hockey_stick import theta_radius
from ..pld.refine import calibration_grids as pld_calibration_grids
from ..pld.refine import central_limit_start as pld_calibration_start
from .sampling_schemes import sampling_scheme
from .vocabulary import Sampling

_LARGEST_EPSILON = 1e307  # theta_radius's largest epsilon


def _poisson_start(
    epsilon: np.ndarray, delta: np.ndarray, rate: np.ndarray, steps: np.ndarray
) -> np.ndarray | None:
    """The subsampled Gaussian's central-limit noise 1 / sqrt(log(1 + mu^2 / (q^2 T))) per target,
    or None where some target has none (mu^2 / (q^2 T) not a finite double: a target all but every
    noise meets, epsilon near 1e307), so that calibrate starts at 1 on the run's grid without coarse
    grids."""
    mu = np.asarray(theta_radius(np.asarray(epsilon, float), np.asarray(delta, float)), float)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        ratio = mu * mu / (rate * rate * steps)
    if not np.all(np.isfinite(ratio) & (ratio > 0)):
        return None
    return pld_calibration_start("sigma", epsilon, delta, {"sampling_rate": rate, "rounds": steps})


def epoch_noise_start(
    sampling: Sampling, names: tuple[str, str, str, str]
) -> Callable[..., np.ndarray | None]:
    """``calibrate``'s start for the noise multiplier of a Poisson, balls-in-bins or shuffled run
    (``names``: the population, batch, epochs and steps words).  Poisson sampling at the
    central-limit value of its subsampled Gaussian (``pld.refine.calibration_start``: rate batch /
    population, or the ``sample_rate`` given, over the steps); balls-in-bins at the central-limit
    value of Poisson sampling at rate 1 / t (t = ceil(population / batch) steps per epoch, which it
    follows closely: docs/batches.md); shuffled batches at the exact noise of their upper side, the
    Gaussian of shift 2 per epoch begun.  Only the start: the answer is bracketed and checked on the
    accountant itself.

    Parameters
    ----------
    sampling : str
        "poisson", "balls_in_bins" or "shuffle".
    names : tuple of str
        The population, batch, epochs and steps words of the run's class.

    Returns
    -------
    Callable
        ``start(parameter, epsilon, delta, params)``: the estimate per target, or None for another
        parameter or a run it cannot read (no population and batch, nor a sample_rate for Poisson
        sampling).
    """

    def start(
        parameter: str, epsilon: np.ndarray, delta: np.ndarray, params: dict[str, Any]
    ) -> np.ndarray | None:
        if parameter != "noise_multiplier":
            return None
        # the radius solve forms 2 epsilon: a target past 1e307 starts where 1e307 would (all but no
        # noise)
        epsilon = np.minimum(np.asarray(epsilon, float), _LARGEST_EPSILON)
        scheme = sampling_scheme(sampling)
        by_rate = scheme.drawn_batches is None  # Poisson sampling: built by its rate
        if by_rate and params.get("sample_rate") is not None:
            rate = np.asarray(params["sample_rate"], float)
            if params.get(names[3]) is not None:
                taken = np.asarray(params[names[3]], float)
            elif params.get(names[2]) is not None:
                taken = np.ceil(np.asarray(params[names[2]], float) / rate)  # 1 / q steps per epoch
            else:
                return None
            return _poisson_start(epsilon, delta, rate, taken)
        if names[0] not in params or names[1] not in params:
            return None
        per_epoch = np.ceil(
            np.asarray(params[names[0]], float) / np.asarray(params[names[1]], float)
        )
        if params.get(names[3]) is not None:
            steps = np.asarray(params[names[3]], float)
        else:
            steps = np.ceil(np.asarray(params.get(names[2], 1.0), float) * per_epoch)
        if by_rate:
            rate = np.asarray(params[names[1]], float) / np.asarray(params[names[0]], float)
            return _poisson_start(epsilon, delta, rate, steps)
        if scheme.epoch_noise is not None:  # the scheme's own start
            return np.asarray(scheme.epoch_noise(epsilon, delta, steps, per_epoch), float)
        return pld_calibration_start(
            "sigma", epsilon, delta, {"sampling_rate": 1.0 / per_epoch, "rounds": steps}
        )

    return start


def noise_grids(parameter: str, params: dict[str, Any]) -> list[tuple[float, dict[str, float]]]:
    """``calibrate``'s coarser grids for the noise multiplier of a Poisson run: those of its
    accountant's sigma (``pld.refine.calibration_grids``: two grids 20 and 10 times coarser, whose
    answers, extrapolated, start the search on the run's grid).  They only move where the search
    starts, never what it accepts.

    Parameters
    ----------
    parameter : str
        The parameter calibrated (only "noise_multiplier" has grids).
    params : dict
        The run's other parameters (the grid keywords are read: value_discretization_interval,
        accuracy).

    Returns
    -------
    list of (float, dict)
        The grids, coarsest first, the run's own last (``pld.refine.calibration_grids``); [] for
        none.
    """
    if parameter != "noise_multiplier":
        return []
    return pld_calibration_grids("sigma", params)
