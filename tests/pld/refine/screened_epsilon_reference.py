"""An epsilon refinement step's brackets of many points, the add direction screened on a coarse grid, its
inputs built by the package's own discretizations in Python (``screened_delta_reference``'s one-direction
rounds, discretized through ``round_cache`` at the tails ``truncation.tails`` sizes): the reference the core's
step read (cpp/include/hockeystick/pld/refine/subsampled_gaussian_step.hpp, ``_core.pld_refine.
subsampled_gaussian_step``, which discretizes in C++) is tested against, and the screen itself
(``_core.pld_refine.screened_epsilon_step``, screened_epsilon_step.hpp) against the two-direction PLD.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hockeystick import _core
from hockeystick.pld.compose import fft
from hockeystick.pld.grid import distribution
from hockeystick.pld.refine import dominated_direction

from . import screened_delta_reference

Point = tuple[float, float, float, float]  # sigma, sampling rate (< 1), rounds, sensitivity


def epsilon_brackets(
    points: Sequence[Point],
    hs: Sequence[float],
    deltas: Sequence[np.ndarray],
    tail: float,
    threads: int = 0,
    accuracy: float | None = None,
    direct_bins: bool = False,
    direct_min_charge: float | None = None,
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per point (sampling rate below 1) on its grid ``hs[i]``: the certified (lower, upper) epsilon
    at ``deltas[i]`` and a certified upper side of the add direction's epsilon there (the screen's
    where it cleared, else the add direction's on the grid), which a later read of the remove
    direction alone may use (``threads``: of the C++ discretization and the compositions, 0 all
    cores).

    Equal to the two-direction PLD's ``epsilon(delta, bound="both")`` on that grid (dominated_direction's
    module docstring) with truncations at ``tail``; given the ``accuracy`` the bracket is for, the remove
    direction's discretization and every composed window truncate at the tails ``truncation.tails``
    sizes to the deltas instead (coarser windows, the same certified bracket up to their charges,
    which stay within 0.05 accuracy x delta each), each point's own (not the least over the rounds
    values of its (sigma, q), as ``delta_sides`` shares them: a one-round tail sized to 10^5 rounds
    leaves 15 rounds wider at delta 1e-10, sigma 0.8, q 6.2e-4, h 4.5e-4: 0.0150 against 0.0087 with
    its own).  ``direct_bins`` and ``direct_min_charge``: as ``compose_all``'s, for every
    composition of the call (both sides, both directions): the FFT's round-off charge, T x ~5e-16 on
    the plain transform, is what leaves an epsilon at a small delta wide after many rounds, whatever
    the grid.
    """
    rounds_tails, windows = screened_delta_reference.tails(
        points, [float(np.min(d)) if d.size else 0.0 for d in deltas], tail, accuracy
    )
    removes = screened_delta_reference.one_round(
        points, hs, rounds_tails, "remove", True, threads=threads, windows=windows
    )
    screens = screened_delta_reference.one_round(
        points, hs, tail, "add", False, dominated_direction.COARSENING, threads, windows
    )

    def add_direction(rest: list[int]) -> list[tuple[list, list]]:
        return [
            screened_delta_reference.sides(add)
            for add in screened_delta_reference.fine_add_rounds(
                points, hs, rest, tail, threads, windows
            )
        ]

    found = _core.pld_refine.screened_epsilon_step(
        deltas=[np.asarray(d, dtype=np.float64).reshape(-1) for d in deltas],
        windows=windows,
        removes=[screened_delta_reference.sides(remove) for remove in removes],
        screens=[distribution._side_terms(screen.directions[0], True) for screen in screens],
        add_direction=add_direction,
        direct_bins=bool(direct_bins),
        direct_min_charge=float(
            _core.pld_compose.direct_min_charge if direct_min_charge is None else direct_min_charge
        ),
        workers=threads or None,
        max_points=fft.DEFAULT_MAX_POINTS,  # at call time, as compose_all's compositions read it
    )
    return [
        tuple(np.reshape(side, np.shape(d)) for side in sides)  # type: ignore[misc]
        for sides, d in zip(found, deltas)
    ]
