"""Whether the delta term of Steinke et al.'s one-run p-value keeps it within the significance, read
from as few binomial masses as the answer needs.

The p-value (``one_run.one_run_p_value``) is min(beta + alpha delta 2 m, 1) with alpha =
max_{i=1..c} fl(fl(S_i (1 + margin)) / i), S_i the sequential floating-point cumulative sum of
scipy's pmf at the counts c - 1, c - 2, ..., c - i of X ~ Binomial(g, q).  Its comparison with the
significance only needs alpha's position, and alpha is bracketed without all of its c window sums:

* Every floating-point step is monotone, so a lower bound on one computed S_i bounds alpha from
  below and an upper bound on every computed S_i bounds it from above; either may settle the
  comparison.
* Skipped head.  The counts more than ``_Z_HEAD`` standard deviations above the mean carry a tiny
  mass (about 1e-19 where the binomial is near normal): their sum S_s is bounded from above by the
  Binomial tail (``binomial_sf_upper``), and the window sums past them are those of the sum
  restarted from 0 there, T_i, to within the rounding of the n = i - s additions: T_i (1 - 2 n u) <=
  S_i <= (S_s + T_i)(1 + 2.01 n u) (each addition of nonnegative terms is exact to a factor 1 +- u;
  u = 2^-53).  Where the bracket does not settle the comparison (the significance within about 2 n u
  of the p-value), the sums are read again from i = 1, exactly.
* Tail.  Past the counts read, every later S_i is at most the last sum's bound plus the mass below,
  1.01 P(X <= c - 1 - i) (``binomial_cdf_upper``), times the additions' rounding; and at most 1.01,
  the bound on any partial sum of a pmf.  Each is divided by the next i.

Both bounds on masses that are not summed rest on one premise about scipy's pmf (Boost's ``pdf`` of
the binomial): each value is within a factor ``_PMF_SLACK`` of the exact mass, or below
``_PMF_FLOOR`` (tests/audit/test_audit_one_run_windows.py checks it against 50-digit mpmath 60
standard deviations into both tails), a pointwise form of the premise behind the bound of 1.01 on
any partial sum.  The answer is then always the full p-value's comparison, bit for bit.
"""

from __future__ import annotations

import math

import numpy as np

from .tails import binomial_cdf_upper, binomial_sf_upper, tail_margin

__all__ = ["delta_term_within"]

_U = 2.0**-53
_PMF_SLACK = 1.01  # scipy's pmf over the exact mass, at most (or the value is below _PMF_FLOOR)
_PMF_FLOOR = 1e-300
_Z_HEAD = 9.0  # counts this many standard deviations above the mean are bounded, not summed
_FIRST_CHUNK = 1024  # the full sums are read in chunks of this many counts, doubling to _LAST_CHUNK
_STEP = 256  # the least chunk after a skipped head
_LAST_CHUNK = 1 << 20


def _growth(n: float) -> float:
    """1 + 2^-50 (n + 16): above (1 + u)^n times the few roundings of the bound it multiplies."""
    return 1.0 + 2.0**-50 * (n + 16.0)


def delta_term_within(
    m: int, guesses: int, correct: int, q: float, beta: float, delta: float, sig: float
) -> bool:
    """Whether min(beta + alpha delta 2 m, 1) <= sig, alpha the max of the window ratios at q
    (module docstring); ``correct`` >= 1 and delta > 0.

    Parameters
    ----------
    m, guesses, correct : int
        Canaries, guesses and correct guesses, 1 <= correct <= guesses <= m.
    q : float
        The success probability of the binomial, in [1/2, 1].
    beta : float
        The p-value's binomial tail, at most ``sig``.
    delta : float
        In (0, 1).
    sig : float
        The significance, in (0, 1).

    Returns
    -------
    bool
        The comparison, the same as the full p-value's.
    """
    head = _head(guesses, correct, q)
    if head:
        verdict = _read(m, guesses, correct, q, beta, delta, sig, head)
        if verdict is not None:
            return verdict
    verdict = _read(m, guesses, correct, q, beta, delta, sig, 0)
    assert verdict is not None  # exact sums: the lower and upper alpha coincide
    return verdict


def _head(guesses: int, correct: int, q: float) -> int:
    """How many of the top counts c - 1, c - 2, ... lie more than ``_Z_HEAD`` standard deviations
    above the mean."""
    top = math.ceil(guesses * q + _Z_HEAD * math.sqrt(guesses * q * (1.0 - q))) + 1
    skip = correct - 1 - top
    return max(skip, 0)


def _read(
    m: int, guesses: int, correct: int, q: float, beta: float, delta: float, sig: float, skip: int
) -> bool | None:
    """The comparison from the window sums read from i = ``skip`` + 1 on (None where the bracket of
    a skipped head leaves it open)."""
    from scipy import stats  # lazy: scipy loads at its first use, not with the package

    factor = 1.0 + float(tail_margin(guesses))

    def p_value(alpha: float) -> float:  # one_run_p_value's expression, monotone in alpha
        return min(beta + alpha * delta * 2 * m, 1.0)

    bound_head = 0.0  # above the computed S_skip
    if skip:
        tail = float(binomial_sf_upper(np.int64(correct - skip), np.int64(guesses), np.float64(q)))
        bound_head = (_PMF_SLACK * tail + skip * _PMF_FLOOR) * _growth(skip)
    low, high = (
        0.0,
        bound_head * factor,
    )  # alpha's bracket; every ratio at i <= skip is below S_skip f / 1
    carry, start, size, step = 0.0, skip, _FIRST_CHUNK, _FIRST_CHUNK
    if skip:  # the first chunk reaches 2 sd below the mean, the next ones step by 2 sd, doubling
        sd = math.sqrt(guesses * q * (1.0 - q))
        size, step = max(math.ceil((_Z_HEAD + 2.0) * sd), _STEP), max(math.ceil(2.0 * sd), _STEP)
    while start < correct:
        stop = min(start + size, correct)
        index = np.arange(start + 1, stop + 1)
        pmf = stats.binom.pmf(correct - index, guesses, q)  # P(X = c - i)
        sums = np.cumsum(np.concatenate([[carry], pmf]))[1:]
        lower, upper = _bracket(sums, index - skip, bound_head) if skip else (sums, sums)
        low = max(low, float(np.max(lower * factor / index)))
        high = max(high, float(np.max(upper * factor / index)))
        if p_value(low) > sig:
            return False
        later = 0.0  # above every ratio at i > stop
        if stop < correct:
            later = (
                min(_later(guesses, correct, q, float(upper[-1]), stop), _PMF_SLACK)
                * factor
                / (stop + 1)
            )
        if p_value(max(high, later)) <= sig:
            return True
        if later <= high:  # reading on cannot lower the upper end
            return None
        carry, start, size, step = float(sums[-1]), stop, step, min(2 * step, _LAST_CHUNK)
    return None


def _bracket(sums: np.ndarray, n: np.ndarray, bound_head: float) -> tuple[np.ndarray, np.ndarray]:
    """Bounds on the full sums S_i from the restarted T_i after n additions: T_i (1 - (2n + 4) u) (0
    where that is below 1e-290, where a product's rounding is no longer relative) and (S_s +
    T_i)(1 + (4n + 16) u), each factor exact in doubles and covering the product's rounding."""
    lower = sums * (1.0 - (2 * n + 4) * _U)
    lower[lower < 1e-290] = 0.0
    upper = (bound_head + sums) * (1.0 + (2 * n + 8) * 2.0**-52)
    return lower, upper


def _later(guesses: int, correct: int, q: float, last: float, stop: int) -> float:
    """Above every computed S_i for i > ``stop``: (S_stop + 1.01 P(X <= c - 1 - stop) + c 1e-300)
    grown by the additions' rounding."""
    below = float(
        binomial_cdf_upper(np.int64(correct - 1 - stop), np.int64(guesses), np.float64(q))
    )
    return (last + _PMF_SLACK * below + (correct - stop) * _PMF_FLOOR) * _growth(correct - stop)
