"""Per-mechanism discretization: cell integrals, validity and direction of both PMFs."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import hockeystick as hs
import hockeystick.pld as pld
from hockeystick import _core


def _factors(dist):
    return [f for direction in dist.directions for f in direction]


def test_gaussian_cells_match_mpmath():
    """c_j = E_P[(1 - e^{l_j - L}); L in cell], L ~ N(1/(2 s^2), 1/s^2): 30-digit quadrature."""
    s, h = 0.8, 0.05
    cells = _core.pld_grid.subsampled_gaussian_cells(
        s, 1.0, remove=True, h=h, tail=1e-12, max_cells=1 << 20
    )
    mu, sd = 1 / (2 * s * s), 1 / s
    mpmath.mp.dps = 30
    dens = lambda l: mpmath.npdf(l, mu, sd)  # noqa: E731
    for j in (3, len(cells.c) // 2, len(cells.c) - 4):
        lj = (cells.k_lo + j) * h
        c = mpmath.quad(lambda l: (1 - mpmath.e ** (lj - l)) * dens(l), [lj, lj + h])
        d = mpmath.quad(lambda l: (mpmath.e ** (lj + h - l) - 1) * dens(l), [lj, lj + h])
        assert cells.c[j] == pytest.approx(float(c), rel=1e-12)
        assert cells.d[j] == pytest.approx(float(d), rel=1e-12)


def test_composed_pessimistic_mass_exceeds_one_by_about_the_loss_shift():
    """After 5964 rounds of sigma 0.5493, q 0.04833 (a G1 block whose near-one points the edge factor decides)
    the pessimistic finite mass exceeds 1 by about the composed loss shift T e (each round's factor is
    1 + e + e^2 + 16u, and the cells' round-off adds <= 64u e^h: pld/grid/connect_dots.hpp), and the optimistic
    mass falls short of 1 by at least T e (its factor is 1 - e - 4u).  Factors of 1 +- 4e would make the
    excess 4 T e, 5.9e-9 of the bracket near delta = 1 instead of 2.4e-9."""
    d = pld.subsampled_gaussian(0.5493, 0.04833, value_discretization_interval=1e-3).self_compose(
        5964
    )
    for up, lo in zip(d.composed(True), d.composed(False)):
        excess = up.finite_mass + up.p_inf - 1.0
        assert up.loss_shift < excess <= 1.25 * up.loss_shift
        assert 1.0 - lo.finite_mass >= lo.loss_shift


@pytest.mark.parametrize(
    "s, rounds, h", [(1.0, 94, 1e-3), (1.0, 94, 1e-2), (0.5, 30, 1e-3), (2.0, 400, 1e-3)]
)
def test_gaussian_compositions_near_delta_one_are_bracketed(s, rounds, h):
    """Near delta = 1 (1 - delta from 5e-8 to 1e-5), where the edge factors are an absolute part of the
    bracket: the T-fold Gaussian's exact delta, theta at mu = sqrt(T) / s (mpmath, 40 digits), lies
    within the certified bracket, whose gap is a few hundred composed loss shifts at most."""
    d = pld.gaussian(s, value_discretization_interval=h).self_compose(rounds)
    eps = np.array([0.5, 1.0, 2.0, 4.0])
    lo, up = d.delta(eps, bound="both")
    mpmath.mp.dps = 40
    mu = mpmath.sqrt(rounds) / s
    exact = np.array(
        [
            float(mpmath.ncdf(mu / 2 - e / mu) - mpmath.e**e * mpmath.ncdf(-mu / 2 - e / mu))
            for e in map(mpmath.mpf, eps)
        ]
    )
    assert np.all(1.0 - exact > 5e-8) and np.all(1.0 - exact < 1e-5)
    assert np.all(lo <= exact) and np.all(exact <= up)
    assert np.all(up - lo <= 600 * d.composed(True)[0].loss_shift)


def test_gaussian_cell_masses_match_mpmath():
    """pld/grid/cells.hpp's cell_mass through the binding: a_j = P(L in cell j) and e^{l_j} b_j = e^{l_j} Q(L in cell j)
    for L ~ N(1/(2 s^2), 1/s^2) under P and N(-1/(2 s^2), 1/s^2) under Q, from the normal cdf at 30 digits."""
    s, h = 0.8, 0.05
    cells = _core.pld_grid.subsampled_gaussian_cells(
        s, 1.0, remove=True, h=h, tail=1e-12, max_cells=1 << 20
    )
    mu, sd = 1 / (2 * s * s), 1 / s
    mpmath.mp.dps = 30
    for j in (3, len(cells.c) // 2, len(cells.c) - 4):
        lj = mpmath.mpf(int(cells.k_lo) + j) * h
        a = mpmath.ncdf(lj + h, mu, sd) - mpmath.ncdf(lj, mu, sd)
        b = mpmath.ncdf(lj + h, -mu, sd) - mpmath.ncdf(lj, -mu, sd)
        assert cells.p_mass[j] == pytest.approx(float(a), rel=1e-12)
        assert cells.q_mass_scaled[j] == pytest.approx(float(mpmath.e**lj * b), rel=1e-12)
    assert float(np.sum(cells.p_mass)) + cells.tail_lo + cells.tail_hi == pytest.approx(
        1.0, abs=1e-13
    )


@pytest.mark.parametrize("sigma, q", [(1.0, 1.0), (0.7, 0.05), (2.0, 0.3)])
def test_pmfs_are_valid_pairs(sigma, q):
    """Non-negative masses, P-mass <= 1 (the pessimistic side: 1, raised by the cells' edge factor
    1 + e + e^2 + 16u, e = edge_error, and by the cells' round-off, at most 32u (1 + e^h) of the mass:
    pld/grid/connect_dots.hpp), Q-mass sum p e^{-l} <= 1 (the same raise allowed).  A factor of 1 + 4e would
    fail the bound below (e is 1e-14 or more here)."""
    for f in _factors(pld.subsampled_gaussian(sigma, q, value_discretization_interval=2e-3)):
        assert f.connect_dots
        raise_ = (
            f.upper.loss_shift * (1 + 1e-6) + 100 * 2.0**-53
        )  # the loss shift here is the edges' bound, e
        assert 0.0 < f.upper.loss_shift < 1e-11
        for pmf in (f.upper, f.lower):
            assert np.all(pmf.p >= 0)
            assert pmf.finite_mass + pmf.p_inf <= 1 + raise_
            assert float(pmf.p @ np.exp(-pmf.losses)) <= 1 + raise_
        assert 1.0 - 1e-15 <= f.upper.finite_mass + f.upper.p_inf <= 1.0 + raise_


def test_gaussian_pessimistic_is_exact_at_grid_points_and_brackets_between():
    """Connect the dots: delta_up(l_k) = theta(1/s, l_k); everywhere lower <= theta <= upper."""
    s, h = 1.3, 1e-2
    f = _factors(pld.gaussian(s, value_discretization_interval=h))[0]
    grid = np.arange(0, 300) * h
    exact = hs.theta(1 / s, grid)
    assert f.upper.delta(grid) == pytest.approx(exact, rel=1e-11)
    between = np.linspace(0.0, 3.0, 997)
    exact = hs.theta(1 / s, between)
    assert np.all(f.upper.delta(between) >= exact)
    assert np.all(f.lower.delta(between) <= exact)
    # Between grid points a single step is off by O(h) relative in the tail (h = 1e-2: < 1e-3).
    big = exact > 1e-6
    assert np.max((f.upper.delta(between) - exact)[big] / exact[big]) < 1e-3
    assert np.max((exact - f.lower.delta(between))[big] / exact[big]) < 2e-3


@pytest.mark.parametrize("h", [0.01, 0.0123])
def test_laplace_bracket_closed_form(h):
    """Laplace: delta = (1 - e^{(eps - a)/2})_+ (paper 002 Lemma 1, unit scale)."""
    dist = pld.laplace(scale=0.8, sensitivity=1.0, value_discretization_interval=h)
    eps = np.linspace(0, 1.5, 301)
    exact = hs.laplace_hockey_stick(1.0, 0.8, eps)
    lo, up = dist.delta(eps, bound="both")
    assert np.all(lo <= exact + 1e-15) and np.all(exact <= up + 1e-15)
    if h == 0.01:  # a grid through the atoms at +-a = +-1.25: second order on both sides
        assert np.max(up - exact) < 5 * h * h and np.max(exact - lo) < 5 * h * h
    else:  # an atom inside a cell costs O(h) near it
        assert np.max(up - exact) < h and np.max(exact - lo) < h


def test_from_distributions_randomized_response():
    """Randomized response: delta(eps) = (e^{e0} - e^{eps})_+ / (1 + e^{e0}), both directions."""
    e0 = 0.9137
    p = np.array([math.exp(e0), 1.0]) / (1 + math.exp(e0))
    dist = pld.from_distributions(p, p[::-1], value_discretization_interval=0.01)
    eps = np.linspace(0, 1.2, 121)
    exact = np.maximum(np.exp(e0) - np.exp(eps), 0) / (1 + np.exp(e0))
    lo, up = dist.delta(eps, bound="both")
    assert np.all(lo <= exact + 1e-15) and np.all(exact <= up + 1e-15)
    assert np.max(up - lo) < 0.01


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="sigma"):
        pld.subsampled_gaussian(-1.0, 0.1)
    with pytest.raises(ValueError, match="sampling_rate"):
        pld.subsampled_gaussian(1.0, 1.5)
    with pytest.raises(ValueError, match="value_discretization_interval"):
        pld.gaussian(1.0, value_discretization_interval=0.0)
    with pytest.raises(ValueError, match="max_cells"):
        _core.pld_mechanisms.subsampled_gaussian(
            1.0, 1.0, remove=True, h=1e-9, tail=1e-15, max_cells=1000
        )
    with pytest.raises(ValueError, match="sum to 1"):
        pld.from_distributions([0.5, 0.6], [0.5, 0.5])


@pytest.mark.parametrize("sigma, q, h", [(0.8, 0.001, 2e-4), (1.0, 0.01, 1e-3)])
def test_optimistic_keeps_the_mass_at_a_sharp_lower_edge(sigma, q, h):
    """Small q piles the remove-direction loss against log(1 - q); the lower PMF must not drop it."""
    remove = _factors(pld.subsampled_gaussian(sigma, q, value_discretization_interval=h))[0]
    assert remove.lower.finite_mass == pytest.approx(1.0, abs=1e-12)
    assert float(remove.lower.p @ np.exp(-remove.lower.losses)) <= 1 + 1e-12


def _exact_subsampled_gaussian_delta(sigma: float, q: float, eps: float) -> float:
    """One round's delta(eps) of the Poisson-subsampled Gaussian (sensitivity 1), the larger of the two
    directions, at 40 digits.  In x (P's output, s = sigma): remove, P = (1-q) N(0, s^2) + q N(1, s^2) against
    Q = N(0, s^2), L = log(1 - q + q e^{t}), t = (x - 1/2)/s^2, L > eps for x > x*; add, P = N(0, s^2) against
    that mixture, L = -log(1 - q + q e^{t}), L > eps for x < x* where 1 - q + q e^{t} < e^{-eps}."""
    with mpmath.workdps(40):
        s, q, e = mpmath.mpf(sigma), mpmath.mpf(q), mpmath.mpf(eps)
        up = lambda x: mpmath.ncdf(-x / s)  # noqa: E731  P(N(0, s^2) > x)
        t = mpmath.log((mpmath.e**e - 1 + q) / q)
        x = mpmath.mpf(0.5) + s * s * t
        remove = (1 - q) * up(x) + q * up(x - 1) - mpmath.e**e * up(x)
        add = mpmath.mpf(0)
        if mpmath.e**-e > 1 - q:
            x = mpmath.mpf(0.5) + s * s * mpmath.log((mpmath.e**-e - 1 + q) / q)
            add = (1 - up(x)) - mpmath.e**e * ((1 - q) * (1 - up(x)) + q * (1 - up(x - 1)))
        return float(max(remove, add))


@pytest.mark.parametrize("h", [0.3, 1.0, 4.0])
@pytest.mark.parametrize(
    "sigma, q", [(0.25, 1.0), (0.25, 1e-3), (1.0, 0.3), (4.0, 1.0), (0.6, 0.05)]
)
def test_one_round_bracket_holds_the_exact_delta_on_coarse_grids(sigma, q, h):
    """The cells' node exponentials come from the vector kernels (simd/exp_arrays.hpp) where the CPU has them; on a
    coarse grid with little noise their expm1 arguments lie far beyond 1 (the exp - 1 branch) and their exp
    arguments near underflow.  One round's certified bracket still holds the 40-digit delta at every eps, q = 1
    included (there the cells are the Gaussian mechanism's)."""
    dist = pld.subsampled_gaussian(sigma, q, value_discretization_interval=h)
    eps = np.array([0.0, 0.1, 0.5, 1.0, 2.0, 4.0, 8.0])
    lo, up = dist.delta(eps, bound="both")
    exact = np.array([_exact_subsampled_gaussian_delta(sigma, q, e) for e in eps])
    # the 40-digit value rounded to a double is within half an ulp: one ulp of slack, no more
    assert np.all(lo <= np.nextafter(exact, np.inf)), (lo, exact)
    assert np.all(up >= np.nextafter(exact, -np.inf)), (up, exact)
    assert np.all(
        up[exact < 0.5] < 1.0
    )  # not the trivial upper side (a coarse grid may leave the lower at 0)


@pytest.mark.parametrize(
    "sigma, q, h, remove",
    [
        (sigma, q, h, remove)
        for sigma, q, h in [
            (0.8, 1e-3, 1e-4),
            (2.0, 1e-2, 1e-2),
            (0.25, 1.0, 0.3),
            (0.6, 0.05, 1e-3),
            (0.5, 0.999, 1e-3),
            (4.0, 0.5, 1e-4),
            (0.3, 0.2, 5e-3),
        ]
        for remove in ((True, False) if q < 1.0 else (True,))
    ],
)  # the Gaussian mechanism has one direction
def test_cell_edges_lie_within_their_charged_loss_error(sigma, q, h, remove):
    """Every cell edge x^_j = x_of_loss(l_j) as the core computes it has a true loss L(x^_j) (mpmath, 50
    digits) within the cells' edge_error of the grid loss j h: the loss error the PMFs charge as their
    loss shift (pld/grid/cells.hpp, Cells::edge_error; ~1e-15 here)."""
    cells = _core.pld_grid.subsampled_gaussian_cells(
        sigma, q, remove=remove, h=h, tail=1e-15, max_cells=1 << 26
    )
    k = cells.k_lo + np.arange(len(cells.c) + 1)
    x, _ = _core.pld_grid._subsampled_gaussian_edges(sigma, q, remove=remove, l=k * h)
    mp = mpmath
    s2, mq = mp.mpf(sigma) ** 2, mp.mpf(q)

    def loss(v: mp.mpf) -> mp.mpf:  # remove direction: log(1 - q + q e^t), t = (x - 1/2) / s^2
        return mp.log(1 - mq + mq * mp.exp((v - mp.mpf("0.5")) / s2))

    with mp.workdps(50):
        errors = [
            abs(
                (loss(mp.mpf(float(x[i]))) if remove else -loss(1 - mp.mpf(float(x[i]))))
                - mp.mpf(int(k[i])) * mp.mpf(h)
            )
            for i in np.linspace(0, k.size - 1, 300).astype(int)
            if np.isfinite(x[i])
        ]
    assert errors and float(max(errors)) <= cells.edge_error
    assert 0.0 < cells.edge_error < 1e-11  # charged, and small enough to cost nothing in epsilon


def test_a_grid_finer_than_its_edges_are_placed_is_refused():
    """q within 1e-12 of 1 and little noise: near the loss floor log(1 - q) the edges are placed in loss
    only to ~1.8e-3 (log1p's argument there is -1 + 1e-12, known to u), so a grid of h = 1e-3 cannot keep its
    cells in order and is refused, naming the argument; h = 0.05 is built and charges that error as its
    loss shift, and its upper delta still lies above the lower."""
    with pytest.raises(ValueError, match="value_discretization_interval is too fine"):
        pld.subsampled_gaussian(0.25, 1 - 1e-12, value_discretization_interval=1e-3)
    d = pld.subsampled_gaussian(0.25, 1 - 1e-12, value_discretization_interval=0.05)
    assert all(1e-4 < f.upper.loss_shift < 0.05 / 4 for f in d.directions[0])
    exact = hs.theta(
        1.0 / 0.25, 2.0
    )  # q -> 1: the Gaussian mechanism's delta, within ~1e-12 of this one's
    assert (
        float(d.delta(2.0, bound="lower", composition_only=True)) <= exact + 1e-11
        and float(d.delta(2.0, composition_only=True)) >= exact - 1e-11
    )


@pytest.mark.parametrize(
    "sigma, q, h, remove",
    [
        (0.8, 1e-3, 1e-4, True),
        (2.0, 1e-2, 1e-2, False),
        (0.5, 0.3, 1e-2, False),
        (4.0, 0.5, 1e-3, True),
    ],
)
def test_cell_values_lie_within_the_stated_round_off(sigma, q, h, remove):
    """A cell's two numbers against 40-digit integrals over the core's own edges, with its kernel's convention
    (the loss at the lower edge taken as l_j, the loss error the edges charge): |dc| + |dd| within
    ``cell_round_off`` = 32u of c + d (pld/grid/cells.hpp), which the optimistic side allows for.  Cells in the
    far tails (x/s ~ 9), where fl(x/s)^2 had put up to 80u into c_j, and the add direction's longest cells
    (hundreds of nodes, 36u with a plain sum) are among them."""
    mp = mpmath
    cells = _core.pld_grid.subsampled_gaussian_cells(
        sigma, q, remove=remove, h=h, tail=1e-15, max_cells=1 << 26
    )
    c, d = np.asarray(cells.c), np.asarray(cells.d)
    k = cells.k_lo + np.arange(c.size + 1)
    x, _ = _core.pld_grid._subsampled_gaussian_edges(sigma, q, remove=remove, l=k * h)
    z = hs.gaussian_tail_inverse(0.5e-15)
    x = (
        np.clip(x, -z * sigma, 1 + z * sigma)
        if remove
        else np.clip(x, 1 - z * sigma, 1 + z * sigma)
    )
    s, mq = mp.mpf(sigma), mp.mpf(q)

    def loss(v):
        lr = lambda w: mp.log(1 - mq + mq * mp.exp((w - mp.mpf("0.5")) / s**2))
        return lr(v) if remove else -lr(1 - v)

    def density(v):
        return (1 - mq) * mp.npdf(v, 0, s) + mq * mp.npdf(v, 1, s) if remove else mp.npdf(v, 1, s)

    full = np.flatnonzero((c > 0) & (np.arange(c.size) > 0) & (np.arange(c.size) < c.size - 1))
    width = x[full + 1] - x[full]
    picks = set(full[np.linspace(0, full.size - 1, 4).astype(int)]) | {full[np.argmax(width)]}
    worst = 0.0
    with mp.workdps(40):
        for j in sorted(picks):
            xa, xb = mp.mpf(float(x[j])), mp.mpf(float(x[j + 1]))
            la, lj, hh = loss(xa), mp.mpf(float(k[j] * h)), mp.mpf(h)
            exact_c = mp.quad(
                lambda v: density(v) * mp.exp(lj - la) * -mp.expm1(-(loss(v) - la)), [xa, xb]
            )
            exact_d = mp.quad(
                lambda v: density(v) * mp.exp(lj - la) * mp.expm1(hh - (loss(v) - la)), [xa, xb]
            )
            worst = max(
                worst, float((abs(c[j] - exact_c) + abs(d[j] - exact_d)) / (exact_c + exact_d))
            )
    assert worst <= 32 * 2.0**-53, worst / 2.0**-53
