"""The discrete Laplace mechanism: an exact finite PLD.

Discrete Laplace DLap(a), pmf tanh(a/2) e^{-a|x|} on the integers, shift s (a positive integer;
dp_accounting's ``DiscreteLaplaceDpEvent``; Inusah & Kozubowski 2006).  With P = DLap(a) + s and
Q = DLap(a) the loss a(|x| - |x - s|) is -a s for x <= 0, a s for x >= s and a(2x - s) between, so
merging each end (one loss each, a lossless post-processing) leaves s + 1 outcomes with
    P(x <= 0) = Q(x >= s) = e^{-a s} / (1 + e^{-a}),  P(x >= s) = Q(x <= 0) = 1 / (1 + e^{-a}),
    P(x) = tanh(a/2) e^{-a (s - x)},  Q(x) = tanh(a/2) e^{-a x}  (0 < x < s):
an exact finite pair (its masses sum to 1 exactly), symmetric (x -> s - x swaps P and Q), so one
direction serves add and remove.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ...base import validation as _validation
from ...base.event_fields import check_reach, integer, nonnegative
from ...base.event_refusal import NonPrivateRun
from ...base.parameter_range import MAX_FINITE_REACH, MAX_SENSITIVITY, ParameterOutOfRange
from ..grid.atoms import UNIT_ROUNDOFF, Atoms
from ..grid.distribution import PrivacyLossDistribution
from .constructors import DEFAULT_INTERVAL, _positive, from_distributions
from .mechanism import Mechanism, Pair
from .registry import stage

if TYPE_CHECKING:
    from .largest_loss import Directions

SMALLEST_NORMAL = float(
    np.finfo(np.float64).tiny
)  # below it a mass's relative round-off is unbounded by u


def _checked(parameter: float, sensitivity: int) -> tuple[float, int]:
    """(a, s) as a float > 0 and an int >= 1, or a ValueError naming the argument."""
    # a valid float skips the array validation (its cost would be a third of a lone pair's
    # accounting)
    a = (
        parameter
        if type(parameter) is float and 0.0 < parameter < math.inf
        else _positive("parameter", parameter)
    )
    return float(a), _validation.count(sensitivity, "sensitivity")


def _p_masses(a: float, s: int) -> list[float]:
    """P(x <= 0), P(1), ..., P(s - 1), P(x >= s) of the merged pair, in plain floats (a pair has s +
    1 outcomes, a handful, where numpy's per-call cost would dominate).  Each is within (8 + a s) u
    of its exact value (u = 2^-53): exp's argument a (s - x) carries one rounding (a relative error
    of a s u in the result), exp, tanh and 1 / (1 + e^-a) a few ulps, each product one."""
    norm = 1.0 / (1.0 + math.exp(-a))
    t = math.tanh(a / 2.0)
    return [math.exp(-a * s) * norm] + [t * math.exp(-a * (s - x)) for x in range(1, s)] + [norm]


def discrete_laplace_pair(parameter: float, sensitivity: int) -> tuple[np.ndarray, np.ndarray]:
    """The exact merged pair above (P, Q), for a > 0 and integer s >= 1."""
    p = _p_masses(*_checked(parameter, sensitivity))
    return np.array(p, dtype=np.float64), np.array(p[::-1], dtype=np.float64)


def discrete_laplace_atoms(parameter: float, sensitivity: int) -> Atoms:
    """The pair's privacy-loss atoms (``finite_atoms.Atoms``) straight from its losses a (2x - s).

    The loss of outcome x is exactly a (2x - s) (module docstring), so no logarithm is taken: the
    lattice is eta = a for odd s (index 2x - s) and eta = 2a for even s (index x - s / 2; 2a is
    exact), the only loss error the rounding of index * eta (u |index eta|, as ``pair_atoms``
    charges it), and the masses' relative error (8 + a s) u (``_p_masses``), charged as 16u + a s u
    (plus 4 2^-1074 / m where a mass m is subnormal: there each step errs by up to 2^-1074
    absolute). The atoms ``finite_atoms.pair_atoms`` finds from the pair, without its logarithms
    (and, where e^{-a s} underflows, without its loss +infinity for the outcome whose Q-mass rounds
    to 0).

    Subnormal masses stay at their finite losses here (the one exemption from ``finite_atoms``' rule
    that no subnormal P-mass is kept at a finite loss), because the charge above covers them: a
    delta's term m (1 - e^{eps - l}) with m subnormal errs by at most 2^-1075 absolute, and the
    P-masses grow with the loss (m_x is proportional to e^{-a (s - x)}), so wherever that term is
    positive the top atom (mass >= 1/2, the highest loss) contributes at least (1 - e^{eps - l}) /
    2, and the charge 4 2^-1074 / m times the sum covers 2^-1075 whenever 1 - e^{eps - l} >= m / 4
    (below that the term is under 2^-2046 and rounds to 0, erring by less).  Compositions forming
    subnormal products are charged by ``atoms._underflow_charged`` (``_may_underflow`` reads the
    least mass), and ``delta_with``'s terms m delta_G(eps - l) by the same argument (delta_G falls
    as its argument grows).
    """
    a, s = _checked(parameter, sensitivity)
    eta, offset = (a, 2) if s % 2 else (2.0 * a, 1)  # index = offset x - offset s / 2
    # outcomes whose P-mass underflows to 0 carry no mass (as ``pair_atoms`` drops them)
    kept = [(offset * x - offset * s // 2, m) for x, m in enumerate(_p_masses(a, s)) if m > 0.0]
    index, masses = [i for i, _ in kept], [m for _, m in kept]
    losses = [i * eta for i in index]
    rel = (16.0 + a * s) * UNIT_ROUNDOFF
    if (
        min(masses) < SMALLEST_NORMAL
    ):  # a subnormal mass errs by up to a few 2^-1074 absolute, each step
        rel += 4.0 * math.ulp(0.0) / min(masses)
    out = Atoms(
        np.array(index, dtype=np.int64),
        np.array(masses, dtype=np.float64),
        0.0,
        eta,
        UNIT_ROUNDOFF * abs(losses[-1]),
        rel,
    )
    out.__dict__["loss_list"] = losses  # what the cached properties would compute
    out.__dict__["mass_list"] = masses
    return out


@stage()
def discrete_laplace(
    parameter: float,
    sensitivity: int = 1,
    *,
    value_discretization_interval: float = DEFAULT_INTERVAL,
) -> PrivacyLossDistribution:
    r"""Discretized PLD of the discrete Laplace mechanism, P = DLap(a) + s vs Q = DLap(a) on the integers.

    DLap(a) has pmf :math:`\tanh(a/2)\, e^{-a|x|}`.  The loss :math:`a(|x| - |x - s|)` is constant
    for x <= 0 and for x >= s, so merging each end leaves the exact finite pair of s + 1 outcomes

    .. math::

        P(x \le 0) = Q(x \ge s) = \frac{e^{-as}}{1 + e^{-a}}, \quad P(x \ge s) = Q(x \le 0) = \frac{1}{1 + e^{-a}},
        \quad P(x) = \tanh(a/2)\, e^{-a(s - x)},\ Q(x) = \tanh(a/2)\, e^{-ax}\ (0 < x < s),

    symmetric (x -> s - x swaps P and Q), so one direction serves add and remove.  Both sides are
    exact up to the grid (``from_distributions``).

    Parameters
    ----------
    parameter : float
        The decay a of DLap(a), finite and > 0 (larger is less noise).
    sensitivity : int, optional
        The shift s, an integer >= 1 (default 1; an integral float is accepted).
    value_discretization_interval : float, optional
        Spacing h of the loss grid, 0 < h <= 100 (default 1e-4).

    Returns
    -------
    PrivacyLossDistribution
        One direction.

    Raises
    ------
    ValueError
        If ``parameter`` is not finite and > 0, ``sensitivity`` is not an integer >= 1, or
        ``value_discretization_interval`` lies outside (0, 100].
    ParameterTypeError
        If an argument is a string, a boolean or None.

    References
    ----------
    Inusah & Kozubowski 2006 (the discrete Laplace law); dp_accounting's ``DiscreteLaplaceDpEvent``.

    Examples
    --------
    >>> import hockeystick.pld as pld
    >>> [round(x, 6) for x in pld.discrete_laplace(1.0, 2).delta(1.0, bound="both")]
    [0.462117, 0.462117]
    """
    p, q = discrete_laplace_pair(parameter, sensitivity)
    return from_distributions(
        p,
        q,
        value_discretization_interval=value_discretization_interval,
        symmetric=True,
        exact_zeros=False,
    )  # computed masses: a 0 may be an underflow


def discrete_laplace_shift(event: Any, copies: int) -> tuple[float, int]:
    """(a, shift) of a ``DiscreteLaplaceDpEvent`` whose sensitivity counts ``copies`` times (2 under
    replace-one).

    Parameters
    ----------
    event : DiscreteLaplaceDpEvent
        Its ``noise_parameter`` a >= 0 (finite) and integer ``sensitivity`` s >= 1.
    copies : int
        1 or 2.

    Returns
    -------
    tuple of (float, int)
        a and copies s.

    Raises
    ------
    ValueError
        For a field out of its rule; ``ParameterOutOfRange`` for s above ``MAX_SENSITIVITY`` (its
        exact pair holds about one atom per integer of the shift) or a one-run loss a shift past
        ``MAX_FINITE_REACH`` (its exact atoms would leave the common loss lattice), naming the field.
    """
    a = nonnegative(event, "noise_parameter")
    s = integer(event, "sensitivity", 1)
    if s > MAX_SENSITIVITY:
        raise ParameterOutOfRange(
            f"DiscreteLaplaceDpEvent.sensitivity must be at most {MAX_SENSITIVITY} (its exact "
            f"pair holds about one atom per integer of the shift), got {s}"
        )
    shift = copies * s
    check_reach(
        event,
        "noise_parameter",
        a * shift,
        MAX_FINITE_REACH,
        "its exact atoms would leave the common loss lattice",
    )
    return a, shift


@dataclass(frozen=True)
class DiscreteLaplace(Mechanism):
    """Discrete Laplace DLap(a) on a query of integer sensitivity s: the exact merged pair of s + 1
    outcomes (module docstring; Inusah & Kozubowski 2006), symmetric, so one direction.  Exact atoms
    in closed form (``discrete_laplace_atoms``).  Group of c (replace-one): the shift c s
    (``group_of_records``)."""

    name: ClassVar[str] = "discrete_laplace"
    dp_event: ClassVar[str] = "dp_accounting.dp_event.DiscreteLaplaceDpEvent"
    dp_event_field: ClassVar[str] = "noise_parameter"
    a: float
    s: int

    @classmethod
    def from_dp_event(cls, event: Any, relation: str) -> DiscreteLaplace | NonPrivateRun:
        """One ``DiscreteLaplaceDpEvent(noise_parameter=a, sensitivity=s)``: shift s under
        add/remove and replace-special, 2s under replace-one (the replaced record's two
        contributions; the noise law is log-concave, so the largest shift's pair dominates:
        ``group_of_records``); a = 0 is non-private."""
        a, shift = discrete_laplace_shift(event, 2 if relation == "replace_one" else 1)
        return NonPrivateRun(cls.name) if a == 0 else cls(a, shift)

    def loss_reach(self) -> float:
        """a s: the pair's loss lies in [-a s, a s]."""
        return self.a * self.s

    def group_loss_reach(self, c: float) -> float:
        """c a s (c copies move the query by c s)."""
        return c * self.a * self.s

    def largest_losses(self) -> Directions:
        """a s both ways, attained on the pair's outcome past the shift (exact: a rational times
        an integer)."""
        from fractions import Fraction

        from .largest_loss import both_ways

        return both_ways(Fraction(self.a) * self.s)

    def poisson_sampled(self, q: float) -> Mechanism | None:
        """Its Poisson sample's exact finite pair (``pld.sampling.subsampling``: the mixture with
        the record's absence, Zhu, Dong & Wang 2022, Thm 11)."""
        from .registry import mechanism_of

        sampled: Mechanism = mechanism_of(("poisson_discrete_laplace", self.a, self.s, q))
        return sampled

    @classmethod
    def from_stage(cls, **parameters: Any) -> DiscreteLaplace | None:
        """A ``discrete_laplace`` stage: ``DiscreteLaplace(parameter, sensitivity)``, sensitivity 1
        where it gives none (``grid_pld`` is that stage's constructor)."""
        given = dict(parameters)
        sensitivity = given.pop("sensitivity", 1)
        if set(given) != {"parameter"}:
            return None
        return cls(given["parameter"], sensitivity)

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return discrete_laplace(self.a, self.s, value_discretization_interval=h)

    def finite_pairs(self) -> list[Pair] | None:
        return [discrete_laplace_pair(self.a, self.s)]

    def exact_atoms(self) -> list[Atoms] | None:
        return [discrete_laplace_atoms(self.a, self.s)]

    def group(self, c: int) -> Mechanism | None:
        return DiscreteLaplace(self.a, int(self.s) * c)
