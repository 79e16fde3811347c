"""Exact TV and JS between paper 001's parameter distributions against independent mpmath evaluations.

P = N(0, I_d), P~ = N(s e_1, (1 + rho) I_d) after standardization.  The references integrate the
definitions (|p - q| / 2, and the two KL terms against the mixture) with mpmath at 30 digits, in
coordinates that do not use the library's reduction to one noncentral chi-square variable except
where said: radially (s = 0), on the real line (d = 1), or along e_1 with the orthogonal part's
chi-square CDF in closed form (TV, d >= 2).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate, stats

from hockeystick import leakage

MP_DPS = 30
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test


def chi2_density(u, k):
    """mpmath chi-square density with k degrees of freedom at u."""
    half = mp.mpf(k) / 2
    return u ** (half - 1) * mp.exp(-u / 2) / (2**half * mp.gamma(half))


def radial_reference(rho, d):
    """(TV, JS) of N(0, I_d) vs N(0, (1 + rho) I_d) from the densities of ||x||^2."""
    rho = mp.mpf(rho)

    def p(u):
        return chi2_density(u, d)

    def q(u):
        return chi2_density(u / (1 + rho), d) / (1 + rho)

    def js(u):
        a, b = p(u), q(u)
        m = (a + b) / 2
        return (a * mp.log(a / m) + b * mp.log(b / m)) / 2

    lo, hi = (
        d * mp.log1p(rho) / rho,
        (1 + rho) * d * mp.log1p(rho) / rho,
    )  # where p = q (to split |p - q|)
    pts = [0, lo, hi, mp.inf]
    tv = mp.quad(lambda u: abs(p(u) - q(u)), pts) / 2
    return tv, mp.quad(js, [0, d, (1 + rho) * d, mp.inf])


def line_reference(rho, s):
    """(TV, JS) of N(0, 1) vs N(s, 1 + rho) on the real line (d = 1), crossings found by mpmath."""
    rho, s = mp.mpf(rho), mp.mpf(s)
    sd = mp.sqrt(1 + rho)

    def p(x):
        return mp.npdf(x)

    def q(x):
        return mp.npdf(x, s, sd)

    def js(x):
        a, b = p(x), q(x)
        m = (a + b) / 2
        return (a * mp.log(a / m) + b * mp.log(b / m)) / 2

    if rho == 0:
        crossings = [s / 2]
    else:  # log q - log p = 0 is a quadratic in x
        a2, a1 = rho / (2 * (1 + rho)), s / (1 + rho)
        a0 = -(s**2) / (2 * (1 + rho)) - mp.log(1 + rho) / 2
        disc = mp.sqrt(a1**2 - 4 * a2 * a0)
        crossings = sorted([(-a1 - disc) / (2 * a2), (-a1 + disc) / (2 * a2)])
    pts = [-mp.inf, *crossings, mp.inf]
    return mp.quad(lambda x: abs(p(x) - q(x)), pts) / 2, mp.quad(js, [-mp.inf, 0, s, mp.inf])


def shifted_tv_reference(rho, d, s):
    """TV = P(A) - P~(A), A = {p > q}, integrating along e_1 with the chi-square CDF of the other
    d - 1 coordinates: A = {rho (x1^2 + v) + 2 s x1 - s^2 < d (1 + rho) log(1 + rho)}."""
    rho, s = mp.mpf(rho), mp.mpf(s)
    c = d * (1 + rho) * mp.log1p(rho) + s**2
    k = mp.mpf(d - 1) / 2

    def bound(x1):  # v < bound(x1) inside A
        return (c - 2 * s * x1 - rho * x1**2) / rho

    disc = mp.sqrt(s**2 + rho * c)
    ends = [(-s - disc) / rho, (-s + disc) / rho]  # bound(x1) >= 0 between these

    def cdf(v):
        return mp.gammainc(k, 0, v / 2, regularized=True) if v > 0 else mp.mpf(0)

    sd = mp.sqrt(1 + rho)

    def clipped(a, b):  # the standard normal weight is below 1e-340 outside [-40, 40]
        a, b = max(a, -40), min(b, 40)
        return [a, b] if not a < 0 < b else [a, 0, b]

    inside_p = mp.quad(lambda x: mp.npdf(x) * cdf(bound(x)), clipped(*ends))
    inside_q = mp.quad(
        lambda z: mp.npdf(z) * cdf(bound(s + sd * z) / (1 + rho)),
        clipped((ends[0] - s) / sd, (ends[1] - s) / sd),
    )
    return inside_p - inside_q


@pytest.mark.parametrize("rho", [1e-9, 1e-3, 0.5, 7.0, 300.0])
@pytest.mark.parametrize("d", [1, 2, 100])
def test_centred_tv_and_js_match_mpmath(rho, d):
    tv_ref, js_ref = radial_reference(rho, d)
    tv = leakage.tv_exact(1.0, rho, d)
    js = leakage.js_exact(1.0, rho, d)
    assert tv == pytest.approx(float(tv_ref), rel=1e-12, abs=1e-300)
    assert js == pytest.approx(float(js_ref), rel=1e-10, abs=1e-300)


@pytest.mark.parametrize("rho", [0.0, 1e-3, 0.3, 50.0])
@pytest.mark.parametrize("s", [1e-3, 0.4, 3.0])
def test_shifted_line_matches_mpmath(rho, s):
    tv_ref, js_ref = line_reference(rho, s)
    assert leakage.tv_exact(1.0, rho, 1, s) == pytest.approx(float(tv_ref), abs=1e-12)
    assert leakage.js_exact(1.0, rho, 1, s) == pytest.approx(float(js_ref), rel=1e-10, abs=1e-14)


@pytest.mark.parametrize(
    "rho, d, s", [(0.01, 2, 0.5), (0.2, 3, 1.0), (3.0, 40, 6.0), (1e-4, 2, 1e-2)]
)
def test_shifted_tv_matches_mpmath(rho, d, s):
    assert leakage.tv_exact(1.0, rho, d, s) == pytest.approx(
        float(shifted_tv_reference(rho, d, s)), abs=1e-12
    )


@pytest.mark.parametrize("rho, s", [(0.3, 0.7), pytest.param(2.0, 1.5, marks=pytest.mark.slow)])
def test_shifted_js_in_two_dimensions_matches_the_definition(rho, s):
    """d = 2 with a shift: the KL definition integrated over the plane (scipy, double precision; a
    30-digit mpmath double integral takes minutes and agreed to 16 digits at d = 3, rho = 0.5, s = 1)."""
    # the two isotropic normal densities written out (N(0, I) and N((s, 0), (1 + rho) I)): the same
    # integrand as scipy's multivariate_normal.pdf, without its per-call overhead at ~10^5 points
    var = 1.0 + rho

    def integrand(y, x):
        a = math.exp(-(x * x + y * y) / 2) / (2 * math.pi)
        b = math.exp(-((x - s) ** 2 + y * y) / (2 * var)) / (2 * math.pi * var)
        m = (a + b) / 2
        return 0.5 * (a * np.log(a / m) + b * np.log(b / m))

    ref, err = integrate.dblquad(integrand, -25, 25, -25, 25, epsabs=1e-13, epsrel=1e-12)
    assert leakage.js_exact(1.0, rho, 2, s) == pytest.approx(ref, rel=1e-8)


def test_scale_invariance_and_broadcasting():
    """TV and JS depend on (sigma_eps^2 / sigma^2, d, ||m|| / sigma) only, and broadcast."""
    rho = np.array([0.01, 0.5, 4.0])
    d = np.array([[1], [30]])
    base_tv, base_js = leakage.tv_exact(1.0, rho, d, 0.3), leakage.js_exact(1.0, rho, d, 0.3)
    assert base_tv.shape == base_js.shape == (2, 3)
    np.testing.assert_allclose(leakage.tv_exact(9.0, 9.0 * rho, d, 0.9), base_tv, rtol=1e-13)
    np.testing.assert_allclose(leakage.js_exact(9.0, 9.0 * rho, d, 0.9), base_js, rtol=1e-10)
    assert isinstance(leakage.tv_exact(1.0, 0.5, 3), float)


def test_limits_and_known_values():
    assert leakage.tv_exact(2.0, 0.0, 5) == 0.0 and leakage.js_exact(2.0, 0.0, 5) == 0.0
    # pure mean shift: TV = 2 Phi(s/2) - 1
    assert leakage.tv_exact(1.0, 0.0, 3, 1.3) == pytest.approx(
        2 * stats.norm.cdf(0.65) - 1, rel=1e-14
    )
    # continuity at rho -> 0 with a shift (the smallest rho the noncentral evaluation accepts here)
    for f in (leakage.tv_exact, leakage.js_exact):
        near, at = f(1.0, [1.5e-4, 3e-4], 3, 1.3), f(1.0, 0.0, 3, 1.3)
        assert abs(near[0] - at) < 1e-3 and abs(near[0] - at) < abs(near[1] - at)
    # huge distortion: both saturate
    assert leakage.tv_exact(1.0, 1e12, 4) == pytest.approx(1.0, abs=1e-10)
    assert leakage.js_exact(1.0, 1e12, 4) == pytest.approx(np.log(2), abs=1e-10)


def test_js_is_below_its_universal_bounds():
    """Lin (1991): JS <= log(2) TV; Pinsker through the mixture: JS >= TV^2 / 2 (nats) -- independent checks."""
    rho = np.geomspace(1e-4, 1e3, 25)
    for d in (1, 5, 200):
        tv, js = leakage.tv_exact(1.0, rho, d, 0.2), leakage.js_exact(1.0, rho, d, 0.2)
        assert np.all(js <= np.log(2) * tv * (1 + 1e-12))
        assert np.all(js >= tv**2 / 2 * (1 - 1e-12))


def test_js_integrand_h_matches_mpmath():
    for y in [1e-12, 1e-6, 0.01, 0.5, 1.0, 1.0000001, 3.0, 40.0, 800.0]:
        ref = mp.mpf(y) * mp.tanh(y) - mp.log(mp.cosh(y))
        assert float(leakage.js.js_integrand_h(y)) == pytest.approx(float(ref), rel=1e-14)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            dict(variance=0.0, distortion_variance=1.0, dimension=2),
            "variance must be finite and > 0",
        ),
        (
            dict(variance=1.0, distortion_variance=-1.0, dimension=2),
            "distortion_variance must be finite and >= 0",
        ),
        (
            dict(variance=1.0, distortion_variance=1.0, dimension=2.5),
            "dimension must be an integer >= 1",
        ),
        (
            dict(variance=1.0, distortion_variance=1.0, dimension=0),
            "dimension must be an integer >= 1",
        ),
        (dict(variance=1.0, distortion_variance=np.nan, dimension=2), "must not be NaN"),
        (
            dict(variance=1.0, distortion_variance=1.0, dimension=2, shift=-1.0),
            "shift must be finite and >= 0",
        ),
        (dict(variance=1.0, distortion_variance=1e-6, dimension=2, shift=1.0), "too large"),
        (dict(variance=[1.0, 2.0], distortion_variance=[1.0, 2.0, 3.0], dimension=2), "broadcast"),
    ],
)
def test_bad_input_names_the_argument(kwargs, message):
    for f in (leakage.tv_exact, leakage.js_exact):
        with pytest.raises(ValueError, match=message):
            f(**kwargs)
