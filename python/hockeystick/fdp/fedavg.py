"""Noisy FedAvg, final model released (paper 004 Algorithm 1, Theorem 12), as a mu-GDP accountant.

m clients all take part in each of T rounds; each runs K local steps of clipped gradient descent
(clip V, L-smooth loss) with rates eta_{k,t}, uploads its model plus N(0, sigma^2 I); the server
averages (noise sigma^2/m).  Neighbours differ in one sample at one client.  Per round
(Lemmas 20-21, eq. 29-30):

    rho_t = prod_{k<K} (1 + eta_{k,t} L),      gamma_t = (2V/m) sum_{k<K} eta_{k,t}.

Schedules, learning rate a:  constant eta = a;  cyclic a/(k+1);  stage-wise a/(t+1);
continuous a/(tK+k+1).  Exact per-round values (the paper replaces them by approximations):

    constant    log rho = K log(1 + aL),                      sum eta = aK
    cyclic      log rho = log Gamma(K+1+aL) - log Gamma(1+aL) - log Gamma(K+1),  sum eta = a H_K
    stage-wise  log rho_t = K log(1 + aL/(t+1)),              sum eta = aK/(t+1)
    continuous  log rho_t = sum_k log(1 + aL/(tK+k+1)),       sum eta = a (psi((t+1)K+1) - psi(tK+1))

``mu`` (valid, the default) is the exact minimum of the interpolation bound over admissible weights;
for the constant and cyclic schedules it equals ``mu_composition`` = sqrt(m T) gamma / sigma, and
the linear loss +-V w_1 (L = 0, so inside every L-smooth class) attains it: it is tight there.
``mu_paper_h0`` is eq. 16, for reproducing the paper; it is false for constant and cyclic rates, T
>= 2.

``mu_paper`` is the paper's closed-form theorem value, with the exact sums:
    constant    eq. 17 (identical to eq. 16 = ``mu_paper_h0``; NOT a valid bound for T >= 2),
                limit 2aVK/(sqrt(m) sigma) sqrt((r+1)/(r-1)), r = rho
    cyclic      eq. 18 corrected: eq. 17's form with the exact rho and sum eta above (the printed
                eq. 18 drops the factor a in gamma and replaces H_K and rho by c ln(K+1), (1+K)^{caL});
                equal to ``mu_paper_h0``, NOT a valid bound for T >= 2
    stage-wise  eq. 19: 2aVK/(sqrt(m) sigma) sqrt(2 - 1/T), an upper bound on ``mu_composition``
                (sum_t 1/(t+1)^2 <= 2 - 1/T); limit sqrt(2) 2aVK/(sqrt(m) sigma).  Valid.
    continuous  eq. 20 corrected: 2aV/(sqrt(m) sigma) sqrt(H_K^2 + zeta(2) - psi'(T)), an upper bound
                on ``mu_composition`` (gamma_0 = 2aV H_K/m, gamma_t <= 2aV/(m t) for t >= 1); the
                printed eq. 20 drops a and treats z (which grows like H_K / ln 2) as a constant.  Valid.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from .. import _core
from ..base.elementwise import check_threads
from ..base.validation import (
    MAX_EXACT_INTEGER,
    broadcast,
    choice,
    nonnegative,
    nonnegative_integer,
    positive,
    positive_integer,
)
from .interpolation import (
    InterpolationBound,
    LastIterateAccountant,
    constant_rate_root_h0,
    mu_coefficient,
)

__all__ = ["NoisyFedAvg", "SCHEDULES", "schedule_round_factors"]

# paper 004's local learning-rate schedules (Table 1)
Schedule = Literal["constant", "cyclic", "stagewise", "continuous"]
SCHEDULES: tuple[Schedule, ...] = ("constant", "cyclic", "stagewise", "continuous")
CONTINUOUS_MAX_STEPS = (
    2**24
)  # schedule_round_factors sums the continuous schedule over its steps, in numpy


def schedule_round_factors(
    schedule: Schedule,
    learning_rate: npt.ArrayLike,
    lipschitz: npt.ArrayLike,
    local_steps: npt.ArrayLike,
    round_index: npt.ArrayLike,
) -> tuple[np.ndarray, np.ndarray]:
    r"""Exact per-round factors (log rho_t, sum_k eta_{k,t}) of a noisy-FedAvg schedule at round t.

    :math:`\rho_t = \prod_{k<K}(1 + \eta_{k,t} L)` and :math:`\sum_{k<K} \eta_{k,t}`, in closed form
    (log-gamma, digamma) where one exists:

    - constant, :math:`\eta = a`: :math:`\log\rho_t = K\log(1 + aL)`, step sum :math:`aK`;
    - cyclic, :math:`a/(k+1)`: :math:`\log\rho_t = -\log K - \log B(1 + aL, K)`, step sum
      :math:`a H_K`;
    - stagewise, :math:`a/(t+1)`: :math:`\log\rho_t = K\log(1 + aL/(t+1))`, step sum
      :math:`aK/(t+1)`;
    - continuous, :math:`a/(tK+k+1)`: :math:`\log\rho_t = \sum_{k<K}\log(1 + aL/(tK+k+1))`, step sum
      :math:`a(\psi((t+1)K+1) - \psi(tK+1))`

    (the cyclic product below aL = 0.01 by its series in aL, to 8 terms). The paper's printed eq. 18
    and 20 drop the factor a in gamma and replace these sums by approximations (paper-004 errata,
    sections 3 and 5); these are the exact values. :math:`\gamma_t = (2V/m)` times the returned step
    sum.

    Parameters
    ----------
    schedule : {"constant", "cyclic", "stagewise", "continuous"}
        Local rates :math:`\eta_{k,t}`: a, a/(k+1), a/(t+1), a/(tK+k+1).
    learning_rate : array_like
        Base rate a, finite and > 0.
    lipschitz : array_like
        Smoothness constant L, finite and >= 0.
    local_steps : array_like
        Local steps K, a whole number >= 1 (at most 2^24 for "continuous", 2^53 otherwise).
    round_index : array_like
        Round t, 0-based, a whole number in [0, 2^53].

    Returns
    -------
    tuple of numpy.ndarray
        ``(log_rho, step_sum)`` at each broadcast point (numpy scalars for scalar input).

    Raises
    ------
    ValueError
        An unknown ``schedule``; an argument outside its range above; shapes that do not broadcast.
    ParameterTypeError
        A numeric argument that is a string, bool or None.

    References
    ----------
    Paper 004, Theorem 12 (eq. 17-20), Lemmas 20-21 (eq. 29-30), Table 3; docs/paper-004-errata.md,
    sections 2-5.

    Examples
    --------
    >>> from hockeystick.fdp import schedule_round_factors
    >>> log_rho, steps = schedule_round_factors("stagewise", 0.01, 1.0, 5, [0, 1])
    >>> log_rho.round(6), steps.round(6)
    (array([0.049752, 0.024938]), array([0.05 , 0.025]))
    """
    choice(schedule, "schedule", SCHEDULES)
    a = positive(learning_rate, "learning_rate")
    L = nonnegative(lipschitz, "lipschitz")
    # the continuous schedule's product is summed step by step (one pass over the K steps)
    K = positive_integer(
        local_steps,
        "local_steps",
        maximum=CONTINUOUS_MAX_STEPS if schedule == "continuous" else MAX_EXACT_INTEGER,
    )
    t = nonnegative_integer(round_index, "round_index")
    if (t > MAX_EXACT_INTEGER).any():
        raise ValueError(f"round_index must be <= 2^53, got {float(t.max()):g}")
    with np.errstate(over="ignore"):
        log_rho, unit_steps = unit_rate_factors(schedule, a * L, K, t)
    return log_rho, a * unit_steps


def unit_rate_factors(
    schedule: Schedule,
    rate_times_lipschitz: np.ndarray,
    local_steps: np.ndarray,
    round_index: np.ndarray | int,
) -> tuple[np.ndarray, np.ndarray]:
    """(log rho_t, sum_k eta_{k,t} / a) of a FedAvg schedule with rate a at round t, from x = a L.

    Every schedule's rate is a times a factor of (k, t), so rho_t depends on a and L through x = a L
    only and the step sum is a times its value at a = 1: the pair at a = 1, L = x.  x = inf (a L
    past the largest double) gives log rho = inf.
    """
    from scipy import special  # lazy: scipy start-up time (import hockeystick loads no scipy)

    x, K, t = rate_times_lipschitz, local_steps, round_index
    if schedule == "constant":
        return K * np.log1p(x) + 0 * t, K + 0 * t
    if schedule == "cyclic":
        # prod_{k=1..K} (1 + x/k) = 1 / (K B(1 + x, K)).  For small x the difference of the two logs
        # loses its digits, and sum_k log1p(x/k) = sum_n (-1)^(n+1) x^n H_n / n, H_n = sum_k k^-n =
        # zeta(n) - zeta(n, K + 1), is used below x = 0.01 to eight terms (the rest below x^9 / 9 <
        # 1e-18 of the first).
        harmonic = special.digamma(K + 1) + np.euler_gamma
        with np.errstate(
            over="ignore", invalid="ignore"
        ):  # each form is kept only where it is accurate
            series = x * harmonic
            for n in range(2, 9):
                series = (
                    series
                    + (-1) ** (n + 1) * x**n * (special.zeta(n, 1) - special.zeta(n, K + 1)) / n
                )
            gamma_form = np.maximum(-np.log(K) - special.betaln(1.0 + x, K), 0.0)
        return np.where(x < 0.01, series, gamma_form) + 0 * t, harmonic + 0 * t
    if schedule == "stagewise":
        return K * np.log1p(x / (t + 1)), K / (t + 1)
    lo, hi = t * K + 1, (t + 1) * K + 1
    # Differences of log-gamma lose digits when tK is large; sum log1p over the steps instead.
    x, lo, K = np.broadcast_arrays(x, lo, K)
    log_rho = np.zeros(x.shape)
    for k in range(int(K.max()) if K.size else 0):
        log_rho += np.where(k < K, np.log1p(x / (lo + k)), 0.0)
    return log_rho, special.digamma(hi) - special.digamma(lo)


class NoisyFedAvg(LastIterateAccountant):
    r"""GDP parameter mu and privacy profile of the final model of noisy FedAvg (paper 004, Theorem 12).

    m clients each run K local steps of clipped gradient descent (clip V, L-smooth loss, rates
    :math:`\eta_{k,t}` of the schedule) in each of T rounds and upload their model plus
    :math:`N(0, \sigma^2 I)`; only the final average is released. Per round

    .. math::

        \rho_t = \prod_{k<K} (1 + \eta_{k,t} L), \qquad \gamma_t = \frac{2V}{m} \sum_{k<K} \eta_{k,t},

    and the released model is mu-GDP with :math:`\mu = \sqrt{m H}/\sigma`, H from
    ``interpolation_bound``. ``delta(epsilon)`` is :math:`\theta(\mu, \varepsilon)` rounded up
    (eq. 8), ``epsilon(delta)`` its inverse.

    Attributes ``mu`` (the exact minimum of H over admissible interpolation weights: valid, the
    default of ``delta``/``epsilon``), ``mu_composition`` (GDP composition over the rounds,
    :math:`H = \sum_t \gamma_t^2`: valid), ``mu_paper_h0`` (the paper's eq. 16: a bound only where
    ``h0_attained``), ``mu_paper`` and ``mu_paper_limit`` (the theorem's closed forms, eq. 17-20
    with exact sums, and their T -> infinity limits; the module docstring lists them per schedule).

    For the constant and cyclic schedules rho is constant and > 1, so eq. 41 fails for T >= 2:
    ``mu`` equals ``mu_composition`` :math:`= \sqrt{mT}\,\gamma/\sigma`, which a linear loss
    attains, and the paper's convergent value (``mu_paper_h0`` = ``mu_paper``, eq. 17/18) is not a
    valid bound (paper-004 errata, section 1). Decaying schedules (stage-wise, continuous) can meet
    eq. 41.

    Parameters
    ----------
    clients : array_like
        Number of clients m (all take part each round), finite and > 0.
    sigma : array_like
        Standard deviation of each client's upload noise, finite and > 0.
    clip : array_like
        Clipping norm V of the local gradients, finite and >= 0.
    lipschitz : array_like
        Smoothness constant L of the loss (Lipschitz constant of its gradient), finite and >= 0.
    learning_rate : array_like
        Base learning rate a, finite and > 0.
    local_steps : array_like
        Local steps K per round, a whole number in [1, 2^53].
    rounds : array_like
        Rounds T, a whole number in [1, 2^53].
    schedule : {"constant", "cyclic", "stagewise", "continuous"}, default "constant"
        Local rates :math:`\eta_{k,t}`: a, a/(k+1), a/(t+1), a/(tK+k+1).
    threads : int, optional
        OpenMP threads of the stage-wise and continuous engine.

    Raises
    ------
    ValueError
        A parameter outside its range above; an unknown ``schedule``; for the stage-wise and
        continuous schedules, :math:`(1 + aL)^K` above :math:`e^{700}`; shapes that do not
        broadcast.
    ParameterTypeError
        A numeric parameter that is a string, bool or None.

    Notes
    -----
    The parameters are keyword-only; the numeric ones broadcast together, and with the argument of
    ``delta``/``epsilon``.

    References
    ----------
    Paper 004, Algorithm 1, Theorem 12 (eq. 16-20), Lemmas 20-21 (eq. 29-30), Lemma 7 (eq. 8);
    docs/paper-004-errata.md, sections 1-5 (what is computed where the printed formulas differ).

    Examples
    --------
    Paper 004's regression parameters: the paper's eq. 17 value and the valid (tight) one.

    >>> from hockeystick.fdp import NoisyFedAvg
    >>> fedavg = NoisyFedAvg(
    ...     clients=20, sigma=1.0, clip=10.0, lipschitz=1.0, learning_rate=0.01, local_steps=5, rounds=600
    ... )
    >>> round(fedavg.mu_paper_h0, 9), round(fedavg.mu, 6), fedavg.h0_attained
    (1.417885043, 5.477226, False)
    >>> round(fedavg.epsilon(1e-5), 4)
    37.6225
    """

    def __init__(
        self,
        *,
        clients: npt.ArrayLike,
        sigma: npt.ArrayLike,
        clip: npt.ArrayLike,
        lipschitz: npt.ArrayLike,
        learning_rate: npt.ArrayLike,
        local_steps: npt.ArrayLike,
        rounds: npt.ArrayLike,
        schedule: Schedule = "constant",
        threads: int | None = None,
    ) -> None:
        from scipy import special  # lazy: scipy start-up time (import hockeystick loads no scipy)

        self.schedule = choice(schedule, "schedule", SCHEDULES)
        p = broadcast(
            clients=positive(clients, "clients"),
            sigma=positive(sigma, "sigma"),
            clip=nonnegative(clip, "clip"),
            lipschitz=nonnegative(lipschitz, "lipschitz"),
            learning_rate=positive(learning_rate, "learning_rate"),
            # counts up to 2^53: consecutive in double, and within the engine's 64-bit loop counters
            local_steps=positive_integer(local_steps, "local_steps", maximum=MAX_EXACT_INTEGER),
            rounds=positive_integer(rounds, "rounds", maximum=MAX_EXACT_INTEGER),
        )
        self.parameters = p
        m, a, L, K, T = (
            p["clients"],
            p["learning_rate"],
            p["lipschitz"],
            p["local_steps"],
            p["rounds"],
        )
        # gamma_t = (2V/m) a s_t, s_t the step sum at a = 1, so H = ((2V/m) a)^2 H_s with H_s the
        # bound of the s_t, and mu = sqrt(m H) / sigma = 2 V a / (sqrt(m) sigma) sqrt(H_s):
        # sqrt(H_s) is kept.
        self._coefficient = mu_coefficient((2.0, p["clip"], a), (np.sqrt(m), p["sigma"]))
        with np.errstate(over="ignore"):
            x = a * L  # inf past the largest double: log rho = inf
        if schedule in ("constant", "cyclic"):
            log_rho, steps = unit_rate_factors(schedule, x, K, 0)
            # sqrt(H) = s sqrt(ratio) with ratio = H / s^2, which eq. 16 gives at gamma = 1.
            root_h0, self._root_paper_h_limit = constant_rate_root_h0(log_rho, steps, T)
            root_comp = steps * np.sqrt(T)
            # Constant rho >= 1: the cumulative-sum diagram is convex, so lambda == 1 is optimal.
            self._root_h = InterpolationBound(
                root_h0, root_comp, root_comp, (T == 1) | (log_rho == 0)
            )
            self._root_paper_h = root_h0
            return
        # Round 0 has the largest factor, rho_0 <= (1 + aL)^K; it must stay a finite double.
        with np.errstate(over="ignore"):
            too_big = K * np.log1p(x) > 700.0
        if too_big.any():
            i = tuple(np.argwhere(too_big)[0])
            raise ValueError(
                f"(1 + learning_rate * lipschitz)^local_steps must stay below e^700 for the "
                f"{schedule} schedule (got learning_rate={a[i]!r}, lipschitz={L[i]!r}, "
                f"local_steps={K[i]!r}); the bound there is the composition value"
            )
        code = SCHEDULES.index(schedule)
        unit_rate = np.ones(x.size)
        fx, fk, ft = (np.ascontiguousarray(v.ravel()) for v in (x, K, T))
        raw = _core.fdp.fedavg_interpolation(
            code,
            learning_rate=unit_rate,
            lipschitz=fx,
            local_steps=fk,
            rounds=ft,
            threads=check_threads(threads),
        )
        h0, h_opt, h_comp, attained = (np.asarray(r).reshape(m.shape) for r in raw)
        if not (np.isfinite(h0).all() and np.isfinite(h_opt).all()):
            raise RuntimeError(
                "hockeystick internal error: non-finite interpolation bound; please report it"
            )
        if schedule == "stagewise":
            # s_t = K / (t + 1): sum_t s_t^2 = K^2 (zeta(2) - psi'(T + 1)), and eq. 19's K^2 (2 -
            # 1/T).
            root_comp_closed = K * np.sqrt(np.pi**2 / 6 - special.polygamma(1, T + 1))
            self._root_h = InterpolationBound(
                np.sqrt(h0), np.sqrt(h_opt), root_comp_closed, attained.astype(bool)
            )
            self._root_paper_h = K * np.sqrt(2.0 - 1.0 / T)
            self._root_paper_h_limit = K * np.sqrt(2.0)
            return
        harmonic = special.digamma(K + 1) + np.euler_gamma
        self._root_h = InterpolationBound(
            np.sqrt(h0), np.sqrt(h_opt), np.sqrt(h_comp), attained.astype(bool)
        )
        self._root_paper_h = np.sqrt(harmonic**2 + np.pi**2 / 6 - special.polygamma(1, T))
        self._root_paper_h_limit = np.sqrt(harmonic**2 + np.pi**2 / 6)

    @property
    def mu_paper(self) -> float | np.ndarray:
        """The theorem's closed form (eq. 17-20 with exact sums; see the module docstring).

        Constant and cyclic: eq. 16's H0 (``mu_paper_h0``), not a valid bound for T >= 2.
        Stage-wise and continuous: an upper bound on ``mu_composition``, valid."""
        return self._mu_of(self._root_paper_h)

    @property
    def mu_paper_limit(self) -> float | np.ndarray:
        """T -> infinity limit of ``mu_paper``."""
        return self._mu_of(self._root_paper_h_limit)

    def __repr__(self) -> str:
        return f"NoisyFedAvg(schedule={self.schedule!r}, shape={np.shape(self._root_h.h0)})"
