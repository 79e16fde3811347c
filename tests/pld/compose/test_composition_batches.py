"""``_core.pld_compose.composition_batches`` (pld/compose/grouping.hpp): the batches compositions are composed in,
by tail, the tails in order of their first item, then by grid step; the package's ``compose_all`` reads it by tail,
``compose_many`` by grid step, and the core's screened delta step (refine/screened_step.hpp) by both."""

from __future__ import annotations

import pytest

from hockeystick import _core

batches = _core.pld_compose.composition_batches


def test_items_batch_by_tail_then_by_step_in_order_of_their_first_item():
    # neither the tails nor the steps come in ascending order, and a tail's first step is not the whole list's: by
    # step first, or by sorted keys, the batches differ
    tails = [1e-10, 1e-15, 1e-10, 1e-15, 1e-10]
    steps = [1e-3, 1e-4, 1e-4, 1e-3, 1e-3]
    assert batches(tails=tails, steps=steps) == [[0, 4], [2], [1], [3]]


def test_one_key_alone_batches_by_it():
    assert batches(tails=[2.0, 1.0, 2.0, -0.0, 0.0]) == [[0, 2], [1], [3, 4]]
    assert batches(steps=[3.0, 3.0, 1.0]) == [[0, 1], [2]]
    assert batches() == []


def test_a_tail_and_a_step_per_item():
    with pytest.raises(ValueError, match="one tail and one grid step per item"):
        batches(tails=[1.0], steps=[1.0, 2.0])
