"""epsilon at delta = 0 through the dp_accounting adapter: the largest privacy loss of the composition.

References: the closed forms of each mechanism's largest loss (the exponential mechanism's bounded range
epsilon and its realizable randomized response epsilon / 2; permute-and-flip and (epsilon, 0)-DP epsilon;
Laplace 1 / b; discrete Laplace a s), summed exactly with fractions; the PLD's own epsilon at a small positive
delta, which can only be below epsilon(0) on the lower side and must not exceed the upper side at delta = 0."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from dp_accounting import dp_event as E

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
from hockeystick.interop.dp_accounting.catalogue_events import EpsilonDeltaDpEvent
from hockeystick.interop.dp_accounting.selection_events import (
    ExponentialMechanismDpEvent,
    PermuteAndFlipDpEvent,
)


def accountant(*events):
    a = HockeystickPLDAccountant()
    for e in events:
        a.compose(e)
    return a


def test_exponential_mechanisms_compose_to_the_sum_of_their_epsilons():
    """dp_accounting's answer for EM(1) and EM(2) at delta = 0 is 3.0: the certified upper side is exactly that,
    and so is the lower side (realizable pairs on 1 + m candidates have largest losses tending to eps as m grows;
    the m = 10^4 pair's, below, is already within 0.001 of it)."""
    a = accountant(ExponentialMechanismDpEvent(1.0), ExponentialMechanismDpEvent(2.0))
    assert a.get_epsilon(0.0) == 3.0
    assert a.get_epsilon_bracket(0) == (3.0, 3.0)
    m = 10**4
    largest = sum(
        e / 2 + math.log((1 + m * math.exp(e / 2)) / (math.exp(e / 2) + m)) for e in (1.0, 2.0)
    )
    assert 2.999 < largest < 3.0


@pytest.mark.parametrize(
    ("events", "exact"),
    [
        ([PermuteAndFlipDpEvent(0.1)] * 3, 3 * Fraction(0.1)),
        ([EpsilonDeltaDpEvent(0.7, 0.0), E.LaplaceDpEvent(3.0)], Fraction(0.7) + 1 / Fraction(3.0)),
        ([E.DiscreteLaplaceDpEvent(0.3, 2)], 2 * Fraction(0.3)),
    ],
)
def test_pure_compositions_bracket_the_exact_sum_of_largest_losses(events, exact):
    lo, up = accountant(*events).get_epsilon_bracket(0.0)
    assert Fraction(lo) <= exact <= Fraction(up)
    assert math.nextafter(lo, math.inf) >= float(exact) >= math.nextafter(up, 0.0)


@pytest.mark.parametrize(
    "events",
    [
        [ExponentialMechanismDpEvent(1.0), ExponentialMechanismDpEvent(2.0)],
        [PermuteAndFlipDpEvent(0.5), E.LaplaceDpEvent(2.0)],
    ],
)
def test_delta_zero_is_the_limit_of_small_deltas(events):
    """epsilon(delta) increases to epsilon(0) as delta -> 0: the bracket at 1e-12 lies below the upper side at 0."""
    a = accountant(*events)
    lo0, up0 = a.get_epsilon_bracket(0.0)
    lo, _ = a.get_epsilon_bracket(1e-12)
    assert lo <= up0 and lo0 <= up0


def test_a_gaussian_has_infinite_epsilon_at_delta_zero():
    assert accountant(E.GaussianDpEvent(1.0), PermuteAndFlipDpEvent(1.0)).get_epsilon_bracket(
        0.0
    ) == (
        math.inf,
        math.inf,
    )


@pytest.mark.parametrize(
    ("events", "floor"),
    [
        ([EpsilonDeltaDpEvent(0.5, 1e-5)], "1e-05"),
        ([E.PoissonSampledDpEvent(0.1, E.NonPrivateDpEvent()), E.LaplaceDpEvent(1.0)], "0.1"),
    ],
)
def test_a_positive_delta_floor_is_refused_naming_it(events, floor):
    with pytest.raises(ValueError, match=rf"at least {floor} at every epsilon"):
        accountant(*events).get_epsilon(0.0)


@pytest.mark.parametrize("bad", [-0.0 - 1e-300, 1.0, True, False, "0", None])
def test_target_delta_zero_only_as_a_number(bad):
    with pytest.raises(ValueError, match="target_delta"):
        accountant(PermuteAndFlipDpEvent(1.0)).get_epsilon(bad)
