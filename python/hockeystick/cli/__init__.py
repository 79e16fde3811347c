"""The ``hockeystick`` command line: sweeps, calibration, single guarantees, figures.

    hockeystick sweep --example                  the README's main job (writes ./hockeystick-out/)
    hockeystick sweep grid.toml -o sweep.csv
    hockeystick calibrate -a gaussian --epsilon 1 --delta 1e-5 -p rounds=1,10,100,1000
    hockeystick delta -a gaussian -p sigma=2 -p rounds=100 --epsilon 1
    hockeystick epsilon -a gaussian -p sigma=2 -p rounds=100 --delta 1e-5
    hockeystick epsilon gaussian -p sigma=2 -p rounds=100 --delta 1e-5       (the same)
    hockeystick epsilon dp_ftrl_banded --coefficients 1,0.6,0.3 --rounds 100 --noise-multiplier 1 \\
        --min-separation 50 --delta 1e-6
    hockeystick risk gaussian -p sigma=1 -p rounds=10 --fpr 0.01
    hockeystick accountants                      what -a accepts, with each one's parameters

The accountant of epsilon, delta, calibrate, sweep and risk is -a NAME or the NAME after the
subcommand (hockeystick epsilon NAME ... is hockeystick epsilon -a NAME ...; a sweep's word is its
sweep file when it is a file's path).  A family (dp_ftrl_blt, dp_ftrl_banded, amplified_banded_mf)
takes its strategy's vectors as flags, --buffer-decay, --output-scale, --coefficients: one list
each, never a grid axis.

Parameters are NAME=VALUE where VALUE is a number (fixed), a list 1,2,4, or a range
log:START:STOP:NUM / linear:START:STOP:NUM (an axis of the grid).  Files are never replaced unless
--force; a killed sweep continues with --resume; a sweep of 10^9 points or more, above the free disk
space or 12 hours estimated needs --allow-large.  Exit status: 0 on success, 2 for bad input or a
missing optional dependency (one line on stderr saying what to change, such as pip install
"hockeystick[dask]"; --debug for the traceback), 1 when the run itself fails, 130 when interrupted
(143 on SIGTERM).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import signal
import sys
import threading
import warnings
from collections.abc import Sequence
from typing import Any

from .. import __version__
from ..base.optional import MissingExtraError, extra_of
from .arguments import command_line_words, given_words
from .common import (
    EXIT_FAILURE,
    EXIT_USAGE,
    GIVEN,
    PROG,
    LiteralUsageError,
    Parser,
    UsageError,
    _families,
    check_domains,
)
from .unread import check_unread

__all__ = ["main", "build_parser", "EXIT_USAGE", "EXIT_FAILURE"]

# Each subcommand's module (below this package), exposing register(subparsers) for the commands it
# names; the order is the order of --help.  A command line naming its subcommand imports that module
# alone and builds its parser alone (``build_parser(command)``).
SUBCOMMANDS = {
    "sweep": "sweep",
    "delta": "evaluate",
    "epsilon": "evaluate",
    "calibrate": "calibrate",
    "risk": "risk",
    "audit": "audit",
    "compose": "compose",
    "plot": "plot",
    "simulate": "simulate",
    "figures": "figures",
    "accountants": "accountants",
    "demo": "demo",
}

# the options the top-level parser takes before COMMAND without ending the line (--help and
# --version print the top-level parser's words: those lines build every subcommand)
_BEFORE_COMMAND = frozenset({"--debug"})


class _Terminated(BaseException):
    """SIGTERM, turned into an exception so that a sweep keeps its finished chunks and says so."""


def _asked_command(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` runs, when its first word after the top-level options (--debug) names
    one; None for a line the top-level parser answers (--help, --version, a misspelled command)."""
    for word in argv:
        if word in SUBCOMMANDS:
            return word
        if word not in _BEFORE_COMMAND:
            return None
    return None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser: every subcommand's, or ``command``'s alone.

    Parameters
    ----------
    command : str or None, optional
        A subcommand (a key of ``SUBCOMMANDS``): the parser holds it (and the others its module
        registers) alone, importing no other subcommand's module; None (the default): every
        subcommand, as --help lists them.

    Returns
    -------
    argparse.ArgumentParser
        The top-level parser, its subcommands' parsers below it.

    Raises
    ------
    KeyError
        If ``command`` is no subcommand.
    """
    modules = dict.fromkeys(SUBCOMMANDS.values()) if command is None else (SUBCOMMANDS[command],)
    # the module's docstring is the help, read on a terminal: its literals without their reST quotes
    description = (__doc__ or "").replace("``", "")
    parser = Parser(
        prog=PROG, description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS,
        help="show the traceback of an error",
    )
    subparsers = _Subcommands(
        parser.add_subparsers(
            dest="command", required=True, metavar="COMMAND", parser_class=Parser
        ),
        common,
    )
    for module in modules:
        importlib.import_module(f"{__name__}.{module}").register(subparsers)
    return parser


class _Subcommands:
    """``add_subparsers()``'s action, giving every subcommand the shared options (--debug)."""

    def __init__(self, action: Any, common: argparse.ArgumentParser) -> None:
        self.action, self.common = action, common

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = self.action.add_parser(
            name, parents=[self.common], **kwargs
        )
        return parser


def _one_line(exc: BaseException, args: argparse.Namespace) -> str:
    """The message on one line, in the command line's words (cli/arguments.py), the training flags'
    where the run was given by them (a ``LiteralUsageError`` as written)."""
    if isinstance(exc, LiteralUsageError):
        return " ".join(str(exc).split()) or type(exc).__name__
    training = any(
        getattr(args, f"run_{name}", None) is not None
        for name in ("dataset_size", "total_clients", "sample_rate")
    )
    library = not isinstance(exc, UsageError)  # a UsageError is in the command line's words already
    vectors = (
        tuple(sorted({v for entry in _families(args) for v in entry.vectors}))
        if library and hasattr(args, "accountant")
        else ()
    )
    # a library's refusal names its Python arguments: those the command line gave by flags read as
    # the flags
    flags = given_words(getattr(args, GIVEN, {})) if library else {}
    message = command_line_words(
        " ".join(str(exc).split()), args.command, training=training, vectors=vectors, flags=flags
    )
    return message or type(exc).__name__


class _CommandLineFormatter(logging.Formatter):
    """'prog: message', the message in the command line's words."""

    def __init__(self, prog: str, command: str) -> None:
        super().__init__(f"{prog}: %(message)s")
        self.command = command

    def format(self, record: logging.LogRecord) -> str:
        return command_line_words(super().format(record), self.command)


def _leftovers(args: argparse.Namespace) -> str:
    from ..sweep.checkpoint import describe_leftovers  # lazy: start-up time

    kept = describe_leftovers(args.out) if getattr(args, "out", None) else None
    return f"; {kept}" if kept else ""


def _raise_terminated(signum: int, frame: Any) -> None:
    raise _Terminated()


def _stderr_log(prog: str, command: str, verbose: bool) -> logging.Handler:
    """Print warnings (such as removed leftovers) as 'prog: message' lines, and with ``verbose`` (a
    sweep, or any command writing -o FILE) the plan: points, output size, time estimate."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_CommandLineFormatter(prog, command))
    logger = logging.getLogger("hockeystick")
    logger.addHandler(handler)
    handler.setLevel(logging.INFO if verbose else logging.WARNING)
    if logger.level == logging.NOTSET or logger.level > handler.level:
        logger.setLevel(handler.level)
    return handler


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    args = build_parser(_asked_command(words)).parse_args(words)
    prog = f"{PROG} {args.command}"
    handler = _stderr_log(
        prog, args.command, verbose=args.command == "sweep" or bool(getattr(args, "out", None))
    )
    previous = signal.getsignal(signal.SIGTERM)
    catch_term = previous is not None and _is_main_thread()
    if catch_term:
        signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        return _dispatch(args, prog)
    finally:
        logging.getLogger("hockeystick").removeHandler(handler)
        if catch_term:
            signal.signal(signal.SIGTERM, previous)


def _is_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _dispatch(args: argparse.Namespace, prog: str) -> int:
    """Run the subcommand; every error becomes one line on stderr and an exit status (or, with
    --debug, the traceback)."""
    try:
        with warnings.catch_warnings():
            if not args.debug:  # numpy's overflow notes are for developers; --debug shows them
                warnings.simplefilter("ignore", RuntimeWarning)
                # a warning is one line in the command line's words, as an error is; --debug keeps
                # Python's form (the file, line and source that raised it)
                warnings.showwarning = _warning_printer(args, prog)
            check_unread(args)  # a flag of another mode, which this one would ignore
            check_domains(args)  # before the subcommand imports its numerics
            return args.func(args)
    except (UsageError, ValueError, TypeError, ArithmeticError) as exc:
        if args.debug:  # the traceback, then the same line and exit status as without --debug
            import traceback  # lazy: --debug only

            traceback.print_exc(file=sys.stderr)
        print(f"{prog}: error: {_one_line(exc, args)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{prog}: interrupted{_leftovers(args)}", file=sys.stderr)
        return 130
    except _Terminated:
        print(f"{prog}: terminated (SIGTERM){_leftovers(args)}", file=sys.stderr)
        return 143
    except BrokenPipeError:
        # the reader went away (hockeystick ... | head): stop quietly, as other filters do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)  # stdout holds its own copy
        return 141
    except Exception as exc:
        if args.debug:
            raise
        missing = _missing_extra(exc, prog)
        if missing is not None:
            print(f"{prog}: error: {missing}", file=sys.stderr)
            return EXIT_USAGE
        if isinstance(exc, MemoryError):
            print(
                f"{prog}: failed: out of memory; lower --chunk-size or the number of values per axis{_leftovers(args)}",
                file=sys.stderr,
            )
        else:
            print(
                f"{prog}: failed: {type(exc).__name__}: {_one_line(exc, args)}{_leftovers(args)} "
                "(rerun with --debug for the traceback)",
                file=sys.stderr,
            )
        return EXIT_FAILURE


def _warning_printer(args: argparse.Namespace, prog: str) -> Any:
    """``warnings.showwarning`` for a command: 'prog: warning: message' on one line of stderr."""

    def show(
        message: Any, category: Any, filename: Any, lineno: Any, file: Any = None, line: Any = None
    ) -> None:
        print(f"{prog}: warning: {_one_line(Exception(str(message)), args)}", file=sys.stderr)

    return show


def _missing_extra(exc: Exception, prog: str) -> MissingExtraError | None:
    """An optional dependency found missing: the library's own message, or, where the library
    imported it unchecked, the same words with the command as what needs it."""
    if isinstance(exc, MissingExtraError):
        return exc
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        extra = extra_of(exc)
        if extra is not None:
            return MissingExtraError(exc.name.split(".")[0], prog, extra)
    return None


if __name__ == "__main__":
    sys.exit(main())
