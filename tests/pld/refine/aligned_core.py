"""The tests' handles on the core's aligned cells (cpp/include/hockeystick/pld/refine/aligned_lower.hpp,
bound as ``_core.pld_refine.aligned_*``): one round's cells, its aligned PMF, the centring certificate,
the verified edges and the aligned lower epsilon, in the shapes the tests read them.  The package's
default reads the cells inside the core's reads alone; the proof is the header's opening comment."""

from __future__ import annotations

import math

import numpy as np

from hockeystick import _core
from hockeystick.pld.grid.pmf import GridPMF

CORE = _core.pld_refine
# the core's constants: the cells' means aligned up to u = q (e^z - 1) of ALIGNED_UP_TO, the P-tail
# dropped past the last cell, the unit round-off of the bounds
ALIGNED_UP_TO: float = CORE.aligned_up_to
TAIL: float = CORE.aligned_tail
MAX_ALIGNED_CELLS: int = CORE.aligned_max_cells
UNIT_ROUNDOFF = 2.0**-53
# the tilted window's tails tried where the one of 1e-3 delta passes the cap, and the least delta the read takes
CUT_TAILS: tuple[float, ...] = CORE.aligned_cut_tails
LEAST_DELTA: float = CORE.aligned_least_delta


class RareRound:
    """One round's remove direction at s = sigma / sensitivity and sampling rate q: its loss, the
    inverse of its loss and the core's cells (``AlignedRound``)."""

    def __init__(self, s: float, q: float):
        self.s, self.q = float(s), float(q)
        self.c = 1.0 / (2.0 * self.s * self.s)

    def loss(self, x: float) -> float:
        """l(x) = log(1 + q (e^z - 1)), z = (2 x - 1) / (2 s^2)."""
        return math.log1p(self.q * math.expm1((2.0 * x - 1.0) * self.c))

    def at_loss(self, loss: float) -> float:
        """The x whose loss is ``loss`` (> log(1 - q))."""
        return self.s * self.s * math.log1p(math.expm1(loss) / self.q) + 0.5

    def cell(self, a: float, b: float) -> tuple[float, float, float]:
        """(P_-(A), P_+(A), a lower bound on int_A l dP) for A = (a, b]."""
        lo, hi, integral = cells(self, np.array([a]), np.array([b]))
        return float(lo[0]), float(hi[0]), float(integral[0])


def cells(
    r: RareRound, lo: np.ndarray, hi: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cells (lo, hi]'s lower and upper P-masses and lower bounds on their loss integrals."""
    return CORE.aligned_cell(
        sigma=r.s,
        sampling_rate=r.q,
        lo=np.ascontiguousarray(lo, dtype=np.float64),
        hi=np.ascontiguousarray(hi, dtype=np.float64),
    )


def aligned_pmf(sigma: float, q: float, h: float, centred: bool = True) -> tuple[GridPMF, float]:
    """One round's aligned (optimistic) PMF on grid ``h`` and its offset b: atoms at b + k h."""
    k_lo, p, offset = CORE.aligned_pmf(sigma=sigma, sampling_rate=q, interval=h, centred=centred)
    return GridPMF(int(k_lo), h, np.array(p, dtype=np.float64), 0.0, pessimistic=False), float(
        offset
    )


def mean_at_least(r: RareRound, lo: np.ndarray, hi: np.ndarray, x: np.ndarray) -> np.ndarray:
    """True where the P-mean of the cells (lo, hi] is certified at least ``x`` (the centring
    certificate)."""
    found = CORE.aligned_mean_at_least(
        sigma=r.s,
        sampling_rate=r.q,
        lo=np.ascontiguousarray(lo, dtype=np.float64),
        hi=np.ascontiguousarray(hi, dtype=np.float64),
        x=np.ascontiguousarray(x, dtype=np.float64),
    )
    return np.asarray(found) > 0.5


def verified_edges(r: RareRound, ks: np.ndarray, offset: float, h: float) -> np.ndarray:
    """For each grid index k of ``ks``, an x whose loss is certified at least offset + k h."""
    k = np.ascontiguousarray(ks, dtype=np.float64)
    return np.asarray(
        CORE.aligned_verified_edges(
            sigma=r.s, sampling_rate=r.q, k=k, offset=float(offset), interval=float(h)
        )
    )


def aligned_lower_epsilon(
    sigma: float, q: float, rounds: int, delta: float, near: float, h: float, max_points: int
) -> float:
    """The core's certified lower epsilon at ``delta`` of the aligned cells on grid ``h``, searched
    below ``near`` (``aligned_read``); its ValueError past the caps."""
    lower, _, _ = CORE.aligned_read(
        sigma=sigma,
        sampling_rate=q,
        rounds=int(rounds),
        delta=delta,
        near=near,
        interval=h,
        max_points=max_points,
    )
    return float(lower)


def aligned_lower_delta(
    sigma: float,
    q: float,
    rounds: int,
    eps: np.ndarray,
    centre: float,
    level: float,
    h: float,
    max_points: int,
) -> tuple[np.ndarray, int]:
    """The core's certified lower deltas at each of ``eps`` of the aligned cells on grid ``h`` (one
    composition under the exponent's tilt at ``centre``, its tails sized for ``level``) and the
    points of the window read."""
    found, points = CORE.aligned_lower_delta(
        sigma=sigma,
        sampling_rate=q,
        rounds=int(rounds),
        eps=np.asarray(eps, dtype=np.float64),
        centre=centre,
        level=level,
        interval=h,
        max_points=max_points,
    )
    return np.asarray(found), int(points)
