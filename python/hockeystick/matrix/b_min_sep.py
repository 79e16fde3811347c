"""b-min-sep sampling with a banded Toeplitz C: Dong & Ganesh's exact privacy loss, and a certified
upper side by Renyi DP where their recursion extends to the Renyi moments.

The scheme (Dong & Ganesh 2026, arXiv:2602.09338, Sec. 5, Algorithms 1 and 2; ``BMinSepSampling``):
a record not taken in its last b - 1 rounds is taken with probability p; from a cold start it is
available in round 0, from the warm start (the stationary age of its last participation) in round 0
with probability 1 / (1 + (b - 1) p) and in each of rounds 1..b-1 with probability p / (1 + (b - 1)
p).  C is banded Toeplitz with first column c >= 0, |c| <= b, so two participations of one record
never share a row of C.  The pair (the record's pattern S drawn by the scheme; noise multiplier
sigma):

    P = E_S N(C 1_S, sigma^2 I_n),   Q = N(0, sigma^2 I_n).

That this pair dominates the mechanism whose records contribute adaptively chosen vectors of norm <=
1 (add or remove one record) is Dong & Ganesh's reduction (Sec. 5), cited here, not re-proved; every
step below is certified given the pair.

**Exact loss** (their Eq. (2), checked against their stated values).  Write a_i = (<c,
y_{i:i+|c|}> - ||c_{:n-i}||^2 / 2) / sigma^2 (c truncated past round n - 1).  Participations at least b >= |c|
apart touch disjoint rows, so log P/Q(y) = log E_S exp(sum_{i in S} a_i), computed backward: L_i = 0
for i >= n and

    e^{L_i} = (1 - p) e^{L_{i+1}} + p e^{a_i} e^{L_{i+b}},

the loss L_0 from the cold start and log[(e^{L_0} + p sum_{j=1}^{b-1} e^{L_j}) / (1 + (b - 1) p)]
from the warm start.  ``b_min_sep_privacy_loss`` evaluates it in log space for any array of outputs
y; a Monte Carlo of the pair draws y ~ P (``b_min_sep_patterns``) or y ~ Q and averages (1 - e^{eps
-+ L})_+.

**Remove direction, exact Renyi moment** (the recursion carried to alpha copies; our derivation).
For an integer alpha >= 2 and alpha independent patterns S_1..S_alpha of the scheme, E_Q[prod_k
P_{S_k}/Q] = exp(sum_{k != k'} 1_{S_k}^T G 1_{S_k'} / (2 sigma^2)), G = C^T C, so

    E_Q[(P/Q)^alpha] = E_{S_1..S_alpha} exp( sum_{k != k'} 1_{S_k}^T G 1_{S_k'} / (2 sigma^2) ).

G_{t t'} vanishes for |t - t'| >= |c|, and a copy takes part at most once in any b consecutive
rounds, so the cross terms a round adds depend only on how many copies took part there (m) and how
many took part a rounds before (n_a, a < b): round t multiplies by exp([m (m - 1) G_tt + 2 m sum_a
n_a G_{t,t-a}] / (2 sigma^2)).  The copies are exchangeable, so the state is the count vector
(n_1..n_{b-1}, free) and the expectation a forward dynamic program over rounds, m ~ Binomial(free,
p); the warm start draws each copy's initial age from the stationary law (its earlier participations
release nothing: G is 0 before round 0).  Its cost is the number of (state, m) pairs, C(alpha +
b, b) or so, per round: orders whose cost exceeds ``MAX_WORK`` are not computed. D_alpha(P||Q) = log
E_Q[(P/Q)^alpha] / (alpha - 1), rounded up by a margin above the log-sum-exp round-off.

**Add direction, the AM-GM (Jensen) bound** (our derivation, as for balls-in-bins in the papers
file): P/Q(y) = E_S exp(sum_{i in S} a_i) >= exp(E_S sum_{i in S} a_i) = exp(sum_i pi_i a_i), pi_i =
P(i in S), so E_Q[(Q/P)^{alpha - 1}] <= E_Q exp(-(alpha - 1) sum_i pi_i a_i) and

    D_alpha(Q||P) <= sum_i pi_i ||C e_i||^2 / (2 sigma^2) + (alpha - 1) ||C pi||^2 / (2 sigma^2),

exact at b = 1 with p = 1.  The marginals pi follow from pi_t = p (1 - sum_{a=1}^{b-1} pi_{t-a} -
w_t), w_t the probability the warm start still waits at t (the events are disjoint: one
participation per b rounds).

Both directions' RDP curves are converted with the tight conversion (``rdp.rdp_to_epsilon``; Balle
et al. 2020, Thm 21); the larger of the two directions is used at each order.
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from ..base.accountant import UPPER_ONLY, Bound
from ..base.accountant_docs import accountant_docs
from ..base.validation import (
    as_real_array,
    count,
    delta_values,
    describe,
    epsilon_values,
    flag,
    in_interval,
    moderate,
    positive_number,
    scalar_or_array,
    upper_only,
)

__all__ = [
    "BMinSepRDP",
    "DEFAULT_ORDERS",
    "MAX_WORK",
    "b_min_sep_patterns",
    "b_min_sep_privacy_loss",
]

DEFAULT_ORDERS = (2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 96, 128)
MAX_WORK = 4e7  # (state, m) pairs times rounds: about a few CPU seconds of the dynamic program
_MARGIN = (
    2.0**-40
)  # relative margin on each log moment: far above the round-off of its log-sum-exps


def _column(coefficients: Any, separation: int) -> np.ndarray:
    """c as a float array: 1-d, non-empty, finite, >= 0, at most b long."""
    c = as_real_array(coefficients, "coefficients")
    if c.ndim != 1 or c.size == 0 or not np.isfinite(c).all():
        raise ValueError(
            f"coefficients must be a non-empty 1-d sequence of finite numbers, got {describe(coefficients)}"
        )
    if (c < 0).any():
        raise ValueError(
            f"coefficients must be >= 0 for b-min-sep's pair, got {describe(coefficients)}: a negative band breaks the "
            "monotone reduction; DPFTRL gives the guarantee without amplification"
        )
    if c.size > separation:
        raise ValueError(
            f"coefficients must have at most min_separation = {separation} entries, got {c.size}: two participations "
            "would share a row of C and the loss would not factor (Dong & Ganesh 2026, Sec. 5)"
        )
    return c


def _row_terms(y: np.ndarray, c: np.ndarray, sigma: float) -> np.ndarray:
    """a_i = (<c, y_{i:i+|c|}> - ||c_{:n-i}||^2 / 2) / sigma^2 along the last axis of y."""
    n = y.shape[-1]
    inner = np.zeros(y.shape)
    for k, ck in enumerate(c.tolist()):
        if k < n and ck != 0.0:
            inner[..., : n - k] += ck * y[..., k:]
    squares = np.cumsum(c * c)  # ||c_{:m}||^2 for m = 1..|c|
    norms = squares[np.minimum(n - np.arange(n), c.size) - 1]
    return cast(np.ndarray, (inner - 0.5 * norms) / (sigma * sigma))


def b_min_sep_privacy_loss(
    outputs: npt.ArrayLike,
    *,
    coefficients: npt.ArrayLike,
    noise_multiplier: float,
    sampling_rate: float,
    min_separation: int,
    warm_start: bool = True,
) -> np.ndarray:
    r"""Dong & Ganesh's exact privacy loss log P/Q(y) of b-min-sep sampling with a banded Toeplitz C.

    .. math::

        e^{L_i} = (1 - p)\, e^{L_{i+1}} + p\, e^{a_i} e^{L_{i+b}},\quad L_{i \ge n} = 0,\qquad
        a_i = \frac{\langle c, y_{i:i+|c|}\rangle - \|c_{:n-i}\|^2/2}{\sigma^2},

    the loss :math:`L_0` (cold start) or :math:`\log[(e^{L_0} + p\sum_{j=1}^{b-1} e^{L_j})/(1 +
    (b-1)p)]` (warm start), evaluated in log space (Dong & Ganesh 2026, arXiv:2602.09338, Sec. 5,
    Eq. (2)).

    Parameters
    ----------
    outputs : array_like
        y, the released rows on the last axis (n rounds); leading axes are independent outputs.
    coefficients : array_like
        c, C's first column: finite, >= 0, at most ``min_separation`` entries.
    noise_multiplier : float
        sigma, finite and > 0.
    sampling_rate : float
        p in (0, 1].
    min_separation : int
        b, a whole number >= 1.
    warm_start : bool, default True
        The warm start (Algorithm 2) or the cold start (round 0 available).

    Returns
    -------
    numpy.ndarray
        log P/Q at each output, of the leading shape of ``outputs``.

    Raises
    ------
    ValueError
        An argument outside its domain (named, with the rule); ``outputs`` not finite or without a
        last axis.
    ParameterTypeError
        A numeric argument that is a string, bool or None.

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.matrix.b_min_sep import b_min_sep_privacy_loss
    >>> loss = b_min_sep_privacy_loss(
    ...     [1.0, 1.0, 1.0], coefficients=[1.0], noise_multiplier=1.0, sampling_rate=0.5, min_separation=2,
    ...     warm_start=False)
    >>> round(float(loss), 7)
    0.6070561
    """
    b = count(min_separation, "min_separation")
    c = _column(coefficients, b)
    sigma = moderate(positive_number(noise_multiplier, "noise_multiplier"), "noise_multiplier")
    p = float(in_interval(sampling_rate, "sampling_rate", 0.0, 1.0, open_low=True, open_high=False))
    warm = flag(warm_start, "warm_start")
    y = as_real_array(outputs, "outputs")
    if y.ndim == 0 or y.shape[-1] == 0 or not np.isfinite(y).all():
        raise ValueError(
            f"outputs must be finite with the rounds on a non-empty last axis, got {describe(outputs)}"
        )
    n = y.shape[-1]
    a = _row_terms(y, c, sigma)
    skip = math.log1p(-p) if p < 1.0 else -math.inf
    take = math.log(p)
    logs = np.zeros((n + b, *y.shape[:-1]))  # logs[i] = L_i, 0 for i >= n
    for i in range(n - 1, -1, -1):
        logs[i] = np.logaddexp(skip + logs[i + 1], take + a[..., i] + logs[i + b])
    if not warm or b == 1:
        return cast(np.ndarray, logs[0])
    later = np.logaddexp.reduce(logs[1:b], axis=0) + take
    return cast(np.ndarray, np.logaddexp(logs[0], later) - math.log1p((b - 1) * p))


def b_min_sep_patterns(
    rng: np.random.Generator,
    draws: int,
    *,
    rounds: int,
    sampling_rate: float,
    min_separation: int,
    warm_start: bool,
) -> np.ndarray:
    """``draws`` independent participation patterns of b-min-sep sampling (``BMinSepSampling``), as 0/1 rows.

    Parameters
    ----------
    rng : numpy.random.Generator
        The source of randomness.
    draws : int
        The number of patterns, a whole number >= 1.
    rounds : int
        n, a whole number >= 1.
    sampling_rate : float
        p in (0, 1].
    min_separation : int
        b, a whole number >= 1.
    warm_start : bool
        Algorithm 2's start (True) or round 0 available (False).

    Returns
    -------
    numpy.ndarray
        A (draws, rounds) array of 0.0 and 1.0.

    Raises
    ------
    ValueError
        An argument outside its domain, named with its rule.
    """
    m = count(draws, "draws")
    n = count(rounds, "rounds")
    b = count(min_separation, "min_separation")
    p = float(in_interval(sampling_rate, "sampling_rate", 0.0, 1.0, open_low=True, open_high=False))
    available_from = np.zeros(m, dtype=np.int64)
    if flag(warm_start, "warm_start") and b > 1:
        # first available round: 0 with probability 1 / (1 + (b - 1) p), each of 1..b-1 with p /
        # (1 + (b - 1) p)
        probabilities = np.array([1.0] + [p] * (b - 1)) / (1.0 + (b - 1) * p)
        available_from = rng.choice(b, size=m, p=probabilities)
    out = np.zeros((m, n))
    for t in range(n):
        taken = (available_from <= t) & (rng.random(m) < p)
        out[taken, t] = 1.0
        available_from[taken] = t + b
    return out


def _gram_band(c: np.ndarray, rounds: int, t: int, lag: int) -> float:
    """G_{t, t - lag} = sum_i C_{i,t} C_{i,t-lag} for the banded Toeplitz C (rows past n - 1 cut); 0 before round 0."""
    if t - lag < 0 or lag >= c.size:
        return 0.0
    rows = min(c.size - lag, rounds - t)  # i = t + k, k < |c| - lag, i <= n - 1
    return math.fsum((c[:rows] * c[lag : lag + rows]).tolist()) if rows > 0 else 0.0


def _states(alpha: int, b: int) -> np.ndarray:
    """Every count vector (n_1..n_{b-1}, free) of alpha copies over b classes, one a row, in the
    lexicographic order of (n_1..n_{b-1}) (its rank: ``_state_rank``)."""
    rows = np.zeros((1, 0), dtype=np.int64)
    room = np.array([alpha], dtype=np.int64)  # the copies not yet given a class
    for _ in range(b - 1):  # each prefix in order, followed by its next count 0 .. room
        counts = room + 1
        prefix = np.repeat(np.arange(rows.shape[0]), counts)
        value = np.arange(prefix.size) - np.repeat(np.cumsum(counts) - counts, counts)
        rows = np.column_stack([rows[prefix], value])
        room = room[prefix] - value
    return np.column_stack([rows, room])


def _state_rank(rows: np.ndarray, alpha: int, b: int) -> np.ndarray:
    """Each count vector's row in ``_states(alpha, b)``: the number of vectors lexicographically
    before it.  Those sharing its first j - 1 counts with a smaller j-th count v < n_j number
    sum_{v < n_j} C(R - v + d, d) = C(R + d + 1, d + 1) - C(R - n_j + d + 1, d + 1) (the hockey-stick
    identity), R the copies left after the first j - 1 and d = b - 1 - j the counts after the j-th:
    each term at most the number of states, so exact in int64."""
    table = np.zeros((alpha + b + 1, b + 1), dtype=np.int64)
    for n in range(alpha + b + 1):
        for k in range(min(n, b) + 1):
            value = math.comb(n, k)
            table[n, k] = value if value < 2**62 else -1  # entries past the states' count unused
    rank = np.zeros(rows.shape[0], dtype=np.int64)
    left = np.full(rows.shape[0], alpha, dtype=np.int64)
    for j in range(b - 1):
        d = b - 2 - j
        n_j = rows[:, j]
        rank += table[left + d + 1, d + 1] - table[left - n_j + d + 1, d + 1]
        left = left - n_j
    return rank


def _work(alpha: int, b: int) -> int:
    """The (state, m) pairs of the dynamic program at order alpha: sum over states of free + 1."""
    return math.comb(alpha + b, b)


def _log_factorials(alpha: int) -> np.ndarray:
    """log k! = lgamma(k + 1) for k = 0 .. alpha (``math.lgamma``, entry by entry)."""
    return np.array([math.lgamma(k + 1.0) for k in range(alpha + 1)])


def _transitions(states: np.ndarray, alpha: int, b: int, p: float) -> tuple[np.ndarray, ...]:
    """The program's moves (source state, m copies taken, target state), sorted by target, with each
    move's log probability log C(free, m) + m log p + (free - m) log(1 - p) and its source's counts
    n_1..n_{b-1}.

    The moves are listed by source state, then m = 0 .. free; a state's target takes the m new
    copies as age 1, ages every other copy by one and frees those of age b - 1 (a target's row:
    ``_state_rank``).

    Returns (src, m, base, older, starts, targets): ``starts`` the first move of each target,
    ``targets`` its state."""
    free = states[:, -1]
    moves = free + 1
    src_a = np.repeat(np.arange(states.shape[0]), moves)
    take = np.arange(src_a.size) - np.repeat(np.cumsum(moves) - moves, moves)
    if b > 1:
        source = states[src_a]
        new = np.empty_like(source)
        new[:, 0] = take
        new[:, 1 : b - 1] = source[:, : b - 2]
        new[:, b - 1] = source[:, b - 1] - take + source[:, b - 2]
    else:
        new = states[src_a]
    tgt = _state_rank(new, alpha, b)
    m_a = take.astype(float)
    free_a = free[src_a]
    lp = math.log(p)
    lq = math.log1p(-p) if p < 1.0 else -math.inf
    log_factorial = _log_factorials(alpha)
    log_binom = log_factorial[free_a] - log_factorial[take] - log_factorial[free_a - take]
    free_f = free_a.astype(float)
    with np.errstate(invalid="ignore"):
        base = log_binom + m_a * lp + np.where(free_f - m_a > 0, (free_f - m_a) * lq, 0.0)
    older = states[src_a, : b - 1].astype(float)  # n_1..n_{b-1} of the source state
    order = np.argsort(tgt, kind="stable")
    src_a, m_a, tgt, base, older = src_a[order], m_a[order], tgt[order], base[order], older[order]
    starts = np.flatnonzero(np.r_[True, tgt[1:] != tgt[:-1]])
    return src_a, m_a, base, older, starts, tgt[starts]


def _initial_log_law(states: np.ndarray, alpha: int, b: int, p: float, warm: bool) -> np.ndarray:
    """log P(state) at the start: cold, every copy free; warm, each copy's age a in 1..b-1 w.p. p /
    (1 + (b-1) p) (free w.p. 1 / (1 + (b-1) p)), independently."""
    current = np.full(states.shape[0], -math.inf)
    if warm and b > 1:
        lp = math.log(p)
        norm = math.log1p((b - 1) * p)
        log_factorial = _log_factorials(alpha)
        summed = np.zeros(states.shape[0])
        for k in range(b):  # sum of log n_k! over the classes, in their order
            summed = summed + log_factorial[states[:, k]]
        ways = math.lgamma(alpha + 1) - summed
        last = states[:, -1]
        current = ways + (alpha - last) * (lp - norm) + last * (-norm)
    else:
        cold = np.array([[*([0] * (b - 1)), alpha]], dtype=np.int64)
        current[_state_rank(cold, alpha, b)[0]] = 0.0
    return current


def remove_log_moment(
    c: np.ndarray, rounds: int, sigma: float, p: float, b: int, warm: bool, alpha: int
) -> float:
    """log E_Q[(P/Q)^alpha] (module docstring, remove direction), rounded up by a margin over its round-off."""
    states = _states(alpha, b)
    src_a, m_a, base, older, starts, targets = _transitions(states, alpha, b, p)
    current = _initial_log_law(states, alpha, b, p, warm)
    pairs = m_a * (m_a - 1.0)
    scale = 1.0 / (2.0 * sigma * sigma)
    biggest = 0.0
    for t in range(rounds):
        cross = pairs * _gram_band(c, rounds, t, 0)
        if b > 1:
            lags = np.array([_gram_band(c, rounds, t, a) for a in range(1, b)])
            cross = cross + 2.0 * m_a * (older @ lags)
        values = current[src_a] + base + cross * scale
        top = np.maximum.reduceat(values, starts)
        safe = np.where(np.isfinite(top), top, 0.0)
        sums = np.add.reduceat(
            np.exp(values - np.repeat(safe, np.diff(np.r_[starts, values.size]))), starts
        )
        with np.errstate(divide="ignore"):
            current = np.full(states.shape[0], -math.inf)
            current[targets] = safe + np.log(sums)
        current[targets[~np.isfinite(top)]] = -math.inf
        biggest = max(biggest, float(np.max(np.abs(current[np.isfinite(current)]))))
    finite = current[np.isfinite(current)]
    peak = float(finite.max())
    result = peak + math.log(float(np.exp(finite - peak).sum()))
    # each round's log-sum-exp is off by a few ulps of the largest magnitude it holds plus a few
    # units of roundoff from its sum of at most (alpha + 1)^b terms: _MARGIN per round covers both
    return float(result + rounds * _MARGIN * (1.0 + biggest + abs(result)))


def participation_marginals(rounds: int, p: float, b: int, warm: bool) -> np.ndarray:
    """pi_t = P(t in S) (module docstring, add direction), rounded up relatively by 2^-40."""
    if warm and b > 1:
        return np.full(rounds, p / (1.0 + (b - 1) * p) * (1.0 + 2.0**-40))
    pi = np.zeros(rounds)
    for t in range(rounds):
        pi[t] = p * max(0.0, 1.0 - math.fsum(pi[max(0, t - b + 1) : t].tolist()))
    return pi * (1.0 + 2.0**-40)


def add_rdp_bound(
    c: np.ndarray, rounds: int, sigma: float, p: float, b: int, warm: bool, orders: np.ndarray
) -> np.ndarray:
    """The AM-GM bound on D_alpha(Q||P) (module docstring), rounded up."""
    pi = participation_marginals(rounds, p, b, warm)
    squares = np.cumsum(c * c)
    column_norms = squares[np.minimum(rounds - np.arange(rounds), c.size) - 1]  # ||C e_t||^2
    mean = np.convolve(pi, c)[:rounds]  # C pi
    first = float(pi @ column_norms)
    second = float(mean @ mean)
    bound = (first + (orders - 1.0) * second) / (2.0 * sigma * sigma)
    return cast(np.ndarray, bound * (1.0 + 2.0**-40) + 1e-300)


@accountant_docs(sides=UPPER_ONLY)
class BMinSepRDP:
    r"""Certified upper side of b-min-sep sampling with a banded Toeplitz C >= 0 (|c| <= b), by Renyi DP.

    At each integer order alpha the larger of the remove direction's exact Renyi divergence (a
    dynamic program over the alpha copies' ages, the Renyi analogue of Dong & Ganesh's recursion)
    and the add direction's AM-GM bound, converted to (eps, delta) with the tight conversion:

    .. math::

        D_\alpha(P\|Q) = \frac{1}{\alpha - 1}\log \mathbb{E}_{S_1..S_\alpha}
        e^{\sum_{k \ne k'} 1_{S_k}^\top G 1_{S_{k'}} / (2\sigma^2)},\qquad
        D_\alpha(Q\|P) \le \frac{\sum_i \pi_i \|C e_i\|^2 + (\alpha - 1)\|C\pi\|^2}{2\sigma^2}.

    Orders whose dynamic program would exceed ``MAX_WORK`` are left out (``orders`` lists those
    used); with none left, ``available`` is False and every answer is ``inf``.  The module docstring
    derives each step.

    Parameters
    ----------
    coefficients : array_like
        c, the first column of C: finite, >= 0, at most ``min_separation`` entries.
    rounds : int
        n, a whole number >= 1.
    noise_multiplier : float
        sigma, finite and > 0.
    sampling_rate : float
        p in (0, 1].
    min_separation : int
        b, a whole number >= 1.
    warm_start : bool, default True
        Algorithm 2's warm start, as ``BMinSepSampling`` and ``DPFTRL(participation="b_min_sep")``
        draw it.
    orders : sequence of int, optional
        The integer Renyi orders tried (each >= 2); default ``DEFAULT_ORDERS``.

    Raises
    ------
    ValueError
        An argument outside its domain, named with its rule; c with a negative entry or longer
        than b.
    ParameterTypeError
        A numeric argument that is a string, bool or None.

    References
    ----------
    Dong & Ganesh 2026 (arXiv:2602.09338), Sec. 5, Eq. (2); Balle et al. 2020, Thm 21 (the
    conversion).

    Examples
    --------
    >>> from hockeystick.matrix.b_min_sep import BMinSepRDP
    >>> run = BMinSepRDP(coefficients=[1.0, 0.5], rounds=64, noise_multiplier=2.0, sampling_rate=0.05,
    ...                  min_separation=4)
    >>> run.available, run.epsilon(1e-6) < 10.0
    (True, True)
    """

    def __init__(
        self,
        *,
        coefficients: npt.ArrayLike,
        rounds: int,
        noise_multiplier: float,
        sampling_rate: float,
        min_separation: int,
        warm_start: bool = True,
        orders: Any = None,
    ) -> None:
        self.min_separation = count(min_separation, "min_separation")
        self.coefficients = _column(coefficients, self.min_separation)
        self.rounds = count(rounds, "rounds")
        self.noise_multiplier = moderate(
            positive_number(noise_multiplier, "noise_multiplier"), "noise_multiplier"
        )
        self.sampling_rate = float(
            in_interval(sampling_rate, "sampling_rate", 0.0, 1.0, open_low=True, open_high=False)
        )
        self.warm_start = flag(warm_start, "warm_start")
        asked = as_real_array(DEFAULT_ORDERS if orders is None else orders, "orders")
        if (
            asked.ndim != 1
            or asked.size == 0
            or (asked < 2).any()
            or (asked != np.round(asked)).any()
        ):
            raise ValueError(
                f"orders must be a non-empty sequence of whole numbers >= 2, got {describe(orders)}"
            )
        b = self.min_separation
        kept = [int(a) for a in asked if _work(int(a), b) * self.rounds <= MAX_WORK]
        self.orders = np.array(sorted(set(kept)), dtype=float)
        self.available = self.orders.size > 0
        self._rdp: np.ndarray | None = None

    def rdp(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(orders, remove direction's D_alpha(P||Q), add direction's bound on D_alpha(Q||P)), each rounded up.

        Returns
        -------
        tuple of numpy.ndarray
            The orders used and the two curves there (empty where ``available`` is False).
        """
        c, n, z, p, b, w = (
            self.coefficients,
            self.rounds,
            self.noise_multiplier,
            self.sampling_rate,
            self.min_separation,
            self.warm_start,
        )
        remove = np.array(
            [remove_log_moment(c, n, z, p, b, w, int(a)) / (a - 1.0) for a in self.orders]
        )
        add = add_rdp_bound(c, n, z, p, b, w, self.orders)
        return self.orders, np.maximum(remove, 0.0), add

    def _curve(self) -> np.ndarray:
        if self._rdp is None:
            _, remove, add = self.rdp()
            self._rdp = np.maximum(remove, add)
        return self._rdp

    def epsilon(self, delta: npt.ArrayLike, *, bound: Bound = "upper") -> Any:
        """The tight conversion of the larger direction's RDP curve, minimised over ``orders``.

        Parameters
        ----------
        delta : array_like
            Target delta, strictly between 0 and 1.

        Returns
        -------
        float or numpy.ndarray
            ``inf`` where no order was computed.
        """
        from ..rdp.conversion import rdp_to_epsilon

        upper_only(bound, "BMinSepRDP")
        d = delta_values(delta)
        if not self.available:
            return scalar_or_array(np.full(np.shape(d), math.inf))
        return rdp_to_epsilon(self._curve(), self.orders, d)

    def delta(self, epsilon: npt.ArrayLike, *, bound: Bound = "upper") -> Any:
        """The tight conversion of the larger direction's RDP curve to delta(eps), minimised over ``orders``.

        Parameters
        ----------
        epsilon : array_like
            Epsilon >= 0.

        Returns
        -------
        float or numpy.ndarray
            1 where no order was computed.
        """
        from ..rdp.conversion import rdp_to_delta

        upper_only(bound, "BMinSepRDP")
        eps = epsilon_values(epsilon)
        if not self.available:
            return scalar_or_array(np.ones(np.shape(eps)))
        return rdp_to_delta(self._curve(), self.orders, eps)

    def __repr__(self) -> str:
        return (
            f"BMinSepRDP(coefficients={self.coefficients.tolist()}, rounds={self.rounds}, "
            f"noise_multiplier={self.noise_multiplier:g}, sampling_rate={self.sampling_rate:g}, "
            f"min_separation={self.min_separation}, warm_start={self.warm_start}): certified upper side by RDP, "
            + (
                f"orders {self.orders.astype(int).tolist()}"
                if self.available
                else "no order within MAX_WORK"
            )
        )
