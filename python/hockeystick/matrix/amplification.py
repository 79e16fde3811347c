"""Banded matrix factorization with cyclic Poisson sampling: the amplified guarantee, certified
through the Poisson-subsampled Gaussian PLD.

The mechanism (Choquette-Choo, Ganesh, McKenna, McMahan, Rush, Thakurta, Xu 2023, "(Amplified)
banded matrix factorization: a unified approach to private training", NeurIPS, arXiv:2306.08153,
Sec. 5, Alg. 2; jax_privacy's ``CyclicPoissonSampling`` with ``cycle_length = b`` and
``amplified_bandmf_event``):

* the records are split into b groups before training, by a rule that does not look at the data (a
  record's index, a random assignment), each record in exactly one group;
* round i (from 0) takes each record of group i mod b independently with probability q, and x_i is
  the sum of the taken records' clipped contributions (L2 norm <= the clip norm), chosen adaptively
  from the rounds released before;
* round i releases row i of C x + z * clip * N(0, I), rows independent, for an n x n
  lower-triangular b-banded C (C_ij = 0 unless 0 <= i - j < b), or any post-processing of those
  rows;
* neighbouring data sets differ by adding or removing one record (the others keep their groups).

Claim (the paper's Thm 1, informally, and its formal Thms 4 and 5): the release is dominated, in
each direction, by k = ceil(n / b) adaptively composed Poisson-subsampled Gaussian mechanisms of
sampling rate q and noise multiplier z / zeta, zeta = max_j ||C e_j|| the largest column norm: every
(eps, delta) that DP-SGD with those parameters meets, the banded mechanism meets.  The argument, as
this module relies on it: a record of group r takes part only in rounds r, r + b, ...; column j of C
is non-zero only in rows j, ..., j + b - 1, so the blocks of rows [j, j + b) of its rounds are
disjoint and tile the rows from r on (rows before r do not depend on the record).  Given everything
released before row j, the block of round j is an invertible map, fixed by the past and by records
of other groups, of C[j:j+b, j] x_j + noise; with the record's contribution v (||v|| <= 1) taken
with probability q, that is the pair ((1 - q) N(0, I) + q N(C[:, j] v / z, I), N(0, I)) (and its
reverse), a post-processing of the one-dimensional Poisson-subsampled Gaussian pair of shift ||C
e_j|| / z <= zeta / z (Y -> (s/zeta) Y + sqrt(1 - (s/zeta)^2) W maps the shift-zeta pair onto the
shift-s one).  Dominating pairs compose under adaptive composition (Zhu, Dong & Wang 2022, "Optimal
accounting of differential privacy via characteristic function", AISTATS, Thm 10), and a group with
fewer than k rounds is dominated by k (marginalizing a product pair is a post-processing).  Lower
triangularity is what makes the rows of a block released no earlier than round j, so that adaptively
chosen x are covered.

Certified: ``delta``/``epsilon`` "upper" are hockeystick's certified upper side of that k-round
subsampled Gaussian (``pld.SubsampledGaussianPLD``, sensitivity zeta rounded up) under add or remove
one record, both directions.  Not covered: replace-one neighbours, data-dependent groups, batches
truncated to a maximum size, a C that is not lower-triangular b-banded (trees, BLT: refused here;
DPFTRL accounts for them without amplification), and shuffled or balls-in-bins batches.

The lower side is valid because a pair of data sets realizes it: one record alone in the group r* of
a column of largest norm, the others contributing 0, the same unit contribution in every round.  Its
release is then exactly the product of its rounds' subsampled Gaussian pairs of shifts ||C e_j|| /
z, j = r*, r* + b, ...; any m of those rounds at the smallest of their shifts is a post-processing
of it (both maps above), so the certified lower side of that m-round subsampled Gaussian is below
the truth.  Two choices are taken and the larger lower side kept: every round of group r* at its
smallest column norm, and the rounds of group r* whose column norm is the group's largest.  Where
all of group r*'s k rounds have column norm zeta (C with full columns: for a banded Toeplitz C,
whenever the last round of group 0 is at least b' - 1 rounds from the end), the realizable pair is
the dominating one, ``kind`` is "exact" and the bracket is the accountant's bracket of the exact
value.

Column norms are computed exactly (rational sums of the squared double entries) for a banded
Toeplitz C and for an integer C, with a Higham (2002, Lemma 3.1) bound gamma_b on the sums
otherwise, and square roots are rounded outward (``_sqrt_sides``).

MMCC (Choquette-Choo, Ganesh, Steinke, Thakurta 2024, "Privacy amplification for matrix mechanisms",
ICLR) is not offered: see docs/matrix-mechanisms.md, "Amplification".
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ..base.accountant import Bound, Quantity
from ..base.accountant_docs import accountant_docs
from ..base.validation import count, derived, in_interval, positive, scalar_or_array
from ..pld.accountants import SubsampledGaussianPLD
from .round_off import gamma, widen_down, widen_up
from .strategies import Banded, DenseStrategy, Strategy, strategy_from

__all__ = ["AmplifiedBandedMF"]

Kind = Literal["exact", "upper bound"]


def _sqrt_sides(square: Fraction) -> tuple[float, float]:
    """Doubles lo <= sqrt(square) <= hi, each the nearest double on its side (equal where the root is a double)."""
    root = math.sqrt(float(square))
    lo = root
    while lo > 0 and Fraction(lo) ** 2 > square:
        lo = math.nextafter(lo, -math.inf)
    hi = root
    while Fraction(hi) ** 2 < square:
        hi = math.nextafter(hi, math.inf)
    return lo, hi


def _exact_square(entries: np.ndarray) -> Fraction:
    """sum of entries^2 in exact rational arithmetic (every double is a rational)."""
    return sum((Fraction(float(v)) ** 2 for v in entries if v != 0), Fraction(0))


def _band_count(coefficients: np.ndarray) -> int:
    """b': one more than the index of the last non-zero coefficient (0 for a zero strategy)."""
    nonzero = np.flatnonzero(coefficients)
    return int(nonzero[-1]) + 1 if nonzero.size else 0


def _zero_strategy() -> ValueError:
    return ValueError(
        "strategy must have a non-zero entry: with C = 0 the mechanism releases nothing about a record, so no "
        "amplified guarantee is needed or computed"
    )


# A group's rounds by their column norms: ((lower, upper) bracket of the norm, how many rounds have
# it)
Rounds = list[tuple[tuple[float, float], int]]


def _toeplitz_norms(
    bands: np.ndarray, rounds: int, separation: int
) -> tuple[tuple[float, float], Rounds]:
    """A banded Toeplitz C: (the bracket of its largest column norm, group 0's rounds by column norm).

    Column j holds the first min(b', n - j) coefficients, so its norm is non-decreasing in that
    length: column 0 is a largest, and group 0's rounds 0, b, ..., b (k - 1) are the most of any
    group, every one of length min(b', n) but possibly the last."""
    b_prime = _band_count(bands)
    if b_prime == 0:
        raise _zero_strategy()
    if b_prime > separation:
        raise ValueError(
            f"min_separation must be at least the strategy's band count {b_prime}, got {separation}: cyclic Poisson "
            "amplification needs C b-banded for b groups (rounds of one group b apart touch disjoint rows); use "
            f"min_separation >= {b_prime}, or a strategy with at most {separation} bands"
        )
    k = -(-rounds // separation)
    full = _sqrt_sides(_exact_square(bands[: min(b_prime, rounds)]))
    last = _sqrt_sides(_exact_square(bands[: min(b_prime, rounds - separation * (k - 1))]))
    return full, ([(full, k)] if last == full else [(full, k - 1), (last, 1)])


def _dense_norms(
    strategy: Strategy, rounds: int, separation: int
) -> tuple[tuple[float, float], Rounds]:
    """A square lower-triangular b-banded C given as a matrix: (the bracket of its largest column
    norm, the rounds of the group of a largest column by column norm)."""
    c, error = strategy.matrix(rounds)
    if c.shape != (rounds, rounds) or error is not None:
        raise ValueError(
            f"strategy must be a square {rounds} x {rounds} matrix (one row released per round) for cyclic Poisson "
            f"amplification, got shape {c.shape}"
        )
    lag = np.subtract.outer(np.arange(rounds), np.arange(rounds))
    outside = (c != 0) & ((lag < 0) | (lag >= separation))
    if outside.any():
        i, j = (int(v) for v in np.argwhere(outside)[0])
        raise ValueError(
            f"strategy must be lower-triangular and {separation}-banded (C_ij = 0 unless 0 <= i - j < min_separation) "
            f"for cyclic Poisson amplification, got C[{i}, {j}] = {c[i, j]!r}: rounds of one group must touch disjoint "
            "rows, and a row may only hold rounds already taken; raise min_separation or band the strategy"
        )
    if not (c != 0).any():
        raise _zero_strategy()
    squares = (c * c).sum(axis=0)
    # an integer C whose squared sums stay below 2^52 is summed without rounding; otherwise at most
    # b products and b - 1 additions per column (Higham 2002, Lemma 3.1)
    exact = bool((c == np.round(c)).all()) and float(squares.max()) < 2.0**52
    rel = 0.0 if exact else gamma(separation + 1)
    sides = [
        (
            _sqrt_sides(Fraction(widen_down(float(s), rel)))[0],
            _sqrt_sides(Fraction(widen_up(float(s), rel)))[1],
        )
        for s in squares
    ]
    widest = int(np.argmax(squares))
    group = [(sides[j], 1) for j in range(widest % separation, rounds, separation)]
    return (max(side[0] for side in sides), max(side[1] for side in sides)), group


@accountant_docs()  # completes delta / epsilon docstrings with the contract's sections
class AmplifiedBandedMF:
    r"""Amplified guarantee of banded matrix factorization with cyclic Poisson sampling, in training terms.

    The records are split into b groups by a rule that does not look at the data; round i takes each
    record of group i mod b independently with probability q and releases row i of C x + z * clip *
    N(0, I), for a lower-triangular b-banded C. The release is dominated, in each direction, by k =
    ceil(n / b) adaptively composed Poisson-subsampled Gaussian mechanisms of sampling rate q and
    noise multiplier z / zeta,

    .. math::

        \zeta = \max_j \|C e_j\|_2, \qquad k = \lceil n / b \rceil,

    under add or remove one record (Choquette-Choo et al. 2023b, Theorem 1, Theorems 4-5; dominating
    pairs compose by Zhu, Dong & Wang 2022, Theorem 10). ``delta``/``epsilon`` "upper" are the
    certified upper side of that k-round subsampled Gaussian (``pld.SubsampledGaussianPLD``, zeta
    rounded up); "lower" the larger certified lower side of pairs a data set realizes
    (``lower_pairs``); ``kind`` is "exact" when a realizable pair is the dominating one. Not
    covered: replace-one neighbours, data-dependent groups, truncated batches, shuffled or
    balls-in-bins batches, and strategies that are not b-banded.

    ``participations`` (k), ``column_norm`` (zeta, rounded up), ``column_norm_lower`` and ``kind``
    say what was computed.

    Parameters
    ----------
    rounds : int
        Training rounds (steps) n, a whole number >= 1.
    noise_multiplier : array_like
        z, finite and > 0: the noise added to each row of C x has standard deviation z times the
        clip norm. Broadcasts with ``sampling_rate`` and with the argument of ``delta``/``epsilon``.
    sampling_rate : array_like
        q in (0, 1]: the probability that a record of the round's group is taken (the expected batch
        is q times the group's size, about q / b of the data).
    strategy : Banded or array_like
        ``Banded(coefficients)`` with b' <= ``min_separation`` bands, or a square lower-triangular
        ``min_separation``-banded matrix C (n x n). Trees and BLT strategies are not banded and are
        refused.
    min_separation : int, optional
        b, the number of groups, a whole number >= 1: round i takes from group i mod b, so a
        record's rounds are exactly b apart. None (default): the strategy's band count, for a
        ``Banded`` strategy.
    value_discretization_interval : float, optional
        The PLD grid's interval, as for ``pld.SubsampledGaussianPLD``; not with ``accuracy``.
    accuracy : float, optional
        A target width of the certified bracket, as for ``pld.SubsampledGaussianPLD``; not with
        ``value_discretization_interval``.

    Raises
    ------
    ValueError
        ``rounds`` not a whole number >= 1; ``noise_multiplier`` not finite and > 0;
        ``sampling_rate`` outside (0, 1]; ``min_separation`` missing for a strategy other than
        ``Banded``, or below the band count; a strategy that is not b-banded lower-triangular (a
        tree, a BLT, a matrix with an entry outside the band, a non-square matrix) or is all zero;
        both ``value_discretization_interval`` and ``accuracy``.
    ParameterTypeError
        A numeric argument that is a string, bool or None.

    References
    ----------
    Choquette-Choo et al. 2023b, Section 5, Algorithm 2, Theorems 1, 4 and 5; Zhu, Dong & Wang 2022,
    Theorem 10.

    Examples
    --------
    >>> from hockeystick.matrix import AmplifiedBandedMF, Banded
    >>> run = AmplifiedBandedMF(rounds=16, noise_multiplier=1.0, sampling_rate=0.1, strategy=Banded([1.0, 0.5]))
    >>> run.participations, round(run.column_norm, 9), run.kind
    (8, 1.118033989, 'exact')
    """

    def __init__(
        self,
        *,
        rounds: int,
        noise_multiplier: npt.ArrayLike,
        sampling_rate: npt.ArrayLike,
        strategy: Any,
        min_separation: int | None = None,
        value_discretization_interval: float | None = None,
        accuracy: float | None = None,
    ) -> None:
        n = count(rounds, "rounds")
        z = positive(noise_multiplier, "noise_multiplier")
        q = in_interval(sampling_rate, "sampling_rate", 0.0, 1.0, open_low=True, open_high=False)
        if min_separation is None:
            if not isinstance(strategy, Banded):
                raise ValueError(
                    "min_separation must be given (the number of groups b) unless the strategy is a Banded(...), "
                    "whose band count is the default"
                )
            b = max(1, _band_count(strategy.bands))
        else:
            b = count(min_separation, "min_separation")
        chosen = strategy_from(strategy, b)
        k = -(-n // b)
        if isinstance(chosen, Banded):
            (zeta_low, zeta), group = _toeplitz_norms(chosen.bands, n, b)
        elif isinstance(chosen, DenseStrategy):
            (zeta_low, zeta), group = _dense_norms(chosen, n, b)
        else:
            raise ValueError(
                f"strategy must be b-banded lower-triangular for cyclic Poisson amplification: Banded(coefficients) "
                f"or a square matrix, got {chosen!r}; a tree or BLT strategy couples rounds b apart (no "
                "amplification is proved for it here): use DPFTRL(...) for its guarantee without amplification"
            )
        self.rounds = n
        self.min_separation = b
        self.participations = k
        self.strategy = chosen
        self.noise_multiplier = scalar_or_array(z)
        self.sampling_rate = scalar_or_array(q)
        self.column_norm = zeta
        self.column_norm_lower = zeta_low

        def accountant(participations: int, norm: float) -> SubsampledGaussianPLD:
            with derived("noise_multiplier and the strategy's column norm", "sigma / sensitivity"):
                return SubsampledGaussianPLD(
                    sigma=z,
                    sampling_rate=q,
                    rounds=participations,
                    sensitivity=norm,
                    value_discretization_interval=value_discretization_interval,
                    accuracy=accuracy,
                )

        self._upper = accountant(k, zeta)
        # the realizable lower pairs (module docstring): the group's rounds whose norm is its
        # largest, at that norm, and all of its rounds at its smallest norm where that is positive
        top = max(side[0] for side, _ in group)
        least = min(side[0] for side, _ in group)
        pairs = {(sum(m for side, m in group if side[0] >= top), top)}
        if least > 0:
            pairs.add((sum(m for _, m in group), least))
        # (rounds, column norm) of each realizable lower pair, most rounds first
        self.lower_pairs: list[tuple[int, float]] = sorted(pairs, reverse=True)
        self.kind: Kind = "exact" if (k, zeta_low) in pairs else "upper bound"
        self._lowers = [
            self._upper if (m, s) == (k, zeta) else accountant(m, s) for m, s in self.lower_pairs
        ]

    def _sides(self, method: Quantity, argument: npt.ArrayLike, bound: Bound) -> Any:
        if bound not in ("upper", "lower", "both"):
            raise ValueError(f"bound must be one of 'upper', 'lower', 'both', got {bound!r}")
        with derived("noise_multiplier and the strategy's column norm", "sigma / sensitivity"):
            return self._computed_sides(method, argument, bound)

    def _computed_sides(self, method: Quantity, argument: npt.ArrayLike, bound: Bound) -> Any:
        if self._lowers == [self._upper] or bound == "upper":  # one accountant holds both sides
            return getattr(self._upper, method)(argument, bound=bound)
        sides = [
            np.asarray(getattr(acc, method)(argument, bound="lower"), dtype=float)
            for acc in self._lowers
        ]
        lower = scalar_or_array(np.maximum.reduce(sides))
        if bound == "lower":
            return lower
        return lower, getattr(self._upper, method)(argument, bound="upper")

    def delta(self, epsilon: npt.ArrayLike, *, bound: Bound = "upper") -> Any:
        """Privacy profile delta(eps), certified on each side.

        The upper side is that of the k-round Poisson-subsampled Gaussian at noise z / zeta (zeta
        rounded up), the lower side the larger of the realizable pairs' certified lower sides.

        Raises
        ------
        ValueError
            What ``pld.SubsampledGaussianPLD.delta`` refuses.
        """
        return self._sides("delta", epsilon, bound)

    def epsilon(self, delta: npt.ArrayLike, *, bound: Bound = "upper") -> Any:
        """Smallest epsilon >= 0 with delta(eps) <= delta, each side as ``delta`` takes it.

        Raises
        ------
        ValueError
            What ``pld.SubsampledGaussianPLD.epsilon`` refuses.
        """
        return self._sides("epsilon", delta, bound)
