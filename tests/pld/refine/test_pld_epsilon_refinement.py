"""The core's epsilon refinement (cpp/include/hockeystick/pld/refine/epsilon_refinement.hpp, bound as
``_core.pld_refine.refine_epsilon``): its grids are the ones the package's rules ask (``StartGrid.first``,
``NextGrid.next_interval``, ``within_window``) for the same widths, and driven by the package's fixed-grid brackets
it returns a certified bracket that meets the accuracy and holds the exact epsilon of one round (mpmath, 50
digits)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import cast

import mpmath as mp
import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.pld.refine.grid_start import StartGrid, grid_policy, within_window
from hockeystick.pld.refine.points import Refinement

from .numpy_next_grid import NextGrid


def _q(x: mp.mpf) -> mp.mpf:
    return mp.erfc(x / mp.sqrt(2)) / 2


def subsampled_gaussian_delta(sigma: float, q: float, eps: mp.mpf) -> mp.mpf:
    """delta(eps) of one round of the Poisson-subsampled Gaussian (sensitivity 1), the larger over add and remove.

    Remove: P = (1 - q) N(0, s^2) + q N(1, s^2) against Q = N(0, s^2); the loss log(1 - q + q e^{(2x - 1)/(2 s^2)})
    rises in x, above eps from x* = s^2 log((e^eps - 1 + q) / q) + 1/2, so delta = P(X > x*) - e^eps Q(X > x*).
    Add: P = N(0, s^2) against Q the mixture; the loss is above eps below x** = s^2 log((e^-eps - 1 + q) / q) + 1/2
    (none where e^-eps <= 1 - q)."""
    s, q_, e = mp.mpf(sigma), mp.mpf(q), mp.exp(eps)
    x = s**2 * mp.log((e - 1 + q_) / q_) + mp.mpf(1) / 2
    remove = (1 - q_) * _q(x / s) + q_ * _q((x - 1) / s) - e * _q(x / s)
    add = mp.mpf(0)
    if 1 / e > 1 - q_:
        y = s**2 * mp.log((1 / e - 1 + q_) / q_) + mp.mpf(1) / 2
        add = (1 - _q(y / s)) - e * ((1 - q_) * (1 - _q(y / s)) + q_ * (1 - _q((y - 1) / s)))
    return max(remove, add)


def subsampled_gaussian_epsilon(sigma: float, q: float, delta: float) -> float:
    """The exact epsilon at delta of one round (bisection on the decreasing delta(eps), 50 digits)."""
    with mp.workdps(50):
        lo, hi = mp.mpf(0), mp.mpf(1)
        while subsampled_gaussian_delta(sigma, q, hi) > delta:
            hi *= 2
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if subsampled_gaussian_delta(sigma, q, mid) > delta else (lo, mid)
        return float(hi)


def fixed_grid_bracket(
    sigma: float, q: float, rounds: int, delta: float, asked: list[float]
) -> Callable[[float], tuple[float, float]]:
    """The package's certified bracket on grid h (value_discretization_interval=h), recording each h asked."""

    def bracket_at(h: float) -> tuple[float, float]:
        asked.append(h)
        pld = SubsampledGaussianPLD(
            sigma=sigma, sampling_rate=q, rounds=rounds, value_discretization_interval=h
        )
        lo, up = cast("tuple[float, float]", pld.epsilon(delta, bound="both"))
        return float(lo), float(up)

    return bracket_at


@pytest.mark.parametrize(
    ("sigma", "q", "delta"), [(1.0, 0.01, 1e-5), (0.7, 0.2, 1e-6), (2.0, 0.05, 1e-3)]
)
def test_one_round_bracket_holds_the_exact_epsilon_and_meets_the_accuracy(
    sigma: float, q: float, delta: float
) -> None:
    asked: list[float] = []
    accuracy = 1e-3
    lo, up, h, grids, met = _core.pld_refine.refine_epsilon(
        sigma,
        q,
        1.0,
        1.0,
        delta,
        accuracy,
        bracket_at=fixed_grid_bracket(sigma, q, 1, delta, asked),
        policy=grid_policy(),
    )
    truth = subsampled_gaussian_epsilon(sigma, q, delta)
    assert lo <= truth <= up
    assert met and up - lo <= accuracy and grids == len(asked) and h == asked[-1]


@pytest.mark.parametrize("relative", [0.0, 1e-4])
def test_the_grids_are_the_ones_the_package_rules_ask_for_the_same_widths(relative: float) -> None:
    """Widths c h^2 + f (a synthetic bracket around a centre, its lower side positive on every grid, so every step
    after the first is fitted): the loop's grids are StartGrid.first (epsilon) within the
    window, then NextGrid.next_interval's first step and fitted steps, each within the window; it stops where the
    package's rules ask no finer grid (the floor f at half the accuracy or more).  With a relative accuracy the
    widths are read in the tolerance max(accuracy, relative eps)'s units (the many-points rules' width, the core's
    epsilon_width): at eps about 1000 and relative 1e-4, a hundredth of the absolute ones, so the widths given are a
    hundred times the absolute case's."""
    point, delta, accuracy = (1.0, 0.01, 1e4, 1.0), 1e-5, 1e-3
    counts = []
    scale = 1.0 if relative == 0.0 else 100.0  # widths of the same size in the tolerance's units
    centre = 10.0 if relative == 0.0 else 1000.0
    for c, f in ((40.0, 0.0), (3e4, 1e-4), (2e5, 4e-4), (5e5, 6e-4), (1e3, 2e-3)):
        asked: list[float] = []

        def bracket_at(
            h: float, c: float = scale * c, f: float = scale * f, asked: list[float] = asked
        ) -> tuple[float, float]:
            asked.append(h)
            width = c * h * h + f
            return centre - width / 2, centre + width / 2

        def units(width: float) -> float:  # the width in the tolerance's units, as numpy reads it
            if relative == 0.0:
                return width
            return width * (accuracy / max(accuracy, relative * (centre + width / 2)))

        lo, up, _, _, met = _core.pld_refine.refine_epsilon(
            *point,
            delta,
            accuracy,
            bracket_at=bracket_at,
            policy=grid_policy(),
            relative_accuracy=relative,
        )
        # the package's rules, replayed on the same widths
        rules, h = (
            NextGrid(accuracy),
            within_window(
                point,
                StartGrid(accuracy, "relative", relative).first(
                    point, np.array([delta]), "epsilon"
                ),
            ),
        )
        expected, before = [h], None
        while True:
            width = np.array([units(scale * (c * h * h + f))])
            nxt = rules.next_interval(
                h, width, before, np.zeros(1, bool), None, None, np.array([delta]), point[1]
            )
            if nxt is not None and nxt < h:
                nxt = within_window(point, nxt)
            if nxt is None or nxt >= h:
                break
            before, h = (h, np.array([centre]), np.array([centre]), width), nxt
            expected.append(h)
        assert asked == expected, (c, f)
        tolerance = max(accuracy, relative * up)
        assert met == (units(up - lo) <= accuracy)
        assert met or scale * f >= 0.5 * tolerance or asked[-1] <= 1e-5
        counts.append(len(asked))
    assert max(counts) >= 3  # a fitted step asked a grid


def test_a_grid_with_a_lower_side_0_is_not_fitted_through() -> None:
    """A blind grid (lower side 0 while too wide) gives no h^2 law: the step after it is a first step's."""
    asked: list[float] = []

    def bracket_at(h: float) -> tuple[float, float]:
        asked.append(h)
        return (0.0, 0.01) if len(asked) == 1 else (0.005 - 2e5 * h * h, 0.005 + 2e5 * h * h)

    _core.pld_refine.refine_epsilon(
        1.0, 0.01, 1e4, 1.0, 1e-5, 1e-3, bracket_at=bracket_at, policy=grid_policy()
    )
    point, rules, none = (1.0, 0.01, 1e4, 1.0), NextGrid(1e-3), np.zeros(1, bool)
    width = np.array([4e5 * asked[1] ** 2])
    second = rules.next_interval(asked[1], width, None, none, None, None, np.array([1e-5]), 0.01)
    assert second is not None and len(asked) >= 3 and asked[2] == within_window(point, second)


def test_the_bracket_is_the_intersection_of_every_grids_bracket() -> None:
    """Each grid's bracket holds, so the loop keeps the largest lower and the smallest upper side: a first grid
    whose lower side is tight leaves an intersection narrower than the last grid's own."""
    returned: list[tuple[float, float]] = []

    def bracket_at(h: float) -> tuple[float, float]:
        w = 3e5 * h * h
        returned.append((1.0 - 1e-9, 1.0 + 2 * w) if not returned else (1.0 - w, 1.0 + w))
        return returned[-1]

    lo, up, _, grids, _ = _core.pld_refine.refine_epsilon(
        1.0, 0.01, 1e4, 1.0, 1e-5, 1e-3, bracket_at=bracket_at, policy=grid_policy()
    )
    assert grids == len(returned) >= 2
    assert lo == max(b[0] for b in returned) and up == min(b[1] for b in returned)
    assert up - lo < returned[-1][1] - returned[-1][0]


def test_an_error_in_the_bracket_propagates() -> None:
    def bracket_at(h: float) -> tuple[float, float]:
        raise ValueError(f"no grid {h}")

    with pytest.raises(ValueError, match="no grid"):
        _core.pld_refine.refine_epsilon(
            1.0, 0.01, 1e4, 1.0, 1e-5, 1e-3, bracket_at=bracket_at, policy=grid_policy()
        )
    assert math.isfinite(grid_policy().finest_interval)


@pytest.mark.parametrize(
    ("sigma", "q", "rounds", "sensitivity", "delta", "accuracy"),
    [
        (1.0, 0.01, 10_000, 1.0, 1e-5, 1e-3),  # one grid
        (0.9, 0.02, 3000, 1.0, 1e-6, 1e-4),  # a fitted step or more
        (
            2.0,
            0.05,
            500,
            2.0,
            1e-10,
            1e-3,
        ),  # sensitivity 2; delta below DIRECT_FIRST_DELTA: direct bins first
        (
            1.2,
            3e-4,
            20_000,
            1.0,
            1e-5,
            1e-3,
        ),  # q below the first grid: two-resolution blocks of rounds
        (
            2.0,
            0.2,
            200,
            1.0,
            1e-12,
            1e-4,
        ),  # charge-limited: the fit through two grids stops (unmet)
    ],
)
def test_each_point_of_an_array_is_the_core_loops_bracket_asked_alone(
    monkeypatch: pytest.MonkeyPatch,
    sigma: float,
    q: float,
    rounds: int,
    sensitivity: float,
    delta: float,
    accuracy: float,
) -> None:
    """``SubsampledGaussianPLD(accuracy=a).epsilon(delta)`` refines every point through the core's loop
    (``Refinement.core_refined``, point by point), with a relative accuracy too: a point asked beside another gets
    the bracket it gets asked alone, bit for bit (the package's many-points loop, which read an array before, gave
    the core loop's brackets bit for bit on these points; it is delta's alone now)."""
    refined: list[tuple[float, float]] = []
    core_refined = Refinement.core_refined

    def recorded(self: Refinement, point, at: float, threads: int):  # type: ignore[no-untyped-def]
        refined.append((point[0], at))
        return core_refined(self, point, at, threads)

    monkeypatch.setattr(Refinement, "core_refined", recorded)
    for relative in (0.0, 1e-3):
        settings = {"sensitivity": sensitivity, "accuracy": accuracy, "relative_accuracy": relative}
        alone = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds, **settings)
        beside = SubsampledGaussianPLD(
            sigma=[sigma, 1.5 * sigma], sampling_rate=q, rounds=rounds, **settings
        )
        lower, upper = alone.epsilon(delta, bound="both")
        lowers, uppers = beside.epsilon(delta, bound="both")
        assert (float(lowers[0]), float(uppers[0])) == (float(lower), float(upper))
    assert {(sigma, delta), (1.5 * sigma, delta)} <= set(refined)
