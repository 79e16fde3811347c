"""The command line's words for the Python arguments the library's messages name: one table.

A refusal raised by the library tells a Python caller what to pass (``pass overwrite=True``); the
same refusal reaching the command line is printed with the flag or key that does it there
(``pass --force``).  Every error line and every warning line the command line prints goes through
``command_line_words``, and the phrases it rewrites are the keys of ``COMMAND_LINE_WORDS``, each the
exact Python phrase of a library message (tests/test_cli_errors.py runs every one through the
command line and through Python).  A Python phrase whose argument the command line does not offer
(``max_points``) maps to the advice that works there.
"""

from __future__ import annotations

import re

__all__ = ["COMMAND_LINE_WORDS", "COMPOSE_WORDS", "GRID_POINTS_REMEDY", "TRAINING_ARGUMENTS", "command_line_words"]

# The remedy the PLD composition gives when its window needs more grid points than max_points
# allows (cpp/bindings/register_pld_compose.cpp); Python callers set the module default.
GRID_POINTS_REMEDY = (
    "coarsen the grid (a larger value_discretization_interval or accuracy) or raise max_points "
    "(hockeystick.pld.compose.fft.DEFAULT_MAX_POINTS)"
)

# Python phrase -> the words of delta, epsilon, calibrate and sweep (accountant parameters as -p NAME=VALUE,
# which a sweep file's [parameters] table also takes).
COMMAND_LINE_WORDS: dict[str, str] = {
    "overwrite=True": "--force",
    "allow_large=True": "--allow-large",
    "resume=True": "--resume",
    "without resume": "without --resume",
    "out_dir": "--out-dir",
    "max_points=": "the memory allows ",  # "needs N grid points (max_points=M)"
    GRID_POINTS_REMEDY: "coarsen the grid: a larger -p value_discretization_interval=VALUE, or -p accuracy=VALUE "
    "(0.1 .. 1) where the accountant takes it ('hockeystick accountants' lists them)",
}

# hockeystick compose reads its grid from the compose file (value_discretization_interval; no accuracy).
COMPOSE_WORDS: dict[str, str] = {
    **COMMAND_LINE_WORDS,
    GRID_POINTS_REMEDY: "coarsen the grid: a larger value_discretization_interval in the compose file",
}


# A training run given in its own flags (--dataset-size ... --noise-multiplier): the training classes'
# argument names (hockeystick.training) are the flags' names with dashes.
TRAINING_ARGUMENTS = (
    "noise_multiplier",
    "dataset_size",
    "batch_size",
    "sample_rate",
    "epochs",
    "steps",
    "total_clients",
    "clients_per_round",
    "rounds",
    "sampling",
    "examples",
)


def command_line_words(message: str, command: str, *, training: bool = False, vectors: tuple[str, ...] = ()) -> str:
    """``message`` with each Python phrase of the table replaced by the command line's words for
    ``command`` (whole phrases only: ``overwrite=True`` inside ``my_overwrite=True`` stays, and so does
    ``out_dir`` inside ``out_dirs``); with ``training`` (the run was given by its training flags) the
    training classes' argument names become their flags, and so do ``vectors``, the vector options of the
    families the run names (``--buffer-decay``)."""
    words = dict(COMPOSE_WORDS if command == "compose" else COMMAND_LINE_WORDS)
    flagged = (TRAINING_ARGUMENTS if training else ()) + vectors
    words.update({name: "--" + name.replace("_", "-") for name in flagged})
    words.update({name + "=": "--" + name.replace("_", "-") + " " for name in vectors})  # "such as buffer_decay=0.9"
    for phrase in sorted(words, key=len, reverse=True):  # the longest first: a phrase may contain a shorter one
        before = r"(?<![\w-])" if phrase[0].isalnum() or phrase[0] == "_" else ""
        after = r"(?![\w=])" if phrase[-1].isalnum() or phrase[-1] == "_" else ""
        replacement = words[phrase]
        message = re.sub(before + re.escape(phrase) + after, lambda _: replacement, message)
    return message
