"""SubsampledGaussianPLD evaluates blocks of (sigma, q) in parallel threads (``workers=``) and, with
``delta_accuracy="epsilon"``, stops refining a delta bracket once its certified epsilon width meets
``accuracy``: the values never depend on ``workers``, and every bracket stays certified."""

from __future__ import annotations

import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick.pld.reads.epsilon_width import RIGHT_OFFSETS, certified_epsilon_width
from hockeystick.pld.refine import round_cache

SIGMA = np.array([0.7, 1.3, 3.0])[:, None, None, None]
Q = np.array([3e-4, 0.02])[None, :, None, None]
ROUNDS = np.array([10.0, 400.0, 5000.0])[:, None]
EPS = np.array([0.5, 1.0, 3.0])


@pytest.mark.parametrize(
    "kw, counts, sigma",
    [
        pytest.param(dict(accuracy=1e-2), (2, 3, None), SIGMA, marks=pytest.mark.slow),
        (dict(accuracy=1e-2, delta_accuracy="epsilon"), (2, 3, None), SIGMA),
        # the grid's deltas below its floor read the default besides, ~0.1 s an element: one uneven
        # split of the two larger sigmas' blocks (27 of their 36 brackets moved by those reads)
        (dict(value_discretization_interval=2e-3), (3,), SIGMA[1:]),
    ],
)
def test_values_are_bit_identical_for_any_workers(kw, counts, sigma):
    out = {}
    for workers in (1, *counts):
        round_cache.clear()
        acc = pld.SubsampledGaussianPLD(
            sigma=sigma, sampling_rate=Q, rounds=ROUNDS, workers=workers, **kw
        )
        out[workers] = acc.delta(EPS, bound="both")
    for workers in counts:
        for a, b in zip(out[1], out[workers]):
            np.testing.assert_array_equal(a, b)
    eps_out = {
        w: pld.SubsampledGaussianPLD(
            sigma=sigma, sampling_rate=Q, rounds=ROUNDS, workers=w, **kw
        ).epsilon(1e-5, bound="both")
        for w in (1, 2)
    }
    for a, b in zip(eps_out[1], eps_out[2]):
        np.testing.assert_array_equal(a, b)


def test_epsilon_rule_meets_accuracy_in_epsilon_and_brackets_overlap_the_relative_rule():
    kw = dict(sigma=SIGMA, sampling_rate=Q, rounds=ROUNDS, accuracy=1e-2)
    lo_e, up_e = pld.SubsampledGaussianPLD(**kw, delta_accuracy="epsilon").delta(EPS, bound="both")
    lo_r, up_r = pld.SubsampledGaussianPLD(**kw).delta(EPS, bound="both")
    # both certified: each lower side is at most the other's upper side
    assert np.all(lo_e <= up_r) and np.all(lo_r <= up_e) and np.all(lo_e <= up_e)
    shifted = pld.SubsampledGaussianPLD(**kw).delta(
        EPS + np.array(RIGHT_OFFSETS)[:, None, None, None, None]
    )
    width = np.min(
        [
            certified_epsilon_width(EPS, lo_e, up_e, EPS + d, s)
            for d, s in zip(RIGHT_OFFSETS, shifted)
        ],
        axis=0,
    )
    relevant = up_e >= pld.SubsampledGaussianPLD.DELTA_FLOOR
    assert relevant.sum() > 10
    # refinement may stall at the grid floor; most points meet the target
    assert np.mean(width[relevant] <= 1e-2) >= 0.8


def test_epsilon_rule_brackets_contain_dp_accounting():
    """The epsilon rule's delta bracket contains dp_accounting's pessimistic-minus-optimistic midpoint at h = 1e-4
    up to that accountant's own discretization (its optimistic value is a lower bound, its pessimistic an upper)."""
    dp = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    sigma, q, rounds = 1.1, 0.01, 2000
    lo, up = pld.SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=rounds, accuracy=1e-2, delta_accuracy="epsilon"
    ).delta(EPS, bound="both")
    for pessimistic, side in ((True, "upper"), (False, "lower")):
        ref = pld_lib.from_gaussian_mechanism(
            sigma,
            sampling_prob=q,
            value_discretization_interval=1e-4,
            pessimistic_estimate=pessimistic,
        ).self_compose(rounds)
        theirs = np.array([ref.get_delta_for_epsilon(e) for e in EPS])
        if side == "upper":
            assert np.all(lo <= theirs * (1 + 1e-9))
        else:
            assert np.all(theirs <= up * (1 + 1e-9))
    del dp


def test_workers_is_checked_and_not_a_grid_parameter():
    from hockeystick import registry

    for bad in (0,):
        with pytest.raises(ValueError, match="workers must be a nonzero integer or None"):
            pld.SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=10, workers=bad)
    for bad in (1.5, "2", True):
        with pytest.raises(TypeError, match="workers must be"):
            pld.SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=10, workers=bad)
    with pytest.raises(ValueError, match="delta_accuracy must be one of"):
        pld.SubsampledGaussianPLD(
            sigma=1.0, sampling_rate=0.01, rounds=10, delta_accuracy="absolute"
        )
    params = registry.get("pld_subsampled_gaussian").parameters
    assert "workers" not in params and "delta_accuracy" not in params


def test_sweep_chunks_hold_whole_blocks_and_equal_the_accountant():
    """A PLD sweep's default chunk is whole (sigma, q) blocks, several of them (so its in-process
    evaluation runs blocks on every core), and its values are the accountant's, bit for bit."""
    from hockeystick.sweep import Grid
    from hockeystick.sweep.run import default_chunk_size, run_sweep

    big = Grid.from_parameters(
        "pld_subsampled_gaussian",
        "delta",
        {
            "sigma": "log:0.5:5:50",
            "sampling_rate": "log:1e-4:0.1:20",
            "rounds": "log:10:100000:50",
            "epsilon": "linear:0.5:10:20",
            "accuracy": 1e-2,
        },
    )
    split, rows, row = big.chunk_layout(default_chunk_size(big))
    assert (
        split <= 1 and row % (50 * 20) == 0 and rows * row // (50 * 20) > 1
    )  # several whole blocks per chunk
    grid = Grid.from_parameters(
        "pld_subsampled_gaussian",
        "delta",
        {
            "sigma": [0.8, 2.0],
            "sampling_rate": [1e-3, 0.03],
            "rounds": [10, 300, 3000],
            "epsilon": [0.5, 2.0, 5.0],
            "accuracy": 1e-2,
        },
    )
    swept = run_sweep(grid, progress=False).columns["delta"]
    direct = pld.SubsampledGaussianPLD(
        sigma=np.array([0.8, 2.0])[:, None, None, None],
        sampling_rate=np.array([1e-3, 0.03])[None, :, None, None],
        rounds=np.array([10.0, 300.0, 3000.0])[:, None],
        accuracy=1e-2,
        workers=1,
    ).delta(np.array([0.5, 2.0, 5.0]))
    np.testing.assert_array_equal(swept, direct.ravel())


def test_an_infinite_epsilon_under_the_epsilon_rule_is_a_bracket_not_an_error():
    """eps = inf (accepted by every delta) has no right point for the epsilon width: the rule falls back
    to the relative one there instead of raising."""
    acc = pld.SubsampledGaussianPLD(
        sigma=1.0, sampling_rate=0.01, rounds=10, accuracy=1e-2, delta_accuracy="epsilon"
    )
    lo, up = acc.delta(np.array([1.0, np.inf]), bound="both")
    assert lo[1] <= up[1] and up[1] < 1e-12 and 0.0 <= lo[0] <= up[0] < 1.0
