"""Poisson sampling of a Gaussian under replace-one through the dp_accounting adapter (``pld.poisson_replace_one``).

References: 50-digit mpmath integrals of the realizable pair (1-q) N(0) + q N(1) vs (1-q) N(0) + q N(-1) and of
other configurations of the replaced record, the proved bound's formula in mpmath, Monte Carlo of the sampled
mechanism on realizable data sets (scalar and two-dimensional contributions), and dp_accounting's PLD accountant
(which composes the realizable pair as if it dominated).  Directions: lower <= every realizable value <= upper.
"""

from __future__ import annotations

import math

import dp_accounting
import mpmath as mp
import numpy as np
import pytest
from dp_accounting import dp_event as E
from dp_accounting.privacy_accountant import NeighboringRelation as NR
from dp_accounting.privacy_accountant import UnsupportedEventError

from hockeystick.interop.dp_accounting import HockeystickAccountant
from hockeystick.pld.poisson_replace_one import poisson_replace_one_gaussian

mp.mp.dps = 50
CASES = [(1.0, 0.1), (0.7, 0.3), (2.0, 0.02)]


def phi(z, m, s):
    return mp.npdf(z, m, s)


def configuration(sigma, q, x, y, eps):
    """delta(eps) of (1-q) N(0) + q N(x) vs (1-q) N(0) + q N(y) in one dimension, 50 digits: the integrand
    (P - e^eps Q)_+ split at its sign changes (at most two: three Gaussians, Karlin's variation diminishing)."""
    s, g = mp.mpf(sigma), mp.e ** mp.mpf(eps)
    q, x, y = mp.mpf(q), mp.mpf(x), mp.mpf(y)

    def f(z):
        return (1 - q) * phi(z, 0, s) + q * phi(z, x, s) - g * ((1 - q) * phi(z, 0, s) + q * phi(z, y, s))

    lo, hi = -2 - 16 * s, 2 + 16 * s  # beyond, every term is below 1e-50 of the value
    grid = [lo + (hi - lo) * k / 800 for k in range(801)]
    cuts = [lo]
    for a, b in zip(grid, grid[1:]):
        if f(a) * f(b) < 0:
            cuts.append(mp.findroot(f, (a, b), solver="anderson"))
    cuts.append(hi)
    return sum(mp.quad(f, [a, b]) for a, b in zip(cuts, cuts[1:]) if f((a + b) / 2) > 0)


def realizable(sigma, q, eps):
    """The realizable pair's delta(eps): its loss is increasing, so the positive set is z > c (closed form in ncdf)."""
    s, g, q = mp.mpf(sigma), mp.e ** mp.mpf(eps), mp.mpf(q)

    def excess_loss(z):  # log P/Q - eps, increasing in z
        return (
            mp.log((1 - q) * phi(z, 0, s) + q * phi(z, 1, s)) - mp.log((1 - q) * phi(z, 0, s) + q * phi(z, -1, s))
        ) - mp.log(g)

    c = mp.findroot(excess_loss, (mp.mpf(-3) - 20 * s, mp.mpf(3) + 20 * s), solver="illinois")

    def tail(m):
        return 1 - mp.ncdf((c - m) / s)

    return (1 - q) * tail(0) + q * tail(1) - g * ((1 - q) * tail(0) + q * tail(-1))


def theta(r, eps):
    r, eps = mp.mpf(r), mp.mpf(eps)
    return mp.ncdf(-eps / r + r / 2) - mp.e**eps * mp.ncdf(-eps / r - r / 2)


def bound(sigma, q, eps):
    """q [(1 - beta) theta(1/sigma, log alpha) + beta theta(2/sigma, log alpha)] (module docstring), 50 digits."""
    q = mp.mpf(q)
    alpha = 1 + (mp.e ** mp.mpf(eps) - 1) / q
    beta = q + (1 - q) / alpha
    la = mp.log(alpha)
    return q * ((1 - beta) * theta(1 / mp.mpf(sigma), la) + beta * theta(2 / mp.mpf(sigma), la))


@pytest.mark.parametrize("sigma,q", CASES)
def test_one_run_lies_between_the_realizable_pair_and_the_proved_bound(sigma, q):
    pld = poisson_replace_one_gaussian(sigma, q)
    h = 1e-4
    for eps in [0.0, 0.1, 0.5, 1.5]:
        eps = round(eps / h) * h  # a grid point: the upper side there is the bound itself
        lo, up = pld.delta(eps, bound="both")
        real, proved = realizable(sigma, q, eps), bound(sigma, q, eps)
        assert lo <= float(real) <= float(proved) <= up, (eps, lo, real, proved, up)
        assert lo >= float(real) * (1 - 2e-3) - 1e-12  # the lower side is the realizable pair on the grid
        assert up <= float(proved) * (1 + 2e-3) + 1e-9  # and the grid masses' round-off charge, at +infinity
    # at eps = 0 both are q TV(N(1), N(-1)): the bracket closes
    lo, up = pld.delta(0.0, bound="both")
    assert up - lo <= 1e-6 and lo <= q * (2 * float(mp.ncdf(1 / mp.mpf(sigma))) - 1) <= up


def test_every_one_dimensional_configuration_of_the_replaced_record_is_below_the_bound():
    sigma, q = 0.8, 0.2
    for eps in [0.2, 0.8]:
        proved = bound(sigma, q, eps)
        values = [configuration(sigma, q, x, y, eps) for x in (-1, -0.5, 0, 0.5, 1) for y in (-1, -0.3, 0.4, 1)]
        assert max(values) <= proved
        assert max(values) == pytest.approx(float(realizable(sigma, q, eps)), rel=1e-20)  # x = 1, y = -1 here


def _monte_carlo(sigma, q, x, y, eps, runs, n, rng):
    """E_P[(1 - e^{eps - L})_+] of ``runs`` runs of the sampled Gaussian sum on D0 + {x} vs D0 + {y} (D0: 20
    records contributing 0), L the exact loss of the pair, from n samples: (mean, standard error)."""
    x, y = np.atleast_1d(np.asarray(x, float)), np.atleast_1d(np.asarray(y, float))
    total = np.zeros(n)
    for _ in range(runs):
        drawn = rng.random(n) < q  # the record's slot; the 20 others contribute 0 whether drawn or not
        out = np.where(drawn[:, None], x, 0.0) + sigma * rng.standard_normal((n, x.size))

        def log_density(m):
            return -0.5 * ((out - m) ** 2).sum(axis=1) / sigma**2

        p = np.logaddexp(math.log1p(-q) + log_density(0.0), math.log(q) + log_density(x))
        qq = np.logaddexp(math.log1p(-q) + log_density(0.0), math.log(q) + log_density(y))
        total += p - qq
    values = np.maximum(-np.expm1(eps - total), 0.0)
    return values.mean(), values.std() / math.sqrt(n)


@pytest.mark.parametrize("runs", [1, 3])
def test_monte_carlo_of_realizable_data_sets_lies_inside_the_bracket(runs):
    sigma, q, eps = 1.0, 0.3, 0.4
    rng = np.random.default_rng(2024 + runs)
    acc = HockeystickAccountant(NR.REPLACE_ONE).compose(E.PoissonSampledDpEvent(q, E.GaussianDpEvent(sigma)), runs)
    lo, up = acc.get_delta_bracket(eps)
    for x, y in [(1.0, -1.0), ((1.0, 0.0), (0.0, 1.0)), ((0.6, 0.8), (0.6, -0.8))]:
        mean, se = _monte_carlo(sigma, q, x, y, eps, runs, 200_000, rng)
        assert mean <= up + 5 * se, (x, y, mean, se, up)
        if np.ndim(x) == 0:  # the realizable pair itself: its value is at least the lower side
            assert lo <= mean + 5 * se, (mean, se, lo)
            if runs == 1:
                assert abs(mean - float(realizable(sigma, q, eps))) <= 5 * se


def test_composition_brackets_dp_accountings_value_of_the_realizable_pair():
    sigma, q, count = 1.0, 0.05, 200
    event = E.PoissonSampledDpEvent(q, E.GaussianDpEvent(sigma))
    lo, up = HockeystickAccountant(NR.REPLACE_ONE).compose(event, count).get_epsilon_bracket(1e-5)
    theirs = dp_accounting.pld.PLDAccountant(NR.REPLACE_ONE).compose(event, count).get_epsilon(1e-5)
    assert lo <= theirs <= up, (lo, theirs, up)
    # the add/remove accountant of the same run is no bound under replace-one: below the lower side
    add_remove = HockeystickAccountant().compose(event, count).get_epsilon(1e-5)
    assert add_remove < lo


def test_edge_rates_folded_gaussians_and_refusals():
    gauss = HockeystickAccountant(NR.REPLACE_ONE).compose(E.GaussianDpEvent(1.5), 4).get_epsilon_bracket(1e-6)
    sampled = HockeystickAccountant(NR.REPLACE_ONE).compose(E.PoissonSampledDpEvent(1.0, E.GaussianDpEvent(1.5)), 4)
    assert sampled.get_epsilon_bracket(1e-6) == gauss  # q = 1: the Gaussian of shift 2
    nothing = HockeystickAccountant(NR.REPLACE_ONE).compose(E.PoissonSampledDpEvent(0.0, E.GaussianDpEvent(1.0)), 3)
    assert nothing.get_epsilon_bracket(1e-6) == (0.0, 0.0)
    # a non-private inner: the record's slot drawn with probability q, then fully distinguishable: (0, q)-DP exactly
    q = 0.125
    exact = HockeystickAccountant(NR.REPLACE_ONE).compose(E.PoissonSampledDpEvent(q, E.GaussianDpEvent(0.0)))
    lo, up = exact.get_delta_bracket(0.5)
    assert lo == pytest.approx(q, rel=1e-12) and up == pytest.approx(q, rel=1e-12)
    # two Gaussians in one sample fold into one of radius sqrt(sum r^2)
    folded = E.PoissonSampledDpEvent(0.2, E.ComposedDpEvent([E.GaussianDpEvent(2.0), E.GaussianDpEvent(2.0)]))
    single = E.PoissonSampledDpEvent(0.2, E.GaussianDpEvent(math.sqrt(2.0)))
    a = HockeystickAccountant(NR.REPLACE_ONE).compose(folded, 5).get_epsilon_bracket(1e-6)
    b = HockeystickAccountant(NR.REPLACE_ONE).compose(single, 5).get_epsilon_bracket(1e-6)
    assert a == pytest.approx(b, rel=1e-9)
    for inner in [E.LaplaceDpEvent(1.0), E.RandomizedResponseDpEvent(0.5, 4)]:
        acc = HockeystickAccountant(NR.REPLACE_ONE)
        assert not acc.supports(E.PoissonSampledDpEvent(0.1, inner))
        with pytest.raises(UnsupportedEventError):
            acc.compose(E.PoissonSampledDpEvent(0.1, inner))
    with pytest.raises(ValueError, match="sampling_probability"):
        HockeystickAccountant(NR.REPLACE_ONE).compose(E.PoissonSampledDpEvent(1.5, E.GaussianDpEvent(1.0)))
    with pytest.raises(OverflowError, match="noise_multiplier"):
        HockeystickAccountant(NR.REPLACE_ONE).compose(E.PoissonSampledDpEvent(0.1, E.GaussianDpEvent(1e-4)))
