"""Every flag of every subcommand at the edges of its domain: the command line answers, or refuses with exit
status 2 and one line that names the flag given, never a traceback, an internal error or a hang.

The values are the argument walk's of tests/test_fuzz_public_api.py (``WALK_VALUES``: NaN, +-inf, 0, -0, a
subnormal, a negative, 1e308, a bool, a numeric string, an array), written as a user types them, plus an
empty word and a word that is no number.  Each subcommand starts from valid command lines (``BASES``); each
of its flags that takes a value (read from the parser, so a flag added later is walked too) is set in turn
to each value on the first line that gives it (else appended to the last line), the others valid.
``hockeystick.cli.main`` runs in-process, so the walk takes seconds per subcommand.  The base lines run
through ``main`` as it is; the walk's lines read one parser built for the walk (``build_parser`` builds the
same parser at every call: half of a refused line's CPU time), checked unchanged by them at the walk's end.  The values at
which a command computes (``COSTLY_VALUES``) are walked under ``--run-slow``, the others by default.
"""

from __future__ import annotations

import argparse
import io
import math
import signal
from contextlib import redirect_stderr, redirect_stdout
from typing import Any
from unittest import mock

import numpy as np
import pytest

import hockeystick.cli
import hockeystick.reproduce.figures
from hockeystick.cli import build_parser, main

from ..test_fuzz_public_api import WALK_VALUES


def _typed(value: Any) -> str:
    """A walk value as a user types it on the command line."""
    if isinstance(value, np.ndarray):
        return ",".join(f"{v:g}" for v in value)
    if (
        isinstance(value, float)
        and math.isfinite(value)
        and value.is_integer()
        and abs(value) < 1e16
    ):
        return ("-" if math.copysign(1.0, value) < 0 else "") + str(abs(int(value)))  # 0, -0, -1
    return str(value).replace("e+", "e")  # nan, inf, -inf, 5e-324, 1e308, True, 0.5


TYPED = [*dict.fromkeys(_typed(v) for v in WALK_VALUES), "", "abc"]

GAUSS = ["-a", "gaussian", "-p", "sigma=2", "-p", "rounds=3"]
SGD = ["--dataset-size", "1000", "--batch-size", "100", "--epochs", "1", "--noise-multiplier", "2"]
FEDAVG = [
    "--total-clients",
    "100",
    "--clients-per-round",
    "10",
    "--rounds",
    "2",
    "--noise-multiplier",
    "2",
]
BLT = [
    "dp_ftrl_blt",
    "--buffer-decay",
    "0.9",
    "--output-scale",
    "0.5",
    "--rounds",
    "8",
    "--noise-multiplier",
    "2",
]
AMPLIFIED = [
    "amplified_banded_mf",
    "--coefficients",
    "1,0.5",
    "--rounds",
    "8",
    "--noise-multiplier",
    "2",
]
AMPLIFIED += ["--min-separation", "2", "--sampling-rate", "0.5"]
TARGET = ["--epsilon", "1", "--delta", "1e-5"]


def _evaluations(command: str, target: list[str]) -> list[list[str]]:
    return [
        [command, *line, *target]
        for line in (
            SGD,
            FEDAVG,
            ["--sample-rate", "0.1", "--steps", "2", "--noise-multiplier", "2"],
            BLT,
            AMPLIFIED,
        )
    ] + [[command, *GAUSS, *target, "--max-rows", "50", "--every", "1", "--format", "table"]]


# subcommand -> valid command lines ({inputs}: a directory with a compose file and a sweep's result)
BASES: dict[str, list[list[str]]] = {
    "epsilon": _evaluations("epsilon", ["--delta", "1e-5"]),
    "delta": _evaluations("delta", ["--epsilon", "1"]),
    # --epsilon and --delta are walked on the first line that gives them, the Gaussian one: one rule holds for
    # them on every calibrate line, checked before the numerics load
    "calibrate": [
        [
            "calibrate",
            "-a",
            "gaussian",
            "-p",
            "rounds=3",
            *TARGET,
            "--parameter",
            "sigma",
            "--max-rows",
            "50",
        ],
        [
            "calibrate",
            "--fixed-compute",
            "--dataset-size",
            "1000",
            "--batch-size",
            "100",
            "--epochs",
            "1",
            *TARGET,
        ],
        ["calibrate", "--fixed-compute", "--dataset-size", "1000", "--examples", "2000", *TARGET],
        ["calibrate", *SGD[:-2], *TARGET, "--sampling", "poisson"],
    ],
    "risk": [  # the vector flags are walked on epsilon and delta (risk of an odd BLT takes a minute)
        ["risk", *SGD, "--fpr", "0.01"],
        ["risk", *GAUSS, "--fpr", "0.01", "--direction", "symmetric", "--bound", "both"],
    ],
    "sweep": [
        [
            "sweep",
            "-a",
            "gaussian",
            "-p",
            "sigma=1,2",
            "-p",
            "rounds=3",
            "--epsilon",
            "1",
            "-o",
            "-",
            "--chunk-size",
            "2",
            "--quantity",
            "delta",
        ],
    ],
    "audit": [
        ["audit", "{inputs}/scores.csv", *SGD, "--delta", "1e-5"],
        ["audit", "{inputs}/scores.csv", *GAUSS, "--delta", "1e-5", "--significance", "0.05"],
    ],
    "compose": [
        ["compose", "{inputs}/run.toml", "--delta", "1e-5", "--format", "table", "--bound", "upper"]
    ],
    "plot": [["plot", "{inputs}/sweep.csv", "--plot", "{inputs}/picture.png", "--force"]],
    "figures": [["figures", "--out-dir", "{inputs}/figures"]],
    "demo": [["demo", "--epsilon", "1", "--delta", "1e-5", "--sensitivity", "1"]],
    "accountants": [["accountants"]],
}
# simulate trains models for every valid line: its walk is slow (tests/cli/test_cli_simulate.py checks its flags)
SLOW = {"simulate"}
SIMULATE = """\
delta = 1e-5
seeds = 1
[data]
bundled = "wine"
clients = 4
seed = 1
[algorithms.trusted_aggregator]
grid = { sigma = [1.0] }
fixed = { batch = 2, rate = 0.5, radius = 5.0 }
"""
BASES["simulate"] = [["simulate", "{inputs}/runs.toml", "-o", "{inputs}/runs.csv", "--force"]]

# A command line using more CPU than this fails the walk (a shared machine's load stretches the wall time, not
# the CPU time); one waiting past WALL_SECONDS fails it too (a call blocked without using the CPU).
CPU_SECONDS = 120.0
WALL_SECONDS = {"simulate": 900.0}
WALL_DEFAULT = 900.0


def _subparsers(
    parser: argparse.ArgumentParser | None = None,
) -> dict[str, argparse.ArgumentParser]:
    parser = parser or build_parser()
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


def _value_flags(sub: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in sub._actions if a.option_strings and a.nargs != 0 and a.dest != "help"]


def test_every_subcommand_is_walked():
    assert set(_subparsers()) == set(BASES), (
        "a subcommand without a walk: add its valid command lines to BASES"
    )


class _Overtime(BaseException):  # not an Exception: the command line's own handlers let it through
    pass


def _on_alarm(signum: int, frame: Any) -> None:
    raise _Overtime()


def run_line(argv: list[str]) -> tuple[int, str, str]:
    """``hockeystick ARGV`` in this process: (exit status, stdout, stderr); exit status -1 past its time."""
    out, err = io.StringIO(), io.StringIO()
    previous = {sig: signal.signal(sig, _on_alarm) for sig in (signal.SIGALRM, signal.SIGPROF)}
    signal.setitimer(signal.ITIMER_REAL, WALL_SECONDS.get(argv[0], WALL_DEFAULT))
    signal.setitimer(signal.ITIMER_PROF, CPU_SECONDS)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else 2
    except _Overtime:
        code = -1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return code, out.getvalue(), err.getvalue()


def _with(line: list[str], flags: list[str], value: str) -> list[str]:
    """``line`` with the flag ``flags`` names set to ``value`` (in place where the line gives it)."""
    for i, word in enumerate(line):
        if word in flags:
            return [*line[: i + 1], value, *line[i + 2 :]]
    return [*line, flags[-1], value]


# The values at which a command computes rather than refuses (a subnormal, 1e308, -0, a numeric string,
# an array): about 60 % of a walk's CPU time.  They are walked under --run-slow; the default selection
# walks every flag of every command at the other values (NaN, +-inf, 0, a negative, a bool, an empty word
# and a word that is no number).
COSTLY_VALUES = ("5e-324", "1e308", "-0", "0.5", "0.5,2")


def _parser_state(parser: argparse.ArgumentParser) -> list[tuple[str, str, str]]:
    """What a parse reads from ``parser`` and could change: every (sub)parser's actions' defaults and its
    ``set_defaults``."""
    state = [("", "", repr(parser._defaults))]
    for name, sub in _subparsers(parser).items():
        state.append((name, "", repr(sub._defaults)))
        state += [(name, a.dest, repr(a.default)) for a in sub._actions]
    return state


def walk_failures(
    command: str, inputs: str, values: list[str] = TYPED, *, check_bases: bool = True
) -> list[str]:
    """The failures of ``command``'s walk: each flag that takes a value set in turn to each of ``values``;
    with ``check_bases``, each base line first runs and must answer."""
    sub = _subparsers()[command]
    lines = [[w.replace("{inputs}", inputs) for w in line] for line in BASES[command]]
    for line in lines if check_bases else []:
        code, _, err = run_line(line)
        assert code == 0, f"the base line fails: {' '.join(line)}\n{err}"
    parser = build_parser()
    state = _parser_state(parser)
    with mock.patch.object(hockeystick.cli, "build_parser", lambda command=None: parser):
        failures = _walk(command, sub, lines, values)
    assert _parser_state(parser) == state, f"a {command} line changed the parser it read"
    return failures


def _walk(
    command: str, sub: argparse.ArgumentParser, lines: list[list[str]], values: list[str]
) -> list[str]:
    failures = []
    for action in _value_flags(sub):
        line = next((line for line in lines if set(action.option_strings) & set(line)), lines[-1])
        for value in values:
            argv = _with(line, action.option_strings, value)
            code, _, err = run_line(argv)
            shown = " ".join(argv)
            if code == -1:
                failures.append(
                    f"{shown}: ran past {CPU_SECONDS} s of CPU or {WALL_SECONDS.get(command, WALL_DEFAULT)} s"
                )
            elif "Traceback" in err or code not in (0, 2):
                failures.append(f"{shown}: exit {code}: {err.strip()[-300:]}")
            elif code == 2:
                message = err.strip().splitlines()
                named = [f for f in action.option_strings if f in err]
                if not named:
                    failures.append(
                        f"{shown}: the error names no {'/'.join(action.option_strings)}: {message}"
                    )
    return failures


@pytest.fixture
def inputs(tmp_path, monkeypatch):
    """A compose file, canary scores, a sweep's result to plot, a simulate file; figures drawn as nothing (their flags are
    walked, the papers' figures are not recomputed)."""
    (tmp_path / "run.toml").write_text(
        '[[stage]]\nmechanism = "gaussian"\nsigma = 2.0\nrounds = 3\n'
    )
    (tmp_path / "runs.toml").write_text(SIMULATE)
    rows = [f"{score},{label}" for score, label in zip(range(40), [1, 0] * 20)]
    (tmp_path / "scores.csv").write_text("score,in\n" + "\n".join(rows) + "\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(
        hockeystick.reproduce.figures, "write_figures", lambda out_dir, written: None
    )
    code, _, err = run_line(
        [
            "sweep",
            "-a",
            "gaussian",
            "-p",
            "sigma=1,2",
            "-p",
            "rounds=1,10",
            "--epsilon",
            "1",
            "-o",
            str(tmp_path / "sweep.csv"),
            "--no-progress",
        ]
    )
    assert code == 0, err
    return str(tmp_path)


# a delta below every tail (5e-324) answers with an AccuracyNotMetWarning on stderr, as the command line shows it
@pytest.mark.filterwarnings("default::hockeystick.pld.refine.unmet.AccuracyNotMetWarning")
@pytest.mark.parametrize(
    "command", [pytest.param(c, marks=pytest.mark.slow if c in SLOW else ()) for c in sorted(BASES)]
)
def test_every_flag_at_its_edges_answers_or_is_refused_naming_the_flag(command, inputs):
    failures = walk_failures(command, inputs, [v for v in TYPED if v not in COSTLY_VALUES])
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures)


@pytest.mark.slow
@pytest.mark.filterwarnings("default::hockeystick.pld.refine.unmet.AccuracyNotMetWarning")
@pytest.mark.parametrize("command", sorted(BASES))
def test_every_flag_at_its_costly_values_answers_or_is_refused_naming_the_flag(command, inputs):
    """The base lines are run and checked by the walk at the other values (the default selection's test of
    the same command); a base line refused here shows as failures of the lines walked on it."""
    assert set(COSTLY_VALUES) < set(TYPED)
    failures = walk_failures(command, inputs, list(COSTLY_VALUES), check_bases=False)
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures)
