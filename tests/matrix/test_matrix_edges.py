"""hockeystick.matrix at its edges: the noise for a zCDP target found exactly at any rho, refusals that name the
argument (not an AttributeError, an OverflowError or a RuntimeWarning), and the adaptive-input rule for C."""

from __future__ import annotations

import math
import signal
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

from hockeystick.matrix import (
    BLT,
    DPFTRL,
    Banded,
    DenseStrategy,
    EveryRound,
    MatrixMechanism,
    MinSeparation,
    Participation,
    Sensitivity,
    Tree,
    l2_sensitivity,
    noise_multiplier_for_zcdp,
)


class _Overtime(Exception):
    pass


@contextmanager
def within(seconds: float) -> Iterator[None]:
    """Fails the test if the block runs past ``seconds`` of CPU time (an interrupt, not a wait): a hang
    guard that a shared machine's load does not trip."""

    def alarm(signum: int, frame: Any) -> None:
        raise _Overtime(f"ran past {seconds} s of CPU")

    previous = signal.signal(signal.SIGPROF, alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


@pytest.mark.parametrize(
    "rho", [5e-324, 1e-300, 1e-6, 0.5, 3.0, 1e300, 1e308, 1.7976931348623157e308]
)
def test_noise_for_a_zcdp_target_is_the_smallest_double_meeting_it(rho: float) -> None:
    """At every rho, from the smallest subnormal to the largest double, the answer comes at once (64 bisection
    steps on the doubles), meets rho, and the next double below it does not; no warning."""
    with warnings.catch_warnings(), within(120.0):
        warnings.simplefilter("error")
        z = noise_multiplier_for_zcdp(rho, rounds=16, min_separation=4)
        assert DPFTRL(rounds=16, noise_multiplier=z, min_separation=4).zcdp_rho <= rho
        below = math.nextafter(z, 0.0)
        if below > 0.0:
            assert DPFTRL(rounds=16, noise_multiplier=below, min_separation=4).zcdp_rho > rho


@pytest.mark.parametrize(
    ("rho", "kind"),
    [
        (np.array([1.0, 2.0]), TypeError),
        (True, TypeError),
        (0.0, ValueError),
        (math.inf, ValueError),
    ],
)
def test_a_bad_zcdp_target_is_refused_naming_rho(rho: Any, kind: type[Exception]) -> None:
    with pytest.raises(kind, match="rho"):
        noise_multiplier_for_zcdp(rho, rounds=16)


@pytest.mark.parametrize(
    ("call", "kind", "word"),
    [
        (lambda: l2_sensitivity(Tree(), 8, "every"), TypeError, "schema"),  # type: ignore[arg-type]
        (lambda: l2_sensitivity("tree", 8, EveryRound()), TypeError, "strategy"),  # type: ignore[arg-type]
        (lambda: l2_sensitivity(Tree(), 0, EveryRound()), ValueError, "rounds"),
        (lambda: l2_sensitivity(Tree(), 2.5, EveryRound()), ValueError, "rounds"),
        (lambda: l2_sensitivity(Tree(), True, EveryRound()), TypeError, "rounds"),
        (lambda: l2_sensitivity(Tree(), 10**309, EveryRound()), ValueError, "rounds"),
        (
            lambda: MatrixMechanism(sensitivity=np.array(-1.0), noise_multiplier=1.0),
            TypeError,
            "sensitivity",
        ),
        (lambda: MatrixMechanism(sensitivity=1.5, noise_multiplier=1.0), TypeError, "sensitivity"),  # type: ignore[arg-type]
        (lambda: DPFTRL(rounds=10**309, noise_multiplier=1.0), ValueError, "rounds"),
        (
            lambda: DPFTRL(rounds=8, noise_multiplier=1.0, min_separation=10**309),
            ValueError,
            "min_separation",
        ),
        (
            lambda: DPFTRL(rounds=8, noise_multiplier=1.0, max_participations=10**309),
            ValueError,
            "max_participations",
        ),
        (lambda: MinSeparation(10**309), ValueError, "separation"),
        (lambda: Tree(restart_every=10**309), ValueError, "restart_every"),
    ],
)
def test_bad_arguments_are_refused_by_name(
    call: Callable[[], Any], kind: type[Exception], word: str
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(kind, match=word):
            call()


@pytest.mark.parametrize(
    "strategy",
    [
        np.tril(np.full((3, 3), 1e308)),
        np.array([[1e200, 0.0], [-1e200, 1.0]]),
        Banded([1e308, 1e308]),
        Banded([1e308]),
        BLT([0.5], [1e308]),
    ],
    ids=["dense", "signed", "banded", "one_band", "blt"],
)
def test_a_strategy_whose_squared_sensitivity_overflows_is_refused_without_a_warning(
    strategy: Any,
) -> None:
    rounds = strategy.shape[1] if isinstance(strategy, np.ndarray) else 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="strategy's entries are too large"):
            DPFTRL(rounds=rounds, noise_multiplier=1.0, strategy=strategy)


def test_an_upper_triangular_c_needs_fixed_inputs_said_explicitly() -> None:
    """Adaptive inputs (training's gradients) are covered for a lower-triangular C only: a square C with an entry
    above its diagonal is refused unless adaptive_inputs=False says the stream is fixed in advance; its
    transpose (lower triangular) is accepted as it is."""
    upper = np.triu(np.ones((4, 4)))
    with pytest.raises(ValueError, match="lower triangular.*adaptive_inputs=False"):
        DPFTRL(rounds=4, noise_multiplier=1.0, strategy=upper)
    with pytest.raises(ValueError, match="lower triangular"):
        noise_multiplier_for_zcdp(0.5, rounds=4, strategy=upper)
    fixed = DPFTRL(rounds=4, noise_multiplier=1.0, strategy=upper, adaptive_inputs=False)
    lower = DPFTRL(rounds=4, noise_multiplier=1.0, strategy=upper.T)
    assert fixed.adaptive_inputs is False and lower.adaptive_inputs is True
    assert fixed.epsilon(1e-5) > 0.0 and lower.epsilon(1e-5) > 0.0
    with pytest.raises(TypeError, match="adaptive_inputs"):
        DPFTRL(rounds=4, noise_multiplier=1.0, adaptive_inputs="no")  # type: ignore[arg-type]
    tall = np.vstack(
        [np.tril(np.ones((4, 4))), np.ones((1, 4))]
    )  # more rows than rounds: released once complete
    assert DPFTRL(rounds=4, noise_multiplier=1.0, strategy=tall).epsilon(1e-5) > 0.0


@pytest.mark.parametrize(
    ("make", "word"),
    [
        (lambda: Banded([0.0, 0.0]), "coefficients"),
        (lambda: DenseStrategy(np.zeros((3, 3))), "matrix"),
        (lambda: DenseStrategy([1.0, 2.0]), "matrix"),
        (lambda: DPFTRL(rounds=3, noise_multiplier=1.0, strategy=np.zeros((3, 3))), "strategy"),
        (lambda: Participation(0, None, False), "separation"),
        (lambda: Participation(2, None, "yes"), "fixed"),  # type: ignore[arg-type]
        (lambda: Sensitivity(-1.0, 0.0, "exact", "given", ()), "upper"),
        (lambda: Sensitivity(1.0, 2.0, "exact", "given", ()), "lower"),
        (lambda: Sensitivity(1.0, 0.5, "tight", "given", ()), "kind"),
        (lambda: Sensitivity(1.0, 0.5, "exact", "given", 3), "pattern"),  # type: ignore[arg-type]
    ],
)
def test_strategies_schemas_and_brackets_are_checked_where_built(
    make: Callable[[], Any], word: str
) -> None:
    """An all-zero C, a schema of separation 0 and a sensitivity bracket out of order are refused when built,
    naming the argument the caller gave."""
    with pytest.raises((ValueError, TypeError), match=word):
        make()
