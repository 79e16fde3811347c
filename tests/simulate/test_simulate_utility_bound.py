"""Paper 000 Corollary 1 (utility of the trusted aggregator): the formula against an independent
50-digit evaluation of the paper's printed form, its constants against direct evaluation, and the bound
above what the simulator measures."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")
mpmath = pytest.importorskip("mpmath")

import hockeystick.simulate as sim  # noqa: E402
from hockeystick.simulate.data import from_client_arrays  # noqa: E402
from hockeystick.simulate.utility_bound import (  # noqa: E402
    least_squares_constants,
    strongly_convex_excess_loss_bound,
)

RADIUS = 3.0


@pytest.fixture(scope="module")
def population():
    """20000 rows of a planted linear model (d = 5): the population P_X whose empirical distribution is exact."""
    data = sim.synthetic("linear", 20_000, 1, 5, noise=0.3, seed=11)
    return data.features, data.labels


def test_formula_equals_the_printed_form_at_d_1_in_50_digits():
    mpmath.mp.dps = 50
    for beta, lam, d_norm, g2, sigma, m, n in [
        (1.0, 0.2, 4.0, 3.0, 0.5, 4, 400),
        (2.5, 0.01, 0.3, 0.1, 7.0, 1, 97),
        (0.7, 0.7, 1.0, 0.0, 0.0, 10, 1000),
    ]:
        ours = strongly_convex_excess_loss_bound(
            smoothness=beta,
            strong_convexity=lam,
            gradient_norm=d_norm,
            gradient_variance=g2,
            sigma=sigma,
            batch_size=m,
            n=n,
            dimension=1,
        )
        B, L, D, G, S = (mpmath.mpf(v) for v in (beta, lam, d_norm, g2, sigma))
        printed = (
            2 * B * (m * D**2 + G + S**2) / (L**2 * n)
        )  # 2 beta (m D^2 + G^2 + sigma^2) / (lambda^2 n)
        assert abs(ours - printed) <= 1e-14 * printed


def test_dimension_and_partial_rounds():
    common = dict(
        smoothness=1.0, strong_convexity=0.5, gradient_norm=1.0, gradient_variance=2.0, sigma=3.0
    )
    d5 = strongly_convex_excess_loss_bound(**common, batch_size=4, n=40, dimension=5)
    assert d5 == pytest.approx(2 * 1.0 * (1.0 + (2.0 + 5 * 9.0) / 4) / (0.25 * 10), rel=1e-15)
    # 41 users in batches of 4 still run 10 rounds: the bound is T = 10's, not n/m = 10.25's
    assert strongly_convex_excess_loss_bound(**common, batch_size=4, n=41, dimension=5) == d5
    grid = strongly_convex_excess_loss_bound(
        **common, batch_size=np.array([[1], [4]]), n=np.array([40, 80]), dimension=5
    )
    assert grid.shape == (2, 2) and grid[1, 0] == d5
    for bad, message in [
        (dict(batch_size=50, n=40), "batch_size must be <= n"),
        (dict(batch_size=4, n=40, strong_convexity=2.0), "strong_convexity must be <= smoothness"),
        (dict(batch_size=4, n=40, sigma=-1.0), "sigma must be"),
    ]:
        with pytest.raises(ValueError, match=message):
            strongly_convex_excess_loss_bound(**{**common, "dimension": 5, **bad})


def test_printed_sigma_squared_understates_the_step_moment_for_d_above_1(population):
    """The step's second moment E||g||^2 = ||grad F||^2 + Var/m + d sigma^2/m, evaluated directly from the
    rows: below the corrected D^2 + (G^2 + d sigma^2)/m everywhere on the ball, above the printed
    D^2 + (G^2 + sigma^2)/m at the minimizer once the noise dominates."""
    x, y = population
    c = least_squares_constants(x, y, RADIUS)
    m, d = 4, x.shape[1]
    rng = np.random.default_rng(0)
    points = rng.standard_normal((200, d))
    points *= (
        RADIUS * rng.random((200, 1)) ** (1 / d) / np.linalg.norm(points, axis=1, keepdims=True)
    )
    for sigma in (0.1, 30.0):
        for w in [*points, c.minimizer]:
            g = x * (x @ w - y)[:, None]
            mean = g.mean(axis=0)
            moment = mean @ mean + np.mean(np.sum((g - mean) ** 2, axis=1)) / m + d * sigma**2 / m
            assert moment <= c.gradient_norm**2 + (c.gradient_variance + d * sigma**2) / m
    g = x * (x @ c.minimizer - y)[:, None]
    at_minimum = np.mean(np.sum((g - g.mean(axis=0)) ** 2, axis=1)) / m + d * 30.0**2 / m
    assert at_minimum > c.gradient_norm**2 + (c.gradient_variance + 30.0**2) / m


def test_constants_against_direct_evaluation(population):
    x, y = population
    c = least_squares_constants(x, y, RADIUS)
    w_star, *_ = np.linalg.lstsq(x, y, rcond=None)
    np.testing.assert_allclose(c.minimizer, w_star, rtol=1e-10)
    assert c.minimum == pytest.approx(np.mean((x @ w_star - y) ** 2) / 2, rel=1e-12)
    # curvature along random directions lies in [lambda, beta]
    u = np.random.default_rng(2).standard_normal((500, x.shape[1]))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    curvature = np.mean((x @ u.T) ** 2, axis=0)
    assert c.strong_convexity <= curvature.min() * (
        1 + 1e-12
    ) and curvature.max() <= c.smoothness * (1 + 1e-12)
    with pytest.raises(ValueError, match="minimizer inside the ball"):
        least_squares_constants(x, y, 0.5)
    with pytest.raises(ValueError, match="not strongly convex"):
        least_squares_constants(x[:3], y[:3], RADIUS)


def test_bound_is_above_the_measured_excess_loss(population):
    """Algorithm 1 on n users drawn i.i.d. from the population (one row each), eta_t = 1/(lambda t),
    sigma = 0.5: the excess population risk averaged over 40 independent data sets and runs stays below
    Corollary 1's bound (it is far below: the bound charges the worst gradient on the whole ball)."""
    x, y = population
    c = least_squares_constants(x, y, RADIUS)
    n, m, sigma = 400, 4, 0.5
    excess = []
    for seed in range(40):
        rows = np.random.default_rng(100 + seed).integers(0, x.shape[0], n)
        users = from_client_arrays(
            [x[r : r + 1] for r in rows], [y[r : r + 1] for r in rows], "linear"
        )
        run = sim.trusted_aggregator(
            users,
            batch=m,
            rate=1.0 / c.strong_convexity,
            schedule="inverse_t",
            sigma=sigma,
            radius=RADIUS,
            seed=seed,
        )
        v = run.weights - c.minimizer
        excess.append(0.5 * v @ (x.T @ x / x.shape[0]) @ v)  # F(W_T) - min F on the population
    bound = strongly_convex_excess_loss_bound(
        smoothness=c.smoothness,
        strong_convexity=c.strong_convexity,
        gradient_norm=c.gradient_norm,
        gradient_variance=c.gradient_variance,
        sigma=sigma,
        batch_size=m,
        n=n,
        dimension=c.dimension,
    )
    measured = float(np.mean(excess))
    assert 0 < measured < bound
    print(
        f"Corollary 1: bound {bound:.4g}, measured excess {measured:.4g} (ratio {bound / measured:.3g})"
    )
