"""One step's delta brackets from the composed PMFs in one core call (``_core.pld_refine.delta_step_sides``,
cpp/include/hockeystick/pld/refine/step_sides.hpp and pld/reads/lower_envelope.hpp): the same doubles as the
bracket written with numpy (tests/pld/refine/step_reference.py: the fixed parts ``_core.pld_reads.fixed_parts``, the
suffix maxima by ``np.maximum.accumulate`` over each lower side's charged curve, numpy's maximum over the lower
sides), on both routes of the suffix maxima (probes near each argument; the whole pass from the least argument up),
with a loss shift and without a charge; a pessimistic lower side refused by name."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld import gaussian
from hockeystick.pld.grid import pmf_envelope
from hockeystick.pld.refine.grid_rules import points_rules
from hockeystick.pld.refine.points import with_offsets

from .screened_delta_reference import charged_sides
from .step_reference import step_sides


def whole_pass(pmf, x, low) -> bool:
    """Whether the core raises ``low`` (``pmf``'s charged lower values at ``x``) by the whole pass: the one route
    whose suffix maxima a PMF read through ``pmf_envelope.raised`` keeps."""
    fresh = dataclasses.replace(pmf)
    pmf_envelope.raised(fresh, x, low)
    return "_lower_suffix_maxima" in fresh.__dict__


def composed(sigma: float, count: int, h: float):
    """Both composed sides of ``count`` Gaussians of noise ``sigma`` on grid ``h``."""
    pld = gaussian(sigma, value_discretization_interval=h).self_compose(count)
    return pld.composed(True)[0], pld.composed(False)[0]


def point(x, directions, with_sides=True):
    """A point's reads at ``x``: each direction's pessimistic PMF and upper values, and its optimistic
    PMF with its charged lower values (``charged_sides``, as a refinement step reads them)."""
    pess = [up for up, _ in directions]
    ups = charged_sides(pess, [x] * len(pess), 1)
    lows = [low for _, low in directions] if with_sides else []
    return pess, ups, list(zip(lows, charged_sides(lows, [x] * len(lows), 1)))


def check(kind, accuracy, x, own, directions, before=None, with_sides=True):
    """The core's bracket is the numpy reference's, bit for bit; returns the reference's lower side, the sides and
    the routes of their suffix maxima where the bracket was wide (whole pass or not)."""
    rules = points_rules(accuracy, 0.0, "delta", kind)
    pess, ups, sides = point(x, directions, with_sides)
    opt, lows = [pmf for pmf, _ in sides], [low for _, low in sides]
    want, wide = step_sides(kind, accuracy, x, own, pess, ups, opt, lows, before)
    ((*got,),) = _core.pld_refine.delta_step_sides(
        rules=rules,
        xs=[x],
        own=[own],
        uppers=[pess],
        upper_values=[ups],
        lowers=[opt],
        lower_values=[lows],
        before=[before],
    )
    for g, w in zip(got, want):
        if w is None:
            assert g is None
        else:
            assert np.array_equal(g, w, equal_nan=True) and g.tobytes() == w.tobytes()
    routes = {whole_pass(pmf, x[wide], low[wide]) for pmf, low in sides} if wide.any() else set()
    return want[0], sides, routes


# many rounds on a fine grid, read by two tests (composed once)
SHARED: list = []


@pytest.fixture(autouse=True)
def shared_pmfs():
    if not SHARED:
        SHARED.append(composed(0.8, 400, 2e-3))


@pytest.mark.parametrize("kind", ["relative", "epsilon"])
def test_probes_route(kind):
    # two directions on a fine grid, arguments in the body of the curve: short probe ranges
    x = np.linspace(0.2, 3.0, 7)
    x = with_offsets([x], 1e-2)[0] if kind == "epsilon" else x
    directions = [composed(1.0, 30, 1e-3), composed(1.3, 30, 1e-3)]
    lower, _, routes = check(kind, 1e-14, x, 7, directions)
    assert routes == {False}
    _, _, routes = check(kind, 1e-14, x, 7, directions, before=(lower * 0.5, lower * 4 + 1e-6))
    assert routes <= {False}
    # many rounds, a few arguments where delta is near 1: the charge falls faster than the curve
    lower, sides, routes = check("relative", 1e-14, np.array([0.5, 10.0, 30.0]), 3, [SHARED[0]])
    assert routes == {False}
    assert np.all(lower > sides[0][1])  # the suffix maxima raised every argument


def test_whole_pass_route():
    # many rounds: the charge leaves the far tail's lower values 0, so the probes run long and the
    # whole pass is cheaper
    x = np.linspace(20.0, 45.0, 60)
    lower, sides, routes = check("relative", 1e-14, x, 60, [SHARED[0]])
    assert routes == {True}
    assert np.any(lower > sides[0][1])


def test_loss_shift_uncharged_and_no_lower_side():
    x = np.linspace(0.0, 4.0, 9)
    up, low = composed(1.0, 20, 2e-3)
    shifted = dataclasses.replace(low, loss_shift=3e-3)
    assert shifted.total_error > 0
    check("relative", 1e-14, x, 9, [(up, shifted), composed(1.5, 20, 2e-3)])
    one = gaussian(2.0, value_discretization_interval=1e-3)  # one round: nothing charged
    plain = (one.composed(True)[0], one.composed(False)[0])
    assert plain[1].total_error == 0.0
    check("relative", 1e-14, x, 9, [plain])
    check("relative", 1e-14, x, 9, [plain, (up, shifted)], with_sides=False)


def test_refuses_a_pessimistic_lower_side():
    x = np.linspace(0.5, 2.0, 4)
    up, _ = composed(1.0, 20, 2e-3)
    (value,) = charged_sides([up], [x], 1)
    with pytest.raises(ValueError, match="optimistic"):
        _core.pld_refine.delta_step_sides(
            rules=points_rules(1e-14, 0.0, "delta", "relative"),
            xs=[x],
            own=[4],
            uppers=[[up]],
            upper_values=[[value]],
            lowers=[[up]],
            lower_values=[[np.zeros(4)]],
            before=[None],
        )
