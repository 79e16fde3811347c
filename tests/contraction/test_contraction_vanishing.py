"""Where the first factor lies far in theta's tail the kernels answer without evaluating the factors.

The geometric bound w theta_eps(r1) G(theta_eps(r2), T) is below the double range once
theta_eps(r1) w T < e^-760 (bounds.hpp, detail::bound_vanishes), and reported as the least subnormal.  Both routes that skip the factors there (the per-point kernel and a
factor table given log_rest_bound) must give bit for bit what the factors themselves give, on a band of
points straddling the border, where the bound is a subnormal number on one side and the least one on the other; and
the second factor's complement, skipped where it underflows, must be 0 there (mpmath at 50 digits).
"""

from __future__ import annotations

import mpmath as mp
import numpy as np

from hockeystick import _core


def _band() -> tuple[np.ndarray, ...]:
    """(eps, w, T, r1, r2) with -x1^2/2 + log(w T) from -790 to -700, x1 = eps/r1 - r1/2."""
    rng = np.random.default_rng(20261202)
    n = 4000
    r1 = np.exp(rng.uniform(np.log(0.05), np.log(4.0), n))
    w = np.exp(rng.uniform(np.log(1e-4), np.log(1.0), n))
    terms = np.floor(np.exp(rng.uniform(0.0, np.log(1e6), n)))
    exponent = rng.uniform(700.0, 790.0, n) + np.log(w * terms)
    eps = r1 * (np.sqrt(2.0 * exponent) + 0.5 * r1)
    r2 = np.exp(rng.uniform(np.log(0.1), np.log(300.0), n))
    return eps, w, terms, r1, r2


def _bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x).view(np.int64)


def _from_factors(w: np.ndarray, terms: np.ndarray, pairs: tuple[np.ndarray, ...]) -> np.ndarray:
    """The geometric bound from a factor table (``gaussian_factor_pairs``' five arrays)."""
    return _core.contraction.geometric_bound_from_factors(
        w,
        terms,
        first_value=pairs[0],
        first_log=pairs[1],
        product_complement=pairs[2],
        product_log=pairs[3],
        product_log_complement=pairs[4],
        threads=1,
    )


def test_vanishing_bound_is_the_factors_value() -> None:
    eps, w, terms, r1, r2 = _band()
    c = _core.contraction
    full = c.gaussian_factor_pairs(eps, r1, r2, threads=1)  # every factor evaluated
    reference = _from_factors(w, terms, full)
    # both sides of the border: the least subnormal (a positive bound whose double is 0) and above it
    least = np.nextafter(0.0, 1.0)
    assert (reference == least).mean() > 0.2 and (reference > least).mean() > 0.2
    direct = c.geometric_bound_delta(
        eps, weight=w, terms=terms, r_first=r1, r_product=r2, threads=1
    )
    bound = float(np.log(w.max()) + np.log(terms.max()))
    table = c.gaussian_factor_pairs(eps, r1, r2, log_rest_bound=bound, threads=1)
    assert (table[1] == np.finfo(float).min).any()  # the table skipped some pairs, each positive
    tabled = _from_factors(w, terms, table)
    np.testing.assert_array_equal(_bits(direct), _bits(reference))
    np.testing.assert_array_equal(_bits(tabled), _bits(reference))


def test_skipped_complement_underflows() -> None:
    """1 - theta_eps(r) = Q(-x1) + e^eps Q(x2) (x1 < 0) is below the least subnormal wherever the
    kernel reads it as 0, and the kernel's value just inside the border."""
    eps = np.array([0.0, 0.5, 2.0, 10.0])
    r = np.linspace(76.0, 78.5, 26)  # log phi(x1) crosses -747 near r = 77.3
    e, rr = (x.ravel() for x in np.meshgrid(eps, r))
    table = _core.contraction.gaussian_factor_pairs(e, rr, rr, threads=1)
    complement = table[2]
    assert (complement == 0).any() and (complement > 0).any()
    with mp.workdps(50):
        for ei, ri, ci in zip(e, rr, complement):
            x1 = mp.mpf(ei) / mp.mpf(ri) - mp.mpf(ri) / 2
            exact = mp.ncdf(x1) + mp.exp(mp.mpf(ei)) * mp.ncdf(-(x1 + mp.mpf(ri)))
            if ci == 0:
                assert exact < mp.mpf(2) ** -1075
            else:
                # to 1e-12 relative, or to a few of the least subnormal's units where it is subnormal
                assert abs(mp.mpf(ci) - exact) < max(1e-12 * exact, mp.mpf(2) ** -1072)
