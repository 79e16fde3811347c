"""Static typing that tools can use (issue 12 item 5): the package and a user script pass mypy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import hockeystick._core as core

ROOT = Path(__file__).resolve().parents[1]
STUB = ROOT / "python" / "hockeystick" / "_core.pyi"

pytest.importorskip("mypy")


def _mypy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)


def test_the_stub_declares_every_compiled_name():
    text = STUB.read_text()
    missing = [n for n in dir(core) if not n.startswith("__")
               and f"def {n}(" not in text and f"class {n}" not in text and f"{n}:" not in text]
    assert not missing, f"add these bindings to python/hockeystick/_core.pyi: {missing}"


@pytest.mark.slow
def test_the_package_passes_mypy():
    result = _mypy("-p", "hockeystick")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_the_readme_examples_pass_mypy_strict():
    # the user script strictly; the package as a library it imports (its own check is the test above)
    result = _mypy("--strict", "--follow-imports=silent", "tests/typing/readme_examples.py")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_readme_examples_run():
    result = subprocess.run([sys.executable, "tests/typing/readme_examples.py"], cwd=ROOT, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stderr


@pytest.mark.slow
def test_the_overloads_catch_mistakes():
    result = _mypy("--strict", "--follow-imports=silent", "tests/typing/wrong_types.py")
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert [int(line.split(":")[1]) for line in errors] == [7, 8, 9], result.stdout
