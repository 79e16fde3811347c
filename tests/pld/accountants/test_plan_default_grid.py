"""The default grid's choice (pld/accountants/plan.py, ``default_grid_profile``): the factors' summed
windows bound the composed window they would take, so below the cap no coarse probe is composed; a
plan past the cap (by the bound and by the probe) is read on the accuracy-driven grid."""

from __future__ import annotations

import pytest

pytest.importorskip("dp_accounting")

from dp_accounting import dp_event as E  # noqa: E402

from hockeystick.interop.dp_accounting.dp_events import plan_for  # noqa: E402
from hockeystick.interop.dp_accounting.pld_accountant import NeighboringRelation  # noqa: E402
from hockeystick.pld.accountants import plan as plan_module  # noqa: E402
from hockeystick.pld.accountants.plan import (  # noqa: E402
    PlanProfile,
    default_grid_profile,
    summed_window_points,
)
from hockeystick.pld.grid.distribution import PrivacyLossDistribution  # noqa: E402
from hockeystick.pld.mechanisms.constructors import gaussian  # noqa: E402
from hockeystick.pld.mechanisms.registry import mechanism_of  # noqa: E402
from hockeystick.pld.refine.grid_alignment import alignment_atoms  # noqa: E402

H = 1e-4
SAMPLED_AND_LAPLACE = E.ComposedDpEvent(
    [
        E.SelfComposedDpEvent(E.PoissonSampledDpEvent(0.02, E.GaussianDpEvent(1.3)), 9),
        E.SelfComposedDpEvent(E.PoissonSampledDpEvent(0.2, E.LaplaceDpEvent(3.0)), 5),
    ]
)
BESIDE_A_GAUSSIAN = E.ComposedDpEvent(
    [E.GaussianDpEvent(3.5), E.SelfComposedDpEvent(E.LaplaceDpEvent(12.0), 4)]
)
NESTED = E.PoissonSampledDpEvent(
    0.1, E.ComposedDpEvent([E.GaussianDpEvent(2.0), E.LaplaceDpEvent(4.0)])
)


def _plan(event):
    return plan_for(event, 1, NeighboringRelation.ADD_OR_REMOVE_ONE)


def _composed_window(plan) -> int:
    """The widest window of the plan's grid mechanisms composed on grid H, with the folded Gaussian
    on the grid too (the composition the default grid's reads make where it is not read beside)."""
    total: PrivacyLossDistribution | None = None
    parts = [(mechanism_of(m).grid_pld(H), c) for m, c in plan.counts.items()]
    if plan.gaussian_r2 > 0:
        parts.append((gaussian(plan.gaussian_r2**-0.5, value_discretization_interval=H), 1))
    for pld, count in parts:
        step = pld.self_compose(count) if count > 1 else pld
        total = step if total is None else total.compose(step)
    assert total is not None
    return max(p.p.size for p in total.composed(True))


@pytest.mark.parametrize("event", [SAMPLED_AND_LAPLACE, BESIDE_A_GAUSSIAN])
def test_summed_windows_bound_the_composed_window(event):
    plan = _plan(event)
    bound = summed_window_points(PlanProfile(plan, H, None), H)
    assert bound is not None and bound >= _composed_window(plan)


def test_a_nested_plan_is_left_to_the_probe():
    assert summed_window_points(PlanProfile(_plan(NESTED), H, None), H) is None


def test_a_plan_of_gaussians_alone_has_no_window():
    plan = _plan(E.SelfComposedDpEvent(E.GaussianDpEvent(2.0), 7))
    assert summed_window_points(PlanProfile(plan, H, None), H) == 0.0


def test_the_default_grid_where_the_bound_fits(monkeypatch):
    """Below the cap the profile is the default grid's, and no probe is built."""
    built: list[float | None] = []
    original = PlanProfile.__init__

    def recording(self, plan, interval, accuracy, **keywords):
        built.append(interval)
        original(self, plan, interval, accuracy, **keywords)

    plan = _plan(SAMPLED_AND_LAPLACE)
    h = plan_module.default_interval(plan)
    monkeypatch.setattr(PlanProfile, "__init__", recording)
    profile = default_grid_profile(plan)
    # the alignment asks a profile on 1e-4 for the atoms, then the default grid's is built
    assert profile.fixed_interval == h and built == [H, h]


def test_the_default_grid_is_finer_than_the_peers_and_through_the_atoms():
    """7/8 of 1e-4 without atoms; with them, through the sampled Laplace's largest atom (an integer
    number of cells) within (0.7, 1] of 7/8 of 1e-4, or at most 0.9 of 1e-4 where the grid through
    the atoms below 1e-4 is that fine already."""
    gaussians = _plan(
        E.SelfComposedDpEvent(E.PoissonSampledDpEvent(0.02, E.GaussianDpEvent(1.3)), 9)
    )
    assert plan_module.default_interval(gaussians) == H * plan_module.DEFAULT_GRID_SCALE
    h = plan_module.default_interval(_plan(SAMPLED_AND_LAPLACE))
    scaled = H * plan_module.DEFAULT_GRID_SCALE
    assert 0.7 * scaled < h <= H * plan_module.ALIGNED_GRID_SCALE
    plan = _plan(SAMPLED_AND_LAPLACE)
    base, _ = alignment_atoms({mechanism_of(m): c for m, c in plan.counts.items()})
    cells = base / h
    assert base > 0 and abs(cells - round(cells)) < 1e-6


@pytest.mark.parametrize("probe_fits", [False, True])
def test_past_the_cap_the_probe_decides(monkeypatch, probe_fits):
    """A cap below the bound sends the choice to the coarse probe: past the cap too, the plan is
    read on the accuracy-driven grid; within it (a probe reading 0 points), on the default grid."""
    plan = _plan(SAMPLED_AND_LAPLACE)
    bound = summed_window_points(PlanProfile(plan, H, None), H)
    h = plan_module.default_interval(plan)
    probe = PlanProfile(plan, plan_module.PROBE_INTERVAL, None).window_points(h)
    assert bound is not None and probe > 0
    monkeypatch.setattr(plan_module, "DEFAULT_GRID_POINTS", 0.5 * min(probe, bound))
    if probe_fits:
        monkeypatch.setattr(PlanProfile, "window_points", lambda self, h: 0.0)
    profile = default_grid_profile(plan)
    if probe_fits:
        assert profile.fixed_interval == h
    else:
        assert profile.fixed_interval is None
        assert profile.accuracy == plan_module.FALLBACK_ACCURACY


def _selection_plan(epsilons_and_counts, mechanism="exponential"):
    from hockeystick.pld.accountants.composition_plan import CompositionPlan
    from hockeystick.pld.mechanisms.selection import ExponentialMechanism, PermuteAndFlip

    kind = ExponentialMechanism if mechanism == "exponential" else PermuteAndFlip
    plan = CompositionPlan()
    for eps, count in epsilons_and_counts:
        plan.add(kind(eps).spec(), count)
    return plan


@pytest.mark.parametrize(
    ("epsilons_and_counts", "h"),
    [
        (
            [(0.5, 1)],
            1e-3,
        ),  # all of [-epsilon, epsilon] holds P-mass: the floor is 2 epsilon / h - 2
        ([(601.0, 2)], 3e-3),  # just past 1200: the floor stops at 1200 / h
        ([(1500.0, 1)], 1e-3),  # the masses below loss ~25 underflow: 1200 of the ~1475 counted
        ([(3000.0, 1), (2.0, 3)], 7.3e-3),  # two mechanisms, counts summed
    ],
)
def test_the_exponential_mechanisms_floor_is_at_most_the_summed_windows(epsilons_and_counts, h):
    """The floor known without building (``window_points_floor``) lies below the windows the builds
    take, and within 20 % of them: it is the bounded-range pair's P-mass cells, counted."""
    profile = PlanProfile(_selection_plan(epsilons_and_counts), h, None)
    floor = plan_module.window_points_floor(profile, h)
    bound = summed_window_points(profile, h)
    assert bound is not None and 0.8 * bound <= floor <= bound


@pytest.mark.parametrize(
    ("eps", "h"),
    [
        (0.3, 1e-3),  # both atoms on the grid: 2 epsilon / h + 1 points
        (700.0, 7.3e-3),  # the largest epsilon counted: the atom at -700 holds P-mass ~e^-700
        (701.0, 3e-2),  # past it the floor is 0 (its atom's mass is still normal here: 0 is below)
        (800.0, 1e-3),  # the atom at -800 underflows: the window is a few points, the floor 0
    ],
)
def test_permute_and_flips_floor_is_at_most_the_summed_windows(eps, h):
    """The canonical pair's two atoms span 2 epsilon / h points where the one at -epsilon holds a
    normal P-mass (``window_points_floor``); the floor lies below the windows the builds take."""
    profile = PlanProfile(_selection_plan([(eps, 2)], "permute_and_flip"), h, None)
    floor = plan_module.window_points_floor(profile, h)
    bound = summed_window_points(profile, h)
    assert bound is not None and floor <= bound
    if eps <= plan_module.CANONICAL_NORMAL_EPSILON:
        assert floor >= bound - 16  # two atoms per factor, two factors: the span less a few points


def test_the_floor_counts_no_other_mechanism():
    """A Laplace and the folded Gaussian beside it count 0: their factors are built to be measured."""
    plan = _plan(BESIDE_A_GAUSSIAN)
    assert plan_module.window_points_floor(PlanProfile(plan, H, None), H) == 0.0


def _exponential_past_its_floor():
    """An exponential mechanism of epsilon 20: about 40 / h = 457,000 points on the default grid."""
    from hockeystick.pld.mechanisms.selection import ExponentialMechanism

    return _selection_plan([(20.0, 1)]), ExponentialMechanism, 100_000


def _mixture_past_its_floor():
    """A mixture of two Gaussians: about 97,000 points on the default grid, about 29,000 of them counted
    by its floor (``GaussianMixture.loss_span_floor``)."""
    from hockeystick.pld.accountants.composition_plan import CompositionPlan
    from hockeystick.pld.mechanisms.gaussian_mixture import GaussianMixture

    plan = CompositionPlan({GaussianMixture(1.0, (0.0, 1.0), (0.5, 0.5)).spec(): 1})
    return plan, GaussianMixture, 20_000


@pytest.mark.parametrize("case", [_exponential_past_its_floor, _mixture_past_its_floor])
def test_past_the_floor_no_factor_is_built_and_the_choice_is_the_builds(monkeypatch, case):
    """A mechanism whose floor is past the (lowered) cap goes to the probe without its factor
    built on the default grid, and the profile chosen is the one the built factors' bound chooses
    (the floor taken as 0)."""
    plan, mechanism, cap = case()
    h = plan_module.default_interval(plan)
    monkeypatch.setattr(plan_module, "DEFAULT_GRID_POINTS", cap)
    built: list[float] = []
    original = mechanism.grid_pld

    def recording(self, interval):
        built.append(interval)
        return original(self, interval)

    monkeypatch.setattr(mechanism, "grid_pld", recording)
    chosen = default_grid_profile(plan)
    assert h not in built and chosen.fixed_interval is None
    monkeypatch.setattr(plan_module, "window_points_floor", lambda profile, h: 0.0)
    built.clear()
    by_builds = default_grid_profile(plan)
    assert h in built  # the bound built the factor, found it past the cap, and the probe decided
    assert (by_builds.fixed_interval, by_builds.accuracy) == (
        chosen.fixed_interval,
        chosen.accuracy,
    )
