"""The privacy guarantee of a simulated configuration, computed from the numerics core.

Each function returns a :class:`Guarantee`, which follows the accountant contract
(``.delta(epsilon)``, ``.epsilon(delta)``, vectorized, an upper bound on delta) and says where its
formula comes from and whether it is a proven bound or a paper claim resting on an unchecked
condition.

TODO(delegate): these are the one-line formulas the simulator needs, written against hs.theta
directly because the accountant families are not merged yet. Once ``hockeystick.contraction``
(papers 000, 002) and ``hockeystick.fdp`` (paper 004) land, each function below should become a
thin call into them with the same signature, and this module should shrink to that glue.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from numpy.typing import ArrayLike

import hockeystick as hs


@dataclass(frozen=True)
class Guarantee:
    """A privacy profile delta(epsilon) of one run configuration.

    ``delta_of_epsilon`` maps a 1-D float array of epsilons to the deltas (vectorized);
    ``epsilon_of_delta`` likewise, when a closed-form inverse exists (else bisection)."""

    name: str
    source: str
    proven: bool
    delta_of_epsilon: Callable[[np.ndarray], np.ndarray] = field(repr=False)
    epsilon_of_delta: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False)

    def delta(self, epsilon: ArrayLike) -> float | np.ndarray:
        """Upper bound on delta at each epsilon >= 0."""
        e = np.asarray(epsilon, dtype=float)
        if np.any(~np.isfinite(e)) or np.any(e < 0):
            raise ValueError("epsilon must be finite and >= 0")
        out = np.asarray(self.delta_of_epsilon(e.ravel()), dtype=float).reshape(e.shape)
        return float(out) if out.ndim == 0 else out

    def epsilon(self, delta: ArrayLike) -> float | np.ndarray:
        """Smallest epsilon (to 1e-12 relative, rounded up) whose delta bound is <= delta, delta in (0, 1)."""
        d = np.asarray(delta, dtype=float)
        if np.any(~(d > 0)) or np.any(~(d < 1)):
            raise ValueError("delta must be in (0, 1)")
        solve = self.epsilon_of_delta or self._bisect
        out = np.asarray(solve(d.ravel()), dtype=float).reshape(d.shape)
        return float(out) if out.ndim == 0 else out

    def _bisect(self, target: np.ndarray) -> np.ndarray:
        """Vectorized bisection on the non-increasing delta(eps); keeps delta(hi) <= target throughout."""
        f = self.delta_of_epsilon
        lo = np.zeros_like(target)
        hi = np.ones_like(target)
        done = f(lo) <= target
        hi[done] = 0.0
        for _ in range(60):  # grow hi until delta(hi) <= target (eps up to 2^60: inf beyond)
            grow = (f(hi) > target) & ~done
            if not grow.any():
                break
            lo[grow] = hi[grow]
            hi[grow] *= 2.0
        hi[f(hi) > target] = math.inf
        active = np.isfinite(hi) & (hi > 0)
        for _ in range(200):
            width = hi - lo
            active &= width > 1e-12 * np.maximum(1.0, hi)
            if not active.any():
                break
            mid = np.where(active, 0.5 * (lo + hi), hi)
            below = f(mid) <= target
            hi = np.where(active & below, mid, hi)
            lo = np.where(active & ~below, mid, lo)
        return hi


def gaussian_dp(mu: float, name: str, source: str, proven: bool) -> Guarantee:
    """mu-GDP as a profile: delta(eps) = theta_eps(mu) (paper 004 Lemma 7, eq. 8)."""
    return Guarantee(name, source, proven, lambda e: hs.theta(mu, e), lambda d: hs.theta_epsilon(mu, d))


def contraction_factor(eta: float, smoothness: float, strong_convexity: float) -> float:
    """M = sqrt(1 - 2 eta beta rho / (beta + rho)) (paper 002 eq. 14), the Lipschitz constant of
    y -> y - eta grad l(y) for a beta-smooth rho-strongly convex loss; needs eta <= 2/(beta + rho)."""
    total = smoothness + strong_convexity
    if total > 0 and eta > 2.0 / total:
        raise ValueError(f"eta must be <= 2/(beta + rho) = {2.0 / total:.6g} for a contraction, got {eta}")
    if total == 0:
        return 1.0
    return math.sqrt(max(0.0, 1.0 - 2.0 * eta * smoothness * strong_convexity / total))


def pnsgd_gaussian(lipschitz: float, sigma: float, eta: float, diameter: float, contraction: float,
                   n: int, i: int) -> Guarantee:
    """Paper 002 Theorem 4: delta = theta_eps(2L/sigma) theta_eps(M D / (eta sigma))^(n - i)."""
    a = 2.0 * lipschitz / sigma
    b = contraction * diameter / (eta * sigma)

    def delta(e: np.ndarray) -> np.ndarray:
        if b == 0 and n > i:
            return np.zeros_like(e)
        return np.exp(hs.log_theta(a, e) + ((n - i) * hs.log_theta(b, e) if n > i else 0.0))

    return Guarantee(f"PNSGD Gaussian, input {i} of {n}", "paper 002 Theorem 4", True, delta)


def pnsgd_laplace(lipschitz: float, scale: float, eta: float, diameter: float, contraction: float,
                  n: int, i: int) -> Guarantee:
    """Paper 002 Theorem 3 (K = [a, b], one dimension), via Lemma 1 (hs.laplace_hockey_stick):
    delta = E(shift 2L eta, scale eta v) E(shift M (b - a), scale eta v)^(n - i)."""
    def delta(e: np.ndarray) -> np.ndarray:
        first = hs.laplace_hockey_stick(2.0 * lipschitz, scale, e)
        rest = hs.laplace_hockey_stick(contraction * diameter, eta * scale, e)
        return first * rest ** (n - i)

    return Guarantee(f"PNSGD Laplace, input {i} of {n}", "paper 002 Theorem 3", True, delta)


def pnsgd_random_stop(lipschitz: float, sigma: float, eta: float, diameter: float,
                      contraction: float, n: int) -> Guarantee:
    """Paper 002 Theorem 5: delta = (1/n) theta_eps(2L/sigma) / (1 - theta_eps(M D/(eta sigma)))."""
    a = 2.0 * lipschitz / sigma
    b = contraction * diameter / (eta * sigma)
    return Guarantee(f"PNSGD Gaussian, random stop in [1, {n}]", "paper 002 Theorem 5", True,
                     lambda e: hs.theta(a, e) / (n * (1.0 - hs.theta(b, e))))


def trusted_aggregator(lipschitz: float, sigmas: np.ndarray, etas: np.ndarray, radius: float,
                       batch: int, n_users: int, nonexpansive: bool) -> Guarantee:
    """Paper 000 Theorem 2 (user-level, hidden intermediate models):
    delta = (m/n) sum_t theta(2L/(sqrt(m) sigma_t)) prod_{j>t} theta(D_j sqrt(m)/(eta_j sigma_j)),
    D_j = 2 rho when the gradient step is non-expansive (convex, beta-smooth, eta_j <= 2/beta),
    else the relaxation stated after Theorem 2, D_j = 2 (rho + eta_j L)."""
    sigmas = np.asarray(sigmas, float)
    etas = np.asarray(etas, float)
    root = math.sqrt(batch)
    first = 2.0 * lipschitz / (root * sigmas)
    diam = 2.0 * radius if nonexpansive else 2.0 * (radius + etas * lipschitz)
    later = diam * root / (etas * sigmas)

    def delta(e: np.ndarray) -> np.ndarray:
        # Horner form of the sum: S_t = S_{t-1} theta(later_t) + theta(first_t), delta = (m/n) S_T
        total = np.zeros_like(e)
        for t in range(first.shape[0]):
            total = total * hs.theta(later[t], e) + hs.theta(first[t], e)
        return batch / n_users * total

    return Guarantee("trusted aggregator", "paper 000 Theorem 2", True, delta)


def fedprox_sensitivities(etas: np.ndarray, smoothness: float, proximal: float, clip: float,
                          n_clients: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-round (rho_t, gamma_t) of noisy FedProx (FedAvg when proximal = 0), paper 004 eq. 12-16:
    ||phi(w) - phi'(w')|| <= rho_t ||w - w'|| + gamma_t. From the local step
    w_{k+1} = w_k - eta_k (g(w_k) + alpha (w_k - w_t)) with g beta-Lipschitz and ||g - g'|| <= 2V:
      model:  x_{k+1} = (|1 - eta_k alpha| + eta_k beta) x_k + eta_k alpha, x_0 = 1, rho_t = x_K
      data:   gamma_t = (2V/m) sum_k eta_k prod_{j>k} |1 - eta_j alpha|
    With alpha = 0 these are rho_t = prod (1 + eta_k beta), gamma_t = (2V/m) sum_k eta_k (eq. 30);
    with a constant rate they equal the closed forms of Lemmas 22-23."""
    etas = np.atleast_2d(np.asarray(etas, float))
    rho = np.ones(etas.shape[0])
    gamma = np.zeros(etas.shape[0])
    for k in range(etas.shape[1]):
        eta = etas[:, k]
        decay = np.abs(1.0 - eta * proximal)
        rho = (decay + eta * smoothness) * rho + eta * proximal
        gamma = decay * gamma + eta
    return rho, 2.0 * clip / n_clients * gamma


def shifted_interpolation(rho: np.ndarray, gamma: np.ndarray, n_clients: int, sigma: float) -> Guarantee:
    """Paper 004 eq. 16: mu = sqrt(m H_0)/sigma, H_0 = (sum_t P_t gamma_t)^2 / sum_t P_t^2,
    P_t = prod_{j=t+1}^{T-1} rho_j (computed in logs, so T = 10^4 rounds of rho > 1 do not overflow).
    A paper claim: H_0 rests on the feasibility condition eq. 41, which the paper never checks."""
    log_rho = np.log(rho)
    log_p = np.concatenate([np.cumsum(log_rho[::-1])[::-1][1:], [0.0]])
    p = np.exp(log_p - log_p.max())
    h0 = np.sum(p * gamma) ** 2 / np.sum(p * p)
    mu = math.sqrt(n_clients * h0) / sigma
    return gaussian_dp(mu, f"final model, shifted interpolation (mu = {mu:.6g})",
                       "paper 004 eq. 16 (H_0; feasibility eq. 41 unchecked)", False)


def composition(gamma: np.ndarray, n_clients: int, sigma: float) -> Guarantee:
    """Every round released: GDP composition of the per-round Gaussian mechanisms,
    mu = sqrt(m sum_t gamma_t^2)/sigma (paper 004's lambda = 1 baseline; always valid)."""
    mu = math.sqrt(n_clients * float(np.sum(np.square(gamma)))) / sigma
    return gaussian_dp(mu, f"all rounds, GDP composition (mu = {mu:.6g})", "paper 004 eq. 16, lambda = 1", True)


def isrl_composition(clip: float, sigma: float, releases: int) -> Guarantee:
    """ISRL-DP of one silo's transcript (paper 003), without subsampling amplification: each
    release is a Gaussian mechanism on a mean of clipped gradients whose replace-one sensitivity is
    at most 2V (a with-replacement batch may draw the changed record every time), so
    mu = 2 V sqrt(releases) / sigma. A valid but loose baseline: the tight figure needs the
    with-replacement subsampled-Gaussian PLD (hockeystick.pld), to delegate to once it lands."""
    mu = 2.0 * clip * math.sqrt(releases) / sigma
    return gaussian_dp(mu, f"silo transcript, GDP composition without amplification (mu = {mu:.6g})",
                       "paper 003 ISRL-DP; Gaussian mechanism composed", True)
