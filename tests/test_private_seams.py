"""A test reads a private name (``obj._x``, ``from m import _x``, ``monkeypatch.setattr(m, "_x", ...)``) only
for a seam listed, with its reason, in tests/private_seams.py; and every listed seam is still read."""

from __future__ import annotations

import ast
from pathlib import Path

from .private_seams import SEAMS

TESTS = Path(__file__).resolve().parent
PATCHERS = {"setattr", "getattr", "delattr", "hasattr", "patch", "object"}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_reads(path: Path) -> set[str]:
    """The private names ``path`` reads: attributes, imported names, and names patched by string."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.add(node.attr)
        elif isinstance(node, ast.ImportFrom) and not node.level:  # a test module's own helpers are not library names
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


def every_read() -> dict[str, set[str]]:
    reads: dict[str, set[str]] = {}
    for path in sorted(TESTS.rglob("*.py")):
        if path.name in ("private_seams.py", "test_private_seams.py"):
            continue
        for name in private_reads(path):
            reads.setdefault(name, set()).add(path.relative_to(TESTS).as_posix())
    return reads


def test_every_private_read_is_a_listed_seam():
    unlisted = {name: sorted(files) for name, files in every_read().items() if name not in SEAMS}
    assert not unlisted, f"read through the public API, or list the seam with its reason: {unlisted}"


def test_every_listed_seam_is_read():
    stale = sorted(SEAMS.keys() - every_read().keys())
    assert not stale, f"no test reads these any more; remove them from tests/private_seams.py: {stale}"


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
