"""A multiset of mechanisms to compose, and its certified (lower, upper) privacy profile.

The dp_accounting adapter turns an event tree into a ``CompositionPlan``: counts per distinct
mechanism (a hashable ``Mechanism`` spec), the Gaussian rounds folded into one radius, and a flag
for non-private events.  Nothing here knows about dp_accounting.

Gaussian rounds.  k rounds of Gaussians with shifts Delta_i / sigma_i compose exactly into one
Gaussian of radius r = sqrt(sum_i (Delta_i / sigma_i)^2) (Dong, Roth, Su 2022, Cor. 3.3: GDP
composes by adding mu^2), so delta = theta(r, eps) (paper 000 eq. 6).  A plan of Gaussians only is
answered in closed form (``theta``, accurate to 1e-12 relative, widened by ``THETA_MARGIN`` to
certify both sides); otherwise the radius enters the PLD composition as one Gaussian factor.

Grid.  With a fixed ``value_discretization_interval`` the PLD is built once on that grid.  With
``accuracy`` the grid starts at ``COARSEST_INTERVAL`` and shrinks by 0.9 sqrt(accuracy / width)
(the certified bracket narrows like h^2 for connect-the-dots PMFs) until the bracket at the asked
point is no wider than ``accuracy`` (absolute in epsilon, relative in delta) or the grid reaches
``FINEST_INTERVAL`` or the composed grid would exceed ``MAX_POINTS`` (finite pairs' brackets narrow
only like h, so a tight target can be out of reach); the final grid's bounds are reported, so they
are certified either way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..hockey_stick import theta, theta_epsilon
from ..pld import PrivacyLossDistribution
from ..pld import fixed_size_subsampled_gaussian, gaussian, laplace, subsampled_gaussian
from ..pld import with_replacement_subsampled_gaussian
from ..pld.canonical import eps_delta_dp
from ..pld.discrete_laplace import discrete_laplace, discrete_laplace_pair
from ..pld.gaussian_mixture import mixture_of_gaussians
from ..pld.laplace_mixture import laplace_mixture
from ..pld.randomized_response import randomized_response
from ..pld.subsampling import poisson_subsampled
from ..pld.truncated_subsampling import truncated_subsampled_gaussian

THETA_MARGIN = 4e-12
COARSEST_INTERVAL = 1e-3
FINEST_INTERVAL = 1e-5
MAX_POINTS = 1 << 20

Mechanism = tuple  # ("name", *parameters): hashable, one per distinct mechanism


def _build(mechanism: Mechanism, h: float) -> PrivacyLossDistribution:
    """The PLD of one mechanism spec on grid h."""
    name, *args = mechanism
    builders: dict[str, Callable[..., PrivacyLossDistribution]] = {
        "poisson_gaussian": lambda sigma, q: subsampled_gaussian(sigma, q, value_discretization_interval=h),
        "laplace": lambda scale: laplace(scale, value_discretization_interval=h),
        "laplace_mixture": lambda scale, shifts, weights: laplace_mixture(scale, list(shifts), list(weights),
                                                                          value_discretization_interval=h),
        "gaussian_mixture": lambda sigma, shifts, weights: mixture_of_gaussians(
            sigma, list(shifts), list(weights), value_discretization_interval=h),
        "discrete_laplace": lambda a, s: discrete_laplace(a, s, value_discretization_interval=h),
        "poisson_discrete_laplace": lambda a, s, q: poisson_subsampled(*discrete_laplace_pair(a, s), q,
                                                                       value_discretization_interval=h),
        "truncated_gaussian": lambda n, q, b, sigma: truncated_subsampled_gaussian(
            n, q, b, sigma, value_discretization_interval=h),
        "randomized_response": lambda p, k, relation: randomized_response(p, k, relation=relation,
                                                                          value_discretization_interval=h),
        "eps_delta": lambda eps, delta: eps_delta_dp(eps, delta, value_discretization_interval=h),
        "without_replacement_gaussian": lambda sigma, m, n: fixed_size_subsampled_gaussian(
            sigma, m, n, value_discretization_interval=h),
        "with_replacement_gaussian": lambda sigma, k, n: with_replacement_subsampled_gaussian(
            sigma, k, n, value_discretization_interval=h),
    }
    return builders[name](*args)


@dataclass
class CompositionPlan:
    """Counts per distinct mechanism, the folded Gaussian radius^2, and a non-private flag."""

    counts: dict[Mechanism, int] = field(default_factory=dict)
    gaussian_r2: float = 0.0
    non_private: bool = False

    def add(self, mechanism: Mechanism, count: int) -> None:
        self.counts[mechanism] = self.counts.get(mechanism, 0) + int(count)

    def add_gaussian(self, radius: float, count: int) -> None:
        self.gaussian_r2 += count * radius * radius

    def merge(self, other: "CompositionPlan") -> None:
        for m, c in other.counts.items():
            self.add(m, c)
        self.gaussian_r2 += other.gaussian_r2
        self.non_private |= other.non_private

    @property
    def empty(self) -> bool:
        return not self.counts and self.gaussian_r2 == 0.0


class PlanProfile:
    """Certified (lower, upper) delta(eps) and eps(delta) of a plan, grids built on demand and cached."""

    def __init__(self, plan: CompositionPlan, value_discretization_interval: float | None, accuracy: float | None):
        self.plan = plan
        self.fixed_interval = value_discretization_interval
        self.accuracy = accuracy
        self._composed: dict[float, PrivacyLossDistribution] = {}
        self._factors: dict[tuple[Mechanism, float], PrivacyLossDistribution] = {}

    def _pld(self, h: float) -> PrivacyLossDistribution:
        if h not in self._composed:
            total: PrivacyLossDistribution | None = None
            parts = [(self._factor(m, h), c) for m, c in self.plan.counts.items()]
            if self.plan.gaussian_r2 > 0:
                parts.append((gaussian(1.0 / math.sqrt(self.plan.gaussian_r2), value_discretization_interval=h), 1))
            for pld, count in parts:
                step = pld.self_compose(count) if count > 1 else pld
                total = step if total is None else total.compose(step)
            assert total is not None
            self._composed[h] = total
        return self._composed[h]

    def _factor(self, mechanism: Mechanism, h: float) -> PrivacyLossDistribution:
        key = (mechanism, h)
        if key not in self._factors:
            self._factors[key] = _build(mechanism, h)
        return self._factors[key]

    def _bracket(self, method: str, x: float) -> tuple[float, float]:
        """(lower, upper) of ``method`` ("delta" or "epsilon") at x, refining the grid for ``accuracy``."""
        if self.fixed_interval is not None:
            lo, up = getattr(self._pld(self.fixed_interval), method)(x, bound="both")
            return float(lo), float(up)
        target = float(self.accuracy) if self.accuracy is not None else 0.0
        h = COARSEST_INTERVAL
        previous: tuple[float, float] | None = None
        while True:
            pld = self._pld(h)
            lo, up = (float(v) for v in getattr(pld, method)(x, bound="both"))
            width = up - lo if method == "epsilon" else (up - lo) / max(up, 1e-300)
            if width <= target or h <= FINEST_INTERVAL:
                return lo, up
            # width ~ h^k: k = 2 for continuous laws (connect the dots), 1 for atoms; measured once two
            # grids are known, so the next grid is aimed at the target directly.
            k = 2.0
            if previous is not None and 0 < width < previous[1]:
                k = min(max(math.log(previous[1] / width) / math.log(previous[0] / h), 0.5), 2.0)
            previous = (h, width)
            shrink = 0.9 * (target / width) ** (1.0 / k) if math.isfinite(width) else 0.5
            # Budget: the composed grid grows like 1/h; stop where the next one would exceed MAX_POINTS
            # (finite pairs' brackets narrow only like h, so their target may be out of reach).
            points = max(pmf.p.size for pmf in pld.composed(True))
            floor = h * points / MAX_POINTS
            nxt = max(h * min(shrink, 0.9), FINEST_INTERVAL, floor)
            if nxt >= 0.95 * h:
                return lo, up
            h = nxt

    def delta(self, epsilon: float) -> tuple[float, float]:
        """Certified (lower, upper) on delta(epsilon)."""
        if self.plan.non_private:
            return 1.0, 1.0
        if self.plan.empty:
            return 0.0, 0.0
        if not self.plan.counts:
            d = float(theta(math.sqrt(self.plan.gaussian_r2), epsilon))
            return max(d * (1 - THETA_MARGIN), 0.0), min(d * (1 + THETA_MARGIN), 1.0)
        return self._bracket("delta", epsilon)

    def epsilon(self, delta: float) -> tuple[float, float]:
        """Certified (lower, upper) on the smallest epsilon >= 0 with delta(epsilon) <= delta."""
        if self.plan.non_private:
            return math.inf, math.inf
        if self.plan.empty or delta >= 1.0:
            return 0.0, 0.0
        tiny = np.nextafter(0.0, 1.0)
        if not self.plan.counts:
            r = math.sqrt(self.plan.gaussian_r2)
            upper = math.inf if delta <= 0 else float(theta_epsilon(r, delta * (1 - THETA_MARGIN)))
            lower = float(theta_epsilon(r, min(max(delta, tiny) * (1 + THETA_MARGIN), np.nextafter(1.0, 0.0))))
            return lower, upper
        if delta <= 0:  # epsilon(delta) is non-increasing: any lower bound at a delta' > 0 holds at 0
            return self._bracket("epsilon", float(tiny))[0], math.inf
        return self._bracket("epsilon", delta)
