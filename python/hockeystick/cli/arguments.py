"""The command line's words for the Python arguments the library's messages name: one table.

A refusal raised by the library tells a Python caller what to pass (``pass overwrite=True``); the
same refusal reaching the command line is printed with the flag or key that does it there
(``pass --force``).  Every error line and every warning line the command line prints goes through
``command_line_words``, and the phrases it rewrites are the keys of ``COMMAND_LINE_WORDS``, each the
exact Python phrase of a library message (tests/cli/test_cli_errors.py runs every one through the
command line and through Python).  A Python phrase whose argument the command line does not offer
(``max_points``) maps to the advice that works there.
"""

from __future__ import annotations

import argparse
import re

__all__ = [
    "COMMAND_LINE_WORDS",
    "COMPOSE_WORDS",
    "GRID_POINTS_REMEDY",
    "PASSED",
    "RENAMED",
    "TRAINING_ARGUMENTS",
    "command_line_words",
    "flag_table",
    "given_words",
    "python_name",
]

# The remedy the PLD composition gives when its window needs more grid points than max_points
# allows (cpp/bindings/register_pld_compose.cpp); Python callers set the module default.
GRID_POINTS_REMEDY = (
    "coarsen the grid (a larger value_discretization_interval or accuracy) or raise max_points "
    "(hockeystick.pld.compose.fft.DEFAULT_MAX_POINTS)"
)

# Python phrase -> the words of delta, epsilon, calibrate and sweep (accountant parameters as -p
# NAME=VALUE, which a sweep file's [parameters] table also takes).
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

# hockeystick compose reads its grid from the compose file (value_discretization_interval; no
# accuracy).
COMPOSE_WORDS: dict[str, str] = {
    **COMMAND_LINE_WORDS,
    GRID_POINTS_REMEDY: "coarsen the grid: a larger value_discretization_interval in the compose file",
}


# A training run given in its own flags (--dataset-size ... --noise-multiplier): the training
# classes' argument names (hockeystick.training) are the flags' names with dashes.
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
    "clipped_count_stddev",
    "examples_per_user",
)

# The grid's keywords a library message suggests as ``NAME=`` (``pass accuracy= (e.g.
# accuracy=1e-3)``): their flags beside the training flags, read so where the run was given by them.
TRAINING_GRID_ARGUMENTS = ("accuracy", "tail")


# The flags whose values reach the library under their own names (run_NAME and matrix_NAME are the
# training and matrix flags): a library message names the Python argument, and a refusal of it read
# on the command line names the flag as typed.  The others (--format, --out, --quantity, ...) are
# the command line's own settings, whose words (format, output) a message may use in other senses;
# they are named through ``RENAMED``.
PASSED = ("epsilon", "delta", "fpr", "examples", "sensitivity", "parameter")

# Library phrases about a value given by a flag under another name: phrase -> (the command line's
# words, {flags} standing for the flags as typed, and the destinations of the flags that give it).
RENAMED: dict[str, tuple[str, tuple[str, ...]]] = {
    "batch_sizes": (
        "{flags}",
        ("run_batch_size",),
    ),  # calibrate_fixed_compute's list of --batch-size
    "fprs": ("{flags}", ("fpr",)),
    "strategy must": (
        "{flags} must",
        ("matrix_coefficients", "matrix_buffer_decay", "matrix_output_scale"),
    ),
    "sensitivity must": (
        "the strategy's sensitivity (from {flags}) must",
        ("matrix_coefficients", "matrix_buffer_decay", "matrix_output_scale"),
    ),
    "output '": ("{flags} '", ("out",)),  # the result file (a sweep's writer)
    "output must": ("{flags} must", ("quantity",)),  # the sweep's output column (-q)
    "output must end": ("{flags} must end", ("out",)),  # simulate's rows file
    "direction must": ("{flags} must", ("direction",)),  # risk's and audit's --direction
    "score_column must": (
        "{flags} must",
        ("score_column",),
    ),  # audit's --score-column (read_csv's argument)
    "label_column must": ("{flags} must", ("label_column",)),  # audit's --label-column
}


def python_name(dest: str) -> str:
    """The library's argument name for a flag's destination: the run's and the matrix mechanism's
    flags are stored as ``run_NAME`` and ``matrix_NAME`` (``--noise-multiplier`` is
    ``noise_multiplier``)."""
    for prefix in ("run_", "matrix_"):
        if dest.startswith(prefix):
            return dest[len(prefix) :]
    return dest


def _passed(dest: str) -> bool:
    return dest.startswith(("run_", "matrix_")) or dest in PASSED


def flag_table(parser: argparse.ArgumentParser) -> dict[str, dict[str, str]]:
    """Every subcommand's table of the library's words and the flags that give their values, read
    from the parsers (so it follows every flag added): {command: {Python name or phrase: flag}}, a
    flag by its first long spelling.  ``given_words`` reads the same table for the flags one command
    line gave."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    table = {}
    for command, sub in commands.items():
        spelled = {
            a.dest: next((o for o in a.option_strings if o.startswith("--")), a.option_strings[0])
            for a in sub._actions
            if a.option_strings and a.nargs != 0
        }
        table[command] = given_words({dest: (flag, "") for dest, flag in spelled.items()})
    return table


def given_words(given: dict[str, tuple[str, str]]) -> dict[str, str]:
    """The library's words for the flags a command line gave (``{dest: (flag as typed, value)}``)
    and the command line's: a refusal of ``delta`` reads ``--delta`` (``--target-delta``, as
    typed)."""
    words = {python_name(dest): flag for dest, (flag, _) in given.items() if _passed(dest)}
    for phrase, (template, sources) in RENAMED.items():
        flags = [given[d][0] for d in sources if d in given]
        if flags:
            words[phrase] = template.format(flags=" / ".join(flags))
    return words


def command_line_words(
    message: str,
    command: str,
    *,
    training: bool = False,
    vectors: tuple[str, ...] = (),
    flags: dict[str, str] | None = None,
) -> str:
    """``message`` with each Python phrase of the table replaced by the command line's words for
    ``command`` (whole phrases only: ``overwrite=True`` inside ``my_overwrite=True`` stays, and so
    does ``out_dir`` inside ``out_dirs``); with ``training`` (the run was given by its training
    flags) the training classes' argument names become their flags, and so do ``vectors``, the
    vector options of the families the run names (``--buffer-decay``), and ``flags``' Python names
    (``given_words``: the flags the command line gave), each ``NAME=`` too (``delta='abc'`` reads
    ``--delta 'abc'``)."""
    words = _phrase_table(command, training, vectors, flags or {})
    for phrase in sorted(
        words, key=len, reverse=True
    ):  # the longest first: a phrase may contain a shorter one
        message = _replace_phrase(message, phrase, words[phrase])
    return message


def _phrase_table(
    command: str, training: bool, vectors: tuple[str, ...], flags: dict[str, str]
) -> dict[str, str]:
    """Python phrase -> the command line's words for ``command``: the table, the training flags
    (with ``training``), the vector options and the flags given, each ``NAME=`` too
    (``command_line_words``)."""
    words = dict(COMPOSE_WORDS if command == "compose" else COMMAND_LINE_WORDS)
    flagged = (TRAINING_ARGUMENTS if training else ()) + vectors
    words.update({name: "--" + name.replace("_", "-") for name in flagged})
    words.update(
        {name + "=": "--" + name.replace("_", "-") + " " for name in vectors}
    )  # "such as buffer_decay=0.9"
    if training:  # "pass accuracy= (e.g. accuracy=1e-3)": the run's grid keywords as its flags
        words.update({name + "=": "--" + name + " " for name in TRAINING_GRID_ARGUMENTS})
    for name, flag in flags.items():
        words[name] = flag
        if name.isidentifier():
            words[name + "="] = flag + " "
    return words


def _replace_phrase(message: str, phrase: str, replacement: str) -> str:
    """``message`` with each whole ``phrase`` (not inside a longer word or name) read as ``replacement``."""
    before = r"(?<![\w-])" if phrase[0].isalnum() or phrase[0] == "_" else ""
    after = r"(?![\w=])" if phrase[-1].isalnum() or phrase[-1] == "_" else ""
    if phrase.endswith("=") and replacement.startswith("--"):
        before += r"(?<!-p )"  # "-p accuracy=VALUE", the command line's own words, stays
        bare = replacement.rstrip()  # "NAME= " and "NAME=)" name the flag alone
        message = re.sub(before + re.escape(phrase) + r"(?=[\s,;:)]|$)", lambda _: bare, message)
    return re.sub(before + re.escape(phrase) + after, lambda _: replacement, message)
