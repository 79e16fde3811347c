"""A loss grid through the atoms of the Laplace-like grid mechanisms of a composition (``Mechanism.loss_atoms``).

Laplace has atoms at +-a = +-1/b (P-mass 1/2 and e^-a/2), a Laplace mixture (the Poisson-subsampled
Laplace) at L(x <= 0) and L(x >= max shift).  An atom between grid points is spread over its cell's
two ends, an error of order h per round, so k rounds narrow the bracket only like k h; on a grid
through the atoms (``pld.laplace`` and ``pld.from_distributions`` keep an atom at a grid point there
on both sides) only the density between them is discretized, whose error falls like h^2.  Every
bound stays certified on any grid; this only picks a better one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from ..mechanisms.mechanism import Mechanism

# An atom this close (in cells) below a grid point counts as on it: the round-off of loss * n /
# base, a few ulps of a number of cells, must not count as a whole cell above the grid.
ON_GRID_CELLS = 1e-9
# Up to this many (candidate n, atom) terms the candidates are scored in plain floats: below it the
# arrays' setup costs more than the sums (both give the same sums).
PLAIN_ALIGNMENT_TERMS = 64


def alignment_atoms(grid: Mapping[Mechanism, int]) -> tuple[float, list[tuple[int, float]]]:
    """The largest atom |loss| (``Mechanism.loss_atoms``) of the mechanism with atoms run the most
    rounds in ``grid`` (mechanism -> rounds; 0 if there is none), and (rounds, |loss|) of every
    other such atom: the grid ``aligned`` aims at."""
    atoms = [
        (count, losses)
        for count, losses in ((count, m.loss_atoms()) for m, count in grid.items())
        if losses
    ]
    if not atoms:
        return 0.0, []
    lead = max(range(len(atoms)), key=lambda i: atoms[i][0])
    base = max(atoms[lead][1])
    others = [
        (count, loss)
        for i, (count, losses) in enumerate(atoms)
        for loss in losses
        if not (i == lead and loss == base)
    ]
    return base, others


def aligned(h: float, base: float, others: list[tuple[int, float]]) -> float:
    """A grid h' in (0.7 h, h] through the atoms (``alignment_atoms``: ``base`` and ``others``).

    h' = base / n (``base`` exactly on the grid), n in the range chosen so that every other atom
    |loss| lies as little above a grid point as it can (in cells, weighted by rounds): the
    optimistic side moves such an atom down to the grid point below, an error of that fraction of a
    cell per round, where the pessimistic side's chords err only like h^2 either way.
    """
    if base == 0.0:
        return h
    if not base > h:
        return base if base >= 0.7 * h else h
    first = math.ceil(base / h * (1.0 - 1e-12))
    if not others:
        return _dividing(base, first)

    last = max(first, math.floor(base / (0.7 * h)))
    if (last - first + 1) * len(
        others
    ) <= PLAIN_ALIGNMENT_TERMS:  # plain floats, the same sums as below

        def cost(n: int) -> float:
            return sum(r * _above_grid(loss * n / base) for r, loss in others)

        return _dividing(base, min(range(first, last + 1), key=cost))
    # every candidate n at once: the other atoms' distances to the grid base / n, in cells, weighted
    # by rounds
    n = np.arange(first, last + 1, dtype=np.float64)
    rounds = np.array([r for r, _ in others], dtype=np.float64)
    cells = np.array([loss for _, loss in others])[:, None] * n[None, :] / base
    miss = (rounds[:, None] * np.maximum(cells - np.floor(cells + ON_GRID_CELLS), 0.0)).sum(axis=0)
    return _dividing(base, int(n[int(np.argmin(miss))]))


def _above_grid(cells: float) -> float:
    """How far (in cells) a point lies above the grid point below it (0 within ``ON_GRID_CELLS`` of one)."""
    return max(cells - math.floor(cells + ON_GRID_CELLS), 0.0)


def _dividing(base: float, n: int) -> float:
    """base / n, raised by ulps until base / h <= n in floating point: the grid builders place an
    atom at the top of their grid only when ceil(atom / h) is the atom's own index
    (``pld/grid/cells.hpp``, ``add_atom``); at base / h = n + 4e-15 the grid would gain a cell and
    the optimistic side would move the top atom a cell down every round."""
    h = base / n
    while base / h > n:
        h = math.nextafter(h, math.inf)
    return h
