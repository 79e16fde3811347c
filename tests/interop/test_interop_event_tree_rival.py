"""The house rule on dp_accounting's event trees: the default adapter's upper epsilon is never above
dp_accounting's default (its ``PLDAccountant``: the pessimistic PLD on the 1e-4 grid), live,
wherever that default is at or above our certified lower side.

Epsilon at delta and delta at epsilon alike. The trees are ``tests/dp_accounting_pld.py``'s seeded random trees that the benchmark
(bench/bench_interop.py, delta 1e-6) runs: on dp_accounting's own grid our pessimistic masses are
its pessimistic estimate's, so the certified side, carrying the composition's round-off charge, lay
above it by up to 1.7e-7 (seed 24: 26 compositions of two Laplaces) on seeds 8, 16, 23, 24, 27, 35,
and on 47, 55, 101, 118 (rounds of Poisson-subsampled Gaussians, where the charge alone set the
upper side) on a finer grid read with that charge.  Where dp_accounting's estimate lies below our
certified lower side it is below the truth, and no certified upper side can reach it; the lower
side is checked against it too (a certified lower side above their upper estimate by more than its
round-off would be a bug on our side).
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

pytest.importorskip("dp_accounting")

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant  # noqa: E402

from ..dp_accounting_pld import random_tree, their_pld  # noqa: E402

DELTA = 1e-6
SEEDS = [
    8,
    16,
    23,
    24,
    27,
    35,
    *(pytest.param(seed, marks=pytest.mark.slow) for seed in (47, 55, 101, 118)),
]
# dp_accounting's estimate carries its own FFT round-off, uncharged: far below the 1e-8 the
# sides above stood from it
THEIR_ROUND_OFF = 1e-12


def _their_default(tree) -> tuple[float, float]:
    """dp_accounting's ``PLDAccountant`` default (its pessimistic PLD on the 1e-4 grid): its epsilon at DELTA,
    and its delta at that epsilon (0 and 0 where the tree composes nothing)."""
    logging.getLogger().setLevel(logging.ERROR)  # its optimistic side warns; only pessimistic here
    pld = their_pld(tree, 1, True)
    if pld is None:
        return 0.0, 0.0
    epsilon = float(pld.get_epsilon_for_delta(DELTA))
    return epsilon, float(pld.get_delta_for_epsilon(epsilon))


@pytest.mark.parametrize("seed", SEEDS)
def test_the_default_upper_sides_are_at_most_dp_accountings_default(seed):
    """The rule for ``get_epsilon_bracket`` at DELTA, and for ``get_delta_bracket`` at the epsilon where
    dp_accounting's default reads DELTA; their PLD (most of the test's CPU) built once for both."""
    tree = random_tree(np.random.default_rng(seed))
    theirs_epsilon, theirs_delta = _their_default(tree)
    ours = HockeystickPLDAccountant().compose(tree)
    lower, upper = ours.get_epsilon_bracket(DELTA)
    assert lower <= theirs_epsilon + THEIR_ROUND_OFF, (seed, lower, theirs_epsilon)
    if theirs_epsilon >= lower:
        assert upper <= theirs_epsilon, (seed, upper, theirs_epsilon, upper - theirs_epsilon)
    lower, upper = ours.get_delta_bracket(theirs_epsilon)
    assert lower <= theirs_delta * (1.0 + 1e-9), (seed, lower, theirs_delta)
    if theirs_delta >= lower:
        assert upper <= theirs_delta, (seed, upper, theirs_delta, upper / theirs_delta - 1.0)
