"""T rounds of one PMF read as a sum over how many rounds pass a split loss: certified where the plain composition's
round-off charge, relative to the whole mass, is a large part of a small delta.

A round's PMF p (one side, on the grid l_k = k h) is the sum of its part b at losses up to the split t = k_t h and
the rest r above it (its mass at +infinity apart).  Convolution is bilinear and commutative, so the T-fold
composition of the finite part is exactly

    (b + r)^{*T} = sum_{j=0..T} C(T, j) b^{*(T-j)} * r^{*j},

and the term j = 0 lies at losses up to T t: at every eps >= T t (eps - T s on the pessimistic side, s the round's
``loss_shift``) its delta is 0.  With r small in mass (a small sampling rate: a round's loss passes eps / T
rarely) the terms j >= 1 carry the answer, and each is composed by ``fft.compose_many`` with r scaled to unit mass
(``r / m_r``, then the term times C(T, j) m_r^j): a composition's charges are relative to its factors' masses
(dropped bins at an absolute 2^-64 among them), so composed at the scale of 1 they stay relative to the term, not to
the whole mass, and the term's charge is m_r^j times a charge of the plain composition's size.  Terms with
C(T, j) m_r^j below ``negligible`` are left out: on the pessimistic side their sum, bounded by
sum_{j > J} C(T, j) m_r^j max(1, m_b)^{T-j}, is added, on the optimistic side dropping them keeps a lower bound.
The mass at +infinity, (m + pi)^T - m^T <= T pi max(1, m + pi)^{T-1} for a finite mass m, is added on the
pessimistic side, dropped on the optimistic one.

Rounding (u = 2^-53): r_i = m_r fl(r_i / m_r) (1 + theta), |theta| <= 2u, so a term is within (1 +- 2u)^j of
m_r^j times the composition of the scaled parts (nonnegative entries, monotone in each); C(T, j) as a double
(u), m_r by ``math.fsum`` (u) and its j-th power (j u): each scale is rounded outward by (3 j + 4) u, and the sum
of the terms (``math.fsum``, nonnegative) by 4 u.

Domain: one round as discretized (no charges yet, no constant shift), on the pessimistic side any mass at
+infinity, at most ``MAX_TERMS`` terms; ``ValueError`` elsewhere, so that a caller falls back to its own read.
"""

from __future__ import annotations

import math

import numpy as np

from .atoms_epsilon import epsilon_search
from .fft import DEFAULT_TAIL, compose_many
from .pmf import GridPMF

# the most terms composed (each one composition of two factors): past it the split costs more than it saves
MAX_TERMS = 16
UNIT_ROUNDOFF = 2.0**-53
# the least window tail asked of a composition (as ``refine.question``'s least discretization tail)
SMALLEST_TAIL = 1e-300


class BinomialSplit:
    """The certified delta curve of ``rounds`` rounds of ``pmf`` (one round, one side) at every eps >= ``floor``,
    from the terms j >= 1 of the module docstring's sum (split at t = floor / T, less the loss shift, rounded
    down a cell), each composed with windows whose tails are at most ``tail`` (an absolute delta: a window's tail
    is of its unit-mass composition, so at most ``tail`` over the largest scale, within [``SMALLEST_TAIL``,
    ``DEFAULT_TAIL``]); terms below ``negligible`` (an absolute delta) are bounded (pessimistic) or dropped
    (optimistic).

    Raises
    ------
    ValueError
        Where ``pmf`` carries charges or a shift, ``rounds`` < 1, nothing of ``pmf`` lies at or below the split,
        or more than ``MAX_TERMS`` terms are above ``negligible``.
    """

    def __init__(self, pmf: GridPMF, rounds: int, floor: float, negligible: float, tail: float):
        if pmf.shift != 0.0 or pmf.entry_error != 0.0 or pmf.total_error != 0.0 or pmf.inverse_error != 0.0:
            raise ValueError("pmf must be one round as discretized (no charges, no shift) to be split")
        if rounds < 1:
            raise ValueError(f"rounds must be >= 1, got {rounds}")
        self.pessimistic = pmf.pessimistic
        self.floor = float(floor)
        split = math.floor((floor / rounds - pmf.loss_shift) / pmf.h) - 1  # one cell below, for the rounding
        cut = split - pmf.k_lo + 1
        if cut <= 0:
            raise ValueError(f"no loss of the round lies at or below floor / rounds = {floor / rounds!r}")
        below, above = pmf.p[:cut], pmf.p[cut:]
        mass_b, mass_r = math.fsum(below), math.fsum(above)
        self.terms = self._terms(rounds, mass_r, negligible)
        self.scales, self.composed = self._composed(pmf, rounds, split, below, above, mass_r, tail)
        self.rest = self._rest(rounds, mass_b, mass_r, pmf.p_inf) if self.pessimistic else 0.0

    @staticmethod
    def _terms(rounds: int, mass_r: float, negligible: float) -> list[int]:
        """The j >= 1 whose C(T, j) m_r^j reaches ``negligible`` (they fall once j passes T m_r)."""
        terms = []
        for j in range(1, rounds + 1):
            weight = math.comb(rounds, j) * mass_r**j
            if weight < negligible and j > rounds * mass_r:
                break
            terms.append(j)
            if len(terms) > MAX_TERMS:
                raise ValueError(f"more than {MAX_TERMS} terms of the split are above {negligible!r}")
        return terms

    def _composed(
        self,
        pmf: GridPMF,
        rounds: int,
        split: int,
        below: np.ndarray,
        above: np.ndarray,
        mass_r: float,
        tail: float,
    ) -> tuple[list[float], list[GridPMF]]:
        """Each term's scale C(T, j) m_r^j, rounded outward, and the composition of b^{*(T-j)} * (r / m_r)^{*j}."""
        if not self.terms:
            return [], []
        side = self.pessimistic
        b = GridPMF(pmf.k_lo, pmf.h, below.copy(), 0.0, pessimistic=side, loss_shift=pmf.loss_shift)
        r = GridPMF(split + 1, pmf.h, above / mass_r, 0.0, pessimistic=side, loss_shift=pmf.loss_shift)
        items = [[(b, rounds - j), (r, j)] if j < rounds else [(r, j)] for j in self.terms]
        outward = 1.0 if side else -1.0
        scales = [
            float(math.comb(rounds, j)) * mass_r**j * (1.0 + outward * (3 * j + 4) * UNIT_ROUNDOFF) for j in self.terms
        ]
        # each composition's window tail, of its unit-mass scale: at most `tail` of the term's own scale
        window = max(SMALLEST_TAIL, min(DEFAULT_TAIL, tail / max(scales)))
        return scales, compose_many(items, pessimistic=side, tail=window)

    def _rest(self, rounds: int, mass_b: float, mass_r: float, p_inf: float) -> float:
        """The pessimistic side's terms left out, sum_{j > J} C(T, j) m_r^j max(1, m_b)^{T-j}, and the mass at
        +infinity, T pi max(1, m + pi)^{T-1}, each doubled for the rounding of its float sums (a bound far below
        ``negligible`` times a handful)."""
        last = self.terms[-1] if self.terms else 0
        big = max(1.0, mass_b)
        left = math.fsum(math.comb(rounds, j) * mass_r**j * big ** (rounds - j) for j in range(last + 1, rounds + 1))
        infinity = rounds * p_inf * max(1.0, mass_b + mass_r + p_inf) ** (rounds - 1)
        return 2.0 * (left + infinity)

    def delta(self, eps: float) -> float:
        """The certified delta at ``eps`` on this side: below ``floor`` the term j = 0 is not known to vanish, so 1
        (pessimistic) or the terms j >= 1 alone (optimistic, still a lower bound)."""
        if self.pessimistic and not eps >= self.floor:
            return 1.0
        x = np.array(float(eps))
        total = math.fsum(s * float(c.delta(x)) for s, c in zip(self.scales, self.composed))
        if self.pessimistic:
            return min(1.0, (total + self.rest) * (1.0 + 4.0 * UNIT_ROUNDOFF))
        return total * (1.0 - 4.0 * UNIT_ROUNDOFF)

    def epsilon(self, delta: float, top: float) -> float:
        """The certified epsilon at ``delta`` on this side, searched in [``floor``, ``top``]: upper, the least eps
        found with delta(eps) <= ``delta`` (inf where ``top`` does not qualify); lower, the largest found with
        delta(eps) > ``delta`` (``atoms_epsilon.epsilon_search``, to a few ulps of ``top``)."""

        def curve(xs: np.ndarray) -> np.ndarray:
            return np.array([self.delta(float(x)) for x in xs])

        if self.pessimistic and not self.delta(top) <= delta:
            return math.inf
        return epsilon_search(curve, delta, upper=self.pessimistic, top=top, tolerance=4.0 * math.ulp(top))
