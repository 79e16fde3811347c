"""Memory of the PLD compositions: the process-wide gate on their buffers (pld/compose/working_memory_gate.hpp) and the
largest window ``accuracy=`` builds (``refine.constants.MAX_WINDOW``)."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick import _core
from hockeystick.pld.accountants.subsampled_gaussian import SubsampledGaussianPLD
from hockeystick.pld.compose import fft as pc
from hockeystick.pld.question import default_reads
from hockeystick.pld.refine import constants
from hockeystick.pld.refine.grid_start import loss_span


def _factor(sigma: float, q: float, h: float):
    return next(
        iter(pld.subsampled_gaussian(sigma, q, value_discretization_interval=h).directions[0])
    ).upper


def _admitted(run) -> int:
    _core.pld_compose.working_memory_high_water(reset=True)
    run()
    return int(_core.pld_compose.working_memory_high_water())


def test_threads_composing_at_once_stay_within_the_gate():
    """Two threads compose a ~10^6-point window each, released together.  With the limit at 0 the gate
    admits one batch at a time, so the most bytes admitted at once is the larger batch alone, not the sum
    (what two overlapping compositions hold without the gate: each takes ~0.1 s here)."""
    factors = [_factor(0.6, 0.05, 2e-4), _factor(0.7, 0.05, 2e-4)]

    def one(f):
        return lambda: pc.compose([(f, 20_000)], pessimistic=True, workers=1)

    alone = [_admitted(one(f)) for f in factors]
    assert min(alone) > 10_000_000  # large enough that the two would overlap
    previous = pc.working_memory_limit(0)
    try:
        start = threading.Barrier(2)
        results = [None, None]

        def worker(k):
            start.wait()
            results[k] = one(factors[k])()

        def both():
            threads = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()

        together = _admitted(both)
    finally:
        assert pc.working_memory_limit(previous) == 0
    assert together <= max(alone)
    # the gate changes when a batch runs, never what it computes
    for f, got in zip(factors, results):
        assert np.array_equal(got.p, one(f)().p)


def _held() -> int:
    """The bytes the gate counts as held now: with nothing in flight, its resident bytes (a reset high water)."""
    _core.pld_compose.working_memory_high_water(reset=True)
    return int(_core.pld_compose.working_memory_high_water())


def test_the_gate_counts_each_threads_band_cache():
    """A band from block moments leaves its thread's reuse cache (pld/compose/taylor_reuse.hpp) holding a copy of the
    masses, the block moments and the kept transforms; the gate counts exactly those bytes as resident while the
    thread lives (so its batches leave room for them), and none once the thread has ended."""
    p = _factor(0.7, 3e-3, 2e-3).p
    m, keep = 2**16, 40
    seen: dict[str, object] = {}

    def band() -> None:
        seen["before"] = _held()
        seen["plan"] = _core.pld_compose.taylor_bins(p, m=m, keep=keep)[1]
        seen["during"] = _held()

    worker = threading.Thread(target=band)
    worker.start()
    worker.join()
    block, _, terms, _ = seen["plan"]
    blocks = -(-p.size // block)
    cached = (
        p.nbytes  # the masses, the cache's key
        + np.dtype(np.longdouble).itemsize * blocks * terms  # each block's moments
        + np.dtype(np.clongdouble).itemsize * terms * keep  # the kept bins of the transforms
    )
    assert seen["during"] - seen["before"] == cached
    # released by the thread's own exit, which may finish just after join returns (Python's join waits for the
    # thread's Python part)
    deadline = time.monotonic() + 10.0
    while _held() != seen["before"] and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _held() == seen["before"]


def test_the_gate_limit_is_checked_and_restored():
    with pytest.raises(ValueError, match="limit must be >= 0"):
        pc.working_memory_limit(-1)
    with pytest.raises(TypeError):
        pc.working_memory_limit(1e9)  # bytes are an int, not silently rounded
    limit = pc.working_memory_limit()
    assert limit == 512 << 20
    assert pc.working_memory_limit(limit) == limit


def test_accuracy_builds_no_window_above_max_window(monkeypatch, visited_grids):
    """With MAX_WINDOW lowered below what W2's refinement reaches, no grid with loss_span / h above it is composed,
    and the coarser bracket still holds the uncapped one's (both are certified).  The refinement's compositions
    alone: the default's delta reads it is answered by or intersected with (``default_reads.accuracy_delta_brackets``)
    read their grids under caps of their own (``tilted_question.MAX_POINTS``)."""
    monkeypatch.setattr(
        default_reads,
        "accuracy_delta_brackets",
        lambda front, pts, xs, refine, *asked: refine(pts, xs),
    )
    point = dict(sigma=1.0, sampling_rate=0.01, rounds=10_000)
    eps = np.array([1.0, 3.0, 6.0])
    grids = visited_grids  # the grids a step discretizes its rounds on, and composes them on
    free_lo, free_up = SubsampledGaussianPLD(**point, accuracy=1e-4).delta(eps, bound="both")
    finest = min(grids)
    span = loss_span(1.0, 0.01, 10_000, 1.0)
    grids.clear()
    capped = SubsampledGaussianPLD(**point, accuracy=1e-4)
    monkeypatch.setattr(constants, "MAX_WINDOW", int(span / (3.0 * finest)))
    lo, up = capped.delta(eps, bound="both")
    assert grids and min(grids) >= span / constants.MAX_WINDOW > finest
    assert np.all((lo <= free_up) & (free_lo <= up) & (lo <= up))


def test_points_no_argument_asks_for_are_not_composed(monkeypatch):
    """The points are found among the parameters' own broadcast: an empty argument array asks for none of
    them, so nothing is discretized or composed and the result has the broadcast (empty) shape."""
    calls: list[float] = []
    for name in ("compose_many", "compose_upper_many", "compose_lower_many"):  # every composition
        binding = getattr(_core.pld_compose, name)
        monkeypatch.setattr(
            _core.pld_compose, name, lambda *a, _f=binding, **k: calls.append(k["h"]) or _f(*a, **k)
        )
    acc = SubsampledGaussianPLD(
        sigma=[1.0, 2.0],
        sampling_rate=0.01,
        rounds=[[10], [100]],
        value_discretization_interval=1e-3,
    )
    lo, up = acc.delta(np.empty((0, 1, 1)), bound="both")
    assert lo.shape == up.shape == (0, 2, 2) and not calls
    lo, up = acc.delta(np.array([[[1.0]], [[2.0]]]), bound="both")
    assert up.shape == (2, 2, 2) and calls and np.all((0 <= lo) & (lo <= up) & (up <= 1))
    assert np.all(up[1] <= up[0])  # delta falls with eps, point by point
