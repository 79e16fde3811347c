"""The ledger's public calls at the edges: each argument in turn set to NaN, +-inf, 0, -0.0, a negative, a
subnormal, a huge value, a bool, a numeric string, None and a list; every call answers without NaN (an epsilon
>= 0, a bool) or refuses with a ValueError / TypeError naming that argument."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from hockeystick.ledger import (
    PrivacyLedger,
    Round,
    best_order,
    per_client_epsilon,
    realized_client_epsilon,
)

EDGES: list[Any] = [
    math.nan,
    math.inf,
    -math.inf,
    0.0,
    -0.0,
    -1.0,
    5e-324,
    1e308,
    True,
    "1.0",
    None,
    [0.5, 0.5],
]


def _ledger_odometer(delta: Any) -> float:
    ledger = PrivacyLedger(adaptive=True)
    ledger.record(Round.subsampled_gaussian(1.0, 0.01), 10)
    return ledger.odometer(delta).epsilon


def _would_exceed(epsilon: Any, delta: Any) -> bool:
    return PrivacyLedger(adaptive=True).would_exceed(Round.gaussian(2.0), epsilon, delta)


CALLS: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
    ("Round.gaussian", Round.gaussian, {"sigma": 1.0}),
    ("Round.subsampled_gaussian", Round.subsampled_gaussian, {"sigma": 1.0, "sampling_rate": 0.01}),
    ("Round.laplace", Round.laplace, {"scale": 1.0}),
    ("Round.discrete_gaussian", Round.discrete_gaussian, {"sigma": 1.0, "sensitivity": 1}),
    (
        "Round matrix_mechanism",
        lambda sigma, sensitivity, sensitivity_lower: Round(
            "matrix_mechanism", sigma, None, None, sensitivity, sensitivity_lower
        ),
        {"sigma": 1.0, "sensitivity": 2.0, "sensitivity_lower": 1.5},
    ),
    ("odometer", _ledger_odometer, {"delta": 1e-5}),
    ("would_exceed", _would_exceed, {"epsilon": 1.0, "delta": 1e-5}),
    (
        "best_order",
        lambda epsilon, delta: best_order(Round.gaussian(10.0), epsilon, delta),
        {"epsilon": 1.0, "delta": 1e-5},
    ),
    (
        "per_client_epsilon",
        per_client_epsilon,
        {"participation_rates": [0.01, 0.1], "sigma": 1.0, "rounds": 100, "delta": 1e-5},
    ),
    (
        "realized_client_epsilon",
        realized_client_epsilon,
        {"participations": [0, 3], "sigma": 1.0, "delta": 1e-5},
    ),
]


def _finite_answer(value: Any) -> bool:
    if isinstance(value, bool) or isinstance(value, Round):
        return True
    arr = np.asarray(getattr(value, "epsilons", value), dtype=float)
    return bool(np.all(arr >= 0) and not np.isnan(arr).any())


@pytest.mark.parametrize(("label", "call", "valid"), CALLS, ids=[c[0] for c in CALLS])
def test_each_argument_at_the_edges_answers_or_is_refused_by_name(label, call, valid):
    assert _finite_answer(call(**valid))
    for name in valid:
        for edge in EDGES:
            try:
                value = call(**{**valid, name: edge})
            except (ValueError, TypeError) as err:
                assert name in str(err), f"{label}({name}={edge!r}): {err}"
                continue
            assert _finite_answer(value), f"{label}({name}={edge!r}) gave {value!r}"
