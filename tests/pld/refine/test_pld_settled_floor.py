"""``delta_accuracy="epsilon"``: points whose upper side is below ``DELTA_FLOOR`` at every argument are done on
their upper side alone (``StepBrackets.settled_uppers``, ``dominated_direction.delta_sides``' ``settled``).

Such a point's bracket is [0, U] with U a certified upper bound below 1e-9, so it must lie above every certified
lower bound of the same delta (the relative rule's fine-grid bracket, the two-direction PLD's optimistic side)
and above dp_accounting's optimistic PLD; a point above the floor keeps its composed lower side, unchanged.
"""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.pld.accountants.subsampled_gaussian import SubsampledGaussianPLD
from hockeystick.pld.grid.distribution import compose_all, undominated_lower_sides
from hockeystick.pld.mechanisms.constructors import subsampled_gaussians
from hockeystick.pld.reads.epsilon_width import RIGHT_OFFSETS
from hockeystick.pld.refine import dominated_direction
from hockeystick.pld.refine.grid_start import StartGrid
from hockeystick.pld.refine.step_brackets import StepBrackets

EPS = np.linspace(0.5, 10.0, 20)
X = np.concatenate([EPS] + [EPS + d for d in RIGHT_OFFSETS])
FLOOR = SubsampledGaussianPLD.DELTA_FLOOR
# (sigma, q, rounds): below the floor at every eps, the first two starting below their sampling rate
# (the second settles on its below-rate grid: its span grid's upper side is above the floor at some eps)
SETTLED = [
    (1.0, 5e-4, 8000),
    (3.0, 5e-4, 100_000),
    (1.0, 1e-3, 1000),
    (4.0, 1e-3, 100),
    (2.0, 3e-4, 10_000),
]


def _accountant(sigma: float, q: float, rounds, rule: str = "epsilon") -> SubsampledGaussianPLD:
    return SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=rounds, accuracy=1e-2, delta_accuracy=rule, workers=1
    )


def _two_direction_lower(sigma: float, q: float, rounds: int, h: float) -> np.ndarray:
    """The two-direction PLD's certified lower side at EPS on grid h (direct bins, suffix maxima)."""
    two = subsampled_gaussians(sigma, q, value_discretization_interval=h)[0].self_compose(rounds)
    compose_all([two], True, direct_bins=True)
    ups = [pmf.delta(EPS) for pmf in two.composed(True)]
    sides = undominated_lower_sides([two], [ups], lambda pmf, i: pmf.delta(EPS), None, True)[0]
    return np.max([low for _, low in sides.values()], axis=0)


@pytest.mark.parametrize("sigma,q,rounds", SETTLED)
def test_settled_point_is_zero_below_a_certified_upper_bound_under_the_floor(sigma, q, rounds):
    lo, up = _accountant(sigma, q, rounds).delta(EPS, bound="both")
    assert np.all(lo == 0.0) and np.all(up < FLOOR)
    r_lo, r_up = _accountant(sigma, q, rounds, "relative").delta(EPS, bound="both")
    assert np.all(r_lo <= up) and np.all(0.0 <= r_up)
    assert np.all(_two_direction_lower(sigma, q, rounds, 1.6e-4) <= up)


def test_unblinded_points_below_the_floor_settle_on_their_span_grid():
    """The below-rate start is skipped where the span grid's upper side settles the point;
    a point above the floor is not settled, and gets the below-rate grid's composed lower side
    (> 0 at eps = 0.5, where delta is 3.6e-7)."""
    points = [(1.0, 5e-4, 8000.0, 1.0), (2.0, 3e-4, 1e4, 1.0), (0.8, 8.86e-4, 1000.0, 1.0)]
    acc = _accountant(1.0, 5e-4, 1)
    assert all(
        StartGrid(acc.accuracy, acc.delta_accuracy).first(p, EPS, "delta")
        < StartGrid(acc.accuracy, acc.delta_accuracy).span_start(p)
        for p in points
    )  # all unblinded
    settled = StepBrackets(acc.accuracy, acc.delta_accuracy, acc.tail, acc._build).settled_uppers(
        [0, 1, 2], points, [X] * 3, 1
    )
    assert sorted(settled) == [0, 1]
    for i, up in settled.items():
        direct = dominated_direction.delta_uppers(
            [points[i]],
            [StartGrid(acc.accuracy, acc.delta_accuracy).span_start(points[i])],
            [X],
            acc.tail,
            1,
            acc.accuracy,
            FLOOR,
        )[0]  # the windows sized to the floor
        assert np.array_equal(up, direct) and np.all(up < FLOOR)
    lo, up = _accountant(0.8, 8.86e-4, 1000).delta(EPS, bound="both")
    assert lo[0] > 0.0 and np.all(lo <= up) and up[0] >= FLOOR


@pytest.mark.parametrize(
    "sigma,q,rounds,h",
    [(1.0, 1e-3, 1000, 6.4e-4), (2.047, 7.85e-3, 10481, 3.2e-4), (0.8, 8.86e-4, 5964, 6.4e-4)],
)
def test_delta_sides_settles_only_points_below_the_floor_everywhere(sigma, q, rounds, h):
    """``settled``: a point whose upper side is below it at every argument gets no lower side and the larger of the
    remove direction's and the screen's upper values; any other point gets what ``settled=0`` gives, bit for bit."""
    point = [(sigma, q, float(rounds), 1.0)]
    ((pess, ups, sides),) = dominated_direction.delta_sides(
        point, [h], [X], 1e-15, 1, True, 0.1 * FLOOR, FLOOR
    )
    ((pess0, ups0, sides0),) = dominated_direction.delta_sides(
        point, [h], [X], 1e-15, 1, True, 0.1 * FLOOR
    )
    if np.all(np.max(ups, axis=0) < FLOOR):
        assert (
            sides == {} and len(ups) == 2 and pess[1].h > h
        )  # the remove direction and the coarse screen
        assert np.array_equal(ups[0], ups0[0])
    else:
        assert len(ups) == len(ups0) and all(np.array_equal(a, b) for a, b in zip(ups, ups0))
        assert sides.keys() == sides0.keys()
        assert all(np.array_equal(sides[d][1], sides0[d][1]) for d in sides)


def test_some_delta_sides_case_settles_and_some_does_not():
    kinds = set()
    for sigma, q, rounds, h in [(1.0, 1e-3, 1000, 6.4e-4), (0.8, 8.86e-4, 5964, 6.4e-4)]:
        ((_, _, sides),) = dominated_direction.delta_sides(
            [(sigma, q, float(rounds), 1.0)], [h], [X], 1e-15, 1, True, 0.1 * FLOOR, FLOOR
        )
        kinds.add(sides == {})
    assert kinds == {True, False}


@pytest.mark.parametrize("sigma,q,rounds", SETTLED[:2])
def test_settled_upper_side_is_above_dp_accountings_optimistic_pld(sigma, q, rounds):
    pld_lib = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    _, up = _accountant(sigma, q, rounds).delta(EPS, bound="both")
    ref = pld_lib.from_gaussian_mechanism(
        sigma, sampling_prob=q, value_discretization_interval=1e-4, pessimistic_estimate=False
    ).self_compose(rounds)
    assert np.all(np.array([ref.get_delta_for_epsilon(float(e)) for e in EPS]) <= up)
