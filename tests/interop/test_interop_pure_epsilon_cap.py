"""The pure-DP cap of the dp_accounting adapter's upper epsilon, and the event-class lookup it reads events by.

``pure_epsilon_upper(plan, cap)`` skips the exact sum of the runs' largest losses where a sum in doubles
already puts it above ``cap``: ``min(cap, .)`` must be the same as with the exact sum, for caps just below,
at and just above the exact value (a margin too thin would return ``cap`` where the exact sum is below it).
The reference is the exact rational sum k / b of Laplace runs, rounded up here.  ``registry.dp_event_class``
keeps its answer per event class: registering or removing a mechanism must change it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import attr
import pytest
from dp_accounting import dp_event as ev

from hockeystick.interop.dp_accounting.pld_accountant import pure_epsilon_upper
from hockeystick.pld.accountants import CompositionPlan
from hockeystick.pld.mechanisms import registry
from hockeystick.pld.mechanisms.mechanism import Mechanism


def _rounded_up(x: Fraction) -> float:
    f = float(x)
    return math.nextafter(f, math.inf) if Fraction(f) < x else f


@pytest.mark.parametrize(
    "runs",
    [{0.3: 7}, {12.254371589151235: 26, 3.555748297837515: 26}, {1e-3: 1, 20.0: 400, 0.7: 3}],
)
def test_capped_upper_takes_the_same_minimum_as_the_exact_sum(runs: dict[float, int]) -> None:
    plan = CompositionPlan({("laplace", b): k for b, k in runs.items()})
    exact = _rounded_up(sum((Fraction(k) / Fraction(b) for b, k in runs.items()), Fraction(0)))
    assert pure_epsilon_upper(plan) == exact
    below, above = math.nextafter(exact, 0.0), math.nextafter(exact, math.inf)
    for cap in (
        below,
        exact,
        above,
        exact * (1 - 1e-13),
        exact * (1 + 1e-13),
        0.5 * exact,
        2 * exact,
    ):
        assert min(cap, pure_epsilon_upper(plan, cap)) == min(cap, exact), cap
    assert pure_epsilon_upper(plan, 0.5 * exact) == 0.5 * exact  # skipped: certified above the cap
    assert pure_epsilon_upper(plan, below) == exact  # within the margin: summed exactly


def test_capped_upper_of_a_plan_without_a_closed_form_is_inf() -> None:
    plan = CompositionPlan({("laplace", 1.0): 2})
    plan.gaussian_r2 = 1.0
    assert pure_epsilon_upper(plan, 0.5) == math.inf


@attr.s(frozen=True, slots=True, auto_attribs=True)
class _ToyDpEvent(ev.DpEvent):
    scale: float


def test_event_class_lookup_follows_registration() -> None:
    event = _ToyDpEvent(1.0)
    assert registry.dp_event_class(event) is None

    @dataclass(frozen=True)
    class ToyLaplace(Mechanism):
        name: ClassVar[str] = "toy_laplace_cap_test"
        dp_event: ClassVar[Any] = _ToyDpEvent
        scale: float

    try:
        assert registry.dp_event_class(event) is ToyLaplace
    finally:
        registry.unregister("toy_laplace_cap_test")
    assert registry.dp_event_class(event) is None
