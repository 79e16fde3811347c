"""``accuracy=`` epsilon(delta) truncates at tails sized to the delta asked (pld/refine/truncation.py).

The tails only decide the bracket's width and cost: every truncated mass is charged.  Checked here: the
remove direction's mass above its integration range is what the C++ discretization sends to +infinity
(the budget's arithmetic rests on it), each tail is the rule's rung computed independently (the ladder,
the budget and every charge in mpmath, 60 digits: pld/refine/refinement_tails.hpp read through the
binding is the rule the docstring states), the accountant uses them, and its brackets still hold the
truth: one round's exact epsilon (mpmath, 60 digits) and dp_accounting's pessimistic / optimistic
estimates after many rounds.
"""

from __future__ import annotations

import functools
import math
import warnings

import mpmath as mp
import numpy as np
import pytest
from dp_accounting import dp_event as E

import hockeystick.pld as pld
from hockeystick import _core
from hockeystick.pld.compose import fft
from hockeystick.pld.mechanisms import constructors as mechanisms
from hockeystick.pld.mechanisms.constructors import MAX_CELLS
from hockeystick.pld.refine import round_cache, truncation
from hockeystick.pld.refine.grid_rules import points_rules
from hockeystick.pld.refine.grid_start import StartGrid
from hockeystick.pld.refine.unmet import AccuracyNotMetWarning

from ...dp_accounting_pld import their_epsilon, their_pld
from ..mechanisms.test_pld_extreme_parameters import exact_one_round
from . import screened_delta_reference
from .screened_epsilon_reference import epsilon_brackets

# the truncations' share of delta per unit of the accuracy (truncation's docstring)
SHARE = mp.mpf("0.1")
RUNGS = [mp.mpf(10) ** (-mp.mpf(k) / 4) for k in range(44, 61)]  # 1e-11 down to 1e-15, 4 a decade
MAX_TAIL = 1e-11  # the coarsest rung


@pytest.mark.parametrize(
    "sigma, q, sensitivity", [(0.8, 1e-3, 1.0), (5.0, 1e-4, 1.0), (0.5, 0.1, 2.0), (2.0, 0.9, 1.0)]
)
@pytest.mark.parametrize("tail", [1e-15, 1e-12, 1e-11])
def test_mass_above_is_the_discretizations_mass_at_infinity(sigma, q, sensitivity, tail):
    dist = mechanisms.subsampled_gaussians(
        [sigma],
        [q],
        sensitivity=[sensitivity],
        value_discretization_interval=1e-3,
        tail=tail,
        directions="remove",
    )[0]
    (factor,) = dist.directions[0]
    assert mass_above(tail, sigma, q, sensitivity) == pytest.approx(factor.upper.p_inf, rel=1e-12)


@pytest.mark.parametrize(
    "point",
    [
        (0.8, 1e-3, 1e5, 1.0),
        (1.0, 0.01, 1e4, 1.0),
        (0.5, 0.1, 1e5, 1.0),
        (5.0, 1e-4, 100.0, 1.0),
        (1.0, 0.5, 1.0, 3.0),
    ],
)
@pytest.mark.parametrize("delta, accuracy", [(1e-5, 1e-3), (1e-10, 1e-2), (0.3, 1e-4)])
def test_each_tail_is_the_coarsest_rung_within_its_budget(point, delta, accuracy):
    """The rule's tails, the ladder, budget and charges in mpmath: the coarsest rungs within the budget."""
    expected = _tails_mp(point, delta, 1e-15, accuracy)
    assert expected is not None  # no charge within 1e-9 of its budget at these points
    assert truncation.tails(point, delta, 1e-15, accuracy) == expected


def mass_above(tail: float, sigma: float, q: float, sensitivity: float) -> float:
    """above(tail) of truncation's docstring: the remove direction's P-mass above its integration range,
    q Q(z) + (1 - q) Q(z + sensitivity / sigma), z = Q^{-1}(tail / 2) (the core's, pld/grid/cells.hpp's
    subsampled_gaussian_mass_above, which the refinement's tails read)."""
    return _core.pld_mechanisms.subsampled_gaussian_mass_above(sigma / sensitivity, q, tail=tail)


def test_tails_never_go_below_the_users_tail():
    assert truncation.tails((0.5, 0.1, 1e5, 1.0), 1e-5, 1e-10, 1e-3) == (1e-10, 1e-10)
    assert truncation.tails((0.8, 1e-3, 1e5, 1.0), 0.0, 1e-15, 1e-3) == (1e-15, 1e-15)


def test_a_step_truncates_at_those_tails_and_the_cores_one_point_step_reads_it_alike(monkeypatch):
    """W3 shortened: a refinement step's remove direction is discretized at t_round and every window composed at
    t_window (the package's step read, screened_epsilon_reference.epsilon_brackets, whose discretizations and
    windows are seen here); the core's one-point step read (subsampled_gaussian_step.hpp: the accuracy= refinement of one
    point and the default's) gives its bracket bit for bit, so it truncates at the same tails."""
    point, h = (0.8, 1e-3, 20_000.0, 1.0), 2e-4
    seen = []
    original = screened_delta_reference.subsampled_gaussians

    def recording(*args, **kwargs):
        seen.append((kwargs["directions"], kwargs["tail"]))
        return original(*args, **kwargs)

    monkeypatch.setattr(screened_delta_reference, "subsampled_gaussians", recording)
    round_cache.clear()  # every discretization built here, none kept from an earlier test
    windows = []
    step = _core.pld_refine.screened_epsilon_step

    def recording_step(**kwargs):  # the core step composes every window at its point's window tail
        windows.extend(kwargs["windows"])
        return step(**kwargs)

    monkeypatch.setattr(_core.pld_refine, "screened_epsilon_step", recording_step)
    ((lower, upper, add),) = epsilon_brackets([point], [h], [np.array([1e-5])], 1e-15, 0, 1e-3)
    t_round, t_window = truncation.tails(point, 1e-5, 1e-15, 1e-3)
    assert t_round > 1e-15 and t_window > 1e-15
    assert ("remove", t_round) in seen and ("add", 1e-15) in seen
    assert windows and set(windows) == {t_window}
    one = _core.pld_refine.subsampled_gaussian_step(
        sigma=point[0],
        sampling_rate=point[1],
        rounds=int(point[2]),
        delta=1e-5,
        interval=h,
        accuracy=1e-3,
        tail=1e-15,
        direct_bins=False,
        direct_min_charge=float(_core.pld_compose.direct_min_charge),
        max_cells=MAX_CELLS,
        workers=None,
        max_points=fft.DEFAULT_MAX_POINTS,
    )
    assert one == (float(lower[0]), float(upper[0]), float(add[0]))


def _exact_epsilon(
    sigma: float, q: float, delta: float, hi: float = 30.0, steps: int = 80
) -> float:
    """One round's epsilon at delta (the larger direction), bisection on exact_one_round in [0, hi]."""
    lo = 0.0
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if exact_one_round(sigma, q, mid) > delta else (lo, mid)
    return hi


@pytest.mark.parametrize("sigma, q", [(0.8, 1e-3), (1.0, 0.05), (0.5, 0.3)])
@pytest.mark.parametrize("delta", [1e-5, 1e-3])
def test_one_round_bracket_holds_the_exact_epsilon(sigma, q, delta):
    """One round: the rounds factor is 1, so t_round reaches MAX_TAIL and the truncations are the coarsest."""
    assert truncation.tails((sigma, q, 1.0, 1.0), delta, 1e-15, 1e-3) == (MAX_TAIL,) * 2
    acc = pld.SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=1, accuracy=1e-3)
    lo, up = acc.epsilon(delta, bound="both")
    exact = _exact_epsilon(sigma, q, delta)
    assert exact_one_round(sigma, q, exact) <= delta * (1 + 1e-12)
    assert lo <= exact + 1e-12 and exact - 1e-12 <= up  # the bisection's own width is ~3e-23
    assert up - lo <= 1e-3


@pytest.mark.parametrize(
    "sigma, q, rounds", [(0.8, 1e-3, 20_000), (1.0, 0.01, 10_000), (0.6, 0.05, 3000)]
)
def test_many_rounds_bracket_holds_dp_accountings_estimates_and_the_default_tails(sigma, q, rounds):
    """After many rounds: between dp_accounting's optimistic and pessimistic epsilon (h = 1e-4), and overlapping
    the bracket of the same grids truncated at the default 1e-15 (both certified)."""
    acc = pld.SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds, accuracy=1e-3)
    lo, up = acc.epsilon(1e-5, bound="both")
    optimistic, pessimistic = their_epsilon(
        E.SelfComposedDpEvent(E.PoissonSampledDpEvent(q, E.GaussianDpEvent(sigma)), rounds), 1e-5
    )
    assert 0 <= up - lo <= 1e-3
    assert lo <= pessimistic and optimistic <= up
    ref = epsilon_brackets(
        [(sigma, q, float(rounds), 1.0)],
        [
            StartGrid(acc.accuracy, acc.delta_accuracy).first(
                (sigma, q, float(rounds), 1.0), np.array([1e-5]), "epsilon"
            )
        ],
        [np.array([1e-5])],
        1e-15,
    )[0]
    assert lo <= ref[1][0] and ref[0][0] <= up


def test_the_epsilon_rules_delta_sizes_its_truncations_to_the_floor(monkeypatch):
    """``delta_accuracy="epsilon"``: every composed window at the floor's tail, each remove-direction discretization
    at a tail between those of the fewest and the most rounds of its (sigma, q) (one shared by its rounds values),
    the add direction at ``tail`` (seen on the package's reference of the upper side read before the loop,
    ``screened_delta_reference.delta_uppers``, which the core's read equals bit for bit: test_pld_settled_floor.py); the
    bracket still holds the one-round exact delta (mpmath) and dp_accounting's estimates after many rounds."""
    from hockeystick.pld.accountants import subsampled_gaussian as accountant

    floor = accountant.SubsampledGaussianPLD.DELTA_FLOOR
    seen, windows = [], []
    original, compose = (
        screened_delta_reference.subsampled_gaussians,
        screened_delta_reference.compose_all,
    )

    def recording(sigma, q, **kwargs):
        seen.append((kwargs["directions"], kwargs["tail"], tuple(np.atleast_1d(q))))
        return original(sigma, q, **kwargs)

    def recording_compose(plds, *args, **kwargs):
        windows.extend(p.tail for p in plds)
        return compose(plds, *args, **kwargs)

    monkeypatch.setattr(screened_delta_reference, "subsampled_gaussians", recording)
    round_cache.clear()  # every discretization built here, none kept from an earlier test
    monkeypatch.setattr(screened_delta_reference, "compose_all", recording_compose)
    eps = np.array([0.5, 1.0, 2.0, 4.0])
    points = [(0.8, q, rounds, 1.0) for q in (1e-3, 0.05) for rounds in (1.0, 3000.0)]
    screened_delta_reference.delta_uppers(points, [5e-4] * 4, [eps] * 4, 1e-15, 1, 1e-2, floor)
    acc = pld.SubsampledGaussianPLD(
        sigma=0.8,
        sampling_rate=[1e-3, 0.05],
        rounds=[[1], [3000]],
        accuracy=1e-2,
        delta_accuracy="epsilon",
    )
    lo, up = acc.delta(eps[:, None, None], bound="both")
    t_window = truncation.tails((0.8, 1e-3, 1.0, 1.0), floor, 1e-15, 1e-2)[1]
    assert t_window > 1e-15 and set(windows) == {t_window}
    assert {t for d, t, _ in seen if d == "add"} == {1e-15}
    removes = [(t, qs) for d, t, qs in seen if d == "remove"]
    assert removes and any(t > 1e-15 for t, _ in removes)
    for t, qs in removes:
        for q in qs:
            most, fewest = (
                truncation.tails((0.8, q, rounds, 1.0), floor, 1e-15, 1e-2)[0]
                for rounds in (3000.0, 1.0)
            )
            assert most <= t <= fewest
    assert np.all(lo <= up)
    for k, e in enumerate(eps):  # one round: the exact delta (the larger direction)
        for j, q in enumerate((1e-3, 0.05)):
            exact = exact_one_round(0.8, q, float(e))
            assert lo[k, 0, j] <= exact * (1 + 1e-12) and exact <= up[k, 0, j] * (1 + 1e-12)
    for j, q in enumerate(
        (1e-3, 0.05)
    ):  # 3000 rounds: around dp_accounting's optimistic and pessimistic estimates
        event = E.SelfComposedDpEvent(E.PoissonSampledDpEvent(q, E.GaussianDpEvent(0.8)), 3000)
        optimistic, pessimistic = (their_pld(event, 1, side) for side in (False, True))
        for k, e in enumerate(eps):
            assert lo[k, 1, j] <= pessimistic.get_delta_for_epsilon(float(e))
            assert optimistic.get_delta_for_epsilon(float(e)) <= up[k, 1, j]


def test_the_rounds_values_of_a_pair_share_one_discretization(monkeypatch):
    """``delta_sides`` with an accuracy: two rounds values of one (sigma, q) on one grid, one remove-direction
    discretization, at the tail of the larger rounds value (the smaller of the two)."""
    calls = []
    original = screened_delta_reference.subsampled_gaussians

    def recording(sigma, q, **kwargs):
        calls.append((kwargs["directions"], kwargs["tail"]))
        return original(sigma, q, **kwargs)

    monkeypatch.setattr(screened_delta_reference, "subsampled_gaussians", recording)
    round_cache.clear()  # every discretization built here, none kept from an earlier test
    points = [(0.8, 1e-3, 10.0, 1.0), (0.8, 1e-3, 3000.0, 1.0)]
    x = np.array([0.5, 2.0])
    rules = points_rules(1e-2, 0.0, "delta", "epsilon")
    screened_delta_reference.delta_sides(
        points,
        [2e-4, 2e-4],
        [x, x],
        1e-15,
        rules,
        [2, 2],
        [None, None],
        1,
        False,
        1e-10,
        1e-9,
        1e-2,
    )
    few, many = (truncation.tails(p, 1e-9, 1e-15, 1e-2)[0] for p in points)
    assert many < few  # the budget would allow a coarser tail for 10 rounds alone
    assert [t for d, t in calls if d == "remove"] == [many]


@functools.cache
def _mass_above_exact(tail: float, s: float, q: float) -> mp.mpf:
    """The P-mass above the integration range's top x_hi = 1 + z s (formed in double, as the discretization
    does: at s = 1e-300 it is 1 and the mass is q / 2), z = Q^{-1}(tail / 2), in mpmath (60 digits):
    (1 - q) Q(x_hi / s) + q Q((x_hi - 1) / s)."""
    with mp.workdps(60):

        def upper(x: mp.mpf) -> mp.mpf:  # Q(x); 0 past 1e6 (Q(1e6) < 10^-(10^11))
            return mp.erfc(x / mp.sqrt(2)) / 2 if x < 1e6 else mp.mpf(0)

        z = float(-mp.sqrt(2) * mp.erfinv(mp.mpf(tail) - 1))  # Q(z) = tail / 2
        x_hi = mp.mpf(1.0 + z * s)
        return (1 - mp.mpf(q)) * upper(x_hi / s) + mp.mpf(q) * upper((x_hi - 1) / s)


def _mass_above_mp(tail: float, s: float, q: float) -> float:
    return float(_mass_above_exact(tail, s, q))


def _tails_mp(
    point: tuple[float, float, float, float], smallest: float, tail: float, accuracy: float
) -> tuple[float, float] | None:
    """The rule of truncation's docstring in mpmath (60 digits), apart from the code: the budget
    0.1 accuracy smallest / 2, t_round the coarsest rung 10^(-k / 4) (k = 44 ... 60) whose charge
    rounds x above(t) is within it, t_window the coarsest with 2 t within it, each at least ``tail``
    (``tail`` where none is, or where the budget is not finite and > 0).  None where a charge lies
    within 1e-9 of the budget, which the double arithmetic may put on either side."""
    sigma, q, rounds, sensitivity = point
    with mp.workdps(60):
        budget = mp.mpf(0.5) * SHARE * mp.mpf(accuracy) * mp.mpf(smallest)
        if not (budget > 0 and mp.isfinite(budget)):
            return tail, tail
        chosen = []
        for charge in (
            lambda t: mp.mpf(rounds) * _mass_above_exact(float(t), sigma / sensitivity, q),
            lambda t: 2 * t,
        ):
            fits = []
            for t in RUNGS:
                c = charge(t)
                if abs(c - budget) <= 1e-9 * budget:
                    return None
                fits.append(c <= budget)
            rung = next((float(t) for t, f in zip(RUNGS, fits) if f), tail)
            chosen.append(max(tail, rung))
        return chosen[0], chosen[1]


@pytest.mark.parametrize("s", [1e-300, 1e-3, 0.8, 1e3, 1e300])
@pytest.mark.parametrize("q", [5e-324, 1e-12, 0.5, 1.0])
@pytest.mark.parametrize("tail", [1e-15, MAX_TAIL])
def test_mass_above_at_the_edges_against_mpmath(s, q, tail):
    got = mass_above(tail, s, q, 1.0)
    assert got == pytest.approx(_mass_above_mp(tail, s, q), rel=1e-9, abs=1e-300)
    if 1.0 + 10 * s > 1.0:  # x_hi resolves z s: never more than the Gaussian's own tail beyond z
        assert got <= 0.5 * tail * (1 + 1e-12)


@pytest.mark.parametrize(
    "point",
    [
        (1e-300, 0.5, 1.0, 1.0),
        (1e300, 0.5, 1.0, 1.0),
        (1.0, 1.0, 2.0**53, 1.0),
        (1.0, 5e-324, 1e5, 1.0),
        (1.0, 0.5, 10.0, 1e-300),
    ],
)
@pytest.mark.parametrize("smallest", [5e-324, 1e-300, 1e-9, 0.5, 1.0])
@pytest.mark.parametrize("accuracy", [1e-12, 1e-3, 1.0, 1e308, math.inf])
def test_tails_stay_within_their_budget_at_the_edges(point, smallest, accuracy):
    t_round, t_window = truncation.tails(point, smallest, 1e-15, accuracy)
    assert 1e-15 <= t_round <= MAX_TAIL and 1e-15 <= t_window <= MAX_TAIL
    expected = _tails_mp(point, smallest, 1e-15, accuracy)
    if expected is not None:
        assert (t_round, t_window) == expected
    budget = 0.05 * accuracy * smallest
    if not math.isfinite(budget) or budget < 1e-300:  # nothing to size from: the user's tail
        assert (t_round, t_window) == (1e-15, 1e-15)


@pytest.mark.parametrize("sigma, q", [(0.8, 1e-6), (0.8, 0.999), (5.0, 1e-6), (5.0, 0.999)])
def test_coarse_one_round_brackets_hold_the_exact_value_at_the_edges(sigma, q):
    """accuracy=0.5 (the coarsest grids), deltas from 1e-300 to 0.5 and eps from 0 to 40: every bracket holds
    one round's exact value (mpmath), whose truncations reach MAX_TAIL."""
    deltas = np.array([1e-300, 1e-5, 0.5])
    acc = pld.SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=1, accuracy=0.5)
    with (
        warnings.catch_warnings()
    ):  # no grid's tail reaches 1e-300: the tilted reads bound it, or it is flagged
        warnings.simplefilter("ignore", AccuracyNotMetWarning)
        lo, up = acc.epsilon(deltas, bound="both")
    assert acc.unmet.tolist()[1:] == [False, False]
    for d, a, b in zip(deltas, lo, up):
        exact = _exact_epsilon(sigma, q, float(d), hi=200.0, steps=90)
        assert a <= exact + 1e-12 and exact - 1e-12 <= b, (d, a, exact, b)
    eps = np.array([0.0, 1.0, 40.0])
    lo, up = pld.SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=1, accuracy=0.5, delta_accuracy="epsilon"
    ).delta(eps, bound="both")
    for e, a, b in zip(eps, lo, up):
        exact = exact_one_round(sigma, q, float(e))
        assert a <= exact * (1 + 1e-12) + 1e-300 and exact <= b * (1 + 1e-12) + 1e-300, (
            e,
            a,
            exact,
            b,
        )
