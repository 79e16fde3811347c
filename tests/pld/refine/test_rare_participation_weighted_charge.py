"""The tilted composition's round-off charge of the weighted sum its curve reads
(``compose.tilted.tilted_weights``, the core's ``_core.pld_reads.tilted_window_charge``), which lets
rare participation's long windows be read tightly at small delta.

The untilted curve at x weighs the tilted window's errors by w_j = (1 - e^{-h j}) e^{-theta j}, j
the grid distance above x.  Their sum and Euclidean norm, in closed form, must bound the weights
summed entry by entry (math.fsum over the window's points) and stay within a few per cent of them
(a bound far above would charge for nothing).  On a long window the core's weighted charge must be
at least the charge of the weights summed one by one over the window's points above x, within 2 %
of theirs summed on to e^{-50}, at most the plain charge (every mass above x at weight 1) and far
below it; the sides it certifies must still hold against the exact curve
(tests/pld/compose/test_pld_tilted_composition.py reads them at 50 digits), here against the rare
run's independent references."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick.pld.compose import tilted
from hockeystick.pld.grid.pmf import GridPMF
from hockeystick.pld.reads.max_of_outputs import max_of_outputs_epsilon
from hockeystick.pld.refine import question

from ..compose.test_tilted_read_core import (
    untilted_profile,
    window_charge,
    written_lower_epsilon,
    written_side,
)


def charge_plainly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tilted compositions read by the written-out formula of their side and searched by the
    written-out lower epsilon search (tests/pld/compose/test_tilted_read_core.py, which holds the
    core's read and search to them bit for bit), their window's charge plain: every mass above the
    argument at weight 1 (``GridPMF.charge_at``, ``plain_charge``) rather than the weighted sum.
    Each composition's untilted suffix sums are built once."""
    untilted: dict[int, tuple[tilted.TiltedComposition, tuple[object, int]]] = {}

    def delta(self: tilted.TiltedComposition, eps: float) -> float:
        if id(self) not in untilted:  # the composition kept beside its sums: its id stays its own
            untilted[id(self)] = (self, untilted_profile(self))
        x = float(self.window.curve_argument(np.array([float(eps)]))[0])
        return written_side(self, x, untilted[id(self)][1], plain_charge)  # type: ignore[arg-type]

    monkeypatch.setattr(tilted.TiltedComposition, "delta", delta)
    monkeypatch.setattr(
        tilted,
        "lower_epsilon",
        lambda c, d, near, start=0.0, points=64, steps=60: written_lower_epsilon(
            c, d, near, (start, points, steps), side=delta
        ),
    )


def plain_charge(c: tilted.TiltedComposition, x: float) -> float:
    """The round-off charge of every mass of ``c``'s window above x at weight 1."""
    return float(c.window.charge_at(np.array([x]))[0])


def summed_weights(position: float, theta: float, h: float, count: int) -> tuple[float, float]:
    """The sum and the norm of the weights at the ``count`` grid indices above ``position``,
    summed entry by entry."""
    j0 = math.floor(position) + 1.0 - position
    j = j0 + np.arange(count, dtype=np.float64)
    w = -np.expm1(-h * j) * np.exp(-theta * j)
    return math.fsum(w.tolist()), math.sqrt(math.fsum((w * w).tolist()))


@pytest.mark.parametrize("seed", range(6))
def test_the_closed_form_bounds_the_weights_summed_one_by_one(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(20):
        lam = 10 ** rng.uniform(-1.0, 3.0)
        h = 10 ** rng.uniform(-4.0, -2.0)
        theta = lam * h  # >= 1e-5: 5e6 points reach e^{-50}
        position = float(rng.uniform(-1e6, 1e6))
        if rng.random() < 0.3:
            position = float(round(position))  # x on a grid point: j0 = 1
        count = int(50.0 / theta) + 1  # past it e^{-theta j} < e^{-50}
        exact_sum, exact_norm = summed_weights(position, theta, h, count)
        total, norm = tilted.tilted_weights(position, theta, h)
        assert exact_sum <= total <= 1.02 * exact_sum + 1e-300
        assert exact_norm <= norm <= 1.02 * exact_norm + 1e-300


def test_unreadable_arguments_give_no_weighted_bound() -> None:
    for args in ((math.inf, 1e-3, 1e-4), (0.5, 0.0, 1e-4), (0.5, 1e-3, 0.0), (math.nan, 1.0, 1.0)):
        assert tilted.tilted_weights(*args) == (math.inf, math.inf)


def test_on_a_long_window_the_weighted_charge_is_far_below_the_plain_one() -> None:
    # a round of losses -2h .. 3h, 20 000 rounds under the tilt 5 h: a window of ~2800 points,
    # ~570 above the read
    h = 1e-3
    pmf = GridPMF(-2, h, np.array([0.1, 0.3, 0.3, 0.2, 0.07, 0.03]), 0.0, pessimistic=True)
    composed = tilted.compose_tilted([(pmf, 20000)], 5.0 * h, pessimistic=True)
    x = float(np.sum(pmf.p * (pmf.k_lo + np.arange(pmf.p.size)))) * 20000 * h + 1.0
    plain = plain_charge(composed, x)
    weighted = window_charge(composed, x)
    # the weights summed one by one: at the window's grid indices above x, whose charge the core's
    # bounds (its closed forms sum them to infinity), and on to where e^{-theta j} < e^{-50}, within
    # 2 % of it
    w = composed.window

    def summed_charge(count: int) -> float:
        total, norm = summed_weights(x / h, composed.theta, h, count)
        return float(w.charge_of_weighted_sum(np.array([total]), np.array([norm]))[0])

    above = int(w.k_lo) + int(w.p.size) - 1 - math.floor(x / h)
    assert 0.0 < summed_charge(above) <= weighted
    assert weighted <= 1.02 * summed_charge(int(50.0 / composed.theta) + 1)
    assert weighted <= plain
    assert weighted < 0.1 * plain
    # above the window (or at an infinite argument) no mass weighs: no charge, and no overflow
    for far in (composed.cut + h, 1e308, math.inf):
        assert window_charge(composed, far) == 0.0
        assert composed.side_at(far) >= composed.p_inf


@pytest.mark.slow
def test_the_rare_runs_lower_side_holds_below_its_references_and_rises(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """sigma 0.6, q 1e-5, 10^6 rounds, delta 1e-10: the aligned cells' lower side, charged by the
    weighted sum, stays below the RDP conversion's certified upper bound and above the max-of-outputs
    test's certified lower bound, and rises by at least half the default tolerance over the same
    read charged plainly (every mass above eps at weight 1: ~0.7 % of delta here)."""
    from hockeystick.pld.question.tilted_question import MAX_POINTS

    from .aligned_core import aligned_lower_epsilon
    from .aligned_reference import aligned_epsilon

    sigma, q, rounds, delta = 0.6, 1e-5, 10**6, 1e-10
    rdp = float(question.rdp_upper((sigma, q, float(rounds), 1.0), np.array([delta]))[0])
    near = 1.0783  # an upper side of the run (the default's fine read)

    h = question.FINE_INTERVAL / 2.0
    weighted = aligned_lower_epsilon(sigma, q, rounds, delta, near, h, MAX_POINTS)  # the core's
    assert weighted == aligned_epsilon(sigma, q, rounds, delta, near, h, MAX_POINTS)
    charge_plainly(monkeypatch)  # the reference's reads charged plainly
    plain = aligned_epsilon(sigma, q, rounds, delta, near, h, MAX_POINTS)
    assert max_of_outputs_epsilon([((sigma, q, 1.0), rounds)], delta) < plain
    assert plain + 0.5 * question.default_tolerance(near) <= weighted <= rdp
