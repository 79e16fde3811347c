"""Paper 000's utility guarantee for the trusted aggregator (Corollary 1), beside what a run measures.

Asoodeh, Chen, Calmon, Özgür, "Differentially private federated learning: an information-theoretic
perspective", Corollary 1 (distributional SGD, Section IV.A): the users' samples are i.i.d. from
P_X, F(W) = E ℓ(W, X) is λ-strongly convex and β-smooth on W ⊆ ball(ρ), ‖∇F(W)‖² ≤ D² and
Var ∇ℓ(W, X) ≤ G² on W; Algorithm 1 with η_t = 1/(λt), σ_t = σ, batches of m users, T = n/m
rounds, releases W_T with

    E F(W_T) − min_W F ≤ 2β (D² + (G² + σ²)/m) / (λ² T) = 2β (m D² + G² + σ²) / (λ² n).

It is Theorem 1 of Rakhlin, Shamir, Sridharan (2012, "Making gradient descent optimal for strongly
convex stochastic optimization"): E F(W_T) − F(W*) ≤ 2β G_R² / (λ² T) when E‖ĝ_t‖² ≤ G_R², applied
to Algorithm 1's step ĝ_t = (1/m) Σ_j ∇ℓ(W, x_j) + (σ/m) Σ_j Z_j, whose second moment is
‖∇F‖² + Var/m + d σ²/m.  Two corrections to the printed statement:

- the noise term is d σ² (Z_j ~ N(0, I_d) in line 5 of Algorithm 1, so E‖σ Z‖² = d σ²); the printed
  σ² is right only for d = 1 (or with σ² read as the noise's total variance);
- Rakhlin's "β-smooth with respect to W*" means F(W) − F(W*) ≤ (β/2)‖W − W*‖² on W, which a
  β-smooth F satisfies when ∇F(W*) = 0: the minimizer over W must be interior.
T is the number of rounds Algorithm 1 runs, floor(n/m) (the printed n/m when m divides n).

:func:`corollary_1_table` sets the bound beside a sweep's measured test loss.
:func:`least_squares_constants` computes (β, λ, D, G², min F) for linear least squares,
ℓ(w; x, y) = (w·x − y)²/2, with P_X the empirical distribution of given rows: the exact
Hessian Σ = E x xᵀ (β, λ its extreme eigenvalues), D and G² as upper bounds over ball(ρ).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..base.validation import nonnegative, positive, positive_integer, scalar_or_array
from .data import FederatedData
from .frontier import mean_over_seeds

__all__ = [
    "LeastSquaresConstants",
    "corollary_1_table",
    "least_squares_constants",
    "strongly_convex_excess_loss_bound",
]


def strongly_convex_excess_loss_bound(
    *,
    smoothness: npt.ArrayLike,
    strong_convexity: npt.ArrayLike,
    gradient_norm: npt.ArrayLike,
    gradient_variance: npt.ArrayLike,
    sigma: npt.ArrayLike,
    batch_size: npt.ArrayLike,
    n: npt.ArrayLike,
    dimension: npt.ArrayLike,
) -> float | np.ndarray:
    r"""Paper 000 Corollary 1's bound on the trusted aggregator's expected excess loss.

    For a λ-strongly convex, β-smooth F with an interior minimizer, Algorithm 1 with
    :math:`\eta_t = 1/(\lambda t)` run for :math:`T = \lfloor n/m \rfloor` rounds releases
    :math:`W_T` with

    .. math::

        \mathbb{E} F(W_T) - \min F \le \frac{2\beta\,(D^2 + (G^2 + d\sigma^2)/m)}{\lambda^2 T}.

    The noise term is :math:`d\sigma^2` (paper 000 prints :math:`\sigma^2`, right for d = 1): each
    upload carries :math:`\mathcal{N}(0, \sigma^2 I_d)`. All arguments broadcast against each other.

    Parameters
    ----------
    smoothness : array_like
        β, the smoothness constant of F, finite and > 0.
    strong_convexity : array_like
        λ, the strong-convexity constant of F, finite, > 0 and <= β.
    gradient_norm : array_like
        D, a bound on ‖∇F‖ over the domain, finite and >= 0.
    gradient_variance : array_like
        G², a bound on the variance of one user's gradient over the domain, finite and >= 0.
    sigma : array_like
        The per-user noise standard deviation σ of Algorithm 1, finite and >= 0.
    batch_size : array_like
        m, users per round, an integer >= 1 and <= n.
    n : array_like
        Number of users, an integer >= 1.
    dimension : array_like
        d, the parameter dimension, an integer >= 1.

    Returns
    -------
    float or numpy.ndarray
        The bound on E F(W_T) − min F; a float for scalar arguments, else the broadcast array.

    Raises
    ------
    ValueError
        When a real argument is not finite or out of its range, an integer argument is not an
        integer >= 1, ``batch_size`` > ``n`` (no round is run) or ``strong_convexity`` >
        ``smoothness``.
    ParameterTypeError
        When an argument is a string, a bool or None.

    References
    ----------
    Paper 000, Corollary 1 (with the noise term d σ²); A. Rakhlin, O. Shamir, K. Sridharan, "Making
    gradient descent optimal for strongly convex stochastic optimization", 2012, Theorem 1.

    Examples
    --------
    >>> from hockeystick.simulate import strongly_convex_excess_loss_bound
    >>> round(float(strongly_convex_excess_loss_bound(smoothness=2.0, strong_convexity=1.0, gradient_norm=1.0,
    ...     gradient_variance=1.0, sigma=1.0, batch_size=10, n=100, dimension=3)), 6)
    0.56
    """
    beta = positive(smoothness, "smoothness")
    lam = positive(strong_convexity, "strong_convexity")
    d_norm = nonnegative(gradient_norm, "gradient_norm")
    variance = nonnegative(gradient_variance, "gradient_variance")
    noise = nonnegative(sigma, "sigma")
    m = positive_integer(batch_size, "batch_size")
    users = positive_integer(n, "n")
    d = positive_integer(dimension, "dimension")
    if np.any(m > users):
        raise ValueError(
            "batch_size must be <= n (Algorithm 1 runs floor(n / batch_size) >= 1 rounds)"
        )
    if np.any(lam > beta):
        raise ValueError(
            "strong_convexity must be <= smoothness (a function cannot curve more than it curves)"
        )
    rounds = np.floor_divide(users, m)
    moment = d_norm**2 + (variance + d * noise**2) / m
    return scalar_or_array(2.0 * beta * moment / (lam**2 * rounds))


@dataclass(frozen=True)
class LeastSquaresConstants:
    """Corollary 1's constants of F(w) = E (w·x − y)²/2 over rows (x, y) on ball(radius)."""

    smoothness: float  # β = largest eigenvalue of Σ = E x xᵀ
    strong_convexity: float  # λ = smallest eigenvalue of Σ
    gradient_norm: float  # D ≥ sup ‖Σ w − b‖ on the ball (b = E x y)
    gradient_variance: float  # G² ≥ sup E‖x (x·w − y) − ∇F(w)‖² on the ball
    minimum: float  # min F (attained inside the ball)
    minimizer: np.ndarray  # Σ⁻¹ b
    dimension: int

    def excess(self, value: npt.ArrayLike) -> np.ndarray:
        """F(w) − min F for measured values F(w)."""
        return np.asarray(value, dtype=float) - self.minimum


def least_squares_constants(
    features: npt.ArrayLike, labels: npt.ArrayLike, radius: float
) -> LeastSquaresConstants:
    r"""Corollary 1's constants β, λ, D, G² and min F for linear least squares on ball(radius).

    F(w) = E (w·x − y)²/2 under the rows' empirical distribution. With :math:`\Sigma = E\,x x^T`,
    :math:`b = E\,x y` and :math:`w^* = \Sigma^{-1} b`, :math:`F(w) - F(w^*) = (w - w^*)^T \Sigma
    (w - w^*)/2`, so β and λ are Σ's largest and smallest eigenvalues, and :math:`\|\nabla F(w)\| =
    \|\Sigma(w - w^*)\| \le \beta(\rho + \|w^*\|) = D`. The gradient's variance is the quadratic
    :math:`w^T M w - 2 c^T w + e` with :math:`M = E (x x^T - \Sigma)^2`, :math:`c = E (x x^T -
    \Sigma)(x y - b)`, :math:`e = E \|x y - b\|^2`, at most :math:`\|M\| \rho^2 + 2\|c\|\rho + e =
    G^2` on the ball.

    Parameters
    ----------
    features : array_like
        The rows x, shape (rows, d), at least one row.
    labels : array_like
        The targets y, shape (rows,).
    radius : float
        ρ, the radius of the domain ball, finite and > 0.

    Returns
    -------
    LeastSquaresConstants
        Fields ``smoothness`` (β), ``strong_convexity`` (λ), ``gradient_norm`` (D),
        ``gradient_variance`` (G²), ``minimum`` (min F), ``minimizer`` (w*) and ``dimension`` (d);
        its ``excess(value)`` is value − min F.

    Raises
    ------
    ValueError
        When the shapes do not match or there is no row, ``radius`` is not finite and > 0, Σ is
        singular (λ = 0: not strongly convex), or ‖w*‖ >= ``radius`` (Corollary 1 needs an interior
        minimizer).

    References
    ----------
    Paper 000, Corollary 1.
    """
    x = np.asarray(features, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    if x.ndim != 2 or y.shape != (x.shape[0],) or x.shape[0] == 0:
        raise ValueError("features must be (rows, d) and labels (rows,), with at least one row")
    rho = float(positive(radius, "radius"))
    rows = x.shape[0]
    sigma = x.T @ x / rows
    b = x.T @ y / rows
    eigen = np.linalg.eigvalsh(sigma)
    lam, beta = float(eigen[0]), float(eigen[-1])
    if not lam > 0:
        raise ValueError(
            "the rows' second-moment matrix is singular: least squares is not strongly convex "
            "(Corollary 1 needs lambda > 0); use more rows than features, or other rows"
        )
    minimizer = np.linalg.solve(sigma, b)
    if not np.linalg.norm(minimizer) < rho:
        raise ValueError(
            f"the least-squares minimizer has norm {np.linalg.norm(minimizer):.6g} >= radius {rho:g}: "
            "Corollary 1 needs the minimizer inside the ball; raise radius"
        )
    centred = x[:, :, None] * x[:, None, :] - sigma  # x xᵀ − Σ per row
    shift = x * y[:, None] - b  # x y − b per row
    m_matrix = np.einsum("rij,rjk->ik", centred, centred) / rows
    c_vector = (
        np.einsum("rij,ri->j", centred, shift) / rows
    )  # E (x xᵀ − Σ)ᵀ (x y − b); symmetric x xᵀ − Σ
    e_value = float(np.mean(np.einsum("ri,ri->r", shift, shift)))
    variance = (
        float(np.linalg.eigvalsh(m_matrix)[-1]) * rho**2
        + 2.0 * float(np.linalg.norm(c_vector)) * rho
        + e_value
    )
    residual = x @ minimizer - y
    return LeastSquaresConstants(
        smoothness=beta,
        strong_convexity=lam,
        gradient_norm=beta * (rho + float(np.linalg.norm(minimizer))),
        gradient_variance=variance,
        minimum=float(np.mean(residual**2) / 2.0),
        minimizer=minimizer,
        dimension=x.shape[1],
    )


def corollary_1_table(rows: Any, population: FederatedData, *, n: int) -> Any:
    """Corollary 1's bound beside the measured test loss, one row per trusted-aggregator configuration.

    ``rows``: a sweep's rows of ``trusted_aggregator`` runs; only configurations with Corollary 1's
    schedule (``schedule="inverse_t"``, so lambda = 1/rate), no clipping and a linear model qualify,
    and only where 1/rate <= the population's lambda (a smaller lambda is still a strong-convexity
    constant; a larger one is not).  ``population``: the data standing in for P_X (a held-out test
    set: its empirical distribution; the runs' ``test_loss`` is F on it).  ``n``: users trained on.
    Columns: the configuration, epsilon, ``test_loss_mean`` over seeds, ``minimum`` (min F),
    ``measured_excess``, ``bound`` (on the excess) and ``bound_loss`` = minimum + bound.
    """
    import pandas as pd  # lazy: optional extra (pandas)

    frame = pd.DataFrame(rows)
    columns = ["epsilon", "test_loss_mean", "minimum", "measured_excess", "bound", "bound_loss"]
    if population.model != "linear" or frame.empty or "schedule" not in frame:
        return pd.DataFrame(columns=columns)
    clip = frame["clip"] if "clip" in frame else pd.Series(np.inf, index=frame.index)
    chosen = frame[(frame["schedule"] == "inverse_t") & np.isinf(clip.astype(float))]
    if chosen.empty:
        return pd.DataFrame(columns=columns)
    summary = mean_over_seeds(chosen)
    out = []
    for record in summary.to_dict("records"):
        constants = least_squares_constants(
            population.features, population.labels, float(record["radius"])
        )
        lam = 1.0 / float(record["rate"])
        if lam > constants.strong_convexity:
            continue
        bound = float(
            strongly_convex_excess_loss_bound(
                smoothness=constants.smoothness,
                strong_convexity=lam,
                gradient_norm=constants.gradient_norm,
                gradient_variance=constants.gradient_variance,
                sigma=float(record["sigma"]),
                batch_size=int(record["batch"]),
                n=n,
                dimension=constants.dimension,
            )
        )
        out.append(
            {
                **record,
                "minimum": constants.minimum,
                "measured_excess": record["test_loss_mean"] - constants.minimum,
                "bound": bound,
                "bound_loss": constants.minimum + bound,
            }
        )
    return pd.DataFrame(out) if out else pd.DataFrame(columns=columns)
