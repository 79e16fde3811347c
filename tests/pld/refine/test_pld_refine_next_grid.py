"""The next-grid rules' arithmetic in the core (cpp/include/hockeystick/pld/refine/next_grid.hpp, bound as
``_core.pld_refine.first_step``, ``fitted_step``, ``power_step``, ``charged_step``; ``grid_rules.NextGrid`` calls
them): over random widths, grids and masks each equals, bit for bit, a literal transcription of the formula its
docstring states (scalar Python below: ``math`` functions, Python's min and max), on the ladder and off it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hockeystick import _core
from hockeystick.pld.refine import tuning
from hockeystick.pld.refine.grid_rules import next_grid_tuning
from hockeystick.pld.refine.grid_start import finest_interval, grid_policy, ladder_rung

from .numpy_next_grid import NextGrid

WIDTH = st.one_of(st.floats(1e-7, 2.0), st.just(math.inf))
MASK = st.booleans()


def rounded(x: float, on_ladder: bool) -> float:
    return ladder_rung(x) if on_ladder else x


def first_step(h, width, scaling, capped_h, recompose, finest, accuracy, on_ladder):
    """The finest of capped_h and h 0.9 sqrt(accuracy / widest) over the scaling arguments (0.5 h where the widest
    is infinite), at least finest, on the ladder; none at h <= finest, save h again where recompose."""
    asked = [] if capped_h is None else [capped_h]
    scaled = [w for w, s in zip(width, scaling) if s]
    if scaled:
        worst = max(scaled)
        asked.append(h * (0.9 * math.sqrt(accuracy / worst) if math.isfinite(worst) else 0.5))
    if asked and h > finest:
        return rounded(max(min(asked), finest), on_ladder)
    return h if recompose else None


def fitted_step(h, h0, width, width0, wide, finest, accuracy, stalled, on_ladder):
    """Per wide argument narrowing below stalled of its last width: c = (w0 - w) / (h0^2 - h^2), f = w - c h^2; those
    with f < accuracy / 2 ask sqrt((0.9 accuracy - f) / c); the finest, at most 0.9 h, at least finest."""
    wanted = []
    for w, w0, wd in zip(width, width0, wide):
        if wd and w < stalled * w0:
            c = (w0 - w) / (h0 * h0 - h * h)
            f = w - c * h * h
            if f < 0.5 * accuracy:
                wanted.append(math.sqrt((0.9 * accuracy - f) / c))
    if not wanted:
        return None
    least = math.nan if any(math.isnan(v) for v in wanted) else min(wanted)
    return rounded(max(min(least, 0.9 * h), finest), on_ladder)


def power_step(
    h, h0, width, width0, alone, wide, was_capped, near_rate, finest, accuracy, t, on_ladder
):
    """e = width - alone fitted as c h^p, p = log(e0 / e) / log(h0 / h) (2 where capped before and now within
    CAP_LEFT tolerances, else 0 where capped before); followed where wide, e < stalled e0, e* = 0.9 accuracy - alone
    > 0, and p >= slowest (or near_rate, not capped, p > 0 and (e* / e)^(1/p) >= slow_reach); each asks
    h (e* / e)^(1/clip(p, 1, 2)); the finest, at most 0.9 h, at least finest."""
    wanted = []
    for w, w0, a, wd, cap in zip(width, width0, alone, wide, was_capped):
        e, e0, target = w - a, w0 - a, 0.9 * accuracy - a
        if cap:
            p = 2.0 if wd and e > 0 and w < t.cap_left_within_tolerances * accuracy else 0.0
        else:
            p = math.log(e0 / e) / math.log(h0 / h) if wd and e > 0 and e0 > e else 0.0
        close = (
            near_rate
            and not cap
            and p > 0
            and target > 0
            and (target / e) ** (1 / max(p, 1e-300)) >= t.slow_reach
        )
        if wd and e < t.stalled * e0 and target > 0 and (p >= t.slowest_power or close):
            wanted.append(h * (target / e) ** (1.0 / min(max(p, 1.0), 2.0)))
    if not wanted:
        return None
    return rounded(max(min(min(wanted), 0.9 * h), finest), on_ladder)


def charged_step(
    h, h0, width, width0, alone, cap, wide, charged, q, finest, accuracy, t, on_ladder
):
    """power_step over the wide arguments not charged (capped before: width0 >= cap (1 - 1e-9); near_rate:
    h0 > q / 2), and 0.9 h (at least finest, on the ladder) where a charged wide argument capped before is now within
    CAP_LEFT tolerances; the finer."""
    was = [w0 >= c * (1.0 - 1e-9) for w0, c in zip(width0, cap)]
    followed = [wd and not ch for wd, ch in zip(wide, charged)]
    finer = power_step(
        h, h0, width, width0, alone, followed, was, h0 > 0.5 * q, finest, accuracy, t, on_ladder
    )
    if any(wd and ch and c and w < t.cap_left_within_tolerances * accuracy
           for w, wd, ch, c in zip(width, wide, charged, was)):  # fmt: skip
        rung = rounded(max(0.9 * h, finest), on_ladder)
        finer = rung if finer is None else min(finer, rung)
    return finer


def same(a: float | None, b: float | None) -> bool:
    return a == b or (a is not None and b is not None and math.isnan(a) and math.isnan(b))


@st.composite
def grids(draw: st.DrawFn) -> tuple[float, float, float, float, bool]:
    """h, h0 > h, the accuracy, the finest grid, and whether the ladder rounds."""
    h = draw(st.floats(1e-6, 1e-1))
    return (
        h,
        h * draw(st.floats(1.01, 20.0)),
        draw(st.floats(1e-6, 0.5)),
        draw(st.floats(1e-7, 1e-4)),
        draw(MASK),
    )


def arrays(draw: st.DrawFn, n: int, element: st.SearchStrategy) -> list:
    return draw(st.lists(element, min_size=n, max_size=n))


def policy(on_ladder: bool) -> object:
    return grid_policy() if on_ladder else None


@settings(max_examples=100)
@given(st.data(), grids(), st.integers(1, 6), st.one_of(st.none(), st.floats(1e-7, 1e-1)), MASK)
def test_first_step_is_its_formula(data, grid, n, capped_h, recompose):
    h, _, accuracy, finest, on_ladder = grid
    width, scaling = arrays(data.draw, n, WIDTH), arrays(data.draw, n, MASK)
    got = _core.pld_refine.first_step(
        h=h,
        width=np.array(width),
        scaling=np.array(scaling),
        capped_h=capped_h,
        recompose=recompose,
        finest=finest,
        accuracy=accuracy,
        ladder=policy(on_ladder),
    )
    assert same(
        got, first_step(h, width, scaling, capped_h, recompose, finest, accuracy, on_ladder)
    )


@settings(max_examples=300)
@given(st.data(), grids(), st.integers(1, 6))
def test_fitted_step_is_its_formula(data, grid, n):
    h, h0, accuracy, finest, on_ladder = grid
    width, width0, wide = (
        arrays(data.draw, n, WIDTH),
        arrays(data.draw, n, WIDTH),
        arrays(data.draw, n, MASK),
    )
    t = next_grid_tuning()
    got = _core.pld_refine.fitted_step(
        h=h,
        h0=h0,
        width=np.array(width),
        width0=np.array(width0),
        wide=np.array(wide),
        finest=finest,
        accuracy=accuracy,
        tuning=t,
        ladder=policy(on_ladder),
    )
    assert same(
        got, fitted_step(h, h0, width, width0, wide, finest, accuracy, t.stalled, on_ladder)
    )


@settings(max_examples=100)
@given(st.data(), grids(), st.integers(1, 6), MASK)
def test_power_step_is_its_formula(data, grid, n, near_rate):
    h, h0, accuracy, finest, on_ladder = grid
    width, width0 = (
        arrays(data.draw, n, st.floats(1e-7, 2.0)),
        arrays(data.draw, n, st.floats(1e-7, 2.0)),
    )
    alone = arrays(data.draw, n, st.one_of(st.just(0.0), st.floats(0.0, 0.5)))
    wide, was_capped = arrays(data.draw, n, MASK), arrays(data.draw, n, MASK)
    t = next_grid_tuning()
    got = _core.pld_refine.power_step(
        h=h,
        h0=h0,
        width=np.array(width),
        width0=np.array(width0),
        alone=np.array(alone),
        wide=np.array(wide),
        was_capped=np.array(was_capped),
        near_rate=near_rate,
        finest=finest,
        accuracy=accuracy,
        tuning=t,
        ladder=policy(on_ladder),
    )
    expected = power_step(
        h, h0, width, width0, alone, wide, was_capped, near_rate, finest, accuracy, t, on_ladder
    )
    assert same(got, expected)


@settings(max_examples=100)
@given(st.data(), grids(), st.integers(1, 6), st.floats(1e-6, 0.9))
def test_charged_step_is_its_formula(data, grid, n, q):
    h, h0, accuracy, finest, on_ladder = grid
    width, width0 = (
        arrays(data.draw, n, st.floats(1e-7, 2.0)),
        arrays(data.draw, n, st.floats(1e-7, 2.0)),
    )
    alone = arrays(data.draw, n, st.floats(0.0, 0.5))
    cap = [
        w0 * data.draw(st.sampled_from([1.0, 1.0 - 1e-10, 1.5])) for w0 in width0
    ]  # at, within, off its cap
    wide, charged = arrays(data.draw, n, MASK), arrays(data.draw, n, MASK)
    t = next_grid_tuning()
    got = _core.pld_refine.charged_step(
        h=h,
        h0=h0,
        width=np.array(width),
        width0=np.array(width0),
        alone=np.array(alone),
        cap=np.array(cap),
        wide=np.array(wide),
        charged=np.array(charged),
        q=q,
        finest=finest,
        accuracy=accuracy,
        tuning=t,
        ladder=policy(on_ladder),
    )
    expected = charged_step(
        h, h0, width, width0, alone, cap, wide, charged, q, finest, accuracy, t, on_ladder
    )
    assert same(got, expected)


def test_the_rules_follow_a_patched_constant(monkeypatch: pytest.MonkeyPatch) -> None:
    """``NextGrid`` passes ``tuning``'s values at call time: a width that fell to 0.95 of the last is followed once
    STALLED is raised above 0.95, not before."""
    rules, before = NextGrid(1e-3), (1.026e-3, None, None, np.array([1e-2]))
    width, wide = np.array([9.5e-3]), np.array([True])
    assert rules.fitted_step(1e-3, width, before, wide, finest_interval(None)) is None  # type: ignore[arg-type]
    monkeypatch.setattr(tuning, "STALLED", 0.99)
    assert rules.fitted_step(1e-3, width, before, wide, finest_interval(None)) is not None  # type: ignore[arg-type]


def test_arrays_of_other_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="width0 must have width's length 2, got 1"):
        _core.pld_refine.fitted_step(
            h=1e-3,
            h0=2e-3,
            width=np.ones(2),
            width0=np.ones(1),
            wide=np.ones(2, bool),
            finest=1e-5,
            accuracy=1e-3,
            tuning=next_grid_tuning(),
            ladder=None,
        )
