"""Python integers beyond the doubles (>= 2^1024) given as a count, a size or a mass: each is refused with a
ValueError naming the argument, never an OverflowError or an AttributeError on the way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import hockeystick.pld as pld
from hockeystick import registry

HUGE = 10**309


@pytest.mark.parametrize(
    ("call", "word"),
    [
        (lambda: pld.from_distributions([HUGE, 0.4], [0.4, 0.6]), "p"),
        (lambda: pld.from_distributions([0.4, 0.6], [0.4, HUGE]), "q"),
        (lambda: pld.random_allocation_gaussian(HUGE, 1.0), "steps"),
        (
            lambda: pld.BallsInBinsGaussianPLD(sigma=1.0, steps_per_epoch=HUGE, rounds=8),
            "steps_per_epoch",
        ),
        (
            lambda: pld.BallsInBinsGaussianPLD(sigma=1.0, steps_per_epoch=2**60, rounds=8),
            "steps_per_epoch",
        ),
        (lambda: pld.BallsInBinsGaussianPLD(sigma=1.0, steps_per_epoch=4, rounds=HUGE), "rounds"),
        (
            lambda: pld.ShuffledBatchGaussianPLD(sigma=1.0, batch_size=HUGE, n=40, rounds=8),
            "batch_size",
        ),
        (lambda: pld.ShuffledBatchGaussianPLD(sigma=1.0, batch_size=10, n=HUGE, rounds=8), "n"),
        (
            lambda: (
                registry.get("trusted_aggregator_schedule")
                .build(
                    n=HUGE,
                    batch_size=10,
                    sigma=2.0,
                    learning_rate=0.05,
                    lipschitz=1.0,
                    radius=1.0,
                    rounds=3,
                )
                .delta(1.0)
            ),
            "n",
        ),
    ],
)
def test_an_integer_beyond_the_doubles_is_refused_by_name(
    call: Callable[[], Any], word: str
) -> None:
    with pytest.raises(ValueError, match=rf"\b{word} must"):
        call()
