"""The Chernoff bound on the composed mass above a tilted window cut short, in the core
(cpp/include/hockeystick/pld/reads/cut_window_mass.hpp, through ``compose.tilted``'s ``summed_moments`` and
``chernoff_above``): the sum of the factors' log-moments and the bound are their formulas evaluated straightforwardly
in Python floats, bit for bit (the rows added in order, non-finite values inf); and the bound lies above the exact
mass at or above x of a two-point PMF composed T times (binomial tails, mpmath at 40 digits)."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld.compose import tilted
from hockeystick.pld.grid.pmf import GridPMF

U = 2.0**-53


def summed_by_formula(terms: np.ndarray) -> list[float]:
    """Each column's rows added in order, raised by (rows + 4) u of their magnitudes; inf where not finite."""
    out = []
    for column in terms.T.tolist():
        total, magnitude = column[0], abs(column[0])
        for t in column[1:]:
            total += t
            magnitude += abs(t)
        k = total + (len(column) + 4) * U * magnitude
        out.append(k if math.isfinite(k) else math.inf)
    return out


def chernoff_by_formula(lams: np.ndarray, k: np.ndarray, x: float) -> float:
    """min over the tilts of exp(K - lam x + 4 u (|K| + |lam x|)) raised by 16 u (|exponent| + 1), at most 1."""
    best = math.inf
    for lam, kk in zip(lams.tolist(), k.tolist()):
        exponent = kk - lam * x + 4.0 * U * (abs(kk) + abs(lam * x))
        if math.isfinite(exponent):
            best = min(best, exponent)
    if not best < 0.0:
        return 1.0
    return min(1.0, math.exp(best) * (1.0 + 16.0 * U * (abs(best) + 1.0)))


@pytest.mark.parametrize("rows", [1, 3, 11])
def test_the_sum_and_the_bound_are_their_formulas_bit_for_bit(rows: int) -> None:
    """Rows of count x log-moment of random PMFs on the grid 1e-3 (losses in [-0.05, 0.05], 200 rounds each), one
    moment overflowed to inf in the first row and one to -inf in the last (inf and nan sums); the bound at losses
    where it lies strictly between 0 and 1."""
    rng = np.random.default_rng(rows)
    h = 1e-3
    lams = tilted.ABOVE_LAMBDAS / h
    terms = []
    for _ in range(rows):
        p = rng.random(101)
        pmf = GridPMF(-50, h, p / p.sum(), 0.0, 0.0, True)
        terms.append(200.0 * pmf.log_mgf(lams))
    terms = np.array(terms)
    terms[0, 5], terms[-1, 7] = math.inf, -math.inf
    k = _core.pld_reads.summed_log_moments(terms)
    assert k.tolist() == summed_by_formula(terms)
    bounds = [tilted.chernoff_above(lams, k, x) for x in rows * np.array([0.5, 1.0, 2.0, 3.0])]
    assert all(0.0 < b < 1.0 for b in bounds)
    assert bounds == [
        chernoff_by_formula(lams, k, x) for x in rows * np.array([0.5, 1.0, 2.0, 3.0])
    ]


def test_the_bound_lies_above_the_exact_composed_mass() -> None:
    """Masses 0.7 at loss -h and 0.3 at loss 2h, composed 50 times: the mass at grid losses >= x is a binomial
    tail, and the bound from the summed moments (``summed_moments``) is at least it at every x tried."""
    h, rounds = 0.1, 50
    pmf = GridPMF(-1, h, np.array([0.7, 0.0, 0.0, 0.3]), 0.0, 0.0, True)
    lams, k = tilted.summed_moments([(pmf, rounds)])
    with mp.workdps(40):
        for x in (0.5, 2.0, 5.0, 9.0, 14.0):
            # sum of the rounds' grid indices -rounds + 3 j for j rounds at 2: at least x / h
            least = math.ceil((x / h + rounds) / 3.0 - 1e-9)
            exact = mp.fsum(
                mp.binomial(rounds, j) * mp.mpf(0.3) ** j * mp.mpf(0.7) ** (rounds - j)
                for j in range(max(least, 0), rounds + 1)
            )
            assert tilted.chernoff_above(lams, k, x) >= exact, x
