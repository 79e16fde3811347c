"""The suffix maxima of an optimistic grid PMF's charged lower curve (``GridPMF.delta``'s envelope).

The round-off charge falls as eps rises (fewer grid points above), so the charged lower curve may
rise while delta itself does not: a lower bound at any eps' >= eps also bounds delta(eps), and the
optimistic ``delta`` takes the largest one, at eps or at a grid point above it.  These are the
maxima over grid points l_j, j >= k, of the charged lower curve, each cached on the PMF at its first
use (in its ``__dict__``: ``_lower_envelope_top`` from the grid point ``top_index`` up,
``_envelope_table`` at every index).
"""

from __future__ import annotations

from typing import cast

import numpy as np

from .charged_grid import ChargedGrid


def envelope_top(pmf: ChargedGrid, threads: int) -> np.ndarray:
    """Entry k - ``top_index``: max over grid points l_j, j >= k >= ``top_index``, of the charged
    lower curve; built on ``threads`` threads at its first use, then cached."""
    top = pmf.__dict__.get("_lower_envelope_top")
    if top is None:
        top = np.maximum.accumulate(pmf.charged_lower(pmf.losses[pmf.top_index :], threads)[::-1])[
            ::-1
        ]
        pmf.__dict__["_lower_envelope_top"] = top
    return cast(np.ndarray, top)


def envelope_table(pmf: ChargedGrid) -> np.ndarray:
    """The same suffix maxima at every grid index k in [0, n] (0 at n), built in C++ with
    ``tabled_curve`` (the same numbers as ``envelope_top``'s from ``top_index`` up); cached."""
    table = pmf.__dict__.get("_envelope_table")
    if table is None:
        table = pmf.tabled_curve.envelope
        pmf.__dict__["_envelope_table"] = table
    return cast(np.ndarray, table)


def envelope_at(pmf: ChargedGrid, k: np.ndarray, threads: int = 0) -> np.ndarray:
    """Suffix maxima at grid indices k in [0, n] (0 at n), from the top part when it suffices and
    the full table is not built (``tabled_curve`` builds it on a charged optimistic PMF)."""
    built = "_envelope_table" in pmf.__dict__ or (
        "tabled_curve" in pmf.__dict__ and pmf.tabled_envelope
    )
    if not built and np.all(k >= pmf.top_index):
        return cast(np.ndarray, np.append(envelope_top(pmf, threads), 0.0)[k - pmf.top_index])
    return cast(np.ndarray, envelope_table(pmf)[k])


def envelope_near(pmf: ChargedGrid, k: np.ndarray, low: np.ndarray, threads: int = 0) -> np.ndarray:
    """max(low, charged lower value at every grid point j >= k), per query, visiting only the grid
    points that can raise it (flat arrays; the same value as the full suffix maxima up to the
    last bit of the curve's round-off, and a lower bound in any case).

    The charged lower value at l_j is at most the uncharged one, raw(l_j)(1 - slack) + shift,
    which falls as j grows; so once that is <= the best value found, no point from there up can
    do better.  Probes at k, k + 1, k + 3, k + 7, ... find such an m within a factor 2, and
    only [k, m) is evaluated: a few points where the charge is small beside the curve, more
    at a delta near the round-off.  When the ranges together exceed half the grid, the full
    pass (cached per PMF) is cheaper.  ``threads``: the C++ evaluations' (``delta``'s), so that a
    caller holding one thread per block does not start a team here.
    """
    n = pmf.p.size
    best = np.array(low, dtype=np.float64)
    offsets = (1 << np.arange(max(n, 1).bit_length() + 1)) - 1
    probe = np.minimum(k[:, None] + offsets[None, :], n)
    inside = probe < n
    ceiling = np.zeros(probe.shape)
    if inside.any():
        at = (pmf.k_lo + probe[inside]) * pmf.h
        raw = pmf.raw_delta(np.ascontiguousarray(at), threads)
        ceiling[inside] = raw * (1.0 - pmf.suffix_sum_slack()) + pmf.shift
    beyond = ~(inside & (ceiling > best[:, None]))  # the last probe (index n) always qualifies
    stop = probe[np.arange(k.size), np.argmax(beyond, axis=1)]
    length = stop - k
    if int(length.sum()) > n // 2:
        return cast(np.ndarray, np.maximum(best, envelope_at(pmf, k, threads)))
    if length.any():
        owner = np.repeat(np.arange(k.size), length)
        j = (
            np.arange(int(length.sum()))
            - np.repeat(np.cumsum(length) - length, length)
            + np.repeat(k, length)
        )
        values = pmf.charged_lower((pmf.k_lo + j) * pmf.h, threads)
        np.maximum.at(best, owner, values)
    return best
