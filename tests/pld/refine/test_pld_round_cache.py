"""One discretization per (sigma, q) pair, kept between calls: rounds values and calibration trials share it."""

from __future__ import annotations

import numpy as np

import hockeystick.pld as pld
from hockeystick.calibrate import calibrate
from hockeystick.pld.grid.distribution import upper_values
from hockeystick.pld.refine import round_cache


def _counting(monkeypatch, grid: float | None = None) -> list[int]:
    """The number of pairs of each discretization call (on ``grid`` only, where given)."""
    calls: list[int] = []
    real = round_cache.subsampled_gaussians

    def spy(sigma, *args, **kwargs):
        if grid is None or kwargs["value_discretization_interval"] == grid:
            calls.append(len(sigma))
        return real(sigma, *args, **kwargs)

    monkeypatch.setattr(round_cache, "subsampled_gaussians", spy)
    round_cache.clear()  # each test counts its own discretizations
    return calls


def test_rounds_values_of_one_pair_share_one_discretization(monkeypatch):
    calls = _counting(monkeypatch)
    rounds = np.array([10, 30, 100, 300])
    acc = pld.SubsampledGaussianPLD(
        sigma=1.3, sampling_rate=0.05, rounds=rounds, value_discretization_interval=1e-3
    )
    lo, up = acc.epsilon(1e-5, bound="both")
    # each direction discretized once for every rounds value: the remove direction's two sides and
    # the add direction's pessimistic one (``fixed_grid.lean_sides``)
    assert calls == [1, 1]
    assert np.all(np.diff(up) > 0) and np.all(lo <= up)
    for t, u in zip(
        rounds, up
    ):  # the same values as composing each point on its own (the upper side read as
        # the accountant reads it: from the spectra where few frequencies live, distribution.upper_values)
        alone = pld.subsampled_gaussian(1.3, 0.05, value_discretization_interval=1e-3).self_compose(
            int(t)
        )
        assert u == upper_values([alone], "epsilon", [np.array([1e-5])])[0][0]


def test_rounds_calibration_discretizes_each_pair_once(monkeypatch):
    calls = _counting(monkeypatch)
    rounds = calibrate(
        "pld_subsampled_gaussian",
        "rounds",
        epsilon=np.array([2.0, 3.0]),
        delta=1e-5,
        sigma=1.0,
        sampling_rate=0.01,
        workers=1,
    )
    # one (sigma, q) pair for both targets, discretized once per grid (calibrate's two coarse grids and
    # the requested one) over every trial; blocks in two threads may both miss the cache at once
    assert calls == [1, 1, 1]
    for t, eps in zip(
        rounds, (2.0, 3.0)
    ):  # extremal and certified: T meets the target, T + 1 does not
        acc = pld.SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=[t, t + 1])
        assert acc.delta(eps)[0] <= 1e-5 < acc.delta(eps)[1]


def test_the_cache_stays_within_its_budget(monkeypatch):
    _counting(monkeypatch)
    monkeypatch.setattr(round_cache, "MAX_POINTS", 30_000)
    for sigma in (0.9, 1.0, 1.1, 1.2):
        pld.SubsampledGaussianPLD(
            sigma=sigma, sampling_rate=0.02, rounds=5, value_discretization_interval=1e-3
        ).epsilon(1e-5)
    points, kept = round_cache.held()
    assert points <= 30_000 or kept == 1  # the least recently used PLDs are dropped past MAX_POINTS


def test_ledger_checkpoints_discretize_each_distinct_round_once(monkeypatch):
    from hockeystick.ledger import PrivacyLedger, Round

    calls = _counting(
        monkeypatch, grid=1e-3
    )  # the ledger's grid (the question reads the run on grids of its own)
    ledger = PrivacyLedger(adaptive=False, value_discretization_interval=1e-3)
    brackets = []
    for sigma in (
        1.0,
        1.2,
        1.0,
        1.2,
        1.0,
    ):  # two distinct rounds, five checkpoints, each a new accountant
        ledger.record(Round.subsampled_gaussian(sigma, 0.01))
        g = ledger.composition(1e-5)
        brackets.append((g.epsilon_lower, g.epsilon))
    assert calls == [1, 1]
    # the same bracket as a fresh accountant composing the counts with nothing kept
    round_cache.clear()
    acc = pld.PLDAccountant(value_discretization_interval=1e-3)
    acc.compose_subsampled_gaussian(1.0, 0.01, 3).compose_subsampled_gaussian(1.2, 0.01, 2)
    assert brackets[-1] == acc.epsilon(1e-5, bound="both")
    assert all(a[1] < b[1] for a, b in zip(brackets, brackets[1:]))  # each round adds loss


def _same_pmfs(a: pld.PrivacyLossDistribution, b: pld.PrivacyLossDistribution) -> bool:
    """Whether two PLDs hold the same factors' PMFs, bit for bit (both sides where built)."""
    fa = [f for d in a.directions for f in d]
    fb = [f for d in b.directions for f in d]
    sides = [(x.upper, y.upper) for x, y in zip(fa, fb)] + [
        (x.lower, y.lower) for x, y in zip(fa, fb) if x.lower is not None or y.lower is not None
    ]
    return len(fa) == len(fb) and all(
        p is not None
        and r is not None
        and p.k_lo == r.k_lo
        and p.p_inf == r.p_inf
        and np.array_equal(p.p, r.p)
        for p, r in sides
    )


def test_one_direction_keeps_each_discretization_under_its_exact_key():
    """A refinement's one-direction discretizations (``dominated_direction``'s): asked again with the same
    (sigma, q, sensitivity, h, tail, direction, side) they are not built again and are the PLDs a fresh build
    gives, bit for bit; any other grid, tail, direction or side is built anew."""
    from hockeystick.pld.mechanisms.constructors import subsampled_gaussians

    built: list[tuple[str, bool, float, float, int]] = []

    def build(sigma, q, **kwargs):
        built.append(
            (
                kwargs["directions"],
                kwargs["optimistic"],
                kwargs["value_discretization_interval"],
                kwargs["tail"],
                len(sigma),
            )
        )
        return subsampled_gaussians(sigma, q, **kwargs)

    round_cache.clear()
    pairs = [(0.8, 1e-3, 1.0), (1.3, 0.05, 1.0)]
    first = round_cache.one_direction(pairs, 2e-4, 1e-12, "remove", True, 1, build=build)
    again = round_cache.one_direction(pairs[::-1], 2e-4, 1e-12, "remove", True, 1, build=build)
    assert built == [("remove", True, 2e-4, 1e-12, 2)]
    assert again[0] is first[1] and again[1] is first[0]
    for pair, kept in zip(pairs, first):
        fresh = subsampled_gaussians(
            [pair[0]],
            [pair[1]],
            sensitivity=[pair[2]],
            value_discretization_interval=2e-4,
            tail=1e-12,
            optimistic=True,
            directions="remove",
        )[0]
        assert _same_pmfs(kept, fresh)
        assert len(kept.directions) == 1 and kept.directions[0]
    for h, tail, direction, optimistic in (
        (1e-4, 1e-12, "remove", True),
        (2e-4, 1e-13, "remove", True),
        (2e-4, 1e-12, "add", True),
        (2e-4, 1e-12, "remove", False),
    ):
        round_cache.one_direction(pairs[:1], h, tail, direction, optimistic, 1, build=build)
        assert built[-1] == (direction, optimistic, h, tail, 1)
    assert len(built) == 5
