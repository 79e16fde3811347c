"""Single-round subsampled-Gaussian PLDs kept between calls, in bounded memory.

A calibration evaluates an accountant at many trial values and a sweep at many chunks; when only the
rounds change (rounds calibration, a chunk of rounds values), every trial needs the same one-round
discretization.  ``discretized`` returns it from here when some earlier call built it (least
recently used entries are dropped once the kept grids exceed ``MAX_POINTS`` masses, 64 MB), so
calibrating the rounds discretizes each (sigma, q) pair once, not once per trial (the default's
fixed grid reads them with the add direction's pessimistic side alone, ``lean_discretized``).  The
two-resolution lower blocks of a pair (``block_lowers``, ``two_resolution``: the costly part, a fine
grid per (sigma, q, h)) are kept the same way, in the same budget, and so are the one-direction
discretizations of an ``accuracy=`` refinement (``one_direction``: a step's batches of one (sigma, q)
and its next steps ask the same grid and tail again).  Entries are immutable
(``PrivacyLossDistribution.self_compose`` builds new objects around the same factors), and a
discretization depends on its key alone, so a kept one is the one a new call would build, bit for
bit.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

from ..compose import two_resolution
from ..grid.distribution import PrivacyLossDistribution
from ..grid.pmf import GridPMF
from ..mechanisms.constructors import Directions, subsampled_gaussians

MAX_POINTS = 1 << 23

_lock = threading.Lock()
# (sigma, q, sensitivity, h, tail, the optimistic side built, "blocks", or one direction and its
# sides: "remove optimistic", "add pessimistic", ...)
Key = tuple[float, float, float, float, float, bool | str]
_kept: OrderedDict[Key, PrivacyLossDistribution | list[tuple[GridPMF, ...]]] = OrderedDict()
_points = 0


def clear() -> None:
    """Drops every kept PLD (benchmarks time a cold call with it)."""
    global _points
    with _lock:
        _kept.clear()
        _points = 0


def held() -> tuple[int, int]:
    """The grid points the kept PLDs hold, counted as ``MAX_POINTS`` counts them, and how many PLDs are kept."""
    with _lock:
        return sum(_size(value) for value in _kept.values()), len(_kept)


def _size(dist: PrivacyLossDistribution | list[tuple[GridPMF, ...]]) -> int:
    if isinstance(dist, list):
        return sum(b.p.size for blocks in dist for b in blocks)
    return sum(
        f.upper.p.size + (0 if f.lower is None else f.lower.p.size)
        for d in dist.directions
        for f in d
    )


def _keep(key: Key, value: PrivacyLossDistribution | list[tuple[GridPMF, ...]]) -> None:
    """Keeps ``value`` under ``key`` (the caller holds ``_lock``), dropping the least recently used beyond MAX_POINTS."""
    global _points
    if key not in _kept:
        _kept[key] = value
        _points += _size(value)
    while _points > MAX_POINTS and len(_kept) > 1:
        _, old = _kept.popitem(last=False)
        _points -= _size(old)


def _kept_or_built(
    pairs: list[tuple[float, float, float]],
    kept_under: Callable[[tuple[float, float, float]], list[Key]],
    keep_under: Callable[[tuple[float, float, float]], Key],
    build: Callable[[np.ndarray, np.ndarray, np.ndarray], list[PrivacyLossDistribution]],
) -> list[PrivacyLossDistribution]:
    """Each pair's PLD: the first of its keys ``kept_under(pair)`` kept (made the most recently
    used), else built with the other missing pairs in one ``build(sigmas, qs, sensitivities)``
    call and kept under ``keep_under(pair)``; in the order of ``pairs`` (a pair listed twice gives
    the same object twice)."""
    found: dict[tuple[float, float, float], PrivacyLossDistribution] = {}
    with _lock:
        for pair in pairs:
            for key in kept_under(pair):
                if key in _kept:
                    _kept.move_to_end(key)
                    kept = _kept[key]
                    assert isinstance(kept, PrivacyLossDistribution)
                    found[pair] = kept
                    break
    missing = [p for p in dict.fromkeys(pairs) if p not in found]
    if missing:
        s, q, c = (np.array(v) for v in zip(*missing))
        with_built = build(s, q, c)
        with _lock:
            for pair, dist in zip(missing, with_built):
                found[pair] = dist
                _keep(keep_under(pair), dist)
    return [found[p] for p in pairs]


def discretized(
    pairs: list[tuple[float, float, float]],
    h: float,
    tail: float,
    optimistic: bool,
    threads: int = 0,
) -> list[PrivacyLossDistribution]:
    """One-round PLDs of the Poisson-subsampled Gaussian for each (sigma, q, sensitivity), on grid h.

    Those not kept are built in one C++ call (``mechanisms.subsampled_gaussians``, parallel over
    pairs on ``threads`` OpenMP threads, 0: all cores); an entry with both sides also serves a
    request for the pessimistic side only.
    """
    return _kept_or_built(
        pairs,
        lambda pair: [
            (*pair, h, tail, side) for side in ((True,) if optimistic else (False, True))
        ],
        lambda pair: (*pair, h, tail, optimistic),
        lambda s, q, c: subsampled_gaussians(
            s,
            q,
            sensitivity=c,
            value_discretization_interval=h,
            tail=tail,
            optimistic=optimistic,
            threads=threads,
        ),
    )


def lean_discretized(
    pairs: list[tuple[float, float, float]], h: float, tail: float, threads: int = 0
) -> list[PrivacyLossDistribution]:
    """One-round PLDs of the Poisson-subsampled Gaussian for each (sigma, q, sensitivity), q < 1, on
    grid h: the remove direction with both sides, the add direction with its pessimistic side alone
    (its optimistic side None, about half its discretization's work: the cells' halves,
    ``pld/grid/cells.hpp``), each direction as ``one_direction`` keeps it, so its PMFs are the
    doubles ``discretized`` builds; a pair whose full PLD (``discretized``, both sides) is kept gets
    that one.

    Parameters
    ----------
    pairs : list of tuple of float
        (sigma, sampling rate, sensitivity) per PLD, sampling rate in (0, 1).
    h : float
        The grid interval, > 0.
    tail : float
        The one-round discretization's tail, in (0, 1).
    threads : int, default 0
        OpenMP threads of the C++ calls (0: all cores).

    Returns
    -------
    list of PrivacyLossDistribution
        One per pair, in order, with the directions (remove, add).

    Raises
    ------
    ValueError
        As ``subsampled_gaussians`` refuses the parameters (naming them), or where a sampling rate
        is 1 (one symmetric direction: ``discretized``).
    """
    if any(not pair[1] < 1.0 for pair in pairs):
        raise ValueError("lean_discretized needs sampling rates below 1: the add direction's own")
    found: dict[tuple[float, float, float], PrivacyLossDistribution] = {}
    with _lock:
        for pair in pairs:
            key = (*pair, h, tail, True)
            if key in _kept:
                _kept.move_to_end(key)
                kept = _kept[key]
                assert isinstance(kept, PrivacyLossDistribution)
                found[pair] = kept
    missing = [p for p in dict.fromkeys(pairs) if p not in found]
    if missing:
        removes = one_direction(missing, h, tail, "remove", True, threads, subsampled_gaussians)
        adds = one_direction(missing, h, tail, "add", False, threads, subsampled_gaussians)
        for pair, remove, add in zip(missing, removes, adds):
            found[pair] = PrivacyLossDistribution(
                [dict(remove.directions[0]), dict(add.directions[0])], remove.tail
            )
    return [found[p] for p in pairs]


def block_lowers(
    pair: tuple[float, float, float], h: float, tail: float, threads: int = 0
) -> list[tuple[GridPMF, ...]]:
    """``two_resolution.block_lowers`` of (sigma, q, sensitivity) on grid h, kept like the one-round
    PLDs: every rounds value of a grid block, and every rounds trial of a calibration, reads the
    same blocks."""
    key = (*pair, h, tail, "blocks")
    with _lock:
        if key in _kept:
            _kept.move_to_end(key)
            kept = _kept[key]
            assert isinstance(kept, list)
            return kept
    built = two_resolution.block_lowers(pair[0], pair[1], pair[2], h, tail, threads)
    with _lock:
        _keep(key, built)
    return built


def one_direction(
    pairs: list[tuple[float, float, float]],
    h: float,
    tail: float,
    direction: Directions,
    optimistic: bool,
    threads: int = 0,
    build: Callable[..., list[PrivacyLossDistribution]] = subsampled_gaussians,
) -> list[PrivacyLossDistribution]:
    """One-round PLDs of one neighbouring ``direction`` ("remove", "add"; "both": both) of the
    Poisson-subsampled Gaussian for each (sigma, q, sensitivity), on grid h with one-round ``tail``,
    with the optimistic side or without: ``mechanisms.subsampled_gaussians(..., directions=direction,
    optimistic=optimistic)``, those not kept built in one C++ call (``threads`` as ``discretized``'s).

    Kept under their exact key, so that the calls of one (sigma, q) on one grid (``lean_discretized``'s
    of the fixed grid's reads) discretize it once: each discretization is a
    function of its key alone (the core's items are independent of their batch and threads), so a
    kept PLD has the same doubles as a new one.

    Parameters
    ----------
    pairs : list of tuple of float
        (sigma, sampling rate, sensitivity) per PLD, sampling rate in (0, 1].
    h : float
        The grid interval, > 0.
    tail : float
        The one-round discretization's tail, in (0, 1).
    direction : {"remove", "add", "both"}
        The neighbouring direction(s) discretized.
    optimistic : bool
        Whether the optimistic side is built too (else the PLDs give upper bounds only).
    threads : int, default 0
        OpenMP threads of the C++ call (0: all cores).
    build : callable, default ``mechanisms.subsampled_gaussians``
        What builds the PLDs not kept, called with ``subsampled_gaussians``' arguments (a caller
        passes the name it imported, so that a test recording that caller's discretizations sees
        the ones built).

    Returns
    -------
    list of PrivacyLossDistribution
        One per pair, in order (a pair listed twice gives the same object twice).

    Raises
    ------
    ValueError
        As ``subsampled_gaussians`` refuses the parameters (naming them).
    """
    side = f"{direction} {'optimistic' if optimistic else 'pessimistic'}"
    return _kept_or_built(
        pairs,
        lambda pair: [(*pair, h, tail, side)],
        lambda pair: (*pair, h, tail, side),
        lambda s, q, c: build(
            s,
            q,
            sensitivity=c,
            value_discretization_interval=h,
            tail=tail,
            optimistic=optimistic,
            directions=direction,
            threads=threads,
        ),
    )
