"""The grid-and-tail policy in the core (cpp/include/hockeystick/pld/refine/grid_policy.hpp, ``_core.pld_refine``):
the start grid of an ``accuracy=`` refinement (``StartGrid.first``, the connect-the-dots model, with the ladder, the
span and the memory cap it reads) and the question tail (``refine.question.question_tail``) are the Python formulas
bit for bit.

The reference is the Python formulas as they stood before the policy moved into the core, kept here (``Reference``)
and nowhere else; they are compared over a grid of (sigma, q, T, delta, accuracy, relative accuracy) crossing every
branch (the span cap, the ladder's floor, the memory cap, the start below the sampling rate and its two limits, the
relative tolerance)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld.compose.fft import DEFAULT_TAIL
from hockeystick.pld.refine import constants, question
from hockeystick.pld.refine.grid_start import (
    StartGrid,
    finest_interval,
    grid_policy,
    ladder_rung,
    loss_span,
    within_window,
)

Point = tuple[float, float, float, float]


class Reference:
    """The Python grid policy as it was (grid_start.py and question.question_tail), the test's reference."""

    @staticmethod
    def loss_span(sigma: float, q: float, rounds: float, sensitivity: float) -> float:
        z = 8.5
        s = min(max(sigma / sensitivity, 1e-100), 1e100)
        one_round = float(
            np.logaddexp(math.log1p(-q), math.log(q) + (0.5 + z * s) / (s * s)) - math.log1p(-q)
        )
        spread = 2 * z * math.sqrt(rounds * q * q * math.expm1(min(1.0 / (s * s), 700.0)))
        return min(spread + 2 * one_round, rounds * one_round)

    @staticmethod
    def ladder_rung(h: float) -> float:
        finest = constants.FINEST_INTERVAL
        lowest = math.floor(2.0 * math.log2(constants.LOWEST_INTERVAL / finest) + 0.5)
        k = math.floor(2.0 * math.log2(h / finest) + 1e-9)
        return float(finest * 2.0 ** (max(k, lowest) / 2.0))

    @classmethod
    def finest_interval(cls, q: float) -> float:
        below = cls.ladder_rung(
            max(q / constants.BELOW_RATE_FINEST_DIVISOR, constants.LOWEST_INTERVAL)
        )
        return min(constants.FINEST_INTERVAL, below)

    @classmethod
    def within_window(cls, point: Point, h: float) -> float:
        least = min(cls.loss_span(*point) / constants.MAX_WINDOW, max(h, constants.COARSEST_START))
        if h >= least:
            return h
        k = math.ceil(2.0 * math.log2(least / constants.FINEST_INTERVAL) - 1e-9)
        return float(constants.FINEST_INTERVAL * 2.0 ** (max(k, 0) / 2.0))

    @staticmethod
    def default(accuracy: float) -> float:
        return max(
            constants.FINEST_INTERVAL,
            constants.COARSEST_INTERVAL * min(1.0, 0.8 * math.sqrt(accuracy / 4.2e-2)),
        )

    @classmethod
    def below_rate_start(cls, start: float, q: float, max_rate: float | None = None) -> float:
        top = constants.BELOW_RATE_START_MAX_RATE if max_rate is None else max_rate
        if q >= start or q > top or q <= constants.LOWEST_INTERVAL:
            return start
        below = cls.ladder_rung(q / constants.BELOW_RATE_MARGIN * (1.0 - 1e-9))
        return below if start <= constants.BELOW_RATE_START_MAX_REFINEMENT * below else start

    @classmethod
    def span_start(cls, point: Point, accuracy: float) -> float:
        span = cls.loss_span(*point) / constants.START_POINTS
        return cls.ladder_rung(max(cls.default(accuracy), min(constants.COARSEST_START, span)))

    @classmethod
    def first(
        cls,
        accuracy: float,
        delta_accuracy: str,
        relative: float,
        point: Point,
        x: np.ndarray,
        method: str,
    ) -> float:
        default = cls.default(accuracy)
        if method == "delta":
            start = cls.span_start(point, accuracy)
            if delta_accuracy != "epsilon":
                return start
            return cls.below_rate_start(
                start, point[1], constants.EPSILON_CRITERION_BELOW_RATE_MAX_RATE
            )
        if x.size == 0:
            return max(0.25 * default, constants.FINEST_INTERVAL)
        sigma, q, rounds, sensitivity = point
        s = min(max(sigma / sensitivity, 1e-100), 1e100)
        spread = math.sqrt(rounds * q * q * math.expm1(min(1.0 / (s * s), 700.0)))
        z = math.sqrt(-2.0 * math.log(float(np.min(x))))
        h = math.sqrt(7.0 * 0.9 * accuracy / (rounds * (1.0 + z / max(spread, 1e-300))))
        if relative > 0:
            zs = np.sqrt(-2.0 * np.log(x))
            with np.errstate(over="ignore"):
                tolerance = np.maximum(accuracy, relative * (spread * spread / 2.0 + zs * spread))
                h = float(
                    np.min(
                        np.sqrt(7.0 * 0.9 * tolerance / (rounds * (1.0 + zs / max(spread, 1e-300))))
                    )
                )
        return cls.below_rate_start(
            min(max(h, 0.25 * default, constants.FINEST_INTERVAL), constants.COARSEST_INTERVAL), q
        )

    @staticmethod
    def question_tail(rounds: float, delta: float, share: float) -> float:
        return float(min(DEFAULT_TAIL, max(question.SMALLEST_TAIL, share * delta / rounds)))


SIGMAS = (0.05, 0.4, 0.8, 1.0, 2.5, 20.0)
RATES = (1e-8, 3e-6, 8.86e-4, 2e-3, 0.01, 0.3, 0.999)
ROUNDS = (1.0, 7.0, 1e3, 1e4, 1e6, 1e9)
SENSITIVITIES = (1.0, 4.0)
POINTS = [p for p in itertools.product(SIGMAS, RATES, ROUNDS, SENSITIVITIES)]
DELTAS = (np.array([1e-5]), np.array([0.3, 1e-9]), np.array([1e-300, 1e-12, 1e-5]), np.empty(0))
ACCURACIES = (1e-6, 1e-3, 2.0)


def test_loss_span_ladder_window_and_finest_grid_are_the_formulas_bit_for_bit() -> None:
    for point in POINTS:
        assert loss_span(*point) == Reference.loss_span(*point), point
        for h in (3e-9, 1e-5, 7.3e-5, 1e-4, 2e-3, 0.5):
            assert within_window(point, h) == Reference.within_window(point, h), (point, h)
    for h in np.geomspace(1e-12, 10.0, 2001):
        assert ladder_rung(float(h)) == Reference.ladder_rung(float(h)), h
    for q in RATES + (1e-12, 8e-5, 1.0):
        assert finest_interval(q) == Reference.finest_interval(q), q


def test_start_grids_are_the_formulas_bit_for_bit() -> None:
    """``StartGrid.first`` by both methods, every delta_accuracy and relative tolerance, and ``span_start``."""
    for accuracy, relative, criterion in itertools.product(
        ACCURACIES, (0.0, 2.5e-4, 0.05), ("relative", "epsilon")
    ):
        start = StartGrid(accuracy, criterion, relative)
        assert start.first() == Reference.default(accuracy)
        for point in POINTS:
            assert start.span_start(point) == Reference.span_start(point, accuracy), point
            for x in DELTAS:
                for method in ("delta", "epsilon"):
                    got = start.first(point, x, method)
                    want = Reference.first(accuracy, criterion, relative, point, x, method)
                    assert got == want, (accuracy, relative, criterion, point, x, method)


def test_below_rate_start_meets_each_limit_as_the_formula_does() -> None:
    start = StartGrid(1e-3, "epsilon")
    for q in (
        *RATES,
        3.9e-3,
        4e-3,
        4.1e-3,
        constants.LOWEST_INTERVAL,
        2 * constants.LOWEST_INTERVAL,
    ):
        for h in (1e-7, 1e-5, 1e-4, 6.4e-4, 2e-3, 1.0):
            assert start.below_rate_start(h, q) == Reference.below_rate_start(h, q), (h, q)


def test_question_tail_in_the_core_is_the_package_formula_bit_for_bit() -> None:
    for rounds, delta, share in itertools.product(
        (1.0, 3.0, 1e4, 1e7, 1e15),
        (1e-300, 1e-12, 1e-5, 0.5),
        (question.TAIL_SHARE, question.TILTED_TAIL_SHARE),
    ):
        core = _core.pld_refine.question_tail(
            rounds,
            delta,
            share=share,
            default_tail=DEFAULT_TAIL,
            smallest_tail=question.SMALLEST_TAIL,
        )
        assert (
            core
            == Reference.question_tail(rounds, delta, share)
            == question.question_tail(rounds, delta, share)
        )


def test_a_patched_constant_is_followed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The policy reads the constants at call time: a test patching MAX_WINDOW moves the memory cap."""
    point = (1.0, 0.01, 1e3, 1.0)
    assert within_window(point, 1e-5) == 1e-5
    monkeypatch.setattr(constants, "MAX_WINDOW", 1 << 10)
    assert grid_policy().max_window == 1024.0
    assert within_window(point, 1e-5) == Reference.within_window(point, 1e-5) > 1e-5


@pytest.mark.parametrize("q", [0.0, 1.0, -0.5])
def test_loss_span_refuses_a_sampling_rate_outside_the_open_unit_interval(q: float) -> None:
    with pytest.raises(ValueError, match="sampling rate must lie strictly between 0 and 1"):
        loss_span(1.0, q, 10.0, 1.0)
