"""Static typing that tools can use: the package passes mypy, with every flag of ``--strict`` on the modules
a user imports (pyproject.toml), and user scripts pass ``mypy --strict``."""

from __future__ import annotations

import ast
import os
import pkgutil
import re
import runpy
import subprocess
import sys
import types
from pathlib import Path

import pytest

import hockeystick._core as core

from .source_tree import nodes

ROOT = Path(__file__).resolve().parents[1]
STUB = ROOT / "python" / "hockeystick" / "_core"  # the stubs: __init__.pyi and one per submodule

# the modules a user imports: the top level and its numerics, the Accountant protocol, the DP-SGD /
# DP-FedAvg vocabulary, calibrate, the registry, and every module of the families of accountants and
# their adapters (pyproject.toml's strict override names the same)
STRICT_MODULES = [
    "hockeystick",
    "hockeystick.base.elementwise",
    "hockeystick.base.validation",
    "hockeystick.base.accountant",
    "hockeystick.calibrate",
    "hockeystick.numerics.certified_theta",
    "hockeystick.numerics.gaussian",
    "hockeystick.fdp.gaussian_mechanism",
    "hockeystick.numerics.hockey_stick",
    "hockeystick.base.progress",
    "hockeystick.registry",
    "hockeystick.risk",
    "hockeystick.training",
]
STRICT_PACKAGES = ["contraction", "fdp", "interop", "isrl", "leakage", "matrix", "pld", "rdp"]

pytest.importorskip("mypy")


def _mypy(*args: str) -> subprocess.CompletedProcess[str]:
    """mypy from scratch: no cache read (``--no-incremental``) and none written (a cache directory of ``os.devnull``,
    mypy's documented way to write none: it writes one even when not incremental, about 5 % of the run's CPU)."""
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )


def _block(text: str, name: str) -> str:
    """The lines of ``class name`` in a stub's text (up to the next top-level line)."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(f"class {name}")), None)
    if start is None:
        return ""
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i] and not lines[i][0].isspace()),
        len(lines),
    )
    return "\n".join(lines[start:end])


def _declares(text: str, name: str, indent: str = "") -> bool:
    """Whether ``text`` declares ``name`` at ``indent``: a function, a class or an annotated attribute."""
    return (
        re.search(rf"^{indent}(def {name}\(|class {name}\b|{name}:)", text, re.MULTILINE)
        is not None
    )


def test_the_stub_declares_every_compiled_name():
    """Each submodule of the compiled core (``_core.pld_grid``, ``_core.pld_compose``, ...) has its stub
    (``_core/<submodule>.pyi``), listed by the package's stub, which declares each of its names; a bound class's
    stub declares each of its fields and methods (the option structs' fields among them)."""
    init = (STUB / "__init__.pyi").read_text()
    missing = []
    for name in (n for n in dir(core) if not n.startswith("__")):
        value = getattr(core, name)
        if not isinstance(value, types.ModuleType):
            missing += [] if _declares(init, name) else [f"__init__.pyi: {name}"]
            continue
        path = STUB / f"{name}.pyi"
        text = path.read_text() if path.exists() else ""
        missing += [] if f'"{name}"' in init else [f"__init__.pyi: the submodule {name}"]
        for n in (n for n in dir(value) if not n.startswith("__")):
            if not _declares(text, n):
                missing.append(f"{name}.pyi: {n}")
            elif isinstance(getattr(value, n), type):
                block = _block(text, n)
                fields = [f for f in dir(getattr(value, n)) if not f.startswith("_")]
                missing += [
                    f"{name}.pyi: {n}.{f}" for f in fields if not _declares(block, f, indent="    ")
                ]
    assert not missing, f"add these bindings to python/hockeystick/_core/: {missing}"


@pytest.mark.slow
def test_the_package_passes_mypy():
    # with pyproject.toml's flags: a --strict error in a public module fails it too
    result = _mypy("-p", "hockeystick")
    assert result.returncode == 0, result.stdout + result.stderr


def _strict_flags() -> dict[str, object]:
    """The options ``mypy --strict`` sets, and their values, as the installed mypy defines them."""
    from mypy.main import process_options

    _, plain = process_options(["--config-file", "", "-c", "pass"])
    _, strict = process_options(["--config-file", "", "--strict", "-c", "pass"])
    names = [n for n in dir(strict) if not n.startswith("_") and not callable(getattr(strict, n))]
    return {n: getattr(strict, n) for n in names if getattr(strict, n) != getattr(plain, n)}


def test_the_public_modules_are_checked_strictly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every option of ``mypy --strict`` holds, under pyproject.toml, for every module a user imports
    (mypy's ``strict`` is global only: the override lists its per-module flags, which this keeps complete
    as mypy adds flags), so that test_the_package_passes_mypy checks them strictly."""
    from mypy.main import process_options
    from mypy.options import PER_MODULE_OPTIONS

    flags = _strict_flags()
    assert "disallow_untyped_defs" in flags and "warn_return_any" in flags, flags
    monkeypatch.chdir(ROOT)
    _, options = process_options(["-c", "pass"])  # the repository's configuration
    modules = STRICT_MODULES + [
        f"hockeystick.{package}.{m.name}"
        for package in STRICT_PACKAGES
        for m in pkgutil.iter_modules([str(ROOT / "python" / "hockeystick" / package)])
    ]
    modules += [f"hockeystick.{package}" for package in STRICT_PACKAGES]
    lax = {
        m: sorted(
            f
            for f, v in flags.items()
            if f in PER_MODULE_OPTIONS and getattr(options.clone_for_module(m), f) != v
        )
        for m in modules
    }
    assert not {m: f for m, f in lax.items() if f}, "set these in pyproject.toml's strict override"
    assert all(getattr(options, f) == v for f, v in flags.items() if f not in PER_MODULE_OPTIONS), (
        flags
    )
    assert not options.clone_for_module(
        "hockeystick.pld.accountants.subsampled_gaussian"
    ).ignore_errors


@pytest.mark.slow
def test_user_scripts_under_mypy_strict():
    """The README's examples pass ``mypy --strict``, and the overloads catch the mistakes of wrong_types.py
    (exactly its lines 7, 8 and 9): one mypy run over both scripts, the package as a library they import
    (its own check is test_the_package_passes_mypy)."""
    readme, wrong = "tests/typing/readme_examples.py", "tests/typing/wrong_types.py"
    result = _mypy("--strict", "--follow-imports=silent", readme, wrong)
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert [line for line in errors if not line.startswith(wrong)] == [], (
        result.stdout + result.stderr
    )
    assert [int(line.split(":")[1]) for line in errors if line.startswith(wrong)] == [7, 8, 9], (
        result.stdout
    )


@pytest.mark.slow
def test_the_readme_examples_run():
    """The script runs as a script (``__name__ == "__main__"``) in this process, whose imports it shares (a
    fresh interpreter adds only their ~2.5 CPU s); a warning hockeystick issues fails it here, as in any test."""
    runpy.run_path(str(ROOT / "tests" / "typing" / "readme_examples.py"), run_name="__main__")


# ``method`` annotated ``str`` where it is free text, a description of how a value was computed; where its
# values are a closed set, its annotation is their ``Literal`` (``CurveMethod``, the ledger's ``Method``)
FREE_TEXT_METHODS = {
    ("interop/flower.py", "accounting_method"),  # Flower's field: the guarantee's method in words
    ("matrix/participation_reading.py", "upper_method"),  # the certified upper side's derivation
    ("matrix/participation_reading.py", "lower_method"),  # the certified lower side's derivation
    ("matrix/balls_in_bins_rdp.py", "method"),  # the epoch's remove-side bound, in words
    ("matrix/sensitivity.py", "method"),  # how the sensitivity was found, in words
}


def str_methods(package: Path) -> set[tuple[str, str]]:
    """(module, name) of every parameter or class field named ``*method`` annotated ``str`` in the
    package's modules and stubs (their nodes as the architecture guards read them, walked once a process)."""
    found = set()
    for path in sorted([*package.rglob("*.py"), *package.rglob("*.pyi")]):
        for node in nodes(path):
            if isinstance(node, ast.arg):
                name, annotation = node.arg, node.annotation
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                name, annotation = node.target.id, node.annotation
            else:
                continue
            if name.endswith("method") and annotation is not None:
                if ast.unparse(annotation).strip("'\"") in ("str", "str | None"):
                    found.add((path.relative_to(package).as_posix(), name))
    return found


def test_a_method_of_a_closed_set_is_typed_by_its_literal():
    found = str_methods(STUB.parent)
    assert found == FREE_TEXT_METHODS, (
        f"typed str: {sorted(found - FREE_TEXT_METHODS)}: give a closed set its Literal (or list free "
        f"text in FREE_TEXT_METHODS); gone: {sorted(FREE_TEXT_METHODS - found)}"
    )
