"""The core's grid PMF's log-moment K(lam) = log sum_k p_k e^{lam l_k} rounded up
(``_core.pld_grid.log_mgf``, pld/grid/moments.hpp) against a 50-digit reference: never below it and
within 1e-10 of it; on the pass scaled by the largest lam l_k, on blocks whose first term underflows,
and on the pass rescaled by the largest log p_k + lam l_k (every mass below 1e-250)."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld.compose.log_moments import log_mgf_at
from hockeystick.pld.grid.pmf import GridPMF

from ..log_mgf_reference import exact_log_mgf


def _decaying() -> tuple[np.ndarray, int, float]:
    rng = np.random.default_rng(5)
    p = rng.random(600) * np.exp(-rng.random(600) * 30)
    p[rng.random(600) < 0.2] = 0.0
    return p, -350, 1e-3


def _underflowing_block() -> tuple[np.ndarray, int, float]:
    p = np.zeros(33)
    p[0], p[1], p[31], p[32] = 1e-20, 1.0, 1.0, 1e-20  # a block's first term below e^-745
    return p, -5, 1.0


def _tiny_masses() -> tuple[np.ndarray, int, float]:
    return np.random.default_rng(6).random(40) * 1e-300, 3, 0.5


@pytest.mark.parametrize(
    ("pmf", "lams"),
    [
        (_decaying, [-40.0, -0.3, 0.0, 0.05, 2.0, 35.0, 900.0]),
        (_underflowing_block, [-200.0, -24.0, 30.0, 200.0]),
        (_tiny_masses, [-2.0, 0.5, 3.0]),
    ],
    ids=["decaying", "underflowing-block", "tiny-masses"],
)
def test_the_upper_side_is_at_and_near_the_exact_log_moment(pmf, lams):
    p, k_lo, h = pmf()
    lam = np.array(lams)
    upper = _core.pld_grid.log_mgf(p, k_lo=k_lo, h=h, lam=lam)
    for x, up in zip(lams, upper):
        exact = exact_log_mgf(p, k_lo, h, x)
        assert exact <= up
        assert up - exact <= 1e-10 * max(1.0, abs(float(exact)))


def test_the_kept_values_are_the_cores():
    p, k_lo, h = _decaying()
    pmf = GridPMF(k_lo, h, p, 0.0, 0.0, True)
    lam = np.array([3.0, -1.0, 0.25, 3.0])
    upper = _core.pld_grid.log_mgf(p, k_lo=k_lo, h=h, lam=lam)
    for piece in (lam[:2], lam, lam[::-1]):  # asked in pieces and again: the values kept
        at = [list(lam).index(x) for x in piece]
        np.testing.assert_array_equal(log_mgf_at(pmf, piece), upper[at])


def test_a_lam_is_read_alike_alone_and_among_others():
    """Up to sixteen lams of one sign share a pass over the masses (their sums in AVX registers where the CPU has
    them, in scalar code otherwise and for a lam asked alone): each lam's value is the same double either
    way, in passes of sixteen, eight and four lanes."""
    p, k_lo, h = _decaying()
    rng = np.random.default_rng(7)
    lam = np.concatenate([rng.uniform(0.01, 40.0, 19), -rng.uniform(0.01, 40.0, 7)])
    together = _core.pld_grid.log_mgf(p, k_lo=k_lo, h=h, lam=lam)
    alone = np.array(
        [_core.pld_grid.log_mgf(p, k_lo=k_lo, h=h, lam=lam[i : i + 1])[0] for i in range(lam.size)]
    )
    np.testing.assert_array_equal(together, alone)
