"""The Laplace-mixture discretization in the C++ core (cpp/include/hockeystick/pld/mechanisms/laplace_mixture.hpp
over monotone.hpp), which ``pld.laplace_mixture`` and ``pld.subsampled_laplace`` call, as the C interface's
``hs_pld_laplace`` does.

Its closed-form inverse of the loss must land every cut within the loss tolerance the Newton search accepts and
give the same cells (so the same certified PMFs) as the Newton-only path; its PMFs must be those of the monotone
discretization written with numpy (tests/pld/monotone_reference.py over the mixture's closed forms, built below, as
the package computed them before the core did) up to the last bits of the two exp and log implementations
(numpy's SIMD ones against libm's), over a grid of scales, sensitivities, rates and intervals; and both sides must
still bracket the exact delta of the Poisson-subsampled Laplace mechanism (its remove pair in closed form, mpmath
50 digits).  The mixture's shifts and weights given as plain floats are checked as the arrays are
(``check_mixture``).
"""

from __future__ import annotations

import functools
import math

import mpmath as mp
import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld.grid.distribution import PrivacyLossDistribution
from hockeystick.pld.mechanisms.constructors import MAX_CELLS
from hockeystick.pld.mechanisms.laplace_mixture import laplace_mixture, subsampled_laplace
from hockeystick.pld.mechanisms.monotone import check_mixture

from .. import monotone_reference as monotone

MP_DPS = 50
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test

MIXTURES = [
    (1.7171656416724304, [0.0, 1.0], [0.935, 0.065]),
    (4.25, [0.0, 1.0], [0.803, 0.197]),
    (2.0, [0.0, 0.5, 1.5, 3.0], [0.4, 0.1, 0.2, 0.3]),
    (0.1, [0.0, 1.0], [0.5, 0.5]),
    (1.1, [0.25, 2.0], [0.7, 0.3]),
]


def _arrays(shifts: list[float], weights: list[float]) -> dict[str, np.ndarray]:
    s, w = check_mixture(shifts, weights)
    return {"shifts": s, "weights": w}


@pytest.mark.parametrize("b, shifts, weights", MIXTURES)
def test_inverse_lands_within_the_loss_tolerance(b, shifts, weights):
    top = max(shifts)
    x = np.linspace(0.0, top, 2001)[1:-1]
    loss, back = _core.pld_mechanisms._laplace_mixture_loss_and_inverse(
        scale=b, x=x, **_arrays(shifts, weights)
    )
    again, _ = _core.pld_mechanisms._laplace_mixture_loss_and_inverse(
        scale=b, x=back, **_arrays(shifts, weights)
    )
    assert np.all(np.abs(again - loss) <= 1e-13 * np.maximum(np.abs(loss), 1.0))  # L(back) = loss
    # and the inverse really is L^{-1} (x recovered where L is not flat)
    assert np.allclose(back, x, rtol=0, atol=1e-9 * max(b, 1.0))


@pytest.mark.parametrize("b, shifts, weights", MIXTURES)
@pytest.mark.parametrize("h", [1e-2, 3e-4])
def test_cells_equal_the_newton_only_cells(b, shifts, weights, h):
    def cells(closed_form: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return _core.pld_mechanisms._laplace_mixture_cell_atoms(
            scale=b, h=h, max_cells=MAX_CELLS, closed_form=closed_form, **_arrays(shifts, weights)
        )

    fast, slow = cells(True), cells(False)
    # both cut where L is within round-off of the grid loss, so the cuts differ by round-off in x:
    # the cell losses by ~1e-12 absolute, the masses by ~1e-8 relative (cells of width ~h b / 2)
    np.testing.assert_allclose(fast[0], slow[0], rtol=1e-9, atol=1e-11)
    for a, c in zip(fast[1:], slow[1:]):
        np.testing.assert_allclose(a, c, rtol=1e-7, atol=1e-300)


def _laplace_interval(a: np.ndarray, c: np.ndarray, m: float, b: float) -> np.ndarray:
    """Lap(m, b) mass of (a, c], from the tail each end lies in."""
    u, v = (a - m) / b, (c - m) / b
    left = 0.5 * np.exp(np.minimum(v, 0.0)) * -np.expm1(np.minimum(u, 0.0) - np.minimum(v, 0.0))
    right = 0.5 * np.exp(-np.maximum(u, 0.0)) * -np.expm1(np.maximum(u, 0.0) - np.maximum(v, 0.0))
    return np.maximum(
        np.where(
            v <= 0.0, left, np.where(u >= 0.0, right, 1.0 - 0.5 * np.exp(u) - 0.5 * np.exp(-v))
        ),
        0,
    )


def _numpy_pair(b: float, s: np.ndarray, w: np.ndarray) -> monotone.MonotonePair:
    """The remove pair sum_i w_i Lap(s_i, b) vs Lap(0, b) in numpy, from its closed forms: the loss
    log sum_i w_i e^{(|x| - |x - s_i|) / b}, its slope, the interval masses, the inverse on each piece between
    shifts, and the two flat ends' atoms."""
    top = float(s.max())
    components = list(zip(np.log(w).tolist(), s.tolist()))

    def terms(x: np.ndarray) -> list[np.ndarray]:
        return [lw + (np.abs(x) - np.abs(x - si)) / b for lw, si in components]

    def loss(x: np.ndarray) -> np.ndarray:
        t = terms(np.asarray(x, dtype=np.float64))
        return functools.reduce(np.logaddexp, t[1:], t[0])

    def slope(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        t, total = terms(x), loss(x)
        return sum(np.exp(ti - total) * (x < si) for ti, (_, si) in zip(t, components)) * (2.0 / b)

    def inverse(target: np.ndarray) -> np.ndarray:
        ends = np.unique(np.append(s[s > 0.0], 0.0))
        past = s[None, :] <= ends[:, None]
        c = np.where(past, w * np.exp(s / b), 0.0).sum(axis=1)
        d = np.where(past, 0.0, w * np.exp(-s / b)).sum(axis=1)
        j = np.clip(
            np.searchsorted(np.log(c + d * np.exp(2.0 * ends / b)), target, side="right") - 1,
            0,
            ends.size - 2,
        )
        return 0.5 * b * np.log((np.exp(target) - c[j]) / d[j])

    def p_mass(a: np.ndarray, c: np.ndarray) -> np.ndarray:
        return sum(wi * _laplace_interval(a, c, si, b) for wi, si in zip(w, s))

    def q_mass(a: np.ndarray, c: np.ndarray) -> np.ndarray:
        return _laplace_interval(a, c, 0.0, b)

    p_left, p_right = (
        float(np.sum(w * 0.5 * np.exp(-s / b))),
        float(np.sum(w * 0.5 * np.exp((s - top) / b))),
    )
    at_left, at_right = (float(v) for v in loss(np.array([0.0, top])))
    atoms = ((at_left, p_left, 0.5), (at_right, p_right, 0.5 * math.exp(-top / b)))
    return monotone.MonotonePair(loss, slope, p_mass, q_mass, 0.0, top, atoms, inverse)


@pytest.mark.parametrize("b", [0.3, 1.0, 4.25])
@pytest.mark.parametrize("sensitivity", [0.5, 2.0])
@pytest.mark.parametrize("q", [1e-3, 0.1, 0.7])
@pytest.mark.parametrize("h", [1e-2, 7e-4])
def test_the_cores_pmfs_are_the_numpy_discretizations(b, sensitivity, q, h):
    """The core's both-sided PMFs of the subsampled Laplace against the numpy discretization of the same pair: one
    grid (offsets, lengths), the same loss shift and masses at +infinity up to a few ulps, the masses within
    1e-7 relative (a cut is accepted anywhere its loss is within 1e-13 of the grid's, and the last bits of exp and
    log decide where: each cell moves by that over its width, as between the closed-form and the Newton cuts), and the
    brackets of one round and of 20 rounds within 1e-9 of each other (1e-15 absolute: a composition's round-off)."""
    s, w = check_mixture([0.0, sensitivity], [1.0 - q, q])
    old = monotone.monotone_factors("numpy", _numpy_pair(b, s, w), h)
    new = subsampled_laplace(b, q, sensitivity=sensitivity, value_discretization_interval=h)
    for before, direction in zip(old, new.directions):
        ((after, count),) = direction.items()
        assert count == 1 and after.lower is not None and before.lower is not None
        for x, y in ((before.upper, after.upper), (before.lower, after.lower)):
            assert (x.k_lo, x.p.size) == (y.k_lo, y.p.size)
            np.testing.assert_allclose(y.p, x.p, rtol=1e-7, atol=1e-300)
            assert y.p_inf == pytest.approx(x.p_inf, rel=1e-12, abs=1e-300)
            assert y.loss_shift == pytest.approx(x.loss_shift, rel=1e-12)
    reference = PrivacyLossDistribution([{old[0]: 1}, {old[1]: 1}])
    for rounds in (1, 20):
        for eps in (0.0, 0.3):
            got = new.self_compose(rounds).delta(eps, bound="both")
            np.testing.assert_allclose(
                got, reference.self_compose(rounds).delta(eps, bound="both"), rtol=1e-9, atol=1e-15
            )


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
        assert (
            up - lo < 1e-3
        )  # grid 1e-3, not aligned to the atoms: the bracket narrows only like h


def test_check_mixture_plain_path_is_the_array_path():
    """A few components given as tuples or lists of floats (the plans' specs) skip the array checks: the
    same arrays, and invalid input still reaches the array path's ValueError."""
    for shifts, weights in [
        ((0.0, 1.0), (0.9271864453057831, 0.0728135546942169)),
        ((0.0, 1.0), (1.0, 0.0)),
        ((0.5, 2.0, 3.0), (0.2, 0.3, 0.5)),
    ]:
        plain, arrays = (
            check_mixture(shifts, weights),
            check_mixture(np.array(shifts), np.array(weights)),
        )
        for x, y in zip(check_mixture(list(shifts), list(weights)), arrays):
            np.testing.assert_array_equal(x, y)
        for x, y in zip(plain, arrays):
            np.testing.assert_array_equal(x, y)
            assert x.dtype == y.dtype == np.float64
        one = laplace_mixture(2.47, shifts, weights, value_discretization_interval=2e-3)
        two = laplace_mixture(
            2.47, np.array(shifts), np.array(weights), value_discretization_interval=2e-3
        )
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
