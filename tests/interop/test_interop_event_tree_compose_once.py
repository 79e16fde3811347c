"""The adapter's ``compose`` builds an event's plan once: dp_accounting's ``compose`` checks the event
(``_maybe_compose`` without composing), then composes it, and the plan the check built is the one
composed.  Whatever was checked before, what is composed is the event given to ``compose``."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dp_accounting")

from dp_accounting import dp_event as E  # noqa: E402
from dp_accounting.privacy_accountant import UnsupportedEventError  # noqa: E402

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant  # noqa: E402

from ..dp_accounting_pld import random_tree  # noqa: E402

DELTA = 1e-6
SAMPLED = E.PoissonSampledDpEvent(0.05, E.GaussianDpEvent(1.5))
LAPLACE = E.LaplaceDpEvent(3.0)


def test_a_checked_event_is_not_composed_in_place_of_the_one_given():
    checked_first = HockeystickPLDAccountant()
    assert checked_first.supports(SAMPLED)  # a check alone composes nothing
    checked_first.compose(LAPLACE)
    alone = HockeystickPLDAccountant().compose(LAPLACE)
    assert checked_first.get_epsilon_bracket(DELTA) == alone.get_epsilon_bracket(DELTA)


def test_one_event_composed_twice_is_its_two_runs():
    twice = HockeystickPLDAccountant().compose(SAMPLED).compose(SAMPLED)
    counted = HockeystickPLDAccountant().compose(SAMPLED, 2)
    assert twice.get_epsilon_bracket(DELTA) == counted.get_epsilon_bracket(DELTA)
    # and against a fresh plan built from the event twice over (nothing cached across accountants)
    nested = HockeystickPLDAccountant().compose(E.SelfComposedDpEvent(SAMPLED, 2))
    assert twice.get_epsilon_bracket(DELTA) == nested.get_epsilon_bracket(DELTA)


@pytest.mark.parametrize("seed", [3, 16, 38])
def test_a_tree_composed_in_parts_reads_as_composed_whole(seed):
    tree = random_tree(np.random.default_rng(seed))
    parts = tree.events if isinstance(tree, E.ComposedDpEvent) else [tree]
    acc = HockeystickPLDAccountant()
    for part in parts:
        acc.compose(part)
    whole = HockeystickPLDAccountant().compose(tree)
    assert acc.get_epsilon_bracket(DELTA) == whole.get_epsilon_bracket(DELTA)


def test_an_unsupported_event_is_still_refused_and_composes_nothing():
    acc = HockeystickPLDAccountant().compose(LAPLACE)
    before = acc.get_epsilon_bracket(DELTA)
    with pytest.raises(UnsupportedEventError):
        acc.compose(E.UnsupportedDpEvent())
    assert acc.get_epsilon_bracket(DELTA) == before
