r"""A Monte Carlo privacy-loss distribution: draws of a pair's privacy loss, composed with certified
PLDs and read as an estimate with a simultaneous confidence band. Never certified.

**Draws.** For each neighbouring direction d (remove: (P, Q); add: (Q, P)), N i.i.d. draws y_j from
a proposal with the direction's privacy loss l_j = log(P_d/Q_d)(y_j) and log weight
log(P_d/proposal)(y_j) (0 for plain draws from P_d). ``ImportanceSampledMonteCarlo.pld()`` and
``BallsInBinsMonteCarlo.pld()`` build them. The importance sampler's weights obey w <= A e^{(1 -
alpha) l}, A = e^{kappa (alpha^2 - alpha)/2} (``matrix.importance_sampling``, module docstring:
P_w/Q >= X^w e^{-kappa (alpha^2 - alpha)/2}); plain draws have alpha = 1, A = 1, w = 1.

**Alone.** delta_d(eps) = E[w (1 - e^{eps - l})_+], each weighted draw in [0, B(alpha, eps)]
(``importance_weight_bound``).

**Composed with a certified PLD.** For a second mechanism with PLD (P', Q') on the same neighbouring
pair, the composed pair's delta is, by Fubini over the first mechanism's loss (Zhu, Dong & Wang,
AISTATS 2022, Sec. 3: the privacy loss of a product pair is the sum of independent losses),

    delta_{d, composed}(eps) = E_{P_d}[ (1 - e^{eps - l - l'})_+ ] = E[ w delta'_d(eps - l) ],

delta'_d the second PLD's curve in direction d (at any real argument). The certified PLD gives an
upper curve delta'^+_d (its pessimistic composed PMF, ``PrivacyLossDistribution.composed(True)``).
On a grid x_0 < ... < x_K of spacing ``grid``, the step function U(x) = max(delta'^+_d(x_k), c) for
x in [x_k, x_{k+1}) (1 below x_0, c above x_K), c = delta'^+_d(x_K), lies above the true curve
because delta'_d falls as x grows. So

    delta_{d, composed}(eps) <= c + E[ w (U(eps - l) - c) ]      (E[w] = 1 exactly: c needs no draws),

and each draw w (U(eps - l) - c) lies in [0, A e^{(1 - alpha) eps} S], S = max(e^{(alpha - 1) x_0}
(1 - c), max_k e^{(alpha - 1) x_{k+1}} (U_k - c)), from w <= A e^{(1 - alpha) l} with l = eps - x.
The second PLD's remove direction pairs with the draws' remove direction and its add direction with
their add direction (a one-direction PLD pairs with both); delta is the larger direction's (Zhu,
Dong & Wang 2022, Sec. 5).

**Simultaneous band.** At eps_1 < ... < eps_K and both directions, each mean of draws in [0, B_k]
gets the Bernoulli-KL bound (Hoeffding 1963, Theorem 1) at beta / (2K); by the union bound all 2K
hold together with probability >= 1 - beta over the draws. Because every direction's delta(eps) is
non-increasing in eps, the band's value at eps_k then bounds delta on all of [eps_k, eps_{k+1}), so
the band holds at every eps >= eps_1 at once: a union of per-point bounds made simultaneous by the
union bound and monotonicity. (A DKW band on the loss's distribution function is simultaneous too
but bounds delta only to an absolute sqrt(log(2/beta)/(2N)), useless at small delta; and weighted
draws have no DKW inequality.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ..base.validation import describe, epsilon_values, in_interval, positive_number
from .monte_carlo_bounds import MonteCarloKind, log_importance_bound, mean_with_confidence_bound

if TYPE_CHECKING:
    from ..pld.grid import PrivacyLossDistribution

__all__ = ["LossDraws", "MonteCarloBand", "MonteCarloPLD"]

_STEP = 1e-3  # spacing of the step function read from a certified curve: its floor costs at most this much in eps
_EPS_HIGH = 64.0  # the largest eps a band reads


@dataclass(frozen=True)
class LossDraws:
    """One neighbouring direction's draws: privacy losses, log importance weights and the weight bound's constants.

    Parameters
    ----------
    losses : numpy.ndarray
        The direction's privacy loss l = log(P_d/Q_d) at each draw, a 1-D array of finite values.
    log_weights : numpy.ndarray, optional
        log(P_d / proposal) at each draw (None: plain draws from P_d, weight 1).
    stretch : float, default 1
        alpha >= 1 of the weight bound w <= exp(kappa (alpha^2 - alpha)/2 + (1 - alpha) l).
    kappa : float, default 0
        kappa >= 0 of the same bound.

    Raises
    ------
    ValueError
        ``losses`` not a non-empty 1-D array of finite values; ``log_weights`` of another shape or
        with NaN; ``stretch`` below 1; ``kappa`` below 0.
    """

    losses: np.ndarray
    log_weights: np.ndarray | None = None
    stretch: float = 1.0
    kappa: float = 0.0

    def __post_init__(self) -> None:
        losses = np.asarray(self.losses, dtype=np.float64)
        if losses.ndim != 1 or losses.size == 0 or not np.isfinite(losses).all():
            raise ValueError(
                f"losses must be a non-empty 1-D array of finite privacy losses, got shape {losses.shape}"
            )
        object.__setattr__(self, "losses", losses)
        if self.log_weights is not None:
            weights = np.asarray(self.log_weights, dtype=np.float64)
            if weights.shape != losses.shape or np.isnan(weights).any():
                raise ValueError(f"log_weights must match losses' shape {losses.shape} without NaN")
            object.__setattr__(self, "log_weights", weights)
        if not (math.isfinite(self.stretch) and self.stretch >= 1.0):
            raise ValueError(f"stretch must be a finite number >= 1, got {describe(self.stretch)}")
        if not (math.isfinite(self.kappa) and self.kappa >= 0.0):
            raise ValueError(f"kappa must be a finite number >= 0, got {describe(self.kappa)}")
        if self.log_weights is None and self.stretch != 1.0:
            raise ValueError("plain draws (log_weights None) have stretch 1")

    @property
    def log_weight_scale(self) -> float:
        """log A = kappa (alpha^2 - alpha)/2: w <= A e^{(1 - alpha) l}."""
        return self.kappa * (self.stretch**2 - self.stretch) / 2.0

    def weighted(self, values: np.ndarray) -> np.ndarray:
        """w * values, computed as exp(log w + log values) where values > 0."""
        if self.log_weights is None:
            return values
        with np.errstate(divide="ignore", over="ignore"):
            return np.where(
                values > 0.0, np.exp(self.log_weights + np.log(np.maximum(values, 1e-300))), 0.0
            )


@dataclass(frozen=True)
class MonteCarloBand:
    """A Monte Carlo estimate of delta(eps) on a grid of eps with a simultaneous band; never certified.

    The band holds at every eps >= eps_1 at once with probability >= 1 - beta over the draws.

    Parameters
    ----------
    epsilon : numpy.ndarray
        The grid eps_1 < ... < eps_K.
    estimate : numpy.ndarray
        The larger direction's estimate at each eps_k.
    standard_error : numpy.ndarray
        Its standard error.
    upper : numpy.ndarray
        The band: delta(eps) <= upper[k] for every eps in [eps_k, eps_{k+1}) and every k, together,
        with probability >= 1 - beta over the draws.
    beta : float
        The band's failure probability.
    draws : int
        Draws per direction.
    seed : int or None
        The draws' seed.
    composed_with : str
        What the draws were composed with ("nothing", or the certified PLDs' description).
    kind : {"estimate with confidence bound"}
        What the numbers are (``MonteCarloKind``).
    """

    epsilon: np.ndarray
    estimate: np.ndarray
    standard_error: np.ndarray
    upper: np.ndarray
    beta: float
    draws: int
    seed: int | None
    composed_with: str = "nothing"
    kind: MonteCarloKind = "estimate with confidence bound"

    def delta_upper(self, epsilon: float) -> float:
        """The band's value at eps: upper[k] for the largest eps_k <= eps (1 below eps_1);
        delta(eps) lies below it whenever the band holds (probability >= 1 - beta over the draws).

        Parameters
        ----------
        epsilon : float
            eps >= 0.

        Returns
        -------
        float
            The band at eps.

        Raises
        ------
        ValueError
            ``epsilon`` negative or NaN.
        """
        eps = float(epsilon_values(epsilon))
        k = int(np.searchsorted(self.epsilon, eps, side="right")) - 1
        return 1.0 if k < 0 else float(self.upper[k])

    def epsilon_upper(self, delta: float) -> float:
        """The least eps_k whose band value is <= delta (inf if none): eps(delta) <= eps_k whenever the band holds.

        Parameters
        ----------
        delta : float
            delta in (0, 1).

        Returns
        -------
        float
            eps_k, or inf.

        Raises
        ------
        ValueError
            ``delta`` outside (0, 1).
        """
        d = float(in_interval(delta, "delta", 0.0, 1.0, open_low=True, open_high=True))
        hits = np.nonzero(self.upper <= d)[0]
        return float(self.epsilon[hits[0]]) if hits.size else math.inf

    def statement(self) -> str:
        """The band in words: what holds, with which probability, and that it is not certified."""
        return (
            f"Monte Carlo {self.kind} (not certified): with probability >= {1.0 - self.beta:g} over the draws "
            f"({self.draws} per direction, seed {self.seed}), delta(eps) <= band(eps) at every eps >= "
            f"{float(self.epsilon[0]):g} at once (union bound over {self.epsilon.size} eps and both directions, "
            f"extended by the monotonicity of delta); composed with {self.composed_with}"
        )

    def __repr__(self) -> str:
        return (
            f"MonteCarloBand({self.kind}, not certified: {self.epsilon.size} eps in [{float(self.epsilon[0]):g}, "
            f"{float(self.epsilon[-1]):g}], simultaneous at probability >= {1.0 - self.beta:g} over {self.draws} "
            f"draws a direction, seed {self.seed}; composed with {self.composed_with})"
        )


def _direction_pmfs(other: PrivacyLossDistribution) -> list[Any]:
    """The certified PLD's pessimistic composed PMF per direction: [remove, add] (one PMF serves both)."""
    pmfs = other.composed(True)
    return [pmfs[0], pmfs[0]] if len(pmfs) == 1 else [pmfs[0], pmfs[1]]


@dataclass(frozen=True)
class MonteCarloPLD:
    """Draws of a pair's privacy loss in both directions, optionally composed with certified PLDs.

    The module docstring derives the estimator, the bound on each draw and the simultaneous band.
    ``compose`` adds certified PLDs (``hockeystick.pld``: their pessimistic compositions bound the
    second factor's curve); ``band`` reads the estimate and the band at a grid of eps; ``delta`` at
    one eps.

    Parameters
    ----------
    remove : LossDraws
        The remove direction's draws (pair (P, Q)).
    add : LossDraws
        The add direction's draws (pair (Q, P)), as many as ``remove``'s.
    seed : int, optional
        The draws' seed, for the record.
    other : PrivacyLossDistribution, optional
        The certified PLDs composed so far (None: none).
    grid : float, default 1e-3
        Spacing of the step function read from ``other``'s curve.

    Raises
    ------
    ValueError
        ``remove`` and ``add`` of different sizes; ``grid`` not finite and > 0.

    Examples
    --------
    >>> import numpy as np
    >>> import hockeystick.pld as pld
    >>> from hockeystick.matrix import ImportanceSampledMonteCarlo
    >>> run = ImportanceSampledMonteCarlo(
    ...     strategy=np.eye(1), noise_multiplier=2.0, cycle_length=1, epsilon=2.0, draws=20000, seed=0
    ... )
    >>> band = run.pld().compose(pld.gaussian(2.0)).band([1.0, 2.0], beta=1e-3)
    >>> band.kind
    'estimate with confidence bound'
    >>> bool((band.estimate <= band.upper).all())
    True
    """

    remove: LossDraws
    add: LossDraws
    seed: int | None = None
    other: PrivacyLossDistribution | None = None
    grid: float = _STEP
    _cache: dict[Any, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.remove.losses.size != self.add.losses.size:
            raise ValueError(
                f"remove and add must hold as many draws, got {self.remove.losses.size} and {self.add.losses.size}"
            )
        positive_number(self.grid, "grid")

    @property
    def draws(self) -> int:
        return int(self.remove.losses.size)

    def compose(self, other: PrivacyLossDistribution) -> MonteCarloPLD:
        """These draws composed with a certified PLD (and with those composed before).

        Parameters
        ----------
        other : PrivacyLossDistribution
            A ``hockeystick.pld`` PLD of a mechanism run on the same neighbouring pair (one
            direction, or remove then add).

        Returns
        -------
        MonteCarloPLD
            The same draws with ``other`` composed into the certified part.

        Raises
        ------
        ValueError
            ``other`` not a PrivacyLossDistribution, or on another grid than the PLDs composed
            before.
        """
        from ..pld.grid import PrivacyLossDistribution

        if not isinstance(other, PrivacyLossDistribution):
            raise ValueError(
                f"other must be a hockeystick.pld PrivacyLossDistribution, got {type(other).__name__}"
            )
        merged = other if self.other is None else self.other.compose(other)
        return MonteCarloPLD(self.remove, self.add, self.seed, merged, self.grid)

    def _direction_values(
        self, draws: LossDraws, pmf: object | None, eps: float, level: float
    ) -> tuple[np.ndarray, float, float]:
        """(weighted draws at eps, the constant c added exactly, the bound on every draw). The step
        function's top x_K is chosen from the certified curve, eps, alpha, N and the level alone,
        never from the draws, so that the bound on every draw is fixed before they are read (it
        minimizes c_K + B_K log(1/level) / N, the bound's size when the mean is small)."""
        alpha = draws.stretch
        if pmf is None:
            values = draws.weighted(-np.expm1(np.minimum(eps - draws.losses, 0.0)))
            with np.errstate(over="ignore"):
                bound = math.exp(min(log_importance_bound(alpha, eps, draws.kappa), 700.0))
            return np.clip(values, 0.0, bound), 0.0, bound
        x0, curve, log_terms = self._steps(draws, pmf)
        # log B_K for each top K: log A + (1 - alpha) eps + log S_K, S_K = max(e^{(alpha-1) x_0},
        # max_{k<K} e^{(alpha-1) x_{k+1}} U_k) (U_k - c <= U_k: a valid, slightly larger S)
        log_b = draws.log_weight_scale + (1.0 - alpha) * eps + log_terms
        with np.errstate(over="ignore"):
            cost = (
                curve + np.exp(np.minimum(log_b, 700.0)) * math.log(1.0 / level) / draws.losses.size
            )
        top = int(np.argmin(cost))
        c, bound = float(curve[top]), math.exp(min(float(log_b[top]), 700.0))
        k = np.floor((eps - draws.losses - x0) / self.grid).astype(np.int64)
        u = np.where(k < 0, 1.0, np.maximum(curve[np.clip(k, 0, top)], c))
        values = np.where(k >= top, 0.0, draws.weighted(np.maximum(u - c, 0.0)))
        return np.clip(values, 0.0, bound), c, bound

    def _steps(self, draws: LossDraws, pmf: object) -> tuple[float, np.ndarray, np.ndarray]:
        """The certified curve on x_k = x_0 + k h over the PMF's losses (x_0 its least loss less 1,
        up to its greatest loss plus h, above which it is constant), clipped to 1, and for each top
        K the log of S_K = max(e^{(alpha-1) x_0}, max_{k<K} e^{(alpha-1) x_{k+1}} U_k)."""
        key = (id(draws), id(pmf))
        if key in self._cache:
            return self._cache[key]  # type: ignore[no-any-return]
        h = self.grid
        low = float(pmf.k_lo) * float(pmf.h)  # type: ignore[attr-defined]
        high = (float(pmf.k_lo) + pmf.p.size) * float(pmf.h)  # type: ignore[attr-defined]
        x0 = math.floor((low - 1.0) / h) * h
        points = x0 + h * np.arange(int(math.ceil((high + h - x0) / h)) + 1)
        curve = np.minimum(np.asarray(pmf.delta(points), dtype=np.float64), 1.0)  # type: ignore[attr-defined]
        with np.errstate(divide="ignore"):
            terms = (draws.stretch - 1.0) * points[1:] + np.log(curve[:-1])
        log_terms = np.maximum(
            np.concatenate([[-math.inf], np.maximum.accumulate(terms)]), (draws.stretch - 1.0) * x0
        )
        out = (x0, curve, log_terms)
        self._cache[key] = out
        return out

    def band(self, epsilon: npt.ArrayLike, *, beta: float = 1e-3) -> MonteCarloBand:
        """The estimate of delta at each eps of a grid and a band that holds at every eps >= min(grid) at once.

        Parameters
        ----------
        epsilon : array_like
            The grid, values in [0, 64] (sorted and de-duplicated here).
        beta : float, default 1e-3
            The band's failure probability over the draws, in (0, 1): beta / (2 K) a point and
            direction.

        Returns
        -------
        MonteCarloBand
            The grid, the estimate, its standard error and the band, labelled "estimate with
            confidence bound".

        Raises
        ------
        ValueError
            ``epsilon`` empty, negative, NaN or above 64; ``beta`` outside (0, 1).
        """
        grid = np.unique(np.atleast_1d(epsilon_values(epsilon)))
        if grid.size == 0 or grid[-1] > _EPS_HIGH:
            raise ValueError(f"epsilon must be a non-empty grid of values in [0, {_EPS_HIGH:g}]")
        b = float(in_interval(beta, "beta", 0.0, 1.0, open_low=True, open_high=True))
        pmfs: list[Any] = [None, None] if self.other is None else _direction_pmfs(self.other)
        level = b / (2.0 * grid.size)
        estimate, error, upper = (np.zeros(grid.size) for _ in range(3))
        for draws, pmf in zip((self.remove, self.add), pmfs):
            for i, eps in enumerate(grid):
                values, c, bound = self._direction_values(draws, pmf, float(eps), level)
                mean, se, high = (
                    mean_with_confidence_bound(values, bound, level)
                    if bound > 0
                    else (0.0, 0.0, 0.0)
                )
                if c + mean >= estimate[i]:
                    estimate[i], error[i] = min(c + mean, 1.0), se
                upper[i] = max(upper[i], min(c + high, 1.0))
        return MonteCarloBand(
            epsilon=grid,
            estimate=estimate,
            standard_error=error,
            # delta falls as eps grows, so on the event that every upper[j] holds, upper[j] bounds
            # delta at every eps_k >= eps_j too: the running minimum is the same simultaneous band,
            # never wider
            upper=np.minimum.accumulate(upper),
            beta=b,
            draws=self.draws,
            seed=self.seed,
            composed_with="nothing"
            if self.other is None
            else f"a certified PLD ({self._other_words()})",
        )

    def _other_words(self) -> str:
        other = self.other
        assert other is not None
        rounds = sum(sum(d.values()) for d in other.directions[:1])
        return f"{rounds} factor round(s), grid {other.value_discretization_interval:g}"

    def delta(self, epsilon: float, *, beta: float = 1e-3) -> MonteCarloBand:
        """``band`` at one eps: the estimate and a bound that holds with probability >= 1 - beta over the draws.

        Parameters
        ----------
        epsilon : float
            eps in [0, 64].
        beta : float, default 1e-3
            The bound's failure probability, in (0, 1).

        Returns
        -------
        MonteCarloBand
            One point.

        Raises
        ------
        ValueError
            As ``band``.
        """
        return self.band([epsilon], beta=beta)

    def __repr__(self) -> str:
        alpha = self.remove.stretch
        sampled = "plain draws" if alpha == 1.0 else f"importance sampled (alpha {alpha:.4g})"
        composed = "" if self.other is None else f", composed with {self._other_words()}"
        return f"MonteCarloPLD({self.draws} draws a direction, {sampled}, seed {self.seed}{composed}): an estimate"
