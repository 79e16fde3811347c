"""RDP baselines: against dp_accounting's RdpAccountant (1e-9 relative), mpmath, and the conversions' formulas."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from hockeystick.rdp import (
    DEFAULT_ORDERS,
    MAX_ORDER,
    SubsampledGaussianRDP,
    compose_rdp,
    gaussian_rdp,
    rdp_to_delta,
    rdp_to_epsilon,
    subsampled_gaussian_rdp,
)

dpa = pytest.importorskip("dp_accounting")

# (sigma, q, rounds): W2, W3, W1 (docs/references.md), and a spread of regimes.
SHARED = [
    (1.0, 0.01, 10_000),
    (0.8, 0.001, 100_000),
    (1.0, 1.0, 1000),
    (2.0, 0.1, 50),
    (0.5, 0.3, 3),
    (5.0, 0.001, 1),
    (0.7, 0.05, 200),
    (1.3, 0.2, 1),
]


def reference(sigma: float, q: float, rounds: int) -> dpa.rdp.RdpAccountant:
    acct = dpa.rdp.RdpAccountant()
    event = (
        dpa.GaussianDpEvent(sigma)
        if q == 1
        else dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma))
    )
    acct.compose(event, rounds)
    return acct


@pytest.mark.parametrize("sigma,q,rounds", SHARED)
def test_matches_dp_accounting(sigma: float, q: float, rounds: int) -> None:
    ref = reference(sigma, q, rounds)
    ours = SubsampledGaussianRDP(sigma=sigma, sampling_rate=q, rounds=rounds)
    finite = np.isfinite(ref.rdp)
    assert np.array_equal(np.isfinite(ours.rdp), finite)
    assert np.allclose(ours.rdp[finite], ref.rdp[finite], rtol=1e-9, atol=0)
    for delta in (1e-5, 1e-9):
        assert ours.epsilon(delta) == pytest.approx(ref.get_epsilon(delta), rel=1e-9)
    for eps in (0.3, 1.0, 4.0):
        assert ours.delta(eps) == pytest.approx(ref.get_delta(eps), rel=1e-9, abs=1e-300)


def test_vectorized_grid_matches_pointwise() -> None:
    sigma = np.linspace(0.6, 3.0, 7)
    acct = SubsampledGaussianRDP(
        sigma=sigma[:, None], sampling_rate=0.02, rounds=np.array([100, 1000])[None, :]
    )
    eps = acct.epsilon(1e-6)
    assert eps.shape == (7, 2)
    for i, s in enumerate(sigma):
        assert eps[i, 1] == pytest.approx(reference(s, 0.02, 1000).get_epsilon(1e-6), rel=1e-9)
    d = acct.delta(np.array([1.0, 2.0])[:, None, None])
    assert d.shape == (2, 7, 2)


def test_gaussian_is_q_equal_one_and_composition_adds() -> None:
    orders = np.array([1.5, 2.0, 7.25, 64.0])
    assert np.allclose(subsampled_gaussian_rdp(1.3, 1.0, orders), orders / (2 * 1.3**2), rtol=1e-15)
    assert np.array_equal(gaussian_rdp(1.3, orders), orders / (2 * 1.3**2))
    assert np.allclose(subsampled_gaussian_rdp(1.3, 0.0, orders), 0.0)
    one = subsampled_gaussian_rdp(0.9, 0.1, orders)
    assert np.allclose(compose_rdp(one, one, one), 3 * one)
    acct = SubsampledGaussianRDP(sigma=0.9, sampling_rate=0.1, rounds=3, orders=orders)
    assert np.allclose(acct.rdp, 3 * one, rtol=1e-15)


def mp_log_a_integral(q: float, sigma: float, alpha: float) -> mp.mpf:
    """A_alpha = E_{z ~ N(0, sigma^2)} [((1 - q) + q exp((2z - 1) / (2 sigma^2)))^alpha] at 50 digits."""
    mp.mp.dps = 50
    q, s, a = mp.mpf(q), mp.mpf(sigma), mp.mpf(alpha)

    def integrand(z):
        return mp.npdf(z, 0, s) * ((1 - q) + q * mp.exp((2 * z - 1) / (2 * s**2))) ** a

    return mp.log(mp.quad(integrand, [-mp.inf, 0, 1, mp.inf]))


@pytest.mark.parametrize("q,sigma,alpha", [(0.1, 1.0, 3.0), (0.01, 0.7, 8.0), (0.2, 2.0, 2.0)])
def test_integer_orders_against_mpmath(q: float, sigma: float, alpha: float) -> None:
    ref = float(mp_log_a_integral(q, sigma, alpha)) / (alpha - 1)
    assert subsampled_gaussian_rdp(sigma, q, [alpha])[0] == pytest.approx(ref, rel=1e-11)


@pytest.mark.parametrize("q,sigma,alpha", [(0.1, 1.0, 2.5), (0.01, 0.7, 6.3), (0.2, 2.0, 1.5)])
def test_fractional_orders_signed_exact_absolute_upper(
    q: float, sigma: float, alpha: float
) -> None:
    ref = float(mp_log_a_integral(q, sigma, alpha)) / (alpha - 1)
    signed = subsampled_gaussian_rdp(sigma, q, [alpha], fractional_series="signed")[0]
    assert signed == pytest.approx(ref, rel=1e-9)
    absolute = subsampled_gaussian_rdp(sigma, q, [alpha])[0]  # dp_accounting's |binomial| series
    assert absolute >= ref * (1 - 1e-12)  # an upper bound: never below the truth
    eps_signed = SubsampledGaussianRDP(
        sigma=sigma, sampling_rate=q, rounds=10, fractional_series="signed"
    )
    eps_absolute = SubsampledGaussianRDP(sigma=sigma, sampling_rate=q, rounds=10)
    assert eps_signed.epsilon(1e-5) <= eps_absolute.epsilon(1e-5)


def test_integer_and_fractional_paths_meet() -> None:
    for alpha in (2.0, 5.0, 12.0):
        near = subsampled_gaussian_rdp(1.1, 0.05, [alpha - 1e-7, alpha, alpha + 1e-7])
        assert near[1] == pytest.approx(near[0], rel=1e-5) and near[1] == pytest.approx(
            near[2], rel=1e-5
        )


def test_conversions_follow_their_formulas() -> None:
    orders = np.asarray(DEFAULT_ORDERS)
    rdp = SubsampledGaussianRDP(sigma=1.0, sampling_rate=0.01, rounds=5000).rdp
    delta = 1e-6
    classic = rdp_to_epsilon(rdp, orders, delta, conversion="classic")
    assert classic == pytest.approx(
        float(np.min(rdp + math.log(1 / delta) / (orders - 1))), rel=1e-14
    )
    tight = rdp_to_epsilon(rdp, orders, delta)
    assert tight < classic
    eps = 2.0
    with np.errstate(over="ignore"):
        direct = float(np.min(np.exp((orders - 1) * (rdp - eps))))
    assert rdp_to_delta(rdp, orders, eps, conversion="classic") == pytest.approx(direct, rel=1e-13)
    # Each conversion inverts itself: delta(eps(delta)) <= delta, within rounding.
    for conv in ("tight", "classic"):
        e = rdp_to_epsilon(rdp, orders, delta, conversion=conv)
        assert rdp_to_delta(rdp, orders, e, conversion=conv) <= delta * (1 + 1e-9)


def test_rdp_is_an_upper_bound_on_the_exact_gaussian() -> None:
    from hockeystick.fdp import GaussianDP

    sigma, rounds = 2.0, 50
    exact = GaussianDP(math.sqrt(rounds) / sigma)
    rdp = SubsampledGaussianRDP(sigma=sigma, rounds=rounds)
    for delta in (1e-3, 1e-6, 1e-10):
        assert rdp.epsilon(delta) >= exact.epsilon(delta)
        assert rdp.epsilon(delta) <= rdp.epsilon(delta, conversion="classic")


def test_invalid_inputs() -> None:
    with pytest.raises(ValueError, match="sampling_rate"):
        SubsampledGaussianRDP(sigma=1.0, sampling_rate=1.5)
    with pytest.raises(ValueError, match="orders"):
        subsampled_gaussian_rdp(1.0, 0.1, [0.5, 2.0])
    with pytest.raises(ValueError, match="conversion"):
        SubsampledGaussianRDP(sigma=1.0, conversion="loose")
    with pytest.raises(ValueError, match="rounds"):
        SubsampledGaussianRDP(sigma=1.0, rounds=0)
    with pytest.raises(ValueError, match="delta"):
        SubsampledGaussianRDP(sigma=1.0).epsilon(0.0)
    with pytest.raises(ValueError, match="sigma"):
        gaussian_rdp(-1.0, [2.0])
    with pytest.raises(ValueError, match="fractional_series"):
        subsampled_gaussian_rdp(1.0, 0.1, [2.5], fractional_series="exactish")


@pytest.mark.parametrize("q", [1e-9, 1e-12, 1e-15])
def test_small_rate_delta_is_not_below_the_exact_total_variation(q: float) -> None:
    # One round of the subsampled Gaussian: delta(0) is the total variation q (1 - 2 Q(1/(2 sigma)))
    # exactly (mpmath, 50 digits); an upper bound must not fall below it, even where 1 - e^-r rounds
    # to 0 (r < 1.1e-16).
    sigma = 1.0
    mp.mp.dps = 50
    exact = float(mp.mpf(q) * mp.erf(1 / (2 * mp.sqrt(2) * sigma)))
    bound = SubsampledGaussianRDP(sigma=sigma, sampling_rate=q).delta(0.0)
    assert exact <= bound <= 1.0


def test_total_variation_conversion_at_tiny_rdp() -> None:
    # The TV bound sqrt(1 - e^-r) at r = 1e-20 is 1e-10 (to 1e-20 relative), not 0.
    for r in (1e-20, 1e-17, 1e-10):
        ref = float(mp.sqrt(-mp.expm1(-mp.mpf(r))))
        assert rdp_to_delta([r], [2.0], 0.0) == pytest.approx(ref, rel=1e-14)


def test_tiny_rate_rdp_is_zero_not_negative() -> None:
    # Fractional orders at q = 1e-20 round log A to ~ -4e-34; A >= 1, so the RDP is clamped at 0.
    rdp = subsampled_gaussian_rdp(1.0, 1e-20)
    assert (rdp >= 0).all()
    acct = SubsampledGaussianRDP(sigma=1.0, sampling_rate=1e-20)
    assert 0.0 <= acct.delta(1.0) <= 1.0
    assert acct.epsilon(1e-5) == 0.0


def test_orders_must_be_non_empty_and_bounded() -> None:
    with pytest.raises(ValueError, match="orders must not be empty"):
        SubsampledGaussianRDP(sigma=1.0, sampling_rate=0.1, orders=[])
    with pytest.raises(ValueError, match="orders must be <= 10000"):
        SubsampledGaussianRDP(sigma=1.0, sampling_rate=0.1, orders=[1e6])
    top = SubsampledGaussianRDP(
        sigma=1.0, sampling_rate=0.1, orders=[MAX_ORDER]
    )  # the cap itself is allowed
    assert np.isfinite(top.rdp).all() and top.rdp[0] > 0
