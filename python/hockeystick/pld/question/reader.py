"""``RunReader``: a described PLD's bracket at the question asked, the same for every door.

For a PLD whose factors describe their run (``described_run``), the bracket of its own composition
(on its grid, at its tail) is intersected with the run's read where the question puts it, each
certified:

* rounds of one Poisson-subsampled Gaussian: the front door's default (``SubsampledGaussianPLD``,
  given to the reader when it is installed: its grid, tail, tilted and split reads chosen from the
  delta or epsilon asked, ``default_reads``), so the PLD object, the ``PLDAccountant``, the ledger
  and ``DPSGD`` give one bracket for one run;
* rounds of several: the tilted composition of the factors (``question.tilted_factors`` for epsilon,
  ``question.tilted_factors_delta`` for delta), as the dp_accounting adapter reads a plan of them;
* rounds of Gaussians: the closed form, delta = theta(r, eps) at r = sqrt(sum_i c_i / s_i^2) (paper
  000 eq. 6; Dong, Roth & Su 2022, Cor. 3.3), r rounded outward and theta and its inverse rounded
  outward (``numerics.certified_theta``);
* any other composition of two or more rounds: its own factors composed under a tilt on its own
  grid, where its plain composition's charges matter (an epsilon: ``question.tilted_own_grid``; a
  delta: ``question.tilted_own_grid_delta``, under the tilts of a ladder fixed in advance).

The intersection of certified brackets is certified, and never wider than either: a finer grid or a
smaller tail given to the PLD can only narrow the answer.  Only the arguments a run's reads take are
read (epsilon >= 0 and finite for delta); the others keep the PLD's own bracket.

A question of the upper side alone asks the front door for that side alone where that is the upper
side of the front door's bracket, bit for bit: epsilon; a delta asks both sides (``_front_door``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from ...base.accountant import Bound, Quantity
from ...numerics.certified_theta import (
    theta_epsilon_lower,
    theta_epsilon_upper,
    theta_lower,
    theta_upper,
)
from ..grid.distribution import PrivacyLossDistribution
from .described_run import Segment, gaussian_rounds, subsampled_segments

UNIT_ROUNDOFF = 2.0**-53


class FrontDoor(Protocol):
    """The accountant of rounds of one Poisson-subsampled Gaussian whose default the reader gives
    (``SubsampledGaussianPLD``): built from the run, it answers ``epsilon`` and ``delta`` with
    ``bound="both"`` or ``bound="upper"``."""

    def __call__(self, sigma: float, sampling_rate: float, rounds: Any) -> Any:
        """The accountant of ``rounds`` rounds (an int or an array of them) of noise ``sigma``, rate ``sampling_rate``."""
        ...


class RunReader:
    """The question reader every ``PrivacyLossDistribution`` consults (module docstring).

    Parameters
    ----------
    front_door : FrontDoor
        The accountant whose default answers rounds of one Poisson-subsampled Gaussian
        (``SubsampledGaussianPLD``, which installs this reader: it sits above this stage).
    """

    def __init__(self, front_door: FrontDoor) -> None:
        self.front_door = front_door

    def reads(self, pld: PrivacyLossDistribution) -> bool:
        """Whether ``pld``'s factors describe rounds of Poisson-subsampled Gaussians or of Gaussians,
        or compose two or more rounds of any other kind (``question.tilted_own_grid``,
        ``question.tilted_own_grid_delta``).

        Parameters
        ----------
        pld : PrivacyLossDistribution
            A composed PLD.

        Returns
        -------
        bool
            True where ``described_run`` finds its run, or some direction composes two rounds.
        """
        if subsampled_segments(pld) is not None or gaussian_rounds(pld) is not None:
            return True
        from .tilted_own_grid import composed_rounds  # an undescribed composition only

        return composed_rounds(pld)

    def read_many(
        self,
        plds: Sequence[PrivacyLossDistribution],
        method: Quantity,
        xs: Sequence[np.ndarray],
        sides: Sequence[tuple[np.ndarray, np.ndarray]],
        bound: Bound = "both",
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each PLD's certified bracket intersected with its run's (module docstring); the runs of
        one kind of round asked at one scalar argument (the checkpoints of a curve along a run) are
        read together, as one ``SubsampledGaussianPLD`` over their rounds.

        Parameters
        ----------
        plds : sequence of PrivacyLossDistribution
            PLDs ``reads`` accepts.
        method : {"delta", "epsilon"}
            What is asked: delta at epsilon or epsilon at delta.
        xs : sequence of numpy.ndarray
            Each PLD's arguments, validated by the caller.
        sides : sequence of (numpy.ndarray, numpy.ndarray)
            Each PLD's certified (lower, upper) at its arguments (its own composition's), of its
            arguments' shape.
        bound : {"both", "upper", "lower"}, default "both"
            The sides the caller asked for: "upper" reads the front door's upper side alone where
            that is its bracket's upper side, bit for bit (``_front_door``), and then gives no
            lower side beyond ``sides``'; any other reads both.

        Returns
        -------
        list of (numpy.ndarray, numpy.ndarray)
            The certified brackets, each of its arguments' shape.
        """
        out: list[tuple[np.ndarray, np.ndarray]] = [
            (
                np.array(np.broadcast_to(lower, np.shape(x)), dtype=np.float64),
                np.array(np.broadcast_to(upper, np.shape(x)), dtype=np.float64),
            )
            for x, (lower, upper) in zip(xs, sides)
        ]
        together: dict[tuple[float, float, float], list[tuple[int, int]]] = {}
        for i, (pld, x) in enumerate(zip(plds, xs)):
            segments = subsampled_segments(pld)
            if (
                segments is not None
                and len(segments) == 1
                and np.ndim(x) == 0
                and _readable(method, x).all()
            ):
                (noise, q, _), rounds = segments[0]
                together.setdefault((noise, q, float(x)), []).append((i, rounds))
                continue
            found = _read_one(self.front_door, pld, method, np.asarray(x), *out[i], bound)
            out[i] = _intersected(out[i], found, method, np.asarray(x))
        for (noise, q, at), members in together.items():
            counts = np.array([count for _, count in members], dtype=np.float64)
            low, up = _front_door(
                self.front_door, noise, q, counts, method, np.full(counts.shape, at), bound
            )
            for j, (i, _) in enumerate(members):
                out[i] = _intersected(out[i], (low[j], up[j]), method, np.asarray(at))
        return out


def _readable(method: Quantity, x: np.ndarray) -> np.ndarray:
    """Where a run's reads take the argument: every delta in (0, 1), every finite epsilon >= 0."""
    return np.isfinite(x) & (x >= 0.0) if method == "delta" else np.ones(np.shape(x), dtype=bool)


def _intersected(
    given: tuple[np.ndarray, np.ndarray],
    found: tuple[np.ndarray, np.ndarray],
    method: Quantity,
    x: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``given`` intersected with ``found`` where the run's reads take the argument (``_readable``)."""
    live = _readable(method, x)
    lower = np.where(live, np.maximum(given[0], found[0]), given[0])
    upper = np.where(live, np.maximum(lower, np.minimum(given[1], found[1])), given[1])
    return lower, upper


def _read_one(
    front_door: FrontDoor,
    pld: PrivacyLossDistribution,
    method: Quantity,
    x: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    bound: Bound,
) -> tuple[np.ndarray, np.ndarray]:
    """The run's bracket at ``x`` (the PLD's own where the run's reads do not take the argument),
    on the sides ``bound`` asks for (``_front_door``)."""
    live = _readable(method, x)
    lows, ups = lower.copy(), upper.copy()
    if not np.any(live):
        return lows, ups
    segments = subsampled_segments(pld)
    gaussians = gaussian_rounds(pld) if segments is None else None
    if segments is not None:
        lows[live], ups[live] = segments_bracket(
            front_door, segments, method, x[live], lower[live], upper[live], bound
        )
    elif gaussians is not None:
        lows[live], ups[live] = _gaussian(gaussians, method, x[live])
    elif method == "epsilon":  # no run described: its own factors under a tilt (``reads``)
        from .tilted_own_grid import own_grid_brackets

        lows[live], ups[live] = own_grid_brackets(pld, x[live], lower[live], upper[live], bound)
    else:
        from .tilted_own_grid_delta import own_grid_deltas

        lows[live], ups[live] = own_grid_deltas(pld, x[live], lower[live], upper[live], bound)
    return lows, ups


def _front_door(
    front_door: FrontDoor,
    noise: float,
    q: float,
    rounds: np.ndarray | int,
    method: Quantity,
    x: np.ndarray,
    bound: Bound,
) -> tuple[np.ndarray, np.ndarray]:
    """The front door's default bracket of ``rounds`` rounds of one subsampled Gaussian at ``x``;
    ``bound`` "upper" of epsilon: its upper side alone, under a lower side of 0.

    An epsilon's upper side alone is its bracket's, bit for bit: the default reads epsilon's both
    sides whatever is asked, each step stopping on the bracket's width
    (``default_reads.each_epsilon_bracket``), and so does a refinement to an ``accuracy``.  A
    delta's is not: the default's fine and split reads skip a bracket the fixed grid's lower side
    already makes exact to ``question.EXACT_RELATIVE``, which the upper side alone does not know, so
    it reads them and may end lower (sigma 0.5, q 0.3, 5 rounds, eps 1: 0x1.81f8e5a5cf2f4p-2 alone
    against 0x1.81f8e5ab78d4bp-2 in the bracket); a delta asks both sides."""
    accountant = front_door(sigma=noise, sampling_rate=q, rounds=rounds)
    if method == "epsilon" and bound == "upper":
        up = np.asarray(accountant.epsilon(x, bound="upper"), dtype=np.float64)
        return np.zeros_like(up), up
    found = (
        accountant.epsilon(x, bound="both")
        if method == "epsilon"
        else accountant.delta(x, bound="both")
    )
    low, up = found
    return np.asarray(low, dtype=np.float64), np.asarray(up, dtype=np.float64)


def segments_bracket(
    front_door: FrontDoor,
    segments: list[Segment],
    method: Quantity,
    x: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    bound: Bound = "both",
) -> tuple[np.ndarray, np.ndarray]:
    """The bracket of rounds of Poisson-subsampled Gaussians at ``x`` (module docstring): every
    door's read of the run ``described_run.described_segments`` finds, a PLD's or a plan's.

    Parameters
    ----------
    front_door : FrontDoor
        The accountant whose default answers one kind of round.
    segments : list of ((noise, q, 1.0), rounds)
        The run, one segment per distinct mechanism (``described_run.described_segments``).
    method : {"delta", "epsilon"}
        What is asked.
    x : numpy.ndarray
        The arguments (epsilon >= 0 and finite, or delta in (0, 1)).
    lower, upper : numpy.ndarray
        A certified bracket at ``x`` (the composition's own), which several kinds of round narrow
        (the tilted composition of the factors); one kind of round is the front door's alone.
    bound : {"both", "upper", "lower"}, default "both"
        The sides the caller asked for: "upper" of one kind of round at epsilon reads the front
        door's upper side alone, under a lower side of 0 (``_front_door``).

    Returns
    -------
    tuple of numpy.ndarray
        The certified (lower, upper) at ``x``.
    """
    if len(segments) == 1:
        ((noise, q, _), rounds) = segments[0]
        return _front_door(front_door, noise, q, rounds, method, x, bound)
    # the tilted reads of several kinds of round load on a run of several: one kind reads the front door
    from . import tilted_factors, tilted_factors_delta

    if method == "epsilon":
        return tilted_factors.tilted_factors_brackets(segments, x, lower, upper)
    lows, ups = lower.copy(), upper.copy()
    for j in range(x.size):
        lows.flat[j], ups.flat[j] = tilted_factors_delta.tilted_factors_delta(
            segments, float(x.flat[j]), float(lows.flat[j]), float(ups.flat[j])
        )
    return lows, ups


def _gaussian(
    rounds: list[tuple[float, int]], method: Quantity, x: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The closed-form bracket of rounds of Gaussians at ``x``: r^2 = sum_i c_i / s_i^2 summed by
    ``math.fsum`` (each term within 2 u, the sum within u more), widened by (2 k + 4) u on each side
    before its root, each root stepped one ulp outward; theta and its inverse rounded outward there
    (``numerics.certified_theta``)."""
    r2 = math.fsum(count / (noise * noise) for noise, count in rounds)
    widen = (2 * len(rounds) + 4) * UNIT_ROUNDOFF
    r_low = math.nextafter(math.sqrt(r2 * (1.0 - widen)), 0.0)
    r_high = math.nextafter(math.sqrt(r2 * (1.0 + widen)), math.inf)
    if method == "epsilon":
        return np.asarray(theta_epsilon_lower(r_low, x), dtype=np.float64), np.asarray(
            theta_epsilon_upper(r_high, x), dtype=np.float64
        )
    return np.asarray(theta_lower(r_low, x), dtype=np.float64), np.asarray(
        theta_upper(r_high, x), dtype=np.float64
    )
