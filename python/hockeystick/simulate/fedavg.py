"""Noisy FedAvg and noisy FedProx (paper 004, Algorithm 1 with eq. 2 and eq. 4 / 35).

Every round t all m clients start from w_t and take K local steps
    w_{i,k+1} = w_{i,k} - eta_{k,t} (g_{i,k} + alpha (w_{i,k} - w_t))      (alpha = 0: FedAvg)
with g the mean of per-sample clipped gradients (clip V, paper eq. 2) over a minibatch drawn with
replacement (or the full local batch), upload w_{i,K} + N(0, sigma^2 I), and the server averages.

The server's average of m uploads is mean_i w_{i,K} + sigma * mean_i z_i with z_i i.i.d. N(0, I),
and mean_i z_i ~ N(0, I/m) exactly, so the simulator draws that one d-vector per round instead
of m of them: the trained models have exactly the distribution of the algorithm's, at 1/m of
the random numbers. Clients run in parallel (numba prange, in fixed blocks whose partial sums
are added in block order, so results do not depend on the thread count); memory is O(d) per
round beyond the data. Full-batch logistic and linear regression take a dedicated client kernel
(:func:`train_client_full_batch`), bit-identical to the generic one.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import njit, prange

from . import privacy
from .data import FederatedData
from .kernel_size import threads_for
from .models import (
    add_scaled_rows,
    clip_scale,
    clipped_scalar_coefficients,
    coefficient_count,
    gradient_coefficients,
    local_gradient,
    model_code,
    parameter_size,
    sample_row,
    smoothness_constants,
)
from .prefetch import prefetch_row
from .privacy import Guarantee
from .randomness import NOISE, SAMPLING, ClientStreams, generator
from .result import RunResult
from .rounds import run_rounds
from .schedules import Schedule, learning_rates

CLIENT_BLOCK = 64  # clients per parallel task (fixes the summation order: never change)
PREFETCH_AHEAD = 2  # clients whose sample rows are requested before they train


@njit(cache=True, error_model="numpy")
def train_client_full_batch(
    model, w_global, features, norms, labels, lo, hi, etas, proximal, clip, w, grad, scales
):
    """One client's round on its full local batch, logistic or linear regression (scalar
    coefficients): w = its model after K steps w <- w - eta_k (g(w) + alpha (w - w_global)), g the
    mean clipped gradient.

    The gradient as :func:`models.add_range_gradient` computes it (so the same bits), without its
    calls' overhead and with the coefficients' scratch ``scales`` (at least hi - lo entries)
    allocated once."""
    p = w_global.shape[0]
    n = hi - lo
    weight = 1.0 / n
    for j in range(p):
        w[j] = w_global[j]
    for k in range(etas.shape[0]):
        clipped_scalar_coefficients(model, w, features, norms, labels, lo, hi, clip, weight, scales)
        for j in range(p):
            grad[j] = 0.0
        add_scaled_rows(features, lo, scales, n, grad)
        eta = etas[k]
        for j in range(p):
            w[j] -= eta * (grad[j] + proximal * (w[j] - w_global[j]))


@njit(cache=True)
def train_client(
    model,
    w_global,
    features,
    norms,
    labels,
    lo,
    hi,
    uniforms,
    etas,
    proximal,
    clip,
    w,
    coef,
    grad,
    rows,
):
    """One client's round: w = its model after K local steps from w_global (before upload noise)."""
    p = w_global.shape[0]
    for j in range(p):
        w[j] = w_global[j]
    if uniforms.shape[1] == 1 and coef.shape[0] == 1:
        # one sample per step and a scalar coefficient: the gradient is s x, applied in one pass
        for k in range(etas.shape[0]):
            r = sample_row(lo, hi, uniforms[k, 0])
            x = features[r]
            gradient_coefficients(model, w, x, labels[r], coef)
            s = clip_scale(coef, norms[r], clip, 1.0) * coef[0]
            eta = etas[k]
            if proximal == 0.0:
                step = eta * s
                for j in range(p):
                    w[j] -= step * x[j]
            else:
                for j in range(p):
                    w[j] -= eta * (s * x[j] + proximal * (w[j] - w_global[j]))
    else:
        for k in range(etas.shape[0]):
            local_gradient(
                model, w, features, norms, labels, lo, hi, uniforms[k], rows, clip, coef, grad
            )
            eta = etas[k]
            for j in range(p):
                w[j] -= eta * (grad[j] + proximal * (w[j] - w_global[j]))


@njit(cache=True)
def prefetch_minibatch(features, lo, hi, uniforms):
    """Hint the caches to fetch the rows a client's minibatches will read (uniforms (K, b))."""
    for k in range(uniforms.shape[0]):
        for u in range(uniforms.shape[1]):
            prefetch_row(features, sample_row(lo, hi, uniforms[k, u]))


@njit(parallel=True, cache=True)
def average_local_models(
    model, n_coef, w_global, features, norms, labels, offsets, uniforms, etas, proximal, clip
):
    """The mean over clients of their models after K local steps (no upload noise).

    Each block of CLIENT_BLOCK clients sums its clients in order, then the block sums are added
    in block order, whatever the thread count."""
    n_clients = offsets.shape[0] - 1
    p = w_global.shape[0]
    n_blocks = (n_clients + CLIENT_BLOCK - 1) // CLIENT_BLOCK
    full_batch_scalar = uniforms.shape[2] == 0 and n_coef == 1
    largest_client = 0
    for i in range(n_clients):
        largest_client = max(largest_client, offsets[i + 1] - offsets[i])
    block_sums = np.empty((n_blocks, p))
    for block in prange(n_blocks):
        coef = np.empty(n_coef)
        grad = np.empty(p)
        w = np.empty(p)
        rows = np.empty(max(uniforms.shape[2], 1), dtype=np.int64)
        scales = np.empty(largest_client)
        total = block_sums[block]
        total[:] = 0.0
        first, last = block * CLIENT_BLOCK, min((block + 1) * CLIENT_BLOCK, n_clients)
        if (
            full_batch_scalar
        ):  # the hardware prefetcher follows the clients' consecutive rows on its own
            for i in range(first, last):
                train_client_full_batch(
                    model,
                    w_global,
                    features,
                    norms,
                    labels,
                    offsets[i],
                    offsets[i + 1],
                    etas,
                    proximal,
                    clip,
                    w,
                    grad,
                    scales,
                )
                for j in range(p):
                    total[j] += w[j]
            continue
        for i in range(first, min(first + PREFETCH_AHEAD, last)):
            prefetch_minibatch(features, offsets[i], offsets[i + 1], uniforms[i])
        for i in range(first, last):
            if i + PREFETCH_AHEAD < last:
                ahead = i + PREFETCH_AHEAD
                prefetch_minibatch(features, offsets[ahead], offsets[ahead + 1], uniforms[ahead])
            train_client(
                model,
                w_global,
                features,
                norms,
                labels,
                offsets[i],
                offsets[i + 1],
                uniforms[i],
                etas,
                proximal,
                clip,
                w,
                coef,
                grad,
                rows,
            )
            for j in range(p):
                total[j] += w[j]
    mean = np.zeros(p)
    for block in range(n_blocks):
        for j in range(p):
            mean[j] += block_sums[block, j]
    for j in range(p):
        mean[j] /= n_clients
    return mean


def noisy_fedavg(
    data: FederatedData,
    *,
    rounds: int,
    local_steps: int,
    rate: float,
    schedule: Schedule = "constant",
    clip: float = math.inf,
    sigma: float = 0.0,
    proximal: float = 0.0,
    batch_size: int | None = 1,
    seed: int = 0,
    initial: np.ndarray | None = None,
    test: FederatedData | None = None,
    every: int | None = None,
    trajectory: bool = False,
    progress: bool = False,
    threads: int | None = None,
    smoothness: float | None = None,
) -> RunResult:
    r"""Train noisy FedAvg (``proximal = 0``) or noisy FedProx (``proximal = alpha > 0``) on all clients.

    Every round t each of the m clients starts from :math:`w_t` and takes K local steps

    .. math:: w_{i,k+1} = w_{i,k} - \eta_{k,t}\,\bigl(g_{i,k} + \alpha (w_{i,k} - w_t)\bigr),

    with g the mean of per-sample gradients clipped to norm V over a minibatch drawn with
    replacement (or the full local batch), uploads :math:`w_{i,K} + \mathcal{N}(0, \sigma^2 I)`, and
    the server averages the uploads. When σ > 0 and V < inf the run reports two μ-GDP guarantees,
    both valid: paper 004's shifted-interpolation bound for the final model with the optimal
    admissible weights (``hockeystick.fdp.interpolation_bound``), and the GDP composition over all
    rounds.

    Parameters
    ----------
    data : FederatedData
        The clients' training samples.
    rounds : int
        T, the number of rounds, >= 1.
    local_steps : int
        K, local steps per round, >= 1.
    rate : float
        The base learning rate a, finite and > 0.
    schedule : {"constant", "cyclic", "stagewise", "continuous"}, default "constant"
        The local step sizes :math:`\eta_{k,t}`: a, a/(k+1), a/(t+1) or a/(tK+k+1) (paper 004,
        Table 1).
    clip : float, default inf
        V, the per-sample gradient clipping norm, > 0 (inf: no clipping, no guarantee).
    sigma : float, default 0.0
        σ, the standard deviation of each client's upload noise, >= 0 (0: no guarantee).
    proximal : float, default 0.0
        α, the proximal coefficient, >= 0 (0: FedAvg).
    batch_size : int or None, default 1
        Samples per local step, >= 1; None uses each client's full local batch at every step.
    seed : int, default 0
        Seed of the run's random streams; a seed gives the same run whatever the thread count.
    initial : array_like, optional
        The starting parameters, shape (p,) (p = d, or C d for softmax); default zeros.
    test : FederatedData, optional
        Held-out data on which the metrics are also taken.
    every : int, optional
        Take the metrics every ``every`` rounds (and at 0 and at the end), >= 1; default
        max(1, rounds // 10).
    trajectory : bool, default False
        Keep every iterate in the result's ``trajectory``.
    progress : bool, default False
        Show a progress bar.
    threads : int, optional
        numba's thread count for the run (results do not depend on it).
    smoothness : float, optional
        β (paper 004's L), the smoothness constant of the per-sample loss used by the guarantee;
        default the bound computed from the data (largest row norm and, for linear, largest label).

    Returns
    -------
    RunResult
        The run; ``privacy`` holds the two GDP guarantees when σ > 0 and V < inf, else nothing.

    Raises
    ------
    ValueError
        When ``rounds`` or ``local_steps`` < 1, ``sigma`` < 0, ``clip`` <= 0, ``proximal`` < 0,
        ``batch_size`` < 1, ``schedule`` is unknown, ``rate`` is not finite and > 0, ``initial`` has
        the wrong shape, or ``every`` < 1.

    References
    ----------
    Paper 004, Algorithm 1 with eqs. 2 and 4, eqs. 12-16 (the sensitivity recursion), Theorem 12.

    Examples
    --------
    >>> from hockeystick.simulate import noisy_fedavg, synthetic
    >>> data = synthetic("logistic", n_clients=4, samples_per_client=20, n_features=3)
    >>> run = noisy_fedavg(data, rounds=5, local_steps=2, rate=0.1, clip=1.0, sigma=1.0)
    >>> run.metric_rounds.tolist(), len(run.privacy)
    ([0, 1, 2, 3, 4, 5], 2)
    """
    _check_fedavg(rounds, local_steps, sigma, clip, proximal, batch_size)
    code = model_code(data.model)
    p = parameter_size(data.model, data.n_features, data.n_classes)
    etas = learning_rates(schedule, rate, rounds, local_steps)
    w0 = _initial_model(initial, p)
    if threads is not None:
        numba.set_num_threads(threads)
    workers = numba.get_num_threads()
    m = data.n_clients
    b = 0 if batch_size is None else batch_size
    sampling = ClientStreams(seed, SAMPLING, m, workers)
    noising = generator(seed, NOISE)
    uniforms = np.empty((m, local_steps, b))
    norms = data.row_norms
    state = {"w": w0}

    def step(t: int) -> np.ndarray:
        if b > 0:
            sampling.random((local_steps, b), out=uniforms)
        n_coef = coefficient_count(code, data.n_classes)
        rows = uniforms.size if b > 0 else local_steps * data.features.shape[0]
        with threads_for(rows, n_coef):
            w = average_local_models(
                code,
                n_coef,
                state["w"],
                data.features,
                norms,
                data.labels,
                data.offsets,
                uniforms,
                etas[t],
                float(proximal),
                float(clip),
            )
        if sigma > 0:
            w += (sigma / math.sqrt(m)) * noising.standard_normal(p)  # the mean of m uploads' noise
        state["w"] = w
        return w

    name = "noisy FedProx" if proximal > 0 else "noisy FedAvg"
    try:
        out = run_rounds(
            rounds,
            step,
            w0,
            data,
            test=test,
            every=every or max(1, rounds // 10),
            trajectory=trajectory,
            progress=progress,
            description=name,
        )
    finally:
        sampling.close()
    guarantees = _guarantees(data, etas, sigma, clip, proximal, smoothness)
    config = dict(
        rounds=rounds,
        local_steps=local_steps,
        rate=rate,
        schedule=schedule,
        clip=clip,
        sigma=sigma,
        proximal=proximal,
        batch_size=batch_size,
        seed=seed,
        clients=m,
    )
    return RunResult(
        name,
        config,
        out["weights"],
        out["metric_rounds"],
        out["loss"],
        out["accuracy"],
        guarantees,
        out["test_loss"],
        out["test_accuracy"],
        out["trajectory"],
    )


def _check_fedavg(
    rounds: int,
    local_steps: int,
    sigma: float,
    clip: float,
    proximal: float,
    batch_size: int | None,
) -> None:
    """``noisy_fedavg``'s scalar arguments: rounds, local_steps >= 1; sigma >= 0, clip > 0, proximal
    >= 0; batch_size >= 1 or None."""
    if rounds < 1 or local_steps < 1:
        raise ValueError("rounds and local_steps must be >= 1")
    if not sigma >= 0 or not clip > 0 or not proximal >= 0:
        raise ValueError("need sigma >= 0, clip > 0 and proximal >= 0")
    if batch_size is not None and batch_size < 1:
        raise ValueError("batch_size must be >= 1 or None (full local batch)")


def _initial_model(initial: np.ndarray | None, p: int) -> np.ndarray:
    """The starting parameters: zeros, or a float copy of ``initial`` of shape (p,)."""
    w0 = np.zeros(p) if initial is None else np.array(initial, dtype=float)
    if w0.shape != (p,):
        raise ValueError(f"initial must have shape ({p},)")
    return w0


def _guarantees(
    data: FederatedData,
    etas: np.ndarray,
    sigma: float,
    clip: float,
    proximal: float,
    smoothness: float | None,
) -> list[Guarantee]:
    """Paper 004's last-iterate guarantees when the uploads are clipped and noised; none otherwise."""
    if not (sigma > 0 and math.isfinite(clip)):
        return []
    beta = (
        smoothness
        if smoothness is not None
        else smoothness_constants(data.model, data.features, data.labels, 0.0)[1]
    )
    rho, gamma = privacy.fedprox_sensitivities(etas, beta, proximal, clip, data.n_clients)
    return privacy.last_iterate(rho, gamma, data.n_clients, sigma)


def noisy_fedprox(data: FederatedData, *, proximal: float, **options) -> RunResult:
    """Noisy FedProx: :func:`noisy_fedavg` with proximal coefficient alpha > 0.

    Parameters
    ----------
    data : FederatedData
        The clients' training samples.
    proximal : float
        α, the proximal coefficient, > 0.
    **options
        Every other keyword argument of :func:`noisy_fedavg` (``rounds``, ``local_steps`` and
        ``rate`` are required).

    Returns
    -------
    RunResult
        The run, named "noisy FedProx".

    Raises
    ------
    ValueError
        When ``proximal`` <= 0, or as :func:`noisy_fedavg` refuses.

    References
    ----------
    Paper 004, eq. 4 and Theorem 15.
    """
    if not proximal > 0:
        raise ValueError("proximal (alpha) must be > 0 for FedProx")
    return noisy_fedavg(data, proximal=proximal, **options)
