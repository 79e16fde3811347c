"""The closed-form inverse of the Laplace-mixture loss (pld.laplace_mixture.laplace_mixture_inverse),
which ``pld.monotone`` uses to cut the loss cells instead of a Newton search.

It must land every cut within the loss tolerance the Newton search accepts, give the same cells (so
the same certified PMFs) as the Newton-only path, and both sides must still bracket the exact
delta of the Poisson-subsampled Laplace mechanism (its remove pair in closed form, mpmath 50 digits).
The mixture's shifts and weights given as plain floats are checked as the arrays are (``check_mixture``).
"""

from __future__ import annotations

import dataclasses
import math

import mpmath as mp
import numpy as np
import pytest

from hockeystick.pld.mechanisms import monotone
from hockeystick.pld.mechanisms.laplace_mixture import (
    laplace_mixture,
    laplace_mixture_inverse,
    laplace_mixture_pair,
)
from hockeystick.pld.mechanisms.monotone import check_mixture

MP_DPS = 50
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test

MIXTURES = [
    (1.7171656416724304, [0.0, 1.0], [0.935, 0.065]),
    (4.25, [0.0, 1.0], [0.803, 0.197]),
    (2.0, [0.0, 0.5, 1.5, 3.0], [0.4, 0.1, 0.2, 0.3]),
    (0.1, [0.0, 1.0], [0.5, 0.5]),
    (1.1, [0.25, 2.0], [0.7, 0.3]),
]


@pytest.mark.parametrize("b, shifts, weights", MIXTURES)
def test_inverse_lands_within_the_loss_tolerance(b, shifts, weights):
    s, w = check_mixture(shifts, weights)
    pair = laplace_mixture_pair(b, s, w)
    x = np.linspace(pair.x_lo, pair.x_hi, 2001)[1:-1]
    loss = pair.loss(x)
    back = laplace_mixture_inverse(loss, b, s, w)
    assert np.all(np.abs(pair.loss(back) - loss) <= 1e-13 * np.maximum(np.abs(loss), 1.0))  # L(back) = loss
    # and the inverse really is L^{-1} (x recovered where L is not flat)
    assert np.allclose(back, x, rtol=0, atol=1e-9 * max(b, 1.0))


@pytest.mark.parametrize("b, shifts, weights", MIXTURES)
@pytest.mark.parametrize("h", [1e-2, 3e-4])
def test_cells_equal_the_newton_only_cells(b, shifts, weights, h):
    s, w = check_mixture(shifts, weights)
    pair = laplace_mixture_pair(b, s, w)
    fast = monotone.cell_atoms(pair, h)
    slow = monotone.cell_atoms(dataclasses.replace(pair, inverse=None), h)
    # both cut where L is within round-off of the grid loss, so the cuts differ by round-off in x:
    # the cell losses by ~1e-12 absolute, the masses by ~1e-8 relative (cells of width ~h b / 2)
    np.testing.assert_allclose(fast[0], slow[0], rtol=1e-9, atol=1e-11)
    for a, c in zip(fast[1:], slow[1:]):
        np.testing.assert_allclose(a, c, rtol=1e-7, atol=1e-300)


def _exact_remove_delta(b: float, q: float, eps: float) -> mp.mpf:
    """delta(eps) of (1 - q) Lap(0, b) + q Lap(1, b) against Lap(0, b), in closed form (mpmath):
    L(x) = log(1 - q + q e^{(2x - 1) / b}) on (0, 1) crosses eps at x* = (1 + b log((e^eps - 1 + q) / q)) / 2,
    and delta = P(X > x*) - e^eps Q(X > x*) (0 once eps >= L(1), the top atom's loss)."""
    b, q, eps = mp.mpf(b), mp.mpf(q), mp.mpf(eps)

    def survival(t: mp.mpf) -> mp.mpf:  # P(Lap(0, 1) > t)
        return mp.exp(-t) / 2 if t >= 0 else 1 - mp.exp(t) / 2

    if eps >= mp.log(1 - q + q * mp.exp(1 / b)):
        return mp.mpf(0)
    x = max((1 + b * mp.log((mp.e**eps - 1 + q) / q)) / 2, mp.mpf(0))
    return (1 - q) * survival(x / b) + q * survival((x - 1) / b) - mp.e**eps * survival(x / b)


@pytest.mark.parametrize("b, q", [(1.7171656416724304, 0.0649), (4.25, 0.197)])
def test_subsampled_laplace_still_brackets_the_exact_delta(b, q):
    pld = laplace_mixture(b, [0.0, 1.0], [1.0 - q, q], value_discretization_interval=1e-3)
    remove = pld.composed(True)[0], pld.composed(False)[0]  # direction 0: the remove pair
    for eps in (0.0, 0.02, 0.04):
        up, lo = (float(side.delta(np.array([eps]))[0]) for side in remove)
        exact = _exact_remove_delta(b, q, eps)
        assert lo <= exact <= up
        assert up - lo < 1e-3  # grid 1e-3, not aligned to the atoms: the bracket narrows only like h


def test_check_mixture_plain_path_is_the_array_path():
    """A few components given as tuples or lists of floats (the plans' specs) skip the array checks: the
    same arrays, and invalid input still reaches the array path's ValueError."""
    from hockeystick.pld.mechanisms.laplace_mixture import laplace_mixture

    for shifts, weights in [
        ((0.0, 1.0), (0.9271864453057831, 0.0728135546942169)),
        ((0.0, 1.0), (1.0, 0.0)),
        ((0.5, 2.0, 3.0), (0.2, 0.3, 0.5)),
    ]:
        plain, arrays = check_mixture(shifts, weights), check_mixture(np.array(shifts), np.array(weights))
        for x, y in zip(check_mixture(list(shifts), list(weights)), arrays):
            np.testing.assert_array_equal(x, y)
        for x, y in zip(plain, arrays):
            np.testing.assert_array_equal(x, y)
            assert x.dtype == y.dtype == np.float64
        one = laplace_mixture(2.47, shifts, weights, value_discretization_interval=2e-3)
        two = laplace_mixture(2.47, np.array(shifts), np.array(weights), value_discretization_interval=2e-3)
        for upper in (True, False):
            for a, b in zip(one.composed(upper), two.composed(upper)):
                np.testing.assert_array_equal(a.p, b.p)
    for shifts, weights in [
        ((0.0, -1.0), (0.5, 0.5)),
        ((0.0, 1.0), (0.5, 0.6)),
        ((0.0, math.nan), (0.5, 0.5)),
        ((0.0, 1.0), (1.0,)),
        ((), ()),
        ((0.0, math.inf), (0.5, 0.5)),
        ([0.0, 1.0], [0.5, -0.5]),
    ]:
        with pytest.raises(ValueError, match="shifts|weights"):
            check_mixture(shifts, weights)
