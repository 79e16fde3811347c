"""--participation on the command line: the printed sides are matrix.labelled_reading's at the same point, each labelled
certified or estimated; calibration's noise multiplier meets the target by the class's own certified upper
side (and a slightly smaller one does not); every refusal is one line, no traceback."""

from __future__ import annotations

import json

import pytest

from hockeystick.cli import main
from hockeystick.matrix import DPFTRL, Banded, labelled_reading

BAND = ["dp_ftrl_banded", "--coefficients", "1,0.6,0.3", "--rounds", "12", "--min-separation", "4"]


def _json(capsys, argv: list[str]) -> dict:
    code = main([*argv, "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize(
    ("scheme", "extra", "kwargs"),
    [
        ("balls_in_bins", [], {}),
        ("b_min_sep", ["--sampling-rate", "0.4"], {"sampling_rate": 0.4}),
        ("cyclic_poisson", ["--sampling-rate", "0.4"], {"sampling_rate": 0.4}),
    ],
)
def test_printed_sides_are_the_classs_reading(capsys, scheme, extra, kwargs):
    printed = _json(
        capsys,
        [
            "epsilon",
            *BAND,
            "--noise-multiplier",
            "1.5",
            "--participation",
            scheme,
            *extra,
            "--delta",
            "1e-5",
        ],
    )
    reading = labelled_reading(
        DPFTRL(
            rounds=12,
            noise_multiplier=1.5,
            strategy=Banded([1, 0.6, 0.3]),
            min_separation=4,
            participation=scheme,
            **kwargs,
        ),
        delta=1e-5,
    )
    assert [(r["label"], r["value"]) for r in printed["rows"]] == reading.rows()
    assert printed["rows"][0]["label"].startswith("certified lower")
    assert printed["rows"][1]["label"].startswith(f"certified upper, {reading.upper_kind}")


def test_monte_carlo_rows_say_not_certified(capsys):
    argv = [
        "delta",
        *BAND,
        "--noise-multiplier",
        "1.5",
        "--participation",
        "balls_in_bins",
        "--epsilon",
        "1",
    ]
    code = main([*argv, "--monte-carlo-draws", "4000", "--seed", "2", "--beta", "0.01"])
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = out.splitlines()
    assert "certified lower" in lines[1] and "certified upper, unamplified" in lines[2]
    assert all("not certified" in line for line in lines[3:]) and len(lines) == 6
    assert "probability >= 0.99 over the draws" in lines[5]


def test_random_allocation_takes_its_k(capsys):
    argv = [
        "epsilon",
        "dp_ftrl_tree",
        "--rounds",
        "8",
        "--noise-multiplier",
        "2",
        "--participation",
        "random_allocation",
    ]
    printed = _json(capsys, [*argv, "--max-participations", "2", "--delta", "1e-6"])
    expected = DPFTRL(
        rounds=8, noise_multiplier=2.0, max_participations=2, participation="random_allocation"
    )
    assert printed["rows"][1]["value"] == expected.epsilon(1e-6)


def test_calibrate_meets_the_target_by_the_certified_upper_side(capsys):
    argv = ["calibrate", *BAND, "--participation", "cyclic_poisson", "--sampling-rate", "0.3"]
    printed = _json(capsys, [*argv, "--epsilon", "2", "--delta", "1e-5"])
    z = printed["noise_multiplier"]

    def upper(noise: float) -> float:
        run = DPFTRL(
            rounds=12,
            noise_multiplier=noise,
            strategy=Banded([1, 0.6, 0.3]),
            min_separation=4,
            participation="cyclic_poisson",
            sampling_rate=0.3,
        )
        return float(run.epsilon(1e-5))

    assert upper(z) <= 2.0 < upper(z * (1 - 1e-6))


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (
            [
                "delta",
                *BAND,
                "--noise-multiplier",
                "1",
                "--participation",
                "b_min_sep",
                "--epsilon",
                "1",
            ],
            "needs --sampling-rate",
        ),
        (
            [
                "delta",
                *BAND,
                "--noise-multiplier",
                "1",
                "--participation",
                "balls_in_bins",
                "--sampling-rate",
                "0.2",
                "--epsilon",
                "1",
            ],
            "takes no --sampling-rate",
        ),
        (
            [
                "delta",
                *BAND,
                "--noise-multiplier",
                "1",
                "--participation",
                "random_allocation",
                "--epsilon",
                "1",
            ],
            "needs --max-participations",
        ),
        (
            [
                "delta",
                "gaussian",
                "-p",
                "sigma=1",
                "--participation",
                "balls_in_bins",
                "--epsilon",
                "1",
            ],
            "goes with the DP-FTRL",
        ),
        (
            [
                "delta",
                *BAND,
                "--noise-multiplier",
                "1",
                "--participation",
                "balls_in_bins",
                "--epsilon",
                "1,2",
            ],
            "one number",
        ),
        (
            [
                "delta",
                *BAND,
                "--noise-multiplier",
                "1",
                "--participation",
                "balls_in_bins",
                "--delta",
                "1e-5",
            ],
            "give --epsilon",
        ),
        (
            [
                "delta",
                *BAND,
                "--noise-multiplier",
                "1",
                "--participation",
                "b_min_sep",
                "--sampling-rate",
                "0.2",
                "--epsilon",
                "1",
                "--monte-carlo-draws",
                "10",
            ],
            "--monte-carlo-draws belongs to hockeystick delta --participation balls_in_bins",
        ),
        (
            [
                "calibrate",
                *BAND,
                "--noise-multiplier",
                "1",
                "--participation",
                "balls_in_bins",
                "--epsilon",
                "1",
                "--delta",
                "1e-5",
            ],
            "drop --noise-multiplier",
        ),
    ],
)
def test_refusals_are_one_line(capsys, argv, words):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert words in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
