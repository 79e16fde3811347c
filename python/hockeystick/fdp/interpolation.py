"""The shifted-interpolation engine of paper 004 (eq. 12-16, Appendix A.3), for any per-round (rho_t, gamma_t).

Each round of the released-last-iterate algorithm satisfies (Theorem 10)

    ||phi(w) - phi'(w~)|| <= rho_t ||w - w~|| + gamma_t,

and with the Gaussian noise of the average (std sigma/sqrt(m)), interpolation weights
lambda_{t+1} in [0, 1], lambda_T = 1 and the worst-case gaps D_0 = 0,
D_{t+1} = (1 - lambda_{t+1})(rho_t D_t + gamma_t), the final model is mu-GDP with

    mu = sqrt(m H) / sigma,   H = sum_{t<T} lambda_{t+1}^2 (rho_t D_t + gamma_t)^2      (eq. 12, 14, 16).

The constraint lambda in [0, 1] comes from the gap recursion (the constraint of eq. 38/39): the
shifted iterate's gap is |1 - lambda| (rho_t D_t + gamma_t).  lambda > 1 is dominated by lambda = 1
(a larger term now and a positive gap later) and lambda < 0 by lambda = 0, so [0, 1] loses nothing.

Three values of H, every one returned by ``interpolation_bound``:

* ``h_optimal``: the exact minimum of H over every admissible lambda (and so over the observation
  point t0 as well).  In y_t = lambda_{t+1}(rho_t D_t + gamma_t)/R_{t+1}, R_t = prod_{j<t} rho_j, the
  problem is a weighted isotonic regression whose solution is the greatest convex minorant of the
  cumulative-sum diagram with steps (1/R_{t+1}^2, gamma_t/R_{t+1}); pool-adjacent-violators finds it
  in O(T).  The accountants' ``mu``.  Valid.
* ``h_composition`` (lambda == 1): sum_t gamma_t^2, plain GDP composition of the rounds.  Valid.
* ``h0`` (eq. 16): (sum_t P_t gamma_t)^2 / sum_t P_t^2 with P_t = prod_{j=t+1}^{T-1} rho_j, the
  Cauchy-Schwarz lower bound on H over lambda.  It equals ``h_optimal`` exactly when the optimality
  condition eq. 41 (0 <= lambda <= 1) can be met (``h0_attained``), which the paper never checks.
  Where it cannot, h0 is NOT a privacy bound, and for constant rho > 1 (constant and cyclic FedAvg
  rates, FedProx) and T >= 2 it is false: a linear loss leaks exactly the composition value, above
  h0 (see docs/paper-004-errata.md section 1).

h0 <= h_optimal <= h_composition always.
The O(T) pass runs in C++ (cpp/include/hockeystick/fdp_interpolation.hpp), OpenMP over grid points.
"""

from __future__ import annotations

import warnings
from typing import Literal, NamedTuple, cast

import numpy as np
import numpy.typing as npt

from .. import _core
from ..base.accountant import Bound
from ..base.elementwise import check_threads
from ..base.validation import (
    choice,
    delta_values,
    epsilon_values,
    nonnegative,
    positive,
    positive_integer,
    scalar_or_array,
    upper_only,
)
from ..numerics import certified_theta as _ct

__all__ = [
    "InterpolationBound",
    "interpolation_bound",
    "rounds_from_learning_rates",
    "constant_rate_h0",
    "constant_rate_h0_limit",
    "BOUNDS",
    "INTERPOLATIONS",
    "Interpolation",
]

Interpolation = Literal["optimal", "h0", "composition"]
INTERPOLATIONS: tuple[Interpolation, ...] = ("optimal", "h0", "composition")
BOUNDS = INTERPOLATIONS  # the earlier name (when ``bound=`` chose the interpolation); kept for one release


class InterpolationBound(NamedTuple):
    """H values of the shifted-interpolation bound, in the units of gamma^2 (mu = sqrt(m H)/sigma)."""

    h0: np.ndarray
    h_optimal: np.ndarray
    h_composition: np.ndarray
    h0_attained: np.ndarray


def _bound_from_core(result: tuple[np.ndarray, ...], shape: tuple[int, ...]) -> InterpolationBound:
    h0, h_opt, h_comp, attained = (np.asarray(r).reshape(shape) for r in result)
    return InterpolationBound(h0, h_opt, h_comp, attained.astype(bool))


def interpolation_bound(rho: npt.ArrayLike, gamma: npt.ArrayLike, *, threads: int | None = None) -> InterpolationBound:
    """Shifted-interpolation H for per-round factors: rho, gamma of shape (..., T), rounds on the last axis.

    ``rho`` > 0 is the per-round expansion of the model gap (Theorem 10's model sensitivity),
    ``gamma`` >= 0 the per-round data sensitivity; they broadcast together.  Any local
    learning-rate schedule reduces to these through ``rounds_from_learning_rates``.
    Returns arrays of shape ``...`` (the leading axes).
    """
    rho_arr = positive(rho, "rho")
    gamma_arr = nonnegative(gamma, "gamma")
    if rho_arr.ndim == 0 and gamma_arr.ndim == 0:
        raise ValueError("rho and gamma need a rounds axis (the last axis): give arrays of length T")
    try:
        rho_b, gamma_b = np.broadcast_arrays(np.atleast_1d(rho_arr), np.atleast_1d(gamma_arr))
    except ValueError:
        raise ValueError(f"rho {rho_arr.shape} and gamma {gamma_arr.shape} do not broadcast together") from None
    lead, rounds = rho_b.shape[:-1], rho_b.shape[-1]
    rho_rows = np.ascontiguousarray(rho_b.reshape(-1, rounds))
    gam = np.ascontiguousarray(gamma_b.reshape(-1, rounds))
    lengths = np.full(rho_rows.shape[0], float(rounds))
    return _bound_from_core(
        _core.fdp.interpolation_from_rounds(rho_rows, gam, lengths, threads=check_threads(threads)), lead
    )


def rounds_from_learning_rates(
    eta: npt.ArrayLike, *, lipschitz: npt.ArrayLike, clip: npt.ArrayLike, clients: npt.ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """(rho_t, gamma_t) of noisy FedAvg from local rates eta of shape (..., T, K)  (paper 004 Lemmas 20-21).

    rho_t = prod_k (1 + eta_{k,t} L)   (eq. 30: 1 + eta(K, t) L telescopes to this product),
    gamma_t = (2 V / m) sum_k eta_{k,t}   (eq. 29).
    ``lipschitz``, ``clip`` and ``clients`` broadcast with the leading axes of ``eta``.
    """
    eta_arr = nonnegative(eta, "eta")
    if eta_arr.ndim < 2:
        raise ValueError("eta must have shape (..., T, K): rounds, then local steps")
    L = nonnegative(lipschitz, "lipschitz")[..., None]
    V = nonnegative(clip, "clip")[..., None]
    m = positive(clients, "clients")[..., None]
    rho = np.exp(np.sum(np.log1p(eta_arr * L[..., None]), axis=-1))
    gamma = 2.0 * V / m * np.sum(eta_arr, axis=-1)
    return rho, gamma


def constant_rate_h0(log_rho: npt.ArrayLike, gamma: npt.ArrayLike, rounds: npt.ArrayLike) -> np.ndarray:
    """eq. 16 for rho_t = rho, gamma_t = gamma: gamma^2 (rho+1)/(rho-1) (rho^T-1)/(rho^T+1).

    Written as gamma^2 tanh(T l/2) / tanh(l/2), l = log rho, which is exact and stable for every
    l >= 0 (it tends to T gamma^2 as l -> 0).  This is eq. 17 (FedAvg) and eq. 21 (FedProx).
    """
    ell = nonnegative(log_rho, "log_rho", finite=False)
    g2 = np.square(nonnegative(gamma, "gamma", finite=False))
    T = positive_integer(rounds, "rounds")
    flat = ell < _SERIES_LOG_RHO  # tanh(T l/2) / tanh(l/2) = T (1 + O(T^2 l^2)): T to double precision
    safe = np.where(flat, 1.0, ell)
    return cast(np.ndarray, np.where(flat, T * g2, g2 * np.tanh(T * safe / 2) / np.tanh(safe / 2)))


def constant_rate_h0_limit(log_rho: npt.ArrayLike, gamma: npt.ArrayLike) -> np.ndarray:
    """T -> infinity limit of ``constant_rate_h0``: gamma^2 (rho+1)/(rho-1) = gamma^2 / tanh(l/2).

    gamma = 0 gives 0 (every round adds nothing); l = 0 with gamma > 0 gives inf; l below 1e-150
    uses tanh(l/2) = l/2, exact in double precision there (and free of subnormal round-off).
    """
    ell = np.abs(nonnegative(log_rho, "log_rho", finite=False))  # -0.0 is 0: the limit is +inf, not -inf
    g2 = np.square(nonnegative(gamma, "gamma", finite=False))
    tiny = ell < _SERIES_LOG_RHO
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        limit = np.where(tiny, 2.0 * g2 / ell, g2 / np.tanh(np.where(tiny, 1.0, ell) / 2))
    return np.where(g2 == 0, 0.0, limit)


_SERIES_LOG_RHO = 1e-150


def mu_coefficient(
    numerators: tuple[npt.ArrayLike, ...], denominators: tuple[npt.ArrayLike, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """prod(numerators) / prod(denominators) as (mantissa, exponent), the value mantissa * 2**exponent.

    Each factor is split by frexp (exact) into a mantissa in [1/2, 1) and a power of two; the
    mantissas multiply to within [2^-k, 2^k] for k factors, so no intermediate over- or underflows,
    and the product rounds as the plain product of the factors would wherever that one is finite.
    """
    mantissa: np.ndarray = np.ones(())
    exponent: np.ndarray = np.zeros((), dtype=np.int64)
    for factors, sign in ((numerators, 1), (denominators, -1)):
        for factor in factors:
            fraction, power = np.frexp(np.asarray(factor, dtype=float))
            mantissa = mantissa * fraction if sign > 0 else mantissa / fraction
            exponent = exponent + sign * power.astype(np.int64)
    return mantissa, exponent


def mu_from_root_h(coefficient: tuple[np.ndarray, np.ndarray], root_h: np.ndarray) -> np.ndarray:
    """mu = coefficient * sqrt(H) for sqrt(H) in the coefficient's units: inf where the true value
    exceeds the largest double (delta = 1 there, a valid upper side), 0 where the coefficient is 0
    (no data sensitivity: a zero clip), whatever sqrt(H) is."""
    mantissa, exponent = coefficient
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = np.ldexp(mantissa * root_h, exponent.astype(np.int32))  # |exponent| < 6000
    return np.where(mantissa == 0.0, 0.0, scaled)


class LastIterateAccountant:
    """A released-last-iterate mu-GDP accountant holding the shifted-interpolation mu values.

    Subclasses set ``_root_h`` (an InterpolationBound holding sqrt(H) in a gamma unit of their
    choice: the per-round sensitivities divided by a common factor, so that they stay far from
    overflow) and ``_coefficient`` = sqrt(m)/sigma times that unit, as ``mu_coefficient`` returns it;
    mu = coefficient * sqrt(H) is then finite wherever the true mu is.
    ``delta``/``epsilon`` take ``bound`` (the side of the bracket: "upper" only) and ``interpolation``:

    * ``"optimal"`` (default): ``mu``, the exact minimum over admissible interpolation weights; valid.
    * ``"composition"``: ``mu_composition``, lambda == 1, GDP composition over rounds; valid.
    * ``"h0"``: ``mu_paper_h0``, the paper's eq. 16 value, for reproducing the paper.  NOT a valid
      bound in general: only where ``h0_attained``; false for constant rho > 1 and T >= 2.
    """

    _root_h: InterpolationBound
    _coefficient: tuple[np.ndarray, np.ndarray]

    def _mu_of(self, root_h: np.ndarray) -> float | np.ndarray:
        return scalar_or_array(mu_from_root_h(self._coefficient, root_h))

    @property
    def mu(self) -> float | np.ndarray:
        """mu-GDP of the released model: the exact minimum of the interpolation bound H (eq. 15) over
        lambda in [0, 1].  Valid.  Equals ``mu_composition`` when rho is constant and > 1."""
        return self._mu_of(self._root_h.h_optimal)

    @property
    def mu_paper_h0(self) -> float | np.ndarray:
        """The paper's optimized-H0 mu (eq. 16).  Rests on eq. 41 and is false where eq. 41 fails
        (``h0_attained`` says where it holds; there it equals ``mu``).  For reproducing the paper only."""
        return self._mu_of(self._root_h.h0)

    @property
    def mu_composition(self) -> float | np.ndarray:
        """mu from GDP composition over the rounds (lambda == 1): always valid, a baseline."""
        return self._mu_of(self._root_h.h_composition)

    @property
    def h0_attained(self) -> bool | np.ndarray:
        """Whether the paper's condition eq. 41 holds, i.e. ``mu_paper_h0`` equals ``mu`` and is a bound."""
        h = self._root_h.h0_attained
        return bool(h) if np.ndim(h) == 0 else h

    def mu_for_interpolation(self, interpolation: Interpolation = "optimal") -> float | np.ndarray:
        """The mu that ``interpolation`` selects: "optimal" (``mu``), "h0" or "composition"."""
        choice(interpolation, "interpolation", INTERPOLATIONS)
        return {"optimal": self.mu, "h0": self.mu_paper_h0, "composition": self.mu_composition}[interpolation]

    def mu_for_bound(self, bound: str = "optimal") -> float | np.ndarray:
        """Deprecated name of ``mu_for_interpolation`` (``bound`` now means the side of a bracket)."""
        warnings.warn("mu_for_bound is deprecated; use mu_for_interpolation", DeprecationWarning, stacklevel=2)
        return self.mu_for_interpolation(bound)  # type: ignore[arg-type]

    def _mu(self, bound: str, interpolation: Interpolation) -> float | np.ndarray:
        """``bound`` is the side ("upper" only); an old ``bound="h0"`` etc. still selects the interpolation."""
        if bound in INTERPOLATIONS:
            warnings.warn(
                f"bound={bound!r} is deprecated: the interpolation is chosen with interpolation={bound!r} "
                '(bound now says the side of the bracket, "upper")',
                DeprecationWarning,
                stacklevel=3,
            )
            return self.mu_for_interpolation(bound)
        upper_only(bound, type(self).__name__)
        return self.mu_for_interpolation(interpolation)

    def delta(
        self,
        epsilon: npt.ArrayLike,
        *,
        bound: Bound = "upper",
        interpolation: Interpolation = "optimal",
        threads: int | None = None,
    ) -> float | np.ndarray:
        """delta(eps) = theta(mu, eps) for the mu that ``interpolation`` selects (paper 004 Lemma 7), theta rounded up."""
        return _ct.theta_upper(self._mu(bound, interpolation), epsilon_values(epsilon), threads=threads)

    def epsilon(
        self,
        delta: npt.ArrayLike,
        *,
        bound: Bound = "upper",
        interpolation: Interpolation = "optimal",
        threads: int | None = None,
    ) -> float | np.ndarray:
        """Smallest eps >= 0 with theta(mu, eps) <= delta, for the mu that ``interpolation`` selects, rounded up."""
        return _ct.theta_epsilon_upper(self._mu(bound, interpolation), delta_values(delta), threads=threads)
