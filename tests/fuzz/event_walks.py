"""The argument walk's entries (``tests/test_fuzz_public_api.py``) for hockeystick's own dp_accounting-style events:
each numeric field of each event, composed in the PLD adapter (and in the RDP adapter where it takes the event)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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

H = 1e-2  # the walk's coarse loss grid


def _pld(make: Callable[..., Any], relation: NR) -> Callable[..., Any]:
    """Two runs of the event built from the walked fields, in the PLD adapter: (epsilon bracket, delta bracket)."""

    def call(**fields: Any) -> Any:
        acc = HockeystickPLDAccountant(relation, value_discretization_interval=H).compose(
            make(**fields), 2
        )
        return (*acc.get_epsilon_bracket(1e-3), *acc.get_delta_bracket(1.0))

    return call


def _rdp(make: Callable[..., Any], relation: NR) -> Callable[..., Any]:
    def call(**fields: Any) -> Any:
        acc = HockeystickRdpAccountant(neighboring_relation=relation).compose(make(**fields), 2)
        return acc.get_epsilon(1e-3), acc.get_delta(1.0)

    return call


def _poisson_gaussian(sampling_probability: Any) -> Any:
    return E.PoissonSampledDpEvent(sampling_probability, E.GaussianDpEvent(2.0))


ADD, REPLACE = NR.ADD_OR_REMOVE_ONE, NR.REPLACE_ONE
# (label, call, valid keyword arguments: each is walked in turn)
EVENT_WALKS: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
    (
        "events BallsInBinsGaussianDpEvent",
        _pld(BallsInBinsGaussianDpEvent, ADD),
        dict(noise_multiplier=2.0, num_steps=4),
    ),
    (
        "events ShuffledBatchGaussianDpEvent",
        _pld(ShuffledBatchGaussianDpEvent, REPLACE),
        dict(noise_multiplier=2.0, dataset_size=100, batch_size=10),
    ),
    (
        "events DiscreteGaussianDpEvent",
        _pld(DiscreteGaussianDpEvent, ADD),
        dict(sigma=3.0, sensitivity=1),
    ),
    (
        "events DiscreteGaussianDpEvent (RDP)",
        _rdp(DiscreteGaussianDpEvent, ADD),
        dict(sigma=3.0, sensitivity=1),
    ),
    ("events EpsilonDeltaDpEvent", _pld(EpsilonDeltaDpEvent, ADD), dict(epsilon=1.0, delta=1e-6)),
    # delta walked in the PLD adapter: the RDP adapter takes delta = 0 only (any other is UnsupportedEventError)
    (
        "events EpsilonDeltaDpEvent (RDP)",
        _rdp(lambda epsilon: EpsilonDeltaDpEvent(epsilon, 0.0), ADD),
        dict(epsilon=1.0),
    ),
    (
        "events ExponentialMechanismDpEvent",
        _pld(ExponentialMechanismDpEvent, ADD),
        dict(epsilon=1.0),
    ),
    (
        "events ExponentialMechanismDpEvent (RDP)",
        _rdp(ExponentialMechanismDpEvent, ADD),
        dict(epsilon=1.0),
    ),
    ("events PermuteAndFlipDpEvent", _pld(PermuteAndFlipDpEvent, REPLACE), dict(epsilon=1.0)),
    ("events PermuteAndFlipDpEvent (RDP)", _rdp(PermuteAndFlipDpEvent, ADD), dict(epsilon=1.0)),
    (
        "events PoissonSampledDpEvent (REPLACE_ONE)",
        _pld(_poisson_gaussian, REPLACE),
        dict(sampling_probability=0.01),
    ),
    ("events ZCDpEvent", _pld(E.ZCDpEvent, ADD), dict(rho=0.5, xi=0.1)),
    ("events ZCDpEvent (RDP)", _rdp(E.ZCDpEvent, ADD), dict(rho=0.5, xi=0.1)),
]
