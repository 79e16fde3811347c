"""The affinity bound on delta near 1 (pld/reads/affinity_ceiling.py) and G1's ceiling rule: the
affinity table is a certified upper bound on E_P[e^{-lam L}] (30-digit quadrature), the lower delta it
gives never exceeds the truth (one round, 50 digits) nor any certified upper bound (ours, dp_accounting's
pessimistic PLD), and with ``delta_accuracy="epsilon"`` a point whose lower delta reaches
DELTA_CEILING = 1 - 1e-9 is done."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick.pld.accountants.subsampled_gaussian import SubsampledGaussianPLD
from hockeystick.pld.reads.affinity_ceiling import (
    LAMBDAS,
    delta_lower_near_one,
    subsampled_gaussian_log_affinity,
)

MP_DPS = 50
mpmath.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test


def _densities(sigma: float, q: float, remove: bool):
    """(p, q) densities of one round in output space: remove P = (1-q) N(0, s^2) + q N(1, s^2), Q = N(0, s^2)."""
    s, r = mpmath.mpf(sigma), mpmath.mpf(q)
    # per working precision (quadrature raises it), the constants, and N(0, s^2) at the last point (an
    # integrand asks both densities at each point): the values computed afresh at every call, bit for bit
    constants: dict = {}
    last: list = [None, 0, None]  # the point, the working precision, N(0, s^2) there

    def at_this_precision():
        prec = mpmath.mp.prec
        if prec not in constants:
            constants[prec] = (2 * s * s, s * mpmath.sqrt(2 * mpmath.pi), 1 - r)
        return constants[prec]

    def normal(x, mu):
        two_variance, scale, _ = at_this_precision()
        return mpmath.exp(-((x - mu) ** 2) / two_variance) / scale

    def centred(x):
        if last[0] is not x or last[1] != mpmath.mp.prec:
            last[:] = [x, mpmath.mp.prec, normal(x, 0)]
        return last[2]

    def mixture(x):
        return at_this_precision()[2] * centred(x) + r * normal(x, 1)

    return (mixture, centred) if remove else (centred, mixture)


@pytest.mark.parametrize(
    "sigma, q",
    [
        pytest.param(0.55, 0.048, marks=pytest.mark.slow),
        pytest.param(0.73, 0.023, marks=pytest.mark.slow),
        (2.0, 0.3),
        (0.5, 1e-4),
    ],
)
def test_log_affinity_bounds_the_30_digit_affinity_from_above_and_closely(sigma, q):
    """The table against each affinity by quadrature at 30 digits: the table's least margin above the
    affinity is 3.4e-9 (sigma 0.5, q 1e-4; 1.5e-7 to 2e-7 in the other cases), and the 30-digit
    quadratures agree with 50-digit ones to 5e-32, so each comparison is decided far above the
    reference's own error."""
    table = subsampled_gaussian_log_affinity(sigma, q)
    for row, remove in enumerate((True, False)):
        p, qq = _densities(sigma, q, remove)
        for k in (0, 5, 9, 17):
            with mpmath.workdps(30):
                lam = mpmath.mpf(float(LAMBDAS[k]))
                mu = 1 - lam
                exact = mpmath.log(
                    mpmath.quad(
                        lambda x: p(x) ** mu * qq(x) ** lam,
                        [-mpmath.inf, -10 * sigma, 0, 0.5, 1, 1 + 10 * sigma, mpmath.inf],
                    )
                )
            assert table[row, k] >= exact  # an upper bound on log A
            assert (
                table[row, k] - exact <= 2e-6
            )  # close: A^T off by at most e^0.2 at 10^5 rounds (h = 1e-2 cells)


@pytest.mark.parametrize(
    "sigma, q, eps", [(0.3, 0.5, 0.5), (0.5, 0.9, 1.0), (0.2, 0.9, 0.5), (0.15, 0.99, 1.0)]
)
def test_one_round_lower_delta_is_below_the_50_digit_delta(sigma, q, eps):
    """T = 1: delta(eps) = max over directions of int (p - e^eps q)_+, by 50-digit quadrature (split where
    p = e^eps q); the affinity bound must not exceed it."""
    exact = mpmath.mpf(0)
    for remove in (True, False):
        p, qq = _densities(sigma, q, remove)
        f = lambda x: p(x) - mpmath.exp(eps) * qq(x)  # noqa: E731
        # the loss +-log(1 - q + q e^{(2x - 1) / (2 s^2)}) is monotone in x: the positive part is the
        # half-line beyond the x where it equals eps (none in the add direction once eps >= -log(1 - q))
        ratio = (mpmath.exp(eps) - 1 + q) / q if remove else (mpmath.exp(-eps) - 1 + q) / q
        if ratio <= 0:
            continue
        root = sigma * sigma * mpmath.log(ratio) + mpmath.mpf(1) / 2
        ends = [root, mpmath.inf] if remove else [-mpmath.inf, root]
        exact = max(exact, mpmath.quad(f, ends))
    lower = delta_lower_near_one(subsampled_gaussian_log_affinity(sigma, q), 1, np.array([eps]))[0]
    assert 0.0 < lower <= exact  # (0.13, 0.05, 0.70, 0.94: the bound says something here)


@pytest.mark.parametrize(
    "sigma, q, rounds", [(0.55, 0.048, 6000), (0.5, 0.1, 2000), (0.73, 0.023, 80000)]
)
def test_lower_delta_near_one_is_below_every_certified_upper_delta(sigma, q, rounds):
    """Many rounds: the affinity lower bound against our certified upper side on a fixed grid and
    dp_accounting's pessimistic PLD (their upper bound); both are >= the truth >= ours."""
    dp_accounting = pytest.importorskip("dp_accounting")
    eps = np.array([0.5, 2.0, 5.0, 10.0])
    lower = delta_lower_near_one(subsampled_gaussian_log_affinity(sigma, q), rounds, eps)
    assert np.all(lower > 0.99)  # the regime the bound is for
    _, up = pld.SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=rounds, value_discretization_interval=2e-2
    ).delta(eps, bound="both")
    assert np.all(lower <= up)
    theirs = dp_accounting.pld.privacy_loss_distribution.from_gaussian_mechanism(
        sigma,
        sampling_prob=q,
        value_discretization_interval=2e-2,
        pessimistic_estimate=True,
        use_connect_dots=True,
    ).self_compose(rounds)
    assert all(lo <= theirs.get_delta_for_epsilon(e) for lo, e in zip(lower, eps))


def test_lower_delta_is_below_one_and_zero_where_the_bound_says_nothing():
    table = subsampled_gaussian_log_affinity(0.55, 0.048)
    far = delta_lower_near_one(table, 10**5, np.array([0.5, 10.0]))
    assert np.all(far < 1.0) and np.all(far >= 1.0 - 1e-15)  # 1 - e^{-200}: the float below 1
    assert delta_lower_near_one(table, 1, np.array([50.0, math.inf]))[1] == 0.0
    assert np.all(
        delta_lower_near_one(subsampled_gaussian_log_affinity(5.0, 1e-4), 100, np.array([0.5]))
        == 0.0
    )


@pytest.mark.parametrize("rounds, eps", [(10481, 1.0), (15264, 7.0), (82864, 8.0)])
def test_delta_near_one_meets_the_ceiling_on_the_first_grid(visited_grids, rounds, eps):
    """sigma 0.55, q 0.048 (G1's flat corner): the composed lower side alone sat 6e-10 to 7e-9 below 1
    (the FFT's round-off charge), so no grid met G1 there; the affinity bound lifts it past 1 - 1e-9 and the
    refinement stops.  The bracket stays ordered and below dp_accounting's pessimistic delta."""
    sigma, q = 0.5494, 0.04833
    lo, up = pld.SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=rounds, accuracy=1e-2, delta_accuracy="epsilon"
    ).delta(eps, bound="both")
    assert SubsampledGaussianPLD.DELTA_CEILING <= lo <= up <= 1.0 and lo < 1.0
    assert len(visited_grids) == 1  # one grid read


def test_fixed_grid_lower_side_near_one_is_raised_and_ordered():
    """A fixed grid (no accuracy=): bound="both" and bound="lower" raise the lower side near 1 alike; the
    composed lower side alone sits >= 6e-10 below 1 there (the round-off charge), the raised one above 1 - 1e-9."""
    kw = dict(sigma=0.5494, sampling_rate=0.04833, rounds=10481, value_discretization_interval=1e-2)
    eps = np.array([1.0, 5.0, 10.0])
    lo, up = pld.SubsampledGaussianPLD(**kw).delta(eps, bound="both")
    only = pld.SubsampledGaussianPLD(**kw).delta(eps, bound="lower")
    composed = pld.subsampled_gaussian(
        0.5494, 0.04833, value_discretization_interval=1e-2
    ).self_compose(10481)
    plain = composed.delta(eps, bound="lower", composition_only=True)
    assert np.all(plain < 1.0 - 5e-10)
    assert (
        np.all(lo >= SubsampledGaussianPLD.DELTA_CEILING) and np.all(lo <= up) and np.all(lo < 1.0)
    )
    np.testing.assert_array_equal(only, lo)


@pytest.mark.parametrize(
    "sigma, q",
    [
        (1e-6, 0.5),
        (1e-300, 0.5),
        (1e300, 0.5),
        (0.5, 1e-300),
        (0.5, 1.0),
        (5e-324, 0.5),
        (1.7e308, 0.5),
        (0.5, 5e-324),
    ],
)
def test_extreme_parameters_give_the_trivial_table_not_an_error(sigma, q):
    """Cells that cannot be built (sigma 1e-6: a loss span of 1e13) or carry nothing usable: log A <= 0,
    which is true (Hoelder) and lifts no lower side."""
    table = subsampled_gaussian_log_affinity(sigma, q)
    assert np.all(np.isfinite(table)) and np.all(table <= 0.0)
    assert np.all(delta_lower_near_one(table, 10**6, np.array([0.0, 1.0])) == 0.0)


def test_gaussian_limit_matches_the_closed_form_affinity():
    """q -> 1 (the last float below 1): A(lam) of N(1, s^2) vs N(0, s^2) is exp(-lam (1 - lam) / (2 s^2))."""
    table = subsampled_gaussian_log_affinity(1.0, 1.0 - 2.0**-53)
    exact = -LAMBDAS * (1.0 - LAMBDAS) / 2.0
    assert np.all(table >= exact - 1e-12) and np.all(table - exact <= 2e-6)
