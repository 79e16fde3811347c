"""``RunReader``: a described PLD's bracket at the question asked, the same for every door.

For a PLD whose factors describe their run (``described_run``), the bracket of its own composition (on its grid, at
its tail) is intersected with the run's read where the question puts it, each certified:

* rounds of one Poisson-subsampled Gaussian: ``SubsampledGaussianPLD``'s default (its grid, tail, tilted and split
  reads chosen from the delta or epsilon asked: pld/refine/question.py), so the PLD object, the ``PLDAccountant``,
  the ledger and ``DPSGD`` give one bracket for one run;
* rounds of several: the tilted composition of the factors (``refine.tilted_factors`` for epsilon,
  ``refine.tilted_factors_delta`` for delta), as the dp_accounting adapter reads a plan of them;
* rounds of Gaussians: the closed form, delta = theta(r, eps) at r = sqrt(sum_i c_i / s_i^2) (paper 000 eq. 6;
  Dong, Roth & Su 2022, Cor. 3.3), r rounded outward and theta and its inverse rounded outward
  (``numerics.certified_theta``).

The intersection of certified brackets is certified, and never wider than either: a finer grid or a smaller tail
given to the PLD can only narrow the answer.  Only the arguments a run's reads take are read (epsilon >= 0 and
finite for delta); the others keep the PLD's own bracket.
"""

from __future__ import annotations

import math

import numpy as np

from ...numerics.certified_theta import theta_epsilon_lower, theta_epsilon_upper, theta_lower, theta_upper
from ..accountants.subsampled_gaussian import SubsampledGaussianPLD
from ..compose.distribution import PrivacyLossDistribution
from ..refine import tilted_factors, tilted_factors_delta
from .described_run import Segment, gaussian_rounds, subsampled_segments

UNIT_ROUNDOFF = 2.0**-53


class RunReader:
    """The question reader every ``PrivacyLossDistribution`` consults (module docstring)."""

    def reads(self, pld: PrivacyLossDistribution) -> bool:
        """Whether ``pld``'s factors describe rounds of Poisson-subsampled Gaussians or of Gaussians.

        Parameters
        ----------
        pld : PrivacyLossDistribution
            A composed PLD.

        Returns
        -------
        bool
            True where ``described_run`` finds its run.
        """
        return subsampled_segments(pld) is not None or gaussian_rounds(pld) is not None

    def read(
        self, pld: PrivacyLossDistribution, method: str, x: np.ndarray, lower: np.ndarray, upper: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The certified bracket of ``method`` at ``x`` intersected with the run's (module docstring).

        Parameters
        ----------
        pld : PrivacyLossDistribution
            A PLD ``reads`` accepts.
        method : {"delta", "epsilon"}
            What is asked: delta at epsilon ``x`` or epsilon at delta ``x``.
        x : numpy.ndarray
            The arguments, validated by the caller.
        lower, upper : numpy.ndarray
            A certified bracket at ``x`` (the PLD's own), of ``x``'s shape.

        Returns
        -------
        tuple of numpy.ndarray
            The certified (lower, upper), of ``x``'s shape.

        Raises
        ------
        ValueError
            If ``pld`` describes no run this reader answers.
        """
        lows = np.array(np.broadcast_to(lower, x.shape), dtype=np.float64)
        ups = np.array(np.broadcast_to(upper, x.shape), dtype=np.float64)
        live = np.isfinite(x) & (x >= 0.0) if method == "delta" else np.ones(x.shape, dtype=bool)
        if not np.any(live):
            return lows, ups
        segments = subsampled_segments(pld)
        gaussians = gaussian_rounds(pld) if segments is None else None
        if segments is not None:
            low, up = _subsampled(segments, method, x[live], lows[live], ups[live])
        elif gaussians is not None:
            low, up = _gaussian(gaussians, method, x[live])
        else:
            raise ValueError("this PLD describes no run the question reader answers (RunReader.reads)")
        lows[live] = np.maximum(lows[live], low)
        ups[live] = np.maximum(lows[live], np.minimum(ups[live], up))
        return lows, ups


def _subsampled(
    segments: list[Segment], method: str, x: np.ndarray, lower: np.ndarray, upper: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The bracket of rounds of Poisson-subsampled Gaussians at ``x`` (module docstring)."""
    if len(segments) == 1:
        ((noise, q, sensitivity), rounds) = segments[0]
        accountant = SubsampledGaussianPLD(sigma=noise, sampling_rate=q, rounds=rounds, sensitivity=sensitivity)
        found = accountant.epsilon(x, bound="both") if method == "epsilon" else accountant.delta(x, bound="both")
        low, up = found  # type: ignore[misc]
        return np.asarray(low, dtype=np.float64), np.asarray(up, dtype=np.float64)
    if method == "epsilon":
        return tilted_factors.tilted_factors_brackets(segments, x, lower, upper)
    lows, ups = lower.copy(), upper.copy()
    for j in range(x.size):
        lows.flat[j], ups.flat[j] = tilted_factors_delta.tilted_factors_delta(
            segments, float(x.flat[j]), float(lows.flat[j]), float(ups.flat[j])
        )
    return lows, ups


def _gaussian(rounds: list[tuple[float, int]], method: str, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The closed-form bracket of rounds of Gaussians at ``x``: r^2 = sum_i c_i / s_i^2 summed by ``math.fsum`` (each
    term within 2 u, the sum within u more), widened by (2 k + 4) u on each side before its root, each root stepped
    one ulp outward; theta and its inverse rounded outward there (``numerics.certified_theta``)."""
    r2 = math.fsum(count / (noise * noise) for noise, count in rounds)
    widen = (2 * len(rounds) + 4) * UNIT_ROUNDOFF
    r_low = math.nextafter(math.sqrt(r2 * (1.0 - widen)), 0.0)
    r_high = math.nextafter(math.sqrt(r2 * (1.0 + widen)), math.inf)
    if method == "epsilon":
        return np.asarray(theta_epsilon_lower(r_low, x), dtype=np.float64), np.asarray(
            theta_epsilon_upper(r_high, x), dtype=np.float64
        )
    return np.asarray(theta_lower(r_low, x), dtype=np.float64), np.asarray(theta_upper(r_high, x), dtype=np.float64)
