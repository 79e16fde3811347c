"""hockeystick.matrix against values other projects publish in their tests (read there, not copied; the
projects are not installed here).  Conventions: rounds from 0; ``min_separation`` b means a client who
took part in round t may take part again from round t + b (jax_privacy's ``min_sep``, federated-compute's
``min_separation``); rho = sens^2 / (2 z^2) in units of the clip norm in all three.  Our values are
certified upper bounds, so they sit at most a few ulps above the published ones (widened round-off).
"""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.matrix import (
    BLT,
    DPFTRL,
    DenseStrategy,
    FixedEpochs,
    MinSeparation,
    l2_sensitivity,
    noise_multiplier_for_zcdp,
)

# google-parfait/federated-compute, fcp/confidentialcompute/python/accounting_test.py,
# _TREE_NO_RESTART_TEST_CASES, used by AccountingTest.test_zcdp_simple (min_sep_data_source_zcdp) and
# AccountingTest.test_min_sep_data_source_noise_multiplier: (noise_multiplier, total_steps, min_separation,
# zcdp) for the tree without restarts.  Their data source puts a client in the rounds s, s + b, s + 2b, ...
# (fixed epochs here); min-separation participation allows more patterns, and gives the same rho here.
TREE_NO_RESTART = [
    (1.0, 4, 2, 4.0),
    (2.0, 4, 2, 1.0),
    (1.0, 5, 2, 4.5),
    (1.0, 7, 2, 5.5),
    (1.0, 7, 3, 4.5),
]

# The same file, AccountingTest.test_zcdp_for_blt and test_noise_multiplier_for_blt: a 4-buffer BLT
# (jax_privacy BufferedToeplitz.build(buf_decay=..., output_scale=...)), 100 steps, min separation 50,
# noise multiplier 1.0, max_participations 2 or None: zcdp 3.17226586 (assertAlmostEqual, places=6).
BLT_DECAY = [0.9999999999921251, 0.9944453083640997, 0.8985923474607591, 0.4912001418098778]
BLT_SCALE = [0.0070314825502323835, 0.10613806907600574, 0.1898159060327625, 0.1966594748073734]
BLT_ZCDP = 3.17226586


@pytest.mark.parametrize("noise, steps, separation, rho", TREE_NO_RESTART)
@pytest.mark.parametrize("participation", ["fixed_epochs", "min_separation"])
def test_federated_compute_tree_no_restart_zcdp(noise, steps, separation, rho, participation):
    acc = DPFTRL(
        rounds=steps, noise_multiplier=noise, min_separation=separation, participation=participation
    )
    assert acc.sensitivity_kind == "exact"
    assert rho <= acc.zcdp_rho <= rho * (1 + 1e-13)
    assert acc.sensitivity_lower**2 / (2 * noise**2) <= rho


@pytest.mark.parametrize("noise, steps, separation, rho", TREE_NO_RESTART)
def test_federated_compute_tree_noise_multiplier_for_a_zcdp_target(noise, steps, separation, rho):
    z = noise_multiplier_for_zcdp(rho, rounds=steps, min_separation=separation)
    assert noise <= z <= noise * (1 + 1e-13)


@pytest.mark.parametrize("max_participations", [2, None])
def test_federated_compute_blt_zcdp(max_participations):
    acc = DPFTRL(
        rounds=100,
        noise_multiplier=1.0,
        min_separation=50,
        max_participations=max_participations,
        strategy=BLT(BLT_DECAY, BLT_SCALE),
    )
    assert acc.sensitivity_kind == "exact"
    assert float(acc.zcdp_rho) == pytest.approx(BLT_ZCDP, abs=5e-7)  # places=6, as published
    z = noise_multiplier_for_zcdp(
        BLT_ZCDP,
        rounds=100,
        min_separation=50,
        max_participations=max_participations,
        strategy=BLT(BLT_DECAY, BLT_SCALE),
    )
    assert z == pytest.approx(1.0, abs=5e-7)


# google-deepmind/jax_privacy, jax_privacy/matrix_factorization/sensitivity_test.py.
_C_TEST = np.array(
    [[1.0, 0.0, 0.0, 0.0], [2.0, 1.0, 0.0, 0.0], [0.0, 1.0, 1.0, 0.0], [0.0, 0.0, 3.0, -6.0]]
)
_C_BANDED = np.array(
    [[1.0, 0.0, 0.0, 0.0], [2.0, 1.0, 0.0, 0.0], [0.0, 1.0, 1.0, 0.0], [0.0, 0.0, 1.0, -6.0]]
)
_C_DENSE_X = np.array(
    [[1.0, 0.0, 0.0, 0.0], [2.0, 1.0, 0.0, 0.0], [0.5, 1.0, 1.0, 0.0], [0.4, 0.0, 1.0, -6.0]]
)


def _sens(c, schema):
    c = np.asarray(c, dtype=float)
    return l2_sensitivity(DenseStrategy(c), c.shape[1], schema)


def _close(got, value):
    assert got.lower <= value * (1 + 1e-15) and value <= got.upper * (1 + 1e-15)
    assert got.upper == pytest.approx(value, rel=1e-13)


def test_jax_privacy_single_participation_sensitivity():
    """SensitivityTest.test_single_participation_sensitivity: 6.0, sqrt(5) and 3.0."""
    for c, value in ((_C_TEST, 6.0), (_C_TEST[:3, :3], np.sqrt(5.0)), ([[3.0]], 3.0)):
        got = _sens(c, MinSeparation(1, 1))
        assert got.kind == "exact"
        _close(got, value)


def test_jax_privacy_banded_sensitivity():
    """GetSensitivityBandedTest.test_diag_strategy_matrix and test_banded: columns b apart orthogonal."""
    diag = np.diag([0.0, 3.0, 0.0, 1.0, 2.0])
    _close(_sens(diag, MinSeparation(2)), np.sqrt(13.0))
    _close(_sens(diag, MinSeparation(2, 1)), 3.0)
    _close(_sens(_C_BANDED, MinSeparation(2, 1)), 6.0)
    for b in (2, 3):
        got = _sens(_C_BANDED, MinSeparation(b))
        assert got.kind == "exact"
        _close(got, np.sqrt(41.0))


def test_jax_privacy_sensitivity_upper_bound():
    """SensitivityUpperBoundTest: min_sep 1 with a signed X gives sqrt(sum |X|) (an upper bound), and the
    banded matrix's values again."""
    x = _C_DENSE_X.T @ _C_DENSE_X
    got = _sens(_C_DENSE_X, MinSeparation(1))
    assert got.kind == "upper bound"
    assert got.upper == pytest.approx(np.sqrt(np.abs(x).sum()), rel=1e-13)


def test_jax_privacy_fixed_epoch_sensitivity():
    """FixedEpochSensitivityTest: the identity gives sqrt(epochs); one epoch the largest column norm; every
    round (epochs = n) of a non-negative C gives ||C 1||.  jax_privacy's ``epochs`` k divides n, each epoch
    n / k rounds: FixedEpochs(separation=n / k)."""
    _close(_sens(np.eye(1) * 5, FixedEpochs(1)), 5.0)
    for epochs in (1, 2, 4, 8, 16):
        _close(_sens(np.eye(16), FixedEpochs(16 // epochs)), np.sqrt(epochs))
    rng = np.random.default_rng(321)
    c = rng.normal(size=(6, 6)) * np.tri(6)
    _close(_sens(c, FixedEpochs(6)), np.linalg.norm(c, axis=0).max())
    c = np.abs(rng.normal(size=(16, 16))) * np.tri(16)
    got = _sens(c, FixedEpochs(1))
    assert got.kind == "exact"
    _close(got, np.linalg.norm(c.sum(axis=1)))


@pytest.mark.parametrize("noise, published", [(1.13, 19.74), (8.83, 2.04)])
def test_kairouz_stackoverflow_single_tree_is_below_the_published_and_rdp_epsilons(
    noise, published
):
    """Kairouz et al. 2021's StackOverflow setting as TensorFlow Privacy's tree_aggregation_accountant_test.py
    and dp_accounting's test_compute_eps_tree state it: one binary tree over 1600 steps, each client once,
    delta 1e-6, epsilon below 19.74 (noise 1.13) and 2.04 (noise 8.83).  The tree's depth is
    floor(log2 1600) + 1 = 11, so sens^2 = 11 exactly; our certified epsilon (the exact Gaussian of radius
    sqrt(11) / z) lies below both the published bound and dp_accounting's RDP conversion of the same tree."""
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.rdp import rdp_privacy_accountant

    run = DPFTRL(rounds=1600, noise_multiplier=noise, min_separation=1600, strategy="tree")
    assert run.sensitivity_kind == "exact" and run.sensitivity**2 == pytest.approx(11.0, rel=1e-15)
    lower, upper = run.epsilon(1e-6, bound="both")
    rdp = rdp_privacy_accountant.RdpAccountant(
        neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_SPECIAL
    )
    rdp.compose(dp_accounting.SingleEpochTreeAggregationDpEvent(noise, 1600))
    assert lower <= upper < rdp.get_epsilon(1e-6) < published
