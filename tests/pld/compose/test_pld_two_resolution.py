"""The two-resolution lower side for q < h (pld/compose/two_resolution.py, pld/sampling/mean_contraction.hpp).

The merge onto the coarse grid must keep P-mass and E_P[e^{-L}] up to round-off that goes the safe
way, put every atom on the grid, and never raise delta; the composed lower side must stay below the
exact delta (50-digit mpmath: one round in closed form, two rounds by quadrature) and below
dp_accounting's pessimistic PLD at a fine grid, while our upper side stays above the exact value.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from hockeystick import _core, pld
from hockeystick.pld.compose import two_resolution
from hockeystick.pld.compose.fft import compose_many
from hockeystick.pld.grid.pmf import GridPMF
from hockeystick.pld.mechanisms.constructors import subsampled_gaussians
from hockeystick.pld.refine import round_cache

EPS_200 = np.concatenate([np.linspace(-0.2, 0.2, 100), np.geomspace(0.2, 12.0, 100)])


def _raw_delta(k_lo: int, h: float, p: np.ndarray, p_inf: float, eps: np.ndarray) -> np.ndarray:
    """sum_k p_k (1 - e^{eps - l_k})_+ + p_inf, in extended precision terms (no charges); the atoms of
    zero mass add exact zeros (each term is finite), so only the others are summed."""
    atoms = np.flatnonzero(p)
    losses, p = (k_lo + atoms) * h, p[atoms]
    return np.array(
        [np.sum(p * np.maximum(-np.expm1(np.minimum(e - losses, 700.0)), 0.0)) + p_inf for e in eps]
    )


def _random_fine(rng: np.random.Generator, n: int) -> tuple[int, np.ndarray]:
    """A fine PMF of n atoms: a smooth bump, a few spikes, some zero runs, total mass 1."""
    x = np.arange(n)
    p = np.exp(-0.5 * ((x - rng.uniform(0.3, 0.7) * n) / rng.uniform(0.05, 0.3) / n) ** 2)
    p[rng.integers(0, n, 5)] += rng.uniform(0.0, 0.5, 5)
    p[rng.integers(0, n - 20) :][: rng.integers(0, 20)] = 0.0
    return int(rng.integers(-n, n // 2)), p / p.sum()


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ratio", [1, 2, 8, 32])
def test_merge_keeps_both_masses_safely_and_never_raises_delta(seed, ratio):
    rng = np.random.default_rng(seed)
    k_lo, p = _random_fine(rng, int(rng.integers(50, 3000)))
    h_fine = float(rng.choice([1e-5, 3e-4, 1e-2]))
    r = _core.pld_sampling.mean_contraction(
        p, k_lo=k_lo, h_fine=h_fine, ratio=ratio, p_inf=0.0, entry_error=0.0, alias=0.0
    )
    q = r.p
    assert r.h == ratio * h_fine and isinstance(r.k_lo, int)  # every atom on the coarse grid
    assert np.all(q >= 0.0)
    u = 2.0**-53
    mass_in, mass_out = math.fsum(p), math.fsum(q)
    assert mass_out <= mass_in and mass_out >= mass_in * (1.0 - 1e-9)  # P-mass kept, never raised
    y_in = math.fsum(p * np.exp(-(k_lo + np.arange(p.size)) * h_fine))
    y_out = math.fsum(q * np.exp(-(r.k_lo + np.arange(q.size)) * ratio * h_fine))
    # E_P[Y] is kept but for the last pool's rounding down in loss (Y up by at most e^h - 1) and round-off
    assert y_out >= y_in * (1.0 - 1e-9)
    assert y_out - y_in <= math.expm1(ratio * h_fine) * y_in + 1e3 * u
    before = _raw_delta(k_lo, h_fine, p, 0.0, EPS_200)
    after = _raw_delta(r.k_lo, ratio * h_fine, q, 0.0, EPS_200)
    assert np.all(after <= before * (1.0 + 1e-12) + 1e-300)


def test_merge_of_a_pair_straddling_a_grid_point_lands_on_it_whole():
    """Two atoms around the coarse point 0 whose mean of e^{-l} is exactly 1: one atom at 0, nothing lost;
    a rule that rounds each atom down (or to the nearest point) would not keep E_P[Y]."""
    h_fine, ratio = 1e-3, 4
    a = -math.expm1(-h_fine) / (
        math.expm1(h_fine) - math.expm1(-h_fine)
    )  # a e^{h} + (1 - a) e^{-h} = 1
    p = np.array([a, 0.0, 1.0 - a])  # losses -h, 0, h
    r = _core.pld_sampling.mean_contraction(
        p, k_lo=-1, h_fine=h_fine, ratio=ratio, p_inf=0.0, entry_error=0.0, alias=0.0
    )
    losses = (r.k_lo + np.arange(r.p.size)) * ratio * h_fine
    assert r.p[losses == 0.0][0] == pytest.approx(1.0, abs=1e-12)
    assert math.fsum(r.p[losses != 0.0]) <= 1e-12


def test_merge_takes_the_charges_off_and_refuses_bad_arguments():
    p = np.array([0.25, 0.25, 0.5])
    r = _core.pld_sampling.mean_contraction(
        p, k_lo=0, h_fine=1e-3, ratio=2, p_inf=0.0, entry_error=0.1, alias=0.2
    )
    assert math.fsum(r.p) <= 1.0 - 3 * 0.1 - 0.2 + 1e-12
    with pytest.raises(ValueError, match="ratio"):
        _core.pld_sampling.mean_contraction(
            p, k_lo=0, h_fine=1e-3, ratio=0, p_inf=0.0, entry_error=0.0, alias=0.0
        )
    with pytest.raises(
        ValueError, match="power of two"
    ):  # 3 x 0.3 rounds to 0.8999999999999999: atoms would rise
        _core.pld_sampling.mean_contraction(
            p, k_lo=0, h_fine=0.3, ratio=3, p_inf=0.0, entry_error=0.0, alias=0.0
        )
    with pytest.raises(ValueError, match="h_fine"):
        _core.pld_sampling.mean_contraction(
            p, k_lo=0, h_fine=math.nan, ratio=2, p_inf=0.0, entry_error=0.0, alias=0.0
        )
    with pytest.raises(ValueError, match="pessimistic"):
        two_resolution.merged(GridPMF(0, 1e-3, p, 0.0), 2)
    empty = _core.pld_sampling.mean_contraction(
        np.zeros(4), k_lo=5, h_fine=1e-3, ratio=2, p_inf=0.0, entry_error=0.0, alias=0.0
    )
    assert empty.p.size == 1 and empty.p[0] == 0.0


def test_merge_of_a_composed_block_loses_little_of_its_mean():
    """A 512-round block at sigma 0.5, q 1e-4 on h / 32 merged onto h = 1e-3: E_P[Y] moves by < 1e-8
    (a grid-step rounding would move it by ~h/2 = 5e-4); its delta stays below the fine block's."""
    h = 1e-3
    fine = subsampled_gaussians(
        np.array([0.5]), np.array([1e-4]), value_discretization_interval=h / 32
    )[0]
    (factor,) = fine.directions[0]
    block = compose_many([[(factor.lower, 512)]], pessimistic=False)[0]
    merged = two_resolution.merged(block, 32)
    y_fine = math.fsum(block.p * np.exp(-block.losses))
    y_merged = math.fsum(merged.p * np.exp(-merged.losses))
    assert abs(y_merged - y_fine) < 1e-8
    eps = np.geomspace(1e-3, 1.0, 200)
    assert np.all(
        _raw_delta(merged.k_lo, h, merged.p, 0.0, eps)
        <= _raw_delta(block.k_lo, block.h, block.p, 0.0, eps)
    )


# ---- exact deltas (50 digits; two rounds by QUADPACK) of the Poisson-subsampled Gaussian, s = sigma / sensitivity ----


def _one_round_remove(e, q, s):
    """g(e) = E_P[(1 - e^{e - L})_+], P = (1 - q) N(0, s^2) + q N(1, s^2), Q = N(0, s^2) (any real e)."""
    tail = lambda z: mpmath.ncdf(-z)  # noqa: E731
    ee = mpmath.exp(e)
    if ee - 1 + q <= 0:
        return 1 - ee
    x = s * s * mpmath.log((ee - 1 + q) / q) + mpmath.mpf(1) / 2
    return (1 - q) * tail(x / s) + q * tail((x - 1) / s) - ee * tail(x / s)


def _one_round_add(e, q, s):
    """The add direction: P = N(0, s^2), Q = (1 - q) N(0, s^2) + q N(1, s^2)."""
    ee = mpmath.exp(-e)
    if ee <= 1 - q:
        return mpmath.mpf(0)
    x = s * s * mpmath.log((ee - 1 + q) / q) + mpmath.mpf(1) / 2
    return mpmath.ncdf(x / s) - mpmath.exp(e) * (
        (1 - q) * mpmath.ncdf(x / s) + q * mpmath.ncdf((x - 1) / s)
    )


def _two_rounds_remove(e, q, s) -> float:
    """E over one round's x ~ P of g(e - L(x)): delta of two remove rounds.  The integrand at 50 digits, the
    integral by adaptive Gauss-Kronrod (QUADPACK) with a breakpoint at the kink x_k where e - L(x_k) =
    log(1 - q) (g switches to 1 - e^e there), which a tanh-sinh rule without it misses by up to 2e-4
    relative; its error estimate is held below 1e-9 of the value."""
    from scipy import integrate

    def integrand(x: float) -> float:
        x = mpmath.mpf(x)
        loss = mpmath.log(1 - q + q * mpmath.exp((2 * x - 1) / (2 * s * s)))
        density = (1 - q) * mpmath.npdf(x, 0, s) + q * mpmath.npdf(x, 1, s)
        return float(density * _one_round_remove(e - loss, q, s))

    kink = float((2 * s * s * mpmath.log((mpmath.exp(e) / (1 - q) - 1 + q) / q) + 1) / 2)
    ends = [float(v) for v in (-12 * s, -2 * s, 0, 0.5, 1, 1 + 2 * s, 1 + 12 * s)]
    value, error = integrate.quad(
        integrand,
        ends[0],
        ends[-1],
        points=sorted([*ends[1:-1], kink]),
        epsabs=0.0,
        epsrel=1e-12,
        limit=500,
    )
    assert error < 1e-9 * value, (value, error)
    return value


SIGMA, Q, H = 0.5, 1e-4, 1e-3


@pytest.fixture(scope="module")
def blocks():
    return two_resolution.block_lowers(SIGMA, Q, 1.0, H, 1e-15, threads=1)


def _lower_of(blocks_d, rounds):
    factor_terms = [(pmf, c) for pmf, c in [(blocks_d[-1], rounds >> (len(blocks_d) - 1))] if c]
    factor_terms += [(blocks_d[j], 1) for j in range(len(blocks_d) - 1) if rounds >> j & 1]
    return compose_many([factor_terms], pessimistic=False)[0]


@pytest.mark.parametrize("eps", [0.0, 0.02, 0.1, 0.5, 1.0, 2.0])
def test_one_round_lower_is_below_the_exact_delta_both_directions(blocks, eps):
    mpmath.mp.dps = 50
    exact = {
        "remove": _one_round_remove(mpmath.mpf(eps), mpmath.mpf(Q), mpmath.mpf(SIGMA)),
        "add": _one_round_add(mpmath.mpf(eps), mpmath.mpf(Q), mpmath.mpf(SIGMA)),
    }
    for name, blocks_d in zip(("remove", "add"), blocks):
        lower = float(_lower_of(blocks_d, 1).delta(np.array([eps]))[0])
        assert lower <= exact[name], name
    up = pld.SubsampledGaussianPLD(
        sigma=SIGMA, sampling_rate=Q, rounds=1, value_discretization_interval=H
    )
    assert float(up.delta(eps)) >= max(exact.values())


@pytest.mark.parametrize("eps", [0.01, 0.1, 1.0])
def test_two_round_lower_is_below_the_exact_delta(blocks, eps):
    mpmath.mp.dps = 50
    exact = _two_rounds_remove(mpmath.mpf(eps), mpmath.mpf(Q), mpmath.mpf(SIGMA))
    lower = float(_lower_of(blocks[0], 2).delta(np.array([eps]))[0])
    assert 0.0 <= lower <= exact
    up = pld.SubsampledGaussianPLD(
        sigma=SIGMA, sampling_rate=Q, rounds=2, value_discretization_interval=H
    )
    assert float(up.delta(eps)) >= exact


@pytest.fixture(scope="module")
def theirs_one_round():
    """dp_accounting's pessimistic (certified upper) PLD of one round at h = 5e-5."""
    dp_accounting = pytest.importorskip("dp_accounting")
    return dp_accounting.pld.privacy_loss_distribution.from_gaussian_mechanism(
        SIGMA,
        sampling_prob=Q,
        value_discretization_interval=5e-5,
        pessimistic_estimate=True,
        use_connect_dots=True,
    )


@pytest.mark.parametrize("rounds", [1000, 12345, 100000])
def test_accountant_lower_side_at_q_below_h_is_tight_and_below_dp_accountings_pessimistic(
    theirs_one_round, rounds
):
    """The accountant on a fixed grid h = 1e-3 > q: its lower side (0 at every eps here on the one-round grid
    alone) is within 10 % of dp_accounting's pessimistic delta at h = 5e-5 and never above it."""
    round_cache.clear()
    eps = np.array([0.5, 1.0, 1.5])
    lo, up = pld.SubsampledGaussianPLD(
        sigma=SIGMA, sampling_rate=Q, rounds=rounds, value_discretization_interval=H
    ).delta(eps, bound="both")
    theirs = theirs_one_round.self_compose(rounds)
    their_up = np.array([theirs.get_delta_for_epsilon(e) for e in eps])
    assert np.all(lo <= their_up) and np.all(lo <= up)
    assert np.all(lo >= 0.9 * their_up)


def test_block_sizes_and_where_it_applies():
    assert two_resolution.fine_ratio(1e-4, 1e-3) == 32 and two_resolution.fine_ratio(0.1, 1e-3) == 1
    j = two_resolution.block_log2(0.5, 1e-4, 1.0, 1e-3)
    variance = 1e-8 * math.expm1(4.0)
    assert (
        j is not None
        and (1 << j) * variance >= two_resolution.BLOCK_CELLS * 1e-6 > (1 << (j - 1)) * variance
    )
    assert two_resolution.applies(0.5, 1e-4, 1.0, 1e-3, 1000) and not two_resolution.applies(
        0.5, 1e-2, 1.0, 1e-3, 1000
    )
    assert not two_resolution.applies(
        5.0, 1e-4, 1.0, 1e-2, 1000
    )  # no block of <= 4096 rounds spans 200 cells
    assert not two_resolution.applies(
        0.5, 1e-4, 1.0, 1e-3, two_resolution.FINE_CELLS
    )  # the fine grid too large
    with pytest.raises(ValueError, match="sampling_rate"):
        two_resolution.block_lowers(5.0, 1e-4, 1.0, 1e-2, 1e-15)


def test_merge_onto_the_same_grid_keeps_every_atom():
    """ratio 1: every atom is its own pool, so the PMF comes back (masses scaled by 1 - 5u at most)."""
    rng = np.random.default_rng(7)
    p = rng.uniform(0.0, 1.0, 400) * (rng.uniform(size=400) < 0.7)
    r = _core.pld_sampling.mean_contraction(
        p, k_lo=-123, h_fine=1e-3, ratio=1, p_inf=0.25, entry_error=0.0, alias=0.0
    )
    assert r.k_lo >= -123 and r.p_inf == 0.25
    first = np.flatnonzero(p)[0]
    np.testing.assert_allclose(r.p, p[first : first + r.p.size], rtol=1e-15, atol=0.0)
    assert np.all(r.p <= p[first : first + r.p.size])


@pytest.mark.parametrize("gap", [1, 10**3, 10**6])
def test_merge_of_far_apart_atoms_never_raises_delta(gap):
    """Atoms many coarse cells apart (e^{-l} ratios up to e^{1e3}: expm1 overflows to inf) merge only
    with their neighbours below; delta stays below the input's at every eps and P-mass is kept."""
    p = np.zeros(3 * gap + 1)
    p[[0, gap, 3 * gap]] = [0.5, 0.3, 0.2]
    h_fine = 1e-3
    r = _core.pld_sampling.mean_contraction(
        p, k_lo=-gap, h_fine=h_fine, ratio=8, p_inf=0.0, entry_error=0.0, alias=0.0
    )
    assert np.all(np.isfinite(r.p)) and math.fsum(r.p) <= 1.0 and math.fsum(r.p) >= 1.0 - 1e-12
    eps = np.linspace(-gap * h_fine - 1.0, 2 * gap * h_fine + 1.0, 200)
    before = _raw_delta(-gap, h_fine, p, 0.0, eps)
    after = _raw_delta(r.k_lo, 8 * h_fine, r.p, 0.0, eps)
    assert np.all(after <= before * (1.0 + 1e-12) + 1e-300)


def test_no_blocks_where_the_fine_grid_would_pass_its_cell_budget(monkeypatch):
    """sigma 0.3 reaches far in loss: its fine one-round PMF at q = 3e-6, h = 1e-3 would take ~2e7 cells
    (183 s and 5 GB for the blocks); the one-round lower side is kept there, still below the upper side."""

    def refuse(*args, **kwargs):
        raise AssertionError("blocks built past FINE_CELLS")

    monkeypatch.setattr(round_cache, "block_lowers", refuse)
    round_cache.clear()
    lo, up = pld.SubsampledGaussianPLD(
        sigma=0.3, sampling_rate=3e-6, rounds=1000, value_discretization_interval=1e-3
    ).delta(np.array([0.1, 1.0]), bound="both")
    assert np.all((0.0 <= lo) & (lo <= up) & (up <= 1.0))
