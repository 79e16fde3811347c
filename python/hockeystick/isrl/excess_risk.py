"""Paper 003's finite excess-risk bounds for Noisy MB-SGD (convex case): paper formulas.

Lemma D.6 (proof, before sigma is substituted): for a convex, L-Lipschitz, beta-smooth loss on a
domain of diameter D, constant step eta <= 1/beta and the uniform average of w_0..w_{R-1}
(gamma_r = 1/R), with M silos per round each adding N(0, sigma^2 I_d),

    E F_X(w_hat_R) - F_X* <= D^2 / (2 eta R) + (eta / 2) (d sigma^2 / M + L^2)          (empirical)

and, adding the uniform-stability term of Theorem D.1's proof, alpha = 2 L^2 R eta / (n M) (line
above eq. (17) in the appendix), the population bound

    E F(w_hat_R) - F* <= 2 L^2 R eta / (n M) + D^2 / (2 eta R) + (eta / 2) (d sigma^2 / M + L^2).

Substituting Theorem 2.1's sigma gives Lemma D.6 as stated.  (Theorem D.1's proof writes the last
term as eta L^2 / (2M) (... + 1), dividing the L^2 term by M too; the Lemma keeps eta L^2 / 2, the
larger of the two, which is what this function returns.)  These trade sigma against utility; they
are the paper's bounds, evaluated, not guarantees checked here.
"""

from __future__ import annotations

import numpy as np

from ..base.elementwise import ArrayLike, FloatOrArray, broadcast_float_arrays

__all__ = ["lemma_d6_excess_risk", "lemma_d6_best_step_size"]


def _check(named: dict[str, np.ndarray], integers: tuple[str, ...]) -> None:
    for name, values in named.items():
        ok = np.isfinite(values) & (values >= 0 if name == "sigma" else values > 0)
        if name in integers:
            ok &= values == np.floor(values)
        if not np.all(ok):
            rule = (
                "an integer >= 1" if name in integers else ("finite and >= 0" if name == "sigma" else "finite and > 0")
            )
            raise ValueError(f"{name} must be {rule}, got {values[~ok].ravel()[0]:g}")


def lemma_d6_excess_risk(
    *,
    lipschitz: ArrayLike,
    diameter: ArrayLike,
    step_size: ArrayLike,
    rounds: ArrayLike,
    sigma: ArrayLike,
    dimension: ArrayLike,
    silos_per_round: ArrayLike,
    smoothness: ArrayLike,
    silo_size: ArrayLike | None = None,
) -> FloatOrArray:
    """The convex excess-risk bound above: empirical, or population when ``silo_size`` (n) is given.
    Requires step_size <= 1/smoothness (the lemma's condition; ValueError otherwise)."""
    named = dict(
        lipschitz=lipschitz,
        diameter=diameter,
        step_size=step_size,
        rounds=rounds,
        sigma=sigma,
        dimension=dimension,
        silos_per_round=silos_per_round,
        smoothness=smoothness,
        silo_size=1.0 if silo_size is None else silo_size,
    )
    arrays, _, scalar = broadcast_float_arrays(**named)
    lip, diam, eta, r, sig, d, m, beta, n = arrays
    _check(dict(zip(named, arrays)), ("rounds", "dimension", "silos_per_round", "silo_size"))
    if np.any(eta * beta > 1):
        raise ValueError("step_size must be <= 1/smoothness (Lemma D.6 needs eta <= 1/beta)")
    bound = diam**2 / (2 * eta * r) + (eta / 2) * (d * sig**2 / m + lip**2)
    if silo_size is not None:
        bound = bound + 2 * lip**2 * r * eta / (n * m)
    return float(bound) if scalar else bound


def lemma_d6_best_step_size(
    *,
    lipschitz: ArrayLike,
    diameter: ArrayLike,
    rounds: ArrayLike,
    sigma: ArrayLike,
    dimension: ArrayLike,
    silos_per_round: ArrayLike,
    smoothness: ArrayLike,
    silo_size: ArrayLike | None = None,
) -> FloatOrArray:
    """The eta minimizing the bound, capped at 1/smoothness: with A = D^2 / (2R) and
    B = (d sigma^2 / M + L^2) / 2 (+ 2 L^2 R / (n M) for the population bound), eta* = sqrt(A / B)."""
    (lip, diam, r, sig, d, m, beta, n), _, scalar = broadcast_float_arrays(
        lipschitz=lipschitz,
        diameter=diameter,
        rounds=rounds,
        sigma=sigma,
        dimension=dimension,
        silos_per_round=silos_per_round,
        smoothness=smoothness,
        silo_size=1.0 if silo_size is None else silo_size,
    )
    _check(
        dict(
            lipschitz=lip,
            diameter=diam,
            rounds=r,
            sigma=sig,
            dimension=d,
            silos_per_round=m,
            smoothness=beta,
            silo_size=n,
        ),
        ("rounds", "dimension", "silos_per_round", "silo_size"),
    )
    slope = (d * sig**2 / m + lip**2) / 2 + (0.0 if silo_size is None else 2 * lip**2 * r / (n * m))
    eta = np.minimum(np.sqrt(diam**2 / (2 * r) / slope), 1 / beta)
    return float(eta) if scalar else eta
