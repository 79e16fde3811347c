"""The dp_accounting adapters at the ends of an event's shape: a composition nested thousands deep (a run built
one ``compose`` at a time nests that way) is read without recursion, or refused naming its depth and the fix
where an analysis walks it recursively; 2^53 runs past the PLD's loss grid answer by the RDP conversion with an
AccuracyNotMetWarning, not the grid's refusal."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("dp_accounting")
from dp_accounting import dp_event as E  # noqa: E402

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant, HockeystickRdpAccountant  # noqa: E402
from hockeystick.pld.refine.unmet import AccuracyNotMetWarning  # noqa: E402

DEPTH = 3000  # past Python's default recursion limit (1000) thrice over


def _nested(depth: int, leaf: E.DpEvent) -> E.DpEvent:
    event = leaf
    for _ in range(depth):
        event = E.ComposedDpEvent([event, leaf])
    return event


def test_a_composition_nested_thousands_deep_is_the_flat_composition():
    leaf = E.GaussianDpEvent(10.0)
    nested = HockeystickPLDAccountant().compose(_nested(DEPTH, leaf)).get_epsilon_bracket(1e-5)
    flat = (
        HockeystickPLDAccountant()
        .compose(E.ComposedDpEvent([leaf] * (DEPTH + 1)))
        .get_epsilon_bracket(1e-5)
    )
    counted = HockeystickPLDAccountant().compose(leaf, DEPTH + 1).get_epsilon_bracket(1e-5)
    assert nested == flat
    assert nested == pytest.approx(
        counted, rel=1e-9
    )  # the same Gaussian composition, merged another way
    assert 0 < nested[0] <= nested[1] < math.inf


@pytest.mark.parametrize(
    "build",
    [
        lambda: HockeystickPLDAccountant().compose(
            E.PoissonSampledDpEvent(0.1, _nested(DEPTH, E.GaussianDpEvent(10.0)))
        ),
        lambda: HockeystickRdpAccountant().compose(_nested(DEPTH, E.GaussianDpEvent(10.0))),
        lambda: HockeystickPLDAccountant().compose(_self_nested(DEPTH)),
    ],
    ids=["sampled-inner", "rdp-adapter", "self-composed"],
)
def test_where_an_analysis_walks_the_tree_recursively_the_depth_is_refused_by_name(build):
    with pytest.raises(
        ValueError, match=r"the event nests \d+ events deep .* flatten it: one ComposedDpEvent"
    ):
        build()


def _self_nested(depth: int) -> E.DpEvent:
    event: E.DpEvent = E.GaussianDpEvent(10.0)
    for _ in range(depth):
        event = E.SelfComposedDpEvent(event, 1)
    return event


def test_a_refused_nesting_leaves_the_accountant_as_it_was():
    acc = HockeystickPLDAccountant().compose(E.GaussianDpEvent(2.0), 3)
    before = acc.get_epsilon(1e-5)
    with pytest.raises(ValueError, match="nests"):
        acc.compose(E.PoissonSampledDpEvent(0.1, _nested(DEPTH, E.GaussianDpEvent(10.0))))
    assert acc.get_epsilon(1e-5) == before


def test_runs_past_the_pld_grid_answer_by_the_rdp_conversion_with_a_warning():
    """2^53 runs of a Laplace of scale 1e9: each run's loss (1e-9) is past a grid step, so the composed window
    passes 9e15 points; the answer is (0, the RDP adapter's epsilon), warned about, where it was a refusal."""
    event, runs = E.LaplaceDpEvent(1e9), 2**53
    acc = HockeystickPLDAccountant().compose(event, runs)
    rdp = HockeystickRdpAccountant().compose(event, runs)
    with pytest.warns(
        AccuracyNotMetWarning, match=r"cannot compose these 9007199254740992 runs .* RDP conversion"
    ):
        bracket = acc.get_epsilon_bracket(1e-5)
    assert bracket == (0.0, rdp.get_epsilon(1e-5)) and 0 < bracket[1] < 1
    with pytest.warns(AccuracyNotMetWarning, match="RDP conversion"):
        low, high = acc.get_delta_bracket(0.5)
    assert low == 0.0 and high == rdp.get_delta(0.5) and 0 < high < 1e-6
