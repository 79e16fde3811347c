"""A calibration's arguments in the accountant's words: the targets under their synonyms, the
sampling rate's synonyms, an entry's string options bound to its factory, and the calibrated
parameter checked."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, cast

from .. import training
from ..base import validation as _validation
from ..base.elementwise import ArrayLike
from ..registry import AccountantEntry, Calibratable

TARGET_SYNONYMS = {"target_epsilon": "epsilon", "target_delta": "delta"}


def one_vocabulary(
    entry: AccountantEntry, parameter: Any, epsilon: Any, delta: Any, params: dict[str, Any]
) -> tuple[AccountantEntry, Any, ArrayLike, ArrayLike, dict[str, Any]]:
    """The calibration's arguments in the accountant's words: the targets under Opacus's and
    dp_accounting's names (target_epsilon, target_delta), the sampling rate's synonyms where the
    accountant takes ``sample_rate`` (``training.SAMPLE_RATE_SYNONYMS``), and an entry's hidden
    string options a grid cannot carry (the training classes' ``steps_per_epoch``) bound to its
    factory."""
    targets = _targets(entry, epsilon, delta, params)
    parameter, params = _sample_rate_words(entry, parameter, params)
    options = {
        k: params.pop(k)
        for k in [k for k in params if k in entry.hidden and isinstance(params[k], str)]
    }
    if options:
        entry = dataclasses.replace(entry, factory=functools.partial(entry.factory, **options))
    return (
        entry,
        parameter,
        cast(ArrayLike, targets["epsilon"]),
        cast(ArrayLike, targets["delta"]),
        params,
    )


def _targets(
    entry: AccountantEntry, epsilon: Any, delta: Any, params: dict[str, Any]
) -> dict[str, Any]:
    """The targets, each given once under its name or its synonym (moved out of ``params``); a
    missing one is refused, naming a misspelled target among the parameters."""
    targets = {"epsilon": epsilon, "delta": delta}
    for word, name in TARGET_SYNONYMS.items():
        if word in params:
            if targets[name] is not None:
                raise _validation.ParameterTypeError(
                    f"calibrate() got {name} twice (as {name!r} and {word!r})"
                )
            targets[name] = params.pop(word)
    missing = [name for name, value in targets.items() if value is None]
    if missing:
        # a misspelled target (``epsilom=``) sits among the parameters: name it
        strays = [k for k in params if k not in entry.parameters]
        typo = next(
            (
                f"; got {k!r}{hint}"
                for k in strays
                if (hint := _validation.did_you_mean(k, [*targets, *TARGET_SYNONYMS]))
            ),
            "",
        )
        raise _validation.ParameterTypeError(
            f"calibrate() needs the target {' and '.join(missing)} (or {', '.join('target_' + m for m in missing)})"
            + typo
        )
    return targets


def _sample_rate_words(
    entry: AccountantEntry, parameter: Any, params: dict[str, Any]
) -> tuple[Any, dict[str, Any]]:
    """The parameter and ``params`` with the sampling rate's synonyms moved onto ``sample_rate``
    where the accountant takes it (a rate given twice is refused)."""
    words = {w: n for w, n in training.SAMPLE_RATE_SYNONYMS.items() if n in entry.parameters}
    if not words:
        return parameter, params
    parameter = words.get(parameter, parameter) if isinstance(parameter, str) else parameter
    moved = _validation.synonyms(
        "calibrate", {k: v for k, v in params.items() if k in words}, words, []
    )
    twice = sorted(set(moved) & set(params))
    if twice:
        raise _validation.ParameterTypeError(
            f"calibrate() got {twice[0]} twice (under a synonym); give it once"
        )
    return parameter, {**{k: v for k, v in params.items() if k not in words}, **moved}


def calibrated_spec(entry: AccountantEntry, parameter: str, params: dict[str, Any]) -> Calibratable:
    if not isinstance(parameter, str):
        raise _validation.ParameterTypeError(
            f"parameter must be the name of a calibratable parameter of "
            f"{entry.name!r} ({', '.join(sorted(entry.calibratable)) or 'none'}), "
            f"got {_validation.describe(parameter)} ({type(parameter).__name__})"
        )
    if parameter not in entry.calibratable:
        can = ", ".join(sorted(entry.calibratable)) or "none"
        hint = _validation.did_you_mean(str(parameter), sorted(entry.calibratable))
        raise ValueError(
            f"accountant {entry.name!r} cannot calibrate {parameter!r}{hint}; parameter must be one of "
            f"the calibratable: {can}"
        )
    if parameter in params:
        raise ValueError(f"{parameter!r} is the calibrated parameter: do not also give it a value")
    unknown = sorted(set(params) - set(entry.parameters))
    if unknown:
        raise ValueError(
            f"accountant {entry.name!r} takes no parameter {', '.join(map(repr, unknown))}"
            f"{_validation.did_you_mean(unknown[0], entry.parameters)}; its parameters: {', '.join(entry.parameters)}"
        )
    missing = sorted(set(entry.required) - set(params) - {parameter})
    if missing:
        raise ValueError(f"accountant {entry.name!r} needs {', '.join(map(repr, missing))}")
    return entry.calibratable[parameter]
