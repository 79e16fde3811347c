"""Poisson sampling of a Gaussian under replace-one through the dp_accounting adapter (``pld.poisson_replace_one``).

References: 50-digit mpmath integrals of the pair (1-q) N(0) + q N(1) vs (1-q) N(0) + q N(-1) and of other
placements of the replaced record (one-dimensional, and in three dimensions through the theorem's own
reduction to two correlated Gaussian losses), Monte Carlo of the sampled mechanism on realizable data sets
(scalar and two-dimensional contributions, one and three runs), and dp_accounting's PLD accountant, which
composes the same pair.  Directions: lower <= the pair's exact value <= upper, and every placement <= upper.
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

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
from hockeystick.pld.sampling.poisson_replace_one import poisson_replace_one_gaussian

MP_DPS = 50
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test
# the last: delta ~1e-14 at eps = 0.5, where the P-mass past the grid (put at +infinity) counts
CASES = [(1.0, 0.1), (0.7, 0.3), (2.0, 0.02)]


def phi(z, m, s):
    return mp.npdf(z, m, s)


def configuration(sigma, q, x, y, eps):
    """delta(eps) of (1-q) N(0) + q N(x) vs (1-q) N(0) + q N(y) in one dimension, 50 digits: the integrand
    (P - e^eps Q)_+ split at its sign changes (at most two: three Gaussians, Karlin's variation diminishing)."""
    s, g = mp.mpf(sigma), mp.e ** mp.mpf(eps)
    q, x, y = mp.mpf(q), mp.mpf(x), mp.mpf(y)

    def f(z):
        return (1 - g) * (1 - q) * phi(z, 0, s) + q * phi(z, x, s) - g * q * phi(z, y, s)

    lo, hi = -2 - 16 * s, 2 + 16 * s  # beyond, every term is below 1e-50 of the value
    grid = [lo + (hi - lo) * k / 800 for k in range(801)]
    # the sign pattern on the grid in doubles (f / N(0, s) is a sum of three exponentials of order one, so a
    # double's sign is wrong only within ~1e-15 of a root, which moves a change by at most one grid point);
    # around each change the neighbouring grid points are evaluated at 50 digits and the roots bracketed there
    zs = np.array([float(z) for z in grid])
    sf, qf, xf, yf, gf = float(s), float(q), float(x), float(y), float(g)
    ratio = (
        (1 - gf) * (1 - qf)
        + qf * np.exp((xf * zs - xf**2 / 2) / sf**2)
        - gf * qf * np.exp((yf * zs - yf**2 / 2) / sf**2)
    )
    changes = np.flatnonzero(np.sign(ratio[:-1]) != np.sign(ratio[1:]))
    near = sorted({j for k in changes for j in range(max(k - 1, 0), min(k + 3, len(grid)))})
    values = {j: f(grid[j]) for j in near}
    cuts = [lo]
    for j in near:
        if j + 1 in values and values[j] * values[j + 1] < 0:
            cuts.append(mp.findroot(f, (grid[j], grid[j + 1]), solver="anderson"))
    cuts.append(hi)
    # f is a sum of three Gaussian densities c_i N(m_i, s): its integral over [a, b] is the closed form
    # sum_i c_i (Phi((b - m_i) / s) - Phi((a - m_i) / s)), exact at the working precision (no quadrature error)
    terms = [((1 - g) * (1 - q), 0), (q, x), (-g * q, y)]

    def integral(a, b):
        return mp.fsum(c * (mp.ncdf((b - m) / s) - mp.ncdf((a - m) / s)) for c, m in terms)

    return sum(integral(a, b) for a, b in zip(cuts, cuts[1:]) if f((a + b) / 2) > 0)


def realizable(sigma, q, eps):
    """The realizable pair's delta(eps): its loss is increasing, so the positive set is z > c (closed form in ncdf)."""
    s, g, q = mp.mpf(sigma), mp.e ** mp.mpf(eps), mp.mpf(q)

    def excess_loss(z):  # log P/Q - eps, increasing in z
        return (
            mp.log((1 - q) * phi(z, 0, s) + q * phi(z, 1, s))
            - mp.log((1 - q) * phi(z, 0, s) + q * phi(z, -1, s))
        ) - mp.log(g)

    c = mp.findroot(excess_loss, (mp.mpf(-3) - 20 * s, mp.mpf(3) + 20 * s), solver="illinois")

    def tail(m):
        return 1 - mp.ncdf((c - m) / s)

    return (1 - q) * tail(0) + q * tail(1) - g * ((1 - q) * tail(0) + q * tail(-1))


def placement(sigma, q, x, y, eps):
    """delta(eps) of (1-q) N(0) + q N(x) vs (1-q) N(0) + q N(y) in any dimension, 50 digits, as the theorem's
    step 2-3 writes it: q E[(1 - a e^{-A} - b e^{-B})_+] with A, B jointly normal; given A the mean over B is
    a closed form (a put on a log-normal), then one quadrature over A."""
    q, g = mp.mpf(q), mp.e ** mp.mpf(eps)
    alpha = 1 + (g - 1) / q
    a, b = alpha - g, g
    s = [mp.mpf(v) / sigma for v in x]
    t = [(mp.mpf(u) - mp.mpf(v)) / sigma for u, v in zip(x, y)]
    ns, nt = mp.sqrt(sum(v * v for v in s)), mp.sqrt(sum(v * v for v in t))
    rho = sum(u * v for u, v in zip(s, t)) / (ns * nt) if ns > 0 and nt > 0 else mp.mpf(0)
    rho = min(max(rho, -1), 1)

    def given(w):
        k = 1 - a * mp.e ** (-(ns**2) / 2 - ns * w)
        if k <= 0:
            return mp.mpf(0)
        m, v = nt**2 / 2 + nt * rho * w, nt**2 * (1 - rho**2)
        if v < mp.mpf(10) ** -40:
            return max(k - b * mp.e**-m, 0)
        w0 = (-mp.log(k / b) - m) / mp.sqrt(v)
        return k * mp.ncdf(-w0) - b * mp.e ** (-m + v / 2) * mp.ncdf(-w0 - mp.sqrt(v))

    # the integrand's kinks: where k = 0, and (t parallel to s) where the positive part starts
    kinks = [(mp.log(a) - ns**2 / 2) / ns] if a > 0 and ns > 0 else []
    if nt**2 * (1 - rho**2) < mp.mpf(10) ** -40:

        def edge(w):
            return (
                1 - a * mp.e ** (-(ns**2) / 2 - ns * w) - b * mp.e ** (-(nt**2) / 2 - nt * rho * w)
            )

        lo, hi = mp.mpf(-40), mp.mpf(40)
        if edge(lo) < 0 < edge(hi):  # increasing in w: bisection to 50 digits
            for _ in range(200):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if edge(mid) < 0 else (lo, mid)
            kinks.append(lo)
    points = sorted(set([mp.mpf(-3), mp.mpf(0), mp.mpf(3)] + [k for k in kinks if abs(k) < 40]))
    return q * mp.quad(lambda w: given(w) * mp.npdf(w), [-mp.inf, *points, mp.inf])


@pytest.mark.parametrize("sigma,q", CASES)
def test_one_run_brackets_the_pair_tightly(sigma, q):
    pld = poisson_replace_one_gaussian(sigma, q)
    for eps in [0.0, 0.1, 0.5, 1.5]:
        lo, up = pld.delta(eps, bound="both")
        exact = float(realizable(sigma, q, eps))
        assert lo <= exact <= up, (eps, lo, exact, up)
        assert up - lo <= 2e-3 * exact + 1e-12  # the grid's width only
    # at eps = 0: q TV(N(1), N(-1))
    lo, up = pld.delta(0.0, bound="both")
    assert lo <= q * (2 * float(mp.ncdf(1 / mp.mpf(sigma))) - 1) <= up


def test_every_placement_of_the_replaced_record_is_dominated_by_the_pair():
    """The theorem (pld.poisson_replace_one) at 50 digits: on a line by direct integration, in three
    dimensions through its reduction; the pair's own value is attained (x = 1, y = -1)."""
    sigma, q = 0.8, 0.2
    for eps in [0.2, 0.8]:
        top = realizable(sigma, q, eps)
        line = [
            configuration(sigma, q, x, y, eps)
            for x in (-1, -0.5, 0, 0.5, 1)
            for y in (-1, -0.3, 0.4, 1)
        ]
        assert max(line) <= top * (1 + mp.mpf(10) ** -30)
        assert abs(placement(sigma, q, [1, 0, 0], [-1, 0, 0], eps) - top) <= top * mp.mpf(10) ** -20
    rng = np.random.default_rng(17)
    for _ in range(12):
        sigma, q, eps = (
            float(rng.choice([0.3, 0.7, 1.5])),
            float(rng.uniform(0.01, 0.9)),
            float(rng.uniform(0, 2)),
        )
        x, y = (v / np.linalg.norm(v) * rng.uniform(0.5, 1.0) for v in rng.normal(size=(2, 3)))
        # 30 digits (half the quadrature's cost of 50): its error stays ~1e-28 of the pair's value, below the
        # 1e-20 margin by 8 orders; these random placements sit at least 14% below the pair in any case
        with mp.workdps(30):
            assert placement(sigma, q, x, y, eps) <= realizable(sigma, q, eps) * (
                1 + mp.mpf(10) ** -20
            )


def _monte_carlo(sigma, q, x, y, eps, runs, n, rng):
    """E_P[(1 - e^{eps - L})_+] of ``runs`` runs of the sampled Gaussian sum on D0 + {x} vs D0 + {y} (D0: 20
    records contributing 0), L the exact loss of the pair, from n samples: (mean, standard error)."""
    x, y = np.atleast_1d(np.asarray(x, float)), np.atleast_1d(np.asarray(y, float))
    total = np.zeros(n)
    for _ in range(runs):
        drawn = (
            rng.random(n) < q
        )  # the record's slot; the 20 others contribute 0 whether drawn or not
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
    acc = HockeystickPLDAccountant(NR.REPLACE_ONE).compose(
        E.PoissonSampledDpEvent(q, E.GaussianDpEvent(sigma)), runs
    )
    lo, up = acc.get_delta_bracket(eps)
    for x, y in [(1.0, -1.0), ((1.0, 0.0), (0.0, 1.0)), ((0.6, 0.8), (0.6, -0.8))]:
        mean, se = _monte_carlo(sigma, q, x, y, eps, runs, 200_000, rng)
        assert mean <= up + 5 * se, (x, y, mean, se, up)
        if np.ndim(x) == 0:  # the dominating pair itself, realized: inside the bracket
            assert lo <= mean + 5 * se and mean - 5 * se <= up, (mean, se, lo, up)
            if runs == 1:
                assert abs(mean - float(realizable(sigma, q, eps))) <= 5 * se


def test_composition_agrees_with_dp_accountings_value_of_the_same_pair():
    sigma, q, count = 1.0, 0.05, 200
    event = E.PoissonSampledDpEvent(q, E.GaussianDpEvent(sigma))
    lo, up = (
        HockeystickPLDAccountant(NR.REPLACE_ONE).compose(event, count).get_epsilon_bracket(1e-5)
    )
    theirs = dp_accounting.pld.PLDAccountant(NR.REPLACE_ONE).compose(event, count).get_epsilon(1e-5)
    assert lo <= theirs and abs(theirs - up) <= 2e-3, (
        lo,
        theirs,
        up,
    )  # the same pair, each on its grid
    # the add/remove accountant of the same run is no bound under replace-one: below the lower side
    add_remove = HockeystickPLDAccountant().compose(event, count).get_epsilon(1e-5)
    assert add_remove < lo


def test_edge_rates_folded_gaussians_and_refusals():
    gauss = (
        HockeystickPLDAccountant(NR.REPLACE_ONE)
        .compose(E.GaussianDpEvent(1.5), 4)
        .get_epsilon_bracket(1e-6)
    )
    sampled = HockeystickPLDAccountant(NR.REPLACE_ONE).compose(
        E.PoissonSampledDpEvent(1.0, E.GaussianDpEvent(1.5)), 4
    )
    assert sampled.get_epsilon_bracket(1e-6) == gauss  # q = 1: the Gaussian of shift 2
    nothing = HockeystickPLDAccountant(NR.REPLACE_ONE).compose(
        E.PoissonSampledDpEvent(0.0, E.GaussianDpEvent(1.0)), 3
    )
    assert nothing.get_epsilon_bracket(1e-6) == (0.0, 0.0)
    # a non-private inner: the record's slot drawn with probability q, then fully distinguishable: (0, q)-DP exactly
    q = 0.125
    exact = HockeystickPLDAccountant(NR.REPLACE_ONE).compose(
        E.PoissonSampledDpEvent(q, E.GaussianDpEvent(0.0))
    )
    lo, up = exact.get_delta_bracket(0.5)
    assert lo == pytest.approx(q, rel=1e-12) and up == pytest.approx(q, rel=1e-12)
    # two Gaussians in one sample fold into one of radius sqrt(sum r^2)
    folded = E.PoissonSampledDpEvent(
        0.2, E.ComposedDpEvent([E.GaussianDpEvent(2.0), E.GaussianDpEvent(2.0)])
    )
    single = E.PoissonSampledDpEvent(0.2, E.GaussianDpEvent(math.sqrt(2.0)))
    a = HockeystickPLDAccountant(NR.REPLACE_ONE).compose(folded, 5).get_epsilon_bracket(1e-6)
    b = HockeystickPLDAccountant(NR.REPLACE_ONE).compose(single, 5).get_epsilon_bracket(1e-6)
    assert a == pytest.approx(b, rel=1e-9)
    for inner in [E.LaplaceDpEvent(1.0), E.RandomizedResponseDpEvent(0.5, 4)]:
        acc = HockeystickPLDAccountant(NR.REPLACE_ONE)
        assert not acc.supports(E.PoissonSampledDpEvent(0.1, inner))
        with pytest.raises(UnsupportedEventError):
            acc.compose(E.PoissonSampledDpEvent(0.1, inner))
    with pytest.raises(ValueError, match="sampling_probability"):
        HockeystickPLDAccountant(NR.REPLACE_ONE).compose(
            E.PoissonSampledDpEvent(1.5, E.GaussianDpEvent(1.0))
        )
    with pytest.raises(OverflowError, match="noise_multiplier"):
        HockeystickPLDAccountant(NR.REPLACE_ONE).compose(
            E.PoissonSampledDpEvent(0.1, E.GaussianDpEvent(1e-4))
        )
