"""Monte Carlo estimate of delta(eps) for a non-negative matrix mechanism under balls-in-bins
sampling, with an upper confidence bound that holds with a stated probability over the Monte Carlo
draws.

The dominating pair (Choquette-Choo, Ganesh, Haque, Steinke, Thakurta 2024, "Near exact privacy
amplification for matrix mechanisms", arXiv:2410.06266, Sec. 3, Lemma 3.2 and Sec. 4): for C lower
triangular with non-negative entries, n rounds, b bins (``BallsInBinsSampling(b)``: rounds t, t +
b, ... for a uniform bin t) and noise multiplier z, the release under add or remove one record is
dominated by

    P = (1/b) sum_t N(mu_t, z^2 I),  Q = N(0, z^2 I),  mu_t = C 1_{t, t+b, ...},

in both directions (P vs Q and Q vs P).  Its privacy loss is
L(y) = logsumexp_t((<y, mu_t> - ||mu_t||^2 / 2) / z^2) - log b, and

    delta(eps) = max(E_{y~P}[(1 - e^{eps - L(y)})_+], E_{y~Q}[(1 - e^{eps + L(y)})_+]),

each an expectation of a quantity in [0, 1].  Each is estimated by the mean of N independent draws,
and bounded above by the Chernoff-Hoeffding (Bernoulli KL) bound for a mean of [0, 1]-valued i.i.d.
draws: with probability >= 1 - beta/2 over the draws, the expectation is at most

    sup{m >= mean : N kl(mean || m) <= log(2 / beta)}

(Hoeffding 1963, Thm 1: the [0, 1] mean's moment generating function is at most a Bernoulli's with
the same mean); a union bound over the two directions gives "delta(eps) <= x with probability >= 1 -
beta over the Monte Carlo draws".  This is a statistical statement, not a proof: an unlucky draw
(probability <= beta) understates delta.  Beside it stand two bounds that hold without any
probability: the lower side of a realizable pair (``RealizableLowerSide``) and the upper side
without amplification (the worst bin's Gaussian mechanism, ``MatrixMechanism`` over
``FixedEpochs(b)``; by joint convexity of the hockey-stick divergence the mixture is below its worst
component).

Draws come from ``numpy.random.default_rng(seed)``: the same seed gives the same draws.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ..base.outward_text import outward_text
from ..base.validation import (
    count,
    describe,
    epsilon_target,
    in_interval,
    moderate,
    positive_number,
)
from .accountant import MatrixMechanism
from .monte_carlo_bounds import MonteCarloKind, kl_upper_confidence, mean_with_confidence_bound
from .participation import FixedEpochs
from .realizable_lower import RealizableLowerSide
from .sampling_laws import BallsInBinsSampling
from .sensitivity import l2_sensitivity
from .strategies import DenseStrategy

if TYPE_CHECKING:
    from .monte_carlo_pld import MonteCarloPLD

__all__ = ["BallsInBinsMonteCarlo", "MonteCarloDelta", "dominated_strategy", "kl_upper_confidence"]

_CHUNK = 4096  # draws per batch (memory: CHUNK x rounds doubles)


@dataclass(frozen=True)
class MonteCarloDelta:
    """One reading of delta(eps): a Monte Carlo estimate with its confidence bound, and two proved bounds.

    Parameters
    ----------
    epsilon : float
        eps.
    estimate : float
        The Monte Carlo estimate of delta(eps) (the larger direction's mean).
    standard_error : float
        The standard error of that mean.
    confidence_bound : float
        x such that delta(eps) <= x with probability >= 1 - beta over the Monte Carlo draws.
    beta : float
        The failure probability of ``confidence_bound``.
    draws : int
        The number of draws per direction.
    seed : int or None
        The seed of the draws.
    certified_lower : float
        A lower bound on delta(eps) that holds without any probability (``RealizableLowerSide``).
    unamplified_upper : float
        An upper bound on delta(eps) that holds without any probability: no amplification claimed.
    kind : {"estimate with confidence bound"}
        What ``estimate`` and ``confidence_bound`` are (``MonteCarloKind``): a sample mean and a
        bound that holds with probability >= 1 - beta over the draws, never certified.
    support_bound : float, default 1
        B, the bound on every draw that ``confidence_bound`` rests on: 1 for plain draws, B(alpha)
        for importance sampled ones (``matrix.importance_sampling``).
    stretch : float, default 1
        alpha, the stretch of the importance sampler's proposal (1: plain draws from the pair).
    """

    epsilon: float
    estimate: float
    standard_error: float
    confidence_bound: float
    beta: float
    draws: int
    seed: int | None
    certified_lower: float
    unamplified_upper: float
    kind: MonteCarloKind = "estimate with confidence bound"
    support_bound: float = 1.0
    stretch: float = 1.0

    def __repr__(self) -> str:
        """The reading with each number labelled: the estimate and its confidence bound not
        certified (they hold with a probability over the draws), the two proved sides certified."""
        return (
            f"MonteCarloDelta(epsilon={self.epsilon:g}: estimate {self.estimate:.6g} (standard error "
            f"{self.standard_error:.2g}) and confidence_bound {self.confidence_bound:.6g} at probability "
            f">= {1.0 - self.beta:g} over {self.draws} draws a direction, seed {self.seed}"
            f"{'' if self.stretch == 1.0 else f', importance sampled (alpha {self.stretch:.4g}, B {self.support_bound:.3g})'}"
            f": {self.kind}, not certified; "
            f"certified_lower {outward_text(self.certified_lower, 'lower')} and unamplified_upper "
            f"{outward_text(self.unamplified_upper, 'upper')}: certified)"
        )

    def statement(self) -> str:
        """The reading in words, saying which number is estimated and which are proved."""
        return (
            f"delta({self.epsilon:g}) <= {self.confidence_bound:.6g} with probability >= {1.0 - self.beta:g} over the "
            f"Monte Carlo draws ({self.draws} per direction, seed {self.seed}); Monte Carlo estimate "
            f"{self.estimate:.6g} (standard error {self.standard_error:.2g}); proved: "
            f"{outward_text(self.certified_lower, 'lower')} <= delta <= {outward_text(self.unamplified_upper, 'upper')} "
            "(the upper side without amplification)"
        )


def dominated_strategy(strategy: npt.ArrayLike) -> DenseStrategy:
    """C as a ``DenseStrategy``, or a ValueError unless it is square, lower triangular and
    non-negative: the matrices for which the balls-in-bins dominating pair is proved (Choquette-Choo
    et al. 2024, arXiv:2410.06266, Lemma 3.2)."""
    chosen = DenseStrategy.named(strategy, "strategy")
    c = chosen.c
    n = c.shape[1]
    if c.shape[0] != n or (np.triu(c, 1) != 0).any() or not chosen.nonnegative:
        raise ValueError(
            f"strategy must be a square lower-triangular matrix with non-negative entries, got shape {c.shape}"
            f"{'' if chosen.nonnegative else ' with a negative entry'}: the balls-in-bins dominating pair "
            "(Choquette-Choo et al. 2024) is proved for such C; for others use RealizableLowerSide (a certified "
            "lower side) and DPFTRL (the upper side without amplification)"
        )
    return chosen


def _bins_means(c: np.ndarray, cycle_length: int) -> np.ndarray:
    """mu_t = C 1_{t, t+b, ...} for each bin t < min(b, n), as rows."""
    n = c.shape[1]
    return np.array([c[:, t::cycle_length].sum(axis=1) for t in range(min(cycle_length, n))])


class BallsInBinsMonteCarlo:
    r"""Monte Carlo estimate of delta(eps) for a non-negative lower-triangular C under balls-in-bins sampling.

    The release C x + z N(0, I), each record in one uniform bin t of b and taken in rounds t, t + b,
    ..., is dominated under add or remove one record by P = (1/b) sum_t N(mu_t, z^2 I) against Q =
    N(0, z^2 I), mu_t = C 1_{t, t+b, ...} (Choquette-Choo et al. 2024, arXiv:2410.06266, Sec. 3-4),
    so

    .. math::

        \delta(\varepsilon) = \max\big(\mathbb{E}_P[(1 - e^{\varepsilon - L})_+],\;
            \mathbb{E}_Q[(1 - e^{\varepsilon + L})_+]\big), \qquad
        L(y) = \log \frac{1}{b} \sum_t e^{(\langle y, \mu_t \rangle - \|\mu_t\|^2/2)/z^2}.

    ``draws`` privacy-loss draws are taken per direction at construction (numpy
    ``default_rng(seed)``); ``delta(epsilon, beta=...)`` gives their mean, and the bound x with
    "delta(eps) <= x with probability >= 1 - beta over the Monte Carlo draws"
    (``kl_upper_confidence`` at beta / 2 per direction), beside the lower side of a realizable pair
    (``RealizableLowerSide``) and the upper side without amplification, both of which hold without
    any probability. The module docstring has the derivation.

    Parameters
    ----------
    strategy : array_like
        C, a square lower-triangular matrix with non-negative entries (n x n, one row and column per
        round).
    noise_multiplier : float
        z, finite and > 0, in units of the clip norm.
    cycle_length : int
        b, the number of bins (rounds per epoch), a whole number >= 1.
    draws : int, default 100000
        Draws per direction, a whole number >= 1.
    seed : int, optional
        The seed of ``numpy.random.default_rng`` (None: fresh entropy, not reproducible).

    Raises
    ------
    ValueError
        ``strategy`` not a square lower-triangular matrix of finite non-negative entries with a
        non-zero entry, or above 2048 rounds; ``noise_multiplier`` not finite and > 0;
        ``cycle_length`` or ``draws`` not a whole number >= 1.
    ParameterTypeError
        A numeric argument that is a string, bool or None.

    References
    ----------
    Choquette-Choo, Ganesh, Haque, Steinke & Thakurta 2024, arXiv:2410.06266; Hoeffding 1963,
    Theorem 1; Chua et al. 2024, arXiv:2412.16802, Fact 4.2.

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.matrix import BallsInBinsMonteCarlo
    >>> run = BallsInBinsMonteCarlo(strategy=np.eye(4), noise_multiplier=1.0, cycle_length=2, draws=20000, seed=1)
    >>> reading = run.delta(1.0, beta=1e-3)
    >>> reading.certified_lower <= reading.estimate <= reading.confidence_bound
    True
    """

    def __init__(
        self,
        *,
        strategy: npt.ArrayLike,
        noise_multiplier: float,
        cycle_length: int,
        draws: int = 100_000,
        seed: int | None = None,
    ) -> None:
        chosen = dominated_strategy(strategy)
        c = chosen.c
        n = c.shape[1]
        self.noise_multiplier = moderate(
            positive_number(noise_multiplier, "noise_multiplier"), "noise_multiplier"
        )
        self.cycle_length = count(cycle_length, "cycle_length")
        self.draws = count(draws, "draws")
        if seed is not None and not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be a whole number or None, got {describe(seed)}")
        self.seed = None if seed is None else int(seed)
        self.strategy = c
        self._means = _bins_means(c, self.cycle_length)
        rng = np.random.default_rng(self.seed)
        self._remove_losses = self._losses(rng, from_p=True)
        self._add_losses = self._losses(rng, from_p=False)
        self._lower = RealizableLowerSide(
            strategy=c,
            rounds=n,
            noise_multiplier=self.noise_multiplier,
            sampling=BallsInBinsSampling(self.cycle_length),
        )
        self._unamplified = MatrixMechanism(
            sensitivity=l2_sensitivity(chosen, n, FixedEpochs(self.cycle_length)),
            noise_multiplier=self.noise_multiplier,
        )

    def _log_ratio(self, y: np.ndarray) -> np.ndarray:
        """L(y) for draws y (rows)."""
        from scipy.special import logsumexp  # lazy: scipy loads at its first use

        z2 = self.noise_multiplier**2
        mu = self._means
        terms = (y @ mu.T - 0.5 * (mu * mu).sum(axis=1)) / z2
        # bins t >= n (b > n) take no round: their component is Q itself, of log ratio 0
        empty = self.cycle_length - mu.shape[0]
        if empty:
            terms = np.concatenate([terms, np.zeros((y.shape[0], 1)) + math.log(empty)], axis=1)
        return np.asarray(logsumexp(terms, axis=1) - math.log(self.cycle_length))

    def _losses(self, rng: np.random.Generator, *, from_p: bool) -> np.ndarray:
        """L(y) of ``draws`` draws y from P (``from_p``) or from Q."""
        n = self.strategy.shape[1]
        out = np.empty(self.draws)
        for start in range(0, self.draws, _CHUNK):
            size = min(_CHUNK, self.draws - start)
            y = self.noise_multiplier * rng.standard_normal((size, n))
            if from_p:
                bins = rng.integers(0, self.cycle_length, size)
                taken = bins < self._means.shape[0]
                y[taken] += self._means[bins[taken]]
            out[start : start + size] = self._log_ratio(y)
        return out

    def delta(self, epsilon: float, *, beta: float = 1e-3) -> MonteCarloDelta:
        """A Monte Carlo reading of delta(eps) with its confidence bound, beside the two proved bounds.

        Parameters
        ----------
        epsilon : float
            eps, a finite number >= 0.
        beta : float, default 1e-3
            The probability, over the Monte Carlo draws, that ``confidence_bound`` fails; in (0, 1).

        Returns
        -------
        MonteCarloDelta
            The estimate, its standard error, the bound at 1 - beta, and the proved lower and upper
            sides.

        Raises
        ------
        ValueError
            ``epsilon`` not finite and >= 0; ``beta`` outside (0, 1).
        """
        eps = epsilon_target(epsilon)
        b = float(in_interval(beta, "beta", 0.0, 1.0, open_low=True, open_high=True))
        readings = []
        for losses, sign in ((self._remove_losses, 1.0), (self._add_losses, -1.0)):
            values = -np.expm1(np.minimum(eps - sign * losses, 0.0))
            readings.append(mean_with_confidence_bound(values, 1.0, b / 2.0))
        estimate, error, _ = max(readings)
        return MonteCarloDelta(
            epsilon=eps,
            estimate=estimate,
            standard_error=error,
            confidence_bound=max(r[2] for r in readings),
            beta=b,
            draws=self.draws,
            seed=self.seed,
            certified_lower=float(self._lower.delta(eps)),
            unamplified_upper=float(self._unamplified.delta(eps)),
        )

    def support_bound(self, epsilon: float) -> float:
        """1: every draw (1 - e^{eps -+ L})_+ lies in [0, 1] (``verify_then_release`` reads it).

        Parameters
        ----------
        epsilon : float
            eps, a number >= 0.

        Returns
        -------
        float
            1.

        Raises
        ------
        ValueError
            ``epsilon`` negative or NaN.
        """
        epsilon_target(epsilon)
        return 1.0

    def weighted_draws(self, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
        """The draws of delta(eps), remove then add direction: (1 - e^{eps - L})_+ under P, (1 - e^{eps + L})_+ under Q.

        Parameters
        ----------
        epsilon : float
            eps, a number >= 0.

        Returns
        -------
        tuple of numpy.ndarray
            (remove, add), each ``draws`` values in [0, 1].

        Raises
        ------
        ValueError
            ``epsilon`` negative or NaN.
        """
        eps = epsilon_target(epsilon)
        return (
            -np.expm1(np.minimum(eps - self._remove_losses, 0.0)),
            -np.expm1(np.minimum(eps + self._add_losses, 0.0)),
        )

    def pld(self) -> MonteCarloPLD:
        """The draws as a ``MonteCarloPLD`` (plain draws: weight 1), which composes with certified
        PLDs and reads a simultaneous confidence band (``matrix.monte_carlo_pld``).

        Returns
        -------
        MonteCarloPLD
            Remove direction: the losses L of the draws from P; add direction: -L of the draws
            from Q.
        """
        from .monte_carlo_pld import LossDraws, MonteCarloPLD

        return MonteCarloPLD(
            remove=LossDraws(losses=self._remove_losses),
            add=LossDraws(losses=-self._add_losses),
            seed=self.seed,
        )

    def __repr__(self) -> str:
        return (
            f"BallsInBinsMonteCarlo(rounds={self.strategy.shape[1]}, cycle_length={self.cycle_length}, "
            f"noise_multiplier={self.noise_multiplier:g}, draws={self.draws}, seed={self.seed}): a Monte Carlo estimate"
        )
