"""Discrete Gaussian rounds: the fixed-schedule bracket holds the exact delta(eps) of the composition summed over
the integers in mpmath (one and two rounds), the RDP curve lies above the exact Rényi divergence, the GDP filter
refuses the round, and a saved ledger restores it."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from hockeystick.ledger import PrivacyLedger, Round


def loss_pmf(sigma: float, s: int, window: int) -> dict[int, mpmath.mpf]:
    """P-probability of each loss value, keyed by its numerator s (2x - s) over 2 sigma^2: P = N_Z(s, sigma^2), Q
    = N_Z(0, sigma^2), outcomes x in [-window, s + window] (the mass beyond is below e^(-window^2 / (2 sigma^2)))."""
    xs = range(-window, s + window + 1)
    z = mpmath.fsum(mpmath.exp(-mpmath.mpf(x * x) / (2 * sigma**2)) for x in xs)
    out: dict[int, mpmath.mpf] = {}
    for x in xs:
        key = s * (2 * x - s)
        out[key] = out.get(key, 0) + mpmath.exp(-mpmath.mpf((x - s) ** 2) / (2 * sigma**2)) / z
    return out


def exact_delta(pmf: dict[int, mpmath.mpf], sigma: float, epsilon: float) -> mpmath.mpf:
    """delta(eps) = E_P[(1 - e^(eps - L))_+] for the loss L = key / (2 sigma^2)."""
    return mpmath.fsum(
        p * (1 - mpmath.exp(epsilon - mpmath.mpf(k) / (2 * sigma**2)))
        for k, p in pmf.items()
        if k / (2 * sigma**2) > epsilon
    )


def composed(a: dict[int, mpmath.mpf], b: dict[int, mpmath.mpf]) -> dict[int, mpmath.mpf]:
    out: dict[int, mpmath.mpf] = {}
    for ka, pa in a.items():
        for kb, pb in b.items():
            out[ka + kb] = out.get(ka + kb, 0) + pa * pb
    return out


@pytest.mark.parametrize(("sigma", "s", "rounds"), [(2.0, 1, 1), (3.0, 2, 2)])
def test_the_bracket_holds_the_exact_delta_of_the_composition(sigma, s, rounds):
    delta = 1e-5
    ledger = PrivacyLedger(adaptive=False)
    ledger.record(Round.discrete_gaussian(sigma, s), rounds)
    g = ledger.composition(delta)
    with mpmath.workdps(40):
        one = loss_pmf(sigma, s, 40)
        pmf = one if rounds == 1 else composed(one, one)
        assert exact_delta(pmf, sigma, g.epsilon) <= delta  # the upper epsilon is enough
        assert (
            exact_delta(pmf, sigma, g.epsilon_lower) >= delta
        )  # the lower one is not more than enough
    assert g.epsilon - g.epsilon_lower < 1e-3


def test_the_rdp_curve_is_zcdp_and_above_the_exact_renyi_divergence():
    sigma, s, orders = 1.5, 2, (2, 3, 8)
    curve = Round.discrete_gaussian(sigma, s).rdp_upper(orders)
    zcdp = [Fraction(a) * s * s / (2 * Fraction(sigma) ** 2) for a in orders]
    assert all(
        Fraction(float(c)) >= z for c, z in zip(curve, zcdp)
    )  # alpha s^2 / (2 sigma^2), never below
    assert np.allclose(curve, [float(z) for z in zcdp], rtol=1e-14, atol=0)
    with mpmath.workdps(
        40
    ):  # D_alpha(N_Z(s) || N_Z(0)) = log(sum_x p^alpha q^(1 - alpha)) / (alpha - 1)
        xs = range(-60, 61)
        z = mpmath.fsum(mpmath.exp(-mpmath.mpf(x * x) / (2 * sigma**2)) for x in xs)
        for a, c in zip(orders, curve):
            total = mpmath.fsum(
                (mpmath.exp(-mpmath.mpf((x - s) ** 2) / (2 * sigma**2)) / z) ** a
                * (mpmath.exp(-mpmath.mpf(x * x) / (2 * sigma**2)) / z) ** (1 - a)
                for x in xs
            )
            assert mpmath.log(total) / (a - 1) <= c


def test_no_gdp_parameter_is_claimed_and_the_gdp_filter_refuses_it():
    one = Round.discrete_gaussian(2.0)
    assert one.gdp_mu is None
    with pytest.raises(ValueError, match="no proved GDP parameter"):
        one.mu_squared_upper()
    ledger = PrivacyLedger(adaptive=True, epsilon=1.0, delta=1e-5, filter="gdp")
    with pytest.raises(ValueError, match="discrete Gaussian round has no proved GDP parameter"):
        ledger.record(one)
    with pytest.raises(ValueError, match="sensitivity must be an integer >= 1"):
        Round.discrete_gaussian(2.0, 1.5)
    with pytest.raises(ValueError, match="takes no sampling_rate"):
        Round("discrete_gaussian", sigma=2.0, sensitivity=1, sampling_rate=0.1)


def test_the_rdp_filter_and_odometer_read_it_and_a_saved_ledger_restores_it():
    ledger = PrivacyLedger(adaptive=True, epsilon=4.0, delta=1e-5)
    for _ in range(3):
        ledger.record(Round.discrete_gaussian(3.0, 1))
    ledger.record(Round.subsampled_gaussian(1.0, 0.01), 10)
    restored = PrivacyLedger.from_json(ledger.to_json())
    assert restored.counts() == ledger.counts()
    assert restored.odometer(1e-5) == ledger.odometer(1e-5)
    # three discrete rounds cost exactly what three Gaussian rounds of sigma / s cost in RDP
    gaussian = PrivacyLedger(adaptive=True)
    gaussian.record(Round.gaussian(3.0), 3)
    gaussian.record(Round.subsampled_gaussian(1.0, 0.01), 10)
    assert restored.odometer(1e-5).epsilon == pytest.approx(
        gaussian.odometer(1e-5).epsilon, rel=1e-14
    )
