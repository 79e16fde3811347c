"""Paper 003's noise calibrations as written (Lowy & Razaviyayn, "Private federated learning
without a trusted server", ISRL-DP): paper formulas, not guarantees.

Each function evaluates one of the paper's prescriptions with numpy broadcasting and enforces the
validity range the paper states (a ValueError outside it).  Whether the prescribed noise really
gives the stated (eps0, delta0) is a separate question, answered by :mod:`hockeystick.isrl.noisy_mb_sgd`
(certified PLD accounting of the same silo transcript); docs/paper-003-errata.md compares the two:
the theory calibrations are valid but about 5 times too noisy, App. I's is false for eps >= 1.5.

Symbols: L the Lipschitz constant (gradient norm bound), R rounds, n records per silo, K the
per-round batch drawn with replacement, (eps0, delta0) the ISRL-DP target.
"""

from __future__ import annotations

import numpy as np

from ..base.elementwise import ArrayLike, FloatOrArray, broadcast_float_arrays

__all__ = [
    "theorem_2_1_sigma",
    "theorem_2_1_batch_size",
    "appendix_i_sigma",
    "appendix_i_batch_size",
    "theorem_3_1_sigma",
    "theorem_3_1_rounds",
    "user_level_group_privacy",
    "theorem_d5_round",
]


def _finite_positive(**named: np.ndarray) -> None:
    for name, values in named.items():
        bad = ~(np.isfinite(values) & (values > 0))
        if np.any(bad):
            raise ValueError(f"{name} must be finite and > 0, got {values[bad].ravel()[0]:g}")


def _delta(delta: np.ndarray) -> None:
    bad = ~((delta > 0) & (delta < 1))
    if np.any(bad):
        raise ValueError(f"delta must lie strictly between 0 and 1, got {delta[bad].ravel()[0]:g}")


def _integers(**named: np.ndarray) -> None:
    for name, values in named.items():
        bad = ~(np.isfinite(values) & (values >= 1) & (values == np.floor(values)))
        if np.any(bad):
            raise ValueError(f"{name} must be an integer >= 1, got {values[bad].ravel()[0]:g}")


def _out(values: np.ndarray, scalar: bool) -> FloatOrArray:
    return float(values) if scalar else values


def theorem_2_1_sigma(
    *, lipschitz: ArrayLike, rounds: ArrayLike, silo_size: ArrayLike, epsilon: ArrayLike, delta: ArrayLike
) -> FloatOrArray:
    """Noisy MB-SGD's sigma by Theorem 2.1 / D.1 (and per silo, Theorem H.1: pass arrays of
    silo sizes and targets): paper formula, not a guarantee.

        sigma^2 = 256 L^2 R ln(2.5 R / delta0) ln(2 / delta0) / (n^2 eps0^2),

    valid as stated for eps0 <= 2 ln(2 / delta0) and K >= :func:`theorem_2_1_batch_size`.
    """
    (lip, r, n, eps, dlt), _, scalar = broadcast_float_arrays(
        lipschitz=lipschitz, rounds=rounds, silo_size=silo_size, epsilon=epsilon, delta=delta
    )
    _finite_positive(lipschitz=lip, epsilon=eps)
    _integers(rounds=r, silo_size=n)
    _delta(dlt)
    over = eps > 2 * np.log(2 / dlt)
    if np.any(over):
        raise ValueError(
            f"epsilon must be <= 2 ln(2/delta) for Theorem 2.1, got {eps[over].ravel()[0]:g} "
            f"(limit {2 * np.log(2 / dlt[over].ravel()[0]):g})"
        )
    return _out(np.sqrt(256 * lip**2 * r * np.log(2.5 * r / dlt) * np.log(2 / dlt)) / (n * eps), scalar)


def theorem_2_1_batch_size(
    *, rounds: ArrayLike, silo_size: ArrayLike, epsilon: ArrayLike, delta: ArrayLike
) -> FloatOrArray:
    """The smallest batch Theorem 2.1 / D.1 allows: K = ceil(eps0 n / (4 sqrt(2 R ln(2/delta0)))),
    at least 1 (an integer, as a float array for array input). Paper formula, not a guarantee."""
    (r, n, eps, dlt), _, scalar = broadcast_float_arrays(
        rounds=rounds, silo_size=silo_size, epsilon=epsilon, delta=delta
    )
    _finite_positive(epsilon=eps)
    _integers(rounds=r, silo_size=n)
    _delta(dlt)
    return _out(np.maximum(1.0, np.ceil(eps * n / (4 * np.sqrt(2 * r * np.log(2 / dlt))))), scalar)


def appendix_i_sigma(
    *,
    lipschitz: ArrayLike,
    rounds: ArrayLike,
    silo_size: ArrayLike,
    epsilon: ArrayLike,
    delta: ArrayLike,
    local_steps: ArrayLike = 1,
) -> FloatOrArray:
    """The experiments' sigma (App. I, "by Theorem 1 of Abadi et al.", 2016): paper formula, and FALSE as a
    rule for L-Lipschitz losses once eps >= 1.5 (docs/paper-003-errata.md, section 3).

        sigma^2 = 8 L^2 ln(1/delta) R K_local / (n^2 eps^2)

    with K_local = ``local_steps`` for ISRL-DP local SGD (App. I, last paragraph) and 1 for MB-SGD.
    """
    (lip, r, n, eps, dlt, k), _, scalar = broadcast_float_arrays(
        lipschitz=lipschitz, rounds=rounds, silo_size=silo_size, epsilon=epsilon, delta=delta, local_steps=local_steps
    )
    _finite_positive(lipschitz=lip, epsilon=eps)
    _integers(rounds=r, silo_size=n, local_steps=k)
    _delta(dlt)
    return _out(np.sqrt(8 * lip**2 * np.log(1 / dlt) * r * k) / (n * eps), scalar)


def appendix_i_batch_size(*, rounds: ArrayLike, silo_size: ArrayLike, epsilon: ArrayLike) -> FloatOrArray:
    """The experiments' batch (App. I): K = n sqrt(eps) / (2 sqrt(R)), rounded to the nearest
    integer (at least 1), as in the errata's table. Paper formula, not a guarantee."""
    (r, n, eps), _, scalar = broadcast_float_arrays(rounds=rounds, silo_size=silo_size, epsilon=epsilon)
    _finite_positive(epsilon=eps)
    _integers(rounds=r, silo_size=n)
    return _out(np.maximum(1.0, np.floor(n * np.sqrt(eps) / (2 * np.sqrt(r)) + 0.5)), scalar)


def theorem_3_1_sigma(
    *, lipschitz: ArrayLike, batch_size: ArrayLike, epsilon: ArrayLike, delta: ArrayLike
) -> FloatOrArray:
    """One-pass accelerated Noisy MB-SGD's sigma (Theorem 3.1 / E.1): paper formula, not a guarantee.

        sigma^2 = 32 L^2 ln(1.25 / delta0) / (eps0^2 K^2),   valid as stated for eps0 <= 8 ln(1/delta0),

    with disjoint batches (without replacement) and R = floor(n / K) rounds (:func:`theorem_3_1_rounds`).
    """
    (lip, k, eps, dlt), _, scalar = broadcast_float_arrays(
        lipschitz=lipschitz, batch_size=batch_size, epsilon=epsilon, delta=delta
    )
    _finite_positive(lipschitz=lip, epsilon=eps)
    _integers(batch_size=k)
    _delta(dlt)
    over = eps > 8 * np.log(1 / dlt)
    if np.any(over):
        raise ValueError(f"epsilon must be <= 8 ln(1/delta) for Theorem 3.1, got {eps[over].ravel()[0]:g}")
    return _out(np.sqrt(32 * lip**2 * np.log(1.25 / dlt)) / (eps * k), scalar)


def theorem_3_1_rounds(*, silo_size: ArrayLike, batch_size: ArrayLike) -> FloatOrArray:
    """R = floor(n / K): one pass over the silo in disjoint batches (Theorem 3.1)."""
    (n, k), _, scalar = broadcast_float_arrays(silo_size=silo_size, batch_size=batch_size)
    _integers(silo_size=n, batch_size=k)
    if np.any(k > n):
        raise ValueError("batch_size must be <= silo_size for one pass in disjoint batches")
    return _out(np.floor(n / k), scalar)


def user_level_group_privacy(
    *, epsilon: ArrayLike, delta: ArrayLike, silo_size: ArrayLike
) -> tuple[FloatOrArray, FloatOrArray]:
    """App. C.2: (eps0, delta0)-ISRL-DP implies (n eps0, n e^{(n-1) eps0} delta0) user-level DP, by
    group privacy over the silo's n records (Kamath 2020, Thm 10). Paper formula (valid, loose: the
    tight user-level answer for Noisy MB-SGD is :meth:`NoisyMBSGD.user_level`). The delta it gives
    may exceed 1, in which case the statement is void; it is returned as computed (inf on overflow)."""
    (eps, dlt, n), _, scalar = broadcast_float_arrays(epsilon=epsilon, delta=delta, silo_size=silo_size)
    if np.any(~(np.isfinite(eps) & (eps >= 0))):
        raise ValueError(f"epsilon must be finite and >= 0, got {eps[~(np.isfinite(eps) & (eps >= 0))].ravel()[0]:g}")
    _delta(dlt)
    _integers(silo_size=n)
    with np.errstate(over="ignore"):
        group_delta = n * np.exp((n - 1) * eps) * dlt
    return _out(n * eps, scalar), _out(group_delta, scalar)


def theorem_d5_round(
    *, epsilon0: ArrayLike, delta0: ArrayLike, silo_size: ArrayLike, silos: ArrayLike, delta: ArrayLike
) -> tuple[FloatOrArray, FloatOrArray]:
    """Theorem D.5, eq. (21) (one shuffled round; the bound Thm 5.1 / G.1 compose): N = ``silos``
    shuffled (eps0, delta0)-DP silo randomizers over n = ``silo_size`` records each are (eps_r, delta~_r)-DP,

        eps_r = ln[1 + (e^{eps0} - 1)/(e^{eps0} + 1) (8 sqrt(e^{n eps0} ln(4/delta)) / sqrt(N) + 8 e^{n eps0} / N)],
        delta~_r = delta + 2 N n e^{(n-1) eps0} delta0,

    valid for eps0 <= ln(N / (16 ln(2/delta))) / n (ValueError outside: in particular whenever
    N < 16 ln(2/delta), as at App. I's N = 25).  Paper formula (the certified numerical version is
    :class:`hockeystick.isrl.ShuffledNoisyMBSGD`)."""
    (e0, d0, n, big_n, dlt), _, scalar = broadcast_float_arrays(
        epsilon0=epsilon0, delta0=delta0, silo_size=silo_size, silos=silos, delta=delta
    )
    _finite_positive(epsilon0=e0)
    _delta(dlt)
    _delta(d0)
    _integers(silo_size=n, silos=big_n)
    limit = np.log(big_n / (16 * np.log(2 / dlt))) / n
    if np.any(~(e0 <= limit)):
        raise ValueError(
            f"epsilon0 must be <= ln(N / (16 ln(2/delta))) / n for Theorem D.5, got "
            f"{e0[~(e0 <= limit)].ravel()[0]:g} (limit {limit[~(e0 <= limit)].ravel()[0]:g})"
        )
    grow = np.exp(n * e0)
    eps_r = np.log1p(np.tanh(e0 / 2) * (8 * np.sqrt(grow * np.log(4 / dlt)) / np.sqrt(big_n) + 8 * grow / big_n))
    delta_r = dlt + 2 * big_n * n * np.exp((n - 1) * e0) * d0
    return _out(eps_r, scalar), _out(delta_r, scalar)
