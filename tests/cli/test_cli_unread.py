"""A flag of another mode (--participation's Monte Carlo settings, a grid's output settings, --fixed-compute's, risk's
TPR settings under --gdp) is refused naming the flag and the mode it belongs to, exit status 2 and one line, in every
mode that would ignore it; the mode it belongs to still accepts it.

The refusals run through ``main`` in-process (each is answered before any numerics); the acceptances parse the line
and run the same check ``main`` runs, since computing each one is the subcommands' own tests' work
(tests/cli/test_cli_participation.py runs the Monte Carlo line, the others the grid, --fixed-compute and --gdp
lines)."""

from __future__ import annotations

import pytest

import hockeystick.cli
from hockeystick.cli import build_parser, main
from hockeystick.cli.unread import check_unread

BAND = [
    "dp_ftrl_banded",
    "--coefficients",
    "1,0.6,0.3",
    "--rounds",
    "12",
    "--min-separation",
    "4",
    "--noise-multiplier",
    "1.5",
]
RUN = ["--dataset-size", "60000", "--batch-size", "256", "--epochs", "1"]

# each mode's command line, a valid one without the flags walked
MODES = {
    "calibrate grid": [
        "calibrate",
        "gaussian",
        "--epsilon",
        "1",
        "--delta",
        "1e-5",
        "-p",
        "rounds=10",
    ],
    **{
        f"calibrate --sampling {sampling}": [
            "calibrate",
            *RUN,
            "--epsilon",
            "3",
            "--delta",
            "1e-5",
            "--sampling",
            sampling,
        ]
        for sampling in ("poisson", "fixed_size")
    },
    "calibrate --fixed-compute": [
        "calibrate",
        "--fixed-compute",
        "--dataset-size",
        "60000",
        "--epochs",
        "1",
        "--epsilon",
        "3",
        "--delta",
        "1e-5",
    ],
    "calibrate --participation": [
        "calibrate",
        *BAND[:-2],
        "--participation",
        "balls_in_bins",
        "--epsilon",
        "1",
        "--delta",
        "1e-5",
    ],
    "epsilon grid": ["epsilon", "gaussian", "-p", "sigma=2", "-p", "rounds=10", "--delta", "1e-5"],
    "delta grid": [
        "delta",
        *RUN,
        "--noise-multiplier",
        "1.1",
        "--epsilon",
        "1",
        "--sampling",
        "shuffle",
    ],
    "epsilon --participation": [
        "epsilon",
        *BAND,
        "--participation",
        "balls_in_bins",
        "--delta",
        "1e-5",
    ],
    "delta --participation balls_in_bins": [
        "delta",
        *BAND,
        "--participation",
        "balls_in_bins",
        "--epsilon",
        "1",
    ],
    "delta --participation b_min_sep": [
        "delta",
        *BAND,
        "--participation",
        "b_min_sep",
        "--sampling-rate",
        "0.2",
        "--epsilon",
        "1",
    ],
    "risk --fpr": ["risk", "gaussian", "-p", "sigma=1", "--fpr", "0.01"],
    "risk --gdp": ["risk", "gaussian", "-p", "sigma=1", "--gdp"],
}
DRAWN = ["--monte-carlo-draws", "10"]
# a calibration over a grid: of an accountant -a names, or of a training run's flags
CALIBRATE_GRIDS = (
    "calibrate grid",
    "calibrate --sampling poisson",
    "calibrate --sampling fixed_size",
)

# flags -> (the words of the mode they belong to, the modes that accept them; every other mode of their subcommands
# refuses them)
GRID_OUTPUT = (
    ["-o", "out.csv"],
    ["--plot", "out.png"],
    ["--chunk-size", "5"],
    ["--force"],
    ["--resume"],
    ["--allow-large"],
)
FLAGS: list[tuple[list[str], str, tuple[str, ...]]] = [
    (
        ["--monte-carlo-draws", "10"],
        "delta --participation balls_in_bins",
        ("delta --participation balls_in_bins",),
    ),
    (
        ["--monte-carlo-draws", "-1"],
        "delta --participation balls_in_bins",
        ("delta --participation balls_in_bins",),
    ),
    (
        ["--monte-carlo-draws", "0"],
        "delta --participation balls_in_bins",
        ("delta --participation balls_in_bins",),
    ),
    *(
        (flag, "--monte-carlo-draws N", ("delta --participation balls_in_bins +draws",))
        for flag in (["--beta", "0.01"], ["--beta", "nan"], ["--seed", "1"], ["--seed", "-1"])
    ),
    *(
        (flag, "without --participation", ("epsilon grid", "delta grid"))
        for flag in (
            ["--every", "1"],
            ["--bound", "lower"],
            ["--max-rows", "3"],
            ["--progress"],
            ["--no-progress"],
            *GRID_OUTPUT,
        )
    ),
    *(
        (flag, "without --participation or --fixed-compute", CALIBRATE_GRIDS)
        for flag in (["--bound", "lower"], ["--max-rows", "3"], *GRID_OUTPUT[2:])
    ),
    *(
        (flag, "without --participation", (*CALIBRATE_GRIDS, "calibrate --fixed-compute"))
        for flag in (["--progress"], ["--no-progress"])
    ),
    (
        ["--fixed-compute"],
        "without --participation",
        (*CALIBRATE_GRIDS, "calibrate --fixed-compute"),
    ),
    # a grid's calibration refuses --examples by its own check, naming --fixed-compute
    (["--examples", "100"], "--fixed-compute", (*CALIBRATE_GRIDS, "calibrate --fixed-compute")),
    (
        ["--parameter", "rounds"],
        "without --fixed-compute",
        (*CALIBRATE_GRIDS, "calibrate --participation"),
    ),
    (["--direction", "add"], "without --gdp", ("risk --fpr",)),
    (["--bound", "lower"], "without --gdp", ("risk --fpr",)),
]


def _line(mode: str) -> list[str]:
    if mode.endswith(" +draws"):
        return [*MODES[mode.removesuffix(" +draws")], *DRAWN]
    return MODES[mode]


def _cases(accepted: bool) -> list[tuple[list[str], list[str], str]]:
    """(the mode's line, the flag, its mode's words) for each flag in each mode of its subcommands that accepts it
    (``accepted``) or refuses it."""
    cases = []
    for flag, belongs, accepting in FLAGS:
        commands = {m.split()[0] for m in accepting}
        modes = [
            *MODES,
            *(m + " +draws" for m in MODES if m == "delta --participation balls_in_bins"),
        ]
        for mode in modes:
            if mode.split()[0] in commands and (mode in accepting) == accepted:
                if mode.endswith(" +draws") and flag[0] == "--monte-carlo-draws":
                    continue  # the line gives --monte-carlo-draws already
                cases.append((_line(mode), flag, belongs))
    return cases


@pytest.fixture(scope="module")
def parser():
    """One parser for the module's lines (``build_parser`` builds the same one at every call, the larger part of a
    refused line's CPU time)."""
    return build_parser()


@pytest.fixture
def one_parser(parser, monkeypatch):
    monkeypatch.setattr(hockeystick.cli, "build_parser", lambda: parser)


REFUSED = _cases(accepted=False)
ACCEPTED = _cases(accepted=True)


def test_every_flag_is_walked_both_ways():
    assert {tuple(f) for _, f, _ in REFUSED} == {tuple(f) for f, _, _ in FLAGS}
    assert {tuple(f) for _, f, _ in ACCEPTED} == {tuple(f) for f, _, _ in FLAGS}


@pytest.mark.parametrize(
    ("line", "flag", "belongs"), REFUSED, ids=lambda v: " ".join(v) if isinstance(v, list) else v
)
def test_a_flag_of_another_mode_is_refused_naming_it(capsys, one_parser, line, flag, belongs):
    code = main([*line, *flag])
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert out == "" and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert f"error: {flag[0]} belongs to " in err and belongs in err and "drop it" in err, err


@pytest.mark.parametrize(
    ("line", "flag", "belongs"), ACCEPTED, ids=lambda v: " ".join(v) if isinstance(v, list) else v
)
def test_its_own_mode_accepts_it(parser, line, flag, belongs):
    check_unread(parser.parse_args([*line, *flag]))


def test_a_poisson_calibration_names_itself_refusing_the_monte_carlo_flags(capsys):
    """calibrate of a Poisson run never reads the Monte Carlo flags, at a valid value or not: the refusal names the
    mode given."""
    for flag in (["--beta", "nan"], ["--monte-carlo-draws", "-1"], ["--seed", "-1"]):
        assert main([*MODES["calibrate --sampling poisson"], *flag]) == 2
        err = capsys.readouterr().err
        assert (
            f"{flag[0]} belongs to " in err
            and "hockeystick calibrate --sampling poisson never reads it" in err
        )
