"""Every round the ledger records is a registry entry read through its facets (``ledger.round_facets``).

The ledger's own rounds are exactly the registry's entries with ``round_fields``; the two no compose file
names are found by ``round_entry`` and refused by the compose door; the facets' answers are checked
against mpmath at 50 digits: the zCDP line, the GDP parameter and mu^2 (never below the exact value),
and the matrix mechanism's PLD bracketing theta_eps(s / z) at each side of its sensitivity bracket.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from hockeystick.ledger import MECHANISMS, PrivacyLedger, Round
from hockeystick.pld.accountants import parse_stage
from hockeystick.pld.mechanisms import registry
from hockeystick.pld.mechanisms.zcdp_rounds import zcdp_round_rdp

mpmath.mp.dps = 50
ORDERS = (2, 3, 5, 16, 64, 1024)


def exact_gaussian_delta(radius: float, epsilon: float) -> mpmath.mpf:
    """theta_eps(r) = Phi(-eps / r + r / 2) - e^eps Phi(-eps / r - r / 2) (Balle & Wang 2018, Thm 8)."""
    r, e = mpmath.mpf(radius), mpmath.mpf(epsilon)
    return mpmath.ncdf(-e / r + r / 2) - mpmath.exp(e) * mpmath.ncdf(-e / r - r / 2)


def test_the_own_rounds_are_the_registry_entries_with_round_fields():
    compose_own = {n for n in registry.stage_names() if registry.stage_entry(n).round_fields}
    assert compose_own == set(MECHANISMS) - {"discrete_gaussian", "matrix_mechanism"}
    for name in MECHANISMS:
        entry = registry.round_entry(name)
        assert entry.round_fields and entry.rdp is not None  # every door has a curve to read


def test_the_two_rounds_no_compose_file_names_stay_out_of_the_compose_door():
    for name in ("discrete_gaussian", "matrix_mechanism"):
        assert not registry.round_entry(name).compose_file
        assert name not in registry.stage_names()
        with pytest.raises(ValueError, match=f"a stage: mechanism must be one of .*got '{name}'"):
            parse_stage({"mechanism": name, "sigma": 1.0}, "a stage")
        with pytest.raises(ValueError, match="the ledger records stages of gaussian, laplace"):
            Round.from_stage({"mechanism": name, "sigma": 1.0})


def test_round_entry_refuses_a_mechanism_without_fields_of_its_own():
    with pytest.raises(ValueError, match="mechanism must be one of discrete_gaussian, gaussian, "):
        registry.round_entry("discrete_laplace")
    with pytest.raises(ValueError, match="got 3"):
        registry.round_entry(3)


@pytest.mark.parametrize(("sigma", "s"), [(0.3, 1.0), (1.0, 3.0), (7.7, 2.5), (1e-3, 1e3)])
def test_the_zcdp_line_is_never_below_the_exact_one(sigma, s):
    curve = zcdp_round_rdp(ORDERS, sigma, s)
    for alpha, value in zip(ORDERS, curve):
        exact = alpha * mpmath.mpf(s) ** 2 / (2 * mpmath.mpf(sigma) ** 2)
        assert mpmath.mpf(value) >= exact
        assert mpmath.mpf(value) <= exact * (1 + mpmath.mpf(2) ** -48)


@pytest.mark.parametrize(("z", "upper"), [(0.8, 1.0), (3.0, 2.5), (11.0, 7.25)])
def test_a_matrix_round_s_gdp_parameter_is_its_gaussian_pair_s_radius(z, upper):
    one = Round("matrix_mechanism", sigma=z, sensitivity=upper, sensitivity_lower=upper / 2)
    assert abs(mpmath.mpf(one.gdp_mu) - mpmath.mpf(upper) / z) <= mpmath.mpf(upper) / z * 2**-52
    assert mpmath.mpf(one.mu_squared_upper()) >= (mpmath.mpf(upper) / z) ** 2
    assert Round.gaussian(z).gdp_mu == 1.0 / z


@pytest.mark.parametrize(("z", "upper", "lower"), [(2.0, 2.5, 1.5), (1.0, 1.0, 0.5)])
def test_the_matrix_round_s_bracket_holds_both_sides_exact_gaussians(z, upper, lower):
    ledger = PrivacyLedger(adaptive=False)
    ledger.record(Round("matrix_mechanism", sigma=z, sensitivity=upper, sensitivity_lower=lower))
    for epsilon in (0.25, 1.0, 2.0):
        delta = float(exact_gaussian_delta(upper / z, epsilon))
        answer = ledger.composition(delta)
        # epsilon at the upper side's exact delta: the upper answer is at least epsilon; the lower,
        # at the lower sensitivity, at most it
        assert answer.epsilon >= epsilon * (1 - 1e-12)
        assert answer.epsilon_lower <= epsilon
        at_lower = float(exact_gaussian_delta(lower / z, 0.5))
        assert ledger.composition(at_lower).epsilon_lower <= 0.5 + 1e-12


def test_a_registered_curve_that_breaks_its_contract_is_refused():
    from hockeystick.pld.mechanisms import laplace

    def broken_rdp(orders, scale):
        return np.full(len(orders) + 1, 1.0)

    def broken_toy(scale, value_discretization_interval=1e-4):
        return laplace(scale, value_discretization_interval=value_discretization_interval)

    registry.stage(rdp=broken_rdp)(broken_toy)
    try:
        one = Round("broken_toy", parameters=(("scale", 1.0),))
        with pytest.raises(ValueError, match="must give one value >= 0 per order"):
            one.rdp_upper(ORDERS)
    finally:
        registry.unregister("broken_toy")


def test_stage_refuses_a_keyword_that_is_no_facet():
    with pytest.raises(ValueError, match="stage takes the facets compose_file, .*got gdp"):
        registry.stage(gdp=lambda sigma: sigma)
