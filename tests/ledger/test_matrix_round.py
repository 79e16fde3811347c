"""Matrix-mechanism rounds: the whole factorization is one Gaussian release of the strategy's sensitivity.  The
ledger's bracket holds the closed-form Gaussian epsilon (mpmath) and hockeystick.matrix's own, alone and composed
with a Gaussian round (mu^2 adding up), its RDP is the accountant's, the GDP filter reads mu = sens / z, and the
settings the proof does not cover are refused."""

from __future__ import annotations

import math

import mpmath
import pytest

from hockeystick import matrix
from hockeystick.ledger import BudgetExceeded, PrivacyLedger, Round
from hockeystick.ledger.gdp_filter import GdpFilter


def gaussian_delta(mu: float, epsilon: float) -> mpmath.mpf:
    """delta(eps) of mu-GDP (Balle & Wang 2018, Thm 8), 50 digits."""
    with mpmath.workdps(50):
        m, e = mpmath.mpf(mu), mpmath.mpf(epsilon)
        return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)


H = 1e-3  # the PLD grid: coarse, so the tests stay cheap; the bracket's direction is what they check
TREE = matrix.DPFTRL(
    rounds=16, noise_multiplier=2.0, min_separation=4
)  # sensitivity 6 exactly: mu = 3


def test_one_release_is_the_gaussian_of_its_sensitivity_and_the_accountants_epsilon():
    delta = 1e-6
    ledger = PrivacyLedger(adaptive=False, value_discretization_interval=H)
    ledger.record(Round.matrix_mechanism(TREE))
    g = ledger.composition(delta)
    assert ledger.rounds == 1  # 16 steps, one release: not 16 Gaussians
    assert gaussian_delta(3.0, g.epsilon) <= delta <= gaussian_delta(3.0, g.epsilon_lower)
    lower, upper = TREE.epsilon(delta, bound="both")
    assert g.epsilon_lower <= upper and lower <= g.epsilon  # the same epsilon, within both brackets
    assert g.epsilon - g.epsilon_lower < 1e-2


def test_composed_with_a_gaussian_round_the_mu_squares_add_up():
    delta = 1e-6
    ledger = PrivacyLedger(adaptive=False, value_discretization_interval=H)
    ledger.record(Round.gaussian(2.0))  # mu = 1/2
    ledger.record(Round.matrix_mechanism(TREE))  # mu = 3
    g = ledger.composition(delta)
    mu = math.sqrt(
        9.25
    )  # Gaussians compose to the Gaussian of sqrt(sum mu^2) (Dong, Roth & Su 2022, Cor. 3.3)
    assert gaussian_delta(mu, g.epsilon) <= delta <= gaussian_delta(mu, g.epsilon_lower)
    curve = ledger.composition_curve(delta)
    assert curve.upper[-1] == pytest.approx(g.epsilon, rel=1e-9)
    assert gaussian_delta(0.5, curve.upper[0]) <= delta <= gaussian_delta(0.5, curve.lower[0])


def test_a_sensitivity_only_bounded_keeps_the_accountants_bracket():
    delta = 1e-6
    bounded = matrix.DPFTRL(rounds=100, noise_multiplier=4.0, min_separation=10)
    assert bounded.sensitivity_kind == "upper bound"
    one = Round.matrix_mechanism(bounded)
    assert (one.sensitivity, one.sensitivity_lower) == (
        bounded.sensitivity,
        bounded.sensitivity_lower,
    )
    ledger = PrivacyLedger(adaptive=False, value_discretization_interval=H)
    ledger.record(one)
    g = ledger.composition(delta)
    lower, upper = bounded.epsilon(delta, bound="both")
    assert (
        gaussian_delta(bounded.sensitivity / 4.0, g.epsilon) <= delta
    )  # the upper side at the upper sensitivity
    assert (
        gaussian_delta(bounded.sensitivity_lower / 4.0, g.epsilon_lower) >= delta
    )  # the lower at the lower one
    assert g.epsilon == pytest.approx(upper, rel=1e-3) and g.epsilon_lower == pytest.approx(
        lower, rel=1e-3
    )


def test_rdp_is_the_accountants_and_the_gdp_filter_reads_mu():
    orders = (2, 8, 64)
    one = Round.matrix_mechanism(TREE)
    assert list(one.rdp_upper(orders)) == pytest.approx(list(TREE.rdp(list(orders))), rel=1e-14)
    assert all(c >= a * 9.0 / 2 for c, a in zip(one.rdp_upper(orders), orders))
    assert one.gdp_mu == pytest.approx(3.0, rel=1e-15) and one.mu_squared_upper() >= 9.0
    # a budget whose GDP radius lies between mu = 3 and sqrt(2) * 3 admits one release and refuses a second
    assert 3.0 < GdpFilter(20.0, 1e-6).mu < 3.0 * math.sqrt(2.0)
    ledger = PrivacyLedger(adaptive=True, epsilon=20.0, delta=1e-6, filter="gdp")
    ledger.record(one)
    with pytest.raises(BudgetExceeded):
        ledger.record(one)
    assert ledger.rounds == 1


def test_the_settings_outside_the_proof_are_refused_and_a_saved_ledger_restores_it():
    with pytest.raises(ValueError, match="adaptive_inputs=False"):
        Round.matrix_mechanism(matrix.DPFTRL(rounds=4, noise_multiplier=1.0, adaptive_inputs=False))
    with pytest.raises(ValueError, match="several points"):
        Round.matrix_mechanism(matrix.DPFTRL(rounds=4, noise_multiplier=[1.0, 2.0]))
    with pytest.raises(ValueError, match="matrix-mechanism accountant"):
        Round.matrix_mechanism(2.0)
    with pytest.raises(ValueError, match="sensitivity_lower must be <= sensitivity"):
        Round("matrix_mechanism", sigma=1.0, sensitivity=1.0, sensitivity_lower=2.0)
    ledger = PrivacyLedger(
        adaptive=False, epsilon=30.0, delta=1e-6, value_discretization_interval=H
    )
    ledger.record(Round.matrix_mechanism(TREE))
    restored = PrivacyLedger.from_json(ledger.to_json())
    assert restored.counts() == ledger.counts()
    assert restored.composition().epsilon == ledger.composition().epsilon
