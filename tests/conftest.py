"""Shared test hygiene: mpmath's working precision is global state, so no test may leave it changed.

A reference computed at 600 digits once leaked into every later module (their 30-digit
quadratures then ran at 600 digits: minutes instead of seconds). Whatever a test sets, the
precision it started with is restored when it ends.
"""

from __future__ import annotations

from collections.abc import Iterator

import mpmath
import pytest


@pytest.fixture(autouse=True)
def _restore_mpmath_precision() -> Iterator[None]:
    before = mpmath.mp.prec
    yield
    mpmath.mp.prec = before
