"""An atom's loss computed as log p - log q errs by up to e = 4u (|log p| + |log q|) + 32u
(``finite_atoms.loss_round_off``); the grid builders charge it as a shift of the curve
(``GridPMF.loss_shift``): delta_true(eps) <= delta_pess(eps - e), delta_true(eps) >= delta_opt(eps + e),
and the shifts add under composition.

The pair P = (1/2, 1/2), Q = (1 - q, q) with q = e^-L / 2 (the floats as given) has its top loss
log(1/2) - log q computed as exactly L for L = 5, 100 and 700, a grid point for h = 1 and 1e-4,
while the true loss is L + 1.4e-17, L - 4.2e-17 and L + 8.6e-18: without the charge the pessimistic
side (L = 5, 700) reads delta = 0 at eps = L where the truth is ~1e-17, and the optimistic side
(L = 100) reads ~1e-17 just below L where the truth is 0.  Both sides of delta and of epsilon are
checked against the exact T-fold composition in 50-digit mpmath, T = 1..10 (on h = 1e-4 only while
the composed window stays small: T <= 10 at L = 5, T <= 2 at L = 100, T = 1 at L = 700).
The same holds for an atom ``add_atom`` moves onto a grid point (up to 4 ulps) and for pld.laplace's
atoms at +-a, a = sensitivity / scale computed by one division.
"""

import math
import warnings

import mpmath
import numpy as np
import pytest

from hockeystick import pld
from hockeystick.pld.compose.finite_atoms import loss_round_off

from .. import monotone_reference as monotone

MP_DPS = 50
mpmath.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test

LOSSES = [5.0, 100.0, 700.0]
GRIDS = [1.0, 1e-4]
TARGETS = [1e-300, 1e-200, 1e-100, 1e-30, 1e-18, 1e-17, 1e-16, 1e-12, 1e-6, 1e-3, 0.05]
COUNTS = [1, 2, 3, 5, 10]
# (loss, h, count) with the composed window count * loss / h at most 2e6 points (a few seconds each)
SETTINGS = [
    (loss, h, count)
    for loss in LOSSES
    for h in GRIDS
    for count in COUNTS
    if count * loss / h <= 2e6
]


def _pair(loss: float) -> tuple[list[float], list[float]]:
    q_top = math.exp(-loss) / 2
    return [0.5, 0.5], [1.0 - q_top, q_top]


def _exact_delta(p: list[float], q: list[float], count: int, eps: float) -> mpmath.mpf:
    """delta(eps) of the count-fold product of the pair as given (its float masses taken exactly):
    sum over the number k of top outcomes of C(count, k) (P_k - e^eps Q_k)_+."""
    p_lo, p_hi = (mpmath.mpf(x) for x in p)
    q_lo, q_hi = (mpmath.mpf(x) for x in q)
    g = mpmath.exp(mpmath.mpf(eps))
    total = mpmath.mpf(0)
    for k in range(count + 1):
        a = p_lo ** (count - k) * p_hi**k
        b = q_lo ** (count - k) * q_hi**k
        total += mpmath.binomial(count, k) * max(a - g * b, mpmath.mpf(0))
    return total


def _probe_points(loss: float, h: float, count: int) -> list[float]:
    """Arguments around the composed top loss (a grid point) and the grid points beside it."""
    top = count * loss
    near = [
        top,
        math.nextafter(top, -math.inf),
        math.nextafter(top, math.inf),
        top - h,
        top + h,
        top - 1e-13 * top,
        top + 1e-13 * top,
        top - 0.5 * h,
    ]
    return sorted({x for x in near if x >= 0.0})


@pytest.mark.parametrize("loss, h, count", SETTINGS)
def test_both_epsilon_sides_contain_the_exact_crossing(loss, h, count):
    p, q = _pair(loss)
    dist = pld.from_distributions(
        p, q, value_discretization_interval=h, symmetric=True
    ).self_compose(count)
    lo, up = dist.epsilon(np.array(TARGETS), bound="both")
    for target, a, b in zip(TARGETS, lo, up):
        assert a <= b
        assert _exact_delta(p, q, count, b) <= target, (loss, h, count, target, b)
        assert a <= 0.0 or _exact_delta(p, q, count, a) >= target, (loss, h, count, target, a)


@pytest.mark.parametrize("loss, h, count", SETTINGS)
def test_both_delta_sides_contain_the_exact_value(loss, h, count):
    p, q = _pair(loss)
    dist = pld.from_distributions(
        p, q, value_discretization_interval=h, symmetric=True
    ).self_compose(count)
    eps = np.array(_probe_points(loss, h, count))
    lo, up = dist.delta(eps, bound="both")
    for x, a, b in zip(eps, lo, up):
        exact = _exact_delta(p, q, count, x)
        assert a <= exact <= b, (loss, h, count, x, a, float(exact), b)


@pytest.mark.parametrize("count", COUNTS)
def test_the_charge_is_count_times_the_atoms_round_off(count):
    """The shift carried by the composition is at least count times the largest atom's bound (the
    two atoms' losses log(1/2) - log(1 - q) and log(1/2) - log q) and at most a few ulps above it,
    and the upper epsilon at a target below every atom's mass moves by it, not by a cell."""
    p, q = _pair(700.0)
    dist = pld.from_distributions(
        p, q, value_discretization_interval=1.0, symmetric=True
    ).self_compose(count)
    each = max(loss_round_off(math.log(a), math.log(b)) for a, b in zip(p, q))
    (pmf,) = dist.composed(True)
    assert count * each <= pmf.loss_shift <= count * each * (1 + 1e-12)
    up = dist.epsilon(1e-300)
    assert (
        count * 700.0 < up <= count * 700.0 + pmf.loss_shift * (1 + 1e-12) + math.ulp(count * 700.0)
    )


def test_exact_losses_carry_no_charge():
    """Outcomes with p == q (loss exactly 0) and with q == 0 (loss +infinity) are exact: no shift."""
    dist = pld.from_distributions(
        [0.25, 0.5, 0.25], [0.25, 0.75, 0.0], value_discretization_interval=1e-2
    )
    forward = next(iter(dist.directions[0]))
    assert forward.upper.loss_shift > 0.0  # the middle outcome's loss log(0.5 / 0.75) is computed
    same = pld.from_distributions(
        [0.5, 0.5], [0.5, 0.5], value_discretization_interval=1e-2, symmetric=True
    )
    f = next(iter(same.directions[0]))
    assert f.upper.loss_shift == 0.0 and f.lower is not None and f.lower.loss_shift == 0.0


@pytest.mark.parametrize("ulps", [-3, -2, -1, 1, 2, 3])
@pytest.mark.parametrize("h", [1.0, 0.25])
def test_an_atom_moved_onto_a_grid_point_charges_the_distance(ulps, h):
    """``add_atom`` (pld/grid/cells.hpp) puts an atom within 4 ulps of a grid point on it; the distance is
    charged too: an atom given exactly at 700 + 2 ulps sits at 700 on the grid, where the pessimistic
    side alone would read delta(700) = 0 against the true 1 - e^{-2 ulps}."""
    loss = 700.0 + ulps * math.ulp(700.0)
    f = monotone.factor_from_atoms("one atom", np.array([loss]), np.array([1.0]), h, 0.0)
    assert f.upper.loss_shift >= abs(loss - 700.0) and f.upper.loss_shift == f.lower.loss_shift
    eps = np.array(
        [700.0, math.nextafter(700.0, -math.inf), loss, 700.0 - 2 * math.ulp(700.0), 699.9]
    )
    upper = f.upper.delta(eps)
    lower = f.lower.delta(eps)
    for x, a, b in zip(eps, lower, upper):
        exact = max(1 - mpmath.exp(mpmath.mpf(x) - mpmath.mpf(loss)), 0)
        assert a <= exact <= b, (ulps, h, x, a, float(exact), b)
    up = f.upper.epsilon(np.array([1e-300, 1e-14]))
    low = f.lower.epsilon(np.array([1e-300, 1e-14]))
    for t, a, b in zip([1e-300, 1e-14], low, up):
        assert 1 - mpmath.exp(mpmath.mpf(b) - mpmath.mpf(loss)) <= t
        assert 1 - mpmath.exp(mpmath.mpf(a) - mpmath.mpf(loss)) >= t


def test_an_atom_far_from_the_grid_points_is_not_moved():
    """No atom moved, no exact loss: nothing charged (the values stay those of the atoms as placed)."""
    f = monotone.factor_from_atoms(
        "one atom", np.array([700.5, 3.25]), np.array([0.5, 0.5]), 1.0, 0.0
    )
    assert f.upper.loss_shift == 0.0 and f.lower.loss_shift == 0.0


LAPLACE = [(1.0, 0.1), (3.0, 0.3), (1.0, 0.7), (0.7, 0.1), (1.0, 1.0 / 3.0), (2.0, 0.02)]


def _laplace_delta(distance: float, scale: float, eps: float) -> mpmath.mpf:
    """delta(eps) of Lap(distance, scale) vs Lap(0, scale), the floats as given, exactly:
    1 - e^{(eps - a)/2} for |eps| <= a, a = distance / scale in 50 digits (0 above a)."""
    a = mpmath.mpf(distance) / mpmath.mpf(scale)
    e = mpmath.mpf(eps)
    return 1 - mpmath.exp((e - a) / 2) if e <= a else mpmath.mpf(0)


@pytest.mark.parametrize("distance, scale", LAPLACE)
@pytest.mark.parametrize("h", [1.0, 1e-4])
def test_laplace_atoms_charge_the_division_and_the_move(distance, scale, h):
    """pld.laplace's atoms at +-a, a = distance / scale computed (within u a of the true ratio) and
    moved onto a grid point when within 4 ulps of it (``add_atom``): both sides still bracket the
    exact delta at and beside a, and both epsilon sides the exact crossing, down to 1e-300."""
    dist = pld.laplace(scale, sensitivity=distance, value_discretization_interval=h)
    a = distance / scale
    eps = np.array(
        [
            a,
            math.nextafter(a, -math.inf),
            math.nextafter(a, math.inf),
            a - 4 * math.ulp(a),
            a + 4 * math.ulp(a),
            a - h,
            a * (1 - 1e-13),
        ]
    )
    eps = eps[eps >= 0]
    lo, up = dist.delta(eps, bound="both")
    for x, d_lo, d_up in zip(eps, lo, up):
        exact = _laplace_delta(distance, scale, x)
        assert d_lo <= exact <= d_up, (distance, scale, h, x, d_lo, float(exact), d_up)
    targets = np.array([1e-300, 1e-17, 1e-15, 1e-12])
    e_lo, e_up = dist.epsilon(targets, bound="both")
    for t, x_lo, x_up in zip(targets, e_lo, e_up):
        assert _laplace_delta(distance, scale, x_up) <= t, (distance, scale, h, t, x_up)
        assert x_lo <= 0 or _laplace_delta(distance, scale, x_lo) >= t, (
            distance,
            scale,
            h,
            t,
            x_lo,
        )


def test_masses_a_few_ulps_apart_are_charged_even_where_their_logs_are_equal():
    """log(0.1) == log(0.1 + 1 ulp): the outcome's true loss is 1.4e-16, not 0, so it is charged; the
    pair's exact curve: delta(0) = b - a, eps(delta -> 0) = log(b / a) (50 digits)."""
    a = 0.1
    b = math.nextafter(a, 1.0)
    assert np.log(a) == np.log(b)
    c = 1.0 - a - b
    true_delta = mpmath.mpf(b) - mpmath.mpf(a)
    true_eps = mpmath.log(mpmath.mpf(b) / mpmath.mpf(a))
    for h in (1.0, 1e-4):
        d = pld.from_distributions([a, b, c], [b, a, c], value_discretization_interval=h)
        lo, up = d.delta(0.0, bound="both")
        assert lo <= true_delta <= up
        lo, up = d.epsilon(1e-40, bound="both")
        assert lo <= true_eps * (1 - mpmath.mpf(2) ** -40) and up >= true_eps
        assert d.self_compose(5).delta(0.0) >= true_delta  # five rounds: delta only grows


def test_a_shifted_curve_at_infinite_eps_warns_nothing():
    """eps = +-inf stays infinite under the shift (nextafter would make it finite, and eps / h overflow)."""
    d = pld.laplace(1.0, value_discretization_interval=1e-3).self_compose(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert d.delta(np.inf, bound="both") == (0.0, 0.0)
        lo, up = d.delta(np.array([-np.inf, 0.0, np.inf]), bound="both")
    assert np.all((0.0 <= lo) & (lo <= up) & (up <= 1.0)) and up[0] == 1.0


@pytest.mark.parametrize("mass", [1e-150, 1e-165, 1e-200, 3e-300])
def test_the_lower_side_of_a_tiny_atom_between_grid_points_stays_below_the_truth(mass):
    """The tent's height c d / (c + d) underflowed to 0 below c, d ~ 1e-162, so the optimistic side
    took the pessimistic chord: a lower delta(0.5) of 1.7e-166 where the truth is 0 (the atom's loss,
    log 1.3636 = 0.31, is below 0.5), and a lower eps(1e-320) of 1.0 above the true 0.31."""
    d = pld.from_distributions([mass, 1.0], [mass / 1.3636, 1.0], value_discretization_interval=1.0)
    lo, up = d.delta(0.5, bound="both")
    assert lo == 0.0 and up >= 0.0
    lo, up = d.epsilon(1e-320, bound="both")
    true_eps = mpmath.log(1 - mpmath.mpf(1e-320) / mpmath.mpf(mass)) + mpmath.log(
        mpmath.mpf(mass) / (mpmath.mpf(mass) / mpmath.mpf(1.3636))
    )
    assert lo <= true_eps <= up


def test_a_heterogeneous_composition_carries_at_least_the_exact_sum_of_its_shifts():
    """Many distinct factors (12 Laplace mechanisms, each with its own loss shift) composed in one item:
    the composed loss shift (pld/compose/compose.hpp's compose_many, read back by the facade) is at least the exact
    sum of count x shift over the factors (Fractions: no rounding), and within 1e-12 relative of it."""
    from fractions import Fraction

    from hockeystick.pld.compose.fft import compose

    laplaces = [pld.laplace(0.3 + 0.07 * i, value_discretization_interval=1e-2) for i in range(12)]
    for pessimistic in (True, False):
        factors = [(d.composed(pessimistic)[0], 3 + 5 * i) for i, d in enumerate(laplaces)]
        assert all(f.loss_shift > 0.0 for f, _ in factors)
        exact = sum(Fraction(count) * Fraction(f.loss_shift) for f, count in factors)
        got = compose(factors, pessimistic=pessimistic).loss_shift
        assert Fraction(got) >= exact
        assert got <= float(exact) * (1 + 1e-12)
