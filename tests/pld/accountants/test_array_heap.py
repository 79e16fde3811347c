"""A question of several points raises glibc's malloc thresholds before its units compose
(``malloc_thresholds``, as a refinement raises them: window after window then comes from the heap
the process holds); a question of one point that does not refine leaves them as they are."""

from __future__ import annotations

import numpy as np

import hockeystick.pld as pld
from hockeystick.pld.refine import malloc_thresholds


def _raises(monkeypatch, sigma) -> int:
    """How many times asking epsilon at 1e-5 of ``sigma`` (q 0.01, 100 rounds; one thread, whose
    transforms need no scipy.fft) raises the thresholds."""
    calls: list[int] = []
    monkeypatch.setattr(malloc_thresholds, "raise_malloc_thresholds", lambda: bool(calls.append(1)))
    lo, up = pld.SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=0.01, rounds=100, workers=1
    ).epsilon(1e-5, bound="both")
    assert np.all((0.0 < lo) & (lo <= up) & (up < np.inf))
    return len(calls)


def test_several_points_raise_the_thresholds(monkeypatch):
    assert _raises(monkeypatch, np.array([1.0, 1.1])) >= 1


def test_one_point_leaves_them(monkeypatch):
    assert _raises(monkeypatch, 1.0) == 0
