"""``--every`` on ``hockeystick epsilon`` / ``hockeystick delta``: one run's bound after every
epoch, or every N steps (rounds), and at its last step.

The run is given as usual (the training flags, or ``-a NAME`` with a ``rounds`` parameter), each
parameter one value; its length (steps, rounds, or epochs as the run counts them: ceil(dataset size
/ batch size) steps each, or 1 / q) is replaced by the list of checkpoints (the training run's
``checkpoints``, else ``pld.along_run.checkpoints``), so the points are a one-axis grid over the
run's steps, evaluated in one batch by the accountant (one discretization, every checkpoint a
composition of its own) and printed or written like any other grid: each point is the accountant's
one-off value at that many steps (``DPSGD(...).epsilon_curve``'s to the round-off charges of the
curve's shared transform).
"""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

from .common import UsageError

__all__ = ["along_run_options", "along_run_parameters"]

# the training accountants and the parameter that counts the run's steps
TRAINING_RUNS = {"dp_sgd": "steps", "dp_fedavg": "rounds"}


def along_run_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("along the run")
    group.add_argument(
        "--every",
        metavar="N|epoch",
        help="the bound after every N steps (rounds) of one run and at its last step, or after every epoch "
        "(--every epoch, a training run given in epochs or steps); one value per parameter. Each point is "
        "the value at that many steps; all are evaluated together (one discretization)",
    )


def along_run_parameters(
    names: list[str], params: dict[str, str], every: str, flags: dict[str, str] | None = None
) -> tuple[dict[str, str], int, np.ndarray | None]:
    """``params`` with the run's length replaced by its checkpoints (comma-separated steps), their
    count, and with ``--every epoch`` the epochs at each checkpoint (k at the end of epoch k, the
    run's steps over its steps per epoch at a last epoch cut short; None otherwise).  ``flags``: the
    flag that gave each parameter (``given_words``), else it is named as -p gives it."""
    entry, training, length = _run_accountant(names)
    numbers = _one_value_each(params, flags or {})
    stride = _stride(every)
    try:
        if (
            training is not None
        ):  # the run counts its steps and epochs (ceil(n / b), or 1 / q) itself
            steps, epochs = _training_checkpoints(entry, numbers, stride)
        else:
            steps, epochs = _rounds_checkpoints(numbers, length, stride), None
    except ValueError as error:
        raise UsageError(f"--every: {error}") from None
    out = {key: spec for key, spec in params.items() if key not in ("epochs", "steps", "rounds")}
    out[length] = ",".join(str(int(t)) for t in steps)
    return out, int(steps.size), epochs


def _run_accountant(names: list[str]) -> tuple[Any, str | None, str]:
    """The one accountant --every follows, its training run's name (None for another accountant),
    and the parameter counting its run (steps or rounds), which it must take."""
    from ..sweep import registry  # lazy: start-up time

    if len(names) != 1:
        raise UsageError(f"--every follows one run of one accountant, got {', '.join(names)}")
    name = names[0]
    entry = registry.get(name)
    from ..training.sampling_schemes import sampling_schemes  # the registered schemes

    base = next(
        (
            name.removesuffix(s.suffix)
            for s in sampling_schemes()
            if s.suffix and name.endswith(s.suffix)
        ),
        name,
    )
    training = TRAINING_RUNS.get(base)
    length = training if training is not None else "rounds"
    if length not in entry.parameters:
        raise UsageError(
            f"--every needs an accountant whose run has rounds; {name} takes no {length}"
        )
    return entry, training, length


def _one_value_each(params: dict[str, str], flags: dict[str, str]) -> dict[str, float]:
    """Each parameter's one value (a list or range is refused, named by the flag that gave it)."""
    from ..sweep.grid import Axis, parse_value  # lazy: start-up time

    numbers: dict[str, float] = {}
    for key, spec in params.items():
        value = parse_value(key, spec)
        if isinstance(value, Axis):
            written = flags.get(key, f"-p {key}")
            raise UsageError(f"--every follows one run: give one value of {written}, got {spec}")
        numbers[key] = value
    return numbers


def _stride(every: str) -> int | float | None:
    """--every N as a number of steps; None for --every epoch (a training run's checkpoints by
    default: each epoch's last step)."""
    if every.strip().lower() == "epoch":
        return None
    try:
        return int(every) if every.strip().isdigit() else float(every)
    except ValueError:
        raise UsageError(f"--every takes a whole number or 'epoch', got {every!r}") from None


def _training_checkpoints(
    entry: Any, numbers: dict[str, float], stride: int | float | None
) -> tuple[np.ndarray, np.ndarray | None]:
    """A training run's checkpoints: every ``stride`` steps (no epochs), or with ``stride`` None
    each epoch's last step and the epochs there: steps per epoch a / b (ceil(n / m) / 1, or 1 / q),
    epoch k ends at step ceil(k a / b)."""
    import numpy as np  # lazy: start-up time

    run = entry.build(
        **{key: value for key, value in numbers.items() if key not in ("epsilon", "delta")}
    )
    steps = run.checkpoints(every=stride)
    if stride is not None:
        return steps, None
    a, b = (float(np.ravel(x)[0]) for x in run.steps_per_epoch_ratio)
    whole = np.floor(steps * b / a + 1e-9)
    return steps, np.where(np.ceil(whole * a / b - 1e-9) == steps, whole, steps * b / a)


def _rounds_checkpoints(
    numbers: dict[str, float], length: str, stride: int | float | None
) -> np.ndarray:
    """Another accountant's checkpoints: every ``stride`` rounds of its run and its last round."""
    from ..pld.reads import checkpoints  # lazy: start-up time

    if stride is None:
        raise UsageError(
            "--every epoch needs a training run (--dataset-size and --batch-size, --sample-rate, or "
            "--total-clients and --clients-per-round); give --every N for a checkpoint every N steps"
        )
    return checkpoints(_run_length(numbers, length), every=stride)


def _run_length(numbers: dict[str, float], length: str) -> int:
    """The run's rounds, its ``length`` parameter (a whole number)."""
    if length not in numbers:
        raise UsageError(f"--every needs the run's length: give {length}")
    value = numbers[length]
    if not (value >= 1 and value == math.floor(value)):
        raise UsageError(f"{length} must be a whole number >= 1, got {value:g}")
    return int(value)
