"""The privacy guarantee of a simulated configuration, from the library's accountants.

Each function returns a :class:`Guarantee`: an accountant (``.delta(epsilon)``, ``.epsilon(delta)``,
vectorized upper bounds) from ``hockeystick.contraction`` (papers 000, 002) or
``hockeystick.fdp`` (paper 004, GDP), labelled with its source. The only formula computed here is
the per-round sensitivity recursion of noisy FedProx for arbitrary learning-rate schedules, which
feeds ``hockeystick.fdp.interpolation_bound``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from hockeystick import contraction, fdp, pld


@dataclass(frozen=True)
class Guarantee:
    """A privacy profile of one run configuration: an accountant with a name and its source."""

    name: str
    source: str
    proven: bool
    accountant: Any = field(repr=False)

    def delta(self, epsilon: ArrayLike) -> float | np.ndarray:
        """Upper bound on delta at each epsilon >= 0."""
        return self.accountant.delta(epsilon)

    def epsilon(self, delta: ArrayLike) -> float | np.ndarray:
        """Smallest epsilon whose delta bound is <= delta, for delta in (0, 1)."""
        return self.accountant.epsilon(delta)


def gaussian_dp(mu: float, name: str, source: str) -> Guarantee:
    """mu-GDP: delta(eps) = theta_eps(mu) (paper 004 Lemma 7, eq. 8)."""
    return Guarantee(name, source, True, fdp.GaussianDP(mu))


def pnsgd(
    *,
    noise: str,
    scale: float,
    learning_rate: float,
    lipschitz: float,
    smoothness: float,
    strong_convexity: float,
    diameter: float,
    n: int,
    index: int | None,
    random_stop: bool,
) -> Guarantee:
    """Paper 002: Theorem 4 (Gaussian), Theorem 3 (Laplace, K an interval), Theorem 5 (Gaussian,
    random stop; the finite sum its proof bounds). ``index`` None = the worst record
    (i = n without random stop, i = 1 with it), which bounds every record."""
    common: dict[str, Any] = dict(
        learning_rate=learning_rate,
        lipschitz=lipschitz,
        smoothness=smoothness,
        strong_convexity=strong_convexity,
        diameter=diameter,
        n=n,
    )
    if random_stop:
        return Guarantee(
            f"PNSGD Gaussian, random stop in [1, {n}]",
            "paper 002 Theorem 5",
            True,
            contraction.PNSGDRandomStop(sigma=scale, index=index, **common),
        )
    i = n if index is None else index
    if noise == "gaussian":
        return Guarantee(
            f"PNSGD Gaussian, input {i} of {n}",
            "paper 002 Theorem 4",
            True,
            contraction.PNSGDGaussian(sigma=scale, index=i, **common),
        )
    return Guarantee(
        f"PNSGD Laplace, input {i} of {n}",
        "paper 002 Theorem 3",
        True,
        contraction.PNSGDLaplace(scale=scale, index=i, **common),
    )


def trusted_aggregator(
    *,
    lipschitz: float,
    sigmas: np.ndarray,
    etas: np.ndarray,
    radius: float,
    batch: int,
    n_users: int,
    smoothness: float,
    nonexpansive: bool,
    suffix: float | None = None,
) -> Guarantee:
    """Paper 000 Theorem 2 with per-round eta_t, sigma_t (user level, hidden intermediate models);
    diameter 2 rho when the gradient step is non-expansive, else the relaxation 2(rho + eta_t L).
    ``suffix`` alpha (not None): the model released at a uniformly random round of {max(1,
    ceil(alpha T)), ..., T}, Corollary 3's double sum (alpha = 0) or its alpha-suffix form."""
    common: dict[str, Any] = dict(
        n=n_users,
        batch_size=batch,
        sigma=sigmas,
        learning_rate=etas,
        lipschitz=lipschitz,
        radius=radius,
        smoothness=smoothness if nonexpansive else None,
        nonconvex=not nonexpansive,
    )
    kind = "" if nonexpansive else ", diameter 2(rho + eta L)"
    if suffix is None:
        return Guarantee(
            f"trusted aggregator{kind}",
            "paper 000 Theorem 2",
            True,
            contraction.TrustedAggregatorSchedule(**common),
        )
    stop = "random stop" if suffix == 0 else f"random stop in the last {1 - suffix:g} of the rounds"
    return Guarantee(
        f"trusted aggregator, {stop}{kind}",
        "paper 000 Corollary 3",
        True,
        contraction.RandomStopTrustedAggregatorSchedule(suffix=suffix, **common),
    )


def fedprox_sensitivities(
    etas: np.ndarray, smoothness: float, proximal: float, clip: float, n_clients: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per-round (rho_t, gamma_t) of noisy FedProx (FedAvg when proximal = 0), paper 004 eq. 12-16:
    ||phi(w) - phi'(w')|| <= rho_t ||w - w'|| + gamma_t. From the local step
    w_{k+1} = w_k - eta_k (g(w_k) + alpha (w_k - w_t)) with g beta-Lipschitz and ||g - g'|| <= 2V:
      model:  x_{k+1} = (|1 - eta_k alpha| + eta_k beta) x_k + eta_k alpha, x_0 = 1, rho_t = x_K
      data:   gamma_t = (2V/m) sum_k eta_k prod_{j>k} |1 - eta_j alpha|
    With alpha = 0 these are fdp.rounds_from_learning_rates (Lemmas 20-21); with a constant rate
    they equal the closed forms of Lemmas 22-23, for any schedule the exact sums."""
    etas = np.atleast_2d(np.asarray(etas, float))
    rho = np.ones(etas.shape[0])
    gamma = np.zeros(etas.shape[0])
    for k in range(etas.shape[1]):
        eta = etas[:, k]
        decay = np.abs(1.0 - eta * proximal)
        rho = (decay + eta * smoothness) * rho + eta * proximal
        gamma = decay * gamma + eta
    return rho, 2.0 * clip / n_clients * gamma


def last_iterate(
    rho: np.ndarray, gamma: np.ndarray, n_clients: int, sigma: float
) -> list[Guarantee]:
    """Paper 004's shifted interpolation via fdp.interpolation_bound: the final model's mu-GDP with
    the optimal admissible weights (valid; the paper's H_0 is not, see docs/paper-004-errata.md),
    and the GDP composition over every round (lambda = 1)."""
    h = fdp.interpolation_bound(rho, gamma)
    mu_final = math.sqrt(n_clients * float(h.h_optimal)) / sigma
    mu_all = math.sqrt(n_clients * float(h.h_composition)) / sigma
    return [
        gaussian_dp(
            mu_final,
            f"final model, shifted interpolation (mu = {mu_final:.6g})",
            "paper 004 eq. 15, optimal admissible lambda (fdp.interpolation_bound)",
        ),
        gaussian_dp(
            mu_all,
            f"all rounds, GDP composition (mu = {mu_all:.6g})",
            "paper 004 eq. 16, lambda = 1",
        ),
    ]


def isrl_composition(clip: float, sigma: float, releases: int) -> Guarantee:
    """ISRL-DP of one silo's transcript (paper 003) without any credit for sampling: each release
    is a Gaussian mechanism on a mean of clipped gradients whose replace-one sensitivity is at
    most 2V (a with-replacement batch may draw the changed record every time), so
    mu = 2 V sqrt(releases) / sigma. Valid for any batch and any sampling, and loose."""
    mu = 2.0 * clip * math.sqrt(releases) / sigma
    return gaussian_dp(
        mu,
        f"silo transcript, GDP composition without amplification (mu = {mu:.6g})",
        "paper 003 ISRL-DP; Gaussian mechanism composed",
    )


# The PLD guarantees use a coarser grid than the library default: a run's summary needs a
# certified upper bound, not the last digit, and it must not cost seconds per run.
PLD_INTERVAL = 1e-3


def isrl_minibatch_rounds(
    clip: float, sigma: float, batch: int, rounds: int, silo_size: int
) -> Guarantee:
    """ISRL-DP of one silo's minibatch-SGD transcript (paper 003, Algorithm 2): each round the
    silo draws K = ``batch`` of its n records with replacement and releases the mean of their
    gradients clipped to V plus N(0, sigma^2 I); one record's contribution is V/K. Composed over
    all rounds by the certified PLD of pld.WithReplacementBatchGaussianPLD (its upper
    bound; the paper's own accounting, sensitivity 2V/K, ignores repeated draws and is not a
    bound: docs/paper-003-errata.md)."""
    accountant = pld.WithReplacementBatchGaussianPLD(
        sigma,
        batch,
        silo_size,
        rounds,
        sensitivity=clip / batch,
        value_discretization_interval=PLD_INTERVAL,
    )
    return Guarantee(
        f"silo transcript, with-replacement subsampled-Gaussian PLD over {rounds} rounds",
        "paper 003 ISRL-DP; PLD composition (hockeystick.pld)",
        True,
        accountant,
    )


def isrl_one_sample_steps(clip: float, sigma: float, steps: int, silo_size: int) -> Guarantee:
    """ISRL-DP of one silo's local-SGD transcript (paper 003, Appendix I): every step draws one of
    the silo's n records uniformly and adds N(0, sigma^2 I) to its clipped gradient (norm <= V),
    i.e. the replace-one subsampled Gaussian with a batch of 1 of n, composed over all steps by
    the certified PLD (the released local models are post-processing of these steps)."""
    accountant = pld.WithReplacementBatchGaussianPLD(
        sigma, 1, silo_size, steps, sensitivity=clip, value_discretization_interval=PLD_INTERVAL
    )
    return Guarantee(
        f"silo transcript, subsampled-Gaussian PLD over {steps} steps",
        "paper 003 ISRL-DP; PLD composition (hockeystick.pld)",
        True,
        accountant,
    )
