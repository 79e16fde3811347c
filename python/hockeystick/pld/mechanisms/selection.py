"""Private selection: the exponential mechanism and permute-and-flip, certified both sides.

Both mechanisms pick one of finitely many candidates r from scores u(D, r) whose sensitivity
(under the neighbouring relation analysed) is Delta; epsilon is their usual parameter:

- exponential mechanism: Pr[r] proportional to exp(epsilon u(D, r) / (2 Delta)) (McSherry & Talwar
  2007); also exp(epsilon u / Delta) for scores that move in one direction for every candidate;
- permute-and-flip: candidates in a uniformly random order, r accepted with probability
  exp(epsilon (u(D, r) - max_r' u(D, r')) / (2 Delta)) (McKenna & Sheldon 2020, Thm 1: epsilon-DP).

Upper sides (dominating pairs, so composing them bounds adaptive composition: Zhu, Dong & Wang
2022, Thm 10).

- Permute-and-flip: epsilon-DP, so dominated by the canonical pair of (epsilon, 0)-DP (Kairouz, Oh &
  Viswanath 2015, Thm 2.1; ``canonical``).
- Exponential mechanism: epsilon-bounded range (Durfee & Rogers 2019, "BR"): its privacy loss
  L(r) = epsilon (u(D, r) - u(D', r)) / (2 Delta) + log(Z' / Z) lies in an interval [t - epsilon, t]
  (its score term spans at most epsilon; the one-direction form spans [0, epsilon] before the
  constant), and t lies in [0, epsilon] (L must take values of both signs or be 0).  Splitting each
  outcome of P-mass p and loss l in [t - epsilon, t] into two, of P-mass
  p (e^{-l} - e^{-t}) / (e^{epsilon - t} - e^{-t}) at loss t - epsilon and the rest at loss t (both
  non-negative there; the Q-masses add up), makes the pair a merge, i.e. a post-processing, of the
  binary pair B_t with losses {t - epsilon, t} (generalized randomized
  response, Dong, Durfee & Rogers 2020, Sec. 3.1 and 4), so delta(eps') <= sup_t delta_{B_t}(eps').
  With E = e^epsilon, a = e^eps' and p_t = (E - e^t) / (E - 1) the B_t-mass at loss t,
  delta_{B_t}(eps') = p_t (1 - a e^{-t}) for eps' in [t - epsilon, t]; the supremum over t is at
  e^t = sqrt(a E):
      delta*(eps') = (e^{epsilon/2} - e^{eps'/2})^2 / (e^epsilon - 1),  eps' in [-epsilon, epsilon],
  (1 - e^eps' below, 0 above).  This is exactly the profile of the pair on [-epsilon/2, epsilon/2]
  with densities P ~ e^{y}, Q ~ e^{-y} (loss 2y, non-decreasing: ``monotone``), which therefore
  dominates every epsilon-BR pair; delta*(0) = tanh(epsilon/4), where epsilon-DP gives tanh(epsilon/2).  Its
  cells and both sides are the C++ core's (cpp/include/hockeystick/pld/mechanisms/bounded_range.hpp over
  monotone.hpp: the loss is linear, so every cut is in closed form).
  It is symmetric (y -> -y swaps P and Q): one direction.  Dong, Durfee & Rogers 2020 show the
  optimal adaptive composition of BR mechanisms exceeds the non-adaptive one; composing this pair
  bounds the adaptive one (it dominates each step whatever the history), and is not that optimum.

Lower sides (realizable pairs: two candidates r1, r2 and scores u(., r1) = Delta c_x, u(., r2) =
Delta (1 - c_x) or 0, c_x the number of copies of a record x: sensitivity Delta under add/remove,
replace-one and replace-special alike, with D holding x and D' not).

- Exponential mechanism: scores (Delta, 0) on D and (0, Delta) on D' give the randomized response
  pair of epsilon/2 (B_t at t = epsilon/2, the supremum at eps' = 0), the canonical pair of
  (epsilon/2, 0).  Swapping the score functions realizes the swapped pair, and it is symmetric.  On
  1 + m candidates, scores (Delta, 0, ..., 0) on D and (0, Delta, ..., Delta) on D' give B_t at t =
  epsilon/2 + log((1 + m E) / (E + m)), E = e^{epsilon/2}, P-mass E / (E + m) there; m = round(E)
  puts t near epsilon - log 2 with mass ~1/2, so for small delta its epsilon is near epsilon where
  randomized response stops at epsilon/2.  Both pairs are kept (two directions), the larger lower
  side reported.
- Permute-and-flip: scores (0, 0) on D and (Delta, -Delta) on D' give P = (1/2, 1/2), Q = (1 -
  e^{-epsilon}/2, e^{-epsilon}/2) (the loss on r2 is epsilon); both orders are kept (each is
  realizable with the scores swapped), the worse composition reported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ... import _core
from ...base import validation as _validation
from ...base.event_fields import event_field_at_least_zero
from ..grid.atoms import SMALLEST_NORMAL, UNIT_ROUNDOFF
from ..grid.distribution import Factor, PrivacyLossDistribution
from ..grid.pmf import GridPMF
from .canonical import canonical_pair, eps_delta_dp
from .constructors import DEFAULT_INTERVAL, MAX_CELLS, _factor, checked_interval, from_distributions
from .mechanism import Mechanism
from .monotone import core_side_factor

if TYPE_CHECKING:
    from .largest_loss import Directions

# where the dp_accounting-style events of both mechanisms are defined (named, not imported: the
# adapter sits above this stage; ``registry.dp_event_class`` matches the dotted names)
SELECTION_EVENTS = "hockeystick.interop.dp_accounting.selection_events"


def _epsilon(epsilon: float) -> float:
    return float(_validation.nonnegative(_validation.single(epsilon, "epsilon"), "epsilon"))


def bounded_range_profile(epsilon: float, eps: np.ndarray) -> np.ndarray:
    """delta*(eps') of the bounded-range pair (module docstring) at real eps', in floats (a
    reference; e^{eps'} (e^{(epsilon - eps')/2} - 1)^2 / (e^epsilon - 1) written without
    overflow)."""
    e = np.asarray(eps, dtype=np.float64)
    inside = np.exp(e - epsilon) * np.expm1(0.5 * (epsilon - e)) ** 2 / -math.expm1(-epsilon)
    return np.where(e >= epsilon, 0.0, np.where(e <= -epsilon, -np.expm1(e), inside))


def permute_and_flip_pair(epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """The realizable permute-and-flip pair on two candidates (module docstring): (P, Q) on (r1, r2)."""
    low = 0.5 * math.exp(-epsilon)
    return np.array([0.5, 0.5]), np.array([1.0 - low, low])


def exponential_mechanism(
    epsilon: float, *, value_discretization_interval: float = DEFAULT_INTERVAL
) -> PrivacyLossDistribution:
    """The exponential mechanism of parameter epsilon: the bounded-range pair above, below the
    larger of randomized response of epsilon/2 and the pair on 1 + round(e^{epsilon/2}) candidates
    (module docstring). epsilon = 0 releases nothing."""
    eps = _epsilon(epsilon)
    h = checked_interval(value_discretization_interval)
    if eps == 0.0:
        return from_distributions([1.0], [1.0], value_discretization_interval=h, symmetric=True)
    if (
        0.5 * eps == 0.0
    ):  # eps = 5e-324: the pair's half-width underflows; eps-DP, so the (eps, 0) pair dominates
        (upper,) = eps_delta_dp(eps, value_discretization_interval=h).directions[0]
    else:
        remove, _ = _core.pld_mechanisms.bounded_range(epsilon=eps, h=h, max_cells=MAX_CELLS)
        upper = core_side_factor(f"bounded_range(epsilon={eps})", remove)
    p, q = canonical_pair(0.5 * eps)
    # e^{-eps/2} underflows past eps ~ 1490: that mass is then computed, not a structural zero
    structural = bool(p[1:3].min() >= SMALLEST_NORMAL)
    (lower,) = from_distributions(
        p, q, value_discretization_interval=h, symmetric=True, exact_zeros=structural
    ).directions[0]
    label = f"exponential_mechanism(epsilon={eps})"
    directions = [{Factor(label, upper.upper, lower.lower, upper.connect_dots): 1}]
    many = _many_candidates_lower(eps, h)
    if many is not None:  # a second realizable pair: the larger of the two lower sides is reported
        directions.append({Factor(label, upper.upper, many, upper.connect_dots): 1})
    return PrivacyLossDistribution(directions)


def _many_candidates_lower(eps: float, h: float) -> GridPMF | None:
    """The lower side of the realizable pair on 1 + m candidates, m = round(e^{eps/2}) (module
    docstring), or None where m = 1 (the randomized response itself).

    Scores (Delta, 0, ..., 0) on D and (0, Delta, ..., Delta) on D' (sensitivity Delta under every
    relation): with E = e^{eps/2}, the first candidate has P-mass E / (E + m) at loss t = eps/2 +
    log((1 + m E) / (E + m)), the m others together the rest at t - eps.  Up to eps = 700 the pair's
    masses are doubles (``from_distributions``); beyond, m is the integer floor(E) (an integer near
    E: E (1 - theta), 0 <= theta < 1/E) and the pair has, exactly, P-masses at least 1/2 - 1/(2E) on
    each atom and losses at least eps - log 2 - 2/E and -log 2 - 2/E: the lower side takes P-masses
    1/2 (1 - 2^-52) there and the losses rounded down past their round-off (2/E < 1e-150
    included)."""
    if eps <= 700.0:
        big = math.exp(0.5 * eps)
        m = float(round(big))
        if m <= 1.0:
            return None
        p = np.array([big / (big + m), m / (big + m)])
        q = np.array([1.0 / (1.0 + m * big), m * big / (1.0 + m * big)])
        (factor,) = from_distributions(
            p, q, value_discretization_interval=h, symmetric=True
        ).directions[0]
        return factor.lower
    log2 = math.log(2.0)
    margin = 4.0 * UNIT_ROUNDOFF * eps + 1e-150
    loss = np.array(
        [math.nextafter(eps - log2 - margin, -math.inf), math.nextafter(-log2 - 1e-150, -math.inf)]
    )
    mass = np.full(2, 0.5 * (1.0 - 2.0**-52))
    return _factor(
        "exponential_mechanism(many candidates)",
        _core.pld_mechanisms.atoms(loss, mass, h=h, max_cells=MAX_CELLS),
    ).lower


def permute_and_flip(
    epsilon: float, *, value_discretization_interval: float = DEFAULT_INTERVAL
) -> PrivacyLossDistribution:
    """Permute-and-flip of parameter epsilon: the (epsilon, 0)-DP canonical pair above, the
    realizable two-candidate pair below, both orders (module docstring).  epsilon = 0 releases
    nothing."""
    eps = _epsilon(epsilon)
    h = checked_interval(value_discretization_interval)
    if eps == 0.0:
        return from_distributions([1.0], [1.0], value_discretization_interval=h, symmetric=True)
    (upper,) = eps_delta_dp(eps, value_discretization_interval=h).directions[0]
    p, q = permute_and_flip_pair(eps)
    lowers = from_distributions(p, q, value_discretization_interval=h, exact_zeros=False).directions
    label = f"permute_and_flip(epsilon={eps})"
    return PrivacyLossDistribution(
        [{Factor(label, upper.upper, next(iter(d)).lower, upper.connect_dots): 1} for d in lowers]
    )


@dataclass(frozen=True)
class ExponentialMechanism(Mechanism):
    """The exponential mechanism of parameter eps: above, the pair dominating every
    eps-bounded-range pair (Dong, Durfee, Rogers 2020); below, randomized response of eps / 2 on two
    candidates (module docstring; ``exponential_mechanism``)."""

    name: ClassVar[str] = "exponential_mechanism"
    dp_event: ClassVar[str] = f"{SELECTION_EVENTS}.ExponentialMechanismDpEvent"
    dp_event_field: ClassVar[str] = "epsilon"
    eps: float

    @classmethod
    def from_dp_event(cls, event: Any, relation: str) -> ExponentialMechanism | None:
        """The mechanism of one ``ExponentialMechanismDpEvent`` (any relation: epsilon is stated for
        the relation's score sensitivity), or None at epsilon 0 (a uniform pick releases
        nothing)."""
        eps = event_field_at_least_zero(event, "epsilon")
        return cls(eps) if eps > 0 else None

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return exponential_mechanism(self.eps, value_discretization_interval=h)

    def loss_reach(self) -> float:
        """epsilon: the bounded-range pair's loss lies in [-epsilon, epsilon] (module docstring)."""
        return self.eps

    def largest_losses(self) -> Directions:
        """epsilon both ways: the bounded-range pair's loss reaches epsilon, approached by the
        realizable pairs on 1 + m candidates, eps/2 + log((1 + m E) / (E + m)), E = e^{eps/2}."""
        from fractions import Fraction

        from .largest_loss import both_ways

        return both_ways(Fraction(self.eps))

    def rdp(self, orders: np.ndarray) -> np.ndarray:
        """The exact Rényi curve of epsilon-bounded-range mechanisms, rounded up (Cesar & Rogers
        2021; ``rdp.bounded_range``)."""
        from ...rdp.bounded_range import bounded_range_rdp

        return bounded_range_rdp(self.eps, orders)


@dataclass(frozen=True)
class PermuteAndFlip(Mechanism):
    """Permute-and-flip of parameter eps (McKenna & Sheldon 2020): above, the (eps, 0)-DP canonical
    pair; below, the realizable two-candidate pair, both orders (module docstring;
    ``permute_and_flip``)."""

    name: ClassVar[str] = "permute_and_flip"
    dp_event: ClassVar[str] = f"{SELECTION_EVENTS}.PermuteAndFlipDpEvent"
    dp_event_field: ClassVar[str] = "epsilon"
    eps: float

    @classmethod
    def from_dp_event(cls, event: Any, relation: str) -> PermuteAndFlip | None:
        """The mechanism of one ``PermuteAndFlipDpEvent`` (any relation, as the exponential
        mechanism's), or None at epsilon 0 (nothing released)."""
        eps = event_field_at_least_zero(event, "epsilon")
        return cls(eps) if eps > 0 else None

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return permute_and_flip(self.eps, value_discretization_interval=h)

    def loss_reach(self) -> float:
        """epsilon: an epsilon-DP pair's loss lies in [-epsilon, epsilon]."""
        return self.eps

    def largest_losses(self) -> Directions:
        """epsilon both ways, attained: the realizable pair's loss on the second candidate."""
        from fractions import Fraction

        from .largest_loss import both_ways

        return both_ways(Fraction(self.eps))

    def rdp(self, orders: np.ndarray) -> np.ndarray:
        """The Rényi curve of any epsilon-DP mechanism, rounded up (``rdp.pure_dp``)."""
        from ...rdp.pure_dp import pure_dp_rdp

        return pure_dp_rdp(self.eps, orders)
