"""A ``PrivacyLedger``'s saved state: what ``state_dict`` writes and every check ``from_state_dict`` makes.

The state holds the configuration, the rounds in the order recorded (run-length: ``[round, count]``)
and the spent sums with their counts of additions; a ledger's ``accuracy`` is written only where it
has one (``OPTIONAL_KEYS``), so the state of a ledger without one holds ``STATE_KEYS`` exactly, and
a reader that knows only those refuses a state that needs the accuracy.  Restoring reads the configuration by the
constructor's rules and the rounds by ``Round.from_dict``'s, recomputes the sums from the rounds,
and requires the state's own sums to agree within twice the round-off bound of two sums of the same
terms (``outward_sum.RunningSum``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base.validation import choice, describe, flag, positive_number
from ..pld.mechanisms import checked_interval
from .ledger_arguments import FILTERS, budget_pair, rounds_count
from .round_rdp import check_integer_orders
from .rounds import Round

# the ledger (ledger.py imports this module, so it is not named here)
AnyLedger = Any

__all__: list[str] = []  # its names serve ``ledger.py`` (which exports STATE_FORMAT), not the users

STATE_FORMAT = "hockeystick.ledger/1"
STATE_KEYS = (
    "format",
    "adaptive",
    "budget",
    "filter",
    "orders",
    "value_discretization_interval",
    "rounds",
    "rdp_sum",
    "rdp_terms",
    "mu2_sum",
    "mu2_terms",
)
# written only where set: a ledger without an accuracy has no such field
OPTIONAL_KEYS = ("accuracy",)
_U = 2.0**-53


def state_of(ledger: AnyLedger) -> dict[str, Any]:
    """Everything ``ledger`` holds, as JSON-ready data (``PrivacyLedger.state_dict``).

    Parameters
    ----------
    ledger : PrivacyLedger
        The ledger.

    Returns
    -------
    dict
        The configuration, the rounds in the order recorded and the spent sums with their round-off
        counts.
    """
    return {
        "format": STATE_FORMAT,
        "adaptive": ledger.adaptive,
        "budget": None if ledger.budget is None else list(ledger.budget),
        "filter": ledger.filter,
        "orders": list(ledger.orders),
        "value_discretization_interval": ledger.value_discretization_interval,
        **({} if ledger.accuracy is None else {"accuracy": ledger.accuracy}),
        "rounds": [[one.to_dict(), count] for one, count in ledger._runs],
        "rdp_sum": [float(x) for x in ledger._rdp.values],
        "rdp_terms": ledger._rdp.terms,
        "mu2_sum": float(ledger._mu2.values[0]),
        "mu2_terms": ledger._mu2.terms,
    }


def configuration_of(state: dict[str, Any]) -> dict[str, Any]:
    """The configuration a ledger's state holds (None where an optional field is unset): what a
    ledger loading the state must share with the one that saved it.

    Parameters
    ----------
    state : dict
        A ``PrivacyLedger.state_dict()``.

    Returns
    -------
    dict
        Adaptivity, budget, filter, orders, grid and accuracy.
    """
    keys = ("adaptive", "budget", "filter", "orders", "value_discretization_interval")
    return {key: state.get(key) for key in keys + OPTIONAL_KEYS}


def checked_state(state: Any) -> tuple[dict[str, Any], list[tuple[Round, int]]]:
    """The keywords of ``PrivacyLedger`` and the blocks of rounds a saved state holds, every field checked.

    Parameters
    ----------
    state : dict
        A ``PrivacyLedger.state_dict()``.

    Returns
    -------
    tuple of (dict, list of (Round, int))
        The configuration and the blocks in the order recorded.

    Raises
    ------
    ValueError
        If ``state`` is not a ledger's state, or a field is missing, unknown, of the wrong kind or
        out of range; the message names the field.
    """
    if not isinstance(state, dict):
        raise ValueError(
            f"state must be a PrivacyLedger.state_dict() (a dict of format {STATE_FORMAT!r}), got "
            f"{type(state).__name__}"
        )
    if state.get("format") != STATE_FORMAT:
        raise ValueError(
            f"state's format must be {STATE_FORMAT!r} (a PrivacyLedger.state_dict()), got "
            f"{describe(state.get('format'))}"
        )
    missing = [key for key in STATE_KEYS if key not in state]
    if missing:
        raise ValueError(
            f"state lacks {', '.join(missing)}: it is not a complete PrivacyLedger.state_dict()"
        )
    unknown = [repr(key) for key in state if key not in STATE_KEYS + OPTIONAL_KEYS]
    if unknown:
        raise ValueError(
            f"state has unknown fields {', '.join(unknown)}: a ledger's state holds {STATE_KEYS}, "
            f"and where set {OPTIONAL_KEYS}"
        )
    configuration = _state_configuration(state)
    return configuration, _state_rounds(state["rounds"], configuration["filter"])


def _field(state: dict[str, Any], key: str, check: Any) -> Any:
    """``check(state[key])``, its refusal (ValueError or TypeError) re-raised as a ValueError naming the field."""
    try:
        return check(state[key])
    except (ValueError, TypeError) as err:
        raise ValueError(f"state's {key} is refused: {err}") from None


def _real(value: Any, name: str) -> float:
    """A number as JSON holds one: an int or a float (not a bool, a string or a list)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number, got {describe(value)} ({type(value).__name__})")
    try:
        return float(value)
    except OverflowError:
        raise ValueError(
            f"{name} must be a number within the doubles, got {describe(value)}"
        ) from None


def _state_budget(value: Any) -> dict[str, Any]:
    if value is None:
        return {"epsilon": None, "delta": None}
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ValueError(f"budget must be null or [epsilon, delta], got {describe(value)}")
    eps, delta = _real(value[0], "budget's epsilon"), _real(value[1], "budget's delta")
    budget_pair(eps, delta)
    return {"epsilon": eps, "delta": delta}


def _state_orders(value: Any) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"orders must be a list of whole numbers, got {describe(value)}")
    orders = check_integer_orders(list(value))
    if len(orders) != len(value) or any(a != b for a, b in zip(orders, value)):
        raise ValueError(
            f"orders must be distinct and increasing, as state_dict writes them, got {describe(value)}"
        )
    return orders


def _state_configuration(state: dict[str, Any]) -> dict[str, Any]:
    """The keywords of ``PrivacyLedger`` a state holds, each field checked by the constructor's rule."""
    return {
        "adaptive": _field(state, "adaptive", lambda v: flag(v, "adaptive")),
        **_field(state, "budget", _state_budget),
        "filter": _field(state, "filter", lambda v: choice(v, "filter", FILTERS)),
        "orders": _field(state, "orders", _state_orders),
        "value_discretization_interval": _field(
            state,
            "value_discretization_interval",
            lambda v: checked_interval(_real(v, "value_discretization_interval")),
        ),
        "accuracy": None
        if "accuracy" not in state
        else _field(state, "accuracy", lambda v: positive_number(_real(v, "accuracy"), "accuracy")),
    }


def _state_rounds(value: Any, filter_kind: str) -> list[tuple[Round, int]]:
    """The state's blocks of rounds: [round, count] pairs, whole counts, no two neighbours equal."""
    if not isinstance(value, list):
        raise ValueError(
            f"state's rounds must be a list of [round, count] pairs, got {type(value).__name__}"
        )
    out: list[tuple[Round, int]] = []
    for i, entry in enumerate(value):
        if not isinstance(entry, (list, tuple)) or len(entry) != 2:
            raise ValueError(
                f"state's rounds[{i}] must be a [round, count] pair, got {describe(entry)}"
            )
        try:
            one = Round.from_dict(entry[0])
            hash(one)
        except (ValueError, TypeError) as err:
            raise ValueError(f"state's rounds[{i}] holds no round: {err}") from None
        try:
            count = rounds_count(entry[1], f"state's rounds[{i}] count")
        except ValueError as err:
            raise ValueError(str(err)) from None
        if out and out[-1][0] == one:
            raise ValueError(
                f"state's rounds[{i - 1}] and rounds[{i}] hold the same round: a ledger merges equal neighbours"
            )
        if filter_kind == "gdp" and one.gdp_mu is None:
            raise ValueError(
                f"state's rounds[{i}] is a {one.mechanism} round, which a ledger with filter='gdp' does not record"
            )
        out.append((one, count))
    return out


def _disagreeing(
    stored: np.ndarray, recomputed: np.ndarray, terms: int, own_terms: int
) -> int | None:
    """The first index where a state's sums disagree with the sums recomputed from its rounds,
    beyond twice the round-off bound of two sums of the same terms with ``terms`` and ``own_terms``
    additions (``from_state_dict``); None if they agree everywhere."""
    tolerance = 4.0 * (terms + own_terms + 1)
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(stored - recomputed) <= tolerance * (_U * recomputed + 5e-324)
    close = np.where(
        np.isinf(recomputed), stored == recomputed, close
    )  # an infinite sum agrees only with itself
    bad = ~(close | (stored == recomputed))
    return int(np.argmax(bad)) if bad.any() else None


def _state_sum(state: dict[str, Any], key: str, size: int) -> np.ndarray:
    value = state[key]
    if key == "mu2_sum":
        value = [value]
    if not isinstance(value, (list, tuple)) or len(value) != size:
        raise ValueError(
            f"state's {key} must hold one number per order ({size} orders, as the state's orders list them), got "
            f"{len(value) if isinstance(value, (list, tuple)) else describe(value)}"
        )
    try:
        out = np.array([_real(x, key) for x in value], dtype=np.float64)
    except ValueError as err:
        raise ValueError(f"state's {key} is refused: {err}") from None
    if np.isnan(out).any() or (out < 0).any():
        raise ValueError(
            f"state's {key} must hold numbers >= 0 (inf allowed), got {describe(state[key])}"
        )
    return out


def check_sums(state: dict[str, Any], ledger: AnyLedger) -> None:
    """The state's spent sums and counts of additions agree with those ``ledger`` recomputed from its rounds.

    Parameters
    ----------
    state : dict
        The state the rounds were read from (``checked_state``).
    ledger : PrivacyLedger
        The ledger holding those rounds.

    Raises
    ------
    ValueError
        If a count of additions lies outside what the rounds take, or a sum disagrees beyond twice
        the round-off bound of two sums of the same terms (the state was altered).
    """
    blocks = [(ledger._rdp, "rdp_sum", "rdp_terms", ledger.rounds)]
    blocks.append(
        (
            ledger._mu2,
            "mu2_sum",
            "mu2_terms",
            sum(c for one, c in ledger._runs if one.gdp_mu is not None),
        )
    )
    for own, key, terms_key, most in blocks:
        stored = _state_sum(state, key, own.size)
        terms = state[terms_key]
        if (
            isinstance(terms, bool)
            or not isinstance(terms, int)
            or not own.terms <= terms <= max(most, own.terms)
        ):
            raise ValueError(
                f"state's {terms_key} must be a whole number (an int) from {own.terms} to {max(most, own.terms)} "
                f"(the additions its rounds take, block by block to one by one), got {describe(terms)}"
            )
        bad = _disagreeing(stored, own.values, terms, own.terms)
        if bad is not None:
            where = f" at order {ledger.orders[bad]}" if key == "rdp_sum" else ""
            raise ValueError(
                f"state's {key} disagrees with its rounds and orders{where}: recomputed from them it is "
                f"{own.values[bad]!r}, the state holds {stored[bad]!r}; the state was altered"
            )
