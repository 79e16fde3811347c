"""An RDP accountant with dp_accounting's ``RdpAccountant`` interface, computed by ``hockeystick.rdp``.

    from hockeystick.interop.dp_accounting import HockeystickRdpAccountant as RdpAccountant

Events: Gaussian (alpha / (2 sigma^2), Mironov 2017 Prop. 7), zCDP (xi + rho alpha, Bun & Steinke
2016), Poisson-sampled Gaussian, also around a composition of Gaussians (their effective noise
multiplier (sum sigma_i^-2)^-1/2; Mironov, Talwar, Zhang 2019), Laplace (``rdp.laplace``), and
their compositions; RDP adds over composition.  (eps, delta) by the conversion dp_accounting uses
(``rdp_to_epsilon`` / ``rdp_to_delta``, "tight": Balle et al. 2020, Canonne, Kamath, Steinke 2020).
Sampling without replacement of a Gaussian (or a composition of Gaussians) under REPLACE_ONE:
Wang, Balle, Kasiviswanathan 2019 (``rdp.sampled_without_replacement``; its forward differences
exact, where dp_accounting's float differences lose every digit and come out larger: at q = 0.3,
its noise multiplier 10, order 128, RDP 0.215 where the exact differences give 0.092).

Sensitivity under REPLACE_ONE.  A Gaussian shifts by 2 sensitivities under REPLACE_ONE (the
convention of the PLD adapter and of dp_accounting's PLD accountant); dp_accounting's RdpAccountant
uses 1, which put its RDP epsilon below the certified PLD lower bound of the same event.  So on
REPLACE_ONE events this accountant equals dp_accounting's RdpAccountant at half the noise
multiplier.

Randomized response (REPLACE_ONE or REPLACE_SPECIAL; ``rdp.randomized_response``: dp_accounting's
closed forms, evaluated without its cancellation as p -> 1), repeat-and-select of any supported
event (Papernot & Steinke 2022, Thms. 2 and 6; ``rdp.repeat_and_select``: its gamma solved to a few
ulp where dp_accounting bisects to 1e-9, so the two differ by at most (1 + shape) 1e-9) and
single-epoch tree aggregation (REPLACE_SPECIAL; Kairouz et al. 2021, App. D;
``rdp.tree_aggregation``) are computed as dp_accounting's RdpAccountant computes them.

Private selection (``selection_events``, under any neighbouring relation, as in the PLD adapter;
read through their registered mechanisms, ``pld.mechanisms.selection``'s ``rdp``):
``ExponentialMechanismDpEvent(epsilon)`` has the exact RDP of epsilon-bounded-range mechanisms
(Cesar & Rogers 2021; ``rdp.bounded_range``), ``PermuteAndFlipDpEvent(epsilon)`` that of epsilon-DP,
binary randomized response of epsilon (``rdp.pure_dp``): both are suprema over every pair the event
allows, in either order, so they hold for add and for remove alike; both are rounded upward.  An
``EpsilonDeltaDpEvent`` with delta 0 is epsilon-DP and has the same curve as permute-and-flip; with
delta > 0 no Renyi bound follows, and it is refused.  ``DiscreteGaussianDpEvent(sigma,
sensitivity)`` has at most the continuous Gaussian's curve alpha Delta^2 / (2 sigma^2) (Delta the
integer sensitivity, twice it under REPLACE_ONE): writing alpha (k - Delta)^2 + (1 - alpha) k^2 =
(k - alpha Delta)^2 + alpha (1 - alpha) Delta^2, the Renyi sum is exp(alpha (alpha - 1) Delta^2 / (2
sigma^2)) times theta(alpha Delta) / theta(0), theta(c) = sum_k exp(-(k - c)^2 / (2 sigma^2)), which
is at most 1: by Poisson summation theta has non-negative Fourier coefficients, so its maximum is at
the integers (Canonne, Kamath & Steinke 2020, Sec. 2).

Secure aggregation (``secagg_events``, REPLACE_SPECIAL or REPLACE_ONE): a round of the distributed
discrete Gaussian has KLS21's Prop. 14 curve, minimised over n' <= n survivors; of the distributed
Skellam mechanism, Agarwal, Kairouz & Liu's bound, at a non-integer order that of the next integer
(D_alpha grows with alpha).

Orders.  dp_accounting's defaults jump from 63 to 128 to 256, so the order minimising the conversion
is often far from any grid order, and a sigma calibrated through them can come out 16% too large.
``FINE_ORDERS`` keeps their fractional orders below 11, every integer from 11 to 256 and a
geometric grid of ratio 1.025 up to 4096, so the optimum of the conversion (a smooth function of
alpha) is within 2.5% of a grid order everywhere above 11.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

try:
    from dp_accounting import dp_event as ev
    from dp_accounting.privacy_accountant import NeighboringRelation, PrivacyAccountant
except ModuleNotFoundError:  # name the extra that installs dp_accounting
    from ...base.optional import require_extra

    require_extra("hockeystick.interop.dp_accounting.rdp_accountant", "dp_accounting")
    raise

from ...base import validation as _validation
from ...base.event_fields import event_field_at_least_zero
from ...base.event_refusal import NotOffered
from ...pld.mechanisms import dp_event_class
from ...rdp import (
    DEFAULT_ORDERS,
    gaussian_rdp,
    rdp_to_delta,
    rdp_to_epsilon,
    subsampled_gaussian_rdp,
)
from ...rdp.repeat_and_select import repeat_and_select_rdp
from ...rdp.sampled_without_replacement import sampled_without_replacement_gaussian_rdp
from ...rdp.tree_aggregation import single_epoch_tree_aggregation_rdp
from ..loss_reach import MAX_NOISE
from .event_checks import (
    ADD_REMOVE,
    Unsupported,
    check_count,
    nesting_refused,
)
from .event_structure import structure_case
from .secagg_events import (
    SECURE_AGGREGATION,
    secure_aggregation_rdp_case,
)

FINE_ORDERS = np.unique(
    np.concatenate(
        [
            [order for order in DEFAULT_ORDERS if order < 11],
            np.arange(11.0, 257.0),
            np.round(np.geomspace(256.0, 4096.0, 113)),
        ]
    )
)


def _effective_sigma(event: ev.DpEvent) -> float:
    """Noise multiplier of the one Gaussian equivalent to a composition of Gaussians (or Unsupported)."""
    if isinstance(event, ev.GaussianDpEvent):
        return _sigma(event)
    if isinstance(event, ev.SelfComposedDpEvent):
        return _effective_sigma(event.event) / math.sqrt(check_count(event.count))
    if isinstance(event, ev.ComposedDpEvent):
        inv = sum(_effective_sigma(e) ** -2 for e in event.events)
        return inv**-0.5 if inv > 0 else math.inf
    raise Unsupported(
        event,
        f"Subevent of `PoissonSampledDpEvent` must be a `GaussianDpEvent` or a composition of them. Found {event}.",
    )


def _at_least_zero(event: ev.DpEvent, name: str) -> float:
    """An event's field: a real number >= 0, +inf allowed (an infinite or a vanishing curve;
    ``base.event_fields``)."""
    return event_field_at_least_zero(event, name)


def _sigma(event: ev.GaussianDpEvent) -> float:
    return _at_least_zero(event, "noise_multiplier")


class HockeystickRdpAccountant(PrivacyAccountant):
    """An accountant with dp_accounting's ``RdpAccountant`` interface, its curves from ``hockeystick.rdp``.

    The Renyi divergences of the composed events add at each order; ``get_epsilon`` and
    ``get_delta`` convert the curve as dp_accounting does (``rdp_to_epsilon`` / ``rdp_to_delta``).
    The events and the analyses are the module's list; under REPLACE_ONE a Gaussian shifts by 2
    sensitivities (dp_accounting's ``RdpAccountant`` uses 1).

    Parameters
    ----------
    orders : sequence of float or numpy.ndarray, optional
        The Renyi orders at which the curve is kept, each > 1 (``compose`` refuses others with a
        ValueError); default ``FINE_ORDERS``: dp_accounting's fractional orders below 11, every
        integer from 11 to 256 and a geometric grid of ratio 1.025 up to 4096.
    neighboring_relation : NeighboringRelation, default NeighboringRelation.ADD_OR_REMOVE_ONE
        ADD_OR_REMOVE_ONE, REPLACE_ONE or REPLACE_SPECIAL; each event is taken under the relations
        its analysis covers, others refused (dp_accounting's ``UnsupportedEventError``).

    Examples
    --------
    >>> from dp_accounting import GaussianDpEvent
    >>> from hockeystick.interop.dp_accounting import HockeystickRdpAccountant
    >>> accountant = HockeystickRdpAccountant().compose(GaussianDpEvent(noise_multiplier=1.0), count=10)
    >>> round(accountant.get_epsilon(1e-5), 6)
    19.053598
    """

    def __init__(
        self,
        orders: Sequence[float] | np.ndarray | None = None,
        neighboring_relation: NeighboringRelation = NeighboringRelation.ADD_OR_REMOVE_ONE,
    ):
        super().__init__(neighboring_relation)
        self._orders = np.array(FINE_ORDERS if orders is None else orders, dtype=np.float64)
        self._rdp = np.zeros_like(self._orders)

    @property
    def orders(self) -> np.ndarray:
        return self._orders

    @property
    def rdp(self) -> np.ndarray:
        """The composed events' Renyi divergence at each of ``orders`` (a copy; as dp_accounting's ``rdp``)."""
        return np.copy(self._rdp)

    def compose(self, event: ev.DpEvent, count: int = 1) -> HockeystickRdpAccountant:
        check_count(count)
        with nesting_refused(event):
            return cast(
                "HockeystickRdpAccountant", super().compose(event, count)
            )  # dp_accounting's returns self

    def _maybe_compose(
        self, event: ev.DpEvent, count: int, do_compose: bool
    ) -> PrivacyAccountant.CompositionErrorDetails | None:
        try:
            with np.errstate(
                over="ignore"
            ):  # a curve summed or scaled past the doubles is +inf: still an upper bound
                rdp = self._rdp_of(event, max(int(count), 1))
        except Unsupported as u:
            return PrivacyAccountant.CompositionErrorDetails(
                invalid_event=u.event, error_message=u.message
            )
        if do_compose:
            with np.errstate(over="ignore"):
                self._rdp = self._rdp + rdp
        return None

    def _rdp_of(self, event: ev.DpEvent, count: int) -> np.ndarray:
        """The RDP curve of ``count`` runs of ``event`` at ``orders``: a secure-aggregation round's
        (its family's, ``secagg_events``), a structural event's case (``event_structure``), or a
        leaf's registered mechanism's Rényi curve (``_registered_rdp``)."""
        if isinstance(event, SECURE_AGGREGATION.classes):
            return secure_aggregation_rdp_case(self, cast(Any, event), count)
        case = structure_case(event, "rdp", globals())
        curve: np.ndarray = (_registered_rdp if case is None else case)(self, event, count)
        return curve

    def _replace_factor(self) -> float:
        """The Gaussian's shift per unit sensitivity: 2 under REPLACE_ONE (the record's old and new
        contributions, each of norm <= the sensitivity, on opposite sides), 1 otherwise -- the
        convention of the PLD adapter (``dp_events``) and of dp_accounting's PLD accountant.

        dp_accounting's RdpAccountant uses 1 under REPLACE_ONE for a Gaussian and for sampling
        without replacement, so on one and the same event its RDP epsilon fell below the certified
        PLD lower bound (10 Gaussians of sigma 4, REPLACE_ONE: RDP 3.62 vs PLD 7.51 at 1e-5).
        """
        return 2.0 if self.neighboring_relation == NeighboringRelation.REPLACE_ONE else 1.0

    def _without_replacement(self, event: ev.SampledWithoutReplacementDpEvent) -> np.ndarray:
        """Wang, Balle, Kasiviswanathan 2019 (``rdp.sampled_without_replacement``), replace-one only."""
        if self.neighboring_relation != NeighboringRelation.REPLACE_ONE:
            raise Unsupported(
                event,
                "neighboring_relation must be `REPLACE_ONE` for "
                f"`SampledWithoutReplacementDpEvent`. Found {self.neighboring_relation}.",
            )
        try:
            s = _effective_sigma(event.event)
        except Unsupported:
            raise Unsupported(
                event,
                "Subevent of `SampledWithoutReplacementDpEvent` must be a `GaussianDpEvent` "
                f"or a composition of them. Found {event.event}.",
            ) from None
        n, m = event.source_dataset_size, event.sample_size
        for name, v, low in (("source_dataset_size", n, 1), ("sample_size", m, 0)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
                raise ValueError(
                    f"SampledWithoutReplacementDpEvent.{name} must be an integer >= {low}, got {v!r}"
                )
        if m > n:
            raise ValueError(
                f"SampledWithoutReplacementDpEvent.sample_size must be <= source_dataset_size, got {m} > {n}"
            )
        o = self._orders
        if m == 0 or s == math.inf:
            return np.zeros_like(o)
        if s == 0:
            return np.full_like(o, np.inf)
        return sampled_without_replacement_gaussian_rdp(self._replace_factor() / s, m / n, o)

    def get_epsilon(self, target_delta: float) -> float:
        """Smallest epsilon the RDP curve certifies at ``target_delta`` (conversion: dp_accounting's).

        Parameters
        ----------
        target_delta : float
            δ, strictly between 0 and 1.

        Returns
        -------
        float
            The least epsilon over the orders of the conversion; 0 when nothing private was
            composed, inf for a non-private event.

        Raises
        ------
        ValueError
            When ``target_delta`` is not strictly between 0 and 1.
        ParameterTypeError
            When ``target_delta`` is a string, a bool, None or an array.
        """
        d = _validation.delta_target(target_delta, "target_delta")  # the rule of every entry point
        if not self._rdp.any():
            return 0.0
        return float(
            rdp_to_epsilon(np.where(np.isnan(self._rdp), np.inf, self._rdp), self._orders, d)
        )

    def get_delta(self, target_epsilon: float) -> float:
        """Smallest delta the RDP curve certifies at ``target_epsilon``.

        Parameters
        ----------
        target_epsilon : float
            ε >= 0, +inf allowed.

        Returns
        -------
        float
            The least delta over the orders of the conversion; 0 when nothing private was composed.

        Raises
        ------
        ValueError
            When ``target_epsilon`` is negative or NaN.
        ParameterTypeError
            When ``target_epsilon`` is a string, a bool, None or an array.
        """
        e = _validation.epsilon_target(target_epsilon, "target_epsilon")
        if not self._rdp.any():
            return 0.0
        return float(rdp_to_delta(self._rdp, self._orders, e))


def _infinite(acc: HockeystickRdpAccountant) -> np.ndarray:
    return np.full_like(acc.orders, np.inf)


def _zero(acc: HockeystickRdpAccountant) -> np.ndarray:
    return np.zeros_like(acc.orders)


def _require_add_remove(acc: HockeystickRdpAccountant, event: ev.DpEvent, kind: str) -> None:
    if acc.neighboring_relation not in ADD_REMOVE:
        raise Unsupported(
            event,
            "neighboring_relation must be `ADD_OR_REMOVE_ONE` or `REPLACE_SPECIAL` "
            f"for `{kind}`. Found {acc.neighboring_relation}.",
        )


def _noop_rdp(acc: HockeystickRdpAccountant, event: ev.NoOpDpEvent, count: int) -> np.ndarray:
    return _zero(acc)


def _non_private_rdp(
    acc: HockeystickRdpAccountant, event: ev.NonPrivateDpEvent, count: int
) -> np.ndarray:
    return _infinite(acc)


def _self_composed_rdp(
    acc: HockeystickRdpAccountant, event: ev.SelfComposedDpEvent, count: int
) -> np.ndarray:
    return acc._rdp_of(event.event, count * check_count(event.count))


def _composed_rdp(
    acc: HockeystickRdpAccountant, event: ev.ComposedDpEvent, count: int
) -> np.ndarray:
    return sum((acc._rdp_of(e, count) for e in event.events), _zero(acc))


def _poisson_rdp(
    acc: HockeystickRdpAccountant, event: ev.PoissonSampledDpEvent, count: int
) -> np.ndarray:
    _require_add_remove(acc, event, "PoissonSampledDpEvent")
    q = _at_least_zero(event, "sampling_probability")
    if not q <= 1:
        raise ValueError(
            f"PoissonSampledDpEvent.sampling_probability must be in [0, 1]. Found {event.sampling_probability}."
        )
    s = _effective_sigma(event.event)
    o = acc.orders
    if q == 0 or s == math.inf:
        return _zero(acc)
    if s == 0:
        return _infinite(acc)
    if (
        q == 1 or s > MAX_NOISE
    ):  # sampling only lowers the curve: the Gaussian's bounds it (~0 past 1e150)
        return count * gaussian_rdp(s, o)
    if s < 1.0 / MAX_NOISE:  # the subsampled series' terms overflow: no finite bound is computed
        return _infinite(acc)
    return count * subsampled_gaussian_rdp(s, q, o)


def _without_replacement_rdp(
    acc: HockeystickRdpAccountant, event: ev.SampledWithoutReplacementDpEvent, count: int
) -> np.ndarray:
    return count * acc._without_replacement(event)


def _repeat_and_select_rdp(
    acc: HockeystickRdpAccountant, event: ev.RepeatAndSelectDpEvent, count: int
) -> np.ndarray:
    return count * repeat_and_select_rdp(
        acc._rdp_of(event.event, 1), acc.orders, event.mean, event.shape
    )


def _tree_aggregation_rdp(
    acc: HockeystickRdpAccountant, event: ev.SingleEpochTreeAggregationDpEvent, count: int
) -> np.ndarray:
    if acc.neighboring_relation != NeighboringRelation.REPLACE_SPECIAL:
        raise Unsupported(
            event,
            "neighboring_relation must be `REPLACE_SPECIAL` for "
            f"`SingleEpochTreeAggregationDpEvent`. Found {acc.neighboring_relation}.",
        )
    return count * single_epoch_tree_aggregation_rdp(
        event.noise_multiplier, event.step_counts, acc.orders
    )


def _registered_rdp(acc: HockeystickRdpAccountant, event: ev.DpEvent, count: int) -> np.ndarray:
    """``count`` times the Rényi curve of one run of a leaf event, read by the registered mechanism
    whose ``dp_event`` it is (``Mechanism.rdp_of_dp_event``: never below the divergence of either
    direction); an event no registered class reads, or whose mechanism has no curve, is refused."""
    reader = dp_event_class(event)
    if reader is None:
        raise Unsupported(event, "Unsupported event.")
    read = reader.rdp_of_dp_event(event, acc.neighboring_relation.name.lower(), acc.orders)
    if isinstance(read, NotOffered):  # a mechanism without a Rényi curve
        raise Unsupported(event, "Unsupported event.")
    curve = np.asarray(read, dtype=np.float64)
    if curve.shape != acc.orders.shape:
        raise ValueError(
            f"{reader.__name__}.rdp(orders) must give one value per order ({acc.orders.size}), "
            f"got shape {curve.shape}: return the curve at each order asked"
        )
    return count * curve
