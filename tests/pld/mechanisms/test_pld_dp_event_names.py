"""A mechanism names its dp_accounting event by class or by dotted name (``Mechanism.dp_event``).

A mechanism of a stage below the adapter (the selection mechanisms of
``pld.mechanisms.selection``) cannot import the adapter's or dp_accounting's event classes: it names
them ``module.ClassName``, and
``registry.dp_event_class`` matches that name along the event's MRO.  The adapter then reads the
event through the registry in every door (its plan, its loss reach, its RDP curve, its Poisson
sample): the selection events have no case of their own in ``interop.dp_accounting``.  Each answer
is checked against an independent one: the Laplace event's for a renamed Laplace, the closed-form
curves of ``rdp.bounded_range`` and ``rdp.pure_dp`` for the selection events.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import attr
import numpy as np
import pytest
from dp_accounting import dp_event as ev

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant, HockeystickRdpAccountant
from hockeystick.interop.dp_accounting.selection_events import (
    ExponentialMechanismDpEvent,
    PermuteAndFlipDpEvent,
)
from hockeystick.interop.loss_reach import ParameterOutOfRange
from hockeystick.pld.grid.distribution import PrivacyLossDistribution
from hockeystick.pld.mechanisms import registry
from hockeystick.pld.mechanisms.constructors import laplace
from hockeystick.pld.mechanisms.mechanism import Mechanism
from hockeystick.pld.mechanisms.selection import ExponentialMechanism, PermuteAndFlip
from hockeystick.rdp.bounded_range import bounded_range_rdp
from hockeystick.rdp.pure_dp import pure_dp_rdp

DELTA = 1e-6


@attr.define(frozen=True)
class NamedLaplaceDpEvent(ev.DpEvent):
    """An event no case of the adapter reads, named by its mechanism as a dotted name."""

    scale: float


@attr.define(frozen=True)
class NarrowerLaplaceDpEvent(NamedLaplaceDpEvent):
    """A subclass: read by the mechanism naming its base (the nearest name in its MRO)."""


@pytest.fixture(scope="module")
def named() -> Iterator[type[Mechanism]]:
    @dataclass(frozen=True)
    class NamedLaplace(Mechanism):
        """The Laplace pair on the grid, its event named ``module.ClassName``."""

        name: ClassVar[str] = "named_laplace"
        dp_event: ClassVar[str] = f"{__name__}.NamedLaplaceDpEvent"
        dp_event_field: ClassVar[str] = "scale"
        scale: float

        @classmethod
        def from_dp_event(cls, event: Any, relation: str) -> NamedLaplace:
            return cls(event.scale)

        def grid_pld(self, h: float) -> PrivacyLossDistribution:
            return laplace(self.scale, value_discretization_interval=h)

        def loss_reach(self) -> float:
            return 1.0 / self.scale

        def loss_atoms(
            self,
        ) -> list[float]:  # as Laplace's: the default grid is aligned through them
            return [1.0 / self.scale]

    yield NamedLaplace
    registry.unregister("named_laplace")


def test_a_dotted_name_is_matched_along_the_events_mro(named):
    assert registry.dp_event_class(NamedLaplaceDpEvent(1.0)) is named
    assert registry.dp_event_class(NarrowerLaplaceDpEvent(1.0)) is named
    # dp_accounting's own Laplace event: the package's Laplace mechanism reads it, by its dotted name
    assert registry.dp_event_class(ev.LaplaceDpEvent(1.0)) is registry.mechanism_class("laplace")


def test_an_event_named_by_its_dotted_name_answers_as_the_laplace_event(named):
    """The same pair on the same grid: the same doubles as dp_accounting's Laplace event."""
    for event in (NamedLaplaceDpEvent(2.0), NarrowerLaplaceDpEvent(2.0)):
        mine = HockeystickPLDAccountant().compose(event, 10).get_epsilon_bracket(DELTA)
        theirs = HockeystickPLDAccountant().compose(ev.LaplaceDpEvent(2.0), 10)
        assert mine == theirs.get_epsilon_bracket(DELTA)
    with pytest.raises(ParameterOutOfRange, match=r"NamedLaplaceDpEvent\.scale"):
        HockeystickPLDAccountant().compose(NamedLaplaceDpEvent(1e-5))  # reach 1e5 > 1e4


@pytest.mark.parametrize("bad", ["NamedLaplaceDpEvent", 3, NamedLaplaceDpEvent(1.0)])
def test_a_dp_event_that_is_neither_a_class_nor_a_dotted_name_is_refused(bad):
    with pytest.raises(ValueError, match=r"Odd\.dp_event must be an event class, its dotted name"):

        @dataclass(frozen=True)
        class Odd(Mechanism):
            name: ClassVar[str] = "odd_dp_event"
            dp_event: ClassVar[Any] = bad

            def grid_pld(self, h: float) -> PrivacyLossDistribution:
                return laplace(1.0, value_discretization_interval=h)

    registry.unregister("odd_dp_event")


@pytest.mark.parametrize(
    ("event", "cls"),
    [(ExponentialMechanismDpEvent, ExponentialMechanism), (PermuteAndFlipDpEvent, PermuteAndFlip)],
)
def test_the_selection_events_are_read_through_the_registry(event, cls):
    assert registry.dp_event_class(event(1.0)) is cls
    assert cls.from_dp_event(event(0.0), "replace_one") is None  # a uniform pick: nothing released
    assert cls.from_dp_event(event(2), "add_or_remove_one") == cls(2.0)


@pytest.mark.parametrize(
    ("event", "curve"),
    [(ExponentialMechanismDpEvent, bounded_range_rdp), (PermuteAndFlipDpEvent, pure_dp_rdp)],
)
@pytest.mark.parametrize("epsilon", [0.0, 0.3, 2.0, float("inf")])
def test_the_rdp_door_reads_the_registered_curve(event, curve, epsilon):
    """count times the closed-form curve of ``rdp`` (0 at epsilon 0, inf at inf), as before."""
    acc = HockeystickRdpAccountant().compose(event(epsilon), 7)
    expected = 7 * curve(epsilon, acc.orders)
    assert np.array_equal(acc.rdp, expected)


@pytest.mark.parametrize("event", [ExponentialMechanismDpEvent, PermuteAndFlipDpEvent])
def test_the_pld_door_adds_nothing_at_zero_and_refuses_an_infinite_epsilon(event):
    assert HockeystickPLDAccountant().compose(event(0.0), 5).get_epsilon_bracket(DELTA) == (0, 0)
    with pytest.raises(ParameterOutOfRange, match=rf"{event.__name__}\.epsilon must be finite"):
        HockeystickPLDAccountant().compose(event(float("inf")))
    with pytest.raises(ValueError, match=rf"{event.__name__}\.epsilon must be a real number >= 0"):
        HockeystickPLDAccountant().compose(event(float("nan")))
