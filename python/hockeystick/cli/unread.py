"""The flags a subcommand's mode never reads, refused by name.

``hockeystick delta``, ``epsilon`` and ``calibrate`` answer in one of several modes: a grid (the
default), one DP-FTRL point under ``--participation`` (its Monte Carlo estimate only on ``delta``
with ``balls_in_bins``), or ``calibrate --fixed-compute``'s table; ``hockeystick risk`` prints the
TPR at ``--fpr`` or, with ``--gdp``, the mu-GDP bracket, to stdout in ``--format`` or to ``-o FILE``
in its suffix's format; a grid prints at most ``--max-rows`` points, every point with ``-o -``;
``sweep`` runs a grid or, with ``--example``, the built-in example (on a
LocalCluster of ``--workers`` or on ``--scheduler``'s cluster); ``compose`` prints the whole run's
bracket or, with ``--every``/``--budget``, both sides along the run; ``simulate`` runs in-process,
on ``--processes`` or on ``--dask`` (a LocalCluster of ``--workers`` with ``local``).  ``--force``
replaces a file only where one is written (``-o FILE``, ``--plot PNG``, ``--example``'s directory).
Each mode reads its own flags: a flag of another mode would be silently ignored, so any explicit use
of it (even at its default value, which does nothing there either) is refused naming the flag, the
mode it belongs to and the mode given.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from .common import GIVEN, MATRIX_FLAGS, TRAINING_FLAGS, UsageError

# check_unread is the command line's own step (``main`` runs it): no public name
__all__: list[str] = []


@dataclass(frozen=True)
class _Rule:
    """Flags (by destination) of ``commands`` that are read only where ``read(args)`` holds."""

    commands: frozenset[str]
    dests: tuple[str, ...]
    read: Callable[[argparse.Namespace], bool]
    belongs: str
    # the mode given, in its flags (after 'hockeystick COMMAND'); None: ``_mode``'s words
    given: Callable[[argparse.Namespace], str] | None = None


def _no_participation(args: argparse.Namespace) -> bool:
    return args.participation is None


def _grid_calibration(args: argparse.Namespace) -> bool:
    return args.participation is None and not args.fixed_compute


def _monte_carlo(args: argparse.Namespace) -> bool:
    return args.command == "delta" and args.participation == "balls_in_bins"


def _monte_carlo_drawn(args: argparse.Namespace) -> bool:
    return _monte_carlo(args) and args.monte_carlo_draws != 0


def _writes_file(args: argparse.Namespace) -> bool:
    """A file --force may replace: -o FILE (not stdout), --plot PNG, or sweep --example's files."""
    return (
        getattr(args, "out", None) not in (None, "-")
        or getattr(args, "plot", None) is not None
        or getattr(args, "example", False)
    )


def _along_run(args: argparse.Namespace) -> bool:
    return args.every is not None or args.budget is not None


def _along_words(args: argparse.Namespace) -> str:
    given = (("--every", args.every), ("--budget", args.budget))
    return " ".join(f"{flag} {value}" for flag, value in given if value is not None)


def _dask_words(args: argparse.Namespace) -> str:
    return f"--dask {args.dask}" if args.dask is not None else "without --dask"


# the grid's output settings: one --participation point is printed, never written or summarized
_GRID_OUTPUT = ("out", "plot", "chunk_size", "force", "resume", "allow_large")
_EVALUATE = frozenset({"delta", "epsilon"})
_CALIBRATE = frozenset({"calibrate"})
# a sweep of a grid's flags, which --example (its own grid, files and pictures) never reads
_SWEEP_GRID = (
    "config",
    "accountant",
    "param",
    "epsilon",
    "delta",
    "bound",
    "quantity",
    *(f"run_{flag.replace('-', '_')}" for flag in TRAINING_FLAGS),
    "sampling",
    *(f"matrix_{flag.replace('-', '_')}" for flag in MATRIX_FLAGS),
    "out",
    "plot",
    "chunk_size",
    "resume",
    "allow_large",
    "format",
    *(f"picture_{role}" for role in ("x", "y", "hue", "facet", "slice", "kind")),
    "levels",
    "workers",
    "scheduler",
)

_RULES = (
    _Rule(
        _EVALUATE | _CALIBRATE,
        ("monte_carlo_draws",),
        _monte_carlo,
        "hockeystick delta --participation balls_in_bins (the Monte Carlo estimate of its delta, Choquette-Choo "
        "et al. 2024)",
    ),
    _Rule(
        _EVALUATE | _CALIBRATE,
        ("beta", "seed"),
        _monte_carlo_drawn,
        "--monte-carlo-draws N of hockeystick delta --participation balls_in_bins",
    ),
    _Rule(
        _EVALUATE,
        ("every", "bound", "max_rows", "progress", *_GRID_OUTPUT),
        _no_participation,
        "a grid's evaluation (without --participation)",
    ),
    _Rule(
        _CALIBRATE,
        ("fixed_compute", "progress", "out", "plot"),
        _no_participation,
        "a calibration without --participation",
    ),
    _Rule(
        _CALIBRATE,
        ("examples",),
        _no_participation,
        "--fixed-compute (without --participation)",
    ),
    _Rule(
        _CALIBRATE,
        ("bound", "max_rows", "chunk_size", "force", "resume", "allow_large"),
        _grid_calibration,
        "a grid's calibration (without --participation or --fixed-compute)",
    ),
    _Rule(
        _CALIBRATE,
        ("parameter",),
        lambda args: not args.fixed_compute,
        "a calibration without --fixed-compute (which solves for the noise multiplier)",
    ),
    _Rule(
        frozenset({"risk"}),
        ("direction", "bound"),
        lambda args: not args.gdp,
        "the TPR at --fpr (without --gdp)",
    ),
    _Rule(
        _EVALUATE | _CALIBRATE,
        ("max_rows",),
        lambda args: args.out != "-",
        "the rows printed without -o - (which prints every point)",
        lambda args: "-o -",
    ),
    _Rule(
        frozenset({"risk"}),
        ("format",),
        lambda args: args.out is None,
        "rows printed to stdout (without -o, whose FILE's suffix chooses the format)",
        lambda args: f"-o {args.out}",
    ),
    _Rule(
        frozenset({"sweep"}),
        _SWEEP_GRID,
        lambda args: not args.example,
        "a sweep of a grid (without --example, which sweeps its own grid to its own files)",
        lambda args: "--example",
    ),
    _Rule(
        frozenset({"sweep"}),
        ("out_dir",),
        lambda args: args.example,
        "--example (the directory it writes)",
        lambda args: "without --example",
    ),
    _Rule(
        frozenset({"sweep"}),
        ("workers",),
        lambda args: args.scheduler is None,
        "a LocalCluster's sweep (without --scheduler, whose cluster has its own workers)",
        lambda args: f"--scheduler {args.scheduler}",
    ),
    _Rule(
        frozenset({"simulate"}),
        ("workers",),
        lambda args: args.dask == "local",
        "--dask local (the LocalCluster's workers)",
        _dask_words,
    ),
    _Rule(
        frozenset({"simulate"}),
        ("processes",),
        lambda args: args.dask is None,
        "runs on this machine's processes (without --dask)",
        _dask_words,
    ),
    _Rule(
        frozenset({"compose"}),
        ("bound",),
        lambda args: not _along_run(args),
        "the whole run's bracket (without --every or --budget, which print both sides along the run)",
        _along_words,
    ),
    _Rule(
        _EVALUATE | _CALIBRATE | frozenset({"sweep", "risk", "audit"}),
        ("force",),
        _writes_file,
        "a file written (-o FILE or --plot PNG), which it replaces",
        lambda args: "writing no file",
    ),
)

# the flags that take no value (argparse's store_true and store_false): given when not at their
# default; the repeatable flags (argparse's append) and the positional word: given when they hold a
# value; the others are in ``GIVEN`` as typed
_SWITCHES = {
    "fixed_compute": "--fixed-compute",
    "force": "--force",
    "resume": "--resume",
    "allow_large": "--allow-large",
}
_REPEATED = {"accountant": "-a", "param": "-p", "picture_slice": "--slice"}


def _typed(args: argparse.Namespace, dest: str) -> str | None:
    """The flag that gave ``dest`` on this command line, as typed, or None where none did."""
    given = getattr(args, GIVEN, {})
    if dest in given:
        return str(given[dest][0])
    if dest in _SWITCHES and getattr(args, dest, False):
        return _SWITCHES[dest]
    if dest == "progress" and getattr(args, "progress", None) is not None:
        return "--progress" if args.progress else "--no-progress"
    if dest in _REPEATED and getattr(args, dest, None):
        return _REPEATED[dest]
    if dest == "config" and getattr(args, "config", None) is not None:
        return f"FILE|NAME {args.config}"
    return None


def _mode(args: argparse.Namespace) -> str:
    """The mode the command line gave, in its flags: 'hockeystick calibrate --sampling poisson'."""
    words = [f"hockeystick {args.command}"]
    if getattr(args, "participation", None) is not None:
        words.append(f"--participation {args.participation}")
    elif getattr(args, "fixed_compute", False):
        words.append("--fixed-compute")
    elif getattr(args, "gdp", False):
        words.append("--gdp")
    elif getattr(args, "sampling", None) is not None:
        words.append(f"--sampling {args.sampling}")
    return " ".join(words)


def check_unread(args: argparse.Namespace) -> None:
    """Refuse a flag the mode of ``args`` never reads (``_RULES``), naming it and the mode it belongs to.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Raises
    ------
    UsageError
        A flag given where its subcommand's mode does not read it.
    """
    for rule in _RULES:
        if args.command not in rule.commands or rule.read(args):
            continue
        for dest in rule.dests:
            flag = _typed(args, dest)
            if flag is not None:
                mode = (
                    _mode(args)
                    if rule.given is None
                    else f"hockeystick {args.command} {rule.given(args)}"
                )
                raise UsageError(
                    f"{flag} belongs to {rule.belongs}; {mode} never reads it: drop it"
                )
