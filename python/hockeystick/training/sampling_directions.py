"""The two directions of a training run's sampling scheme: the (remove, add) one-direction PLDs of
the accountants that keep them, read through their public properties (``risk``'s directional
curves; ``SamplingScheme.directions``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import pld
from ..pld.mechanisms import subsampled_gaussians


def balls_in_bins_pair(accountant: Any) -> tuple[Any, Any] | None:
    """(remove, add) of a balls-in-bins accountant at one point: its epochs' PLD, direction by
    direction; None for k > 1 records a step (a closed-form Gaussian lower side, no directional
    pair).

    Parameters
    ----------
    accountant : pld.BallsInBinsGaussianPLD
        One mechanism (single sigma, steps_per_epoch, rounds and steps_per_record).

    Returns
    -------
    tuple or None
        Two one-direction ``pld.PrivacyLossDistribution``, or None.

    Raises
    ------
    ValueError
        If the accountant holds arrays of more than one point.
    """
    points = accountant.parameter_arrays
    if any(np.size(v) != 1 for v in points.values()):
        raise ValueError(
            "accountant must describe one mechanism (single sigma, steps_per_epoch, rounds and "
            f"steps_per_record), got arrays of sizes {[np.size(v) for v in points.values()]}: build one "
            "accountant per point"
        )
    point = tuple(float(np.ravel(v)[0]) for v in points.values())
    if point[3] != 1:  # k > 1: a closed-form Gaussian lower side, no directional pair
        return None
    composed = accountant.epochs_pld(point)
    remove, add = (pld.PrivacyLossDistribution([d], composed.tail) for d in composed.directions)
    return remove, add


def subsampled_gaussian_pair(accountant: Any) -> tuple[Any, Any]:
    """(remove, add) of a Poisson-subsampled Gaussian at one point: each direction's one-round PLD
    on the accountant's grid and tail, self-composed ``rounds`` times; at q = 1 the Gaussian
    mechanism, symmetric (add None).

    Parameters
    ----------
    accountant : pld.SubsampledGaussianPLD
        One mechanism (single sigma, sampling_rate, rounds and sensitivity).

    Returns
    -------
    tuple
        (remove, add) ``pld.PrivacyLossDistribution``, or (accountant, None) at q = 1.

    Raises
    ------
    ValueError
        If the accountant holds arrays of more than one point.
    """
    values = [
        np.ravel(v)
        for v in (
            accountant.sigma,
            accountant.sampling_rate,
            accountant.rounds,
            accountant.sensitivity,
        )
    ]
    if any(v.size != 1 for v in values):
        raise ValueError(
            "accountant must describe one mechanism (single sigma, sampling_rate, rounds and "
            f"sensitivity), got arrays of sizes {[v.size for v in values]}: build one accountant per "
            "point"
        )
    sigma, q, rounds, sensitivity = (float(v[0]) for v in values)
    if q == 1.0:  # the Gaussian mechanism: symmetric, the accountant's closed form
        return accountant, None
    remove, add = (
        subsampled_gaussians(
            [sigma],
            [q],
            sensitivity=[sensitivity],
            value_discretization_interval=accountant.value_discretization_interval,
            tail=accountant.tail,
            directions=d,
        )[0].self_compose(int(rounds))
        for d in ("remove", "add")
    )
    return remove, add
