"""Without dp_accounting installed, importing any dp_accounting adapter or event module of hockeystick.interop
(the wing ``interop.dp_accounting``) says what is missing and the pip command that installs it
(``_optional.require_extra``), not that ``attr`` is missing.  The absence is simulated in one fresh interpreter
by a meta-path finder that refuses dp_accounting and its dependency attr; before each module is imported, every
module of the wing is dropped from ``sys.modules``, so each import starts from the same state as in a fresh
interpreter."""

from __future__ import annotations

import subprocess
import sys

import pytest

MODULES = [
    "hockeystick.interop.dp_accounting.allocation_events",
    "hockeystick.interop.dp_accounting.catalogue_events",
    "hockeystick.interop.dp_accounting.selection_events",
    "hockeystick.interop.dp_accounting.dp_events",
    "hockeystick.interop.dp_accounting.event_checks",
    "hockeystick.interop.dp_accounting.event_reach",
    "hockeystick.interop.dp_accounting.sampled_plans",
    "hockeystick.interop.dp_accounting.rdp_accountant",
    "hockeystick.interop.dp_accounting",
]

BLOCK = """
import sys
class Absent:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("dp_accounting", "attr"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Absent())
from hockeystick.base.optional import MissingExtraError
WING = "hockeystick.interop.dp_accounting"
for module in MODULES:
    for name in [n for n in sys.modules if n == WING or n.startswith(WING + ".")]:
        del sys.modules[name]
    try:
        __import__(module)
    except MissingExtraError as error:
        print(module, "|", type(error).__name__, error.name, error)
    else:
        print(module, "|", "imported")
"""


@pytest.fixture(scope="module")
def lines() -> dict[str, str]:
    """Each module's line: the refusal it raised in the interpreter without dp_accounting."""
    out = subprocess.run(
        [sys.executable, "-c", f"MODULES = {MODULES!r}" + BLOCK],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return dict(line.split(" | ", 1) for line in out.stdout.strip().splitlines())


@pytest.mark.parametrize("module", MODULES)
def test_import_without_dp_accounting_names_the_package_and_the_pip_command(module, lines):
    # any module of the wing imports the wing first, whose adapter names it
    assert (
        lines[module] == "MissingExtraError dp_accounting hockeystick.interop.dp_accounting"
        ' needs dp_accounting: pip install "hockeystick[interop]"'
    )
