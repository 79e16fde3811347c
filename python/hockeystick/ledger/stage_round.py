"""A stage of a ``hockeystick compose`` file as the ledger's round: the mechanisms the ledger records.

A compose stage is ``{"mechanism": NAME, "rounds": T, <parameters>}``, read by the one stage parser
(``pld.accountants.stages.parse_stage``).  The ledger records the stages whose registered mechanism
has a round of its name (``StageEntry.round_noise``: the Gaussian, the Poisson-subsampled Gaussian
and the Laplace mechanism, each with its Rényi curve); the others are refused by name.  A
``sensitivity`` s is folded into the round's noise: sigma / s (or scale / s), rounded down, so the
round's loss is at least the stage's and every bound on it stays certified.
"""

from __future__ import annotations

import math
from typing import Any

from ..base.validation import describe, did_you_mean
from ..pld.accountants import STAGE_ALIASES, parse_stage
from ..pld.mechanisms import noise_over_sensitivity, stage_entry, stage_names

__all__ = ["recorded_stages", "stage_parameters"]

_ALIASES = {**STAGE_ALIASES, "noise_multiplier": "sigma"}
_DISCRETIZATION = ("tail",)  # the compose file's PLD settings, not the mechanism's


def recorded_stages() -> tuple[str, ...]:
    """The compose stage mechanisms the ledger records: those registered with a round of their name
    or with their Rényi curve (``StageEntry.round_noise``, ``StageEntry.rdp``).

    Returns
    -------
    tuple of str
        Their names, sorted.
    """
    return tuple(
        n
        for n in stage_names()
        if stage_entry(n).round_noise is not None or stage_entry(n).rdp is not None
    )


def _noise_over_sensitivity(noise: Any, sensitivity: Any, name: str) -> Any:
    """noise / sensitivity rounded down, checked in exact rational arithmetic (the round's loss at
    least the stage's); noise itself at sensitivity 1."""
    if sensitivity is None or sensitivity == 1:
        return noise
    if not isinstance(noise, (int, float)) or isinstance(noise, bool):
        return noise  # Round's own check names it
    if isinstance(sensitivity, bool) or not isinstance(sensitivity, (int, float)):
        raise ValueError(f"sensitivity must be a finite number > 0, got {describe(sensitivity)}")
    if not (math.isfinite(sensitivity) and sensitivity > 0):
        raise ValueError(f"sensitivity must be a finite number > 0, got {describe(sensitivity)}")
    return noise_over_sensitivity(float(noise), float(sensitivity))


def _admit(name: Any) -> None:
    """Refuse, before its parameters are read, a stage whose mechanism the ledger does not record."""
    recorded = recorded_stages()
    if name in recorded:
        return
    others = [n for n in stage_names() if n not in recorded]
    raise ValueError(
        f"the ledger records stages of {', '.join(recorded)}, got mechanism={describe(name)}; compose "
        f"also takes {', '.join(others)}, which have no Rényi curve in the ledger: compose such a run "
        "with hockeystick compose"
        + (did_you_mean(name, list(recorded)) if isinstance(name, str) else "")
    )


def stage_parameters(stage: Any) -> tuple[str, dict[str, Any], int]:
    """(the round's mechanism, its parameters, the stage's rounds) of one compose stage.

    Parameters
    ----------
    stage : mapping
        One ``[[stage]]`` table.

    Returns
    -------
    tuple
        (mechanism, keyword parameters of its ``Round`` constructor of that name, rounds).

    Raises
    ------
    ValueError
        If ``stage`` is not a mapping, its mechanism is not one the ledger records, or a parameter
        is unknown, missing or out of range.
    """
    parsed = parse_stage(stage, "a stage", aliases=_ALIASES, admit=_admit)
    name, params, noise = parsed.entry.name, dict(parsed.parameters), parsed.entry.round_noise
    if (
        noise is None
    ):  # a mechanism registered with its Rényi curve: the round holds the stage's parameters
        return name, params, parsed.rounds
    for key in _DISCRETIZATION:
        params.pop(key, None)
    sensitivity = params.pop("sensitivity", None)
    params[noise] = _noise_over_sensitivity(params[noise], sensitivity, noise)
    return name, params, parsed.rounds
