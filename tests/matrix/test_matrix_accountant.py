"""DPFTRL / MatrixMechanism: the Gaussian guarantee at the certified sensitivity, against dp_accounting's
tree-aggregation RDP, closed forms for restarted trees, 50-digit theta, and the accountant contract."""

from __future__ import annotations

import math

import dp_accounting
import mpmath
import numpy as np
import pytest
from dp_accounting.rdp import rdp_privacy_accountant as R

from hockeystick.calibrate import calibrate
from hockeystick.fdp.gaussian_mechanism import GaussianMechanism
from hockeystick.matrix import (
    BLT,
    DPFTRL,
    Banded,
    MatrixMechanism,
    MinSeparation,
    Tree,
    l2_sensitivity,
)
from hockeystick.rdp.tree_aggregation import single_epoch_tree_aggregation_rdp, tree_depth

ORDERS = [1.5, 2.0, 4.0, 8.0, 32.0, 256.0]


@pytest.mark.parametrize("rounds", [1, 2, 7, 8, 100, 1000])
@pytest.mark.parametrize("noise", [0.5, 1.0, 3.7])
def test_single_epoch_tree_rdp_matches_dp_accounting(rounds, noise):
    """Each client once (max_participations=1): RDP alpha depth / (2 z^2), dp_accounting's
    SingleEpochTreeAggregationDpEvent under REPLACE_SPECIAL (add or remove one client's contributions),
    and hockeystick's rdp.tree_aggregation; ours is certified, so at most a few ulps above."""
    acc = DPFTRL(rounds=rounds, noise_multiplier=noise, max_participations=1)
    event = dp_accounting.SingleEpochTreeAggregationDpEvent(noise, rounds)
    theirs = (
        R.RdpAccountant(ORDERS, dp_accounting.NeighboringRelation.REPLACE_SPECIAL)
        .compose(event)
        .rdp
    )
    ours = acc.rdp(ORDERS)
    assert (ours >= theirs).all()
    np.testing.assert_allclose(ours, theirs, rtol=1e-13)
    np.testing.assert_allclose(
        ours, single_epoch_tree_aggregation_rdp(noise, rounds, ORDERS), rtol=1e-13
    )


@pytest.mark.parametrize("epoch, epochs", [(1, 5), (8, 3), (13, 4), (64, 2)])
def test_restarted_tree_is_the_composition_of_its_epochs(epoch, epochs):
    """A tree restarted every epoch, each client once per epoch (min separation = the epoch): the trees see
    disjoint rounds, so rho = epochs * depth(epoch) / (2 z^2) (Kairouz et al. 2021, tree with restarts)."""
    acc = DPFTRL(
        rounds=epoch * epochs, noise_multiplier=2.0, min_separation=epoch, strategy="tree_restart"
    )
    expected = epochs * tree_depth(epoch) / 8.0
    assert acc.sensitivity_kind == "exact"
    assert expected <= acc.zcdp_rho <= expected * (1 + 1e-13)


def test_gaussian_sides_against_50_digit_theta():
    """The tree under one participation has sensitivity sqrt(depth) exactly: both sides of delta(eps) and
    epsilon(delta) bracket the 50-digit Gaussian profile at mu = sqrt(depth) / z."""
    mpmath.mp.dps = 50
    for rounds, z in ((100, 1.3), (37, 0.8), (1000, 5.0)):
        acc = DPFTRL(rounds=rounds, noise_multiplier=z, max_participations=1)
        mu = mpmath.sqrt(tree_depth(rounds)) / mpmath.mpf(z)
        for eps in (0.1, 1.0, 4.0):
            exact = mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(
                -eps / mu - mu / 2
            )
            low, high = acc.delta(eps, bound="both")
            assert low <= exact <= high
            assert float(high) == pytest.approx(float(exact), rel=1e-9)
        low, high = acc.epsilon(1e-6, bound="both")
        assert low <= high and high == pytest.approx(low, rel=1e-9)


def test_the_guarantee_is_the_gaussian_mechanism_at_the_certified_sensitivity():
    acc = DPFTRL(
        rounds=50, noise_multiplier=1.5, min_separation=5, strategy=Banded([1.0, 0.5, 0.25])
    )
    gm = GaussianMechanism(sigma=1.5, sensitivity=acc.sensitivity)
    assert acc.epsilon(1e-5) == gm.epsilon(1e-5)
    assert acc.delta(2.0) == gm.delta(2.0)
    assert acc.mu == gm.mu
    assert acc.zcdp_rho >= acc.mu**2 / 2 and acc.zcdp_rho == pytest.approx(acc.mu**2 / 2, rel=1e-15)
    np.testing.assert_allclose(acc.rdp(ORDERS), np.array(ORDERS) * acc.zcdp_rho, rtol=1e-15)


def test_an_upper_bound_sensitivity_gives_a_bracket_with_the_truth_inside():
    """Tree without restarts, 100 rounds, min separation 10: too many patterns to enumerate, so the
    sensitivity is a proved upper bound; the lower side is a realizable pattern's value."""
    acc = DPFTRL(rounds=100, noise_multiplier=4.0, min_separation=10)
    assert acc.sensitivity_kind == "upper bound"
    assert acc.sensitivity_lower < acc.sensitivity
    pattern = acc.sensitivities.pattern
    assert all(b - a >= 10 for a, b in zip(pattern, pattern[1:]))
    c = Tree().matrix(100)[0]
    realized = np.linalg.norm(c[:, list(pattern)].sum(axis=1))
    assert acc.sensitivity_lower <= realized * (1 + 1e-15) and realized <= acc.sensitivity
    low, high = acc.epsilon(1e-6, bound="both")
    assert low < high


def test_noise_multiplier_and_structure_broadcast():
    acc = DPFTRL(
        rounds=np.array([[16], [32]]), noise_multiplier=np.array([1.0, 2.0, 4.0]), min_separation=4
    )
    assert np.shape(acc.zcdp_rho) == (2, 3)
    assert acc.epsilon(np.array([1e-5, 1e-6, 1e-7])).shape == (2, 3)
    assert acc.rdp(ORDERS).shape == (2, 3, len(ORDERS))
    for i, rounds in enumerate((16, 32)):
        for j, z in enumerate((1.0, 2.0, 4.0)):
            one = DPFTRL(rounds=rounds, noise_multiplier=z, min_separation=4)
            assert acc.epsilon(1e-6)[i, j] == one.epsilon(1e-6)
    scalar = DPFTRL(rounds=16, noise_multiplier=1.0, min_separation=4)
    assert type(scalar.epsilon(1e-6)) is float and type(scalar.delta(1.0)) is float
    assert isinstance(scalar.sensitivity_kind, str)


def test_calibrated_noise_multiplier_is_certified_and_extremal():
    z = calibrate(
        "dp_ftrl_tree", "noise_multiplier", epsilon=2.0, delta=1e-6, rounds=64, min_separation=8
    )
    assert DPFTRL(rounds=64, noise_multiplier=z, min_separation=8).delta(2.0) <= 1e-6
    assert DPFTRL(rounds=64, noise_multiplier=z * (1 - 1e-6), min_separation=8).delta(2.0) > 1e-6


def test_min_separation_is_never_below_fixed_epochs_and_grows_with_participations():
    for strategy in ("tree", BLT([0.9, 0.3], [0.4, 0.2])):
        fixed = DPFTRL(
            rounds=24,
            noise_multiplier=1.0,
            min_separation=4,
            participation="fixed_epochs",
            strategy=strategy,
        )
        free = DPFTRL(rounds=24, noise_multiplier=1.0, min_separation=4, strategy=strategy)
        assert fixed.sensitivity_lower <= free.sensitivity
        capped = [
            DPFTRL(
                rounds=24,
                noise_multiplier=1.0,
                min_separation=4,
                max_participations=k,
                strategy=strategy,
            )
            for k in (1, 2, 3, 6)
        ]
        uppers = [a.sensitivity for a in capped]
        assert uppers == sorted(uppers)


def test_matrix_mechanism_takes_any_sensitivity_bracket():
    sens = l2_sensitivity(BLT([0.95], [0.5]), 200, MinSeparation(20, 5))
    mm = MatrixMechanism(sensitivity=sens, noise_multiplier=[1.0, 10.0])
    assert mm.epsilon(1e-6).shape == (2,)
    assert mm.sensitivity_kind.tolist() == ["exact", "exact"]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(noise_multiplier=-1.0), "noise_multiplier must be finite and > 0"),
        (dict(noise_multiplier=math.nan), "noise_multiplier must not be NaN"),
        (dict(rounds=0), "rounds must be an integer >= 1"),
        (dict(min_separation=1.5), "min_separation must be an integer >= 1"),
        (dict(max_participations=0), "max_participations must be an integer >= 1"),
        (dict(participation="cyclic"), "participation must be one of"),
        (dict(strategy="bst"), "strategy must be one of"),
        (dict(strategy=None), "strategy must be"),
        (dict(strategy=np.eye(3)), "rounds must equal the strategy matrix's column count 3"),
    ],
)
def test_bad_input_is_refused_with_the_argument_named(kwargs, message):
    params = dict(rounds=8, noise_multiplier=1.0, min_separation=2) | kwargs
    with pytest.raises(ValueError, match=message):
        DPFTRL(**params)


def test_bad_queries_are_refused_as_every_accountant_refuses_them():
    acc = DPFTRL(rounds=8, noise_multiplier=1.0)
    with pytest.raises(ValueError, match="delta must lie strictly between 0 and 1"):
        acc.epsilon(2.0)
    with pytest.raises(ValueError, match="epsilon must be >= 0"):
        acc.delta(-1.0)
    with pytest.raises(ValueError, match="bound must be one of"):
        acc.delta(1.0, bound="middle")
    with pytest.raises(ValueError, match="orders must be > 1"):
        acc.rdp([0.5])
