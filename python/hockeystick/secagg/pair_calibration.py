r"""Calibration of the Poisson-binomial mechanism and the distributed discrete Laplace to a target (eps, delta).

Each searches one parameter on a log scale for the certified upper eps(delta) of the T-round run
against the server (``secagg.pair_accountants``) at most the target, and returns the end of the
bracket where it holds:

* Poisson-binomial: the largest theta (each draw's bias per unit of x / c; a larger theta is less
  private and more accurate: the dominating pair's second branch, of probability 2 theta, grows and
  its fair coins thin). The decoded sum's MSE is at most d n c^2 / (4 m theta^2).
* distributed discrete Laplace: the smallest full-noise scale (a larger scale is more private: the
  decay a = gamma / scale falls, and Harrison's eps with it).  The MSE of the decoded sum is d (2
  beta e^{-a} / (1 - e^{-a})^2 + n / 4) gamma^2 at most: GDL(beta, a)'s variance (twice NB(beta, 1 -
  e^{-a})'s) and the n clients' rounding (at most 1/4 each, per coordinate, in integer units).

A bound computed on a grid need not be exactly monotone in the parameter searched; the bisection
keeps an end where the target was checked to hold, so the answer's eps is at most the target (it is
returned). The discrete Laplace's search asks each scale once, the run's pure bound T eps_0 first
(no grid), and stops at the least scale the accountant takes (decay gamma / scale at its limit):
a target met there is met by nothing smaller.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.validation import delta_target, epsilon_target, positive_number
from ..pld.mechanisms import DEFAULT_INTERVAL
from .pair_accountants import _MAX_DECAY, DistributedDiscreteLaplace, PoissonBinomialMechanism

__all__ = [
    "DiscreteLaplaceCalibration",
    "PoissonBinomialCalibration",
    "calibrate_distributed_discrete_laplace",
    "calibrate_poisson_binomial",
]

_STEPS = (
    12  # bisection steps on a log scale, from a bracket of ratio 4: 4^(2^-12) - 1 = 3.4e-4 relative
)


@dataclass(frozen=True)
class PoissonBinomialCalibration:
    """What ``calibrate_poisson_binomial`` returns.

    Parameters
    ----------
    theta : float
        The largest theta found with the certified eps(delta) at most the target.
    epsilon : float
        That eps (certified upper side, against the server).
    mse : float
        The decoded sum's MSE bound, d n c^2 / (4 m theta^2).
    """

    theta: float
    epsilon: float
    mse: float


@dataclass(frozen=True)
class DiscreteLaplaceCalibration:
    """What ``calibrate_distributed_discrete_laplace`` returns.

    Parameters
    ----------
    scale : float
        The smallest full-noise scale found with the certified eps(delta) at most the target.
    epsilon : float
        That eps (certified upper side, against the server).
    mse : float
        The decoded sum's MSE bound (module docstring).
    """

    scale: float
    epsilon: float
    mse: float


def _targets(epsilon: float, delta: float) -> tuple[float, float]:
    eps, dlt = epsilon_target(epsilon, "epsilon"), delta_target(delta)
    if not (eps > 0 and math.isfinite(eps)):
        raise ValueError(f"epsilon must be finite and > 0, got {epsilon!r}")
    return eps, dlt


def calibrate_poisson_binomial(
    *,
    epsilon: float,
    delta: float,
    trials: int,
    min_surviving_clients: int,
    rounds: int = 1,
    dimension: int = 1,
    clip_norm: float = 1.0,
    value_discretization_interval: float = DEFAULT_INTERVAL,
) -> PoissonBinomialCalibration:
    """The largest theta whose certified eps(delta) over T rounds is at most the target (module docstring).

    Parameters
    ----------
    epsilon : float
        Target eps > 0.
    delta : float
        Target delta in (0, 1).
    trials : int
        m.
    min_surviving_clients : int
        n.
    rounds : int, optional
        T (default 1).
    dimension : int, optional
        d (default 1).
    clip_norm : float, optional
        c, for the MSE (default 1).
    value_discretization_interval : float, optional
        The PLDs' grid spacing (default 1e-4).

    Returns
    -------
    PoissonBinomialCalibration
        theta, its certified eps and the MSE bound.

    Raises
    ------
    ValueError
        An argument outside its rule, or no theta down to 1e-6 meets the target.

    Examples
    --------
    >>> from hockeystick.secagg import calibrate_poisson_binomial
    >>> cal = calibrate_poisson_binomial(epsilon=2.0, delta=1e-5, trials=4, min_surviving_clients=20, rounds=5)
    >>> cal.epsilon <= 2.0 and 0.0 < cal.theta < 0.5
    True
    """
    eps, dlt = _targets(epsilon, delta)
    # clip_norm enters the MSE alone: checked before the search, so that a refusal costs no calibration
    c = positive_number(clip_norm, "clip_norm")
    run: dict[str, Any] = dict(
        trials=trials,
        min_surviving_clients=min_surviving_clients,
        rounds=rounds,
        dimension=dimension,
        value_discretization_interval=value_discretization_interval,
    )

    read: dict[float, float] = {}  # the certified eps(delta) at each theta asked, for the answer

    def achieved(theta: float) -> float:
        read[theta] = float(PoissonBinomialMechanism(theta=theta, **run).epsilon(dlt))
        return read[theta]

    high = 0.5 * (1.0 - 2.0**-20)
    if achieved(high) <= eps:
        low = high
    else:  # theta down by fours to a private one, then bisection between it and the next
        low = high / 4.0
        while not achieved(low) <= eps:
            high, low = low, low / 4.0
            if low < 1e-6:
                raise ValueError(
                    f"epsilon = {eps!r} at delta = {dlt!r} is not met at theta = 1e-6: ask a larger epsilon, fewer "
                    "rounds or more clients"
                )
        for _ in range(_STEPS):
            middle = math.sqrt(low * high)
            low, high = (middle, high) if achieved(middle) <= eps else (low, middle)
    acc = PoissonBinomialMechanism(theta=low, **run)
    return PoissonBinomialCalibration(low, read[low], acc.mse(c))


def calibrate_distributed_discrete_laplace(
    *,
    epsilon: float,
    delta: float,
    clip_norm: float,
    granularity: float,
    dimension: int,
    expected_clients: int,
    min_surviving_clients: int,
    rounds: int = 1,
    beta: float = 0.0,
) -> DiscreteLaplaceCalibration:
    """The smallest full-noise scale whose certified eps(delta) over T rounds is at most the target.

    Parameters
    ----------
    epsilon : float
        Target eps > 0.
    delta : float
        Target delta in (0, 1).
    clip_norm : float
        c.
    granularity : float
        gamma.
    dimension : int
        d.
    expected_clients : int
        E.
    min_surviving_clients : int
        n.
    rounds : int, optional
        T (default 1).
    beta : float, optional
        The conditional rounding's beta (default 0).

    Returns
    -------
    DiscreteLaplaceCalibration
        The scale, its certified eps and the MSE bound (module docstring).

    Raises
    ------
    ValueError
        An argument outside its rule, or no scale up to 1e12 clip norms meets the target.

    Examples
    --------
    >>> from hockeystick.secagg import calibrate_distributed_discrete_laplace
    >>> cal = calibrate_distributed_discrete_laplace(epsilon=5.0, delta=1e-5, clip_norm=1.0, granularity=0.1,
    ...                                              dimension=1, expected_clients=10, min_surviving_clients=10,
    ...                                              rounds=10)
    >>> cal.epsilon <= 5.0
    True
    """
    eps, dlt = _targets(epsilon, delta)
    c = positive_number(clip_norm, "clip_norm")
    gamma = positive_number(granularity, "granularity")
    if (
        gamma / c > _MAX_DECAY
    ):  # the search starts at one clip norm: its decay gamma / c must stay at most 700
        raise ValueError(
            f"clip_norm must be at least granularity / {_MAX_DECAY:g} = {gamma / _MAX_DECAY:.6g}, got clip_norm={c!r} "
            f"with granularity={gamma!r}: the scale search starts at one clip norm, where a discrete Laplace of decay "
            f"granularity / scale above {_MAX_DECAY:g} leaves no noise; a larger clip_norm or a finer granularity"
        )
    run: dict[str, Any] = dict(
        clip_norm=c,
        granularity=granularity,
        dimension=dimension,
        expected_clients=expected_clients,
        min_surviving_clients=min_surviving_clients,
        rounds=rounds,
        beta=beta,
    )

    floor = gamma / _MAX_DECAY  # the least scale the accountant takes: its decay at the limit
    while floor == 0.0 or gamma / floor > _MAX_DECAY:  # rounded (or underflowed) below it
        floor = math.nextafter(floor, math.inf)
    checked: dict[float, bool] = {}
    read: dict[float, float] = {}  # the certified eps(delta) where it was read, for the answer

    def holds(scale: float) -> bool:
        """The certified eps(delta) at ``scale`` is at most the target; the run's pure bound T eps_0
        (the accountant's own read, no grid) is asked first, each scale once."""
        if scale not in checked:
            acc = DistributedDiscreteLaplace(scale=scale, **run)
            if float(acc._pure_read(np.array([dlt]), "epsilon")[0]) <= eps:
                checked[scale] = True
            else:
                read[scale] = float(acc.epsilon(dlt))
                checked[scale] = read[scale] <= eps
        return checked[scale]

    low = high = c
    while not holds(high):
        low, high = high, high * 4.0
        if high > 1e12 * c:
            raise ValueError(
                f"epsilon = {eps!r} at delta = {dlt!r} is not met at any scale up to 1e12 clip norms"
            )
    while low == high or holds(low):
        if low <= floor:  # the least scale taken holds: nothing smaller to find
            high = low
            break
        low = max(low / 4.0, floor)
        if low < 1e-12 * c:
            break
    for _ in range(_STEPS if low < high else 0):
        middle = math.sqrt(low * high)
        low, high = (low, middle) if holds(middle) else (middle, high)
    acc = DistributedDiscreteLaplace(scale=high, **run)
    a, shape = acc.decay, acc.shape
    variance = 2.0 * shape * math.exp(-a) / (-math.expm1(-a)) ** 2 + acc.min_surviving_clients / 4.0
    return DiscreteLaplaceCalibration(
        high,
        read[high] if high in read else float(acc.epsilon(dlt)),
        acc.dimension * variance * acc.granularity**2,
    )
