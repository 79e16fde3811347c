"""The upper PMF's read-back (``pld.sampling.grid_readback``): compensated suffix sums against ``math.fsum``, the
finite curve's lower bound against mpmath at 50 digits (never above it, within its stated error), and the covering
PMF's curve at or above its targets at every grid loss with its total mass at least 1, the shortfall carried by a
relative raise of the masses rather than by mass at +infinity."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy.stats import norm

from hockeystick.pld.sampling.grid_readback import (
    UNIT_ROUNDOFF,
    covering_upper_pmf,
    finite_curve_from_below,
    suffix_sums_above,
)


def _random_masses(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    p = rng.exponential(size=n) * np.exp(-rng.uniform(0.0, 30.0, size=n))
    return p / math.fsum(p.tolist())


@pytest.mark.parametrize("seed", [0, 1])
def test_suffix_sums_are_within_their_bound_of_the_exact_sums(seed: int) -> None:
    x = _random_masses(5000, seed)
    ours = suffix_sums_above(x)
    assert ours is not None
    exact = np.array(
        [math.fsum(x[j + 1 :].tolist()) for j in range(0, x.size, 97)]
    )  # correctly rounded
    n = x.size
    bound = (
        UNIT_ROUNDOFF + (n * UNIT_ROUNDOFF) ** 2
    ) * exact + UNIT_ROUNDOFF * exact  # fsum's own half ulp
    assert np.all(np.abs(ours[::97] - exact) <= bound)
    # the plain recursive sums are further off than the compensated ones somewhere (the test can tell them apart)
    plain = np.concatenate([np.cumsum(x[::-1])[::-1][1:], [0.0]])
    assert np.max(np.abs(plain[::97] - exact)) > np.max(np.abs(ours[::97] - exact))


def _exact_finite_curve(k_lo: int, h: float, p: np.ndarray, j: int) -> mpmath.mpf:
    """sum_{k > j} p_k (1 - e^{(j - k) h}) at 50 digits, h and the masses as the doubles given."""
    hh = mpmath.mpf(h)
    return mpmath.fsum(
        mpmath.mpf(float(p[k])) * -mpmath.expm1((j - k) * hh) for k in range(j + 1, p.size)
    )


@pytest.mark.parametrize(("k_lo", "h"), [(-40, 0.05), (1000, 1e-2)])
def test_finite_curve_from_below_is_below_the_exact_curve_and_within_its_error(
    k_lo: int, h: float
) -> None:
    mpmath.mp.dps = 50
    p = _random_masses(300, 3)
    low = finite_curve_from_below(k_lo, h, p)
    assert low is not None
    above = np.concatenate([np.cumsum(p[::-1])[::-1][1:], [0.0]])
    spread = max(abs(k_lo), abs(k_lo + p.size)) * h
    for j in range(0, p.size, 7):
        exact = _exact_finite_curve(k_lo, h, p, j)
        assert mpmath.mpf(float(low[j])) <= exact
        # tight: the stated error 2u (L + 20) S_j subtracted, plus at most that much of round-off
        assert (
            exact - mpmath.mpf(float(low[j]))
            <= 4.01 * UNIT_ROUNDOFF * (spread + 20.0) * above[j] + 1e-300
        )


def _subsampled_gaussian_targets(
    q: float, k_lo: int, h: float, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """The polyline of H(g) = q H_G(1 + (g - 1) / q) (the remove curve of a Poisson-subsampled Gaussian of shift 1)
    at g_j = e^{(k_lo + j) h}: its grid points and values (convex, non-increasing, H(0) = 1)."""
    g = np.exp((k_lo + np.arange(n)) * h)
    arg = np.log1p(np.maximum(g - 1.0, -q * (1 - 1e-15)) / q)
    gaussian = norm.sf(arg - 0.5) - np.exp(arg) * norm.sf(arg + 0.5)
    return g, np.where(g > 1.0 - q, q * gaussian, 1.0 - g)


def _polyline_masses(g: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, float]:
    slopes = np.append(
        np.diff(np.concatenate([[1.0], w])) / np.diff(np.concatenate([[0.0], g])), 0.0
    )
    return np.maximum(g * np.diff(slopes), 0.0), float(w[-1])


def test_covering_pmf_reaches_its_targets_with_almost_no_mass_at_infinity() -> None:
    """1000 grid points of the subsampled Gaussian's remove curve (q = 0.01): at every 50th grid loss the covering
    PMF's curve, read exactly by mpmath, is at or above the target; its total mass is at least 1 (exact rational sum);
    its mass at +infinity is the polyline's end value plus less than 1e-17 (the read of n ulps of the curve it
    replaces would add about 4 (n + 4) u = 1e-12 of the curve)."""
    mpmath.mp.dps = 50
    k_lo, h, n = -101, 5e-3, 1000
    g, w = _subsampled_gaussian_targets(0.01, k_lo, h, n)
    p, p_inf = _polyline_masses(g, w)
    pmf = covering_upper_pmf(k_lo, h, p, p_inf, w)
    hh = mpmath.mpf(h)
    for j in range(0, n, 50):
        curve = mpmath.mpf(pmf.p_inf) + mpmath.fsum(
            mpmath.mpf(float(pmf.p[k])) * -mpmath.expm1((j - k) * hh) for k in range(j + 1, n)
        )
        assert curve >= mpmath.mpf(float(w[j]))
    assert sum(map(Fraction, [*pmf.p.tolist(), pmf.p_inf])) >= 1  # the curve at g = 0, exactly
    assert pmf.p_inf - p_inf < 1e-17 and pmf.pessimistic
    assert np.all(pmf.p >= p) and np.max(pmf.p / np.where(p > 0, p, 1.0)) < 1.0 + 1e-9


def test_covering_pmf_refuses_targets_of_another_size() -> None:
    with pytest.raises(ValueError, match="one target per grid point"):
        covering_upper_pmf(0, 0.1, np.ones(3) / 3, 0.0, np.ones(2))
    with pytest.raises(ValueError, match="masses must be >= 0"):
        finite_curve_from_below(0, 0.1, np.array([0.5, -0.1]))
