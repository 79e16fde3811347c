"""RealizableLowerSide keeps the accountant contract's ``bound`` with its one side: "lower" is the default
and what it returns; "upper" and "both" are refused, naming the accountants that give an upper side."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.base.accountant import LOWER_ONLY
from hockeystick.matrix import (
    BallsInBinsSampling,
    DenseStrategy,
    FixedEpochs,
    MatrixMechanism,
    RealizableLowerSide,
    l2_sensitivity,
)


@pytest.fixture(scope="module")
def side() -> RealizableLowerSide:
    c = np.tril(np.ones((4, 4)))
    return RealizableLowerSide(
        strategy=c, rounds=4, noise_multiplier=3.0, sampling=BallsInBinsSampling(2)
    )


def test_lower_is_the_default_and_the_only_side(side: RealizableLowerSide) -> None:
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    default = side.delta(eps)
    assert side.bound_sides == LOWER_ONLY
    np.testing.assert_array_equal(side.delta(eps, bound="lower"), default)
    # a lower side of delta: in [0, 1], non-increasing in eps, positive where the pair differs
    assert np.all((default >= 0.0) & (default <= 1.0))
    assert np.all(np.diff(default) <= 0.0) and default[0] > 0.0


def test_the_lower_side_stays_below_an_upper_side(side: RealizableLowerSide) -> None:
    """Below the mechanism without amplification (the worst bin's Gaussian at the certified L2
    sensitivity of two fixed epochs), a certified upper side of the same release."""
    strategy = DenseStrategy(np.tril(np.ones((4, 4))))
    upper = MatrixMechanism(
        sensitivity=l2_sensitivity(strategy, 4, FixedEpochs(2)), noise_multiplier=3.0
    )
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    assert np.all(side.delta(eps) <= np.asarray(upper.delta(eps)))


@pytest.mark.parametrize("bound", ["upper", "both"])
def test_the_other_sides_are_refused(side: RealizableLowerSide, bound: str) -> None:
    with pytest.raises(ValueError, match=r'bound must be "lower" for RealizableLowerSide.*MMCC'):
        side.delta(1.0, bound=bound)  # type: ignore[arg-type]


def test_an_unknown_side_is_refused_by_the_contract(side: RealizableLowerSide) -> None:
    with pytest.raises(ValueError, match="bound must be one of"):
        side.delta(1.0, bound="lowest")  # type: ignore[arg-type]
