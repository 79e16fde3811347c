r"""Individualized privacy for DP-SGD: groups of records with their own budgets, met by each group's
own sampling rate or its own noise (Boenisch, Mühl, Dziedzic, Rinberg & Papernot, "Have it your way:
individualized privacy assignment for DP-SGD", NeurIPS 2023).

Records fall into groups g = 1..G of sizes n_g (fractions w_g = n_g / sum n) with budgets epsilon_g
at one delta. A run that gives every record the strictest budget, min epsilon_g, spends the other
groups' slack; two ways use it, each calibrated on the certified upper side of the
Poisson-subsampled Gaussian's PLD (``DPSGD``), so that group g's epsilon at delta is at most
epsilon_g:

* **Sample** (``individualized_sample_rates``): one noise multiplier sigma; group g is sampled with
  the largest rate q_g whose run meets epsilon_g. The expected batch is sum w_g q_g of the data,
  against q_min (every group at the strictest group's rate) under the uniform budget.
* **Scale** (``individualized_noise``): one sampling rate q; group g needs the noise multiplier
  sigma_g that meets epsilon_g. One noise draw of standard deviation s serves all groups when group
  g's gradients are clipped to C_g = s / sigma_g (group g's noise multiplier is then s / C_g =
  sigma_g); with the clip norms averaging the nominal C, s / C = sigma_star = 1 / sum_g (w_g /
  sigma_g). The uniform budget needs sigma_max = max sigma_g for every record.

A record's guarantee is its group's: the pair that adds or removes it sees that group's rate and
noise multiplier (Poisson sampling, add/remove neighbours, as ``DPSGD``). Which group a record is in
must not depend on the data beyond what the budgets themselves reveal (Boenisch et al. assume it is
public, chosen by the record's owner).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.validation import delta_target, describe
from .extreme import calibrate

__all__ = [
    "IndividualizedNoise",
    "IndividualizedSampling",
    "individualized_noise",
    "individualized_sample_rates",
]


def _groups(target_epsilons: Any, group_sizes: Any) -> tuple[np.ndarray, np.ndarray]:
    eps = np.asarray(target_epsilons, dtype=np.float64)
    sizes = np.asarray(group_sizes, dtype=np.float64)
    if eps.ndim != 1 or eps.size == 0 or not (np.isfinite(eps) & (eps > 0)).all():
        raise ValueError(
            f"target_epsilons must be a 1-d sequence of finite numbers > 0, one per group, got {describe(target_epsilons)}"
        )
    if sizes.shape != eps.shape or not (np.isfinite(sizes) & (sizes > 0)).all():
        raise ValueError(
            f"group_sizes must hold one finite number > 0 per group ({eps.size} of them: a count of records or a "
            f"fraction of the data), got {describe(group_sizes)}"
        )
    return eps, sizes / sizes.sum()


def _steps(steps: Any) -> int:
    if isinstance(steps, (bool, np.bool_)) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"steps must be a whole number >= 1, got {describe(steps)}")
    return int(steps)


@dataclass(frozen=True)
class IndividualizedSampling:
    """The Sample method's calibration: one noise multiplier, one sampling rate per group.

    Parameters
    ----------
    target_epsilons, fractions : numpy.ndarray
        Each group's budget and its share of the records.
    noise_multiplier : float
        The noise multiplier all groups share.
    sample_rates : numpy.ndarray
        Each group's Poisson sampling rate: the largest whose run meets its budget.
    uniform_sample_rate : float
        The rate every record would get under the uniform budget min(target_epsilons).
    """

    target_epsilons: np.ndarray
    fractions: np.ndarray
    noise_multiplier: float
    sample_rates: np.ndarray
    uniform_sample_rate: float

    @property
    def expected_sample_rate(self) -> float:
        """The expected batch as a share of the data, sum_g w_g q_g."""
        return float(self.fractions @ self.sample_rates)

    @property
    def batch_lost_to_uniform(self) -> float:
        """The expected batch (a share of the data) the uniform budget loses: sum_g w_g q_g - q_min."""
        return self.expected_sample_rate - self.uniform_sample_rate


@dataclass(frozen=True)
class IndividualizedNoise:
    """The Scale method's calibration: one sampling rate, one noise multiplier (clip norm) per group.

    Parameters
    ----------
    target_epsilons, fractions : numpy.ndarray
        Each group's budget and its share of the records.
    sample_rate : float
        The Poisson sampling rate all groups share.
    noise_multipliers : numpy.ndarray
        Each group's noise multiplier sigma_g: the smallest whose run meets its budget.
    """

    target_epsilons: np.ndarray
    fractions: np.ndarray
    sample_rate: float
    noise_multipliers: np.ndarray

    @property
    def noise_multiplier(self) -> float:
        """The shared noise over the mean clip norm, sigma_star = 1 / sum_g (w_g / sigma_g)."""
        return float(1.0 / (self.fractions @ (1.0 / self.noise_multipliers)))

    @property
    def clip_scales(self) -> np.ndarray:
        """Each group's clip norm over the nominal one, C_g / C = sigma_star / sigma_g (their mean is 1)."""
        return self.noise_multiplier / self.noise_multipliers

    @property
    def uniform_noise_multiplier(self) -> float:
        """The noise multiplier every record would need under the uniform budget: max sigma_g."""
        return float(self.noise_multipliers.max())

    @property
    def noise_added_by_uniform(self) -> float:
        """The extra noise multiplier of the uniform budget: max sigma_g - sigma_star."""
        return self.uniform_noise_multiplier - self.noise_multiplier


def individualized_sample_rates(
    target_epsilons: Any,
    group_sizes: Any,
    *,
    noise_multiplier: float,
    steps: int,
    target_delta: float,
    **calibration: Any,
) -> IndividualizedSampling:
    """Boenisch et al.'s Sample method: the largest Poisson rate per group that meets its budget at one noise.

    Group g's rate q_g is ``calibrate("dp_sgd", "sample_rate", ...)`` at epsilon_g: the certified
    upper epsilon of ``DPSGD(noise_multiplier, q_g, steps)`` at ``target_delta`` is at most
    epsilon_g (the module docstring).

    Parameters
    ----------
    target_epsilons : sequence of float
        Each group's epsilon, finite and > 0.
    group_sizes : sequence of float
        Each group's number of records (or its share of the data), > 0.
    noise_multiplier : float
        The noise multiplier every step uses.
    steps : int
        The number of steps.
    target_delta : float
        The delta of every group's budget, in (0, 1).
    **calibration
        Passed to ``calibrate`` (``workers``, ``progress``).

    Returns
    -------
    IndividualizedSampling
        The rates, the uniform budget's rate and the expected batches.

    Raises
    ------
    ValueError
        If a budget or size is not a finite number > 0, the two do not have one entry per group,
        ``steps`` is not a whole number >= 1, ``target_delta`` lies outside (0, 1), or a group's
        budget is not met at any rate.

    Examples
    --------
    >>> from hockeystick.calibrate import individualized_sample_rates
    >>> plan = individualized_sample_rates([1.0, 2.0, 4.0], [0.5, 0.3, 0.2], noise_multiplier=1.0, steps=100,
    ...                                    target_delta=1e-5)
    >>> plan.sample_rates.round(4).tolist()
    [0.0139, 0.0283, 0.0571]
    >>> round(plan.expected_sample_rate / plan.uniform_sample_rate, 2)  # the expected batch against the uniform budget's
    1.93
    """
    eps, fractions = _groups(target_epsilons, group_sizes)
    delta = delta_target(target_delta, "target_delta")
    rates = calibrate(
        "dp_sgd",
        "sample_rate",
        target_epsilon=eps,
        target_delta=delta,
        noise_multiplier=noise_multiplier,
        steps=_steps(steps),
        **calibration,
    )
    rates = np.asarray(rates, dtype=np.float64)
    return IndividualizedSampling(
        eps, fractions, float(noise_multiplier), rates, float(rates[np.argmin(eps)])
    )


def individualized_noise(
    target_epsilons: Any,
    group_sizes: Any,
    *,
    sample_rate: float,
    steps: int,
    target_delta: float,
    **calibration: Any,
) -> IndividualizedNoise:
    """Boenisch et al.'s Scale method: the smallest noise multiplier per group that meets its budget at one rate.

    Group g's noise multiplier sigma_g is ``calibrate("dp_sgd", "noise_multiplier", ...)`` at
    epsilon_g; one noise draw serves all groups with group g's gradients clipped to
    ``clip_scales[g]`` times the nominal clip norm (the module docstring).

    Parameters
    ----------
    target_epsilons : sequence of float
        Each group's epsilon, finite and > 0.
    group_sizes : sequence of float
        Each group's number of records (or its share of the data), > 0.
    sample_rate : float
        The Poisson sampling rate of every step, in (0, 1].
    steps : int
        The number of steps.
    target_delta : float
        The delta of every group's budget, in (0, 1).
    **calibration
        Passed to ``calibrate`` (``workers``, ``progress``).

    Returns
    -------
    IndividualizedNoise
        The noise multipliers, the clip scales, and the uniform budget's noise multiplier.

    Raises
    ------
    ValueError
        If a budget or size is not a finite number > 0, the two do not have one entry per group,
        ``steps`` is not a whole number >= 1, ``target_delta`` lies outside (0, 1), or
        ``sample_rate`` outside (0, 1].

    Examples
    --------
    >>> from hockeystick.calibrate import individualized_noise
    >>> plan = individualized_noise([1.0, 2.0, 4.0], [0.5, 0.3, 0.2], sample_rate=0.01, steps=100, target_delta=1e-5)
    >>> plan.noise_multipliers.round(3).tolist()
    [0.902, 0.737, 0.591]
    >>> round(plan.noise_multiplier, 3), round(plan.uniform_noise_multiplier, 3)  # shared against uniform
    (0.769, 0.902)
    """
    eps, fractions = _groups(target_epsilons, group_sizes)
    delta = delta_target(target_delta, "target_delta")
    q = (
        float(sample_rate)
        if isinstance(sample_rate, (int, float, np.integer, np.floating))
        else math.nan
    )
    if isinstance(sample_rate, (bool, np.bool_)) or not (0.0 < q <= 1.0):
        raise ValueError(f"sample_rate must be a number in (0, 1], got {describe(sample_rate)}")
    sigmas = calibrate(
        "dp_sgd",
        "noise_multiplier",
        target_epsilon=eps,
        target_delta=delta,
        sample_rate=q,
        steps=_steps(steps),
        **calibration,
    )
    return IndividualizedNoise(eps, fractions, q, np.asarray(sigmas, dtype=np.float64))
