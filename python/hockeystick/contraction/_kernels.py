"""Calls into the compiled contraction kernels (cpp/include/hockeystick/contraction/*.hpp).

Inputs are broadcast as numpy views (stride 0 along repeated axes), so the compiled
loop reads a grid built from short axes in place.  For the geometric and random-stop
bounds, when (epsilon, r_first, r_product) span a much smaller grid than the full
broadcast (rounds or batch weights as extra axes), the two Gaussian factors are
evaluated once on that smaller grid and combined on the full one.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _core
from ..base.elementwise import FloatOrArray, check_threads


def _finish(result: np.ndarray, scalar: bool) -> FloatOrArray:
    return float(result) if scalar else result


def _size(shape: tuple[int, ...]) -> int:
    return math.prod(shape)


def _log_rest_bound(weight: np.ndarray, terms: np.ndarray, sum_power: int) -> float:
    """An upper bound on log(w S) over the grid, S <= terms**sum_power the sum of the second
    factor's powers (1: the geometric sum, 2: the random stop's); inf where none is finite."""
    with np.errstate(all="ignore"):
        bound = np.log(np.max(weight)) + sum_power * np.log(np.max(terms))
    return float(bound) if np.isfinite(bound) else math.inf


def _factor_table(
    epsilon: np.ndarray,
    r_first: np.ndarray,
    r_product: np.ndarray,
    log_rest_bound: float,
    threads: int,
    full: tuple[int, ...],
) -> list[np.ndarray] | None:
    """The factors on the (epsilon, r_first, r_product) grid, shaped to broadcast with
    ``full``; None when that grid is not at least 4x smaller than the full one.  Where the
    bound is 0 at every point a pair serves (log_rest_bound), the pair reads theta = 0."""
    small = np.broadcast_shapes(epsilon.shape, r_first.shape, r_product.shape)
    if _size(small) * 4 > _size(full):
        return None
    lead = (1,) * (len(full) - len(small))
    e, a, b = (
        np.ascontiguousarray(np.broadcast_to(x, small)) for x in (epsilon, r_first, r_product)
    )
    table = _core.contraction.gaussian_factor_pairs(
        e, a, b, log_rest_bound=log_rest_bound, threads=threads
    )
    return [t.reshape(lead + small) for t in table]


def geometric_delta(
    epsilon: np.ndarray,
    weight: np.ndarray,
    terms: np.ndarray,
    r_first: np.ndarray,
    r_product: np.ndarray,
    threads: int | None,
) -> FloatOrArray:
    """w theta_eps(r1) sum_{k<T} theta_eps(r2)^k, broadcast."""
    nthreads = check_threads(threads)
    full = np.broadcast_shapes(
        epsilon.shape, weight.shape, terms.shape, r_first.shape, r_product.shape
    )
    bound = _log_rest_bound(weight, terms, 1)
    table = _factor_table(epsilon, r_first, r_product, bound, nthreads, full)
    if table is not None:
        w, t, a1, a2, b1, b2, b3 = np.broadcast_arrays(weight, terms, *table)
        out = _core.contraction.geometric_bound_from_factors(
            w,
            t,
            first_value=a1,
            first_log=a2,
            product_complement=b1,
            product_log=b2,
            product_log_complement=b3,
            threads=nthreads,
        )
    else:
        e, w, t, r1, r2 = np.broadcast_arrays(epsilon, weight, terms, r_first, r_product)
        out = _core.contraction.geometric_bound_delta(
            e, weight=w, terms=t, r_first=r1, r_product=r2, threads=nthreads
        )
    return _finish(out, full == ())


def geometric_epsilon(
    delta: np.ndarray,
    weight: np.ndarray,
    terms: np.ndarray,
    r_first: np.ndarray,
    r_product: np.ndarray,
    threads: int | None,
) -> FloatOrArray:
    d, w, t, r1, r2 = np.broadcast_arrays(delta, weight, terms, r_first, r_product)
    return _finish(
        _core.contraction.geometric_bound_epsilon(
            d, weight=w, terms=t, r_first=r1, r_product=r2, threads=check_threads(threads)
        ),
        d.shape == (),
    )


def random_stop_delta(
    epsilon: np.ndarray,
    weight: np.ndarray,
    terms: np.ndarray,
    first_stop: np.ndarray,
    r_first: np.ndarray,
    r_product: np.ndarray,
    threads: int | None,
) -> FloatOrArray:
    """w theta_eps(r1) sum_{tau=tau0..T} sum_{k<tau} theta_eps(r2)^k, broadcast."""
    nthreads = check_threads(threads)
    full = np.broadcast_shapes(
        epsilon.shape, weight.shape, terms.shape, first_stop.shape, r_first.shape, r_product.shape
    )
    bound = _log_rest_bound(weight, terms, 2)
    table = _factor_table(epsilon, r_first, r_product, bound, nthreads, full)
    if table is not None:
        w, t, f, a1, a2, b1, b2, _ = np.broadcast_arrays(weight, terms, first_stop, *table)
        out = _core.contraction.random_stop_bound_from_factors(
            w,
            t,
            first_stop=f,
            first_value=a1,
            first_log=a2,
            product_complement=b1,
            product_log=b2,
            threads=nthreads,
        )
    else:
        e, w, t, f, r1, r2 = np.broadcast_arrays(
            epsilon, weight, terms, first_stop, r_first, r_product
        )
        out = _core.contraction.random_stop_bound_delta(
            e, weight=w, terms=t, first_stop=f, r_first=r1, r_product=r2, threads=nthreads
        )
    return _finish(out, full == ())


def random_stop_epsilon(
    delta: np.ndarray,
    weight: np.ndarray,
    terms: np.ndarray,
    first_stop: np.ndarray,
    r_first: np.ndarray,
    r_product: np.ndarray,
    threads: int | None,
) -> FloatOrArray:
    d, w, t, f, r1, r2 = np.broadcast_arrays(delta, weight, terms, first_stop, r_first, r_product)
    return _finish(
        _core.contraction.random_stop_bound_epsilon(
            d,
            weight=w,
            terms=t,
            first_stop=f,
            r_first=r1,
            r_product=r2,
            threads=check_threads(threads),
        ),
        d.shape == (),
    )


def power_delta(
    noise: str,
    epsilon: np.ndarray,
    exponent: np.ndarray,
    g_first: np.ndarray,
    g_product: np.ndarray,
    threads: int | None,
) -> FloatOrArray:
    """F(g1) F(g2)^k with F = theta_eps (noise='gaussian') or the Laplace factor."""
    e, k, g1, g2 = np.broadcast_arrays(epsilon, exponent, g_first, g_product)
    return _finish(
        _core.contraction.power_bound_delta(
            noise, e, exponent=k, g_first=g1, g_product=g2, threads=check_threads(threads)
        ),
        e.shape == (),
    )


def power_epsilon(
    noise: str,
    delta: np.ndarray,
    exponent: np.ndarray,
    g_first: np.ndarray,
    g_product: np.ndarray,
    threads: int | None,
) -> FloatOrArray:
    d, k, g1, g2 = np.broadcast_arrays(delta, exponent, g_first, g_product)
    return _finish(
        _core.contraction.power_bound_epsilon(
            noise, d, exponent=k, g_first=g1, g_product=g2, threads=check_threads(threads)
        ),
        d.shape == (),
    )


def schedule_delta(
    epsilon: np.ndarray,
    weight: float,
    first_stop: int,
    r_first: np.ndarray,
    r_product: np.ndarray,
    threads: int | None,
) -> FloatOrArray:
    """w sum_t theta(r1_t) prod_{j>t} theta(r2_j) (first_stop = 0) or its random-stop sum."""
    out = _core.contraction.schedule_bound_delta(
        np.ascontiguousarray(epsilon),
        weight=weight,
        first_stop=first_stop,
        r_first=np.ascontiguousarray(r_first),
        r_product=np.ascontiguousarray(r_product),
        threads=check_threads(threads),
    )
    return _finish(out.reshape(epsilon.shape), epsilon.shape == ())


def schedule_epsilon(
    delta: np.ndarray,
    weight: float,
    first_stop: int,
    r_first: np.ndarray,
    r_product: np.ndarray,
    threads: int | None,
) -> FloatOrArray:
    out = _core.contraction.schedule_bound_epsilon(
        np.ascontiguousarray(delta),
        weight=weight,
        first_stop=first_stop,
        r_first=np.ascontiguousarray(r_first),
        r_product=np.ascontiguousarray(r_product),
        threads=check_threads(threads),
    )
    return _finish(out.reshape(delta.shape), delta.shape == ())
