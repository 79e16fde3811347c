"""The Poisson-subsampled Gaussian's delta one neighbouring direction at a time, for calibrating sigma.

A run's delta is the larger of its two directions' (Zhu, Dong, Wang, AISTATS 2022, Sec. 5):
delta(eps) = max(delta_remove(eps), delta_add(eps)), so for ANY certified upper bounds
U_r >= delta_remove and U_a >= delta_add, max(U_r, U_a) is a certified upper bound on delta, and
U_r > target alone proves the target missed by every such bound.  ``calibrate`` (its
``_Directions``) uses that to compose the add direction far less often than once per trial sigma:

- a trial whose remove direction already misses the target needs no add direction at all;
- the add direction's delta falls as sigma grows: N(m, s1^2) is N(m, s0^2) plus independent N(0,
  s1^2 - s0^2) noise (s1 > s0), a Markov kernel applied to both members of the remove or the add
  pair (mixtures included) and to each of the T rounds, and the hockey-stick divergence does not
  grow under a Markov kernel (data processing).  So an upper bound U_a at sigma_s, from any grid,
  bounds delta_add at EVERY sigma >= sigma_s: one ``screen`` per target, composed on a grid
  ``COARSENING`` = 4 times coarser than the requested one (``dominated_direction.COARSENING``: 4
  times fewer cells and transform points), serves every later trial above sigma_s.

Nothing here assumes which direction is larger: where the add
direction leads, its screen misses the target and ``calibrate`` composes it on the requested grid at
every trial that needs it, as without screens.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import numpy as np

from ...base import validation as _validation
from ..compose.fft import DEFAULT_TAIL
from ..grid.distribution import upper_values
from ..mechanisms.constructors import (
    DEFAULT_INTERVAL,
    MAX_INTERVAL,
    checked_interval,
    subsampled_gaussians,
)
from .dominated_direction import COARSENING
from .question import plain_grid_misses

Direction = Literal["remove", "add"]

# what a split evaluation understands; any other parameter (accuracy=, a schedule) keeps calibrate's
# plain search
_KNOWN = frozenset(
    {"sampling_rate", "rounds", "sensitivity", "value_discretization_interval", "tail"}
)


class SubsampledGaussianDirections:
    """Per-direction certified upper deltas of T rounds of the Poisson-subsampled Gaussian on grid h.

    ``leading``: the remove direction on the requested grid; ``others``: the add direction, on the
    requested grid or (``screen=True``) on a ``COARSENING`` times coarser one.  Each is a certified
    upper bound on that direction's delta (the pessimistic connect-the-dots composition, Doroshenko
    et al. 2022), the numbers ``SubsampledGaussianPLD.delta`` maximises over both directions.
    """

    def __init__(self, h: float, tail: float) -> None:
        self.h, self.tail = h, tail

    def leading(
        self, params: Mapping[str, float | np.ndarray], epsilon: np.ndarray, threads: int
    ) -> np.ndarray:
        """The remove direction's certified upper delta at ``epsilon`` (one per point) on the requested grid."""
        return self._delta(params, epsilon, "remove", self.h, threads)

    def others(
        self,
        params: Mapping[str, float | np.ndarray],
        epsilon: np.ndarray,
        threads: int,
        screen: bool = False,
    ) -> np.ndarray:
        """The add direction's certified upper delta at ``epsilon``, on the requested grid or
        (``screen``) on one ``COARSENING`` times coarser (at most ``MAX_INTERVAL``)."""
        return self._delta(
            params,
            epsilon,
            "add",
            min(self.h * COARSENING, MAX_INTERVAL) if screen else self.h,
            threads,
        )

    def _delta(
        self,
        params: Mapping[str, float | np.ndarray],
        epsilon: np.ndarray,
        direction: Direction,
        h: float,
        threads: int,
    ) -> np.ndarray:
        n = np.size(epsilon)
        sigma, q, rounds, sensitivity = (
            np.broadcast_to(np.asarray(params.get(k, 1.0), dtype=float), (n,))
            for k in ("sigma", "sampling_rate", "rounds", "sensitivity")
        )
        dists = subsampled_gaussians(
            sigma,
            q,
            sensitivity=sensitivity,
            value_discretization_interval=h,
            tail=self.tail,
            threads=threads,
            optimistic=False,
            directions=direction,
        )
        composed = [d.self_compose(int(t)) for d, t in zip(dists, rounds)]
        eps = np.broadcast_to(np.asarray(epsilon, dtype=float), (n,))
        # the accountant's own reading of the upper side (distribution.upper_values: from the
        # spectra where few frequencies live), so that the maximum over directions is its delta bit
        # for bit
        return np.array(
            [v[0] for v in upper_values(composed, "delta", [e[None] for e in eps], threads or None)]
        )


def calibration_directions(
    parameter: str, params: Mapping[str, float | np.ndarray], delta: np.ndarray
) -> SubsampledGaussianDirections | None:
    """The split evaluation ``calibrate`` may use for ``parameter`` with the other parameters
    ``params`` and the target deltas ``delta`` (one block of targets), or None: only sigma, only on
    a grid the caller gave (the default's delta reads its upper side on a finer grid besides,
    ``refine.question.FINE_INTERVAL``, so the split would not be the accountant's delta), only where
    every sampling rate is below 1 (rate 1 is the plain Gaussian: one direction, in closed form),
    and only where the grid's composition answers at every target (``question.plain_grid_misses``):
    there a trial's delta on the grid at or above its target is the accountant's (which reads the
    default besides below that scale, ``default_reads.grid_sides``), and one below it is above the
    accountant's, so the split decides each trial as the accountant's delta does."""
    if (
        parameter != "sigma"
        or not set(params) <= _KNOWN
        or params.get("value_discretization_interval") is None
    ):
        return None
    if np.any(np.asarray(params.get("sampling_rate", 1.0), dtype=float) >= 1.0):
        return None
    # the accountant's own rule (rounds 2.5 is refused, never truncated); the other parameters are
    # checked by the discretization with the accountant's words
    _validation.positive_integer(params["rounds"], "rounds", maximum=_validation.MAX_EXACT_INTEGER)
    given = np.asarray(params.get("value_discretization_interval", DEFAULT_INTERVAL), dtype=float)
    tail = np.asarray(params.get("tail", DEFAULT_TAIL), dtype=float)
    if given.ndim != 0 or tail.ndim != 0:  # the accountant takes one grid and one tail
        return None
    h = checked_interval(float(given))
    q, rounds, target = np.broadcast_arrays(
        np.asarray(params.get("sampling_rate", 1.0), dtype=float),
        np.asarray(params["rounds"], dtype=float),
        np.asarray(delta, dtype=float),
    )
    for rate, count, at in zip(q.flat, rounds.flat, target.flat):
        if plain_grid_misses(float(rate), float(count), np.array(at), float(tail), h):
            return None
    return SubsampledGaussianDirections(h, float(tail))
