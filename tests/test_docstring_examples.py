"""Every ``Examples`` section in the package's docstrings runs and prints what it says (doctest), so the API
reference built from them stays true."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import hockeystick

SKIPPED = ("hockeystick.__main__",)  # the entry point runs the CLI on import


def modules_with_examples() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(hockeystick.__path__, "hockeystick."):
        if info.name in SKIPPED:
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra that is not installed: its own tests say so
            continue
        if any(test.examples for test in doctest.DocTestFinder(exclude_empty=True).find(module)):
            names.append(info.name)
    return names


@pytest.mark.parametrize("name", modules_with_examples())
def test_the_examples_of(name):
    module = importlib.import_module(name)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    failed, attempted = doctest.testmod(module, optionflags=flags, report=True, verbose=False)
    assert attempted > 0
    assert failed == 0, (
        f"{failed} of {attempted} examples in {name} print something else (see above)"
    )
