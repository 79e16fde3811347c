"""Privacy amplification by shuffling, numerically: Feldman, McMillan & Talwar's clone bound.

n users each apply an eps0-DP local randomizer to their own record and a shuffler releases the
multiset of reports.  Feldman, McMillan & Talwar (FOCS 2021, "Hiding among the clones", Thm 3.2
and App. E) show that for any eps0-DP randomizers and any neighbouring data sets the shuffled
output is a post-processing of one of two distributions over pairs of counts,

    C ~ Bin(n - 1, e^{-eps0}),  A ~ Bin(C, 1/2),  alpha = e^{eps0} / (e^{eps0} + 1),
    P = alpha (A, C + 1 - A) + (1 - alpha) (A + 1, C - A),
    Q = alpha (A + 1, C - A) + (1 - alpha) (A, C + 1 - A),

so delta(eps) <= E_{e^eps}(P || Q) (the two orders are equal by the symmetry A <-> C - A).  Given
C = c the first count x has P_c(x) = alpha b(x) + (1 - alpha) b(x - 1) and Q_c(x) the reverse, b the
Bin(c, 1/2) pmf; since b(x - 1)/b(x) = x/(c + 1 - x) increases in x, P_c > e^eps Q_c exactly on x <
beta (c + 1) with beta = rho / (1 + rho), rho = (alpha - e^eps (1 - alpha)) / (e^eps alpha - (1 -
alpha)), and the conditional divergence is a combination of two binomial CDFs at m = ceil(beta (c +
1)) - 1:

    E_c = alpha F_c(m) + (1 - alpha) F_c(m - 1) - e^eps ((1 - alpha) F_c(m) + alpha F_c(m - 1))

(0 once e^eps >= e^{eps0}).  The sum over c covers every c outside a Bin(n - 1, e^{-eps0}) tail of
mass <= ``tail``, which is added whole (E_c <= 1): a certified upper bound, plus an absolute
round-off margin of 64 u (1 + e^{eps0}) (the same at every eps < eps0, so the bound stays monotone).
This is the exact value of FMT's bound, where their code brackets it by stepping over c (their
example: n = 1e5, eps0 = 4, delta = 1e-6 gives eps in [0.16754, 0.17279]).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..base.elementwise import ArrayLike, FloatOrArray, broadcast_float_arrays
from ..base.validation import (
    delta_values,
    describe,
    in_interval,
    positive,
    positive_integer,
    single,
)
from .half_binomial import half_binomial_cdf

__all__ = [
    "ShuffledLDP",
    "bisection_done",
    "check_shuffle_parameters",
    "clone_delta",
    "clone_delta_curve",
    "closed_form_shuffle_epsilon",
]

_U = 2.0**-53
_TAIL = 1e-17
_MAX_TERMS = 10**6  # values of C summed exactly (tens of MB of temporaries at most)


def clone_delta_curve(
    eps0: float, n: int, eps: np.ndarray, tail: float, clone_probability: float | None = None
) -> np.ndarray:
    """Certified upper bounds on FMT's clone divergence at every eps of a 1-d array (module docstring).

    ``clone_probability``: the probability p with which each of the other n - 1 users emits a clone,
    C ~ Bin(n - 1, p); e^{-eps0} (the default) for eps0-DP randomizers (FMT Lemma 3.3 with p =
    e^{-eps0}); a user whose output is only eps_ref-close to the target's pair gives p =
    e^{-eps_ref} (paper 003, Lemma D.10, any p in [0, 1]).  The window of C is shared by every
    eps."""
    from scipy import stats  # lazy: scipy start-up time (import hockeystick loads no scipy)

    eps = np.asarray(eps, dtype=np.float64)
    out = np.zeros(eps.shape)
    alpha = 1.0 / (1.0 + math.exp(-eps0))
    # past eps0 = 700 the margin alone exceeds 1 (the bound is vacuous there); exp(eps0) would
    # overflow past 709
    margin = 64 * _U * (1 + math.exp(min(eps0, 700.0)))
    below = eps < eps0
    with np.errstate(
        over="ignore", invalid="ignore"
    ):  # e = inf only past eps0 = 709: the fallback (1) there
        e = np.exp(np.minimum(eps, eps0))
        # eps0 so small that alpha rounds to 1/2: bound by the local pair's own TV, tanh(eps0 / 2),
        # which the shuffled output (a post-processing) cannot exceed
        fallback = below & ~(alpha - e * (1 - alpha) > 0)
    out[fallback] = min(1.0, math.tanh(eps0 / 2) + margin)
    todo = np.flatnonzero(below & ~fallback)
    if todo.size == 0:
        return out
    p = math.exp(-eps0) if clone_probability is None else float(clone_probability)
    # the window of C summed exactly: mean +- (z sd + 50) with z from a Bernstein bound on the tail
    # mass ``tail``; whatever falls outside is added whole below, so the window changes only
    # tightness (scipy's binom.ppf/isf at 1e-17 tails return the support's end for small p, a window
    # of n terms)
    mean, sd = (n - 1) * p, math.sqrt((n - 1) * p * (1 - p))
    # log(2 / tail), as log 2 - log tail where 2 / tail would overflow (a subnormal tail)
    z = math.sqrt(2 * (math.log(2 / tail) if tail > 1e-300 else math.log(2) - math.log(tail)))
    reach = z * sd + z * z + 50
    lo, hi = max(int(mean - reach), 0), min(int(math.ceil(mean + reach)), n - 1)
    if hi - lo + 1 > _MAX_TERMS:
        raise ValueError(
            f"n = {n} shuffled reports at epsilon0 = {eps0:g} need {hi - lo + 1} terms of the clone sum "
            f"(limit {_MAX_TERMS}): use closed_form_shuffle_epsilon for populations this large"
        )
    c = np.arange(lo, hi + 1)
    weights = stats.binom.pmf(c, n - 1, p)
    outside = stats.binom.cdf(lo - 1, n - 1, p) + stats.binom.sf(hi, n - 1, p)
    rows = max(1, _MAX_TERMS // c.size)  # eps per block: blocks of at most ~1e6 binomial CDFs
    for block in range(0, todo.size, rows):
        idx = todo[block : block + rows]
        g = e[idx][:, None]
        rho = (alpha - g * (1 - alpha)) / (g * alpha - (1 - alpha))
        m = np.ceil(rho / (1 + rho) * (c + 1)) - 1
        f_m, f_m1 = _half_binomial_cdfs(m, c)
        conditional = alpha * f_m + (1 - alpha) * f_m1 - g * ((1 - alpha) * f_m + alpha * f_m1)
        out[idx] = np.minimum(1.0, np.maximum(conditional, 0.0) @ weights + outside + margin)
    return out


def _half_binomial_cdfs(m: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bin(c, 1/2)'s CDF at m and at m - 1 (m one row per eps, c the columns): scipy's values, each
    (m, c) pair read from the process's table (``half_binomial``), since neighbouring eps share most
    of their m, row m - 1 repeats row m, and the callers ask the same window of c again."""
    k = np.concatenate([m, m - 1]).astype(np.int64)
    values = half_binomial_cdf(k, c)
    return values[: m.shape[0]], values[m.shape[0] :]


def clone_delta(
    eps0: float, n: int, eps: float, tail: float, clone_probability: float | None = None
) -> float:
    """``clone_delta_curve`` at one eps."""
    return float(clone_delta_curve(eps0, n, np.array([eps]), tail, clone_probability)[0])


def check_shuffle_parameters(
    epsilon0: np.ndarray, n: np.ndarray, tail: Any, rtol: Any
) -> tuple[float, float]:
    """The shuffle accountants' shared domain: eps0 finite and > 0, n an integer >= 2, tail in (0,
    1e-3), rtol in (0, 1) (ValueError naming the first that breaks its rule; tail and rtol one real
    number each, else ParameterTypeError); returns (tail, rtol) as floats."""
    bad = ~(np.isfinite(epsilon0) & (epsilon0 > 0))
    if np.any(bad):
        raise ValueError(f"epsilon0 must be finite and > 0, got {epsilon0[bad].ravel()[0]:g}")
    bad = ~(np.isfinite(n) & (n >= 2) & (n == np.floor(n)))
    if np.any(bad):
        raise ValueError(
            f"n must be an integer >= 2 (users shuffled together), got {n[bad].ravel()[0]:g}"
        )
    tail = float(
        in_interval(single(tail, "tail"), "tail", 0.0, 1e-3, open_low=True, open_high=True)
    )
    rtol = float(in_interval(single(rtol, "rtol"), "rtol", 0.0, 1.0, open_low=True, open_high=True))
    return tail, rtol


def bisection_done(lo: float, hi: float, rtol: float) -> bool:
    """Whether a bisection on [lo, hi] has reached relative width ``rtol`` or the doubles'
    resolution (no double strictly between lo and hi: an rtol below the spacing of doubles would
    loop forever)."""
    mid = 0.5 * (lo + hi)
    return hi - lo <= rtol * hi or not lo < mid < hi


class ShuffledLDP:
    r"""Privacy of n shuffled reports of eps0-DP local randomizers: Feldman, McMillan & Talwar's clone bound, evaluated.

    The shuffled output is a post-processing of FMT's clone pair (docstring of
    ``hockeystick.isrl.shuffle``), so

    .. math::

        \delta(\epsilon) \le E_{e^\epsilon}(P \,\|\, Q), \qquad
        C \sim \mathrm{Bin}(n - 1, e^{-\epsilon_0}),

    summed exactly over C outside a tail of mass ``tail`` (added whole), plus a round-off margin: a
    certified upper bound.

    - ``delta(epsilon)``: that bound at each :math:`\epsilon \ge 0` (0 from :math:`\epsilon_0` on);
      ValueError for a negative or NaN epsilon.
    - ``epsilon(delta)``: the smallest :math:`\epsilon \in [0, \epsilon_0]` whose bound is <= delta,
      found by bisection to relative width ``rtol`` and reported at the upper end of the final
      bracket (never above :math:`\epsilon_0`); ValueError for delta outside (0, 1).

    Both broadcast their argument with ``epsilon0`` and ``n`` and return a float for scalar input,
    else an array.

    Parameters
    ----------
    epsilon0 : array_like
        Each local randomizer's :math:`\epsilon_0`, finite and > 0.
    n : array_like
        Number of users shuffled together, a whole number >= 2.  Broadcasts with ``epsilon0``.
    tail : float, default 1e-17
        Binomial tail mass of C left out of the exact sum (and charged whole), in (0, 1e-3).
    rtol : float, default 1e-6
        Relative width at which ``epsilon`` stops its bisection, in (0, 1).

    Raises
    ------
    ValueError
        ``epsilon0`` not finite and > 0, ``n`` not a whole number >= 2, ``tail`` outside (0, 1e-3)
        or ``rtol`` outside (0, 1); from ``delta``/``epsilon``, a clone sum over more than 10^6
        values of C (use :func:`hockeystick.isrl.closed_form_shuffle_epsilon` for populations that
        large).
    ParameterTypeError
        ``epsilon0`` or ``n`` a string, bool or None.

    References
    ----------
    Feldman, McMillan & Talwar 2021 ("Hiding among the clones"), Theorem 3.2 and Appendix E; paper
    003, Theorem D.5 and Lemma D.10; docs/paper-003-errata.md, section 5.

    Examples
    --------
    >>> from hockeystick.isrl import ShuffledLDP
    >>> shuffled = ShuffledLDP(epsilon0=1.0, n=1000)
    >>> round(shuffled.epsilon(1e-6), 6)
    0.182412
    >>> shuffled.delta(0.2)
    2.059...e-07
    """

    def __init__(
        self, *, epsilon0: ArrayLike, n: ArrayLike, tail: float = _TAIL, rtol: float = 1e-6
    ) -> None:
        (e0, users), _, _ = broadcast_float_arrays(epsilon0=epsilon0, n=n)
        tail, rtol = check_shuffle_parameters(e0, users, tail, rtol)
        self.epsilon0, self.n, self.tail, self.rtol = e0, users, tail, rtol

    def delta(self, epsilon: ArrayLike) -> FloatOrArray:
        """Certified upper bound on delta(epsilon) of the shuffled output."""
        (eps, e0, users), shape, scalar = broadcast_float_arrays(
            epsilon=epsilon, epsilon0=self.epsilon0, n=self.n
        )
        if np.any(~(eps >= 0)):
            raise ValueError(f"epsilon must be >= 0, got {eps[~(eps >= 0)].ravel()[0]:g}")
        out = np.array(
            [
                clone_delta(float(a), int(b), float(x), self.tail)
                for x, a, b in zip(eps.ravel(), e0.ravel(), users.ravel())
            ]
        ).reshape(shape)
        return float(out) if scalar else out

    def epsilon(self, delta: ArrayLike) -> FloatOrArray:
        """Smallest epsilon in [0, eps0] whose certified delta is <= delta (upper end of the bisection)."""
        (dlt, e0, users), shape, scalar = broadcast_float_arrays(
            delta=delta, epsilon0=self.epsilon0, n=self.n
        )
        if np.any(~((dlt > 0) & (dlt < 1))):
            raise ValueError(
                f"delta must lie strictly between 0 and 1, got {dlt[~((dlt > 0) & (dlt < 1))].ravel()[0]:g}"
            )
        out = np.empty(dlt.size)
        for i, (d, a, b) in enumerate(zip(dlt.ravel(), e0.ravel(), users.ravel())):
            lo, hi = 0.0, float(a)  # delta(eps0) = 0 <= d
            if clone_delta(float(a), int(b), 0.0, self.tail) <= d:
                out[i] = 0.0
                continue
            while not bisection_done(lo, hi, self.rtol):
                mid = 0.5 * (lo + hi)
                if clone_delta(float(a), int(b), mid, self.tail) <= d:
                    hi = mid
                else:
                    lo = mid
            out[i] = hi
        out = out.reshape(shape)
        return float(out) if scalar else out


def closed_form_shuffle_epsilon(
    *, epsilon0: ArrayLike, n: ArrayLike, delta: ArrayLike
) -> FloatOrArray:
    r"""Feldman, McMillan & Talwar's closed-form epsilon for n shuffled eps0-DP reports (paper formula).

    .. math::

        \epsilon = \ln\Big(1 + \frac{e^{\epsilon_0} - 1}{e^{\epsilon_0} + 1}
            \Big(\frac{8 \sqrt{e^{\epsilon_0} \ln(4/\delta)}}{\sqrt n} + \frac{8 e^{\epsilon_0}}{n}\Big)\Big),

    valid for :math:`\epsilon_0 \le \ln(n / (16 \ln(2/\delta)))`: FMT Theorem 3.1, the form of paper
    003's eq. (21) with :math:`n \epsilon_0` in place of its silo-level :math:`\epsilon_0`.  The
    certified numerical bound is :class:`hockeystick.isrl.ShuffledLDP`.

    Parameters
    ----------
    epsilon0 : array_like
        Each local randomizer's :math:`\epsilon_0`, finite and > 0 and within the validity limit.
    n : array_like
        Number of reports shuffled together, a whole number >= 1 (the validity limit asks for more:
        :math:`n \ge 16 \ln(2/\delta) e^{\epsilon_0}`).
    delta : array_like
        The target :math:`\delta`, strictly between 0 and 1.  All keyword-only; they broadcast
        together.

    Returns
    -------
    float or numpy.ndarray
        :math:`\epsilon`: a float for scalar input, else an array of the broadcast shape.

    Raises
    ------
    ValueError
        ``epsilon0`` NaN, infinite or <= 0, ``n`` not a whole number >= 1, ``delta`` outside (0, 1),
        or ``epsilon0`` above :math:`\ln(n / (16 \ln(2/\delta)))`.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Feldman, McMillan & Talwar 2021, Theorem 3.1; paper 003, Theorem D.5 (eq. 21).

    Examples
    --------
    >>> from hockeystick.isrl import closed_form_shuffle_epsilon
    >>> round(closed_form_shuffle_epsilon(epsilon0=1.0, n=1e5, delta=1e-6), 6)
    0.072555
    """
    (e0, users, dlt), _, scalar = broadcast_float_arrays(
        epsilon0=positive(epsilon0, "epsilon0"),
        n=positive_integer(n, "n"),
        delta=delta_values(delta, "delta"),
    )
    limit = np.log(users / (16 * np.log(2 / dlt)))
    above = e0 > limit
    if np.any(above):
        i = np.flatnonzero(above.ravel())[0]
        raise ValueError(
            f"epsilon0 must be <= ln(n / (16 ln(2/delta))) = {describe(limit.ravel()[i])} for the closed form "
            f"(n = {describe(users.ravel()[i])}, delta = {describe(dlt.ravel()[i])}), got {describe(e0.ravel()[i])}"
        )
    a = np.exp(e0)
    out = np.log1p(
        (a - 1) / (a + 1) * (8 * np.sqrt(a * np.log(4 / dlt)) / np.sqrt(users) + 8 * a / users)
    )
    return float(out) if scalar else out
