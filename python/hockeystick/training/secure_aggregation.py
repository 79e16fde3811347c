r"""DP-FedAvg over secure aggregation: each client noises its own integer update, the server sees only the sum.

The run TensorFlow Federated's ``DistributedDpSumFactory`` describes, in DP-FedAvg's words: each
round's cohort (Poisson sampling, rate q = clients_per_round / total_clients) clips its updates to
L2 norm C, scales them by 1 / gamma, rotates and rounds them to integers, and each client adds
discrete noise of its own, the distributed discrete Gaussian (Kairouz, Liu & Steinke 2021, "KLS21")
or the distributed Skellam mechanism (Agarwal, Kairouz & Liu 2021); secure aggregation gives the
server the sum modulo 2^b.  The noise is given as the central noise multiplier z (TFF's
``noise_multiplier``): the clients' noises add up to standard deviation z C at the expected cohort,
so each client's is

.. math::

    \sigma_{\text{local}} = z C / \sqrt{m},

m = ``clients_per_round`` (TFF's ``local_stddev = central_stddev /
sqrt(expected_clients_per_round)``), or ``local_stddev`` directly.  The guarantee is ``secagg``'s:
the round's RDP bound at the rounded vector's (Delta_2, Delta_1) and at ``min_surviving_clients``
noises (dropout: the survivors' noise protects the round), composed over T rounds (upper side), and
the exact lattice PLD of the realizable shift floor(C / gamma) on one coordinate (lower side).

Whom each number protects against (``against=``):

* ``"server"`` (default): the secure-aggregation server, who picks each round's cohort, so sampling
  hides nothing from it: the unamplified guarantee, whatever q is (``secagg``'s accountant: a round
  with the client in the cohort is its vector plus at least n noises against the same noises alone;
  a round without it is the same on both inputs).
* ``"observer"``: whoever sees the released models but not the cohorts.  Each sampled client adds
  its own noise share, so the round without the differing client holds one share fewer than the
  round with it: ``secagg``'s observer side for that pipeline, in the known-count model
  (``secagg.accountants``: the lesser of joint convexity's and the participation count's readings
  above; the pair of n and n + 1 shares on every coordinate, read through the shifted one and the
  others' spread, below).

The granularity.  Unless given, gamma is the finest (smallest) one at which the wrap-around bound of
a round (``secagg.wrap_probability``, at the expected cohort m) is at most ``wrap_beta``: the bound
grows as gamma shrinks (the signal, the noise and so the sum grow as 1 / gamma in integer units
while the modulus 2^b stays), so a bisection on log gamma finds it, ending on its feasible side.
The discrete Gaussian's bound also needs local_stddev / gamma >= 1/2; a granularity that the bits
force above 2 local_stddev is refused (more bits, or more noise).
"""

from __future__ import annotations

import math
from typing import Any

from ..base import validation as _validation
from ..base.accountant import BOUND_SIDES, Bound
from ..base.accountant_docs import accountant_docs
from ..pld.mechanisms import DEFAULT_INTERVAL
from ..secagg.accountants import Adversary, DistributedDiscreteGaussian, DistributedSkellam
from ..secagg.discrete_laplace_wrap import discrete_laplace_wrap_probability
from ..secagg.modular_wrap import wrap_probability
from ..secagg.observer_shares import (
    shares_pair_pld,
    shares_sampled_rdp,
)  # re-exported: public names here too
from ..secagg.pair_accountants import DistributedDiscreteLaplace, PoissonBinomialMechanism
from ..secagg.poisson_binomial import poisson_binomial_parameters
from ..secagg.sensitivity import Rounding

__all__ = ["DISTRIBUTED_NOISES", "DistributedDPFedAvg", "shares_pair_pld", "shares_sampled_rdp"]

#: The clients' noise: the registry's names of the two secure-aggregation accountants.
DISTRIBUTED_NOISES: tuple[str, ...] = (
    "distributed_discrete_gaussian",
    "distributed_skellam",
    "distributed_discrete_laplace",
    "poisson_binomial",
)
_WRAP_NOISE = {
    "distributed_discrete_gaussian": "distributed_discrete_gaussian",
    "distributed_skellam": "skellam",
}
_BISECTION_STEPS = 40  # on log gamma: the bracket's ratio 4 shrinks to 4^(2^-40)
_SEARCH_RANGE = 80  # gamma searched over C 4^-80 .. C 4^80


def _finest_granularity(wraps: Any, clip_norm: float, target: float, bits: int) -> float:
    """The smallest gamma with ``wraps(gamma) <= target`` (module docstring): the feasible end of a bisection."""
    high = clip_norm
    steps = 0
    while wraps(high) > target:
        high *= 4.0
        steps += 1
        if steps > _SEARCH_RANGE:
            raise ValueError(
                f"bits = {bits} cannot keep the aggregate below the wrap-around probability wrap_beta = {target!r} at "
                "any granularity (the clients' rounding alone fills the modulus): use more bits, or fewer "
                "clients_per_round"
            )
    low = high / 4.0
    while wraps(low) <= target and steps > -_SEARCH_RANGE:
        high, low = low, low / 4.0
        steps -= 1
    for _ in range(_BISECTION_STEPS):
        middle = math.sqrt(low * high)
        low, high = (low, middle) if wraps(middle) <= target else (middle, high)
    return high


@accountant_docs()
class DistributedDPFedAvg:
    r"""Certified (epsilon, delta) of DP-FedAvg whose clients add distributed discrete noise under secure aggregation.

    Each of the T rounds releases the sum, modulo 2^b, of the cohort's clipped, scaled, rotated and
    rounded updates, each with its client's noise of standard deviation
    :math:`\sigma_{\text{local}} = z C / \sqrt{m}` in the update's units (module docstring).  With s = sigma_local / gamma in
    integer units, n = ``min_surviving_clients`` and the rounded vector's bounds (Delta_2, Delta_1)
    (KLS21, Prop. 22 and Sec. 4.1; ``secagg.sensitivity``), one round's Rényi divergence of order
    alpha is at most

    * distributed discrete Gaussian (KLS21, Prop. 14, minimised over n' <= n survivors):
      :math:`\min\bigl(\tfrac{\alpha}{2}A^2 + \tau d,\ \tfrac{\alpha}{2}(A^2 + 2B\tau + \tau^2 d),\
      \tfrac{\alpha}{2}(A + \tau\sqrt d)^2\bigr)`, :math:`A = \Delta_2 / (\sqrt n s)`,
      :math:`B = \Delta_1 / (\sqrt n s)`, :math:`\tau = 10\sum_{k=1}^{n-1} e^{-2\pi^2 s^2 k/(k+1)}`;
    * distributed Skellam (Agarwal, Kairouz & Liu 2021; the sum is Skellam of variance V = n s^2):
      :math:`\tfrac{\alpha\Delta_2^2}{2V} + \min\bigl(\tfrac{(2\alpha-1)\Delta_2^2 + 6\Delta_1}{4V^2},\
      \tfrac{3\Delta_1}{2V}\bigr)` at integer orders,

    times T (RDP composes additively), converted to (epsilon, delta) by the tight conversion (Balle
    et al. 2020, Thm. 21).  The lower side is the exact lattice PLD of the realizable shift floor(C
    / gamma) on one coordinate, composed T times.  ``against="server"`` (default) is the guarantee
    against the server, who picks the cohorts (no amplification by sampling); ``against="observer"``
    amplifies each round by Poisson sampling at rate q, the guarantee against whoever sees the
    models but not the cohorts.  The work is ``secagg``'s accountant (``accountant``): this class
    translates DP-FedAvg's words onto it.

    Parameters
    ----------
    noise : {"distributed_discrete_gaussian", "distributed_skellam", "distributed_discrete_laplace", "poisson_binomial"}
        The clients' noise.  The discrete Laplace: each client's negative-binomial share of the
        discrete Laplace whose variance is the central noise's at the expected cohort
        (``clients_per_round`` shares make it; fewer survivors leave GDL(n / m, a):
        ``secagg.DistributedDiscreteLaplace``).  The Poisson-binomial mechanism: each client's
        ``trials`` binomial draws per coordinate at p = 1/2 + ``theta`` x / C, no noise added
        (``secagg.PoissonBinomialMechanism``; its coordinates each within [-C, C], as a clipped
        vector's are).
    clip_norm : float
        C, the L2 clip norm of a client's update, finite and > 0 (TFF's ``l2_clip``).
    bits : int
        b, the bits per coordinate of the secure sum, 1 <= b <= 62.
    dimension : int
        d, the coordinates rounded and noised (after the rotation's padding), >= 1.
    clients_per_round : int
        m, the expected cohort (Poisson sampling's mean count): it sets each client's share of the
        noise and the wrap-around bound, >= 1.
    min_surviving_clients : int
        n, the fewest clients whose noise is in a round's sum (after dropout), 1 <= n <= m.
    rounds : int
        T, the rounds, >= 1.
    noise_multiplier : float, optional
        z, the central noise over the clip norm at the expected cohort (TFF's ``noise_multiplier``),
        finite and > 0.  Exactly one of ``noise_multiplier`` and ``local_stddev``.
    local_stddev : float, optional
        sigma_local, each client's noise in the update's units (TFF's ``local_stddev``), finite and
        > 0.
    total_clients : int, optional
        N, the clients sampled from: q = m / N.  At most one of ``total_clients`` and
        ``sample_rate``; neither means q = 1 (every client every round).
    sample_rate : float, optional
        q in (0, 1], each client's probability of joining a round's cohort.
    granularity : float, optional
        gamma, the integer grid's step in the update's units, finite and > 0 (default: the finest
        with a round's wrap-around bound at most ``wrap_beta``; module docstring).
    wrap_beta : float, optional
        The wrap-around probability allowed per round when gamma is chosen, in (0, 1) (default
        1e-4).
    beta : float, optional
        The conditional rounding's beta, 0 <= beta < 1 (default e^{-1/2}, KLS21's choice).
    rounding : {"conditional", "unconditional"}, optional
        Conditional rounding enforces the norm bound (beta costs error only); unconditional adds T
        beta to delta.
    value_discretization_interval : float, optional
        The lower side's PLD grid spacing (default 1e-4).
    trials : int, optional
        The Poisson-binomial mechanism's m (only with ``noise="poisson_binomial"``, which takes no
        noise_multiplier, local_stddev nor granularity).
    theta : float, optional
        The Poisson-binomial mechanism's theta, 0 < theta < 1/2 (likewise).

    Attributes
    ----------
    local_stddev : float
        Each client's noise in the update's units.
    granularity : float
        gamma, given or chosen.
    sampling_rate : float
        q.
    wrap_probability : float
        The bound on one round's wrap-around probability at the expected cohort (an error, not a
        privacy cost: wrapping is post-processing).
    accountant : object
        The accountant answering: ``hockeystick.secagg``'s DistributedDiscreteGaussian,
        DistributedSkellam, DistributedDiscreteLaplace or PoissonBinomialMechanism.

    Raises
    ------
    ValueError
        An argument outside its rule; both or neither of ``noise_multiplier`` and ``local_stddev``;
        both ``total_clients`` and ``sample_rate``; ``min_surviving_clients`` above
        ``clients_per_round``; bits too few for any granularity, or (discrete Gaussian) a
        granularity the bits force above 2 ``local_stddev``.
    ParameterTypeError
        A string, bool or None for a number, or an unknown keyword (naming the closest).

    References
    ----------
    Kairouz, Liu & Steinke 2021 (arXiv:2102.06387), Prop. 14, Prop. 22, Thm. 1; Agarwal, Kairouz &
    Liu 2021 (arXiv:2110.04995), Cor. 3.6; McMahan et al. 2018 (DP-FedAvg); Balle et al. 2020,
    Thm. 21.

    Examples
    --------
    >>> from hockeystick.training import DistributedDPFedAvg
    >>> run = DistributedDPFedAvg(noise="distributed_skellam", clip_norm=1.0, bits=16, dimension=1000,
    ...                           total_clients=10000, clients_per_round=100, min_surviving_clients=80,
    ...                           rounds=100, noise_multiplier=1.0)
    >>> server = run.epsilon(1e-5)  # against the server, who picks the cohorts
    >>> observer = run.epsilon(1e-5, against="observer")  # against an observer of the models
    >>> observer < server
    True
    """

    bound_sides: tuple[Bound, ...] = BOUND_SIDES

    @_validation.known_keywords("DistributedDPFedAvg")
    def __init__(
        self,
        *,
        noise: str,
        clip_norm: float,
        bits: int,
        dimension: int,
        clients_per_round: int,
        min_surviving_clients: int,
        rounds: int,
        noise_multiplier: float | None = None,
        local_stddev: float | None = None,
        total_clients: int | None = None,
        sample_rate: float | None = None,
        granularity: float | None = None,
        wrap_beta: float = 1e-4,
        beta: float = math.exp(-0.5),
        rounding: Rounding = "conditional",
        value_discretization_interval: float = DEFAULT_INTERVAL,
        trials: int | None = None,
        theta: float | None = None,
    ) -> None:
        self.noise = _validation.choice(noise, "noise", DISTRIBUTED_NOISES)
        c = _validation.moderate(_validation.positive_number(clip_norm, "clip_norm"), "clip_norm")
        self.bits = _validation.count(bits, "bits", maximum=62)
        self.dimension = _validation.count(dimension, "dimension")
        self.clients_per_round = _validation.count(clients_per_round, "clients_per_round")
        n = _validation.count(min_surviving_clients, "min_surviving_clients")
        if n > self.clients_per_round:
            raise ValueError(
                f"min_surviving_clients must be <= clients_per_round (the survivors are among the cohort), got "
                f"{n} > {self.clients_per_round}"
            )
        if self.noise == "poisson_binomial":
            self.sampling_rate = self._rate(total_clients, sample_rate)
            self._poisson_binomial(
                c, n, rounds, (trials, theta), (noise_multiplier, local_stddev, granularity)
            )
            self.accountant: Any = PoissonBinomialMechanism(
                trials=self.trials,
                theta=self.theta,
                min_surviving_clients=n,
                dimension=self.dimension,
                rounds=rounds,
                sampling_rate=self.sampling_rate,
                value_discretization_interval=value_discretization_interval,
            )
            return
        if trials is not None or theta is not None:
            raise ValueError(
                'trials and theta are the Poisson-binomial mechanism\'s words: give noise="poisson_binomial"'
            )
        self.local_stddev = self._local_stddev(noise_multiplier, local_stddev, c)
        self.sampling_rate = self._rate(total_clients, sample_rate)
        self.wrap_beta = float(
            _validation.in_interval(wrap_beta, "wrap_beta", 0.0, 1.0, open_low=True, open_high=True)
        )
        self.granularity = (
            self._finest(c, rounding)
            if granularity is None
            else _validation.positive_number(granularity, "granularity")
        )
        if self.noise == "distributed_discrete_laplace":
            self.accountant = DistributedDiscreteLaplace(
                clip_norm=c,
                granularity=self.granularity,
                dimension=self.dimension,
                scale=self._laplace_scale(self.granularity),
                expected_clients=self.clients_per_round,
                min_surviving_clients=n,
                rounds=rounds,
                beta=beta,
                rounding=rounding,
                sampling_rate=self.sampling_rate,
                value_discretization_interval=value_discretization_interval,
            )
            self.wrap_probability = self._wraps(self.granularity, c, rounding)
            return
        cls = (
            DistributedDiscreteGaussian
            if self.noise == "distributed_discrete_gaussian"
            else DistributedSkellam
        )
        self.accountant = cls(
            clip_norm=c,
            granularity=self.granularity,
            dimension=self.dimension,
            local_sigma=self.local_stddev,
            min_surviving_clients=n,
            rounds=rounds,
            beta=beta,
            rounding=rounding,
            sampling_rate=self.sampling_rate,
            value_discretization_interval=value_discretization_interval,
        )
        self.wrap_probability = self._wraps(self.granularity, c, rounding)

    def _local_stddev(
        self, noise_multiplier: float | None, local_stddev: float | None, clip_norm: float
    ) -> float:
        """sigma_local from exactly one of z (z C / sqrt(m), rounded up) and sigma_local."""
        if (noise_multiplier is None) == (local_stddev is None):
            raise ValueError(
                "give exactly one of noise_multiplier (the central noise over the clip norm, TFF's word) and "
                "local_stddev (each client's noise in the update's units)"
            )
        if local_stddev is not None:
            return _validation.positive_number(local_stddev, "local_stddev")
        z = _validation.positive_number(noise_multiplier, "noise_multiplier")
        value = z * clip_norm / math.sqrt(self.clients_per_round)
        return _validation.moderate(
            math.nextafter(value * (1.0 + 2.0**-51), math.inf), "noise_multiplier"
        )

    def _rate(self, total_clients: int | None, sample_rate: float | None) -> float:
        """q from N (m / N) or from ``sample_rate``; 1 with neither."""
        if total_clients is not None and sample_rate is not None:
            raise ValueError(
                "give at most one of total_clients and sample_rate (q = clients_per_round / total_clients)"
            )
        if sample_rate is not None:
            return float(
                _validation.in_interval(
                    sample_rate, "sample_rate", 0.0, 1.0, open_low=True, open_high=False
                )
            )
        if total_clients is None:
            return 1.0
        total = _validation.count(total_clients, "total_clients")
        if total < self.clients_per_round:
            raise ValueError(
                f"total_clients must be >= clients_per_round, got {total} < {self.clients_per_round}"
            )
        return self.clients_per_round / total

    def _poisson_binomial(
        self,
        clip_norm: float,
        clients: int,
        rounds: int,
        words: tuple[Any, Any],
        additive: tuple[Any, Any, Any],
    ) -> None:
        """The Poisson-binomial run's words: m and theta given, no additive noise's; its granularity
        (one draw's decoded value, c / (m theta)), each client's decoded noise (c / (2 theta
        sqrt(m)) at most) and its wrap bound: the sum of a coordinate is at most m K, K the cohort,
        so it wraps only if K > (2^b - 1) / m, P(K >= k) <= e^{-mu} (e mu / k)^k for a Poisson
        sample of mean mu = clients_per_round (a binomial cohort's moment generating function is
        below the Poisson's), and never for q = 1 (K = clients_per_round)."""
        if any(word is None for word in words):
            raise ValueError(
                'noise="poisson_binomial" takes trials (m, draws per coordinate) and theta (0 < theta < 1/2)'
            )
        if any(word is not None for word in additive):
            raise ValueError(
                'noise="poisson_binomial" adds no noise: drop noise_multiplier, local_stddev and granularity (its '
                "draws' count and theta set its privacy and its error)"
            )
        self.trials, self.theta, _ = poisson_binomial_parameters(words[0], words[1], clients)
        self.granularity = clip_norm / (self.trials * self.theta)
        self.local_stddev = clip_norm / (2.0 * self.theta * math.sqrt(self.trials))
        limit = (2**self.bits - 1) // self.trials  # the largest cohort whose sum cannot wrap
        mu = float(self.clients_per_round)
        if self.sampling_rate == 1.0:
            self.wrap_probability = 0.0 if self.clients_per_round <= limit else 1.0
        else:
            k = limit + 1.0
            log_tail = -mu + k - k * math.log(k / mu) if k > mu else 0.0
            self.wrap_probability = min(
                1.0, max(math.exp(log_tail * (1.0 - 1e-12)), 5e-324)
            )  # never below it

    def _laplace_scale(self, granularity: float) -> float:
        """The full discrete Laplace's scale gamma / a whose variance, 2 e^{-a} / (1 - e^{-a})^2 in
        integer units, is the central noise's (local_stddev^2 m / gamma^2): e^{-a} = (v + 1 - sqrt(2
        v + 1)) / v."""
        v = (
            self.local_stddev
            * self.local_stddev
            * self.clients_per_round
            / (granularity * granularity)
        )
        # e^{-a} = (v + 1 - sqrt(2v + 1)) / v = v / (v + 1 + sqrt(2v + 1)), the second without
        # cancellation
        decay = -math.log(v / (v + 1.0 + math.sqrt(2.0 * v + 1.0)))
        return granularity / decay

    def _wraps(self, granularity: float, clip_norm: float, rounding: Rounding) -> float:
        if self.noise == "distributed_discrete_laplace":
            return discrete_laplace_wrap_probability(
                bits=self.bits,
                clients=self.clients_per_round,
                expected_clients=self.clients_per_round,
                dimension=self.dimension,
                clip_norm=clip_norm,
                granularity=granularity,
                scale=self._laplace_scale(granularity),
                rounding=rounding,
            )
        return wrap_probability(
            bits=self.bits,
            clients=self.clients_per_round,
            dimension=self.dimension,
            clip_norm=clip_norm,
            granularity=granularity,
            local_sigma=self.local_stddev,
            noise=_WRAP_NOISE[self.noise],
            rounding=rounding,
        )

    def _finest(self, clip_norm: float, rounding: Rounding) -> float:
        """The finest granularity within the wrap-around target (module docstring), checked against
        the discrete Gaussian's s >= 1/2."""
        gamma = _finest_granularity(
            lambda g: self._wraps(g, clip_norm, rounding), clip_norm, self.wrap_beta, self.bits
        )
        if self.noise == "distributed_discrete_gaussian" and self.local_stddev / gamma < 0.5:
            raise ValueError(
                f"bits = {self.bits} force a granularity of at least {gamma:.6g} to keep the wrap-around probability "
                f"below wrap_beta = {self.wrap_beta!r}, above 2 local_stddev = {2.0 * self.local_stddev:.6g} (KLS21's "
                "bound needs local_stddev / granularity >= 1/2): use more bits, or a larger noise_multiplier"
            )
        return gamma

    def delta(self, epsilon: Any, *, bound: Bound = "upper", against: Adversary = "server") -> Any:
        """delta(eps) of the T rounds (class docstring).

        Parameters
        ----------
        against : {"server", "observer"}, optional
            Whom the answer protects against: the server, who picks the cohorts (default; no
            amplification), or an observer of the models who does not learn them (amplified by
            ``sampling_rate``, each sampled client bringing its own noise share: the module
            docstring).

        Raises
        ------
        ValueError
            Also ``against`` not one of the two.
        """
        return self.accountant.delta(epsilon, bound=bound, against=against)

    def epsilon(self, delta: Any, *, bound: Bound = "upper", against: Adversary = "server") -> Any:
        """eps(delta) of the T rounds, each side and each ``against`` as ``delta`` takes them.

        Parameters
        ----------
        against : {"server", "observer"}, optional
            Whom the answer protects against (``delta``).

        Raises
        ------
        ValueError
            Also ``against`` not one of the two.
        """
        return self.accountant.epsilon(delta, bound=bound, against=against)

    def guarantees(self, delta: float) -> dict[str, tuple[float, float]]:
        """Both certified brackets of eps(delta), by whom they protect against.

        Parameters
        ----------
        delta : float
            Target delta, strictly between 0 and 1.

        Returns
        -------
        dict
            ``{"server": (lower, upper), "observer": (lower, upper)}``: against the server, who
            picks each round's cohort (no amplification by sampling), and against an observer of the
            released models who does not learn the cohorts (amplified by Poisson sampling at
            ``sampling_rate``).

        Raises
        ------
        ValueError
            ``delta`` outside (0, 1).
        """
        return {
            who: self.epsilon(delta, bound="both", against=who) for who in ("server", "observer")
        }

    def __repr__(self) -> str:
        return (
            f"DistributedDPFedAvg(noise={self.noise!r}, bits={self.bits}, dimension={self.dimension}, "
            f"clients_per_round={self.clients_per_round}, "
            f"min_surviving_clients={self.accountant.min_surviving_clients}, rounds={self.accountant.rounds}, "
            f"local_stddev={self.local_stddev!r}, granularity={self.granularity!r}, "
            f"sampling_rate={self.sampling_rate!r})"
        )
