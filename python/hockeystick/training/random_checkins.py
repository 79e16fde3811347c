r"""Random check-ins (Balle, Kairouz, McMahan, Thakkar & Thakurta 2020), with central noise on every slot.

In a pass of m time slots, each client checks in with probability p and, if it does, to one slot
chosen uniformly.  When the server aggregates every check-in of a slot (the clipped updates summed,
N(0, (z C)^2 I) added to the sum), a client's part in a pass is Poisson(p) sampling of a 1-of-m
random allocation: under add-or-remove of a client the pass is dominated by

.. math::

    \text{remove: } \big(p A + (1 - p) Q,\; Q\big), \qquad \text{add: the pair swapped},

with (A, Q) the random allocation's pair over the m slots, A = (1/m) sum_i N(e_i, z^2 I_m) against
Q = N(0, z^2 I_m) (Chua et al. 2025, Sec. 3; ``pld.sampling.random_allocation``), and Poisson sampling
of a mechanism by Zhu, Dong & Wang 2022, Thm. 11.  Passes compose.

Balle et al.'s own protocol serves one checked-in client per slot, and analyses local randomizers by
a shuffle-type argument.  There a client's check-in can displace another client from its slot, a
change of the other client's output, not only of its own: that is a replace-type change that the
add-or-remove pair above does not dominate, and their bound is stated for ε0-LDP local randomizers,
not for central Gaussian noise.  ``protocol="one_per_slot"`` is refused by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from ..base import validation as _validation
from ..base.accountant import Bound, Quantity
from ..base.accountant_docs import accountant_docs
from ..base.elementwise import ArrayLike, broadcast_float_arrays
from ..base.keyword_only import positional_deprecated
from ..pld.accountants import (
    CompositionPlan,
    PlanProfile,
    PoissonGeneric,
    SubsampledGaussianPLD,
    default_grid_profile,
    rdp_lowered_upper,
)
from ..pld.grid import Result
from ..pld.mechanisms import checked_interval
from ..pld.sampling import RandomAllocationGaussian
from .pointwise import answer_pointwise

__all__ = ["RandomCheckIns"]

Protocol = Literal["aggregate_all", "one_per_slot"]
PROTOCOLS: tuple[Protocol, ...] = ("aggregate_all", "one_per_slot")
# the random allocation's sums are built over the slots: more than this is refused (its grid grows
# with them)
MAX_SLOTS = 10_000


def _refuse_one_per_slot() -> None:
    raise ValueError(
        'protocol="one_per_slot" (Balle et al. 2020\'s own: one checked-in client served per slot) is not '
        "certified here: a client's check-in can displace another client from its slot, a replace-type change of "
        "the other client's output that no add-or-remove pair of the client dominates, and their amplification bound is "
        'stated for epsilon_0-LDP local randomizers, not central Gaussian noise; use protocol="aggregate_all" '
        "(every check-in of a slot aggregated, central noise)"
    )


@accountant_docs()  # completes delta / epsilon docstrings with the contract's sections
class RandomCheckIns:
    r"""Certified (epsilon, delta) of random check-ins with central Gaussian noise on every slot's sum.

    Each pass has m slots; each client checks in with probability p to one uniformly chosen slot,
    and each slot releases the sum of its check-ins' clipped updates plus :math:`\mathcal N(0, (z
    C)^2 I)`. Under add-or-remove of a client a pass is dominated by :math:`(p A + (1 - p) Q, Q)`
    and its swap, with (A, Q) the 1-of-m random allocation's pair (Chua et al. 2025; Zhu, Dong &
    Wang 2022, Thm. 11), and the passes compose:

    .. math::

        \delta(\varepsilon) = \max\{E_{e^\varepsilon}(B^{\otimes R} \| Q^{\otimes R}),\;
        E_{e^\varepsilon}(Q^{\otimes R} \| B^{\otimes R})\}, \qquad B = p A + (1 - p) Q.

    m = 1 is the Poisson-subsampled Gaussian at rate p (answered by ``pld.SubsampledGaussianPLD``).
    The parameters broadcast with each other and with the argument of ``delta`` / ``epsilon``.

    Parameters
    ----------
    noise_multiplier : array_like
        z, the noise's standard deviation over the clip norm C on each slot's sum; finite, > 0.
    checkin_probability : array_like
        p, a client's probability of checking in during a pass, 0 < p <= 1.
    slots : array_like
        m, the slots of a pass, a whole number in [1, 10000].
    passes : array_like, default 1
        R, the passes, a whole number >= 1 (at most 2^53).
    protocol : {"aggregate_all", "one_per_slot"}, default "aggregate_all"
        "aggregate_all": every check-in of a slot is aggregated (accounted above); "one_per_slot",
        Balle et al.'s one client served per slot, is refused (the module docstring says why).
    value_discretization_interval : float, optional
        The loss grid's spacing, 0 < h <= 100 (default: the plan accountant's choice, its upper side
        lowered to the RDP conversion's where the bracket is wider than the default tolerance: at
        delta around 1e-12 and below the grid's mass at loss +infinity can exceed delta; the RDP
        side is finite, not tight).

    Attributes
    ----------
    noise_multiplier, checkin_probability, slots, passes : numpy.ndarray
        The parameters, broadcast.

    Raises
    ------
    ValueError
        A parameter outside its range above; ``protocol="one_per_slot"`` or another word; shapes
        that do not broadcast.
    ParameterTypeError
        A string, bool or None for a number.

    References
    ----------
    Balle, Kairouz, McMahan, Thakkar & Thakurta 2020, "Privacy amplification via random check-ins"
    (NeurIPS); Chua et al. 2025 (random allocation's dominating pair); Zhu, Dong & Wang 2022,
    Thm. 11.

    Examples
    --------
    >>> from hockeystick.training.random_checkins import RandomCheckIns
    >>> run = RandomCheckIns(noise_multiplier=1.0, checkin_probability=0.5, slots=10, passes=5)
    >>> round(run.epsilon(1e-5), 3)
    2.437
    """

    def __init__(
        self,
        *,
        noise_multiplier: ArrayLike,
        checkin_probability: ArrayLike,
        slots: ArrayLike,
        passes: ArrayLike = 1,
        protocol: Protocol = "aggregate_all",
        value_discretization_interval: float | None = None,
    ) -> None:
        if _validation.choice(protocol, "protocol", PROTOCOLS) == "one_per_slot":
            _refuse_one_per_slot()
        (z, p, m, r), self._shape, self._scalar = broadcast_float_arrays(
            noise_multiplier=_validation.positive(noise_multiplier, "noise_multiplier"),
            checkin_probability=_validation.in_interval(
                checkin_probability, "checkin_probability", 0.0, 1.0, open_low=True, open_high=False
            ),
            slots=_validation.positive_integer(slots, "slots", maximum=MAX_SLOTS),
            passes=_validation.positive_integer(
                passes, "passes", maximum=_validation.MAX_EXACT_INTEGER
            ),
        )
        self.noise_multiplier, self.checkin_probability, self.slots, self.passes = z, p, m, r
        self.protocol = protocol
        self._h = (
            None
            if value_discretization_interval is None
            else checked_interval(value_discretization_interval)
        )
        self._profiles: dict[int, PlanProfile] = {}
        self._one_slots: dict[int, SubsampledGaussianPLD] = {}

    def _profile(self, i: int) -> PlanProfile:
        if i not in self._profiles:
            z, p, m, r = (
                float(a.flat[i])
                for a in (self.noise_multiplier, self.checkin_probability, self.slots, self.passes)
            )
            allocation = RandomAllocationGaussian(int(m), z).spec()
            if p == 1.0:  # every client checks in: the random allocation itself, pass after pass
                plan = CompositionPlan({allocation: int(r)})
            else:
                plan = CompositionPlan(
                    {PoissonGeneric(p, CompositionPlan({allocation: 1}).key()).spec(): int(r)}
                )
            self._profiles[i] = (
                default_grid_profile(plan) if self._h is None else PlanProfile(plan, self._h, None)
            )
        return self._profiles[i]

    def _one_slot(self, i: int) -> SubsampledGaussianPLD | None:
        """m = 1, p < 1: a pass is the Poisson(p) subsampled Gaussian of multiplier z, on its own
        accountant (its default's grid, tail and accuracy come from the question,
        ``pld.refine.question``); else None."""
        if float(self.slots.flat[i]) != 1.0 or float(self.checkin_probability.flat[i]) == 1.0:
            return None
        if i not in self._one_slots:
            self._one_slots[i] = SubsampledGaussianPLD(
                sigma=float(self.noise_multiplier.flat[i]),
                sampling_rate=float(self.checkin_probability.flat[i]),
                rounds=float(self.passes.flat[i]),
                value_discretization_interval=self._h,
            )
        return self._one_slots[i]

    def _bracket(self, method: Quantity) -> Callable[[int, float], tuple[float, float]]:
        """Point i's certified (lower, upper) of ``method`` at x; given no grid, the upper side
        lowered to the RDP conversion's where the bracket is wide
        (``plan_rdp.rdp_lowered_upper``)."""

        def bracket(i: int, x: float) -> tuple[float, float]:
            one_slot = self._one_slot(i)
            if one_slot is not None:
                lower, upper = getattr(one_slot, method)(x, bound="both")
                return float(lower), float(upper)
            profile = self._profile(i)
            lower, upper = getattr(profile, method)(x)
            if self._h is not None:
                return lower, upper
            return lower, rdp_lowered_upper(profile.plan, method, x, lower, upper)

        return bracket

    @positional_deprecated("bound")
    def delta(self, epsilon: ArrayLike, *, bound: Bound = "upper") -> Result:
        r"""Certified bound on delta(epsilon) of one client over the passes.

        :math:`\delta(\varepsilon)`, the larger hockey-stick divergence of the R-fold composition of
        a pass's remove and add pairs (the class docstring).
        """
        _validation.bound_side(bound)
        return answer_pointwise(
            self._shape,
            self._scalar,
            self._bracket("delta"),
            _validation.epsilon_values(epsilon),
            bound,
        )

    @positional_deprecated("bound")
    def epsilon(self, delta: ArrayLike, *, bound: Bound = "upper") -> Result:
        r"""Certified bound on the smallest epsilon at which one client is (epsilon, delta)-DP over the passes.

        :math:`\varepsilon(\delta) = \inf\{\varepsilon \ge 0 : \delta(\varepsilon) \le \delta\}` of
        ``delta``.
        """
        _validation.bound_side(bound)
        return answer_pointwise(
            self._shape,
            self._scalar,
            self._bracket("epsilon"),
            _validation.delta_values(delta),
            bound,
        )

    def __repr__(self) -> str:
        words = ("noise_multiplier", "checkin_probability", "slots", "passes")
        values = (_validation.scalar_or_array(getattr(self, w)) for w in words)
        return f"RandomCheckIns({', '.join(f'{w}={v!r}' for w, v in zip(words, values))})"
