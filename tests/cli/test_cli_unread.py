"""A flag of another mode (--participation's Monte Carlo settings, a grid's output settings, --fixed-compute's, risk's
TPR settings under --gdp, a sweep's grid beside --example, the along-run compose's --bound, the Dask and process
settings of simulate and sweep, --max-rows beside -o -, --force where no file is written) is refused naming the flag and
the mode it belongs to, exit status 2 and one line, in every mode that would ignore it, at its default value too; the
mode it belongs to still accepts it.

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
    (``accepted``) or refuses it; an accepting grid's line writes -o FILE beside --force (the file it replaces:
    ``OTHER_MODES`` refuses --force writing none)."""
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
                written = ["-o", "out.csv"] if accepted and flag == ["--force"] else []
                cases.append(([*_line(mode), *written], flag, belongs))
    return cases


@pytest.fixture(scope="module")
def parser():
    """One parser for the module's lines (``build_parser`` builds the same one at every call, the larger part of a
    refused line's CPU time)."""
    return build_parser()


@pytest.fixture
def one_parser(parser, monkeypatch):
    monkeypatch.setattr(hockeystick.cli, "build_parser", lambda command=None: parser)


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


AUDIT = ["audit", "scores.csv", "-a", "gaussian", "-p", "sigma=1", "--delta", "1e-5"]
COMPOSE = ["compose", "run.toml", "--delta", "1e-5"]
SIMULATE = ["simulate", "runs.toml", "-o", "runs.csv"]
SWEEP = ["sweep", "-a", "gaussian", "-p", "sigma=1", "--epsilon", "1"]
RISK = MODES["risk --fpr"]
GRID_EPSILON = MODES["epsilon grid"]
CALIBRATE_GRID = MODES["calibrate grid"]
EXAMPLE = ["sweep", "--example"]

# (a line, the flag it gives that its mode never reads, the words of the mode that flag belongs to, the words of the
# mode given); the default values (--bound both, --workers 2, --out-dir hockeystick-out, --format table) included
OTHER_MODES: list[tuple[list[str], str, str, str]] = [
    ([*AUDIT, "--force"], "--force", "-o FILE or --plot PNG", "hockeystick audit writing no file"),
    ([*RISK, "--force"], "--force", "-o FILE or --plot PNG", "hockeystick risk writing no file"),
    (
        [*GRID_EPSILON, "--force"],
        "--force",
        "-o FILE or --plot PNG",
        "hockeystick epsilon writing no file",
    ),
    (
        [*GRID_EPSILON, "-o", "-", "--force"],
        "--force",
        "-o FILE or --plot PNG",
        "epsilon writing no file",
    ),
    (
        [*CALIBRATE_GRID, "--force"],
        "--force",
        "-o FILE or --plot PNG",
        "hockeystick calibrate writing no file",
    ),
    (
        [*SWEEP, "-o", "-", "--force"],
        "--force",
        "-o FILE or --plot PNG",
        "hockeystick sweep writing no file",
    ),
    (
        [*GRID_EPSILON, "-o", "-", "--max-rows", "50"],
        "--max-rows",
        "without -o -",
        "hockeystick epsilon -o -",
    ),
    (
        [*CALIBRATE_GRID, "-o", "-", "--max-rows", "3"],
        "--max-rows",
        "without -o -",
        "hockeystick calibrate -o -",
    ),
    (
        [*RISK, "-o", "rows.csv", "--format", "table"],
        "--format",
        "without -o",
        "hockeystick risk -o rows.csv",
    ),
    (
        [*RISK, "-o", "rows.csv", "--format", "json"],
        "--format",
        "without -o",
        "hockeystick risk -o rows.csv",
    ),
    (
        [*COMPOSE, "--every", "2", "--bound", "both"],
        "--bound",
        "without --every or --budget",
        "compose --every 2",
    ),
    (
        [*COMPOSE, "--budget", "1", "--bound", "upper"],
        "--bound",
        "without --every",
        "compose --budget 1",
    ),
    (
        [*SIMULATE, "--workers", "2"],
        "--workers",
        "--dask local",
        "hockeystick simulate without --dask",
    ),
    (
        [*SIMULATE, "--dask", "tcp://h:8786", "--workers", "3"],
        "--workers",
        "--dask local",
        "--dask tcp://h:8786",
    ),
    (
        [*SIMULATE, "--dask", "local", "--processes", "2"],
        "--processes",
        "without --dask",
        "simulate --dask local",
    ),
    (
        [*SWEEP, "-o", "s.csv", "--out-dir", "hockeystick-out"],
        "--out-dir",
        "--example",
        "sweep without --example",
    ),
    (
        [*SWEEP, "-o", "s.csv", "--scheduler", "tcp://h:8786", "--workers", "2"],
        "--workers",
        "without --scheduler",
        "hockeystick sweep --scheduler tcp://h:8786",
    ),
    *(
        (
            [*EXAMPLE, *flag],
            flag[0] if flag[0].startswith("-") else f"FILE|NAME {flag[0]}",
            "without --example",
            "sweep --example",
        )
        for flag in (
            ["grid.toml"],
            ["-a", "gaussian"],
            ["-p", "sigma=1"],
            ["--epsilon", "1"],
            ["--bound", "upper"],
            ["-q", "epsilon"],
            ["--noise-multiplier", "1"],
            ["--sampling", "poisson"],
            ["--coefficients", "1,0.5"],
            ["-o", "s.csv"],
            ["--plot", "s.png"],
            ["--chunk-size", "5"],
            ["--resume"],
            ["--allow-large"],
            ["--format", "table"],
            ["--x", "sigma"],
            ["--slice", "delta=1e-5"],
            ["--levels", "1,2"],
            ["--workers", "2"],
            ["--scheduler", "tcp://h:8786"],
        )
    ),
]

# lines whose every flag their mode reads: each flag above in the mode it belongs to
READ_LINES = [
    [*AUDIT, "--plot", "audit.png", "--force"],
    [*RISK, "-o", "rows.csv", "--force"],
    [*RISK, "--format", "json"],
    [*GRID_EPSILON, "--plot", "eps.png", "--force"],
    [*CALIBRATE_GRID, "-o", "sigma.csv", "--force", "--max-rows", "3"],
    [*SWEEP, "-o", "-", "--format", "table", "--plot", "s.png", "--force"],
    [*SWEEP, "-o", "s.csv", "--force", "--workers", "2"],
    [*SWEEP, "-o", "s.csv", "--scheduler", "tcp://h:8786"],
    [*COMPOSE, "--bound", "both"],
    [*COMPOSE, "--every", "2", "--budget", "1"],
    [*SIMULATE, "--dask", "local", "--workers", "2"],
    [*SIMULATE, "--processes", "2", "--force"],
    [*EXAMPLE, "--out-dir", "hockeystick-out", "--force", "--no-progress"],
]


def test_every_other_mode_flag_is_read_by_a_line_of_its_own_mode():
    """Each flag refused above is read by a line of its own mode (a grid's sweep flags beside --example by the
    sweep lines; -a, -p, the training flags and the picture flags by ``MODES``'s and the sweep's own tests)."""
    refused = {flag for _, flag, _, given in OTHER_MODES if given != "sweep --example"}
    assert refused <= {word for line in READ_LINES for word in line}


@pytest.mark.parametrize(
    ("line", "flag", "belongs", "given"),
    OTHER_MODES,
    ids=lambda v: " ".join(v) if isinstance(v, list) else v,
)
def test_a_flag_another_subcommand_mode_reads_is_refused_naming_it(
    capsys, one_parser, line, flag, belongs, given
):
    code = main(line)
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert out == "" and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert f"error: {flag} belongs to " in err and belongs in err, err
    assert f"{given} never reads it: drop it" in err, err


@pytest.mark.parametrize("line", READ_LINES, ids=" ".join)
def test_the_mode_that_reads_a_flag_accepts_it(parser, line):
    check_unread(parser.parse_args(line))


def test_a_sweep_to_a_file_refuses_a_format_even_table(capsys, one_parser, tmp_path):
    """A sweep's -o FILE holds the points and the summary is printed: --format (table too, the points' default on
    stdout) prints them only with -o -."""
    for fmt in ("table", "csv"):
        assert main([*SWEEP, "-o", str(tmp_path / "s.csv"), "--format", fmt]) == 2
        err = capsys.readouterr().err
        assert f"--format {fmt} prints every point: give -o -" in err, err
    assert not (tmp_path / "s.csv").exists()
