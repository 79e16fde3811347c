"""Projected noisy SGD (paper 002, Algorithm 1, eq. 12), with Gaussian or Laplace noise and
optional random stopping (Theorem 5):

    Y_{t+1} = Pi_K(Y_t - eta [grad l(Y_t, x_{t+1}) + Z_{t+1}]),  t = 0..n-1,

one pass over the samples in their stored order, K the ball of diameter D around 0 (the interval
[-D/2, D/2] in one dimension). Many independent chains (replicas) run in parallel with prange;
that is what the Monte-Carlo check of the hockey-stick bound in :mod:`.empirical` uses.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import njit, prange

from . import privacy
from .data import FederatedData
from .models import (
    add_clipped_gradient,
    coefficient_count,
    model_code,
    parameter_size,
    smoothness_constants,
)
from .randomness import NOISE, SERVER, ClientStreams, generator
from .result import RunResult
from .rounds import run_rounds

STEP_CHUNK = 256  # steps whose noise is drawn at once: memory O(replicas x chunk x d)


@njit(cache=True)
def advance_chain(
    model, y, features, norms, labels, first, noise, scale, eta, radius, stop, stopped, coef, grad
):
    """Advance one chain y by noise.shape[0] steps from sample ``first``; copy y into stopped at step stop."""
    p = y.shape[0]
    for s in range(noise.shape[0]):
        i = first + s
        for j in range(p):
            grad[j] = 0.0
        add_clipped_gradient(model, y, features[i], norms[i], labels[i], np.inf, 1.0, coef, grad)
        norm2 = 0.0
        for j in range(p):
            y[j] -= eta * (grad[j] + scale * noise[s, j])
            norm2 += y[j] * y[j]
        norm = math.sqrt(norm2)
        if norm > radius:
            for j in range(p):
                y[j] *= radius / norm
        if i + 1 == stop:
            for j in range(p):
                stopped[j] = y[j]


@njit(parallel=True, cache=True)
def advance_chains(
    model, n_coef, chains, features, norms, labels, first, noise, scale, eta, radius, stop, stopped
):
    """Advance every chain by noise.shape[1] steps using samples first, first+1, ...; a chain whose
    stopping time stop[r] is reached copies its state into stopped[r]."""
    for r in prange(chains.shape[0]):
        advance_chain(
            model,
            chains[r],
            features,
            norms,
            labels,
            first,
            noise[r],
            scale,
            eta,
            radius,
            stop[r],
            stopped[r],
            np.empty(n_coef),
            np.empty(chains.shape[1]),
        )


def _check(data: FederatedData, rate: float, noise: str, scale: float, diameter: float) -> None:
    if noise not in ("gaussian", "laplace"):
        raise ValueError("noise must be 'gaussian' or 'laplace'")
    if not rate > 0 or not scale >= 0 or not diameter > 0:
        raise ValueError("need rate > 0, scale >= 0 and diameter > 0")
    if not all(map(math.isfinite, (rate, scale, diameter))):
        raise ValueError("rate, scale and diameter must be finite")


def pnsgd_guarantee(
    data: FederatedData,
    *,
    rate: float,
    noise: str,
    scale: float,
    diameter: float,
    random_stop: bool = False,
    record: int | None = None,
) -> privacy.Guarantee | None:
    r"""Paper 002's privacy bound for one record of projected noisy SGD in this configuration.

    The algorithm is

    .. math::

        Y_{t+1} = \Pi_K\bigl(Y_t - \eta\,[\nabla \ell(Y_t, x_{t+1}) + Z_{t+1}]\bigr),
        \quad t = 0, \dots, n - 1,

    one pass over the n samples of all clients in their stored order, K the ball of diameter D
    around 0, Z Gaussian :math:`\mathcal{N}(0, \sigma^2 I)` or Laplace with scale v per coordinate.
    The bound is Theorem 4 (Gaussian), Theorem 3 (Laplace, one parameter) or Theorem 5 (Gaussian,
    stopped at a uniformly random step, its finite sum), with the Lipschitz, smoothness and
    strong-convexity constants of the data's loss on the ball of radius D/2.

    Parameters
    ----------
    data : FederatedData
        The samples, visited once in their stored order.
    rate : float
        η, the step size, finite and > 0 (the guarantee needs η <= 2/(β + λ) of the data's loss).
    noise : {"gaussian", "laplace"}
        The noise distribution.
    scale : float
        σ for Gaussian noise, v for Laplace noise, finite and >= 0.
    diameter : float
        D, the diameter of the ball K, finite and > 0.
    random_stop : bool, default False
        The chain releases :math:`Y_\tau`, τ uniform on {1, ..., n}, instead of :math:`Y_n`.
    record : int, optional
        The record i (1-based, in [1, n]) the bound is for; default the worst-protected one (i = n,
        or i = 1 under random stopping), whose bound covers every record.

    Returns
    -------
    Guarantee or None
        An accountant (``.delta(eps)``, ``.epsilon(delta)``) with its name and source; None when
        ``scale`` is 0 or the paper gives no bound (Laplace noise with more than one parameter, or
        with random stopping).

    Raises
    ------
    ValueError
        When ``noise`` is unknown, ``rate`` or ``diameter`` is not finite and > 0, ``scale``
        is not finite and >= 0, ``record`` is outside [1, n], or ``rate`` > 2/(β + λ).

    References
    ----------
    Paper 002, Algorithm 1 (eq. 12), Theorems 3, 4 and 5.

    Examples
    --------
    >>> from hockeystick.simulate import pnsgd_guarantee, synthetic
    >>> data = synthetic("logistic", n_clients=2, samples_per_client=20, n_features=1)
    >>> bound = pnsgd_guarantee(data, rate=0.5, noise="gaussian", scale=1.0, diameter=1.0)
    >>> bound.source
    'paper 002 Theorem 4'
    """
    _check(data, rate, noise, scale, diameter)
    if scale == 0:
        return None
    n = data.features.shape[0]
    lipschitz, beta, strong = smoothness_constants(
        data.model, data.features, data.labels, diameter / 2
    )
    if noise == "laplace" and (
        parameter_size(data.model, data.n_features, data.n_classes) > 1 or random_stop
    ):
        return None
    return privacy.pnsgd(
        noise=noise,
        scale=scale,
        learning_rate=rate,
        lipschitz=lipschitz,
        smoothness=beta,
        strong_convexity=strong,
        diameter=diameter,
        n=n,
        index=record,
        random_stop=random_stop,
    )


def _draw(
    streams: ClientStreams, noise: str, shape: tuple[int, ...], out: np.ndarray
) -> np.ndarray:
    return (
        streams.standard_normal(shape, out) if noise == "gaussian" else streams.laplace(shape, out)
    )


def _stops(seed: int, replicas: int, n: int, random_stop: bool) -> np.ndarray:
    if not random_stop:
        return np.full(replicas, n, dtype=np.int64)
    return generator(seed, SERVER).integers(1, n + 1, size=replicas).astype(np.int64)


def pnsgd_final_iterates(
    data: FederatedData,
    *,
    rate: float,
    noise: str = "gaussian",
    scale: float,
    diameter: float,
    replicas: int,
    seed: int = 0,
    random_stop: bool = False,
    initial: np.ndarray | None = None,
    threads: int | None = None,
) -> np.ndarray:
    r"""The released iterate of ``replicas`` independent projected noisy SGD chains.

    Each chain runs

    .. math::

        Y_{t+1} = \Pi_K\bigl(Y_t - \eta\,[\nabla \ell(Y_t, x_{t+1}) + Z_{t+1}]\bigr),
        \quad t = 0, \dots, n - 1,

    one pass over the n samples of all clients in their stored order, K the ball of diameter D
    around 0, Z Gaussian :math:`\mathcal{N}(0, \sigma^2 I)` or Laplace with scale v per coordinate.
    The gradients are not clipped. Chain r's randomness depends only on (seed, r), not on the thread
    count; this is the sample the Monte-Carlo checks of paper 002's bounds use.

    Parameters
    ----------
    data : FederatedData
        The samples, visited once in their stored order.
    rate : float
        η, the step size, finite and > 0 (the guarantee needs η <= 2/(β + λ) of the data's loss).
    noise : {"gaussian", "laplace"}, default "gaussian"
        The noise distribution.
    scale : float
        σ for Gaussian noise, v for Laplace noise, finite and >= 0.
    diameter : float
        D, the diameter of the ball K, finite and > 0.
    replicas : int
        Number of independent chains, >= 1.
    seed : int, default 0
        Seed of the chains' noise and stopping times.
    random_stop : bool, default False
        Release :math:`Y_\tau`, τ uniform on {1, ..., n} drawn per chain, instead of :math:`Y_n`.
    initial : array_like, optional
        :math:`Y_0`, shape (p,), the same for every chain; default zeros.
    threads : int, optional
        numba's thread count (the result does not depend on it).

    Returns
    -------
    numpy.ndarray
        Shape (replicas, p): row r is chain r's released iterate.

    Raises
    ------
    ValueError
        When ``noise`` is unknown, ``rate`` or ``diameter`` is not finite and > 0, ``scale``
        is not finite and >= 0, or ``replicas`` < 1.

    References
    ----------
    Paper 002, Algorithm 1 (eq. 12) and Theorem 5.
    """
    _check(data, rate, noise, scale, diameter)
    if replicas < 1:
        raise ValueError("replicas must be >= 1")
    if threads is not None:
        numba.set_num_threads(threads)
    code = model_code(data.model)
    p = parameter_size(data.model, data.n_features, data.n_classes)
    n = data.features.shape[0]
    chains = (
        np.zeros((replicas, p))
        if initial is None
        else np.tile(np.asarray(initial, float), (replicas, 1))
    )
    stop = _stops(seed, replicas, n, random_stop)
    stopped = chains.copy()
    streams = ClientStreams(seed, NOISE, replicas, numba.get_num_threads())
    norms = data.row_norms
    try:
        for first in range(0, n, STEP_CHUNK):
            c = min(STEP_CHUNK, n - first)
            z = _draw(streams, noise, (c, p), np.empty((replicas, c, p)))
            advance_chains(
                code,
                coefficient_count(code, data.n_classes),
                chains,
                data.features,
                norms,
                data.labels,
                first,
                z,
                float(scale),
                float(rate),
                diameter / 2,
                stop,
                stopped,
            )
    finally:
        streams.close()
    return stopped


def pnsgd(
    data: FederatedData,
    *,
    rate: float,
    noise: str = "gaussian",
    scale: float,
    diameter: float,
    seed: int = 0,
    random_stop: bool = False,
    initial: np.ndarray | None = None,
    test: FederatedData | None = None,
    every: int | None = None,
    trajectory: bool = False,
    progress: bool = False,
) -> RunResult:
    r"""One projected noisy SGD chain with its metrics and paper 002's bound for its worst record.

    The chain runs

    .. math::

        Y_{t+1} = \Pi_K\bigl(Y_t - \eta\,[\nabla \ell(Y_t, x_{t+1}) + Z_{t+1}]\bigr),
        \quad t = 0, \dots, n - 1,

    one pass over the n samples of all clients in their stored order, K the ball of diameter D
    around 0, Z Gaussian :math:`\mathcal{N}(0, \sigma^2 I)` or Laplace with scale v per coordinate.
    The gradients are not clipped. The guarantee is :func:`pnsgd_guarantee`'s for the
    worst-protected record (i = n, or i = 1 under random stopping), which bounds every record.

    Parameters
    ----------
    data : FederatedData
        The samples, visited once in their stored order.
    rate : float
        η, the step size, finite and > 0 (the guarantee needs η <= 2/(β + λ) of the data's loss).
    noise : {"gaussian", "laplace"}, default "gaussian"
        The noise distribution.
    scale : float
        σ for Gaussian noise, v for Laplace noise, finite and >= 0.
    diameter : float
        D, the diameter of the ball K, finite and > 0.
    seed : int, default 0
        Seed of the noise and of the stopping time.
    initial : array_like, optional
        The starting parameters, shape (p,) (p = d, or C d for softmax), :math:`Y_0`; default zeros.
    test : FederatedData, optional
        Held-out data on which the metrics are also taken.
    every : int, optional
        Take the metrics every ``every`` steps (and at 0 and at the end), >= 1; default
        max(1, steps // 10).
    trajectory : bool, default False
        Keep every iterate in the result's ``trajectory``.
    progress : bool, default False
        Show a progress bar.
    random_stop : bool, default False
        Release :math:`Y_\tau`, τ uniform on {1, ..., n}, instead of :math:`Y_n`; the metrics run to
        τ.

    Returns
    -------
    RunResult
        The run (``config["steps"]`` is the number of steps taken); ``privacy`` holds the guarantee,
        or nothing where :func:`pnsgd_guarantee` gives None.

    Raises
    ------
    ValueError
        When ``noise`` is unknown, ``rate`` or ``diameter`` is not finite and > 0, ``scale``
        is not finite and >= 0, ``rate`` > 2/(β + λ) (the guarantee's condition), or
        ``every`` < 1.

    References
    ----------
    Paper 002, Algorithm 1 (eq. 12), Theorems 3, 4 and 5.
    """
    guarantee = pnsgd_guarantee(
        data, rate=rate, noise=noise, scale=scale, diameter=diameter, random_stop=random_stop
    )
    code = model_code(data.model)
    p = parameter_size(data.model, data.n_features, data.n_classes)
    n = data.features.shape[0]
    steps = int(_stops(seed, 1, n, random_stop)[0])
    w0 = np.zeros(p) if initial is None else np.array(initial, dtype=float)
    chain = w0[None, :].copy()
    stop = np.array([n + 1], dtype=np.int64)
    streams = ClientStreams(seed, NOISE, 1)
    buffer = np.empty((1, min(STEP_CHUNK, n), p))
    norms = data.row_norms

    def step(t: int) -> np.ndarray:  # noise drawn in the same chunks as pnsgd_final_iterates
        s = t % STEP_CHUNK
        if s == 0:
            _draw(streams, noise, (min(STEP_CHUNK, n - t), p), buffer[:, : min(STEP_CHUNK, n - t)])
        advance_chains(
            code,
            coefficient_count(code, data.n_classes),
            chain,
            data.features,
            norms,
            data.labels,
            t,
            buffer[:, s : s + 1],
            float(scale),
            float(rate),
            diameter / 2,
            stop,
            chain,
        )
        return chain[0].copy()

    out = run_rounds(
        steps,
        step,
        w0,
        data,
        test=test,
        every=every or max(1, steps // 10),
        trajectory=trajectory,
        progress=progress,
        description="PNSGD",
    )
    config = dict(
        rate=rate,
        noise=noise,
        scale=scale,
        diameter=diameter,
        seed=seed,
        random_stop=random_stop,
        steps=steps,
        samples=n,
    )
    return RunResult(
        "PNSGD",
        config,
        out["weights"],
        out["metric_rounds"],
        out["loss"],
        out["accuracy"],
        [guarantee] if guarantee is not None else [],
        out["test_loss"],
        out["test_accuracy"],
        out["trajectory"],
    )
