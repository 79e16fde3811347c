"""One point's delta at one epsilon to a relative accuracy through the core's loop
(cpp/include/hockeystick/pld/refine/delta_refinement.hpp, bound as ``_core.pld_refine.refine_delta``; the package's
``SubsampledGaussianPLD(accuracy=a).delta(eps)`` of one point goes through it on the core's delta step reads,
``Refinement.one_delta``, with no Python call inside):

- the bracket is the core's many-points loop's (``Refinement.core_deltas``, pld/refine/points_delta_source.hpp) bit
  for bit: one grid, two grids, sensitivity 2, q below the grid, a delta under DELTA_FLOOR, and delta near 1 where
  the complement's bracket is taken (on the last grid; the many-points loop recomposes the complement alone on the
  next);
- its grids are the ones the package's rules ask (``StartGrid.first``, ``NextGrid.next_interval``,
  ``within_window``) for the same widths;
- it holds the exact delta of one round (mpmath, 50 digits) and meets the relative accuracy.
"""

from __future__ import annotations

from typing import cast

import mpmath as mp
import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.pld.question import default_reads
from hockeystick.pld.refine import constants
from hockeystick.pld.refine.grid_rules import next_grid_tuning
from hockeystick.pld.refine.grid_start import StartGrid, grid_policy, within_window
from hockeystick.pld.refine.points import Refinement

from .numpy_next_grid import NextGrid
from .test_pld_epsilon_refinement import subsampled_gaussian_delta


def delta_bracket(
    sigma: float, q: float, rounds: int, sensitivity: float, eps: float, accuracy: float
):
    pld = SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=rounds, sensitivity=sensitivity, accuracy=accuracy
    )
    lo, up = cast("tuple[float, float]", pld.delta(eps, bound="both"))
    return float(lo), float(up)


@pytest.mark.parametrize(
    ("sigma", "q", "rounds", "sensitivity", "eps", "accuracy"),
    [
        (2.0, 0.1, 1000, 2.0, 0.5, 1e-3),  # sensitivity 2
        (0.8, 0.05, 300, 1.0, 2.0, 1e-3),  # a second grid
        (1.2, 3e-4, 20_000, 1.0, 0.3, 1e-2),  # q below the grid; delta under DELTA_FLOOR
        (1.0, 0.02, 100, 1.0, 3.0, 1e-4),  # a small delta, a second grid
        (0.8, 0.2, 2000, 1.0, 8.0, 1e-10),  # delta near 1: the complement alone on the second grid
    ],
)
def test_one_point_through_the_core_loop_is_the_many_points_loops_bracket_bit_for_bit(
    monkeypatch: pytest.MonkeyPatch,
    sigma: float,
    q: float,
    rounds: int,
    sensitivity: float,
    eps: float,
    accuracy: float,
) -> None:
    taken: list[bool] = []
    one_delta = Refinement.one_delta

    def recorded(self: Refinement, *args: object) -> bool:
        taken.append(one_delta(self, *args))  # type: ignore[arg-type]
        return taken[-1]

    many: list[int] = []
    core_deltas = Refinement.core_deltas

    def seen(self: Refinement, *args: object) -> object:
        many.append(1)
        return core_deltas(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Refinement, "one_delta", recorded)
    monkeypatch.setattr(Refinement, "core_deltas", seen)
    # every eps refined: the front door answers one whose default bracket meets the accuracy by it
    # (default_reads.accuracy_delta_brackets), which would leave the loop unread
    monkeypatch.setattr(
        default_reads, "delta_within", lambda lo, up, accuracy: np.zeros(np.shape(lo), bool)
    )
    core = delta_bracket(sigma, q, rounds, sensitivity, eps, accuracy)
    assert taken == [True] and not many  # the one-point loop alone
    monkeypatch.setattr(Refinement, "one_delta", lambda self, *args: False)
    assert core == delta_bracket(sigma, q, rounds, sensitivity, eps, accuracy)
    assert many  # read by the many-points loop


def test_the_grids_are_the_ones_the_package_rules_ask_for_the_same_widths() -> None:
    """Brackets [1e-6, 1e-6 (1 + c h^2 + f)]: the loop's grids are StartGrid.first (delta) within the
    window, then NextGrid.next_interval's first step and fitted steps, each within the window."""
    point, accuracy = (1.0, 0.01, 1e4, 1.0), 1e-3
    counts = []
    for c, f in ((40.0, 0.0), (760.0, 4e-4), (3e3, 1e-4), (2e5, 4e-4), (1e3, 2e-3)):
        asked: list[float] = []

        def bracket_at(
            h: float, c: float = c, f: float = f, asked: list[float] = asked
        ) -> tuple[float, float]:
            asked.append(h)
            return 1e-6, 1e-6 * (1.0 + c * h * h + f)

        _core.pld_refine.refine_delta(
            sigma=point[0],
            q=point[1],
            rounds=point[2],
            sensitivity=point[3],
            accuracy=accuracy,
            bracket_at=bracket_at,
            delta_floor=constants.DELTA_FLOOR,
            policy=grid_policy(),
            tuning=next_grid_tuning(),
        )
        rules = NextGrid(accuracy)
        h = within_window(
            point, StartGrid(accuracy, "relative").first(point, np.array([1.0]), "delta")
        )
        expected, before = [h], None
        while True:
            up = 1e-6 * (1.0 + c * h * h + f)
            width = np.array([(up - 1e-6) / max(up, constants.DELTA_FLOOR)])
            nxt = rules.next_interval(
                h, width, before, np.zeros(1, bool), None, None, np.array([1.0]), point[1]
            )
            if nxt is not None and nxt < h:
                nxt = within_window(point, nxt)
            if nxt is None or nxt >= h:
                break
            before, h = (h, np.array([1e-6]), np.array([up]), width), nxt
            expected.append(h)
        assert asked == expected, (c, f)
        counts.append(len(asked))
    assert max(counts) >= 3  # a fitted step asked a grid


@pytest.mark.parametrize(
    ("sigma", "q", "eps"), [(1.0, 0.01, 0.5), (0.6, 0.3, 2.0), (3.0, 0.02, 0.01)]
)
def test_one_round_bracket_holds_the_exact_delta_and_meets_the_accuracy(
    sigma: float, q: float, eps: float
) -> None:
    lo, up = delta_bracket(sigma, q, 1, 1.0, eps, 1e-3)
    with mp.workdps(50):
        truth = float(subsampled_gaussian_delta(sigma, q, mp.mpf(eps)))
    assert lo <= truth <= up and (up - lo) / max(up, constants.DELTA_FLOOR) <= 1e-3
