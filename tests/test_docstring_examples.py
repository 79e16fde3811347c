"""Every ``Examples`` section in the package's docstrings runs and prints what it says (doctest), so the API
reference built from them stays true.

The modules in ``SLOW_EXAMPLES`` run their examples under ``--run-slow`` only: each calibrates or composes
for seconds of CPU time.  In the default selection their examples are still found and compiled, so a
module whose examples stop parsing, or lose them all, fails there too."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import hockeystick

SKIPPED = ("hockeystick.__main__",)  # the entry point runs the CLI on import

# module -> why its examples take over 1.5 CPU s (one worker, AMD EPYC)
SLOW_EXAMPLES = {
    "hockeystick.secagg.pair_calibration": "calibrates the discrete mechanisms' noise (about 2 s)",
    "hockeystick.calibrate.individualized": "one calibration per privacy group (about 3 s)",
    "hockeystick.interop.dp_accounting.secagg_pair_events": "composes the secure-aggregation pairs' PLDs (about 3 s)",
    "hockeystick.training.record_level": "a PLD per local step of a federated round (about 2 s)",
}


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


MODULES = modules_with_examples()


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.slow if n in SLOW_EXAMPLES else ()) for n in MODULES],
)
def test_the_examples_of(name):
    module = importlib.import_module(name)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    failed, attempted = doctest.testmod(module, optionflags=flags, report=True, verbose=False)
    assert attempted > 0
    assert failed == 0, (
        f"{failed} of {attempted} examples in {name} print something else (see above)"
    )


@pytest.mark.parametrize("name", sorted(SLOW_EXAMPLES))
def test_the_slow_modules_examples_are_found_and_compile(name):
    """The default selection's share of a slow module's examples: each example is found and is valid
    Python (``--run-slow`` runs them)."""
    assert name in MODULES, f"{name} has no examples any more: drop it from SLOW_EXAMPLES"
    module = importlib.import_module(name)
    examples = [
        example
        for test in doctest.DocTestFinder(exclude_empty=True).find(module)
        for example in test.examples
    ]
    assert examples
    for example in examples:
        compile(example.source, f"{name} example", "single")
