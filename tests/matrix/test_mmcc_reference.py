"""MMCC (matrix.MMCC) against a second implementation of what can be recomputed independently.

No implementation of MMCC itself is published in dp_accounting 0.6.0 or jax_privacy 2.0.0 (jax_privacy's amplified
accounting covers banded C under cyclic Poisson and balls-in-bins; dp_accounting ships the mixture-of-Gaussians
privacy loss MMCC's rows need, ``MixtureGaussianPrivacyLoss``, citing Corollary 4.7 of arXiv:2310.15526, and no
matrix mechanism).  So two parts are compared with dp_accounting 0.6.0, whose values are written below (the package
is not needed at test time):

* C = I (no tail event): MMCC's upper epsilon is the Poisson-subsampled Gaussian's, recomputed entirely by
  dp_accounting (``from_gaussian_mechanism(z, sampling_prob=q)`` self-composed T times, grid 1e-3): MMCC's value
  is at least dp_accounting's optimistic epsilon (a lower estimate of the truth) and within 0.2 % above its
  pessimistic one (the row's atoms 0 and 1 are kept exactly, ``mmcc_rows`` step 5).
* Banded, BLT and tree C, T <= 64, q in [0.01, 0.1], z in [1, 4], delta 1e-6: the composition of MMCC's own row
  mixtures (``row_factors`` at the split MMCC chose) recomputed by dp_accounting
  (``from_mixture_gaussian_mechanism`` per factor, self-composed over its rows, composed, grid 1e-3), read at
  MMCC's delta_2: MMCC's certified epsilon is at least dp_accounting's optimistic epsilon (privacy buckets; a lower
  estimate of the composed mixtures' epsilon, so a certified upper side below it would be invalid) and at most 5%
  (+0.02) above its pessimistic one (MMCC's grid is 1e-2, dp_accounting's 1e-3, and MMCC rounds outward).

This checks the mixture PLDs, their composition and the read at delta_2 against an independent engine; the tail
bounds and participation bounds are checked against exact enumeration in ``test_mmcc_pieces.py``, and the whole
against a Monte Carlo of the realizable pair in ``test_mmcc.py``.  A change to the row mixtures (``mmcc_rows``)
changes the factors these values were computed from: recompute them then (the recipe above, dp_accounting 0.6.0,
``pessimistic_estimate`` True and False, ``value_discretization_interval=1e-3``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from hockeystick.matrix import BLT, MMCC, Banded, Tree

DELTA = 1e-6


def _sqrt_column(bands: int) -> list[float]:
    """c_j = binom(2j, j) / 4^j, j < bands: the prefix-sum matrix's Toeplitz square root's first column."""
    out = [1.0]
    for j in range(1, bands):
        out.append(out[-1] * (2 * j - 1) / (2 * j))
    return out


STRATEGIES: dict[str, Any] = {
    "identity": lambda: np.eye(64),
    "banded3": lambda: Banded([1.0, 0.6, 0.3]),
    "banded8_sqrt": lambda: Banded(_sqrt_column(8)),
    "blt": lambda: BLT([0.9], [0.3]),
    "tree": lambda: Tree(),
}

# (strategy, T, z, q, delta_1 MMCC chose, dp_accounting 0.6.0 on MMCC's row mixtures at delta_2 = 1e-6 - delta_1:
#  optimistic epsilon rounded down, pessimistic epsilon rounded up, both at 1e-6)
MIXTURES = [
    ("identity", 64, 1.0, 0.1, 0.0, 6.595086, 6.627098),
    ("banded3", 16, 1.0, 0.01, 5e-07, 19.520763, 19.781804),
    ("banded3", 64, 4.0, 0.01, 5e-07, 0.424901, 0.458409),
    ("banded3", 64, 2.0, 0.05, 5e-07, 14.294548, 14.447719),
    ("banded8_sqrt", 64, 4.0, 0.1, 5e-07, 11.350882, 11.526611),
    ("blt", 64, 4.0, 0.01, 5e-07, 1.549501, 1.591426),
    ("blt", 32, 3.0, 0.05, 5e-07, 10.063454, 10.322174),
    ("tree", 16, 4.0, 0.05, 5e-07, 19.574682, 19.631572),
]

# dp_accounting 0.6.0, the Poisson-subsampled Gaussian z = 1, q = 0.1 self-composed 64 times, grid 1e-3, at 1e-6:
# (optimistic rounded down, pessimistic rounded up)
SUBSAMPLED_GAUSSIAN = (6.595085, 6.627098)


def _answer(name: str, rounds: int, z: float, q: float) -> Any:
    run = MMCC(
        strategy=STRATEGIES[name](),
        rounds=rounds,
        noise_multiplier=z,
        sampling_rate=q,
        lower_side=False,
    )
    return run.get_epsilon(DELTA)


@pytest.mark.parametrize(
    ("name", "rounds", "z", "q", "tail", "optimistic", "pessimistic"), MIXTURES
)
def test_composed_mixtures_against_dp_accounting(
    name: str, rounds: int, z: float, q: float, tail: float, optimistic: float, pessimistic: float
) -> None:
    answer = _answer(name, rounds, z, q)
    assert answer.tail_delta == tail, (
        "the split changed: the reference was read at another delta_2, recompute it"
    )
    assert optimistic <= answer.mmcc <= pessimistic * 1.05 + 0.02
    assert answer.upper <= answer.unamplified


def test_identity_against_dp_accountings_subsampled_gaussian() -> None:
    answer = _answer("identity", 64, 1.0, 0.1)
    optimistic, pessimistic = SUBSAMPLED_GAUSSIAN
    assert answer.tail_delta == 0.0
    assert optimistic <= answer.mmcc <= pessimistic * 1.002
