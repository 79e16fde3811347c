"""Every bad input to the command line exits 2 with one line naming the argument and the rule, no
traceback, and no file written."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from hockeystick.cli import main

GAUSS = ["-a", "gaussian"]
PLD = [
    "-a",
    "pld_subsampled_gaussian",
    "-p",
    "sigma=1",
    "-p",
    "sampling_rate=0.1",
    "-p",
    "rounds=10",
]
TA = [
    "-a",
    "trusted_aggregator",
    "-p",
    "n=60000",
    "-p",
    "batch_size=10",
    "-p",
    "learning_rate=0.5",
    "-p",
    "lipschitz=1",
    "-p",
    "radius=1",
]

# (argv, text the message must contain: the argument it names, and usually the rule)
INVOCATIONS = [
    (
        ["delta", *GAUSS, "-p", "sigma=1,,2", "--epsilon", "1"],
        "sigma='1,,2': a list has a number between every",
    ),
    (["delta", *GAUSS, "-p", "sigma=1,", "--epsilon", "1"], "sigma='1,'"),
    (["delta", *GAUSS, "-p", "sigma=,1", "--epsilon", "1"], "sigma=',1'"),
    (["delta", *GAUSS, "-p", "sigma=abc", "--epsilon", "1"], "sigma='abc': give a number"),
    (
        ["delta", *GAUSS, "-p", "sigma=log:1:2", "--epsilon", "1"],
        "sigma: a log range is [start, stop, num]",
    ),
    (
        ["delta", *GAUSS, "-p", "sigma=log:0:2:5", "--epsilon", "1"],
        "'sigma': a log range needs start > 0",
    ),
    (
        ["delta", *GAUSS, "-p", "sigma=linear:1:2:2.5", "--epsilon", "1"],
        "'sigma': the number of values must be",
    ),
    (["delta", *GAUSS, "-p", "sigma=nan", "--epsilon", "1"], "sigma must be finite"),
    (["delta", *GAUSS, "-p", "sigma=inf", "--epsilon", "1"], "sigma must be finite"),
    (["delta", *GAUSS, "-p", "sigma=1", "--epsilon", "-1"], "epsilon must be >= 0"),
    (["delta", *GAUSS, "-p", "sigma=1", "--epsilon", "nan"], "epsilon must not be NaN, got nan"),
    (
        ["epsilon", *GAUSS, "-p", "sigma=1", "--delta", "2"],
        "delta must lie strictly between 0 and 1",
    ),
    (
        ["epsilon", *GAUSS, "-p", "sigma=1", "--delta", "0"],
        "delta must lie strictly between 0 and 1",
    ),
    (
        ["delta", *GAUSS, "-p", "rounds=2.5", "-p", "sigma=1", "--epsilon", "1"],
        "rounds takes integers, got 2.5",
    ),
    (
        ["delta", *GAUSS, "-p", "rounds=0", "-p", "sigma=1", "--epsilon", "1"],
        "rounds must be an integer >= 1",
    ),
    (
        ["delta", *PLD, "-p", "value_discretization_interval=0", "--epsilon", "1"],
        "value_discretization_interval",
    ),
    (
        [
            "delta",
            "-a",
            "pld_subsampled_gaussian",
            "-p",
            "sigma=1",
            "-p",
            "sampling_rate=2",
            "-p",
            "rounds=10",
            "--epsilon",
            "1",
        ],
        "sampling_rate must lie in (0, 1]",
    ),
    (["calibrate", *GAUSS, "--epsilon=-inf", "--delta", "1e-5"], "epsilon must be >= 0, got -inf"),
    (
        ["calibrate", *GAUSS, "--epsilon", "1", "--delta", "1e-5", "--parameter", "nope"],
        "got 'nope'",
    ),
    (["calibrate", *GAUSS, "--epsilon", "1", "--delta", "nan"], "delta must not be NaN, got nan"),
    (["calibrate", *GAUSS, "--epsilon", "1"], "give --delta"),
    (
        ["delta", *GAUSS, "-p", "sigma=1", "--epsilon", "1", "--chunk-size", "1.5"],
        "argument --chunk-size",
    ),
    (
        ["delta", *GAUSS, "-p", "sigma=1", "--epsilon", "1", "--chunk-size", "0"],
        "argument --chunk-size",
    ),
    (
        ["delta", *GAUSS, "-p", "sigma=1", "--epsilon", "1", "--max-rows", "-3"],
        "argument --max-rows",
    ),
    (
        ["delta", *GAUSS, "-p", "sigma=1", "--epsilon", "1", "--epsilonn", "2"],
        "--epsilonn 2 (did you mean --epsilon?)",
    ),
    (
        ["sweep", *GAUSS, "-p", "sigma=1", "--epsilon", "1", "-o", "o.csv", "--forse"],
        "(did you mean --force?)",
    ),
    (["sweep", "--workers", "0"], "argument --workers"),
    (
        ["sweep", *GAUSS, "-p", "sigma=1", "--epsilon", "1", "-o", "out.txt"],
        "-o 'out.txt': unknown format",
    ),
    (["sweep", *GAUSS, "-p", "sigma=1", "--epsilon", "1"], "-o FILE.parquet"),
    (
        ["sweep", *GAUSS, "-p", "sigma=1", "--epsilon", "1", "-o", "{inputs}/existing.csv"],
        "existing.csv' already exists and is not replaced unless you ask: pass --force, or choose another name",
    ),
    (
        [
            "sweep",
            *GAUSS,
            "-p",
            "sigma=1",
            "--epsilon",
            "1",
            "-o",
            "o.csv",
            "--plot",
            "{inputs}/existing.png",
        ],
        "--plot '{inputs}/existing.png' already exists",
    ),
    (
        ["delta", *GAUSS, "-p", "sigma=1", "--epsilon", "1", "--resume"],
        "--resume continues a sweep written to a file",
    ),
    (
        [
            "sweep",
            *GAUSS,
            "-p",
            "sigma=linear:1:2:10000",
            "-p",
            "rounds=linear:1:10000:10000",
            "--epsilon",
            "linear:0.1:8:10000",
            "-o",
            "huge.parquet",
        ],
        "1e+12 points (the limit: fewer than 1e+09)",
    ),
    (
        ["figures", "--out-dir", "{inputs}/existing.csv"],
        "--out-dir '{inputs}/existing.csv' is a file",
    ),
    (["figures", "--out-dir", "{inputs}"], "--out-dir '{inputs}' is not empty; pass --force"),
    (["demo", "--sensitivity", "nan"], "--sensitivity must be a positive finite number"),
    (["demo", "--epsilon", "abc"], "argument --epsilon: invalid float value"),
    (
        ["delta", "-a", "gaussian,gaussian", "-p", "sigma=1", "--epsilon", "1"],
        "accountants are listed twice",
    ),
    (["delta", "-a", ",", "-p", "sigma=1", "--epsilon", "1"], "say which accountant with -a NAME"),
    (["delta", "-a", "gausian", "-p", "sigma=1", "--epsilon", "1"], "unknown accountant 'gausian'"),
    (["delta", *GAUSS, "-p", "=1", "--epsilon", "1"], "--param '=1': write NAME=VALUE"),
    (["delta", *GAUSS, "-p", "sigma=", "--epsilon", "1"], "--param 'sigma=': write NAME=VALUE"),
    (
        ["calibrate", *TA, "--epsilon", "1e-300", "--delta", "1e-5", "-p", "learning_rate=1e300"],
        "'learning_rate' is given twice",
    ),
    (
        ["delta", *GAUSS, "-p", "sigma=1", "--epsilon", "1", "--bound", "middle"],
        "argument --bound: invalid choice",
    ),
    (
        [
            "delta",
            "-a",
            "gaussian,rdp_subsampled_gaussian",
            "-p",
            "sigma=1",
            "-p",
            "sampling_rate=1",
            "--epsilon",
            "1",
            "--bound",
            "lower",
        ],
        "bound='lower' takes one accountant",
    ),
    (
        [
            "epsilon",
            "-a",
            "rdp_subsampled_gaussian",
            "-p",
            "sigma=1",
            "-p",
            "sampling_rate=0.1",
            "--delta",
            "1e-5",
            "--bound",
            "both",
        ],
        "bound",
    ),
    (
        [
            "calibrate",
            "-a",
            "rdp_subsampled_gaussian",
            "-p",
            "sampling_rate=0.1",
            "--epsilon",
            "1",
            "--delta",
            "1e-5",
            "--bound",
            "lower",
        ],
        "bound",
    ),
    (
        [
            "sweep",
            *GAUSS,
            "-p",
            "sigma=1",
            "--epsilon",
            "1",
            "-o",
            "o.csv",
            "--bound",
            "upper,lower",
        ],
        "argument --bound: invalid choice",
    ),
    (
        ["delta", *GAUSS, "-p", "sigma=1", "--epsilon", "1", "--format", "xml"],
        "argument --format: invalid choice",
    ),
    (
        ["delta", *GAUSS, "-p", "sigma=linear:1:2:60", "--epsilon", "1", "--format", "csv"],
        "--format csv prints every point and the grid has 60: give -o -",
    ),
    (
        ["sweep", *GAUSS, "-p", "sigma=1", "--epsilon", "1", "-o", "o.csv", "--format", "json"],
        "--format json prints every point: give -o -",
    ),
    (
        [
            "calibrate",
            *GAUSS,
            "-p",
            "rounds=linear:1:100:60",
            "--epsilon",
            "1",
            "--delta",
            "1e-5",
            "-o",
            "c.csv",
            "--format",
            "csv",
        ],
        "--format csv prints every point and the grid has 60",
    ),
    (
        ["sweep", *GAUSS, "-p", "sigma=1", "--epsilon", "1", "-o", "-", "--resume"],
        "--resume continues a sweep written to a file",
    ),
    (["compose", "{inputs}/missing.toml", "--delta", "1e-5"], "cannot read compose file"),
    (["compose", "{inputs}/existing.csv", "--delta", "1e-5"], "is not valid TOML"),
    (["compose", "{inputs}/run.toml"], "one of the arguments --delta --epsilon is required"),
    (
        ["compose", "{inputs}/run.toml", "--delta", "1e-5", "--epsilon", "1"],
        "not allowed with argument",
    ),
    (
        ["compose", "{inputs}/run.toml", "--delta", "x"],
        "--delta 'x': give numbers separated by commas",
    ),
    (["compose", "{inputs}/run.toml", "--delta", "2"], "delta must lie strictly between 0 and 1"),
    (["compose", "{inputs}/typo.toml", "--delta", "1e-5"], "stage 2: mechanism must be one of"),
    (
        ["compose", "{inputs}/typo.toml", "--delta", "1e-5"],
        "got 'gausian' (did you mean 'gaussian'?)",
    ),
    (
        ["compose", "{inputs}/param.toml", "--delta", "1e-5"],
        "unknown parameter 'sigam' (did you mean 'sigma'?)",
    ),
    (
        ["compose", "{inputs}/mixed.toml", "--delta", "1e-5"],
        "stage 1 (subsampled_gaussian) is analysed under "
        "add/remove-one neighbours and stage 2 (fixed_size_subsampled_gaussian) under replace-one",
    ),
    (["compose", "{inputs}/nostage.toml", "--delta", "1e-5"], "has no [[stage]] table"),
    (
        ["compose", "{inputs}/negative.toml", "--delta", "1e-5"],
        "stage 1 (gaussian): sigma must be finite and > 0",
    ),
    (
        ["compose", "{inputs}/rounds.toml", "--delta", "1e-5"],
        "stage 1: rounds must be an integer >= 1, got 2.5",
    ),
    (
        ["delta", "-a", "gausian", "-p", "sigma=1", "--epsilon", "1"],
        "unknown accountant 'gausian' (did you mean 'gaussian'?)",
    ),
    (
        ["delta", *GAUSS, "-p", "sigam=1", "--epsilon", "1"],
        "unknown parameter(s) 'sigam' for gaussian (did you mean 'sigma'",
    ),
    (
        ["calibrate", *GAUSS, "--parameter", "sigm", "--epsilon", "1", "--delta", "1e-5"],
        "got 'sigm' (did you mean 'sigma'?)",
    ),
    (
        ["sweep", *GAUSS, "-q", "epsilom", "-p", "sigma=1", "--delta", "1e-5", "-o", "o.csv"],
        "(did you mean 'epsilon'?)",
    ),
    (
        ["epsilon", *GAUSS, "-p", "sigma=1", "--delta", "1e-5", "--boundd", "lower"],
        "(did you mean --bound?)",
    ),
    (
        ["compose", "{inputs}/run.toml", "--delta", "1e-5", "--formt", "json"],
        "(did you mean --format?)",
    ),
    (
        ["plot", "{inputs}/missing.nc", "--plot", "p.png"],
        "sweep file '{inputs}/missing.nc' does not exist",
    ),
    (["plot", "{inputs}/existing.csv"], "say where to draw the picture: --plot PNG"),
    (
        ["plot", "{inputs}/existing.csv", "--plot", "{inputs}/existing.png"],
        "--plot '{inputs}/existing.png' already exists",
    ),
    (
        ["plot", "{inputs}/existing.csv", "--plot", "p.jpg"],
        "--plot 'p.jpg': name the picture *.png",
    ),
    (
        ["plot", "{inputs}/existing.csv", "--plot", "p.png", "--levels", "1,x"],
        "--levels '1,x': give numbers",
    ),
    (["plot", "{inputs}/run.toml", "--plot", "p.png"], "unknown format"),
    (["plot", "{inputs}/existing.csv", "--plot", "p.png"], "holds no points"),
    (
        ["plot", "{inputs}/one_point.csv", "--plot", "p.png"],
        "nothing to plot: the sweep has no axis",
    ),
    (["plot", "{inputs}/not_netcdf.nc", "--plot", "p.png"], "cannot be read as a sweep"),
    # a damaged file is bad input (exit 2) whatever its reader raises; a damaged archive exited 1
    (
        ["plot", "{inputs}/damaged.npz", "--plot", "p.png"],
        "sweep file '{inputs}/damaged.npz' cannot be read as a sweep (BadZipFile: ",
    ),
    (
        ["plot", "{inputs}/empty.npz", "--plot", "p.png"],
        "sweep file '{inputs}/empty.npz' cannot be read as a sweep (EOFError: ",
    ),
    (
        ["plot", "{inputs}/damaged.parquet", "--plot", "p.png"],
        "sweep file '{inputs}/damaged.parquet' cannot be read",
    ),
]

_STAGE = '[[stage]]\nmechanism = "{}"\n{}\n'
COMPOSE_FILES = {
    "run.toml": _STAGE.format("gaussian", "sigma = 1"),
    "typo.toml": _STAGE.format("gaussian", "sigma = 1") + _STAGE.format("gausian", "sigma = 1"),
    "param.toml": _STAGE.format("gaussian", "sigam = 1"),
    "mixed.toml": _STAGE.format("subsampled_gaussian", "sigma = 1\nsampling_rate = 0.1")
    + _STAGE.format("fixed_size_subsampled_gaussian", "sigma = 1\nbatch_size = 10\nn = 100"),
    "nostage.toml": "value_discretization_interval = 1e-4\n",
    "negative.toml": _STAGE.format("gaussian", "sigma = -1"),
    "rounds.toml": _STAGE.format("gaussian", "sigma = 1\nrounds = 2.5"),
    "one_point.csv": "sigma,epsilon,delta\n1.0,1.0,0.12\n",
    "not_netcdf.nc": "junk",
    "damaged.npz": "PK\x03\x04 a zip archive cut short",
    "empty.npz": "",
    "damaged.parquet": "PAR1 cut short",
}

# (sweep file contents, text the message must contain); each file is run as `sweep FILE -o out.csv`
SWEEP_FILE = 'accountants = ["gaussian"]\noutput = "delta"\n{top}\n[parameters]\nsigma = [1, 2]\nepsilon = 1\n{params}\n'
TOML_FILES = [
    (SWEEP_FILE.format(top="chunk_size = 1.5", params=""), "chunk_size must be an integer"),
    (SWEEP_FILE.format(top="chunk_size = 0", params=""), "chunk_size must be >= 1"),
    (SWEEP_FILE.format(top='chunk_size = "10"', params=""), "chunk_size must be an integer"),
    (SWEEP_FILE.format(top="chunk_size = true", params=""), "chunk_size must be an integer"),
    (
        'accountants = 5\noutput = "delta"\n[parameters]\nsigma = 1\nepsilon = 1\n',
        "accountants must be a name",
    ),
    (
        'accountants = [1, 2]\noutput = "delta"\n[parameters]\nsigma = 1\nepsilon = 1\n',
        "accountants must be a name",
    ),
    (
        'accountants = ["gaussian"]\noutput = 3\n[parameters]\nsigma = 1\nepsilon = 1\n',
        "output must be a string",
    ),
    (
        'accountants = ["gaussian"]\noutput = "delta"\nparameters = 5\n',
        "[parameters] must be a table",
    ),
    (SWEEP_FILE.format(top="", params='rounds = "abc"'), "rounds='abc'"),
    (
        SWEEP_FILE.format(top="", params="rounds = {log = [1, 2]}"),
        "rounds: a log range is [start, stop, num]",
    ),
    (SWEEP_FILE.format(top="", params="rounds = {exp = [1, 2, 3]}"), "rounds: a range is {log"),
    (SWEEP_FILE.format(top="", params="rounds = true"), "rounds: expected a number"),
    (
        SWEEP_FILE.format(top="", params="rounds = [3, 2, 5]"),
        "axis 'rounds' is not strictly monotone",
    ),
    (SWEEP_FILE.format(top="", params="rounds = []"), "axis 'rounds' is empty"),
    (
        SWEEP_FILE.format(top="", params="rounds = [[1, 2], [3]]"),
        "rounds: list values must be numbers",
    ),
    (SWEEP_FILE.format(top="", params="sensitivity = nan"), "sensitivity must be finite"),
    (SWEEP_FILE.format(top="", params="sensitivity = inf"), "sensitivity must be finite"),
    (SWEEP_FILE.format(top="", params="rounds = 1.5"), "rounds takes integers, got 1.5"),
    # an integer a double cannot hold is refused, not rounded to a double (nor written as int64 -2^63)
    (
        SWEEP_FILE.format(top="", params="rounds = 99999999999999999999"),
        "rounds = 99999999999999999999 does not fit in a double",
    ),
    (
        SWEEP_FILE.format(top="", params="rounds = 1e20"),
        "rounds takes integers of magnitude at most 2^53",
    ),
    (
        SWEEP_FILE.format(top="", params="rounds = [1, 1e20]"),
        "rounds takes integers of magnitude at most 2^53",
    ),
    (
        SWEEP_FILE.format(top="", params="rounds = {log = [1, 1e20, 3]}"),
        "rounds takes integers of magnitude at most",
    ),
    (
        SWEEP_FILE.format(top="", params="sensitivity = [1, 99999999999999999999]"),
        "sensitivity = 99999999999999999999 does not fit in a double",
    ),
    (
        SWEEP_FILE.format(top="", params="sensitivity = {linear = [1, 99999999999999999999, 3]}"),
        "sensitivity = 99999999999999999999 does not fit in a double",
    ),
    (SWEEP_FILE.format(top="foo = 1", params=""), "unknown key(s) foo"),
    (SWEEP_FILE.format(top="", params="foo = 1"), "unknown parameter(s) 'foo'"),
    (
        'accountants = ["gaussian"\noutput = "delta"\n',
        "is not valid TOML: Unclosed array (at line 2, column 1)",
    ),
    ('accountants = ["gaussian"]\noutput = delta\n', "(at line 2"),
    (b"\xff\xfe accountants", "is not UTF-8 text"),
    ('output = "delta"\n[parameters]\nsigma = 1\nepsilon = 1\n', "say which accountant(s)"),
]


def _invoke(capsys, argv: list[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's own errors
        code = exit_.code
    out, err = capsys.readouterr()
    return code, out, err


def _check_refused(code: int, out: str, err: str, message: str, command: str) -> None:
    assert code == 2, (code, err)
    assert message in err, err
    assert "Traceback" not in err and out == ""
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1 and errors[0].startswith(f"hockeystick {command}: error: "), err


@pytest.fixture
def places(tmp_path, monkeypatch):
    """A working directory that must stay empty, and an inputs directory whose files must not change."""
    work, inputs = tmp_path / "work", tmp_path / "inputs"
    work.mkdir()
    inputs.mkdir()
    (inputs / "existing.csv").write_text("precious")
    (inputs / "existing.png").write_bytes(b"precious")
    for name, text in COMPOSE_FILES.items():
        (inputs / name).write_text(text)
    monkeypatch.chdir(work)
    return work, inputs


def _unchanged(work, inputs, before: dict[str, bytes]) -> None:
    assert os.listdir(work) == []
    assert {p.name: p.read_bytes() for p in inputs.iterdir()} == before


def test_the_table_is_long_enough():
    assert len(INVOCATIONS) + len(TOML_FILES) >= 40


@pytest.mark.parametrize(
    "argv, message", INVOCATIONS, ids=[" ".join(a)[:60] for a, _ in INVOCATIONS]
)
def test_bad_invocation(capsys, places, argv, message):
    work, inputs = places
    argv = [a.replace("{inputs}", str(inputs)) for a in argv]
    before = {p.name: p.read_bytes() for p in inputs.iterdir()}
    code, out, err = _invoke(capsys, argv)
    _check_refused(code, out, err, message.replace("{inputs}", str(inputs)), argv[0])
    _unchanged(work, inputs, before)


@pytest.mark.parametrize("contents, message", TOML_FILES, ids=[str(m)[:40] for _, m in TOML_FILES])
def test_bad_sweep_file(capsys, places, contents, message):
    work, inputs = places
    config = inputs / "grid.toml"
    if isinstance(contents, bytes):
        config.write_bytes(contents)
    else:
        config.write_text(contents)
    before = {p.name: p.read_bytes() for p in inputs.iterdir()}
    code, out, err = _invoke(capsys, ["sweep", str(config), "-o", "out.csv", "--no-progress"])
    _check_refused(code, out, err, message, "sweep")
    assert f"sweep file {str(config)!r}" in err  # the file is named
    _unchanged(work, inputs, before)


@pytest.mark.parametrize(
    "path, message", [("missing.toml", "cannot read sweep file"), (".", "cannot read sweep file")]
)
def test_unreadable_sweep_file(capsys, places, path, message):
    code, out, err = _invoke(capsys, ["sweep", path, "-o", "out.csv"])
    _check_refused(code, out, err, f"{message} {path!r}", "sweep")


def test_an_arithmetic_error_inside_calibrate_is_a_usage_error(capsys, places, monkeypatch):
    """An OverflowError from the library (here forced, in the calibration a sweep's point calls) names the
    accountant and the parameters."""
    import hockeystick.calibrate

    def overflowing(*args, **kwargs):
        raise OverflowError("math range error")

    monkeypatch.setattr(hockeystick.calibrate, "calibrate", overflowing)
    code, out, err = _invoke(
        capsys, ["calibrate", *GAUSS, "--epsilon", "1", "--delta", "1e-5", "-p", "rounds=10"]
    )
    _check_refused(
        code,
        out,
        err,
        "gaussian cannot evaluate rounds=10, --epsilon 1, --delta 1e-05 (OverflowError: math range error)",
        "calibrate",
    )


def test_a_library_type_error_is_a_usage_error(capsys, places, monkeypatch):
    from hockeystick.sweep import run as run_module

    def typed(*args, **kwargs):
        raise TypeError("sigma must be a real number, got 'x'")

    monkeypatch.setattr(run_module, "preflight", typed)
    code, out, err = _invoke(capsys, ["delta", *GAUSS, "-p", "sigma=1", "--epsilon", "1"])
    _check_refused(code, out, err, "sigma must be a real number", "delta")


def test_figures_without_matplotlib_prints_the_install_hint(capsys, places, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` raises ImportError
    code, out, err = _invoke(capsys, ["figures", "--out-dir", "figs"])
    _check_refused(
        code,
        out,
        err,
        'hockeystick figures needs matplotlib: pip install "hockeystick[plot]"',
        "figures",
    )
    _unchanged(
        *places,
        {
            "existing.csv": b"precious",
            "existing.png": b"precious",
            **{name: text.encode() for name, text in COMPOSE_FILES.items()},
        },
    )


def test_figures_has_a_description(capsys):
    with pytest.raises(SystemExit):
        main(["figures", "--help"])
    out = capsys.readouterr().out
    assert "Recompute and draw the papers' figures" in out and "--force" in out


@pytest.mark.parametrize("command", ["calibrate", "epsilon", "delta"])
def test_a_misspelled_flag_prints_one_line_and_the_pointer_to_help(capsys, command):
    """The line that says what to change and the pointer to --help, not the usage above them (30 lines where a
    subcommand takes a training run's flags)."""
    code, out, err = _invoke(capsys, [command, "--epsilno", "1"])
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"hockeystick {command}: error: unrecognized arguments: --epsilno 1 (did you mean --epsilon?)",
        f"run 'hockeystick {command} --help' for the options and examples",
    ]


def test_a_missing_subcommand_prints_one_line_and_the_pointer_to_help(capsys):
    code, out, err = _invoke(capsys, [])
    assert code == 2 and len(err.splitlines()) == 2 and "usage:" not in err
    assert err.splitlines()[1] == "run 'hockeystick --help' for the options and examples"


@pytest.mark.slow
def test_debug_shows_the_traceback_and_the_console_script_does_not():
    argv = [
        sys.executable,
        "-m",
        "hockeystick",
        "delta",
        *GAUSS,
        "-p",
        "sigma=1,,2",
        "--epsilon",
        "1",
    ]
    plain = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert plain.returncode == 2 and "Traceback" not in plain.stderr
    assert plain.stderr.strip().splitlines() == [
        "hockeystick delta: error: sigma='1,,2': a list has a number between every two commas (1,2,4); "
        "remove the empty item"
    ]
    debug = subprocess.run(argv + ["--debug"], capture_output=True, text=True, timeout=120)
    # the same exit status with --debug: a usage error is still one
    assert (
        debug.returncode == 2
        and "Traceback" in debug.stderr
        and "ValueError: sigma='1,,2'" in debug.stderr
    )
    assert debug.stderr.strip().splitlines()[-1] == plain.stderr.strip()


def test_the_license_file_is_the_apache_license():
    """pyproject.toml declares Apache-2.0; the text must ship with the source."""
    root = os.path.dirname(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    )  # tests/cli/ -> the root
    text = open(os.path.join(root, "LICENSE")).read()
    assert 'license = { text = "Apache-2.0" }' in open(os.path.join(root, "pyproject.toml")).read()
    assert (
        "Apache License" in text
        and "Version 2.0, January 2004" in text
        and "END OF TERMS AND CONDITIONS" in text
    )


def test_the_largest_integer_a_sweep_takes_is_written_exactly(capsys, tmp_path):
    config = tmp_path / "grid.toml"
    config.write_text(SWEEP_FILE.format(top="", params="rounds = 9007199254740992"))
    code, out, err = _invoke(
        capsys, ["sweep", str(config), "-o", str(tmp_path / "out.csv"), "--no-progress"]
    )
    assert code == 0, err
    header, *rows = (tmp_path / "out.csv").read_text().splitlines()
    column = header.split(",").index("rounds")
    assert [row.split(",")[column] for row in rows] == ["9007199254740992"] * 2
