"""The certified epsilon width a delta bracket implies (pld/reads/epsilon_width.py) never undercuts the truth,
by either rule (the chord to the right, the lower bound to the left).

References: the Gaussian mechanism's exact profile (closed form theta, scipy at double precision, its
epsilon by bisection) and a profile of atoms, concave in eps below each atom (so a slope in eps would
not certify), whose epsilon is found by bisection on the exact sum.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq
from scipy.stats import norm

from hockeystick import _core
from hockeystick.pld.reads.epsilon_width import certified_epsilon_width, left_epsilon_width

from ... import c_math


def gaussian_delta(mu: float, eps: float) -> float:
    """delta(eps) of the mu-Gaussian mechanism (Balle & Wang 2018, Thm 8)."""
    return float(norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2))


def atoms_delta(losses: np.ndarray, masses: np.ndarray, eps: float) -> float:
    """delta(eps) = sum_i p_i (1 - e^{eps - l_i})_+ : concave in eps below every atom."""
    return float(np.sum(masses * np.maximum(0.0, -np.expm1(eps - losses))))


def true_epsilon(delta_of, target: float, high: float) -> float:
    """inf{eps >= 0 : delta(eps) <= target} by bisection (delta non-increasing)."""
    if delta_of(0.0) <= target:
        return 0.0
    return brentq(lambda e: delta_of(e) - target, 0.0, high, xtol=1e-14, rtol=1e-15)


@settings(max_examples=60, deadline=None)
@given(
    mu=st.floats(0.3, 4.0),
    eps=st.floats(0.05, 6.0),
    offset=st.sampled_from([0.01, 0.04, 0.16, 0.5]),
    rel=st.floats(0.0, 0.05),
    tilt=st.floats(0.0, 1.0),
)
def test_gaussian_width_contains_the_true_epsilon(mu, eps, offset, rel, tilt):
    """Any bracket lo <= delta(eps) <= up and any up2 >= delta(eps2): eps - width <= epsilon(up) <= eps."""
    d0, d2 = gaussian_delta(mu, eps), gaussian_delta(mu, eps + offset)
    if d0 < 1e-12:
        return
    lo, up = d0 * (1 - rel * tilt), d0 * (1 + rel * (1 - tilt))
    up2 = d2 * (1 + rel)
    width = float(
        certified_epsilon_width(
            np.array(eps), np.array(lo), np.array(up), np.array(eps + offset), np.array(up2)
        )
    )
    truth = true_epsilon(lambda e: gaussian_delta(mu, e), up, eps + 1.0)
    assert truth <= eps + 1e-12
    assert eps - width <= truth + 1e-12, (eps, width, truth)


@settings(max_examples=60, deadline=None)
@given(
    losses=st.lists(st.floats(0.2, 5.0), min_size=1, max_size=4),
    weights=st.lists(st.floats(0.05, 1.0), min_size=4, max_size=4),
    eps=st.floats(0.05, 4.0),
    offset=st.sampled_from([0.005, 0.01, 0.04, 0.16]),
    rel=st.floats(0.0, 0.05),
)
def test_width_holds_where_the_profile_is_concave_in_epsilon(losses, weights, eps, offset, rel):
    """Both rules: the chord to eps + offset, and the lower side at eps - offset."""
    l = np.array(losses)
    p = np.array(weights[: l.size]) / (
        2 * np.sum(weights[: l.size])
    )  # a sub-probability: the rest at -infinity
    d0, d2 = atoms_delta(l, p, eps), atoms_delta(l, p, eps + offset)
    if d0 <= 0.0:
        return
    lo, up, up2 = d0 * (1 - rel), d0, d2 * (1 + rel)
    width = float(
        certified_epsilon_width(
            np.array(eps), np.array(lo), np.array(up), np.array(eps + offset), np.array(up2)
        )
    )
    truth = true_epsilon(lambda e: atoms_delta(l, p, e), up, float(l.max()) + 1.0)
    assert eps - width <= truth + 1e-12, (eps, width, truth)
    left = float(
        left_epsilon_width(
            np.array(eps),
            np.array(up),
            np.array(eps - offset),
            np.array(atoms_delta(l, p, eps - offset) * (1 - rel)),
        )
    )
    assert eps - left <= truth + 1e-12, (eps, left, truth)


def test_width_is_tight_for_a_narrow_bracket_and_infinite_when_the_chord_certifies_nothing():
    mu, eps = 1.0, 1.0
    d0, d2 = gaussian_delta(mu, eps), gaussian_delta(mu, eps + 0.01)
    slope = (d0 - gaussian_delta(mu, eps + 1e-6)) / 1e-6
    width = certified_epsilon_width(eps, d0 * (1 - 1e-4), d0, eps + 0.01, d2)
    assert d0 * 1e-4 / slope <= width <= 1.2 * d0 * 1e-4 / slope  # about (up - lo) / |slope|
    assert (
        certified_epsilon_width(eps, 0.0, d0, eps + 0.01, d2) == eps
    )  # lo = 0: only eps >= 0 holds
    assert certified_epsilon_width(eps, d0, d0, eps + 0.01, d2) == 0.0  # an exact delta
    assert (
        certified_epsilon_width(5.0, d2, d0, 5.01, d2) == 5.0
    )  # lo <= up2: no chord, capped at eps
    # no right point beyond eps (eps = inf, or eps + d rounding back to eps): it certifies nothing
    assert certified_epsilon_width(eps, d0 * (1 - 1e-4), d0, eps, d2) == eps
    assert certified_epsilon_width(1e300, 0.0, 1e-12, 1e300 + 0.01, 0.0) == 1e300
    assert certified_epsilon_width(np.inf, 0.0, 0.0, np.inf, 0.0) == np.inf


@settings(max_examples=60, deadline=None)
@given(
    mu=st.floats(0.3, 12.0),
    eps=st.floats(0.05, 6.0),
    offset=st.sampled_from([0.005, 0.0099, 0.02, 0.3]),
    rel=st.floats(0.0, 0.5),
    tilt=st.floats(0.0, 1.0),
)
def test_left_width_contains_the_true_epsilon(mu, eps, offset, rel, tilt):
    """Any up >= delta(eps) and lo1 <= delta(eps - d): eps - width <= epsilon(up) <= eps, including where delta
    falls steeply (mu up to 12: delta down to ~1e-15 at the eps drawn)."""
    d0, d1 = gaussian_delta(mu, eps), gaussian_delta(mu, eps - offset)
    if d0 < 1e-300:
        return
    up, lo1 = d0 * (1 + rel * tilt), d1 * (1 - rel * (1 - tilt))
    width = float(
        left_epsilon_width(np.array(eps), np.array(up), np.array(eps - offset), np.array(lo1))
    )
    truth = true_epsilon(lambda e: gaussian_delta(mu, e), up, eps + 1.0)
    assert eps - width <= truth + 1e-12, (eps, width, truth)
    if lo1 > up:
        assert width == pytest.approx(min(offset, eps), rel=1e-9)  # the offset (at most eps)
    else:
        assert width == eps  # nothing certified: capped at eps


def test_left_width_is_tight_where_delta_falls_steeply_and_the_chord_is_not():
    """At delta ~ 1e-9 (mu = 1, eps 6.17: delta grows ~6 % per 0.01 of eps to the left) a bracket 4x wide in
    delta, [d / 2, 2 d]: no chord to the right certifies anything, the left rule certifies about the epsilon
    distance over which delta grows 4x (0.23)."""
    mu, eps = 1.0, 6.17
    d0 = gaussian_delta(mu, eps)
    assert 1e-10 < d0 < 1e-8
    lo, up = d0 / 2, 2 * d0
    rights = [
        certified_epsilon_width(eps, lo, up, eps + d, gaussian_delta(mu, eps + d))
        for d in (0.01, 0.04, 0.16)
    ]
    assert min(rights) == eps
    lefts = [
        left_epsilon_width(eps, up, eps - d, gaussian_delta(mu, eps - d) / 2)
        for d in (0.1, 0.2, 0.3, 0.4)
    ]
    step = brentq(
        lambda d: gaussian_delta(mu, eps - d) / 2 - up, 0.0, 1.0
    )  # the least offset that certifies
    assert step < min(lefts) <= step + 0.1
    assert eps - min(lefts) <= true_epsilon(lambda e: gaussian_delta(mu, e), up, eps + 1.0)
    # no offset to the left (eps1 >= eps) or a lower side not above the upper one: nothing, capped at eps
    assert left_epsilon_width(eps, up, eps, 2 * up) == eps
    assert left_epsilon_width(eps, up, eps - 0.01, up) == eps
    assert left_epsilon_width(np.inf, 0.0, np.inf, 0.0) == np.inf


_ROUNDING = 1.0 + 1e-12


def _chord_reference(eps, lo, up, eps2, up2):
    """``certified_epsilon_width`` as numpy computed it before the core did (98da906), operation for operation."""
    eps, lo, up, eps2, up2 = np.broadcast_arrays(
        *(np.asarray(v, dtype=np.float64) for v in (eps, lo, up, eps2, up2))
    )
    drop = np.where(eps2 > eps, lo - up2, 0.0)
    gap = np.maximum(up - lo, 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x = np.where(
            drop > 0.0,
            gap * c_math.expm1(eps2 - eps) / np.where(drop > 0.0, drop, 1.0) * _ROUNDING,
            np.inf,
        )
    inside = x < 1.0
    with np.errstate(invalid="ignore"):
        width = np.where(inside, -c_math.log1p(-np.where(inside, x, 0.0)) * _ROUNDING, np.inf)
    return np.minimum(width, np.maximum(eps, 0.0))


def _left_reference(eps, up, eps1, lo1):
    """``left_epsilon_width`` as numpy computed it before the core did (98da906)."""
    eps, up, eps1, lo1 = np.broadcast_arrays(
        *(np.asarray(v, dtype=np.float64) for v in (eps, up, eps1, lo1))
    )
    certified = (lo1 > up) & (eps1 < eps)
    with np.errstate(invalid="ignore", over="ignore"):
        width = np.where(certified, (eps - eps1) * _ROUNDING, np.inf)
    return np.minimum(width, np.maximum(eps, 0.0))


_SPECIAL = np.array(
    [
        0.0,
        -0.0,
        5e-324,
        1e-300,
        1e-12,
        0.5,
        1.0,
        1.0 - 1e-16,
        2.0,
        7.5,
        1e300,
        np.inf,
        -np.inf,
        np.nan,
    ]
)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_widths_are_the_numpy_forms_bit_for_bit(seed):
    """Both rules, computed by the core (pld/reads/epsilon_width.hpp), give numpy's doubles (sign of zero, inf and NaN
    included) wherever epsilon is not NaN: random brackets and special values (-0, subnormal, inf, NaN bounds).
    The C library's expm1 and log1p on both sides (``c_math``): numpy's own vectorized ones (AVX-512 builds)
    may differ by an ulp, within the rules' 1e-12 rounding up, but not byte for byte."""
    rng = np.random.default_rng(seed)
    n = 400
    pick = lambda: np.where(
        rng.random(n) < 0.3, rng.choice(_SPECIAL, n), 10.0 ** rng.uniform(-15, 1, n)
    )
    eps = np.where(rng.random(n) < 0.3, rng.choice(_SPECIAL[:-1], n), rng.uniform(0.0, 10.0, n))
    with np.errstate(
        invalid="ignore", over="ignore"
    ):  # inf - inf: NaN arguments, which the rules must pass through
        other = eps + np.where(
            rng.random(n) < 0.3, rng.choice(_SPECIAL, n), rng.uniform(-0.2, 0.2, n)
        )
        lo, up, bound = pick(), pick(), pick()
        chord, left = (
            _chord_reference(eps, lo, up, other, bound),
            _left_reference(eps, up, other, bound),
        )
    assert certified_epsilon_width(eps, lo, up, other, bound).tobytes() == chord.tobytes()
    assert left_epsilon_width(eps, up, other, bound).tobytes() == left.tobytes()
    assert isinstance(
        certified_epsilon_width(1.0, 1e-6, 2e-6, 1.01, 1e-7), np.float64
    )  # 0-d in, a scalar out


@settings(max_examples=80, deadline=None)
@given(
    own=st.integers(1, 5),
    right_rows=st.integers(0, 3),
    left_rows=st.integers(0, 3),
    seed=st.integers(0, 2**32 - 1),
)
def test_a_points_least_width_is_the_least_over_its_shifted_rows(own, right_rows, left_rows, seed):
    """The accountant's one call (``_core.pld_reads.least_epsilon_width``, its layout: own arguments, right rows,
    left rows) gives, per own argument, the least of the chord widths over the right rows and of the left
    widths over the left rows, each by numpy's formula (``_chord_reference``, ``_left_reference``), bit for bit;
    a short layout (fewer right rows than asked for) has no left rows."""
    rng = np.random.default_rng(seed)
    rows = right_rows + left_rows
    eps = rng.uniform(0.0, 8.0, own)
    shifts = np.concatenate(
        [rng.choice([0.01, 0.04, 0.16], right_rows), -rng.uniform(0.0, 0.2, left_rows)]
    )
    x = np.concatenate([eps] + [np.maximum(eps + d, 0.0) for d in shifts])
    upper = 10.0 ** rng.uniform(-12, 0, x.size)
    lower = upper * rng.uniform(0.0, 1.0, x.size)
    upper[rng.random(x.size) < 0.1] = np.inf  # no bound there
    lower[rng.random(x.size) < 0.1] = 0.0
    asked = (
        right_rows if rows == right_rows or rng.random() < 0.5 else right_rows + 1
    )  # + 1: a short layout
    got = _core.pld_reads.least_epsilon_width(
        x, own=own, lower=lower, upper=upper, right_rows=asked
    )
    expected = np.full(own, np.inf)
    for r in range(1, rows + 1):
        row = slice(r * own, (r + 1) * own)
        if r <= asked:
            width = _chord_reference(eps, lower[:own], upper[:own], x[row], upper[row])
        else:
            width = _left_reference(eps, upper[:own], x[row], lower[row])
        expected = np.minimum(expected, width)
    assert got.tobytes() == expected.tobytes()


def test_a_nan_epsilon_is_refused_by_name_and_a_nan_bound_certifies_nothing():
    with pytest.raises(ValueError, match="epsilon must not be NaN"):
        certified_epsilon_width(np.array([1.0, np.nan]), 1e-6, 2e-6, 1.01, 1e-7)
    with pytest.raises(ValueError, match="epsilon must not be NaN"):
        left_epsilon_width(np.nan, 1e-6, 0.5, 1e-5)
    # a NaN bound leaves the width infinite, then capped at epsilon (only epsilon >= 0 holds)
    assert certified_epsilon_width(2.0, np.nan, 1e-6, 2.01, 1e-7) == 2.0
    assert certified_epsilon_width(2.0, 1e-6, 2e-6, 2.01, np.nan) == 2.0
    assert left_epsilon_width(2.0, 1e-6, 1.9, np.nan) == 2.0
