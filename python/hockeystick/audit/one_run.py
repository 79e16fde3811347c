"""Auditing in one training run: Steinke, Nasr and Jagielski 2023 and, for f-DP, Mahloujifar et al. 2024.

m canaries are each included in training independently with probability 1/2; the attack guesses "in"
for the ones scoring at or above a threshold (one-sided: no "out" guesses, k_- = 0 in Steinke et
al.). Among g guesses, c are correct.

* Steinke, Nasr, Jagielski 2023 (arXiv:2305.08846, Thm 3.1 / Prop. 5.3): under (eps, delta)-DP, P(C
  >= c) <= P(Binomial(g, q) >= c) + 2 m delta max_{i=1..c} P(c - i <= Binomial(g, q) <= c - 1) / i,
  q = e^eps / (1 + e^eps).  ``epsilon_one_run`` is the largest eps whose p-value is at most the
  significance (0 where none is): the Binomial upper tail from ``tails.binomial_sf_upper`` at q
  raised 4 u (it grows with q); the delta term's window sums, which need not grow with q, at the
  same raised q and widened by ``tails.tail_margin(g)``, which covers both their round-off and what
  the 4 u in q moves them (about 4 u g relative).
* Mahloujifar, Melis, Chaudhuri 2024 (arXiv:2410.22235, "audit_rh_with_cap"): under f-DP the numbers
  of correct and wrong guesses, scaled by significance / m, are propagated through f's blow-up from
  i = c - 1 down to 0; the claim is refuted where r + h exceeds g / m.  ``epsilon_one_run_fdp``
  tests the claim "mu-GDP with mu the Gaussian's at (eps, delta)" (jax_privacy's meaning: the
  Gaussian trade-off through the (eps, delta) pair) and returns the largest eps refuted;
  ``fdp_refutes`` tests any trade-off function, such as an accountant's certified curve
  (``curve.py``).  f is read on its lower side (a smaller f claims less privacy, so the claim is
  harder to refute).

The threshold strategies are jax_privacy's: Bonferroni over the ROC hull's vertices, Explicit,
Split, MultiSplit. The eps search keeps a bisection's invariant (the lower end refutes) and returns
the lower end, within 1e-9 of the root.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..base import validation as _validation
from ..numerics.hockey_stick import theta_radius
from ._checks import delta_value, significance_level
from .epsilon import split_parts
from .one_run_windows import delta_term_within
from .scores import Scores, as_scores
from .strategies import (
    BONFERRONI,
    Bonferroni,
    Explicit,
    MultiSplit,
    Split,
    Strategy,
    check_strategy,
    split_seeds,
)
from .tails import binomial_sf_upper, clopper_pearson_upper, tail_margin

__all__ = [
    "epsilon_one_run",
    "epsilon_one_run_fdp",
    "fdp_refutes",
    "gaussian_blow_up",
    "one_run_p_value",
    "one_run_refutes",
]

_U = 2.0**-53
Tradeoff = Callable[[float], float]  # x -> a lower bound on f(x), f the claimed trade-off function


def one_run_p_value(m: int, guesses: int, correct: int, epsilon: float, delta: float) -> float:
    """An upper bound on Steinke et al.'s p-value of ``correct`` of ``guesses`` under (eps, delta)-DP.

    Parameters
    ----------
    m : int
        The number of canaries.
    guesses, correct : int
        The guesses made and the correct ones, 0 <= correct <= guesses <= m.
    epsilon : float
        >= 0.
    delta : float
        In [0, 1).

    Returns
    -------
    float
        The p-value bound, in [0, 1].
    """
    from scipy import special  # lazy: scipy loads at its first use, not with the package

    q = min(float(special.expit(epsilon)) * (1.0 + 4 * _U), 1.0)
    g = np.int64(guesses)
    beta = float(binomial_sf_upper(np.int64(correct), g, np.float64(q)))
    if delta == 0.0 or correct == 0:
        return beta
    from scipy import stats  # lazy: scipy loads at its first use, not with the package

    pmf = stats.binom.pmf(np.arange(correct)[::-1], guesses, q)  # P(X = c - i) for i = 1..c
    window = np.cumsum(pmf) * (1.0 + float(tail_margin(guesses)))
    alpha = float(np.max(window / np.arange(1, correct + 1)))
    return min(beta + alpha * delta * 2 * m, 1.0)


def one_run_refutes(
    m: int, guesses: int, correct: int, epsilon: float, delta: float, significance: float
) -> bool:
    """Whether ``one_run_p_value(m, guesses, correct, epsilon, delta) <= significance``, the same
    boolean read from as few binomial masses as it needs (what the epsilon search asks; the
    p-value's max over up to 10^7 window sums is rarely needed in full).

    beta > significance does not refute (the p-value only grows with the delta term); otherwise the
    delta term's max is bracketed by ``one_run_windows.delta_term_within``: the window sums around
    the binomial's bulk, the counts far above it bounded by its tail and those past the sums read by
    its lower tail, and read in full only where that bracket straddles the significance.

    Parameters
    ----------
    m, guesses, correct : int
        As ``one_run_p_value``'s.
    epsilon, delta : float
        As ``one_run_p_value``'s.
    significance : float
        In (0, 1).

    Returns
    -------
    bool
        True where the (epsilon, delta) claim is refuted.
    """
    from scipy import special  # lazy: scipy loads at its first use, not with the package

    q = min(float(special.expit(epsilon)) * (1.0 + 4 * _U), 1.0)
    beta = float(binomial_sf_upper(np.int64(correct), np.int64(guesses), np.float64(q)))
    if delta == 0.0 or correct == 0 or beta > significance:
        return beta <= significance
    return delta_term_within(m, guesses, correct, q, beta, delta, significance)


def gaussian_blow_up(epsilon: float, delta: float) -> Tradeoff:
    """A lower bound on the trade-off function of mu-GDP, mu the Gaussian mechanism's at (eps, delta).

    Parameters
    ----------
    epsilon : float
        >= 0.
    delta : float
        Strictly between 0 and 1.

    Returns
    -------
    callable
        x -> a lower bound on G_mu(x) = Phi(Phi^-1(1 - x) - mu) (mu raised 1e-9 relative, the value
        lowered 1e-12 relative: the solve's and ndtr's round-off).
    """
    from scipy import special  # lazy: scipy loads at its first use, not with the package

    mu = float(theta_radius(epsilon, delta)) * (1.0 + 1e-9)

    def f(x: float) -> float:
        if x >= 1.0:
            return 0.0
        return float(special.ndtr(special.ndtri(1.0 - x) - mu)) * (1.0 - 1e-12)

    return f


def fdp_refutes(m: int, guesses: int, correct: int, significance: float, f: Tradeoff) -> bool:
    """Whether ``correct`` of ``guesses`` refute the f-DP claim at ``significance`` (Mahloujifar et al.).

    Parameters
    ----------
    m : int
        The number of canaries.
    guesses, correct : int
        0 <= correct <= guesses <= m.
    significance : float
        In (0, 1).
    f : callable
        x -> a lower bound on the claimed trade-off function at x.

    Returns
    -------
    bool
        True where the claim is refuted.
    """
    if guesses == 0:
        return False
    r = significance * correct / m
    h = significance * (guesses - correct) / m
    for i in range(correct - 1, -1, -1):
        raised = max(h, f(min(math.nextafter(1.0 - r, 2.0), 1.0)))
        if raised == h:  # neither moves again
            break
        r = min(r + (i / (guesses - i)) * (raised - h), 1.0)
        h = raised
    return r + h > guesses / m


def epsilon_one_run(
    scores: Any,
    out_scores: Any = None,
    *,
    significance: Any,
    delta: Any,
    one_sided: Any = True,
    threshold_strategy: Any = BONFERRONI,
) -> float:
    r"""Bound epsilon from below with one training run's canaries (Steinke, Nasr & Jagielski 2023).

    The m = n_in + n_out canaries were each included in the run independently with probability 1/2;
    the attack guesses "in" for those scoring at or above a threshold: g guesses, c of them correct.
    Under (epsilon, delta)-DP, with :math:`q = e^{\varepsilon}/(1 + e^{\varepsilon})` and
    X ~ Binomial(g, q),

    .. math::

        P(C \ge c) \le P(X \ge c) + 2 m \delta \max_{1 \le i \le c} \frac{P(c - i \le X \le c - 1)}{i},

    and the bound is the largest epsilon whose p-value so bounded is at most the significance (0
    where none is), found by bisection within 1e-9 of the root from below, the tails rounded up. It
    holds without independence between the canaries' scores, at the price of a weaker bound than
    ``epsilon_clopper_pearson``'s.

    Parameters
    ----------
    scores : Scores or array_like
        The canary scores (``Scores``), or the held-in scores with ``out_scores``.
    out_scores : array_like, optional
        The held-out scores when ``scores`` is an array.
    significance : float
        The probability that the bound fails, in (0, 1).
    delta : float
        The delta of the claim, in [0, 1).
    one_sided : bool, optional
        Must be True (default): only "in" guesses.
    threshold_strategy : Bonferroni, Explicit, Split or MultiSplit, optional
        Where the guesses' threshold is chosen (default ``Bonferroni()``; not ``Simultaneous``).

    Returns
    -------
    float
        The bound, >= 0.

    Raises
    ------
    ValueError
        If the scores are refused (``as_scores``), ``significance`` is outside (0, 1), ``delta`` is
        outside [0, 1), ``one_sided`` is False, ``threshold_strategy`` is not ``Bonferroni``,
        ``Explicit``, ``Split`` or ``MultiSplit`` or carries an infinite threshold, a fraction
        outside (0, 1), a number of splits below 1 or a negative seed, or a split leaves a part
        without an in- or an out-canary.
    ParameterTypeError
        If an argument is a string, None or a boolean where a number is expected, or ``one_sided``
        is not a boolean.

    References
    ----------
    Steinke, Nasr & Jagielski 2023, Thm 3.1 and Prop. 5.3 (arXiv:2305.08846).

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick import audit
    >>> rng = np.random.default_rng(0)
    >>> held_in, held_out = rng.normal(2.0, 1.0, 500), rng.normal(0.0, 1.0, 500)
    >>> round(audit.epsilon_one_run(held_in, held_out, significance=0.05, delta=0.0), 4)
    3.2425
    """
    data, s, d, strategy = _arguments(
        scores, out_scores, significance, delta, one_sided, threshold_strategy, True
    )

    def search(m: int, g: int, c: int, sig: float, floor: float) -> float:
        return _largest_refuted(floor, lambda e: one_run_refutes(m, g, c, e, d, sig))

    return _over_thresholds(data, s, strategy, search)


def epsilon_one_run_fdp(
    scores: Any,
    out_scores: Any = None,
    *,
    significance: Any,
    delta: Any,
    one_sided: Any = True,
    threshold_strategy: Any = BONFERRONI,
) -> float:
    r"""Bound epsilon from below by the one-run f-DP audit of the Gaussian trade-off (Mahloujifar et al. 2024).

    The setting is ``epsilon_one_run``'s (m canaries, each in the run with probability 1/2; g
    guesses, c correct). The claim tested at each epsilon is f-DP with :math:`f = G_\mu`,
    :math:`G_\mu(x) = \Phi(\Phi^{-1}(1 - x) - \mu)`, mu the Gaussian mechanism's at (epsilon,
    ``delta``) (jax_privacy's meaning): the numbers of correct and wrong guesses, scaled by
    significance / m, are propagated through f's blow-up from i = c - 1 down to 0, and the claim is
    refuted where their sum exceeds g / m. The result is the largest epsilon whose claim the scores
    refute at ``significance`` (0 where none is), found by bisection within 1e-9 of the root from
    below, with mu rounded up and f rounded down.

    Parameters
    ----------
    scores : Scores or array_like
        The canary scores (``Scores``), or the held-in scores with ``out_scores``.
    out_scores : array_like, optional
        The held-out scores when ``scores`` is an array.
    significance : float
        The probability that the bound fails, in (0, 1).
    delta : float
        The delta of the claim, strictly between 0 and 1.
    one_sided : bool, optional
        Must be True (default): only "in" guesses.
    threshold_strategy : Bonferroni, Explicit, Split or MultiSplit, optional
        Where the guesses' threshold is chosen (default ``Bonferroni()``; not ``Simultaneous``).

    Returns
    -------
    float
        The bound, >= 0.

    Raises
    ------
    ValueError
        If the scores are refused (``as_scores``), ``significance`` is outside (0, 1), ``delta`` is
        outside (0, 1), ``one_sided`` is False, ``threshold_strategy`` is not ``Bonferroni``,
        ``Explicit``, ``Split`` or ``MultiSplit`` or carries an infinite threshold, a fraction
        outside (0, 1), a number of splits below 1 or a negative seed, or a split leaves a part
        without an in- or an out-canary.
    ParameterTypeError
        If an argument is a string, None or a boolean where a number is expected, or ``one_sided``
        is not a boolean.

    See Also
    --------
    audit_curve : The same one-run test of an accountant's certified curve (``method="one_run_fdp"``).

    References
    ----------
    Mahloujifar, Melis & Chaudhuri 2024 (arXiv:2410.22235, "audit_rh_with_cap"); Dong, Roth & Su
    2022 (the Gaussian trade-off function G_mu).

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick import audit
    >>> rng = np.random.default_rng(0)
    >>> held_in, held_out = rng.normal(2.0, 1.0, 500), rng.normal(0.0, 1.0, 500)
    >>> round(audit.epsilon_one_run_fdp(held_in, held_out, significance=0.05, delta=1e-5), 4)
    4.6234
    """
    data, s, d, strategy = _arguments(
        scores, out_scores, significance, delta, one_sided, threshold_strategy, False
    )

    def search(m: int, g: int, c: int, sig: float, floor: float) -> float:
        return _largest_refuted(floor, lambda e: fdp_refutes(m, g, c, sig, gaussian_blow_up(e, d)))

    return _over_thresholds(data, s, strategy, search)


def _arguments(
    scores: Any,
    out_scores: Any,
    significance: Any,
    delta: Any,
    one_sided: Any,
    strategy: Any,
    zero: bool,
) -> tuple[Scores, float, float, Strategy]:
    data = as_scores(scores, out_scores)
    s = significance_level(significance)
    d = delta_value(delta, zero=zero)
    if not _validation.flag(one_sided, "one_sided"):
        raise ValueError(
            "one_sided must be True: the one-run audits take only 'in' guesses (k_- = 0)"
        )
    return data, s, d, check_strategy(strategy, (Bonferroni, Explicit, Split, MultiSplit))


Search = Callable[
    [int, int, int, float, float], float
]  # (m, guesses, correct, significance, floor) -> eps


def _over_thresholds(
    data: Scores, significance: float, strategy: Strategy, search: Search
) -> float:
    if isinstance(strategy, Explicit):
        return _at(data, float(strategy.threshold), significance, search)
    if isinstance(strategy, Split):
        first, second = split_parts(data, strategy)
        return _at(second, _best(first, significance, search)[1], significance, search)
    if isinstance(strategy, MultiSplit):
        values = []
        for seed in split_seeds(strategy):
            first, second = split_parts(data, strategy, seed)
            values.append(
                _at(second, _best(first, significance / 2, search)[1], significance / 2, search)
            )
        return float(np.median(values))
    return _best(data, significance / data.hull.thresholds.size, search)[0]


def _at(data: Scores, threshold: float, significance: float, search: Search) -> float:
    """The search at one threshold."""
    tp, fp = data.counts(np.array([threshold]))
    return search(data.n_in + data.n_out, int(tp[0] + fp[0]), int(tp[0]), significance, 0.0)


def _best(data: Scores, significance: float, search: Search) -> tuple[float, float]:
    """The largest eps over the hull's vertices and its threshold (+inf where none is positive).

    The vertices are visited as jax_privacy visits them, by the Clopper-Pearson lower limit of their
    precision at ``significance`` (descending), and one whose precision is at most e^eps / (1 +
    e^eps) of the best so far is passed over (its p-value there is about 1/2 or more): the same
    vertices searched, so the same threshold where several tie."""
    hull = data.hull
    m = data.n_in + data.n_out
    guesses = hull.tp + hull.fp
    # jax_privacy's vertices ascend in threshold: sorted in its order, then read back in ours
    bound = (1.0 - clopper_pearson_upper(hull.fp, guesses, significance))[::-1]
    order = hull.tp.size - 1 - np.argsort(-bound)
    best, where = 0.0, math.inf
    for k in order:
        if guesses[k] == 0 or hull.tp[k] / guesses[k] <= 1.0 / (1.0 + math.exp(-best)):
            continue
        eps = search(m, int(guesses[k]), int(hull.tp[k]), significance, best)
        if eps > best:
            best, where = eps, float(hull.thresholds[k])
    return best, where


def _largest_refuted(floor: float, refuted: Callable[[float], bool]) -> float:
    """The largest eps >= ``floor`` with ``refuted(eps)`` (refuted holds on an interval [floor,
    root)), within 1e-9 of the root from below; ``floor`` itself where it is not refuted."""
    if not refuted(floor):
        return floor
    low, high = floor, max(1.0, 2.0 * floor)
    while refuted(high):
        low, high = high, 2.0 * high
        if (
            high > 1e6
        ):  # a guard against a hang: neither test refutes past eps ~ 40 (q rounds to 1, f to 0)
            return low
    while high - low > 1e-9 * max(1.0, low):
        middle = 0.5 * (low + high)
        low, high = (middle, high) if refuted(middle) else (low, middle)
    return low
