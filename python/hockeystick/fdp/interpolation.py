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
  point t0 as well).  In y_t = lambda_{t+1}(rho_t D_t + gamma_t)/R_{t+1}, R_t = prod_{j<t} rho_j,
  the problem is a weighted isotonic regression whose solution is the greatest convex minorant of
  the cumulative-sum diagram with steps (1/R_{t+1}^2, gamma_t/R_{t+1}); pool-adjacent-violators
  finds it in O(T).  The accountants' ``mu``.  Valid.
* ``h_composition`` (lambda == 1): sum_t gamma_t^2, plain GDP composition of the rounds.  Valid.
* ``h0`` (eq. 16): (sum_t P_t gamma_t)^2 / sum_t P_t^2 with P_t = prod_{j=t+1}^{T-1} rho_j, the
  Cauchy-Schwarz lower bound on H over lambda.  It equals ``h_optimal`` exactly when the optimality
  condition eq. 41 (0 <= lambda <= 1) can be met (``h0_attained``), which the paper never checks.
  Where it cannot, h0 is NOT a privacy bound, and for constant rho > 1 (constant and cyclic FedAvg
  rates, FedProx) and T >= 2 it is false: a linear loss leaks exactly the composition value, above
  h0 (see docs/paper-004-errata.md section 1).

h0 <= h_optimal <= h_composition always.
The O(T) pass runs in C++ (cpp/include/hockeystick/fdp/interpolation.hpp), OpenMP over grid points.
"""

from __future__ import annotations

import warnings
from typing import Literal, NamedTuple, cast

import numpy as np
import numpy.typing as npt

from .. import _core
from ..base.accountant import UPPER_ONLY, Bound
from ..base.accountant_docs import accountant_docs
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
    "INTERPOLATIONS",
    "Interpolation",
]

Interpolation = Literal["optimal", "h0", "composition"]
INTERPOLATIONS: tuple[Interpolation, ...] = ("optimal", "h0", "composition")


class InterpolationBound(NamedTuple):
    r"""The three values of the shifted-interpolation H of paper 004 (eq. 12-16), in units of gamma^2.

    The released model is mu-GDP with :math:`\mu = \sqrt{m H} / \sigma` for ``h_optimal`` and
    ``h_composition``; always :math:`H_0 \le H_{\mathrm{opt}} \le H_{\mathrm{comp}}`.

    Parameters
    ----------
    h0 : numpy.ndarray
        The paper's eq. 16, :math:`H_0 = (\sum_t P_t \gamma_t)^2 / \sum_t P_t^2` with :math:`P_t =
        \prod_{j=t+1}^{T-1} \rho_j`: a lower bound on H over the interpolation weights, a privacy
        bound only where ``h0_attained`` (paper-004 errata, section 1).
    h_optimal : numpy.ndarray
        The exact minimum of H over every admissible weight lambda in [0, 1]: a valid bound.
    h_composition : numpy.ndarray
        :math:`\sum_t \gamma_t^2` (lambda = 1, GDP composition of the rounds): a valid bound.
    h0_attained : numpy.ndarray of bool
        Whether the paper's optimality condition eq. 41 can be met, i.e. ``h0 == h_optimal``.

    References
    ----------
    Paper 004, eq. 12-16 and Appendix A.3 (eq. 41); docs/paper-004-errata.md, section 1.
    """

    h0: np.ndarray
    h_optimal: np.ndarray
    h_composition: np.ndarray
    h0_attained: np.ndarray


def _bound_from_core(result: tuple[np.ndarray, ...], shape: tuple[int, ...]) -> InterpolationBound:
    h0, h_opt, h_comp, attained = (np.asarray(r).reshape(shape) for r in result)
    return InterpolationBound(h0, h_opt, h_comp, attained.astype(bool))


def interpolation_bound(
    rho: npt.ArrayLike, gamma: npt.ArrayLike, *, threads: int | None = None
) -> InterpolationBound:
    r"""Shifted-interpolation H of the released last iterate for per-round factors rho_t, gamma_t.

    Each round satisfies :math:`\|\phi(w) - \phi'(\tilde w)\| \le \rho_t \|w - \tilde w\| +
    \gamma_t` (paper 004, Theorem 10). With interpolation weights :math:`\lambda_{t+1} \in [0, 1]`,
    :math:`\lambda_T = 1`, and gaps :math:`D_0 = 0`, :math:`D_{t+1} = (1 - \lambda_{t+1})(\rho_t
    D_t + \gamma_t)`, the final model is :math:`\sqrt{m H}/\sigma`-GDP for

    .. math::

        H(\lambda) = \sum_{t<T} \lambda_{t+1}^2 (\rho_t D_t + \gamma_t)^2 .

    Returned: its exact minimum over the weights (``h_optimal``: a weighted isotonic regression,
    solved exactly by pool-adjacent-violators in O(T), in C++), lambda = 1 (``h_composition`` =
    :math:`\sum_t \gamma_t^2`), and the paper's Cauchy-Schwarz value ``h0`` (eq. 16), which is a
    bound only where ``h0_attained``.

    Parameters
    ----------
    rho : array_like
        Per-round expansion of the model gap, finite and > 0, shape (..., T): rounds on the last
        axis.
    gamma : array_like
        Per-round data sensitivity, finite and >= 0, shape (..., T); broadcasts with ``rho``.
    threads : int, optional
        OpenMP threads over the leading axes, a positive integer; None (default): automatic.

    Returns
    -------
    InterpolationBound
        ``h0``, ``h_optimal``, ``h_composition`` and ``h0_attained``, each an array of the leading
        shape ``...``.

    Raises
    ------
    ValueError
        ``rho`` not finite and > 0; ``gamma`` negative or not finite; both scalars (no rounds axis);
        shapes that do not broadcast.
    ParameterTypeError
        ``rho`` or ``gamma`` a string, bool or None.

    References
    ----------
    Paper 004, eq. 12-16 and Appendix A.3; docs/paper-004-errata.md, section 1 (why ``h0`` is not a
    bound where eq. 41 fails).

    Examples
    --------
    >>> from hockeystick.fdp import interpolation_bound
    >>> b = interpolation_bound([1.1, 1.1, 1.1], [1.0, 1.0, 1.0])
    >>> round(float(b.h0), 6), float(b.h_optimal), float(b.h_composition), bool(b.h0_attained)
    (2.981982, 3.0, 3.0, False)
    """
    rho_arr = positive(rho, "rho")
    gamma_arr = nonnegative(gamma, "gamma")
    if rho_arr.ndim == 0 and gamma_arr.ndim == 0:
        raise ValueError(
            "rho and gamma need a rounds axis (the last axis): give arrays of length T"
        )
    try:
        rho_b, gamma_b = np.broadcast_arrays(np.atleast_1d(rho_arr), np.atleast_1d(gamma_arr))
    except ValueError:
        raise ValueError(
            f"rho {rho_arr.shape} and gamma {gamma_arr.shape} do not broadcast together"
        ) from None
    lead, rounds = rho_b.shape[:-1], rho_b.shape[-1]
    rho_rows = np.ascontiguousarray(rho_b.reshape(-1, rounds))
    gam = np.ascontiguousarray(gamma_b.reshape(-1, rounds))
    lengths = np.full(rho_rows.shape[0], float(rounds))
    return _bound_from_core(
        _core.fdp.interpolation_from_rounds(rho_rows, gam, lengths, threads=check_threads(threads)),
        lead,
    )


def rounds_from_learning_rates(
    eta: npt.ArrayLike, *, lipschitz: npt.ArrayLike, clip: npt.ArrayLike, clients: npt.ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    r"""Per-round factors (rho_t, gamma_t) of noisy FedAvg from any local learning-rate schedule eta_{k,t}.

    .. math::

        \rho_t = \prod_{k<K} (1 + \eta_{k,t} L), \qquad
        \gamma_t = \frac{2V}{m} \sum_{k<K} \eta_{k,t}

    (eq. 30's :math:`1 + \eta(K, t) L` telescopes to this product). The pair feeds
    ``interpolation_bound``.

    Parameters
    ----------
    eta : array_like
        Local learning rates, finite and >= 0, shape (..., T, K): rounds, then local steps.
    lipschitz : array_like
        Smoothness constant L of the loss, finite and >= 0.
    clip : array_like
        Clipping norm V, finite and >= 0.
    clients : array_like
        Number of clients m, finite and > 0.

    Returns
    -------
    tuple of numpy.ndarray
        ``(rho, gamma)``, each of shape (..., T).

    Raises
    ------
    ValueError
        ``eta`` with fewer than two axes; a value outside its range above; shapes that do not
        broadcast.
    ParameterTypeError
        An argument that is a string, bool or None.

    Notes
    -----
    ``lipschitz``, ``clip`` and ``clients`` broadcast with the leading axes ``...`` of ``eta``.

    References
    ----------
    Paper 004, Lemmas 20-21 (eq. 29-30); docs/paper-004-errata.md, section 2.

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.fdp import rounds_from_learning_rates
    >>> rho, gamma = rounds_from_learning_rates(np.full((3, 2), 0.1), lipschitz=1.0, clip=1.0, clients=10)
    >>> rho.round(6), gamma.round(6)
    (array([1.21, 1.21, 1.21]), array([0.04, 0.04, 0.04]))
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


def constant_rate_h0(
    log_rho: npt.ArrayLike, gamma: npt.ArrayLike, rounds: npt.ArrayLike
) -> np.ndarray:
    r"""The paper's H0 (eq. 16) for constant per-round factors rho and gamma over T rounds.

    .. math::

        H_0 = \gamma^2 \frac{\rho + 1}{\rho - 1} \cdot \frac{\rho^T - 1}{\rho^T + 1}
            = \gamma^2 \frac{\tanh(T\ell/2)}{\tanh(\ell/2)}, \qquad \ell = \log\rho,

    computed in the tanh form, stable for every :math:`\ell \ge 0`; below :math:`\ell = 10^{-150}`
    it is :math:`T\gamma^2` (its limit, exact in double precision there). This is the H behind eq.
    17 (FedAvg, constant rate) and eq. 21 (FedProx). For :math:`\rho > 1` and T >= 2 it is NOT a
    privacy bound: eq. 41 fails and the valid optimum is :math:`T\gamma^2` (paper-004 errata,
    section 1).

    Parameters
    ----------
    log_rho : array_like
        :math:`\ell = \log\rho`, >= 0 (inf allowed).
    gamma : array_like
        Per-round sensitivity, >= 0 (inf allowed).
    rounds : array_like
        Number of rounds T, a whole number >= 1.

    Returns
    -------
    numpy.ndarray
        H0 at each broadcast point (a 0-d array for scalar input).

    Raises
    ------
    ValueError
        ``log_rho`` or ``gamma`` negative or NaN; ``rounds`` not a whole number >= 1.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 004, eq. 16, 17 and 21; docs/paper-004-errata.md, section 1.

    Examples
    --------
    >>> from hockeystick.fdp import constant_rate_h0
    >>> round(float(constant_rate_h0(0.1, 1.0, 10)), 6)
    9.250044
    """
    ell = nonnegative(log_rho, "log_rho", finite=False)
    g2 = np.square(nonnegative(gamma, "gamma", finite=False))
    T = positive_integer(rounds, "rounds")
    flat, tanh_rounds, tanh_one = _tanh_halves(ell, T)
    return cast(np.ndarray, np.where(flat, T * g2, g2 * tanh_rounds / tanh_one))


def constant_rate_h0_limit(log_rho: npt.ArrayLike, gamma: npt.ArrayLike) -> np.ndarray:
    r"""Limit as T -> infinity of the paper's constant-factor H0 (eq. 16), gamma^2 / tanh(log(rho) / 2).

    .. math::

        \lim_{T\to\infty} H_0 = \gamma^2 \frac{\rho + 1}{\rho - 1} = \frac{\gamma^2}{\tanh(\ell/2)},
        \qquad \ell = \log\rho .

    gamma = 0 gives 0 (every round adds nothing); :math:`\ell = 0` with gamma > 0 gives inf;
    :math:`\ell < 10^{-150}` uses :math:`\tanh(\ell/2) = \ell/2`, exact in double precision there.
    This is the limit of Table 1 ("convergent"); it comes from H0 only, which is not a valid bound
    for :math:`\rho > 1` (paper-004 errata, section 1).

    Parameters
    ----------
    log_rho : array_like
        :math:`\ell = \log\rho`, >= 0 (inf allowed).
    gamma : array_like
        Per-round sensitivity, >= 0 (inf allowed); broadcasts with ``log_rho``.

    Returns
    -------
    numpy.ndarray
        The limit at each broadcast point (a 0-d array for scalar input).

    Raises
    ------
    ValueError
        ``log_rho`` or ``gamma`` negative or NaN.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 004, eq. 17 and 21 (their T -> infinity limits, Table 1); docs/paper-004-errata.md,
    section 1.

    Examples
    --------
    >>> from hockeystick.fdp import constant_rate_h0_limit
    >>> round(float(constant_rate_h0_limit(0.1, 1.0)), 6)
    20.016664
    """
    ell = nonnegative(log_rho, "log_rho", finite=False)
    g2 = np.square(nonnegative(gamma, "gamma", finite=False))
    tiny, _, tanh_one = _tanh_halves(ell, None)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        limit = np.where(
            tiny, 2.0 * g2 / np.abs(ell), g2 / tanh_one
        )  # -0.0 is 0: the limit is +inf, not -inf
    return np.where(g2 == 0, 0.0, limit)


_SERIES_LOG_RHO = 1e-150


def _tanh_halves(
    ell: np.ndarray, rounds: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(flat, tanh(T l/2), tanh(l/2)) for validated l >= 0 and T, the two factors of eq. 16's H0 /
    gamma^2 and of its limit.  Where ``flat`` (l < 1e-150) both tanh are taken at l = 1 and the
    caller uses the series instead: tanh(T l/2) / tanh(l/2) = T (1 + O(T^2 l^2)) and 1 / tanh(l/2) =
    2 / l, exact in double precision there.  ``rounds=None`` skips tanh(T l/2) (returned as
    tanh(l/2))."""
    flat = ell < _SERIES_LOG_RHO
    safe = np.where(flat, 1.0, ell)
    tanh_one = np.tanh(safe / 2)
    return flat, tanh_one if rounds is None else np.tanh(rounds * safe / 2), tanh_one


def constant_rate_root_h0(
    log_rho: np.ndarray, unit_gamma: np.ndarray, rounds: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(sqrt(H0), sqrt(lim_T H0)) of eq. 16 at a constant per-round gamma = ``unit_gamma``, for
    arguments the caller has validated (``constant_rate_h0`` and ``constant_rate_h0_limit`` at
    gamma = 1, times ``unit_gamma``, bit for bit, with tanh(l/2) computed once for both)."""
    flat, tanh_rounds, tanh_one = _tanh_halves(log_rho, rounds)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        limit = np.where(
            flat, 2.0 / np.abs(log_rho), 1.0 / tanh_one
        )  # -0.0 is 0: the limit is +inf
    return unit_gamma * np.sqrt(
        np.where(flat, rounds, tanh_rounds / tanh_one)
    ), unit_gamma * np.sqrt(limit)


def mu_coefficient(
    numerators: tuple[npt.ArrayLike, ...], denominators: tuple[npt.ArrayLike, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """prod(numerators) / prod(denominators) as (mantissa, exponent), the value mantissa * 2**exponent.

    Each factor is split by frexp (exact) into a mantissa in [1/2, 1) and a power of two; the
    mantissas multiply to within [2^-k, 2^k] for k factors, so no intermediate over- or underflows,
    and the product rounds as the plain product of the factors would wherever that one is finite.
    Where every factor lies within 2^(+-1000/k), no partial product leaves the normal doubles, and
    the plain product (exponent 0) is that same value at a fraction of the cost.
    """
    factors = [np.asarray(f, dtype=float) for f in (*numerators, *denominators)]
    divides = [i >= len(numerators) for i in range(len(factors))]
    edge = 2.0 ** (1000 // len(factors))
    if all(f.size and f.min() >= 1.0 / edge and f.max() <= edge for f in factors):
        plain: np.ndarray = np.ones(())
        for factor, divide in zip(factors, divides):
            plain = plain / factor if divide else plain * factor
        return plain, np.zeros((), dtype=np.int64)
    mantissa: np.ndarray = np.ones(())
    exponent: np.ndarray = np.zeros((), dtype=np.int64)
    for factor, divide in zip(factors, divides):
        fraction, power = np.frexp(factor)
        mantissa = mantissa / fraction if divide else mantissa * fraction
        exponent = (
            exponent - power.astype(np.int64) if divide else exponent + power.astype(np.int64)
        )
    return mantissa, exponent


def mu_from_root_h(coefficient: tuple[np.ndarray, np.ndarray], root_h: np.ndarray) -> np.ndarray:
    """mu = coefficient * sqrt(H) for sqrt(H) in the coefficient's units: inf where the true value
    exceeds the largest double (delta = 1 there, a valid upper side), 0 where the coefficient is 0
    (no data sensitivity: a zero clip), whatever sqrt(H) is."""
    mantissa, exponent = coefficient
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = np.ldexp(mantissa * root_h, exponent.astype(np.int32))  # |exponent| < 6000
    return np.where(mantissa == 0.0, 0.0, scaled)


@accountant_docs(
    sides=UPPER_ONLY
)  # completes delta / epsilon docstrings with the contract's sections
class LastIterateAccountant:
    """A released-last-iterate mu-GDP accountant holding the shifted-interpolation mu values.

    Subclasses set ``_root_h`` (an InterpolationBound holding sqrt(H) in a gamma unit of their
    choice: the per-round sensitivities divided by a common factor, so that they stay far from
    overflow) and ``_coefficient`` = sqrt(m)/sigma times that unit, as ``mu_coefficient`` returns
    it; mu = coefficient * sqrt(H) is then finite wherever the true mu is. ``delta``/``epsilon``
    take ``bound`` (the side of the bracket: "upper" only) and ``interpolation``:

    * ``"optimal"`` (default): ``mu``, the exact minimum over admissible interpolation weights;
      valid.
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
        """mu-GDP of the released model: the exact minimum of the interpolation bound H (eq. 15)
        over lambda in [0, 1].  Valid.  Equals ``mu_composition`` when rho is constant and > 1."""
        return self._mu_of(self._root_h.h_optimal)

    @property
    def mu_paper_h0(self) -> float | np.ndarray:
        """The paper's optimized-H0 mu (eq. 16).  Rests on eq. 41 and is false where eq. 41 fails
        (``h0_attained`` says where it holds; there it equals ``mu``).  For reproducing the paper
        only."""
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
        return {"optimal": self.mu, "h0": self.mu_paper_h0, "composition": self.mu_composition}[
            interpolation
        ]

    def mu_for_bound(self, bound: str = "optimal") -> float | np.ndarray:
        """Deprecated name of ``mu_for_interpolation`` (``bound`` now means the side of a bracket)."""
        warnings.warn(
            "mu_for_bound is deprecated; use mu_for_interpolation", DeprecationWarning, stacklevel=2
        )
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
        """Privacy profile delta(eps) = theta(mu, eps) of the released model, theta rounded up.

        Paper 004, Lemma 7 (eq. 8), at the mu that ``interpolation`` selects.  Upper side only: no
        lower bound is known.

        Parameters
        ----------
        interpolation : {"optimal", "composition", "h0"}, default "optimal"
            Which mu: ``mu`` (valid), ``mu_composition`` (valid), or the paper's ``mu_paper_h0``
            (eq. 16; NOT a valid bound where ``h0_attained`` is False, for reproducing the paper
            only).
        threads : int, optional
            OpenMP threads for array input.

        Raises
        ------
        ValueError
            An unknown ``interpolation``.
        """
        return _ct.theta_upper(
            self._mu(bound, interpolation), epsilon_values(epsilon), threads=threads
        )

    def epsilon(
        self,
        delta: npt.ArrayLike,
        *,
        bound: Bound = "upper",
        interpolation: Interpolation = "optimal",
        threads: int | None = None,
    ) -> float | np.ndarray:
        """Smallest eps >= 0 with theta(mu, eps) <= delta, at the mu that ``interpolation`` selects, rounded up.

        Upper side only: no lower bound is known.

        Parameters
        ----------
        interpolation : {"optimal", "composition", "h0"}, default "optimal"
            Which mu, as in ``delta``.
        threads : int, optional
            OpenMP threads for array input.

        Raises
        ------
        ValueError
            An unknown ``interpolation``.
        """
        return _ct.theta_epsilon_upper(
            self._mu(bound, interpolation), delta_values(delta), threads=threads
        )
