"""Old module paths of hockeystick.pld and hockeystick.interop keep importing, with a DeprecationWarning naming
the new path (hockeystick.base.moved), and give the very module (or name) at the new path."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from hockeystick.base.moved import MOVED

CHECK_EVERY_OLD_PATH = """
import importlib, warnings
from hockeystick.base.moved import MOVED
wrong = []
for old, new in sorted(MOVED.items()):
    if new.startswith(old + "."):  # now a package: its old names are forwarded
        continue
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    said = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    if module is not importlib.import_module(new) or not any(new in m for m in said):
        wrong.append((old, module.__name__, said))
assert not wrong, wrong
print(len(MOVED))
"""


def test_every_old_path_gives_the_new_module_with_a_warning():
    # a fresh process: no old path imported yet, so each import goes through the finder and warns
    done = subprocess.run([sys.executable, "-c", CHECK_EVERY_OLD_PATH], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == len(MOVED) > 30


@pytest.mark.parametrize(
    ("package", "name", "home"),
    [
        ("hockeystick.pld.compose", "DEFAULT_TAIL", "hockeystick.pld.compose.fft"),
        ("hockeystick.pld.mechanisms", "gaussian", "hockeystick.pld.mechanisms.constructors"),
    ],
)
def test_a_module_turned_package_forwards_its_old_names(package, name, home):
    module = importlib.import_module(package)
    module.__dict__.pop(name, None)  # as before its first use
    with pytest.warns(DeprecationWarning, match=home):
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(home), name)


def test_a_package_forwards_neither_its_submodules_nor_unknown_names():
    mechanisms = importlib.import_module("hockeystick.pld.mechanisms")
    assert importlib.import_module("hockeystick.pld.mechanisms.canonical").__name__.endswith(".canonical")
    with pytest.raises(AttributeError, match="no_such_name"):
        mechanisms.no_such_name  # noqa: B018
