"""A test reads a private name (``obj._x``, ``from m import _x``, ``monkeypatch.setattr(m, "_x", ...)``) only
for a seam listed, with its reason, in tests/private_seams.py; and every listed seam is still read.

The library itself reads no other package's private attribute: a module of one package of hockeystick
(``risk``, ``pld``, ``training``, ...) reads ``obj._x`` only where ``_x`` is defined in its own package too;
another package's state is read through its public accessors."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from .private_seams import SEAMS
from .source_tree import nodes

TESTS = Path(__file__).resolve().parent
LIBRARY = TESTS.parent / "python" / "hockeystick"
PATCHERS = {"setattr", "getattr", "delattr", "hasattr", "patch", "object"}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_reads(path: Path) -> set[str]:
    """The private names ``path`` reads: attributes, imported names, and names patched by string."""
    found = set()
    for node in nodes(path):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.add(node.attr)
        elif (
            isinstance(node, ast.ImportFrom) and not node.level
        ):  # a test module's own helpers are not library names
            found.update(alias.name for alias in node.names if _private(alias.name))
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in PATCHERS:
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        last = arg.value.rsplit(".", 1)[-1]
                        if _private(last):
                            found.add(last)
    return found


@functools.cache
def every_read() -> dict[str, frozenset[str]]:
    """Private name -> the test files reading it; the two guards below read the same census."""
    reads: dict[str, set[str]] = {}
    for path in sorted(TESTS.rglob("*.py")):
        if path.name in ("private_seams.py", "test_private_seams.py"):
            continue
        for name in private_reads(path):
            reads.setdefault(name, set()).add(path.relative_to(TESTS).as_posix())
    return {name: frozenset(files) for name, files in reads.items()}


def test_every_private_read_is_a_listed_seam():
    unlisted = {name: sorted(files) for name, files in every_read().items() if name not in SEAMS}
    assert not unlisted, (
        f"read through the public API, or list the seam with its reason: {unlisted}"
    )


def test_every_listed_seam_is_read():
    stale = sorted(SEAMS.keys() - every_read().keys())
    assert not stale, (
        f"no test reads these any more; remove them from tests/private_seams.py: {stale}"
    )


def test_the_scanner_sees_each_kind_of_read(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from m import _a\n"
        "from .test_other import _helper\n"
        "x = obj._b\n"
        "monkeypatch.setattr(m, '_c', 1)\n"
        "mock.patch('hockeystick.m._d')\n"
        "self._e\n"
        "obj.__class__\n"
    )
    assert private_reads(sample) == {"_a", "_b", "_c", "_d"}


def _package(path: Path, root: Path) -> str:
    """The package of hockeystick a module belongs to: its first folder under the library (the top level's own)."""
    parts = path.relative_to(root).parts
    return parts[0] if len(parts) > 1 else "."


def _own_names(node: ast.AST) -> list[str]:
    """The private names ``node`` defines: a function, class, module-level name or ``self._x`` it binds."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
    ):
        return [node.attr] if node.value.id in ("self", "cls") else []
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [t.id for t in targets if isinstance(t, ast.Name)]
    return []


def cross_package_reads(root: Path) -> list[str]:
    """``path:line name`` of each ``obj._x`` (obj not self or cls) in a module under ``root`` whose ``_x`` is
    defined only in other packages (a name defined in the reader's package too may be its own)."""
    defined: dict[str, set[str]] = {}
    reads: list[tuple[str, Path, int, str]] = []
    for path in sorted(root.rglob("*.py")):
        package = _package(path, root)
        for node in nodes(path):
            for name in _own_names(node):
                if _private(name):
                    defined.setdefault(name, set()).add(package)
            if (
                isinstance(node, ast.Attribute)
                and _private(node.attr)
                and isinstance(node.ctx, ast.Load)
            ):
                if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                    reads.append((package, path, node.lineno, node.attr))
    return [
        f"{path.relative_to(root).as_posix()}:{line} {name}"
        for package, path, line, name in reads
        if name in defined and package not in defined[name]
    ]


def test_no_library_module_reads_another_packages_private_attribute():
    found = cross_package_reads(LIBRARY)
    assert not found, (
        f"give the owning package a public accessor (documented, typed) and read that: {found}"
    )


def test_the_library_scanner_tells_a_packages_own_private_names_from_anothers(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "risk").mkdir()
    (tmp_path / "runs" / "run.py").write_text(
        "class Run:\n    def __init__(self):\n        self._ratio = 1\n    def _parts(self):\n        return self._ratio\n"
    )
    (tmp_path / "runs" / "read.py").write_text("def f(run):\n    return run._ratio, run._parts()\n")
    (tmp_path / "risk" / "read.py").write_text(
        "def g(run, x):\n    x._unknown = 2\n    return run._ratio, run._parts(), x._unknown, x.__class__\n"
    )
    assert cross_package_reads(tmp_path) == ["risk/read.py:3 _ratio", "risk/read.py:3 _parts"]
