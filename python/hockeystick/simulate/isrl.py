"""ISRL-DP noisy minibatch SGD and ISRL-DP local SGD (paper 003, Algorithm 2 and Appendix I).

Each round r the server draws S_r, M of the N silos without replacement (all of them if M = N).
  minibatch SGD: silo i draws K samples with replacement, sends the mean of their clipped
      gradients at w_r plus N(0, sigma^2 I); w_{r+1} = Pi_W(w_r - eta_r * mean over S_r).
  local SGD: silo i takes K steps w <- w - eta (clipped grad at one uniformly drawn sample + u),
      u ~ N(0, sigma^2 I) fresh each step, and sends its K-th iterate; w_{r+1} = mean over S_r.
Every silo's transcript gets a Gaussian-composition ISRL-DP guarantee (no amplification) and the
certified PLD composition with amplification by its with-replacement sampling (minibatch SGD:
batches of K; local SGD: one record per step), both for the silo with the fewest records.

``sigma`` may be one value or one per silo (paper 003 Thm H.1: silo i runs with sigma_i and gets its
own (eps_i, delta_i)).  Per-silo sigma: in minibatch SGD the server's mean of the m selected silos'
noise is N(0, sum_{i in S_r} sigma_i^2 / m^2 I); in local SGD silo i's steps add N(0, sigma_i^2 I).
Each silo's guarantee is computed with its own sigma_i and record count and reported in
``config["silo_privacy"]``; the run's guarantees are the worst silo's (ISRL-DP holds for every silo
at the largest eps_i), so ``best_epsilon`` stays a bound for every silo.  An array whose entries are
all equal runs exactly as the scalar (bit-identical).
"""

from __future__ import annotations

import dataclasses
import math

import numba
import numpy as np
from numba import njit, prange

from ..base.elementwise import ArrayLike
from . import privacy
from .data import FederatedData
from .evaluation import evaluate
from .gradients import client_gradients, project_to_ball
from .kernel_size import threads_for
from .models import coefficient_count, local_gradient, model_code, parameter_size
from .randomness import NOISE, SAMPLING, SERVER, generator
from .result import RunResult
from .rounds import RoundsOutput, run_rounds
from .trusted_aggregator import per_round


@njit(cache=True)
def noisy_local_steps(
    model,
    w_global,
    features,
    norms,
    labels,
    lo,
    hi,
    uniforms,
    eta,
    clip,
    noise,
    sigma,
    w,
    coef,
    grad,
    rows,
):
    """w = one silo's iterate after len(uniforms) noisy one-sample SGD steps from w_global."""
    p = w_global.shape[0]
    for q in range(p):
        w[q] = w_global[q]
    for k in range(uniforms.shape[0]):
        local_gradient(
            model, w, features, norms, labels, lo, hi, uniforms[k : k + 1], rows, clip, coef, grad
        )
        for q in range(p):
            g = grad[q] + sigma * noise[k, q] if sigma > 0.0 else grad[q]
            w[q] -= eta * g


@njit(parallel=True, cache=True)
def noisy_local_sgd(
    model,
    n_coef,
    w_global,
    features,
    norms,
    labels,
    offsets,
    silos,
    uniforms,
    eta,
    clip,
    noise,
    sigma,
    out,
):
    """out[j] = silo silos[j]'s iterate after K noisy one-sample SGD steps from w_global."""
    for j in prange(silos.shape[0]):
        c = silos[j]
        noisy_local_steps(
            model,
            w_global,
            features,
            norms,
            labels,
            offsets[c],
            offsets[c + 1],
            uniforms[j],
            eta,
            clip,
            noise[j],
            sigma,
            out[j],
            np.empty(n_coef),
            np.empty(w_global.shape[0]),
            np.empty(1, dtype=np.int64),
        )


class _WorstSilo:
    """The run's ISRL-DP profile from each silo's: delta(eps) = max_i delta_i(eps), eps(delta) =
    max_i eps_i(delta) (every silo is (max_i eps_i, delta)-ISRL-DP)."""

    def __init__(self, guarantees: list[privacy.Guarantee]) -> None:
        self._guarantees = guarantees

    def delta(self, epsilon: ArrayLike) -> float | np.ndarray:
        values = np.max(
            [np.asarray(g.delta(epsilon), dtype=float) for g in self._guarantees], axis=0
        )
        return float(values) if values.ndim == 0 else values

    def epsilon(self, delta: ArrayLike) -> float | np.ndarray:
        values = np.max(
            [np.asarray(g.epsilon(delta), dtype=float) for g in self._guarantees], axis=0
        )
        return float(values) if values.ndim == 0 else values


def _per_silo_sigma(sigma: float | np.ndarray, silos: int) -> float | np.ndarray:
    """sigma as a float (one value, or an array whose entries are all equal) or a float array of length ``silos``."""
    arr = np.asarray(sigma, dtype=float)
    if arr.ndim == 0:
        return float(arr)
    if arr.shape != (silos,):
        raise ValueError(
            f"sigma must be a number or an array of one value per silo (length {silos}), got shape {arr.shape}"
        )
    if not np.all(arr >= 0) or not np.all(np.isfinite(arr)):
        raise ValueError("need sigma >= 0 (finite) for every silo")
    return float(arr[0]) if np.all(arr == arr[0]) else arr


def _silo_guarantees(
    local: bool, clip: float, sigmas: np.ndarray, rounds: int, steps: int, sizes: np.ndarray
) -> list[privacy.Guarantee]:
    """Silo i's certified PLD guarantee with its own sigma_i and record count (paper 003 Thm H.1's (eps_i, delta_i))."""
    out = []
    for i, (s, size) in enumerate(zip(sigmas, sizes)):
        g = (
            privacy.isrl_one_sample_steps(clip, float(s), rounds * steps, int(size))
            if local
            else privacy.isrl_minibatch_rounds(clip, float(s), steps, rounds, int(size))
        )
        out.append(dataclasses.replace(g, name=f"silo {i} (sigma = {s:g}, n = {size}): {g.name}"))
    return out


def _isrl(
    data: FederatedData,
    local: bool,
    rounds: int,
    steps: int,
    rate,
    sigma: float | np.ndarray,
    clip: float,
    silos_per_round: int | None,
    radius: float,
    seed: int,
    initial,
    test,
    every,
    trajectory,
    progress,
    threads,
    output: str = "last",
) -> RunResult:
    n = data.n_clients
    m = n if silos_per_round is None else silos_per_round
    _check_isrl(output, rounds, steps, m, n)
    sigmas, sigma = _split_sigma(sigma, n, clip, radius)
    etas = per_round(rate, rounds, "rate")
    code = model_code(data.model)
    n_coef = coefficient_count(code, data.n_classes)
    p = parameter_size(data.model, data.n_features, data.n_classes)
    w0 = np.zeros(p) if initial is None else project_to_ball(np.array(initial, dtype=float), radius)
    if threads is not None:
        numba.set_num_threads(threads)
    server, sampling, noising = (
        generator(seed, SERVER),
        generator(seed, SAMPLING),
        generator(seed, NOISE),
    )
    norms = data.row_norms
    everyone = np.arange(n, dtype=np.int64)
    out = np.empty((m, p))
    state = {"w": w0, "sum": np.zeros(p)}

    def step(t: int) -> np.ndarray:
        state["sum"] += state["w"]  # w_t, t = 0..R-1: Algorithm 2's average with gamma_r = 1/R
        silos = everyone if m == n else np.sort(server.choice(n, m, replace=False)).astype(np.int64)
        uniforms = sampling.random((m, steps))
        with threads_for(uniforms.size, n_coef):  # one sample a step per silo
            if local:
                noise, scale = _local_noise(noising, (m, steps, p), sigmas, silos, sigma)
                noisy_local_sgd(
                    code,
                    n_coef,
                    state["w"],
                    data.features,
                    norms,
                    data.labels,
                    data.offsets,
                    silos,
                    uniforms,
                    etas[t],
                    float(clip),
                    noise,
                    scale,
                    out,
                )
                state["w"] = project_to_ball(out.mean(axis=0), radius)
            else:
                client_gradients(
                    code,
                    n_coef,
                    state["w"],
                    data.features,
                    norms,
                    data.labels,
                    data.offsets,
                    silos,
                    uniforms,
                    float(clip),
                    out,
                )
                g = out.mean(axis=0)
                noise_scale = _mean_noise_scale(sigmas, silos, sigma, m)
                if noise_scale is not None:
                    g += noise_scale * noising.standard_normal(p)
                state["w"] = project_to_ball(state["w"] - etas[t] * g, radius)
        return state["w"]

    name = "ISRL-DP local SGD" if local else "ISRL-DP minibatch SGD"
    res = run_rounds(
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
    if output == "average":  # the released model is w_hat_R; the metrics at round R are its own
        _release_average(res, state["sum"] / rounds, data, test)
    if sigmas is not None:
        guarantees, silo_privacy = _per_silo_privacy(local, clip, sigmas, rounds, steps, data)
    else:
        guarantees, silo_privacy = _shared_privacy(local, clip, sigma, rounds, steps, data), []
    config = dict(
        rounds=rounds,
        K=steps,
        rate=rate,
        sigma=sigma if sigmas is None else sigmas,
        clip=clip,
        silos_per_round=m,
        radius=radius,
        seed=seed,
        silos=n,
        output=output,
    )
    if sigmas is not None:
        config["silo_privacy"] = silo_privacy
    return RunResult(
        name,
        config,
        res["weights"],
        res["metric_rounds"],
        res["loss"],
        res["accuracy"],
        guarantees,
        res["test_loss"],
        res["test_accuracy"],
        res["trajectory"],
    )


def _check_isrl(output: str, rounds: int, steps: int, m: int, n: int) -> None:
    """A known output, rounds and K >= 1, 1 <= silos_per_round <= n."""
    if output not in ("last", "average"):
        raise ValueError(f'output must be "last" or "average", got {output!r}')
    if rounds < 1 or steps < 1:
        raise ValueError("rounds and the per-round sample count K must be >= 1")
    if not 1 <= m <= n:
        raise ValueError(f"silos_per_round must be in [1, {n}]")


def _split_sigma(
    sigma: float | np.ndarray, n: int, clip: float, radius: float
) -> tuple[np.ndarray | None, float]:
    """(sigmas, sigma): one sigma per silo and 0.0, or None and the one sigma of every silo; clip, radius > 0."""
    given = _per_silo_sigma(sigma, n)
    sigmas = given if isinstance(given, np.ndarray) else None  # one per silo, or None: one for all
    shared = 0.0 if isinstance(given, np.ndarray) else given
    if not shared >= 0 or not clip > 0 or not radius > 0:
        raise ValueError("need sigma >= 0, clip > 0, radius > 0")
    return sigmas, shared


def _local_noise(
    noising: np.random.Generator,
    shape: tuple[int, int, int],
    sigmas: np.ndarray | None,
    silos: np.ndarray,
    sigma: float,
) -> tuple[np.ndarray, float]:
    """Local SGD's (noise, scale) for one round: per silo, standard normals times silo silos[j]'s
    sigma (scale 1); one sigma, standard normals and sigma (none drawn when sigma = 0)."""
    m, steps, _ = shape
    if sigmas is not None:  # silo silos[j] adds N(0, sigma_j^2 I) per step: the draws scaled here
        return noising.standard_normal(shape) * sigmas[silos][:, None, None], 1.0
    return (noising.standard_normal(shape) if sigma > 0 else np.empty((m, steps, 0))), float(sigma)


def _mean_noise_scale(
    sigmas: np.ndarray | None, silos: np.ndarray, sigma: float, m: int
) -> float | None:
    """The standard deviation of the mean of the m selected silos' noise (None: no noise drawn)."""
    if (
        sigmas is not None
    ):  # the mean of the selected silos' N(0, sigma_i^2 I): N(0, sum sigma_i^2 / m^2 I)
        return math.sqrt(float(np.sum(sigmas[silos] ** 2))) / m
    if sigma > 0:  # the mean of the m silos' N(0, sigma^2 I) is N(0, sigma^2 I / m)
        return sigma / math.sqrt(m)
    return None


def _release_average(
    res: RoundsOutput, weights: np.ndarray, data: FederatedData, test: FederatedData | None
) -> None:
    """Release w_hat_R: its weights, and its own loss and accuracy at round R."""
    res["weights"] = weights
    for split, loss, accuracy in (
        (data, res["loss"], res["accuracy"]),
        (test, res["test_loss"], res["test_accuracy"]),
    ):
        if split is not None and loss is not None and accuracy is not None:
            loss[-1], accuracy[-1] = evaluate(split, res["weights"])


def _per_silo_privacy(
    local: bool, clip: float, sigmas: np.ndarray, rounds: int, steps: int, data: FederatedData
) -> tuple[list[privacy.Guarantee], list[privacy.Guarantee]]:
    """(the run's guarantees: the worst silo's, each silo's own) with one sigma per silo; none
    without clipping or with a silo of sigma 0."""
    if not math.isfinite(clip) or not np.all(sigmas > 0):
        return [], []
    silo_privacy = _silo_guarantees(local, clip, sigmas, rounds, steps, np.diff(data.offsets))
    worst = _WorstSilo(silo_privacy)
    composition = _WorstSilo(
        [privacy.isrl_composition(clip, float(s), rounds * (steps if local else 1)) for s in sigmas]
    )
    guarantees = [
        privacy.Guarantee(
            "every silo, GDP composition without amplification (worst silo)",
            "paper 003 ISRL-DP, Thm H.1 per-silo sigma_i; Gaussian mechanism composed",
            True,
            composition,
        ),
        privacy.Guarantee(
            "every silo, with-replacement PLD (worst silo)",
            "paper 003 ISRL-DP, Thm H.1 per-silo sigma_i; PLD composition",
            True,
            worst,
        ),
    ]
    return guarantees, silo_privacy


def _shared_privacy(
    local: bool, clip: float, sigma: float, rounds: int, steps: int, data: FederatedData
) -> list[privacy.Guarantee]:
    """The Gaussian composition and the with-replacement PLD guarantee of the silo with the fewest
    records (the worst), with one sigma for every silo; none without noise or clipping."""
    if not (sigma > 0 and math.isfinite(clip)):
        return []
    guarantees = [privacy.isrl_composition(clip, sigma, rounds * (steps if local else 1))]
    smallest = int(np.min(np.diff(data.offsets)))  # the silo with the fewest records is the worst
    if local:
        guarantees.append(privacy.isrl_one_sample_steps(clip, sigma, rounds * steps, smallest))
    else:
        guarantees.append(privacy.isrl_minibatch_rounds(clip, sigma, steps, rounds, smallest))
    return guarantees


def isrl_minibatch_sgd(
    data: FederatedData,
    *,
    rounds: int,
    batch: int,
    rate: float | np.ndarray,
    sigma: float | np.ndarray,
    clip: float = math.inf,
    silos_per_round: int | None = None,
    radius: float = math.inf,
    seed: int = 0,
    initial: np.ndarray | None = None,
    test: FederatedData | None = None,
    every: int | None = None,
    trajectory: bool = False,
    progress: bool = False,
    threads: int | None = None,
    output: str = "last",
) -> RunResult:
    r"""ISRL-DP noisy minibatch SGD (paper 003 Algorithm 2), K = ``batch`` samples per silo per round.

    Each round r the server draws :math:`S_r`, M of the N silos without replacement; silo i draws K
    of its records with replacement and sends the mean of their clipped gradients at :math:`w_r`
    plus :math:`\mathcal{N}(0, \sigma^2 I)`, and

    .. math:: w_{r+1} = \Pi_W\Bigl(w_r - \eta_r \frac{1}{M}\sum_{i \in S_r} \tilde g_i\Bigr).

    Every silo's transcript gets two guarantees, both for the silo with the fewest records (the
    worst) when σ > 0 and V < inf: the Gaussian composition without amplification
    (μ = 2V√(releases)/σ) and the certified PLD composition with the amplification of its
    with-replacement sampling.

    Parameters
    ----------
    data : FederatedData
        The silos' records, one silo per client.
    rounds : int
        R, the number of rounds, >= 1.
    batch : int
        K, records each selected silo draws per round (with replacement), >= 1.
    rate : float or array_like
        η_r, the step size, or one per round (R entries), finite and >= 0.
    sigma : float or array_like
        σ, the noise standard deviation, >= 0, or one σ_i per silo (paper 003 Theorem H.1: each silo
        gets its own guarantee, reported in ``config["silo_privacy"]``; the run's guarantees are the
        worst silo's). An array whose entries are all equal runs exactly as the scalar.
    clip : float, default inf
        V, the per-sample gradient clipping norm, > 0 (inf: no clipping, no guarantee).
    silos_per_round : int, optional
        M, silos drawn without replacement each round, in [1, N]; default all N.
    radius : float, default inf
        The radius of the parameter ball W projected onto, > 0.
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
    output : {"last", "average"}, default "last"
        Release :math:`w_R`, or Algorithm 2's average :math:`\hat w_R = \frac{1}{R}\sum_{r<R} w_r`
        (γ_r = 1/R of Lemma D.6, convex case), whose metrics are reported at round R. The guarantee
        is the same: it covers the whole transcript.

    Returns
    -------
    RunResult
        The run; ``config["K"]`` is ``batch``.

    Raises
    ------
    ValueError
        When ``output`` is unknown, ``rounds`` or K < 1, ``silos_per_round`` is not in [1, N],
        ``sigma`` is negative or an array without one entry per silo, ``clip`` <= 0, ``rate`` is not
        a scalar or a length-R array of finite values >= 0, ``radius`` <= 0, ``initial`` has the
        wrong shape, or ``every`` < 1.

    References
    ----------
    Paper 003, Algorithm 2, Lemma D.6, Theorem H.1.
    """
    return _isrl(
        data,
        False,
        rounds,
        batch,
        rate,
        sigma,
        clip,
        silos_per_round,
        radius,
        seed,
        initial,
        test,
        every,
        trajectory,
        progress,
        threads,
        output,
    )


def isrl_local_sgd(
    data: FederatedData,
    *,
    rounds: int,
    local_steps: int,
    rate: float | np.ndarray,
    sigma: float | np.ndarray,
    clip: float = math.inf,
    silos_per_round: int | None = None,
    seed: int = 0,
    initial: np.ndarray | None = None,
    test: FederatedData | None = None,
    every: int | None = None,
    trajectory: bool = False,
    progress: bool = False,
    threads: int | None = None,
) -> RunResult:
    r"""ISRL-DP local SGD (paper 003 Appendix I): K = ``local_steps`` noisy one-sample steps per round.

    Each round r the server draws :math:`S_r`, M of the N silos without replacement; silo i starts
    from :math:`w_r` and takes K steps :math:`w \leftarrow w - \eta_r (\nabla_V \ell(w, x) + u)`, x
    one of its records drawn uniformly, :math:`\nabla_V` the gradient clipped to norm V and :math:`u
    \sim \mathcal{N}(0, \sigma^2 I)` fresh each step; :math:`w_{r+1}` is the mean of the M silos'
    K-th iterates. Every silo's transcript gets two guarantees, both for the silo with the fewest
    records (the worst) when σ > 0 and V < inf: the Gaussian composition without amplification (μ =
    2V√(releases)/σ) and the certified PLD composition with the amplification of its
    with-replacement sampling.

    Parameters
    ----------
    data : FederatedData
        The silos' records, one silo per client.
    rounds : int
        R, the number of rounds, >= 1.
    local_steps : int
        K, noisy one-record steps per silo per round, >= 1.
    rate : float or array_like
        η_r, the step size, or one per round (R entries), finite and >= 0.
    sigma : float or array_like
        σ, the noise standard deviation, >= 0, or one σ_i per silo (paper 003 Theorem H.1: each silo
        gets its own guarantee, reported in ``config["silo_privacy"]``; the run's guarantees are the
        worst silo's). An array whose entries are all equal runs exactly as the scalar.
    clip : float, default inf
        V, the per-sample gradient clipping norm, > 0 (inf: no clipping, no guarantee).
    silos_per_round : int, optional
        M, silos drawn without replacement each round, in [1, N]; default all N.
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

    Returns
    -------
    RunResult
        The run; ``config["K"]`` is ``local_steps``.

    Raises
    ------
    ValueError
        When ``rounds`` or K < 1, ``silos_per_round`` is not in [1, N], ``sigma`` is negative or an
        array without one entry per silo, ``clip`` <= 0, ``rate`` is not a scalar or a length-R
        array of finite values >= 0, ``initial`` has the wrong shape, or ``every`` < 1.

    References
    ----------
    Paper 003, Appendix I and Theorem H.1.
    """
    return _isrl(
        data,
        True,
        rounds,
        local_steps,
        rate,
        sigma,
        clip,
        silos_per_round,
        math.inf,
        seed,
        initial,
        test,
        every,
        trajectory,
        progress,
        threads,
    )
