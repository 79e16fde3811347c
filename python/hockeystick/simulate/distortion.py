"""Federated learning with parameter distortion (paper 001, Algorithms 1-3), utility beside leakage.

Every round t each client k
    (Alg. 2) draws each of its records independently with probability p (the sampling rate) and
             takes one step W_t^(k) = W~_t - eta (1/|S|) sum_{i in S} grad L(W~_t, d_i)
             (no step when it draws no record; gradients clipped to norm V if ``clip`` is finite);
    (Alg. 3) uploads the distorted W~_{t+1}^(k) = W_t^(k) + N(0, sigma_eps^2 I_d);
and the server averages W~_{t+1} = sum_k (n_k / n) W~_{t+1}^(k) (Alg. 1).

sigma_eps^2 is given (``distortion_variance``) or calibrated from a leakage budget like Algorithm 1:
``calibration="paper"`` uses Lemma 5.8's 100 sigma^2 (C_1 - tau) / sqrt(d) (valid for 0 < C_1 - tau
< 0.01); ``calibration="exact"`` the smallest variance whose exact TV is C_1 - tau. sigma^2
(``parameter_variance``) is the variance of the undistorted parameter, the paper's modelling input;
the run reports, beside loss and accuracy, the exact TV and JS between N(., sigma^2 I_d) and N(.,
(sigma^2 + sigma_eps^2) I_d) and Lemma 5.7's bracket (see :mod:`hockeystick.leakage`).  This is
Bayesian leakage as paper 001 defines it, not (eps, delta)-DP: ``privacy`` stays empty.  Given the
optimum W* (``optimum``), the run also reports the utility loss of Definition 3 (eqs. 2-4), eps_u =
mean over clients and rounds of ||W_t^(k) - W*||^2 - ||W~_t^(k) - W*||^2 (negative on average under
zero-mean distortion: docs/paper-001-errata.md section 6).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numba
import numpy as np
from numba import njit, prange

from .. import leakage
from .data import FederatedData
from .models import add_batch_gradient, coefficient_count, model_code, parameter_size
from .randomness import NOISE, SAMPLING, generator
from .result import RunResult
from .rounds import run_rounds


@njit(parallel=True, cache=True)
def poisson_client_gradients(
    model, n_coef, w, features, norms, labels, offsets, uniforms, rate, clip, out
):
    """out[k] = mean clipped gradient at w over client k's records i with uniforms[i] < rate (Alg.
    2's Poisson sample); out[k] = 0 and drawn[k] = 0 when it draws none.  Returns drawn (records per
    client)."""
    n_clients = offsets.shape[0] - 1
    drawn = np.zeros(n_clients, dtype=np.int64)
    for k in prange(n_clients):
        lo, hi = offsets[k], offsets[k + 1]
        rows = np.empty(hi - lo, dtype=np.int64)
        count = 0
        for i in range(lo, hi):
            if uniforms[i] < rate:
                rows[count] = i
                count += 1
        drawn[k] = count
        if count == 0:
            out[k, :] = 0.0
        else:
            add_batch_gradient(
                model, w, features, norms, labels, rows[:count], clip, np.empty(n_coef), out[k]
            )
    return drawn


@dataclass(frozen=True)
class LeakageReport:
    r"""Paper 001's leakage quantities for one client's upload (all clients share the variance).

    The two laws compared are :math:`P = \mathcal{N}(\cdot, \sigma^2 I_d)` (the undistorted
    parameter) and :math:`\tilde P = \mathcal{N}(\cdot, (\sigma^2 + \sigma_\epsilon^2) I_d)` (the
    distorted upload). This is Bayesian leakage as paper 001 defines it, not (epsilon, delta)-DP.

    Parameters
    ----------
    parameter_variance : float
        σ², the variance of the undistorted parameter, > 0.
    distortion_variance : float
        σ_ε², the variance of the distortion noise, >= 0.
    dimension : int
        d, the parameter dimension.
    tv : float
        The exact total variation distance TV(P, P~), in [0, 1].
    js : float
        The exact Jensen-Shannon divergence JS(P, P~), in nats.
    tv_bracket : tuple of (float, float)
        Lemma 5.7's (lower, upper) bracket on the TV, the paper's formula.
    calibration : {"given", "paper", "exact"}
        How σ_ε² was chosen: given, Lemma 5.8's calibration, or the exact TV target.
    tv_target : float or None
        C_1 − τ when σ_ε² was calibrated, else None.

    References
    ----------
    Paper 001, Lemmas 5.7 and 5.8.
    """

    parameter_variance: float
    distortion_variance: float
    dimension: int
    tv: float
    js: float
    tv_bracket: tuple[float, float]
    calibration: str
    tv_target: float | None = None

    def lines(self) -> list[str]:
        lo, hi = self.tv_bracket
        target = "" if self.tv_target is None else f", target C_1 - tau = {self.tv_target:.6g}"
        return [
            f"  parameter distortion sigma_eps^2 = {self.distortion_variance:.6g} ({self.calibration}{target}), "
            f"sigma^2 = {self.parameter_variance:.6g}, d = {self.dimension}",
            f"  exact TV(P, P~) = {self.tv:.6g}  [Lemma 5.7 bracket, paper formula: {lo:.3g} .. {hi:.3g}]",
            f"  exact JS(P, P~) = {self.js:.6g} nats (sqrt {math.sqrt(self.js):.6g})",
        ]


@dataclass
class DistortionRunResult(RunResult):
    """A :class:`RunResult` with paper 001's leakage report and, given W*, Definition 3's utility loss.

    ``privacy`` stays empty: the run's guarantee is Bayesian leakage (``leakage``), not DP.

    Parameters
    ----------
    algorithm, config, weights, metric_rounds, loss, accuracy, privacy, test_loss, test_accuracy, trajectory
        As in :class:`RunResult`.
    leakage : LeakageReport or None
        The leakage quantities of one client's upload.
    utility_loss : float or None
        Definition 3's utility loss ε_u, when the optimum W* was given, else None.

    References
    ----------
    Paper 001, Definition 3 (eqs. 2-4).
    """

    leakage: LeakageReport | None = None
    utility_loss: float | None = None

    def summary(self, delta: float = 1e-5) -> str:
        lines = [super().summary(delta)]
        if self.leakage is not None:
            lines += self.leakage.lines()
        if self.utility_loss is not None:
            lines.append(f"  utility loss eps_u (Definition 3, eq. 4) = {self.utility_loss:.6g}")
        return "\n".join(lines)


def _distortion_variance(
    parameter_variance: float,
    dimension: int,
    distortion_variance: float | None,
    c1: float | None,
    tau: float | None,
    calibration: str,
) -> tuple[float, float | None]:
    if distortion_variance is not None:
        if c1 is not None or tau is not None:
            raise ValueError("give either distortion_variance or (c1, tau), not both")
        if not distortion_variance >= 0 or not math.isfinite(distortion_variance):
            raise ValueError("distortion_variance must be finite and >= 0")
        return float(distortion_variance), None
    if c1 is None or tau is None:
        raise ValueError("give distortion_variance, or c1 and tau to calibrate it (Algorithm 1)")
    if calibration == "paper":
        return float(
            leakage.paper_distortion_variance(parameter_variance, dimension, c1, tau)
        ), c1 - tau
    if calibration == "exact":
        target = float(leakage.paper_required_tv(c1, tau))
        return float(
            leakage.distortion_variance_for_tv(parameter_variance, dimension, target)
        ), target
    raise ValueError(f"calibration must be 'paper' or 'exact', got {calibration!r}")


def _check_distortion(
    rounds: int, rate: float, sampling_rate: float, clip: float, parameter_variance: float
) -> None:
    """``parameter_distortion``'s scalar arguments: rounds >= 1, rate > 0, 0 < sampling_rate <= 1,
    clip > 0, parameter_variance finite and > 0."""
    if rounds < 1:
        raise ValueError("rounds must be >= 1")
    if not rate > 0 or not 0 < sampling_rate <= 1 or not clip > 0:
        raise ValueError("need rate > 0, 0 < sampling_rate <= 1 and clip > 0")
    if not (parameter_variance > 0 and math.isfinite(parameter_variance)):
        raise ValueError("parameter_variance must be finite and > 0")


def _start_and_optimum(
    initial: np.ndarray | None, optimum: np.ndarray | None, p: int
) -> tuple[np.ndarray, np.ndarray | None]:
    """W_0 (zeros, or a float copy of ``initial``) and W* (None if not given), each of shape (p,)."""
    w0 = np.zeros(p) if initial is None else np.array(initial, dtype=float)
    w_star = None if optimum is None else np.asarray(optimum, dtype=float)
    if w0.shape != (p,) or (w_star is not None and w_star.shape != (p,)):
        raise ValueError(f"initial and optimum must have shape ({p},)")
    return w0, w_star


def _leakage_report(
    parameter_variance: float, variance: float, p: int, calibration: str, target: float | None
) -> LeakageReport:
    """The exact TV and JS between the two parameter laws, the TV bracket, and how sigma_eps^2 was chosen."""
    bracket = leakage.tv_bracket(parameter_variance, variance, p)
    return LeakageReport(
        parameter_variance=float(parameter_variance),
        distortion_variance=variance,
        dimension=p,
        tv=float(leakage.tv_exact(parameter_variance, variance, p)),
        js=float(leakage.js_exact(parameter_variance, variance, p)),
        tv_bracket=(float(bracket[0]), float(bracket[1])),
        calibration="given" if target is None else calibration,
        tv_target=target,
    )


def parameter_distortion(
    data: FederatedData,
    *,
    rounds: int,
    rate: float,
    sampling_rate: float,
    parameter_variance: float,
    distortion_variance: float | None = None,
    c1: float | None = None,
    tau: float | None = None,
    calibration: Literal["paper", "exact"] = "paper",
    clip: float = math.inf,
    optimum: np.ndarray | None = None,
    seed: int = 0,
    initial: np.ndarray | None = None,
    test: FederatedData | None = None,
    every: int | None = None,
    trajectory: bool = False,
    progress: bool = False,
    threads: int | None = None,
) -> DistortionRunResult:
    r"""Train with paper 001's Algorithms 1-3 and report utility beside the leakage quantities.

    Each round every client k draws each of its records with probability p, takes one step
    :math:`W_t^{(k)} = \tilde W_t - \eta\,\frac{1}{|S|}\sum_{i\in S}\nabla L(\tilde W_t, d_i)` (none
    when it draws no record), and uploads :math:`\tilde W_{t+1}^{(k)} = W_t^{(k)} + \mathcal{N}(0,
    \sigma_\epsilon^2 I_d)`; the server averages :math:`\tilde W_{t+1} = \sum_k (n_k/n)\,\tilde
    W_{t+1}^{(k)}`. Given W*, the utility loss is

    .. math::

        \epsilon_u = \frac{1}{T}\sum_{t} \operatorname{mean}_k
        \left(\|W_t^{(k)} - W^*\|^2 - \|\tilde W_{t+1}^{(k)} - W^*\|^2\right).

    Parameters
    ----------
    data : FederatedData
        The clients' training samples.
    rounds : int
        T, the number of rounds, >= 1.
    rate : float
        The step size η, > 0.
    sampling_rate : float
        p, each record's probability of being drawn in a round, in (0, 1].
    parameter_variance : float
        σ², the variance of the undistorted parameter (the paper's modelling input), finite and > 0.
    distortion_variance : float, optional
        σ_ε², finite and >= 0; give it, or ``c1`` and ``tau``, not both.
    c1, tau : float, optional
        The leakage budget: σ_ε² is calibrated so the TV is C_1 − τ.
    calibration : {"paper", "exact"}, default "paper"
        "paper": Lemma 5.8's σ_ε² = 100 σ² (C_1 − τ)/√d (valid for 0 < C_1 − τ < 0.01); "exact": the
        smallest σ_ε² whose exact TV is C_1 − τ.
    clip : float, default inf
        Per-sample gradient clipping norm V, > 0 (inf: no clipping).
    optimum : array_like, optional
        W*, shape (p,), for Definition 3's utility loss.
    seed : int, default 0
        Seed of the sampling and noise streams (independent of the thread count).
    initial : array_like, optional
        W_0, shape (p,); default zeros.
    test : FederatedData, optional
        Held-out data on which the metrics are also taken.
    every : int, optional
        Take the metrics every ``every`` rounds (and at round 0 and the last); default max(1, T //
        10).
    trajectory : bool, default False
        Keep every iterate.
    progress : bool, default False
        Show a progress bar.
    threads : int, optional
        numba's thread count for the run.

    Returns
    -------
    DistortionRunResult
        The run, with ``leakage`` (exact TV and JS, Lemma 5.7's bracket) and ``utility_loss`` (given
        ``optimum``); ``privacy`` is empty.

    Raises
    ------
    ValueError
        When ``rounds`` < 1, ``rate`` <= 0, ``sampling_rate`` not in (0, 1], ``clip`` <= 0,
        ``parameter_variance`` not finite and > 0, both or neither of ``distortion_variance`` and
        (``c1``, ``tau``) are given, ``distortion_variance`` is not finite and >= 0, ``calibration``
        is unknown, ``initial`` or ``optimum`` has the wrong shape, or ``every`` < 1.

    References
    ----------
    Paper 001, Algorithms 1-3, Definition 3 (eqs. 2-4), Lemmas 5.7 and 5.8.
    """
    _check_distortion(rounds, rate, sampling_rate, clip, parameter_variance)
    code = model_code(data.model)
    p = parameter_size(data.model, data.n_features, data.n_classes)
    variance, target = _distortion_variance(
        parameter_variance, p, distortion_variance, c1, tau, calibration
    )
    w0, w_star = _start_and_optimum(initial, optimum, p)
    if threads is not None:
        numba.set_num_threads(threads)
    m = data.n_clients
    weights = np.diff(data.offsets).astype(float) / data.offsets[-1]  # n_k / n
    sampling, noising = generator(seed, SAMPLING), generator(seed, NOISE)
    uniforms = np.empty(data.offsets[-1])
    grads = np.empty((m, p))
    n_coef = coefficient_count(code, data.n_classes)
    norms = data.row_norms
    w_global: np.ndarray = w0
    gap_sum = 0.0  # sum over rounds of the clients' mean eps_u (Definition 3)

    def step(t: int) -> np.ndarray:
        nonlocal w_global, gap_sum
        sampling.random(out=uniforms)
        poisson_client_gradients(
            code,
            n_coef,
            w_global,
            data.features,
            norms,
            data.labels,
            data.offsets,
            uniforms,
            float(sampling_rate),
            float(clip),
            grads,
        )
        local = w_global[None, :] - rate * grads  # W_t^(k)
        uploads = local + math.sqrt(variance) * noising.standard_normal((m, p))  # W~_{t+1}^(k)
        if w_star is not None:
            gap_sum += float(
                np.mean(
                    np.sum((local - w_star) ** 2, axis=1) - np.sum((uploads - w_star) ** 2, axis=1)
                )
            )
        w_global = weights @ uploads
        return w_global

    out = run_rounds(
        rounds,
        step,
        w0,
        data,
        test=test,
        every=every or max(1, rounds // 10),
        trajectory=trajectory,
        progress=progress,
        description="parameter distortion",
    )
    report = _leakage_report(parameter_variance, variance, p, calibration, target)
    config = dict(
        rounds=rounds,
        rate=rate,
        sampling_rate=sampling_rate,
        parameter_variance=parameter_variance,
        distortion_variance=variance,
        c1=c1,
        tau=tau,
        calibration=calibration,
        clip=clip,
        seed=seed,
        clients=m,
    )
    return DistortionRunResult(
        "parameter distortion",
        config,
        out["weights"],
        out["metric_rounds"],
        out["loss"],
        out["accuracy"],
        [],
        out["test_loss"],
        out["test_accuracy"],
        out["trajectory"],
        leakage=report,
        utility_loss=None if w_star is None else gap_sum / rounds,
    )
