"""Secure aggregation on the command line: each answer is the class's own (``secagg.DistributedDiscreteGaussian``,
``secagg.DistributedSkellam``) at the same run and against the same adversary, the flags are the classes'
arguments with dashes, and calibration returns the noise the class certifies."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from hockeystick import secagg
from hockeystick.cli import main

RUN = [
    "--clip-norm",
    "1",
    "--granularity",
    "0.1",
    "--dimension",
    "16",
    "--min-surviving-clients",
    "8",
]
KWARGS = dict(clip_norm=1.0, granularity=0.1, dimension=16, min_surviving_clients=8)
CLASSES = {
    "distributed_discrete_gaussian": secagg.DistributedDiscreteGaussian,
    "distributed_skellam": secagg.DistributedSkellam,
}


def _csv(capsys, argv: list[str]) -> pd.DataFrame:
    code = main([*argv, "--format", "csv"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return pd.read_csv(io.StringIO(out))


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_epsilon_against_the_server_is_the_classs(capsys, name):
    argv = [
        "epsilon",
        name,
        *RUN,
        "--local-sigma",
        "0.5",
        "--rounds",
        "10",
        "--delta",
        "1e-5",
        "--bound",
        "both",
    ]
    table = _csv(capsys, argv)
    lower, upper = CLASSES[name](**KWARGS, local_sigma=0.5, rounds=10).epsilon(1e-5, bound="both")
    assert (table["epsilon_lower"].iloc[0], table["epsilon_upper"].iloc[0]) == (lower, upper)


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_the_observer_entry_amplifies_by_the_sampling_rate(capsys, name):
    argv = [
        "delta",
        f"{name}_observer",
        *RUN,
        "--local-sigma",
        "0.5",
        "--rounds",
        "10",
        "--sampling-rate",
        "0.1",
        "--epsilon",
        "2",
    ]
    table = _csv(capsys, argv)
    acc = CLASSES[name](**KWARGS, local_sigma=0.5, rounds=10, sampling_rate=0.1)
    assert table["delta"].iloc[0] == acc.delta(2.0, against="observer") < acc.delta(2.0)


def test_the_server_entry_takes_no_sampling_rate(capsys):
    argv = [
        "epsilon",
        "distributed_skellam",
        *RUN,
        "--local-sigma",
        "0.5",
        "--sampling-rate",
        "0.1",
        "--delta",
        "1e-5",
    ]
    assert main(argv) != 0
    assert (
        "unknown parameter(s) '--sampling-rate'" in capsys.readouterr().err
    )  # the observer entry takes it


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_calibrated_local_sigma_is_certified_by_the_class(capsys, name):
    argv = [
        "calibrate",
        name,
        "--parameter",
        "local_sigma",
        *RUN,
        "--rounds",
        "10",
        "--epsilon",
        "5",
        "--delta",
        "1e-5",
    ]
    sigma = float(_csv(capsys, argv)["local_sigma"].iloc[0])
    assert CLASSES[name](**KWARGS, local_sigma=sigma, rounds=10).epsilon(1e-5) <= 5.0
    assert CLASSES[name](**KWARGS, local_sigma=sigma * 0.99, rounds=10).epsilon(1e-5) > 5.0


def test_the_listing_shows_the_entries_and_the_help_the_flags(capsys):
    assert main(["accountants"]) == 0
    listing = capsys.readouterr().out
    for name in (*CLASSES, *(f"{n}_observer" for n in CLASSES)):
        assert name in listing
    with pytest.raises(SystemExit):
        main(["epsilon", "--help"])
    help_text = capsys.readouterr().out
    for flag in (
        "--clip-norm",
        "--granularity",
        "--dimension",
        "--local-sigma",
        "--min-surviving-clients",
    ):
        assert flag in help_text
