"""Where the dp_accounting adapter reads each event: a leaf by its registered mechanism's facets, a
structural event by the one table of structure (``interop/dp_accounting/event_structure.py``), a
secure-aggregation round by its family (docs/howto-mechanism.md, step 3; docs/howto-dp-event.md)."""

from __future__ import annotations

import inspect

import pytest

pytest.importorskip("dp_accounting")

from dp_accounting import dp_event as ev  # noqa: E402

from hockeystick.interop.dp_accounting import (  # noqa: E402
    allocation_events,
    catalogue_events,
    dp_events,
    event_reach,
    rdp_accountant,
    selection_events,
)
from hockeystick.interop.dp_accounting.event_structure import (  # noqa: E402
    STRUCTURE,
    structure_case,
)
from hockeystick.pld.mechanisms import registry  # noqa: E402

# dp_accounting's leaf events the adapter takes, and the adapter's own leaf event modules
DP_ACCOUNTING_LEAVES = (
    ev.GaussianDpEvent,
    ev.LaplaceDpEvent,
    ev.DiscreteLaplaceDpEvent,
    ev.MixtureOfGaussiansDpEvent,
    ev.RandomizedResponseDpEvent,
    ev.ZCDpEvent,
    ev.TruncatedSubsampledGaussianDpEvent,
)
OWN_LEAF_MODULES = (allocation_events, catalogue_events, selection_events)
DOORS = {"plan": dp_events, "reach": event_reach, "rdp": rdp_accountant}


def own_leaves() -> list[type]:
    return [
        cls
        for module in OWN_LEAF_MODULES
        for name in module.__all__
        if inspect.isclass(cls := getattr(module, name)) and issubclass(cls, ev.DpEvent)
    ]


@pytest.mark.parametrize(
    "event_class", [*DP_ACCOUNTING_LEAVES, *own_leaves()], ids=lambda c: c.__name__
)
def test_a_leaf_event_is_read_by_one_registered_mechanism_and_no_row_of_structure(event_class):
    reader = registry.dp_event_class(event_class.__new__(event_class))
    assert reader is not None, f"no registered mechanism reads {event_class.__name__}"
    assert reader.name in registry.mechanism_names()
    assert not any(issubclass(event_class, structural) for structural in STRUCTURE)


def test_the_table_of_structure_holds_no_mechanism_event():
    readers = [registry.dp_event_class(cls.__new__(cls)) for cls in STRUCTURE]
    assert readers == [None] * len(STRUCTURE)


@pytest.mark.parametrize(("door", "module"), sorted(DOORS.items()))
def test_every_case_the_table_names_is_a_function_of_its_door(door, module):
    named = {getattr(walk, door) for walk in STRUCTURE.values()} - {None}
    assert named, f"no structural event is read at the {door} door"
    for name in named:
        assert callable(getattr(module, name, None)), f"{module.__name__} has no case {name}"


def test_a_subclass_of_a_structural_event_takes_its_bases_case_and_a_door_without_one_reads_a_leaf():
    from dp_accounting import NeighboringRelation

    class Repeated(ev.SelfComposedDpEvent):
        pass

    laplace = ev.LaplaceDpEvent(2.0)
    sub, base = Repeated(laplace, 3), ev.SelfComposedDpEvent(laplace, 3)
    case = structure_case(sub, "reach", vars(event_reach))
    assert case is not None and case is structure_case(base, "reach", vars(event_reach))
    # three runs of a Laplace of scale 2: three times its reach 1 / 2, named by the leaf's field
    assert event_reach.event_reach(sub, NeighboringRelation.ADD_OR_REMOVE_ONE) == (
        1.5,
        laplace,
        "noise_multiplier",
    )
    # the plan door unwraps compositions itself: the table names no plan case for them
    assert structure_case(sub, "plan", vars(dp_events)) is None
