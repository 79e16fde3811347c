"""A probe grid before a big first jump (pld.refine.plan_refinement, PROBE_SHRINK / PROBE_POINTS).

The first grid's width is aimed at the target on an assumed h^2 law.  With replacement around a Laplace,
the width is the gap between the symmetrised upper bound and the realizable pair below it, which no grid
closes: the aim went straight to the 2^20-point budget (7 s for K = n = 1000) only to stall there.  Now a
jump finer than 1/16 to a grid past 2^16 points goes to h/4 first, where the stall shows.  Checked:

- the realizable pair's exact epsilon (P = sum_c b_c Lap(2c, 1) vs Q = Lap(0, 1), b_c = Binom(K, 1/n), the
  replace-one Laplace at scale 1/2 per unit shift, in 50-digit mpmath: the likelihood ratio is monotone,
  so delta is a difference of Laplace tails at one threshold) lies inside the bracket, which is a lower
  bound on the truth: the lower side at or below it, and within the accuracy asked (1e-4) of it;
- the probe's bracket against the path it replaces (the jump to the budget, here 2^18 points to keep
  the test short): both certified, overlapping, the probe's sides within the accuracy asked of it;
- the probe costs two grids, the second 4 times finer.
"""

from __future__ import annotations

import mpmath as mp
import pytest

pytest.importorskip("dp_accounting")
from dp_accounting import dp_event as E  # noqa: E402
from dp_accounting.privacy_accountant import NeighboringRelation as N  # noqa: E402

from hockeystick.interop.dp_accounting.dp_events import plan_for  # noqa: E402
from hockeystick.pld.accountants.plan import PlanProfile  # noqa: E402
from hockeystick.pld.refine import tuning  # noqa: E402
from tests.plan_grids import searched_grids  # noqa: E402

DELTA = 1e-5
ACCURACY = 1e-4
COPIES = 40  # copy counts kept in the reference (b_40 < 1e-40 at K / n <= 1)


def _profile(n: int, k: int) -> PlanProfile:
    event = E.SampledWithReplacementDpEvent(n, k, E.LaplaceDpEvent(1.0))
    return PlanProfile(plan_for(event, 1, N.REPLACE_ONE), None, ACCURACY)


def _pair_delta(n: int, k: int, eps: mp.mpf, remove: bool) -> mp.mpf:
    """delta(eps) of the realizable pair (remove: (P, Q); add: (Q, P)).  With scale s = 1/2 (replace-one:
    shift 2 per copy at scale 1), on [j, j + 1] the ratio p/q = A_j + B_j e^{2x/s}, A_j = sum_{c <= j} b_c
    e^{c/s}, B_j = sum_{c > j} b_c e^{-c/s}: non-decreasing in x, so (p - g q)_+ lives on x > x* (remove)
    and (q - g p)_+ on x < x* with p/q = 1/g (add)."""
    s = mp.mpf(1) / 2
    b = [
        mp.binomial(k, c) * mp.mpf(1) / n**c * (1 - mp.mpf(1) / n) ** (k - c)
        for c in range(COPIES + 1)
    ]
    g = mp.exp(eps)
    ratio = g if remove else 1 / g

    def above(x, m):  # P[Lap(m, s) > x]
        return 1 - mp.exp((x - m) / s) / 2 if x < m else mp.exp(-(x - m) / s) / 2

    if ratio <= mp.fsum(bc * mp.exp(-c / s) for c, bc in enumerate(b)):
        x = -mp.inf
    else:
        x = mp.inf
        for j in range(COPIES):
            a_j = mp.fsum(b[c] * mp.exp(c / s) for c in range(j + 1))
            b_j = mp.fsum(b[c] * mp.exp(-c / s) for c in range(j + 1, COPIES + 1))
            if a_j + b_j * mp.exp(2 * mp.mpf(j + 1) / s) >= ratio:
                x = s / 2 * mp.log((ratio - a_j) / b_j)
                break
    p_above = mp.mpf(1) if x == -mp.inf else mp.fsum(bc * above(x, c) for c, bc in enumerate(b))
    q_above = mp.mpf(1) if x == -mp.inf else above(x, 0)
    if x == mp.inf:
        p_above = q_above = mp.mpf(0)
    return p_above - g * q_above if remove else (1 - q_above) - g * (1 - p_above)


def _pair_epsilon(n: int, k: int) -> float:
    """The realizable pair's epsilon at DELTA (both orders' maximum), by 50-digit bisection to 1e-10."""
    lo, hi = 0.0, 60.0
    with mp.workdps(50):
        while hi - lo > 1e-10:
            mid = 0.5 * (lo + hi)
            worst = max(_pair_delta(n, k, mp.mpf(mid), remove) for remove in (True, False))
            lo, hi = (mid, hi) if worst > DELTA else (lo, mid)
    return 0.5 * (lo + hi)


@pytest.mark.parametrize("k", [100, pytest.param(1000, marks=pytest.mark.slow)])
def test_probe_bracket_contains_the_realizable_pair_and_matches_the_jump(k, monkeypatch):
    grids = searched_grids(monkeypatch)
    lo, up = _profile(1000, k).epsilon(DELTA)
    assert len(grids) == 2 and grids[1] == pytest.approx(
        grids[0] / tuning.PLAN_PROBE_SHRINK, rel=1e-9
    )
    pair = _pair_epsilon(1000, k)
    assert lo <= pair + 1e-12 <= up + 1e-12  # the pair is below the truth, the upper side above it
    assert pair - lo < ACCURACY  # the lower side is that pair's, up to the accuracy asked
    # the path it replaces: straight to the budget (2^18 points here), stalling there
    monkeypatch.setattr(tuning, "PLAN_PROBE_SHRINK", 1e9)
    monkeypatch.setattr(tuning, "PLAN_MAX_POINTS", 1 << 18)
    grids.clear()
    lo_jump, up_jump = _profile(1000, k).epsilon(DELTA)
    assert len(grids) == 2 and grids[1] < grids[0] / 8
    assert lo_jump <= pair + 1e-12 <= up_jump + 1e-12
    assert max(lo, lo_jump) <= min(up, up_jump)
    # the sides move by less than the accuracy asked (the lower side by 5.2e-5 at K = 100: the jump's
    # finer grid resolves the pair better; 8e-7 at K = 1000), the width is the bound's gap, 2.9 and 7.7
    assert abs(lo - lo_jump) < ACCURACY and abs(up - up_jump) < ACCURACY


def test_probe_leaves_small_grids_alone(monkeypatch):
    """A first grid of few points jumps as before (the probe would only add a grid)."""
    grids = searched_grids(monkeypatch)
    event = E.SelfComposedDpEvent(E.PoissonSampledDpEvent(0.01, E.GaussianDpEvent(1.0)), 100)
    PlanProfile(plan_for(event, 1, N.ADD_OR_REMOVE_ONE), None, 1e-6).epsilon(DELTA)
    assert len(grids) >= 2 and grids[1] < grids[0] / (2 * tuning.PLAN_PROBE_SHRINK)
