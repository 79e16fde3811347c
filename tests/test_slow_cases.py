"""tests/slow_cases.py names tests that exist, and each one's twin is a test of the default selection; its
LONG_FIRST (the modules run first) names test files, each once."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

from tests.slow_cases import LONG_FIRST, SLOW_CASES

ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def _functions(path: str) -> frozenset[str]:
    """The names of the functions the file at ``path`` defines (none when there is no such file)."""
    file = ROOT / path
    if not file.is_file():
        return frozenset()
    tree = ast.parse(file.read_text(encoding="utf-8"))
    return frozenset(
        node.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    )


def _defined(nodeid: str) -> bool:
    """Whether the file of ``nodeid`` defines the test function it names (parameters aside)."""
    path, *names = nodeid.split("[")[0].split("::")
    return bool(names) and names[-1] in _functions(path)


@pytest.mark.parametrize("case", sorted(SLOW_CASES))
def test_a_listed_case_and_its_twin_are_tests_and_the_twin_runs_by_default(case: str) -> None:
    twin = SLOW_CASES[case]
    assert _defined(case), f"{case} is no test any more: drop it from tests/slow_cases.py"
    assert _defined(twin), f"{case}'s twin {twin} is no test: name another"
    assert twin not in SLOW_CASES, f"{case}'s twin {twin} is listed slow itself"


def test_the_long_modules_run_first_are_test_files_listed_once() -> None:
    missing = [path for path in LONG_FIRST if not (ROOT / path).is_file()]
    assert not missing, (
        f"tests/slow_cases.py's LONG_FIRST names no file at {missing}: drop or rename them"
    )
    assert len(set(LONG_FIRST)) == len(LONG_FIRST), "a module is listed twice in LONG_FIRST"
