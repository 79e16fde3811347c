"""The mixture-of-Gaussians mechanism: N(0, sigma^2) against sum_i w_i N(s_i, sigma^2).

dp_accounting's ``MixtureOfGaussiansDpEvent`` (Choquette-Choo, Ganesh, Steinke, Thakurta,
"Privacy amplification for matrix mechanisms", ICLR 2024, Sec. 4; a vector mechanism is dominated by
the scalar one with each sensitivity vector replaced by its norm, their Cor. 4.7):
    remove: P = sum_i w_i N(s_i, sigma^2)  vs  Q = N(0, sigma^2);   add: the pair swapped,
with sensitivities s_i >= 0.  The loss L(x) = log sum_i w_i exp((s_i x - s_i^2 / 2) / sigma^2) is a
log-sum-exp of non-decreasing affine functions, so non-decreasing (strictly where some s_i > 0):
it is discretized one atom per loss cell, with certified pessimistic and optimistic sides, over the
x-range that keeps all but ``tail`` / 4 of P and of Q:
    [-z sigma, max s_i + z sigma],  z = Q^{-1}(tail / 4),
the mass beyond it at +infinity on the pessimistic sides.  The cells and both sides are the C++
core's (cpp/include/hockeystick/pld/mechanisms/gaussian_mixture.hpp over monotone.hpp, the proofs in
``monotone``'s docstring).  s = (0, 1), w = (1 - q, q) is the Poisson-subsampled Gaussian
(``subsampled_gaussian`` computes it faster in C++); s = (1,), w = (1,) the Gaussian mechanism.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, cast

import numpy as np

from ... import _core
from ...base import validation as _validation
from ...base.elementwise import ArrayLike
from ...base.event_fields import check_reach, noise, require_relation
from ...base.event_refusal import NonPrivateRun
from ...base.parameter_range import gaussian_reach
from ...numerics.gaussian import gaussian_tail_inverse, log_gaussian_tail
from ..grid.distribution import PrivacyLossDistribution
from ..grid.tail import DEFAULT_TAIL
from .constructors import (
    DEFAULT_INTERVAL,
    MAX_CELLS,
    _positive,
    checked_interval,
    checked_tail,
    from_distributions,
)
from .mechanism import Mechanism
from .monotone import check_mixture, core_side_factor
from .neighbouring import relations_bounded


def normal_interval(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """P(a < Z <= b) for Z ~ N(0, 1), from the tail each end lies in (no cancellation in the tails)."""
    from scipy import special  # lazy: scipy loads at its first use, not with the package

    lower = special.ndtr(np.minimum(b, 0.0)) - special.ndtr(np.minimum(a, 0.0))
    upper = special.ndtr(-np.maximum(a, 0.0)) - special.ndtr(-np.maximum(b, 0.0))
    return cast(
        np.ndarray,
        np.maximum(np.where(b <= 0.0, lower, np.where(a >= 0.0, upper, lower + upper)), 0.0),
    )


def mixture_of_gaussians(
    sigma: float,
    sensitivities: ArrayLike,
    sampling_probs: ArrayLike,
    *,
    value_discretization_interval: float = DEFAULT_INTERVAL,
    tail: float = DEFAULT_TAIL,
) -> PrivacyLossDistribution:
    r"""Discretized remove and add PLDs of the mixture-of-Gaussians mechanism.

    The sensitivity is drawn as s_i with probability w_i and Gaussian noise of standard deviation
    sigma is added:

    .. math::

        \text{remove: } P = \sum_i w_i\, N(s_i, \sigma^2) \text{ vs } Q = N(0, \sigma^2), \qquad
        \text{add: the pair swapped.}

    The loss :math:`L(x) = \log \sum_i w_i \exp((s_i x - s_i^2/2)/\sigma^2)` is non-decreasing, so
    it is discretized one atom per loss cell with certified pessimistic and optimistic sides
    (``monotone``'s docstring; the C++ core's cells), over the x-range that keeps all but ``tail`` /
    4 of P and of Q.  s = (0, 1), w = (1 - q, q) is the Poisson-subsampled Gaussian
    (``subsampled_gaussian`` computes it faster).

    Parameters
    ----------
    sigma : float
        Standard deviation of the noise, sigma > 0.
    sensitivities : array_like
        The shifts s_i, finite and >= 0 (1-d, non-empty).
    sampling_probs : array_like
        Their probabilities w_i, >= 0 and summing to 1 (one per shift); zero weights are dropped.
    value_discretization_interval : float, optional
        Spacing h of the loss grid, 0 < h <= 100 (default 1e-4).
    tail : float, optional
        Probability mass cut from the tails of P and of Q, 1e-300 <= tail < 1e-3 (default 1e-15).

    Returns
    -------
    PrivacyLossDistribution
        The remove and the add direction; one direction releasing nothing when every shift is 0.

    Raises
    ------
    ValueError
        If sigma is not finite and > 0, a shift is negative or not finite, the weights are negative
        or do not sum to 1, the two arrays are empty or differ in length,
        ``value_discretization_interval`` lies outside (0, 100], or ``tail`` outside [1e-300, 1e-3).
    ParameterTypeError
        If an argument is a string, a boolean or None (or holds booleans).

    References
    ----------
    Choquette-Choo, Ganesh, Steinke & Thakurta, ICLR 2024, Sec. 4 and Cor. 4.7; dp_accounting's
    ``MixtureOfGaussiansDpEvent``.

    Examples
    --------
    >>> import hockeystick.pld as pld
    >>> d = pld.mixture_of_gaussians(1.0, [0.0, 1.0], [0.9, 0.1])
    >>> round(d.delta(0.5), 6)
    0.002033
    """
    sd = _positive("sigma", sigma)
    s, w = check_mixture(sensitivities, sampling_probs, ("sensitivities", "sampling_probs"))
    h = checked_interval(value_discretization_interval)
    t = checked_tail(tail)
    if s.max() == 0.0:
        return from_distributions([1.0], [1.0], value_discretization_interval=h, symmetric=True)
    name = f"mixture_of_gaussians(sigma={sd}, s={s.tolist()}, w={w.tolist()})"
    remove, add = _core.pld_mechanisms.gaussian_mixture(
        sigma=sd, shifts=s, weights=w, tail=t, h=h, max_cells=MAX_CELLS
    )
    return PrivacyLossDistribution(
        [
            {core_side_factor(f"{name}, remove", remove): 1},
            {core_side_factor(f"{name}, add", add): 1},
        ],
        t,
    )


def mixture_of(event: Any) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The sensitivities and their weights of a ``MixtureOfGaussiansDpEvent``, checked.

    Parameters
    ----------
    event : MixtureOfGaussiansDpEvent
        Its ``sensitivities`` (finite, >= 0) and ``sampling_probs`` (>= 0, summing to 1 within
        1e-9), of one non-empty length, one positive sensitivity with a positive weight.

    Returns
    -------
    tuple of (tuple of float, tuple of float)
        The shifts and the weights.

    Raises
    ------
    ValueError
        Naming the field and the rule.
    """
    s = _validation.as_real_array(
        event.sensitivities, "MixtureOfGaussiansDpEvent.sensitivities"
    ).ravel()
    w = _validation.as_real_array(
        event.sampling_probs, "MixtureOfGaussiansDpEvent.sampling_probs"
    ).ravel()
    if s.size == 0 or s.shape != w.shape:
        raise ValueError(
            "MixtureOfGaussiansDpEvent.sensitivities and sampling_probs must be non-empty and of one length"
        )
    if not np.all(np.isfinite(s) & (s >= 0)):
        raise ValueError(
            f"MixtureOfGaussiansDpEvent.sensitivities must be finite and >= 0, got {s.tolist()}"
        )
    if not np.all(np.isfinite(w) & (w >= 0)) or abs(w.sum() - 1.0) > 1e-9:
        raise ValueError(
            f"MixtureOfGaussiansDpEvent.sampling_probs must be >= 0 and sum to 1, got {w.tolist()}"
        )
    if not np.any((s > 0) & (w > 0)):  # dp_accounting's rule, with its error type
        raise ValueError(
            "MixtureOfGaussiansDpEvent.sensitivities must have at least one positive value with a "
            f"positive sampling probability, got {s.tolist()} with {w.tolist()}"
        )
    return tuple(s.tolist()), tuple(w.tolist())


@dataclass(frozen=True)
class GaussianMixture(Mechanism):
    """Noise ``sigma`` on a sensitivity drawn from ``shifts`` with ``weights``: remove Q = N(0,
    sigma^2) vs P = sum_i w_i N(s_i, sigma^2), add the pair swapped (Choquette-Choo, Ganesh,
    Steinke, Thakurta, ICLR 2024, Sec. 4; ``mixture_of_gaussians``, certified both sides)."""

    name: ClassVar[str] = "gaussian_mixture"
    dp_event: ClassVar[str] = "dp_accounting.dp_event.MixtureOfGaussiansDpEvent"
    dp_event_field: ClassVar[str] = "standard_deviation"
    sigma: float
    shifts: tuple[float, ...]
    weights: tuple[float, ...]

    @classmethod
    def from_dp_event(cls, event: Any, relation: str) -> GaussianMixture | NonPrivateRun | None:
        """One ``MixtureOfGaussiansDpEvent``: add/remove and replace-special only (it defines the law
        of one record against its absence; under replace-one the coupling of the two records'
        sensitivities is not given); None where every sensitivity is 0, non-private at
        standard_deviation 0."""
        require_relation(
            event,
            relation,
            relations_bounded("add_or_remove_one"),
            "`MixtureOfGaussiansDpEvent` (it defines the law of one record against "
            "its absence only; under `REPLACE_ONE` the coupling of the two records' "
            "sensitivities is not given)",
        )
        sigma = noise(event, "standard_deviation")
        shifts, weights = mixture_of(event)
        if not max(shifts) > 0:
            return None
        if sigma > 0:
            check_reach(event, "standard_deviation", gaussian_reach(max(shifts) / sigma))
        return NonPrivateRun(cls.name) if sigma == 0 else cls(sigma, shifts, weights)

    def loss_reach(self) -> float:
        """``gaussian_reach`` of the largest shift over sigma (the Gaussian pair of that radius
        dominates each component's loss)."""
        return gaussian_reach(max(self.shifts) / self.sigma)

    def group_loss_reach(self, c: float) -> float:
        """``gaussian_reach`` of c times the largest radius."""
        return gaussian_reach(c * max(self.shifts) / self.sigma)

    def poisson_sampled(self, q: float) -> Mechanism | None:
        """Its Poisson sample: the mixture with a shift 0 of weight 1 - q (Zhu, Dong & Wang 2022,
        Thm 11)."""
        return GaussianMixture(
            self.sigma, (0.0, *self.shifts), (1.0 - q, *(q * w for w in self.weights))
        )

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return mixture_of_gaussians(
            self.sigma, list(self.shifts), list(self.weights), value_discretization_interval=h
        )

    def loss_span_floor(self, h: float) -> float:
        """A lower bound on the span of losses between the lowest and the highest atom of
        ``grid_pld(h)``'s remove direction's upper PMF (0 where the conditions below fail).

        That factor is ``mixture_of_gaussians`` at ``DEFAULT_TAIL``: x runs over [x_lo, x_hi] =
        [-z sigma, s + z sigma], s = max s_i, z = Q^{-1}(DEFAULT_TAIL / 4) > 7.9, cut into cells
        (a, b] at the grid losses (cpp/include/hockeystick/pld/mechanisms/monotone.hpp's
        ``monotone_cell_atoms``, each cut's loss within ``kMonotoneLossTolerance`` (1 + |l|) of
        its grid loss, so a cell's end losses within h + 2e-13 (1 + |l|)).  A cell is an atom
        exactly where its computed P-mass fl(sum_i fl(w_i N_i)) is > 0, N_i the computed
        ``normal_interval`` of its standardized ends for component i (gaussian_mixture.hpp: upper
        half above x = s_i, lower half below, each a difference of computed tails Q^, which lie
        within a factor 2 of Q where Q is a normal double), at a finite loss clipped into the
        cell's end losses.  Adjacent cells share their computed end, so over consecutive cells
        one half of N_i telescopes; a sum of exact differences of doubles that is > 0 has a term
        > 0, whose rounded value is > 0 (no underflow at the weights below).  With c = s + 2 sigma
        and c' = x_lo + 2 sigma:

        (1) An atom lies at a loss >= L(c) - h - e.  Let j be a component at shift s and K the
        cell holding c.  If K straddles s, its upper half for j is Q^(0) - Q^((b_K - s) / sigma) >=
        1/2 - 2 Q(2) > 0.45.  Else the upper halves of the cells from K on telescope to
        Q^((a_K - s) / sigma) - Q^(z) >= Q(2) / 2 - 2 Q(z) > 0.011.  Either way one of those cells
        has N_j >= 0.011 / 2^26 (at most ``MAX_CELLS`` cells), an atom for w_j >= 1e-280, at a
        loss at least K's lower end loss, >= L(c) - h - e.
        (2) An atom lies at a loss <= L(c') + h + e: the same with i a component at the least
        shift and the cells up to the one K' holding c', whose lower halves (all below s_i, or K'
        straddling it with a lower half >= 1/2 - 2 Q(z - 2)) telescope to at least
        Q(T - 2) / 2 - 2 Q(T), T = (s_i - x_lo) / sigma, where Q(T - 2) >= e^{2 T - 2} Q(T)
        (the Mills ratio phi(t) / Q(t) >= t): > 0 where w_i Q(T - 2) >= 1e-280.

        The atoms then span at least L(c) - L(c') - 2 h - 2 e, e = 1e-9 (1 + |L(c)| + |L(c')| +
        max |log w_i|) bounding both the cut tolerance and the round-off of L (a log-sum-exp
        from its largest term, here and in the core).  Where a condition fails, 0.

        Parameters
        ----------
        h : float
            The grid spacing.

        Returns
        -------
        float
            The lower bound on the loss span, >= 0.
        """
        from scipy import special  # lazy: scipy loads at its first use, not with the package

        sigma = self.sigma
        s = np.asarray(self.shifts, dtype=np.float64)
        w = np.asarray(self.weights, dtype=np.float64)
        keep = w > 0.0
        s, log_w = s[keep], np.log(w[keep])
        z = float(gaussian_tail_inverse(DEFAULT_TAIL / 4.0))
        top, least = int(np.argmax(s)), int(np.argmin(s))
        far = z + s[least] / sigma  # T
        if log_w[top] < math.log(1e-280) or not s[top] > 0.0:
            return 0.0
        if log_w[least] + float(log_gaussian_tail(far - 2.0)) < math.log(1e-280):
            return 0.0

        def loss(x: float) -> float:
            return float(special.logsumexp(log_w + (s * x - 0.5 * s * s) / (sigma * sigma)))

        high, low = loss(s[top] + 2.0 * sigma), loss(-z * sigma + 2.0 * sigma)
        error = 1e-9 * (1.0 + abs(high) + abs(low) + float(np.max(np.abs(log_w))))
        return max(high - low - 2.0 * h - 2.0 * error, 0.0)
