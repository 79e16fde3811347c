"""``hockeystick compose FILE --delta D --every N --budget EPS``: a fixed schedule followed round by round.

The rows are the certified bracket of epsilon at delta after every N rounds (and the last), and with
a budget the last round R whose certified upper epsilon is at most EPS and the round R + 1 that
passes it, each marked ``within_budget``. R is found by bisecting [0, T], narrowed first to the
checkpoints around the budget, one prefix's curve a probe (``PLDAccountant.epsilon_curve`` at given
steps, each prefix read once): an interval stays with its left end within the budget and its right
end past it, so R is a crossing of the upper side. The true
epsilon never falls as rounds are added (a prefix's release is a post-processing of the longer
run's), so true epsilon(r) <= upper(R) <= EPS for every r <= R: the run is within the budget through
round R.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from ..base.outward_text import outward_text
from .column_sides import column_side
from .common import UsageError
from .report import json_value
from .tables import table

__all__ = ["along_the_run"]


def _whole(text: str, flag: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise UsageError(f"{flag} {text!r}: give a whole number of rounds >= 1, e.g. {flag} 100")
    return value


def _budget(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise UsageError(f"--budget {text!r}: give a finite epsilon > 0, e.g. --budget 3")
    return value


class _Prefixes:
    """The certified (lower, upper) epsilon at ``delta`` of the run's prefixes, each prefix read once
    (``PLDAccountant.epsilon_curve`` at the steps not read yet): a prefix's bracket is the same
    whichever steps it is read with, so the checkpoints, the budget's probes and the rows share
    their reads."""

    def __init__(self, accountant: Any, delta: float) -> None:
        self.accountant, self.delta = accountant, delta
        self.read: dict[int, tuple[float, float]] = {}

    def bracket(self, steps: set[int]) -> list[tuple[int, float, float]]:
        """(rounds, lower, upper) at each of ``steps``, ascending, reading the prefixes not read yet."""
        missing = sorted(steps - set(self.read))
        if missing:
            curve = self.accountant.epsilon_curve(self.delta, steps=missing)
            for r, lo, up in zip(curve.steps, curve.lower, curve.upper):
                self.read[int(r)] = (float(lo), float(up))
        return [(r, *self.read[r]) for r in sorted(steps)]

    def upper(self, rounds: int) -> float:
        """The certified upper epsilon after ``rounds`` rounds."""
        return self.bracket({rounds})[0][2]


def last_round_within(prefixes: _Prefixes, budget: float, total: int) -> int:
    """The last round R in [0, total] with certified upper epsilon <= ``budget`` where round R + 1
    passes it (``total`` if the whole run is within it; 0 if the first round already passes it).

    Bisection on the rounds, one prefix a probe, from the narrowest interval the prefixes already
    read give (the checkpoints'): a curve's cost grows with each prefix it composes, so one probe a
    step (log2 T of them) costs less than batches of many.
    """
    if prefixes.upper(total) <= budget:
        return total
    read = prefixes.read
    within = max((r for r in read if read[r][1] <= budget), default=None)
    if within is None:
        if prefixes.upper(1) > budget:
            return 0
        within = 1
    # upper(within) <= budget < upper(past): past the first read prefix past the budget above within
    past = min(r for r in read if r > within and read[r][1] > budget)
    while past - within > 1:
        middle = (within + past) // 2
        within, past = (middle, past) if prefixes.upper(middle) <= budget else (within, middle)
    return within


def along_the_run(
    accountant: Any,
    args: argparse.Namespace,
    deltas: list[float],
    relations: Any,
    stages: int,
    total: int,
) -> int:
    """Print the checkpoints' brackets (``--every``) and the budget's round (``--budget``) in ``args.format``."""
    if args.delta is None or len(deltas) != 1:
        raise UsageError(
            "--every and --budget follow epsilon at one delta along the run: give one --delta value"
        )
    prefixes = _Prefixes(accountant, deltas[0])
    steps = _every(args.every, total)
    budget = None if args.budget is None else _budget(args.budget)
    prefixes.bracket(steps)
    crossing = None if budget is None else last_round_within(prefixes, budget, total)
    if crossing is not None:
        steps.update(r for r in (crossing, crossing + 1) if 1 <= r <= total)
    columns, rows = _rows(prefixes.bracket(steps), budget)
    if args.format != "table":
        _print_rows(args.format, columns, rows)
        return 0
    print(_heading(stages, total, deltas[0], relations))
    print(
        table(
            columns,
            [
                [
                    outward_text(v, column_side(c), 10) if isinstance(v, float) else str(v)
                    for c, v in zip(columns, row)
                ]
                for row in rows
            ],
        )
    )
    if budget is not None and crossing is not None:
        print(_budget_line(budget, deltas[0], crossing, total))
    return 0


def _rows(
    brackets: list[tuple[int, float, float]], budget: float | None
) -> tuple[list[str], list[list[Any]]]:
    """The brackets' rows (rounds, both sides), each marked within the budget or not when there is one."""
    columns = ["rounds", "epsilon_lower", "epsilon_upper"] + (
        [] if budget is None else ["within_budget"]
    )
    rows: list[list[Any]] = [
        [r, lo, up] + ([] if budget is None else [bool(up <= budget)]) for r, lo, up in brackets
    ]
    return columns, rows


def _every(text: str | None, total: int) -> set[int]:
    """The checkpoints of ``--every N``: every N-th round and the last (none without the flag)."""
    if text is None:
        return set()
    every = _whole(text, "--every")
    return set(range(every, total + 1, every)) | {total}


def _print_rows(form: str, columns: list[str], rows: list[list[Any]]) -> None:
    if form == "json":
        json.dump(
            [{k: json_value(v) for k, v in zip(columns, row)} for row in rows], sys.stdout, indent=1
        )
        print()
        return
    print(",".join(columns))
    for row in rows:
        print(",".join(str(v).lower() if isinstance(v, bool) else repr(v) for v in row))


def _heading(stages: int, total: int, delta: float, relations: Any) -> str:
    from ..pld.mechanisms import RELATION_WORDS  # lazy: start-up time

    under = " and ".join(RELATION_WORDS[r] for r in relations)
    return f"{stages} stages, {total} rounds: certified epsilon at delta = {delta:g} along the run, {under} neighbours"


def _budget_line(budget: float, delta: float, crossing: int, total: int) -> str:
    if crossing == total:
        return f"budget epsilon = {budget:g} at delta = {delta:g}: the whole run ({total} rounds) is within it"
    if crossing == 0:
        return (
            f"budget epsilon = {budget:g} at delta = {delta:g}: the first round already passes it"
        )
    return (
        f"budget epsilon = {budget:g} at delta = {delta:g}: within it through round {crossing}; "
        f"round {crossing + 1} passes it (certified upper side)"
    )
