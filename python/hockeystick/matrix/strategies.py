"""Strategy matrices C of the matrix mechanism: the binary tree (with or without restarts), BLT, banded Toeplitz, any C.

The matrix mechanism answers the prefix-sum workload A (A_ij = 1 for j <= i) of a stream x_1..x_n
through a factorization A = B C: it releases B (C x + sigma z) with z ~ N(0, I), which is a
post-processing of C x + sigma z, so its privacy is that of the Gaussian mechanism on the query
x -> C x (Denisov et al. 2022, "Improved differential privacy for SGD via optimal private linear
operators on adaptive streams", NeurIPS, which also covers inputs chosen adaptively when C is lower
triangular).  Only C enters the accounting, through its n columns; C may
have more rows than columns (the tree releases one row per node).  Each strategy gives:

* ``matrix(rounds)``: the computed C (float64, one column per round) and a bound E >= |C -
  C_computed| entrywise (None where every entry is computed exactly);
* ``nonnegative``: C >= 0 entrywise, certified from the parameters (not from the computed entries);
* ``decreasing_toeplitz(rounds)``: for a lower-triangular Toeplitz C whose coefficients are
  certified non-negative and non-increasing (c_0 >= c_1 >= ... >= 0), the computed coefficients and
  a bound on their absolute errors; None otherwise.  sensitivity.py has the exact maximization for
  such C.

Strategies
----------
``Tree(restart_every=None)``: the binary tree of Honaker (2015) as used by DP-FTRL (Kairouz,
McMahan,
    Song, Thakkar, Thakurta, Xu 2021, "Practical and private (deep) learning without sampling or
    shuffling", ICML, Sec. 3 and App. D): one row per node, the node covering the dyadic interval of
    rounds [j 2^l, (j + 1) 2^l) for every level l and every j with (j + 1) 2^l <= n (a node is released
    once its interval has ended; an unfinished node never is).  With ``restart_every = r`` the tree is
    restarted every r rounds (block diagonal: one tree over each block of r rounds, the last block
    possibly shorter), the "tree with restarts" of Kairouz et al. 2021.
``BLT(buffer_decay, output_scale)``: the buffered linear Toeplitz C of Dvijotham, McMahan, Pillutla,
    Steinke, Thakurta 2024 ("Efficient and near-optimal noise generation for streaming differential
    privacy", arXiv:2404.16706): lower-triangular Toeplitz with c_0 = 1 and
    c_k = sum_i omega_i theta_i^(k - 1) for k >= 1, buffer decays theta (their theta, jax_privacy's
    ``buf_decay``, each in [0, 1]; others are refused) and output scales omega (their omega, jax_privacy's
    ``output_scale``).  Its coefficients are non-negative and non-increasing when every omega_i >= 0 and
    sum_i omega_i <= 1 (then c_1 - c_0 = sum omega - 1 <= 0 and c_(k+1) - c_k =
    sum omega_i theta_i^(k - 1) (theta_i - 1) <= 0); the sum is checked in exact rational arithmetic.
``Banded(coefficients)``: the lower-triangular Toeplitz C with first column (c_0, ..., c_(b-1), 0,
...):
    b bands (the banded Toeplitz strategies of McKenna 2025, "Scaling up the banded matrix
    factorization mechanism for differentially private ML", ICLR; a full-length column gives any
    lower-triangular Toeplitz C).
``DenseStrategy(matrix)``: any C given as a 2-D array with one column per round.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from ..base.validation import ParameterTypeError, count, describe, real
from .round_off import gamma

__all__ = [
    "Strategy",
    "Tree",
    "BLT",
    "Banded",
    "DenseStrategy",
    "ToeplitzCoefficients",
    "strategy_from",
]

# The dense paths hold C^T C (rounds x rounds doubles) and run an O(k rounds^2) search on it.
MAX_DENSE_ROUNDS = 2048


@dataclass(frozen=True)
class ToeplitzCoefficients:
    """First column of a lower-triangular Toeplitz C, computed, with ``error[k] >= abs(c_k - coefficients[k])``."""

    coefficients: np.ndarray
    error: np.ndarray


class Strategy:
    """A strategy matrix C by its parameters (see the module docstring for the three things it gives)."""

    nonnegative: bool = False

    def matrix(self, rounds: int) -> tuple[np.ndarray, np.ndarray | None]:
        """Computed strategy matrix C over ``rounds`` columns, with an entrywise bound on its error.

        Parameters
        ----------
        rounds : int
            The number of rounds n (columns of C), >= 1.

        Returns
        -------
        tuple
            ``(C, E)``: C computed (float64), and E >= ``abs(C - C_computed)`` entrywise, or None
            when every entry is exact.
        """
        raise NotImplementedError

    def decreasing_toeplitz(self, rounds: int) -> ToeplitzCoefficients | None:
        """The coefficients of a Toeplitz C certified non-negative and non-increasing; None otherwise."""
        return None

    def key(self) -> tuple[Any, ...]:
        """A hashable value equal for strategies with the same C (what sensitivities are cached under)."""
        raise NotImplementedError


def _dense_rounds(rounds: int) -> None:
    if rounds > MAX_DENSE_ROUNDS:
        raise ValueError(
            f"rounds must be <= {MAX_DENSE_ROUNDS} for a strategy without Toeplitz structure, got {rounds}: "
            "its sensitivity is computed on the dense rounds x rounds matrix C^T C; use a BLT or banded "
            "strategy with non-increasing coefficients (exact in O(rounds)) for longer runs"
        )


class Tree(Strategy):
    """Strategy matrix C of binary-tree aggregation, optionally restarted every ``restart_every`` rounds.

    One row per node: the node covering the dyadic interval of rounds [j 2^l, (j + 1) 2^l) for every
    level l and every j with (j + 1) 2^l <= n (a node is released once its interval has ended; an
    unfinished node never is). With ``restart_every = r`` the tree is restarted every r rounds
    (block diagonal: one tree over each block of r rounds, the last block possibly shorter), the
    "tree with restarts". Entries are 0 or 1, computed exactly; C is non-negative.

    Parameters
    ----------
    restart_every : int, optional
        r, a whole number >= 1; None (default): one tree over all rounds.

    Raises
    ------
    ValueError
        ``restart_every`` not a whole number >= 1; ``matrix(rounds)`` with more than 2048 rounds
        (the dense path's limit).
    ParameterTypeError
        ``restart_every`` a string or bool.

    References
    ----------
    Honaker 2015; Kairouz et al. 2021, Section 3 and Appendix D.

    Examples
    --------
    >>> from hockeystick.matrix import Tree
    >>> c, error = Tree().matrix(2)
    >>> c, error
    (array([[1., 0.],
           [0., 1.],
           [1., 1.]]), None)
    """

    nonnegative = True

    def __init__(self, restart_every: int | None = None) -> None:
        self.restart_every = (
            None if restart_every is None else count(restart_every, "restart_every")
        )

    def __repr__(self) -> str:
        return f"Tree(restart_every={self.restart_every})"

    def key(self) -> tuple[Any, ...]:
        return ("tree", self.restart_every)

    def matrix(self, rounds: int) -> tuple[np.ndarray, None]:
        _dense_rounds(rounds)
        block = rounds if self.restart_every is None else self.restart_every
        rows = []
        for start in range(0, rounds, block):
            size = min(block, rounds - start)
            for level in range(size.bit_length()):
                width = 1 << level
                for j in range(
                    size >> level
                ):  # the nodes whose interval has ended by the block's end
                    row = np.zeros(rounds)
                    row[start + j * width : start + (j + 1) * width] = 1.0
                    rows.append(row)
        return np.array(rows), None


class _Toeplitz(Strategy):
    """A lower-triangular Toeplitz C from its first column; subclasses give the coefficients."""

    def coefficients(self, rounds: int) -> ToeplitzCoefficients:
        raise NotImplementedError

    def decreasing(self) -> bool:
        """Whether the coefficients are non-negative and non-increasing, from the parameters."""
        raise NotImplementedError

    def matrix(self, rounds: int) -> tuple[np.ndarray, np.ndarray | None]:
        _dense_rounds(rounds)
        coef = self.coefficients(rounds)
        lag = np.subtract.outer(np.arange(rounds), np.arange(rounds))
        lower = lag >= 0
        c = np.where(lower, coef.coefficients[np.where(lower, lag, 0)], 0.0)
        if not coef.error.any():
            return c, None
        return c, np.where(lower, coef.error[np.where(lower, lag, 0)], 0.0)

    def decreasing_toeplitz(self, rounds: int) -> ToeplitzCoefficients | None:
        return self.coefficients(rounds) if self.decreasing() else None


def _some_nonzero(entries: np.ndarray, name: str) -> None:
    """Refuse a C that is all zero: it releases nothing about anyone (sensitivity 0)."""
    if not (entries != 0).any():
        raise ValueError(
            f"{name} must have a non-zero entry: with C = 0 the mechanism releases nothing about a user "
            "(sensitivity 0), so no Gaussian guarantee is needed or computed"
        )


def _finite_vector(value: npt.ArrayLike, name: str) -> np.ndarray:
    arr = np.atleast_1d(real(value, name, finite=True))
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(
            f"{name} must be a non-empty 1-D sequence of numbers, got shape {np.shape(value)}"
        )
    return arr


class BLT(_Toeplitz):
    """Buffered linear Toeplitz C (Dvijotham et al. 2024): c_0 = 1, c_k = sum_i omega_i theta_i^(k-1).

    Parameters
    ----------
    buffer_decay : array_like of float
        The buffer decays theta_1, ..., theta_d (jax_privacy's ``buf_decay``), each in [0, 1].
    output_scale : array_like of float
        The output scales omega_1, ..., omega_d (jax_privacy's ``output_scale``), one per buffer,
        finite.

    Raises
    ------
    ValueError
        A vector is empty, not 1-D or not finite, the two differ in length, or a buffer decay lies
        outside [0, 1] (the coefficients would grow without bound, or alternate in sign);
        ``matrix``/``coefficients`` for output scales whose coefficients overflow.

    Notes
    -----
    The coefficients are non-negative and non-increasing when every omega_i >= 0 and sum_i omega_i
    <= 1 (checked in exact rational arithmetic); ``l2_sensitivity`` is then exact. The computed
    coefficients carry a certified error bound (Higham 2002, Lemma 3.1).

    References
    ----------
    Dvijotham et al. 2024.
    """

    def __init__(self, buffer_decay: npt.ArrayLike, output_scale: npt.ArrayLike) -> None:
        self.buffer_decay = _finite_vector(buffer_decay, "buffer_decay")
        self.output_scale = _finite_vector(output_scale, "output_scale")
        if self.buffer_decay.shape != self.output_scale.shape:
            raise ValueError(
                f"buffer_decay and output_scale must have one entry per buffer each, got lengths "
                f"{self.buffer_decay.size} and {self.output_scale.size}"
            )
        theta, omega = self.buffer_decay, self.output_scale
        if not ((theta >= 0).all() and (theta <= 1).all()):
            raise ValueError(
                f"buffer_decay must lie in [0, 1] entry by entry (a BLT's buffer decays theta_i, Dvijotham et al. "
                f"2024; jax_privacy's buf_decay <= 1), got {describe(theta.tolist())}: a decay above 1 makes the "
                "coefficients grow without bound and a negative one makes them alternate in sign; give decays in "
                "[0, 1], or a Banded or DenseStrategy for another Toeplitz C"
            )
        self.nonnegative = bool((omega >= 0).all())
        self._decreasing = self.nonnegative and sum(map(Fraction, omega.tolist())) <= 1

    def __repr__(self) -> str:
        return f"BLT(buffer_decay={self.buffer_decay.tolist()}, output_scale={self.output_scale.tolist()})"

    def key(self) -> tuple[Any, ...]:
        return ("blt", tuple(self.buffer_decay.tolist()), tuple(self.output_scale.tolist()))

    def decreasing(self) -> bool:
        return self._decreasing

    def coefficients(self, rounds: int) -> ToeplitzCoefficients:
        r"""Coefficients c_0 = 1 and c_k = sum_i omega_i theta_i^(k-1), k < rounds, with a bound on their error.

        theta^p is formed by successive products (p - 1 roundings), times omega (one), summed over
        the d buffers (d - 1), so :math:`|c_k - \hat c_k| \le \gamma_{k+d} \sum_i |\omega_i
        \theta_i^{k-1}|` (Higham 2002, Lemma 3.1); the bound returned is :math:`2\gamma_{n+d+1}`
        times the computed magnitudes (the factor 2 covers the computed magnitudes standing in for
        the exact ones).

        Parameters
        ----------
        rounds : int
            The number of coefficients n, >= 1.

        Returns
        -------
        ToeplitzCoefficients
            The computed coefficients and their error bounds.

        Raises
        ------
        ValueError
            Output scales whose coefficients overflow.
        """
        d = self.buffer_decay.size
        powers = np.ones((rounds, d))
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused below
            if rounds > 1:
                powers[1:] = np.cumprod(np.broadcast_to(self.buffer_decay, (rounds - 1, d)), axis=0)
            terms = powers[:-1] * self.output_scale  # row p: omega_i theta_i^p, for c_(p+1)
            c = np.concatenate([[1.0], terms.sum(axis=1)])
            magnitude = np.concatenate([[0.0], np.abs(terms).sum(axis=1)])
        if not np.isfinite(c).all() or not np.isfinite(magnitude).all():
            raise ValueError(
                f"output_scale must keep the BLT coefficients finite, got {describe(self.output_scale.tolist())}: "
                "the sum of the scales' magnitudes overflows; use smaller output scales"
            )
        error = 2.0 * gamma(rounds + d + 1) * magnitude
        return ToeplitzCoefficients(c, error)


class Banded(_Toeplitz):
    r"""Banded lower-triangular Toeplitz strategy C with first column (c_0, ..., c_(b-1), 0, ...).

    .. math::

        C_{ij} = c_{i-j} \ \text{for } 0 \le i - j < b, \qquad C_{ij} = 0 \ \text{otherwise};

    a full-length column gives any lower-triangular Toeplitz C. When the coefficients are
    non-negative and non-increasing (:math:`c_0 \ge c_1 \ge \dots \ge 0`), ``l2_sensitivity`` is
    exact for up to 2^24 rounds (Kalinin & Lampert 2024, Theorem 2).

    Parameters
    ----------
    coefficients : array_like
        The b bands c_0, ..., c_(b-1): a non-empty 1-D sequence of finite numbers with a non-zero
        entry.

    Raises
    ------
    ValueError
        ``coefficients`` empty, not 1-D, not finite, or all zero.
    ParameterTypeError
        ``coefficients`` a string, bool or None.

    References
    ----------
    McKenna 2025 (banded Toeplitz strategies); Choquette-Choo et al. 2023b.

    Examples
    --------
    >>> from hockeystick.matrix import Banded
    >>> Banded([1.0, 0.5]).matrix(3)[0]
    array([[1. , 0. , 0. ],
           [0.5, 1. , 0. ],
           [0. , 0.5, 1. ]])
    """

    def __init__(self, coefficients: npt.ArrayLike) -> None:
        self.bands = _finite_vector(coefficients, "coefficients")
        _some_nonzero(self.bands, "coefficients")
        self.nonnegative = bool((self.bands >= 0).all())
        self._decreasing = self.nonnegative and bool((np.diff(self.bands) <= 0).all())

    def __repr__(self) -> str:
        return f"Banded(coefficients={self.bands.tolist()})"

    def key(self) -> tuple[Any, ...]:
        return ("banded", tuple(self.bands.tolist()))

    def decreasing(self) -> bool:
        return self._decreasing

    def coefficients(self, rounds: int) -> ToeplitzCoefficients:
        c = np.zeros(rounds)
        k = min(rounds, self.bands.size)
        c[:k] = self.bands[:k]
        return ToeplitzCoefficients(c, np.zeros(rounds))


def _dense_matrix(value: npt.ArrayLike, name: str) -> np.ndarray:
    """A non-empty 2-D matrix of finite numbers with a non-zero entry, refusals naming ``name``."""
    c = real(value, name, finite=True)
    if c.ndim != 2 or c.size == 0:
        raise ValueError(
            f"{name} must be a non-empty 2-D matrix (one column per round), got shape {c.shape}"
        )
    _some_nonzero(c, name)
    return c


class DenseStrategy(Strategy):
    """Strategy of any matrix C given as a 2-D array of finite numbers, one column per round.

    C may have any number of rows; its entries are taken as exact. Its sensitivity is computed on
    the dense rounds x rounds matrix C^T C, so at most 2048 rounds.

    Parameters
    ----------
    matrix : array_like
        C, a non-empty 2-D array of finite numbers with a non-zero entry, one column per round.

    Raises
    ------
    ValueError
        ``matrix`` empty, not 2-D, not finite, or all zero; ``matrix(rounds)`` with ``rounds`` other
        than C's column count, or above 2048.
    ParameterTypeError
        ``matrix`` a string, bool or None.

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.matrix import DenseStrategy
    >>> DenseStrategy(np.eye(3))
    DenseStrategy(shape=(3, 3))
    """

    def __init__(self, matrix: npt.ArrayLike) -> None:
        self.c = _dense_matrix(matrix, "matrix")
        self.nonnegative = bool((self.c >= 0).all())

    @classmethod
    def named(cls, matrix: npt.ArrayLike, name: str) -> DenseStrategy:
        """The strategy of ``matrix``, its refusals naming the caller's argument ``name`` (``strategy``)."""
        made = cls.__new__(cls)
        made.c = _dense_matrix(matrix, name)
        made.nonnegative = bool((made.c >= 0).all())
        return made

    def __repr__(self) -> str:
        return f"DenseStrategy(shape={self.c.shape})"

    def key(self) -> tuple[Any, ...]:
        return (
            "dense",
            self.c.shape,
            hashlib.sha256(np.ascontiguousarray(self.c).tobytes()).hexdigest(),
        )

    def matrix(self, rounds: int) -> tuple[np.ndarray, None]:
        if rounds != self.c.shape[1]:
            raise ValueError(
                f"rounds must equal the strategy matrix's column count {self.c.shape[1]}, got {rounds}"
            )
        _dense_rounds(rounds)
        return self.c, None


STRATEGY_NAMES = ("tree", "tree_restart")


def strategy_from(strategy: Any, min_separation: int) -> Strategy:
    """A Strategy from what a user passes: a Strategy, "tree", "tree_restart" (a tree restarted
    every ``min_separation`` rounds: one participation per tree at most) or a 2-D array (any C)."""
    if isinstance(strategy, Strategy):
        return strategy
    if isinstance(strategy, str):
        if strategy == "tree":
            return Tree()
        if strategy == "tree_restart":
            return Tree(restart_every=min_separation)
        raise ValueError(
            f"strategy must be one of {', '.join(map(repr, STRATEGY_NAMES))}, a BLT(...), Banded(...) or a "
            f"matrix, got {strategy!r}"
        )
    if strategy is None or isinstance(strategy, (bool, int, float)):
        raise ParameterTypeError(
            f"strategy must be 'tree', 'tree_restart', a BLT(...), Banded(...) or a 2-D matrix, got {describe(strategy)}"
        )
    return DenseStrategy.named(strategy, "strategy")
