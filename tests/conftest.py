"""Shared test hygiene: mpmath's working precision is global state, so no test may leave it changed.
Shared fixtures: ``visited_grids`` (the grids an ``accuracy=`` refinement evaluates).

A reference computed at 600 digits once leaked into every later module (their 30-digit
quadratures then ran at 600 digits: minutes instead of seconds). Whatever a test sets, the
precision it started with is restored when it ends.
"""

from __future__ import annotations

from collections.abc import Iterator

import mpmath
import pytest

from hockeystick.pld.accountant import SubsampledGaussianPLD


@pytest.fixture(autouse=True)
def _restore_mpmath_precision() -> Iterator[None]:
    before = mpmath.mp.prec
    yield
    mpmath.mp.prec = before


@pytest.fixture
def visited_grids(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The grids the ``accuracy=`` refinement evaluates, in order (one entry per point and step), while the
    test runs through the accountant; a fixed-grid call afterwards visits none."""
    grids: list[float] = []
    step = SubsampledGaussianPLD._step_brackets

    def counted(self, batch, points, steps, *args):
        grids.extend(steps[i] for i in batch)
        return step(self, batch, points, steps, *args)

    monkeypatch.setattr(SubsampledGaussianPLD, "_step_brackets", counted)
    return grids
