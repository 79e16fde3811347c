"""calibrate() through the subsampled-Gaussian PLD starts at the central-limit estimate (calibration_start.py).

Checked: with q = 1 the estimate is the exact Gaussian calibration (mpmath-free: theta_radius is
tested to 1e-12 elsewhere, and the composed Gaussian is that radius); for small q it lies within the
measured band of the PLD answer; calibrating from it returns the same value as from the default
start (1, factors 4, 16, 256) and never evaluates rounds far beyond the answer (the default
start's bracketing evaluated a billion rounds).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import hockeystick as hs
import hockeystick.pld as pld
from hockeystick.calibrate import calibrate
from hockeystick.pld.refine import directional_delta
from hockeystick.pld.refine.calibration_start import calibration_start

DELTA = 1e-5


def test_gaussian_rounds_give_the_exact_calibration():
    eps, rounds = np.array([0.5, 1.0, 4.0]), np.array([1.0, 100.0, 1e4])
    sigma = calibration_start(
        "sigma",
        eps,
        np.full(3, DELTA),
        {"rounds": rounds, "sampling_rate": 1.0, "sensitivity": 2.0},
    )
    np.testing.assert_allclose(
        sigma, 2.0 * np.sqrt(rounds) / hs.theta_radius(eps, DELTA), rtol=1e-12
    )
    t = calibration_start(
        "rounds", eps, np.full(3, DELTA), {"sigma": sigma, "sampling_rate": 1.0, "sensitivity": 2.0}
    )
    np.testing.assert_array_equal(t, rounds)


def test_subsampled_estimate_is_near_and_optimistic():
    q, rounds, eps = (
        np.array([0.01, 0.003, 0.05]),
        np.array([1000.0, 3000.0, 500.0]),
        np.array([1.0, 2.0, 4.0]),
    )
    start = calibration_start(
        "sigma", eps, np.full(3, DELTA), {"rounds": rounds, "sampling_rate": q}
    )
    got = calibrate(
        "pld_subsampled_gaussian",
        "sigma",
        epsilon=eps,
        delta=DELTA,
        sampling_rate=q,
        rounds=rounds,
        rtol=1e-6,
    )
    assert np.all(start <= got) and np.all(start >= 0.7 * got), start / got


def test_unknown_parameter_and_unreachable_targets():
    assert calibration_start("sensitivity", np.ones(1), np.full(1, DELTA), {}) is None
    # sigma 0 rounds: no finite estimate; calibrate's default start stands in
    start = calibration_start(
        "rounds", np.ones(1), np.full(1, DELTA), {"sigma": np.array([1e-3]), "sampling_rate": 0.5}
    )
    assert np.all(np.isfinite(start)) and np.all(start >= 1)


@pytest.mark.parametrize("parameter", ["sigma", pytest.param("rounds", marks=pytest.mark.slow)])
def test_same_answer_as_the_default_start_with_no_far_evaluation(parameter, monkeypatch):
    """The search from the estimate returns the answer the default start's search returns, checked at the
    answer's definition rather than by running that search (whose bracketing evaluates rounds up to 65536 here,
    over 90 % of the test's CPU): the largest rounds whose certified delta meets the target, the next count
    missing it (``calibrate``'s integers end on adjacent values), or the least sigma within 1e-7 that meets it,
    sigma (1 - 1e-7) missing it (the search stops within its rtol 1e-8 of that crossing, so a start that changed
    the answer by more than the former comparison's rtol 1e-7 fails here too); and no evaluation far from it."""
    fixed = {"sigma": {"rounds": 2000.0}, "rounds": {"sigma": 0.9}}[parameter]
    target = dict(
        epsilon=np.array([2.0, 1.0]), delta=DELTA, sampling_rate=np.array([0.002, 0.01]), **fixed
    )
    seen: list[float] = []
    original = pld.SubsampledGaussianPLD.__init__

    @functools.wraps(original)  # the registry reads the accountant's parameters from this signature
    def record(self, *args, **kwargs):
        seen.append(float(np.max(kwargs.get(parameter, np.nan))))
        original(self, *args, **kwargs)

    monkeypatch.setattr(pld.SubsampledGaussianPLD, "__init__", record)
    discretize = (
        directional_delta.subsampled_gaussians
    )  # the sigma search's trials, direction by direction

    def record_direction(sigma, *args, **kwargs):
        seen.append(float(np.max(sigma)))
        return discretize(sigma, *args, **kwargs)

    monkeypatch.setattr(directional_delta, "subsampled_gaussians", record_direction)
    estimated = calibrate("pld_subsampled_gaussian", parameter, rtol=1e-8, **target)
    monkeypatch.undo()  # the checks' accountants are not the search's
    if parameter == "rounds":
        assert max(seen) <= 4 * np.max(estimated)
        past = estimated + 1
    else:
        assert min(seen) >= 0.5 * np.min(estimated)
        past = estimated * (1 - 1e-7)
    for value, meets in ((estimated, True), (past, False)):
        got = pld.SubsampledGaussianPLD(
            **{**fixed, parameter: value}, sampling_rate=target["sampling_rate"]
        )
        assert np.array_equal(got.delta(target["epsilon"]) <= DELTA, [meets, meets]), value


def test_calibration_grids_ladder_and_where_there_is_none():
    from hockeystick.pld.refine.calibration_start import calibration_grids

    ladder = calibration_grids("sigma", {"sampling_rate": 0.01, "rounds": 100.0})
    assert [h for h, _ in ladder] == pytest.approx([2e-3, 1e-3, 1e-4])
    assert [o for _, o in ladder] == [
        {"value_discretization_interval": pytest.approx(2e-3)},
        {"value_discretization_interval": pytest.approx(1e-3)},
        {},
    ]
    assert calibration_grids("rounds", {"value_discretization_interval": 1e-3})[0][
        0
    ] == pytest.approx(2e-2)
    assert calibration_grids("sigma", {"accuracy": 1e-2}) == []  # the grid is chosen per point
    assert (
        calibration_grids("sigma", {"value_discretization_interval": 5e-3}) == []
    )  # 20 h > COARSEST_GRID
    assert (
        calibration_grids("sigma", {"value_discretization_interval": np.array([1e-4, 2e-4])}) == []
    )
    assert calibration_grids("sensitivity", {}) == []
    # a coarse grid above the least rate: the rate's rounds span less than a cell there
    assert calibration_grids("sigma", {"sampling_rate": np.array([0.01, 1.9e-3])}) == []
    assert len(calibration_grids("sigma", {"sampling_rate": np.array([0.01, 2e-3])})) == 3


def test_coarse_answers_extrapolate_towards_the_requested_grid():
    """The ladder's premise: on grid h the calibrated log sigma is about u_inf + c h^2, so the Richardson
    value from h = 2e-3 and 1e-3 lands much nearer the answer at 1e-4 than the 1e-3 answer does."""
    q, rounds, eps = (
        np.array([0.05, 0.002, 0.02]),
        np.array([300.0, 5000.0, 2000.0]),
        np.array([6.0, 1.0, 3.0]),
    )
    u = {
        h: np.log(
            calibrate(
                "pld_subsampled_gaussian",
                "sigma",
                epsilon=eps,
                delta=DELTA,
                sampling_rate=q,
                rounds=rounds,
                value_discretization_interval=h,
                rtol=1e-9,
            )
        )
        for h in (2e-3, 1e-3, 1e-4)
    }
    predicted = u[1e-3] + (u[1e-3] - u[2e-3]) * (1e-8 - 1e-6) / (1e-6 - 4e-6)
    assert np.all(np.abs(predicted - u[1e-4]) < 0.2 * np.abs(u[1e-3] - u[1e-4])), (
        predicted - u[1e-4],
        u[1e-3] - u[1e-4],
    )


@pytest.mark.slow
def test_random_targets_are_certified_minimal_and_equal_to_the_plain_search():
    """G2-like targets (q 10^U(-3,-1), rounds 10^U(1,3), eps U(1,8)): the sigma found through the coarse
    grids meets the target on the requested grid's certified upper side, sigma (1 - 1e-6) does not, nor
    does sigma (1 - 1e-8): the search stops within its rtol 1e-9 of the least sigma that meets it, so it
    finds the value the search started from sigma = 1 (no estimate, no coarse grids) finds to rtol 1e-8,
    checked at that definition rather than by running that search (half of the test's CPU)."""
    rng = np.random.default_rng(3)
    q, rounds, eps = (
        10 ** rng.uniform(-3, -1, 6),
        np.round(10 ** rng.uniform(1, 3, 6)),
        rng.uniform(1, 8, 6),
    )
    grid = 1e-4  # the search's mechanics on a given grid (the default's delta adds a finer read per point)
    kwargs = dict(
        epsilon=eps,
        delta=DELTA,
        sampling_rate=q,
        rounds=rounds,
        rtol=1e-9,
        value_discretization_interval=grid,
    )
    sigma = calibrate("pld_subsampled_gaussian", "sigma", **kwargs)
    on_grid = dict(sampling_rate=q, rounds=rounds, value_discretization_interval=grid)
    assert np.all(pld.SubsampledGaussianPLD(sigma=sigma, **on_grid).delta(eps) <= DELTA)
    for below in (1e-6, 1e-8):
        assert np.all(
            pld.SubsampledGaussianPLD(sigma=sigma * (1 - below), **on_grid).delta(eps) > DELTA
        )


@pytest.mark.parametrize(
    "q, rounds, eps", [(0.0188, 106.0, 7.84), (0.00346, 4524.0, 1.42), (0.0423, 1598.0, 1.55)]
)
def test_the_first_step_on_the_requested_grid_lands_just_past_the_answer(
    q, rounds, eps, monkeypatch
):
    """From the Richardson start, the step the coarser grid's slope predicts (``_newton_step``, 1.2 Newton
    steps) crosses the answer and lands past it by a fifth of the start's error, not a whole one: so the
    secant between those two ends lands within a few rtol of the answer, and few evaluations on the
    requested grid follow."""
    import hockeystick.calibrate as calibrate_module  # as test_calibrate_workers.py patches it

    fine: list[tuple[float, float]] = []
    original = calibrate_module._Problem.log_excess

    def recording(self, x, idx):
        f = original(self, x, idx)
        if "value_discretization_interval" not in self.params:  # the requested grid's evaluations
            fine.extend(zip(np.atleast_1d(x).tolist(), f.tolist()))
        return f

    monkeypatch.setattr(calibrate_module._Problem, "log_excess", recording)
    sigma = calibrate(
        "pld_subsampled_gaussian", "sigma", epsilon=eps, delta=DELTA, sampling_rate=q, rounds=rounds
    )
    (x0, f0), (x1, f1) = fine[:2]
    assert f0 * f1 < 0  # the first step crosses
    start_error, past = abs(np.log(x0 / sigma)), abs(np.log(x1 / sigma))
    assert 0.05 * start_error < past < 0.4 * start_error, (start_error, past)


def test_a_coarse_grid_that_refuses_leaves_the_search_to_the_requested_grid(monkeypatch):
    kwargs = dict(
        epsilon=np.array([1.0, 3.0]),
        delta=DELTA,
        sampling_rate=np.array([0.01, 0.03]),
        rounds=300.0,
    )
    plain = calibrate("pld_subsampled_gaussian", "sigma", **kwargs)
    refusing = [
        (200.0, {"value_discretization_interval": 200.0}),
        (150.0, {"value_discretization_interval": 150.0}),
        (1e-4, {}),
    ]  # h > 100 is refused (ValueError) by the accountant
    monkeypatch.setattr(
        pld.SubsampledGaussianPLD,
        "calibration_grids",
        staticmethod(lambda parameter, params: refusing),
    )
    again = calibrate("pld_subsampled_gaussian", "sigma", **kwargs)
    np.testing.assert_allclose(again, plain, rtol=1e-9)
    assert np.all(
        pld.SubsampledGaussianPLD(
            sigma=again, sampling_rate=kwargs["sampling_rate"], rounds=300.0
        ).delta(kwargs["epsilon"])
        <= DELTA
    )


@pytest.mark.slow
def test_same_sigma_and_rounds_as_dp_accounting_calibrate_dp_mechanism(monkeypatch):
    """dp_accounting's calibrate_dp_mechanism over its PLDAccountant (h = 1e-4, its default tolerance)
    for one target: our sigma within 1e-6 of its and never below our certified lower side minus that
    tolerance; our rounds equal to its (its accountant is an estimate, ours a certified bracket).
    Its searches start from the brackets [1, 4] and [1, 300] (fewer trials), and its one-round PLD is
    built once per sigma (a deterministic function of its arguments; self_compose returns a new PLD):
    the rounds search, all at sigma 1, builds it once instead of once per trial."""
    import dp_accounting
    from dp_accounting import mechanism_calibration
    from dp_accounting.pld import pld_privacy_accountant, privacy_loss_distribution

    monkeypatch.setattr(
        privacy_loss_distribution,
        "from_gaussian_mechanism",
        functools.lru_cache(maxsize=None)(privacy_loss_distribution.from_gaussian_mechanism),
    )

    q, eps, rounds = 0.05, 4.0, 1000

    def event(sigma: float, count: int) -> dp_accounting.DpEvent:
        return dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), count
        )

    def fresh() -> pld_privacy_accountant.PLDAccountant:
        return pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)

    theirs = mechanism_calibration.calibrate_dp_mechanism(
        fresh,
        lambda s: event(s, rounds),
        eps,
        DELTA,
        bracket_interval=mechanism_calibration.ExplicitBracketInterval(1.0, 4.0),
    )
    lo, up = calibrate(
        "pld_subsampled_gaussian",
        "sigma",
        epsilon=eps,
        delta=DELTA,
        sampling_rate=q,
        rounds=rounds,
        bound="both",
    )
    assert abs(up / theirs - 1) < 1e-6 and lo * (1 - 1e-6) <= theirs, (lo, up, theirs)
    theirs_t = mechanism_calibration.calibrate_dp_mechanism(
        fresh,
        lambda t: event(1.0, int(t)),
        eps,
        DELTA,
        bracket_interval=mechanism_calibration.ExplicitBracketInterval(1, 300),
        discrete=True,
    )
    assert (
        calibrate(
            "pld_subsampled_gaussian",
            "rounds",
            epsilon=eps,
            delta=DELTA,
            sampling_rate=q,
            sigma=1.0,
        )
        == theirs_t
    )
