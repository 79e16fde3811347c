r"""The Poisson-binomial mechanism and the distributed discrete Laplace over T rounds: a PLD on each side.

Both sides here are privacy-loss distributions composed over the rounds (Zhu, Dong & Wang 2022, Thm.
10: a pair that dominates each round dominates their composition; a realized pair's composition is
realized):

* ``PoissonBinomialMechanism`` (Chen, Özgür & Kairouz 2022): upper side, the pair that dominates
  every pair of neighbouring cohorts of a coordinate (``poisson_binomial.dominating_pair_pld``),
  composed over the d coordinates and the T rounds; lower side, a realized pair (the others at -c,
  the client at +c against -c) on every coordinate, composed likewise
  (``poisson_binomial.realizable_pair_pld``).  Neighbouring inputs differ in one client's vector,
  each coordinate anywhere in [-c, c] (the coordinates' encodings are independent given the data).
  A round is also pure eps-DP with eps = d m log((1 + 2 theta) / (1 - 2 theta)) (the sum's
  likelihood ratio is a mixture of the client's own draws' ratios, each at most ((1/2 + theta) /
  (1/2 - theta))^m a coordinate), so randomized response at that eps, composed over the rounds,
  dominates it too: the upper side is the lesser of the two compositions' reads (each is an upper
  bound).  Where few draws are summed the dominating pair puts mass at an infinite loss (outcomes
  beyond the revealed fair coins), and the pure bound is the finite one.
* ``DistributedDiscreteLaplace`` (negative-binomial shares; Harrison & Manurangsi 2025, Harrison
  2024): each round is pure eps-DP with eps from Harrison's Theorem 1
  (``distributed_discrete_laplace.pure_epsilon``), so dominated by randomized response at eps
  (Kairouz, Oh & Viswanath 2015), composed over the T rounds above, and where the noise is
  log-concave (n >= E) and the shift one coordinate, also by the lattice pair of the largest shift
  (``distributed_discrete_laplace.dominating_shift_pld``), the lesser read taken; below, the exact
  lattice pair of the realizable shift floor(c / gamma) on one coordinate
  (``lattice_pld.realizable_shift_pld`` on ``distributed_discrete_laplace.gdl_masses``), composed
  over the T rounds.

Sampling (``sampling_rate`` q, each client in a round's cohort with probability q) and whom a number
protects against (``against=``), as for ``secagg.accountants``: against the server (default), who
picks the cohorts, the rounds are as above whatever q is; against an observer who does not learn the
cohorts, each round is a mixture, with the differing client in it with probability q.  The two laws
then share the mixture's weights and its component without the client (the Poisson-binomial client
sends nothing; the discrete Laplace's round without it holds one noise share fewer), so by joint
convexity of the hockey-stick divergence, for every gamma, the round is dominated by the dominating
pair mixed with weight q with a pair of equal laws (weight 1 - q), the mixture's index revealed
(``pld.mixture``'s argument).  The lower side is the realized pair so mixed: on one coordinate (the
sampling is one bit for all coordinates; dropping the others is a post-processing).  For the
Poisson-binomial mechanism on d > 1 coordinates the observer's upper side is the server's (the
mixture would have to be taken after the d coordinates' composition: not built), which holds for the
observer too (joint convexity: the mixture's divergence is at most q times the server's).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from ..base.accountant import BOUND_SIDES, Bound, Quantity
from ..base.accountant_docs import accountant_docs
from ..base.validation import (
    bound_side,
    choice,
    count,
    delta_values,
    epsilon_values,
    in_interval,
    positive_number,
    scalar_or_array,
    single,
)
from ..pld.grid import PrivacyLossDistribution
from ..pld.mechanisms import DEFAULT_INTERVAL, checked_interval, pair_factor
from .accountants import Adversary
from .distributed_discrete_laplace import (
    MAX_SUPPORT,
    _nb_cut,
    dominating_shift_pld,
    gdl_masses,
    pure_epsilon,
)
from .lattice_pld import realizable_shift_pld
from .poisson_binomial import dominating_pair_pld, poisson_binomial_parameters, realizable_pair_pld
from .sensitivity import IntegerSensitivity, Rounding, integer_sensitivity
from .shift_envelope import MAX_ENVELOPE_SHIFTS, shift_envelope_pld

__all__ = [
    "DistributedDiscreteLaplace",
    "PoissonBinomialMechanism",
    "discrete_laplace_round_plds",
    "poisson_binomial_pure_epsilon",
    "poisson_binomial_round_plds",
    "randomized_response_pld",
]

ADVERSARIES: tuple[Adversary, ...] = ("server", "observer")
_MAX_DECAY = 700.0  # the discrete Laplace's decay a per integer step: e^-a stays a normal double
UNIT_ROUNDOFF = 2.0**-53


def randomized_response_pld(
    epsilon: float, rate: float, value_discretization_interval: float
) -> PrivacyLossDistribution:
    """The pair that dominates a pure eps-DP round, mixed with weight q with equal laws, on the grid (upper side).

    Randomized response at eps, (e^eps / (1 + e^eps), 1 / (1 + e^eps)) against the reverse,
    dominates every eps-DP pair in both directions (Kairouz, Oh & Viswanath 2015, Thm. 2.4); the
    third atom, of mass 1 - q in both laws, is the round without the client.  The masses are formed
    at eps widened by 4u and lowered by 8u each: a pair so lowered dominates the exact one (the
    pessimistic side charges the missing P-mass at +infinity; ``poisson_binomial``'s module
    docstring).

    Parameters
    ----------
    epsilon : float
        eps >= 0, finite.
    rate : float
        q in (0, 1].
    value_discretization_interval : float
        The grid's spacing.

    Returns
    -------
    PrivacyLossDistribution
        One direction (the pair is symmetric); read its pessimistic side (``bound="upper"``).

    Raises
    ------
    ValueError
        An argument outside its rule.

    Examples
    --------
    >>> import math
    >>> from hockeystick.secagg.pair_accountants import randomized_response_pld
    >>> pair = randomized_response_pld(1.0, 1.0, 1e-4)
    >>> abs(pair.delta(0.0, bound="upper") - math.tanh(0.5)) < 1e-9
    True
    """
    e = float(in_interval(epsilon, "epsilon", 0.0, math.inf, open_low=False, open_high=True))
    q = float(in_interval(rate, "sampling_rate", 0.0, 1.0, open_low=True, open_high=False))
    e = math.nextafter(e * (1.0 + 4.0 * UNIT_ROUNDOFF), math.inf)
    low = 1.0 - 8.0 * UNIT_ROUNDOFF
    tail = math.exp(-e)  # from e^-eps: e^eps overflows past 709
    big, small = 1.0 / (1.0 + tail), tail / (1.0 + tail)
    p = np.array([q * big, q * small, 1.0 - q]) * low
    qq = np.array([q * small, q * big, 1.0 - q]) * low
    keep = p > 0.0
    factor = pair_factor(
        p[keep], qq[keep], "randomized_response", checked_interval(value_discretization_interval)
    )
    return PrivacyLossDistribution([{factor: 1}])


Pairs = list[tuple[PrivacyLossDistribution | None, int]]


def poisson_binomial_pure_epsilon(trials: int, theta: float, dimension: int) -> float:
    """A Poisson-binomial round's pure eps, d m log((1 + 2 theta) / (1 - 2 theta)), rounded up (module docstring).

    Parameters
    ----------
    trials : int
        m.
    theta : float
        0 < theta < 1/2.
    dimension : int
        d.

    Returns
    -------
    float
        The bound.

    Raises
    ------
    ValueError
        Never for checked arguments (``poisson_binomial.poisson_binomial_parameters`` checks them).
    """
    value = dimension * trials * (math.log1p(2.0 * theta) - math.log1p(-2.0 * theta))
    return math.nextafter(value * (1.0 + 8.0 * UNIT_ROUNDOFF), math.inf)


def poisson_binomial_round_plds(
    clients: int, trials: int, theta: float, dimension: int, side: str, rate: float, interval: float
) -> Pairs:
    """One Poisson-binomial round's PLDs on ``side`` ("upper": each dominates; "lower": one
    realized), each with the times a round composes it (module docstring).

    Parameters
    ----------
    clients, trials, theta, dimension : int, int, float, int
        n, m, theta, d.
    side : {"upper", "lower"}
        The side.
    rate : float
        q in (0, 1]: the round mixed with the client's absence (against an observer).
    interval : float
        The grid's spacing.

    Returns
    -------
    list
        (PLD, count) pairs.

    Raises
    ------
    ValueError
        An argument outside its rule.
    """
    if side == "upper":
        mixed = rate if dimension == 1 else 1.0  # d > 1: the server's pair (module docstring)
        pure = randomized_response_pld(
            poisson_binomial_pure_epsilon(trials, theta, dimension), rate, interval
        )
        return [
            (dominating_pair_pld(clients, trials, theta, interval, mixed), dimension),
            (pure, 1),
        ]
    return [
        (
            realizable_pair_pld(clients, trials, theta, interval, rate),
            dimension if rate == 1.0 else 1,
        )
    ]


def discrete_laplace_round_plds(
    shape: float,
    shape_with_client: float,
    decay: float,
    norms: tuple[float, float, int, int],
    side: str,
    rate: float,
    interval: float,
) -> Pairs:
    """One distributed discrete Laplace round's PLDs on ``side`` (module docstring).

    Parameters
    ----------
    shape : float
        beta = n / E, the survivors' share of the full noise.
    shape_with_client : float
        (n + 1) / E, the round with the differing client besides n others (against an observer).
    decay : float
        a.
    norms : tuple
        (Delta_1, Delta_2, d, k): the integer shift's bounds, the coordinates and the realizable
        shift.
    side : {"upper", "lower"}
        The side.
    rate : float
        q in (0, 1].
    interval : float
        The grid's spacing.

    Returns
    -------
    list
        (PLD, count) pairs; a lower side of None where no shift is realized.

    Raises
    ------
    ValueError
        An argument outside its rule, or (lower) a decay too small for the lattice (``gdl_masses``).
    """
    l1, l2, dimension, shift = norms
    if side == "upper":
        pure = pure_epsilon(shape, decay, l1, l2, dimension)
        upper: Pairs = [(randomized_response_pld(pure, rate, interval), 1)]
        one_coordinate = min(dimension, math.floor(l2 * l2), math.floor(l1)) == 1
        worst = int(math.floor(min(l1, l2)))
        if not (one_coordinate and rate == 1.0 and _nb_cut(shape, decay) <= MAX_SUPPORT):
            return upper
        noise = gdl_masses(shape, decay)
        if (
            worst >= noise[1].size
        ):  # the shift passes the noise's window: randomized response's alone
            return upper
        if shape >= 1.0:  # log-concave: the largest shift dominates
            upper.append((dominating_shift_pld(noise, worst, interval), 1))
        elif worst <= MAX_ENVELOPE_SHIFTS:  # no shift proved the worst: one pair above them all
            upper.append((shift_envelope_pld(noise, worst, pure, interval), 1))
        return upper
    if shift == 0:
        return [(None, 1)]
    if rate == 1.0:
        noise = gdl_masses(shape, decay)
        # any smaller shift is realizable too (inputs closer together): within the noise's window
        return [(realizable_shift_pld(noise, min(shift, noise[1].size - 1), interval), 1)]
    from .observer_shares import shares_pair_pld  # the pair of n and n + 1 shares on one coordinate

    pair = shares_pair_pld(
        gdl_masses(shape, decay), gdl_masses(shape_with_client, decay), shift, rate, interval
    )
    return [(pair, 1)]


@accountant_docs()
class _PairAccountant(ABC):
    """What both mechanisms share: T rounds, the two sides' PLDs, whom a number protects against."""

    bound_sides: tuple[Bound, ...] = BOUND_SIDES

    def __init__(
        self, *, rounds: int, sampling_rate: float, value_discretization_interval: float
    ) -> None:
        self.rounds = count(rounds, "rounds")
        self.sampling_rate = float(
            in_interval(
                single(sampling_rate, "sampling_rate"),
                "sampling_rate",
                0.0,
                1.0,
                open_low=True,
                open_high=False,
            )
        )
        self.value_discretization_interval = checked_interval(value_discretization_interval)
        self._sides: dict[tuple[str, float], list[PrivacyLossDistribution | None]] = {}

    def _rate(self, against: Adversary) -> float:
        return self.sampling_rate if choice(against, "against", ADVERSARIES) == "observer" else 1.0

    @abstractmethod
    def _round(self, side: str, rate: float) -> list[tuple[PrivacyLossDistribution | None, int]]:
        """One round's PLDs on ``side`` at ``rate``, each with how many times a round composes it
        (None: the trivial 0).  Each upper one dominates the mechanism, so the least of their
        compositions' reads is an upper bound; the lower side has one."""

    @property
    def delta_cost(self) -> float:
        """What the run adds to the upper side's delta (0 unless a subclass charges a failure probability)."""
        return 0.0

    def _plds(self, side: str, rate: float) -> list[PrivacyLossDistribution | None]:
        if (side, rate) not in self._sides:
            composed: list[PrivacyLossDistribution | None] = []
            for pair, per_round in self._round(side, rate):
                total = per_round * self.rounds
                composed.append(
                    None if pair is None else pair.self_compose(total) if total > 1 else pair
                )
            self._sides[side, rate] = composed
        return self._sides[side, rate]

    def _read(
        self, pld: PrivacyLossDistribution | None, x: np.ndarray, method: Quantity, side: str
    ) -> np.ndarray:
        if pld is None:
            return np.zeros(x.shape)  # no realized shift: the trivial lower side
        cost = self.delta_cost if side == "upper" else 0.0
        read = cast(Bound, side)
        if method == "delta":
            value = np.asarray(pld.delta(x, bound=read), dtype=float)
            return np.minimum(1.0, np.nextafter(value + cost, np.inf)) if cost else value
        rest = np.nextafter(x - cost, -np.inf) if cost else x
        safe = np.where(rest > 0.0, rest, 0.5)
        value = np.asarray(pld.epsilon(safe, bound=read), dtype=float)
        return np.where(rest > 0.0, value, np.inf)

    @abstractmethod
    def _round_pure_epsilon(self) -> float:
        """A round's pure eps against the server (rounded up); every rate only lowers it."""

    def _pure_read(self, x: np.ndarray, method: Quantity) -> np.ndarray:
        """The run's pure bound read at ``x``: T rounds of a pure eps_0 round are (T eps_0, 0)-DP
        (basic composition, Dwork & Roth 2014, Thm. 3.16), so eps(delta) <= T eps_0 wherever delta
        exceeds the delta cost, and delta(eps) <= the cost wherever eps >= T eps_0.  It needs no
        grid, and where the grid refuses (a pure eps too wide for its points) it is the answer."""
        total = math.nextafter(
            self.rounds * self._round_pure_epsilon() * (1.0 + 2.0 * UNIT_ROUNDOFF), math.inf
        )
        cost = self.delta_cost
        if method == "delta":
            return np.where(x >= total, min(1.0, cost), 1.0)
        rest = np.nextafter(x - cost, -np.inf) if cost else x
        return np.where(rest > 0.0, total, np.inf)

    def _side(self, x: np.ndarray, method: Quantity, side: str, rate: float) -> np.ndarray:
        reads = [self._read(pld, x, method, side) for pld in self._plds(side, rate)]
        if side == "upper":
            reads.append(self._pure_read(x, method))
        return reads[0] if len(reads) == 1 else np.minimum.reduce(reads)

    def _answer(self, x: np.ndarray, method: Quantity, bound: Bound, against: Adversary) -> Any:
        side = bound_side(bound)
        rate = self._rate(against)
        if side == "both":
            lower, upper = (
                self._side(x, method, "lower", rate),
                self._side(x, method, "upper", rate),
            )
            return scalar_or_array(np.minimum(lower, upper)), scalar_or_array(upper)
        return scalar_or_array(self._side(x, method, side, rate))

    def delta(
        self, epsilon: npt.ArrayLike, *, bound: Bound = "upper", against: Adversary = "server"
    ) -> Any:
        """delta(eps) of the T-round run: the dominating pair's composition (upper), the realized pair's (lower).

        Parameters
        ----------
        against : {"server", "observer"}, optional
            Whom the answer protects against: ``"server"`` (default), who picks the cohorts (no
            amplification by sampling), or ``"observer"``, who sees the released sums but not the
            cohorts (module docstring).

        Raises
        ------
        ValueError
            Also ``against`` not one of the two.
        """
        return self._answer(epsilon_values(epsilon), "delta", bound, against)

    def epsilon(
        self, delta: npt.ArrayLike, *, bound: Bound = "upper", against: Adversary = "server"
    ) -> Any:
        """eps(delta) of the T-round run, each side and each ``against`` as ``delta`` takes them.

        Parameters
        ----------
        against : {"server", "observer"}, optional
            Whom the answer protects against (``delta``).

        Raises
        ------
        ValueError
            Also ``against`` not one of the two.
        """
        return self._answer(delta_values(delta), "epsilon", bound, against)


@accountant_docs()
class PoissonBinomialMechanism(_PairAccountant):
    r"""The Poisson-binomial mechanism (Chen, Özgür & Kairouz 2022) over T rounds, certified both sides.

    Each client encodes each of its d coordinates x_j in [-c, c] as p_j = 1/2 + theta x_j / c and
    sends Binom(m, p_j); the server learns the sums.  Upper side: the pair that dominates every pair
    of neighbouring cohorts of a coordinate, revealing which draws were fair coins
    (``secagg.poisson_binomial``), composed over d coordinates and T rounds; lower side: the
    realized pair (the others at -c, the client at +c against -c) composed likewise.
    ``against="observer"`` mixes each round with the client's absence at ``sampling_rate``
    (``secagg.pair_accountants``).

    Parameters
    ----------
    trials : int
        m, each client's binomial draws per coordinate, >= 1.
    theta : float
        The encoding's scale, 0 < theta < 1/2 (the paper takes theta <= 1/4).
    min_surviving_clients : int
        n, the fewest clients whose draws are in a round's sum (the differing client among them),
        >= 1.
    dimension : int, optional
        d, the coordinates each client sends (default 1), each anywhere in [-c, c] on neighbouring
        inputs.
    rounds : int, optional
        T (default 1).
    sampling_rate : float, optional
        q in (0, 1], each client's probability of being in a round's cohort (default 1); it lowers
        only the numbers asked ``against="observer"``.
    value_discretization_interval : float, optional
        The PLDs' grid spacing (default 1e-4).

    Raises
    ------
    ValueError
        An argument outside its rule, or a pair of more than 2^24 atoms (fewer trials).

    References
    ----------
    Chen, Özgür & Kairouz 2022 (ICML; arXiv:2207.09916); Zhu, Dong & Wang 2022, Thm. 10; Lehmann &
    Romano 2005, Thm. 3.4.1.

    Examples
    --------
    >>> from hockeystick.secagg import PoissonBinomialMechanism
    >>> acc = PoissonBinomialMechanism(trials=16, theta=0.1, min_surviving_clients=20, rounds=10)
    >>> low, high = acc.epsilon(1e-5, bound="both")
    >>> 0 < low <= high
    True
    """

    def __init__(
        self,
        *,
        trials: int,
        theta: float,
        min_surviving_clients: int,
        dimension: int = 1,
        rounds: int = 1,
        sampling_rate: float = 1.0,
        value_discretization_interval: float = DEFAULT_INTERVAL,
    ) -> None:
        super().__init__(
            rounds=rounds,
            sampling_rate=sampling_rate,
            value_discretization_interval=value_discretization_interval,
        )
        self.trials, self.theta, self.min_surviving_clients = poisson_binomial_parameters(
            trials, theta, min_surviving_clients
        )
        self.dimension = count(dimension, "dimension")

    def _round(self, side: str, rate: float) -> list[tuple[PrivacyLossDistribution | None, int]]:
        return poisson_binomial_round_plds(
            self.min_surviving_clients,
            self.trials,
            self.theta,
            self.dimension,
            side,
            rate,
            self.value_discretization_interval,
        )

    def _round_pure_epsilon(self) -> float:
        return self.round_epsilon

    @property
    def round_epsilon(self) -> float:
        """A round's pure eps, d m log((1 + 2 theta) / (1 - 2 theta)), rounded up (module docstring).

        Returns
        -------
        float
            The bound: the sum's likelihood ratio is a mixture of the client's own draws' ratios
            (p / p')^k ((1 - p) / (1 - p'))^(m - k), each at most (b / a)^m on a coordinate.
        """
        return poisson_binomial_pure_epsilon(self.trials, self.theta, self.dimension)

    def mse(self, clip_norm: float = 1.0) -> float:
        """The decoded sum's mean squared error over the d coordinates: d n c^2 / (4 m theta^2) at most.

        The server's estimate of a coordinate's sum, c (Z - n m / 2) / (m theta), is unbiased, with
        variance (c / (m theta))^2 sum_i m p_i (1 - p_i) <= n c^2 / (4 m theta^2) (E Z = n m / 2 + m
        theta sum_i x_i / c).

        Parameters
        ----------
        clip_norm : float, optional
            c > 0 (default 1).

        Returns
        -------
        float
            The bound.

        Raises
        ------
        ValueError
            ``clip_norm`` not a finite positive number.
        """
        c = positive_number(clip_norm, "clip_norm")
        return (
            self.dimension
            * self.min_surviving_clients
            * c
            * c
            / (4.0 * self.trials * self.theta * self.theta)
        )


@accountant_docs()
class DistributedDiscreteLaplace(_PairAccountant):
    r"""The distributed discrete Laplace with dropout (negative-binomial shares) over T rounds, certified both sides.

    Each client clips its update to L2 norm c, scales it by 1 / gamma, rotates and rounds it to
    integers (``secagg.sensitivity``), and adds NB(1/E, 1 - e^{-a}) - NB(1/E, 1 - e^{-a}) to each
    coordinate, a = gamma / ``scale``: E shares make the discrete Laplace of scale ``scale`` (in the
    update's units), n survivors the generalized discrete Laplace GDL(n / E, a)
    (``secagg.distributed_discrete_laplace``). Upper side: Harrison's pure eps of a round (Theorem
    1; many coordinates: its bound summed over them), each round dominated by randomized response at
    that eps, composed over T rounds; lower side: the exact lattice pair of the realizable shift
    floor(c / gamma) on one coordinate, composed over T rounds.

    Parameters
    ----------
    clip_norm : float
        c, the L2 clip norm of each client's update, finite and > 0.
    granularity : float
        gamma, the integer grid's step in the update's units, > 0.
    dimension : int
        d, the coordinates rounded and noised, >= 1.
    scale : float
        The full discrete Laplace's scale 1 / a in the update's units (E shares' sum), > 0.
    expected_clients : int
        E, the clients whose shares make the full noise (each adds the 1/E share), >= 1.
    min_surviving_clients : int
        n, the fewest clients whose shares are in a round's sum, >= 1 (n < E: the noise is GDL(n /
        E, a)).
    rounds : int, optional
        T (default 1).
    beta : float, optional
        The rounding's failure probability, 0 <= beta < 1 (default 0: the deterministic norm bound).
    rounding : {"conditional", "unconditional"}, optional
        Conditional rounding enforces the norm bound; unconditional adds T beta to the upper side's
        delta.
    sampling_rate : float, optional
        q in (0, 1] (default 1); it lowers only the numbers asked ``against="observer"``.
    value_discretization_interval : float, optional
        The PLDs' grid spacing (default 1e-4).

    Attributes
    ----------
    round_epsilon : float
        One round's pure eps against the server (Harrison's bound).

    Raises
    ------
    ValueError
        An argument outside its rule.

    References
    ----------
    Harrison & Manurangsi 2025 (arXiv:2504.05202), Sec. 3; Harrison 2024, "Distributed noise
    addition and infinite divisibility", Theorem 1; Kairouz, Oh & Viswanath 2015, Thm. 2.4; Kairouz,
    Liu & Steinke 2021, Prop. 22 (rounding).

    Examples
    --------
    >>> from hockeystick.secagg import DistributedDiscreteLaplace
    >>> acc = DistributedDiscreteLaplace(clip_norm=1.0, granularity=0.1, dimension=1, scale=5.0,
    ...                                  expected_clients=10, min_surviving_clients=8, rounds=10)
    >>> low, high = acc.epsilon(1e-5, bound="both")
    >>> 0 < low <= high
    True
    """

    def __init__(
        self,
        *,
        clip_norm: float,
        granularity: float,
        dimension: int,
        scale: float,
        expected_clients: int,
        min_surviving_clients: int,
        rounds: int = 1,
        beta: float = 0.0,
        rounding: Rounding = "conditional",
        sampling_rate: float = 1.0,
        value_discretization_interval: float = DEFAULT_INTERVAL,
    ) -> None:
        super().__init__(
            rounds=rounds,
            sampling_rate=sampling_rate,
            value_discretization_interval=value_discretization_interval,
        )
        self.sensitivity: IntegerSensitivity = integer_sensitivity(
            clip_norm=clip_norm,
            granularity=granularity,
            dimension=dimension,
            beta=beta,
            rounding=rounding,
        )
        self.clip_norm, self.granularity, self.dimension = (
            float(clip_norm),
            float(granularity),
            int(dimension),
        )
        self.scale = positive_number(scale, "scale")
        self.expected_clients = count(expected_clients, "expected_clients")
        self.min_surviving_clients = count(min_surviving_clients, "min_surviving_clients")
        self.beta, self.rounding = float(beta), rounding
        self.decay = self.granularity / self.scale  # a, per integer step
        if not 0.0 < self.decay <= _MAX_DECAY:
            raise ValueError(
                f"granularity / scale must be a decay in (0, {_MAX_DECAY:g}] per integer step (a larger one leaves no "
                f"noise), got {self.granularity!r} / {self.scale!r}: a finer granularity or a larger scale"
            )
        self.shape = self.min_surviving_clients / self.expected_clients
        s = self.sensitivity
        self.round_epsilon = pure_epsilon(self.shape, self.decay, s.l1, s.l2, self.dimension)

    def _round_pure_epsilon(self) -> float:
        return self.round_epsilon

    @property
    def delta_cost(self) -> float:
        """What unconditional rounding adds to delta over the run: T beta (capped at 1); 0 for conditional."""
        return min(
            1.0,
            math.nextafter(self.rounds * self.sensitivity.delta_cost * (1.0 + 2.0**-52), math.inf),
        )

    def _round(self, side: str, rate: float) -> list[tuple[PrivacyLossDistribution | None, int]]:
        s = self.sensitivity
        return discrete_laplace_round_plds(
            self.min_surviving_clients / self.expected_clients,
            (self.min_surviving_clients + 1) / self.expected_clients,
            self.decay,
            (s.l1, s.l2, self.dimension, s.realizable_shift),
            side,
            rate,
            self.value_discretization_interval,
        )
