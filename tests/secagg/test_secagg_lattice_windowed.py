"""The windowed convolution of many narrow discrete Gaussians (``secagg.lattice_pld``): its masses bracket the sum's
PMF computed by mpmath at 30 digits from the characteristic function, and the accountants answer both sides at the
mean-estimation calibrations (10 000 clients, local noise over granularity 0.89 and 0.98) where neither the direct
convolution nor the Fourier bound applies."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from hockeystick.secagg import DistributedDiscreteGaussian
from hockeystick.secagg.lattice_pld import ddg_sum_masses


@mpmath.workdps(30)
def _exact_masses(sigma: float, clients: int, xs: list[int]) -> list[mpmath.mpf]:
    """P(N = x) for each x, N the sum of ``clients`` N_Z(0, sigma^2): (1 / pi) int_0^pi phi(t)^n cos(t x) dt, phi the
    one-share characteristic function (its terms beyond |y| = 40 sigma below 1e-300); phi(t)^n is computed once per
    node t and read by every x's quadrature (the nodes are the same for each)."""
    s2 = mpmath.mpf(sigma) ** 2
    ys = range(1, int(40 * sigma) + 2)
    weights = [mpmath.exp(-(mpmath.mpf(y) ** 2) / (2 * s2)) for y in ys]
    z = 1 + 2 * mpmath.fsum(weights)

    def phi(t):
        return (
            1 + 2 * mpmath.fsum(w * mpmath.cos(t * y) for w, y in zip(weights, ys, strict=True))
        ) / z

    reach = min(
        mpmath.pi, 14 / (sigma * math.sqrt(clients))
    )  # phi^n below 1e-40 past it (and at pi: checked)
    assert phi(mpmath.pi) ** clients < mpmath.mpf(10) ** -40
    powers: dict[mpmath.mpf, mpmath.mpf] = {}

    def power(t: mpmath.mpf) -> mpmath.mpf:
        if t not in powers:
            powers[t] = phi(t) ** clients
        return powers[t]

    return [
        mpmath.quad(lambda t: power(t) * mpmath.cos(t * x), mpmath.linspace(0, reach, 12))
        / mpmath.pi
        for x in xs
    ]


@pytest.mark.parametrize(("sigma", "clients"), [(0.6, 2500), (0.89, 10000)])
def test_windowed_masses_bracket_the_exact_pmf(sigma, clients):
    x0, m, r, outside = ddg_sum_masses(sigma, clients, 3)
    assert (
        outside is not None and outside < 1e-25
    )  # the windowed path: a deficit, far below any mass read
    sd = sigma * math.sqrt(clients)
    xs = [0, int(sd), int(3 * sd), int(7 * sd)]
    for x, mass in zip(xs, _exact_masses(sigma, clients, xs), strict=True):
        exact = float(mass)
        i = x - x0
        assert m[i] * (1 - r[i]) <= exact <= m[i] * (1 + r[i]) + outside
        assert r[i] < 1e-9  # inside the window the masses are known to about n u


@pytest.mark.parametrize("ratio", [0.89, 0.98])
def test_mean_estimation_calibrations_have_both_sides(ratio):
    granularity = 0.54
    acc = DistributedDiscreteGaussian(
        clip_norm=10.0, granularity=granularity, dimension=2048, local_sigma=ratio * granularity,
        min_surviving_clients=10000, beta=math.exp(-0.5),
    )  # fmt: skip
    low, high = acc.epsilon(np.array([1e-5, 1e-9]), bound="both")
    assert (0 < low).all() and (low <= high).all()
    np.testing.assert_array_equal(high, acc.epsilon(np.array([1e-5, 1e-9])))
