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
from .models import add_clipped_gradient, coefficient_count, model_code, parameter_size, smoothness_constants
from .randomness import NOISE, SERVER, ClientStreams, generator
from .result import RunResult
from .rounds import run_rounds

STEP_CHUNK = 256  # steps whose noise is drawn at once: memory O(replicas x chunk x d)


@njit(cache=True)
def advance_chain(model, y, features, norms, labels, first, noise, scale, eta, radius, stop, stopped, coef, grad):
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
def advance_chains(model, n_coef, chains, features, norms, labels, first, noise, scale, eta, radius, stop, stopped):
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
    """Paper 002's bound for this configuration: Theorem 4 (Gaussian), Theorem 3 (Laplace, d = 1)
    or Theorem 5 (Gaussian, random stop), for input ``record`` (1-based; default the worst record).
    None where the paper gives no bound (Laplace in d > 1, random stop with Laplace)."""
    _check(data, rate, noise, scale, diameter)
    if scale == 0:
        return None
    n = data.features.shape[0]
    lipschitz, beta, strong = smoothness_constants(data.model, data.features, data.labels, diameter / 2)
    if noise == "laplace" and (parameter_size(data.model, data.n_features, data.n_classes) > 1 or random_stop):
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


def _draw(streams: ClientStreams, noise: str, shape: tuple[int, ...], out: np.ndarray) -> np.ndarray:
    return streams.standard_normal(shape, out) if noise == "gaussian" else streams.laplace(shape, out)


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
    """The released iterate (Y_n, or Y_tau under random stopping) of ``replicas`` independent
    chains, shape (replicas, p). Chain r's randomness depends only on (seed, r)."""
    _check(data, rate, noise, scale, diameter)
    if replicas < 1:
        raise ValueError("replicas must be >= 1")
    if threads is not None:
        numba.set_num_threads(threads)
    code = model_code(data.model)
    p = parameter_size(data.model, data.n_features, data.n_classes)
    n = data.features.shape[0]
    chains = np.zeros((replicas, p)) if initial is None else np.tile(np.asarray(initial, float), (replicas, 1))
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
    """One PNSGD chain with metrics every ``every`` steps and paper 002's guarantee for its
    worst-protected input (the last one; Theorem 5's uniform bound under random stopping).
    ``scale`` is sigma for Gaussian noise and v for Laplace noise."""
    guarantee = pnsgd_guarantee(data, rate=rate, noise=noise, scale=scale, diameter=diameter, random_stop=random_stop)
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
