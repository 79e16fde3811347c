"""The core's saddle-point estimates of a tilted read's window tail (pld/reads/tilted_read_tail.hpp, through
the tests' front end, tests/pld/refine/read_tail.py) against the tilted distribution's moments in mpmath: the spread is sqrt(T K''), K''
the tilted loss's variance, and the tail taken is the largest power of ten meeting the budget (1) of the header."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from hockeystick.pld.grid.pmf import GridPMF
from hockeystick.pld.grid.tail import DEFAULT_TAIL

from .read_tail import READ_TAIL, read_tail, saddle_looseness

# a round's loss on a grid of 1e-2: mostly near 0, a thin tail out to 0.4 (a subsampled round's shape)
PMF = GridPMF(
    -3, 1e-2, np.array([0.02, 0.1, 0.3, 0.4, 0.1, 0.05, 0.02] + [1e-3] * 30), 0.0, 0.0, True
)


def _tilted_moments(pmf: GridPMF, lam: float) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(K(lam), K''(lam)) of one round, at 30 digits: the log-moment and the tilted loss's variance."""
    with mpmath.workdps(30):
        losses = [mpmath.mpf(pmf.k_lo + i) * mpmath.mpf(pmf.h) for i in range(pmf.p.size)]
        weights = [mpmath.mpf(float(p)) * mpmath.exp(lam * x) for p, x in zip(pmf.p, losses)]
        total = mpmath.fsum(weights)
        mean = mpmath.fsum(w * x for w, x in zip(weights, losses)) / total
        second = mpmath.fsum(w * x * x for w, x in zip(weights, losses)) / total
        return mpmath.log(total), second - mean**2


@pytest.mark.parametrize("rounds, lam", [(1000, 5.0), (100, 30.0), (10_000, 1.5)])
def test_the_spread_and_looseness_are_the_tilted_variances(rounds, lam):
    looseness, spread = saddle_looseness(PMF, rounds, lam)
    _, variance = _tilted_moments(PMF, lam)
    exact = math.sqrt(float(rounds * variance))
    assert spread == pytest.approx(exact, rel=1e-5)
    assert looseness == pytest.approx(
        lam * (lam + 1.0) * math.sqrt(2.0 * math.pi) * exact, rel=1e-5
    )


@pytest.mark.parametrize("rounds, lam", [(1000, 5.0), (100, 30.0), (10_000, 1.5), (10, 200.0)])
def test_the_tail_is_the_largest_power_of_ten_within_the_budget(rounds, lam):
    # (1): log(2 t) - 0.75 lam s sqrt(2 log(1 / t)) <= log(1e-13) - log(R), R and s from the exact moments
    _, variance = _tilted_moments(PMF, lam)
    spread = math.sqrt(float(rounds * variance))
    budget = math.log(1e-13) - math.log(lam * (lam + 1.0) * math.sqrt(2.0 * math.pi) * spread)

    def meets(t: float) -> bool:
        return (
            math.log(2.0 * t) - 0.75 * lam * spread * math.sqrt(2.0 * math.log(1.0 / t)) <= budget
        )

    tail = read_tail(PMF, rounds, lam)
    assert DEFAULT_TAIL <= tail <= READ_TAIL
    if tail > DEFAULT_TAIL:
        assert meets(tail)
    if tail < READ_TAIL:
        assert not meets(10.0 * tail)
