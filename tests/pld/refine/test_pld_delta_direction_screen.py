"""``screened_delta_reference.delta_sides``: the delta bracket of the Poisson-subsampled Gaussian with the add
direction screened on a coarse grid, against the two-direction PLD on the same grid (the step's rules at an accuracy
no argument misses: the lower side is the directions' charged values, no suffix maxima).

Where the screen clears by domination (its upper bound at or below the remove direction's lower values) the
bracket is the two-direction PLD's, bit for bit; below the caller's floor the screen's upper bound stands for
the add direction's, so the two agree once both are clipped to that floor.  Both are certified, so the lower
side stays below dp_accounting's pessimistic PLD.
"""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.pld.accountants.subsampled_gaussian import SubsampledGaussianPLD
from hockeystick.pld.grid.distribution import compose_all, undominated_lower_sides
from hockeystick.pld.mechanisms.constructors import subsampled_gaussians
from hockeystick.pld.reads.epsilon_width import RIGHT_OFFSETS
from hockeystick.pld.refine.grid_rules import points_rules

from . import screened_delta_reference

EPS = np.linspace(0.5, 10.0, 20)
X = np.concatenate([EPS] + [EPS + d for d in RIGHT_OFFSETS])
FLOOR = 1e-10
CASES = [
    (2.047, 7.85e-3, 10481, 3.2e-4),
    (0.8, 8.86e-4, 5964, 6.4e-4),
    (1.28, 3.79e-3, 2812, 6.4e-4),
    (0.5, 3.79e-3, 100, 2.56e-3),
    (1.619, 0.0695, 910, 9.05e-4),
]
RULES = points_rules(1e300, 0.0, "delta", "epsilon")


def _screened(
    sigma: float, q: float, rounds: int, h: float, direct: bool, x: np.ndarray = X
) -> tuple[np.ndarray, np.ndarray, tuple[bool, bool, bool]]:
    """The screened step's (lower, upper) at x, every argument the point's own, and its decisions."""
    ((lo, up, _, _, decisions),) = screened_delta_reference.delta_sides(
        [(sigma, q, float(rounds), 1.0)], [h], [x], 1e-15, RULES, [x.size], [None], 1, direct, FLOOR
    )
    return lo, up, decisions


def _two_directions(
    sigma: float, q: float, rounds: int, h: float, direct: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The two-direction PLD's upper values and charged lower values (no suffix maxima) at X."""
    two = subsampled_gaussians(sigma, q, value_discretization_interval=h)[0].self_compose(rounds)
    compose_all([two], True, direct_bins=direct)
    ups = [pmf.delta(X) for pmf in two.composed(True)]
    sides = undominated_lower_sides(
        [two], [ups], lambda pmf, i: pmf.delta(X, envelope=False), None, direct
    )[0]
    return np.max([low for _, low in sides.values()], axis=0), np.max(ups, axis=0)


@pytest.mark.parametrize("direct", [False, True])
@pytest.mark.parametrize("sigma,q,rounds,h", CASES)
def test_screened_sides_are_the_two_direction_ones_above_the_floor(sigma, q, rounds, h, direct):
    lo, up, (cleared, settled, add_lower) = _screened(sigma, q, rounds, h, direct)
    assert not settled and not (cleared and add_lower)
    two_lo, two_up = _two_directions(sigma, q, rounds, h, direct)
    assert np.array_equal(np.maximum(up, FLOOR), np.maximum(two_up, FLOOR))
    assert np.array_equal(np.maximum(lo, FLOOR), np.maximum(two_lo, FLOOR))
    assert np.all(lo <= up)


def test_some_case_clears_and_some_does_not():
    """The screen is exercised both ways by CASES (else the test above checks only one path)."""
    kinds = {_screened(sigma, q, rounds, h, True)[2][0] for sigma, q, rounds, h in CASES}
    assert kinds == {True, False}


def test_screened_lower_side_is_below_dp_accountings_pessimistic_pld():
    pld_lib = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    sigma, q, rounds = 0.8, 8.86e-4, 5964
    lo, _, _ = _screened(sigma, q, rounds, 6.4e-4, True, EPS)
    ref = pld_lib.from_gaussian_mechanism(
        sigma, sampling_prob=q, value_discretization_interval=1e-4
    )
    ref = ref.self_compose(rounds)
    assert np.all(lo <= np.array([ref.get_delta_for_epsilon(float(e)) for e in EPS]))


def _one_round_exact(sigma: float, q: float, eps: float) -> float:
    """delta(eps) of one round of the Poisson-subsampled Gaussian at 50 digits: the larger of the remove
    direction, P = (1 - q) N(0, s^2) + q N(1, s^2) against Q = N(0, s^2), and the add direction (P and Q
    swapped); each loss is monotone in x, so each delta is one tail difference at the threshold x*."""
    import mpmath

    mpmath.mp.dps = 50
    s, q, g = mpmath.mpf(sigma), mpmath.mpf(q), mpmath.exp(mpmath.mpf(eps))
    tail = lambda z: mpmath.ncdf(-z)  # noqa: E731
    x = s * s * mpmath.log((g - 1 + q) / q) + mpmath.mpf(1) / 2
    remove = (1 - q) * tail(x / s) + q * tail((x - 1) / s) - g * tail(x / s)
    add = mpmath.mpf(0)
    if 1 / g > 1 - q:
        x = s * s * mpmath.log((1 / g - 1 + q) / q) + mpmath.mpf(1) / 2
        add = mpmath.ncdf(x / s) - g * ((1 - q) * mpmath.ncdf(x / s) + q * mpmath.ncdf((x - 1) / s))
    return float(max(remove, add, mpmath.mpf(0)))


EDGE_EPS = np.array([0.0, 0.5, 3.0, 10.0, 700.0, np.inf])


@pytest.mark.parametrize(
    "sigma,q",
    [
        (1.0, 5e-324),
        (1.0, 1e-300),
        (0.3, 0.01),
        (0.8, 1e-3),
        (2.0, 0.5),
        (1.0, 1.0 - 2.0**-53),
        (50.0, 0.2),
    ],
)
def test_epsilon_rule_one_round_brackets_the_exact_delta(sigma, q):
    """One round (the screen on a 4x coarser grid, the below-rate start and the steps of the epsilon rule all
    reached) at the sampling rate's edges and eps from 0 to inf: the bracket holds the 50-digit delta."""
    lo, up = SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=1, accuracy=1e-2, delta_accuracy="epsilon", workers=1
    ).delta(EDGE_EPS, bound="both")
    exact = np.array([_one_round_exact(sigma, q, e) if np.isfinite(e) else 0.0 for e in EDGE_EPS])
    assert np.all((0.0 <= lo) & (lo <= exact) & (exact <= up) & (up <= 1.0)), (lo, exact, up)


@pytest.mark.parametrize(
    "sigma,q,rounds",
    [
        (1.0, 5e-324, 100),
        (1.0, 1.0 - 2.0**-53, 10),
        (0.3, 0.01, 10),
        (1.0, 1e-300, 10**6),
        (2.0, 0.5, 1000),
        (0.8, 1e-3, 2**20),
    ],
)
def test_epsilon_rule_brackets_overlap_the_two_direction_ones_at_the_edges(sigma, q, rounds):
    """Many rounds at the edges: the epsilon rule's bracket (screened add direction) and the relative rule's
    (two-direction PLD) are both certified, so they overlap; both lie in [0, 1]; and no sampling rate below 1
    exceeds the Gaussian mechanism's delta (rounded up, certified_theta)."""
    from hockeystick.numerics.certified_theta import radius_up, theta_upper

    kw = dict(sigma=sigma, sampling_rate=q, rounds=rounds, accuracy=1e-2, workers=1)
    lo, up = SubsampledGaussianPLD(**kw, delta_accuracy="epsilon").delta(EDGE_EPS, bound="both")
    r_lo, r_up = SubsampledGaussianPLD(**kw).delta(EDGE_EPS, bound="both")
    assert np.all((0.0 <= lo) & (lo <= up) & (up <= 1.0))
    assert np.all(lo <= r_up) and np.all(r_lo <= up)
    assert np.all(lo <= theta_upper(radius_up(np.sqrt(rounds) / sigma), EDGE_EPS))
