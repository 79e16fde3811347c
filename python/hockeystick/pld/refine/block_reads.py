"""Many rounds of a small sampling rate read in blocks: each block of rounds composed on a grid fine
enough for one round's loss, moved onto a coarser grid, and the blocks composed there under a tilt.

Where q is far below the grid h, one round's loss (spread about q sqrt(e^{1/s^2} - 1), s = sigma /
sensitivity) sits inside a cell or two, and a one-round discretization on h inflates the loss
variance of T rounds by about T h E|l| (T q h), which at T q = 100 rounds of q = 1e-6 is far above
the composition's own T q^2 (e^{1/s^2} - 1): no grid within memory brackets epsilon to the default
tolerance.  Here, for each neighbouring direction:

1. one round's pessimistic and optimistic PMFs on the fine grid h_f (``grids``: the largest power of
   2 at most q / r, r of ``FINE_PER_RATE``; h = ``RATIO`` h_f), by the connect-the-dots
   discretization (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi, PETS 2022);
2. B rounds of each composed on that grid (the pessimistic ones under the run's tilt,
   ``tilted_block``, so that their round-off stays relative to the curve read; the optimistic ones
   by ``fft.compose_many``, charged), and the remaining T mod B rounds too;
3. the pessimistic blocks dilated onto h (``dilated``): each fine atom, raised by the composition's
   ``entry_error`` and moved up by its loss shift, split between the two grid points around it so
   that its P-mass and its Q-mass (P-mass times e^{-loss}) are kept.  A split is a dominating pair
   of the atom (its hockey-stick curve is the chord of the atom's convex curve in e^eps between the
   two points, equal outside), so the dilated block dominates the exact composition of the
   discretized rounds, and adding mass only raises every curve; the optimistic blocks merged onto h
   (``two_resolution.merged``: groups whose mean of e^{-L} lands on a grid point, a Jensen lower
   side, their charges taken off first);
4. T // B blocks and the remainder composed on h under the tilt that maximizes the Chernoff exponent
   at the epsilon of interest (``compose.tilted``), and read: upper epsilon on the pessimistic side,
   lower on the optimistic.

Each block's merge or split costs about h^2 / 4 of loss variance against the block's own B q^2
(e^{1/s^2} - 1) >= ``BLOCK_CELLS`` h^2, and the fine grid's inflation B h_f E|l| is ``RATIO`` times
smaller than h's.  The fine one-round PMF must fit ``FINE_CELLS`` cells: a small sigma reaches far
in loss (its sampled rounds' large losses), and there the blocks do not apply (``ValueError``; the
caller keeps its bracket).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..compose import tilted
from ..compose.fft import compose_many
from ..compose.two_resolution import merged
from ..grid.pmf import GridPMF
from . import question
from .directional_delta import Direction
from .points import tail_span
from .tilt_search import best_tilt
from .tilted_question import MAX_POINTS, WINDOW_TAIL, one_direction
from .tilted_question import exponent_tilt as one_exponent_tilt

UNIT_ROUNDOFF = 2.0**-53
# the fine grid is at most q / r, r the first of these whose fine one-round PMF fits FINE_CELLS: one
# round's loss bulk spans many fine cells (its discretization inflates a round's loss variance by
# about h_f E|l| ~ h_f q, against its own q^2 (e^{1/s^2} - 1)); sigma 2 takes 256, sigma 1 16, sigma
# 0.8 none (its sampled rounds reach ~4 in loss)
FINE_PER_RATE = (256.0, 64.0, 16.0)
# the coarse grid, RATIO fine cells: a block then spans about 20 sqrt(BLOCK_CELLS) RATIO fine cells
# (+-10 standard deviations), within FINE_CELLS
RATIO = 1024
# a block's loss variance, in coarse cells squared, at least this (the split or merge costs ~1/4 of
# a cell squared)
BLOCK_CELLS = 400.0
# the most cells of the fine one-round PMF by ``points.tail_span``'s estimate (the PMF itself may
# take up to four times that, a block's fine window ``MAX_POINTS``): the blocks' cost
FINE_CELLS = 1 << 20
# a tilted block's entries whose untilt factor passes e^MAX_UNTILT are moved up to the first kept
# (``tilted_block``)
MAX_UNTILT = 60.0
# the blocks are read for sampling rates up to this: above it a one-round grid already resolves a
# round's loss (their coarse grid, ~4 q, would be the coarser) and the one-round reads are the
# tighter and cheaper
MAX_RATE = 2e-4
# the most passes of the upper side, each under the exponent's tilt at the last one's answer
RETILTS = 3
# one factor of the run: (sigma, sampling rate, sensitivity) and its rounds
Segment = tuple[tuple[float, float, float], int]


def dilated(fine: GridPMF, ratio: int) -> GridPMF:
    """A pessimistic fine PMF (a composed block, its charges and loss shift included) split onto the
    grid ratio * fine.h (module docstring, step 3): a fresh pessimistic GridPMF without charges or
    loss shift, whose curve bounds the fine one's true curve from above at every eps.

    Raises
    ------
    ValueError
        If ``fine`` is optimistic, carries a shift, or its loss shift is negative or not finite.
    """
    if not fine.pessimistic or fine.shift != 0.0:
        raise ValueError(
            "dilated: the fine PMF must be pessimistic (an upper side) without a constant shift"
        )
    h_c = ratio * fine.h
    if not 0.0 <= fine.loss_shift < math.inf:
        raise ValueError(f"dilated: a loss shift must be finite and >= 0, got {fine.loss_shift!r}")
    # the loss shift s as whole fine cells (moving the indices, exactly) and a rest below one cell,
    # rounded up
    cells = math.floor(fine.loss_shift / fine.h)
    shift = max(0.0, fine.loss_shift - cells * fine.h) * (1.0 + 4.0 * UNIT_ROUNDOFF)
    if not shift < fine.h:
        cells, shift = cells + 1, 0.0
    # each entry raised by its round-off bound (the true mass is within entry_error of it)
    mass = np.maximum(fine.p, 0.0) + fine.entry_error
    k = fine.k_lo + cells + np.arange(fine.p.size, dtype=np.int64)
    m = np.floor_divide(k, ratio)  # the coarse point a = m h_c at or below the atom
    j = (k - m * ratio).astype(np.float64)
    t = (
        j * fine.h + shift
    )  # the atom's loss above a, in [0, h_c): exact index arithmetic, then one product and sum
    t = t * (
        1.0 + 2.0 * UNIT_ROUNDOFF
    )  # rounded up: the split moves mass to b as t grows, the true t at most this
    t = np.minimum(t, h_c)
    denominator = -math.expm1(-h_c)
    up = (
        1.0 + 32.0 * UNIT_ROUNDOFF
    )  # expm1, exp, the products and the quotient, each a few ulps, rounded up
    to_b = mass * (-np.expm1(-t)) / denominator * up
    to_a = mass * math.exp(-h_c) * np.expm1(np.maximum(h_c - t, 0.0)) / denominator * up
    lo = int(m[0])
    size = int(m[-1]) - lo + 2
    out = np.zeros(size)
    np.add.at(out, m - lo, to_a)
    np.add.at(out, m - lo + 1, to_b)
    out *= (
        1.0 + (fine.p.size + 4) * UNIT_ROUNDOFF
    )  # the sums of the split masses (nonnegative), rounded up
    p_inf = min(1.0, fine.p_inf * (1.0 + 4.0 * UNIT_ROUNDOFF))
    return GridPMF(lo, h_c, out, p_inf, 0.0, True)


def grids(point: tuple[float, float, float, float], tail: float) -> tuple[float, float]:
    """The fine grid h_f = 2^k, the largest at most q / r for the first r of ``FINE_PER_RATE`` whose
    one round's loss span at ``tail`` (``points.tail_span``) fits ``FINE_CELLS`` fine cells, and the
    coarse grid ``RATIO`` h_f.

    Raises
    ------
    ValueError
        Where no rate fits (a small sigma reaches far in loss).
    """
    span = tail_span(point, tail)
    for rate in FINE_PER_RATE:
        fine = 2.0 ** math.floor(math.log2(point[1] / rate))
        if span / fine <= FINE_CELLS:
            return fine, RATIO * fine
    raise ValueError(
        f"one round spans {span!r} in loss: more than {FINE_CELLS} cells of q / {FINE_PER_RATE[-1]}"
    )


def block_rounds(mechanism: tuple[float, float, float], h: float, rounds: int) -> int:
    """B = 2^J, the least with B q^2 (e^{1/s^2} - 1) >= ``BLOCK_CELLS`` h^2 (s = sigma /
    sensitivity), at most the rounds."""
    sigma, q, sensitivity = mechanism
    variance = q * q * math.expm1(min((sensitivity / sigma) ** 2, 700.0))
    if not variance > 0.0:
        raise ValueError("a round without loss variance: no block")
    j = max(0, math.ceil(math.log2(BLOCK_CELLS * h * h / variance)))
    return min(1 << j, rounds)


def tilted_block(pmf: GridPMF, count: int, lam: float, tail: float) -> GridPMF:
    """``count`` rounds of the pessimistic ``pmf`` composed under the tilt ``lam``
    (``compose.tilted``) and untilted entry by entry: each window entry raised by the window's
    ``entry_error``, times its untilt factor e^{log_scale - theta K} raised by its margin
    (``tilted.untilted_masses``), so that its round-off stays relative to the curve the blocks are read
    under (a plain composition's absolute round-off, ~4e-13 a fine cell over 10^6 rounds, would sit
    on the block's far tail, where its true mass is below 1e-20).  The entries whose untilt factor
    passes e^``MAX_UNTILT`` are dropped, and their mass with the mass below the window (at most the
    lower Chernoff bound min_lam exp(K(-lam) + lam x) at the first entry kept, x its loss) put on
    that entry; the mass above the window (``tilted.chernoff_above``) and the rounds' mass at
    +infinity at +infinity: moved up, each only raises the curve. Where the window passes
    ``MAX_POINTS`` it is cut at ``WINDOW_TAIL`` (its cut masses bounded the same way). A fresh
    pessimistic GridPMF on ``pmf``'s grid with the composition's loss shift."""
    theta = lam * pmf.h
    side = tilted.compose_tilted(
        [(pmf, count)],
        theta,
        pessimistic=True,
        tail=tail,
        max_points=MAX_POINTS,
        window_tail=WINDOW_TAIL,
    )
    w = side.window
    if w.shift != 0.0:
        raise ValueError("a pessimistic window with a constant shift")
    k = (w.k_lo + np.arange(w.p.size)).astype(np.float64)
    exponent = side.log_scale - theta * k
    keep = np.flatnonzero(exponent <= MAX_UNTILT)
    if keep.size == 0:
        raise ValueError("no entry of the tilted block untilts within e^MAX_UNTILT")
    first = int(keep[0])
    masses = tilted.untilted_masses(
        np.maximum(w.p[first:], 0.0) + w.entry_error,
        int(w.k_lo) + first,
        theta,
        side.log_scale,
        side.scale_magnitude,
        True,
    )
    bottom = (w.k_lo + first) * w.h
    lams = tilted.ABOVE_LAMBDAS / pmf.h
    with np.errstate(over="ignore", invalid="ignore"):
        lower_tail = count * pmf.log_mgf(-lams)
        below_exponent = (
            lower_tail
            + lams * bottom
            + 4.0 * UNIT_ROUNDOFF * (np.abs(lower_tail) + np.abs(lams * bottom))
        )
    below_exponent = np.where(np.isfinite(below_exponent), below_exponent, np.inf)
    best = float(np.min(below_exponent))
    below = (
        1.0 if not best < 0.0 else math.exp(best) * (1.0 + 16.0 * UNIT_ROUNDOFF * (abs(best) + 1.0))
    )
    masses[0] += below
    above = tilted.chernoff_above(*tilted.summed_moments([(pmf, count)]), (w.k_lo + w.p.size) * w.h)
    p_inf = min(1.0, (side.p_inf + above) * (1.0 + 4.0 * UNIT_ROUNDOFF))
    return GridPMF(w.k_lo + first, w.h, masses, p_inf, 0.0, True, loss_shift=w.loss_shift)


def block_terms(
    mechanism: tuple[float, float, float],
    rounds: int,
    direction: Direction,
    tail: float,
    near: float,
) -> tuple[float, list[tuple[GridPMF, int]], list[tuple[GridPMF, int]]]:
    """The coarse grid h (``grids``) and the pessimistic and the optimistic terms on it of
    ``rounds`` rounds of one direction in blocks (module docstring): [(block, T // B), (remainder,
    1)], the remainder left out where T is a multiple of B; the pessimistic blocks composed under
    the run's exponent tilt at ``near`` (``tilted_block``).  Where a block's window passes
    ``MAX_POINTS`` (many heavy-tailed rounds under a steep tilt: sigma 1, q 1e-6 at delta 1e-12),
    the coarse grid a quarter and the blocks 16 times shorter, twice at most.

    Raises
    ------
    ValueError
        Where the fine one-round PMF passes four times ``FINE_CELLS`` or a block's fine window
        ``MAX_POINTS``.
    """
    sigma, q, sensitivity = mechanism
    h_f, h = grids(
        (sigma, q, float(rounds), sensitivity), tail
    )  # checked before discretizing (seconds otherwise)
    one = one_direction(mechanism, direction, h_f, tail, True)
    if one.upper.p.size > 4 * FINE_CELLS or one.lower is None:
        raise ValueError(
            f"one round spans {one.upper.p.size} fine cells of {h_f!r}, more than {FINE_CELLS}"
        )
    lam = one_exponent_tilt(
        one.upper, rounds, near
    )  # the whole run's exponent tilt at near, from one round
    for ratio in (
        RATIO,
        RATIO // 4,
        RATIO // 16,
    ):  # a block's window past MAX_POINTS: blocks 16 times shorter
        h = ratio * h_f
        block = block_rounds(mechanism, h, rounds)
        count, rest = divmod(rounds, block)
        sizes = [block] + ([rest] if rest else [])
        try:
            ups = [tilted_block(one.upper, b, lam, tail) for b in sizes]
            lows = compose_many(
                [[(one.lower, b)] for b in sizes],
                pessimistic=False,
                tail=tail,
                max_points=MAX_POINTS,
            )
        except ValueError:
            if ratio == RATIO // 16:
                raise
            continue
        counts = [count] + ([1] if rest else [])
        return (
            h,
            [(dilated(u, ratio), c) for u, c in zip(ups, counts)],
            [(merged(lo, ratio), c) for lo, c in zip(lows, counts)],
        )
    raise AssertionError("unreachable")


def summed_exponent_tilt(terms: Sequence[tuple[GridPMF, int]], eps: float) -> float:
    """The lam maximizing lam eps - K(lam), K the terms' summed log-moment (``tilt_search.best_tilt``)."""

    def score(lams: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore"):
            k = np.sum([c * pmf.log_mgf(lams) for pmf, c in terms], axis=0)
        return np.asarray(lams * eps - k, dtype=np.float64)

    return best_tilt(score)


def direction_block_bracket(
    mechanism: tuple[float, float, float],
    rounds: int,
    direction: Direction,
    tail: float,
    delta: float,
    near: float,
) -> tuple[float, float]:
    """One direction's certified (lower, upper) epsilon at ``delta`` from its blocks
    (``block_terms``): the upper side under the exponent's tilt at ``near`` (an epsilon near the
    answer), then again at the upper side found while it falls (at most ``RETILTS`` passes: a tilt
    far from the answer reads loosely, sigma 2, q 1e-6, 10^8 rounds at delta 1e-12 from near 1e-9:
    0.0414, then 0.03185), the lower side under the tilt at the upper side."""
    h, ups, lows = block_terms(mechanism, rounds, direction, tail, near)
    up = math.inf
    for _ in range(
        RETILTS
    ):  # each pass under the exponent's tilt at the best upper side so far (first: ``near``)
        lam = summed_exponent_tilt(ups, near if not math.isfinite(up) else up)
        side = tilted.compose_tilted(
            ups, lam * h, pessimistic=True, max_points=MAX_POINTS, window_tail=WINDOW_TAIL
        )
        found = tilted.upper_epsilon(side, delta, min(up, side.top))
        if not found < up:
            break
        done = math.isfinite(up) and up - found <= 0.01 * question.default_tolerance(found)
        up = found
        if done:
            break
    if not (math.isfinite(up) and up > 0.0):
        return 0.0, up
    low_side = tilted.compose_tilted(
        lows, summed_exponent_tilt(lows, up) * h, pessimistic=False, max_points=MAX_POINTS
    )
    return tilted.lower_epsilon(low_side, delta, up), up


def block_bracket(
    segments: Sequence[Segment], delta: float, lower: float, upper: float, tail: float
) -> tuple[float, float]:
    """(``lower``, ``upper``) at ``delta`` intersected with the blocks' bracket of one segment
    (``direction_block_bracket``, the maximum over the directions on each side), read near the
    middle of the bracket given (or its lower side where the upper is not finite); as given for
    several segments, a sampling rate above ``MAX_RATE``, a lower side of 0 or where the blocks do
    not apply (their ValueError).

    Parameters
    ----------
    segments : sequence of ((sigma, sampling_rate, sensitivity), rounds)
        The run's factors (one).
    delta : float
        The delta asked, in (0, 1).
    lower, upper : float
        A certified bracket of epsilon at ``delta``.
    tail : float
        The tail of one round's discretization.

    Returns
    -------
    tuple of float
        The certified (lower, upper) bracket.
    """
    if len(segments) != 1 or not lower > 0.0:
        return lower, upper
    mechanism, rounds = segments[0]
    if not mechanism[1] <= MAX_RATE:
        return lower, upper
    near = 0.5 * (lower + upper) if math.isfinite(upper) else lower
    try:
        sides = [
            direction_block_bracket(mechanism, int(rounds), d, tail, delta, near)
            for d in ("remove", "add")
        ]
    except ValueError:
        return lower, upper
    lower, upper = max(lower, max(s[0] for s in sides)), min(upper, max(s[1] for s in sides))
    return lower, max(lower, upper)


__all__ = ["block_bracket", "block_terms", "dilated", "grids"]
