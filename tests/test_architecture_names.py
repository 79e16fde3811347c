"""docs/architecture.md names only what exists: every file it names in backticks is a file of the repository, and
every ``module.name`` or ``Class.name`` it cites is defined in a module of that name or written in a class of that
name, so the map cannot go on pointing at a module or function that was renamed or removed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "architecture.md").read_text()
SOURCES = {path: path.read_text() for path in (ROOT / "python" / "hockeystick").rglob("*.py")}
FILE = re.compile(r"`([\w./-]*\w\.(?:py|pyi|hpp|cpp|md|toml|txt))`")
# `default_reads.grid_sides`, `hockeystick.pld` (not a file name: its suffix is no file extension)
MODULE_NAME = re.compile(r"`([a-z_]\w*)\.([A-Za-z_]\w*)`")
CLASS_NAME = re.compile(r"`([A-Z]\w*)\.([A-Za-z_]\w*)`")
EXTENSIONS = {"py", "pyi", "hpp", "cpp", "md", "toml", "txt"}


def _repository_files() -> list[str]:
    """The files of the folders the page maps, and of the root, relative to the root."""
    folders = ("python", "cpp", "docs", "tests", "bench", "examples", "cmake", "packaging")
    paths = [p for p in ROOT.iterdir() if p.is_file()]
    paths += [p for folder in folders for p in (ROOT / folder).rglob("*") if p.is_file()]
    return [p.relative_to(ROOT).as_posix() for p in paths]


def _defines(source: str, name: str) -> bool:
    """Whether ``name`` is defined in ``source``: a def, a class, an assignment or an import (a parenthesized
    import read as one line)."""
    joined = re.sub(r"import \(([^)]*)\)", lambda m: "import " + " ".join(m[1].split()), source)
    pattern = rf"^\s*(?:def|class)\s+{name}\b|^\s*{name}\s*[:=]|\bimport\b.*\b{name}\b"
    return re.search(pattern, joined, re.M) is not None


def test_every_file_the_page_names_exists():
    files = _repository_files()
    missing = [
        name
        for name in sorted(set(FILE.findall(PAGE)))
        if not any(f == name or f.endswith("/" + name) for f in files)
    ]
    assert not missing, f"docs/architecture.md names files the repository does not hold: {missing}"


@pytest.mark.parametrize(
    ("module", "name"),
    sorted({pair for pair in MODULE_NAME.findall(PAGE) if pair[1] not in EXTENSIONS}),
)
def test_every_module_name_the_page_cites_is_defined_there(module, name):
    modules = [
        source
        for path, source in SOURCES.items()
        if path.stem == module or (path.stem == "__init__" and path.parent.name == module)
    ]
    assert modules, f"docs/architecture.md cites `{module}.{name}`, but no module is named {module}"
    folders = {path.parent for path in SOURCES if path.parent.name == module}
    submodule = any(
        (folder / f"{name}.py").exists() or (folder / name).is_dir() for folder in folders
    )
    assert submodule or any(_defines(source, name) for source in modules), (
        f"docs/architecture.md cites `{module}.{name}`, which no module {module} defines"
    )


@pytest.mark.parametrize(("cls", "name"), sorted(set(CLASS_NAME.findall(PAGE))))
def test_every_class_name_the_page_cites_is_written_in_that_class(cls, name):
    bodies = [
        match.group(0)
        for source in SOURCES.values()
        if f"class {cls}" in source
        for match in re.finditer(rf"^class {cls}\b.*?(?=^\S)", source + "\nend", re.M | re.S)
    ]
    assert bodies, f"docs/architecture.md cites `{cls}.{name}`, but no class is named {cls}"
    assert any(re.search(rf"\b{name}\b", body) for body in bodies), (
        f"docs/architecture.md cites `{cls}.{name}`, which class {cls} does not hold"
    )
