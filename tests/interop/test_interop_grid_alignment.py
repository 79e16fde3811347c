"""Loss grids through the Laplace atoms (pld.refine.grid_alignment, through PlanProfile._aligned).

A Laplace loss has atoms at +-1/b and a Poisson-subsampled Laplace at its two end losses; on a grid
through them only the density between is discretized.  Checked: the chosen grid lies in (0.7 h, h]
and passes through the atoms; on it the certified bracket is far narrower than on an unaligned grid
of about the same spacing; both brackets, being certified, overlap; and for one Laplace the aligned
bracket contains the closed form delta(eps) = 1 - e^{(eps - a)/2} (0 <= eps <= a = 1/b).
"""

from __future__ import annotations

import math

import pytest

pytest.importorskip("dp_accounting")
from dp_accounting import dp_event as E  # noqa: E402
from dp_accounting.privacy_accountant import NeighboringRelation as N  # noqa: E402

from hockeystick.interop.dp_accounting.dp_events import plan_for  # noqa: E402
from hockeystick.pld.accountants.plan import PlanProfile  # noqa: E402
from hockeystick.pld.mechanisms.laplace_mixture import laplace_mixture_atom_losses  # noqa: E402


def _profile(event, h=None, accuracy=None):
    return PlanProfile(plan_for(event, 1, N.ADD_OR_REMOVE_ONE), h, accuracy)


def _laplace_delta(a: float, eps: float) -> float:
    """delta(eps) = P[L > eps] - e^eps Q[L > eps] of one Laplace mechanism, P = Lap(1, b), Q = Lap(0, b),
    L = (|x| - |x - 1|) / b: L > eps iff x > (1 + b eps) / 2, so delta = 1 - e^{(eps - a)/2}, 0 <= eps <= a."""
    return 1.0 - math.exp((eps - a) / 2.0)


@pytest.mark.parametrize(
    "event, atoms",
    [
        (E.SelfComposedDpEvent(E.LaplaceDpEvent(13.187), 11), lambda: [1 / 13.187]),
        (
            E.ComposedDpEvent(
                [E.LaplaceDpEvent(3.0), E.SelfComposedDpEvent(E.LaplaceDpEvent(7.5), 4)]
            ),
            lambda: [1 / 7.5],
        ),
        (
            E.SelfComposedDpEvent(E.PoissonSampledDpEvent(0.27, E.LaplaceDpEvent(4.94)), 25),
            lambda: sorted(
                (abs(x) for x in laplace_mixture_atom_losses(4.94, [0.0, 1.0], [0.73, 0.27])),
                reverse=True,
            ),
        ),
    ],
)
def test_aligned_grid_passes_through_the_atoms(event, atoms):
    profile = _profile(event, accuracy=1e-4)
    losses = atoms()
    for h in (3e-3, 1e-3, 2.7e-4):
        g = profile._aligned(h)
        assert 0.7 * h < g <= h
        n = losses[0] / g
        assert abs(n - round(n)) < 1e-9  # the atom of the most rounds is on the grid
        if (
            len(losses) > 1
        ):  # the other end lands within 0.15 cells above a grid point at these spacings
            m = losses[1] / g
            assert m - math.floor(m + 1e-9) < 0.15


def test_aligned_grid_narrows_the_laplace_bracket_and_stays_certified():
    b, k = 13.187, 11
    event = E.SelfComposedDpEvent(E.LaplaceDpEvent(b), k)
    aligned = _profile(event)._aligned(3e-3)
    unaligned = aligned * (1 + 0.37 / round(1 / b / aligned))  # the atom 0.37 cells off the grid
    lo_a, up_a = _profile(event, h=aligned).delta(0.5)
    lo_u, up_u = _profile(event, h=unaligned).delta(0.5)
    assert up_a - lo_a < 0.05 * (up_u - lo_u)
    assert max(lo_a, lo_u) <= min(up_a, up_u)
    # one round, against the closed form
    one = E.LaplaceDpEvent(b)
    g = _profile(one)._aligned(3e-3)
    for eps in (0.0, 0.02, 0.05):
        lo, up = _profile(one, h=g).delta(eps)
        exact = _laplace_delta(1 / b, eps)
        assert lo <= exact <= up and up - lo < 1e-4 * exact  # the density part: O(h^2), h ~ 3e-3


MIXED = E.ComposedDpEvent(
    [
        E.SelfComposedDpEvent(E.PoissonSampledDpEvent(0.27, E.LaplaceDpEvent(4.94)), 25),
        E.SelfComposedDpEvent(E.LaplaceDpEvent(7.5), 4),
        E.PoissonSampledDpEvent(0.1, E.LaplaceDpEvent(2.2)),
    ]
)
LONE_MIXTURE = E.PoissonSampledDpEvent(
    0.0728, E.LaplaceDpEvent(2.472)
)  # few candidates: the plain-float scan


@pytest.mark.parametrize("event", [MIXED, LONE_MIXTURE])
@pytest.mark.parametrize("h", [3e-3, 1e-3, 3.1e-4, 1e-4])
def test_aligned_grid_is_the_best_n_of_the_rule(event, h):
    """Both scans (vectorised, and plain floats for a few candidates) equal the rule read literally: over
    n in [ceil(base / h), base / (0.7 h)], the n whose grid base / n leaves the other atoms least above
    the grid point below each (cells, weighted by rounds); the grid is base / n raised by a few ulps."""
    profile = _profile(event, accuracy=1e-4)
    base, others = profile._alignment_atoms
    assert len(others) >= (3 if event is MIXED else 1)
    first = math.ceil(base / h * (1.0 - 1e-12))
    candidates = range(first, max(first, math.floor(base / (0.7 * h))) + 1)
    best = min(
        candidates,
        key=lambda n: sum(
            r * max(x * n / base - math.floor(x * n / base + 1e-9), 0.0) for r, x in others
        ),
    )
    g = profile._aligned(h)
    assert base / best <= g <= base / best * (1 + 1e-15) and base / g <= best


@pytest.mark.parametrize("b, k", [(13.18716269085223, 11), (13.187, 11), (7.5, 6), (3.0, 20)])
def test_aligned_grid_keeps_the_top_atom_in_the_last_cell(b, k):
    """base / h must not round above its integer n: the grid would gain a cell past the atom and the
    optimistic side would move it a cell down every round (tree 16 of the drop-in benchmark: n = 26
    gave a lower epsilon 0.024 below the others' 1e-5-wide brackets).  Checked on every n the rule
    can pick, against the closed form of one Laplace and the brackets of the neighbouring grids."""
    event = E.SelfComposedDpEvent(E.LaplaceDpEvent(b), k)
    profile = _profile(event, accuracy=1e-4)
    a = 1.0 / b
    widths = []
    for n in range(20, 33):
        g = profile._aligned(a / n * 1.0000001)
        assert a / g <= round(a / g) and round(a / g) == n and math.ceil(a / g) == n
        lo, up = _profile(event, h=g).epsilon(1e-5)
        widths.append(up - lo)
    assert max(widths) < 50 * min(widths)  # no grid of the range is an outlier
    one = E.LaplaceDpEvent(b)
    for n in (26, 27):
        g = _profile(one, accuracy=1e-4)._aligned(a / n * 1.0000001)
        for eps in (0.2 * a, 0.6 * a):
            lo, up = _profile(one, h=g).delta(eps)
            assert lo <= _laplace_delta(a, eps) <= up


def test_other_atoms_just_above_a_grid_point_keep_the_optimistic_side_tight():
    """Two Laplace scales (tree 78 of the drop-in benchmark without its discrete Laplace): the other
    scale's atom a2 is moved down to the grid point below on the optimistic side, so a grid with a2 at
    21.96 cells (nearest to a point) leaves a bracket ~100x wider than one with a2 at 29.04 cells; the
    rule picks the latter kind.  Every bracket is certified: each overlaps a fine
    grid's."""
    event = E.ComposedDpEvent(
        [
            E.SelfComposedDpEvent(E.LaplaceDpEvent(12.252676336000437), 11),
            E.LaplaceDpEvent(17.304296881260683),
        ]
    )
    profile = _profile(event, accuracy=1e-4)
    base, others = profile._alignment_atoms
    a2 = 1 / 17.304296881260683
    chosen = profile._aligned(3e-3)
    assert a2 / chosen - math.floor(a2 / chosen) < 0.1
    n_old = min(
        range(math.ceil(base / 3e-3), math.floor(base / (0.7 * 3e-3)) + 1),
        key=lambda n: abs(a2 * n / base - round(a2 * n / base)),
    )  # the old rule: nearest a point
    nearest = base / n_old
    assert a2 / nearest - math.floor(a2 / nearest) > 0.5  # just below a grid point
    fine_lo, fine_up = _profile(event, h=profile._aligned(2e-4)).epsilon(1e-5)
    lo_new, up_new = _profile(event, h=chosen).epsilon(1e-5)
    lo_old, up_old = _profile(event, h=nearest).epsilon(1e-5)
    assert up_new - lo_new < 0.1 * (up_old - lo_old)
    for lo, up in ((lo_new, up_new), (lo_old, up_old)):
        assert lo <= fine_up and up >= fine_lo
