"""The PLD adapter's rule for ``ZCDpEvent``: zCDP composes by adding (xi, rho); it has no PLD.

A (xi, rho)-zCDP event says only that the mechanism's Renyi divergences are at most xi + rho alpha,
which fixes no privacy-loss distribution, so it cannot enter a PLD composition.  The rule:

- A plan of ``ZCDpEvent`` runs and Gaussians only is answered in zCDP: the runs add (xi, rho) (Bun &
  Steinke 2016, Lemma 2.3), and a Gaussian of radius r is exactly r^2 / 2-zCDP (its Renyi divergence
  is alpha r^2 / 2), so the plan is (xi, rho + r^2 / 2)-zCDP.  The upper side is the zCDP conversion
  of ``rdp.zcdp`` (certified, at its near-optimal order); the lower side is the Gaussian of radius
  sqrt(2 rho + r^2), which is (0, rho + r^2 / 2)-zCDP, so the worst case over the mechanisms the
  events allow is at least its exact theta (``certified_theta``).  The truth for the events as
  stated lies between the two.
- Any other mechanism beside a ``ZCDpEvent`` (in one event tree or over several ``compose`` calls),
  and any sample of one, is refused (``dp_events.Unsupported``, dp_accounting's
  ``UnsupportedEventError``): a PLD converted to zCDP would lose the tightness the PLD accountant is
  for; ``HockeystickRdpAccountant`` composes zCDP with every RDP event instead.

Rounding: rho and xi are summed as count x value products with ``math.fsum`` (each product one
rounding, the sum one), widened by (terms + 2) u and stepped one ulp outward per side; the folded
Gaussian radius^2 comes from ``CompositionPlan.gaussian_radius_bounds``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...base.event_fields import event_field_at_least_zero, nonnegative
from ...numerics.certified_theta import theta_epsilon_lower, theta_lower
from ...rdp.zcdp import zcdp_to_delta, zcdp_to_epsilon
from ..grid.distribution import PrivacyLossDistribution
from ..mechanisms.mechanism import Mechanism
from .composition_plan import CompositionPlan


@dataclass(frozen=True)
class Zcdp(Mechanism):
    """A (xi, rho)-zCDP guarantee as stated (dp_accounting's ``ZCDpEvent``; Bun & Steinke 2016): it
    bounds the Renyi divergences only and fixes no privacy-loss distribution, so it has no grid PLD;
    a plan of these beside Gaussians is answered in zCDP (module docstring), any other plan refuses
    it."""

    name: ClassVar[str] = "zcdp"
    dp_event: ClassVar[str] = "dp_accounting.dp_event.ZCDpEvent"
    dp_event_field: ClassVar[str] = "rho"
    rho: float
    xi: float

    @classmethod
    def from_dp_event(cls, event: Any, relation: str) -> Zcdp | None:
        """One ``ZCDpEvent(rho, xi)``: the guarantee as stated, under any relation (finite rho, xi
        >= 0); None where both are 0."""
        rho, xi = nonnegative(event, "rho"), nonnegative(event, "xi")
        return cls(rho, xi) if rho > 0 or xi > 0 else None

    @classmethod
    def rdp_of_dp_event(cls, event: Any, relation: str, orders: np.ndarray) -> np.ndarray:
        """xi + rho alpha (Bun & Steinke 2016, Def. 1.1), rho and xi >= 0 (+inf allowed: an
        infinite curve)."""
        rho = event_field_at_least_zero(event, "rho")
        xi = event_field_at_least_zero(event, "xi")
        return xi + rho * np.asarray(orders)

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        raise ValueError(
            f"zcdp(rho={self.rho}, xi={self.xi}) fixes no privacy-loss distribution: it composes in zCDP beside"
            " Gaussians only (pld.accountants.zcdp_plan)"
        )


UNIT_ROUNDOFF = 2.0**-53
SMALLEST_DELTA = math.nextafter(0.0, 1.0)


@dataclass(frozen=True)
class ZcdpTotal:
    """The plan's composed zCDP parameters: rho within [rho_lower, rho_upper], xi at most xi_upper."""

    rho_lower: float
    rho_upper: float
    xi_upper: float

    def delta(self, epsilon: float) -> tuple[float, float]:
        """Certified (lower, upper) on delta(epsilon) of the worst mechanism the events allow (module docstring)."""
        lower = float(theta_lower(self._radius_lower(), epsilon))
        if not self.rho_upper + self.xi_upper < math.inf:
            return lower, 1.0
        return lower, max(zcdp_to_delta(self.rho_upper, epsilon, xi=self.xi_upper), lower)

    def epsilon(self, delta: float) -> tuple[float, float]:
        """Certified (lower, upper) on epsilon(delta), delta in (0, 1)."""
        # two lower bounds, the larger kept: theta's certified inverse, and the mean loss's, which
        # still holds where the core's epsilon overflows past radius ~1e154 (rho ~ 1e308)
        lower = max(
            float(theta_epsilon_lower(self._radius_lower(), max(delta, SMALLEST_DELTA))),
            self._mean_loss_lower(delta),
        )
        if not self.rho_upper + self.xi_upper < math.inf:
            return lower, math.inf
        return lower, max(zcdp_to_epsilon(self.rho_upper, delta, xi=self.xi_upper), lower)

    def _radius_lower(self) -> float:
        """sqrt(2 rho_lower) rounded down: sqrt(2) sqrt(rho_lower) (2 rho_lower overflows past
        9e307), the two square roots, their product and the widening one rounding each."""
        root = math.sqrt(2.0) * math.sqrt(self.rho_lower)
        return max(math.nextafter(root * (1.0 - 4.0 * UNIT_ROUNDOFF), 0.0), 0.0)

    def _mean_loss_lower(self, delta: float) -> float:
        """A lower bound on the Gaussian's epsilon(delta) at radius sqrt(2 rho_lower) without its
        square: its loss under P is N(rho, 2 rho), so P[L > rho] = 1/2 and delta(rho - 1) >=
        (1/2)(1 - e^{-1}) > 0.316: for delta <= 0.3, epsilon(delta) >= rho - 1 (rho_lower rounded down); 0
        otherwise."""
        if delta > 0.3:
            return 0.0
        return max(math.nextafter(self.rho_lower * (1.0 - 2.0 * UNIT_ROUNDOFF) - 1.0, 0.0), 0.0)


def _outward_sum(terms: list[float], up: bool) -> float:
    """The exact sum of the products count x value (each one rounding), bounded on one side."""
    total = math.fsum(terms)
    widen = (len(terms) + 2) * UNIT_ROUNDOFF
    return (
        math.nextafter(total * (1.0 + widen if up else 1.0 - widen), math.inf if up else 0.0)
        if total
        else 0.0
    )


def has_zcdp(plan: CompositionPlan) -> bool:
    return any(m[0] == Zcdp.name for m in plan.counts)


def zcdp_alone(plan: CompositionPlan) -> bool:
    """Whether the plan keeps the rule: no ``ZCDpEvent`` run, or only those beside the folded Gaussians."""
    return not has_zcdp(plan) or all(m[0] == Zcdp.name for m in plan.counts)


def zcdp_total(plan: CompositionPlan) -> ZcdpTotal | None:
    """The composed (xi, rho) of a plan of zCDP runs and Gaussians (None for a plan without zCDP runs)."""
    if not has_zcdp(plan):
        return None
    runs = [(Zcdp.from_spec(m), count) for m, count in plan.counts.items()]
    rho_terms = [count * m.rho for m, count in runs]
    xi_terms = [count * m.xi for m, count in runs]
    r_lo, r_hi = plan.gaussian_radius_bounds() if plan.gaussian_r2 > 0 else (0.0, 0.0)
    return ZcdpTotal(
        _outward_sum(rho_terms + [r_lo * r_lo / 2.0 * (1.0 - 2.0 * UNIT_ROUNDOFF)], False),
        _outward_sum(rho_terms + [r_hi * r_hi / 2.0 * (1.0 + 2.0 * UNIT_ROUNDOFF)], True),
        _outward_sum(xi_terms, True),
    )
