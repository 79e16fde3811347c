"""Rounds of a few PMFs read as a sum over how many rounds pass a split loss: certified where the
plain composition's round-off charge, relative to the whole mass, is a large part of a small delta.

Each segment i is T_i rounds of one PMF p_i (one side, all on the grid l_k = k h).  With T = sum_i
T_i and the split t = floor / T, p_i is the sum of its part b_i at losses up to t and the rest r_i
above it (its mass at +infinity apart).  Convolution is bilinear and commutative, so the composition
of the finite parts is exactly

    prod_i (b_i + r_i)^{*T_i} = sum_j prod_i C(T_i, j_i) b_i^{*(T_i - j_i)} * r_i^{*j_i},

over j = (j_1, ..) with 0 <= j_i <= T_i, and the term j = 0 lies at losses up to T t: at every eps
>= floor (eps - sum_i T_i s_i on the pessimistic side, s_i the rounds' ``loss_shift``) its delta
is 0.  With the r_i small in mass (small sampling rates: a round's loss passes eps / T rarely) the
terms j != 0 carry the answer, and each is composed by ``fft.compose_many`` (its long-double
low-frequency bins in every row) with every r_i scaled to unit mass (r_i / m_i, then the term times
prod_i C(T_i, j_i) m_i^{j_i}): a composition's charges are relative to its factors' masses (dropped
bins at an absolute 2^-64 among them), so composed at the scale of 1 they stay relative to the term,
not to the whole mass.

Terms below ``negligible`` are left out.  On the pessimistic side they are bounded and added: per
segment, past J_i >= 2 T_i m_i the terms C(T_i, j) m_i^j c_i^{T_i - j} (c_i = max(1, m_{b_i})) fall
at least twofold each, so those past J_i sum to at most twice the first, times prod_{i' != i}
(c_i' + m_i')^{T_i'} for the other segments; a product of kept per-segment terms below ``negligible`` adds
at most ``negligible`` each.  The mass at +infinity is at most sum_i T_i pi_i prod_i' max(1, c_i' +
m_i' + pi_i')^{T_i'}.  Each bound is doubled for the rounding of its float products and sums.  On
the optimistic side dropping terms keeps a lower bound.

Rounding (u = 2^-53): r_i = m_i fl(r_i / m_i) (1 + theta), |theta| <= 2u, so a term is within prod_i
(1 +- 2u)^{j_i} of its scale times the composition of the scaled parts (nonnegative entries,
monotone in each); C(T_i, j_i) as a double (u), m_i correctly rounded (u; ``exact_sum``), its power (j_i u) and the
product over the segments: each scale is rounded outward by sum_i (3 j_i + 4) u, and the sum of the
terms (``math.fsum``, nonnegative) by 4u.

Domain: rounds as discretized (no charges yet, no constant shift), one grid and one side, at most
``MAX_TERMS`` terms; ``ValueError`` elsewhere, so that a caller falls back to its own read.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from ..grid.pmf import GridPMF
from .atoms_epsilon import epsilon_search
from .fft import DEFAULT_TAIL, compose_many

# the most terms composed (each one composition of a few factors): past it the split costs more than
# it saves
MAX_TERMS = 32
# the most grid points the terms' compositions may span together, each term's span taken as its
# factors' points times their counts (a window's tails cut it shorter): past it the split costs
# seconds (a delta of 1e-300 cuts each round 37 sigma out, 6.6e5 points at h = 5e-5, over 30 terms),
# and the caller's bracket stands
MAX_SPAN_POINTS = 1 << 23
UNIT_ROUNDOFF = 2.0**-53
# the least window tail asked of a composition (as ``refine.question``'s least discretization tail)
SMALLEST_TAIL = 1e-300


# the elements ``exact_sum`` splits per pass (its integer temporaries stay a few MB each)
EXACT_SUM_CHUNK = 1 << 20


def exact_sum(values: np.ndarray) -> float:
    """The sum of finite non-negative doubles correctly rounded to a double (round half to even): the
    value ``math.fsum`` returns, in numpy passes instead of one Python step per element (a round on a
    fine grid holds tens of millions of masses).

    Each value is m 2^(e - 1075) with m = its 53-bit significand (its leading bit but where subnormal)
    and e = max(its biased exponent, 1).  Per e, the sums of m's low 26 and high 27 bits are integers
    below 2^53 over at most 2^26 values (``EXACT_SUM_CHUNK`` per pass), so ``np.bincount``'s double
    accumulation is exact; the total sum_e (high_e 2^26 + low_e) 2^(e - 1) is a Python integer, and its
    quotient by 2^1074 is correctly rounded (Python's integer true division).

    Parameters
    ----------
    values : numpy.ndarray
        The doubles to sum (any shape); where one is negative, infinite or NaN, ``math.fsum`` of them.

    Returns
    -------
    float
        The correctly rounded sum (0.0 for none).

    Raises
    ------
    OverflowError
        If the sum is beyond the largest double (as ``math.fsum``).
    """
    flat = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
    if not (np.all(flat >= 0.0) and np.all(flat < math.inf)):
        return math.fsum(flat)
    total = 0
    for start in range(0, flat.size, EXACT_SUM_CHUNK):
        bits = flat[start : start + EXACT_SUM_CHUNK].view(np.uint64)
        exponent = (bits >> np.uint64(52)).astype(np.int64) & 0x7FF  # -0.0's sign bit dropped
        significand = (bits & np.uint64((1 << 52) - 1)).astype(np.int64)
        significand += (exponent > 0).astype(np.int64) << 52
        np.maximum(exponent, 1, out=exponent)
        low = (significand & ((1 << 26) - 1)).astype(np.float64)
        high = (significand >> 26).astype(np.float64)
        low_sums = np.bincount(exponent, weights=low, minlength=2047)
        high_sums = np.bincount(exponent, weights=high, minlength=2047)
        for e in np.flatnonzero((low_sums > 0.0) | (high_sums > 0.0)):
            total += ((int(high_sums[e]) << 26) + int(low_sums[e])) << (int(e) - 1)
    return total / (1 << 1074)


class Part:
    """One segment of a split: T rounds of a PMF cut at grid index ``split`` into its part ``below``
    (losses at most split h) and the rest ``above`` scaled to unit mass (``mass`` its mass), with
    the per-segment terms j whose C(T, j) m^j reaches ``negligible`` (``weights``) and a bound on
    the sum of those past them (``omitted``)."""

    def __init__(self, pmf: GridPMF, rounds: int, split: int, negligible: float):
        cut = split - pmf.k_lo + 1
        if cut <= 0:
            raise ValueError(f"no loss of a round lies at or below the split {split * pmf.h!r}")
        self.rounds = rounds
        self.mass = exact_sum(pmf.p[cut:])
        self.bulk = max(1.0, exact_sum(pmf.p[:cut]))  # c = max(1, m_b)
        self.p_inf = pmf.p_inf
        side, h, shift = pmf.pessimistic, pmf.h, pmf.loss_shift
        self.below = GridPMF(
            pmf.k_lo, h, pmf.p[:cut].copy(), 0.0, pessimistic=side, loss_shift=shift
        )
        scaled = pmf.p[cut:] / self.mass if self.mass > 0.0 else pmf.p[cut:].copy()
        self.above = GridPMF(split + 1, h, scaled, 0.0, pessimistic=side, loss_shift=shift)
        j, tipping = 1, 2.0 * rounds * self.mass
        if tipping > MAX_TERMS:  # every term up to 2 T m is kept: more than MAX_TERMS of them
            raise ValueError(
                f"more than {MAX_TERMS} terms of the split: T m = {rounds * self.mass!r}"
            )
        self.weights: list[tuple[int, float]] = [(0, self.bulk**rounds)]
        reaching = 0  # the terms j >= 1 at or above negligible: the split keeps each (``_terms``)
        while j <= rounds and self.mass > 0.0:
            weight = _term(rounds, j, self.mass, self.bulk)
            if weight < negligible and j >= tipping:
                break
            reaching += weight >= negligible
            if reaching > MAX_TERMS:
                raise ValueError(
                    f"more than {MAX_TERMS} terms of the split are above {negligible!r}"
                )
            self.weights.append((j, weight))
            j += 1
        self.omitted = 0.0
        if (
            j <= rounds and self.mass > 0.0
        ):  # past 2 T m the terms at least halve: at most twice the first left out
            self.omitted = 2.0 * _term(rounds, j, self.mass, self.bulk)

    def factors(self, j: int) -> list[tuple[GridPMF, int]]:
        """The factors of b^{*(T - j)} * (r / m)^{*j}."""
        return [
            (pmf, count)
            for pmf, count in ((self.below, self.rounds - j), (self.above, j))
            if count > 0
        ]

    def scale(self, j: int) -> float:
        """C(T, j) m^j, unrounded."""
        return float(math.comb(self.rounds, j)) * self.mass**j

    def total(self) -> float:
        """(c + m)^T, the part's terms all together."""
        return (self.bulk + self.mass) ** self.rounds


def _term(rounds: int, j: int, mass: float, bulk: float) -> float:
    """C(T, j) m^j c^(T - j), the binomial coefficient converted to a double first (as Python
    multiplies an int by a float); ValueError where C(T, j) or c^(T - j) passes the double range,
    so that the split does not apply there rather than overflowing."""
    try:
        return math.comb(rounds, j) * mass**j * bulk ** (rounds - j)
    except OverflowError:
        raise ValueError(
            f"the split's term C({rounds}, {j}) m^{j} c^(T - j) passes the double range"
        ) from None


def split_index(pmf: GridPMF, each: float) -> int:
    """The grid index k_t of a round's split: one cell below (each - s) / h (s the round's
    ``loss_shift``), so that k_t h + s <= each whatever the rounding of that quotient; the PMF's
    last index where that is above it."""
    top = pmf.k_lo + pmf.p.size - 1
    index = (each - pmf.loss_shift) / pmf.h
    return top if not index < top + 2 else math.floor(index) - 1


class BinomialSplit:
    """The certified delta curve of the composition of ``segments`` ((one round's PMF, its rounds)
    pairs, one grid, one side) at every eps >= ``floor``, from the terms j != 0 of the module
    docstring's sum (split at t = floor / T, less each segment's loss shift, rounded down a cell),
    each composed with windows whose tails are at most ``tail`` (an absolute delta: a window's tail
    is of its unit-mass composition, so at most ``tail`` over the largest scale, within
    [``SMALLEST_TAIL``, ``DEFAULT_TAIL``]); terms below ``negligible`` (an absolute delta) are
    bounded (pessimistic) or dropped (optimistic).

    Raises
    ------
    ValueError
        Where a PMF carries charges or a shift, the PMFs are on different grids or sides, a segment
        has fewer than one round, ``floor`` is not finite and > 0, nothing of a PMF lies at or below
        the split, more than ``MAX_TERMS`` terms are above ``negligible``, or the terms span more
        than ``MAX_SPAN_POINTS`` grid points.
    """

    def __init__(
        self, segments: Sequence[tuple[GridPMF, int]], floor: float, negligible: float, tail: float
    ):
        first = segments[0][0]
        for pmf, rounds in segments:
            if (
                pmf.shift != 0.0
                or pmf.entry_error != 0.0
                or pmf.total_error != 0.0
                or pmf.inverse_error != 0.0
            ):
                raise ValueError(
                    "every pmf must be one round as discretized (no charges, no shift) to be split"
                )
            if pmf.h != first.h or pmf.pessimistic != first.pessimistic:
                raise ValueError("every pmf of a split must be on one grid and one side")
            if rounds < 1:
                raise ValueError(f"rounds must be >= 1, got {rounds}")
        if not (math.isfinite(floor) and floor > 0.0):
            raise ValueError(f"floor must be a finite epsilon > 0 to split at, got {floor!r}")
        self.pessimistic = first.pessimistic
        self.floor = float(floor)
        each = floor / sum(int(r) for _, r in segments)
        parts = [Part(p, int(r), split_index(p, each), negligible) for p, r in segments]
        terms, pruned = self._terms(parts, negligible)
        self.scales, self.composed = self._composed(parts, terms, tail)
        self.rest = self._rest(parts, pruned, negligible) if self.pessimistic else 0.0

    @staticmethod
    def _terms(parts: list[Part], negligible: float) -> tuple[list[tuple[int, ...]], int]:
        """The vectors j != 0 of kept per-segment terms whose product weight reaches ``negligible``,
        and how many such products fell below it."""
        kept, pruned = [], 0
        for combination in itertools.product(*(part.weights for part in parts)):
            if all(j == 0 for j, _ in combination):
                continue
            if math.prod(w for _, w in combination) < negligible:
                pruned += 1
                continue
            kept.append(tuple(j for j, _ in combination))
            if len(kept) > MAX_TERMS:
                raise ValueError(
                    f"more than {MAX_TERMS} terms of the split are above {negligible!r}"
                )
        return kept, pruned

    def _composed(
        self, parts: list[Part], terms: list[tuple[int, ...]], tail: float
    ) -> tuple[list[float], list[GridPMF]]:
        """Each term's scale prod_i C(T_i, j_i) m_i^{j_i}, rounded outward, and its composition."""
        if not terms:
            return [], []
        span = sum(
            sum(f.p.size * count for f, count in part.factors(ji))
            for j in terms
            for part, ji in zip(parts, j)
        )
        if span > MAX_SPAN_POINTS:
            raise ValueError(
                f"the split's terms span {span} grid points, more than {MAX_SPAN_POINTS}"
            )
        outward = 1.0 if self.pessimistic else -1.0
        scales = []
        for j in terms:
            rounding = sum(3 * ji + 4 for ji in j) * UNIT_ROUNDOFF
            scales.append(
                math.prod(part.scale(ji) for part, ji in zip(parts, j)) * (1.0 + outward * rounding)
            )
        items = [[f for part, ji in zip(parts, j) for f in part.factors(ji)] for j in terms]
        window = max(SMALLEST_TAIL, min(DEFAULT_TAIL, tail / max(scales)))
        # every row with the long-double low-frequency bins (``fft.compose_many``'s direct bins,
        # from a charge of 0): a term's charge is then ~2000x below the double transform's, which
        # the split is read for
        return scales, compose_many(
            items,
            pessimistic=self.pessimistic,
            tail=window,
            direct_bins=True,
            direct_min_charge=0.0,
        )

    @staticmethod
    def _rest(parts: list[Part], pruned: int, negligible: float) -> float:
        """The pessimistic side's terms left out and its mass at +infinity (module docstring),
        doubled for the rounding of their float products and sums."""
        totals = [part.total() for part in parts]
        omitted = math.fsum(
            part.omitted * math.prod(t for k, t in enumerate(totals) if k != i)
            for i, part in enumerate(parts)
        )
        whole = math.prod(
            max(1.0, part.bulk + part.mass + part.p_inf) ** part.rounds for part in parts
        )
        infinity = math.fsum(part.rounds * part.p_inf for part in parts) * whole
        return 2.0 * (omitted + pruned * negligible + infinity)

    def delta(self, eps: float) -> float:
        """The certified delta at ``eps`` on this side: below ``floor`` the term j = 0 is not known
        to vanish, so 1 (pessimistic) or the terms j != 0 alone (optimistic, still a lower
        bound)."""
        if self.pessimistic and not eps >= self.floor:
            return 1.0
        x = np.array(float(eps))
        total = math.fsum(s * float(c.delta(x)) for s, c in zip(self.scales, self.composed))
        if self.pessimistic:
            return min(1.0, (total + self.rest) * (1.0 + 4.0 * UNIT_ROUNDOFF))
        return total * (1.0 - 4.0 * UNIT_ROUNDOFF)

    def epsilon(self, delta: float, top: float) -> float:
        """The certified epsilon at ``delta`` on this side, searched up to ``top``: upper, the least
        eps found with delta(eps) <= ``delta`` (inf where ``top`` does not qualify; never below
        ``floor``, where the curve is 1); lower, the largest found with delta(eps) > ``delta``
        (``atoms_epsilon.epsilon_search``, to a few ulps of ``top``)."""

        def curve(xs: np.ndarray) -> np.ndarray:
            return np.array([self.delta(float(x)) for x in xs])

        if self.pessimistic and not self.delta(top) <= delta:
            return math.inf
        return epsilon_search(
            curve, delta, upper=self.pessimistic, top=top, tolerance=4.0 * math.ulp(top)
        )
