"""One step's delta brackets from the composed PMFs in one core call (``_core.pld_refine.delta_step_sides``,
cpp/include/hockeystick/pld/refine/step_sides.hpp and pld/reads/lower_envelope.hpp): the same doubles as
the reads it assembles, each taken on its own through the package (the fixed parts
``_core.pld_reads.fixed_parts``, the bracket ``_core.pld_refine.delta_step_brackets``, the suffix
maxima ``GridPMF.lower_with_envelope``, numpy's maximum over the lower sides), on both routes of the
suffix maxima (probes near each argument; the whole pass from the least argument up), with a loss
shift and without a charge; a pessimistic lower side refused by name."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld import gaussian
from hockeystick.pld.grid import pmf_envelope
from hockeystick.pld.refine.dominated_direction import charged_sides
from hockeystick.pld.refine.grid_rules import points_rules
from hockeystick.pld.refine.points import with_offsets


def reference(rules, x, own, pess, ups, sides, before):
    """The package's reads one by one: (lower, upper, fixed part, add)."""
    pmfs = pess + [pmf for pmf, _ in sides]
    values = ups + [low for _, low in sides]
    parts = _core.pld_reads.fixed_parts(pmfs, [x] * len(pmfs), values)
    ((lower, upper, fixed, wide, add),) = _core.pld_refine.delta_step_brackets(
        rules=rules,
        xs=[x],
        own=[own],
        uppers=[ups],
        upper_parts=[parts[: len(pess)]],
        lowers=[[low for _, low in sides]],
        lower_parts=[parts[len(pess) :]],
        before=[before],
    )
    if wide.any():
        raised = [pmf.lower_with_envelope(x[wide], low[wide], 1) for pmf, low in sides]
        lower[wide] = np.maximum(lower[wide], np.max(raised, axis=0))
    return lower, upper, fixed, add


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
    """The core's bracket is the reference's, bit for bit; returns the reference's lower side."""
    rules = points_rules(accuracy, 0.0, "delta", kind)
    pess, ups, sides = point(x, directions, with_sides)
    want = reference(rules, x, own, pess, ups, sides, before)
    ((*got,),) = _core.pld_refine.delta_step_sides(
        rules=rules,
        xs=[x],
        own=[own],
        uppers=[pess],
        upper_values=[ups],
        lowers=[[pmf for pmf, _ in sides]],
        lower_values=[[low for _, low in sides]],
        before=[before],
    )
    for g, w in zip(got, want):
        if w is None:
            assert g is None
        else:
            assert np.array_equal(g, w, equal_nan=True) and g.tobytes() == w.tobytes()
    return want[0], sides


# many rounds on a fine grid, read by two tests (composed once)
SHARED: list = []


@pytest.fixture(autouse=True)
def shared_pmfs():
    if not SHARED:
        SHARED.append(composed(0.8, 400, 2e-3))


@pytest.fixture
def whole_passes(monkeypatch):
    """How many suffix maxima the reference read by the whole pass (``pmf_envelope.envelope_at``)."""
    calls = []
    original = pmf_envelope.envelope_at

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(pmf_envelope, "envelope_at", counted)
    return calls


@pytest.mark.parametrize("kind", ["relative", "epsilon"])
def test_probes_route(kind, whole_passes):
    # two directions on a fine grid, arguments in the body of the curve: short probe ranges
    x = np.linspace(0.2, 3.0, 7)
    x = with_offsets([x], 1e-2)[0] if kind == "epsilon" else x
    directions = [composed(1.0, 30, 1e-3), composed(1.3, 30, 1e-3)]
    lower, _ = check(kind, 1e-14, x, 7, directions)
    check(kind, 1e-14, x, 7, directions, before=(lower * 0.5, lower * 4 + 1e-6))
    # many rounds, a few arguments where delta is near 1: the charge falls faster than the curve
    lower, sides = check("relative", 1e-14, np.array([0.5, 10.0, 30.0]), 3, [SHARED[0]])
    assert not whole_passes
    assert np.all(lower > sides[0][1])  # the suffix maxima raised every argument


def test_whole_pass_route(whole_passes):
    # many rounds: the charge leaves the far tail's lower values 0, so the probes run long and the
    # whole pass is cheaper
    x = np.linspace(20.0, 45.0, 60)
    lower, sides = check("relative", 1e-14, x, 60, [SHARED[0]])
    assert whole_passes
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
