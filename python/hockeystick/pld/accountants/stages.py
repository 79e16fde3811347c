"""Heterogeneous training runs as a list of stages, composed through one ``PLDAccountant``.

A stage is a mapping ``{"mechanism": NAME, "rounds": T, <the mechanism's parameters>}``, e.g. the
TOML

    [[stage]]
    mechanism = "subsampled_gaussian"
    sigma = 1.0
    sampling_rate = 0.01
    rounds = 5000

    [[stage]]
    mechanism = "laplace"
    scale = 2.0

Each stage's PLD (the constructor registered under that name, ``mechanisms.registry``, on the
accountant's grid) is self-composed ``rounds`` times (default 1) and composed with the others; the
result is the accountant, whose ``delta`` / ``epsilon`` give certified upper and lower bounds
(``bound="both"``) on the privacy profile of the whole run, every round released (composition of
PLDs: Koskela, Jalko, Honkela 2020; certified sides: Doroshenko, Ghazi, Kamath, Kumar, Manurangsi
2022, "Connect the dots", as ``pld/compose/fft.py`` documents).

Each mechanism's analysis holds for one neighbouring relation: the Poisson-subsampled mechanisms
add/remove one record, the fixed-size batches replace-one, randomized response the ``relation`` it
is given (replace-one by default, or replace-special).  The run is certified under the relations
every stage bounds in one step (``neighbouring.run_relations``: add/remove stages bound
replace-special runs too, nothing else crosses; docs/neighbouring-relations.md); stages with no such
relation in common are refused.  The plain mechanisms (gaussian, laplace, discrete_laplace) hold for
whichever relation their ``sensitivity`` was computed for.  ``sampling_probability``
(dp_accounting's name) is read as ``sampling_rate``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...base.validation import did_you_mean
from ..mechanisms.constructors import DEFAULT_INTERVAL
from ..mechanisms.described_factors import described_round
from ..mechanisms.neighbouring import RELATION_WORDS, run_relations
from ..mechanisms.registry import StageEntry, stage_entry
from .subsampled_gaussian import PLDAccountant

__all__ = ["ParsedStage", "compose_stages", "parse_stage", "stage_relations"]

# dp_accounting's word for the sampling rate, read as the constructors' word
STAGE_ALIASES = {"sampling_probability": "sampling_rate"}


@dataclass(frozen=True)
class ParsedStage:
    """One ``[[stage]]`` table read: the registered mechanism, its parameters, and how many rounds run.

    Parameters
    ----------
    entry : StageEntry
        The mechanism's registry entry (its constructor and facets).
    parameters : dict
        The constructor's keywords the stage gives (aliases read as the constructor's words).
    rounds : int
        How many rounds of it, >= 1.
    """

    entry: StageEntry
    parameters: dict[str, Any]
    rounds: int


def parse_stage(
    stage: Any,
    where: str = "stage 1",
    *,
    aliases: Mapping[str, str] = STAGE_ALIASES,
    admit: Callable[[Any], None] | None = None,
) -> ParsedStage:
    """One ``[[stage]]`` table checked by name against its mechanism's registered constructor.

    The one reading of a stage: ``compose_stages`` and the ledger's ``Round.from_stage`` both call
    it.

    Parameters
    ----------
    stage : mapping
        ``{"mechanism": NAME, "rounds": T, <the constructor's keywords>}``.
    where : str, optional
        How messages name the stage (default ``"stage 1"``).
    aliases : mapping, optional
        Other words read as the constructor's (default ``sampling_probability`` as
        ``sampling_rate``).
    admit : callable, optional
        Called with the mechanism's name before it is looked up; a door that takes some mechanisms
        only raises its own ValueError there.

    Returns
    -------
    ParsedStage
        The entry, the parameters and the rounds.

    Raises
    ------
    ValueError
        Naming ``where`` and the key: a stage that is not a table, an unknown mechanism (with the
        closest name), rounds not an integer >= 1, an unknown parameter (with the closest) or a
        missing one.
    """
    if not isinstance(stage, Mapping):
        raise ValueError(f"{where} must be a table of name = value, got {stage!r}")
    params: dict[str, Any] = {aliases.get(str(k), str(k)): v for k, v in stage.items()}
    name = params.pop("mechanism", None)
    if admit is not None:
        admit(name)
    try:
        entry = stage_entry(name)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    rounds = params.pop("rounds", 1)
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"{where}: rounds must be an integer >= 1, got {rounds!r}")
    allowed = entry.parameters()
    for key in params:
        if key not in allowed:
            raise ValueError(
                f"{where} ({name}): unknown parameter {key!r}"
                f"{did_you_mean(key, allowed + ['rounds'])}; a {name} stage takes "
                f"{', '.join(allowed)} and rounds"
            )
    missing = [k for k in entry.required() if k not in params]
    if missing:
        raise ValueError(f"{where} ({name}): a {name} stage needs {', '.join(missing)}")
    return ParsedStage(entry, params, rounds)


def compose_stages(
    stages: Sequence[Mapping[str, Any]], *, value_discretization_interval: float = DEFAULT_INTERVAL
) -> PLDAccountant:
    """A ``PLDAccountant`` holding every stage, each ``rounds`` times (the module docstring).

    Parameters
    ----------
    stages : sequence of mapping
        The ``[[stage]]`` tables, in the order run.
    value_discretization_interval : float, optional
        The grid spacing of every stage's PLD (default 1e-4).

    Returns
    -------
    PLDAccountant
        The composition; its bounds hold under each relation ``stage_relations(stages)`` names.

    Raises
    ------
    ValueError
        Naming the stage (1-based) and the key for an unknown mechanism or parameter (with the
        closest name), a missing parameter, a value the mechanism refuses, or stages whose analyses
        bound no neighbouring relation in common.
    """
    parsed = _parse_all(stages)
    _common_relations(parsed)
    accountant = PLDAccountant(value_discretization_interval=value_discretization_interval)
    for number, one in enumerate(parsed, start=1):
        try:
            pld = described_round(
                one.entry, one.parameters, accountant.value_discretization_interval
            )
        except (ValueError, TypeError) as exc:
            raise ValueError(f"stage {number} ({one.entry.name}): {exc}") from None
        accountant.compose(pld, one.rounds)
    return accountant


def stage_relations(stages: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """The neighbouring relations under which the composition of ``stages`` is certified.

    Parameters
    ----------
    stages : sequence of mapping
        The ``[[stage]]`` tables.

    Returns
    -------
    tuple of str
        The ``neighbouring.RELATIONS`` names every stage's analysis bounds.

    Raises
    ------
    ValueError
        If a stage is refused (``parse_stage``), or the stages bound no relation in common.
    """
    return _common_relations(_parse_all(stages))


def _parse_all(stages: Sequence[Mapping[str, Any]]) -> list[ParsedStage]:
    if isinstance(stages, Mapping) or not isinstance(stages, Sequence) or not stages:
        raise ValueError(
            "stages must be a non-empty list of tables such as "
            '{mechanism = "gaussian", sigma = 2.0, rounds = 10}'
        )
    return [parse_stage(stage, f"stage {n}") for n, stage in enumerate(stages, start=1)]


def _analysed_under(number: int, one: ParsedStage) -> str | None:
    try:
        return one.entry.analysed_under(one.parameters.get("relation"))
    except ValueError as exc:
        raise ValueError(f"stage {number} ({one.entry.name}): {exc}") from None


def _common_relations(parsed: Sequence[ParsedStage]) -> tuple[str, ...]:
    """``run_relations`` of the stages, or ValueError naming the first stage that leaves none in
    common with those before it and an earlier stage it shares none with."""
    analysed = [_analysed_under(number, one) for number, one in enumerate(parsed, start=1)]
    for j in range(len(analysed)):
        if run_relations(analysed[: j + 1]):
            continue
        i = next(i for i in range(j) if not run_relations([analysed[i], analysed[j]]))
        first, second = analysed[i], analysed[j]
        # a stage bounding every relation conflicts with none
        assert first is not None and second is not None
        raise ValueError(
            f"stage {i + 1} ({parsed[i].entry.name}) is analysed under {RELATION_WORDS[first]} "
            f"neighbours and stage {j + 1} ({parsed[j].entry.name}) under {RELATION_WORDS[second]}: no "
            "neighbouring relation is bounded by both in one step (a group of two records is not "
            "accounted); use stages analysed under one relation, or add/remove stages with "
            "replace-special ones (docs/neighbouring-relations.md)"
        )
    return run_relations(analysed)
