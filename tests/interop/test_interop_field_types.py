"""Every numeric field of the events the adapters take refuses what is not a number (a bool, a string, None),
naming the field, in both dp_accounting adapters; no value is silently coerced (True -> 1.0, "1" -> 1.0)."""

from __future__ import annotations

import attr
import pytest
from dp_accounting import dp_event as E
from dp_accounting.privacy_accountant import NeighboringRelation as NR

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant, HockeystickRdpAccountant
from hockeystick.interop.dp_accounting.allocation_events import (
    BallsInBinsGaussianDpEvent,
    ShuffledBatchGaussianDpEvent,
)
from hockeystick.interop.dp_accounting.catalogue_events import (
    DiscreteGaussianDpEvent,
    EpsilonDeltaDpEvent,
)
from hockeystick.interop.dp_accounting.selection_events import (
    ExponentialMechanismDpEvent,
    PermuteAndFlipDpEvent,
)

ADD, REPLACE = NR.ADD_OR_REMOVE_ONE, NR.REPLACE_ONE
# (a valid event, the relation it is valid under)
EVENTS = [
    (BallsInBinsGaussianDpEvent(1.0, 4), ADD),
    (ShuffledBatchGaussianDpEvent(1.0, 100, 10), REPLACE),
    (DiscreteGaussianDpEvent(3.0, 1), ADD),
    (EpsilonDeltaDpEvent(1.0, 1e-6), ADD),
    (ExponentialMechanismDpEvent(1.0), ADD),
    (PermuteAndFlipDpEvent(1.0), ADD),
    (E.PoissonSampledDpEvent(0.1, E.GaussianDpEvent(1.0)), REPLACE),
    (E.PoissonSampledDpEvent(0.1, E.GaussianDpEvent(1.0)), ADD),
    (E.ZCDpEvent(0.5, 0.0), ADD),
    (E.GaussianDpEvent(1.0), ADD),
    (E.LaplaceDpEvent(1.0), ADD),
    (E.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.5, 0.5]), ADD),
]
NOT_NUMBERS = [True, False, "1", None]
CASES = [
    pytest.param(
        event,
        relation,
        field.name,
        bad,
        id=f"{type(event).__name__}.{field.name}={bad!r}-{relation.name}",
    )
    for event, relation in EVENTS
    for field in attr.fields(type(event))
    if field.name != "event"
    for bad in NOT_NUMBERS
]


@pytest.mark.parametrize(("event", "relation", "name", "bad"), CASES)
def test_pld_adapter_refuses_a_field_that_is_not_a_number(event, relation, name, bad):
    bad_event = attr.evolve(event, **{name: bad})
    with pytest.raises((TypeError, ValueError), match=name):
        HockeystickPLDAccountant(relation).compose(bad_event)


RDP_EVENTS = [
    (DiscreteGaussianDpEvent(3.0, 1), ADD),
    (EpsilonDeltaDpEvent(1.0, 0.0), ADD),
    (ExponentialMechanismDpEvent(1.0), ADD),
    (PermuteAndFlipDpEvent(1.0), ADD),
    (E.PoissonSampledDpEvent(0.1, E.GaussianDpEvent(1.0)), ADD),
    (E.ZCDpEvent(0.5, 0.0), ADD),
    (E.GaussianDpEvent(1.0), ADD),
    (E.LaplaceDpEvent(1.0), ADD),
    (E.RandomizedResponseDpEvent(0.5, 2), REPLACE),
]


@pytest.mark.parametrize(
    ("event", "relation", "name", "bad"),
    [
        pytest.param(e, r, f.name, bad, id=f"{type(e).__name__}.{f.name}={bad!r}")
        for e, r in RDP_EVENTS
        for f in attr.fields(type(e))
        if f.name not in ("event", "num_buckets", "sensitivity")
        for bad in NOT_NUMBERS
    ],
)
def test_rdp_adapter_refuses_a_field_that_is_not_a_number(event, relation, name, bad):
    bad_event = attr.evolve(event, **{name: bad})
    accountant = HockeystickRdpAccountant(neighboring_relation=relation)
    with pytest.raises((TypeError, ValueError), match=name):
        accountant.compose(bad_event)


@pytest.mark.parametrize(("rho", "xi"), [("x", 0.0), (None, 0.0), (0.5, "a"), (0.5, [1.0])])
def test_rdp_adapter_zcdp_message_names_the_field(rho, xi):
    """A bad ZCDpEvent value is refused naming ZCDpEvent.rho or .xi, not with a bare float() error."""
    name = "rho" if not isinstance(rho, float) else "xi"
    with pytest.raises((TypeError, ValueError), match=rf"ZCDpEvent\.{name}"):
        HockeystickRdpAccountant().compose(E.ZCDpEvent(rho, xi))


HUGE = 10**400  # past the largest double: float() of it raises OverflowError


@pytest.mark.parametrize("accountant", [HockeystickPLDAccountant, HockeystickRdpAccountant])
@pytest.mark.parametrize(
    ("make", "name"),
    [
        (lambda: E.GaussianDpEvent(HUGE), "noise_multiplier"),
        (lambda: ExponentialMechanismDpEvent(HUGE), "epsilon"),
        (lambda: E.ZCDpEvent(HUGE), "rho"),
        (lambda: E.SelfComposedDpEvent(E.GaussianDpEvent(1.0), HUGE), "count"),
    ],
)
def test_an_integer_past_the_doubles_is_refused_naming_its_field(accountant, make, name):
    with pytest.raises(ValueError, match=name):
        accountant().compose(make())


@pytest.mark.parametrize("accountant", [HockeystickPLDAccountant, HockeystickRdpAccountant])
def test_a_compose_count_past_2_to_the_53_is_refused_naming_count(accountant):
    with pytest.raises(ValueError, match="`count` must be at most 2"):
        accountant().compose(E.GaussianDpEvent(1.0), HUGE)
