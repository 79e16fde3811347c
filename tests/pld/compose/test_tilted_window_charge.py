"""The tilted window's round-off charge of the weighted sum its untilted curve reads, in the core
(cpp/include/hockeystick/pld/reads/tilted_charge.hpp: ``_core.pld_reads.tilted_weights`` and
``tilted_window_charge``; the package's ``compose.tilted.tilted_weights`` calls the first, the
core's tilted read, pld/reads/tilted.hpp, the second).

The reference: the same weighted sum evaluated at 50 digits (mpmath) from the exact doubles x and h,
the weights w_K = (1 - e^{x - K h}) e^{-theta (K - x / h)} over the window's grid indices K with
K h > x, their sum S and norm N, and the charge min(entry S, total, l2 N + min(inverse S, inverse_l2
N)) on the window's own round-off bounds.  The core's charge must never be below it (a certified
upper bound), stay within a few per cent of it where the window reaches far above x (a bound far
above would charge for nothing), and never exceed the plain charge (every mass above x at weight 1).
The closed-form weights must bound their infinite sums at 50 digits.  At the edges: nothing above
the window (x past its top, 1e308, inf) is charged 0 without overflow; x = -inf weighs the whole
window; a NaN x or a step not finite and > 0 raises a ValueError naming it."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld.compose import tilted
from hockeystick.pld.grid.pmf import GridPMF

reads = _core.pld_reads
U = 2.0**-53


def exact_weights(
    x: float, h: float, theta: float, k_lo: int, size: int
) -> tuple[mpmath.mpf, mpmath.mpf]:
    """S and N of the weights the untilted curve at x puts on the window's entries, at 50 digits."""
    with mpmath.workdps(50):
        xm, hm, tm = mpmath.mpf(x), mpmath.mpf(h), mpmath.mpf(theta)
        total, square = mpmath.mpf(0), mpmath.mpf(0)
        for k in range(k_lo, k_lo + size):
            loss = k * hm
            if loss > xm:
                w = -mpmath.expm1(xm - loss) * mpmath.exp(-tm * (k - xm / hm))
                total += w
                square += w * w
        return total, mpmath.sqrt(square)


def counted_charge(w: GridPMF, x: float) -> float:
    """The charge of every mass of ``w`` at a grid index at or above floor(x / h) at weight 1 (the plain charge of
    the masses above x, and one more for the rounding of x / h)."""
    first = max(math.floor(x / w.h), int(w.k_lo)) if math.isfinite(x) else int(w.k_lo)
    count = float(max(0, int(w.k_lo) + int(w.p.size) - first))
    return float(w.charge_of_weighted_sum(np.array([count]), np.sqrt([count]))[0])


def exact_charge(charges, total: mpmath.mpf, norm: mpmath.mpf) -> mpmath.mpf:
    """min(entry S, total, l2 N + min(inverse S, inverse_l2 N)) at 50 digits; 0 where no weight is positive."""
    with mpmath.workdps(50):
        if total == 0:
            return mpmath.mpf(0)
        f = {name: mpmath.mpf(getattr(charges, name)) for name in
             ("entry_error", "total_error", "spectral_l2", "inverse_error", "inverse_l2")}  # fmt: skip
        return min(
            f["entry_error"] * total,
            f["total_error"],
            f["spectral_l2"] * norm + min(f["inverse_error"] * total, f["inverse_l2"] * norm),
        )


@pytest.fixture(scope="module")
def window() -> tilted.TiltedComposition:
    """A composed window of ~600 masses (a round of losses -2h .. 3h, 1000 rounds) under the tilt 0.2 per grid step
    (e^{-theta j} < e^{-50} past 250 steps), with the round-off bounds of a real composition."""
    h = 1e-3
    pmf = GridPMF(-2, h, np.array([0.1, 0.3, 0.3, 0.2, 0.07, 0.03]), 0.0, pessimistic=True)
    return tilted.compose_tilted([(pmf, 1000)], 0.2, pessimistic=True)


def test_the_closed_form_weights_bound_their_50_digit_sums() -> None:
    """The closed forms' G(a) = e^{-a j0} / (1 - e^{-a}) at 50 digits from the exact position: the core's bounds are
    never below the exact infinite sums and within 1e-12 of them (each a few roundings above)."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        theta, h = 10 ** rng.uniform(-6.0, 1.0), 10 ** rng.uniform(-6.0, -1.0)
        position = float(rng.uniform(-1e7, 1e7))
        if rng.random() < 0.25:
            position = float(round(position))  # on a grid point: j0 = 1
        got_sum, got_norm = reads.tilted_weights(position, theta=theta, h=h)
        with mpmath.workdps(50):
            p, t, hm = mpmath.mpf(position), mpmath.mpf(theta), mpmath.mpf(h)
            j0 = mpmath.floor(p) + 1 - p

            def g(a):
                return mpmath.exp(-a * j0) / -mpmath.expm1(-a)

            exact_sum = g(t) - g(t + hm)
            exact_norm = mpmath.sqrt(g(2 * t) - 2 * g(2 * t + hm) + g(2 * t + 2 * hm))
        if math.isinf(
            float(got_sum)
        ):  # the terms cancel below their rounding: no closed form, the plain charge
            assert float(exact_sum) < 1e-3 * float(mpmath.mpf(1) / -mpmath.expm1(-t))
            continue
        # above the exact sums by at most twice the documented margins: j0's rounding 4 u (|position| + 1) moving
        # each G(a) by a times it, and 64 u of the terms' magnitudes
        with mpmath.workdps(50):
            slack = 4 * U * (abs(p) + 1)
            room_sum = 2 * (64 * U * (g(t) + g(t + hm)) + slack * (t * g(t) + (t + hm) * g(t + hm)))
            a, b, c = 2 * t, 2 * t + hm, 2 * t + 2 * hm
            magnitude = g(a) + 2 * g(b) + g(c)
            room_square = 2 * (64 * U * magnitude + slack * (a * g(a) + 2 * b * g(b) + c * g(c)))
            most_norm = mpmath.sqrt(exact_norm**2 + room_square) * (1 + 16 * U)
        assert exact_sum <= float(got_sum) <= exact_sum + room_sum
        assert exact_norm <= float(got_norm) <= most_norm


def test_the_core_charge_bounds_the_50_digit_weighted_sums_charge(window) -> None:
    """At arguments through the window (on grid points and between them): the core's charge is at least the exact
    charge of the weighted sum, at most the plain one (every mass at or above floor(x / h) at weight 1), and within
    2 % of the exact one where the window reaches far (50 / theta steps) above x, where the plain charge is far
    higher."""
    w = window.window
    charges, k_lo, size, h, theta = w.charges(), int(w.k_lo), int(w.p.size), w.h, window.theta
    assert charges.total_error > 0.0
    top = (k_lo + size) * h
    rng = np.random.default_rng(11)
    points = [k_lo * h + 0.37 * h, (k_lo + 7) * h, top - 3.5 * h, top - h, top - 0.25 * h]
    points += list(rng.uniform(k_lo * h, top, 8))
    far = 0
    for x in points:
        got = float(
            reads.tilted_window_charge(x, k_lo=k_lo, size=size, h=h, theta=theta, charges=charges)
        )
        plain = counted_charge(w, x)
        exact = exact_charge(charges, *exact_weights(x, h, theta, k_lo, size))
        assert exact <= got <= plain, (x, got, float(exact), plain)
        if (top - x) / h > 50.0 / theta:
            assert got <= float(exact) * 1.02
            assert got < 0.1 * plain
            far += 1
    assert far >= 3


def test_above_the_window_nothing_is_charged_and_nothing_overflows(window) -> None:
    w = window.window
    charges, k_lo, size, h, theta = w.charges(), int(w.k_lo), int(w.p.size), w.h, window.theta
    far = np.array([(k_lo + size) * h, (k_lo + size) * h * 1.5, 1e308, math.inf])
    with np.errstate(all="raise"):
        got = reads.tilted_window_charge(
            far, k_lo=k_lo, size=size, h=h, theta=theta, charges=charges
        )
    assert np.all(got == 0.0)
    # past the window the upper side is the mass at +infinity (none here) and the absolute TINY per entry, not 1
    for x in (1e308, math.inf):
        assert window.untilt_factor(x) == 0.0
        assert window.p_inf <= window.delta(x) <= (window.p_inf + 1e-300) * (1.0 + 1e-15)
    # 1e308 / h overflows to inf: still above the window (no product of inf and a weight is formed)
    assert (
        float(
            reads.tilted_window_charge(
                1e308, k_lo=k_lo, size=size, h=1e-300, theta=theta, charges=charges
            )
        )
        == 0.0
    )


def test_below_the_window_and_without_a_tilt_the_charge_is_the_plain_one(window) -> None:
    """x = -inf weighs every mass of the window at 1 (the position has no closed form), as does theta = 0; a window
    that charges nothing is charged 0."""
    w = window.window
    charges, k_lo, size, h = w.charges(), int(w.k_lo), int(w.p.size), w.h
    at = float(
        reads.tilted_window_charge(
            -math.inf, k_lo=k_lo, size=size, h=h, theta=0.02, charges=charges
        )
    )
    assert at == counted_charge(w, -math.inf) > 0.0
    x = (k_lo + 100.5) * h
    untilted = float(
        reads.tilted_window_charge(x, k_lo=k_lo, size=size, h=h, theta=0.0, charges=charges)
    )
    assert untilted == counted_charge(w, x) >= float(w.charge_at(np.array([x]))[0])
    none = reads.Charges()
    assert (
        float(reads.tilted_window_charge(x, k_lo=k_lo, size=size, h=h, theta=0.02, charges=none))
        == 0.0
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"x": math.nan}, "x must not be NaN"),
        ({"h": 0.0}, "h must be a finite number > 0"),
        ({"h": math.nan}, "h must be a finite number > 0"),
        ({"size": -1}, "size must be >= 0"),
    ],
)
def test_a_charge_outside_its_domain_raises_naming_the_argument(kwargs, message) -> None:
    args = {
        "x": 0.5,
        "k_lo": 0,
        "size": 10,
        "h": 0.1,
        "theta": 0.1,
        "charges": reads.Charges(total_error=1e-16),
    }
    args.update(kwargs)
    x = args.pop("x")
    with pytest.raises(ValueError, match=message):
        reads.tilted_window_charge(np.array([0.2, x]), **args)


def test_the_weights_take_any_shape_and_answer_each_element_alone() -> None:
    positions = np.array([[0.25, -3.0], [math.inf, 1e6 + 0.5]])
    total, norm = reads.tilted_weights(positions, theta=0.01, h=1e-3)
    assert total.shape == norm.shape == positions.shape
    for index in np.ndindex(positions.shape):
        one = reads.tilted_weights(float(positions[index]), theta=0.01, h=1e-3)
        assert (float(one[0]), float(one[1])) == (total[index], norm[index])
    assert total[1, 0] == norm[1, 0] == math.inf
