"""``delta_accuracy="epsilon"``: points whose upper side is below ``DELTA_FLOOR`` at every argument are done on
their upper side alone (the core's points_delta_start.hpp before the many-points loop, the screened step's ``settled``:
``screened_delta_reference.delta_sides``).

Such a point's bracket is [0, U] with U a certified upper bound below 1e-9, so it must lie above every certified
lower bound of the same delta (the relative rule's fine-grid bracket, the two-direction PLD's optimistic side, the
max-of-outputs test in mpmath); a point above the floor keeps its composed lower side, unchanged.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld.accountants.subsampled_gaussian import SubsampledGaussianPLD
from hockeystick.pld.grid.distribution import compose_all, undominated_lower_sides
from hockeystick.pld.mechanisms.constructors import subsampled_gaussians
from hockeystick.pld.reads.epsilon_width import RIGHT_OFFSETS
from hockeystick.pld.refine.grid_rules import points_rules
from hockeystick.pld.refine.grid_start import StartGrid
from hockeystick.pld.refine.near_one import NearOne
from hockeystick.pld.refine.points import Refinement

from . import screened_delta_reference

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


def test_unblinded_points_below_the_floor_settle_on_their_span_grid(monkeypatch):
    """The below-rate start is skipped where the span grid's upper side settles the point: the core settles the
    first two before its loop, their brackets [0, U] with U the upper side the package's own factors give on the span
    grid (``screened_delta_reference.delta_uppers``, the windows sized to the floor), bit for bit; a point above the floor
    is not settled, and gets the below-rate grid's composed lower side (> 0 at eps = 0.5, where delta is 3.6e-7)."""
    points = [(1.0, 5e-4, 8000.0, 1.0), (2.0, 3e-4, 1e4, 1.0), (0.8, 8.86e-4, 1000.0, 1.0)]
    acc = _accountant(1.0, 5e-4, 1)
    start = StartGrid(acc.accuracy, acc.delta_accuracy)
    assert all(start.first(p, EPS, "delta") < start.span_start(p) for p in points)  # all unblinded
    core = _core.pld_refine.refine_subsampled_gaussian_deltas
    settled: list[list[int]] = []

    def spied(**arguments):
        found = core(**arguments)
        settled.append(found[4])
        return found

    monkeypatch.setattr(_core.pld_refine, "refine_subsampled_gaussian_deltas", spied)
    refinement = Refinement(acc.accuracy, acc.delta_accuracy, acc.tail, NearOne())
    found = refinement.refined(points, [EPS.copy() for _ in points], "delta", threads=1)
    assert settled == [[0, 1]]
    for i in (0, 1):
        direct = screened_delta_reference.delta_uppers(
            [points[i]], [start.span_start(points[i])], [X], acc.tail, 1, acc.accuracy, FLOOR
        )[0][: EPS.size]
        lo, up = found[i]
        assert np.all(lo == 0.0) and np.array_equal(up, direct) and np.all(up < FLOOR)
    lo, up = found[2]
    assert lo[0] > 0.0 and np.all(lo <= up) and up[0] >= FLOOR


def _screened(
    point: list[tuple[float, float, float, float]], h: float, settled: float
) -> tuple[np.ndarray, np.ndarray, tuple[bool, bool, bool]]:
    """``delta_sides``' (lower, upper) at X, every argument the point's own (rules at an accuracy no argument misses:
    no suffix maxima), and its decisions (cleared, settled, add_lower)."""
    rules = points_rules(1e300, 0.0, "delta", "epsilon")
    ((lo, up, _, _, decisions),) = screened_delta_reference.delta_sides(
        point, [h], [X], 1e-15, rules, [X.size], [None], 1, True, 0.1 * FLOOR, settled
    )
    return lo, up, decisions


@pytest.mark.parametrize(
    "sigma,q,rounds,h",
    [(1.0, 1e-3, 1000, 6.4e-4), (2.047, 7.85e-3, 10481, 3.2e-4), (0.8, 8.86e-4, 5964, 6.4e-4)],
)
def test_delta_sides_settles_only_points_below_the_floor_everywhere(sigma, q, rounds, h):
    """``settled``: a point whose upper side is below it at every argument gets no lower side (0) beside the larger
    of the remove direction's and the screen's upper values, above the lower side ``settled=0`` certifies; any other
    point gets what ``settled=0`` gives, bit for bit."""
    point = [(sigma, q, float(rounds), 1.0)]
    lo, up, decisions = _screened(point, h, FLOOR)
    lo0, up0, decisions0 = _screened(point, h, 0.0)
    if np.all(up < FLOOR):
        assert decisions == (True, True, False)  # the remove direction and the coarse screen
        assert np.all(lo == 0.0) and np.all(lo0 <= up)
    else:
        assert decisions == decisions0
        assert np.array_equal(lo, lo0) and np.array_equal(up, up0)


def test_some_delta_sides_case_settles_and_some_does_not():
    kinds = {
        _screened([(sigma, q, float(rounds), 1.0)], h, FLOOR)[2][1]
        for sigma, q, rounds, h in [(1.0, 1e-3, 1000, 6.4e-4), (0.8, 8.86e-4, 5964, 6.4e-4)]
    }
    assert kinds == {True, False}


def _max_of_outputs_lower(sigma: float, q: float, rounds: int, eps: float) -> float:
    """A certified lower bound on the true delta(eps) of the remove direction, independent of the package (mpmath,
    30 digits): the test "some round's output is at least c", P(S) - e^eps Q(S) with P(S) = 1 - (1 - q Phi((1 - c) /
    sigma) - (1 - q) Phi(-c / sigma))^T and Q(S) = 1 - Phi(c / sigma)^T, at the best c of a grid past the one-round
    likelihood ratio's crossing of e^eps (any c gives a lower bound)."""
    with mpmath.workdps(30):
        s, p, e = mpmath.mpf(sigma), mpmath.mpf(q), mpmath.mpf(eps)

        def tail(z: mpmath.mpf) -> mpmath.mpf:
            return mpmath.erfc(z / mpmath.sqrt(2)) / 2

        def at(c: mpmath.mpf) -> mpmath.mpf:
            released = -mpmath.expm1(
                rounds * mpmath.log1p(-(p * tail((c - 1) / s) + (1 - p) * tail(c / s)))
            )
            neighbour = -mpmath.expm1(rounds * mpmath.log1p(-tail(c / s)))
            return released - mpmath.exp(e) * neighbour

        top = 1 + s * s * (e - mpmath.log(p)) + 10 * s
        best = max(mpmath.linspace(0, top, 41), key=at)
        best = max(mpmath.linspace(best - top / 40, best + top / 40, 21), key=at)
        return float(max(at(best), 0))


@pytest.mark.parametrize("sigma,q,rounds", SETTLED[:2])
def test_settled_upper_side_is_above_the_max_of_outputs_lower_bound(sigma, q, rounds):
    """The settled upper side lies above an independent certified lower bound of the truth at every eps (sigma 1:
    6.44e-12 at eps 0.5 down to 1.6e-66 at 10; sigma 3: 1.4e-101 at 0.5, below the doubles past 5).
    dp_accounting's optimistic PLD is no lower bound here: its self_compose puts its tail_mass_truncation, 1e-15, at
    infinity in the optimistic estimate too (it reads exactly 1e-15 at every eps for sigma 3, and from eps 4 for
    sigma 1), and its round-off at these points is ~1e-13 (-5.7e-14 at sigma 1, eps 3), where the truth is below
    1e-15: the Chernoff bound on the privacy loss, E[(P/Q)^lambda]^T e^(-lambda eps) over both directions (mpmath),
    is 3.8e-18 for sigma 3 at eps 0.5 and 2.5e-15 for sigma 1 at eps 2.5."""
    _, up = _accountant(sigma, q, rounds).delta(EPS, bound="both")
    lower = np.array([_max_of_outputs_lower(sigma, q, rounds, float(e)) for e in EPS])
    assert np.all(lower <= up)
    assert np.all(lower[:5] > 0.0)  # a bound, not zero, where the test reads it
