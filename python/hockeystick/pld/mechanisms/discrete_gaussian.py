"""The discrete Gaussian mechanism: its pair on the integers as exact finite atoms, both sides certified.

The discrete Gaussian N_Z(0, sigma^2) has mass w(x) / Z on each integer x, w(x) = exp(-x^2 / (2
sigma^2)), Z = sum_x w(x) (Canonne, Kamath, Steinke, "The discrete Gaussian for differential
privacy", NeurIPS 2020). Added to an integer query of sensitivity s (an integer >= 1), its
dominating pair is P = N_Z(s, sigma^2) against Q = N_Z(0, sigma^2): the family of shifts has a
monotone likelihood ratio, so the most powerful tests are thresholds, whose type-I errors Q(x >= t)
do not depend on the shift and whose type-II errors P_k(x < t) fall as the shift k grows (the
argument of ``interop.group_of_records``); CKS 2020, Thm 7, gives the resulting delta(eps) in closed
form.  The loss of outcome x is exactly

    log P(x) / Q(x) = s (2 x - s) / (2 sigma^2)

(Z cancels), a lattice: index 2x - s on eta = s / (2 sigma^2) for odd s, index x - s/2 on eta = s /
sigma^2 for even s.  The pair is symmetric (x -> s - x swaps P and Q), so one direction serves add
and remove.

Truncation.  The outcomes x in [-D, s + D] are kept, D the least integer (from a closed-form start)
with 2 T(D) <= ``TAIL_MASS`` = 2^-1040, where T(D) = sum_{k > D} w(k) <= w(D + 1) / (1 -
e^{-(2D + 3) / (2 sigma^2)}) (successive ratios w(k + 1) / w(k) = e^{-(2k + 1) / (2 sigma^2)} fall): P outside
the window is at most T(D) / Z + T(D + s) / Z <= 2 T(D) (Z >= w(0) = 1), and so is Q outside it.
- Atoms (``discrete_gaussian_atoms``): the upper side puts the P-mass outside the window, and the
  window's masses below 2^-1022 (no subnormal mass is kept at a finite loss: ``finite_atoms``), at
  +infinity, raised to ``finite_atoms.INFINITY_FLOOR`` = 2^-1000; the lower side drops them (delta
  grows with every mass and loss).
- Pair (``discrete_gaussian_pair``, for the Poisson-subsampled pair of ``pld.subsampling``): the
  window's outcomes, one outcome with P = ``TAIL_MASS``, Q = 0 (the P-mass outside) and one with P =
  0, Q = ``TAIL_MASS`` (the Q-mass outside).  Term by term sum_x (p_x - g q_x)_+ and sum_x (q_x - g
  p_x)_+ (every g >= 0) are at least the true pair's, so it dominates in both orders, as Zhu, Dong,
  Wang 2022, Thm 11 needs; its two tail outcomes are subnormal, so ``finite_atoms.pair_atoms`` puts
  them at +infinity (raised to 2^-1000) on the upper side and drops them on the lower side: both
  sides stay certified.

Masses, accurate to 10u (u = 2^-53), within ``finite_atoms``' 16u for a pair's masses.  t = k^2 / (2
sigma^2) in double-double (k^2 an exact integer; 1 / (2 sigma^2) and k^2 times it by Dekker's exact
products), so w(k) = exp(-t_hi) (1 - t_lo) is within 4u: exp within one ulp (glibc's ``exp``,
through ``math.exp``), the correction (|t_lo| < 2^-40, its second-order term below u^2) and the
product one rounding each.  Z is the correctly rounded ``math.fsum`` of the window's w(k) (5u
relative, the tail 2T(D) <= 2^-1040 below it), and w / Z one more rounding: 10u in all.  The loss
index * eta: eta carries two roundings (sigma^2, the quotient) and index * eta one, charged as 4u
|index * eta| (``loss_error``).

Size.  The window holds s + 2D + 1 ~ s + 76 sigma outcomes; more than ``MAX_OUTCOMES`` (2^20, sigma
~ 13 000 at s = 1) is refused naming sigma (``outcomes`` tells the count before building), as is a
sensitivity / sigma above 1e150 (the loss would leave the doubles).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from ...base import validation as _validation
from ...base.event_fields import check_reach, event_field_at_least_zero, integer, noise
from ...base.event_refusal import NonPrivateRun
from ...base.parameter_range import MAX_FINITE_REACH, MAX_SENSITIVITY, ParameterOutOfRange
from ..grid.atoms import INFINITY_FLOOR, SMALLEST_NORMAL, UNIT_ROUNDOFF, Atoms
from ..grid.distribution import PrivacyLossDistribution
from .constructors import _positive, from_distributions
from .mechanism import Mechanism, Pair

__all__ = [
    "MAX_OUTCOMES",
    "DiscreteGaussian",
    "TAIL_MASS",
    "discrete_gaussian_atoms",
    "discrete_gaussian_pair",
    "discrete_gaussian_top_loss",
    "outcomes",
]

TAIL_MASS = 2.0**-1040  # bound on the P-mass (and the Q-mass) outside the window: subnormal, exact
LOG_TAIL_MASS = -1040.0 * math.log(2.0)
MAX_OUTCOMES = 1 << 20
SPLIT = 134217729.0  # 2^27 + 1: Dekker's splitting constant
MAX_SIGMA = (
    MAX_OUTCOMES / 76.0
)  # the window holds ~ s + 76 sigma outcomes (checked exactly by ``_window``)
MAX_RATIO = 1e150  # the largest sensitivity / sigma taken


def _checked(sigma: float, sensitivity: int) -> tuple[float, int]:
    """(sigma, s) as a float > 0 and an int >= 1, or a ValueError naming the argument; sigma at most
    ``MAX_SIGMA`` (the window's size, ``MAX_OUTCOMES``, checked exactly by ``_window``) and at least
    s / ``MAX_RATIO`` (below, the loss s^2 / (2 sigma^2) and the lattice step leave the doubles)."""
    sd, s = _positive("sigma", sigma), _validation.count(sensitivity, "sensitivity")
    if sd > MAX_SIGMA:
        raise ValueError(
            f"sigma must be at most {MAX_SIGMA:g} (the discrete Gaussian pair would need more than {MAX_OUTCOMES} "
            f"outcomes; the continuous Gaussian is then within round-off of it), got {sigma!r}"
        )
    if not s / sd <= MAX_RATIO:
        raise ValueError(
            f"sigma must be at least sensitivity / {MAX_RATIO:g} (the privacy loss s^2 / (2 sigma^2) would leave the "
            f"doubles), got sigma = {sigma!r} with sensitivity = {s}"
        )
    return sd, s


def _log_tail(d: int, sigma: float) -> float:
    """An upper bound on log(2 T(d)) (module docstring), widened by 1e-12 relative and 1e-300
    absolute for the few roundings of its terms."""
    first = -((d + 1.0) ** 2) / (2.0 * sigma * sigma)
    ratio = -math.log(-math.expm1(-(2.0 * d + 3.0) / (2.0 * sigma * sigma)))
    value = math.log(2.0) + first + ratio
    return value + 1e-12 * (abs(first) + abs(ratio) + 1.0)


@lru_cache(maxsize=64)
def _half_width(sigma: float) -> int:
    """D: the least integer >= 0, from a closed-form start, with 2 T(D) <= ``TAIL_MASS`` (checked by ``_log_tail``)."""
    # T(D) ~ w(D + 1) sigma^2 / (D + 1): start where the exponent alone reaches the target, step by
    # the rest
    d = max(int(sigma * math.sqrt(-2.0 * LOG_TAIL_MASS)) - 1, 0)
    while _log_tail(d, sigma) > LOG_TAIL_MASS:
        d = max(d + 1, int(d * 1.0001))
    return d


def outcomes(sigma: float, sensitivity: int) -> int:
    """The number of outcomes s + 2D + 1 of the window (module docstring)."""
    s, k = _checked(sigma, sensitivity)
    return k + 2 * _half_width(s) + 1


def discrete_gaussian_top_loss(sigma: float, sensitivity: int) -> float:
    """The largest finite loss of the window, s (s + 2D) / (2 sigma^2): how far one run's loss reaches."""
    s, k = _checked(sigma, sensitivity)
    return k * (k + 2.0 * _half_width(s)) / (2.0 * s * s)


def _split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Veltkamp's split x = hi + lo, each half of the significand (exact below 2^996)."""
    c = SPLIT * x
    hi = c - (c - x)
    return hi, x - hi


def _two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(a b rounded, its exact error) by Dekker's product (no overflow here: |a b| < 2^1000)."""
    prod = a * b
    a_hi, a_lo = _split(a)
    b_hi, b_lo = _split(b)
    err = ((a_hi * b_hi - prod) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    return prod, err


def _weights(sigma: float, top: int) -> np.ndarray:
    """w(k) = exp(-k^2 / (2 sigma^2)) for k = 0 .. top, each within 4u relative (module docstring; a
    w below 2^-1022 within a few 2^-1074 absolute)."""
    s = np.array([sigma])
    var_hi, var_lo = _two_prod(s, s)  # sigma^2 exactly, as a pair
    two_var_hi, two_var_lo = 2.0 * var_hi, 2.0 * var_lo
    c_hi = 1.0 / two_var_hi
    residual_hi, residual_lo = _two_prod(c_hi, two_var_hi)  # c_hi (2 sigma^2) exactly, as a pair
    c_lo = (
        (1.0 - residual_hi) - residual_lo - c_hi * two_var_lo
    ) / two_var_hi  # 1 / (2 sigma^2) = c_hi + c_lo
    k2 = np.arange(top + 1, dtype=np.float64) ** 2  # exact: k < 2^26
    t_hi, t_err = _two_prod(k2, np.full_like(k2, c_hi[0]))
    t_lo = t_err + k2 * c_lo[0]
    e = np.array([math.exp(-x) for x in t_hi.tolist()], dtype=np.float64)
    return np.asarray(e * (1.0 - t_lo), dtype=np.float64)


@lru_cache(maxsize=16)
def _window(sigma: float, s: int) -> tuple[np.ndarray, np.ndarray]:
    """(P, Q) on the window x = -D .. s + D: P(x) = w(x - s) / Z, Q(x) = w(x) / Z (module docstring)."""
    d = _half_width(sigma)
    if s + 2 * d + 1 > MAX_OUTCOMES:
        raise ValueError(
            f"sigma = {sigma!r} with sensitivity = {s} needs {s + 2 * d + 1} outcomes (more than {MAX_OUTCOMES}) to "
            "hold the discrete Gaussian pair to a tail of 2^-1040: no certified bound is computed; use a smaller sigma "
            "or sensitivity (rescale the query)"
        )
    w = _weights(sigma, d + s)
    side = w[1 : d + 1].tolist()
    z = math.fsum(side + side + [1.0])  # sum over |k| <= D, correctly rounded (w(0) = 1 exactly)
    x = np.arange(-d, s + d + 1)
    p = w[np.abs(x - s)] / z
    q = w[np.abs(x)] / z
    p.setflags(write=False)
    q.setflags(write=False)
    return p, q


def discrete_gaussian_pair(sigma: float, sensitivity: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The dominating pair (P, Q) of the module docstring: the window, then (tail, 0) and (0, tail),
    the tail ``TAIL_MASS`` plus 2^-1074 for each window outcome whose mass (below 2^-1075) was
    computed 0 (subnormal sums are exact; the pair is symmetric, so P and Q have as many)."""
    p, q = _window(*_checked(sigma, sensitivity))
    tail = TAIL_MASS + math.ulp(0.0) * int(np.count_nonzero(p == 0.0))
    return np.concatenate([p, [tail, 0.0]]), np.concatenate([q, [0.0, tail]])


def discrete_gaussian_atoms(sigma: float, sensitivity: int = 1) -> Atoms:
    """The pair's privacy-loss atoms on its exact lattice, upper side (the tail and the window's
    subnormal masses at +infinity) with the lower side (without them) beside it (module
    docstring)."""
    sd, s = _checked(sigma, sensitivity)
    p, _ = _window(sd, s)
    d = _half_width(sd)
    x = np.arange(-d, s + d + 1, dtype=np.int64)
    if s % 2:
        eta, index = s / (2.0 * (sd * sd)), 2 * x - s
    else:
        eta, index = s / (sd * sd), x - s // 2
    normal = p >= SMALLEST_NORMAL
    index, mass = index[normal], p[normal]
    # the P-mass left out: the window's subnormal masses (each within 16 2^-1074 of its computed
    # value) and the tail
    left_out = (
        math.fsum(p[~normal].tolist()) + 16.0 * math.ulp(0.0) * int((~normal).sum()) + TAIL_MASS
    )
    p_inf = max(math.nextafter(left_out * (1.0 + 4.0 * UNIT_ROUNDOFF), math.inf), INFINITY_FLOOR)
    loss_error = 4.0 * UNIT_ROUNDOFF * float(np.abs(index).max()) * eta
    rel = (
        16.0 * UNIT_ROUNDOFF
    )  # the masses are within 10u (module docstring); finite_atoms' charge for a pair's
    lower = Atoms(index, mass, 0.0, eta, loss_error, rel)
    return Atoms(index, mass, p_inf, eta, loss_error, rel, lower_of=lambda: lower)


def discrete_gaussian_shift(event: Any, copies: int) -> tuple[float, int]:
    """(sigma, shift) of a ``DiscreteGaussianDpEvent`` whose sensitivity counts ``copies`` times (2
    under replace-one).

    Parameters
    ----------
    event : DiscreteGaussianDpEvent
        Its ``sigma`` >= 0 (finite, at most ``MAX_NOISE``) and integer ``sensitivity`` >= 1.
    copies : int
        1 or 2.

    Returns
    -------
    tuple of (float, int)
        sigma and copies times the sensitivity; sigma = 0 is non-private.

    Raises
    ------
    ValueError
        For a field out of its rule; ``ParameterOutOfRange`` for a shift past ``MAX_SENSITIVITY``,
        a window of more than ``MAX_OUTCOMES`` outcomes or a one-run loss past ``MAX_FINITE_REACH``
        (as the discrete Laplace), naming the field.
    """
    sigma = noise(event, "sigma")
    shift = copies * integer(event, "sensitivity", 1)
    if shift > MAX_SENSITIVITY:
        raise ParameterOutOfRange(
            f"DiscreteGaussianDpEvent.sensitivity must be at most {MAX_SENSITIVITY // copies} here "
            f"(its exact pair holds about one atom per integer of the shift), got "
            f"{event.sensitivity!r}"
        )
    if sigma == 0:
        return sigma, shift
    why = "its exact atoms would leave the common loss lattice"
    ratio = shift / sigma
    if not ratio <= math.sqrt(2.0 * MAX_FINITE_REACH):
        # the mode's loss s^2 / (2 sigma^2) alone passes the limit
        check_reach(event, "sigma", ratio * ratio / 2.0, MAX_FINITE_REACH, why)
    if sigma > MAX_SIGMA or outcomes(sigma, shift) > MAX_OUTCOMES:
        raise ParameterOutOfRange(
            f"DiscreteGaussianDpEvent.sigma = {event.sigma!r} with a shift of {shift} needs more "
            f"than {MAX_OUTCOMES} outcomes for its exact pair: no certified bound is computed; "
            "rescale the query (a smaller sigma and sensitivity)"
        )
    check_reach(event, "sigma", discrete_gaussian_top_loss(sigma, shift), MAX_FINITE_REACH, why)
    return sigma, shift


@dataclass(frozen=True)
class DiscreteGaussian(Mechanism):
    """The discrete Gaussian N_Z(0, sigma^2) on a query of integer sensitivity s: P = N_Z(s,
    sigma^2) vs Q = N_Z(0, sigma^2) (Canonne, Kamath, Steinke 2020, Thm 7), dominating by the
    monotone likelihood ratio of its shifts, symmetric; its window and tails as the module docstring
    proves.  Exact atoms on its lattice (``discrete_gaussian_atoms``); on a grid, its pair through
    ``from_distributions``."""

    name: ClassVar[str] = "discrete_gaussian"
    dp_event: ClassVar[str] = (
        "hockeystick.interop.dp_accounting.catalogue_events.DiscreteGaussianDpEvent"
    )
    dp_event_field: ClassVar[str] = "sigma"
    sigma: float
    s: int

    @classmethod
    def from_dp_event(cls, event: Any, relation: str) -> DiscreteGaussian | NonPrivateRun:
        """One ``DiscreteGaussianDpEvent(sigma, sensitivity)``: shift s under add/remove and
        replace-special, 2s under replace-one (a monotone likelihood ratio: the largest shift's pair
        dominates); sigma = 0 is non-private."""
        sigma, shift = discrete_gaussian_shift(event, 2 if relation == "replace_one" else 1)
        return NonPrivateRun(cls.name) if sigma == 0 else cls(sigma, shift)

    @classmethod
    def rdp_of_dp_event(cls, event: Any, relation: str, orders: np.ndarray) -> np.ndarray:
        """At most the Gaussian's curve alpha s^2 / (2 sigma^2) (s twice the sensitivity under
        replace-one): the Rényi sum is exp(alpha (alpha - 1) s^2 / (2 sigma^2)) times theta(alpha
        s) / theta(0) <= 1, theta having non-negative Fourier coefficients (Canonne, Kamath &
        Steinke 2020, Sec. 2)."""
        from ...rdp import gaussian_rdp

        sigma = event_field_at_least_zero(event, "sigma")
        shift = (2.0 if relation == "replace_one" else 1.0) * integer(event, "sensitivity", 1)
        if sigma == 0:
            return np.full(np.shape(orders), np.inf)
        return gaussian_rdp(sigma / shift, orders)

    def loss_reach(self) -> float:
        """The pair's largest finite loss (``discrete_gaussian_top_loss``)."""
        return discrete_gaussian_top_loss(self.sigma, self.s)

    def poisson_sampled(self, q: float) -> Mechanism | None:
        """Its Poisson sample's pair on the loss grid (``pld.sampling.subsampling``)."""
        from .registry import mechanism_of

        sampled: Mechanism = mechanism_of(("poisson_discrete_gaussian", self.sigma, self.s, q))
        return sampled

    @classmethod
    def from_stage(cls, **parameters: Any) -> DiscreteGaussian | None:
        """A ``discrete_gaussian`` round of the ledger: ``DiscreteGaussian(sigma, int(sensitivity))``,
        the mechanism its constructor discretizes."""
        if set(parameters) != {"sigma", "sensitivity"}:
            return None
        return cls(parameters["sigma"], int(parameters["sensitivity"]))

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        p, q = discrete_gaussian_pair(self.sigma, self.s)
        return from_distributions(
            p, q, value_discretization_interval=h, symmetric=True, exact_zeros=False
        )

    def finite_pairs(self) -> list[Pair] | None:
        return [discrete_gaussian_pair(self.sigma, self.s)]

    def exact_atoms(self) -> list[Atoms] | None:
        return [discrete_gaussian_atoms(self.sigma, self.s)]
