"""The lower side's lattice masses against mpmath, and both sides against the exact hockey-stick divergence at d = 1."""

from __future__ import annotations

import itertools

import mpmath
import numpy as np
import pytest

from hockeystick.secagg import DistributedDiscreteGaussian, DistributedSkellam
from hockeystick.secagg.lattice_pld import SKELLAM_RELATIVE_ERROR, ddg_sum_masses, skellam_masses


def _dg(s, half=12):
    with mpmath.workdps(50):
        w = [
            mpmath.exp(-(mpmath.mpf(y) ** 2) / (2 * mpmath.mpf(s) ** 2))
            for y in range(-half, half + 1)
        ]
        z = mpmath.fsum(w)
        return {y: wi / z for y, wi in zip(range(-half, half + 1), w, strict=True)}


def _convolve(a, b):
    out = {}
    with mpmath.workdps(50):
        for (x, p), (y, q) in itertools.product(a.items(), b.items()):
            out[x + y] = out.get(x + y, 0) + p * q
    return out


def _ddg_sum(s, n):
    one = _dg(s)
    total = one
    for _ in range(n - 1):
        total = _convolve(total, one)
    return total


def _skellam(v, half=40):
    with mpmath.workdps(50):
        return {
            x: mpmath.besseli(abs(x), v) * mpmath.exp(-mpmath.mpf(v))
            for x in range(-half, half + 1)
        }


def test_direct_masses_within_their_bounds_of_the_exact_convolution():
    s, n = 0.8, 3
    exact = _ddg_sum(s, n)
    x0, m, r, _ = ddg_sum_masses(s, n)
    for i in range(0, m.size, 3):
        truth = exact.get(x0 + i, 0)
        if truth > 1e-200:
            assert abs(m[i] - truth) <= r[i] * truth
    assert float(r[m.size // 2]) < 1e-12


def test_fourier_masses_within_their_bounds_of_the_inverse_transform():
    s, n = 5.0, 500  # past the direct convolution's support: the Fourier representation
    x0, m, r, _ = ddg_sum_masses(s, n)
    with mpmath.workdps(30):
        q = mpmath.exp(-1 / (2 * mpmath.mpf(s) ** 2))
        z = mpmath.jtheta(3, 0, q)

        def mass(x):
            f = lambda t: (mpmath.jtheta(3, t / 2, q) / z) ** n * mpmath.cos(t * x)  # noqa: E731
            return mpmath.quad(f, [0, 0.02, 0.05, 0.1, 0.3, mpmath.pi]) / mpmath.pi

        for x in (0, 112, 400, 894):
            i = x - x0
            truth = mass(x)
            assert abs(m[i] - truth) <= r[i] * truth, x
    assert float(r.max()) <= 1e-11


@pytest.mark.parametrize(
    ("v", "xs"), [(5.0, [0, 3, 17]), (1000.0, [0, 31, 250, 260]), (7.1e7, [67000])]
)
def test_skellam_masses_within_the_allowance_of_mpmath(v, xs):
    x0, m, r, _ = skellam_masses(v)
    with mpmath.workdps(50):
        for x in xs:
            truth = mpmath.besseli(x, v) * mpmath.exp(-mpmath.mpf(v))
            assert abs(m[x - x0] - truth) <= r[x - x0] * truth
    assert r.min() == SKELLAM_RELATIVE_ERROR


def _hockey_stick(noise, shift, eps, rounds):
    """sum over outcome tuples of (P - e^eps Q)_+ for the pair (N + shift, N), at 50 digits."""
    with mpmath.workdps(50):
        loss = {}  # the privacy loss's law under P, as a dict loss -> mass
        for x, q in noise.items():
            p = noise.get(x - shift, 0)
            if p > 0:
                key = mpmath.log(p / q) if q > 0 else mpmath.inf
                loss[key] = loss.get(key, 0) + p
        total = {mpmath.mpf(0): mpmath.mpf(1)}
        for _ in range(rounds):
            total = _convolve_losses(total, loss)
        return float(
            mpmath.fsum(p * (1 - mpmath.exp(eps - x)) for x, p in total.items() if x > eps)
        )


def _convolve_losses(a, b):
    out = {}
    for (x, p), (y, q) in itertools.product(a.items(), b.items()):
        key = mpmath.nstr(x + y, 30)
        value, mass = out.get(key, (x + y, 0))
        out[key] = (value, mass + p * q)
    return dict(out.values())


CASES = [
    (DistributedDiscreteGaussian, lambda: _ddg_sum(0.8, 2)),
    (DistributedSkellam, lambda: _skellam(2 * 0.64)),
]


@pytest.mark.parametrize(("cls", "noise"), CASES)
@pytest.mark.parametrize("rounds", [1, 2])
def test_the_exact_divergence_lies_in_the_bracket(cls, noise, rounds):
    # c / gamma = 4 on one coordinate (d = 1): the realizable shift 4; Delta_2 = 4 + 1 allows shift 5 too
    acc = cls(
        clip_norm=1.0,
        granularity=0.25,
        dimension=1,
        local_sigma=0.2,
        min_surviving_clients=2,
        rounds=rounds,
    )
    assert acc.sensitivity.realizable_shift == 4 and 5.0 <= acc.sensitivity.l2
    law = noise()
    for eps in (0.5, 1.0, 2.0, 4.0):
        lower, upper = acc.delta(eps, bound="both")
        realized = _hockey_stick(law, 4, eps, rounds)
        assert lower <= realized * (1 + 1e-9) <= upper
        assert realized > 0.8 * lower  # the lower side is the realized pair's, up to the grid
        assert (
            _hockey_stick(law, 5, eps, rounds) <= upper
        )  # every shift within Delta_2 stays below the upper side


@pytest.mark.parametrize("cls", [DistributedDiscreteGaussian, DistributedSkellam])
@pytest.mark.parametrize(
    ("gamma", "sigma", "n", "d", "rounds"), [(0.1, 0.3, 5, 10, 3), (0.02, 0.05, 50, 1000, 20)]
)
def test_lower_never_above_upper(cls, gamma, sigma, n, d, rounds):
    acc = cls(
        clip_norm=1.0,
        granularity=gamma,
        dimension=d,
        local_sigma=sigma,
        min_surviving_clients=n,
        rounds=rounds,
    )
    eps = np.array([0.0, 0.5, 1.0, 3.0, 10.0])
    lower, upper = acc.delta(eps, bound="both")
    assert (lower <= upper).all() and (lower >= 0).all()
    low_eps, high_eps = acc.epsilon(np.array([1e-9, 1e-5, 1e-2]), bound="both")
    assert (low_eps <= high_eps).all() and (low_eps > 0).all()
