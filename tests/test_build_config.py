"""The source build keeps its objects where they are found again, and only there.

* The build directory (pyproject.toml, ``[tool.scikit-build] build-dir``) is ignored by git and its name
  is no importable module: a ``build/`` folder in the working directory is what ``python -m build``
  imports instead of the installed package.
* A repeat install compiles nothing. pip installs pybind11 at a new temporary path for every build, and
  scikit-build-core then clears the build directory's cache and its top-level CMakeFiles/. So the module's
  objects are kept below bindings/ (cpp/bindings/CMakeLists.txt), and its units compile against a copy
  of pybind11's headers there. Configuring one build directory twice as two isolated installs do (pybind11
  at two paths, the cache cleared in between) gives the same compile commands, none naming either path,
  objects outside the cleared folder, and copied headers left untouched (their modification times are
  what ninja compares): ninja finds no work, where a changed command or a newer or missing header or
  object would recompile.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def _build_dir() -> str:
    with open(ROOT / "pyproject.toml", "rb") as file:
        return str(tomllib.load(file)["tool"]["scikit-build"]["build-dir"])


def test_the_build_directory_shadows_no_module_and_is_ignored_by_git() -> None:
    top = Path(_build_dir()).parts[0]
    assert not top.isidentifier(), (
        f"build-dir {top!r} is importable: `python -m {top}` would find it first"
    )
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git work tree")
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", f"{top}/probe"], cwd=ROOT, capture_output=True, timeout=60
    )
    assert ignored.returncode == 0, f"{top}/ is not ignored by git (.gitignore)"


# the environment's own scripts first: the test extra's cmake, where CI's PATH does not name the venv
SEARCH = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


def _configure(build: Path, pybind11: Path) -> list[dict[str, str]]:
    command = [
        str(shutil.which("cmake", path=SEARCH)),
        "-S",
        str(ROOT),
        "-B",
        str(build),
        f"-Dpybind11_DIR={pybind11 / 'share' / 'cmake' / 'pybind11'}",
        f"-DPython_EXECUTABLE={sys.executable}",
        "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
        "-DCMAKE_BUILD_TYPE=Release",
    ]
    if shutil.which("ninja", path=SEARCH):
        command += ["-G", "Ninja"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    entries: list[dict[str, str]] = json.loads(
        (build / "compile_commands.json").read_text(encoding="utf-8")
    )
    return entries


@pytest.mark.slow
def test_a_second_isolated_build_sees_the_same_commands_and_headers(tmp_path: Path) -> None:
    """Two configurations of one build directory, pybind11 at a new path each time (about 5 s)."""
    pybind11 = pytest.importorskip(
        "pybind11", reason="pybind11 (a build requirement) is not installed"
    )
    for tool in ("cmake", "c++"):
        if shutil.which(tool, path=SEARCH) is None:
            pytest.skip(f"no {tool} on PATH")
    installed = Path(pybind11.__file__).parent
    first, second = tmp_path / "env-1" / "pybind11", tmp_path / "env-2" / "pybind11"
    shutil.copytree(installed, first)
    build = tmp_path / "build"
    commands = _configure(build, first)
    headers = sorted((build / "bindings" / "pybind11-include").rglob("*.h"))
    stamps = [header.stat().st_mtime_ns for header in headers]
    shutil.move(first.parent, second.parent)  # the first environment is gone, as pip leaves it
    (
        build / "CMakeCache.txt"
    ).unlink()  # as scikit-build-core clears a build of another environment
    shutil.rmtree(build / "CMakeFiles")
    again = _configure(build, second)
    assert len(headers) > 20
    assert [header.stat().st_mtime_ns for header in headers] == stamps
    assert again == commands
    named = [entry["file"] for entry in again if str(tmp_path / "env-") in entry["command"]]
    assert named == []
    objects = [Path(entry["directory"], entry["output"]).resolve() for entry in again]
    assert (
        objects
        and [path for path in objects if (build / "CMakeFiles").resolve() in path.parents] == []
    )
