"""The shift-constrained upper curve D for batches drawn WITH replacement, replace-one neighbours
(pld/sampling/with_replacement_shift_bound.py), and the accountant that reports min((*), D).

References independent of the C++ code: the mirrored pair's curve
H_gamma(sum_c b_c N(2c, s^2) || sum_c b_c N(-2c, s^2)) in doubles, mpmath (30 digits) for the
realizable pair's curve; the actual mechanism by exhaustive enumeration of every index sequence
(small n, K), in 1-D by exact
Gaussian-mixture quadrature and in 2-D on a grid, both orders of the neighbouring pair, for eps
below 0 as well (the pair must dominate every gamma >= 0 to compose adaptively).
"""

from __future__ import annotations

import itertools

import mpmath as mp
import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick.pld.sampling.with_replacement_shift_bound import with_replacement_shift_bound

from .test_pld_with_replacement import (
    _hockey_stick,
    binomial,
    random_two_dimensional_pairs,
    realizable_delta,
)

MP_DPS = 30
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test


def mirrored_delta(s: float, K: int, n: int, eps: float) -> float:
    """E_gamma(sum_c b_c N(2c, s^2) || sum_c b_c N(-2c, s^2)), the mirrored pair that the first two
    constraints alone give (D lies below it): the loss is increasing in x, one crossing x0 (brentq on
    the log densities), then normal CDFs; in doubles, within 1e-12 relative, far inside the 2e-3 asked."""
    from scipy.optimize import brentq
    from scipy.special import logsumexp, ndtr
    from scipy.stats import binom

    c = np.arange(K + 1)
    b = binom.pmf(c, K, 1.0 / n)
    log_ratio = lambda x: (
        logsumexp(np.log(b) - 0.5 * ((x - 2 * c) / s) ** 2)
        - logsumexp(np.log(b) - 0.5 * ((x + 2 * c) / s) ** 2)
        - eps
    )
    x0 = brentq(log_ratio, -2 * K - 60 * s, 2 * K + 60 * s, xtol=1e-14, rtol=1e-15)
    return float(np.sum(b * (ndtr((2 * c - x0) / s) - np.exp(eps) * ndtr((-2 * c - x0) / s))))


CASES = [
    pytest.param(2.0, 5, 10, marks=pytest.mark.slow),
    (1.0, 3, 4),
    pytest.param(3.0, 20, 50, marks=pytest.mark.slow),
]


def _trailing_max(f: np.ndarray, w: int) -> np.ndarray:
    """out[j] = max(f[j : j + w]) for every window inside f (sparse-table doubling, O(len log w))."""
    table, span = f, 1
    while 2 * span <= w:
        table, span = np.maximum(table[:-span], table[span:]), 2 * span
    return np.maximum(table[: f.size - w + 1], table[w - span : f.size - span + 1])


def shift_constrained_brute_force(s: float, K: int, n: int, eps: float) -> float:
    """D(e^eps) by brute force: every alpha on a grid of step 1e-3 and, per copy count, the best beta of
    that grid within [alpha - r_c, alpha] (a sliding-window maximum): a LOWER estimate of the sup, every
    beta read feasible, independent of the bisection in the module."""
    from scipy.special import ndtr

    b = np.array([float(v) for v in binomial(K, n)])
    g = np.exp(eps)
    step = 1e-3
    alpha = np.linspace(-12, 12, 24001)
    total = b[0] * (1 - g) * ndtr(alpha)
    for c in range(1, K + 1):
        r = 2.0 * c / s
        back = int(np.floor(r / step * (1 - 1e-12)))  # beta = alpha - back step >= alpha - r
        beta = -12.0 + step * np.arange(-back, alpha.size)
        total = total + b[c] * _trailing_max(ndtr(beta + r) - g * ndtr(beta), back + 1)
    return float(total.max())


@pytest.mark.parametrize("s,K,n", CASES)
def test_shift_constrained_curve_lies_between_the_realizable_and_the_mirrored_curves(s, K, n):
    """D (rounded up onto the grid) is above its brute-force evaluation and the realizable curve,
    below the mirrored pair's, and close to D itself."""
    d = with_replacement_shift_bound(s, K, n, value_discretization_interval=1e-3)
    for eps in (0.0, 0.5, 1.0, 3.0):
        upper = d.delta(eps)
        brute = shift_constrained_brute_force(s, K, n, eps)
        assert brute <= upper
        assert upper - brute <= 2e-3 * brute + 1e-12
        assert float(realizable_delta(s, K, n, eps)) <= upper
        assert upper <= float(mirrored_delta(s, K, n, eps)) * (1 + 2e-3) + 1e-12


def test_shift_constrained_pmf_is_symmetric_so_it_bounds_both_orders():
    d = with_replacement_shift_bound(2.0, 5, 10, value_discretization_interval=1e-3)
    upper = next(iter(d.directions[0])).upper
    assert upper.finite_mass + upper.p_inf == pytest.approx(1.0, abs=1e-12)
    for eps in (0.3, 1.0, 2.0):
        assert d.delta(-eps) == pytest.approx(
            1 - np.exp(-eps) + np.exp(-eps) * d.delta(eps), abs=1e-8
        )


def _mixture_densities_1d(P: list, Q: list, sigma: float) -> tuple[np.ndarray, np.ndarray, float]:
    """The densities of two 1-D Gaussian mixtures, lists of (mean, weight), common sigma, on one fine grid
    (12 sigma past every mean of both), and its step: computed once per pair, read at every eps, both orders.
    Each distinct mean's Gaussian is computed once for both mixtures (most means are shared)."""
    means = np.array([m for m, _ in P + Q])
    x = np.linspace(means.min() - 12 * sigma, means.max() + 12 * sigma, 200_001)
    kernel = {m: np.exp(-((x - m) ** 2) / (2 * sigma**2)) for m in set(means.tolist())}
    dens = lambda C: sum(w * kernel[m] for m, w in C) / np.sqrt(2 * np.pi * sigma**2)
    return dens(P), dens(Q), float(x[1] - x[0])


def _mixture_hockey_stick_1d(dp: np.ndarray, dq: np.ndarray, dx: float, eps: float) -> float:
    """E_gamma of the two mixtures whose densities on the grid of step dx are dp, dq (Riemann sum)."""
    return float(np.sum(np.maximum(dp - np.exp(eps) * dq, 0.0)) * dx)


def _components_1d(values: np.ndarray, K: int) -> list:
    """(sum, weight) of the batch sum of K draws with replacement, one entry per distinct sum."""
    n = len(values)
    out: dict = {}
    for seq in itertools.product(range(n), repeat=K):
        m = round(float(values[list(seq)].sum()), 12)
        out[m] = out.get(m, 0.0) + float(n) ** -K
    return list(out.items())


@pytest.mark.slow
def test_exhaustive_one_dimensional_configurations_stay_below_the_shift_constrained_curve():
    """n = 4 records, K = 3 draws (64 index sequences), contributions in [-1, 1] (units of Delta):
    every configuration on a lattice of corners and midpoints, both orders, eps in [-1, 2].  Each
    unordered pair of values for the replaced record is taken once: swapping them swaps P and Q, and
    both orders are read."""
    n, K, s = 4, 3, 1.5
    d = with_replacement_shift_bound(s, K, n, value_discretization_interval=1e-3)
    eps_values = (-1.0, -0.3, 0.0, 0.4, 1.0, 2.0)
    bounds = {e: d.delta(e) for e in eps_values}
    worst = 0.0
    levels = (-1.0, 0.0, 1.0)
    for others in itertools.combinations_with_replacement(levels, n - 1):
        for a, a2 in itertools.combinations(levels, 2):
            P = _components_1d(np.array([a, *others]), K)
            Q = _components_1d(np.array([a2, *others]), K)
            dp, dq, dx = _mixture_densities_1d(P, Q, s)
            for e in eps_values:
                both = max(
                    _mixture_hockey_stick_1d(dp, dq, dx, e), _mixture_hockey_stick_1d(dq, dp, dx, e)
                )
                assert both <= bounds[e] * (1 + 1e-6) + 1e-9
                worst = max(worst, both / bounds[e])
    assert worst > 0.3  # the bound is not vacuous on this lattice (the realizable corner attains D)


def test_exhaustive_two_dimensional_configurations_stay_below_the_shift_constrained_curve():
    """2-D, n = 3, K = 3 (27 sequences), random non-collinear gradients of norm <= L = 1 (the
    existing brute-force test's setting), both orders, eps from -0.5 to 1.5."""
    n, K, sigma = 3, 3, 1.0
    d = with_replacement_shift_bound(
        sigma, K, n, sensitivity=1.0 / K, value_discretization_interval=1e-3
    )
    for p, q, area in random_two_dimensional_pairs(np.random.default_rng(11), 8, n, K, sigma):
        for eps in (-0.5, 0.0, 0.5, 1.5):
            both = max(_hockey_stick(p, q, area, eps), _hockey_stick(q, p, area, eps))
            assert both <= d.delta(eps) * (1 + 1e-4) + 1e-7


def test_accountant_reports_the_smaller_of_the_two_proved_upper_sides():
    """WithReplacementBatchGaussianPLD composes (*) and D and reports the smaller upper bound;
    the lower side (the realizable pair) stays below both."""
    sigma, K, n, T, h = 2.0, 8, 40, 6, 4e-3
    acc = pld.WithReplacementBatchGaussianPLD(sigma, K, n, T, value_discretization_interval=h)
    labelled = pld.with_replacement_subsampled_gaussian(
        sigma, K, n, value_discretization_interval=h
    ).self_compose(T)
    shifted = with_replacement_shift_bound(
        sigma, K, n, value_discretization_interval=h
    ).self_compose(T)
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    lower, upper = acc.delta(eps, bound="both")
    expected = np.minimum(labelled.delta(eps), shifted.delta(eps))
    np.testing.assert_allclose(upper, expected, rtol=1e-12)
    assert np.all(lower <= upper)
    delta = 1e-4
    e_low, e_up = acc.epsilon(delta, bound="both")
    assert e_up == pytest.approx(min(labelled.epsilon(delta), shifted.epsilon(delta)), rel=1e-12)
    assert e_low <= e_up


def test_paper_003_appendix_i_bracket_closes_to_ten_percent():
    """App. I, eps = 1.5 row (n = 1238, K = 128, R = 35, delta = 1/n^2): composed, the
    shift-constrained curve is below the labelled pair (*), and the bracket
    [realizable, D] is at most 10 % of epsilon wide (with (*) alone it is [1.61, 4.02])."""
    from hockeystick.isrl import appendix_i_batch_size, appendix_i_sigma

    n, R, eps = 1238, 35, 1.5
    K = int(appendix_i_batch_size(rounds=R, silo_size=n, epsilon=eps))
    sigma = float(
        appendix_i_sigma(lipschitz=1.0, rounds=R, silo_size=n, epsilon=eps, delta=1.0 / n**2)
    )
    h, delta = 2e-3, 1.0 / n**2
    build = dict(sensitivity=1.0 / K, value_discretization_interval=h)
    labelled = pld.with_replacement_subsampled_gaussian(sigma, K, n, **build).self_compose(R)
    shifted = with_replacement_shift_bound(sigma, K, n, **build).self_compose(R)
    low = labelled.epsilon(delta, bound="lower")
    up = shifted.epsilon(delta)
    assert low < up < labelled.epsilon(delta)
    assert up - low <= 0.1 * low


def test_bad_arguments_name_the_argument():
    for kwargs, match in (
        (dict(sigma=0.0), "sigma"),
        (dict(sensitivity=-1.0), "sensitivity"),
        (dict(batch_size=0), "batch_size and n must"),
        (dict(n=0), "batch_size and n must"),
        (dict(value_discretization_interval=0.0), "value_discretization_interval"),
        (dict(tail=0.5), "tail"),
    ):
        args = dict(sigma=1.0, batch_size=2, n=10) | kwargs
        with pytest.raises(ValueError, match=match):
            with_replacement_shift_bound(
                args.pop("sigma"), args.pop("batch_size"), args.pop("n"), **args
            )


def test_losses_near_the_top_of_the_grid_keep_the_curve_above_the_realizable_one():
    """Little noise (s = 0.05): losses reach 700, where e^loss nearly overflows.  The bisection works
    on logs, so D stays above the realizable curve there (it once collapsed to 1e-149), and the
    PMF carries mass 1 and stays between the two sides of the labelled accountant."""
    from hockeystick.pld.sampling.with_replacement_shift_bound import (
        copy_count_weights,
        shift_constrained_curve,
    )

    s, K, n = 0.05, 3, 4
    weights, _ = copy_count_weights(K, n, 1e-16)
    eps = np.array([1.0, 300.0, 699.0, 699.9])
    curve = shift_constrained_curve(eps, weights, s)
    for e, value in zip(eps, curve):
        assert float(realizable_delta(s, K, n, float(e))) <= value
    d = with_replacement_shift_bound(s, K, n, value_discretization_interval=1e-2)
    upper = next(iter(d.directions[0])).upper
    assert upper.finite_mass + upper.p_inf == pytest.approx(1.0, abs=1e-9)
    labelled = pld.with_replacement_subsampled_gaussian(s, K, n, value_discretization_interval=1e-2)
    for e in (0.0, 5.0, 100.0):
        assert labelled.delta(e, bound="lower") <= d.delta(e) <= 1.0
