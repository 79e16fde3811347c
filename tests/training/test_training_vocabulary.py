"""Opacus's and dp_accounting's words for a DP-SGD run, mapped onto one vocabulary: the same run gets the
same epsilon, and the same target the same noise multiplier, whichever words and entry point ask; the two
counts of an epoch's steps ("ceil": ceil(n / b), "opacus": 1 / q) are the only source of different answers."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from hockeystick import pld
from hockeystick.base.outward_text import outward_text
from hockeystick.calibrate import calibrate
from hockeystick.interop import opacus
from hockeystick.training import DPSGD, DPFedAvg

N, B, EPOCHS, Z = 60_000, 256, 60, 1.1
Q = B / N  # the double Opacus's README passes as sample_rate
CEIL_STEPS = EPOCHS * math.ceil(N / B)  # 14100
OPACUS_STEPS = math.ceil(EPOCHS * N / B)  # 14063 (Opacus truncates 14062.5 to 14062)


@pytest.mark.parametrize("word", ["sample_rate", "sampling_probability", "sampling_rate"])
def test_a_run_given_by_its_rate_is_the_run_given_by_its_batch(word):
    by_batch = DPSGD(dataset_size=N, batch_size=B, steps=1000, noise_multiplier=Z)
    by_rate = DPSGD(steps=1000, noise_multiplier=Z, **{word: Q})
    assert by_rate.epsilon(1e-5, bound="both") == by_batch.epsilon(1e-5, bound="both")
    clients = DPFedAvg(total_clients=N, clients_per_round=B, rounds=1000, noise_multiplier=Z)
    assert DPFedAvg(steps=1000, noise_multiplier=Z, **{word: Q}).delta(1.0) == clients.delta(1.0)


def test_epochs_count_ceil_n_over_b_or_one_over_q_steps():
    assert (
        DPSGD(dataset_size=N, batch_size=B, epochs=EPOCHS, noise_multiplier=Z).steps == CEIL_STEPS
    )
    assert DPSGD(
        dataset_size=N, batch_size=B, epochs=EPOCHS, noise_multiplier=Z, steps_per_epoch="ceil"
    ).steps == (CEIL_STEPS)
    assert DPSGD(
        dataset_size=N, batch_size=B, epochs=EPOCHS, noise_multiplier=Z, steps_per_epoch="opacus"
    ).steps == (OPACUS_STEPS)
    # a rate alone has one meaning of an epoch: 1 / q steps of the exact quotient, as the Opacus adapter counts them
    assert DPSGD(sample_rate=Q, epochs=EPOCHS, noise_multiplier=Z).steps == OPACUS_STEPS
    assert OPACUS_STEPS == math.ceil(Fraction(EPOCHS) / Fraction(Q))


@pytest.mark.parametrize(
    "epochs, rate", [(1.0, 0.1), (1.0 + 2.0**-52, 0.1), (3.0, 0.3), (0.7, 1 / 3), (5.0, 0.01)]
)
def test_opacus_epochs_are_the_exact_quotient_rounded_up_on_every_path(epochs, rate):
    # 1 / 0.1 is 9.99999999999999944...: 10 steps; (1 + 2^-52) / 0.1 lies just above 10: 11
    steps = DPSGD(sample_rate=rate, epochs=epochs, noise_multiplier=1.0).steps
    assert steps == math.ceil(
        Fraction(epochs) / Fraction(rate)
    )  # the exact quotient of the two doubles


def test_opacus_epochs_of_whole_batches_are_exact():
    # 1000 / 10 steps per epoch: 0.3 epochs are 30 steps (0.3 is 0.29999999999999998889...), 2.5 are 250
    run = DPSGD(
        dataset_size=1000, batch_size=10, epochs=np.array([1.0, 0.3, 2.5]), noise_multiplier=1.0
    )
    opacus_run = DPSGD(
        dataset_size=1000,
        batch_size=10,
        epochs=np.array([1.0, 0.3, 2.5]),
        noise_multiplier=1.0,
        steps_per_epoch="opacus",
    )
    assert run.steps.tolist() == opacus_run.steps.tolist() == [100.0, 30.0, 250.0]
    # 1001 / 10: ceil(1001 / 10) = 101 steps per epoch, or 100.1
    assert DPSGD(dataset_size=1001, batch_size=10, epochs=10, noise_multiplier=1.0).steps == 1010
    assert DPSGD(
        dataset_size=1001, batch_size=10, epochs=10, noise_multiplier=1.0, steps_per_epoch="opacus"
    ).steps == (1001)


@pytest.mark.parametrize(
    "kwargs, kind, message",
    [
        (
            dict(sample_rat=Q, steps=10),
            TypeError,
            r"unexpected keyword argument 'sample_rat' \(did you mean 'sample_rate'\?\)",
        ),
        (
            dict(nosie_multiplier=1.0, sample_rate=Q, steps=10),
            TypeError,
            r"did you mean 'noise_multiplier'\?",
        ),
        (
            dict(sample_rate=Q, sampling_probability=Q, steps=10),
            TypeError,
            r"got sample_rate twice",
        ),
        (
            dict(sample_rate=Q, dataset_size=N, steps=10),
            ValueError,
            r"give sample_rate or dataset_size and batch_size",
        ),
        (
            dict(sample_rate=Q, steps=10, sampling="fixed_size"),
            ValueError,
            r"give those, not sample_rate",
        ),
        (
            dict(sample_rate=Q, epochs=1, steps_per_epoch="ceil"),
            ValueError,
            r"give dataset_size and batch_size, or",
        ),
        (
            dict(dataset_size=N, batch_size=B, epochs=1, steps_per_epoch="1/q"),
            ValueError,
            r"steps_per_epoch must be",
        ),
        (dict(dataset_size=N, steps=10), ValueError, r"missing: batch_size"),
        (dict(sample_rate=0.0, steps=10), ValueError, r"sample_rate must lie in \(0, 1\]"),
    ],
)
def test_refusals_name_the_words(kwargs, kind, message):
    args = {"noise_multiplier": 1.0} | kwargs
    if "nosie_multiplier" in kwargs:
        del args["noise_multiplier"]
        args = {"noise_multiplier": 1.0, **args}
    with pytest.raises(kind, match=message):
        DPSGD(**args)


def test_fedavg_takes_steps_for_rounds_and_refuses_both():
    assert (
        DPFedAvg(total_clients=100, clients_per_round=10, steps=7, noise_multiplier=1.0).steps == 7
    )
    with pytest.raises(TypeError, match="got rounds twice"):
        DPFedAvg(total_clients=100, clients_per_round=10, steps=7, rounds=7, noise_multiplier=1.0)


def test_the_adapters_and_the_facade_give_one_epsilon():
    """Opacus's README run (noise 1.1, sample rate 256 / 60000, 60 epochs of 235 batches): the adapters
    compute on the facade's grid, so the three agree (to the 1e-9 of the adapters' epsilon search)."""
    dp_accounting = pytest.importorskip("dp_accounting")
    from hockeystick.interop.dp_accounting import HockeystickPLDAccountant as PLDAccountant

    facade = DPSGD(dataset_size=N, batch_size=B, epochs=EPOCHS, noise_multiplier=Z).epsilon(1e-5)
    assert facade == DPSGD(sample_rate=Q, steps=CEIL_STEPS, noise_multiplier=Z).epsilon(1e-5)
    accountant = opacus.HockeystickOpacusAccountant()
    accountant.history = [(Z, Q, CEIL_STEPS)]
    event = dp_accounting.PoissonSampledDpEvent(Q, dp_accounting.GaussianDpEvent(Z))
    pld = PLDAccountant().compose(event, CEIL_STEPS)
    assert accountant.get_epsilon(1e-5) == pytest.approx(facade, abs=2e-9)
    assert pld.get_epsilon(1e-5) == pytest.approx(facade, abs=2e-9)
    assert (
        f"{facade:.6g}"
        == f"{accountant.get_epsilon(1e-5):.6g}"
        == f"{pld.get_epsilon(1e-5):.6g}"
        == "2.38514"
    )


def test_what_noise_gives_epsilon_3_has_one_answer_per_steps_convention():
    """The noise multiplier for epsilon 3 at delta 1e-5: every entry point and vocabulary gives the same
    answer for the same steps (to calibrate's rtol and the bound's round-off noise); the two epoch
    conventions differ only through their steps (14100 against 14063)."""
    target = dict(target_epsilon=3.0, target_delta=1e-5)
    ceil_paths = [
        calibrate(
            "dp_sgd", "noise_multiplier", dataset_size=N, batch_size=B, epochs=EPOCHS, **target
        ),
        calibrate(
            "dp_sgd", "noise_multiplier", dataset_size=N, batch_size=B, steps=CEIL_STEPS, **target
        ),
        calibrate("dp_sgd", "noise_multiplier", sampling_probability=Q, steps=CEIL_STEPS, **target),
        opacus.get_noise_multiplier(sample_rate=Q, steps=CEIL_STEPS, **target),
    ]
    opacus_paths = [
        calibrate(
            "dp_sgd",
            "noise_multiplier",
            dataset_size=N,
            batch_size=B,
            epochs=EPOCHS,
            steps_per_epoch="opacus",
            **target,
        ),
        calibrate("dp_sgd", "noise_multiplier", sample_rate=Q, epochs=EPOCHS, **target),
        calibrate(
            "pld_subsampled_gaussian",
            "sigma",
            sampling_rate=Q,
            rounds=OPACUS_STEPS,
            epsilon=3.0,
            delta=1e-5,
        ),
        opacus.get_noise_multiplier(sample_rate=Q, epochs=EPOCHS, **target),
    ]
    for paths in (ceil_paths, opacus_paths):
        assert max(paths) / min(paths) - 1 < 1e-8
    assert f"{ceil_paths[0]:.6f}" == "0.969151" and f"{opacus_paths[0]:.6f}" == "0.968431"
    # each meets the target on the facade (calibrate: delta at epsilon 3; the Opacus adapter: its own epsilon
    # at delta, the same accountant), and a step below it does not
    for paths, steps in ((ceil_paths, CEIL_STEPS), (opacus_paths, OPACUS_STEPS)):
        for sigma in paths[:-1]:
            assert DPSGD(sample_rate=Q, steps=steps, noise_multiplier=sigma).delta(3.0) <= 1e-5
        accountant = opacus.HockeystickOpacusAccountant()
        accountant.history = [(paths[-1], Q, steps)]
        assert accountant.get_epsilon(1e-5) <= 3.0
        assert (
            DPSGD(sample_rate=Q, steps=steps, noise_multiplier=min(paths) * (1 - 1e-6)).delta(3.0)
            > 1e-5
        )


def test_calibrate_targets_under_their_other_names():
    run = dict(dataset_size=1000, batch_size=10, steps=100, value_discretization_interval=1e-3)
    plain = calibrate("dp_sgd", "noise_multiplier", epsilon=2.0, delta=1e-5, **run)
    assert (
        calibrate("dp_sgd", "noise_multiplier", target_epsilon=2.0, target_delta=1e-5, **run)
        == plain
    )
    with pytest.raises(TypeError, match="got epsilon twice"):
        calibrate("dp_sgd", "noise_multiplier", epsilon=2.0, target_epsilon=2.0, delta=1e-5, **run)
    with pytest.raises(TypeError, match="needs the target delta"):
        calibrate("dp_sgd", "noise_multiplier", epsilon=2.0, **run)


def _cli(capsys, argv):
    from hockeystick.cli import main

    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_takes_opacus_words(capsys):
    expected = DPSGD(sample_rate=0.0042667, steps=14100, noise_multiplier=1.1).epsilon(1e-5)
    for rate_flag, delta_flag in (
        ("--sample-rate", "--delta"),
        ("--sampling-probability", "--target-delta"),
    ):
        argv = [
            "epsilon",
            "--noise-multiplier",
            "1.1",
            rate_flag,
            "0.0042667",
            "--steps",
            "14100",
            delta_flag,
            "1e-5",
        ]
        code, out, err = _cli(capsys, argv)
        assert code == 0, err
        assert outward_text(expected, "upper") in out
    code, out, err = _cli(
        capsys,
        [
            "epsilon",
            "--noise-multiplier",
            "1.1",
            "--sample-rate",
            "0.0042667",
            "--epochs",
            "60",
            "--delta",
            "1e-5",
        ],
    )
    assert (
        code == 0
        and outward_text(
            DPSGD(sample_rate=0.0042667, epochs=60, noise_multiplier=1.1).epsilon(1e-5), "upper"
        )
        in out
    )


def test_cli_refusals_in_its_words(capsys):
    argv = [
        "epsilon",
        "--noise-multiplier",
        "1",
        "--sample-rate",
        "0.01",
        "--steps",
        "10",
        "--delta",
        "1e-5",
    ]
    code, _, err = _cli(capsys, [*argv, "--dataset-size", "100"])
    assert code == 2 and "give --sample-rate or --dataset-size and --batch-size, not both" in err
    code, _, err = _cli(capsys, [*argv, "--sampling", "fixed_size"])
    assert code == 2 and "not --sample-rate" in err


def test_calibrate_names_the_closest_parameter():
    with pytest.raises(
        ValueError, match=r"takes no parameter 'sample_rat' \(did you mean 'sample_rate'\?\)"
    ):
        calibrate("dp_sgd", "noise_multiplier", epsilon=1.0, delta=1e-5, sample_rat=0.1, steps=10)


@pytest.mark.parametrize(
    "cls, kwargs, typo, meant",
    [
        (
            DPSGD,
            dict(noise_multipler=1.1, dataset_size=N, batch_size=B, epochs=1),
            "noise_multipler",
            "noise_multiplier",
        ),
        (
            DPSGD,
            dict(noise_multiplier=1.1, dataset_size=N, batch_sise=B, epochs=1),
            "batch_sise",
            "batch_size",
        ),
        (
            DPFedAvg,
            dict(noise_multipler=1.0, total_clients=100, clients_per_round=10, rounds=3),
            "noise_multipler",
            "noise_multiplier",
        ),
        (
            DPFedAvg,
            dict(noise_multiplier=1.0, total_clients=100, clients_per_round=10, round=3),
            "round",
            "rounds",
        ),
    ],
)
def test_a_misspelled_keyword_is_named_with_its_spelling_even_when_it_was_required(
    cls, kwargs, typo, meant
):
    with pytest.raises(
        TypeError, match=rf"unexpected keyword argument '{typo}' \(did you mean '{meant}'\?\)"
    ):
        cls(**kwargs)


def test_dp_sgd_noise_is_calibrated_as_its_accountant_sigma_is(monkeypatch):
    """The README's calibration: the DP-SGD entry starts from the subsampled Gaussian's central-limit value and
    its coarse grids, as the accountant's own sigma does, so it gives that calibration's answer with at most 6
    evaluations on the run's grid (fewer than from a start of 1), and the answer meets the target."""
    grids: list[float] = []
    real = pld.SubsampledGaussianPLD.delta

    def delta(self, epsilon, *, bound="upper"):
        grids.append(self.value_discretization_interval)
        return real(self, epsilon, bound=bound)

    monkeypatch.setattr(pld.SubsampledGaussianPLD, "delta", delta)
    run = dict(dataset_size=60_000, batch_size=256, epochs=60)
    z = calibrate("dp_sgd", "noise_multiplier", target_epsilon=3, target_delta=1e-5, **run)
    fine = min(grids)
    assert sum(h == fine for h in grids) <= 6
    steps = DPSGD(noise_multiplier=1.0, **run).steps
    assert z == calibrate(
        "pld_subsampled_gaussian", "sigma", epsilon=3, delta=1e-5, sampling_rate=B / N, rounds=steps
    )
    assert DPSGD(noise_multiplier=z, **run).delta(3.0) <= 1e-5
