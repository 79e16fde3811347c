"""Old module paths keep importing, with a DeprecationWarning naming the new path and the release that removes the
old one (hockeystick.base.moved), and give the very module (or name) at the new path."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from hockeystick.base.moved import MOVED, REMOVED_IN

from ..source_tree import nodes

CHECK_EVERY_OLD_PATH = """
import importlib, warnings
from hockeystick.base.moved import MOVED, REMOVED_IN
wrong = []
for old, new in sorted(MOVED.items()):
    if new.startswith(old + "."):  # a package at the old path: its old names are forwarded
        continue
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    said = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    if module is not importlib.import_module(new) or not any(new in m and REMOVED_IN in m for m in said):
        wrong.append((old, module.__name__, said))
assert not wrong, wrong
print(len(MOVED))
"""


def test_every_old_path_gives_the_new_module_with_a_warning():
    # a fresh process: no old path imported yet, so each import goes through the finder and warns
    done = subprocess.run(
        [sys.executable, "-c", CHECK_EVERY_OLD_PATH], capture_output=True, text=True
    )
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
    assert importlib.import_module("hockeystick.pld.mechanisms.canonical").__name__.endswith(
        ".canonical"
    )
    with pytest.raises(AttributeError, match="no_such_name"):
        mechanisms.no_such_name  # noqa: B018


def test_the_removal_release_is_in_the_changelog_and_later_than_this_one():
    import hockeystick

    changelog = (Path(__file__).resolve().parents[2] / "CHANGELOG.md").read_text()
    assert f"removed in {REMOVED_IN}" in changelog
    assert tuple(map(int, REMOVED_IN.split("."))) > tuple(
        map(int, hockeystick.__version__.split("."))
    )


def _imported_modules(path: Path, package: Path) -> set[str]:
    """Absolute names of the modules ``path`` imports (``from a import b`` also names ``a.b``)."""
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    here = parts[:-1]  # the module's package (an __init__'s own package)
    out = set()
    for node in nodes(path):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module or "").split(".")]).strip(".")
            out.add(module)
            out.update(f"{module}.{alias.name}" for alias in node.names)
    return out


def test_nothing_inside_the_package_imports_an_old_path():
    import hockeystick

    package = Path(hockeystick.__file__).parent
    old = {
        o for o, n in MOVED.items() if not n.startswith(o + ".")
    }  # a package turned from a module is no old path
    wrong = [
        f"{path.relative_to(package)} imports {name}"
        for path in sorted(package.rglob("*.py"))
        for name in sorted(_imported_modules(path, package) & old)
    ]
    assert not wrong, "\n".join(wrong)


IMPORT_EVERY_MODULE = """
import importlib, pkgutil, warnings
import hockeystick
warnings.simplefilter("error", DeprecationWarning)
for info in pkgutil.walk_packages(hockeystick.__path__, "hockeystick."):
    if info.name == "hockeystick.__main__" or info.name.startswith(("hockeystick.simulate", "hockeystick.interop.opacus")):
        continue  # the entry point runs the CLI; numba's and torch's own deprecations are not ours
    importlib.import_module(info.name)
"""


def test_importing_every_module_warns_of_no_moved_name():
    # a forwarded old name (``from ..compose import DEFAULT_TAIL``) would warn at import
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_EVERY_MODULE], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
