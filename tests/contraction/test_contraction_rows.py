"""The delta kernels walk a broadcast grid row by row; a factor table's rows take a kernel of their own.

geometric_bound_from_factors reads a row along which the weight and the number of terms are constant (a
factor table's inner axis) through geometric_row_from_factors (bounds.hpp), which writes out the routes of
geometric_value that take no logarithm at the point; any other layout is read point by point.  Both must
give bit for bit what the per-point kernel geometric_bound_delta gives from the radii, on points that take
every route: the expm1 form, the vanishing bound, a second factor whose complement underflows (G = T), a
first factor below 1e-250, T = inf, weights above 1 (the cap).
"""

from __future__ import annotations

import numpy as np

from hockeystick import _core


def _points() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(20261203)
    n = 3000
    r1 = np.exp(rng.uniform(np.log(0.02), np.log(5.0), n))
    r2 = np.exp(rng.uniform(np.log(0.05), np.log(500.0), n))
    eps = rng.uniform(0.0, 12.0, n)
    eps[:40] = 0.0
    return eps, r1, r2


def _bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x).view(np.int64)


def test_factor_table_rows_are_the_per_point_kernel() -> None:
    c = _core.contraction
    eps, r1, r2 = _points()
    weights = np.array([1e-6, 0.03, 2.0])
    terms = np.array([1.0, 7.0, 1e5, np.inf])
    table = c.gaussian_factor_pairs(eps, r1, r2, threads=1)

    def from_factors(w: np.ndarray, t: np.ndarray, factors: list[np.ndarray]) -> np.ndarray:
        w, t, a, al, b, bl, blc = np.broadcast_arrays(w, t, *factors)
        return c.geometric_bound_from_factors(
            w,
            t,
            first_value=a,
            first_log=al,
            product_complement=b,
            product_log=bl,
            product_log_complement=blc,
            threads=1,
        )

    # rows along the table's axis: weight and terms constant on each (the row kernel)
    rows = from_factors(weights[:, None, None], terms[None, :, None], list(table))
    # the same points with the weight along the last axis: read point by point
    points = from_factors(weights, terms[None, :, None], [f[:, None, None] for f in table])
    e, w, t, a, b = np.broadcast_arrays(eps, weights[:, None, None], terms[None, :, None], r1, r2)
    direct = c.geometric_bound_delta(e, weight=w, terms=t, r_first=a, r_product=b, threads=1)
    assert rows.shape == direct.shape == (3, 4, eps.size)
    np.testing.assert_array_equal(_bits(rows), _bits(direct))
    np.testing.assert_array_equal(_bits(points.transpose(2, 1, 0)), _bits(direct))
    # every route of the row kernel is taken
    main = (table[0] >= 1e-250) & (table[2] >= 1e-250) & (table[3] > -np.inf)
    assert main.any() and (table[0] < 1e-250).any() and (table[2] == 0).any()
    assert ((table[2] == 0) & (table[0] >= 1e-250)).any()
    least = np.nextafter(0.0, 1.0)  # the vanishing route's positive bound below the double range
    assert (rows == least).any() and (rows == 1).any() and ((rows > least) & (rows < 1e-250)).any()
