"""The command line prints a certified side rounded outward: the printed upper side is at least the
value the same command writes in full (--format json), the printed lower side at most it, each within
one unit of its last printed digit; a column's side follows its name (``cli.column_sides``)."""

from __future__ import annotations

import contextlib
import io
import json
from decimal import Decimal

import pytest

from hockeystick.cli import main
from hockeystick.cli.column_sides import column_side, grid_sides
from hockeystick.sweep.grid import Grid

GAUSSIAN = ["-a", "gaussian", "-p", "sigma=log:0.7:4:7", "-p", "rounds=100"]


def _run(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) == 0
    return out.getvalue()


def _unit(text: str) -> Decimal:
    """One unit of the last of the six significant digits the table prints (fewer where zeros end it)."""
    return Decimal(1).scaleb(Decimal(text).adjusted() - 5)


def _outward(printed: str, value: float, side: str) -> bool:
    gap = Decimal(printed) - Decimal(value)
    return Decimal(0) <= (gap if side == "upper" else -gap) < _unit(printed)


def test_a_table_prints_each_side_rounded_away_from_the_value_it_bounds():
    argv = ["epsilon", *GAUSSIAN, "--delta", "1e-5", "--bound", "both"]
    full = json.loads(_run([*argv, "--format", "json"]))
    lines = _run(argv).splitlines()
    rows = lines[lines.index(next(line for line in lines if line.startswith("---"))) + 1 :]
    assert len(rows) == len(full) == 7
    for row, point in zip(rows, full):
        sigma, lower, upper = row.split()
        assert _outward(lower, point["epsilon_lower"], "lower"), (lower, point)
        assert _outward(upper, point["epsilon_upper"], "upper"), (upper, point)
        assert float(sigma) == pytest.approx(point["sigma"], rel=1e-5)  # an input: to nearest


def test_the_summary_s_least_and_largest_of_an_upper_column_are_upper_sides():
    argv = [
        "delta",
        "-a",
        "gaussian",
        "-p",
        "sigma=log:2:8:7",
        "-p",
        "rounds=100",
        "--epsilon",
        "1",
    ]
    full = [point["delta"] for point in json.loads(_run([*argv, "--format", "json"]))]
    summary = _run([*argv, "--max-rows", "3"]).splitlines()
    _, low, _, high, _ = next(line for line in summary if line.startswith(" delta")).split()
    assert _outward(low, min(full), "upper") and _outward(high, max(full), "upper"), summary


def test_a_column_s_side_follows_its_name_and_what_the_grid_computes():
    target = {"epsilon": 1, "delta": 1e-5}
    assert grid_sides(Grid.from_parameters("gaussian", "sigma", {"rounds": 10, **target})) == {
        "sigma": "upper"  # the least noise meeting the target: safe to round up
    }
    assert grid_sides(Grid.from_parameters("gaussian", "rounds", {"sigma": 2.0, **target})) == {
        "rounds": "lower"  # the most rounds within the target: safe to round down
    }
    both = Grid.from_parameters("gaussian", "epsilon", {"sigma": 2.0, "delta": 1e-5}, "both")
    assert grid_sides(both) == {"epsilon_lower": "lower", "epsilon_upper": "upper"}
    calculators = Grid.from_parameters(
        "leakage_tv_lemma_5_7_upper",
        "tv",
        {"variance": 1.0, "distortion_variance": 0.5, "dimension": 4},
    )
    assert set(grid_sides(calculators).values()) == {None}  # values, not brackets
    assert [column_side(n) for n in ("tpr_lower", "advantage_upper", "fpr", "bound")] == [
        "lower",
        "upper",
        None,
        "upper",
    ]
    assert column_side("epsilon", inputs=("epsilon",)) is None  # compose's given epsilon
