"""``stages=``: one run whose noise multiplier changes between stages, composed as subsampled Gaussians
(``training.schedule``), checked against the PLD accountant composing the same stages, against dp_accounting's
PLD (both of its estimates) and RDP, and against the plain run; lists in the ordinary arguments stay separate
runs."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.pld import PLDAccountant
from hockeystick.pld.accountants.stages import compose_stages
from hockeystick.training import DPSGD, DPFedAvg

N, M = 10_000, 100  # q = 0.01, 100 steps per epoch
Q = M / N
TWO_STAGES = [{"noise_multiplier": 1.1, "epochs": 5}, {"noise_multiplier": 0.9, "epochs": 5}]


def staged(**extra):
    return DPSGD(dataset_size=N, batch_size=M, stages=TWO_STAGES, **extra)


def test_two_stages_are_the_pld_accountant_composing_them():
    run = staged()
    assert float(run.steps) == 1000 and list(run.noise_multiplier) == [1.1, 0.9]
    accountant = (
        PLDAccountant()
        .compose_subsampled_gaussian(1.1, Q, 500)
        .compose_subsampled_gaussian(0.9, Q, 500)
    )
    table = compose_stages(
        [
            {"mechanism": "subsampled_gaussian", "sigma": z, "sampling_rate": Q, "rounds": 500}
            for z in (1.1, 0.9)
        ]
    )
    bracket = run.epsilon(1e-5, bound="both")
    assert bracket == accountant.epsilon(1e-5, bound="both")
    assert run.delta(2.0, bound="both") == accountant.delta(2.0, bound="both")
    # the table on the grid it was given is the accountant given that grid; the default reads its upper side on
    # half of it (refine.question.FINE_INTERVAL): inside, and no wider
    on_grid = PLDAccountant(value_discretization_interval=1e-4)
    on_grid.compose_subsampled_gaussian(1.1, Q, 500).compose_subsampled_gaussian(0.9, Q, 500)
    given = table.epsilon(1e-5, bound="both")
    assert given == on_grid.epsilon(1e-5, bound="both")
    assert (
        given[0] <= bracket[1]
        and bracket[0] <= given[1]
        and bracket[1] - bracket[0] <= given[1] - given[0]
    )


def _their_two_stages():
    """dp_accounting's event of the two stages, and its PLD and RDP accountants."""
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant
    from dp_accounting.rdp import rdp_privacy_accountant

    event = dp_accounting.ComposedDpEvent(
        [
            dp_accounting.SelfComposedDpEvent(
                dp_accounting.PoissonSampledDpEvent(Q, dp_accounting.GaussianDpEvent(z)), 500
            )
            for z in (1.1, 0.9)
        ]
    )
    return event, pld_privacy_accountant.PLDAccountant, rdp_privacy_accountant.RdpAccountant


def test_two_stages_overlap_dp_accounting_pld_and_stay_below_its_rdp():
    event, their_pld, their_rdp = _their_two_stages()
    lower, upper = staged().epsilon(1e-5, bound="both")
    # its pessimistic estimate (at or above the true epsilon) on a 1e-3 grid, ten times cheaper than its default
    pessimistic = their_pld(value_discretization_interval=1e-3).compose(event).get_epsilon(1e-5)
    assert (
        lower <= pessimistic <= upper + 1e-3
    )  # within the default tolerance of the certified upper side
    assert upper <= their_rdp().compose(event).get_epsilon(1e-5)


def test_small_delta_is_never_looser_than_the_default_accountant_and_at_most_rdp():
    event, _, their_rdp = _their_two_stages()
    lower, upper = staged().epsilon(1e-12, bound="both")
    plain_lower, plain_upper = (
        PLDAccountant()
        .compose_subsampled_gaussian(1.1, Q, 500)
        .compose_subsampled_gaussian(0.9, Q, 500)
    ).epsilon(1e-12, bound="both")
    assert plain_lower <= lower <= upper <= plain_upper
    # the wide PLD bracket's upper side lowered to the stages' RDP conversion (rounded up by 1e-9 relative)
    assert upper <= their_rdp().compose(event).get_epsilon(1e-12) * (1 + 1e-8)


def test_one_stage_is_the_plain_run():
    one = DPSGD(dataset_size=N, batch_size=M, stages=[{"noise_multiplier": 1.1, "epochs": 5}])
    plain = DPSGD(dataset_size=N, batch_size=M, noise_multiplier=1.1, epochs=5)
    assert one.epsilon(1e-5, bound="both") == plain.epsilon(1e-5, bound="both")
    fed = DPFedAvg(
        total_clients=N,
        clients_per_round=M,
        clipped_count_stddev=5.0,
        stages=[{"noise_multiplier": 1.1, "rounds": 300}],
    )
    fed_plain = DPFedAvg(
        total_clients=N,
        clients_per_round=M,
        clipped_count_stddev=5.0,
        noise_multiplier=1.1,
        rounds=300,
    )
    assert fed.epsilon(1e-5, bound="both") == fed_plain.epsilon(1e-5, bound="both")
    assert float(fed.steps) == 300


def test_curve_has_each_stages_epochs_and_ends_at_the_run():
    run = DPSGD(
        dataset_size=N,
        batch_size=M,
        stages=[{"noise_multiplier": 1.1, "epochs": 2}, {"noise_multiplier": 0.9, "steps": 150}],
    )
    assert list(run.checkpoints()) == [100, 200, 300, 350]
    curve = run.epsilon_curve(1e-5)
    assert list(curve.epochs) == [1.0, 2.0, 3.0, 3.5]
    assert np.all(np.diff(curve.upper) > 0) and np.all(curve.lower <= curve.upper)
    lower, upper = run.epsilon(1e-5, bound="both")
    assert curve.lower[-1] <= upper and lower <= curve.upper[-1]
    first = DPSGD(dataset_size=N, batch_size=M, noise_multiplier=1.1, epochs=2).epsilon(
        1e-5, bound="both"
    )
    assert curve.lower[1] <= first[1] and first[0] <= curve.upper[1]


def test_lists_in_the_ordinary_arguments_are_separate_runs():
    runs = DPSGD(dataset_size=N, batch_size=M, noise_multiplier=[1.1, 0.9], epochs=[5, 5])
    assert runs.epsilon(1e-5).shape == (2,)
    assert np.all(runs.epsilon(1e-5) < staged().epsilon(1e-5))


@pytest.mark.parametrize(
    "given, message",
    [
        (dict(stages=TWO_STAGES, noise_multiplier=1.0), "noise_multiplier is given per stage"),
        (dict(stages=TWO_STAGES, epochs=3), "epochs is given per stage"),
        (
            dict(stages=[{"noise_multiplier": [1.1, 0.9], "epochs": 5}]),
            "stage 1: noise_multiplier must be one number",
        ),
        (
            dict(stages=[{"noise_multiplier": 1.1, "batch_size": 50, "epochs": 5}]),
            "stage 1: unknown word 'batch_size'",
        ),
        (
            dict(stages=[{"noise_multiplier": 1.1, "epochs": 5}, {"noise_multiplier": 0.9}]),
            "stage 2: give exactly one",
        ),
        (dict(stages=[{"epochs": 5}]), "stage 1: give its noise_multiplier"),
        (dict(stages=[]), "non-empty list"),
        (dict(stages={"noise_multiplier": 1.1, "epochs": 5}), "non-empty list"),
        (
            dict(stages=TWO_STAGES, sampling="shuffle"),
            'sampling="shuffle" is not available with stages',
        ),
        (dict(stages=TWO_STAGES, accuracy=1e-3), "accuracy is not available with stages"),
    ],
)
def test_refusals_name_the_word(given, message):
    with pytest.raises(ValueError, match=message):
        DPSGD(dataset_size=N, batch_size=M, **given)


def test_shared_lists_and_fedavg_steps_are_refused():
    with pytest.raises(ValueError, match="stages= describes one run"):
        DPSGD(dataset_size=N, batch_size=[100, 200], stages=TWO_STAGES)
    with pytest.raises(ValueError, match="steps is given per stage"):
        DPFedAvg(
            total_clients=N,
            clients_per_round=M,
            steps=10,
            stages=[{"noise_multiplier": 1.0, "rounds": 5}],
        )
