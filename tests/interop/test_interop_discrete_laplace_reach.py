"""Discrete Laplace losses far beyond any useful privacy: refused naming the event's field, or a
certified answer; never an int64 index that wraps (an upper epsilon of 2^31 where the truth is 1e10),
a NaN, or a search that cannot close."""

import math

import pytest

dpa = pytest.importorskip("dp_accounting")
from dp_accounting import dp_event as ev  # noqa: E402

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant  # noqa: E402
from hockeystick.pld.compose import finite_atoms  # noqa: E402
from hockeystick.pld.mechanisms.discrete_laplace import discrete_laplace_atoms  # noqa: E402


@pytest.mark.parametrize(
    "a, s", [(1e10, 1), (3e9, 1), (1e100, 1), (1e308, 2), (8.9e307, 3), (2e6, 1)]
)
@pytest.mark.parametrize(
    "other", [ev.DiscreteLaplaceDpEvent(0.5, 1), ev.GaussianDpEvent(1.0), ev.LaplaceDpEvent(1.0)]
)
def test_huge_discrete_laplace_is_refused_naming_its_field(a, s, other):
    acc = HockeystickPLDAccountant()
    event = ev.ComposedDpEvent([ev.DiscreteLaplaceDpEvent(a, s), other])
    with pytest.raises(ValueError, match=r"DiscreteLaplaceDpEvent\.noise_parameter"):
        acc.compose(event)
        acc.get_epsilon(1e-5)


def test_large_discrete_laplace_beside_another_lattice_is_certified():
    # the truth: the loss a = 1e5 is taken with probability ~ P(x = 0)(1 - e^-a) ~ 1, so delta(1) ~ 1 and
    # eps(1e-5) is at least a - 0.5 (the second mechanism's loss is at least -0.5)
    acc = HockeystickPLDAccountant()
    acc.compose(
        ev.ComposedDpEvent([ev.DiscreteLaplaceDpEvent(1e5, 1), ev.DiscreteLaplaceDpEvent(0.5, 1)])
    )
    lo, up = acc.get_epsilon_bracket(1e-5)
    assert up >= 1e5 - 0.5 and lo <= up and math.isfinite(lo)
    dlo, dup = acc.get_delta_bracket(1.0)
    assert dup >= 1.0 - 1e-9 and 0.0 <= dlo <= dup


def test_composed_losses_past_the_lattice_raise_not_wrap():
    big = discrete_laplace_atoms(1e6, 1)
    with pytest.raises(ValueError, match="lattice"):
        finite_atoms.compose(finite_atoms.self_compose(big, 10**4), discrete_laplace_atoms(0.5, 1))


@pytest.mark.parametrize("s", [2000, 20000])
def test_with_replacement_discrete_laplace_of_huge_sensitivity_is_refused(s):
    from dp_accounting.privacy_accountant import NeighboringRelation

    acc = HockeystickPLDAccountant(neighboring_relation=NeighboringRelation.REPLACE_ONE)
    event = ev.SampledWithReplacementDpEvent(
        100,
        10,
        ev.ComposedDpEvent([ev.GaussianDpEvent(1.0), ev.DiscreteLaplaceDpEvent(0.5 / s, s)]),
    )
    with pytest.raises(ValueError, match=r"DiscreteLaplaceDpEvent\.sensitivity"):
        acc.compose(event, 10)


def test_with_replacement_discrete_laplace_of_small_sensitivity_still_brackets():
    from dp_accounting.privacy_accountant import NeighboringRelation

    acc = HockeystickPLDAccountant(neighboring_relation=NeighboringRelation.REPLACE_ONE)
    acc.compose(ev.SampledWithReplacementDpEvent(100, 10, ev.DiscreteLaplaceDpEvent(0.05, 10)), 10)
    lo, up = acc.get_epsilon_bracket(1e-5)
    assert 0.0 < lo <= up < math.inf
