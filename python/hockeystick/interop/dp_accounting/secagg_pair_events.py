r"""dp_accounting-style events for a round of the Poisson-binomial mechanism or the distributed discrete Laplace.

Neither mechanism has an event in dp_accounting; a pipeline built on them can report these, taken by
``interop.dp_accounting.HockeystickPLDAccountant`` (certified bracket) under REPLACE_SPECIAL (the
papers' relation: one client's data replaced, the client still in the sum; for the discrete Laplace,
its vector by zero) and REPLACE_ONE (the Poisson-binomial client's data takes any two values under
either; the discrete Laplace's shift is then a difference of two vectors, its norms doubled):

* ``PoissonBinomialDpEvent``: each of ``num_clients`` clients (the fewest in the sum) encodes each
  of its ``dimension`` coordinates x in [-c, c] as p = 1/2 + theta x / c and sends
  Binom(``trials``, p) (Chen, Özgür & Kairouz 2022; ``secagg.poisson_binomial``).
* ``DistributedDiscreteLaplaceDpEvent``: each client adds NB(1/E, 1 - e^{-a}) - NB(1/E, 1 - e^{-a})
  to each of the ``dimension`` coordinates of its integer vector (a = 1 / ``scale``, in integer
  units; E = ``expected_clients``), whose L2 norm is at most ``l2_norm_bound`` and L1 norm at most
  ``l1_norm_bound`` (default min(sqrt(d) Delta_2, Delta_2^2)); ``num_clients`` survivors' shares are
  in the sum (Harrison & Manurangsi 2025; ``secagg.distributed_discrete_laplace``).

The answer composes each round's PLDs (``secagg.pair_accountants``): above, each dominating pair
composed over the rounds, the least of the reads (each is an upper bound: the dominating pairs'
product, and the randomized responses' at each round's pure eps); below, the realized pairs'
product.  A ``PoissonSampledDpEvent`` directly around one round is the round mixed with the client's
absence (against an observer who does not learn the cohorts; each sampled client brings its own
draws or share), as ``secagg``'s accountants take it.

Refused, with dp_accounting's ``UnsupportedEventError`` and the reason: ADD_OR_REMOVE_ONE (removing
a client removes its draws or noise share from the sum too); these rounds beside any other event (a
different kind of secure-aggregation round included); any other sampling event around them.

Examples
--------
>>> from dp_accounting import NeighboringRelation, SelfComposedDpEvent
>>> from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
>>> from hockeystick.interop.dp_accounting.secagg_pair_events import PoissonBinomialDpEvent
>>> accountant = HockeystickPLDAccountant(NeighboringRelation.REPLACE_SPECIAL)
>>> round_ = PoissonBinomialDpEvent(trials=16, theta=0.1, num_clients=20)
>>> lower, upper = accountant.compose(SelfComposedDpEvent(round_, 10)).get_epsilon_bracket(1e-5)
>>> 0 < lower <= upper
True
"""

from __future__ import annotations

import math
from typing import Any, cast

from dp_accounting import dp_event as ev  # installed: the wing's import checked it
from dp_accounting.privacy_accountant import NeighboringRelation

from ...pld.accountants import CompositionPlan
from ...pld.grid import PrivacyLossDistribution
from ...secagg.distributed_discrete_laplace import pure_epsilon
from ...secagg.pair_accountants import (
    discrete_laplace_round_plds,
    poisson_binomial_pure_epsilon,
    poisson_binomial_round_plds,
)
from ...secagg.poisson_binomial import poisson_binomial_parameters
from ...secagg.sensitivity import integer_l1_bound
from .client_rounds import ClientRounds, count_field, positive_field
from .event_base import dp_event

__all__ = [
    "DistributedDiscreteLaplaceDpEvent",
    "PairRoundsProfile",
    "PoissonBinomialDpEvent",
    "check_pair_rounds_alone",
    "pair_rounds_profile",
    "visit_pair_round",
    "visit_sampled_pair_round",
]

SPEC_NAME = "secure_aggregation_pair"
_SMALL_DELTA = (
    1e-300  # epsilon(0) is at least epsilon at any positive delta: the lower side read here
)


@dp_event
class PoissonBinomialDpEvent(ev.DpEvent):
    r"""One round of the Poisson-binomial mechanism under secure aggregation (Chen, Özgür & Kairouz 2022).

    Parameters
    ----------
    trials : int
        m, each client's binomial draws per coordinate, >= 1.
    theta : float
        The encoding's scale, 0 < theta < 1/2.
    num_clients : int
        n, the fewest clients in the sum, >= 1.
    dimension : int, optional
        d, the coordinates (default 1).

    Notes
    -----
    The event stores its fields unchecked; the accountant's ``compose`` refuses them (ValueError
    naming the field) when out of range.

    References
    ----------
    Chen, Özgür & Kairouz 2022 (ICML; arXiv:2207.09916).
    """

    trials: int
    theta: float
    num_clients: int
    dimension: int = 1


@dp_event
class DistributedDiscreteLaplaceDpEvent(ev.DpEvent):
    r"""One round of the distributed discrete Laplace (negative-binomial shares) under secure aggregation.

    Parameters
    ----------
    scale : float
        1 / a, the full discrete Laplace's scale in integer units, finite and > 0.
    l2_norm_bound : float
        Delta_2, the L2 bound of a client's integer vector, finite and > 0.
    num_clients : int
        n, the fewest clients whose shares are in the sum, >= 1.
    expected_clients : int
        E, the clients whose shares make the full noise, >= 1.
    dimension : int
        d, the coordinates noised, >= 1.
    l1_norm_bound : float, optional
        Delta_1, finite and > 0 (default min(sqrt(d) Delta_2, Delta_2^2)).

    Notes
    -----
    The event stores its fields unchecked; the accountant's ``compose`` refuses them (ValueError
    naming the field) when out of range.

    References
    ----------
    Harrison & Manurangsi 2025 (arXiv:2504.05202), Sec. 3; Harrison 2024, "Distributed noise
    addition and infinite divisibility", Theorem 1.
    """

    scale: float
    l2_norm_bound: float
    num_clients: int
    expected_clients: int
    dimension: int
    l1_norm_bound: float | None = None


PairEvent = PoissonBinomialDpEvent | DistributedDiscreteLaplaceDpEvent


def _spec(event: PairEvent, relation: NeighboringRelation, rate: float) -> tuple[Any, ...]:
    """The plan's spec: (name, kind, its checked fields..., sampling rate).  Under REPLACE_ONE a
    discrete Laplace round's shift is a difference of two vectors: L2 <= 2 Delta_2, L1 <= min(2
    Delta_1, the integer bound at 2 Delta_2), the realized shift 2k (k e_1 against -k e_1)
    unsampled, k sampled (k e_1 against the zero vector, a client's vector too), as
    ``secagg_events`` takes it; the Poisson-binomial relation already lets the client's data take
    any two values."""
    if isinstance(event, PoissonBinomialDpEvent):
        name = type(event).__name__
        try:
            m, t, n = poisson_binomial_parameters(event.trials, event.theta, event.num_clients)
        except ValueError as error:
            raise ValueError(f"{name}: {error}") from None
        return (SPEC_NAME, "pbm", n, m, t, count_field(event, "dimension"), rate)
    scale = positive_field(event, "scale")
    l2 = positive_field(event, "l2_norm_bound")
    d = count_field(event, "dimension")
    l1 = (
        integer_l1_bound(l2, d)
        if event.l1_norm_bound is None
        else positive_field(event, "l1_norm_bound")
    )
    n, e = count_field(event, "num_clients"), count_field(event, "expected_clients")
    shift = int(math.floor(min(l1, l2)))
    if relation == NeighboringRelation.REPLACE_ONE:
        l1, l2 = min(2.0 * l1, integer_l1_bound(2.0 * l2, d)), 2.0 * l2
        shift = shift if rate < 1.0 else 2 * shift
    return (SPEC_NAME, "gdl", n, e, 1.0 / scale, l1, l2, d, shift, rate)


def _round_plds(
    spec: tuple[Any, ...], side: str, interval: float
) -> list[tuple[PrivacyLossDistribution | None, int]]:
    if spec[1] == "pbm":
        _, _, n, m, t, d, rate = spec
        return poisson_binomial_round_plds(n, m, t, d, side, rate, interval)
    _, _, n, e, decay, l1, l2, d, shift, rate = spec
    return discrete_laplace_round_plds(
        n / e, (n + 1) / e, decay, (l1, l2, d, shift), side, rate, interval
    )


def _product(parts: list[PrivacyLossDistribution]) -> PrivacyLossDistribution:
    total = parts[0]
    for part in parts[1:]:
        total = total.compose(part)
    return total


class PairRoundsProfile:
    """The certified (lower, upper) sides of a plan of these rounds (module docstring).

    Parameters
    ----------
    counts : dict
        Each round's spec and its count.
    interval : float
        The loss grid's spacing.
    """

    def __init__(self, counts: dict[tuple[Any, ...], int], interval: float) -> None:
        self.counts, self.interval = counts, interval
        self._upper: list[PrivacyLossDistribution] | None = None
        self._lower: PrivacyLossDistribution | None | bool = False

    def _composed(self, side: str, which: int) -> list[PrivacyLossDistribution | None]:
        out: list[PrivacyLossDistribution | None] = []
        for spec, count in self.counts.items():
            plds = _round_plds(spec, side, self.interval)
            pair, per_round = plds[min(which, len(plds) - 1)]
            total = per_round * count
            out.append(None if pair is None else pair.self_compose(total) if total > 1 else pair)
        return out

    def _uppers(self) -> list[PrivacyLossDistribution]:
        """The dominating pairs' product, and the randomized responses' (each round's last upper pair)."""
        if self._upper is None:
            first = [p for p in self._composed("upper", 0) if p is not None]
            last = [p for p in self._composed("upper", 1) if p is not None]
            self._upper = [_product(first), _product(last)]
        return self._upper

    def _lower_pld(self) -> PrivacyLossDistribution | None:
        if self._lower is False:
            parts = [p for p in self._composed("lower", 0) if p is not None]
            self._lower = _product(parts) if parts else None
        return self._lower if isinstance(self._lower, PrivacyLossDistribution) else None

    def epsilon(self, delta: float) -> tuple[float, float]:
        """Certified (lower, upper) on epsilon(``delta``), delta in [0, 1)."""
        d = max(delta, _SMALL_DELTA)
        if delta == 0.0:  # pure DP: the rounds' pure eps summed (each round's randomized response)
            upper = self._pure_upper()
        else:
            upper = min(float(cast(float, p.epsilon(d, bound="upper"))) for p in self._uppers())
        pld = self._lower_pld()
        lower = 0.0 if pld is None else float(cast(float, pld.epsilon(d, bound="lower")))
        return min(lower, upper), upper

    def _pure_upper(self) -> float:
        """The rounds' pure eps summed, rounded up (a sampled round's is at most its unsampled one's)."""
        total = 0.0
        for spec, count in self.counts.items():
            if spec[1] == "pbm":
                eps = poisson_binomial_pure_epsilon(spec[3], spec[4], spec[5])
            else:
                _, _, n, e, decay, l1, l2, d, _, _ = spec
                eps = pure_epsilon(n / e, decay, l1, l2, d)
            total += count * eps
        return math.nextafter(total * (1.0 + 2.0**-50), math.inf)

    def delta(self, epsilon: float) -> tuple[float, float]:
        """Certified (lower, upper) on delta(``epsilon``), epsilon >= 0."""
        upper = min(float(cast(float, p.delta(epsilon, bound="upper"))) for p in self._uppers())
        pld = self._lower_pld()
        lower = 0.0 if pld is None else float(cast(float, pld.delta(epsilon, bound="lower")))
        return min(lower, upper), upper


def pair_rounds_profile(plan: CompositionPlan, interval: float | None) -> PairRoundsProfile | None:
    """The profile of a plan of these rounds (None for a plan without them).

    Parameters
    ----------
    plan : CompositionPlan
        What was composed (these rounds alone: ``check_pair_rounds_alone``).
    interval : float or None
        The loss grid's spacing (None: 1e-4).

    Returns
    -------
    PairRoundsProfile or None
        Its sides, or None where the plan holds none of these rounds.
    """
    return cast(PairRoundsProfile | None, PAIR_ROUNDS.profile(plan, interval))


PAIR_ROUNDS = ClientRounds(
    spec_name=SPEC_NAME,
    classes=(PoissonBinomialDpEvent, DistributedDiscreteLaplaceDpEvent),
    label="Poisson-binomial or distributed discrete Laplace",
    spec=_spec,
    replace_only=(
        "neighboring_relation must be `REPLACE_SPECIAL` or `REPLACE_ONE` for `{event}` (a client's "
        "data replaced, the client still in the sum): removing a client removes its draws or noise share too, "
        "and no bound of that is proved here. Found {relation}."
    ),
    mixed=(
        "Poisson-binomial and distributed discrete Laplace rounds compose only with each other in the PLD accountant "
        "(their bracket is composed on its own): compose the other events in another accountant."
    ),
    build=lambda plan, interval: PairRoundsProfile(dict(plan.counts), interval),
)
PAIR_ROUNDS_MIXED = PAIR_ROUNDS.mixed
# the doors' names of the family's plumbing (``client_rounds.ClientRounds``)
visit_pair_round = PAIR_ROUNDS.visit
visit_sampled_pair_round = PAIR_ROUNDS.visit_sampled
check_pair_rounds_alone = PAIR_ROUNDS.check_alone
