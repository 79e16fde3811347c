"""``hockeystick compose``: a heterogeneous run (a TOML list of stages, mixed mechanisms) through
one PLDAccountant, printing the certified bracket of epsilon (or delta) for the whole run and the
neighbouring relations it holds under (pld.neighbouring; stages with none in common are refused).

A compose file is a schedule fixed before the run, so it is also followed round by round: ``--every
N`` prints the bracket of epsilon after every N rounds (``PLDAccountant.epsilon_curve``), and
``--budget EPS`` the last round whose certified upper epsilon is within EPS. The true epsilon grows
with the rounds, so the run is within the budget through that round; the next round's upper side
passes it (found by bisection over the prefixes)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from ..base.outward_text import outward_text
from .column_sides import column_side
from .common import UsageError
from .report import FORMATS, json_value
from .tables import table
from .training_stages import in_mechanism_words

__all__ = ["register", "run"]

_EXAMPLE = """\
example:
  hockeystick compose run.toml --delta 1e-5
  hockeystick compose run.toml --epsilon 0.5,1,2 --format json
  hockeystick compose run.toml --delta 1e-5 --every 500 --budget 2    (epsilon along the run; where 2 is reached)

run.toml:
  value_discretization_interval = 1e-4     # optional: the PLD grid (smaller: tighter and slower)

  [[stage]]                                # 5000 steps at sampling rate 1%
  mechanism = "subsampled_gaussian"
  sigma = 1.0
  sampling_rate = 0.01                     # (sampling_probability, dp_accounting's name, is read the same)
  rounds = 5000

  [[stage]]                                # then 100 full-batch steps with more noise
  mechanism = "gaussian"
  sigma = 8.0
  rounds = 100

  [[stage]]                                # and one Laplace release of a statistic
  mechanism = "laplace"
  scale = 2.0

A stage may be a training run in its own words, as hockeystick.training takes them, and a Gaussian stage
may give noise_multiplier (at sensitivity 1) for sigma:

  [[stage]]                                # 3 epochs of DP-SGD: 705 steps at q = 256 / 60000
  mechanism = "dp_sgd"                     # or "dp_fedavg" (total_clients, clients_per_round, rounds)
  noise_multiplier = 1.1
  dataset_size = 60000
  batch_size = 256                         # or sample_rate = 0.004; sampling = "fixed_size" too
  epochs = 3                               # or steps = 705

mechanisms and their parameters: hockeystick accountants
"""


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "compose",
        help="certified epsilon (or delta) of a run made of different stages (a TOML list)",
        description="Compose the stages of a run (each a mechanism with its parameters, repeated `rounds` "
        "times; every round released) by PLD composition and print the certified bracket "
        "[lower, upper] of epsilon(delta), or of delta(epsilon).",
        epilog=_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "stages", metavar="FILE", help="the run: a TOML file with one [[stage]] table per stage"
    )
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument(
        "--delta", metavar="VALUES", help="print epsilon at these deltas (1e-5 or 1e-5,1e-6)"
    )
    target.add_argument(
        "--epsilon", metavar="VALUES", help="print delta at these epsilons (1 or 0.5,1,2)"
    )
    p.add_argument(
        "--bound",
        choices=("upper", "lower", "both"),
        default="both",
        help="which side of the certified bracket to print (default both)",
    )
    p.add_argument(
        "--format", choices=FORMATS, default="table", help="table (default), json or csv"
    )
    along = p.add_argument_group("along the run (with one --delta)")
    along.add_argument(
        "--every",
        metavar="N",
        help="the bracket of epsilon after every N rounds of the schedule and at its end",
    )
    along.add_argument(
        "--budget",
        metavar="EPS",
        help="the last round whose certified upper epsilon is at most EPS (the run is within EPS through it)",
    )
    p.set_defaults(func=run)


def _values(text: str, flag: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise UsageError(
            f"{flag} {text!r}: give numbers separated by commas, e.g. {flag} 1e-5,1e-6"
        ) from None
    return values


def run(args: argparse.Namespace) -> int:
    from ..pld.accountants import compose_stages, stage_relations  # lazy: start-up time

    spec = _read(args.stages)
    given, asked = ("delta", "epsilon") if args.delta is not None else ("epsilon", "delta")
    xs = _values(args.delta if args.delta is not None else args.epsilon, f"--{given}")
    interval = spec.get("value_discretization_interval", 1e-4)
    try:
        stages = in_mechanism_words(spec["stage"])
        relations = stage_relations(stages)
        accountant = compose_stages(stages, value_discretization_interval=interval)
    except ValueError as exc:
        raise UsageError(f"compose file {args.stages!r}: {exc}") from None
    if args.every is not None or args.budget is not None:
        from .compose_along import along_the_run  # lazy: start-up time

        total = sum(
            int(stage.get("rounds", 1)) for stage in stages
        )  # compose_stages checked each count
        return along_the_run(accountant, args, xs, relations, len(stages), total)
    # the run's refusals are the compose file's; the values asked about are the flag's (--delta,
    # --epsilon)
    answer = getattr(accountant, asked)(xs, bound=args.bound)
    sides = ("lower", "upper") if args.bound == "both" else (args.bound,)
    columns = [given] + [f"{asked}_{side}" for side in sides]
    values = answer if args.bound == "both" else (answer,)
    rows = [[x] + [float(v[i]) for v in values] for i, x in enumerate(xs)]
    _PRINTERS[args.format](
        columns,
        rows,
        f"{len(spec['stage'])} stages, {given} -> certified {asked} ({args.bound})",
        relations,
    )
    return 0


def _read(path: str) -> dict[str, Any]:
    """The compose file: [[stage]] tables and optionally value_discretization_interval."""
    from ..sweep.grid import read_toml  # lazy: start-up time

    spec = read_toml(path, "compose file")
    unknown = sorted(set(spec) - {"stage", "value_discretization_interval"})
    if unknown:
        raise UsageError(
            f"compose file {path!r}: unknown key(s) {', '.join(unknown)}; it has [[stage]] "
            "tables and optionally value_discretization_interval"
        )
    if "stage" not in spec:
        raise UsageError(
            f"compose file {path!r} has no [[stage]] table; see 'hockeystick compose --help'"
        )
    return spec


def _print_json(columns: list[str], rows: list[list[float]], heading: str, relations: Any) -> None:
    json.dump(
        [{k: json_value(v) for k, v in zip(columns, row)} for row in rows], sys.stdout, indent=1
    )
    print()


def _print_csv(columns: list[str], rows: list[list[float]], heading: str, relations: Any) -> None:
    print(",".join(columns))
    for row in rows:
        print(",".join(repr(v) for v in row))


def _print_table(columns: list[str], rows: list[list[float]], heading: str, relations: Any) -> None:
    """The heading with the neighbouring relations the run holds under, then the table."""
    from ..pld.mechanisms import RELATION_WORDS  # lazy: start-up time

    under = " and ".join(RELATION_WORDS[r] for r in relations)
    print(f"{heading}, {under} neighbours")
    sides = [column_side(c, inputs=columns[:1]) for c in columns]  # the first column is given
    print(table(columns, [[outward_text(v, s, 10) for v, s in zip(row, sides)] for row in rows]))


# --format -> how the rows are printed
_PRINTERS: dict[str, Callable[[list[str], list[list[float]], str, Any], None]] = {
    "json": _print_json,
    "csv": _print_csv,
    "table": _print_table,
}
