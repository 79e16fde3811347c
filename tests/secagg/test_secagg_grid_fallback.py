"""A lower side whose composition on the grid asked passes the memory cap is answered on the finest grid that fits
(twice as coarse, and so on), with an AccuracyNotMetWarning naming it, not refused."""

from __future__ import annotations

import re
import warnings

import pytest

from hockeystick.pld.compose import fft
from hockeystick.pld.refine.unmet import AccuracyNotMetWarning
from hockeystick.secagg import DistributedDiscreteGaussian, DistributedSkellam

RUN = dict(
    clip_norm=1.0,
    granularity=0.1,
    dimension=8,
    local_sigma=0.5,
    min_surviving_clients=5,
    rounds=200,
)
CAP = 1 << 13  # grid points: below the composed window at 1e-4, above it at some coarser grid


def _read(cls, interval: float, against: str) -> tuple[tuple[float, float], float | None]:
    """The bracket at eps(1e-5) and the grid a fallback warning names (None without one)."""
    acc = cls(**RUN, value_discretization_interval=interval, sampling_rate=0.3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bracket = acc.epsilon(1e-5, bound="both", against=against)
    named = [re.search(r"finest grid that fits, ([0-9.e-]+)", str(w.message)) for w in caught]
    grids = [float(m.group(1)) for m in named if m]
    assert len(grids) == len(caught) <= 1 and all(
        w.category is AccuracyNotMetWarning for w in caught
    )
    return bracket, (grids[0] if grids else None)


@pytest.mark.parametrize("cls", [DistributedDiscreteGaussian, DistributedSkellam])
@pytest.mark.parametrize("against", ["server", "observer"])
def test_a_grid_past_the_cap_is_answered_on_the_finest_that_fits(cls, against, monkeypatch):
    fine, _ = _read(cls, 1e-4, against)
    monkeypatch.setattr(fft, "DEFAULT_MAX_POINTS", CAP)
    (low, high), used = _read(cls, 1e-4, against)
    assert used is not None and used > 1e-4  # answered, on a coarser grid, named
    assert high == fine[1]  # the upper side does not read the grid
    assert 0.0 < low <= high and low >= 0.8 * fine[0]
    # the finest on the ladder: half of it does not fit (it falls back to the same grid), the grid itself does
    assert _read(cls, used / 2, against)[1] == pytest.approx(used)
    at_used, none = _read(cls, used, against)
    assert none is None and at_used[0] == low


def test_a_later_read_starts_at_the_grid_that_fit(monkeypatch):
    monkeypatch.setattr(fft, "DEFAULT_MAX_POINTS", CAP)
    acc = DistributedSkellam(**RUN, value_discretization_interval=1e-4)
    with pytest.warns(AccuracyNotMetWarning, match="finest grid that fits"):
        acc.epsilon(1e-5, bound="lower")
    with pytest.warns(AccuracyNotMetWarning, match="finest grid that fits"):
        acc.delta(1.0, bound="lower")


def test_a_grid_that_fits_gives_no_warning():
    acc = DistributedSkellam(**RUN, value_discretization_interval=1e-4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        acc.epsilon(1e-5, bound="both")
