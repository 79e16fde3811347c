"""The many-points refinement's per-step rules in the core (cpp/include/hockeystick/pld/refine/points_rules.hpp,
points_front.hpp; bound as ``_core.pld_refine.points_step``, run by the many-points loop) against the numpy rules they
state (``grid_rules.NextGrid``'s charge_width, capped_without_chord, capped_interval, offset_limited and
next_interval, which a composition plan's refinement still runs, with ``bracket_width``), transcribed below as the
loop's front end did them:

- one step on random brackets of every kind (.epsilon with and without a relative accuracy, .delta relative and by
  the epsilon criterion), with and without a record of the grid before, capped, blind, charged, near-one and
  complement-taken arguments: the same intersection, width and next grid, bit for bit;
- whole refinements of G1-like blocks by the core's many-points loop (pld/refine/points_delta_source.hpp): each
  bracket ordered and certified (it overlaps a finer fixed grid's certified bracket);
- the direct-bins rule (direct_bins.hpp), which the C library reads too, against its formula."""

from __future__ import annotations

import math
from typing import cast

import numpy as np
import pytest

from hockeystick import _core
from hockeystick.base.accountant import Quantity
from hockeystick.pld.refine import tuning
from hockeystick.pld.refine.bracket_width import bracket_width
from hockeystick.pld.refine.grid_rules import points_rules
from hockeystick.pld.refine.grid_start import within_window
from hockeystick.pld.refine.points import with_offsets

from .numpy_next_grid import NextGrid, least


def reference_step(
    kind: tuple[str, str, float],
    point: tuple[float, float, float, float],
    x: np.ndarray,
    own: int,
    fit: float,
    step: tuple,
    before: tuple | None,
    accuracy: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float | None, bool, bool]:
    """One step as the numpy rules take it: (lower, upper, width, next grid, gave up, complement alone)."""
    method, delta_accuracy, relative = kind
    h, lo, up, (fixed, near, direct, stop) = step
    if before is not None:
        lo, up = np.maximum(lo, before[1]), np.minimum(up, before[2])
    width = bracket_width(
        delta_accuracy, cast(Quantity, method), x, lo, up, own, accuracy, relative
    )
    if stop:
        return lo, up, width, None, False, False
    rules, q = NextGrid(accuracy), point[1]
    by_epsilon = method == "delta" and delta_accuracy == "epsilon"
    alone = rules.charge_width(by_epsilon, x, lo, up, fixed, own, q, h)
    charged = rules.charged(width, alone)
    capped, blind = rules.capped_without_chord(by_epsilon, x, lo, width, q, h, own, charged)
    capped_h = rules.capped_interval(h, x, lo, up, width, own, capped, blind, q)
    if by_epsilon and (before is None or before[0] <= h):
        limited, limited_h = rules.offset_limited(h, x, lo, up, width, own, capped | charged)
        capped, capped_h = capped | limited, least(capped_h, limited_h)
    last = before
    if method == "epsilon" and last is not None and np.any(last[1][last[3] > accuracy] == 0):
        last = None
    finer = rules.next_interval(h, width, last, capped, capped_h, alone, x[:own], q)
    gave_up = False
    if finer is not None and finer < h:
        window = within_window(point, finer)
        finer = max(window, fit)
        gave_up = finer >= h and fit >= window
        finer = finer if finer < h else None
    if finer == h and direct:
        finer = None
    alone_next = (
        finer is not None and near is not None and bool(np.all(near[:own][width > accuracy]))
    )
    return lo, up, width, finer, gave_up, alone_next


def random_step(rng: np.random.Generator, kind: tuple[str, str, float], accuracy: float):
    """A point, its arguments and a random bracket on a grid, with a record of a coarser or the same grid or none."""
    method, delta_accuracy, _ = kind
    point = (
        float(rng.uniform(0.5, 5)),
        float(10 ** rng.uniform(-4, -1)),
        float(rng.integers(10, 10**5)),
        1.0,
    )
    own = int(rng.integers(1, 6))
    if method == "epsilon":
        x = np.sort(10 ** rng.uniform(-10, -3, own))
    else:
        x = np.sort(rng.uniform(0.5, 10, own))
    if method == "delta" and delta_accuracy == "epsilon":
        x = with_offsets([x], accuracy)[0]
    size = x.size
    h = float(10 ** rng.uniform(-5, -2))
    if method == "epsilon":
        lo = rng.uniform(0, 5, size) * (rng.random(size) > 0.2)
        up = lo + np.where(rng.random(size) < 0.1, np.inf, 10 ** rng.uniform(-4, 0.5, size))
    else:
        # a falling curve in eps (some flat near one, some below the floor), its lower side a fraction of it: 0
        # (blind), near it (a certified chord), far below it (capped: no chord certifies a width), or at the ceiling
        top = 1 - 10 ** rng.uniform(-12, -5) if rng.random() < 0.3 else 10 ** rng.uniform(-12, -0.1)
        up = np.minimum(1.0, top * np.exp(-(x - x[:own].min()) * 10 ** rng.uniform(-3, 1)))
        share = [
            0.0,
            rng.uniform(0.5, 1.0),
            10 ** rng.uniform(-6, -1),
            1 - 10 ** rng.uniform(-10, -7),
        ][rng.integers(4)]
        lo = up * np.where(rng.random(size) < 0.2, rng.uniform(0.0, 1.0, size), share)
    gap = np.where(np.isfinite(up - lo), np.abs(up - lo), 1.0)
    fixed = gap * rng.uniform(0, 1.5, (2, size)) * (rng.random((2, size)) < 0.7)
    near = (rng.random(size) < 0.5) if rng.random() < 0.3 else None
    step = (h, lo, up, (fixed, near, bool(rng.random() < 0.3), bool(rng.random() < 0.05)))
    before = None
    if rng.random() < 0.7:
        h0 = h * (1.0 if rng.random() < 0.15 else rng.uniform(1.2, 8))
        lo0 = lo * rng.uniform(0.5, 1.0, size)
        up0 = up * rng.uniform(1.0, 2.0, size)
        width0 = bracket_width(
            delta_accuracy, cast(Quantity, method), x, lo0, up0, own, accuracy, kind[2]
        )
        before = (h0, lo0, up0, width0)
    fit = float(h * 10 ** rng.uniform(-3, 0.5)) if rng.random() < 0.3 else 0.0
    return point, x, own, fit, step, before


KINDS = [
    ("epsilon", "relative", 0.0),
    ("epsilon", "relative", 1e-3),
    ("delta", "relative", 0.0),
    ("delta", "epsilon", 0.0),
]


@pytest.mark.parametrize("kind", KINDS)
def test_one_step_is_the_numpy_rules_bit_for_bit(kind: tuple[str, str, float]) -> None:
    """Over random brackets, the core's step (intersection, width, next grid, give-up, complement-only) equals the
    numpy rules' bit for bit; every branch of the rules is reached (a grid asked, none, a give-up, a
    complement-only grid, a capped or offset-limited ask under the epsilon criterion)."""
    method, delta_accuracy, relative = kind
    accuracy = 1e-2
    rules = points_rules(accuracy, relative, method, delta_accuracy)  # type: ignore[arg-type]
    rng = np.random.default_rng(7)
    seen = {"asked": 0, "none": 0, "gave_up": 0, "complement": 0}
    for _ in range(1500):
        point, x, own, fit, step, before = random_step(rng, kind, accuracy)
        h, lo, up, (fixed, near, direct, stop) = step
        core = _core.pld_refine.points_step(
            rules=rules,
            point=point,
            x=x,
            own=own,
            coarsest_fit=fit,
            h=h,
            lower=lo,
            upper=up,
            fixed=fixed,
            near=near,
            direct=direct,
            stop=stop,
            before=before,
        )
        expected = reference_step(kind, point, x, own, fit, step, before, accuracy)
        for got, want in zip(core[:3], expected[:3]):
            np.testing.assert_array_equal(got, want)
        assert (core[3] is None) == (expected[3] is None)
        if core[3] is not None:
            grid = cast(float, expected[3])
            assert core[3] == grid or (math.isnan(core[3]) and math.isnan(grid))
        assert core[4:] == expected[4:]
        seen["asked" if core[3] is not None else "none"] += 1
        seen["gave_up"] += core[4]
        seen["complement"] += core[5]
    assert seen["asked"] > 50 and seen["none"] > 50
    if method == "delta":
        assert seen["complement"] > 0
    assert seen["gave_up"] > 0


BLOCKS = [
    # (sigma, q, rounds, method, delta_accuracy, relative accuracy)
    (1.2, 0.004, (1000, 18421), "delta", "epsilon", 0.0),
    (4.14, 1e-4, (1099, 7197), "delta", "epsilon", 0.0),
    (0.6, 0.02, (100, 5000), "delta", "epsilon", 0.0),
    (0.8, 0.05, (300, 2000), "delta", "relative", 0.0),
]


@pytest.mark.parametrize("sigma, q, rounds, method, delta_accuracy, relative", BLOCKS)
def test_whole_refinements_are_ordered_and_certified(
    sigma: float,
    q: float,
    rounds: tuple[int, ...],
    method: str,
    delta_accuracy: str,
    relative: float,
) -> None:
    """A block refined by the core's many-points loop (``accuracy=``, the refinement alone: ``default_reads``
    intersects it with more reads after), several points in one call: every bracket ordered, and overlapping the
    certified bracket of the fixed grid 1e-4 (both certified: a side that crossed the truth would show)."""
    from hockeystick import pld
    from hockeystick.pld.refine.near_one import NearOne
    from hockeystick.pld.refine.points import Refinement

    x = np.linspace(0.5, 10, 6)
    for t in rounds:
        point = (sigma, q, float(t), 1.0)
        acct = pld.SubsampledGaussianPLD(sigma, q, t, accuracy=1e-2, workers=1)
        refinement = Refinement(1e-2, delta_accuracy, acct.tail, NearOne(), relative)
        fixed_lo, fixed_up = pld.SubsampledGaussianPLD(
            sigma, q, t, value_discretization_interval=1e-4, workers=1
        ).delta(x, bound="both")
        for (lo, up), at in zip(refinement.refined([point, point], [x, x[:2]], "delta", 1), (6, 2)):
            assert np.all(lo <= up)
            assert np.all(np.maximum(lo, fixed_lo[:at]) <= np.minimum(up, fixed_up[:at]))


def test_the_direct_bins_rule_is_its_formula() -> None:
    """None at a least delta at or above DIRECT_FIRST_DELTA; below it min(kDirectMinCharge, share delta) rounded down
    to a power of ten (checked against the decade it must fall in)."""
    floor_charge = float(_core.pld_compose.direct_min_charge)
    for delta in np.logspace(-300, -2, 400):
        got = _core.pld_refine.direct_bins_charge(
            float(delta),
            first_delta=tuning.DIRECT_FIRST_DELTA,
            charge_share=tuning.DIRECT_CHARGE_SHARE,
            min_charge=floor_charge,
        )
        if delta >= tuning.DIRECT_FIRST_DELTA:
            assert got is None
            continue
        charge = min(floor_charge, tuning.DIRECT_CHARGE_SHARE * float(delta))
        assert got == 10.0 ** math.floor(math.log10(charge))
        assert got <= charge < 10.0 * got * (1 + 1e-12)


def test_rules_refuse_an_unknown_method_or_criterion() -> None:
    """A method other than epsilon or delta, or a delta criterion other than relative or epsilon, is refused by
    name."""
    with pytest.raises(ValueError, match="method"):
        points_rules(1e-2, 0.0, "gamma", "relative")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="delta_accuracy"):
        points_rules(1e-2, 0.0, "delta", "absolute")  # type: ignore[arg-type]
