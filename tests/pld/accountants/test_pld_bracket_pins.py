"""Every PLD front end's certified brackets, pinned: a change may tighten a bracket, never widen it or move it off.

``data/pld_bracket_pins.json`` (written by ``data/make_pld_bracket_pins.py``, which states how to regenerate
it) holds a few hundred seeded settings across the accountants and constructors of ``hockeystick.pld`` and
dp_accounting's events through ``HockeystickPLDAccountant``, each with the (lower, upper) the code answered when
it was recorded and, where one exists, the exact value computed at 50 digits independently of hockeystick.
Each row is recomputed and must
(1) hold the exact value: lower <= exact <= upper;
(2) be no wider than recorded: upper <= old upper (1 + 1e-7) and lower >= old lower (1 - 1e-7), with an
    absolute slack of 2e-15 on delta (a composition window's two cut ends, charged DEFAULT_TAIL = 1e-15 each
    by design: where a window is cut is the engine's choice, the charge is bounded) and 1e-12 on epsilon;
(3) meet the recorded bracket (both contain the true value, so they intersect), with the same slack.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import mpmath
import pytest

from hockeystick.pld.compose.fft import DEFAULT_TAIL

DATA = Path(__file__).parents[2] / "data"
_spec = importlib.util.spec_from_file_location(
    "make_pld_bracket_pins", DATA / "make_pld_bracket_pins.py"
)
assert _spec is not None and _spec.loader is not None
pins = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pins)

ROWS = json.loads((DATA / "pld_bracket_pins.json").read_text())["rows"]
# Relative slack: a self-composed mixture's discretized losses land on grid cells by the last bits of libm's
# exp and log, which differ between CPUs and library builds; two of the rows move by about 2e-8 from the CPU
# they were recorded on to another (each side still certified there). A regression moves far more.
RELATIVE = 1e-7
ABSOLUTE = {"delta": 2 * DEFAULT_TAIL, "epsilon": 1e-12}


def loosest(row: dict) -> tuple[float, float]:
    """The widest bracket a recomputation may answer: the recorded one, widened by the slack."""
    slack = ABSOLUTE[row["query"]["method"]]
    return row["lower"] * (1 - RELATIVE) - slack, row["upper"] * (1 + RELATIVE) + slack


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_bracket_no_wider_than_pinned_and_holds_the_exact_value(row):
    if row["family"] == "HockeystickPLDAccountant":
        pytest.importorskip("dp_accounting")
    lower, upper = pins.bracket(row)
    where = f"{row['id']} {row['family']} {json.dumps(row['params'])} {row['query']}"
    assert lower <= upper, f"{where}: lower {lower!r} above upper {upper!r}"
    if row["exact"] is not None:
        # the exact value at 50 digits, compared as a real number with the two doubles
        with mpmath.workdps(pins.DIGITS):
            exact = mpmath.mpf(row["exact"])
            assert mpmath.mpf(lower) <= exact, (
                f"{where}: lower {lower!r} above the exact {row['exact']}"
            )
            assert exact <= mpmath.mpf(upper), (
                f"{where}: upper {upper!r} below the exact {row['exact']}"
            )
    low_limit, up_limit = loosest(row)
    assert upper <= up_limit, f"{where}: upper {upper!r} looser than the pinned {row['upper']!r}"
    assert lower >= low_limit, f"{where}: lower {lower!r} looser than the pinned {row['lower']!r}"
    assert lower <= up_limit and low_limit <= upper, (
        f"{where}: bracket ({lower!r}, {upper!r}) misses the pinned ({row['lower']!r}, {row['upper']!r})"
    )


def test_pins_cover_every_front_end():
    """The fixture reaches every public PLD constructor and accountant (a regenerated fixture keeps them)."""
    import hockeystick.pld as pld

    families = {row["family"].split(".")[0] for row in ROWS}
    constructors = {
        row["params"]["constructor"] for row in ROWS if row["family"] == "PrivacyLossDistribution"
    }
    accountants = {
        "SubsampledGaussianPLD",
        "PLDAccountant",
        "FixedBatchGaussianPLD",
        "WithReplacementBatchGaussianPLD",
    }
    accountants |= {
        "BallsInBinsGaussianPLD",
        "ShuffledBatchGaussianPLD",
        "HockeystickPLDAccountant",
    }
    assert accountants <= families
    expected = {name for name in pld.__all__ if name[0].islower()}
    assert constructors == expected, sorted(expected ^ constructors)
    assert {"SubsampledGaussianPLD.grid", "SubsampledGaussianPLD.accuracy"} <= {
        row["family"] for row in ROWS
    }
    assert sum(row["exact"] is not None for row in ROWS) >= 50
