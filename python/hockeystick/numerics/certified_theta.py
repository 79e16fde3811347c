"""theta and its inverses rounded outward: what a closed form reports when it stands in for a certified bound.

theta(r, eps) = Q(eps/r - r/2) - e^eps Q(eps/r + r/2)   (paper 000 eq. 6; paper 004 eq. 8)

is the exact privacy profile of the Gaussian mechanism (mu-GDP, mu = r), but its computed value
carries the core's documented error (docs/howto-mechanism.md, "Outward rounding"):

* ``theta``: relative error <= RHO = 1e-12 wherever theta >= 1e-300 (DESIGN.md, numerical
  contract; worst measured 1.4e-14 against 50-digit mpmath);
* ``log_theta``: absolute error <= LOG_ERROR = 1e-10 (numerics/hockey_stick.hpp).

The rule: an upper bound is the computed value t widened by the documented error and rounded
up, a lower bound narrowed and rounded down; an inverse (epsilon for delta, r for delta) is
accepted only where the widened forward value is on the safe side of delta, otherwise it is
stepped outward by growing multiples of its ulp until it is.

* upper(t) = min(1, fl(t C_UP)), C_UP = 1 + 1.001e-12, where t >= FLOOR = 1e-300: if theta >=
  FLOOR then theta <= t / (1 - RHO) <= fl(t C_UP) (C_UP exceeds (1 - RHO)^-1 (1 - u)^-1 by 8e-16,
  more than the constant's own rounding); otherwise theta < FLOOR <= t.
* where t < FLOOR the upper side is the log form, next_up(exp(log_theta + LOG_ERROR (1 + 1e-2))):
  the exponent is at least log theta + 1e-12 (its own rounding < 1e-13 at |log theta| < 746), exp
  errs by less than 1e-12 relative where its result is normal and by less than one ulp of the
  subnormals below, which next_up covers.  It is at least the least subnormal 5e-324 wherever theta
  > 0: THE rule for a positive delta below the doubles on an upper side (0 only where theta = 0
  exactly); a lower side may be 0 there.
* lower(t) = fl(t C_LO), C_LO = 1 - 1.001e-12, where t >= TINY = 1e-290, else 0 (a value the
  contract does not cover is bounded below by 0 only).
* an inverse at delta < TINY checks the log form instead: log_theta +- LOG_ERROR (1 + 1e-2)
  against log delta (whose own rounding, < 1e-13 absolute, fits in the 1e-12 spare).
* theta = 0 exactly at r = 0 or eps = inf is reported as 0.
* a radius computed from parameters (r = sqrt(T) sensitivity / sigma: up to four correctly
  rounded operations, relative error <= (1 + u)^4 - 1 < 4.5e-16) is widened first by
  RADIUS_ERROR = 1e-15 relative (``radius_up`` / ``radius_down``; theta grows with r), which
  also covers the rounding of the widening product.

The margins are within 1e-15 of the smallest the documented bounds prove.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

from .. import _core
from ..base.elementwise import ArrayLike, FloatOrArray, check_threads
from . import hockey_stick as _hs

__all__ = [
    "FLOOR",
    "RADIUS_ERROR",
    "RHO",
    "radius_down",
    "radius_up",
    "theta_epsilon_lower",
    "theta_epsilon_upper",
    "theta_lower",
    "theta_radius_lower",
    "theta_upper",
]

RHO = 1e-12  # theta's documented relative error where theta >= FLOOR
FLOOR = 1e-300  # ... below which that contract bounds nothing: the upper side takes the log form
TINY = 1e-290  # below this, a lower side is 0 and an inverse checks the log form
LOG_ERROR = 1e-10  # log_theta's documented absolute error
RADIUS_ERROR = 1e-15  # relative, for a radius formed by at most four correctly rounded operations
_C_UP = 1.0 + 1.001e-12
_C_LO = 1.0 - 1.001e-12
_LOG_MARGIN = LOG_ERROR * 1.01
_MAX_STEPS = 2200  # doubling ulp steps reach inf (or 0) from any double well within this


def _scalar_or(arr: np.ndarray) -> FloatOrArray:
    return float(arr) if arr.ndim == 0 else arr


def radius_up(r: np.ndarray | float) -> np.ndarray | float:
    """A radius computed in at most four correctly rounded operations, rounded up past its exact value."""
    return np.multiply(r, 1.0 + RADIUS_ERROR)


def radius_down(r: np.ndarray | float) -> np.ndarray | float:
    """The same radius rounded down below its exact value."""
    return np.multiply(r, 1.0 - RADIUS_ERROR)


def _rounded(
    r: np.ndarray, eps: np.ndarray, t: np.ndarray, up: bool, threads: int | None = None
) -> np.ndarray:
    """t = theta(r, eps) widened (up) or narrowed (down) by its documented error, as in the module
    docstring; ``threads``: log_theta's where t is below FLOOR (None: the core's choice)."""
    if not up:
        return np.where(t >= TINY, t * _C_LO, 0.0)
    out = np.array(np.minimum(t * _C_UP, 1.0))  # a writable copy, also for 0-d
    below = t < FLOOR
    if below.any():
        rb, eb = np.broadcast_to(r, t.shape)[below], np.broadcast_to(eps, t.shape)[below]
        out[below] = _log_form_upper(rb, eb, threads)
    return out


def _log_form_upper(r: np.ndarray | float, eps: np.ndarray, threads: int | None) -> np.ndarray:
    """The upper side where the computed theta is below FLOOR: next_up(exp(log_theta + LOG_ERROR
    (1 + 1e-2))), 0 where theta = 0 exactly (r = 0 or eps = inf); module docstring."""
    with np.errstate(under="ignore"):
        logged = np.exp(
            np.asarray(_hs.log_theta(r, eps, threads=threads), dtype=np.float64) + _LOG_MARGIN
        )
    return np.where(
        (np.asarray(r) == 0) | np.isinf(eps),
        0.0,  # theta = 0 exactly at r = 0 or eps = inf
        np.nextafter(logged, np.inf),
    )


def theta_side_at_magnitude(
    r: float, epsilon: np.ndarray, upper: bool, *, threads: int | None = None
) -> tuple[np.ndarray, int]:
    """``theta_upper`` (or ``theta_lower``) of (r, |eps|) clipped to [0, 1], for one radius and an
    array of eps of any sign, in one pass of the core; and how many eps are negative.

    The core (``_core.hockey_stick.theta_rounded_at_magnitude``) evaluates t = theta(r, |eps|) as
    ``theta`` does and rounds it in the same loop: upper min(t C_UP, 1) where t >= FLOOR, lower
    min(t C_LO, 1) where t >= TINY, else 0 (the same doubles as ``theta_upper`` / ``theta_lower``
    followed by the clip, every rounded value lying in (0, 1]); the upper side's t below FLOOR, marked
    -1 there, takes the log form here (``_log_form_upper``).

    Parameters
    ----------
    r : float
        The radius, >= 0.
    epsilon : numpy.ndarray
        The eps, any real values (theta is read at their magnitudes).
    upper : bool
        The side: ``theta_upper``'s rounding, or ``theta_lower``'s.
    threads : int, optional
        As ``theta``'s (None: the core's choice).

    Returns
    -------
    tuple of (numpy.ndarray, int)
        The side at each |eps| (eps's shape), and the count of eps < 0.

    Raises
    ------
    ValueError
        Where r < 0, r or an eps is NaN, or r and an eps are both infinite (as ``theta``).
    """
    eps = np.asarray(epsilon, dtype=np.float64)
    out, below, negative = _core.hockey_stick.theta_rounded_at_magnitude(
        float(r),
        eps,
        scale=_C_UP if upper else _C_LO,
        floor=FLOOR if upper else TINY,
        fallback=-1.0 if upper else 0.0,
        threads=check_threads(threads),
    )
    if below:
        marked = out < 0.0
        out[marked] = np.clip(_log_form_upper(float(r), np.abs(eps[marked]), threads), 0.0, 1.0)
    return out, int(negative)


def _theta_pair(
    r: ArrayLike, epsilon: ArrayLike, threads: int | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    t = np.asarray(
        _hs.theta(cast(Any, r), cast(Any, epsilon), threads=threads), dtype=np.float64
    )  # validates, broadcasts
    rb, eb = np.broadcast_arrays(
        np.asarray(r, dtype=np.float64), np.asarray(epsilon, dtype=np.float64)
    )
    return rb, eb, t


def theta_upper(r: ArrayLike, epsilon: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    """A certified upper bound on theta(r, eps): the computed value widened by its documented error, rounded up."""
    rb, eb, t = _theta_pair(r, epsilon, threads)
    return _scalar_or(_rounded(rb, eb, t, up=True, threads=threads))


def theta_lower(r: ArrayLike, epsilon: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    """A certified lower bound on theta(r, eps): the computed value narrowed by its documented error, rounded down."""
    rb, eb, t = _theta_pair(r, epsilon, threads)
    return _scalar_or(_rounded(rb, eb, t, up=False))


def _probability(delta: ArrayLike) -> np.ndarray:
    d = np.asarray(delta, dtype=np.float64)
    if not np.all((d > 0) & (d < 1)):
        raise ValueError(f"delta must lie in (0, 1), got {d[~((d > 0) & (d < 1))].flat[0]!r}")
    return d


def _at_most(r: np.ndarray, eps: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """theta(r, eps) <= delta, certified (elementwise over equal-shape flat arrays)."""
    ok = np.empty(r.shape, dtype=bool)
    small = delta < TINY
    big = ~small
    ok[big] = (
        _rounded(r[big], eps[big], np.asarray(_hs.theta(r[big], eps[big])), up=True) <= delta[big]
    )
    if small.any():
        ok[small] = np.asarray(_hs.log_theta(r[small], eps[small])) + _LOG_MARGIN <= np.log(
            delta[small]
        )
    return ok


def _at_least(r: np.ndarray, eps: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """theta(r, eps) >= delta, certified (elementwise over equal-shape flat arrays)."""
    ok = np.empty(r.shape, dtype=bool)
    small = delta < TINY
    big = ~small
    ok[big] = (
        _rounded(r[big], eps[big], np.asarray(_hs.theta(r[big], eps[big])), up=False) >= delta[big]
    )
    if small.any():
        ok[small] = np.asarray(_hs.log_theta(r[small], eps[small])) - _LOG_MARGIN >= np.log(
            delta[small]
        )
    return ok


def _step_until(
    x: np.ndarray,
    ok: Callable[[np.ndarray, np.ndarray], np.ndarray],
    direction: float,
    floor: float,
) -> np.ndarray:
    """Move each finite x failing ``ok`` by 1, 2, 4, ... ulps in ``direction`` until ``ok`` holds (or to inf / floor).

    ``ok(values, flat_indices)``; an infinite x is left as it is (the inverses return inf only where
    it is exact).
    """
    x = x.copy()
    finite = np.flatnonzero(np.isfinite(x))
    bad = finite[~ok(x[finite], finite)]
    step = np.maximum(np.abs(x[bad]) * np.finfo(float).eps, np.finfo(float).smallest_subnormal)
    for _ in range(_MAX_STEPS):
        if not bad.size:
            return x
        x[bad] = np.maximum(x[bad] + direction * step, floor)
        still = ~ok(x[bad], bad)
        bad, step = bad[still], 2.0 * step[still]
    x[bad] = floor if direction < 0 else np.inf
    return x


def theta_epsilon_upper(
    r: ArrayLike, delta: ArrayLike, *, threads: int | None = None
) -> FloatOrArray:
    """An eps >= 0 with theta(r, eps) <= delta certified (theta_upper <= delta): an upper bound on epsilon(delta).

    Starts from the core's inverse at delta (1 - 4 RHO) and steps up until theta(r, eps) <= delta is
    certified.
    """
    d = _probability(delta)
    start = np.asarray(
        _hs.theta_epsilon(r, d * (1.0 - 4.0 * RHO), threads=threads), dtype=np.float64
    )
    rb, db = np.broadcast_arrays(np.asarray(r, dtype=np.float64), d)
    rf, df, x = rb.ravel(), db.ravel(), start.ravel()

    def ok(e: np.ndarray, i: np.ndarray) -> np.ndarray:
        return _at_most(rf[i], e, df[i])

    return _scalar_or(_step_until(x, ok, 1.0, 0.0).reshape(start.shape))


def theta_epsilon_lower(
    r: ArrayLike, delta: ArrayLike, *, threads: int | None = None
) -> FloatOrArray:
    """An eps >= 0 at or below the true epsilon(delta) = min{eps >= 0 : theta(r, eps) <= delta}.

    eps = 0, or an eps where theta(r, eps) >= delta is certified (then the true epsilon is not below
    it).  Starts from the core's inverse at delta (1 + 4 RHO), steps down.  A finite r whose epsilon
    lies beyond the doubles gets the largest double (never inf, which would be above it).
    """
    d = _probability(delta)
    wider = np.minimum(d * (1.0 + 4.0 * RHO), np.nextafter(1.0, 0.0))
    start = np.asarray(_hs.theta_epsilon(r, wider, threads=threads), dtype=np.float64)
    rb, db = np.broadcast_arrays(np.asarray(r, dtype=np.float64), d)
    rf, df, x = rb.ravel(), db.ravel(), start.ravel()

    def ok(e: np.ndarray, i: np.ndarray) -> np.ndarray:
        return cast(np.ndarray, (e <= 0) | _at_least(rf[i], e, df[i]))

    out = _step_until(x, ok, -1.0, 0.0)
    beyond = np.isposinf(out) & np.isfinite(rf)
    if beyond.any():
        # a finite radius whose epsilon lies beyond the doubles: the largest double is below it
        # where theta(r, DBL_MAX) >= delta is certified, and 0 (always below it) where it is not
        i = np.flatnonzero(beyond)
        top = np.full(i.size, np.finfo(np.float64).max)
        out[i] = np.where(_at_least(rf[i], top, df[i]), top, 0.0)
    return _scalar_or(out.reshape(start.shape))


def theta_radius_lower(
    epsilon: ArrayLike, delta: ArrayLike, *, threads: int | None = None
) -> FloatOrArray:
    """An r > 0 with theta(r, eps) <= delta certified: a lower bound on the largest (eps, delta)-DP radius.

    Noise calibration: sigma = sensitivity / r is then never below the true minimum.  Starts from
    the core's solve at delta (1 - 4 RHO) and steps down until theta(r, eps) <= delta is certified.
    """
    d = _probability(delta)
    start = np.asarray(
        _hs.theta_radius(epsilon, d * (1.0 - 4.0 * RHO), threads=threads), dtype=np.float64
    )
    eb, db = np.broadcast_arrays(np.asarray(epsilon, dtype=np.float64), d)
    ef, df, x = eb.ravel(), db.ravel(), start.ravel()

    def ok(r: np.ndarray, i: np.ndarray) -> np.ndarray:
        return _at_most(r, ef[i], df[i])

    return _scalar_or(_step_until(x, ok, -1.0, 0.0).reshape(start.shape))
