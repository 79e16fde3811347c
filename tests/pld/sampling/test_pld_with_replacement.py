"""Gaussian mechanism on batches drawn WITH replacement (paper 003's silo message), replace-one.

References are independent of the C++ code: mpmath (30 digits) for the one-round curves of the
realizable pair sum_c b_c N(2c, s^2) vs N(0, s^2) and of the proved bound
sum_{c>=1} b_c theta(2c/s, log(1 + (e^eps - 1)/eta)); brute-force 2-D quadrature of the actual
mechanism (every index sequence enumerated) for non-collinear gradients; a 2-D quadrature of the
two-round composition.
"""

from __future__ import annotations

import itertools

import mpmath as mp
import numpy as np
import pytest

import hockeystick.pld as pld

MP_DPS = 30
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test


def binomial(K: int, n: int) -> list:
    p = mp.mpf(1) / n
    return [mp.binomial(K, c) * p**c * (1 - p) ** (K - c) for c in range(K + 1)]


def crossing(f, lo, hi) -> mp.mpf:
    """The root of an increasing f on [lo, hi], by bisection (robust where the secant solvers stall)."""
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    return (lo + hi) / 2


def realizable_delta(s: float, K: int, n: int, eps: float, shift: float = 2.0) -> mp.mpf:
    """E_gamma(sum_c b_c N(shift c, s^2) || N(0, s^2)): the loss is increasing in x, one crossing."""
    b, g, s = binomial(K, n), mp.e ** mp.mpf(eps), mp.mpf(s)
    log_ratio = lambda x: (
        mp.log(sum(b[c] * mp.npdf(x, shift * c, s) for c in range(K + 1)))
        - mp.log(g * mp.npdf(x, 0, s))
    )
    lo, hi = mp.mpf(-60), mp.mpf(shift * K + 60)
    if log_ratio(hi) < 0:
        return mp.mpf(0)
    x0 = lo if log_ratio(lo) > 0 else crossing(log_ratio, lo, hi)
    return sum(b[c] * mp.ncdf((shift * c - x0) / s) for c in range(K + 1)) - g * mp.ncdf(-x0 / s)


def proved_bound(s: float, K: int, n: int, eps: float) -> mp.mpf:
    """sum_{c>=1} b_c theta(2c/s, eps'), eps' = log(1 + (e^eps - 1)/eta): the upper bound (*) of the header."""
    b = binomial(K, n)
    eta = 1 - b[0]
    e2 = mp.log(1 + mp.expm1(eps) / eta)
    theta = lambda r: mp.ncdf(-e2 / r + r / 2) - mp.e**e2 * mp.ncdf(-e2 / r - r / 2)
    return sum(b[c] * theta(mp.mpf(2 * c) / s) for c in range(1, K + 1))


CASES = [(2.0, 5, 10), (1.0, 3, 4), (3.0, 20, 50)]


@pytest.mark.parametrize("s,K,n", CASES)
def test_one_round_bracket_contains_the_realizable_and_the_proved_curves(s, K, n):
    d = pld.with_replacement_subsampled_gaussian(s, K, n, value_discretization_interval=1e-3)
    for eps in (0.0, 0.5, 1.0, 3.0):
        lower, upper = d.delta(eps, bound="both")
        exact_low = float(realizable_delta(s, K, n, eps))
        bound = float(proved_bound(s, K, n, eps))
        assert lower <= exact_low * (1 + 1e-12) + 1e-300
        assert exact_low <= bound * (1 + 1e-12)
        assert bound <= upper
        # Connect-the-dots tightness at h = 1e-3 on each side.
        assert upper - bound <= 2e-3 * bound + 1e-12
        assert exact_low - lower <= 2e-3 * exact_low + 1e-12


def test_batch_of_one_is_the_fixed_size_remove_pair():
    """K = 1: both sides are the pair (1-q) N(0) + q N(2 Delta) vs N(0), q = 1/n, and (*) is exact."""
    sigma, n, h = 1.5, 20, 1e-3
    d = pld.with_replacement_subsampled_gaussian(sigma, 1, n, value_discretization_interval=h)
    remove = pld.subsampled_gaussian(
        sigma, 1.0 / n, sensitivity=2.0, value_discretization_interval=h
    )
    (remove_factor,) = remove.directions[
        0
    ]  # one round of the remove direction, before any composition
    assert remove_factor.name.endswith(", remove)") and remove_factor.lower is not None
    remove_lower = remove_factor.lower
    for eps in (0.0, 0.3, 1.0, 2.5):
        up = d.delta(eps)
        assert up == pytest.approx(
            remove.delta(eps), rel=1e-7, abs=1e-9
        )  # same cells; FFT charges differ
        assert d.delta(eps, bound="lower") == pytest.approx(
            float(remove_lower.delta(np.float64(eps))), rel=1e-6, abs=1e-10
        )
        assert float(realizable_delta(sigma, 1, n, eps)) == pytest.approx(
            float(proved_bound(sigma, 1, n, eps)), rel=1e-20
        )


def test_the_symmetric_replace_pair_is_not_an_upper_bound():
    """sum_c b_c N(c) vs sum_c b_c N(-c) (each record Delta from the others' mean) misses the
    realizable configuration where the other records sit at -L: our certified lower bound beats it."""
    s, K, n, eps = 1.0, 3, 10, 1.0
    b, g = binomial(K, n), mp.e ** mp.mpf(eps)
    p = lambda x: sum(b[c] * mp.npdf(x, c, s) for c in range(K + 1))
    q = lambda x: sum(b[c] * mp.npdf(x, -c, s) for c in range(K + 1))
    x0 = crossing(lambda x: mp.log(p(x)) - mp.log(g * q(x)), -20, 20)
    symmetric = sum(
        b[c] * (mp.ncdf((c - x0) / s) - g * mp.ncdf((-c - x0) / s)) for c in range(K + 1)
    )
    certified_lower = pld.with_replacement_subsampled_gaussian(
        s, K, n, value_discretization_interval=1e-3
    ).delta(eps, bound="lower")
    assert certified_lower > 3 * float(symmetric)


def test_paper_003_unamplified_gaussian_with_sensitivity_2L_over_K_is_violated():
    """Paper 003, proof of Thm 2.1: 'conditional on the sampling' the message is a Gaussian mechanism
    of sensitivity 2L/K.  A record drawn twice moves the mean by 4L/K, so the realizable mechanism's
    delta exceeds theta(2L/(K sigma), eps) (K = n = 2, sigma = 2L/K, eps = 3)."""
    K, n, L = 2, 2, 1.0
    sigma = 2 * L / K
    s = sigma / (L / K)
    eps = 3.0
    theta = mp.ncdf(-eps / (2 / s) + (2 / s) / 2) - mp.e**eps * mp.ncdf(
        -eps / (2 / s) - (2 / s) / 2
    )
    lower = pld.with_replacement_subsampled_gaussian(
        sigma, K, n, sensitivity=L / K, value_discretization_interval=1e-3
    ).delta(eps, bound="lower")
    assert lower > 5 * float(theta)


def _mechanism_components(grads: np.ndarray, K: int) -> list:
    """The output law of the mean of K records drawn with replacement: (weight, mean) per index sequence."""
    n = len(grads)
    out: dict = {}
    for seq in itertools.product(range(n), repeat=K):
        m = tuple(np.round(grads[list(seq)].mean(axis=0), 12))
        out[m] = out.get(m, 0.0) + float(n) ** -K
    return [(w, np.array(m)) for m, w in out.items()]


def _densities_2d(
    P: list, Q: list, sigma: float, N: int = 601
) -> tuple[np.ndarray, np.ndarray, float]:
    """Two 2-D Gaussian mixtures on a grid over +-9 sigma, and the cell area (trapezoid rule).

    Each isotropic component is the outer product of its two axes' Gaussians (the same values up to
    a few ulps as the 2-D exponential at every grid point, for 2 N exponentials instead of N^2), the
    mixture their weighted sum: one matrix product over the components."""
    means = np.array([m for _, m in P + Q])
    lo, hi = means.min(axis=0) - 9 * sigma, means.max(axis=0) + 9 * sigma
    x, y = np.linspace(lo[0], hi[0], N), np.linspace(lo[1], hi[1], N)

    def density(C):
        w = np.array([wc for wc, _ in C])
        m = np.array([mc for _, mc in C])
        along_x = np.exp(-((x[:, None] - m[None, :, 0]) ** 2) / (2 * sigma**2))
        along_y = np.exp(-((y[:, None] - m[None, :, 1]) ** 2) / (2 * sigma**2))
        return (along_x * w[None, :]) @ along_y.T / (2 * np.pi * sigma**2)

    return density(P), density(Q), (x[1] - x[0]) * (y[1] - y[0])


def _hockey_stick(p: np.ndarray, q: np.ndarray, area: float, eps: float) -> float:
    return float(np.sum(np.maximum(p - np.exp(eps) * q, 0.0)) * area)


def random_two_dimensional_pairs(
    rng: np.random.Generator, count: int, n: int, K: int, sigma: float
):
    """``count`` random neighbouring pairs in 2-D: n records of norm <= 1 (the replaced one and its
    replacement on the unit circle), every index sequence enumerated; yields (p, q, cell area)."""
    for _ in range(count):
        ang = rng.uniform(0, 2 * np.pi, n + 1)
        r = np.sqrt(rng.uniform(0, 1, n + 1))
        r[0] = r[n] = 1.0
        g = np.c_[r * np.cos(ang), r * np.sin(ang)]
        neighbour = g[:n].copy()
        neighbour[0] = g[n]
        yield _densities_2d(
            _mechanism_components(g[:n], K), _mechanism_components(neighbour, K), sigma
        )


def test_two_dimensional_non_collinear_gradients_stay_below_the_upper_bound():
    """The actual mechanism in 2-D (n = 3 records of norm <= L = 1, K = 3 draws, every index sequence
    enumerated), random non-collinear gradients: its delta never exceeds the certified upper bound.
    The collinear configuration reproduces the lower pair, and some non-collinear ones exceed it at
    eps = 0: the realizable pair is a lower bound only, which is why the upper side is the proved (*)."""
    n, K, sigma = 3, 3, 1.0
    d = pld.with_replacement_subsampled_gaussian(
        sigma, K, n, sensitivity=1.0 / K, value_discretization_interval=1e-3
    )
    above_lower = 0.0
    for p, q, area in random_two_dimensional_pairs(np.random.default_rng(7), 12, n, K, sigma):
        for eps in (0.0, 0.5, 1.5):
            lower, upper = d.delta(eps, bound="both")
            both_orders = max(_hockey_stick(p, q, area, eps), _hockey_stick(q, p, area, eps))
            assert both_orders <= upper * (1 + 1e-4) + 1e-7
            if eps == 0.0:
                above_lower = max(above_lower, both_orders / lower)
    assert above_lower > 1.005
    collinear = np.array([[1.0, 0.0], [-1.0, 0.0], [-1.0, 0.0]])
    swapped = collinear.copy()
    swapped[0] = [-1.0, 0.0]
    p, q, area = _densities_2d(
        _mechanism_components(collinear, K), _mechanism_components(swapped, K), sigma
    )
    for eps in (0.5, 1.0):
        assert _hockey_stick(p, q, area, eps) == pytest.approx(
            float(realizable_delta(sigma * K, K, n, eps)), rel=5e-4
        )


def test_two_rounds_bracket_the_composed_realizable_pair():
    """T = 2: the composed lower pair's delta by 2-D quadrature lies in [lower, upper]."""
    s, K, n = 2.0, 3, 4
    d = pld.with_replacement_subsampled_gaussian(
        s, K, n, value_discretization_interval=5e-4
    ).self_compose(2)
    b = np.array([float(v) for v in binomial(K, n)])
    x = np.linspace(-12 * s, 2 * K + 12 * s, 2401)
    dx = x[1] - x[0]
    p = sum(b[c] * np.exp(-((x - 2 * c) ** 2) / (2 * s * s)) for c in range(K + 1)) / np.sqrt(
        2 * np.pi * s * s
    )
    q = np.exp(-(x**2) / (2 * s * s)) / np.sqrt(2 * np.pi * s * s)
    for eps in (0.5, 1.5):
        exact = float(
            np.sum(np.maximum(np.outer(p, p) - np.exp(eps) * np.outer(q, q), 0.0)) * dx * dx
        )
        lower, upper = d.delta(eps, bound="both")
        assert lower <= exact * (1 + 1e-5)
        assert exact <= upper
        assert exact - lower <= 2e-3 * exact


def test_bracket_shrinks_with_the_grid():
    widths = []
    for h in (4e-3, 1e-3, 5e-4):
        lo, up = (
            pld.with_replacement_subsampled_gaussian(2.0, 8, 40, value_discretization_interval=h)
            .self_compose(4)
            .delta(1.0, bound="both")
        )
        widths.append(up - lo)
    assert widths[0] > widths[1] > widths[2] > 0


def test_monotone_in_sigma_batch_and_rounds():
    eps = 1.0

    def both(sigma, K, n, T=1):
        return np.array(
            pld.with_replacement_subsampled_gaussian(
                sigma, K, n, value_discretization_interval=4e-3
            )
            .self_compose(T)
            .delta(eps, bound="both")
        )

    for side in (0, 1):
        by_sigma = [both(s, 6, 30)[side] for s in (1.5, 2.0, 3.0)]
        assert by_sigma[0] > by_sigma[1] > by_sigma[2]
        by_batch = [both(2.0, K, 30)[side] for K in (2, 6, 15)]
        assert by_batch[0] < by_batch[1] < by_batch[2]
        by_rounds = [both(2.0, 6, 30, T)[side] for T in (1, 3, 9)]
        assert by_rounds[0] < by_rounds[1] < by_rounds[2]


def test_bad_arguments_name_the_argument():
    f = pld.with_replacement_subsampled_gaussian
    with pytest.raises(ValueError, match="sigma"):
        f(0.0, 2, 10)
    with pytest.raises(ValueError, match="sensitivity"):
        f(1.0, 2, 10, sensitivity=-1.0)
    with pytest.raises(ValueError, match="batch_size"):
        f(1.0, 0, 10)
    with pytest.raises(ValueError, match="^n must be an integer >= 1, got 0$"):
        f(1.0, 2, 0)
    with pytest.raises(ValueError, match="batch_size"):
        f(1.0, 2.5, 10)
    with pytest.raises(ValueError, match="tail"):
        f(1.0, 2, 10, tail=0.5)
    with pytest.raises(ValueError, match="value_discretization_interval"):
        f(1.0, 2, 10, value_discretization_interval=0.0)
    with pytest.raises(
        ValueError, match="coarser value_discretization_interval"
    ):  # checked before the work
        f(1.0, 200, 20, value_discretization_interval=1e-3)


def test_upper_pair_is_symmetric_and_carries_all_the_mass():
    """The upper PLD dominates both orders of every neighbouring pair: its curve obeys
    delta(-eps) = 1 - e^-eps + e^-eps delta(eps) (a symmetric pair), and its PMF has mass 1 (raised by
    the cells' edge factor 1 + 4 e at most, e <= its loss shift: pld/grid/connect_dots.hpp)."""
    d = pld.with_replacement_subsampled_gaussian(2.0, 5, 10, value_discretization_interval=1e-3)
    upper = next(iter(d.directions[0])).upper
    assert 1.0 - 1e-12 <= upper.finite_mass + upper.p_inf <= 1.0 + 4.0 * upper.loss_shift + 1e-12
    for eps in (0.3, 1.0, 2.0):
        assert d.delta(-eps) == pytest.approx(
            1 - np.exp(-eps) + np.exp(-eps) * d.delta(eps), abs=1e-8
        )


def test_loss_range_beyond_700_keeps_finite_bounds():
    """A grid wider than 700 in loss (little noise): both sides keep their whole grid (the
    connect-the-dots construction is stable for any span), stay finite and ordered."""
    d = pld.with_replacement_subsampled_gaussian(0.15, 3, 4, value_discretization_interval=1e-2)
    factor = next(iter(d.directions[0]))
    assert factor.upper.losses[-1] > 700 and np.all(np.isfinite(factor.lower.p))
    assert factor.lower.losses[-1] - factor.lower.losses[0] > 700 and factor.connect_dots
    for eps in (0.0, 5.0, 50.0):
        lower, upper = d.delta(eps, bound="both")
        assert 0.0 <= lower <= upper <= 1.0
        assert lower <= float(realizable_delta(0.15, 3, 4, eps)) * (1 + 1e-9) + 1e-300
