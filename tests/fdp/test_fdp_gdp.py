"""GDP accountant and trade-off functions (paper 004 Lemmas 7-8): mpmath references, identities, errors."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hockeystick as hs
from hockeystick.fdp import (
    GaussianDP,
    GaussianTradeOff,
    TradeOffFunction,
    compose_gdp,
    gaussian_tradeoff,
    gdp_to_rdp,
)
from hockeystick.numerics import certified_theta
from hockeystick.rdp import gaussian_rdp

MP_DPS = 50
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test


def mp_gdp_delta(mu: float, eps: float) -> mp.mpf:
    """Paper 004 eq. 8 at 50 digits: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)."""
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    return mp.ncdf(-eps / mu + mu / 2) - mp.e**eps * mp.ncdf(-eps / mu - mu / 2)


def test_seeds_check_value() -> None:
    # SEEDS.md: delta(eps=1; mu=1) = 0.126937
    assert GaussianDP(1.0).delta(1.0) == pytest.approx(0.126937, abs=5e-7)
    assert GaussianDP(1.0).delta(1.0) == pytest.approx(float(mp_gdp_delta(1.0, 1.0)), rel=1e-14)


def test_profile_equals_theta_and_eq8_to_1e12() -> None:
    mus = np.array([0.05, 0.3, 1.0, 2.5, 6.0])
    eps = np.array([0.0, 0.1, 1.0, 4.0, 12.0])
    got = GaussianDP(mus[:, None]).delta(eps[None, :])
    # theta rounded up by its documented error (docs/howto-mechanism.md, "Outward rounding")
    assert np.array_equal(got, certified_theta.theta_upper(mus[:, None], eps[None, :]))
    for i, mu in enumerate(mus):
        for j, e in enumerate(eps):
            ref = mp_gdp_delta(mu, e)
            assert mp.mpf(float(got[i, j])) >= ref
            if ref >= 1e-300:
                assert got[i, j] == pytest.approx(float(ref), rel=2e-12)


def test_epsilon_and_mu_for_invert_delta() -> None:
    acct = GaussianDP(np.array([0.5, 1.0, 3.0]))
    d = np.array([1e-3, 1e-6, 1e-10])
    eps = acct.epsilon(d)
    assert np.allclose(acct.delta(eps), d, rtol=1e-9, atol=0)
    mu = GaussianDP.mu_for(eps, d)
    assert np.allclose(mu, acct.mu, rtol=1e-9)


def test_composition_and_lemma8() -> None:
    assert compose_gdp(3.0, 4.0) == pytest.approx(5.0, rel=1e-15)
    assert GaussianDP(3.0).compose(GaussianDP(4.0)).mu == pytest.approx(5.0, rel=1e-15)
    orders = np.array([1.5, 2.0, 10.0, 256.0])
    sigma = 1.7
    # The Gaussian mechanism with sensitivity 1 and noise sigma is exactly (1/sigma)-GDP, and its RDP is
    # alpha / (2 sigma^2) = mu^2 alpha / 2: Lemma 8 with equality.
    assert np.allclose(gdp_to_rdp(1 / sigma, orders), gaussian_rdp(sigma, orders), rtol=1e-15)
    with pytest.raises(ValueError, match="orders"):
        gdp_to_rdp(1.0, [1.0])


def test_gaussian_tradeoff_against_mpmath_and_symmetry() -> None:
    alphas = np.array([0.0, 1e-12, 1e-4, 0.05, 0.5, 0.9, 1 - 1e-9, 1.0])
    for mu in (0.0, 0.4, 2.0, 7.0):
        got = gaussian_tradeoff(mu, alphas)
        for a, g in zip(alphas, got):
            ref = (
                1 - a
                if a in (0.0, 1.0)
                else mp.ncdf(mp.sqrt(2) * mp.erfinv(1 - 2 * mp.mpf(a)) - mu)
            )
            assert g == pytest.approx(float(ref), rel=1e-11, abs=1e-300)
        # T_G(mu) is symmetric: it is its own inverse, f(f(alpha)) = alpha.
        inner = alphas[(alphas > 1e-6) & (alphas < 1 - 1e-6)]
        if mu < 5:
            assert np.allclose(
                gaussian_tradeoff(mu, gaussian_tradeoff(mu, inner)), inner, rtol=1e-9
            )
    assert np.allclose(gaussian_tradeoff(0.0, alphas), 1 - alphas, atol=1e-16)


def test_generic_tradeoff_profile_matches_theta() -> None:
    curve = TradeOffFunction(lambda a: np.asarray(gaussian_tradeoff(1.3, a)))
    eps = np.array([0.0, 0.5, 2.0, 5.0])
    assert np.allclose(curve.delta(eps), hs.theta(1.3, eps), rtol=1e-9, atol=1e-14)
    assert curve.epsilon(1e-3) == pytest.approx(hs.theta_epsilon(1.3, 1e-3), rel=1e-8)
    g = GaussianTradeOff(3.0) @ GaussianTradeOff(4.0)
    assert g.mu == pytest.approx(5.0) and g.delta(1.0) == certified_theta.theta_upper(5.0, 1.0)


def test_invalid_inputs_name_the_argument() -> None:
    with pytest.raises(ValueError, match="mu"):
        GaussianDP(-1.0)
    with pytest.raises(ValueError, match="delta"):
        GaussianDP(1.0).epsilon(1.5)
    with pytest.raises(ValueError, match="epsilon"):
        GaussianDP(1.0).delta(-0.1)
    with pytest.raises(ValueError, match="alpha"):
        gaussian_tradeoff(1.0, 1.2)
    with pytest.raises(ValueError, match="convex"):
        TradeOffFunction(
            lambda a: (1 - a) * (1 - a**2)
        )  # non-increasing, below 1 - a, concave near 0
    with pytest.raises(ValueError, match="non-increasing|1 - alpha"):
        TradeOffFunction(lambda a: a)


@settings(max_examples=60, deadline=None)
@given(mu=st.floats(0.01, 20), eps=st.floats(0, 50), bump=st.floats(1e-3, 1.0))
def test_profile_monotone(mu: float, eps: float, bump: float) -> None:
    acct = GaussianDP(mu)
    assert acct.delta(eps + bump) <= acct.delta(eps)
    assert GaussianDP(mu + bump).delta(eps) >= acct.delta(eps)
