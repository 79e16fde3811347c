"""Certified lower side of the matrix mechanism under sampled participation, from a realizable pair
projected on one direction.

The mechanism releases C x + z N(0, I) (C with one column per round, rows released as their rounds
are in; z the noise multiplier in units of the clip norm), where x_j sums the clipped contributions
of the records taken in round j, and which rounds a record enters is random (``sampling_laws``:
balls-in-bins, random allocation, b-min-sep, cyclic Poisson).  Neighbouring data sets add or remove
one record.

The pair, and why it is realizable (each assumption is used once, below):

1. one record contributes +1 in every round it enters, every other record contributes 0 (a clipped
   gradient may be any vector of norm <= 1; in one coordinate of the model, +1 and 0 are such
   vectors);
2. so with the record the output is C 1_s + z N(0, I), s its random pattern, independent of the
   noise; without it, z N(0, I): the pair (P, Q) = (E_s N(C 1_s, z^2 I), N(0, z^2 I)) is the output
   law of two neighbouring data sets, and the mechanism's delta(eps) is at least
   max(H_{e^eps}(P||Q), H_{e^eps}(Q||P));
3. y -> u'y / ||u|| for a fixed direction u is a post-processing, so the projected pair (E_s N(m_s,
   z^2), N(0, z^2)), m_s = u' C 1_s / ||u|| = sum_{j in s} a_j, a_j = u' C e_j / ||u||, has
   hockey-stick divergences at most those of (P, Q) (data processing);
4. when every a_j >= 0, the projected likelihood ratio is non-decreasing in y, the optimal sets of
   H(P||Q) and H(Q||P) are half-lines, and P's mass on every half-line (t, inf) is non-decreasing in
   each m_s: lowering the shifts lowers both divergences.  The a_j are therefore rounded down to a
   lattice of step h (a power of two), which makes every m_s an exact multiple of h and the law of
   m_s a finite one computed exactly in whole lattice units (``sampling_laws``);
5. that one-dimensional pair is ``pld.mixture_of_gaussians(z, shifts, weights)``, whose lower side
   is certified (monotone discretization, both directions); its weights are the law's probabilities,
   off from the exact ones by at most W in L1 (``Sampling.weight_error``), which moves H(P||Q) by at
   most W and H(Q||P) by at most e^eps W: both are subtracted.

a_j is computed as u' C e_j in floating point, lowered by gamma_{2m+4} (|u|' (|C| + E)) e_j (m rows,
E the strategy's entrywise error bound; Higham 2002, Lemma 3.1) plus |u|' E e_j, and ||u|| is
rounded up, so the shifts used are below the exact ones.  A direction for which some a_j cannot be
proved >= 0 is not used (step 4 needs it).  The directions tried by default are the all-ones vector
and C 1 (the sum of C's columns, the mean shift's direction up to a factor); the larger lower side
is kept.

The lower side is certified; nothing here is an upper bound on the mechanism's delta.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from ..base.accountant import LOWER_ONLY, Bound
from ..base.accountant_docs import accountant_docs
from ..base.validation import (
    bound_side,
    count,
    describe,
    epsilon_values,
    moderate,
    positive_number,
    scalar_or_array,
)
from ..pld.grid import PrivacyLossDistribution
from ..pld.mechanisms import mixture_of_gaussians
from .round_off import gamma, widen_up
from .sampling_laws import Sampling
from .strategies import strategy_from

__all__ = ["RealizableLowerSide"]


def _projected(c: np.ndarray, error: np.ndarray | None, u: np.ndarray) -> np.ndarray | None:
    """Lower bounds on a_j = u' C e_j / ||u|| (>= 0), or None where some a_j is not proved >= 0."""
    g = gamma(2 * c.shape[0] + 4)
    e = np.zeros_like(c) if error is None else error
    a = u @ c
    slack = (np.abs(u) @ (np.abs(c) * g + e)) * (1.0 + g) + np.abs(u) @ e
    low = np.nextafter(a - slack, -np.inf)
    # every term u_i C_ij >= 0 with C exact: the exact sum is >= 0 whatever the computed one says
    terms_nonnegative = ((u[:, None] * c) >= 0).all(axis=0) & ~(e > 0).any(axis=0)
    if not (terms_nonnegative | (low >= 0)).all():
        return None
    norm = widen_up(math.sqrt(widen_up(float(u @ u), gamma(c.shape[0]))), gamma(1))
    if not norm > 0:
        return None
    return np.asarray(np.nextafter(np.maximum(low, 0.0) / norm, 0.0))


def _lattice(contributions: np.ndarray, sampling: Sampling, cells: int) -> tuple[np.ndarray, float]:
    """(units, step): a_j rounded down to whole multiples of a power-of-two step h, the largest
    total about ``cells`` steps (exact: a_j / h and k h are exact for a power of two h, k <
    2^53)."""
    largest = float(contributions.max())
    # below 2^-1000 the lattice's scale 2^(20 - log2 a) passes the doubles: every a_j is lowered to
    # 0, the trivial lower side (the divergences are non-decreasing in each shift, so a lowered
    # shift keeps the side certified)
    if not largest >= 2.0**-1000:
        return np.zeros(contributions.size, dtype=np.int64), 1.0
    fine = 2.0 ** (
        20 - math.ceil(math.log2(largest))
    )  # a_j in about 2^20 steps: the largest total, from above
    peak = float(sampling.most(np.ceil(contributions * fine).astype(np.int64))) / fine
    step = 2.0 ** math.ceil(math.log2(peak / cells))
    return np.floor(contributions / step).astype(np.int64), step


@accountant_docs(sides=LOWER_ONLY)
class RealizableLowerSide:
    r"""Certified lower side of delta(eps) for the matrix mechanism C x + z N(0, I) under sampled participation.

    One record contributes +1 in each round it enters and the others 0 (a realizable input), so the
    output difference is C 1_s, s the record's random pattern; projected on a fixed direction u the
    pair becomes the one-dimensional mixture of Gaussians

    .. math::

        P = \mathbb{E}_s\, N\Big(\frac{u^\top C 1_s}{\|u\|}, z^2\Big), \qquad Q = N(0, z^2),

    a post-processing of the realizable pair, so its hockey-stick divergence in each direction is a
    lower bound on the mechanism's delta (data processing).  With every u' C e_j >= 0 the shifts are
    lowered to a lattice (the divergences are non-decreasing in each shift then) and the law of the
    shift is computed exactly over the scheme's patterns (``BallsInBinsSampling``,
    ``RandomAllocationSampling``, ``BMinSepSampling``, ``CyclicPoissonSampling``); the pair's PLD is
    ``pld.mixture_of_gaussians``, whose certified lower side is read.  The module docstring states
    each step and assumption.

    Parameters
    ----------
    strategy : Strategy or array_like
        C, one column per round: a 2-D matrix (rows released as their rounds are in), ``Banded``,
        ``BLT``, ``Tree()`` or any ``Strategy``.
    rounds : int
        n, the number of rounds (columns of C), a whole number in [1, 2048].
    noise_multiplier : float
        z, finite and > 0, in units of the clip norm.
    sampling : Sampling
        The participation scheme: ``BallsInBinsSampling(b)``, ``RandomAllocationSampling(k)``,
        ``BMinSepSampling(b, p)`` or ``CyclicPoissonSampling(b, q, group)``.
    direction : array_like, optional
        u, one entry per row of C; None (default): the better of the all-ones vector and C 1.
    shift_cells : int, default 256
        The lattice the shifts are rounded down to has about this many steps up to the largest shift
        (more: a tighter lower side, a longer mixture); balls-in-bins, whose law has at most b
        atoms, uses 2^40.
    value_discretization_interval : float, default 1e-2
        The PLD grid of ``pld.mixture_of_gaussians``.

    Raises
    ------
    ValueError
        ``noise_multiplier`` not finite and > 0; ``rounds`` outside [1, 2048] or not C's column
        count; ``sampling`` not a ``Sampling``; ``direction`` of the wrong length, or (given or by
        default) no direction with every u' C e_j proved >= 0 (C with negative entries: give a
        direction whose projections of C's columns are all >= 0).
    ParameterTypeError
        A numeric argument that is a string, bool or None.

    References
    ----------
    Choquette-Choo et al. 2024 (arXiv:2410.06266), Sec. 3; Choquette-Choo, Ganesh, Steinke &
    Thakurta 2024 (ICLR), Sec. 4 (mixtures of Gaussians); Higham 2002, Lemma 3.1.

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.matrix import BallsInBinsSampling, RealizableLowerSide
    >>> c = np.tril(np.ones((4, 4)))
    >>> side = RealizableLowerSide(strategy=c, rounds=4, noise_multiplier=3.0, sampling=BallsInBinsSampling(2))
    >>> 0.0 < side.delta(1.0) < 0.1
    True
    """

    bound_sides: tuple[Bound, ...] = LOWER_ONLY

    def __init__(
        self,
        *,
        strategy: Any,
        rounds: int,
        noise_multiplier: float,
        sampling: Sampling,
        direction: npt.ArrayLike | None = None,
        shift_cells: int = 256,
        value_discretization_interval: float = 1e-2,
    ) -> None:
        n = count(rounds, "rounds", maximum=2048)
        z = moderate(positive_number(noise_multiplier, "noise_multiplier"), "noise_multiplier")
        if not isinstance(sampling, Sampling):
            raise ValueError(
                f"sampling must be a Sampling (BallsInBinsSampling(b), RandomAllocationSampling(k), "
                f"BMinSepSampling(b, p) or CyclicPoissonSampling(b, q)), got {describe(sampling)}"
            )
        cells = count(shift_cells, "shift_cells", maximum=2**16)
        c, error = strategy_from(strategy, 1).matrix(n)
        self.rounds = n
        self.noise_multiplier = z
        self.sampling = sampling
        # (direction, PLD of the projected pair) of each direction used
        self.projections: list[tuple[np.ndarray, PrivacyLossDistribution]] = []
        self._weight_error = sampling.weight_error(n)
        for u in self._directions(c, direction):
            contributions = _projected(c, error, u)
            if contributions is None:
                continue
            # a law formed pattern by pattern carries no array: a lattice of 2^40 steps is as cheap
            units, step = _lattice(
                contributions, sampling, 2**40 if sampling.few_patterns else cells
            )
            totals, weights = sampling.law(units)
            pld = mixture_of_gaussians(
                z,
                totals * step,
                weights / weights.sum(),
                value_discretization_interval=value_discretization_interval,
            )
            self.projections.append((u, pld))
        if not self.projections:
            raise ValueError(
                "direction must project every column of C to a value >= 0 (u' C e_j >= 0, proved despite round-off): "
                "the lower side needs a likelihood ratio monotone in the projection; C has negative entries here, "
                "so pass direction=u with u' C e_j >= 0 for every round j (for example a row of C's inverse "
                "transpose that is non-negative on C)"
            )

    @staticmethod
    def _directions(c: np.ndarray, direction: npt.ArrayLike | None) -> list[np.ndarray]:
        if direction is None:
            return [np.ones(c.shape[0]), c @ np.ones(c.shape[1])]
        u = np.asarray(direction, dtype=np.float64)
        if u.shape != (c.shape[0],) or not np.isfinite(u).all():
            raise ValueError(
                f"direction must be a finite vector with one entry per row of C ({c.shape[0]}), got shape {u.shape}"
            )
        return [u]

    def delta(self, epsilon: npt.ArrayLike, *, bound: Bound = "lower") -> Any:
        """Certified lower bound on delta(eps), the larger over the directions used.

        Parameters
        ----------
        epsilon : array_like
            eps, any real numbers (not NaN).

        Returns
        -------
        float or numpy.ndarray
            A lower bound on the mechanism's delta(eps) under add or remove one record, of the shape
            of ``epsilon``.

        Raises
        ------
        ValueError
            ``epsilon`` NaN.
        """
        if bound_side(bound) != "lower":
            raise ValueError(
                f'bound must be "lower" for RealizableLowerSide, got {describe(bound)}: a realizable '
                "pair's divergence certifies the lower side only (an upper side: MMCC, or the mechanism "
                "without amplification)"
            )
        eps = epsilon_values(epsilon)
        sides = [
            np.asarray(pld.delta(eps, bound="lower"), dtype=float) for _, pld in self.projections
        ]
        best = np.maximum.reduce(sides)
        # the computed law is off by at most W in L1 and its renormalization by at most W again (its
        # exact sum is 1): H(P||Q) moves by at most 2W, H(Q||P) by e^eps 2W; 3W and the factor cover
        # their round-off
        with np.errstate(over="ignore"):
            slack = 3.0 * self._weight_error * np.exp(np.maximum(eps, 0.0)) * (1.0 + 2.0**-40)
        return scalar_or_array(np.maximum(best - slack, 0.0))
