"""The command line starts without the numerics: building the parser (what --version and every --help
run) imports neither numpy, scipy, pandas, matplotlib, dask nor the compiled core; a subcommand
imports its machinery when it runs.  Checked on sys.modules in a fresh interpreter, not by timing."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

import hockeystick.cli
from hockeystick.cli import SUBCOMMANDS, build_parser, main

HEAVY = (
    "numpy",
    "scipy",
    "pandas",
    "matplotlib",
    "dask",
    "distributed",
    "xarray",
    "pyarrow",
    "numba",
    "sklearn",
    "hockeystick._core",
    "hockeystick.registry",
    "hockeystick.pld",
    "hockeystick.sweep",
)


# what a first answer never needs: the DP-SGD vocabulary and the command line's epsilon of one run load
# none of these (scipy.fft and scipy.special come with the first composition, the rest only where used)
FIRST_ANSWER_HEAVY = (
    "scipy.stats",
    "scipy.optimize",
    "scipy.integrate",
    "mpmath",
    "pandas",
    "matplotlib",
    "numba",
    "xarray",
    "dask",
    "distributed",
    "pyarrow",
    "sklearn",
)


def _loaded_after(code: str, heavy: tuple[str, ...] = HEAVY) -> set[str]:
    """The modules of ``heavy`` (or below them) that a fresh interpreter holds after running ``code``."""
    probe = (
        f"import sys\n{code}\nimport json\n"
        f"print(json.dumps(sorted({{m for m in sys.modules for h in {heavy!r} "
        f"if m == h or m.startswith(h + '.')}})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_building_the_parser_imports_no_numerics():
    assert _loaded_after("from hockeystick.cli import build_parser\nbuild_parser()") == set()


def test_the_package_itself_imports_no_numerics():
    """``import hockeystick`` names its functions; numpy and the core come with the first call."""
    assert _loaded_after("import hockeystick") == set()
    loaded = _loaded_after("import hockeystick\nassert 0.12 < hockeystick.theta(1.0, 1.0) < 0.13")
    assert {"numpy", "hockeystick._core"} <= loaded and "scipy" not in loaded


@pytest.mark.parametrize(
    "argv",
    [
        ["--version"],
        ["epsilon", "--help"],
        ["sweep", "--help"],
        ["compose", "--help"],
        ["simulate", "--help"],
        ["demo", "--help"],
    ],
)
def test_version_and_help_import_no_numerics(argv):
    code = (
        f"from hockeystick.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit as exit_:\n"
        f"    assert exit_.code == 0, exit_.code"
    )
    assert _loaded_after(code) == set()


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


def test_each_subcommand_parser_is_built_from_its_module_alone():
    """``build_parser(command)`` (what ``main`` builds for a line naming its subcommand) registers the module
    ``SUBCOMMANDS`` names and no other: it holds that subcommand, with the same options and help as in the
    parser of every subcommand (``--help``'s list)."""
    every = _commands(build_parser())
    assert list(every) == list(SUBCOMMANDS)
    for command, module in SUBCOMMANDS.items():
        alone = _commands(build_parser(command))
        assert set(alone) == {c for c, m in SUBCOMMANDS.items() if m == module}, command
        assert alone[command].format_help() == every[command].format_help(), command


def test_the_words_before_the_subcommand_choose_the_parser(capsys, monkeypatch):
    """--debug before the subcommand is the top-level option, read by the subcommand's own parser; --help
    before it is the top-level help, from the parser of every subcommand, listing them."""
    built = []
    monkeypatch.setattr(
        hockeystick.cli,
        "build_parser",
        lambda command=None: built.append(command) or build_parser(command),
    )
    line = ["--debug", "epsilon", "-a", "gaussian", "-p", "sigma=2", "--delta", "0"]
    assert main(line) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and "epsilon: error: --delta must lie strictly between 0 and 1" in err
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    assert built == ["epsilon", None]
    lines = capsys.readouterr().out.split("\n  COMMAND\n", 1)[1].splitlines()
    listed = [line.split()[0] for line in lines if line[:4] == "    " and line[4:5].strip()]
    assert listed == list(SUBCOMMANDS)


def test_a_subcommand_imports_its_machinery_when_it_runs():
    loaded = _loaded_after(
        "from hockeystick.cli import main\n"
        "assert main(['epsilon', '-a', 'gaussian', '-p', 'sigma=2', '--delta', '1e-5']) == 0"
    )
    assert {"numpy", "hockeystick._core", "hockeystick.registry"} <= loaded


def test_the_training_vocabulary_imports_no_scipy():
    """``from hockeystick.training import DPSGD`` (every PLD accountant behind it) loads numpy and the core,
    never scipy: each scipy function is imported by the function that calls it."""
    assert (
        _loaded_after("from hockeystick.training import DPSGD", (*FIRST_ANSWER_HEAVY, "scipy"))
        == set()
    )


def test_the_registry_imports_no_scipy():
    """Every family the command line can name is registered without importing scipy."""
    assert _loaded_after("import hockeystick.registry", (*FIRST_ANSWER_HEAVY, "scipy")) == set()


def test_a_first_epsilon_imports_nothing_heavy():
    """The README's DP-SGD epsilon, from the library and from the command line: the composition's
    scipy.fft and scipy.special, nothing of FIRST_ANSWER_HEAVY."""
    library = (
        "from hockeystick.training import DPSGD\n"
        "eps = DPSGD(dataset_size=60000, batch_size=256, epochs=60, noise_multiplier=1.1).epsilon(1e-5)\n"
        "assert 2.3 < eps < 2.5, eps"
    )
    assert _loaded_after(library, FIRST_ANSWER_HEAVY) == set()
    command_line = (
        "from hockeystick.cli import main\n"
        "assert main(['epsilon', '--noise-multiplier', '1.1', '--sample-rate', '0.0042667', '--steps', '14100',"
        " '--delta', '1e-5']) == 0"
    )
    assert _loaded_after(command_line, FIRST_ANSWER_HEAVY) == set()


def test_a_refused_target_imports_nothing_heavy():
    """``--delta 0`` is refused (exit 2) before anything of FIRST_ANSWER_HEAVY loads."""
    code = (
        "from hockeystick.cli import main\n"
        "assert main(['epsilon', '--noise-multiplier', '1.1', '--sample-rate', '0.0042667', '--steps', '14100',"
        " '--delta', '0']) == 2"
    )
    assert _loaded_after(code, FIRST_ANSWER_HEAVY) == set()
