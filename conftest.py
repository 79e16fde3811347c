"""The ``slow`` marker: a bare ``pytest`` leaves the slow tests out, ``--run-slow`` runs them as well.

A test is marked slow when it takes long for what it adds to a run made while editing: the papers'
figures against 50-digit references, exhaustive sweeps of extreme parameters, mypy over the package,
long calibrations. The default selection is the rest; CI runs ``pytest -n auto --run-slow`` (everything).
A ``-m`` expression chooses on its own and overrides the default: ``pytest -m slow`` runs the slow
tests alone, ``pytest -m "not slow"`` is the default selection.

This file sits at the repository root so that the option exists for ``tests/`` and ``bench/`` alike,
whichever path pytest is given.
"""

from __future__ import annotations

import pytest

_LEFT_OUT = pytest.StashKey[int]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--run-slow",
        action="store_true",
        help="also run the tests marked slow (left out by default; -m overrides both)",
    )


def _slow_left_out(config: pytest.Config) -> bool:
    """The default selection applies: neither ``--run-slow`` nor a ``-m`` expression was given."""
    return not config.getoption("--run-slow") and not config.option.markexpr


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not _slow_left_out(config):
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    config.stash[_LEFT_OUT] = len(slow)
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """Say that slow tests were left out, and how to run them. Under xdist the controller collects
    nothing, so the count is known only in a run without workers."""
    if not _slow_left_out(config):
        return
    count = config.stash.get(_LEFT_OUT, None)
    if count == 0:
        return
    how_many = "" if count is None else f" ({count})"
    terminalreporter.write_line(f"slow tests left out{how_many}: --run-slow runs them too, -m slow runs them alone")
