r"""Calibration: from (eps, delta), n, d, c, b and beta to the local noise and the granularity, with the error.

For a granularity gamma the local noise is the smallest ``local_sigma`` whose certified upper
eps(delta) over the T rounds is at most the target (bisection on a monotone bound: more noise, less
privacy loss; the answer is the bracket's upper end, so the target holds at it).  The granularity is
then the finest (smallest) gamma at which one round's wrap-around probability bound
(``modular_wrap``) is at most ``wrap_beta``: a finer grid rounds less but fills more of the 2^b
values.  The finest feasible gamma on the grid c 4^-k (k <= 20), then 12 bisection steps on log
gamma towards the next finer grid point (the answer is always a feasible end).

The error the papers plot (KLS21, Sec. 6; Agarwal, Kairouz & Liu 2021, Sec. 5): the mean squared
error of the decoded sum, summed over the d coordinates, in the update's units,

.. math::

    \mathrm{MSE} \le d\, n\, \bigl(\sigma^2 + \gamma^2 / 4\bigr),

the noise's variance (at most s^2 for N_Z(0, s^2), Canonne, Kamath & Steinke 2020, Prop. 19; exactly
mu for Skellam) plus the rounding's (at most 1/4 per coordinate in integer units), when nothing
wraps.  Beside it, the continuous Gaussian at the same privacy: N(0, sigma_G^2 I) on the sum of n
updates of norm c, T rounds, sigma_G the smallest with the exact Gaussian's eps(delta)
(``fdp.GaussianMechanism``, mu-GDP with mu = sqrt(T) c / sigma_G) at most the target, and MSE d
sigma_G^2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..base.validation import (
    choice,
    count,
    delta_target,
    epsilon_target,
    in_interval,
    moderate,
    positive_number,
    renamed_keywords,
    single,
)
from ..fdp.gaussian_mechanism import GaussianMechanism
from .accountants import DistributedDiscreteGaussian, DistributedSkellam
from .modular_wrap import NOISES, wrap_probability

__all__ = ["SecureAggregationCalibration", "calibrate_secure_aggregation"]

_STEPS = 24  # bisection steps on a log scale: log of the bracket's ratio shrinks 2^24-fold


@dataclass(frozen=True)
class SecureAggregationCalibration:
    """What ``calibrate_secure_aggregation`` returns (module docstring).

    Parameters
    ----------
    local_sigma : float
        Each client's noise in the update's units.
    granularity : float
        gamma.
    epsilon : float
        The certified upper eps(delta) at (local_sigma, granularity): at most the target.
    wrap_probability : float
        One round's wrap-around probability bound at (local_sigma, granularity), at most
        ``wrap_beta``.
    mse : float
        The decoded sum's mean squared error bound, d n (sigma^2 + gamma^2 / 4).
    gaussian_mse : float
        d sigma_G^2, the continuous Gaussian's at the same (eps, delta).
    """

    local_sigma: float
    granularity: float
    epsilon: float
    wrap_probability: float
    mse: float
    gaussian_mse: float

    @property
    def mse_ratio(self) -> float:
        """mse / gaussian_mse: what the discrete, distributed pipeline costs in error over the central Gaussian."""
        return self.mse / self.gaussian_mse


def _bisect(predicate: Any, low: float, high: float, steps: int = _STEPS) -> float:
    """The upper end of a log-scale bracket [low, high] with predicate False at low, True at high."""
    for _ in range(steps):
        middle = math.sqrt(low * high)
        low, high = (low, middle) if predicate(middle) else (middle, high)
    return high


def _noise_for(
    epsilon: float, delta: float, granularity: float, kind: str, run: dict[str, Any]
) -> float:
    """The smallest local_sigma (to the bisection's resolution, rounded up) with eps(delta) <= epsilon."""
    cls = (
        DistributedDiscreteGaussian
        if kind == "distributed_discrete_gaussian"
        else DistributedSkellam
    )
    floor = 0.5 * granularity if cls is DistributedDiscreteGaussian else 1e-6 * granularity

    def private(sigma: float) -> bool:
        return bool(
            cls(local_sigma=sigma, granularity=granularity, **run).epsilon(delta) <= epsilon
        )

    if private(floor):
        return floor
    high = 2.0 * floor
    while not private(high):
        high *= 4.0
        if high > 1e12 * run["clip_norm"]:
            raise ValueError(
                f"epsilon = {epsilon!r} is not reached with any local_sigma up to 1e12 clip norms at granularity "
                f"{granularity!r}: ask a larger epsilon or delta"
            )
    return _bisect(private, high / 4.0 if high > 2.0 * floor else floor, high)


@renamed_keywords(clients="min_surviving_clients")
def calibrate_secure_aggregation(
    *,
    epsilon: float,
    delta: float,
    min_surviving_clients: int,
    dimension: int,
    clip_norm: float,
    bits: int,
    rounds: int = 1,
    beta: float = math.exp(-0.5),
    wrap_beta: float = 1e-4,
    noise: str = "distributed_discrete_gaussian",
) -> SecureAggregationCalibration:
    """The local noise and granularity for a target (eps, delta) and b bits, with the MSE (module docstring).

    Parameters
    ----------
    epsilon : float
        Target eps > 0 of the T-round run (certified upper side, no amplification by sampling).
    delta : float
        Target delta, strictly between 0 and 1.
    min_surviving_clients : int
        n, the fewest clients whose noise is in a round's sum (dropout), as the secure-aggregation
        accountants take it; also the count the wrap-around bound assumes.  ``clients=``, its former
        name, is accepted with a DeprecationWarning.
    dimension : int
        d, >= 1.
    clip_norm : float
        c, > 0.
    bits : int
        b, the aggregate's bits per coordinate.
    rounds : int, optional
        T (default 1).
    beta : float, optional
        The conditional rounding's beta, 0 <= beta < 1 (default e^{-1/2}, KLS21's choice).
    wrap_beta : float, optional
        The wrap-around probability allowed per round, in (0, 1) (default 1e-4).
    noise : {"distributed_discrete_gaussian", "skellam"}, optional
        The clients' noise.

    Returns
    -------
    SecureAggregationCalibration
        The local noise, granularity, the certified eps, the wrap bound and the two MSEs.

    Raises
    ------
    ValueError
        If an argument breaks its rule, or no granularity keeps the wrap-around probability below
        ``wrap_beta`` at the noise the target needs (more bits are needed).

    References
    ----------
    Kairouz, Liu & Steinke 2021, Sec. 4.4 and 6; Agarwal, Kairouz & Liu 2021, Sec. 5.

    Examples
    --------
    >>> from hockeystick.secagg import calibrate_secure_aggregation
    >>> cal = calibrate_secure_aggregation(epsilon=5.0, delta=1e-5, min_surviving_clients=100, dimension=1000,
    ...                                    clip_norm=1.0, bits=16, rounds=10)
    >>> cal.epsilon <= 5.0 and cal.wrap_probability <= 1e-4 and cal.mse_ratio > 1.0
    True
    """
    eps, dlt = epsilon_target(epsilon, "epsilon"), delta_target(delta)
    if not (eps > 0 and math.isfinite(eps)):
        raise ValueError(f"epsilon must be finite and > 0, got {epsilon!r}")
    kind = choice(noise, "noise", NOISES)
    run: dict[str, Any] = dict(
        clip_norm=moderate(positive_number(clip_norm, "clip_norm"), "clip_norm"),
        dimension=count(dimension, "dimension"),
        min_surviving_clients=count(min_surviving_clients, "min_surviving_clients"),
        rounds=count(rounds, "rounds"),
        beta=float(
            in_interval(single(beta, "beta"), "beta", 0.0, 1.0, open_low=False, open_high=True)
        ),
    )
    b = count(bits, "bits", maximum=62)
    target = float(in_interval(wrap_beta, "wrap_beta", 0.0, 1.0, open_low=True, open_high=True))
    c, n, d = run["clip_norm"], run["min_surviving_clients"], run["dimension"]

    def wraps(granularity: float) -> float:
        sigma = _noise_for(eps, dlt, granularity, kind, run)
        return wrap_probability(
            bits=b,
            clients=n,
            dimension=d,
            clip_norm=c,
            granularity=granularity,
            local_sigma=sigma,
            noise=kind,
        )

    # the finest feasible granularity on the grid c 2^-k, k = 0, 2, ..., 40 (the wrap bound need not
    # be monotone in gamma: Skellam's L1 term needs more noise at coarse grids), then bisection
    # towards the next finer one
    feasible = [k for k in range(0, 41, 2) if wraps(c * 2.0**-k) <= target]
    if not feasible:
        raise ValueError(
            f"bits = {b} cannot hold the aggregate of {n} clients below the wrap-around probability {target!r} at "
            f"any granularity from the clip norm down to 2^-40 of it, with the noise that epsilon = {eps!r} at "
            f"delta = {dlt!r} needs: use more bits, or a larger epsilon"
        )
    finest = c * 2.0 ** -max(feasible)
    gamma = (
        _bisect(lambda g: wraps(g) <= target, finest / 4.0, finest, 12)
        if max(feasible) < 40
        else finest
    )
    sigma = _noise_for(eps, dlt, gamma, kind, run)
    cls = (
        DistributedDiscreteGaussian
        if kind == "distributed_discrete_gaussian"
        else DistributedSkellam
    )
    achieved = float(cls(local_sigma=sigma, granularity=gamma, **run).epsilon(dlt))
    gaussian_sigma = _bisect(
        lambda s: (
            GaussianMechanism(sigma=s, sensitivity=c, rounds=run["rounds"]).epsilon(dlt) <= eps
        ),
        c * 1e-6,
        c * 1e6,
    )
    return SecureAggregationCalibration(
        local_sigma=sigma,
        granularity=gamma,
        epsilon=achieved,
        wrap_probability=wrap_probability(
            bits=b,
            clients=n,
            dimension=d,
            clip_norm=c,
            granularity=gamma,
            local_sigma=sigma,
            noise=kind,
        ),
        mse=d * n * (sigma * sigma + gamma * gamma / 4.0),
        gaussian_mse=d * gaussian_sigma * gaussian_sigma,
    )
