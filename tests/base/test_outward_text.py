"""``outward_text``: the stated number lies on the certified side of the double, within one unit of
its last printed digit, in ``format``'s ``g`` style; checked against Python's own decimal reading of
the text (``Decimal(text)``, ``float(text)``) over every finite double and the edges."""

from __future__ import annotations

import math
import re
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hockeystick.base.outward_text import outward_text

EDGES = [
    0.0,
    -0.0,
    5e-324,
    -5e-324,
    2.2250738585072014e-308,
    1.7976931348623157e308,
    -1.7976931348623157e308,
    1e-5,
    0.1,
    2.38514387,
    9.9999995,
    999999.5,
    1e16,
    123456.7,
    -2.5,
]


def _unit(text: str, digits: int) -> Decimal:
    """One unit of the last of ``digits`` significant digits of the number ``text`` states."""
    return Decimal(1).scaleb(Decimal(text).adjusted() - digits + 1)


def _check(x: float, side: str, digits: int) -> None:
    text = outward_text(x, side, digits)  # type: ignore[arg-type]
    stated, exact = Decimal(text), Decimal(x)
    parsed = float(text)
    if side == "upper":
        assert stated >= exact and parsed >= x, (x, text)
    else:
        assert stated <= exact and parsed <= x, (x, text)
    assert abs(stated - exact) < _unit(text, digits), (x, text)
    # format's g style: as many digits at most, no trailing zero, the exponent as format writes it
    assert len(re.sub(r"e.*|[-.]", "", text).lstrip("0")) <= digits, text
    if digits <= 15 and math.isfinite(parsed) and abs(x) > 1e-300:  # a double holds 15 digits
        assert text == f"{parsed:.{digits}g}", text


@settings(max_examples=100, deadline=None)
@given(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["upper", "lower"]),
    st.integers(1, 17),
)
def test_every_finite_double_is_printed_on_its_side_within_one_unit(x, side, digits):
    _check(x, side, digits)


@pytest.mark.parametrize("x", EDGES)
@pytest.mark.parametrize("side", ["upper", "lower"])
def test_the_edges_are_printed_on_their_side(x, side):
    _check(x, side, 6)


def test_the_readme_run_s_upper_side_reads_above_it_and_its_lower_side_below():
    assert outward_text(2.38514387, "upper") == "2.38515"
    assert outward_text(2.38514387, "lower") == "2.38514"
    assert outward_text(-2.38514387, "lower") == "-2.38515"


def test_a_value_without_a_side_is_printed_to_nearest_and_the_non_finite_as_format_writes_them():
    for x in (2.38514387, 1e-5, 123456789.0, 5e-324):
        assert outward_text(x, None) == f"{x:.6g}"
    for side in ("upper", "lower", None):
        assert [outward_text(v, side) for v in (math.inf, -math.inf, math.nan, 0.0)] == [  # type: ignore[arg-type]
            "inf",
            "-inf",
            "nan",
            "0",
        ]


def test_a_wrong_side_or_digits_is_refused():
    with pytest.raises(ValueError, match="side"):
        outward_text(1.0, "both")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="digits"):
        outward_text(1.0, "upper", 0)
