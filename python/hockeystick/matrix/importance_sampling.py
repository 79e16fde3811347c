r"""Importance-sampled Monte Carlo of delta(eps) for balls-in-bins with a non-negative
lower-triangular C: a small delta read from about B(alpha) / delta draws instead of 1 / delta.

The pair (Choquette-Choo, Ganesh, Haque, Steinke, Thakurta 2024, arXiv:2410.06266, Lemma 3.2) is P =
(1/b) sum_i N(m_i, z^2 I) against Q = N(0, z^2 I), m_i = C 1_{i, i+b, ...}; remove direction (P, Q),
add direction (Q, P). Write g_i = ||m_i||^2 / z^2, kappa = max_i g_i, X_i(y) = exp(<y, m_i>/z^2 -
g_i/2) (so that P/Q = mean_i X_i), and for a real w the stretched mixture P_w = (1/b) sum_i N(w m_i,
z^2 I) (P_1 = P, P_0 = Q), whose ratio to Q is P_w/Q = mean_i X_i^w exp(-g_i (w^2 - w)/2).

**Estimator** (the stretched-mixture proposal of jax_privacy's
``experimental.monte_carlo.importance_sampling``, Google DeepMind 2026; derived here). For a stretch
alpha >= 1, the remove direction's delta is

    E_P[(1 - e^{eps - L})_+] = E_{y ~ P_alpha}[ (P/P_alpha)(y) (1 - e^{eps - L(y)})_+ ],   L = log P/Q,

and the add direction's E_Q[(1 - e^{eps + L})_+] = E_{y ~ P_{1-alpha}}[ (Q/P_{1-alpha})(y) (1 -
e^{eps + L(y)})_+ ]: each an unbiased mean of weighted draws (alpha = 1: plain draws from P and from
Q).

**Bound on every draw** (what the confidence bound needs). With w = alpha or 1 - alpha, w^2 - w =
alpha^2 - alpha >= 0, so exp(-g_i (w^2 - w)/2) >= exp(-kappa (alpha^2 - alpha)/2); x -> x^alpha
(alpha >= 1) and x -> x^{1 - alpha} are convex, so by Jensen mean_i X_i^w >= X^w with X = mean_i
X_i = P/Q. Hence P_w/Q >= X^w exp(-kappa (alpha^2 - alpha)/2) and

    remove:  (X - e^eps)_+ / (P_alpha/Q)      <= e^{kappa (alpha^2 - alpha)/2} sup_X (X - e^eps) X^{-alpha},
    add:     (1 - e^eps X)_+ / (P_{1-alpha}/Q) <= e^{kappa (alpha^2 - alpha)/2} sup_X (1 - e^eps X) X^{alpha - 1};

both suprema (at X = alpha e^eps / (alpha - 1) and X = (alpha - 1) e^{-eps} / alpha) equal (alpha -
1)^{alpha - 1} alpha^{-alpha} e^{-(alpha - 1) eps}, so every weighted draw lies in [0, B(alpha)],

    B(alpha) = (alpha - 1)^{alpha - 1} / alpha^alpha * exp(kappa (alpha^2 - alpha)/2 - (alpha - 1) eps)

(the bound jax_privacy's module states; B(1) = 1, and B falls as eps grows). ``optimal_stretch``
minimizes it: the derivative log((alpha - 1)/alpha) + kappa (2 alpha - 1)/2 - eps rises from -inf at
alpha = 1, so its one root is the minimum. The draws divided by B lie in [0, 1], so the Bernoulli-KL
(Hoeffding 1963, Theorem 1) bound of ``monte_carlo.kl_upper_confidence`` gives "delta(eps) <= x with
probability >= 1 - beta over the draws", and the variance of a draw is at most B delta: the relative
standard error after N draws is at most sqrt(B / (N delta)).

**Sampling in b dimensions.** L and the weights depend on y only through u_i = <y, m_i>/z^2, and
under P_w with bin j, u = (w G_{:, j} + z R xi) / z^2 with G = (<m_i, m_j>) the Gram matrix, R R' =
G and xi ~ N(0, I): b numbers a draw instead of the n rounds (the dimension reduction of
Choquette-Choo et al. 2024, Sec. 4). R is G's symmetric square root from its eigendecomposition,
negative round-off eigenvalues set to 0. Bins that take no round (b > n) have m_i = 0, so u_i = 0
and their component is Q.

Draws come from ``numpy.random.default_rng(seed)``: the same seed gives the same draws. Every number
this module returns is an estimate, or an estimate with a confidence bound; none is certified.
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ..base.validation import (
    count,
    describe,
    epsilon_target,
    in_interval,
    moderate,
    nonnegative,
    positive_number,
)
from .accountant import MatrixMechanism
from .monte_carlo import MonteCarloDelta, _bins_means, dominated_strategy
from .monte_carlo_bounds import log_importance_bound, mean_with_confidence_bound
from .participation import FixedEpochs
from .realizable_lower import RealizableLowerSide
from .sampling_laws import BallsInBinsSampling
from .sensitivity import l2_sensitivity

if TYPE_CHECKING:
    from .monte_carlo_pld import LossDraws, MonteCarloPLD

__all__ = ["ImportanceSampledMonteCarlo", "importance_weight_bound", "optimal_stretch"]

_CHUNK = 16384  # draws per batch (memory: CHUNK x bins doubles, a few times)
MAX_STRETCH = 1000.0  # any alpha >= 1 is valid; beyond this B(alpha) gains nothing a run could use, and w^2 g overflows
MAX_EPSILON = 500.0  # the largest eps a proposal is tuned for (delta below e^-500 is nothing a draw can resolve)


def _stretch(alpha: float, name: str = "alpha") -> float:
    """alpha as a float, or a ValueError naming ``name`` unless 1 <= alpha <= MAX_STRETCH."""
    a = float(np.asarray(nonnegative(alpha, name)))
    if not 1.0 <= a <= MAX_STRETCH:
        raise ValueError(
            f"{name} must be a number in [1, {MAX_STRETCH:g}] (1: plain Monte Carlo), got {describe(alpha)}"
        )
    return a


def importance_weight_bound(alpha: float, epsilon: float, kappa: float) -> float:
    r"""B(alpha): the bound on every importance-weighted draw of the hockey-stick divergence at eps.

    .. math::

        B(\alpha) = \frac{(\alpha - 1)^{\alpha - 1}}{\alpha^\alpha}
            \exp\Big(\frac{\kappa (\alpha^2 - \alpha)}{2} - (\alpha - 1)\,\varepsilon\Big),

    for draws from the stretched mixture P_alpha (remove) or P_{1 - alpha} (add) of a Gaussian
    mixture whose components' largest squared norm over z^2 is kappa (derivation in the module
    docstring; the bound of jax_privacy's importance sampler). It holds at every real eps, falls as
    eps grows, and is 1 at alpha = 1.

    Parameters
    ----------
    alpha : float
        The stretch, in [1, 1000].
    epsilon : float
        eps, a finite real number.
    kappa : float
        max_i ||m_i||^2 / z^2, a finite number >= 0.

    Returns
    -------
    float
        B(alpha) > 0 (inf where it overflows).

    Raises
    ------
    ValueError
        ``alpha`` outside [1, 1000]; ``epsilon`` not finite; ``kappa`` not finite and >= 0.

    Examples
    --------
    >>> from hockeystick.matrix.importance_sampling import importance_weight_bound
    >>> importance_weight_bound(1.0, 3.0, 2.0)
    1.0
    >>> round(importance_weight_bound(2.0, 3.0, 1.0), 6)
    0.033834
    """
    a = _stretch(alpha)
    eps = float(
        np.asarray(
            in_interval(epsilon, "epsilon", -math.inf, math.inf, open_low=True, open_high=True)
        )
    )
    k = float(np.asarray(nonnegative(kappa, "kappa")))
    with np.errstate(over="ignore"):
        return float(np.exp(log_importance_bound(a, eps, k)))


def optimal_stretch(epsilon: float, kappa: float) -> float:
    """The stretch alpha in [1, 1000] minimizing B(alpha) at eps (``importance_weight_bound``).

    The derivative of log B, log((alpha - 1)/alpha) + kappa (2 alpha - 1)/2 - eps, rises from -inf
    at alpha = 1 to +inf, so its one root is the minimizer; it is found by bisection to 1e-12
    relative, and capped at 1000 (B falls the whole way there). kappa = 0 (the pair's two sides
    equal) gives 1.

    Parameters
    ----------
    epsilon : float
        eps, a finite number >= 0.
    kappa : float
        max_i ||m_i||^2 / z^2, a finite number >= 0.

    Returns
    -------
    float
        The minimizing alpha in [1, 1000].

    Raises
    ------
    ValueError
        ``epsilon`` not finite and >= 0; ``kappa`` not finite and >= 0.

    Examples
    --------
    >>> from hockeystick.matrix.importance_sampling import optimal_stretch
    >>> round(optimal_stretch(3.0, 1.0), 6)
    3.80492
    """
    eps = epsilon_target(epsilon)
    k = float(np.asarray(nonnegative(kappa, "kappa")))
    if not math.isfinite(eps):
        raise ValueError(f"epsilon must be finite here, got {describe(epsilon)}")
    if k == 0.0:
        return 1.0

    def slope(a: float) -> float:
        return math.log1p(-1.0 / a) + k * (2.0 * a - 1.0) / 2.0 - eps

    low, high = 1.0, 2.0
    while slope(high) < 0.0:
        if high >= MAX_STRETCH:
            return MAX_STRETCH
        low, high = high, 2.0 * high
    for _ in range(200):
        mid = 0.5 * (low + high)
        if mid in (low, high) or high - low <= 1e-12 * high:
            break
        if mid > 1.0 and slope(mid) < 0.0:
            low = mid
        else:
            high = mid
    return min(high, MAX_STRETCH)


class ImportanceSampledMonteCarlo:
    r"""Importance-sampled Monte Carlo of delta(eps) for a non-negative lower-triangular C under balls-in-bins.

    The pair is ``BallsInBinsMonteCarlo``'s, P = (1/b) sum_i N(m_i, z^2 I) against Q = N(0, z^2 I)
    (Choquette-Choo et al. 2024, arXiv:2410.06266, Lemma 3.2). Draws come from the stretched
    mixtures P_alpha (remove direction) and P_{1-alpha} (add direction) and are weighted back, so
    that each weighted draw lies in [0, B(alpha)]:

    .. math::

        \delta(\varepsilon) = \max\Big(\mathbb{E}_{P_\alpha}\Big[\tfrac{P}{P_\alpha}(1 - e^{\varepsilon - L})_+\Big],\;
            \mathbb{E}_{P_{1-\alpha}}\Big[\tfrac{Q}{P_{1-\alpha}}(1 - e^{\varepsilon + L})_+\Big]\Big),
        \qquad B(\alpha) = \frac{(\alpha - 1)^{\alpha - 1}}{\alpha^\alpha}
            e^{\kappa(\alpha^2 - \alpha)/2 - (\alpha - 1)\varepsilon},

    kappa = max_i ||m_i||^2 / z^2 (derivation in the module docstring). With alpha chosen for the
    eps of interest (``optimal_stretch``), B(alpha) is far below 1 when delta is small, and the
    relative standard error after N draws is at most sqrt(B / (N delta)) instead of sqrt(1 / (N
    delta)). Each draw costs b^2 operations (the b projections of the output on the bins' means),
    not n b. ``delta`` reads the draws at any eps; B(alpha) holds at every eps and falls as eps
    grows. ``pld()`` hands the draws to ``MonteCarloPLD``, which composes them with certified PLDs.

    Parameters
    ----------
    strategy : array_like
        C, a square lower-triangular matrix with non-negative entries (n x n, n <= 2048).
    noise_multiplier : float
        z, finite and > 0, in units of the clip norm.
    cycle_length : int
        b, the number of bins, a whole number >= 1.
    epsilon : float
        The eps the proposal is tuned for (alpha = ``optimal_stretch(epsilon, kappa)``), in [0,
        500]. Ignored when ``stretch`` is given.
    draws : int, default 100000
        Draws per direction, a whole number >= 1.
    stretch : float, optional
        alpha, in [1, 1000] (1: plain draws from P and Q).
    seed : int, optional
        The seed of ``numpy.random.default_rng`` (None: fresh entropy, not reproducible).

    Attributes
    ----------
    kappa : float
        max_i ||m_i||^2 / z^2.
    stretch : float
        alpha.

    Raises
    ------
    ValueError
        ``strategy`` not a square lower-triangular matrix of finite non-negative entries with a
        non-zero entry, or above 2048 rounds; ``noise_multiplier`` not finite and > 0;
        ``cycle_length`` or ``draws`` not a whole number >= 1; ``epsilon`` outside [0, 500];
        ``stretch`` outside [1, 1000]; ``seed`` not a whole number or None.

    References
    ----------
    Choquette-Choo, Ganesh, Haque, Steinke & Thakurta 2024, arXiv:2410.06266, Lemma 3.2 and Sec. 4;
    jax_privacy (Google DeepMind), ``experimental/monte_carlo/importance_sampling.py`` (the
    stretched mixture and B(alpha)); Hoeffding 1963, Theorem 1.

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.matrix import ImportanceSampledMonteCarlo
    >>> run = ImportanceSampledMonteCarlo(
    ...     strategy=np.eye(1) * 0.5, noise_multiplier=1.0, cycle_length=1, epsilon=3.0, draws=20000, seed=0
    ... )
    >>> reading = run.delta(3.0)
    >>> reading.kind
    'estimate with confidence bound'
    >>> reading.estimate <= reading.confidence_bound
    True
    """

    def __init__(
        self,
        *,
        strategy: npt.ArrayLike,
        noise_multiplier: float,
        cycle_length: int,
        epsilon: float,
        draws: int = 100_000,
        stretch: float | None = None,
        seed: int | None = None,
    ) -> None:
        chosen = dominated_strategy(strategy)
        self.strategy = chosen.c
        self.noise_multiplier = moderate(
            positive_number(noise_multiplier, "noise_multiplier"), "noise_multiplier"
        )
        self.cycle_length = count(cycle_length, "cycle_length")
        self.draws = count(draws, "draws")
        design = epsilon_target(epsilon)
        if not design <= MAX_EPSILON:
            raise ValueError(
                f"epsilon must be at most {MAX_EPSILON:g} (the eps the proposal is tuned for), got {describe(epsilon)}"
            )
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
            raise ValueError(f"seed must be a whole number or None, got {describe(seed)}")
        self.seed = None if seed is None else int(seed)
        z2 = self.noise_multiplier**2
        means = _bins_means(self.strategy, self.cycle_length)
        gram = np.zeros((self.cycle_length, self.cycle_length))
        gram[: means.shape[0], : means.shape[0]] = (
            means @ means.T
        )  # bins past round n: no round, m_i = 0
        self.gram = gram
        self._half_norms = np.diag(gram) / (2.0 * z2)  # g_i / 2
        self.kappa = float(np.diag(gram).max() / z2)
        self.stretch = (
            optimal_stretch(design, self.kappa) if stretch is None else _stretch(stretch, "stretch")
        )
        self.design_epsilon = design
        values, vectors = np.linalg.eigh(gram)
        self._root = vectors * np.sqrt(
            np.clip(values, 0.0, None)
        )  # R with R R' = G (round-off eigenvalues at 0)
        rng = np.random.default_rng(self.seed)
        a = self.stretch
        self._remove = self._draw(rng, a, remove=True)  # (L, log P/P_alpha) of draws from P_alpha
        self._add = self._draw(
            rng, 1.0 - a, remove=False
        )  # (L, log Q/P_{1-alpha}) of draws from P_{1-alpha}

    def _log_mixture(self, u: np.ndarray, w: float) -> np.ndarray:
        """log (P_w / Q) at projections u (rows): logsumexp_i(w u_i - w^2 g_i / 2) - log b."""
        from scipy.special import logsumexp  # lazy: scipy loads at its first use

        return np.asarray(
            logsumexp(w * u - (w * w) * self._half_norms, axis=1) - math.log(self.cycle_length)
        )

    def _draw(
        self, rng: np.random.Generator, w: float, *, remove: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        """For ``draws`` draws y ~ P_w: L(y) = log P/Q and the log weight of the direction they
        serve (remove: log P/P_w; add: log Q/P_w)."""
        z2 = self.noise_multiplier**2
        b = self.cycle_length
        losses = np.empty(self.draws)
        weights = np.empty(self.draws)
        for start in range(0, self.draws, _CHUNK):
            size = min(_CHUNK, self.draws - start)
            bins = rng.integers(0, b, size)
            u = (
                self.noise_multiplier * rng.standard_normal((size, b)) @ self._root.T
                + w * self.gram[bins]
            ) / z2
            loss = self._log_mixture(u, 1.0)
            proposal = (
                loss if w == 1.0 else (np.zeros(size) if w == 0.0 else self._log_mixture(u, w))
            )
            losses[start : start + size] = loss
            weights[start : start + size] = (loss - proposal) if remove else -proposal
        return losses, weights

    def support_bound(self, epsilon: float) -> float:
        """B(alpha) at eps: every weighted draw of either direction at eps lies in [0, B(alpha)]
        (``importance_weight_bound``); above 1 at eps far below the one alpha was tuned for.

        Parameters
        ----------
        epsilon : float
            eps, a finite number >= 0.

        Returns
        -------
        float
            B(alpha) at eps.

        Raises
        ------
        ValueError
            ``epsilon`` not finite and >= 0.
        """
        eps = epsilon_target(epsilon)
        if not math.isfinite(eps):
            raise ValueError(f"epsilon must be finite, got {describe(epsilon)}")
        with np.errstate(
            over="ignore"
        ):  # at least the least double: B underflows only where every draw is 0
            return max(float(np.exp(log_importance_bound(self.stretch, eps, self.kappa))), 5e-324)

    def weighted_draws(self, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
        """The weighted draws of delta(eps), remove direction then add direction, each in [0, B(alpha)].

        Parameters
        ----------
        epsilon : float
            eps, a finite number >= 0.

        Returns
        -------
        tuple of numpy.ndarray
            (remove, add): (P/P_alpha)(1 - e^{eps - L})_+ and (Q/P_{1-alpha})(1 - e^{eps + L})_+ per
            draw, each clipped to [0, B(alpha)] (a float above B is round-off: B bounds the exact
            value).

        Raises
        ------
        ValueError
            ``epsilon`` not finite and >= 0.
        """
        bound = self.support_bound(epsilon)
        out = []
        for (losses, log_weights), sign in ((self._remove, 1.0), (self._add, -1.0)):
            gap = epsilon - sign * losses  # the draw counts where gap < 0
            with np.errstate(divide="ignore", over="ignore"):
                values = np.where(
                    gap < 0.0,
                    np.exp(log_weights + np.log(-np.expm1(np.minimum(gap, -1e-300)))),
                    0.0,
                )
            out.append(np.clip(values, 0.0, bound))
        return out[0], out[1]

    @cached_property
    def _proved_sides(self) -> tuple[RealizableLowerSide, MatrixMechanism]:
        n = self.strategy.shape[1]
        lower = RealizableLowerSide(
            strategy=self.strategy,
            rounds=n,
            noise_multiplier=self.noise_multiplier,
            sampling=BallsInBinsSampling(self.cycle_length),
        )
        unamplified = MatrixMechanism(
            sensitivity=l2_sensitivity(
                dominated_strategy(self.strategy), n, FixedEpochs(self.cycle_length)
            ),
            noise_multiplier=self.noise_multiplier,
        )
        return lower, unamplified

    def delta(
        self, epsilon: float, *, beta: float = 1e-3, proved_sides: bool = True
    ) -> MonteCarloDelta:
        """The importance-sampled estimate of delta(eps), its standard error and its confidence bound.

        Parameters
        ----------
        epsilon : float
            eps, a finite number >= 0.
        beta : float, default 1e-3
            The probability, over the draws, that ``confidence_bound`` fails (beta / 2 a direction);
            in (0, 1).
        proved_sides : bool, default True
            Also compute the certified lower side (``RealizableLowerSide``) and the unamplified
            upper side; False leaves them at 0 and 1 (their trivial values).

        Returns
        -------
        MonteCarloDelta
            The larger direction's estimate and standard error, the bound at 1 - beta
            (``support_bound`` B(alpha), ``stretch`` alpha, ``kind`` "estimate with confidence
            bound"), and the two proved sides.

        Raises
        ------
        ValueError
            ``epsilon`` not finite and >= 0; ``beta`` outside (0, 1).
        """
        eps = epsilon_target(epsilon)
        if not math.isfinite(eps):
            raise ValueError(f"epsilon must be finite, got {describe(epsilon)}")
        b = float(in_interval(beta, "beta", 0.0, 1.0, open_low=True, open_high=True))
        bound = self.support_bound(eps)
        readings = [mean_with_confidence_bound(v, bound, b / 2.0) for v in self.weighted_draws(eps)]
        estimate, error, _ = max(readings)
        lower, upper = 0.0, 1.0
        if proved_sides:
            low_side, high_side = self._proved_sides
            lower, upper = float(low_side.delta(eps)), float(high_side.delta(eps))
        return MonteCarloDelta(
            epsilon=eps,
            estimate=min(estimate, 1.0),
            standard_error=error,
            confidence_bound=min(max(r[2] for r in readings), 1.0),
            beta=b,
            draws=self.draws,
            seed=self.seed,
            certified_lower=lower,
            unamplified_upper=upper,
            support_bound=bound,
            stretch=self.stretch,
        )

    def loss_draws(self) -> tuple[LossDraws, LossDraws]:
        """The draws as ``LossDraws`` (losses, log weights, the bound's constants), remove then add direction."""
        from .monte_carlo_pld import LossDraws

        return (
            LossDraws(
                losses=self._remove[0],
                log_weights=self._remove[1],
                stretch=self.stretch,
                kappa=self.kappa,
            ),
            LossDraws(
                losses=-self._add[0],
                log_weights=self._add[1],
                stretch=self.stretch,
                kappa=self.kappa,
            ),
        )

    def pld(self) -> MonteCarloPLD:
        """The draws as a ``MonteCarloPLD``: a Monte Carlo privacy-loss distribution that composes
        with certified PLDs and reads a simultaneous confidence band
        (``matrix.monte_carlo_pld``)."""
        from .monte_carlo_pld import MonteCarloPLD

        remove, add = self.loss_draws()
        return MonteCarloPLD(remove=remove, add=add, seed=self.seed)

    def __repr__(self) -> str:
        return (
            f"ImportanceSampledMonteCarlo(rounds={self.strategy.shape[1]}, cycle_length={self.cycle_length}, "
            f"noise_multiplier={self.noise_multiplier:g}, stretch={self.stretch:.6g} (kappa {self.kappa:.6g}), "
            f"draws={self.draws}, seed={self.seed}): an estimate"
        )
