"""The public surface does not grow: the names every ``__all__`` of the package lists, counted as
docs/architecture.md's front doors count them, stay at or below their ceilings; an old name kept for a release
(``base.moved``: a moved module, a renamed name) stays out of every ``__all__``; and the lines of the package
keep to ruff's 100 columns but for the few the formatter leaves whole (long strings, tables, URLs).

A change that adds a public name removes one, or lowers nothing and raises a ceiling here with the reason in
its commit message."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from hockeystick.base.moved import RENAMED

from .source_tree import source, tree
from .test_layers import PACKAGE

ROOT = Path(__file__).resolve().parents[1]
# the names of every ``__all__`` of the package (distinct), and the entries of the packages' ``__init__``s
DISTINCT_NAMES_CEILING = 852
PACKAGE_ENTRIES_CEILING = 319
# the share of the package's lines over 100 columns: at most the field's models' (dp_accounting, opacus,
# prv_accountant)
LONG_LINE_SHARE = 0.085


def exported(package: Path = PACKAGE) -> dict[Path, list[str]]:
    """Module path -> the strings of its module-level ``__all__`` list or tuple."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        for node in tree(path).body:
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AnnAssign)
                else []
            )
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and isinstance(
                node.value, (ast.List, ast.Tuple)
            ):
                found[path.relative_to(package)] = [
                    e.value for e in node.value.elts if isinstance(e, ast.Constant)
                ]
    return found


def surface(package: Path = PACKAGE) -> tuple[int, int]:
    """(distinct names of every ``__all__``, entries of the packages' ``__init__`` ``__all__``s)."""
    names = exported(package)
    distinct = {name for listed in names.values() for name in listed}
    entries = sum(len(set(listed)) for path, listed in names.items() if path.name == "__init__.py")
    return len(distinct), entries


def test_the_public_surface_does_not_grow():
    distinct, entries = surface()
    assert distinct <= DISTINCT_NAMES_CEILING, (
        f"{distinct} distinct names in the package's __all__s, above {DISTINCT_NAMES_CEILING}: a helper "
        "of one module stays out of __all__ (a leading underscore, or no __all__ entry)"
    )
    assert entries <= PACKAGE_ENTRIES_CEILING, (
        f"{entries} names exported by the packages' __init__s, above {PACKAGE_ENTRIES_CEILING}"
    )


def test_no_old_name_is_exported():
    """A renamed name (``base.moved.RENAMED``) is served by its module's ``__getattr__`` alone, with a
    DeprecationWarning naming the new one, and is listed in no ``__all__`` of its module.  (A moved module's
    old path is no module of the package: a package may export a function of its name, as ``pld`` exports
    ``pld.laplace_mixture``, the constructor, beside the old path of the module that defines it.)"""
    names = exported()
    by_module = {
        ".".join(("hockeystick", *path.with_suffix("").parts)).removesuffix(".__init__"): listed
        for path, listed in names.items()
    }
    listed_old = [
        f"{module}.{old}"
        for module, renamed in RENAMED.items()
        for old in renamed
        if old in by_module.get(module, ())
    ]
    assert not listed_old, f"old names in __all__: {listed_old}"


def test_the_scanner_counts_distinct_names_and_package_entries(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "__init__.py").write_text("__all__ = ['x', 'y']\n")
    (tmp_path / "a" / "m.py").write_text(
        "__all__: list[str] = ['x', 'z']\ndef f():\n    __all__ = ['w']\n"
    )
    assert surface(tmp_path) == (3, 2)


def test_lines_keep_to_100_columns_but_a_few():
    ruff = (ROOT / "pyproject.toml").read_text().split("[tool.ruff]", 1)[1].split("\n[", 1)[0]
    assert re.search(r"^line-length = 100$", ruff, re.MULTILINE), "ruff's line-length is 100"
    lines = [line for path in PACKAGE.rglob("*.py") for line in source(path).splitlines()]
    long = sum(len(line) > 100 for line in lines)
    assert long / len(lines) <= LONG_LINE_SHARE, (
        f"{long} of {len(lines)} lines over 100 columns: ruff format the files you touched, and wrap "
        "docstrings and comments at 100"
    )
