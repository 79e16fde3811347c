"""Flower's ``PrivacyAccountant`` (``flwr.serverapp``, flwr >= 1.35) as a thin layer over the budget ledger.

``HockeystickPrivacyAccountant(config, adaptive=...)`` has every member of Flower's protocol
(``config``, ``num_releases``, ``compose``, ``get_epsilon``, ``get_delta``, ``get_privacy_spent``,
``would_exceed``, ``state_dict``, ``load_state_dict``), so Flower's DP strategies
(``DifferentialPrivacyServerSideFixedClipping``, ``DifferentialPrivacyClientSideFixedClipping``)
take it as their ``accountant``.  It accounts nothing itself: each of Flower's
``GaussianPrivacyEvent`` is one ``ledger.Round``, recorded in a ``ledger.PrivacyLedger``, and every
answer is the ledger's, with the guarantee it gives (``guarantee``):

* ``adaptive=False`` (every round's noise multiplier and sample size fixed before the run, as in
  Flower's fixed-clipping strategies): the certified PLD bracket of the composition; ``get_epsilon``
  is its upper side, ``would_exceed`` asks whether the certified upper epsilon at
  ``config.target_delta`` would pass the limit;
* ``adaptive=True`` (a round's settings may depend on earlier outputs): ``would_exceed`` is the
  ledger's filter of the budget (``config.max_epsilon``, ``config.target_delta``), fixed before the
  run (the Rényi filter of Feldman & Zrnic 2021, or the GDP filter); ``get_epsilon`` is the Rényi
  odometer, valid at every round at once, which can read above ``max_epsilon`` while the filter
  keeps the budget (the filter's guarantee is ``ledger.guarantee()``); composing the rounds that
  happened is never answered (arXiv 2602.06756).

Flower's words map onto the ledger's rounds as Flower's own RDP backend reads them (dp_accounting
events):

=======================  ========================  ===============================================================
``sampling_method``      ``neighboring_relation``  round per event
=======================  ========================  ===============================================================
``poisson``              ``add-or-remove-one``     ``Round.subsampled_gaussian(z, sample_size / population_size)``
``no-amplification``     ``add-or-remove-one``     ``Round.gaussian(z)``
``without-replacement``  ``replace-one``           refused: the ledger has no fixed-size round
=======================  ========================  ===============================================================

z is Flower's ``noise_multiplier``: the noise standard deviation over the add-or-remove sensitivity
of the aggregate (Flower's strategies add noise of standard deviation z C / m to the mean of m
updates clipped to C).  flwr is not imported to account: the configuration and the events are read
by their fields, so the module works without flwr installed; only ``get_privacy_spent`` returns
flwr's ``PrivacySpent`` when flwr is importable (this module's ``PrivacySpent``, with the same
fields, when it is not).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..base.validation import delta_target, describe, flag
from ..ledger import PrivacyGuarantee, PrivacyLedger, Round
from ..ledger.fixed_schedule import pld_accountant
from ..pld.mechanisms import DEFAULT_INTERVAL

__all__ = ["ACCOUNTED", "STATE_SCHEMA", "HockeystickPrivacyAccountant", "PrivacySpent"]

STATE_SCHEMA = "hockeystick.flower/1"
_STATE_KEYS = ("schema_version", "backend", "config", "ledger")
ACCOUNTED = {
    ("poisson", "add-or-remove-one"): "poisson",
    ("no-amplification", "add-or-remove-one"): "none",
}
_SAMPLING_METHODS = ("poisson", "without-replacement", "no-amplification")
_RELATIONS = ("add-or-remove-one", "replace-one")
_WITHOUT_REPLACEMENT = (
    "sampling_method='without-replacement' (a fixed number of clients drawn without replacement, replace-one "
    "neighbours) is not accounted by the ledger, whose rounds are Poisson-sampled or unsampled: build the "
    "PrivacyConfig with sampling_method=SamplingMethod.NO_AMPLIFICATION (valid whatever the sampling; Flower's "
    "fixed-clipping strategies require it) or, if each client takes part independently with probability "
    "sample_size / population_size, SamplingMethod.POISSON, both with NeighboringRelation.ADD_OR_REMOVE_ONE"
)


@dataclass(frozen=True)
class PrivacySpent:
    """Flower's ``PrivacySpent`` fields, returned by ``get_privacy_spent`` when flwr is not installed.

    Parameters
    ----------
    epsilon : float
        The epsilon guaranteed at ``delta`` (an upper bound).
    delta : float
        The delta.
    num_releases : int
        The releases composed.
    accounting_method : str
        The guarantee's method and kind, e.g. ``"hockeystick pld certified composition"``.
    optimal_order : float or None, optional
        Flower's RDP order; None here (no single order gives the answer).
    """

    epsilon: float
    delta: float
    num_releases: int
    accounting_method: str
    optimal_order: float | None = None


def _word(value: Any, name: str, allowed: tuple[str, ...]) -> str:
    """Flower's enum member (a ``str`` enum) or its value, as the value."""
    word = getattr(value, "value", value)
    if not isinstance(word, str) or word not in allowed:
        raise ValueError(
            f"config.{name} must be one of {', '.join(allowed)}, got {describe(value)}"
        )
    return word


def _whole(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {describe(value)}")
    return value


def _releases(value: Any) -> int:
    """A count of releases: an int in [1, 2^53] (the ledger's largest block of rounds)."""
    count = _whole(value, "count")
    if count > 2**53:
        raise ValueError(
            f"count must be at most 2^53 (the ledger's largest block of rounds), got {describe(value)}"
        )
    return count


def _positive_epsilon(value: Any, name: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not (math.isfinite(value) and value > 0)
    ):
        raise ValueError(f"{name} must be a finite number > 0, got {describe(value)}")
    return float(value)


def _sampling(config: Any) -> str:
    """How a round samples (``ACCOUNTED``'s value) for the config's sampling method and relation, or refused."""
    method = _word(getattr(config, "sampling_method", None), "sampling_method", _SAMPLING_METHODS)
    relation = _word(
        getattr(config, "neighboring_relation", None), "neighboring_relation", _RELATIONS
    )
    if method == "without-replacement":
        raise ValueError(_WITHOUT_REPLACEMENT)
    if (method, relation) not in ACCOUNTED:
        raise ValueError(
            f"config.neighboring_relation={relation!r} with sampling_method={method!r} is not a model Flower's "
            "strategies account (their noise multiplier is relative to the add-or-remove sensitivity, clip "
            "norm / clients): use NeighboringRelation.ADD_OR_REMOVE_ONE"
        )
    return ACCOUNTED[(method, relation)]


def _privacy_spent(**fields: Any) -> Any:
    """Flower's ``PrivacySpent`` when flwr is importable, else this module's, with the same fields."""
    try:
        from flwr.supercore.privacy_accounting import (  # lazy: flwr is optional, and only its dataclass is needed
            PrivacySpent as FlowerPrivacySpent,
        )
    except ImportError:
        return PrivacySpent(**fields)
    return FlowerPrivacySpent(**fields)


class HockeystickPrivacyAccountant:
    """Flower's ``PrivacyAccountant`` protocol over a ``ledger.PrivacyLedger`` (the module docstring).

    Parameters
    ----------
    config : flwr.serverapp.PrivacyConfig
        Flower's configuration (or an object with its fields: ``target_delta``, ``population_size``,
        ``neighboring_relation``, ``sampling_method``, ``max_epsilon``); kept as given, so that
        ``accountant.config.sampling_method is SamplingMethod.NO_AMPLIFICATION`` holds in Flower's
        strategies.
    adaptive : bool
        False declares every round's settings fixed before the run (certified PLD composition); True
        lets a round's settings depend on earlier outputs (filter and odometer only).
    filter : {"rdp", "gdp"}, optional
        The ledger's filter for an adaptive run with ``config.max_epsilon`` (default ``"rdp"``;
        ``"gdp"`` takes unsampled rounds only, ``sampling_method="no-amplification"``).
    orders : sequence of int, optional
        The ledger's integer Rényi orders (default ``ledger.DEFAULT_ORDERS``).
    value_discretization_interval : float, optional
        The PLD grid spacing of a fixed schedule's bracket (default 1e-4).

    Raises
    ------
    ValueError
        If the configuration's fields are missing or out of range, its sampling method and relation
        are not one of ``ACCOUNTED`` (``"without-replacement"`` is refused: the message names the
        fix), or an option is refused by ``PrivacyLedger``.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from hockeystick.interop.flower import HockeystickPrivacyAccountant
    >>> config = SimpleNamespace(target_delta=1e-5, population_size=1000, neighboring_relation="add-or-remove-one",
    ...                          sampling_method="no-amplification", max_epsilon=None)
    >>> accountant = HockeystickPrivacyAccountant(config, adaptive=False)
    >>> accountant.compose(SimpleNamespace(noise_multiplier=4.0, sample_size=10, population_size=1000), 10)
    >>> accountant.num_releases, accountant.guarantee().kind
    (10, 'certified composition')
    """

    def __init__(
        self,
        config: Any,
        *,
        adaptive: bool,
        filter: str = "rdp",  # noqa: A002  (the ledger's word)
        orders: Any = None,
        value_discretization_interval: float = DEFAULT_INTERVAL,
    ):
        self._sampling = _sampling(config)
        self._target_delta = delta_target(
            getattr(config, "target_delta", None), "config.target_delta"
        )
        self._population_size = _whole(
            getattr(config, "population_size", None), "config.population_size"
        )
        max_epsilon = getattr(config, "max_epsilon", None)
        self._max_epsilon = (
            None if max_epsilon is None else _positive_epsilon(max_epsilon, "config.max_epsilon")
        )
        self._config = config
        budget = self._max_epsilon is not None and flag(adaptive, "adaptive")
        self._ledger = PrivacyLedger(
            adaptive=adaptive,
            epsilon=self._max_epsilon if budget else None,
            delta=self._target_delta if budget else None,
            filter=filter,
            orders=orders,
            value_discretization_interval=value_discretization_interval,
        )

    @property
    def config(self) -> Any:
        """The ``PrivacyConfig`` the accountant was built with.

        Returns
        -------
        flwr.serverapp.PrivacyConfig
            The object given.
        """
        return self._config

    @property
    def num_releases(self) -> int:
        """The releases composed (the ledger's rounds).

        Returns
        -------
        int
            The count.
        """
        return self._ledger.rounds

    @property
    def ledger(self) -> PrivacyLedger:
        """The ledger every answer comes from (``ledger.guarantee()`` is an adaptive run's filter budget).

        Returns
        -------
        PrivacyLedger
            The ledger.
        """
        return self._ledger

    def round_of(self, event: Any) -> Round:
        """The ledger's round for one of Flower's ``GaussianPrivacyEvent`` (the module docstring's table).

        Parameters
        ----------
        event : flwr.serverapp.GaussianPrivacyEvent
            Its ``noise_multiplier`` z, ``sample_size`` and ``population_size``.

        Returns
        -------
        Round
            ``Round.subsampled_gaussian(z, sample_size / population_size)`` under Poisson sampling,
            ``Round.gaussian(z)`` without amplification.

        Raises
        ------
        ValueError
            If z is not a finite number > 0, a size is not an integer >= 1, ``sample_size`` exceeds
            ``population_size``, or ``population_size`` differs from the configuration's.
        """
        z = _positive_epsilon(getattr(event, "noise_multiplier", None), "event.noise_multiplier")
        sample_size = _whole(getattr(event, "sample_size", None), "event.sample_size")
        population = _whole(getattr(event, "population_size", None), "event.population_size")
        if population != self._population_size:
            raise ValueError(
                f"event.population_size ({population}) must be the configuration's ({self._population_size})"
            )
        if sample_size > population:
            raise ValueError(
                f"event.sample_size ({sample_size}) must not exceed population_size ({population})"
            )
        if self._sampling == "poisson":
            return Round.subsampled_gaussian(z, sample_size / population)
        return Round.gaussian(z)

    def compose(self, event: Any, count: int = 1) -> None:
        """Record ``count`` releases of ``event`` in the ledger.

        Parameters
        ----------
        event : flwr.serverapp.GaussianPrivacyEvent
            The release (``round_of``).
        count : int, optional
            How many identical releases (default 1).

        Raises
        ------
        ValueError
            If ``event`` or ``count`` is invalid (``round_of``).
        hockeystick.ledger.BudgetExceeded
            Adaptive run with ``config.max_epsilon``: the filter does not admit the releases, which
            are not recorded (ask ``would_exceed`` before the round, as Flower's strategies do).
        """
        self._ledger.record(self.round_of(event), _releases(count))

    def guarantee(self, delta: float | None = None) -> PrivacyGuarantee:
        """What the releases so far guarantee at ``delta``: the answer of ``get_epsilon``, with its conditions.

        Parameters
        ----------
        delta : float, optional
            0 < delta < 1; default ``config.target_delta``.

        Returns
        -------
        PrivacyGuarantee
            ``adaptive=False``: the certified PLD bracket of the composition (``kind="certified
            composition"``, with ``epsilon_lower``); ``adaptive=True``: the Rényi odometer
            (``kind="odometer"``), which can exceed ``config.max_epsilon`` while the filter's budget
            holds (``get_epsilon``).

        Raises
        ------
        ValueError
            If ``delta`` is not strictly between 0 and 1.
        """
        d = self._target_delta if delta is None else delta_target(delta)
        return self._ledger.odometer(d) if self._ledger.adaptive else self._ledger.composition(d)

    def get_epsilon(self, delta: float) -> float:
        """The epsilon of ``guarantee(delta)``: an upper bound on the true epsilon at ``delta``.

        Parameters
        ----------
        delta : float
            0 < delta < 1.

        Returns
        -------
        float
            ``adaptive=False``: the certified upper epsilon of the PLD composition of the releases
            so far. ``adaptive=True``: the Rényi odometer's epsilon at ``delta``
            (``PrivacyLedger.odometer``), a bound valid at every round at once with no budget fixed
            in advance.  It is not the filter's budget and can exceed ``config.max_epsilon``: a
            budget of 8 at target_delta 1e-5 admits 7 releases at noise multiplier 2 without
            amplification, after which the odometer reads 8.06.  The filter's own guarantee,
            (max_epsilon, target_delta) at the run's halt, is ``ledger.guarantee()``; each answer
            holds under its own assumption (``guarantee()`` states the odometer's).

        Raises
        ------
        ValueError
            If ``delta`` is not strictly between 0 and 1.
        """
        return self.guarantee(delta_target(delta)).epsilon

    def get_delta(self, epsilon: float) -> float:
        """A certified upper bound on delta(epsilon) of the composition (fixed schedules only).

        Parameters
        ----------
        epsilon : float
            Finite, >= 0.

        Returns
        -------
        float
            The certified upper delta of the PLD composition of the rounds recorded (0 before any).

        Raises
        ------
        ValueError
            If ``epsilon`` is negative or not finite, or the run is adaptive (its guarantees hold at
            a delta fixed before the run: ask ``get_epsilon(config.target_delta)``).
        """
        if (
            isinstance(epsilon, bool)
            or not isinstance(epsilon, (int, float))
            or not (0 <= epsilon < math.inf)
        ):
            raise ValueError(f"epsilon must be a finite number >= 0, got {describe(epsilon)}")
        if self._ledger.adaptive:
            raise ValueError(
                "an adaptive run's guarantees (filter, odometer) hold at a delta fixed before the run, not at a "
                "delta read off the run: ask get_epsilon(config.target_delta)"
            )
        counts = self._ledger.counts()
        if not counts:
            return 0.0
        accountant = pld_accountant(
            list(counts.items()), self._ledger.value_discretization_interval
        )
        return float(accountant.delta(epsilon))  # type: ignore[arg-type]

    def get_privacy_spent(self, delta: float | None = None) -> Any:
        """Flower's ``PrivacySpent`` of ``guarantee(delta)``.

        Parameters
        ----------
        delta : float, optional
            0 < delta < 1; default ``config.target_delta``.

        Returns
        -------
        flwr.serverapp.PrivacySpent or PrivacySpent
            ``epsilon``, ``delta``, ``num_releases``, ``accounting_method`` (``"hockeystick <method>
            <kind>"``), ``optimal_order`` None.

        Raises
        ------
        ValueError
            As ``guarantee``.
        """
        g = self.guarantee(delta)
        return _privacy_spent(
            epsilon=g.epsilon,
            delta=g.delta,
            num_releases=g.rounds,
            accounting_method=f"hockeystick {g.method} {g.kind}",
            optimal_order=None,
        )

    def would_exceed(self, event: Any, max_epsilon: float | None = None, count: int = 1) -> bool:
        """Whether ``count`` more releases of ``event`` would pass ``max_epsilon`` at ``config.target_delta``.

        The ledger's ``would_exceed``: fixed schedule, the certified upper epsilon of the
        composition with them; adaptive, the filter of the budget (``max_epsilon``,
        ``config.target_delta``), valid when that budget was fixed before the run and the run stops
        at the first True.  Nothing is recorded.

        Parameters
        ----------
        event : flwr.serverapp.GaussianPrivacyEvent
            The next release (``round_of``).
        max_epsilon : float, optional
            The limit, finite and > 0; default ``config.max_epsilon``.
        count : int, optional
            How many releases of it (default 1).

        Returns
        -------
        bool
            True if they would pass the limit.

        Raises
        ------
        ValueError
            If no limit is given here or in the configuration, or an argument is invalid.
        """
        limit = (
            self._max_epsilon
            if max_epsilon is None
            else _positive_epsilon(max_epsilon, "max_epsilon")
        )
        if limit is None:
            raise ValueError(
                "would_exceed needs a limit: give max_epsilon, or set it in the PrivacyConfig"
            )
        return self._ledger.would_exceed(
            self.round_of(event), limit, self._target_delta, rounds=_releases(count)
        )

    def should_stop(self, server_round: int, result: Any = None) -> bool:
        """Whether a run should end after ``server_round``: one more release of the last round
        recorded would pass ``config.max_epsilon`` at ``config.target_delta`` (``would_exceed``);
        False before any release or without a ``max_epsilon``.

        Flower 1.43's ``Strategy.start(..., should_stop=accountant.should_stop)`` asks it after
        every completed round, so the run ends through Flower's normal exit (the current model and
        metrics returned) before the round that would pass the budget, where the DP strategies' own
        check raises ``PrivacyBudgetExhausted`` at that round instead.  A strategy whose next round
        differs from its last (another noise multiplier or sample size) asks ``would_exceed`` with
        that round's event.

        Parameters
        ----------
        server_round : int
            The round just completed (Flower's argument; the answer depends on the releases recorded
            only).
        result : flwr.serverapp.strategy.Result, optional
            The run's results so far (Flower's argument; not read).

        Returns
        -------
        bool
            True if the run should stop.
        """
        last = self._ledger.last_round
        if last is None or self._max_epsilon is None:
            return False
        return self._ledger.would_exceed(last, self._max_epsilon, self._target_delta)

    def _config_state(self) -> dict[str, Any]:
        return {
            "target_delta": self._target_delta,
            "population_size": self._population_size,
            "neighboring_relation": _word(
                self._config.neighboring_relation, "neighboring_relation", _RELATIONS
            ),
            "sampling_method": _word(
                self._config.sampling_method, "sampling_method", _SAMPLING_METHODS
            ),
            "max_epsilon": self._max_epsilon,
        }

    def state_dict(self) -> dict[str, object]:
        """The configuration and the ledger's own state, JSON-ready, to save with a training checkpoint.

        Returns
        -------
        dict
            ``{"schema_version": STATE_SCHEMA, "backend": "hockeystick", "config": {...}, "ledger":
            PrivacyLedger.state_dict()}``.
        """
        return {
            "schema_version": STATE_SCHEMA,
            "backend": "hockeystick",
            "config": self._config_state(),
            "ledger": self._ledger.state_dict(),
        }

    def load_state_dict(self, state: dict[str, object]) -> None:
        """Replace what the accountant holds by ``state`` (``state_dict`` of one of the same configuration).

        Loading replaces, never adds (``PrivacyLedger.load_state_dict``): a restart from a
        checkpoint loses no release and counts none twice.

        Parameters
        ----------
        state : dict
            A ``state_dict()``.

        Raises
        ------
        ValueError
            If ``state`` is not this adapter's state (a field missing, unknown or of the wrong
            kind), was saved under another ``PrivacyConfig`` or ledger configuration, or its ledger
            is refused by ``PrivacyLedger.from_state_dict`` (spent sums that disagree with its
            rounds included); the message names the field.
        """
        _check_fields(state)
        _check_config(state["config"], self._config_state())
        try:
            self._ledger.load_state_dict(state["ledger"])  # type: ignore[arg-type]
        except ValueError as err:
            raise ValueError(f"state's ledger is refused: {err}") from None


def _same(theirs: Any, ours: Any) -> bool:
    """A saved configuration value equals this accountant's: the same number (not a bool or a string
    read as one), the same word, or both None."""
    if ours is None or isinstance(ours, str):
        return theirs == ours and type(theirs) is type(ours)
    if isinstance(theirs, bool) or not isinstance(theirs, (int, float)):
        return False
    return bool(theirs == ours)


def _check_fields(state: Any) -> None:
    """The state is an accountant's: a dict of this schema, with its four fields and the backend's name."""
    if not isinstance(state, dict):
        raise ValueError(
            f"state must be a HockeystickPrivacyAccountant.state_dict() (a dict of schema {STATE_SCHEMA!r}), got "
            f"{type(state).__name__}"
        )
    if state.get("schema_version") != STATE_SCHEMA:
        raise ValueError(
            f"state's schema_version must be {STATE_SCHEMA!r} (a HockeystickPrivacyAccountant.state_dict()), got "
            f"{describe(state.get('schema_version'))}"
        )
    missing = [key for key in _STATE_KEYS if key not in state]
    unknown = [repr(key) for key in state if key not in _STATE_KEYS]
    if missing or unknown:
        raise ValueError(
            f"state {'lacks ' + ', '.join(missing) if missing else 'has unknown fields ' + ', '.join(unknown)}: "
            f"an accountant's state holds {', '.join(_STATE_KEYS)}"
        )
    if state["backend"] != "hockeystick":
        raise ValueError(f"state's backend must be 'hockeystick', got {describe(state['backend'])}")


def _check_config(theirs: Any, ours: dict[str, Any]) -> None:
    """The saved configuration is this accountant's, field by field (``_same``)."""
    if not isinstance(theirs, dict) or set(theirs) != set(ours):
        raise ValueError(f"state's config must hold {', '.join(ours)}, got {describe(theirs)}")
    differ = [key for key in ours if not _same(theirs[key], ours[key])]
    if differ:
        shown = "; ".join(
            f"{key}: {theirs[key]!r} in the state, {ours[key]!r} here" for key in differ
        )
        raise ValueError(
            f"state's config differs from this accountant's PrivacyConfig in {', '.join(differ)} ({shown}): "
            "the state was saved under another configuration"
        )
