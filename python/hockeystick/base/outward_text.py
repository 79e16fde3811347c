"""A certified side as text for a reader: its decimal digits rounded outward, never to nearest.

An upper side (an epsilon or delta bound, a noise that is safe to round up) printed to nearest can
read below the bound it stands for (2.38514387 reads 2.38514), and a reader quotes the printed
number.  ``outward_text`` rounds the exact decimal value of the double (``Decimal(float)`` is
exact) to ``digits`` significant digits toward +inf for an upper side and toward -inf for a lower
side, so that the number the text states, read as a real number, lies on the certified side of the
double: ``Decimal(text) >= x`` for an upper side and ``<= x`` for a lower side, hence also
``float(text) >= x`` (resp. ``<=``) since rounding a decimal to the nearest double is monotone and
``x`` is a double.  The text is within one unit of its last digit of ``x``.  A value with no side
(an input, a Monte Carlo estimate) is printed to nearest, as ``format(x, ".6g")`` does.

The text follows ``format``'s ``g`` style (fixed notation for decimal exponents -4 to
``digits - 1``, else ``d.ddde+XX``; no trailing zeros), so an outward text differs from the
nearest one in its last digit at most (a carry may shorten it: 9.999995 up reads 10).
"""

from __future__ import annotations

from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal
from typing import Literal

__all__ = ["outward_text"]

Side = Literal["upper", "lower"]
SIDES: tuple[Side, ...] = ("upper", "lower")

_ROUNDING = {"upper": ROUND_CEILING, "lower": ROUND_FLOOR}


def outward_text(value: float, side: Side | None, digits: int = 6) -> str:
    """``value`` as text with ``digits`` significant digits, rounded toward its certified side.

    Parameters
    ----------
    value : float
        The number to print (a Python or numpy float; an int is converted to float).
    side : {"upper", "lower"} or None
        "upper": the text states a number >= ``value`` (rounded toward +inf); "lower": a number
        <= ``value`` (toward -inf; a lower side printed as 0 or negative where it is so); None: to
        nearest, for a value that bounds nothing (an input, an estimate).
    digits : int, optional
        Significant digits, >= 1 (default 6, as ``format(value, ".6g")``).

    Returns
    -------
    str
        The text; ``inf``, ``-inf`` and ``nan`` as ``format`` writes them, zero as ``0`` (``-0``
        for a negative zero).

    Raises
    ------
    ValueError
        ``side`` is none of "upper", "lower", None, or ``digits`` is below 1.

    Examples
    --------
    >>> outward_text(2.38514387, "upper"), outward_text(2.38514387, "lower")
    ('2.38515', '2.38514')
    >>> outward_text(2.38514387, None), outward_text(1e-5, "lower"), outward_text(1e-5, "upper")
    ('2.38514', '1e-05', '1.00001e-05')
    """
    if side is not None and side not in _ROUNDING:
        raise ValueError(f'side must be "upper", "lower" or None, got {side!r}')
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1:
        raise ValueError(f"digits must be an integer >= 1, got {digits!r}")
    x = float(value)
    if side is None or x != x or x in (float("inf"), float("-inf")) or x == 0.0:
        return f"{x:.{digits}g}"
    context = Context(prec=digits, rounding=_ROUNDING[side])
    return _g_style(context.normalize(context.plus(Decimal(x))), digits)


def _g_style(number: Decimal, digits: int) -> str:
    """A finite nonzero decimal of at most ``digits`` significant digits, trailing zeros stripped,
    written as ``format(float, f".{digits}g")`` writes a double (exactly, digit for digit)."""
    exponent = number.adjusted()
    if -4 <= exponent < digits:
        return f"{number:f}"
    sign, figures, _ = number.as_tuple()
    mantissa = "".join(map(str, figures))
    if len(mantissa) > 1:
        mantissa = f"{mantissa[0]}.{mantissa[1:]}"
    return f"{'-' if sign else ''}{mantissa}e{exponent:+03d}"
