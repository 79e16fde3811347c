r"""Verify by Monte Carlo, then run the verified mechanism: the (eps, delta_overall) of that pipeline.

**The pipeline.** Fix eps and a base delta_b. Draw N fresh samples from the mechanism's dominating
pair (never from the data; not used before to choose the mechanism or eps), each a value in [0, B]
whose expectation is delta(eps) (B = 1 for plain draws, B(alpha) for importance-sampled ones,
``matrix.importance_sampling``). If every direction's sample mean is <= delta_b, run the mechanism;
otherwise run a fallback that is (eps, delta_b)-DP by a certified bound. The number reported is a DP
guarantee of that randomized pipeline, draws and noise together:

    the pipeline is (eps, delta_overall)-DP,   delta_overall = min_{1 <= tau < B/delta_b}
        tau delta_b + e^{-N kl(delta_b/B || tau delta_b/B)} (1 - tau delta_b),

kl the Bernoulli KL divergence. This is the statement jax_privacy's ``get_overall_delta`` gives for
"many Monte Carlo verifications of ordered mechanisms, then the highest-utility one that passes",
citing Appendix A of Dong & Ganesh 2026 (arXiv:2602.09338), with the Chernoff step of Fact 4.2 of
arXiv:2412.16802; the paper's text was not consulted here. For one verified mechanism it is proved
as follows. The pass probability p does not depend on the data, so the pipeline's output law is p
M + (1 - p) F on both neighbours, and by joint convexity its hockey-stick divergence is at most p
delta_M + (1 - p) delta_F, with delta_F <= delta_b. If delta_M <= tau delta_b this is at most tau
delta_b. Otherwise some direction's draws, in [0, B] with mean above tau delta_b, averaged at most
delta_b, which has probability p <= e^{-N kl(delta_b/B || tau delta_b/B)} (Hoeffding 1963, Theorem
1, for the draws over B; kl(a || m) grows with m > a), and p delta_M + (1 - p) delta_F <= p +
(1 - p) tau delta_b. Both cases are at most the formula's value, at every tau: the least value found (a
log-spaced grid of tau, then golden-section steps) is taken, and raised by 1e-12 relative for its
round-off.

This is neither an estimate nor a certificate of the mechanism: it is a **pipeline guarantee**,
holding for the pipeline as run (a fresh verification, then the release it decides), whatever the
draws turn out to be.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..base.outward_text import outward_text
from ..base.validation import count, describe, epsilon_target, in_interval, positive_number
from .monte_carlo_bounds import MonteCarloKind

__all__ = ["PipelineGuarantee", "pipeline_base_delta", "pipeline_delta", "verify_then_release"]

_ROUND_OFF = (
    1e-12  # relative margin on the computed delta_overall (a few hundred rounded operations)
)
_TAUS = 2000  # grid of tau per call (log-spaced); any tau gives a valid bound, the grid only tightens it


def _overall(draws: int, base: float, bound: float) -> float:
    """min over tau of the pipeline formula (module docstring), before the round-off margin: a
    log-spaced grid of tau, then golden-section steps between the best point's neighbours (any tau
    gives a valid bound)."""
    # tau delta_b < B (beyond it no mean of draws in [0, B] exceeds tau delta_b) and tau delta_b <=
    # 1 (beyond it the formula exceeds 1): tau < min(B, 1) / delta_b
    log_top = math.log(min(bound, 1.0)) - math.log(
        base
    )  # in logs: min(B, 1) / delta_b may overflow
    if log_top <= 0.0:
        return min(bound, 1.0)
    log_base, log_bound = math.log(base), math.log(bound)
    scaled_base = math.exp(log_base - log_bound)  # delta_b / B
    # bernoulli_kl(scaled_base, m) with the logs of scaled_base taken once for every tau
    kl_log = math.log(scaled_base) if scaled_base > 0.0 else 0.0
    kl_log1p = math.log1p(-scaled_base) if scaled_base < 1.0 else 0.0

    def value(log_tau: float) -> float:
        tau_base = math.exp(log_tau + log_base)
        m = math.exp(log_tau + log_base - log_bound)
        if m >= 1.0:  # no mean of draws in [0, B] exceeds B
            return tau_base
        m = max(m, scaled_base)
        left = scaled_base * (kl_log - math.log(m)) if scaled_base > 0.0 else 0.0
        right = (1.0 - scaled_base) * (kl_log1p - math.log1p(-m)) if scaled_base < 1.0 else 0.0
        return tau_base + math.exp(-draws * (left + right)) * (1.0 - tau_base)

    grid = np.linspace(0.0, log_top, _TAUS, endpoint=False)
    values = [value(t) for t in grid.tolist()]
    i = int(np.argmin(values))
    low, high = float(grid[max(i - 1, 0)]), float(grid[min(i + 1, _TAUS - 1)])
    best = values[i]
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    for _ in range(80):
        left, right = high - ratio * (high - low), low + ratio * (high - low)
        at_left, at_right = value(left), value(right)
        best = min(best, at_left, at_right)
        if at_left < at_right:
            high = right
        else:
            low = left
    return min(best, bound, 1.0)


def pipeline_delta(draws: int, base_delta: float, *, support_bound: float = 1.0) -> float:
    r"""delta_overall of "verify (eps, base_delta) with N draws in [0, B], then run the mechanism that passed".

    .. math::

        \delta_{\rm overall} = \min_{1 \le \tau < B/\delta_b} \tau \delta_b
            + e^{-N\,\mathrm{kl}(\delta_b/B \,\|\, \tau\delta_b/B)} (1 - \tau \delta_b),

    (Dong & Ganesh 2026, arXiv:2602.09338, Appendix A, as jax_privacy's ``get_overall_delta`` states
    it; proof for one mechanism in the module docstring), the least value over 2000 log-spaced tau
    refined by golden-section steps, raised by 1e-12 relative.

    Parameters
    ----------
    draws : int
        N, the draws per direction of the verification, a whole number >= 1.
    base_delta : float
        delta_b, the level each direction's mean must not exceed, in (0, 1).
    support_bound : float, default 1
        B > 0, a bound on every draw (1 for plain draws, B(alpha) for importance-sampled ones).

    Returns
    -------
    float
        delta_overall in [base_delta, 1]: the pipeline is (eps, delta_overall)-DP.

    Raises
    ------
    ValueError
        ``draws`` not a whole number >= 1; ``base_delta`` outside (0, 1); ``support_bound`` not
        finite and > 0.

    Examples
    --------
    >>> from hockeystick.matrix.verified_release import pipeline_delta
    >>> round(pipeline_delta(10**7, 1e-5), 9)
    1.6821e-05
    """
    n = count(draws, "draws")
    base = float(in_interval(base_delta, "base_delta", 0.0, 1.0, open_low=True, open_high=True))
    bound = float(positive_number(support_bound, "support_bound"))
    return min(_overall(n, base, bound) * (1.0 + _ROUND_OFF), 1.0)


def pipeline_base_delta(draws: int, target_delta: float, *, support_bound: float = 1.0) -> float:
    """The largest base delta (on a fine search) whose ``pipeline_delta`` is <= target_delta, or 0 if none.

    delta_overall is not monotone in the base delta (it tends to 1 as the base falls to 0, since no
    verification can then pass reliably), so the search scans 400 log-spaced bases below the target
    and bisects above the largest that passes; every base returned passes ``pipeline_delta`` as
    computed.

    Parameters
    ----------
    draws : int
        N, a whole number >= 1.
    target_delta : float
        The delta_overall wanted, in (0, 1).
    support_bound : float, default 1
        B > 0, a bound on every draw.

    Returns
    -------
    float
        The base delta, in [0, target_delta): 0 when N draws cannot reach the target.

    Raises
    ------
    ValueError
        As ``pipeline_delta``.

    Examples
    --------
    >>> from hockeystick.matrix.verified_release import pipeline_base_delta, pipeline_delta
    >>> base = pipeline_base_delta(10**7, 1e-5)
    >>> pipeline_delta(10**7, base) <= 1e-5 < pipeline_delta(10**7, base * 1.01)
    True
    """
    n = count(draws, "draws")
    target = float(
        in_interval(target_delta, "target_delta", 0.0, 1.0, open_low=True, open_high=True)
    )
    bound = float(positive_number(support_bound, "support_bound"))

    def passes(base: float) -> bool:
        return min(_overall(n, base, bound) * (1.0 + _ROUND_OFF), 1.0) <= target

    bases = target * np.exp(np.linspace(0.0, -40.0, 401))[1:]
    found = next(
        (float(b) for b in bases if b > 0.0 and passes(float(b))), 0.0
    )  # subnormal targets underflow
    if found == 0.0:
        return 0.0
    low, high = found, found * math.exp(0.1)
    for _ in range(60):
        mid = math.sqrt(low * high)
        if passes(mid):
            low = mid
        else:
            high = mid
    return low


class _WeightedDraws(Protocol):
    draws: int

    def support_bound(self, epsilon: float) -> float: ...

    def weighted_draws(self, epsilon: float) -> tuple[np.ndarray, np.ndarray]: ...


@dataclass(frozen=True)
class PipelineGuarantee:
    """The (eps, delta_overall) of "verify by Monte Carlo, then run the verified mechanism", with its statement.

    Parameters
    ----------
    epsilon : float
        eps.
    delta : float
        delta_overall: the pipeline is (eps, delta)-DP.
    base_delta : float
        The level each direction's mean had to stay under.
    draws : int
        N, draws per direction.
    support_bound : float
        B, the bound on every draw.
    verified : bool
        Whether these draws passed (run the mechanism) or not (run the (eps, base_delta)-DP
        fallback).
    estimate : float
        The larger direction's mean (the Monte Carlo estimate of delta(eps)).
    kind : {"pipeline guarantee"}
        What ``delta`` is (``MonteCarloKind``).
    """

    epsilon: float
    delta: float
    base_delta: float
    draws: int
    support_bound: float
    verified: bool
    estimate: float
    kind: MonteCarloKind = "pipeline guarantee"

    def statement(self) -> str:
        """The guarantee in words: of what, with which probability, and its conditions."""
        outcome = "passed: run the mechanism" if self.verified else "failed: run the fallback"
        return (
            f"The pipeline 'verify eps = {self.epsilon:g} at base delta {self.base_delta:.4g} with {self.draws} fresh "
            f"draws a direction (each in [0, {self.support_bound:.3g}]), run the mechanism if every direction's mean is "
            f"<= the base, else a fallback certified (eps, base delta)-DP' is ({self.epsilon:g}, "
            f"{outward_text(self.delta, 'upper', 4)})-DP, "
            "the probability taken over the verification's draws and the release's noise together (Dong & Ganesh "
            f"2026, Appendix A, as jax_privacy states it). This verification {outcome} (estimate "
            f"{self.estimate:.4g}). A {self.kind}, not a certificate of the mechanism."
        )

    def __repr__(self) -> str:
        return (
            f"PipelineGuarantee({self.kind}: ({self.epsilon:g}, {outward_text(self.delta, 'upper')})-DP for "
            "verify-then-run, base delta "
            f"{self.base_delta:.6g}, {self.draws} draws a direction, B {self.support_bound:.3g}, "
            f"{'verified' if self.verified else 'not verified: fallback'}; not certified)"
        )


def verify_then_release(
    run: _WeightedDraws, epsilon: float, target_delta: float
) -> PipelineGuarantee:
    """Verify eps with a run's draws at the base delta that meets target_delta, and state the pipeline's guarantee.

    Parameters
    ----------
    run : ImportanceSampledMonteCarlo or BallsInBinsMonteCarlo
        Fresh draws from the dominating pair, not used before to choose the mechanism or eps.
    epsilon : float
        eps, a finite number >= 0.
    target_delta : float
        delta_overall wanted, in (0, 1).

    Returns
    -------
    PipelineGuarantee
        (eps, delta_overall <= target_delta) of the pipeline, whether these draws passed, and the
        statement.

    Raises
    ------
    ValueError
        ``epsilon`` not finite and >= 0; ``target_delta`` outside (0, 1); the run's draws too few to
        reach the target at any base delta (the message says how many more).
    """
    eps = epsilon_target(epsilon)
    if not math.isfinite(eps):
        raise ValueError(f"epsilon must be finite, got {describe(epsilon)}")
    target = float(
        in_interval(target_delta, "target_delta", 0.0, 1.0, open_low=True, open_high=True)
    )
    bound = run.support_bound(eps)
    base = pipeline_base_delta(run.draws, target, support_bound=bound)
    if base == 0.0:
        raise ValueError(
            f"target_delta {target:g} cannot be reached with {run.draws} draws a direction bounded by {bound:.3g}: "
            f"take about {10.0 * min(bound, 1.0) / target:.3g} draws or more"
        )
    means = [float(v.mean()) for v in run.weighted_draws(eps)]
    estimate = max(means)
    return PipelineGuarantee(
        epsilon=eps,
        delta=pipeline_delta(run.draws, base, support_bound=bound),
        base_delta=base,
        draws=run.draws,
        support_bound=bound,
        verified=estimate <= base,
        estimate=estimate,
    )
