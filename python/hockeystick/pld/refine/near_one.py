"""Delta near 1: the lower side raised to the rounds' Renyi-affinity bound, and the bracket
intersected with the complement's (1 - delta bounded with relative accuracy), where the composed
PMFs' absolute gap is most of 1 - delta.  Both reads are the core's
(cpp/include/hockeystick/pld/reads/affinity_ceiling.hpp and complement.hpp, which the C library's
delta call reads too); this module keeps their tables per accountant."""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from ... import _core
from ..compose import fft
from ..reads.affinity_ceiling import delta_lower_near_one, subsampled_gaussian_log_affinity
from . import constants

# an evaluation point of SubsampledGaussianPLD: (sigma, sampling_rate, rounds, sensitivity)
Point = tuple[float, float, float, float]

# guards the kept complement factors, which the threads of one call share
_COMPLEMENT_LOCK = threading.Lock()


class NearOne:
    """An accountant's tables for delta near 1: one affinity table per (sigma, q, sensitivity), and
    the complement factors of the last ``COMPLEMENT_KEPT`` (sigma / sensitivity, q, h)."""

    def __init__(self) -> None:
        self.log_affinities: dict[tuple[float, float, float], np.ndarray] = {}
        self.complement_factors: OrderedDict[
            tuple[float, float, float], _core.pld_reads.ComplementFactors | None
        ] = OrderedDict()

    def raised(
        self, point: Point, eps: np.ndarray, lower: np.ndarray, upper: np.ndarray
    ) -> np.ndarray:
        """``lower`` (certified lower deltas of ``point`` = (sigma, q, rounds, sensitivity) at
        ``eps``) raised, where the upper side is above ``NEAR_ONE``, to the affinity bound 1 -
        min_lam e^{lam eps} A(lam)^T (``affinity_ceiling``: the composed lower side is charged the
        FFT's round-off, far above 1 - delta there; elsewhere the affinity bound is looser than the
        composition).  One affinity table per (sigma, q, sensitivity), kept (threads computing the
        same one write the same values)."""
        near = upper > constants.NEAR_ONE
        if not near.any():
            return lower
        sigma, q, rounds, sensitivity = point
        key = (sigma, q, sensitivity)
        if key not in self.log_affinities:
            self.log_affinities[key] = subsampled_gaussian_log_affinity(sigma / sensitivity, q)
        raised = np.array(lower, dtype=np.float64)
        raised[near] = np.maximum(
            raised[near], delta_lower_near_one(self.log_affinities[key], rounds, eps[near])
        )
        return raised

    def complement_brackets(
        self,
        points: list[Point],
        hs: list[float],
        xs: list[np.ndarray],
        brackets: list[tuple[np.ndarray, np.ndarray]],
        threads: int,
        adds: list[np.ndarray | None] | None = None,
    ) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[np.ndarray | None]]:
        """Each bracket (certified lower and upper deltas of ``points[i]`` = (sigma, q, rounds,
        sensitivity) at ``xs[i]`` on grid ``hs[i]``) intersected, where its upper side is above
        ``COMPLEMENT_ABOVE``, with the complement's (the core's ``complement_delta_brackets``,
        pld/reads/complement.hpp: 1 - delta bounded with relative accuracy, from a dominating PMF
        with masses taken from below and a test on the cells' labels; there the composed PMFs'
        relative errors per mass, T-fold, leave an absolute gap comparable to 1 - delta).  The lower side comes from the remove direction's
        test, the upper side from both directions, the add one's composed only where ``adds[i]``
        (its certified upper side from the composed PMFs, where known) is not already below the
        remove direction's. Points sharing (sigma / sensitivity, q, h) are composed together; a
        group whose factors or compositions cannot be built (ValueError: too many cells, a window
        above the cap) is left as it is. Also returns, per point, where the complement's bracket was
        taken (None: nowhere)."""
        above = constants.COMPLEMENT_ABOVE
        out = list(brackets)
        taken: list[np.ndarray | None] = [None] * len(brackets)
        given = adds if adds is not None else [None] * len(brackets)
        for key, members in groups_above(points, hs, brackets, above).items():
            factors = self.factors(key)
            if factors is None:
                continue
            near = [brackets[i][1] > above for i in members]
            try:
                known = [
                    None if (add := given[i]) is None else add[n] for i, n in zip(members, near)
                ]
                found = _core.pld_reads.complement_delta_brackets(
                    factors,
                    rounds=[int(points[i][2]) for i in members],
                    epsilon=[
                        np.ascontiguousarray(xs[i][n], dtype=np.float64)
                        for i, n in zip(members, near)
                    ],
                    others=known,
                    workers=threads or None,
                    max_points=fft.DEFAULT_MAX_POINTS,
                )
            except ValueError:
                continue
            for i, n, (lo, up) in zip(members, near, found):
                lower, upper = (np.array(side, dtype=np.float64) for side in brackets[i])
                lower[n] = np.maximum(lower[n], lo)
                upper[n] = np.minimum(upper[n], up)
                out[i] = (lower, upper)
                taken[i] = n
        return out, taken

    def factors(self, key: tuple[float, float, float]) -> _core.pld_reads.ComplementFactors | None:
        """Both directions' complement factors at key = (sigma / sensitivity, q, h) (the core's
        ``subsampled_gaussian_complement_factors``: the test's for the remove direction only), kept
        for the last ``COMPLEMENT_KEPT`` keys; None where they cannot be built."""
        with _COMPLEMENT_LOCK:
            found = key in self.complement_factors
            factors = self.complement_factors.get(key)
        if not found:
            s, q, h = key
            try:
                factors = _core.pld_reads.subsampled_gaussian_complement_factors(s, q, h)
            except ValueError:
                factors = None
            with _COMPLEMENT_LOCK:
                self.complement_factors[key] = factors
                while len(self.complement_factors) > constants.COMPLEMENT_KEPT:
                    self.complement_factors.popitem(last=False)
        return factors


def groups_above(
    points: list[Point],
    hs: list[float],
    brackets: list[tuple[np.ndarray, np.ndarray]],
    above: float,
) -> dict[tuple[float, float, float], list[int]]:
    """The brackets whose upper side is above ``above`` somewhere, on a grid the complement reads
    (``_core.pld_reads.complement_max_interval``), grouped by (sigma / sensitivity, q, h): the
    points that share complement factors."""
    groups: dict[tuple[float, float, float], list[int]] = {}
    for i, (point, h, (_, up)) in enumerate(zip(points, hs, brackets)):
        if h <= _core.pld_reads.complement_max_interval and np.any(up > above):
            groups.setdefault((point[0] / point[3], point[1], h), []).append(i)
    return groups
