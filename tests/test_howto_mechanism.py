"""docs/howto-mechanism.md followed once: a mechanism registered in this file alone is reached from every door.

The toy is the Laplace mechanism under another name, ``toy_laplace``: its stage constructor is
``pld.laplace`` itself and its Rényi curve the pure-DP bound min(eps, alpha eps^2 / 2) (Bun & Steinke 2016,
Prop. 3.3: eps-DP implies eps^2/2-zCDP; and D_alpha <= eps for every alpha), so each door's answer for it is
checked against the same door's answer for the package's own Laplace mechanism (the same doubles where the
door composes the same PLD) and its curve against the exact Laplace Rényi divergence at 50 digits (Mironov
2017, Prop. 6).  Nothing outside this file names it: the registry finds it because it is defined.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

import attr
import mpmath
import numpy as np
import pytest
from dp_accounting import dp_event as ev

from hockeystick import pld
from hockeystick.base.event_fields import noise, require_relation
from hockeystick.base.event_refusal import NonPrivateRun
from hockeystick.cli import main
from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
from hockeystick.ledger import PrivacyLedger, Round
from hockeystick.pld.accountants.stages import compose_stages, stage_relations
from hockeystick.pld.grid.distribution import PrivacyLossDistribution
from hockeystick.pld.mechanisms import registry
from hockeystick.pld.mechanisms.constructors import DEFAULT_INTERVAL, laplace
from hockeystick.pld.mechanisms.largest_loss import Directions, both_ways
from hockeystick.pld.mechanisms.mechanism import Mechanism

NAME = "toy_laplace"
ORDERS = (2, 3, 4, 8, 16, 32, 64)
DELTA = 1e-5


def toy_rdp(orders: tuple[int, ...], scale: float, sensitivity: float = 1.0) -> np.ndarray:
    """min(eps, alpha eps^2 / 2) at eps = sensitivity / scale, each rounded up."""
    eps = np.nextafter(sensitivity / scale, math.inf)
    alpha = np.asarray(orders, dtype=np.float64)
    return np.nextafter(np.minimum(eps, np.nextafter(alpha * eps * eps, math.inf) / 2.0), math.inf)


def toy_laplace(
    scale: float,
    *,
    sensitivity: float = 1.0,
    value_discretization_interval: float = DEFAULT_INTERVAL,
) -> PrivacyLossDistribution:
    """The Laplace mechanism's PLD (``pld.laplace``), under the toy's name."""
    return laplace(
        scale, sensitivity=sensitivity, value_discretization_interval=value_discretization_interval
    )


@attr.define(frozen=True)
class ToyLaplaceDpEvent(ev.DpEvent):
    """A dp_accounting event no case of the adapter reads: the toy's, read by its class."""

    scale: float


@pytest.fixture(scope="module")
def toy() -> Iterator[type[Mechanism]]:
    """The how-to's two steps: the stage constructor registered with its facets, and the plan's class
    (registered by being defined); both removed after the module's tests."""
    registry.stage(relation=None, rdp=toy_rdp)(toy_laplace)

    @dataclass(frozen=True)
    class ToyLaplace(Mechanism):
        """The Laplace pair (Lap(1, b), Lap(0, b)) on the grid (``pld.laplace``)."""

        name: ClassVar[str] = NAME
        dp_event: ClassVar[type | None] = ToyLaplaceDpEvent
        dp_event_field: ClassVar[str] = "scale"
        scale: float

        @classmethod
        def from_dp_event(
            cls, event: ToyLaplaceDpEvent, relation: str
        ) -> ToyLaplace | NonPrivateRun:
            """Shift 1 under add/remove, 2 under replace-one: the scale halved (as the package's
            Laplace); its analysis is stated for these two relations only; a zero scale releases the
            input."""
            require_relation(
                event, relation, ("add_or_remove_one", "replace_one"), "`ToyLaplaceDpEvent`"
            )
            scale = noise(event, "scale")
            if scale == 0:
                return NonPrivateRun(NAME)
            return cls(scale / 2.0 if relation == "replace_one" else scale)

        def grid_pld(self, h: float) -> PrivacyLossDistribution:
            return laplace(self.scale, value_discretization_interval=h)

        def loss_reach(self) -> float:
            """The Laplace loss is at most |shift| / scale = 1 / scale."""
            return 1.0 / self.scale

        def loss_atoms(self) -> list[float]:
            """The Laplace loss's atoms at +-1 / scale (the grids are aligned through them)."""
            return [1.0 / self.scale]

        def rdp(self, orders: np.ndarray) -> np.ndarray:
            return toy_rdp(orders, self.scale)

        def poisson_sampled(self, q: float) -> Mechanism:
            """The Poisson-sampled Laplace's location mixture (Zhu, Dong & Wang 2022, Thm 11)."""
            return registry.mechanism_of(("laplace_mixture", self.scale, (0.0, 1.0), (1.0 - q, q)))

        def largest_losses(self) -> Directions:
            """1 / scale both ways: the Laplace loss's largest value, taken past the shift."""
            return both_ways(1 / Fraction(self.scale))

    yield ToyLaplace
    registry.unregister(NAME)


def exact_laplace_rdp(alpha: int, eps: float) -> float:
    """Mironov 2017, Prop. 6 at 50 digits: the Laplace mechanism's Rényi divergence of order alpha."""
    with mpmath.workdps(50):
        a, e = mpmath.mpf(alpha), mpmath.mpf(eps)
        inner = a / (2 * a - 1) * mpmath.exp((a - 1) * e) + (a - 1) / (2 * a - 1) * mpmath.exp(
            -a * e
        )
        return float(mpmath.log(inner) / (a - 1))


@pytest.mark.parametrize("scale", [0.5, 2.0, 20.0])
def test_the_toy_curve_is_above_the_exact_laplace_curve(scale):
    curve = toy_rdp(ORDERS, scale)
    exact = [exact_laplace_rdp(a, 1.0 / scale) for a in ORDERS]
    assert np.all(curve >= exact), (curve, exact)


def test_the_registry_finds_both_entries(toy):
    assert NAME in registry.stage_names() and NAME in registry.mechanism_names()
    assert registry.mechanism_of((NAME, 2.0)) == toy(2.0)
    assert registry.stage_entry(NAME).required() == ["scale"]


def test_a_second_definition_under_the_name_is_refused(toy):
    def other(scale: float) -> PrivacyLossDistribution:
        return laplace(scale)

    with pytest.raises(ValueError, match="registered already"):
        registry.stage(name=NAME)(other)


def test_compose_reaches_it(toy):
    ours = compose_stages([{"mechanism": NAME, "scale": 2.0, "rounds": 7}])
    theirs = compose_stages([{"mechanism": "laplace", "scale": 2.0, "rounds": 7}])
    assert ours.epsilon(DELTA, bound="both") == theirs.epsilon(DELTA, bound="both")
    # analysed for the relation of its sensitivity: it joins add/remove and replace-one stages alike
    assert stage_relations(
        [
            {"mechanism": NAME, "scale": 2.0},
            {"mechanism": "subsampled_gaussian", "sigma": 1.0, "sampling_rate": 0.1},
        ]
    ) == stage_relations([{"mechanism": "subsampled_gaussian", "sigma": 1.0, "sampling_rate": 0.1}])
    with pytest.raises(
        ValueError, match=r"stage 1 \(toy_laplace\): a toy_laplace stage needs scale"
    ):
        compose_stages([{"mechanism": NAME}])


def test_the_cli_reaches_it(toy, tmp_path, capsys):
    rows = []
    for name in (NAME, "laplace"):
        path = tmp_path / f"{name}.toml"
        path.write_text(f'[[stage]]\nmechanism = "{name}"\nscale = 2.0\nrounds = 7\n')
        assert main(["compose", str(path), "--delta", str(DELTA), "--format", "json"]) == 0
        rows.append(json.loads(capsys.readouterr().out))
    assert rows[0] == rows[1]
    assert main(["accountants"]) == 0
    assert f"{NAME}\n    needs: scale; optional: sensitivity" in capsys.readouterr().out


def test_the_ledger_reaches_it(toy):
    one, count = Round.from_stage({"mechanism": NAME, "scale": 2.0, "rounds": 7})
    assert count == 7 and one == Round(NAME, parameters=(("scale", 2.0),))
    toy_ledger = PrivacyLedger(adaptive=False)
    toy_ledger.record(one, rounds=count)
    laplace_ledger = PrivacyLedger(adaptive=False)
    laplace_ledger.record(Round.laplace(2.0), rounds=count)
    ours, theirs = toy_ledger.composition(DELTA), laplace_ledger.composition(DELTA)
    assert (ours.epsilon_lower, ours.epsilon) == (theirs.epsilon_lower, theirs.epsilon)
    # the odometer reads the registered curve: an upper bound, so never below the certified lower side
    assert toy_ledger.odometer(DELTA).epsilon >= ours.epsilon_lower
    assert np.array_equal(one.rdp_upper(ORDERS), toy_rdp(ORDERS, 2.0))
    # a saved ledger holding it restores to the same doubles
    again = PrivacyLedger.from_json(toy_ledger.to_json())
    assert again.counts() == toy_ledger.counts() and again.odometer(DELTA) == toy_ledger.odometer(
        DELTA
    )


def test_the_ledger_refuses_what_the_toy_does_not_take(toy):
    with pytest.raises(ValueError, match="a toy_laplace round takes scale, sensitivity, got sigma"):
        Round(NAME, parameters=(("sigma", 1.0),))
    with pytest.raises(ValueError, match="takes its parameters as parameters="):
        Round(NAME, sigma=1.0, parameters=(("scale", 1.0),))
    with pytest.raises(ValueError, match="GDP filter takes unsampled Gaussian"):
        PrivacyLedger(adaptive=True, epsilon=1.0, delta=DELTA, filter="gdp").record(
            Round(NAME, parameters=(("scale", 2.0),))
        )


def test_the_plan_reaches_the_class(toy):
    lower, upper = toy(2.0).grid_pld(1e-3).self_compose(7).epsilon(DELTA, bound="both")
    ref_lower, ref_upper = (
        pld.laplace(2.0, value_discretization_interval=1e-3)
        .self_compose(7)
        .epsilon(DELTA, bound="both")
    )
    assert (lower, upper) == (ref_lower, ref_upper)


@pytest.mark.parametrize("relation", ["ADD_OR_REMOVE_ONE", "REPLACE_ONE"])
def test_the_dp_accounting_adapter_reaches_it(toy, relation):
    """The toy's event, alone and self-composed, gives the adapter's answer for dp_accounting's own Laplace event
    to the same doubles (the same pair composed the same way); Poisson sampled, a bracket overlapping it."""
    from dp_accounting import NeighboringRelation

    def bracket(event: ev.DpEvent) -> tuple[float, float]:
        accountant = HockeystickPLDAccountant(
            neighboring_relation=getattr(NeighboringRelation, relation)
        )
        return accountant.compose(event).get_epsilon_bracket(DELTA)

    for wrap in (lambda e: e, lambda e: ev.SelfComposedDpEvent(e, 7)):
        assert bracket(wrap(ToyLaplaceDpEvent(2.0))) == bracket(wrap(ev.LaplaceDpEvent(2.0)))
    if relation == "ADD_OR_REMOVE_ONE":
        # a Poisson sample of it: its own sampled pair (``poisson_sampled``), the one the adapter builds for
        # Laplace's event, so the same doubles
        lower, upper = bracket(ev.PoissonSampledDpEvent(0.1, ToyLaplaceDpEvent(2.0)))
        ref_lower, ref_upper = bracket(ev.PoissonSampledDpEvent(0.1, ev.LaplaceDpEvent(2.0)))
        assert 0.0 < lower < upper and (lower, upper) == (ref_lower, ref_upper)


@pytest.mark.parametrize("count", [1, 7])
def test_the_pure_dp_door_sums_its_largest_losses(toy, count):
    """Target delta 0: the adapter sums the toy's ``largest_losses()`` (no other file names it) to Laplace's
    exact pure epsilon, count / scale; Poisson sampled (through its ``poisson_sampled`` mixture's facet),
    count log(1 + q (e^{1/b} - 1)) (Balle, Barthe & Gaboardi 2018, Thm 8, attained), at 50 digits inside the
    bracket, to the doubles of Laplace's own event."""

    def bracket(event: ev.DpEvent) -> tuple[float, float]:
        return HockeystickPLDAccountant().compose(event, count).get_epsilon_bracket(0.0)

    assert (
        bracket(ToyLaplaceDpEvent(2.0)) == bracket(ev.LaplaceDpEvent(2.0)) == (count / 2, count / 2)
    )
    lower, upper = bracket(ev.PoissonSampledDpEvent(0.1, ToyLaplaceDpEvent(2.0)))
    assert (lower, upper) == bracket(ev.PoissonSampledDpEvent(0.1, ev.LaplaceDpEvent(2.0)))
    with mpmath.workdps(50):
        exact = count * mpmath.log1p(mpmath.mpf(0.1) * mpmath.expm1(mpmath.mpf(0.5)))
    assert lower <= exact <= upper and upper - lower < 1e-12 * count


ALONE, POISSON = (lambda e: e), (lambda e: ev.PoissonSampledDpEvent(0.1, e))
WITH_REPLACEMENT = lambda e: ev.SampledWithReplacementDpEvent(1000, 10, e)  # noqa: E731


@pytest.mark.parametrize(
    ("relation", "wrap"),
    [
        ("ADD_OR_REMOVE_ONE", ALONE),
        ("REPLACE_ONE", ALONE),
        ("ADD_OR_REMOVE_ONE", POISSON),
        ("REPLACE_ONE", WITH_REPLACEMENT),
    ],
    ids=["alone-add_remove", "alone-replace_one", "poisson", "with_replacement"],
)
def test_the_adapter_refuses_its_reach_as_laplaces(toy, relation, wrap):
    """A scale whose loss reaches past the grid's range is refused at every door that reads reach, naming the
    toy's field, where the adapter refuses Laplace's event of the same scale naming its own."""
    from dp_accounting import NeighboringRelation

    from hockeystick.interop.loss_reach import ParameterOutOfRange

    accountant = HockeystickPLDAccountant(
        neighboring_relation=getattr(NeighboringRelation, relation)
    )
    with pytest.raises(ParameterOutOfRange, match=r"LaplaceDpEvent\.noise_multiplier = 1e-05"):
        accountant.compose(wrap(ev.LaplaceDpEvent(1e-5)))
    with pytest.raises(ParameterOutOfRange, match=r"ToyLaplaceDpEvent\.scale = 1e-05"):
        accountant.compose(wrap(ToyLaplaceDpEvent(1e-5)))
    # a scale the grid holds is composed (a finite bracket)
    assert math.isfinite(accountant.compose(wrap(ToyLaplaceDpEvent(1.0))).get_epsilon(DELTA))


def test_the_rdp_accountant_reaches_it(toy):
    """The toy's curve, summed over its runs at the accountant's orders, and never below the exact Laplace
    curve the accountant composes for Laplace's event (Mironov 2017, Prop. 6), so neither is its epsilon."""
    from hockeystick.interop.dp_accounting import HockeystickRdpAccountant

    ours = HockeystickRdpAccountant().compose(ev.SelfComposedDpEvent(ToyLaplaceDpEvent(2.0), 7))
    theirs = HockeystickRdpAccountant().compose(ev.SelfComposedDpEvent(ev.LaplaceDpEvent(2.0), 7))
    assert np.array_equal(ours.rdp, 7 * toy_rdp(ours.orders, 2.0))
    assert np.all(ours.rdp >= theirs.rdp) and np.any(ours.rdp > theirs.rdp)
    assert ours.get_epsilon(DELTA) >= theirs.get_epsilon(DELTA)


@pytest.mark.parametrize("door", ["pld", "rdp"])
def test_its_refusals_and_field_rules_are_every_doors(toy, door):
    """What the toy's ``from_dp_event`` refuses, each accountant refuses in its own error: a relation its
    analysis does not state (dp_accounting's UnsupportedEventError, the facet's message), a field out of its
    rule (the ValueError of base.event_fields naming ToyLaplaceDpEvent.scale); a zero scale is epsilon = inf."""
    from dp_accounting import NeighboringRelation, UnsupportedEventError

    from hockeystick.interop.dp_accounting import HockeystickRdpAccountant

    kind = HockeystickPLDAccountant if door == "pld" else HockeystickRdpAccountant
    special = kind(neighboring_relation=NeighboringRelation.REPLACE_SPECIAL)
    assert not special.supports(ToyLaplaceDpEvent(1.0))
    with pytest.raises(
        UnsupportedEventError,
        match=r"neighboring_relation must be `ADD_OR_REMOVE_ONE` or `REPLACE_ONE` for "
        r"`ToyLaplaceDpEvent`\. Found NeighboringRelation\.REPLACE_SPECIAL\.",
    ):
        special.compose(ToyLaplaceDpEvent(1.0))
    for bad in (-1.0, math.nan):
        with pytest.raises(ValueError, match=r"ToyLaplaceDpEvent\.scale must be finite and >= 0"):
            kind().compose(ToyLaplaceDpEvent(bad))
    assert kind().compose(ToyLaplaceDpEvent(0.0)).get_epsilon(DELTA) == math.inf
    assert math.isfinite(kind().compose(ToyLaplaceDpEvent(1.0)).get_epsilon(DELTA))


def test_the_rdp_accountant_refuses_an_event_no_registered_class_reads(toy):
    from dp_accounting import UnsupportedEventError

    from hockeystick.interop.dp_accounting import HockeystickRdpAccountant

    @attr.define(frozen=True)
    class UnreadDpEvent(ev.DpEvent):
        scale: float

    accountant = HockeystickRdpAccountant()
    assert not accountant.supports(UnreadDpEvent(1.0)) and accountant.supports(
        ToyLaplaceDpEvent(1.0)
    )
    with pytest.raises(UnsupportedEventError):
        accountant.compose(UnreadDpEvent(1.0))


def test_the_registry_refuses_a_second_class_of_the_name_and_names_the_closest_stage(toy):
    with pytest.raises(ValueError, match="mechanism name 'toy_laplace' is registered already"):

        @dataclass(frozen=True)
        class Impostor(Mechanism):
            name: ClassVar[str] = NAME

            def grid_pld(self, h: float) -> PrivacyLossDistribution:
                return laplace(1.0, value_discretization_interval=h)

    assert registry.mechanism_class(NAME) is toy
    with pytest.raises(ValueError, match="did you mean 'toy_laplace'"):
        registry.stage_entry("toy_laplase")
    # dp_accounting's Laplace event is the package's Laplace mechanism's, not the toy's
    assert registry.dp_event_class(ev.LaplaceDpEvent(1.0)) is registry.mechanism_class("laplace")
    assert registry.dp_event_class(ToyLaplaceDpEvent(1.0)) is toy


@attr.define(frozen=True)
class BareLaplaceDpEvent(ev.DpEvent):
    """The event of a mechanism registered with its event alone (no reach, no curve, no sampled pair)."""

    scale: float


@pytest.fixture
def bare() -> Iterator[type[Mechanism]]:
    """The how-to's step 3 without its optional facets: the adapter's defaults for each."""

    @dataclass(frozen=True)
    class BareLaplace(Mechanism):
        """The Laplace pair on the grid (``pld.laplace``), read from its event alone."""

        name: ClassVar[str] = "bare_laplace"
        dp_event: ClassVar[type | None] = BareLaplaceDpEvent
        scale: float

        @classmethod
        def from_dp_event(cls, event: BareLaplaceDpEvent, relation: str) -> BareLaplace:
            return cls(event.scale)

        def grid_pld(self, h: float) -> PrivacyLossDistribution:
            return laplace(self.scale, value_discretization_interval=h)

    yield BareLaplace
    registry.unregister("bare_laplace")


def test_without_its_facets_the_adapter_samples_its_curves_and_the_rdp_accountant_refuses_it(bare):
    """No ``poisson_sampled``: the adapter samples the mechanism's certified curves (its inner has no finite
    pair) where it samples Laplace's own pair; both brackets certified, so each lower side is below the other's
    upper side.  No ``rdp``: the RDP accountant refuses the event.  No ``loss_reach``: nothing refused by it."""
    from dp_accounting import UnsupportedEventError

    from hockeystick.interop.dp_accounting import HockeystickRdpAccountant

    def bracket(event: ev.DpEvent) -> tuple[float, float]:
        return HockeystickPLDAccountant().compose(event).get_epsilon_bracket(DELTA)

    lower, upper = bracket(ev.PoissonSampledDpEvent(0.1, BareLaplaceDpEvent(2.0)))
    ref_lower, ref_upper = bracket(ev.PoissonSampledDpEvent(0.1, ev.LaplaceDpEvent(2.0)))
    assert 0.0 < lower <= ref_upper and ref_lower <= upper
    assert (lower, upper) != (
        ref_lower,
        ref_upper,
    )  # not the mixture's pair: the generic sampled curves
    with pytest.raises(UnsupportedEventError):
        HockeystickRdpAccountant().compose(BareLaplaceDpEvent(2.0))


def test_without_its_largest_losses_the_pure_dp_door_reads_the_composed_profile(bare, monkeypatch):
    """No ``largest_losses``: epsilon at delta 0 from the composed profile, a lower side at most Laplace's
    exact 1 / scale and no finite upper side; with the facet, the exact value; with a positive
    ``delta_floor``, target delta 0 is refused naming the floor."""

    def bracket() -> tuple[float, float]:
        return HockeystickPLDAccountant().compose(BareLaplaceDpEvent(2.0)).get_epsilon_bracket(0.0)

    lower, upper = bracket()
    assert 0.4 < lower <= 0.5 and upper == math.inf
    monkeypatch.setattr(bare, "largest_losses", lambda self: both_ways(1 / Fraction(self.scale)))
    assert bracket() == (0.5, 0.5)
    monkeypatch.setattr(bare, "delta_floor", lambda self: 1e-3)
    with pytest.raises(
        ValueError, match=r"target_delta = 0 has no finite epsilon.*at least 0\.001"
    ):
        bracket()


def test_a_reach_that_is_not_a_number_is_refused_naming_the_facet(bare, monkeypatch):
    monkeypatch.setattr(bare, "loss_reach", lambda self: math.nan)
    with pytest.raises(ValueError, match=r"BareLaplace\.loss_reach\(\) must be a number >= 0"):
        HockeystickPLDAccountant().compose(BareLaplaceDpEvent(2.0))


def test_a_stated_reach_without_its_field_is_refused_naming_the_facet(bare, monkeypatch):
    monkeypatch.setattr(bare, "loss_reach", lambda self: 1.0 / self.scale)
    with pytest.raises(
        ValueError, match=r"BareLaplace\.dp_event_field must name the BareLaplaceDpEvent"
    ):
        HockeystickPLDAccountant().compose(BareLaplaceDpEvent(2.0))
