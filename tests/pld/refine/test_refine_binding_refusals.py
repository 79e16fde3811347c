"""The core reads' bindings refuse what no certified bracket is read from, naming the argument: a
bracket whose sides cross or lie below 0, a NaN, an add direction's bound below 0, masses that are
not finite, a coarse grid step past the doubles' exponentials, a loss shift past the grid indices."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick import _core

CORE = _core.pld_refine
CELLS = 1 << 26


def _factors() -> _core.pld_refine.TiltedFactorsReader:
    return CORE.TiltedFactorsReader([(1.0, 1e-3, 5, 1.0), (1.2, 1e-3, 5, 1.0)], max_cells=CELLS)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"p": np.array([0.5, math.nan])}, "p must hold finite masses"),
        ({"p": np.array([0.5, math.inf])}, "p must hold finite masses"),
        ({"ratio": 2**62}, "ratio \\* h must be at most 700"),
        ({"h": 1e-300, "loss_shift": 1e300}, "loss shift over h"),
        ({"loss_shift": -1.0}, "loss_shift must be finite and >= 0"),
    ],
)
def test_dilated_refuses_masses_steps_and_shifts_it_cannot_split(change: dict, named: str) -> None:
    given = {"p": np.array([0.5, 0.5]), "k_lo": 0, "h": 1e-4, "p_inf": 0.0, "entry_error": 0.0}
    given.update({"loss_shift": 0.0, "ratio": 4})
    given.update(change)
    p = given.pop("p")
    with pytest.raises(ValueError, match=named):
        CORE.dilated(p, **given)


@pytest.mark.parametrize(("lower", "upper"), [(0.5, 0.1), (0.0, -math.inf), (math.nan, 1.0)])
def test_block_bracket_refuses_a_bracket_that_is_not_one(lower: float, upper: float) -> None:
    with pytest.raises(ValueError, match="lower"):
        CORE.block_bracket(
            [(2.0, 1e-6, 10**6, 1.0)],
            delta=1e-12,
            lower=lower,
            upper=upper,
            tail=1e-15,
            accuracy=1e-3,
            relative_accuracy=2.5e-4,
            max_cells=CELLS,
        )


def test_the_factors_split_refuses_an_add_bound_below_zero_and_crossed_sides() -> None:
    reader = _factors()
    common = {"eps": 0.05, "interval": 5e-5, "tail": 1e-20, "split_max_points": 1 << 24}
    with pytest.raises(ValueError, match="add_upper must be >= 0"):
        reader.split_delta(lower=0.0, upper=1e-3, add_upper=-math.inf, **common)
    with pytest.raises(ValueError, match="lower must be at most upper"):
        reader.split_delta(lower=1e-3, upper=1e-4, add_upper=math.inf, **common)
    with pytest.raises(ValueError, match="lower must be at most upper"):
        reader.split_epsilon(delta=1e-12, lower=0.6, upper=0.5, split_max_points=1 << 24)


@pytest.mark.parametrize(("lower", "upper"), [(0.3, 0.2), (-1.0, -0.5), (0.0, math.nan)])
def test_the_rare_finer_reads_refuse_a_bracket_that_is_not_one(lower: float, upper: float) -> None:
    with pytest.raises(ValueError, match="certified epsilon brackets"):
        CORE.rare_finer_brackets(
            sigma=0.5,
            sampling_rate=1e-5,
            rounds=10**7,
            delta=np.array([1e-10]),
            lower=np.array([lower]),
            upper=np.array([upper]),
            max_cells=CELLS,
        )


def test_the_finer_grid_choices_refuse_what_they_cannot_choose_from() -> None:
    with pytest.raises(ValueError, match="lower must be finite and >= 0"):
        CORE.finer_halvings(first=2.04, second=2.02, lower=math.nan, window=1000)
    with pytest.raises(ValueError, match="window must be >= 0"):
        CORE.finer_halvings(first=2.04, second=2.02, lower=2.0, window=-1)
    with pytest.raises(ValueError, match="max_points must be at least 1"):
        CORE.finer_lower_grid(window=1000, max_points=0)


def _kept() -> _core.pld_refine.TiltedPointReader:
    return CORE.TiltedPointReader(
        sigma=1.0, sampling_rate=1e-3, rounds=10, max_cells=CELLS, max_points=1 << 22
    )


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"sigma": 0.3}, "sigma / sensitivity must be the reader's sigma"),
        ({"add_upper": np.array([-math.inf])}, "add_upper must be >= 0"),
        ({"lower": np.array([0.6]), "upper": np.array([0.5])}, "lower must be at most upper"),
    ],
)
def test_the_fine_read_refuses_another_run_a_negative_add_side_and_crossed_sides(
    change: dict, named: str
) -> None:
    """The max-of-outputs test of the fine read is the reader's own run: a sigma of another run would
    certify its lower side (sigma 0.3 read 19.29 where the run's epsilon at 1e-12 is about 0.53)."""
    given = {
        "delta": np.array([1e-12]),
        "lower": np.array([0.0]),
        "upper": np.array([2.0]),
        "add_upper": np.array([math.inf]),
        "sigma": 1.0,
        "sensitivity": 1.0,
        "split_max_points": 1 << 24,
    }
    given.update(change)
    with pytest.raises(ValueError, match=named):
        _kept().fine_epsilon(**given)
