"""DP-SGD and DP-FedAvg with balls-in-bins and shuffled batches, in Python and on the command line."""

from __future__ import annotations

import json

import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick.cli import main
from hockeystick.fdp.gaussian_mechanism import GaussianMechanism
from hockeystick.training import DPSGD, DPFedAvg

RUN = {
    "dataset_size": 6000,
    "batch_size": 64,
    "epochs": 5,
    "noise_multiplier": 1.0,
}  # 94 steps per epoch


def test_balls_in_bins_is_the_allocation_accountant_over_the_run() -> None:
    run = DPSGD(**RUN, sampling="balls_in_bins")
    direct = pld.BallsInBinsGaussianPLD(sigma=1.0, steps_per_epoch=94, rounds=470)
    assert run.epsilon(1e-6, bound="both") == direct.epsilon(1e-6, bound="both")


def test_balls_in_bins_is_close_to_poisson_and_both_sides_hold() -> None:
    lower, upper = DPSGD(**RUN, sampling="balls_in_bins").epsilon(1e-6, bound="both")
    poisson = DPSGD(**RUN).epsilon(1e-6)
    assert lower <= upper <= 1.01 * upper
    assert (
        abs(upper - poisson) < 0.1 * poisson
    )  # random allocation amplifies about as Poisson sampling does


def test_shuffle_bracket_has_the_gaussian_per_epoch_above() -> None:
    lower, upper = DPSGD(**RUN, sampling="shuffle").epsilon(1e-6, bound="both")
    assert upper == GaussianMechanism(sigma=1.0, sensitivity=2.0, rounds=5).epsilon(1e-6)
    assert lower < upper


def test_dp_fedavg_draws_clients_the_same_ways() -> None:
    fedavg = DPFedAvg(
        total_clients=6000,
        clients_per_round=64,
        epochs=5,
        noise_multiplier=1.0,
        sampling="balls_in_bins",
    )
    assert fedavg.epsilon(1e-6) == DPSGD(**RUN, sampling="balls_in_bins").epsilon(1e-6)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"sampling": "balls_in_bin"}, "sampling must be one of"),
        ({"sampling": "shuffle", "steps_per_epoch": "opacus"}, "steps_per_epoch"),
        ({"sampling": "balls_in_bins", "accuracy": 1e-2}, "value_discretization_interval"),
    ],
)
def test_refusals(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        DPSGD(**{**RUN, **kwargs})  # type: ignore[arg-type]


def test_a_rate_does_not_describe_balls_in_bins() -> None:
    with pytest.raises(ValueError, match="not sample_rate"):
        DPSGD(sample_rate=0.01, steps=100, noise_multiplier=1.0, sampling="balls_in_bins")


@pytest.mark.parametrize("sampling", ["balls_in_bins", "shuffle"])
def test_command_line_sampling_prints_the_python_values(
    sampling: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "epsilon",
        "--dataset-size",
        "6000",
        "--batch-size",
        "64",
        "--epochs",
        "5",
        "--noise-multiplier",
        "1.0",
    ]
    code = main(
        [*argv, "--delta", "1e-6", "--sampling", sampling, "--bound", "both", "--format", "json"]
    )
    assert code == 0
    row = json.loads(capsys.readouterr().out)
    row = row[0] if isinstance(row, list) else row
    expected = DPSGD(**RUN, sampling=sampling).epsilon(1e-6, bound="both")
    assert np.allclose([row["epsilon_lower"], row["epsilon_upper"]], expected, rtol=1e-12)


def test_epsilon_after_every_epoch() -> None:
    curve = DPSGD(**RUN, sampling="balls_in_bins").epsilon_curve(1e-6)
    assert list(curve.steps) == [94, 188, 282, 376, 470]
    one_off = DPSGD(**{**RUN, "epochs": 2}, sampling="balls_in_bins").epsilon(1e-6, bound="both")
    assert np.isclose(curve.lower[1], one_off[0], rtol=1e-12) and np.isclose(
        curve.upper[1], one_off[1], rtol=1e-12
    )


def test_noise_calibration_meets_the_target_from_a_start_near_the_answer() -> None:
    from hockeystick.calibrate import calibrate
    from hockeystick.training import epoch_noise_start

    words = ("dataset_size", "batch_size", "epochs", "steps")
    params = {"dataset_size": 1000, "batch_size": 64, "epochs": 2}
    for sampling in ("balls_in_bins", "shuffle"):
        z = calibrate(f"dp_sgd_{sampling}", "noise_multiplier", epsilon=2.0, delta=1e-6, **params)
        assert DPSGD(noise_multiplier=z, **params, sampling=sampling).epsilon(1e-6) <= 2.0
        start = epoch_noise_start(sampling, words)(
            "noise_multiplier", np.array([2.0]), np.array([1e-6]), params
        )
        assert abs(float(start[0]) / z - 1.0) < (
            0.25 if sampling == "balls_in_bins" else 1e-9
        )  # central limit: optimistic


@pytest.mark.parametrize("sampling", ["balls_in_bins", "shuffle"])
@pytest.mark.parametrize("noise_multiplier", [5.0, 10.0, 20.0, 40.0])
def test_large_noise_gets_a_bracket_without_a_grid_option(
    sampling: str, noise_multiplier: float
) -> None:
    """Strong privacy (large noise) is bracketed with the allocation's sum grid chosen internally: finite, ordered,
    and falling as the noise grows past the run's smaller noise."""
    run = {"dataset_size": 1000, "batch_size": 100, "epochs": 2, "sampling": sampling}
    lower, upper = DPSGD(noise_multiplier=noise_multiplier, **run).epsilon(1e-5, bound="both")
    assert 0.0 <= lower <= upper < np.inf
    assert upper < DPSGD(noise_multiplier=noise_multiplier / 2, **run).epsilon(1e-5)


@pytest.mark.parametrize("sampling", ["poisson", "balls_in_bins", "shuffle"])
def test_the_noise_start_takes_any_target_epsilon(sampling):
    """calibrate's start for the noise multiplier at epsilon up to the largest double: a positive number (the
    radius solve, defined to 1e307, is asked at most that), not a refusal of the target; Poisson sampling has
    no central-limit value there (None: calibrate starts at 1 without coarse grids) and one at epsilon 3."""
    from hockeystick import registry

    name = "dp_sgd" if sampling == "poisson" else f"dp_sgd_{sampling}"
    start = registry.get(name).factory.calibration_start
    run = {"dataset_size": 60_000.0, "batch_size": np.array([256.0, 4096.0]), "epochs": 1.0}
    guess = start("noise_multiplier", np.array([1e308, 3.0]), np.array([1e-5, 1e-5]), run)
    if sampling == "poisson":
        assert guess is None
        guess = start("noise_multiplier", np.array([3.0, 3.0]), np.array([1e-5, 1e-5]), run)
    assert guess.shape == (2,) and np.all(np.isfinite(guess) & (guess > 0))
