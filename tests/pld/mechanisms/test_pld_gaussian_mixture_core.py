"""The Gaussian-mixture and bounded-range discretizations in the C++ core (cpp/include/hockeystick/pld/mechanisms/
gaussian_mixture.hpp and bounded_range.hpp over monotone.hpp), which ``pld.mixture_of_gaussians`` and
``pld.exponential_mechanism`` call.

Their PMFs must be those of the monotone discretization written with numpy (tests/pld/monotone_reference.py over each
pair's closed forms, rebuilt below) up to where the two implementations' cuts land and the last bits of their exp,
log and normal tails; the Gaussian mixture's closed-form cuts (one positive shift) must give the Newton search's
cells; and both sides of one round must hold the exact delta (mpmath, 50 digits).

Tolerances.  A cut is accepted where its loss is within tau = 1e-13 max(|l|, 1) of the grid loss l, so the two
implementations' cuts differ by up to 2 tau in loss; a cell spanning h in loss moves by that at each end, its
masses by up to 4 tau / h relative (its densities' ratio varies by e^h ~ 1 across it), and its atom's loss
log P_k - log Q_k by up to 8 tau / h.  Connect-the-dots splits each atom between its cell's two grid points with a
share whose derivative in the loss is at most (1 + h) / h, so an entry of the PMF moves by at most
(8 tau (1 + h) / h^2 + 4 tau / h) times the masses of the two cells it draws from, below 16 tau / h^2 times its
neighbours' entries p_{j-1} + 2 p_j + p_{j+1} (each cell's mass lies in its two grid points' entries).  The normal
tails (scipy's ndtr against the core's Mills ratio) add a few ulp of the tail each cell is cut from, at most 1e-12
of the cell (monotone.hpp's opening comment), far inside that.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from hockeystick import _core
from hockeystick.numerics.gaussian import gaussian_tail_inverse
from hockeystick.pld.grid.distribution import PrivacyLossDistribution
from hockeystick.pld.grid.pmf import GridPMF
from hockeystick.pld.mechanisms.constructors import MAX_CELLS
from hockeystick.pld.mechanisms.gaussian_mixture import mixture_of_gaussians, normal_interval
from hockeystick.pld.mechanisms.monotone import check_mixture, core_side_factor

from .. import monotone_reference as monotone

TAIL = 1e-15
MIXTURES = [  # (sigma, shifts, weights)
    (0.6, [0.0, 1.0], [0.999, 0.001]),
    (2.0, [0.0, 1.0], [0.7, 0.3]),
    (0.8, [0.0, 1.0, 2.5], [0.5, 0.3, 0.2]),
    (1.5, [0.5, 3.0], [0.5, 0.5]),
]


def _numpy_gaussian_pair(
    sigma: float, s: np.ndarray, w: np.ndarray, tail: float
) -> monotone.MonotonePair:
    """The remove pair sum_i w_i N(s_i, sigma^2) vs N(0, sigma^2) in numpy, from its closed forms: the loss
    log sum_i w_i e^{(s_i x - s_i^2 / 2) / sigma^2}, its slope (the softmax-weighted shift over sigma^2), the interval
    masses from each end's tail, on [-z sigma, max s_i + z sigma] with z = Q^{-1}(tail / 4), tails cut."""
    z = float(gaussian_tail_inverse(tail / 4.0))
    log_w = np.log(w)

    def terms(x: np.ndarray) -> np.ndarray:
        return log_w + (s * np.asarray(x, dtype=np.float64)[..., None] - 0.5 * s * s) / (
            sigma * sigma
        )

    def loss(x: np.ndarray) -> np.ndarray:
        return monotone.log_sum_exp_rows(terms(x))[0]

    def slope(x: np.ndarray) -> np.ndarray:
        return (monotone.log_sum_exp_rows(terms(x))[1] * s).sum(axis=-1) / (sigma * sigma)

    def p_mass(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return sum(wi * normal_interval((a - si) / sigma, (b - si) / sigma) for wi, si in zip(w, s))

    def q_mass(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return normal_interval(a / sigma, b / sigma)

    return monotone.MonotonePair(
        loss, slope, p_mass, q_mass, -z * sigma, float(s.max()) + z * sigma, open_ends=True
    )


def _numpy_bounded_range_pair(epsilon: float) -> monotone.MonotonePair:
    """P ~ e^y against Q ~ e^-y on [-epsilon/2, epsilon/2] in numpy (``pld.mechanisms.selection``'s docstring):
    loss 2y, and the masses of (a, b] clipped to the support, e^{a - epsilon/2} expm1(b - a) / (1 - e^-epsilon)
    and e^{-b - epsilon/2} expm1(b - a) / (1 - e^-epsilon)."""
    half, norm = 0.5 * epsilon, -math.expm1(-epsilon)

    def clip(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        lo = np.clip(np.asarray(a, dtype=np.float64), -half, half)
        return lo, np.clip(np.asarray(b, dtype=np.float64), lo, half)

    def p_mass(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        lo, hi = clip(a, b)
        return np.exp(lo - half) * np.expm1(hi - lo) / norm

    def q_mass(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        lo, hi = clip(a, b)
        return np.exp(-hi - half) * np.expm1(hi - lo) / norm

    return monotone.MonotonePair(
        lambda y: 2.0 * np.asarray(y, dtype=np.float64),
        lambda y: np.full(np.shape(y), 2.0),
        p_mass,
        q_mass,
        -half,
        half,
        inverse=lambda loss: 0.5 * np.asarray(loss, dtype=np.float64),
    )


def _assert_same_pmf(core: GridPMF, ref: GridPMF) -> None:
    """One grid, and each entry within 16 tau / h^2 of its neighbours' entries (module docstring)."""
    assert (core.k_lo, core.p.size) == (ref.k_lo, ref.p.size)
    h = ref.h
    tau = 1e-13 * max(abs(ref.k_lo * h), abs((ref.k_lo + ref.p.size) * h), 1.0)
    padded = np.concatenate([[0.0], ref.p, [0.0]])
    near = padded[:-2] + 2.0 * padded[1:-1] + padded[2:]
    assert np.all(np.abs(core.p - ref.p) <= 16.0 * tau / h**2 * near)
    assert core.p_inf == pytest.approx(ref.p_inf, rel=1e-12, abs=1e-300)
    assert core.loss_shift == pytest.approx(ref.loss_shift, rel=1e-12)


def _assert_same_brackets(core: PrivacyLossDistribution, ref: PrivacyLossDistribution) -> None:
    """The brackets of one round and of 20 rounds within 1e-9 of each other (1e-15 absolute: a composition's
    round-off): the entries' differences above are local, and a delta sums them with weights of one sign."""
    for rounds in (1, 20):
        for eps in (0.0, 0.3, 1.0):
            got = core.self_compose(rounds).delta(eps, bound="both")
            np.testing.assert_allclose(
                got, ref.self_compose(rounds).delta(eps, bound="both"), rtol=1e-9, atol=1e-15
            )


@pytest.mark.parametrize("sigma, shifts, weights", MIXTURES)
@pytest.mark.parametrize("h", [1e-2, 1e-3])
def test_the_cores_gaussian_mixture_is_the_numpy_discretization(sigma, shifts, weights, h):
    s, w = check_mixture(shifts, weights)
    old = monotone.monotone_factors("numpy", _numpy_gaussian_pair(sigma, s, w, TAIL), h)
    new = mixture_of_gaussians(sigma, s, w, value_discretization_interval=h, tail=TAIL)
    for before, direction in zip(old, new.directions):
        ((after, count),) = direction.items()
        assert count == 1 and after.lower is not None and before.lower is not None
        _assert_same_pmf(after.upper, before.upper)
        _assert_same_pmf(after.lower, before.lower)
    _assert_same_brackets(new, PrivacyLossDistribution([{old[0]: 1}, {old[1]: 1}], TAIL))


@pytest.mark.parametrize("sigma, shifts, weights", MIXTURES)
def test_the_cores_newton_cells_are_the_numpy_cells(sigma, shifts, weights):
    """Both cut by the Newton search: one cell per grid loss, the masses within 4 tau / h relative (1e-11 more for
    the tails' last bits), the losses within 8 tau / h (module docstring)."""
    h = 1e-3
    s, w = check_mixture(shifts, weights)
    ref = monotone.cell_atoms(_numpy_gaussian_pair(sigma, s, w, TAIL), h)
    got = _core.pld_mechanisms._gaussian_mixture_cell_atoms(
        sigma=sigma, shifts=s, weights=w, tail=TAIL, h=h, max_cells=MAX_CELLS, closed_form=False
    )
    tau = 1e-13 * max(float(np.abs(ref[0]).max()), 1.0)
    np.testing.assert_allclose(got[0], ref[0], rtol=0, atol=8 * tau / h)
    for a, b in zip(got[1:], ref[1:]):
        np.testing.assert_allclose(a, b, rtol=4 * tau / h + 1e-11, atol=1e-300)


@pytest.mark.parametrize("sigma, q", [(0.6, 1e-3), (2.0, 0.3), (1.0, 1.0)])
@pytest.mark.parametrize("h", [1e-2, 3e-4])
def test_closed_form_cuts_give_the_newton_cells(sigma, q, h):
    """One positive shift: the cuts in closed form, checked against the Newton search's (both within tau of the
    grid loss: the cells' losses within 8 tau / h, the masses within 4 tau / h)."""
    s, w = check_mixture([0.0, 1.0], [1.0 - q, q])

    def cells(closed_form: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return _core.pld_mechanisms._gaussian_mixture_cell_atoms(
            sigma=sigma,
            shifts=s,
            weights=w,
            tail=TAIL,
            h=h,
            max_cells=MAX_CELLS,
            closed_form=closed_form,
        )

    fast, slow = cells(True), cells(False)
    tau = 1e-13 * max(float(np.abs(slow[0]).max()), 1.0)
    np.testing.assert_allclose(fast[0], slow[0], rtol=0, atol=8 * tau / h)
    for a, b in zip(fast[1:], slow[1:]):
        np.testing.assert_allclose(a, b, rtol=4 * tau / h, atol=1e-300)


def _exact_gaussian_mixture_delta(
    sigma: float, shifts: list[float], weights: list[float], eps: float
) -> mp.mpf:
    """max over the two directions of delta(eps), in mpmath: the loss L is increasing, so the remove pair's delta
    is P(X > x+) - e^eps Q(X > x+) at L(x+) = eps, the add pair's Q(X < x-) - e^eps P(X < x-) at L(x-) = -eps
    (0 where -eps lies below L's infimum, log of the weight at shift 0); the crossings by bisection."""
    sd, e = mp.mpf(sigma), mp.e ** mp.mpf(eps)
    comps = [(mp.mpf(si), mp.mpf(wi)) for si, wi in zip(shifts, weights)]

    def loss(x: mp.mpf) -> mp.mpf:
        return mp.log(mp.fsum(wi * mp.exp((si * x - si * si / 2) / sd**2) for si, wi in comps))

    def crossing(target: mp.mpf) -> mp.mpf:
        lo, hi = -60 * sd - 60, max(shifts) + 60 * sd + 60
        for _ in range(400):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if loss(mid) < target else (lo, mid)
        return (lo + hi) / 2

    def above(x: mp.mpf, m: mp.mpf) -> mp.mpf:  # P(N(m, sigma^2) > x)
        return mp.erfc((x - m) / (sd * mp.sqrt(2))) / 2

    x = crossing(mp.mpf(eps))
    remove = mp.fsum(wi * above(x, si) for si, wi in comps) - e * above(x, 0)
    floor = sum(wi for si, wi in comps if si == 0)
    if floor == 0 or -mp.mpf(eps) > mp.log(floor):
        x = crossing(-mp.mpf(eps))
        add = (1 - above(x, 0)) - e * mp.fsum(wi * (1 - above(x, si)) for si, wi in comps)
    else:
        add = mp.mpf(0)
    return max(remove, add, mp.mpf(0))


@pytest.mark.parametrize("sigma, shifts, weights", MIXTURES)
def test_the_cores_gaussian_mixture_holds_the_exact_delta(sigma, shifts, weights):
    with mp.workdps(50):
        exact = [_exact_gaussian_mixture_delta(sigma, shifts, weights, e) for e in (0.0, 0.25, 1.0)]
    lower, upper = mixture_of_gaussians(
        sigma, shifts, weights, value_discretization_interval=1e-3
    ).delta([0.0, 0.25, 1.0], bound="both")
    for lo, ex, up in zip(lower, exact, upper):
        assert lo <= ex <= up
        assert up - lo < 1e-3  # grid 1e-3: the bracket narrows like h


@pytest.mark.parametrize("epsilon", [0.05, 1.0, 7.5])
@pytest.mark.parametrize("h", [1e-2, 1e-3])
def test_the_cores_bounded_range_pair_is_the_numpy_discretization(epsilon, h):
    """Both cut at l / 2 exactly (the loss is linear), so only the masses' last bits differ (exp and expm1 of
    numpy against libm's): well inside the cut-based tolerance."""
    old = monotone.monotone_factors("numpy", _numpy_bounded_range_pair(epsilon), h)
    new = _core.pld_mechanisms.bounded_range(epsilon=epsilon, h=h, max_cells=MAX_CELLS)
    for before, raw in zip(old, new):
        after = core_side_factor("core", raw)
        assert after.lower is not None and before.lower is not None
        _assert_same_pmf(after.upper, before.upper)
        _assert_same_pmf(after.lower, before.lower)
    _assert_same_brackets(
        PrivacyLossDistribution([{core_side_factor("core", new[0]): 1}]),
        PrivacyLossDistribution([{old[0]: 1}]),
    )


@pytest.mark.parametrize("epsilon", [0.05, 1.0, 7.5])
def test_the_cores_bounded_range_pair_holds_its_profile(epsilon):
    """delta*(eps') = (e^{epsilon/2} - e^{eps'/2})^2 / (e^epsilon - 1) (``pld.mechanisms.selection``'s docstring),
    in mpmath, between the two sides of one round."""
    side = core_side_factor(
        "core", _core.pld_mechanisms.bounded_range(epsilon=epsilon, h=1e-3, max_cells=MAX_CELLS)[0]
    )
    at = [0.0, epsilon / 3, 0.9 * epsilon]
    lower, upper = PrivacyLossDistribution([{side: 1}]).delta(at, bound="both")
    with mp.workdps(50):
        big = mp.mpf(epsilon)
        exact = [(mp.exp(big / 2) - mp.exp(mp.mpf(e) / 2)) ** 2 / mp.expm1(big) for e in at]
    for lo, ex, up in zip(lower, exact, upper):
        assert lo <= ex <= up


@pytest.mark.parametrize(
    "call, match",
    [
        (
            lambda: _core.pld_mechanisms.gaussian_mixture(
                sigma=1.0, shifts=[0.0], weights=[1.0], tail=TAIL, h=1e-3, max_cells=9
            ),
            "largest shift",
        ),
        (
            lambda: _core.pld_mechanisms.gaussian_mixture(
                sigma=1.0, shifts=[1.0], weights=[1.0], tail=0.0, h=1e-3, max_cells=9
            ),
            "tail",
        ),
        (
            lambda: _core.pld_mechanisms.gaussian_mixture(
                sigma=1.0, shifts=[9.0], weights=[1.0], tail=TAIL, h=1e-3, max_cells=9
            ),
            "more than 9",
        ),
        (
            lambda: _core.pld_mechanisms.bounded_range(epsilon=math.inf, h=1e-3, max_cells=9),
            "epsilon",
        ),
    ],
)
def test_the_core_refuses_what_it_cannot_discretize(call, match):
    with pytest.raises(ValueError, match=match):
        call()
