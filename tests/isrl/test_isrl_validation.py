"""The paper-003 formulas and the shuffle accountants refuse bad arguments by name and rule, never a NaN,
a negative charge, an overflow or a loop that does not end."""

from __future__ import annotations

import math
import signal
from typing import Any

import numpy as np
import pytest

from hockeystick.base.validation import ParameterTypeError
from hockeystick.isrl import (
    ShuffledApproximateLDP,
    ShuffledLDP,
    closed_form_shuffle_epsilon,
    fmt_theorem_3_8_charge,
    theorem_d5_round,
)

CLOSED = dict(epsilon0=1.0, n=1e5, delta=1e-6)
CHARGE = dict(epsilon=0.2, epsilon0=1.0, delta0=1e-9, n=1000)


@pytest.mark.parametrize(
    "n", [-1.0, -5.0, 0.0, -0.0, math.nan, -math.inf, math.inf, 1e5 + 0.5, [1e5, 2.5]]
)
def test_closed_form_refuses_an_n_that_is_not_a_whole_number(n):
    with pytest.raises(ValueError, match=r"^n must (be an integer >= 1|not be NaN), got"):
        closed_form_shuffle_epsilon(**{**CLOSED, "n": n})


@pytest.mark.parametrize("value", ["1000", True, None])
@pytest.mark.parametrize("name", sorted(CLOSED))
def test_closed_form_refuses_non_numbers_by_name(name, value):
    with pytest.raises(ParameterTypeError, match=f"^{name} must be"):
        closed_form_shuffle_epsilon(**{**CLOSED, name: value})


def test_closed_form_names_the_validity_limit_and_the_value():
    with pytest.raises(
        ValueError, match=r"^epsilon0 must be <= ln\(n / \(16 ln\(2/delta\)\)\) = .* got 7\.0"
    ):
        closed_form_shuffle_epsilon(**{**CLOSED, "epsilon0": 7.0})
    with pytest.raises(ValueError, match=r"^epsilon0 must not be NaN, got nan"):
        closed_form_shuffle_epsilon(**{**CLOSED, "epsilon0": math.nan})
    with pytest.raises(ValueError, match=r"^delta must lie strictly between 0 and 1, got 0\.0"):
        closed_form_shuffle_epsilon(**{**CLOSED, "delta": 0.0})
    assert round(closed_form_shuffle_epsilon(**CLOSED), 6) == 0.072555


@pytest.mark.parametrize(
    "name, value, rule",
    [
        ("delta0", -1e-9, r"delta0 must lie in \[0, 1\), got -1e-09"),
        ("delta0", 1.0, r"delta0 must lie in \[0, 1\), got 1\.0"),
        ("delta0", math.nan, "delta0 must not be NaN"),
        ("epsilon", -0.1, "epsilon must be finite and >= 0, got -0.1"),
        ("epsilon", math.nan, "epsilon must not be NaN"),
        ("epsilon", math.inf, "epsilon must be finite and >= 0, got inf"),
        ("epsilon0", 0.0, "epsilon0 must be finite and > 0, got 0.0"),
        ("epsilon0", -math.inf, "epsilon0 must be finite and > 0, got -inf"),
        ("n", 2.5, "n must be an integer >= 1, got 2.5"),
        ("n", -1000, "n must be an integer >= 1, got -1000"),
        ("n", math.nan, "n must not be NaN"),
    ],
)
def test_fmt_charge_refuses_out_of_range_arguments(name, value, rule):
    with pytest.raises(ValueError, match=f"^{rule}"):
        fmt_theorem_3_8_charge(**{**CHARGE, name: value})


def test_fmt_charge_is_nonnegative_and_finite_where_it_answers():
    assert fmt_theorem_3_8_charge(**CHARGE) == pytest.approx(2.630006960804502e-06, rel=1e-15)
    assert fmt_theorem_3_8_charge(**{**CHARGE, "delta0": 0.0}) == 0.0
    assert (
        fmt_theorem_3_8_charge(**{**CHARGE, "delta0": 0.0, "epsilon": 1e308}) == 0.0
    )  # not inf * 0
    assert fmt_theorem_3_8_charge(**{**CHARGE, "epsilon": 1e308}) == math.inf
    with pytest.raises(ParameterTypeError, match="^delta0 must be"):
        fmt_theorem_3_8_charge(**{**CHARGE, "delta0": True})


def test_theorem_d5_names_delta0_and_the_silo_arguments():
    base = dict(epsilon0=0.001, delta0=1e-9, silo_size=10, silos=10000, delta=1e-6)
    with pytest.raises(ValueError, match=r"^delta0 must lie strictly between 0 and 1, got 0"):
        theorem_d5_round(**{**base, "delta0": 0.0})
    with pytest.raises(ValueError, match=r"silos / \(16 ln\(2/delta\)\)\) / silo_size"):
        theorem_d5_round(**{**base, "silo_size": 1e308})


class _Overtime(Exception):
    pass


def _within(seconds: float, call: Any) -> Any:
    def alarm(signum: int, frame: Any) -> None:
        raise _Overtime()

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return call()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize(
    "make", [ShuffledLDP, lambda **kw: ShuffledApproximateLDP(delta0=1e-9, **kw)]
)
def test_shuffle_bisection_ends_at_the_doubles_resolution(make):
    """An rtol below the spacing of doubles stops where no double lies between the bracket's ends."""
    coarse = make(epsilon0=1.0, n=200, rtol=1e-3).epsilon(1e-3)
    finest = _within(120.0, lambda: make(epsilon0=1.0, n=200, rtol=5e-324).epsilon(1e-3))
    assert 0 < finest <= coarse


@pytest.mark.parametrize("name", ["tail", "rtol"])
@pytest.mark.parametrize("value", ["0.5", None, True, np.array([1e-18, 1e-17])])
def test_shuffle_tail_and_rtol_refuse_non_numbers_by_name(name, value):
    for make in (ShuffledLDP, lambda **kw: ShuffledApproximateLDP(delta0=1e-9, **kw)):
        with pytest.raises(ParameterTypeError, match=f"^{name} must be"):
            make(epsilon0=1.0, n=200, **{name: value})


def test_shuffle_extreme_but_valid_arguments_answer():
    # tail at the smallest subnormal: log(2 / tail) without overflowing 2 / tail
    assert 0 < ShuffledLDP(epsilon0=1.0, n=200, tail=5e-324).delta(0.5) < 1
    # epsilon0 past exp's range: the bound is vacuous (1 below epsilon0), not an OverflowError
    assert ShuffledLDP(epsilon0=1e308, n=200).delta(1.0) == 1.0
    assert ShuffledApproximateLDP(epsilon0=1e308, delta0=1e-9, n=200).delta(1.0) == 1.0
