"""Sampling schemes of records into rounds, and the law of one record's projected shift under each.

A record's participation pattern s (the set of rounds it enters) is random under these schemes; with
its gradient fixed to +1 in every round it enters, the matrix mechanism's output moves by C 1_s.
Projected on a direction u, the shift is u' C 1_s = sum_{j in s} a_j with a_j = u' C e_j, and its
law is what the one-dimensional lower side (``realizable_lower.py``) mixes over.  Each scheme gives
that law for per-round contributions a_j given as non-negative whole numbers of a lattice step
(``units``), so every total is exact (integer sums); ``most(units)`` is the largest total a pattern
reaches, the length of the arrays the dynamic programs carry.

The schemes, in jax_privacy's names (its ``batch_selection`` module):

* ``BallsInBinsSampling(b)``: each record is put in one of b bins uniformly at random, once, and bin
  t is processed in rounds t, t + b, t + 2b, ... (Choquette-Choo et al. 2024, arXiv:2410.06266, Def.
  3.1; jax_privacy ``BallsInBinsSampling(cycle_length=b)``): b patterns, each of probability 1/b.
* ``RandomAllocationSampling(k)``: each record takes part in k of the n rounds, chosen uniformly
  among the C(n, k) sets (Feldman & Shenfeld 2025; Dong, Chen & Ozgur 2025, "balanced iteration
  subsampling").
* ``BMinSepSampling(b, p)``: a record not taken in the last b - 1 rounds is taken with probability
  p, independently (Dong & Ganesh 2026, arXiv:2602.09338, Alg. 1; the warm start of their Alg. 2
  makes the record first available in round 0 with probability 1 / (1 + (b - 1) p) and otherwise in
  one of rounds 1..b-1 uniformly, as jax_privacy's ``BMinSepSampling(warm_start=True)`` does).
* ``CyclicPoissonSampling(b, q, group)``: records split into b groups by a rule that ignores the
  data; round i takes each record of group i mod b independently with probability q (Choquette-Choo
  et al. 2023b, Alg. 2); a record of ``group`` enters each of its rounds independently.

The probabilities are formed by sums and products of non-negative doubles; ``weight_error`` bounds
the L1 distance of the computed law from the exact one (Higham 2002, Lemma 3.1, one gamma per
operation along a probability's longest chain of operations).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..base.validation import count, flag, in_interval
from .round_off import gamma

__all__ = [
    "BallsInBinsSampling",
    "BMinSepSampling",
    "CyclicPoissonSampling",
    "PoissonSampling",
    "RandomAllocationSampling",
    "Sampling",
]

Law = tuple[
    np.ndarray, np.ndarray
]  # (totals in lattice units, int64; their probabilities), one per atom


def _shifted(law: np.ndarray, units: int) -> np.ndarray:
    """The law of total + units, on the same array (the array is long enough for every total reached)."""
    if units == 0:
        return law
    out = np.zeros_like(law)
    out[units:] = law[: law.size - units]
    return out


def _atoms(law: np.ndarray) -> Law:
    """The non-zero cells of a law carried as an array over totals 0..len-1."""
    where = np.flatnonzero(law > 0.0)
    return where.astype(np.int64), law[where]


def _checked_units(units: np.ndarray) -> np.ndarray:
    arr = np.asarray(units)
    if arr.ndim != 1 or arr.size == 0 or arr.dtype.kind not in "iu" or (arr < 0).any():
        raise ValueError(
            "units must be a non-empty 1-D array of non-negative whole numbers, one per round"
        )
    return arr.astype(np.int64)


class Sampling:
    """A sampling scheme of records into rounds: the law of a record's total over its pattern's rounds.

    Subclasses give ``law(units)``, ``most(units)`` and ``weight_error(rounds)``; ``few_patterns``
    says that the law is formed from its patterns one by one (no array over totals), so any lattice
    of whole numbers below 2^53 is cheap.
    """

    few_patterns = False

    def law(self, units: np.ndarray) -> Law:
        """The law of sum_{j in s} units[j] over the scheme's random pattern s.

        Parameters
        ----------
        units : numpy.ndarray
            One non-negative whole number per round (int dtype).

        Returns
        -------
        tuple of numpy.ndarray
            (totals, probabilities): the distinct totals (int64) and their probabilities (summing to
            1 up to ``weight_error``).

        Raises
        ------
        ValueError
            ``units`` not a non-empty 1-D array of non-negative whole numbers.
        """
        raise NotImplementedError

    def most(self, units: np.ndarray) -> int:
        """The largest total sum_{j in s} units[j] over the patterns s the scheme draws with positive probability."""
        raise NotImplementedError

    def weight_error(self, rounds: int) -> float:
        """A bound on the L1 distance between the computed law's probabilities and the exact ones."""
        raise NotImplementedError


@dataclass(frozen=True)
class BallsInBinsSampling(Sampling):
    """Balls-in-bins: one bin t of b uniformly at random per record, taken in rounds t, t + b, t + 2b, ...

    Choquette-Choo et al. 2024 (arXiv:2410.06266), Definition 3.1; jax_privacy's
    ``BallsInBinsSampling(cycle_length=b)``. A bin t >= n (when b > n) is never processed: its
    records take part in no round.

    Parameters
    ----------
    cycle_length : int
        b, the number of bins (rounds per epoch), a whole number >= 1.

    Raises
    ------
    ValueError
        ``cycle_length`` not a whole number >= 1.

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.matrix import BallsInBinsSampling
    >>> totals, weights = BallsInBinsSampling(2).law(np.array([3, 1, 3, 1]))
    >>> totals.tolist(), weights.tolist()
    ([2, 6], [0.5, 0.5])
    """

    cycle_length: int
    few_patterns = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "cycle_length", count(self.cycle_length, "cycle_length"))

    def _totals(self, units: np.ndarray) -> np.ndarray:
        b = self.cycle_length
        return np.array(
            [int(units[t::b].sum()) if t < units.size else 0 for t in range(b)], dtype=np.int64
        )

    def law(self, units: np.ndarray) -> Law:
        totals, counts = np.unique(self._totals(_checked_units(units)), return_counts=True)
        return totals, counts / self.cycle_length

    def most(self, units: np.ndarray) -> int:
        return int(self._totals(_checked_units(units)).max())

    def weight_error(self, rounds: int) -> float:
        return gamma(2)  # each probability is one quotient count / b


@dataclass(frozen=True)
class RandomAllocationSampling(Sampling):
    """Random allocation: each record takes part in k of the n rounds, the k-set uniform among all C(n, k).

    Feldman & Shenfeld 2025 (arXiv:2502.08202), k-out-of-t allocation; jax_privacy's
    ``RandomAllocationSampling``. Rounds are walked in order: with r of the record's rounds left to
    place among the m rounds left, the round is one of them with probability r / m (the uniform
    k-set).

    Parameters
    ----------
    participations : int
        k, the rounds per record, a whole number >= 1 (at most the number of rounds when the law is
        taken).

    Raises
    ------
    ValueError
        ``participations`` not a whole number >= 1; in ``law``, more participations than rounds.

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.matrix import RandomAllocationSampling
    >>> totals, weights = RandomAllocationSampling(2).law(np.array([1, 2, 4]))
    >>> totals.tolist(), [round(float(w), 12) for w in weights]
    ([3, 5, 6], [0.333333333333, 0.333333333333, 0.333333333333])
    """

    participations: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "participations", count(self.participations, "participations"))

    def _fits(self, rounds: int) -> int:
        k = self.participations
        if k > rounds:
            raise ValueError(
                f"participations must be at most the number of rounds {rounds}, got {k}: a record cannot take "
                "part in more rounds than there are"
            )
        return k

    def law(self, units: np.ndarray) -> Law:
        u = _checked_units(units)
        n, k = u.size, self._fits(u.size)
        size = self.most(u) + 1
        # by_left[r]: the law of the total so far with r of the record's rounds still to place
        by_left = np.zeros((k + 1, size))
        by_left[k, 0] = 1.0
        for j in range(n):
            left_rounds = n - j
            moved = np.zeros_like(by_left)
            for r in range(1, k + 1):
                chosen = by_left[r] * (r / left_rounds)
                moved[r - 1] += _shifted(chosen, int(u[j]))
                moved[r] += by_left[r] - chosen
            moved[0] += by_left[0]
            by_left = moved
        return _atoms(by_left[0])

    def most(self, units: np.ndarray) -> int:
        u = _checked_units(units)
        return int(np.sort(u)[::-1][: self._fits(u.size)].sum())

    def weight_error(self, rounds: int) -> float:
        return gamma(4 * rounds + 4)  # per round: a quotient, a product, a difference and a sum


@dataclass(frozen=True)
class BMinSepSampling(Sampling):
    """b-min-sep sampling: a record not taken in its last b - 1 rounds is taken with probability p.

    Dong & Ganesh 2026 (arXiv:2602.09338), Algorithm 1, and with ``warm_start`` their Algorithm 2
    (first available in round 0 with probability 1 / (1 + (b - 1) p), otherwise in one of rounds
    1..b-1 uniformly); jax_privacy's ``BMinSepSampling``. The law of a record's total from round i
    on, when available there, is D_i = (1 - p) D_{i+1} + p (units_i + D_{i+b}), D_i = the point mass
    at 0 for i >= n.

    Parameters
    ----------
    min_sep : int
        b, a whole number >= 1.
    sampling_prob : float
        p in (0, 1].
    warm_start : bool, default True
        Whether the first available round is drawn as in Algorithm 2 (True) or is round 0 (False).

    Raises
    ------
    ValueError
        ``min_sep`` not a whole number >= 1; ``sampling_prob`` outside (0, 1].
    ParameterTypeError
        ``warm_start`` not a bool.

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.matrix import BMinSepSampling
    >>> totals, weights = BMinSepSampling(2, 0.5, warm_start=False).law(np.array([1, 1, 1]))
    >>> totals.tolist(), weights.tolist()
    ([0, 1, 2], [0.125, 0.625, 0.25])
    """

    min_sep: int
    sampling_prob: float
    warm_start: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "min_sep", count(self.min_sep, "min_sep"))
        p = in_interval(
            self.sampling_prob, "sampling_prob", 0.0, 1.0, open_low=True, open_high=False
        )
        object.__setattr__(self, "sampling_prob", float(p))
        object.__setattr__(self, "warm_start", flag(self.warm_start, "warm_start"))

    def _starts(self, rounds: int) -> list[tuple[int, float]]:
        """(first available round, its probability)."""
        b, p = self.min_sep, self.sampling_prob
        if not self.warm_start or b == 1:
            return [(0, 1.0)]
        norm = 1.0 + (b - 1) * p
        return [(0, 1.0 / norm)] + [(i, p / norm) for i in range(1, b)]

    def law(self, units: np.ndarray) -> Law:
        u = _checked_units(units)
        n, b, p = u.size, self.min_sep, self.sampling_prob
        size = self.most(u) + 1
        point = np.zeros(size)
        point[0] = 1.0
        laws = [point] * (n + b + 1)  # laws[i] = D_i
        for i in range(n - 1, -1, -1):
            laws[i] = (1.0 - p) * laws[i + 1] + p * _shifted(laws[i + b], int(u[i]))
        total = sum((w * laws[min(i, n)] for i, w in self._starts(n)), np.zeros(size))
        return _atoms(total)

    def most(self, units: np.ndarray) -> int:
        u = _checked_units(units)
        n, b = u.size, self.min_sep
        best = [0] * (n + b + 1)  # best[i]: the largest total from round i on, available there
        for i in range(n - 1, -1, -1):
            best[i] = (
                max(best[i + 1], int(u[i]) + best[i + b])
                if self.sampling_prob < 1.0
                else int(u[i]) + best[i + b]
            )
        return max(best[min(i, n)] for i, _ in self._starts(n))

    def weight_error(self, rounds: int) -> float:
        return gamma(
            3 * rounds + 3 * self.min_sep + 6
        )  # per round two products and a sum; the start's mix


@dataclass(frozen=True)
class CyclicPoissonSampling(Sampling):
    """Cyclic Poisson sampling: round i takes each record of group i mod b independently with probability q.

    Choquette-Choo et al. 2023b (arXiv:2306.08153), Algorithm 2; jax_privacy's
    ``CyclicPoissonSampling(cycle_length=b)``. The groups are fixed by a rule that ignores the data,
    so a record's group is given (``group``), and it enters each of its rounds group, group + b, ...
    independently.

    Parameters
    ----------
    cycle_length : int
        b, the number of groups, a whole number >= 1.
    sampling_prob : float
        q in (0, 1].
    group : int, default 0
        The record's group, a whole number in [0, b).

    Raises
    ------
    ValueError
        ``cycle_length`` not a whole number >= 1; ``sampling_prob`` outside (0, 1]; ``group``
        outside [0, b).

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.matrix import CyclicPoissonSampling
    >>> totals, weights = CyclicPoissonSampling(2, 0.5).law(np.array([1, 5, 2, 5]))
    >>> totals.tolist(), weights.tolist()
    ([0, 1, 2, 3], [0.25, 0.25, 0.25, 0.25])
    """

    cycle_length: int
    sampling_prob: float
    group: int = 0

    def __post_init__(self) -> None:
        b = count(self.cycle_length, "cycle_length")
        object.__setattr__(self, "cycle_length", b)
        q = in_interval(
            self.sampling_prob, "sampling_prob", 0.0, 1.0, open_low=True, open_high=False
        )
        object.__setattr__(self, "sampling_prob", float(q))
        group = count(self.group, "group", minimum=0)
        if group >= b:
            raise ValueError(f"group must be in [0, cycle_length) = [0, {b}), got {group}")
        object.__setattr__(self, "group", group)

    def law(self, units: np.ndarray) -> Law:
        u = _checked_units(units)
        q = self.sampling_prob
        law = np.zeros(self.most(u) + 1)
        law[0] = 1.0
        for j in range(self.group, u.size, self.cycle_length):
            law = (1.0 - q) * law + q * _shifted(law, int(u[j]))
        return _atoms(law)

    def most(self, units: np.ndarray) -> int:
        return int(_checked_units(units)[self.group :: self.cycle_length].sum())

    def weight_error(self, rounds: int) -> float:
        return gamma(3 * rounds + 3)  # per round two products and a sum


@dataclass(frozen=True)
class PoissonSampling(Sampling):
    """Poisson sampling: every round takes each record independently with probability q.

    DP-SGD's sampling (``CyclicPoissonSampling`` with one group), the law truncated where its upper
    tail is below ``tail``.

    A record's total over n rounds can reach sum_j units_j, but above a Chernoff bound it has
    probability at most ``tail``: log P(sum_j units_j S_j > t) <= -lam t + sum_j log(1 - q + q
    e^(lam units_j)) for every lam > 0. ``most`` is the least such t over a grid of lam (rounded
    up), and ``law`` drops the patterns above it (the totals only grow round by round, so the
    recursion's array stops there): the computed law is within ``tail`` of the exact one in L1, plus
    the round-off of ``CyclicPoissonSampling``'s recursion, and ``weight_error`` says so.  The
    array, and the lattice ``RealizableLowerSide`` fits to it, scale with a high quantile of the
    total instead of its largest value.

    Parameters
    ----------
    sampling_prob : float
        q in (0, 1].
    tail : float, default 1e-30
        The probability left out above the truncation, in [1e-300, 1e-3].

    Raises
    ------
    ValueError
        ``sampling_prob`` outside (0, 1]; ``tail`` outside [1e-300, 1e-3].

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.matrix import PoissonSampling
    >>> totals, weights = PoissonSampling(0.5).law(np.array([1, 2]))
    >>> totals.tolist(), weights.tolist()
    ([0, 1, 2, 3], [0.25, 0.25, 0.25, 0.25])
    """

    sampling_prob: float
    tail: float = 1e-30

    def __post_init__(self) -> None:
        q = in_interval(
            self.sampling_prob, "sampling_prob", 0.0, 1.0, open_low=True, open_high=False
        )
        object.__setattr__(self, "sampling_prob", float(q))
        t = in_interval(self.tail, "tail", 1e-300, 1e-3, open_low=False, open_high=False)
        object.__setattr__(self, "tail", float(t))

    def law(self, units: np.ndarray) -> Law:
        u = _checked_units(units)
        q = self.sampling_prob
        cap = self.most(u)
        law = np.zeros(cap + 1)
        law[0] = 1.0
        for step in u.tolist():
            law = (1.0 - q) * law + q * _shifted(law, min(int(step), cap + 1))
        return _atoms(law)

    def most(self, units: np.ndarray) -> int:
        u = _checked_units(units).astype(np.float64)
        whole = int(u.sum())
        top = float(u.max())
        if top == 0.0 or self.sampling_prob == 1.0:
            return whole
        q = self.sampling_prob
        log_inv = -np.log(self.tail)
        best = float(whole)
        for lam in 2.0 ** np.arange(-12.0, 8.01, 0.25) / top:
            with np.errstate(over="ignore"):
                log_mgf = float(np.log1p(q * np.expm1(lam * u)).sum())
            best = min(best, (log_mgf + log_inv) / lam * (1.0 + 1e-9))
        return min(whole, int(np.ceil(best)))

    def weight_error(self, rounds: int) -> float:
        return (
            gamma(3 * rounds + 3) + self.tail
        )  # the recursion's round-off, and the mass left out above ``most``
