"""The optimistic side's split tents (cpp/include/hockeystick/pld/grid/connect_dots.hpp): the half-cell
integrals behind them, the direction of the lower bound they give, and how much they tighten it.

References are independent of the discretization: one round's delta in closed form (Gaussian tails
at 50 digits, mpmath), the Gaussian composition's theta, and dp_accounting's pessimistic PLD at a
finer grid (an upper bound on the truth, so a lower bound above it would be wrong).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from dp_accounting import dp_event as E

import hockeystick as hs
import hockeystick.pld as pld
from hockeystick import _core

from ...dp_accounting_pld import their_epsilon


def _q(x: mp.mpf) -> mp.mpf:
    return mp.erfc(x / mp.sqrt(2)) / 2


def one_round_delta(s: float, q: float, remove: bool, eps: float) -> float:
    """delta(eps) of one round of the Poisson-subsampled Gaussian, 50 digits.

    With t = (x - 1/2)/s^2 and L = log(1 - q + q e^t) (remove: P = (1-q) N(0, s^2) + q N(1, s^2),
    Q = N(0, s^2)), delta = P(L > eps) - e^eps Q(L > eps), and L > eps iff x > x* with
    e^{t*} = 1 + (e^eps - 1)/q.  Add (P = N(0, s^2), Q the mixture): L = -log(1 - q + q e^t) > eps
    iff x < x* with e^{t*} = 1 - (1 - e^{-eps})/q (no such x when that is <= 0).
    """
    with mp.workdps(50):
        s, q, e = mp.mpf(s), mp.mpf(q), mp.mpf(eps)
        if remove:
            x = mp.mpf(0.5) + s * s * mp.log(1 + mp.expm1(e) / q)
            p_above = (1 - q) * _q(x / s) + q * _q((x - 1) / s)
            return float(p_above - mp.exp(e) * _q(x / s))
        inner = 1 - (1 - mp.exp(-e)) / q
        if inner <= 0:
            return float(_q(mp.inf))
        x = mp.mpf(0.5) + s * s * mp.log(inner)
        p_below = 1 - _q(x / s)
        q_below = (1 - q) * (1 - _q(x / s)) + q * (1 - _q((x - 1) / s))
        return float(p_below - mp.exp(e) * q_below)


def _mixture_cell(s: float, q: float, lo: float, hi: float) -> dict[str, mp.mpf]:
    """c and d of the loss interval (lo, hi] of the remove pair (1-q) N(0, s^2) + q N(1, s^2) vs N(0, s^2),
    integrated in x (L(x) = log(1 - q + q e^{(x - 1/2)/s^2}) increasing), 30 digits."""
    s, q, lo, hi = mp.mpf(s), mp.mpf(q), mp.mpf(lo), mp.mpf(hi)
    x_of = lambda l: mp.mpf(0.5) + s * s * mp.log(1 + mp.expm1(l) / q)  # noqa: E731
    loss = lambda x: mp.log(1 - q + q * mp.exp((x - mp.mpf(0.5)) / (s * s)))  # noqa: E731
    dens = lambda x: (1 - q) * mp.npdf(x, 0, s) + q * mp.npdf(x, 1, s)  # noqa: E731
    a, b = x_of(lo), x_of(hi)
    return {
        "c": mp.quad(lambda x: (1 - mp.exp(lo - loss(x))) * dens(x), [a, b]),
        "d": mp.quad(lambda x: (mp.exp(hi - loss(x)) - 1) * dens(x), [a, b]),
    }


def test_half_cells_match_mpmath():
    """c_lo = E_P[(1 - e^{l_j - L}); L in (l_j, l_j + h/2]], d_hi likewise on the upper half, and the cell's own
    numbers (sums of the halves' where the halves are kept, pld/grid/cells.hpp), by 30-digit quadrature of
    the small-q remove pair: heavy cells near loss 0 (split into halves) and light tail cells (3-point
    Gauss-Legendre, no halves: -1)."""
    s, q, h = 0.8, 1e-3, 1e-4
    cells = _core.pld_grid.subsampled_gaussian_cells(
        s, q, remove=True, h=h, tail=1e-12, max_cells=1 << 22
    )
    n = len(cells.c)
    heavy = int(np.argmax(np.asarray(cells.c) + np.asarray(cells.d)))
    with mp.workdps(30):
        for j in (heavy, heavy + 5, heavy + 15):
            lj = (cells.k_lo + j) * h
            lower, upper, whole = (
                _mixture_cell(s, q, lj, lj + h / 2),
                _mixture_cell(s, q, lj + h / 2, lj + h),
                _mixture_cell(s, q, lj, lj + h),
            )
            want = {
                "c_lo": lower["c"],
                "d_lo": lower["d"],
                "c_hi": upper["c"],
                "d_hi": upper["d"],
                "c": whole["c"],
                "d": whole["d"],
            }
            for name, value in want.items():
                assert getattr(cells, name)[j] == pytest.approx(float(value), rel=1e-12), (name, j)
        for j in (n // 2, n - 5):
            assert cells.c_lo[j] == -1.0
            lj = (cells.k_lo + j) * h
            whole = _mixture_cell(s, q, lj, lj + h)
            assert cells.c[j] == pytest.approx(float(whole["c"]), rel=1e-12), j
            assert cells.d[j] == pytest.approx(float(whole["d"]), rel=1e-12), j


@pytest.mark.parametrize(
    "sigma, q, h",
    [(0.8, 1e-3, 1e-4), (0.8, 1e-3, 3e-4), (1.0, 0.01, 1e-3), (0.5, 0.2, 1e-2), (2.0, 1.0, 1e-2)],
)
def test_one_round_lower_never_above_the_exact_delta(sigma, q, h):
    """Every direction's optimistic delta <= the exact one-round delta <= the pessimistic one, on a dense
    eps range through the bulk of the loss (where the split tents act) and into the tail."""
    dist = pld.subsampled_gaussian(sigma, q, value_discretization_interval=h)
    directions = [next(iter(d)) for d in dist.directions]
    top = max(float(f.upper.losses[-1]) for f in directions)
    eps = np.unique(np.concatenate([np.linspace(0.0, 20 * h, 41), np.linspace(0.0, 0.6 * top, 40)]))
    for remove, f in zip((True, False), directions):
        exact = np.array([one_round_delta(sigma, q, remove, float(e)) for e in eps])
        assert np.all(f.lower.delta(eps) <= exact * (1 + 1e-12) + 1e-300), (
            remove,
            eps[f.lower.delta(eps) > exact],
        )
        assert np.all(f.upper.delta(eps) >= exact * (1 - 1e-12)), remove


@pytest.mark.parametrize("sigma, rounds, h", [(1.0, 100, 1e-3), (3.0, 1000, 2e-3), (0.7, 10, 1e-2)])
def test_gaussian_composition_bracket_contains_theta(sigma, rounds, h):
    """T rounds of the Gaussian mechanism through the PLD (not the closed form): the certified bracket holds
    the exact epsilon of theta(sqrt(T)/sigma, .)."""
    dist = pld.gaussian(sigma, value_discretization_interval=h).self_compose(rounds)
    for delta in (1e-3, 1e-5, 1e-8):
        lo, up = dist.epsilon(delta, bound="both")
        exact = float(hs.theta_epsilon(math.sqrt(rounds) / sigma, delta))
        assert lo <= exact <= up, (delta, lo, exact, up)
        lo_d, up_d = dist.delta(exact, bound="both")
        assert lo_d <= delta * (1 + 1e-9) and up_d >= delta * (1 - 1e-9)


@pytest.mark.parametrize("sigma, q, rounds", [(0.8, 1e-3, 2000), (1.0, 0.01, 300)])
def test_small_q_lower_side_below_dp_accounting_pessimistic(sigma, q, rounds):
    """Our certified lower epsilon never exceeds dp_accounting's pessimistic epsilon at a 4x finer grid
    (an upper bound on the truth), while our upper one is not below its optimistic one."""
    h = 2e-4
    lo, up = pld.SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=rounds, value_discretization_interval=h
    ).epsilon(1e-5, bound="both")
    event = E.SelfComposedDpEvent(E.PoissonSampledDpEvent(q, E.GaussianDpEvent(sigma)), rounds)
    their_lo, their_up = their_epsilon(event, 1e-5, h=h / 4)
    assert lo <= their_up
    assert up >= their_lo
    assert lo <= up


def test_lower_side_no_looser_than_upper_side_for_small_q():
    """q = 1e-3, sigma = 0.8, 10^5 rounds at h = 1e-4: against a 4x finer grid's bracket, the lower side's
    distance to the truth is at most the upper side's (with tents only it would be about twice as large: the
    tent is twice the chord's true gap for a smooth law)."""

    def bracket(h):
        return pld.SubsampledGaussianPLD(
            sigma=0.8, sampling_rate=1e-3, rounds=100_000, value_discretization_interval=h
        ).epsilon(1e-5, bound="both")

    fine_lo, fine_up = bracket(2.5e-5)
    lo, up = bracket(1e-4)
    assert lo <= fine_up and up >= fine_lo
    assert fine_lo - lo <= up - fine_up
