"""The grid's epsilon inversion rounds outward (``pld/reads/hockey_stick.hpp``'s ``charged_epsilon`` and
``pld/reads/epsilon_bracket.hpp``'s ``charged_lower_epsilon``): the upper epsilon is never ulps below the
true crossing, the lower never ulps above it.

The pair P = (1/2, 1/2), Q = (1 - e^-L / 2, e^-L / 2) has delta(eps) = (1 - e^{eps - L}) / 2 for
eps in [-log 2 + ..., L) (the outcome of loss L alone), so epsilon(target) = L + log1p(-2 target),
in closed form; at a target where this crossing lies on the steep side of the atom, the plain
inversion l + log1p(arg) rounded to nearest lands 1-2 ulps below it, so the inversion must round outward
(such targets are what tests/fuzz/event_tree_search.py searches for).  Checked in 50-digit mpmath.
"""

import math

import mpmath
import numpy as np
import pytest

from hockeystick import pld

MP_DPS = 50
mpmath.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test

LOSSES = [0.7, 5.0, 30.0, 100.0, 700.0]
TARGETS = [1e-12, 1e-10, 1e-6, 1e-3, 0.05, 0.2, 0.45]


def _true_delta(loss: float, eps: float) -> mpmath.mpf:
    """delta(eps) of the pair above at its remove direction, exact: sum over outcomes of (p - e^eps q)_+."""
    q_top = mpmath.exp(-mpmath.mpf(loss)) / 2
    p = [mpmath.mpf(0.5), mpmath.mpf(0.5)]
    q = [1 - q_top, q_top]
    g = mpmath.exp(mpmath.mpf(eps))
    return sum(max(pi - g * qi, mpmath.mpf(0)) for pi, qi in zip(p, q))


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("h", [1e-2, 1e-3, 3.7e-3])
def test_epsilon_bracket_contains_the_exact_crossing(loss, h):
    q_top = math.exp(-loss) / 2
    grid = pld.from_distributions(
        [0.5, 0.5], [1.0 - q_top, q_top], value_discretization_interval=h, symmetric=True
    )
    for target in TARGETS:
        lo, up = grid.epsilon(target, bound="both")
        assert lo <= up
        # the upper epsilon meets the target exactly; the lower one does not go past the crossing
        assert _true_delta(loss, up) <= target, (loss, h, target, up)
        assert lo <= 0.0 or _true_delta(loss, lo) >= target, (loss, h, target, lo)
        # where delta is steep (slope 1/2 - target), the upper side stays within a few cells of it
        exact = float(mpmath.mpf(loss) + mpmath.log1p(-2 * mpmath.mpf(target)))
        if target <= 1e-3:
            assert up - exact <= 2 * h


def test_upper_epsilon_meets_its_own_upper_delta():
    """The answer is consistent with the certified delta side: delta_upper(epsilon_upper(t)) <= t."""
    for loss in LOSSES:
        q_top = math.exp(-loss) / 2
        grid = pld.from_distributions(
            [0.5, 0.5], [1.0 - q_top, q_top], value_discretization_interval=0.01
        )
        for target in TARGETS:
            eps = grid.epsilon(target)
            assert grid.delta(eps) <= target, (loss, target, eps)


def test_gaussian_composition_bracket_still_contains_the_closed_form():
    """A composition whose every step is charged: the bracket still holds the exact Gaussian epsilon."""
    mu = math.sqrt(100) / 3.0
    targets = np.array([1e-9, 1e-5, 1e-2])
    g = pld.gaussian(3.0, value_discretization_interval=1e-3).self_compose(100)
    lo, up = g.epsilon(targets, bound="both")

    def delta(eps: float) -> mpmath.mpf:
        e, m = mpmath.mpf(eps), mpmath.mpf(mu)
        return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)

    for t, a, b in zip(targets, lo, up):
        assert delta(b) <= t <= delta(a)


@pytest.mark.parametrize("h", [1.0, 1e-4])
def test_an_atom_loss_computed_onto_a_grid_point_keeps_its_round_off(h):
    """The pair's top loss log(1/2) - log(q) with q = e^-700 / 2 in double precision is 700 + 8.6e-18,
    computed as 700.0: a grid point for h = 1 or 1e-4.  The pessimistic side puts the atom at 700.0,
    so its epsilon at a target below the 4.3e-18 the atom leaves there is 700.0, where the true delta
    (the pair as given, in 50 digits) is 4.3e-18 > target.  The grid builders charge the loss's
    round-off (``finite_atoms.loss_round_off``) as a shift of the curve (``GridPMF.loss_shift``), as the
    finite-atom path does (tests/pld/mechanisms/test_pld_atom_loss_round_off.py checks both sides, composed)."""
    q_top = math.exp(-700.0) / 2
    grid = pld.from_distributions(
        [0.5, 0.5], [1.0 - q_top, q_top], value_discretization_interval=h, symmetric=True
    )
    up = grid.epsilon(1e-300)
    g = mpmath.exp(mpmath.mpf(up))
    exact = max(mpmath.mpf(0.5) - g * (1 - mpmath.mpf(q_top)), 0) + max(
        mpmath.mpf(0.5) - g * mpmath.mpf(q_top), 0
    )
    assert exact <= 1e-300
