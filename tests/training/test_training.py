"""DP-SGD / DP-FedAvg vocabulary: the mapping onto the PLD accountants, steps, calibration, refusals."""

import math

import numpy as np
import pytest

from hockeystick.base.outward_text import outward_text
from hockeystick.calibrate import calibrate
from hockeystick.pld import FixedBatchGaussianPLD, SubsampledGaussianPLD
from hockeystick.pld.refine.unmet import AccuracyNotMetWarning
from hockeystick.training import DPSGD, DPFedAvg


def test_epochs_are_whole_passes_of_ceil_n_over_b_steps():
    run = DPSGD(dataset_size=60_000, batch_size=256, epochs=[1, 60, 0.5], noise_multiplier=1.1)
    assert np.array_equal(run.steps, [235, 60 * 235, 118])  # ceil(60000 / 256) = 235; 117.5 -> 118
    # a product a hair above an integer through float rounding is not rounded up a whole step
    assert DPSGD(dataset_size=100, batch_size=10, epochs=0.3, noise_multiplier=1.0).steps == 3


def test_poisson_dp_sgd_is_the_subsampled_gaussian_pld():
    run = DPSGD(dataset_size=60_000, batch_size=256, steps=1000, noise_multiplier=1.1)
    direct = SubsampledGaussianPLD(sigma=1.1, sampling_rate=256 / 60_000, rounds=1000)
    assert run.epsilon(1e-5, bound="both") == direct.epsilon(1e-5, bound="both")
    assert run.delta(1.0) == direct.delta(1.0)


def test_a_tail_reaches_the_subsampled_gaussian_pld_and_is_refused_where_it_has_no_meaning():
    """``tail=`` is the accountant's, for DP-SGD by rate or by batches and for DP-FedAvg; it is refused at
    construction outside [1e-300, 1e-3) and beside batches drawn otherwise than by Poisson sampling."""
    direct = SubsampledGaussianPLD(sigma=1.1, sampling_rate=256 / 60_000, rounds=2000, tail=1e-25)
    runs = [
        DPSGD(sample_rate=256 / 60_000, steps=2000, noise_multiplier=1.1, tail=1e-25),
        DPSGD(dataset_size=60_000, batch_size=256, steps=2000, noise_multiplier=1.1, tail=1e-25),
        DPFedAvg(
            total_clients=60_000,
            clients_per_round=256,
            rounds=2000,
            noise_multiplier=1.1,
            tail=1e-25,
        ),
    ]
    expected = direct.epsilon(1e-8, bound="both")
    assert expected != SubsampledGaussianPLD(
        sigma=1.1, sampling_rate=256 / 60_000, rounds=2000
    ).epsilon(1e-8, bound="both")
    for run in runs:
        assert run.epsilon(1e-8, bound="both") == expected
    # a tail of 1e-12 a step over 2000 steps is a delta floor of about 2e-9 (times q): 1e-20 is out of reach
    with pytest.warns(AccuracyNotMetWarning, match="tail="):
        assert (
            DPSGD(sample_rate=256 / 60_000, steps=2000, noise_multiplier=1.1, tail=1e-12).epsilon(
                1e-20
            )
            == math.inf
        )
    for bad in (0.0, 1e-3, float("nan"), -1e-20):
        with pytest.raises(ValueError, match="tail"):
            DPSGD(sample_rate=0.01, steps=10, noise_multiplier=1.0, tail=bad)
    with pytest.raises(ValueError, match='tail is available with sampling="poisson"'):
        DPSGD(
            dataset_size=1000,
            batch_size=10,
            steps=10,
            noise_multiplier=1.0,
            sampling="balls_in_bins",
            tail=1e-20,
        )


def test_fixed_size_dp_sgd_is_the_replace_one_pld():
    run = DPSGD(
        dataset_size=1000, batch_size=100, steps=50, noise_multiplier=2.0, sampling="fixed_size"
    )
    direct = FixedBatchGaussianPLD(sigma=2.0, batch_size=100, n=1000, rounds=50)
    assert run.epsilon(1e-5, bound="both") == direct.epsilon(1e-5, bound="both")


def test_fedavg_rounds_are_steps_over_clients():
    fl = DPFedAvg(total_clients=3400, clients_per_round=100, rounds=500, noise_multiplier=1.0)
    sgd = DPSGD(dataset_size=3400, batch_size=100, steps=500, noise_multiplier=1.0)
    assert fl.epsilon(1e-5) == sgd.epsilon(1e-5)


def test_broadcasting_over_noise_multiplier():
    eps = DPSGD(
        dataset_size=60_000, batch_size=256, epochs=10, noise_multiplier=np.array([0.8, 1.1, 2.0])
    ).epsilon(1e-5)
    assert eps.shape == (3,) and np.all(np.diff(eps) < 0)


def test_bracket_contains_dp_accounting_estimate():
    dpl = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    q, z, steps = 256 / 60_000, 1.1, 2000
    theirs = [
        dpl.from_gaussian_mechanism(
            standard_deviation=z,
            sampling_prob=q,
            value_discretization_interval=1e-4,
            pessimistic_estimate=pessimistic,
        )
        .self_compose(steps)
        .get_epsilon_for_delta(1e-5)
        for pessimistic in (True, False)
    ]
    lower, upper = DPSGD(
        dataset_size=60_000, batch_size=256, steps=steps, noise_multiplier=z
    ).epsilon(1e-5, bound="both")
    assert lower <= theirs[0] and upper >= theirs[1]
    assert abs(upper - theirs[0]) < 1e-2


@pytest.mark.parametrize(
    "parameter, given",
    [
        ("noise_multiplier", dict(batch_size=256, epochs=20)),
        ("epochs", dict(batch_size=256, noise_multiplier=1.1)),
        ("batch_size", dict(epochs=20, noise_multiplier=1.1)),
    ],
)
def test_calibration_meets_target_and_one_step_more_does_not(parameter, given):
    target = dict(epsilon=2.0, delta=1e-5)
    value = calibrate("dp_sgd", parameter, dataset_size=60_000, **target, **given)
    assert DPSGD(dataset_size=60_000, **given, **{parameter: value}).epsilon(1e-5) <= 2.0
    if parameter == "noise_multiplier":
        past = value * (1 - 1e-6)
    else:
        assert value == math.floor(value)
        past = value + 1
    assert DPSGD(dataset_size=60_000, **given, **{parameter: past}).epsilon(1e-5) > 2.0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(epochs=1, steps=10), "exactly one of epochs and steps"),
        (dict(), "exactly one of epochs and steps"),
        (dict(epochs=0), "epochs must be finite and > 0"),
        (dict(steps=2.5), "steps must be an integer >= 1"),
        (dict(steps=10, batch_size=70_000), "batch_size must be <= dataset_size"),
        (dict(steps=10, batch_size=0), "batch_size must be an integer >= 1"),
        (dict(steps=10, sampling="shuffled"), "sampling must be one of"),
        (dict(steps=10, noise_multiplier=-1.0), "noise_multiplier must be finite and > 0"),
    ],
)
def test_refusals_name_the_argument(kwargs, message):
    args = dict(dataset_size=60_000, batch_size=256, noise_multiplier=1.1) | kwargs
    with pytest.raises(ValueError, match=message):
        DPSGD(**args)


@pytest.mark.slow
def test_cli_training_flags(capsys):
    from hockeystick.cli import main

    flags = [
        "--dataset-size",
        "60000",
        "--batch-size",
        "256",
        "--epochs",
        "60",
        "--noise-multiplier",
        "1.1",
    ]
    assert main(["epsilon", *flags, "--delta", "1e-5"]) == 0
    printed = capsys.readouterr().out
    expected = DPSGD(dataset_size=60_000, batch_size=256, epochs=60, noise_multiplier=1.1).epsilon(
        1e-5
    )
    assert outward_text(expected, "upper") in printed
    # calibration defaults to the noise multiplier; epochs come back whole
    assert main(["calibrate", *flags[:6], "--epsilon", "3", "--delta", "1e-5"]) == 0
    assert "noise_multiplier" in capsys.readouterr().out
    assert (
        main(
            [
                "calibrate",
                "--parameter",
                "epochs",
                *flags[:4],
                "--noise-multiplier",
                "1.1",
                "--epsilon",
                "3",
                "--delta",
                "1e-5",
            ]
        )
        == 0
    )
    assert "epochs" in capsys.readouterr().out
    assert (
        main(
            [
                "epsilon",
                "--total-clients",
                "3400",
                "--clients-per-round",
                "100",
                "--rounds",
                "100",
                "--noise-multiplier",
                "1.0",
                "--delta",
                "1e-5",
            ]
        )
        == 0
    )
    fl = DPFedAvg(
        total_clients=3400, clients_per_round=100, rounds=100, noise_multiplier=1.0
    ).epsilon(1e-5)
    assert outward_text(fl, "upper") in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["epsilon", "--dataset-size", "100", "--total-clients", "10", "--delta", "1e-5"],
            "not both",
        ),
        (
            [
                "epsilon",
                "--sampling",
                "fixed_size",
                "-a",
                "gaussian",
                "-p",
                "sigma=1",
                "--delta",
                "1e-5",
            ],
            "--sampling goes with",
        ),
        (
            [
                "epsilon",
                "-a",
                "gaussian",
                "--dataset-size",
                "100",
                "--batch-size",
                "10",
                "--steps",
                "5",
                "--noise-multiplier",
                "1",
                "--delta",
                "1e-5",
            ],
            "drop -a gaussian",
        ),
        (
            [
                "epsilon",
                "--dataset-size",
                "100",
                "--batch-size",
                "10",
                "--noise-multiplier",
                "1",
                "--delta",
                "1e-5",
            ],
            "exactly one of --epochs and --steps",
        ),
    ],
)
def test_cli_training_flag_errors(argv, message, capsys):
    from hockeystick.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
