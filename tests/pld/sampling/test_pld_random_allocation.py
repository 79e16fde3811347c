"""Random allocation (balls-in-bins) with Gaussian noise: both sides against exact values and Monte Carlo.

References: t = 1 is the Gaussian mechanism (closed form); t = 2 integrated at 30 digits (conditioning on
Y_1, the lognormal Y_2's partial expectations are closed forms); t = 10 by Monte Carlo of the exact pair
with its standard error; E epochs of t = 1 are the Gaussian mechanism with mu = sqrt(E) / sigma; a record
absent with probability 1 - q at t = 1 is the Poisson-subsampled Gaussian.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick.fdp.gaussian_mechanism import GaussianMechanism
from hockeystick.pld import PrivacyLossDistribution

MP_DPS = 30
mpmath.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test


def directions(d: PrivacyLossDistribution) -> list[PrivacyLossDistribution]:
    """The remove and add directions as PLDs of their own."""
    return [PrivacyLossDistribution([direction], d.tail) for direction in d.directions]


def two_step_delta(sigma: float, eps: float, remove: bool) -> float:
    """delta(eps) of the t = 2 pair: remove E_Q (R - g)_+, add E_Q (1 - g R)_+, R = (Y_1 + Y_2) / 2."""
    s, g = mpmath.mpf(sigma), mpmath.e ** mpmath.mpf(eps)
    ncdf = mpmath.ncdf

    def x_of(c: mpmath.mpf) -> mpmath.mpf:  # Y > c  <=>  X > s log c + 1 / (2 s)
        return s * mpmath.log(c) + 1 / (2 * s)

    def inner(x1: mpmath.mpf) -> mpmath.mpf:
        y1 = mpmath.e ** (x1 / s - 1 / (2 * s * s))
        if remove:  # E (y1 + Y2 - 2g)_+ / 2
            c = 2 * g - y1
            if c <= 0:
                return (1 - c) / 2
            xc = x_of(c)
            return (ncdf(-(xc - 1 / s)) - c * ncdf(-xc)) / 2
        c = 2 / g - y1  # g E (2/g - y1 - Y2)_+ / 2
        if c <= 0:
            return mpmath.mpf(0)
        xc = x_of(c)
        return g * (c * ncdf(xc) - ncdf(xc - 1 / s)) / 2

    density = mpmath.npdf
    return float(
        mpmath.quad(lambda x: inner(x) * density(x), [-mpmath.inf, -3, 0, 1 / s, 3, 6, mpmath.inf])
    )


@pytest.mark.parametrize("sigma", [0.7, 1.0, 2.5])
def test_one_step_is_the_gaussian_mechanism(sigma: float) -> None:
    eps = np.array([0.0, 0.3, 1.0, 2.0, 4.0])
    lower, upper = pld.random_allocation_gaussian(1, sigma).delta(eps, bound="both")
    exact = GaussianMechanism(sigma=sigma).delta(eps)
    assert np.all(lower <= exact) and np.all(exact <= upper)
    assert np.all(upper - lower <= 1e-2 * exact + 1e-18)  # the floor: the grid top's tail, 1e-18


@pytest.mark.parametrize("sigma", [0.8, 1.5])
@pytest.mark.parametrize("eps", [0.0, 0.5, 1.5])
def test_two_steps_bracket_the_integrated_pair(sigma: float, eps: float) -> None:
    d = pld.random_allocation_gaussian(2, sigma)
    for direction, remove in zip(directions(d), (True, False)):
        lower, upper = direction.delta(eps, bound="both")
        exact = two_step_delta(sigma, eps, remove)
        assert lower <= exact <= upper, (remove, lower, exact, upper)
        assert upper - lower <= 5e-3 * exact


@pytest.mark.parametrize(("steps", "sigma", "eps"), [(10, 1.0, [0.3, 0.8]), (16, 0.6, [1.0, 2.0])])
def test_ten_steps_bracket_monte_carlo(steps: int, sigma: float, eps: list[float]) -> None:
    rng = np.random.default_rng(20261127)
    samples = 1 << 21
    r = np.zeros(samples)
    for _ in range(steps):
        r += np.exp(rng.standard_normal(samples) / sigma - 0.5 / sigma**2)
    r /= steps
    d = pld.random_allocation_gaussian(steps, sigma)
    for e in eps:
        g = math.exp(e)
        for direction, terms in zip(
            directions(d), (np.maximum(r - g, 0.0), np.maximum(1.0 - g * r, 0.0))
        ):
            mean, error = terms.mean(), terms.std() / math.sqrt(samples)
            lower, upper = direction.delta(e, bound="both")
            assert lower - 5 * error <= mean <= upper + 5 * error, (e, lower, mean, upper, error)
            assert upper - lower <= 0.05 * mean  # narrow enough that a wrong pair would fail


@pytest.mark.parametrize("epochs", [4, 100])
def test_epochs_of_one_step_compose_to_the_gaussian(epochs: int) -> None:
    sigma = 3.0
    composed = pld.random_allocation_gaussian(1, sigma).self_compose(epochs)
    eps = np.array([0.5, 1.0, 3.0])
    lower, upper = composed.delta(eps, bound="both")
    exact = GaussianMechanism(sigma=sigma, rounds=epochs).delta(eps)
    assert np.all(lower <= exact) and np.all(exact <= upper)


def test_an_absent_record_is_poisson_subsampling() -> None:
    sigma, q = 0.9, 0.3
    eps = np.array([0.2, 1.0, 2.0])
    lower, upper = pld.random_allocation_gaussian(1, sigma, absent=1.0 - q).delta(eps, bound="both")
    p_lower, p_upper = pld.SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=1).delta(
        eps, bound="both"
    )
    assert np.all(lower <= p_upper) and np.all(p_lower <= upper)
    assert np.all(upper - lower <= 5e-3 * upper)


def test_finer_sum_grid_nests_inside() -> None:
    coarse = (
        pld.random_allocation_gaussian(64, 1.2, sum_resolution=0.04)
        .self_compose(10)
        .epsilon(1e-6, bound="both")
    )
    fine = (
        pld.random_allocation_gaussian(64, 1.2, sum_resolution=0.01)
        .self_compose(10)
        .epsilon(1e-6, bound="both")
    )
    assert coarse[0] <= fine[1] and fine[0] <= coarse[1]
    assert fine[1] - fine[0] < (coarse[1] - coarse[0]) / 4


def test_the_upper_side_alone_is_the_upper_side_of_both() -> None:
    """bound="upper" skips the merged law: the same upper side bit for bit (also through the accountant, whose
    upper-only reads take it), and the identity pair's lower side, delta 0."""
    eps = np.array([0.0, 0.5, 2.0])
    kwargs = {"absent": 0.2, "sum_resolution": 0.02}
    both = pld.random_allocation_gaussian(3, 1.0, **kwargs).self_compose(3)
    upper = pld.random_allocation_gaussian(3, 1.0, bound="upper", **kwargs).self_compose(3)
    assert np.array_equal(upper.delta(eps, bound="upper"), both.delta(eps, bound="upper"))
    assert np.array_equal(upper.delta(eps, bound="lower"), np.zeros(3))
    acc = {
        "sigma": 1.0,
        "steps_per_epoch": 3,
        "rounds": 5,
        "sum_resolution": 0.05,
    }  # a stopped epoch too
    assert np.array_equal(
        pld.BallsInBinsGaussianPLD(**acc).delta(eps),
        pld.BallsInBinsGaussianPLD(**acc).delta(eps, bound="both")[1],
    )


def test_an_epoch_built_again_reads_its_kept_sums() -> None:
    """The summed laws depend on the noise, the steps and the sum grid's resolution alone, and the
    last few are kept (``summed_law``): an epoch built again, or at another interval, reads them
    instead of summing again, gets the bracket a fresh build gives bit for bit, and no caller can
    change a kept law's masses."""
    from hockeystick.pld.sampling import random_allocation as ra

    eps = np.array([0.3, 1.0])
    kwargs = {"absent": 0.1, "sum_resolution": 0.02}
    brackets = []
    for interval in (1e-2, 2e-3):
        ra.summed_law.cache_clear()
        fresh = pld.random_allocation_gaussian(
            3, 0.9, value_discretization_interval=interval, **kwargs
        ).delta(eps, bound="both")
        misses = ra.summed_law.cache_info().misses
        brackets.append(fresh)
        for _ in range(2):
            again = pld.random_allocation_gaussian(
                3, 0.9, value_discretization_interval=interval, **kwargs
            ).delta(eps, bound="both")
            assert np.array_equal(again, fresh)
        assert ra.summed_law.cache_info().misses == misses  # both sides read from the kept laws
    assert not np.array_equal(brackets[0], brackets[1])  # the interval still moves the bracket
    law = ra.summed_law(0.9, 3, 0.02, merged=True)
    with pytest.raises(ValueError, match="read-only"):
        law.q[0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        law.weight[0] = 1.0


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"bound": "lower"}, "bound"),
        ({"steps": 0}, "steps"),
        ({"steps": 2.5}, "steps"),
        ({"noise_multiplier": -1.0}, "noise_multiplier"),
        ({"noise_multiplier": float("nan")}, "noise_multiplier"),
        ({"absent": 1.0}, "absent"),
        ({"sum_resolution": 0.0}, "sum_resolution"),
        ({"sensitivity": 0.0}, "sensitivity"),
    ],
)
def test_refusals_name_the_argument(kwargs: dict[str, float], word: str) -> None:
    arguments = {"steps": 4, "noise_multiplier": 1.0, **kwargs}
    with pytest.raises((ValueError, TypeError), match=word):
        pld.random_allocation_gaussian(**arguments)  # type: ignore[arg-type]


def test_feldman_shenfeld_package_values() -> None:
    """Feldman and Shenfeld's PLD_accounting package (github.com/moshenfeld/PLD_accounting, commit 139082d,
    PLD_accounting_tutorial.ipynb, its stored outputs): sigma = 3, k = 10 of t = 100 steps, one epoch, both
    directions, upper bounds on a loss grid of 0.05, which the package computes as 10 compositions of one of
    10 steps.  The same composition here: our upper side lies below theirs, within their grid's coarseness."""
    composed = pld.random_allocation_gaussian(10, 3.0).self_compose(10)
    for delta, theirs in ((1e-6, 1.5485), (1e-5, 1.3614), (1e-4, 1.1540)):
        lower, upper = composed.epsilon(delta, bound="both")
        assert lower <= upper <= theirs <= upper + 0.06


SWEEP_SIGMAS = [0.3, 1.0, 3.0, 5.0, 8.0, 10.0, 15.0, 20.0, 25.0, 40.0, 60.0, 100.0]


@pytest.mark.parametrize("steps", [1, 2, 4, 235])
def test_every_noise_from_03_to_100_gets_an_ordered_finite_bracket(steps: int) -> None:
    """Each sigma in [0.3, 100] is bracketed with the sum grid chosen internally: lower <= upper, both finite, at
    delta 1e-5 and at a few epsilon; at t = 1 the bracket holds the Gaussian mechanism's exact value."""
    for sigma in SWEEP_SIGMAS:
        d = pld.random_allocation_gaussian(steps, sigma)
        lower, upper = d.epsilon(1e-5, bound="both")
        assert 0.0 <= lower <= upper < math.inf, (sigma, lower, upper)
        eps = np.array([0.0, 0.5 / sigma, 2.0 / sigma])
        low, up = d.delta(eps, bound="both")
        assert np.all(low <= up) and np.all(np.isfinite(up)), (sigma, low, up)
        if steps == 1:
            exact = GaussianMechanism(sigma=sigma).delta(eps)
            assert np.all(low <= exact) and np.all(exact <= up), (sigma, low, exact, up)


@pytest.mark.parametrize("sigma", [8.0, 15.0])
@pytest.mark.parametrize("eps", [0.0, 0.05])
def test_two_steps_at_large_noise_bracket_the_integrated_pair(sigma: float, eps: float) -> None:
    d = pld.random_allocation_gaussian(2, sigma)
    for direction, remove in zip(directions(d), (True, False)):
        lower, upper = direction.delta(eps, bound="both")
        exact = two_step_delta(sigma, eps, remove)
        assert lower <= exact <= upper, (remove, lower, exact, upper)
        assert upper - lower <= 0.05 * exact


@pytest.mark.parametrize(
    ("steps", "sigma", "log2_samples"), [(4, 10.0, 21), (4, 20.0, 21), (235, 10.0, 17)]
)
def test_large_noise_brackets_monte_carlo(steps: int, sigma: float, log2_samples: int) -> None:
    """At large noise (sigma where the lognormal's far tails reach the subnormal range) both directions of one
    epoch hold the Monte Carlo mean of the exact pair within 5 standard errors."""
    rng = np.random.default_rng(20261127)
    samples = 1 << log2_samples
    r = np.zeros(samples)
    for _ in range(steps):
        r += np.exp(rng.standard_normal(samples) / sigma - 0.5 / sigma**2)
    r /= steps
    d = pld.random_allocation_gaussian(steps, sigma)
    for e in (0.0, 1.0 / (sigma * math.sqrt(steps))):
        g = math.exp(e)
        for direction, terms in zip(
            directions(d), (np.maximum(r - g, 0.0), np.maximum(1.0 - g * r, 0.0))
        ):
            mean, error = terms.mean(), terms.std() / math.sqrt(samples)
            lower, upper = direction.delta(e, bound="both")
            assert lower - 5 * error <= mean <= upper + 5 * error, (e, lower, mean, upper, error)


@pytest.mark.parametrize("sigma", [1e3, 1e6, 1e308])
def test_noise_beyond_the_sum_grid_takes_the_per_epoch_gaussian_bracket(sigma: float) -> None:
    """Where Y's law is narrower than a few grid cells, the epoch is bracketed by the Gaussian pair of one step
    above and the sum of the epoch's outputs below: at t = 1 both hold the exact Gaussian mechanism; at t = 4
    (sigma = 1e3) both directions hold the Monte Carlo mean of the exact pair."""
    eps = np.array([0.0, 1.0 / sigma])
    for absent in (0.0, 0.3):
        lower, upper = pld.random_allocation_gaussian(4, sigma, absent=absent).epsilon(
            1e-6, bound="both"
        )
        assert 0.0 <= lower <= upper < math.inf
    low, up = pld.random_allocation_gaussian(1, sigma).delta(eps, bound="both")
    assert np.all(low <= up)
    if sigma < 1e300:
        exact = GaussianMechanism(sigma=sigma).delta(eps)
        assert np.all(low <= exact) and np.all(exact <= up)
    if sigma == 1e3:
        rng = np.random.default_rng(20261128)
        samples, steps = 1 << 21, 4
        r = np.zeros(samples)
        for _ in range(steps):
            r += np.exp(rng.standard_normal(samples) / sigma - 0.5 / sigma**2)
        r /= steps
        d = pld.random_allocation_gaussian(steps, sigma)
        for direction, terms in zip(
            directions(d), (np.maximum(r - 1.0, 0.0), np.maximum(1.0 - r, 0.0))
        ):
            mean, error = terms.mean(), terms.std() / math.sqrt(samples)
            lower, upper = direction.delta(0.0, bound="both")
            assert lower - 5 * error <= mean <= upper + 5 * error, (lower, mean, upper, error)


def test_small_noise_keeps_the_sum_grid_small_and_the_bracket_narrow() -> None:
    """The pairwise sums cost the square of the grid's points: at small noise the grid keeps at most
    MAX_POINTS + 1 = 8001 of them, and the bracket of an epoch's epsilon stays within 1e-5 relative.  The
    width is the sum grid's (3.93e-6 on the loss grid 1e-4, 3.96e-6 on 1e-3): the loss grid is 1e-3, which
    builds the pair's factors on a tenth of the cells (epsilon is 282 here: a long loss range)."""
    from hockeystick.pld.sampling.random_allocation import DEFAULT_RESOLUTION, sum_grid

    for steps, sigma in [(10, 0.05), (235, 0.05), (235, 0.3), (1, 0.3)]:
        assert sum_grid(sigma, steps, DEFAULT_RESOLUTION).size <= 8001
    d = pld.random_allocation_gaussian(10, 0.05, value_discretization_interval=1e-3)
    lower, upper = d.epsilon(1e-5, bound="both")
    assert lower <= upper <= lower * (1 + 1e-5)
