"""The total-variation step of the tight RDP-to-epsilon conversion at and around equality.

delta(0) = TV(P, Q) <= sqrt(1 - e^{-KL}) <= sqrt(1 - e^{-eps_R(alpha)}) (Bretagnolle & Huber 1979;
eps_R(alpha) >= KL for alpha > 1), so eps = 0 is certified exactly where delta^2 >= 1 - e^{-eps_R}.
For doubles equality never holds exactly, and a computed tie (delta^2 + expm1(-eps_R) rounding to 0)
hides either sign: the conversion returns 0 only for a positive computed sum, checked here against the
exact sign (mpmath at 300 bits)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from hockeystick.rdp import conversion, rdp_to_epsilon

ORDER = 2.0


def _exact_sign(r: float, d: float) -> int:
    """The sign of d^2 - (1 - e^{-r}) for the doubles r and d, exactly (300 bits is far beyond their gap)."""
    with mpmath.workprec(300):
        gap = mpmath.mpf(d) ** 2 - (1 - mpmath.exp(-mpmath.mpf(r)))
    return int(mpmath.sign(gap))


def _order_formula(r: float, d: float) -> float:
    """The tight conversion's value at the one order, without the TV step (as the module computes it)."""
    return float(max(0.0, r + np.log1p(-1.0 / ORDER) - (np.log(d) + np.log(ORDER)) / (ORDER - 1)))


def test_module_docstring_states_the_strict_rule_the_code_applies():
    doc = conversion.__doc__
    assert "delta^2 >= 1 - exp(-eps_R(alpha))" not in doc
    assert "eps = 0 where delta^2 > 1 - exp(-eps_R(alpha))" in doc
    assert "a tie keeps the order formula's value" in doc


@pytest.mark.parametrize(
    ("r", "d", "sign"),
    [
        (
            0.005140139183153161,
            0.07160273230341811,
            -1,
        ),  # computed tie, truly below: 0 would not be certified
        (
            0.00028756220908444615,
            0.016956440281948863,
            +1,
        ),  # computed tie, truly above: 0 valid, not returned
    ],
)
def test_a_computed_tie_keeps_the_order_formula(r, d, sign):
    assert np.square(d) + np.expm1(-r) == 0.0
    assert _exact_sign(r, d) == sign
    eps = rdp_to_epsilon(r, ORDER, d)
    assert eps == _order_formula(r, d) > 0.0


@pytest.mark.parametrize("r", [0.005140139183153161, 0.00028756220908444615, 1e-3, 2.0])
def test_around_equality(r):
    tie = float(np.sqrt(-np.expm1(-r)))
    above, below = tie, tie
    for _ in range(2):
        above, below = float(np.nextafter(above, 1.0)), float(np.nextafter(below, 0.0))
    assert (
        _exact_sign(r, above) > 0 and rdp_to_epsilon(r, ORDER, above) == 0.0
    )  # certified by the TV bound
    assert _exact_sign(r, below) < 0 and rdp_to_epsilon(r, ORDER, below) == _order_formula(r, below)


def test_a_zero_from_the_tv_step_is_certified_near_ties():
    """Wherever the TV step alone gives 0 (the order formula is positive), delta^2 > 1 - e^{-eps_R} exactly."""
    rng = np.random.default_rng(3)
    zeros = 0
    for r in 10 ** rng.uniform(-8.0, -1.0, 400):
        tie = float(np.sqrt(-np.expm1(-r)))
        for d in (float(np.nextafter(tie, 0.0)), tie, float(np.nextafter(tie, 1.0))):
            if _order_formula(r, d) > 0.0 and rdp_to_epsilon(r, ORDER, d) == 0.0:
                zeros += 1
                assert _exact_sign(r, d) > 0, (r, d)
    assert zeros > 100
