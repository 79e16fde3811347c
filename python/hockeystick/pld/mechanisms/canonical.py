"""The canonical pair of an (eps, delta)-DP mechanism: a dominating pair on four outcomes.

Every (eps, delta)-DP mechanism is a post-processing of the pair (Kairouz, Oh, Viswanath,
"The composition theorem for differential privacy", ICML 2015, Thm 2.1; Murtagh & Vadhan 2016)

    P = (delta, (1 - delta) e^eps / (1 + e^eps), (1 - delta) / (1 + e^eps), 0)
    Q = (0, (1 - delta) / (1 + e^eps), (1 - delta) e^eps / (1 + e^eps), delta),

whose profile is delta(eps') = delta + (1 - delta) (e^eps - e^eps')_+ / (1 + e^eps) for eps' >= 0.
Swapping P and Q mirrors the outcomes, so the pair is symmetric: one direction.  Its PLD has atoms
at -eps, eps and +infinity only, so both sides are exact up to the grid (``from_distributions``).
Pure eps-DP is delta = 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ... import _core
from ...base import validation as _validation
from ...base.event_fields import (
    check_reach,
    event_field_at_least_zero,
    nonnegative,
    probability,
)
from ...base.event_refusal import EventRefused, NonPrivateRun
from ...base.parameter_range import MAX_FINITE_REACH
from ..grid.atoms import SMALLEST_NORMAL, UNIT_ROUNDOFF, Atoms
from ..grid.distribution import Factor, PrivacyLossDistribution
from .constructors import DEFAULT_INTERVAL, MAX_CELLS, _factor, from_distributions
from .mechanism import Mechanism, Pair, Spec

if TYPE_CHECKING:
    from .largest_loss import Directions

# The farthest grid index at which an atom's loss is an exact multiple of the interval (indices are
# exact in doubles up to 2^53; the grid composes two such ends without overflow): past it no cell
# holds the loss eps.
_GRID_REACH = float(2**52)


def canonical_pair(epsilon: float, delta: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(P, Q) above, after checking eps >= 0 and 0 <= delta <= 1 (finite, not NaN)."""
    eps = float(_validation.nonnegative(_validation.single(epsilon, "epsilon"), "epsilon"))
    d = float(
        _validation.in_interval(
            _validation.single(delta, "delta"), "delta", 0.0, 1.0, open_low=False, open_high=False
        )
    )
    hi = (1.0 - d) / (1.0 + math.exp(-eps))  # (1 - delta) e^eps / (1 + e^eps), without overflow
    lo = (1.0 - d) * (
        math.exp(-eps) / (1.0 + math.exp(-eps))
    )  # not (1 - delta) - hi: that cancels to 0 past eps ~ 37
    return np.array([d, hi, lo, 0.0]), np.array([0.0, lo, hi, d])


def eps_delta_dp(
    epsilon: float, delta: float = 0.0, *, value_discretization_interval: float = DEFAULT_INTERVAL
) -> PrivacyLossDistribution:
    r"""Discretized PLD of the canonical pair that dominates every (epsilon, delta)-DP mechanism.

    Every (eps, delta)-DP mechanism is a post-processing of the four-outcome pair

    .. math::

        P = \Bigl(\delta, \tfrac{(1-\delta) e^\varepsilon}{1+e^\varepsilon}, \tfrac{1-\delta}{1+e^\varepsilon}, 0\Bigr),
        \qquad
        Q = \Bigl(0, \tfrac{1-\delta}{1+e^\varepsilon}, \tfrac{(1-\delta) e^\varepsilon}{1+e^\varepsilon}, \delta\Bigr),

    whose profile is :math:`\delta(\varepsilon') = \delta + (1-\delta)(e^\varepsilon -
    e^{\varepsilon'})_+ / (1 + e^\varepsilon)` for eps' >= 0; so its composition bounds the
    composition of any such mechanisms.  The pair is symmetric (one direction); its losses are -eps,
    eps and +infinity, so both sides are exact up to the grid.

    Parameters
    ----------
    epsilon : float
        The mechanism's epsilon, finite and >= 0.
    delta : float, optional
        The mechanism's delta, 0 <= delta <= 1 (default 0: pure epsilon-DP).
    value_discretization_interval : float, optional
        Spacing h of the loss grid, 0 < h <= 100 (default 1e-4).

    Returns
    -------
    PrivacyLossDistribution
        One direction with atoms at -epsilon, epsilon and mass delta at +infinity.

    Raises
    ------
    ValueError
        If epsilon is negative, infinite or NaN, delta lies outside [0, 1],
        ``value_discretization_interval`` lies outside (0, 100], or (for epsilon past about 708,
        where the pair's middle masses underflow) epsilon / ``value_discretization_interval``
        exceeds 2**52.
    ParameterTypeError
        If an argument is a string, a boolean or None.

    References
    ----------
    Kairouz, Oh & Viswanath 2015, Thm 2.1; Murtagh & Vadhan 2016.

    Examples
    --------
    >>> import hockeystick.pld as pld
    >>> [round(x, 6) for x in pld.eps_delta_dp(1.0, 1e-3).delta(0.5, bound="both")]
    [0.288361, 0.288361]
    """
    p, q = canonical_pair(epsilon, delta)
    # The zeros at the ends are the pair's own (exact); a middle mass below 2^-1022 (eps past ~700)
    # may have underflowed, and from_distributions then treats every small mass as uncertain.
    structural = bool(p[1:3].min() >= SMALLEST_NORMAL)
    pld = from_distributions(
        p,
        q,
        value_discretization_interval=value_discretization_interval,
        symmetric=True,
        exact_zeros=structural,
    )
    if structural:
        return pld
    # Past eps ~ 708 the Q-mass e^-eps / (1 + e^-eps) of the loss-eps outcome is subnormal or 0, and
    # the pair's pessimistic side put its P-mass at +infinity (no relative bound on that Q-mass).
    # The losses are known exactly (+-eps, +infinity): the pessimistic side takes the P-mass of the
    # loss -eps outcome up to loss eps (delta(eps') grows with every loss, so moving mass up only
    # raises it), one atom of P-mass 1 - delta at eps (rounded up) beside delta at +infinity.
    (factor,) = pld.directions[0]
    if float(epsilon) / factor.upper.h > _GRID_REACH:
        raise ValueError(
            f"epsilon = {float(epsilon):g} lies more than the {_GRID_REACH:.3g} grid points out that a loss grid "
            f"places exactly: use a coarser value_discretization_interval (at least "
            f"epsilon / 2^52 = {float(epsilon) / _GRID_REACH:.3g}), or the exact atoms of pld.mechanisms.canonical.EpsDelta"
        )
    d = float(p[0])
    rest = 1.0 - d
    rest = rest if Fraction(rest) + Fraction(d) >= 1 else math.nextafter(rest, math.inf)
    atoms = _core.pld_mechanisms.atoms(
        np.array([float(epsilon), math.inf]),
        np.array([rest, d]),
        h=factor.upper.h,
        max_cells=MAX_CELLS,
    )
    upper = _factor(f"eps_delta_dp(epsilon={float(epsilon)}, delta={d})", atoms).upper
    return PrivacyLossDistribution(
        [{Factor(factor.name, upper, factor.lower, factor.connect_dots): 1}]
    )


@dataclass(frozen=True)
class EpsDelta(Mechanism):
    """Any (eps, delta)-DP mechanism, as its canonical pair on four outcomes, symmetric (Kairouz,
    Oh, Viswanath 2015, Thm 2.1; module docstring): every such mechanism is a post-processing of it.
    delta >= 1 (no guarantee, P and Q disjoint) dominates any two inputs, so a group of c is the
    mechanism itself."""

    name: ClassVar[str] = "eps_delta"
    dp_event: ClassVar[str] = (
        "hockeystick.interop.dp_accounting.catalogue_events.EpsilonDeltaDpEvent"
    )
    dp_event_field: ClassVar[str] = "epsilon"
    eps: float
    delta: float
    # delta as given by the mechanism's definition (exact: no round-off charged on the mass at
    # +infinity), or computed in floating point (a sampled non-private event's chance of drawing the
    # record: charged like a mass)
    delta_exact: bool = True

    def spec(self) -> Spec:
        """(name, eps, delta), with ``False`` appended where delta was computed: an exact delta
        keeps the key every plan has given it."""
        return (
            ("eps_delta", self.eps, self.delta)
            if self.delta_exact
            else ("eps_delta", self.eps, self.delta, False)
        )

    @classmethod
    def from_dp_event(cls, event: Any, relation: str) -> EpsDelta | NonPrivateRun:
        """One ``EpsilonDeltaDpEvent(epsilon, delta)``: the guarantee as stated, under any relation;
        delta = 1 is no guarantee (non-private)."""
        eps, delta = nonnegative(event, "epsilon"), probability(event, "delta")
        check_reach(
            event,
            "epsilon",
            eps,
            MAX_FINITE_REACH,
            "its exact atoms would leave the common loss lattice",
        )
        return NonPrivateRun(cls.name) if delta == 1.0 else cls(eps, delta)

    @classmethod
    def rdp_of_dp_event(cls, event: Any, relation: str, orders: np.ndarray) -> np.ndarray:
        """delta = 0: the curve of any epsilon-DP mechanism (``rdp.pure_dp``); with delta > 0 no
        Rényi bound follows, and the event is refused."""
        from ...rdp.pure_dp import pure_dp_rdp

        delta = event_field_at_least_zero(event, "delta")
        if delta > 1:
            raise ValueError(f"EpsilonDeltaDpEvent.delta must lie in [0, 1], got {event.delta!r}")
        if delta != 0:
            raise EventRefused(
                event,
                "EpsilonDeltaDpEvent.delta must be 0 for the RDP accountant (no Renyi bound follows "
                f"from (epsilon, delta)-DP with delta > 0), got {delta!r}: compose it with "
                "HockeystickPLDAccountant",
            )
        return pure_dp_rdp(event_field_at_least_zero(event, "epsilon"), orders)

    def loss_reach(self) -> float:
        """epsilon: the canonical pair's finite losses are +-epsilon."""
        return self.eps

    def largest_losses(self) -> Directions | None:
        """(eps, 0)-DP: epsilon both ways, attained by the canonical pair; None for delta > 0 (its
        mass delta at loss +infinity, ``delta_floor``)."""
        from .largest_loss import both_ways

        return both_ways(Fraction(self.eps)) if self.delta == 0.0 else None

    def delta_floor(self) -> float:
        """delta: the canonical pair's mass at loss +infinity (Kairouz, Oh, Viswanath 2015)."""
        return self.delta

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return eps_delta_dp(self.eps, self.delta, value_discretization_interval=h)

    def finite_pairs(self) -> list[Pair] | None:
        return [canonical_pair(self.eps, self.delta)]

    def exact_atoms(self) -> list[Atoms] | None:
        """Past eps ~ 708 (the loss -eps outcome's P-mass below 2^-1022), the atoms from the losses
        themselves (+-eps, +infinity, exact: no logarithm of a subnormal Q-mass, which put the whole
        pair at +infinity): above, the loss -eps P-mass moved up to eps (delta grows with every
        loss), one atom of P-mass 1 - delta at eps (rounded up) beside delta at +infinity; below,
        the loss-eps atom's P-mass alone (the other dropped: delta shrinks).  Short of eps ~ 708,
        for 0 < delta < 1: the pair's own atoms at its exact losses -eps, +eps (one atom at 0 for
        eps = 0).  Either way delta at +infinity is the given delta on both sides (``inf_exact``:
        nothing summed, no round-off charged) where ``delta_exact``, and is charged its round-off
        like a mass where delta was computed.  None (the pair's atoms, ``finite_atoms.pair_atoms``)
        otherwise."""
        p, _ = canonical_pair(self.eps, self.delta)
        if self.delta >= 1.0:
            return None
        if p[2] >= SMALLEST_NORMAL:
            if not self.delta > 0.0:
                return None
            if (
                self.eps == 0.0
            ):  # both finite outcomes at loss 0: one atom of their P-mass 1 - delta (rounded up)
                rest = 1.0 - self.delta
                rest = (
                    rest
                    if Fraction(rest) + Fraction(self.delta) >= 1
                    else math.nextafter(rest, math.inf)
                )
                zero = np.array([0], dtype=np.int64)
                return [
                    Atoms(
                        zero,
                        np.array([rest]),
                        self.delta,
                        1.0,
                        0.0,
                        16.0 * UNIT_ROUNDOFF,
                        inf_exact=self.delta_exact,
                    )
                ]
            # The pair's own atoms at its exact losses -eps, +eps, and its delta at +infinity as
            # given (inf_exact: no round-off charged on it, so delta(eps') = delta past eps and the
            # epsilon at delta itself is finite).
            rel = (
                16.0 * UNIT_ROUNDOFF
            )  # the two masses' few roundings (1 - delta, e^-eps, the sum and the quotient)
            index = np.array([-1, 1], dtype=np.int64)
            masses = np.array([float(p[2]), float(p[1])])
            return [
                Atoms(
                    index,
                    masses,
                    self.delta,
                    self.eps,
                    UNIT_ROUNDOFF * self.eps,
                    rel,
                    inf_exact=self.delta_exact,
                )
            ]
        rest = 1.0 - self.delta
        rest = (
            rest if Fraction(rest) + Fraction(self.delta) >= 1 else math.nextafter(rest, math.inf)
        )
        rel = (
            16.0 * UNIT_ROUNDOFF
        )  # the masses' few roundings (1 - delta, e^-eps, the sum and the quotient)
        one = np.array([1], dtype=np.int64)
        lower = Atoms(
            one,
            np.array([float(p[1])]),
            self.delta,
            self.eps,
            UNIT_ROUNDOFF * self.eps,
            rel,
            inf_exact=self.delta_exact,
        )
        return [
            Atoms(
                one,
                np.array([rest]),
                self.delta,
                self.eps,
                UNIT_ROUNDOFF * self.eps,
                rel,
                lambda: lower,
                inf_exact=self.delta_exact,
            )
        ]

    def input_oblivious(self) -> bool:
        return self.delta >= 1.0
