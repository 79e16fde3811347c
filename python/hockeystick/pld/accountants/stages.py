"""Heterogeneous training runs as a list of stages, composed through one ``PLDAccountant``.

A stage is a mapping ``{"mechanism": NAME, "rounds": T, <the mechanism's parameters>}``, e.g. the TOML

    [[stage]]
    mechanism = "subsampled_gaussian"
    sigma = 1.0
    sampling_rate = 0.01
    rounds = 5000

    [[stage]]
    mechanism = "laplace"
    scale = 2.0

Each stage's PLD (``hockeystick.pld``'s constructor of that name, on the accountant's grid) is
self-composed ``rounds`` times (default 1) and composed with the others; the result is the
accountant, whose ``delta`` / ``epsilon`` give certified upper and lower bounds (``bound="both"``)
on the privacy profile of the whole run, every round released (composition of PLDs: Koskela,
Jalko, Honkela 2020; certified sides: Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022,
"Connect the dots", as ``pld/compose/fft.py`` documents).

Each mechanism's analysis holds for one neighbouring relation: the Poisson-subsampled mechanisms
add/remove one record, the fixed-size batches replace-one, randomized response the ``relation`` it
is given (replace-one by default, or replace-special).  The run is certified under the relations
every stage bounds in one step (``neighbouring.run_relations``: add/remove stages bound replace-special
runs too, nothing else crosses; docs/neighbouring-relations.md); stages with no such relation in common
are refused.  The plain mechanisms (gaussian, laplace, discrete_laplace) hold for whichever relation
their ``sensitivity`` was computed for.  ``sampling_probability`` (dp_accounting's name) is read as
``sampling_rate``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...base.validation import did_you_mean
from ..grid.distribution import PrivacyLossDistribution
from ..mechanisms.constructors import (
    DEFAULT_INTERVAL,
    fixed_size_subsampled_gaussian,
    gaussian,
    laplace,
    subsampled_gaussian,
    with_replacement_subsampled_gaussian,
)
from ..mechanisms.discrete_laplace import discrete_laplace
from ..mechanisms.laplace_mixture import subsampled_laplace
from ..mechanisms.neighbouring import RELATION_WORDS, run_relations
from ..mechanisms.randomized_response import RELATIONS as RANDOMIZED_RESPONSE_RELATIONS
from ..mechanisms.randomized_response import randomized_response
from .subsampled_gaussian import PLDAccountant

__all__ = ["MECHANISM_CONSTRUCTORS", "compose_stages", "stage_relations"]

# stage mechanism name -> (its PLD constructor, the neighbouring relation its analysis holds for; None: the
# one its sensitivity is for; "relation": the stage's own ``relation`` parameter)
MECHANISM_CONSTRUCTORS: dict[str, tuple[Callable[..., PrivacyLossDistribution], str | None]] = {
    "gaussian": (gaussian, None),
    "laplace": (laplace, None),
    "discrete_laplace": (discrete_laplace, None),
    "subsampled_gaussian": (subsampled_gaussian, "add_or_remove_one"),
    "subsampled_laplace": (subsampled_laplace, "add_or_remove_one"),
    "fixed_size_subsampled_gaussian": (fixed_size_subsampled_gaussian, "replace_one"),
    "with_replacement_subsampled_gaussian": (with_replacement_subsampled_gaussian, "replace_one"),
    "randomized_response": (randomized_response, "relation"),
}

_ALIASES = {"sampling_probability": "sampling_rate"}


def _parameters(constructor: Callable[..., Any]) -> list[str]:
    return [
        p for p in inspect.signature(constructor).parameters if p != "value_discretization_interval"
    ]


def _required(constructor: Callable[..., Any]) -> list[str]:
    return [
        n
        for n, p in inspect.signature(constructor).parameters.items()
        if p.default is inspect.Parameter.empty
    ]


def compose_stages(
    stages: Sequence[Mapping[str, Any]], *, value_discretization_interval: float = DEFAULT_INTERVAL
) -> PLDAccountant:
    """A ``PLDAccountant`` holding every stage, each ``rounds`` times (see the module docstring); its
    bounds hold under each relation ``stage_relations(stages)`` names.

    Raises ValueError naming the stage (1-based) and the key for an unknown mechanism or parameter
    (with the closest name), a missing parameter, a value the mechanism refuses, or stages whose
    analyses bound no neighbouring relation in common."""
    parsed = _parse_all(stages)
    _common_relations(parsed)
    accountant = PLDAccountant(value_discretization_interval=value_discretization_interval)
    for number, (name, params, rounds) in enumerate(parsed, start=1):
        try:
            pld = MECHANISM_CONSTRUCTORS[name][0](
                **params, value_discretization_interval=accountant.value_discretization_interval
            )
        except (ValueError, TypeError) as exc:
            raise ValueError(f"stage {number} ({name}): {exc}") from None
        accountant.compose(pld, rounds)
    return accountant


def stage_relations(stages: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """The neighbouring relations (``neighbouring.RELATIONS`` names) under which the composition of
    ``stages`` is certified: those every stage's analysis bounds; ValueError when there is none."""
    return _common_relations(_parse_all(stages))


def _parse_all(stages: Sequence[Mapping[str, Any]]) -> list[tuple[str, dict[str, Any], int]]:
    if isinstance(stages, Mapping) or not isinstance(stages, Sequence) or not stages:
        raise ValueError(
            'stages must be a non-empty list of tables such as {mechanism = "gaussian", sigma = 2.0, rounds = 10}'
        )
    return [_parse(number, stage) for number, stage in enumerate(stages, start=1)]


def _analysed_under(number: int, name: str, params: Mapping[str, Any]) -> str | None:
    relation = MECHANISM_CONSTRUCTORS[name][1]
    if relation != "relation":
        return relation
    given = params.get("relation", "replace_one")
    if given not in RANDOMIZED_RESPONSE_RELATIONS:
        raise ValueError(
            f"stage {number} ({name}): relation must be one of "
            f"{', '.join(RANDOMIZED_RESPONSE_RELATIONS)}, got {given!r}"
        )
    return str(given)


def _common_relations(parsed: Sequence[tuple[str, dict[str, Any], int]]) -> tuple[str, ...]:
    """``run_relations`` of the stages, or ValueError naming the first stage that leaves none in common
    with those before it and an earlier stage it shares none with."""
    analysed = [
        _analysed_under(number, name, params)
        for number, (name, params, _) in enumerate(parsed, start=1)
    ]
    for j in range(len(analysed)):
        if run_relations(analysed[: j + 1]):
            continue
        i = next(i for i in range(j) if not run_relations([analysed[i], analysed[j]]))
        first, second = analysed[i], analysed[j]
        assert (
            first is not None and second is not None
        )  # a stage bounding every relation conflicts with none
        raise ValueError(
            f"stage {i + 1} ({parsed[i][0]}) is analysed under {RELATION_WORDS[first]} neighbours and "
            f"stage {j + 1} ({parsed[j][0]}) under {RELATION_WORDS[second]}: no neighbouring relation "
            "is bounded by both in one step (a group of two records is not accounted); use stages "
            "analysed under one relation, or add/remove stages with replace-special ones "
            "(docs/neighbouring-relations.md)"
        )
    return run_relations(analysed)


def _parse(number: int, stage: Any) -> tuple[str, dict[str, Any], int]:
    """(mechanism, its parameters, rounds) of one stage, checked by name."""
    where = f"stage {number}"
    if not isinstance(stage, Mapping):
        raise ValueError(f"{where} must be a table of name = value, got {stage!r}")
    params: dict[str, Any] = {_ALIASES.get(str(k), str(k)): v for k, v in stage.items()}
    name = params.pop("mechanism", None)
    if not isinstance(name, str) or name not in MECHANISM_CONSTRUCTORS:
        raise ValueError(
            f"{where}: mechanism must be one of {', '.join(MECHANISM_CONSTRUCTORS)}, got {name!r}"
            + (did_you_mean(name, list(MECHANISM_CONSTRUCTORS)) if isinstance(name, str) else "")
        )
    rounds = params.pop("rounds", 1)
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"{where}: rounds must be an integer >= 1, got {rounds!r}")
    allowed = _parameters(MECHANISM_CONSTRUCTORS[name][0])
    for key in params:
        if key not in allowed:
            raise ValueError(
                f"{where} ({name}): unknown parameter {key!r}{did_you_mean(key, allowed + ['rounds'])}; "
                f"{name} takes {', '.join(allowed)} and rounds"
            )
    missing = [k for k in _required(MECHANISM_CONSTRUCTORS[name][0]) if k not in params]
    if missing:
        raise ValueError(f"{where} ({name}) needs {', '.join(map(repr, missing))}")
    return name, params, rounds
