"""A certified lower bound on delta near 1 from the Renyi affinity of one round (Chernoff): 1 -
delta(eps) <= e^{lam eps} A(lam)^T for every lam in [0, 1], A(lam) = E_P[e^{-lam L}] the affinity
of one round, bounded above from the cells of the discretization by Hoelder's inequality on each
cell.  The core computes both (cpp/include/hockeystick/pld/reads/affinity_ceiling.hpp, which gives
the derivation and its references; the C library's delta call reads it too)."""

from __future__ import annotations

import numpy as np

from ... import _core

# the orders lam at which A is bounded: 18 evenly spaced from 0.05 to 0.9
LAMBDAS: np.ndarray = np.asarray(_core.pld_reads.affinity_orders)


def subsampled_gaussian_log_affinity(sigma: float, sampling_rate: float) -> np.ndarray:
    """Certified upper bounds on log A(lam) of one round of the Poisson-subsampled Gaussian.

    Parameters
    ----------
    sigma : float
        The noise over sensitivity 1.
    sampling_rate : float
        The rate q; at q >= 1 (the Gaussian, read in closed form elsewhere) the bounds are 0.

    Returns
    -------
    numpy.ndarray
        Shape (2, len(LAMBDAS)): rows remove (P the mixture) and add, one bound at each lam of
        ``LAMBDAS``; 0 (A <= 1, Hoelder: a true bound that adds nothing) where the cells cannot be
        built or their sum says nothing.

    Raises
    ------
    None
    """
    return np.asarray(
        _core.pld_reads.subsampled_gaussian_log_affinity(float(sigma), float(sampling_rate))
    )


def delta_lower_near_one(
    log_affinity: np.ndarray, rounds: float, epsilon: np.ndarray
) -> np.ndarray:
    """A certified lower bound on delta(``epsilon``) of ``rounds`` rounds: 1 - min over the rows and
    lam of e^{lam eps + T log A(lam)}, rounded down.

    Parameters
    ----------
    log_affinity : numpy.ndarray
        ``subsampled_gaussian_log_affinity``'s bounds, shape (2, len(LAMBDAS)).
    rounds : float
        The rounds T.
    epsilon : numpy.ndarray
        The epsilons, any shape.

    Returns
    -------
    numpy.ndarray
        The lower deltas in the shape of ``epsilon``: below 1, 0 where the bound exceeds 1 or eps
        is NaN.

    Raises
    ------
    ValueError
        Where ``log_affinity`` does not hold two rows of ``LAMBDAS``' length.
    """
    return np.asarray(
        _core.pld_reads.delta_lower_near_one(
            np.asarray(log_affinity, dtype=np.float64),
            float(rounds),
            np.asarray(epsilon, dtype=np.float64),
        )
    )
