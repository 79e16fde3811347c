"""The lower side of the Poisson-subsampled Gaussian at a sampling rate below the grid: two resolutions.

While q < h, one round's loss bulk (spread about q sqrt(e^{1/s^2} - 1), s = sigma / sensitivity)
sits inside one or two cells of the grid h, and any lower PMF of one round on that grid loses nearly
all of it (the optimistic side, pld/grid/connect_dots.hpp, pins to 0 or pools over the bulk).  Here
the lower side of 2^j rounds is built as a block instead:

1. one round's optimistic PMF on the fine grid h_f = h / N (N = 2^m, the least with h_f <= q / 3;
   h = N h_f exactly, so every fine loss is a whole number of fine steps from a coarse point);
2. its 2^j-fold composition on that grid (``compose.compose_many``, the optimistic side, charged);
3. merged onto the grid h with each merged group's mean of Y = e^{-L} exactly on a grid point or
   rounded down in loss (``_core.pld_sampling.mean_contraction``,
   cpp/include/hockeystick/pld/sampling/mean_contraction.hpp, which lowers the PMF by its round-off
   and alias charges first).

Each step gives a lower side: (1) is Doroshenko, Ghazi, Kamath, Kumar, Manurangsi (PETS 2022)'s
optimistic side as pld/grid/connect_dots.hpp builds it; (2) composition keeps a dominated pair
dominated; (3) delta(eps) = E_P[(1 - e^eps Y)_+] is convex in each factor's Y, so a merge lowers
delta by conditional Jensen, and a loss rounded down lowers it since the integrand is non-decreasing
in the loss.  T rounds are then composed on the grid h from blocks by the binary digits of T
(``Factor.lower_terms``): block J = ``block_log2`` (T >> J times) and block j once for each digit j
< J, so exactly T rounds, and each block's merge costs the loss variance of one coarse cell's spread
(about h^2 / 12), against the block's own T_J q^2 (e^{1/s^2} - 1) >= ``BLOCK_CELLS`` h^2.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ... import _core
from ..grid.distribution import PrivacyLossDistribution
from ..grid.pmf import GridPMF
from ..mechanisms.constructors import subsampled_gaussians
from .fft import compose_many

FINE_PER_RATE = (
    1.0 / 3.0
)  # the fine grid is at most q / 3, so one round's loss bulk spans fine cells
BLOCK_CELLS = 200.0  # the top block's loss variance, in coarse cells squared
MAX_BLOCK_LOG2 = 12  # blocks of at most 4096 rounds
MAX_FINE_RATIO = 1 << 10
FINE_CELLS = (
    1 << 20
)  # the fine one-round PMF at most this many cells (its discretization is the cost)


def fine_ratio(sampling_rate: float, h: float) -> int:
    """N = 2^m, the least with h / N <= FINE_PER_RATE q (1 when q >= 3 h already)."""
    return 1 << max(0, math.ceil(math.log2(h / (FINE_PER_RATE * sampling_rate))))


def block_log2(sigma: float, sampling_rate: float, sensitivity: float, h: float) -> int | None:
    """J, the least with 2^J rounds of loss variance q^2 (e^{1/s^2} - 1) at least ``BLOCK_CELLS``
    h^2 (the small-q variance of one round, s = sigma / sensitivity), or None where no block up to
    2^MAX_BLOCK_LOG2 rounds reaches it, or the fine grid would be more than MAX_FINE_RATIO times
    finer."""
    s = sigma / sensitivity
    variance = sampling_rate**2 * math.expm1(min(1.0 / (s * s), 700.0))
    if not variance > 0.0 or fine_ratio(sampling_rate, h) > MAX_FINE_RATIO:
        return None
    j = max(0, math.ceil(math.log2(BLOCK_CELLS * h * h / variance)))
    return j if j <= MAX_BLOCK_LOG2 else None


def applies(sigma: float, sampling_rate: float, sensitivity: float, h: float, cells: int) -> bool:
    """Whether the two-resolution lower side is built for this point: q < h, a block reaches
    BLOCK_CELLS, and the fine grid's one-round PMF, about ``cells`` (the one-round PMF's cells on
    grid h) times N, fits ``FINE_CELLS``: small sigma reaches far in loss (sigma 0.3, q 3e-6, h
    1e-3: 2e7 fine cells), and there the one-round lower side is kept."""
    return (
        sampling_rate < h
        and block_log2(sigma, sampling_rate, sensitivity, h) is not None
        and cells * fine_ratio(sampling_rate, h) <= FINE_CELLS
    )


def merged(fine: GridPMF, ratio: int) -> GridPMF:
    """An optimistic fine PMF merged onto the grid ratio * fine.h
    (``_core.pld_sampling.mean_contraction``), its round-off (``entry_error``) and its window's
    alias charge (a negative ``shift``) taken off first."""
    if fine.pessimistic:
        raise ValueError(
            "merged: the fine PMF is pessimistic; it must be an optimistic (lower-side) PMF"
        )
    r = _core.pld_sampling.mean_contraction(
        np.ascontiguousarray(fine.p, dtype=np.float64),
        k_lo=fine.k_lo,
        h_fine=fine.h,
        ratio=int(ratio),
        p_inf=fine.p_inf,
        entry_error=fine.entry_error,
        alias=max(-fine.shift, 0.0),
    )
    # a mean of Y's each within a factor e^{+-s} of the truth is too: the fine PMF's loss shift s
    # carries over
    return GridPMF(
        int(r.k_lo),
        float(r.h),
        r.p,
        float(r.p_inf),
        0.0,
        False,
        loss_shift=fine.loss_shift,
    )


def block_lowers(
    sigma: float, sampling_rate: float, sensitivity: float, h: float, tail: float, threads: int = 0
) -> list[tuple[GridPMF, ...]]:
    """Per neighbouring direction (remove, add), the lower PMFs on grid h of 2^j rounds, j = 0 .. J
    (``block_log2``), built on the fine grid h / ``fine_ratio`` and merged (the module
    docstring)."""
    top = block_log2(sigma, sampling_rate, sensitivity, h)
    if top is None:
        raise ValueError(
            f"no two-resolution block reaches {BLOCK_CELLS} cells of h = {h} at sigma = {sigma}, "
            f"sampling_rate = {sampling_rate}: use the one-round lower side"
        )
    ratio = fine_ratio(sampling_rate, h)
    fine = subsampled_gaussians(
        np.array([sigma]),
        np.array([sampling_rate]),
        sensitivity=np.array([sensitivity]),
        value_discretization_interval=h / ratio,
        tail=tail,
        threads=threads,
    )[0]
    out = []
    for direction in fine.directions:
        (factor,) = direction
        assert factor.lower is not None  # built with optimistic=True
        composed = compose_many(
            [[(factor.lower, 1 << j)] for j in range(top + 1)],
            pessimistic=False,
            tail=tail,
            workers=threads or None,
        )
        out.append(tuple(merged(c, ratio) for c in composed))
    return out


def with_block_lowers(
    dist: PrivacyLossDistribution, blocks: list[tuple[GridPMF, ...]]
) -> PrivacyLossDistribution:
    """``dist`` (one round, one factor per direction) whose factors compose their lower side from ``blocks``."""
    directions = []
    for direction, lowers in zip(dist.directions, blocks):
        ((factor, count),) = direction.items()
        directions.append({dataclasses.replace(factor, lower_blocks=lowers): count})
    return PrivacyLossDistribution(directions, dist.tail)


__all__ = ["applies", "block_log2", "block_lowers", "fine_ratio", "merged", "with_block_lowers"]
