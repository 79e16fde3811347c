"""Federated learning with a trusted aggregator and projection (paper 000, Algorithm 1).

n users (clients), T = floor(n/m) rounds; the users are permuted once and round t takes the t-th
block of m (batches without replacement, each user used once). Each chosen user sends
eta_t (grad_j(W) + sigma_t Z_j), grad_j the mean of its per-sample clipped gradients; the
aggregator sets W_t = proj_rho(W_{t-1} - (1/m) sum_j eta_t (grad_j + sigma_t Z_j)) and only W_T
is released. (Line 7 of the printed algorithm drops the minus sign; the text and the proof of
Theorem 2 use the gradient step written here.) The m users' noise enters only through its mean,
(1/m) sum_j sigma_t Z_j ~ N(0, sigma_t^2 I / m), which the simulator draws directly (the same
distribution, m times fewer random numbers).

``schedule="inverse_t"`` takes eta_t = rate / t, t = 1..T: Corollary 1's rates 1/(lambda t) with
rate = 1/lambda (its utility bound: :mod:`.utility_bound`).

With ``random_stop=True`` the released model is W_tau, tau uniform on {tau0, ..., T} (tau0 = 1:
Corollary 3; tau0 = max(1, ceil(alpha T)) with ``suffix`` alpha: the alpha-suffix variant), and
the guarantee is Corollary 3's double sum.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from . import privacy
from .data import FederatedData
from .gradients import client_gradients, project_to_ball
from .kernel_size import threads_for
from .models import coefficient_count, model_code, parameter_size, smoothness_constants
from .privacy import Guarantee
from .randomness import NOISE, SERVER, generator
from .result import RunResult
from .rounds import run_rounds
from .schedules import Schedule


def per_round(value: float | np.ndarray, rounds: int, name: str) -> np.ndarray:
    """A scalar or a length-``rounds`` array as a positive finite per-round array."""
    arr = (
        np.broadcast_to(np.asarray(value, dtype=float), (rounds,)).copy()
        if np.ndim(value) == 0
        else np.asarray(value, dtype=float)
    )
    if arr.shape != (rounds,):
        raise ValueError(f"{name} must be a scalar or have one entry per round ({rounds})")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must be finite and >= 0")
    return arr


def trusted_aggregator(
    data: FederatedData,
    *,
    batch: int,
    rate: float | np.ndarray,
    sigma: float | np.ndarray,
    radius: float,
    clip: float = math.inf,
    seed: int = 0,
    initial: np.ndarray | None = None,
    test: FederatedData | None = None,
    every: int | None = None,
    trajectory: bool = False,
    progress: bool = False,
    threads: int | None = None,
    random_stop: bool = False,
    suffix: float = 0.0,
    schedule: Schedule = "constant",
) -> RunResult:
    r"""Run paper 000's Algorithm 1 for one pass and report Theorem 2's user-level guarantee.

    The n users (clients) are permuted once and round t = 1..T, :math:`T = \lfloor n/m \rfloor`,
    takes the t-th block of m; each sends the mean of its per-sample clipped gradients plus
    :math:`\sigma_t Z_j`, and the aggregator sets

    .. math:: W_t = \Pi_\rho\Bigl(W_{t-1} - \frac{\eta_t}{m}\sum_j \bigl(\nabla_j(W_{t-1}) + \sigma_t Z_j\bigr)\Bigr),

    :math:`\Pi_\rho` the projection onto the ball of radius ρ; only the last model is released. When
    every σ_t > 0, the guarantee is Theorem 2's (hidden intermediate models, convex losses) with the
    diameter 2ρ when the step is non-expansive (clipping inactive, V >= L, and
    :math:`\eta_t \le 2/\beta`), else the relaxed diameter :math:`2(\rho + \eta_t L)`. With
    ``random_stop`` the released model is :math:`W_\tau`, τ uniform on
    {max(1, ceil(suffix T)), ..., T}, with Corollary 3's bound (suffix = 0) or its suffix form;
    ``config["stopped_at"]`` is τ.

    Parameters
    ----------
    data : FederatedData
        The users' samples, one user per client.
    batch : int
        m, users per round, in [1, n].
    rate : float or array_like
        The step size η, or one per round (T entries), finite and > 0.
    sigma : float or array_like
        σ_t, each user's noise standard deviation, or one per round (T entries), finite and >= 0
        (no guarantee unless every σ_t > 0).
    radius : float
        ρ, the radius of the parameter ball, > 0.
    clip : float, default inf
        V, the per-sample gradient clipping norm, > 0.
    seed : int, default 0
        Seed of the run's random streams; a seed gives the same run whatever the thread count.
    initial : array_like, optional
        The starting parameters, shape (p,) (p = d, or C d for softmax); default zeros.
    test : FederatedData, optional
        Held-out data on which the metrics are also taken.
    every : int, optional
        Take the metrics every ``every`` rounds (and at 0 and at the end), >= 1; default
        max(1, T // 10).
    trajectory : bool, default False
        Keep every iterate in the result's ``trajectory``.
    progress : bool, default False
        Show a progress bar.
    threads : int, optional
        numba's thread count for the run (results do not depend on it).
    random_stop : bool, default False
        Release the model of a uniformly random round.
    suffix : float, default 0.0
        α in [0, 1): the random stop is drawn from the last rounds {max(1, ceil(α T)), ..., T}; only
        with ``random_stop``.
    schedule : {"constant", "inverse_t"}, default "constant"
        :math:`\eta_t` = ``rate``, or ``rate`` / t (Corollary 1's 1/(λ t) with ``rate`` = 1/λ).

    Returns
    -------
    RunResult
        The run; the metrics are taken up to the released round, and ``privacy`` holds the guarantee
        when every σ_t > 0, else nothing.

    Raises
    ------
    ValueError
        When ``batch`` is not in [1, n], ``radius`` or ``clip`` <= 0, ``suffix`` is not in [0, 1) or
        is > 0 without ``random_stop``, ``schedule`` is unknown, ``rate`` or ``sigma`` is not a
        scalar or a length-T array of finite values >= 0, a rate is 0, or ``every`` < 1.

    References
    ----------
    Paper 000, Algorithm 1, Theorem 2, Corollaries 1 and 3.

    Examples
    --------
    >>> from hockeystick.simulate import synthetic, trusted_aggregator
    >>> data = synthetic("logistic", n_clients=40, samples_per_client=5, n_features=3)
    >>> run = trusted_aggregator(data, batch=10, rate=0.5, sigma=1.0, radius=1.0)
    >>> run.config["rounds"], run.metric_rounds.tolist(), len(run.privacy)
    (4, [0, 1, 2, 3, 4], 1)
    """
    n = data.n_clients
    _check_trusted(n, batch, radius, clip, suffix, random_stop, schedule)
    rounds = n // batch
    etas = _step_sizes(rate, rounds, schedule)
    sigmas = per_round(sigma, rounds, "sigma")
    if np.any(etas == 0):
        raise ValueError("rate must be > 0")
    code = model_code(data.model)
    p = parameter_size(data.model, data.n_features, data.n_classes)
    w0 = np.zeros(p) if initial is None else project_to_ball(np.array(initial, dtype=float), radius)
    if threads is not None:
        numba.set_num_threads(threads)
    order = generator(seed, SERVER).permutation(n).astype(np.int64)
    first = max(1, math.ceil(suffix * rounds))
    stop = int(generator(seed, SERVER, 1).integers(first, rounds + 1)) if random_stop else rounds
    noise_stream = generator(seed, NOISE)
    norms = data.row_norms
    grads = np.empty((batch, p))
    no_uniforms = np.empty((batch, 0))
    state = {"w": w0}

    def step(t: int) -> np.ndarray:
        clients = order[t * batch : (t + 1) * batch]
        n_coef = coefficient_count(code, data.n_classes)
        with threads_for(int(np.sum(data.offsets[clients + 1] - data.offsets[clients])), n_coef):
            client_gradients(
                code,
                n_coef,
                state["w"],
                data.features,
                norms,
                data.labels,
                data.offsets,
                clients,
                no_uniforms,
                clip,
                grads,
            )
        g = grads.mean(axis=0)
        if sigmas[t] > 0:
            g += (sigmas[t] / math.sqrt(batch)) * noise_stream.standard_normal(p)
        state["w"] = project_to_ball(state["w"] - etas[t] * g, radius)
        return state["w"]

    out = run_rounds(
        stop,
        step,
        w0,
        data,
        test=test,
        every=every or max(1, rounds // 10),
        trajectory=trajectory,
        progress=progress,
        description="trusted aggregator",
    )
    guarantees = _guarantees(
        data, sigmas, etas, radius, clip, batch, suffix if random_stop else None
    )
    config = dict(
        batch=batch,
        rounds=rounds,
        rate=rate,
        schedule=schedule,
        sigma=sigma,
        radius=radius,
        clip=clip,
        seed=seed,
        users=n,
        random_stop=random_stop,
        suffix=suffix,
        stopped_at=stop,
    )
    return RunResult(
        "trusted aggregator",
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


def _check_trusted(
    n: int,
    batch: int,
    radius: float,
    clip: float,
    suffix: float,
    random_stop: bool,
    schedule: Schedule,
) -> None:
    """``trusted_aggregator``'s scalar arguments: 1 <= batch <= n, radius and clip > 0, 0 <= suffix
    < 1 (only with ``random_stop``), a known schedule."""
    if not 1 <= batch <= n:
        raise ValueError(f"batch must be in [1, n_clients = {n}]")
    if not radius > 0 or not clip > 0:
        raise ValueError("radius and clip must be > 0")
    if not 0.0 <= suffix < 1.0:
        raise ValueError(f"suffix (alpha) must satisfy 0 <= suffix < 1, got {suffix!r}")
    if suffix > 0 and not random_stop:
        raise ValueError("suffix only applies with random_stop=True")
    if schedule not in ("constant", "inverse_t"):
        raise ValueError(
            f'schedule must be "constant" or "inverse_t" (eta_t = rate / t), got {schedule!r}'
        )


def _step_sizes(rate: float | np.ndarray, rounds: int, schedule: Schedule) -> np.ndarray:
    """eta_t per round: ``rate`` (a scalar or one per round), divided by t under "inverse_t"."""
    etas = per_round(rate, rounds, "rate")
    if schedule == "inverse_t":
        etas = etas / np.arange(1.0, rounds + 1.0)
    return etas


def _guarantees(
    data: FederatedData,
    sigmas: np.ndarray,
    etas: np.ndarray,
    radius: float,
    clip: float,
    batch: int,
    suffix: float | None,
) -> list[Guarantee]:
    """Theorem 2's guarantee (Corollary 3 or the suffix bound with a random stop) when every round adds noise."""
    if not np.all(sigmas > 0):
        return []
    lipschitz, beta, _ = smoothness_constants(data.model, data.features, data.labels, radius)
    nonexpansive = clip >= lipschitz and bool(np.all(etas <= 2.0 / beta))
    return [
        privacy.trusted_aggregator(
            lipschitz=min(clip, lipschitz),
            sigmas=sigmas,
            etas=etas,
            radius=radius,
            batch=batch,
            n_users=data.n_clients,
            smoothness=beta,
            nonexpansive=nonexpansive,
            suffix=suffix,
        )
    ]
