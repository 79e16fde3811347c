"""The command line starts without the numerics: building the parser (what --version and every --help
run) imports neither numpy, scipy, pandas, matplotlib, dask nor the compiled core; a subcommand
imports its machinery when it runs.  Checked on sys.modules in a fresh interpreter, not by timing."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

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


def _loaded_after(code: str) -> set[str]:
    """The modules of HEAVY (or below them) that a fresh interpreter holds after running ``code``."""
    probe = (
        f"import sys\n{code}\nimport json\n"
        f"print(json.dumps(sorted({{m for m in sys.modules for h in {HEAVY!r} "
        f"if m == h or m.startswith(h + '.')}})))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
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


def test_a_subcommand_imports_its_machinery_when_it_runs():
    loaded = _loaded_after(
        "from hockeystick.cli import main\n"
        "assert main(['epsilon', '-a', 'gaussian', '-p', 'sigma=2', '--delta', '1e-5']) == 0"
    )
    assert {"numpy", "hockeystick._core", "hockeystick.registry"} <= loaded
