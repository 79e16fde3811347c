"""The matrix mechanism's Gaussian guarantee, and DP-FTRL in its users' words.

Convention.  Each round i adds up the clipped contributions (L2 norm <= clip norm) of its
participants into x_i; the mechanism releases C x + z * clip * N(0, I) (or any post-processing of
it, such as B (C x + noise) with A = B C the prefix sums), z the noise multiplier.  Neighbouring
streams differ by one user's contributions (add or remove one user; replacing a user moves each x_i
by up to twice the clip norm: give half the noise multiplier).  In units of the clip norm the
release is the Gaussian mechanism of L2 sensitivity ``sens`` (sensitivity.py) and noise standard
deviation z, so it is exactly

    mu-GDP with mu = sens / z  (Dong, Roth & Su 2022, Thm 2.7; adaptively chosen x: Denisov et al. 2022),
    rho-zCDP with rho = mu^2 / 2,  RDP of order alpha: alpha mu^2 / 2  (Bun & Steinke 2016, Prop. 1.6),
    delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)  (Balle & Wang 2018, Thm 8),

the (eps, delta) side through hockeystick's exact Gaussian accountant (``GaussianMechanism``: theta
rounded outward, mu rounded up for the upper side).  The upper side uses the certified upper
sensitivity (sensitivity.py's ``upper``, itself rounded up), the lower side a realizable lower one
(``lower``): where the sensitivity is only an upper bound (``sensitivity_kind == "upper bound"``)
the two sides may be far apart and the truth lies between them.  Federated-compute
(``min_sep_data_source_zcdp``, ``zcdp_for_blt``) and jax_privacy state rho = sens^2 / (2 z^2) in the
same units.

No amplification by sampling or shuffling is claimed: the clients per round do not enter.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any, Literal, cast

import numpy as np
import numpy.typing as npt

from ..base.accountant import Bound
from ..base.accountant_docs import accountant_docs
from ..base.outward_text import Side, outward_text
from ..base.validation import (
    ParameterTypeError,
    broadcast,
    certified_sides,
    choice,
    delta_values,
    describe,
    epsilon_values,
    flag,
    positive,
    positive_integer,
    positive_number,
    scalar_or_array,
)
from ..fdp.gaussian_mechanism import GaussianMechanism
from ..rdp.mechanisms import check_orders
from .participation import FixedEpochs, MinSeparation, Participation
from .round_off import UNIT_ROUNDOFF
from .sampled_participation import SAMPLED_PARTICIPATIONS, SampledSides, sampled_schema
from .sensitivity import Sensitivity, l2_sensitivity
from .strategies import DenseStrategy, Strategy, strategy_from

__all__ = ["MatrixMechanism", "DPFTRL", "noise_multiplier_for_zcdp"]

ParticipationName = Literal[
    "min_separation",
    "fixed_epochs",
    "balls_in_bins",
    "random_allocation",
    "b_min_sep",
    "cyclic_poisson",
]
PARTICIPATIONS: tuple[ParticipationName, ...] = (
    "min_separation",
    "fixed_epochs",
    *SAMPLED_PARTICIPATIONS,
)

_CACHE: dict[Hashable, Sensitivity] = {}
_CACHE_SIZE = (
    256  # distinct (strategy, rounds, schema) sensitivities kept for repeated builds (calibration)
)


def _cached_sensitivity(strategy: Strategy, rounds: int, schema: Participation) -> Sensitivity:
    key = (strategy.key(), rounds, schema)
    found = _CACHE.get(key)
    if found is None:
        found = l2_sensitivity(strategy, rounds, schema)
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        _CACHE[key] = found
    return found


def _up(x: np.ndarray) -> np.ndarray:
    """x (1 + 2u) one ulp up: covers one rounded product or quotient of non-negative doubles."""
    with np.errstate(over="ignore"):
        return np.nextafter(x * (1.0 + 2.0 * UNIT_ROUNDOFF), np.inf)


@accountant_docs()  # completes delta / epsilon docstrings with the contract's sections
class MatrixMechanism:
    r"""Gaussian guarantee of the matrix mechanism C x + z N(0, I) given the L2 sensitivity of its strategy.

    In units of the clip norm the release is the Gaussian mechanism of L2 sensitivity sens and noise
    z, so it is exactly

    .. math::

        \mu = \frac{\mathrm{sens}}{z}\text{-GDP}, \qquad \rho = \frac{\mu^2}{2}\text{-zCDP}, \qquad
        \varepsilon_{\mathrm{RDP}}(\alpha) = \alpha\rho, \qquad
        \delta(\varepsilon) = \Phi\Big(-\frac{\varepsilon}{\mu} + \frac{\mu}{2}\Big)
          - e^{\varepsilon}\,\Phi\Big(-\frac{\varepsilon}{\mu} - \frac{\mu}{2}\Big).

    ``mu`` is at the upper sensitivity, rounded up; ``zcdp_rho`` and ``rdp(orders)`` are rounded up;
    ``delta``/``epsilon`` have an upper side at the upper sensitivity and a lower side at the
    realizable one, each rounded outward (``fdp.GaussianMechanism``). Where the sensitivity is only
    an upper bound (``sensitivity_kind == "upper bound"``) the two sides may be far apart. No
    amplification by sampling or shuffling is claimed.

    Parameters
    ----------
    sensitivity : Sensitivity or array of Sensitivity
        The certified bracket of the L2 sensitivity (``l2_sensitivity(strategy, rounds, schema)``).
    noise_multiplier : array_like
        z, the noise standard deviation in units of the clip norm, finite and > 0; broadcasts with
        ``sensitivity`` and with the argument of ``delta``/``epsilon``.

    Raises
    ------
    ParameterTypeError
        ``sensitivity`` holding anything but ``Sensitivity`` objects (a bare number is refused: its
        bracket, exact or an upper bound, would be unknown); ``noise_multiplier`` a string, bool or
        None.
    ValueError
        ``noise_multiplier`` not finite and > 0; shapes that do not broadcast.

    References
    ----------
    Dong, Roth & Su 2022, Theorem 2.7; Denisov et al. 2022 (adaptive inputs); Bun & Steinke 2016,
    Proposition 1.6; Balle & Wang 2018, Theorem 8.

    Examples
    --------
    >>> from hockeystick.matrix import MatrixMechanism, MinSeparation, Tree, l2_sensitivity
    >>> sens = l2_sensitivity(Tree(), 16, MinSeparation(4))
    >>> mechanism = MatrixMechanism(sensitivity=sens, noise_multiplier=2.0)
    >>> round(mechanism.mu, 9), round(mechanism.zcdp_rho, 9)
    (3.0, 4.5)
    """

    def __init__(
        self, *, sensitivity: Sensitivity | np.ndarray, noise_multiplier: npt.ArrayLike
    ) -> None:
        z = positive(noise_multiplier, "noise_multiplier")
        cells = np.asarray(sensitivity, dtype=object)
        for cell in cells.ravel():
            if not isinstance(cell, Sensitivity):
                raise ParameterTypeError(
                    f"sensitivity must be a Sensitivity (from matrix.l2_sensitivity(strategy, rounds, schema)) or an "
                    f"array of them, got {describe(cell)} ({type(cell).__name__}); for a run in training terms "
                    "use DPFTRL(rounds=..., noise_multiplier=..., strategy=...)"
                )
        z, cells = np.broadcast_arrays(z, cells)
        upper = np.vectorize(lambda s: s.upper, otypes=[float])(cells)
        lower = np.vectorize(lambda s: s.lower, otypes=[float])(cells)
        # the Sensitivity of each point (its bracket, kind, method and worst pattern); one object
        # for scalars
        self.sensitivities: Sensitivity | np.ndarray = cells[()] if cells.ndim == 0 else cells
        self.noise_multiplier = scalar_or_array(np.array(z))
        self.sensitivity = scalar_or_array(upper)
        self.sensitivity_lower = scalar_or_array(lower)
        kinds = np.vectorize(lambda s: s.kind, otypes=[object])(cells)
        self.sensitivity_kind: str | np.ndarray = str(kinds) if kinds.ndim == 0 else kinds
        self._upper = GaussianMechanism(sigma=z, sensitivity=upper)
        # a lower sensitivity of 0 (all of a pattern's terms lost to round-off) is the trivial lower
        # side
        self._lower = GaussianMechanism(sigma=z, sensitivity=np.maximum(lower, 5e-324))
        self.mu = self._upper.mu

    @property
    def zcdp_rho(self) -> float | np.ndarray:
        """zCDP parameter rho = mu^2 / 2 (Bun & Steinke 2016, Prop. 1.6) at the upper mu, rounded up."""
        mu = np.asarray(self.mu, dtype=float)
        with np.errstate(over="ignore"):  # mu above 1.3e154: rho is +inf, an upper bound still
            return scalar_or_array(_up(_up(mu * mu) / 2.0))

    def rdp(self, orders: npt.ArrayLike | None = None) -> np.ndarray:
        """Renyi DP epsilon(alpha) = alpha rho at each order alpha > 1, rounded up.

        Parameters
        ----------
        orders : array_like, optional
            A 1-D sequence of finite orders > 1; None (default): the library's default orders.

        Returns
        -------
        numpy.ndarray
            Of shape ``noise_multiplier.shape + (len(orders),)``.

        Raises
        ------
        ValueError
            An order <= 1 or not finite; ``orders`` empty or not 1-D.
        """
        alpha = check_orders(orders)
        rho = np.asarray(self.zcdp_rho, dtype=float)
        return _up(alpha * rho[..., None])

    def delta(self, epsilon: npt.ArrayLike, *, bound: Bound = "upper") -> Any:
        """Privacy profile delta(eps) = theta(mu, eps) of mu-GDP, each side rounded outward.

        The upper side is at mu = ``sensitivity`` / z (rounded up), the lower side at the realizable
        ``sensitivity_lower`` / z (rounded down); theta (Balle & Wang 2018, Theorem 8; paper 004
        eq. 8) is rounded outward on each side.
        """
        if bound == "both":
            return self._lower.delta(epsilon, bound="lower"), self._upper.delta(
                epsilon, bound="upper"
            )
        if bound == "lower":
            return self._lower.delta(epsilon, bound="lower")
        return self._upper.delta(epsilon, bound=bound)

    def epsilon(self, delta: npt.ArrayLike, *, bound: Bound = "upper") -> Any:
        """Smallest epsilon >= 0 with delta(eps) <= delta, each side as ``delta`` takes it."""
        if bound == "both":
            return self._lower.epsilon(delta, bound="lower"), self._upper.epsilon(
                delta, bound="upper"
            )
        if bound == "lower":
            return self._lower.epsilon(delta, bound="lower")
        return self._upper.epsilon(delta, bound=bound)


def _schemas(
    rounds: np.ndarray,
    min_separation: np.ndarray,
    max_participations: np.ndarray | None,
    participation: str,
) -> tuple[np.ndarray, np.ndarray]:
    """Broadcast rounds / separation / cap into (rounds as int array, Participation per point)."""
    arrays = {"rounds": rounds, "min_separation": min_separation}
    if max_participations is not None:
        arrays["max_participations"] = max_participations
    p = broadcast(**arrays)
    shape = p["rounds"].shape
    schemas = np.empty(shape, dtype=object)
    for index in np.ndindex(shape):
        b = int(p["min_separation"][index])
        k = None if max_participations is None else int(p["max_participations"][index])
        if participation in SAMPLED_PARTICIPATIONS:
            schemas[index] = sampled_schema(participation, b, k)
        else:
            schemas[index] = (
                FixedEpochs(b, k) if participation == "fixed_epochs" else MinSeparation(b, k)
            )
    return p["rounds"].astype(np.int64), schemas


def _causal(strategy: Strategy) -> None:
    """Refuse a square C with a non-zero entry above its diagonal (the adaptive-input guarantee
    needs C lower triangular, ``DPFTRL``'s ``adaptive_inputs``); the named strategies are lower
    triangular by construction."""
    if not isinstance(strategy, DenseStrategy) or strategy.c.shape[0] != strategy.c.shape[1]:
        return
    above = np.argwhere(np.triu(strategy.c, 1) != 0)
    if above.size:
        i, j = (int(v) for v in above[0])
        raise ValueError(
            f"strategy must be lower triangular for adaptive inputs (adaptive_inputs=True), got its matrix C[{i}, {j}] = "
            f"{describe(strategy.c[i, j])} above the diagonal: row {i} would use round {j} before it happens.  The "
            "guarantee for inputs that depend on earlier releases, as training's gradients do, needs C lower "
            "triangular (Denisov et al. 2022, Thm 2.1); transpose C if it was given transposed, or pass "
            "adaptive_inputs=False if the whole stream is fixed before the mechanism runs"
        )


def _shown(value: Any, side: Side | None = None) -> str:
    """A parameter or result for a repr: a number as ``%g`` (a certified side rounded toward ``side``,
    ``base.outward_text``), a word quoted, an array its first values and shape."""
    array = np.asarray(value)
    if array.dtype == object or array.dtype.kind in "US":
        flat = [str(v) for v in array.ravel()]
        return (
            repr(flat[0])
            if array.ndim == 0
            else f"[{', '.join(flat[:4])}{', ...' if len(flat) > 4 else ''}]"
        )
    if array.ndim == 0:
        return outward_text(float(array), side)
    flat = [outward_text(float(v), side) for v in array.ravel()[:4]]
    return f"array([{', '.join(flat)}{', ...' if array.size > 4 else ''}], shape={array.shape})"


def _shown_strategy(strategy: Any) -> str:
    """A strategy for a repr: its name, its own repr (a ``Strategy``), or a matrix's shape."""
    if isinstance(strategy, (str, Strategy)):
        return repr(strategy)
    return f"<matrix {np.shape(strategy)}>"


@accountant_docs()  # completes the delta / epsilon overrides' docstrings with the contract's sections
class DPFTRL(MatrixMechanism):
    r"""Gaussian guarantee of DP-FTRL / DP-FedAvg with correlated noise, in training terms (rounds, separation).

    A ``MatrixMechanism`` whose sensitivity is ``l2_sensitivity(strategy, rounds, schema)``, schema
    ``MinSeparation(b, k)`` or ``FixedEpochs(b, k)``: the release C x + z * clip * N(0, I) is
    :math:`\mu`-GDP with :math:`\mu = \mathrm{sens}/z`, :math:`(\mu^2/2)`-zCDP, and
    :math:`\delta(\varepsilon) = \theta(\mu, \varepsilon)` (formulas in ``MatrixMechanism``).
    Neighbouring streams add or remove one user (replacing a user moves each x_i by up to twice the
    clip norm: give half the noise multiplier). No amplification by sampling or shuffling is
    claimed: the clients per round do not enter (``AmplifiedBandedMF`` is the amplified banded
    case).

    ``sensitivity`` (upper), ``sensitivity_lower`` and ``sensitivity_kind`` ("exact" or "upper
    bound") say what was computed; ``mu``, ``zcdp_rho``, ``rdp(orders)``, ``delta(epsilon)``,
    ``epsilon(delta)`` the guarantee. Under a random participation scheme ``sampled`` holds its
    ``SampledSides`` (None otherwise): ``delta``/``epsilon`` then read its certified sides, while
    ``mu``, ``zcdp_rho`` and ``rdp`` stay those of the worst pattern's Gaussian (no amplification
    claimed).

    Parameters
    ----------
    rounds : array_like
        Training rounds (steps) n, a whole number in [1, 2^31].
    noise_multiplier : array_like
        z, finite and > 0: the noise added to C x has standard deviation z times the clip norm.
    min_separation : array_like, default 1
        b, a whole number in [1, 2^31]: a client who took part in round t takes no part before round
        t + b (1: every round allowed). With ``participation="fixed_epochs"``, the exact spacing:
        rounds s, s + b, s + 2b, ...
    max_participations : array_like, optional
        k, a whole number >= 1: at most this many rounds per client (None: as many as the separation
        allows).
    strategy : {"tree", "tree_restart"}, Strategy or array_like, default "tree"
        "tree" is one binary tree over all rounds, "tree_restart" a tree restarted every
        ``min_separation`` rounds (one participation per tree at most); or ``BLT(...)``,
        ``Banded(...)``, any ``Strategy``, or a 2-D matrix C with one column per round.
    participation : str, default "min_separation"
        How clients (records) take part. Deterministic schemas: "min_separation" (any rounds at
        least b apart, at most k), "fixed_epochs" (rounds s, s + b, ...). Random schemes
        (jax_privacy's ``batch_selection`` names; ``sampled_participation.py``): "balls_in_bins"
        (one uniform bin of b = ``min_separation``, jax_privacy's cycle_length), "random_allocation"
        (k = ``max_participations`` uniformly chosen rounds), "b_min_sep" (b = ``min_separation``,
        jax_privacy's min_sep, each available record taken with probability ``sampling_rate``),
        "cyclic_poisson" (b groups, each record of the round's group taken with probability
        ``sampling_rate``). Under a random scheme the upper side is the smallest of the worst
        pattern's Gaussian (unamplified) and the amplified bounds proved for it: a banded C under
        cyclic Poisson (``AmplifiedBandedMF``); C >= 0 square lower triangular under "balls_in_bins"
        (one bin per record for the whole run, Lemma 3.2 of arXiv:2410.06266) or "random_allocation"
        of one round (``BallsInBinsRDP``, by Renyi DP). The lower side is ``RealizableLowerSide``;
        the run is one point (scalar arguments) and ``labelled_reading`` labels each side and says
        which upper side holds.
    sampling_rate : float, optional
        p (b-min-sep) or q (cyclic Poisson) in (0, 1], jax_privacy's sampling_prob; None for the
        other schemes.
    sampling : {"poisson"}, optional
        "poisson": every round takes each record independently with probability ``sampling_rate``
        (DP-SGD's sampling): the words for "cyclic_poisson" with ``min_separation=1``, where a C >=
        0 lower triangular has ``MMCC`` (its epsilon at the best split of delta) as a certified
        amplified upper side (``sampled_participation``); refused beside a ``participation`` or
        ``min_separation``.
    adaptive_inputs : bool, default True
        Whether each round's contributions may depend on what earlier rounds released, as a model's
        gradients do in training. The guarantee covers such inputs when C is lower triangular
        (Denisov et al. 2022, Thm 2.1: row i released at round i uses rounds up to i only), as every
        named strategy is; a square C with a non-zero entry above its diagonal is then refused (a C
        given transposed is the usual cause). ``False`` accepts any C, and the guarantee then covers
        only a stream fixed before the mechanism runs. A C with more rows than rounds is taken as
        released row by row once its last round is in (as the tree's nodes are).

    Raises
    ------
    ValueError
        A numeric argument outside its rule; an unknown ``strategy`` name or ``participation``; with
        ``adaptive_inputs=True``, a square C not lower triangular; what ``l2_sensitivity`` refuses
        (a dense C over more than 2048 rounds, a C whose columns count differs from ``rounds``);
        shapes that do not broadcast; under a random scheme, an array argument, a ``sampling_rate``
        or ``max_participations`` the scheme needs and lacks, or takes none of and is given.
    ParameterTypeError
        A numeric argument that is a string, bool or None; ``strategy`` a number, bool or None;
        ``adaptive_inputs`` not a bool.

    Notes
    -----
    The parameters are keyword-only; the numeric ones broadcast with each other and with the
    argument of ``delta``/``epsilon`` (one sensitivity is computed per distinct point, and cached).

    References
    ----------
    Kairouz et al. 2021; Denisov et al. 2022, Theorem 2.1; Choquette-Choo et al. 2023a, 2023b;
    Dong, Roth & Su 2022; Bun & Steinke 2016, Proposition 1.6; Balle & Wang 2018, Theorem 8.

    Examples
    --------
    >>> from hockeystick.matrix import DPFTRL
    >>> run = DPFTRL(rounds=16, noise_multiplier=2.0, min_separation=4)
    >>> round(run.sensitivity, 9), run.sensitivity_kind, round(run.mu, 9)
    (6.0, 'exact', 3.0)
    >>> round(run.delta(1.0), 6)
    0.787601
    """

    def __init__(
        self,
        *,
        rounds: npt.ArrayLike,
        noise_multiplier: npt.ArrayLike,
        min_separation: npt.ArrayLike = 1,
        max_participations: npt.ArrayLike | None = None,
        strategy: Any = "tree",
        participation: ParticipationName = "min_separation",
        adaptive_inputs: bool = True,
        sampling_rate: float | None = None,
        sampling: Literal["poisson"] | None = None,
    ) -> None:
        if (
            sampling is not None
        ):  # i.i.d. Poisson: cyclic Poisson with one group, MMCC its amplified upper side
            participation, min_separation = _poisson_words(sampling, participation, min_separation)
        participation = choice(participation, "participation", PARTICIPATIONS)
        adaptive = flag(adaptive_inputs, "adaptive_inputs")
        n = positive_integer(rounds, "rounds", maximum=2.0**31)
        b = positive_integer(min_separation, "min_separation", maximum=2.0**31)
        k = (
            None
            if max_participations is None
            else positive_integer(max_participations, "max_participations")
        )
        n_int, schemas = _schemas(n, b, k, participation)
        cells = np.empty(n_int.shape, dtype=object)
        for index in np.ndindex(n_int.shape):
            schema = cast(Participation, schemas[index])
            chosen = strategy_from(strategy, schema.separation)
            if adaptive:
                _causal(chosen)
            cells[index] = _cached_sensitivity(chosen, int(n_int[index]), schema)
        self.rounds = scalar_or_array(n_int.astype(float))
        self.strategy = strategy
        self.participation = participation
        self.adaptive_inputs = adaptive
        # the separation, cap and rate as given, for the repr (the sensitivity holds them only
        # through C)
        self._given = dict(min_separation=b, max_participations=k, sampling_rate=sampling_rate)
        super().__init__(sensitivity=cells, noise_multiplier=noise_multiplier)
        self.sampled: SampledSides | None = None
        if participation in SAMPLED_PARTICIPATIONS:
            self.sampled = self._sampled_sides(strategy, n, b, k, sampling_rate)
        elif sampling_rate is not None:
            raise ValueError(
                f"sampling_rate must be None with participation={participation!r}, got {describe(sampling_rate)}: "
                "it is the probability of a random scheme (participation='b_min_sep' or 'cyclic_poisson')"
            )

    def __repr__(self) -> str:
        """The run as given (rounds, noise, separation, cap, strategy, participation, rate where one
        applies) and what it holds: the L2 sensitivity and its kind, mu, and whether amplification
        is claimed."""
        words = [
            f"rounds={_shown(self.rounds)}",
            f"noise_multiplier={_shown(self.noise_multiplier)}",
        ]
        words += [
            f"{name}={_shown(value)}" for name, value in self._given.items() if value is not None
        ]
        words += [
            f"strategy={_shown_strategy(self.strategy)}",
            f"participation={self.participation!r}",
        ]
        if not self.adaptive_inputs:
            words.append("adaptive_inputs=False")
        kind = (
            self.sensitivity_kind
            if isinstance(self.sensitivity_kind, str)
            else _shown(self.sensitivity_kind)
        )
        mu = _shown(self.mu, "upper")  # the certified GDP parameter: rounded up
        held = f"sensitivity {_shown(self.sensitivity)} ({kind}), mu {mu}; " + (
            "certified sides of the random participation (SampledSides)"
            if self.sampled is not None
            else "no amplification claimed"
        )
        return f"DPFTRL({', '.join(words)}): {held}"

    def _sampled_sides(
        self,
        strategy: Any,
        n: np.ndarray,
        b: np.ndarray,
        k: np.ndarray | None,
        sampling_rate: float | None,
    ) -> SampledSides:
        """The certified sides under a random participation scheme, at the run's one point."""
        arrays = [a for a in (n, b, k, self.noise_multiplier, sampling_rate) if a is not None]
        if any(np.ndim(a) for a in arrays):
            raise ValueError(
                f"participation={self.participation!r} takes one point: rounds, noise_multiplier, min_separation, "
                "max_participations and sampling_rate single numbers (the argument of delta/epsilon may be an array)"
            )
        return SampledSides(
            participation=self.participation,
            strategy=strategy_from(strategy, int(b)),
            rounds=int(n),
            noise_multiplier=float(self.noise_multiplier),
            separation=int(b),
            participations=None if k is None else int(k),
            sampling_rate=sampling_rate,
            unamplified=lambda method, x: getattr(super(DPFTRL, self), method)(x, bound="upper"),
        )

    def delta(self, epsilon: npt.ArrayLike, *, bound: Bound = "upper") -> Any:
        """delta(eps), each side rounded outward; under a random scheme the upper side of
        ``SampledSides`` (the worst pattern's Gaussian, or an amplified bound where proved) and the
        lower side ``RealizableLowerSide``."""
        if self.sampled is None:
            return super().delta(epsilon, bound=bound)
        sides = self.sampled
        eps = epsilon_values(epsilon)
        return certified_sides(
            bound,
            lambda: sides.lower_delta(eps),
            lambda: scalar_or_array(sides.upper("delta", eps)),
        )

    def epsilon(self, delta: npt.ArrayLike, *, bound: Bound = "upper") -> Any:
        """epsilon(delta), each side as ``delta`` takes it (the lower side by bisection on the lower delta)."""
        if self.sampled is None:
            return super().epsilon(delta, bound=bound)
        sides = self.sampled
        d = delta_values(delta)
        return certified_sides(
            bound,
            lambda: sides.lower_epsilon(d),
            lambda: scalar_or_array(sides.upper("epsilon", d)),
        )


def _poisson_words(
    sampling: str, participation: str, min_separation: Any
) -> tuple[ParticipationName, int]:
    """``sampling="poisson"``: every round takes each record with probability ``sampling_rate``
    (cyclic Poisson with one group), refused beside a participation schema or a separation of its
    own."""
    choice(sampling, "sampling", ("poisson",))
    if participation != "min_separation" or not (
        np.ndim(min_separation) == 0 and float(min_separation) == 1.0
    ):
        raise ValueError(
            f"sampling='poisson' sets the participation (every round, each record taken with probability "
            f"sampling_rate), got participation={participation!r} and min_separation={describe(min_separation)}: "
            "drop them, or use participation='cyclic_poisson' with min_separation=b for b groups"
        )
    return "cyclic_poisson", 1


def noise_multiplier_for_zcdp(
    rho: float,
    *,
    rounds: int,
    min_separation: int = 1,
    max_participations: int | None = None,
    strategy: Any = "tree",
    participation: ParticipationName = "min_separation",
    adaptive_inputs: bool = True,
) -> float:
    r"""Smallest noise multiplier whose certified zCDP rho, at the upper sensitivity, is at most ``rho``.

    .. math::

        z^\star = \min\{z : \rho(z) \le \rho\}, \qquad
        \rho(z) = \frac{1}{2}\Big(\frac{\mathrm{sens}}{z}\Big)^2 .

    The certified rho (``MatrixMechanism.zcdp_rho``, mu = sens / z rounded up, then rho = mu^2 / 2
    rounded up) does not increase with z, so the smallest such z is found exactly by bisection on
    the doubles, from z = sens / sqrt(2 rho) and a bracket widened by doubling (at most about 2100
    evaluations of rho, and 64 bisection steps).

    Parameters
    ----------
    rho : float
        The zCDP target, finite and > 0.
    rounds, min_separation, max_participations, strategy, participation, adaptive_inputs
        As in ``DPFTRL`` (one point: scalars).

    Returns
    -------
    float
        The noise multiplier z (in units of the clip norm).

    Raises
    ------
    ValueError
        ``rho`` not finite and > 0, or not one number; no double z reaches ``rho`` (the strategy's
        sensitivity over the smallest positive z still exceeds it, or z would overflow); the
        ``DPFTRL`` arguments' own rules.

    References
    ----------
    Bun & Steinke 2016, Proposition 1.6.

    Examples
    --------
    >>> from hockeystick.matrix import noise_multiplier_for_zcdp
    >>> round(noise_multiplier_for_zcdp(0.5, rounds=16, min_separation=4), 9)
    6.0
    """
    target = positive_number(rho, "rho")
    unit = DPFTRL(
        rounds=rounds,
        noise_multiplier=1.0,
        min_separation=min_separation,
        max_participations=max_participations,
        strategy=strategy,
        participation=participation,
        adaptive_inputs=adaptive_inputs,
    )
    if not isinstance(unit.sensitivities, Sensitivity):
        raise ValueError(
            "rounds, min_separation and max_participations must be single numbers here (one noise multiplier "
            "is returned), got arrays"
        )
    sensitivity = unit.sensitivities

    def meets(z: float) -> bool:
        return (
            float(MatrixMechanism(sensitivity=sensitivity, noise_multiplier=z).zcdp_rho) <= target
        )

    largest = float(np.finfo(np.float64).max)
    with np.errstate(over="ignore", under="ignore"):
        start = float(unit.sensitivity) / (math.sqrt(2.0) * math.sqrt(target))
    start = min(max(start, 5e-324), largest)
    # a bracket: ``low`` fails (or is 0, below every positive double), ``high`` meets the target
    if meets(start):
        low, high = start / 2.0, start
        while low > 0.0 and meets(low):
            low, high = low / 2.0, low
    else:
        low, high = start, min(2.0 * start, largest)
        while not meets(high):
            if high >= largest:
                raise ValueError(
                    f"rho must be reachable by some noise multiplier, got {describe(rho)}: the certified rho at the "
                    "largest double noise multiplier is still above it"
                )
            low, high = high, min(2.0 * high, largest)
    bits = np.array([low, high], dtype=np.float64).view(np.int64)
    lo_bits, hi_bits = int(bits[0]), int(bits[1])
    while hi_bits - lo_bits > 1:  # positive doubles are ordered as their bit patterns
        mid = (lo_bits + hi_bits) // 2
        if meets(float(np.array(mid, dtype=np.int64).view(np.float64))):
            hi_bits = mid
        else:
            lo_bits = mid
    return float(np.array(hi_bits, dtype=np.int64).view(np.float64))
