"""Every delta route of a closed form takes its first factor's value from theta_batch, so they give the same bits.

The geometric and random-stop bounds reach delta by three routes: a point (geometric_bound_delta), a row of
points (the binding's theta_batch over the row) and a factor table (gaussian_factor_pairs, then the
from_factors kernels).  epsilon(delta) checks its answer on the point route (safe_epsilon), so
delta(epsilon(d)) <= d holds on every route only if they agree bit for bit: checked here on a grid of
(sigma, m, T, d), both ways.
"""

from __future__ import annotations

import numpy as np

from hockeystick import _core

from .test_contraction_vanishing import _from_factors


def _grid() -> tuple[np.ndarray, ...]:
    """(d, w, T, r1, r2) on a grid of sigma, batch size, rounds and targets, flattened."""
    sigma = np.array([0.3, 0.8, 2.0, 6.0])[:, None, None, None]
    m = np.array([1.0, 16.0, 250.0])[None, :, None, None]
    rounds = np.array([1.0, 40.0, 3000.0])[None, None, :, None]
    d = np.array([0.3, 1e-3, 1e-6, 1e-9, 1e-12])[None, None, None, :]
    r1 = 2.0 / (np.sqrt(m) * sigma)
    r2 = 2.0 * np.sqrt(m) / (0.1 * sigma)
    return tuple(
        np.ascontiguousarray(x).ravel() for x in np.broadcast_arrays(d, m / 1000, rounds, r1, r2)
    )


def test_delta_of_epsilon_stays_below_the_target_on_every_route() -> None:
    c = _core.contraction
    d, w, t, r1, r2 = _grid()
    stop = np.maximum(1.0, np.floor(t / 2))
    eps = c.geometric_bound_epsilon(d, weight=w, terms=t, r_first=r1, r_product=r2, threads=1)
    eps_rs = c.random_stop_bound_epsilon(
        d, weight=w / t, terms=t, first_stop=stop, r_first=r1, r_product=r2, threads=1
    )
    assert (eps > 0).mean() > 0.8 and (eps_rs > 0).mean() > 0.8
    pairs = c.gaussian_factor_pairs(eps, r1, r2, threads=1)
    pairs_rs = c.gaussian_factor_pairs(eps_rs, r1, r2, threads=1)
    routes = {
        "geometric, points": c.geometric_bound_delta(
            eps, weight=w, terms=t, r_first=r1, r_product=r2, threads=1
        ),
        "geometric, one point at a time": np.array(
            [
                c.geometric_bound_delta(
                    e[None], weight=a[None], terms=b[None], r_first=x[None], r_product=y[None]
                )[0]
                for e, a, b, x, y in zip(eps, w, t, r1, r2)
            ]
        ),
        "geometric, factor table": _from_factors(w, t, pairs),
    }
    routes_rs = {
        "random stop, points": c.random_stop_bound_delta(
            eps_rs, weight=w / t, terms=t, first_stop=stop, r_first=r1, r_product=r2, threads=1
        ),
        "random stop, factor table": c.random_stop_bound_from_factors(
            w / t,
            t,
            first_stop=stop,
            first_value=pairs_rs[0],
            first_log=pairs_rs[1],
            product_complement=pairs_rs[2],
            product_log=pairs_rs[3],
            threads=1,
        ),
    }
    for name, back in routes.items():
        assert np.all(back <= d), name
        np.testing.assert_array_equal(
            back.view(np.int64), routes["geometric, points"].view(np.int64)
        )
    for name, back in routes_rs.items():
        assert np.all(back <= d), name
        np.testing.assert_array_equal(
            back.view(np.int64), routes_rs["random stop, points"].view(np.int64)
        )
