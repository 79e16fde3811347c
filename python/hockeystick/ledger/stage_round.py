"""A stage of a ``hockeystick compose`` file as the ledger's round: the mechanisms the ledger records.

A compose stage is ``{"mechanism": NAME, "rounds": T, <parameters>}`` (``pld.accountants.stages``).  The
ledger records its Gaussian, Poisson-subsampled Gaussian and Laplace stages; the others (fixed-size and
with-replacement sampling, randomized response, discrete Laplace, subsampled Laplace) have no RDP curve in the
ledger and are refused by name.  A ``sensitivity`` s is folded into the round's noise: sigma / s (or scale / s),
rounded down, so the round's loss is at least the stage's and every bound on it stays certified.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..base.validation import count, describe, did_you_mean
from ..pld.accountants.stages import MECHANISM_CONSTRUCTORS

__all__ = ["STAGE_MECHANISMS", "stage_parameters"]

# compose stage mechanism -> (its noise parameter, the other parameters the ledger's round takes)
STAGE_MECHANISMS: dict[str, tuple[str, tuple[str, ...]]] = {
    "gaussian": ("sigma", ()),
    "subsampled_gaussian": ("sigma", ("sampling_rate",)),
    "laplace": ("scale", ()),
}
_ALIASES = {"sampling_probability": "sampling_rate", "noise_multiplier": "sigma"}
_DISCRETIZATION = ("tail",)  # the compose file's PLD settings, not the mechanism's


def _noise_over_sensitivity(noise: Any, sensitivity: Any, name: str) -> Any:
    """noise / sensitivity rounded down, checked in exact rational arithmetic (the round's loss at least the
    stage's); noise itself at sensitivity 1."""
    if sensitivity is None or sensitivity == 1:
        return noise
    if not isinstance(noise, (int, float)) or isinstance(noise, bool):
        return noise  # Round's own check names it
    if isinstance(sensitivity, bool) or not isinstance(sensitivity, (int, float)):
        raise ValueError(f"sensitivity must be a finite number > 0, got {describe(sensitivity)}")
    if not (math.isfinite(sensitivity) and sensitivity > 0):
        raise ValueError(f"sensitivity must be a finite number > 0, got {describe(sensitivity)}")
    quotient = float(noise) / float(sensitivity)
    if Fraction(quotient) * Fraction(float(sensitivity)) <= Fraction(float(noise)):
        return quotient  # at or below the exact quotient already
    return math.nextafter(quotient, 0.0)


def stage_parameters(stage: Any) -> tuple[str, dict[str, Any], int]:
    """(the round's mechanism, its parameters, the stage's rounds) of one compose stage.

    Parameters
    ----------
    stage : mapping
        One ``[[stage]]`` table.

    Returns
    -------
    tuple
        (mechanism, keyword parameters of ``Round``, rounds).

    Raises
    ------
    ValueError
        If ``stage`` is not a mapping, its mechanism is not one the ledger records, or a parameter is unknown,
        missing or out of range.
    """
    if not isinstance(stage, Mapping):
        raise ValueError(f"a stage must be a table of name = value, got {describe(stage)}")
    params = {_ALIASES.get(str(k), str(k)): v for k, v in stage.items()}
    name = params.pop("mechanism", None)
    if name not in STAGE_MECHANISMS:
        known = f"; compose also takes {', '.join(n for n in MECHANISM_CONSTRUCTORS if n not in STAGE_MECHANISMS)}"
        raise ValueError(
            f"the ledger records stages of {', '.join(STAGE_MECHANISMS)}, got mechanism={describe(name)}{known}, "
            "which have no Rényi curve in the ledger: compose such a run with hockeystick compose"
            + (did_you_mean(name, list(STAGE_MECHANISMS)) if isinstance(name, str) else "")
        )
    rounds = count(params.pop("rounds", 1), "rounds")
    noise, others = STAGE_MECHANISMS[name]
    for key in _DISCRETIZATION:
        params.pop(key, None)
    sensitivity = params.pop("sensitivity", None)
    allowed = (noise, *others)
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise ValueError(
            f"a {name} stage takes {', '.join(allowed)}, sensitivity and rounds, got {', '.join(unknown)}"
            + did_you_mean(unknown[0], [*allowed, "sensitivity", "rounds"])
        )
    missing = [key for key in allowed if key not in params]
    if missing:
        raise ValueError(f"a {name} stage needs {', '.join(missing)}")
    params[noise] = _noise_over_sensitivity(params[noise], sensitivity, noise)
    if name == "subsampled_gaussian" and params["sampling_rate"] == 1:
        name = "gaussian"
        del params["sampling_rate"]
    return name, params, rounds
