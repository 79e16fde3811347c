"""The ``slow`` marker: a bare ``pytest`` leaves the slow tests out, ``--run-slow`` runs them as well.

A test is marked slow when it takes long for what it adds to a run made while editing: the papers'
figures against 50-digit references, exhaustive sweeps of extreme parameters, mypy over the package,
long calibrations. The default selection is the rest; ``--run-slow`` runs everything. The listed cases of
tests/slow_cases.py (larger instances of tests the default selection runs smaller) are marked slow and
``larger``: CI runs ``pytest -n auto -m "not larger"``, every test but those.
A ``-m`` expression chooses on its own and overrides the default: ``pytest -m slow`` runs the slow
tests alone, ``pytest -m "not slow"`` is the default selection.

A warning that hockeystick issues fails the test it happens in unless the test asserts it (pyproject.toml's
``filterwarnings``; below, how a deprecation located at its caller is matched to the module that issued it).

This file sits at the repository root so that the option and the warnings' attribution hold for ``tests/``
and ``bench/`` alike, whichever path pytest is given.
"""

from __future__ import annotations

import sys
import warnings
from types import FrameType
from typing import Any

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


def _mark_listed_cases_slow(items: list[pytest.Item]) -> None:
    """The cases tests/slow_cases.py lists (each with a default-selection twin) are marked slow and
    ``larger``."""
    from tests.slow_cases import SLOW_CASES  # lazy: read once per collection

    for item in items:
        if item.nodeid in SLOW_CASES:
            item.add_marker(pytest.mark.slow)
            item.add_marker(pytest.mark.larger)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _mark_listed_cases_slow(items)
    if not _slow_left_out(config):
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    config.stash[_LEFT_OUT] = len(slow)
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    """Say that slow tests were left out, and how to run them. Under xdist the controller collects
    nothing, so the count is known only in a run without workers."""
    if not _slow_left_out(config):
        return
    count = config.stash.get(_LEFT_OUT, None)
    if count == 0:
        return
    how_many = "" if count is None else f" ({count})"
    terminalreporter.write_line(
        f"slow tests left out{how_many}: --run-slow runs them too, -m slow runs them alone"
    )


# Warnings that hockeystick issues are errors in the suite (pyproject.toml's ``filterwarnings``,
# ``error:::hockeystick``), unless a test asserts them (``pytest.warns``, ``pytest.deprecated_call`` and
# ``recwarn`` record every warning inside them). A filter's module is matched against the module of the
# warning's location: for numpy's RuntimeWarnings inside the library that is the library's module, but a
# deprecation issued with ``stacklevel=2`` is located at its caller (a test). So ``warnings.warn`` called
# from a hockeystick module is issued here with the location ``stacklevel`` names, as Python computes it,
# and the issuing module as the module the filters match: the filters then see who warned, and the
# report still shows the caller's line. A warning issued anywhere else passes through unchanged.
_WARN = warnings.warn


def _located(issuer: FrameType, stacklevel: int) -> FrameType | None:
    """The frame ``stacklevel`` names, counted from the issuer as ``warnings.warn`` counts it (skipping the
    frames of CPython's import machinery); None past the stack's top."""
    frame: FrameType | None = issuer
    for _ in range(stacklevel - 1):
        frame = frame.f_back if frame is not None else None
        while (
            frame is not None
            and "importlib" in frame.f_code.co_filename
            and "_bootstrap" in frame.f_code.co_filename
        ):
            frame = frame.f_back
    return frame


def _warn(
    message: str | Warning,
    category: type[Warning] | None = None,
    stacklevel: int = 1,
    source: Any = None,
) -> None:
    issuer = sys._getframe(1)
    module = issuer.f_globals.get("__name__", "")
    if module != "hockeystick" and not module.startswith("hockeystick."):
        _WARN(message, category, stacklevel + 1, source)
        return
    category = type(message) if isinstance(message, Warning) else category or UserWarning
    frame = _located(issuer, stacklevel)
    where = frame.f_globals if frame is not None else sys.__dict__
    filename, lineno = (
        (frame.f_code.co_filename, frame.f_lineno) if frame is not None else ("sys", 1)
    )
    registry = where.setdefault("__warningregistry__", {})
    warnings.warn_explicit(message, category, filename, lineno, module, registry, where, source)


warnings.warn = _warn  # type: ignore[assignment]
