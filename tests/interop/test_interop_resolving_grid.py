"""A first grid resolving a narrow grid part beside exact atoms (pld.refine.plan_refinement.GridRefinement.resolving).

Beside the discrete Laplace atoms, an epsilon crossing just above the top atom reads the grid part
(a Poisson-sampled Gaussian) near loss 0, inside its bulk; a first grid coarser than that bulk's
s.d. built three grids for tree 169 of the drop-in benchmark.  ``_resolving`` starts on a grid of
s.d. / RESOLVE_CELLS instead.  Checked, on both paths (``RESOLVE_CELLS`` 0 turns the rule off):

- one round of a Poisson-sampled Gaussian beside 10 rounds of DLap(0.46): delta and epsilon against
  the exact profile in 50-digit mpmath (the sampled Gaussian's pair has a monotone likelihood ratio,
  so its delta is four normal tails; the discrete Laplace's ten rounds are a binomial law of atoms
  +-a; composing is the mixture sum_j m_j delta_G(eps - l_j)), each side on its own side of it, and
  the bracket no wider than asked;
- tree 169 itself (15 rounds of the sampled Gaussian): both sides against dp_accounting's
  pessimistic and optimistic PLDs on a grid of 1e-5, with one grid searched.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

pytest.importorskip("dp_accounting")
from dp_accounting import dp_event as E  # noqa: E402
from dp_accounting.privacy_accountant import NeighboringRelation as N  # noqa: E402

from hockeystick.interop.dp_accounting.dp_events import plan_for  # noqa: E402
from hockeystick.pld.accountants.plan import PlanProfile  # noqa: E402
from hockeystick.pld.grid.pmf import GridPMF  # noqa: E402
from hockeystick.pld.refine import tuning  # noqa: E402
from hockeystick.pld.refine.plan_refinement import loss_spread  # noqa: E402
from hockeystick.pld.refine.tuning import PLAN_COARSEST_INTERVAL as COARSEST_INTERVAL  # noqa: E402
from tests.plan_grids import searched_grids  # noqa: E402

SIGMA, A, ROUNDS = 2.5, 0.46, 10
DELTA = 1e-5


def _event(q: float, gaussian_rounds: int = 1):
    sampled = E.PoissonSampledDpEvent(q, E.GaussianDpEvent(SIGMA))
    return E.ComposedDpEvent(
        [
            sampled if gaussian_rounds == 1 else E.SelfComposedDpEvent(sampled, gaussian_rounds),
            E.SelfComposedDpEvent(E.DiscreteLaplaceDpEvent(A, 1), ROUNDS),
        ]
    )


def _profile(event, accuracy=None, h=None) -> PlanProfile:
    return PlanProfile(plan_for(event, 1, N.ADD_OR_REMOVE_ONE), h, accuracy)


def _sampled_gaussian_delta(q: mp.mpf, x: mp.mpf, remove: bool) -> mp.mpf:
    """delta(x) of one Poisson-sampled Gaussian, remove pair ((1-q) N(0, s^2) + q N(1, s^2), N(0, s^2)) or
    the add pair (swapped), at any real x: the likelihood ratio 1 - q + q e^{(2y - 1) / (2 s^2)} is monotone
    in y, so the positive part of p - e^x q is one half-line y > y* (remove) or y < y* (add)."""
    s = mp.mpf(SIGMA)

    def tail(z):  # P[N(0, 1) > z]
        return mp.erfc(z / mp.sqrt(2)) / 2

    ex = mp.exp(x)
    if remove:
        if ex <= 1 - q:
            return 1 - ex
        y = s * s * mp.log((ex - 1 + q) / q) + mp.mpf(1) / 2
        return (1 - q) * tail(y / s) + q * tail((y - 1) / s) - ex * tail(y / s)
    if 1 / ex <= 1 - q:
        return mp.mpf(0)
    y = s * s * mp.log((1 / ex - 1 + q) / q) + mp.mpf(1) / 2
    return (1 - tail(y / s)) - ex * ((1 - q) * (1 - tail(y / s)) + q * (1 - tail((y - 1) / s)))


def _exact_delta(q: float, eps: float) -> mp.mpf:
    """delta(eps) of _event(q), both directions' maximum: sum_j m_j delta_G(eps - l_j), l_j = (2j - 10) a,
    m_j = C(10, j) P(+a)^j P(-a)^(10 - j), P(+a) = 1 / (1 + e^-a) (the merged DLap pair, s = 1)."""
    with mp.workdps(50):
        a, qq, e = mp.mpf(A), mp.mpf(q), mp.mpf(eps)
        up = 1 / (1 + mp.exp(-a))
        masses = [
            mp.binomial(ROUNDS, j) * up**j * (1 - up) ** (ROUNDS - j) for j in range(ROUNDS + 1)
        ]
        return max(
            mp.fsum(
                m * _sampled_gaussian_delta(qq, e - (2 * j - ROUNDS) * a, remove)
                for j, m in enumerate(masses)
            )
            for remove in (True, False)
        )


def _exact_epsilon(q: float, delta: float) -> float:
    """The root of the exact (non-increasing) delta(eps) = delta, by 50-digit bisection (to 1e-12)."""
    lo, hi = 0.0, ROUNDS * A + 1.0
    while hi - lo > 1e-12:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _exact_delta(q, mid) > delta else (lo, mid)
    return 0.5 * (lo + hi)


@pytest.fixture(params=[True, False], ids=["resolving", "coarse-first"])
def resolving(request, monkeypatch):
    if not request.param:
        monkeypatch.setattr(
            tuning, "PLAN_RESOLVE_CELLS", 0.0
        )  # the rule never fires: the coarse grid first
    return request.param


def test_loss_spread_is_the_weighted_standard_deviation():
    rng = np.random.default_rng(7)
    p = rng.random(50) * 0.01
    pmf = GridPMF(-20, 3e-3, p, 0.0)
    losses = (-20 + np.arange(50)) * 3e-3
    mean = np.average(losses, weights=p)
    assert loss_spread(pmf) == pytest.approx(
        math.sqrt(np.average((losses - mean) ** 2, weights=p)), rel=1e-12
    )
    assert loss_spread(GridPMF(0, 1e-3, np.zeros(3), 1.0)) == 0.0


def test_rule_fires_only_beside_atoms_on_a_narrow_grid_part():
    narrow = _profile(_event(0.01), accuracy=1e-3)
    first = narrow._resolving(COARSEST_INTERVAL)
    assert first < COARSEST_INTERVAL / 2
    spread = min(loss_spread(p) for p in narrow._pld(first).composed(True))
    assert (
        spread >= 0.9 * tuning.PLAN_RESOLVE_CELLS * first
    )  # resolved: about RESOLVE_CELLS cells per s.d.
    alone = _profile(
        E.PoissonSampledDpEvent(0.01, E.GaussianDpEvent(SIGMA)), accuracy=1e-3
    )  # no atoms
    assert alone._resolving(COARSEST_INTERVAL) == COARSEST_INTERVAL
    wide = _profile(
        E.ComposedDpEvent(
            [E.PoissonSampledDpEvent(0.5, E.GaussianDpEvent(1.0)), E.DiscreteLaplaceDpEvent(A, 1)]
        ),
        accuracy=1e-3,
    )  # s.d. of many cells
    assert wide._resolving(COARSEST_INTERVAL) == COARSEST_INTERVAL


@pytest.mark.parametrize("q", [0.003, 0.01, 0.03])
@pytest.mark.parametrize("accuracy", [2e-3, 1e-4])
def test_epsilon_bracket_contains_the_exact_epsilon(resolving, q, accuracy):
    exact = _exact_epsilon(q, DELTA)
    lo, up = _profile(_event(q), accuracy=accuracy).epsilon(DELTA)
    assert lo <= exact + 1e-12 and up >= exact - 1e-12  # each side on its own side of the truth
    assert up - lo <= accuracy


@pytest.mark.parametrize("q", [0.003, 0.03])
def test_delta_bracket_contains_the_exact_delta(resolving, q):
    top = ROUNDS * A  # around the top atom, where the grid part's bulk decides
    for eps in (top - 0.002, top, top + 0.001, top + 0.004, top - A + 0.002):
        exact = float(_exact_delta(q, eps))
        lo, up = _profile(_event(q), accuracy=1e-4).delta(eps)
        assert lo <= exact * (1 + 1e-12) and up >= exact * (1 - 1e-12)
        assert (up - lo) <= 1e-4 * up


TREE_169 = E.ComposedDpEvent(
    [  # tests.dp_accounting_pld.random_tree(np.random.default_rng(169))
        E.SelfComposedDpEvent(
            E.PoissonSampledDpEvent(0.002948929414663147, E.GaussianDpEvent(2.5005578505673527)), 15
        ),
        E.SelfComposedDpEvent(E.DiscreteLaplaceDpEvent(0.45974725518000914, 1), 10),
    ]
)
TOP_169 = 10 * 0.45974725518000914


def test_tree_169_against_dp_accounting_on_a_fine_grid(resolving):
    from tests.dp_accounting_pld import their_pld

    optimistic = their_pld(TREE_169, 1, False, 1e-5)
    pessimistic = their_pld(TREE_169, 1, True, 1e-5)
    lo, up = _profile(TREE_169, accuracy=1e-4).epsilon(DELTA)
    assert lo <= pessimistic.get_epsilon_for_delta(
        DELTA
    ) and up >= optimistic.get_epsilon_for_delta(DELTA)
    assert up - lo <= 1e-4
    for eps in (TOP_169 - 0.001, TOP_169 + 0.001, TOP_169 + 0.003):
        d_lo, d_up = _profile(TREE_169, accuracy=1e-4).delta(eps)
        assert d_lo <= pessimistic.get_delta_for_epsilon(
            eps
        ) and d_up >= optimistic.get_delta_for_epsilon(eps)


def test_tree_169_searches_one_grid_at_dp_accountings_width(monkeypatch):
    grids = searched_grids(monkeypatch)
    lo, up = _profile(TREE_169, accuracy=1.75e-3).epsilon(
        DELTA
    )  # dp_accounting's certified width at 1e-4
    assert up - lo <= 1.75e-3 and len(grids) == 1
