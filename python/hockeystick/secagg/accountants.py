r"""The secure-aggregation accountants: T rounds of distributed discrete noise, certified on both sides.

Each round, every surviving client clips its update to c, scales it by 1 / gamma, rotates and rounds
it (``sensitivity``), adds its own discrete noise, and the server learns the sum modulo 2^b
(``modular_wrap``: post-processing, no privacy cost).  Neighbouring runs differ in one client's
updates (replaced by zero).

* Upper side: the mechanism's RDP curve (``distributed_discrete_gaussian`` or ``skellam``) at the
  rounded vector's (Delta_2, Delta_1), times T (RDP adds under composition, Mironov 2017, Prop. 1),
  converted to (eps, delta) by ``rdp.rdp_to_delta`` / ``rdp.rdp_to_epsilon`` (the tight conversion,
  Balle et al. 2020, Thm. 21).  Unconditional rounding adds T beta to delta: in each round the
  differing client's rounding exceeds Delta_2 with probability at most beta, and outside those
  events the two runs are coupled to ones the RDP bound covers.
* Lower side: one realizable pair, the one-coordinate integer shift floor(c / gamma)
  (``sensitivity``), its exact lattice PLD (``lattice_pld``) composed over the T rounds, read on its
  optimistic side.  The true worst case over neighbouring inputs lies between the two sides.  Where
  c / gamma < 1 no shift is realized and the lower side is the trivial 0.

Dropout: ``min_surviving_clients`` is the fewest clients whose noise is in a round's sum; more
survivors are a post-processing (their noise is independent), so the guarantee holds for any round
with at least that many, and the lower side is the pair at exactly that many.

Sampling of clients (``sampling_rate`` q: each round's cohort a Poisson sample, each client in it
with probability q).  Whom a number protects against decides which one holds (``against=``):

* ``against="server"`` (the default): the secure-aggregation server chooses each round's cohort, so
  against it, and anyone who learns the cohort, sampling hides nothing: the unamplified guarantee
  above holds, and is what is reported.
* ``against="observer"``: someone who sees the released sums (or models) but not the cohorts, in the
  pipeline where each sampled client adds its own noise share (TensorFlow Federated's distributed
  DP): a round without the differing client holds one share fewer than a round with it
  (``observer_shares``).  The bracket answers the known-count model (the worst case over the others'
  cohort; docs/secure-aggregation.md states the models).  Upper side: the run with each round's
  participation bit revealed, the lesser of two readings: the round's RDP curve amplified by joint
  convexity, log(1 - q + q e^{(alpha - 1) eps(alpha)}) / (alpha - 1), times T
  (``observer_shares.shares_sampled_rdp``), and the average over the number of participations M ~
  Bin(T, q) of the conversion of M eps(alpha) (``observer_participations``).  Lower side: n other
  clients surviving, their updates zero, the round on all d coordinates read through the shifted
  coordinate and the count of other coordinates beyond a threshold
  (``observer_spread.spread_pair_pld``; at d = 1 the shifted coordinate alone,
  ``observer_shares.shares_pair_pld``), its exact lattice PLD composed over the rounds.  At q = 1
  nothing is hidden and the answer is the server's.

  Poisson subsampling's amplification for a fixed number of shares in every sum (Zhu & Wang 2019's general
  bound, quadratic in q) is not used: in that pipeline the share count depends on whether the differing client
  was sampled, and across d coordinates the observer sees it in the sum's variance.

"""

from __future__ import annotations

import math
import warnings
from abc import ABC, abstractmethod
from typing import Any, Literal

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
from ..base.warning_site import outside_stacklevel
from ..pld.grid import PrivacyLossDistribution
from ..pld.mechanisms import DEFAULT_INTERVAL, checked_interval
from ..pld.refine import AccuracyNotMetWarning
from ..rdp.conversion import rdp_to_delta, rdp_to_epsilon
from ..rdp.mechanisms import DEFAULT_ORDERS
from .distributed_discrete_gaussian import distributed_discrete_gaussian_rdp
from .lattice_pld import (
    WINDOW_STDDEVS,
    Masses,
    ddg_sum_masses,
    realizable_shift_pld,
    skellam_masses,
)
from .observer_participations import participation_count_delta, participation_count_epsilon
from .observer_shares import shares_pair_pld, shares_sampled_rdp
from .observer_spread import spread_pair_pld
from .sensitivity import IntegerSensitivity, Rounding, integer_sensitivity
from .skellam import SKELLAM_ORDERS, skellam_rdp

__all__ = ["ADVERSARIES", "DDG_ORDERS", "DistributedDiscreteGaussian", "DistributedSkellam"]

#: Whom a reported number protects against (module docstring): the server, who picks the cohorts (no
#: amplification by sampling), or an observer of the released sums who does not learn them.
# whom a number protects against: the server (it picks the cohorts) or an observer of the sums
Adversary = Literal["server", "observer"]
ADVERSARIES: tuple[Adversary, ...] = ("server", "observer")

#: The distributed discrete Gaussian's orders: the library's defaults with every integer up to 256 (the orders
#: of google-research/federated's accounting_utils, 2 .. 128 and 256, among them, so that no optimum of theirs
#: is missed).
DDG_ORDERS: tuple[float, ...] = tuple(
    sorted(set(DEFAULT_ORDERS) | {float(a) for a in range(2, 257)})
)

#: The most integers the lower side's lattice window may hold (32 MiB a mass array): a larger noise is answered
#: on the upper side only, and the lower side refused naming local_sigma / granularity.
MAX_LATTICE_OUTCOMES = 1 << 22

#: The coarsest grid the lower side falls back to (``checked_interval``'s limit).
MAX_INTERVAL = 100.0


@accountant_docs()
class _SecureAggregation(ABC):
    """What both mechanisms share: the pipeline's sensitivity, T rounds, the two sides (module docstring)."""

    bound_sides: tuple[Bound, ...] = BOUND_SIDES
    orders: tuple[float, ...] = DEFAULT_ORDERS

    def __init__(
        self,
        *,
        clip_norm: float,
        granularity: float,
        dimension: int,
        local_sigma: float,
        min_surviving_clients: int,
        rounds: int = 1,
        beta: float = 0.0,
        rounding: Rounding = "conditional",
        sampling_rate: float = 1.0,
        value_discretization_interval: float = DEFAULT_INTERVAL,
    ) -> None:
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
        self.local_sigma = positive_number(local_sigma, "local_sigma")
        self.min_surviving_clients = count(min_surviving_clients, "min_surviving_clients")
        self.rounds = count(rounds, "rounds")
        self.beta, self.rounding = float(beta), rounding
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
        self.integer_sigma = self.local_sigma / self.granularity  # the noise in integer units
        self._round_rdp = self.round_rdp(np.asarray(self.orders))
        self._sampled_rdp: np.ndarray | None = None
        self._lower_pld: dict[tuple[float, float], PrivacyLossDistribution] = {}
        self._lower_interval: dict[
            float, float
        ] = {}  # the grid each rate's lower side was last answered on

    @abstractmethod
    def round_rdp(self, orders: np.ndarray) -> np.ndarray:
        """One round's RDP curve at ``orders``, rounded up."""

    @abstractmethod
    def noise_masses(self, clients: int | None = None) -> Masses:
        """The PMF of ``clients`` noise shares (default ``min_surviving_clients``) summed on one
        coordinate, with its relative error bounds."""

    def _rate(self, against: Adversary) -> float:
        """The sampling rate that counts against ``against`` (module docstring): 1 against the server."""
        return self.sampling_rate if choice(against, "against", ADVERSARIES) == "observer" else 1.0

    def rdp(self, *, against: Adversary = "server") -> np.ndarray:
        """The run's RDP curve at ``orders``: T times the round's (amplified by joint convexity
        against an observer, each sampled client bringing its own noise share: the module
        docstring), each value rounded up."""
        curve = self._round_rdp
        if self._rate(against) < 1.0:
            if self._sampled_rdp is None:
                self._sampled_rdp = shares_sampled_rdp(
                    curve, np.asarray(self.orders), self.sampling_rate
                )
            curve = self._sampled_rdp
        return np.nextafter(curve * self.rounds * (1.0 + 2.0**-52), np.inf)

    @property
    def delta_cost(self) -> float:
        """What unconditional rounding adds to delta over the run: T beta (capped at 1); 0 for conditional."""
        return min(
            1.0,
            math.nextafter(self.rounds * self.sensitivity.delta_cost * (1.0 + 2.0**-52), math.inf),
        )

    def _lower(self, rate: float, interval: float) -> PrivacyLossDistribution | None:
        """The realizable pair's PLD on the grid ``interval``, composed over the rounds: n noise
        shares shifted against n at ``rate`` 1, the pair of n and n + 1 shares mixed by ``rate``
        below it (module docstring); None where no shift is realized."""
        shift, n = self.sensitivity.realizable_shift, self.min_surviving_clients
        if shift == 0:
            return None
        self._check_lattice(n + (rate < 1.0))
        if (rate, interval) not in self._lower_pld:
            h = interval
            if rate == 1.0:
                pair = realizable_shift_pld(self.noise_masses(), shift, h)
            elif self.dimension == 1:
                pair = shares_pair_pld(
                    self.noise_masses(n), self.noise_masses(n + 1), shift, rate, h
                )
            else:
                pair = spread_pair_pld(
                    self.noise_masses(n), self.noise_masses(n + 1), shift, rate, self.dimension, h
                )
            self._lower_pld = {
                key: pld for key, pld in self._lower_pld.items() if key[0] != rate
            }  # one grid a rate
            self._lower_pld[rate, interval] = (
                pair.self_compose(self.rounds) if self.rounds > 1 else pair
            )
        return self._lower_pld[rate, interval]

    def _lower_read(self, x: np.ndarray, method: Quantity, rate: float) -> np.ndarray:
        """The lower side's read on the finest grid whose composed window fits the composition's
        memory cap: the grid asked, else twice as coarse, and so on (a coarser grid's optimistic
        side is certified too, only lower), with an ``AccuracyNotMetWarning`` naming the grid
        used."""
        asked = self.value_discretization_interval
        h = self._lower_interval.get(rate, asked)
        while True:
            pld = self._lower(rate, h)
            if pld is None:
                return np.zeros(x.shape)
            try:
                value = np.asarray(getattr(pld, method)(x, bound="lower"), dtype=float)
            except ValueError as error:  # the composition's refusal of a window past its memory cap
                if "grid points (max_points=" not in str(error) or not 2.0 * h <= MAX_INTERVAL:
                    raise
                h *= 2.0
                continue
            self._lower_interval[rate] = h
            if h != asked:
                warnings.warn(
                    f"the lower side's composition on value_discretization_interval={asked:g} needs more grid points "
                    f"than the memory cap allows: answered on the finest grid that fits, {h:g} (certified, only "
                    "lower; hockeystick.pld.compose.fft.DEFAULT_MAX_POINTS is the cap)",
                    AccuracyNotMetWarning,
                    stacklevel=outside_stacklevel(),
                )
            return value

    def _check_lattice(self, clients: int) -> None:
        """Refuse, naming local_sigma / granularity, a lower side whose lattice window
        (``lattice_pld``: the summed noise's +-8 standard deviations and the shift) would hold more
        than ``MAX_LATTICE_OUTCOMES`` integers; the upper side (RDP) answers at any noise."""
        spread = WINDOW_STDDEVS * math.sqrt(clients) * self.integer_sigma
        outcomes = 2.0 * (spread + self.sensitivity.realizable_shift) + 1.0
        if not outcomes <= MAX_LATTICE_OUTCOMES:
            raise ValueError(
                f"local_sigma / granularity = {self.integer_sigma:.6g} with {clients} noise shares spreads the lower "
                f"side's lattice over about {outcomes:.3g} integers, above its {MAX_LATTICE_OUTCOMES} "
                f"(local_sigma / granularity must be at most about {MAX_LATTICE_OUTCOMES / (2 * WINDOW_STDDEVS):.3g} "
                "/ sqrt(min_surviving_clients) for bound='lower' or 'both'): ask bound='upper' (the RDP side "
                "answers at any noise), or a coarser granularity"
            )

    def _delta_upper(self, eps: np.ndarray, against: Adversary) -> np.ndarray:
        orders = np.asarray(self.orders)
        value = np.asarray(rdp_to_delta(self.rdp(against=against), orders, eps), dtype=float)
        rate = self._rate(against)
        if (
            rate < 1.0
        ):  # the least of joint convexity's and the participation count's (module docstring)
            value = np.minimum(
                value, participation_count_delta(self._round_rdp, orders, rate, self.rounds, eps)
            )
        return (
            np.minimum(1.0, np.nextafter(value + self.delta_cost, np.inf))
            if self.delta_cost
            else value
        )

    def _epsilon_upper(self, delta: np.ndarray, against: Adversary) -> np.ndarray:
        rest = np.nextafter(delta - self.delta_cost, -np.inf) if self.delta_cost else delta
        safe = np.where(rest > 0.0, rest, 0.5)
        orders = np.asarray(self.orders)
        value = np.asarray(rdp_to_epsilon(self.rdp(against=against), orders, safe), dtype=float)
        rate = self._rate(against)
        if rate < 1.0:
            value = participation_count_epsilon(
                self._round_rdp, orders, rate, self.rounds, safe, value
            )
        return np.where(rest > 0.0, value, np.inf)

    def _side(self, x: np.ndarray, method: Quantity, side: str, against: Adversary) -> Any:
        if side == "upper":
            return (
                self._delta_upper(x, against)
                if method == "delta"
                else self._epsilon_upper(x, against)
            )
        return self._lower_read(x, method, self._rate(against))

    def _answer(self, x: np.ndarray, method: Quantity, bound: Bound, against: Adversary) -> Any:
        side = bound_side(bound)
        self._rate(against)  # checked before any work
        if side == "both":
            lower, upper = (
                self._side(x, method, "lower", against),
                self._side(x, method, "upper", against),
            )
            return scalar_or_array(np.minimum(lower, upper)), scalar_or_array(upper)
        return scalar_or_array(np.asarray(self._side(x, method, side, against), dtype=float))

    def delta(
        self, epsilon: npt.ArrayLike, *, bound: Bound = "upper", against: Adversary = "server"
    ) -> Any:
        """delta(eps) of the T-round run: the RDP curve's conversion (upper), the realizable pair's PLD (lower).

        Parameters
        ----------
        against : {"server", "observer"}, optional
            Whom the answer protects against: ``"server"`` (default), who picks the cohorts, so no
            amplification by sampling; ``"observer"``, who sees the released sums but not the
            cohorts, amplified by ``sampling_rate`` with each sampled client bringing its own noise
            share (module docstring).

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
            Whom the answer protects against: ``"server"`` (default) or ``"observer"`` (``delta``).

        Raises
        ------
        ValueError
            Also ``against`` not one of the two.
        """
        return self._answer(delta_values(delta), "epsilon", bound, against)


_PARAMETERS = """
    Parameters
    ----------
    clip_norm : float
        c, the L2 clip norm of each client's update, finite and > 0.
    granularity : float
        gamma, the integer grid's step in the update's units (a client sends round(R x / gamma)), > 0.
    dimension : int
        d, the number of coordinates rounded and noised (after the rotation's padding), >= 1.
    local_sigma : float
        Each client's noise in the update's units (the module's convention for the mechanism), > 0.
    min_surviving_clients : int
        n, the fewest clients whose noise is in a round's sum (dropout: count the survivors), >= 1.
    rounds : int, optional
        T, the rounds a client takes part in (default 1).
    beta : float, optional
        The rounding's failure probability, 0 <= beta < 1 (default 0: the deterministic norm bound).
    rounding : {"conditional", "unconditional"}, optional
        Conditional rounding enforces the norm bound (beta enters the error only); unconditional adds T beta
        to delta.
    sampling_rate : float, optional
        q in (0, 1], each client's probability of being in a round's cohort (Poisson sampling; default 1).
        It lowers only the numbers asked ``against="observer"`` (the module docstring says whom each
        protects against).
    value_discretization_interval : float, optional
        The lower side's PLD grid spacing (default 1e-4).
"""


@accountant_docs()
class DistributedDiscreteGaussian(_SecureAggregation):
    __doc__ = (
        r"""The distributed discrete Gaussian (Kairouz, Liu & Steinke 2021) over T rounds, certified both sides.

    Each client adds N_Z(0, s^2)^d, s = ``local_sigma`` / ``granularity`` in integer units (s >= 1/2).  Upper
    side: KLS21, Prop. 14 at the rounded (Delta_2, Delta_1), minimised over n' <= n survivors, times T,
    converted by the tight RDP conversion (``secagg.distributed_discrete_gaussian``); lower side: the sum of
    n discrete Gaussians shifted by floor(c / gamma) on one coordinate, its exact lattice PLD composed T
    times (``secagg.lattice_pld``).  Against the server (the default) no amplification by sampling is
    claimed; ``against="observer"`` amplifies by ``sampling_rate``, each sampled client adding its own noise
    share (``secagg.accountants``, ``secagg.observer_shares``).
"""
        + _PARAMETERS
        + r"""
    Raises
    ------
    ValueError
        If an argument breaks its rule (``local_sigma`` / ``granularity`` below 1/2 names the fix).

    References
    ----------
    Kairouz, Liu & Steinke 2021, Prop. 14, Prop. 22 and Thm. 1; Balle et al. 2020, Thm. 21.

    Examples
    --------
    >>> from hockeystick.secagg import DistributedDiscreteGaussian
    >>> acc = DistributedDiscreteGaussian(clip_norm=1.0, granularity=0.1, dimension=1, local_sigma=0.5,
    ...                                   min_surviving_clients=4, rounds=10)
    >>> low, high = acc.epsilon(1e-5, bound="both")
    >>> 0 < low <= high
    True
    """
    )

    orders = DDG_ORDERS

    def round_rdp(self, orders: np.ndarray) -> np.ndarray:
        """One round's RDP curve at ``orders`` (KLS21, Prop. 14, minimised over n' <= n)."""
        return distributed_discrete_gaussian_rdp(
            self.integer_sigma,
            self.min_surviving_clients,
            self.sensitivity.l2,
            self.sensitivity.l1,
            self.dimension,
            orders,
        )

    def noise_masses(self, clients: int | None = None) -> Masses:
        """The PMF of ``clients`` summed shares on one coordinate, with its error bounds (``lattice_pld.ddg_sum_masses``).

        Parameters
        ----------
        clients : int, optional
            The shares summed (default ``min_surviving_clients``).

        Returns
        -------
        tuple
            (x0, masses, errors, outside), as ``lattice_pld.ddg_sum_masses`` returns it.

        Raises
        ------
        ValueError
            If the masses are not bounded at this noise (``lattice_pld.ddg_sum_masses``).
        """
        n = self.min_surviving_clients if clients is None else clients
        return ddg_sum_masses(self.integer_sigma, n, self.sensitivity.realizable_shift)


@accountant_docs()
class DistributedSkellam(_SecureAggregation):
    __doc__ = (
        r"""The distributed Skellam mechanism (Agarwal, Kairouz & Liu 2021) over T rounds, certified both sides.

    Each client adds symmetric Skellam noise of variance mu = (``local_sigma`` / ``granularity``)^2 per
    coordinate; the sum has variance V = n mu.  Upper side: Agarwal et al., Cor. 3.6 at the rounded
    (Delta_2, Delta_1) and integer orders, times T, converted by the tight RDP conversion
    (``secagg.skellam``); lower side: Skellam(V) shifted by floor(c / gamma) on one coordinate, its lattice
    PLD composed T times (``secagg.lattice_pld``).  Against the server (the default) no amplification by
    sampling is claimed; ``against="observer"`` amplifies by ``sampling_rate``, each sampled client adding its own
    noise share (``secagg.accountants``, ``secagg.observer_shares``).
"""
        + _PARAMETERS
        + r"""
    Raises
    ------
    ValueError
        If an argument breaks its rule.

    References
    ----------
    Agarwal, Kairouz & Liu 2021, Cor. 3.6; Kairouz, Liu & Steinke 2021, Prop. 22; Balle et al. 2020, Thm. 21.

    Examples
    --------
    >>> from hockeystick.secagg import DistributedSkellam
    >>> acc = DistributedSkellam(clip_norm=1.0, granularity=0.1, dimension=1, local_sigma=0.5,
    ...                          min_surviving_clients=4, rounds=10)
    >>> low, high = acc.epsilon(1e-5, bound="both")
    >>> 0 < low <= high
    True
    """
    )

    orders = SKELLAM_ORDERS

    def round_rdp(self, orders: np.ndarray) -> np.ndarray:
        """One round's RDP curve at ``orders`` (Agarwal et al., Cor. 3.6, at V = n mu)."""
        # products, not **: a float's ** raises OverflowError past the doubles, a product gives inf
        # (refused below)
        variance = self.min_surviving_clients * self.integer_sigma * self.integer_sigma
        if not (0.0 < variance < math.inf):
            raise ValueError(
                f"local_sigma / granularity = {self.integer_sigma!r} gives the summed Skellam variance "
                f"min_surviving_clients (local_sigma / granularity)^2 = {variance!r}, outside the finite positive "
                "doubles: bring local_sigma and granularity closer in scale"
            )
        return skellam_rdp(variance, self.sensitivity.l2, self.sensitivity.l1, orders)

    def noise_masses(self, clients: int | None = None) -> Masses:
        """The PMF of ``clients`` summed shares on one coordinate, with its error allowance (``lattice_pld.skellam_masses``).

        Parameters
        ----------
        clients : int, optional
            The shares summed (default ``min_surviving_clients``).

        Returns
        -------
        tuple
            (x0, masses, errors, outside), as ``lattice_pld.skellam_masses`` returns it.

        Raises
        ------
        ValueError
            If the summed variance is past scipy's Bessel function (``lattice_pld.skellam_masses``).
        """
        n = self.min_surviving_clients if clients is None else clients
        return skellam_masses(
            n * self.integer_sigma * self.integer_sigma, self.sensitivity.realizable_shift
        )
