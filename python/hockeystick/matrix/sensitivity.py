"""L2 sensitivity of a strategy matrix C under a participation schema: exact where the maximization
is solved, a proved upper bound otherwise, each side rounded outward.

One user changes the stream x (n rounds, rows x_i in R^d) by contributions x_i of norm <= 1 at the
rounds of one pattern pi of the schema (participation.py), so C x moves by sum_(i in pi) C[:, i] x_i
and

    sens^2 = max_pi max_(||x_i|| <= 1) || sum_(i in pi) C[:, i] x_i ||^2
           = max_pi max_(||x_i|| <= 1) sum_(i, j in pi) X_ij <x_i, x_j>,      X = C^T C.

Exact cases (``kind = "exact"``):

* X >= 0 entrywise: each <x_i, x_j> <= 1, with equality when every x_i is the same unit vector, so
  sens^2 = max_pi 1_pi^T X 1_pi (Choquette-Choo et al. 2023a, "Multi-epoch matrix factorization
  mechanisms for private machine learning", ICML, Sec. 2: the non-negative case of the sensitivity).
  Solved by enumerating the patterns: the b fixed-epoch patterns, or every min-separation pattern
  while there are at most ``MAX_ENUMERATED`` of them.
* Columns at least b apart orthogonal (X_ij = 0 for |i - j| >= b, checked on the supports of C, not
  on rounded products): the cross terms of every min-separation pattern vanish whatever the signs,
  so sens^2 = max_pi sum_(i in pi) X_ii, a best separated selection (selection.py; the banded case
  of Choquette-Choo et al. 2023b, "(Amplified) banded matrix factorization", arXiv:2306.08153).
* C lower-triangular Toeplitz with c_0 >= c_1 >= ... >= 0 (BLT with decays in [0, 1] and output
  scales summing to at most 1, banded Toeplitz with non-increasing bands): the pattern {0, b, ...,
  (k'-1) b} is a worst one under b-min-separation with at most k participations, so sens = || sum_(j
  < k') C[:, j b] || (Kalinin & Lampert 2024, "Banded square root matrix factorization for
  differentially private model training", NeurIPS; arXiv:2405.13763, Thm 2, as federated-compute's
  accounting.py cites it; the proof that follows is this module's).  Proof: for i <= j, X_ij =
  sum_(t=0)^(n-1-j) c_t c_(t+j-i) is non-increasing in j at a fixed gap j - i (fewer non-negative
  terms) and in the gap at a fixed j (c non-increasing); a pattern p_0 < ... < p_(m-1) has p_j >= j
  b and p_j - p_i >= (j - i) b, so X(p_i, p_j) <= X(i b, j b), and the reference pattern holds the
  most participations k' (X >= 0). It is also a fixed-epoch pattern (offset 0), so the same value is
  exact for fixed epochs.  O(k n).

Upper bounds (``kind = "upper bound"``), for X with negative entries or too many patterns: sens^2 <=
max_pi sum_(i, j in pi) |X_ij| (|<x_i, x_j>| <= 1), and that maximum is bounded by choosing the best
pattern per row and then the best pattern of rows, r_i = max_pi sum_(j in pi) |X_ij| and sens^2 <=
max_pi sum_(i in pi) r_i (the optimum's own pattern is one choice in every row: Choquette-Choo et
al. 2023b, Alg. 4), or, where the patterns can be enumerated, by max_pi sum_(i,j in pi) |X_ij|
itself (the fixed-epoch case always); for a tree, also by the sum over its levels of each level's
largest squared node counts (tree_levels.py), whichever is smaller.  Where C's sums are computed
exactly (an integer C) and a realizable pattern reaches the bound, the bound is the sensitivity and
the result is labelled exact.  Signs are never searched: the signed maximum is a semidefinite
program, so a negative X is reported as an upper bound.

The lower side is a realizable value: ||C 1_pi|| for the pattern the upper side found (every x_i the
same unit vector), or the largest column norm, whichever is larger; for the exact cases it is the
same number rounded the other way.

Round-off: X is formed from the computed C (errors E >= |C - C computed| from the strategy), the
entries bounded from above by |X| + 2 (gamma_m |C|^T |C| + |C|^T E + E^T |C| + E^T E) and from below
by X minus the same (Higham 2002, Lemma 3.1), and the sums over patterns (at most k'^2 non-negative
terms) widened by their gamma (round_off.py).  An integer C (the trees) whose sums stay below 2^52
is computed without any rounding, and its bracket is the exact value on both sides.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..base.validation import (
    ParameterTypeError,
    choice,
    count,
    describe,
    nonnegative,
    positive_number,
    single,
)
from .participation import Participation
from .round_off import UNIT_ROUNDOFF, compose, gamma, widen_down, widen_up
from .selection import best_separated_pattern, count_patterns, max_separated_sum, patterns
from .strategies import Strategy, Tree
from .tree_levels import tree_level_bound

__all__ = ["Sensitivity", "l2_sensitivity", "MAX_ENUMERATED"]

# Exact search over min-separation patterns while there are at most this many (each costs k'^2
# additions).
MAX_ENUMERATED = 50_000
MAX_ROUNDS = (
    2**31
)  # the rounds DPFTRL takes: the Toeplitz and dense paths have smaller limits of their own

Kind = Literal["exact", "upper bound"]


@dataclass(frozen=True)
class Sensitivity:
    """Certified bracket [lower, upper] of a strategy's L2 sensitivity, and how it was found.

    ``l2_sensitivity`` returns one; ``MatrixMechanism`` takes one (or an array of them).

    Parameters
    ----------
    upper : float
        A certified upper bound on the sensitivity, finite and > 0.
    lower : float
        A realizable value, finite, >= 0 and <= ``upper``.
    kind : {"exact", "upper bound"}
        "exact" when the maximization was solved (then ``lower`` and ``upper`` differ by round-off
        only), "upper bound" when only a bound is proved (the truth lies in the bracket).
    method : str
        The computation that found it.
    pattern : tuple of int
        A participation pattern (rounds from 0) whose contributions realize ``lower``.

    Raises
    ------
    ValueError
        ``upper`` not finite and > 0; ``lower`` negative, not finite, or above ``upper``; an unknown
        ``kind``; a ``pattern`` entry not a whole number >= 0.
    ParameterTypeError
        ``method`` not a string; ``pattern`` not a tuple or list; a bound a string, bool or None.
    """

    upper: float
    lower: float
    kind: Kind
    method: str
    pattern: tuple[int, ...]

    def __post_init__(self) -> None:
        upper = positive_number(self.upper, "upper")
        lower = float(nonnegative(single(self.lower, "lower"), "lower"))
        if lower > upper:
            raise ValueError(
                f"lower must be <= upper (a bracket), got lower {lower!r} above upper {upper!r}"
            )
        object.__setattr__(self, "upper", upper)
        object.__setattr__(self, "lower", lower)
        object.__setattr__(self, "kind", choice(self.kind, "kind", ("exact", "upper bound")))
        if not isinstance(self.method, str):
            raise ParameterTypeError(f"method must be a string, got {describe(self.method)}")
        if not isinstance(self.pattern, (tuple, list)):
            raise ParameterTypeError(
                f"pattern must be a tuple of round indices, got {describe(self.pattern)} ({type(self.pattern).__name__})"
            )
        object.__setattr__(
            self, "pattern", tuple(count(i, "pattern", minimum=0) for i in self.pattern)
        )


def _sqrt_up(x: float) -> float:
    return math.nextafter(math.sqrt(x), math.inf) if x > 0 else 0.0


def _sqrt_down(x: float) -> float:
    return max(0.0, math.nextafter(math.sqrt(x), -math.inf)) if x > 0 else 0.0


def _nonzero(entries: np.ndarray) -> None:
    """Refuse a strategy whose every entry (and entry error) is 0: it releases nothing about anyone."""
    if not (entries != 0).any():
        raise ValueError(
            "strategy must have a non-zero entry: with C = 0 the mechanism releases nothing about a user "
            "(sensitivity 0), so no Gaussian guarantee is needed or computed"
        )


def _result(
    square_up: float, square_down: float, kind: Kind, method: str, pattern: tuple[int, ...]
) -> Sensitivity:
    upper = _sqrt_up(square_up)
    if not upper > 0:
        raise ValueError(
            "strategy must have a non-zero column among the rounds a user may take part in: every pattern of the "
            "schema moves C x by 0 (sensitivity 0), so no Gaussian guarantee is needed or computed"
        )
    return Sensitivity(upper, min(_sqrt_down(square_down), upper), kind, method, pattern)


# The non-increasing Toeplitz case holds a few arrays of ``rounds`` doubles.
MAX_TOEPLITZ_ROUNDS = 1 << 24


def _strided_window_sums(
    values: np.ndarray, separation: int, window: int
) -> tuple[np.ndarray, float]:
    """w[m] = sum over j < window with j b <= m of values[m - j b], for non-negative ``values``, and
    the relative error bound of the computed w.

    Laid out as rows of b (entry m at row m // b, column m % b), w is the sum of the last ``window``
    rows up to m's own: sums of 2^t consecutive rows are formed by pairwise doubling (each a sum of
    2^t terms in t levels: relative error gamma_t) and ``window`` is added up from its binary digits
    (at most log2(window) + 1 such sums, added one after another), so every addition is of
    non-negative terms, O(n log window) work, and the relative error is at most gamma_(2
    log2(window) + 2) (Higham 2002, Lemma 3.1)."""
    n = values.size
    rows = -(-n // separation)
    grid = np.zeros((window - 1 + rows, separation))
    grid[window - 1 :].reshape(-1)[:n] = (
        values  # window - 1 zero rows on top: every window has full length
    )
    total = np.zeros((rows, separation))
    blocks, offset, level = grid, 0, 0
    while (1 << level) <= window:
        width = 1 << level
        if window & width:
            total += blocks[offset : offset + rows]
            offset += width
        if (2 << level) <= window:
            blocks = blocks[:-width] + blocks[width:]
        level += 1
    return total.reshape(-1)[:n], gamma(2 * level + 2)


def _toeplitz(strategy: Strategy, rounds: int, schema: Participation) -> Sensitivity | None:
    """Kalinin & Lampert's reference pattern {0, b, ..., (k'-1) b} for a non-increasing non-negative
    Toeplitz C: sens^2 = ||v||^2 with v = sum_(j < k') C[:, j b], v[m] = sum over j < k', j b <= m
    of c_(m - j b)."""
    coef = strategy.decreasing_toeplitz(rounds)
    if coef is None:
        return None
    if rounds > MAX_TOEPLITZ_ROUNDS:
        raise ValueError(
            f"rounds must be <= {MAX_TOEPLITZ_ROUNDS} for a Toeplitz strategy, got {rounds}: its sensitivity holds "
            "a few arrays of that many doubles"
        )
    _nonzero(coef.coefficients + coef.error)
    b, k = schema.separation, schema.participations(rounds)
    v, g = _strided_window_sums(coef.coefficients, b, k)
    slack, g_error = _strided_window_sums(coef.error, b, k)
    four_u = 4.0 * UNIT_ROUNDOFF
    # v_true <= v/(1 - g) + slack/(1 - g_error); v_true >= v (1 - g) - slack (1 + 2 g_error), each
    # operation's own rounding covered by the 4u terms; the last subtraction's rounding by the 2u in
    # the squared sums' bound
    high = v * (1.0 + 2.0 * g + four_u) + slack * (1.0 + 2.0 * g_error + four_u)
    low = np.maximum(v * (1.0 - g - four_u) - slack * (1.0 + 2.0 * g_error + four_u), 0.0)
    rel = compose(gamma(rounds + 1), 4.0 * UNIT_ROUNDOFF)
    pattern = tuple(range(0, k * b, b))
    return _result(
        widen_up(float(np.dot(high, high)), rel),
        widen_down(float(np.dot(low, low)), rel),
        "exact",
        f"non-increasing Toeplitz C: pattern 0, b, ..., (k'-1) b (Kalinin & Lampert 2024, Thm 2), k' = {k}",
        pattern,
    )


@dataclass(frozen=True)
class _Gram:
    """Entrywise bounds X_low <= X <= X_high and |X| <= X_abs of X = C^T C, and the column supports."""

    high: np.ndarray
    low: np.ndarray
    absolute: np.ndarray
    nonnegative: bool
    overlap: (
        np.ndarray
    )  # overlap[i, j] > 0 iff columns i and j share a row where either may be non-zero
    exact: bool  # every sum of X entries is computed without rounding (integer C, sums below 2^53)

    def gamma(self, terms: int) -> float:
        """The relative error of a computed sum of ``terms`` entries: 0 in exact arithmetic."""
        return 0.0 if self.exact else gamma(terms)


def _gram(strategy: Strategy, rounds: int) -> _Gram:
    c, e = strategy.matrix(rounds)
    m = c.shape[0]
    a = np.abs(c)
    x = c.T @ c
    y = a.T @ a
    # integers whose every partial sum stays below 2^53 are added and multiplied exactly in
    # binary64, in any order: then X, and every sum of its entries (at most 1^T |C|^T |C| 1), carry
    # no round-off at all
    exact = (
        e is None
        and bool((c == np.round(c)).all())
        and float(a.sum(axis=1) @ a.sum(axis=1)) < 2.0**52
    )
    if exact:
        support = (a > 0).astype(np.float64)
        _nonzero(support)
        return _Gram(
            x, x, np.abs(x), strategy.nonnegative or bool((x >= 0).all()), support.T @ support, True
        )
    slack = gamma(m) * y
    if e is not None:
        cross = a.T @ e
        slack = slack + cross + cross.T + e.T @ e
    slack = (
        2.0 * slack
    )  # covers the round-off of forming the slack itself (its terms are ~ m u relative)
    support = ((a > 0) | (e > 0 if e is not None else False)).astype(np.float64)
    _nonzero(support)
    low = x - slack
    nonnegative = strategy.nonnegative or bool((low >= 0).all())
    return _Gram(x + slack, low, np.abs(x) + slack, nonnegative, support.T @ support, False)


def _pattern_sum(matrix: np.ndarray, pattern: tuple[int, ...] | np.ndarray) -> float:
    idx = np.asarray(pattern, dtype=np.intp)
    return float(matrix[np.ix_(idx, idx)].sum())


def _lower_side(
    gram: _Gram, pattern: tuple[int, ...], terms: int, rounds: int, schema: Participation
) -> tuple[float, tuple[int, ...]]:
    """A realizable squared sensitivity, rounded down: the larger of 1_pi^T X 1_pi for ``pattern``
    (every x_i the same unit vector) and the largest diagonal entry X_ii over the rounds i a user
    may take part in alone (any round under min separation; under fixed epochs a round of the first
    k' epochs: a user may leave out rounds of its pattern, x_i = 0)."""
    diag = np.diag(gram.low)
    allowed = np.arange(rounds)
    if schema.fixed:
        allowed = allowed[allowed // schema.separation < schema.participations(rounds)]
    best_single = int(allowed[np.argmax(diag[allowed])])
    together = widen_down(_pattern_sum(gram.low, pattern), gram.gamma(terms)) if pattern else 0.0
    single = widen_down(float(diag[best_single]), gram.gamma(1))
    return (together, pattern) if together >= single else (single, (best_single,))


def _orthogonal_beyond(gram: _Gram, separation: int) -> bool:
    """Columns at least ``separation`` apart share no row where either is non-zero (so X_ij = 0 exactly)."""
    n = gram.overlap.shape[0]
    far = np.abs(np.subtract.outer(np.arange(n), np.arange(n))) >= separation
    return not bool((gram.overlap[far] > 0).any())


def l2_sensitivity(strategy: Strategy, rounds: int, schema: Participation) -> Sensitivity:
    r"""Certified bracket of the L2 sensitivity of a strategy matrix C under a participation schema.

    One user moves C x by :math:`\sum_{i \in \pi} C_{:,i}\, x_i` over the rounds of one pattern
    :math:`\pi` of the schema, each :math:`\|x_i\| \le 1`:

    .. math::

        \mathrm{sens}^2 = \max_\pi \max_{\|x_i\| \le 1} \sum_{i, j \in \pi} X_{ij} \langle x_i, x_j \rangle,
        \qquad X = C^\top C .

    Solved exactly (``kind="exact"``) for X >= 0 by enumerating patterns, :math:`\max_\pi 1_\pi^\top
    X 1_\pi` (Choquette-Choo et al. 2023a, Section 2); for columns at least b apart orthogonal, by a
    best separated selection of the diagonal (Choquette-Choo et al. 2023b); for a non-negative,
    non-increasing Toeplitz C at the pattern {0, b, ..., (k'-1) b} (Kalinin & Lampert 2024, Theorem
    2). Otherwise a proved upper bound (``kind="upper bound"``): :math:`\max_\pi \sum_{i,j \in \pi}
    |X_{ij}|`, or the best pattern per row then of rows (Choquette-Choo et al. 2023b, Algorithm 4),
    or for a tree the level-by-level bound, whichever is smallest. Round-off of the computed C and
    sums is bounded (Higham 2002, Lemma 3.1) and each side rounded outward; the lower side is
    realizable (the module docstring has every case).

    Parameters
    ----------
    strategy : Strategy
        ``Tree()``, ``BLT(...)``, ``Banded(...)`` or ``DenseStrategy(C)``.
    rounds : int
        The number of rounds n (columns of C), an integer >= 1.
    schema : Participation
        ``EveryRound()``, ``FixedEpochs(b)`` or ``MinSeparation(b)``.

    Returns
    -------
    Sensitivity
        The bracket [lower, upper], its kind ("exact" or "upper bound"), method and a realizing
        pattern.

    Raises
    ------
    TypeError
        ``strategy`` or ``schema`` of another kind (a string, a number, ...).
    ValueError
        ``rounds`` not an integer >= 1; a C that is all zero on the schema's rounds; a C whose
        squared sensitivity overflows double precision (scale C and the noise multiplier down by one
        factor); a dense C over more than 2048 rounds, or a Toeplitz one over more than 2^24.

    References
    ----------
    Choquette-Choo et al. 2023a, Section 2; Choquette-Choo et al. 2023b, Algorithms 3-4; Kalinin &
    Lampert 2024, Theorem 2; Higham 2002, Lemma 3.1.

    Examples
    --------
    >>> from hockeystick.matrix import MinSeparation, Tree, l2_sensitivity
    >>> sens = l2_sensitivity(Tree(), 16, MinSeparation(4))
    >>> round(sens.upper, 9), sens.kind, sens.pattern
    (6.0, 'exact', (0, 4, 8, 12))
    """
    if not isinstance(strategy, Strategy):
        raise ParameterTypeError(
            f"strategy must be a Strategy: Tree(), BLT(...), Banded(...) or DenseStrategy(C), got {describe(strategy)} "
            f"({type(strategy).__name__})"
        )
    if not isinstance(schema, Participation):
        raise ParameterTypeError(
            f"schema must be a Participation: EveryRound(), FixedEpochs(b) or MinSeparation(b), got {describe(schema)} "
            f"({type(schema).__name__})"
        )
    n = count(rounds, "rounds", maximum=MAX_ROUNDS)
    try:
        with np.errstate(over="raise"):
            found = _l2_sensitivity(strategy, n, schema)
    except FloatingPointError:
        found = None
    if found is None or not math.isfinite(found.upper):
        raise ValueError(
            f"strategy's entries are too large: the squared sensitivity of {strategy!r} over {n} rounds overflows "
            "double precision (above 1.8e308); scale C and the noise multiplier down by the same factor (the "
            "guarantee depends on sensitivity / noise_multiplier only)"
        )
    return found


def _l2_sensitivity(strategy: Strategy, rounds: int, schema: Participation) -> Sensitivity:
    """``l2_sensitivity`` on checked arguments: the first method that applies, from the exact closed
    forms (Toeplitz, orthogonal columns, X >= 0 in every round) to the enumeration of patterns and
    the row bound."""
    toeplitz = _toeplitz(strategy, rounds, schema)
    if toeplitz is not None:
        return toeplitz
    gram = _gram(strategy, rounds)
    b, k = schema.separation, schema.participations(rounds)
    orthogonal = k == 1 or _orthogonal_beyond(gram, b)  # one participation: no cross terms at all
    if orthogonal and not schema.fixed:
        return _orthogonal_diagonal(gram, b, k)
    if gram.nonnegative and not schema.fixed and b == 1 and k == rounds:
        return _every_round(gram, rounds, schema, k)
    # within a fixed-epoch pattern of orthogonal columns the cross terms vanish: the diagonal alone,
    # exactly
    bound = (
        np.diag(np.diag(gram.high))
        if orthogonal
        else gram.high
        if gram.nonnegative
        else gram.absolute
    )
    candidates = _candidate_patterns(rounds, schema, b, k)
    if candidates is not None:
        return _best_enumerated(
            gram, bound, candidates, orthogonal or gram.nonnegative, rounds, schema, k
        )
    return _row_bound(strategy, gram, bound, rounds, schema, k)


def _orthogonal_diagonal(gram: _Gram, b: int, k: int) -> Sensitivity:
    """Columns >= b apart orthogonal: the best separated selection of the diagonal of X, exactly."""
    value, pattern = best_separated_pattern(np.diag(gram.high), b, k)
    low = (
        widen_down(float(np.diag(gram.low)[list(pattern)].sum()), gram.gamma(k + 2))
        if pattern
        else 0.0
    )
    return _result(
        widen_up(value, gram.gamma(k + 2)),
        low,
        "exact",
        "columns >= b apart orthogonal: best separated selection of the diagonal of X",
        pattern,
    )


def _every_round(gram: _Gram, rounds: int, schema: Participation, k: int) -> Sensitivity:
    """X >= 0 and every round allowed: adding a round never lowers 1^T X 1, so every round is the worst pattern."""
    everything = tuple(range(rounds))
    square_down, pattern = _lower_side(gram, everything, _terms(k), rounds, schema)
    return _result(
        widen_up(_pattern_sum(gram.high, everything), gram.gamma(_terms(k))),
        square_down,
        "exact",
        "X >= 0, every round: 1^T X 1",
        pattern,
    )


def _terms(k: int) -> int:
    """The roundings in one bound entry: the pattern sums, and the one rounding of each bound entry."""
    return k * k + 2


def _candidate_patterns(
    rounds: int, schema: Participation, b: int, k: int
) -> list[tuple[int, ...]] | None:
    """Every participation pattern of the schema, or None if there are more than ``MAX_ENUMERATED``."""
    if schema.fixed:
        return [tuple(int(i) for i in p) for p in schema.fixed_patterns(rounds)]
    if count_patterns(rounds, b, k, MAX_ENUMERATED) <= MAX_ENUMERATED:
        return list(patterns(rounds, b, k))
    return None


def _best_enumerated(
    gram: _Gram,
    bound: np.ndarray,
    candidates: list[tuple[int, ...]],
    exact: bool,
    rounds: int,
    schema: Participation,
    k: int,
) -> Sensitivity:
    """The largest 1^T X 1 over every pattern (on |X| where X has negative entries)."""
    terms = _terms(k)
    sums = [_pattern_sum(bound, p) for p in candidates]
    best = int(np.argmax(sums))
    square_up = widen_up(sums[best], gram.gamma(terms))
    method = f"every pattern of the schema ({len(candidates)}): max of 1^T X 1 over the pattern" + (
        "" if exact else " with |X| (X has negative entries)"
    )
    square_down, pattern = _lower_side(gram, candidates[best], terms, rounds, schema)
    attained = gram.exact and square_down == square_up  # a realizable pattern reaches the |X| bound
    kind: Kind = "exact" if exact or attained else "upper bound"
    return _result(square_up, square_down, kind, method, pattern)


def _row_bound(
    strategy: Strategy, gram: _Gram, bound: np.ndarray, rounds: int, schema: Participation, k: int
) -> Sensitivity:
    """Too many patterns to enumerate: the best pattern per row, then of rows (and a tree's level bound)."""
    b = schema.separation
    rows = max_separated_sum(bound, b, k)
    value, pattern = best_separated_pattern(rows, b, k)
    square_up = widen_up(value, compose(gram.gamma(k + 2), gram.gamma(k + 2)))
    method = "best pattern per row, then of rows (Choquette-Choo et al. 2023b, Alg. 4)" + (
        "" if gram.nonnegative else ", on |X|"
    )
    if isinstance(strategy, Tree):
        levels = float(tree_level_bound(rounds, strategy.restart_every, schema))
        if levels < square_up:
            square_up, method = (
                levels,
                "sum over the tree's levels of each level's largest squared counts",
            )
    square_down, pattern = _lower_side(gram, pattern, _terms(k), rounds, schema)
    if gram.exact and square_down == square_up:  # a realizable pattern attains the proved bound
        return _result(square_up, square_down, "exact", method + ", attained by a pattern", pattern)
    return _result(square_up, square_down, "upper bound", method, pattern)
