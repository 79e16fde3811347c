"""A refusal's hint leads somewhere: following it gives a command line that is accepted."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.cli import main

# one full-batch step: the Gaussian mechanism, whose delta(epsilon) is known in closed form
RUN = ["--sample-rate", "1", "--steps", "1", "--epsilon", "3", "--delta", "1e-5"]


def _gaussian_delta(epsilon: float, sigma: float) -> float:
    """delta(epsilon) of the Gaussian mechanism, sensitivity 1 (Balle & Wang 2018, Theorem 8)."""
    from scipy.stats import norm

    return float(
        norm.cdf(0.5 / sigma - epsilon * sigma)
        - np.exp(epsilon) * norm.cdf(-0.5 / sigma - epsilon * sigma)
    )


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_calibrate_reads_a_parameter_by_its_flag_spelling_and_hints_the_accepted_word(capsys):
    """--parameter takes the name -p writes (noise_multiplier) and its flag's spellings, the same calibration;
    a misspelling is refused naming the accepted words, and the suggested one is accepted."""
    answers = set()
    for word in ("noise_multiplier", "noise-multiplier", "--noise-multiplier"):
        code, out, err = _run(capsys, "calibrate", f"--parameter={word}", *RUN, "--format", "csv")
        assert code == 0, err
        answers.add(out)
    assert len(answers) == 1
    header, row = answers.pop().splitlines()[:2]
    z = float(row.split(",")[header.split(",").index("noise_multiplier")])
    assert (
        _gaussian_delta(3, z) <= 1e-5 < _gaussian_delta(3, z * (1 - 1e-3))
    )  # the smallest within the target
    code, _, err = _run(capsys, "calibrate", "--parameter", "noise-multiplyer", *RUN)
    assert code == 2
    assert "did you mean 'noise_multiplier'?" in err and "--noise-multiplier" not in err
    assert "batch_size, epochs, noise_multiplier, sample_rate" in err


def test_calibrate_hint_never_repeats_what_was_typed(capsys):
    code, _, err = _run(
        capsys,
        "calibrate",
        "-a",
        "gaussian",
        "--parameter",
        "Rounds",
        "-p",
        "sigma=2",
        "--epsilon",
        "1",
        "--delta",
        "1e-5",
    )
    assert code == 2 and "'Rounds'" in err and "did you mean 'rounds'?" in err


@pytest.mark.parametrize(
    ("flags", "fix"),
    [
        (["--delta", "1e-5"], "add -q epsilon to compute epsilon at that delta, or drop --delta"),
        (["--target-delta", "1e-5"], "add -q epsilon"),
        (
            ["-q", "epsilon", "--epsilon", "1"],
            "give -q delta instead to compute delta at that epsilon",
        ),
        (
            ["-p", "delta=1e-5", "--epsilon", "1"],
            "drop -p delta, or give -q PARAMETER (such as -q sigma)",
        ),
    ],
)
def test_sweep_given_its_own_output_names_the_fix(capsys, tmp_path, flags, fix):
    """A sweep given the value it computes is refused naming -q (or what to drop), and the hint's command runs."""
    out = str(tmp_path / "s.csv")
    argv = ["sweep", "-a", "gaussian", "-p", "sigma=1,2", "-p", "rounds=10", *flags, "-o", out]
    code, _, err = _run(capsys, *argv)
    assert code == 2 and fix in err, err
    assert not (tmp_path / "s.csv").exists()
    if fix.startswith("add -q epsilon"):
        code, _, err = _run(capsys, *argv, "-q", "epsilon")
        assert code == 0, err
        assert (tmp_path / "s.csv").read_text().splitlines()[0] == "sigma,rounds,delta,epsilon"


def test_plot_draws_to_plot_png_and_reads_the_old_o_with_a_warning(capsys, tmp_path):
    """--plot PNG is the picture on plot as on sweep (tests/cli/test_cli_plot_choices.py draws with it); plot's old
    -o PNG still draws it, saying what to write instead, and both at once are refused."""
    saved = tmp_path / "s.csv"
    argv = [
        "sweep",
        "-a",
        "gaussian",
        "-p",
        "sigma=1,2",
        "-p",
        "rounds=10",
        "--epsilon",
        "linear:0.5:4:5",
    ]
    assert _run(capsys, *argv, "-o", str(saved), "--no-progress")[0] == 0
    code, out, err = _run(capsys, "plot", str(saved), "-o", str(tmp_path / "old.png"))
    assert code == 0 and (tmp_path / "old.png").stat().st_size > 0
    assert "-o PNG is deprecated" in err and f"write --plot {tmp_path / 'old.png'}" in err
    code, _, err = _run(capsys, "plot", str(saved), "--out", "x.png", "--plot", "y.png")
    assert code == 2 and "give --plot alone" in err
