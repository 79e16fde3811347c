"""calibrate's upper side direction by direction (calibrate/directions.py, pld/refine/directional_delta.py).

A trial whose leading direction misses the target needs no other direction; a feasible trial takes the
others' certified bound from a screen at a value every later trial lies beyond (the others' delta is
monotone), else composes them at the trial.  Checked: against a closed-form double whose other direction
leads, is dominated, or whose screen is too loose to use (the answer is the plain search's, and the other
direction is evaluated exactly where it decides); the PLD's add-direction screen bounds the add direction's
delta at every larger sigma (one round against a 50-digit mpmath integral; 40 rounds against the certified
lower side of the composition on the requested grid); the PLD answers meet the target on the certified upper
side of both directions and match the plain search, also where the add direction is nearly the larger one.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick import registry
from hockeystick.calibrate import calibrate
from hockeystick.numerics.hockey_stick import theta, theta_radius
from hockeystick.pld.grid.distribution import compose_all
from hockeystick.pld.mechanisms.constructors import subsampled_gaussians
from hockeystick.pld.refine import directional_delta
from hockeystick.registry import AccountantEntry, Calibratable

DELTA = 1e-5


class _Split:
    """Two Gaussian 'directions' of radii sqrt(T)/sigma and ratio sqrt(T)/sigma; the screen is the exact value
    (times ``loose``, capped at 1; None: the trivial bound 1).  Records what it was asked."""

    def __init__(self, ratio: float, loose: float | None, log: dict) -> None:
        self.ratio, self.loose, self.log = ratio, loose, log

    def leading(self, params, epsilon, threads):
        self.log["leading"] += epsilon.size
        return theta(np.sqrt(params["rounds"]) / params["sigma"], epsilon)

    def others(self, params, epsilon, threads, screen=False):
        self.log["screen" if screen else "others"] += epsilon.size
        exact = theta(self.ratio * np.sqrt(params["rounds"]) / params["sigma"], epsilon)
        if not screen:
            return exact
        return np.ones_like(exact) if self.loose is None else np.minimum(exact * self.loose, 1.0)


def _double(ratio: float, loose: float | None, log: dict, split: bool) -> type:
    class TwoDirections:
        def __init__(self, sigma, rounds):
            self.sigma, self.rounds = np.asarray(sigma, float), np.asarray(rounds, float)

        def delta(self, epsilon):
            r = np.sqrt(self.rounds) / self.sigma
            return np.maximum(theta(r, epsilon), theta(ratio * r, epsilon))

        @staticmethod
        def calibration_start(parameter, epsilon, delta, params):
            """5 % above the leading direction's own answer (so the bracket is tight around it)."""
            return (
                1.05 * np.sqrt(np.asarray(params["rounds"], float)) / theta_radius(epsilon, delta)
            )

        @staticmethod
        def calibration_directions(parameter, params, delta):
            return _Split(ratio, loose, log) if split and parameter == "sigma" else None

    return TwoDirections


@pytest.fixture
def two_directions():
    made = []

    def register(ratio: float, loose: float | None, split: bool):
        log = {"leading": 0, "others": 0, "screen": 0}
        name = f"two_directions_test_{len(made)}"
        made.append(name)
        entry = registry.register(
            AccountantEntry(
                name,
                _double(ratio, loose, log, split),
                "test double",
                integers=frozenset({"rounds"}),
                max_chunk=1 << 10,
                calibratable={"sigma": Calibratable("decreasing", 0.0, np.inf)},
            )
        )
        return entry, log

    yield register
    for name in made:
        del registry.REGISTRY[name]


TARGETS = dict(epsilon=np.array([0.5, 1.0, 2.0, 4.0]), rounds=np.array([10.0, 100.0, 1000.0, 3.0]))


@pytest.mark.parametrize(
    "ratio, loose, composed",
    [
        (1.5, 1.0, True),  # the other direction leads: composed at every feasible trial
        (
            0.5,
            1.0,
            False,
        ),  # dominated: screens only (the bracket from the start is within 20 % of the answer)
        (
            0.5,
            None,
            True,
        ),  # dominated, but its screen (the trivial bound 1) cannot prove it: composed
    ],
)
def test_other_direction_evaluated_exactly_where_it_decides(two_directions, ratio, loose, composed):
    plain, _ = two_directions(ratio, loose, split=False)
    split, log = two_directions(ratio, loose, split=True)
    want = calibrate(plain, "sigma", delta=DELTA, **TARGETS)
    got = calibrate(split, "sigma", delta=DELTA, **TARGETS)
    np.testing.assert_allclose(got, want, rtol=1e-9)
    # the answer meets the target on the whole bound (both directions), at rtol of where it stops doing so
    whole = plain.factory(sigma=got, rounds=TARGETS["rounds"]).delta(TARGETS["epsilon"])
    assert np.all(whole <= DELTA)
    assert np.all(
        plain.factory(sigma=got * (1 - 1e-9), rounds=TARGETS["rounds"]).delta(TARGETS["epsilon"])
        > DELTA
    )
    assert log["leading"] > 0 and log["screen"] <= 2 * TARGETS["rounds"].size
    assert (log["others"] > 0) == composed


def _add_delta_one_round(sigma: float, q: float, eps: float) -> mpmath.mpf:
    """The add direction's delta for one round, to 50 digits: int (N(0,s^2) - e^eps ((1-q) N(0,s^2) + q N(1,s^2)))_+
    (Zhu, Dong, Wang 2022, Thm 11); the integrand is positive exactly below the loss root x*."""
    with mpmath.workdps(50):
        s, q, e = mpmath.mpf(sigma), mpmath.mpf(q), mpmath.mpf(eps)
        # N(0)/mix > e^eps  <=>  e^{(2x - 1)/(2 s^2)} < (e^{-eps} - (1-q)) / q
        ratio = (mpmath.exp(-e) - (1 - q)) / q
        if ratio <= 0:
            return mpmath.mpf(0)
        root = (2 * s * s * mpmath.log(ratio) + 1) / 2
        cdf = lambda x, m: mpmath.ncdf((x - m) / s)  # noqa: E731
        return cdf(root, 0) - mpmath.exp(e) * ((1 - q) * cdf(root, 0) + q * cdf(root, 1))


@pytest.mark.parametrize("sigma, q, eps", [(0.8, 0.5, 0.05), (1.0, 0.9, 0.02), (0.6, 0.3, 0.1)])
def test_add_screen_bounds_the_add_direction_at_every_larger_sigma_one_round(sigma, q, eps):
    split = directional_delta.calibration_directions(
        "sigma", {"sampling_rate": q, "rounds": 1.0, "value_discretization_interval": 1e-4}, DELTA
    )
    screen = float(
        split.others(
            {"sampling_rate": q, "rounds": 1.0, "sigma": sigma}, np.array([eps]), 1, screen=True
        )[0]
    )
    exact = [float(_add_delta_one_round(sigma * f, q, eps)) for f in (1.0, 1.001, 1.1, 2.0)]
    assert exact[0] > 1e-4  # a case where the add direction is far from 0
    assert all(screen >= e for e in exact)
    assert exact == sorted(exact, reverse=True)  # the premise: it falls as sigma grows


def test_add_screen_bounds_the_composed_add_direction_at_every_larger_sigma():
    q, rounds, eps, sigma = 0.05, 40, np.array([0.3, 0.6, 1.0]), 0.9
    split = directional_delta.calibration_directions(
        "sigma",
        {"sampling_rate": q, "rounds": float(rounds), "value_discretization_interval": 1e-4},
        DELTA,
    )
    screen = np.array(
        [
            split.others(
                {"sampling_rate": q, "rounds": float(rounds), "sigma": sigma},
                e[None],
                1,
                screen=True,
            )[0]
            for e in eps
        ]
    )
    for f in (1.0, 1.001, 1.05):
        lower = subsampled_gaussians([sigma * f], [q], directions="add")[0].self_compose(rounds)
        compose_all([lower], False)
        certain = lower.composed(False)[0].delta(
            eps
        )  # certified lower side of the add direction, grid 1e-4
        assert np.all(certain > 0) and np.all(screen >= certain)


def _plain_sigma(monkeypatch, **target):
    with monkeypatch.context() as m:
        m.setattr(pld.SubsampledGaussianPLD, "calibration_directions", None)
        return calibrate(
            "pld_subsampled_gaussian", "sigma", delta=target.pop("delta", DELTA), **target
        )


@pytest.mark.slow
def test_pld_sigma_meets_the_target_on_both_directions_and_matches_the_plain_search(monkeypatch):
    rng = np.random.default_rng(11)
    target = dict(
        sampling_rate=10 ** rng.uniform(-3, -1, 6),
        rounds=np.round(10 ** rng.uniform(1, 3, 6)),
        epsilon=rng.uniform(1, 8, 6),
        value_discretization_interval=1e-4,  # the split serves a given grid (the default's delta reads finer)
    )
    got = calibrate("pld_subsampled_gaussian", "sigma", delta=DELTA, **target)
    want = _plain_sigma(monkeypatch, **target)
    np.testing.assert_allclose(got, want, rtol=1e-8)  # the bound's noise near its root: ~1e-9
    eps = target.pop("epsilon")
    assert np.all(pld.SubsampledGaussianPLD(sigma=got, **target).delta(eps) <= DELTA)


def test_pld_add_direction_near_the_remove_one_is_composed(monkeypatch):
    """q = 0.8, 10 rounds, eps = 0.2: the add direction's delta is 0.995 of the remove one's, so no screen
    clears it and it is composed on the requested grid at the feasible trials; the answer is the plain one."""
    asked = []
    others = directional_delta.SubsampledGaussianDirections.others

    def spy(self, params, epsilon, threads, screen=False):
        asked.append(screen)
        return others(self, params, epsilon, threads, screen)

    target = dict(
        sampling_rate=0.8, rounds=10.0, epsilon=0.2, delta=0.418, value_discretization_interval=1e-4
    )
    monkeypatch.setattr(directional_delta.SubsampledGaussianDirections, "others", spy)
    got = calibrate("pld_subsampled_gaussian", "sigma", **target)
    assert False in asked
    want = _plain_sigma(monkeypatch, **target)
    assert got == pytest.approx(want, rel=1e-8)
    acc = pld.SubsampledGaussianPLD(
        sigma=got, sampling_rate=0.8, rounds=10, value_discretization_interval=1e-4
    )
    assert acc.delta(0.2) <= 0.418


@pytest.mark.parametrize(
    "bad, message",
    [
        (dict(rounds=2.5), "rounds must be an integer"),
        (dict(rounds=0), "rounds must be an integer"),
        (dict(sensitivity=-1.0), "sensitivity must be finite and > 0"),
        (dict(tail=0.1), "tail must lie in"),
        (dict(sampling_rate=0.0), r"sampling_rate must lie in \(0, 1\]"),
    ],
)
def test_pld_split_refuses_what_the_accountant_refuses(monkeypatch, bad, message):
    target = {**dict(sampling_rate=0.01, rounds=100, epsilon=1.0, delta=DELTA), **bad}
    with pytest.raises(ValueError, match=message):
        calibrate("pld_subsampled_gaussian", "sigma", **target)
    with pytest.raises(ValueError, match=message):
        _plain_sigma(monkeypatch, **target)


def test_directions_are_the_accountants_numbers():
    """max(remove, add) on the requested grid is SubsampledGaussianPLD.delta bit for bit (the split changes
    which directions are composed, never what a composed one gives)."""
    rng = np.random.default_rng(3)
    q, rounds, sigma = (
        10 ** rng.uniform(-3, -0.5, 5),
        np.round(10 ** rng.uniform(1, 3, 5)),
        rng.uniform(0.6, 3, 5),
    )
    # deltas from 1e-1 to 1e-24: both sides of DELTA_FLOOR
    eps = np.array([0.05, 0.1, 0.2, 0.5, 1.0])
    split = directional_delta.calibration_directions(
        "sigma",
        {"sampling_rate": q, "rounds": rounds, "value_discretization_interval": 3e-4},
        np.full(5, DELTA),
    )
    params = {"sampling_rate": q, "rounds": rounds, "sigma": sigma}
    both = np.maximum(split.leading(params, eps, 1), split.others(params, eps, 1))
    want = pld.SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=rounds, value_discretization_interval=3e-4, workers=1
    ).delta(eps)
    # at or above DELTA_FLOOR the grid alone answers: the same doubles; below it the accountant also reads the
    # default's delta (default_reads.grid_sides), never above the grid's
    alone = both >= pld.SubsampledGaussianPLD.DELTA_FLOOR
    assert alone.any() and not alone.all()
    np.testing.assert_array_equal(both[alone], want[alone])
    assert np.all(want[~alone] <= both[~alone])
    # a target the grid alone cannot answer (below DELTA_FLOOR, or q below the grid): the plain search instead
    on_grid = {"sampling_rate": 0.1, "rounds": 5.0, "value_discretization_interval": 1e-4}
    assert directional_delta.calibration_directions("sigma", on_grid, DELTA) is not None
    below_the_floor = np.array([DELTA, 1e-10])
    assert directional_delta.calibration_directions("sigma", on_grid, below_the_floor) is None
    rare = {**on_grid, "sampling_rate": 1e-5}
    assert directional_delta.calibration_directions("sigma", rare, DELTA) is None
    assert (
        directional_delta.calibration_directions(
            "sigma", {"sampling_rate": np.array([0.1, 1.0]), "rounds": 5.0}, DELTA
        )
        is None
    )
    assert (
        directional_delta.calibration_directions(
            "rounds", {"sampling_rate": 0.1, "sigma": 1.0}, DELTA
        )
        is None
    )
    # no grid given: the default's delta also reads its upper side on a finer grid, which the split would not be
    assert (
        directional_delta.calibration_directions(
            "sigma", {"sampling_rate": 0.1, "rounds": 5.0}, DELTA
        )
        is None
    )
    assert (
        directional_delta.calibration_directions(
            "sigma", {"sampling_rate": 0.1, "rounds": 5.0, "accuracy": 1e-2}, DELTA
        )
        is None
    )
