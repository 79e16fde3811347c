"""The flags a subcommand's mode never reads, refused by name.

``hockeystick delta``, ``epsilon`` and ``calibrate`` answer in one of several modes: a grid (the
default), one DP-FTRL point under ``--participation`` (its Monte Carlo estimate only on ``delta``
with ``balls_in_bins``), or ``calibrate --fixed-compute``'s table; ``hockeystick risk`` prints the
TPR at ``--fpr`` or, with ``--gdp``, the mu-GDP bracket.  Each mode reads its own flags: a flag of
another mode would be silently ignored, so any explicit use of it (even at its default value, which
does nothing there either) is refused naming the flag, the mode it belongs to and the mode given.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from .common import GIVEN, UsageError

# check_unread is the command line's own step (``main`` runs it): no public name
__all__: list[str] = []


@dataclass(frozen=True)
class _Rule:
    """Flags (by destination) of ``commands`` that are read only where ``read(args)`` holds."""

    commands: frozenset[str]
    dests: tuple[str, ...]
    read: Callable[[argparse.Namespace], bool]
    belongs: str


def _no_participation(args: argparse.Namespace) -> bool:
    return args.participation is None


def _grid_calibration(args: argparse.Namespace) -> bool:
    return args.participation is None and not args.fixed_compute


def _monte_carlo(args: argparse.Namespace) -> bool:
    return args.command == "delta" and args.participation == "balls_in_bins"


def _monte_carlo_drawn(args: argparse.Namespace) -> bool:
    return _monte_carlo(args) and args.monte_carlo_draws != 0


# the grid's output settings: one --participation point is printed, never written or summarized
_GRID_OUTPUT = ("out", "plot", "chunk_size", "force", "resume", "allow_large")
_EVALUATE = frozenset({"delta", "epsilon"})
_CALIBRATE = frozenset({"calibrate"})

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
)

# the flags that take no value (argparse's store_true and store_false): given when not at their
# default; the others are in ``GIVEN`` as typed
_SWITCHES = {
    "fixed_compute": "--fixed-compute",
    "force": "--force",
    "resume": "--resume",
    "allow_large": "--allow-large",
}


def _typed(args: argparse.Namespace, dest: str) -> str | None:
    """The flag that gave ``dest`` on this command line, as typed, or None where none did."""
    given = getattr(args, GIVEN, {})
    if dest in given:
        return str(given[dest][0])
    if dest in _SWITCHES and getattr(args, dest, False):
        return _SWITCHES[dest]
    if dest == "progress" and getattr(args, "progress", None) is not None:
        return "--progress" if args.progress else "--no-progress"
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
                raise UsageError(
                    f"{flag} belongs to {rule.belongs}; {_mode(args)} never reads it: drop it"
                )
