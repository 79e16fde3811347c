"""Shared test hygiene: mpmath's working precision is global state, so no test may leave it changed.
Shared fixtures: ``visited_grids`` (the grids an ``accuracy=`` refinement evaluates), ``saved_figures`` (the
figures the plots save), ``grid_alone`` (a grid's own brackets, without the default's reads below its floor). The order of a run: the modules tests/slow_cases.py lists in ``LONG_FIRST`` first,
longest first, then the rest as collected (so that under xdist no long test is left for the end).

Hypothesis profiles (docs/testing.md): ``ci``, the default, draws the same examples on every run
(``derandomize``: each test's seed is derived from its name, no example database, no deadline and no
timing health check), so a run's outcome depends on the code alone; ``explore`` draws fresh examples
on every run, for finding new failures (``HYPOTHESIS_PROFILE=explore pytest ...`` or
``pytest --hypothesis-profile=explore ...``).  A test's own ``@settings(max_examples=...)`` keeps its
count under either profile.

A reference computed at 600 digits once leaked into every later module (their 30-digit
quadratures then ran at 600 digits: minutes instead of seconds). Whatever a test sets, the
precision it started with is restored when it ends.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import mpmath
import pytest
from hypothesis import HealthCheck, settings

from hockeystick import _core
from hockeystick.pld.question import default_reads

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "explore",
    derandomize=False,
    database=None,
    deadline=None,
    print_blob=True,
    max_examples=400,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules of ``LONG_FIRST`` run first, in its order, each whole (a module-scoped fixture is
    computed once); every other test keeps its collected order after them (a stable sort)."""
    from tests.slow_cases import LONG_FIRST  # lazy: read once per collection

    rank = {path: place for place, path in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


@pytest.fixture(autouse=True)
def _mpmath_precision(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each test runs at its module's ``MP_DPS`` digits (a module sets mpmath's global precision at import, and
    the last module collected would otherwise set it for every test of the session), restored after it."""
    before = mpmath.mp.prec
    dps = getattr(request.module, "MP_DPS", None)
    if dps is not None:
        mpmath.mp.dps = dps
    yield
    mpmath.mp.prec = before


@pytest.fixture(autouse=True)
def _no_kept_default_brackets() -> None:
    """Each test starts with no default bracket kept (``default_reads.kept_epsilon_brackets``): one kept by an
    earlier test, or read while it changed a read of the chain, would answer a later test's ``accuracy=``."""
    default_reads.forget_kept()


@pytest.fixture
def visited_grids(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The grids the ``accuracy=`` refinement evaluates, in order (one entry per point and step), while the
    test runs through the accountant: the many points' units and one point's grids, read inside the core
    (``_core.pld_refine.refine_subsampled_gaussian_deltas`` and ``refined_subsampled_gaussian_epsilon`` give
    them); a fixed-grid call afterwards visits none."""
    grids: list[float] = []
    many = _core.pld_refine.refine_subsampled_gaussian_deltas
    one = _core.pld_refine.refined_subsampled_gaussian_epsilon

    def counted(**arguments):
        found = many(**arguments)
        grids.extend(found[3])
        return found

    def counted_one(**arguments):
        found = one(**arguments)
        grids.extend(found[3])
        return found

    monkeypatch.setattr(_core.pld_refine, "refine_subsampled_gaussian_deltas", counted)
    monkeypatch.setattr(_core.pld_refine, "refined_subsampled_gaussian_epsilon", counted_one)
    return grids


@pytest.fixture
def grid_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The grid's own brackets of an accountant given a grid, in this process: its reads below the composition's
    floor, the default's (``default_reads.grid_sides``, tested through the doors and tests/pld/question), left
    out, for a test of the grid's composition itself or of what runs around it (blocks, workers, progress)."""
    monkeypatch.setattr(default_reads, "grid_sides", lambda front, pts, xs, found, *asked: found)


@pytest.fixture
def saved_figures(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The matplotlib figures the plots save while the test runs, in order (each still saved)."""
    from hockeystick.plots import canvas  # lazy: matplotlib only for the tests that draw

    saved: list[object] = []
    real = canvas.save

    def keep(fig, path):
        saved.append(fig)
        return real(fig, path)

    monkeypatch.setattr(canvas, "save", keep)
    return saved
