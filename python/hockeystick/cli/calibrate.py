"""``hockeystick calibrate``: the smallest sigma (largest rounds, ...) within a target (epsilon, delta)."""

from __future__ import annotations

import argparse
import difflib
import json
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

from .common import (
    LiteralUsageError,
    UsageError,
    accountant_names,
    accountant_options,
    output_options,
    parameters,
    positive_int,
)
from .execute import execute
from .participation import participation_calibrate, participation_options
from .report import check_format, format_options, report

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    raw = argparse.RawDescriptionHelpFormatter
    cal = subparsers.add_parser(
        "calibrate",
        help="smallest sigma (or largest rounds ...) within a target (epsilon, delta)",
        description="For each point, the extreme value of --parameter that keeps the accountant "
        "within (epsilon, delta): the smallest sigma, or the largest rounds or "
        "sampling rate.",
        epilog="examples:\n"
        "  hockeystick calibrate --dataset-size 60000 --batch-size 256 --epochs 60 "
        "--epsilon 3 --delta 1e-5\n"
        "  hockeystick calibrate --parameter epochs --dataset-size 60000 --batch-size 256 "
        "--noise-multiplier 1.1 --epsilon 3 --delta 1e-5\n"
        "  hockeystick calibrate --parameter batch_size --dataset-size 60000 --epochs 60 "
        "--noise-multiplier 1.1 --epsilon 3 --delta 1e-5\n"
        "  hockeystick calibrate --fixed-compute --dataset-size 60000 --epochs 60 --epsilon 3 --delta 1e-5\n"
        "  hockeystick calibrate -a gaussian --epsilon 1 --delta 1e-5 -p rounds=1,10,100,1000\n"
        "  hockeystick calibrate gaussian --epsilon 1 --delta 1e-5 -p rounds=1,10,100,1000   # the same\n"
        "  hockeystick calibrate dp_ftrl_blt --buffer-decay 0.9,0.5 --output-scale 0.1,0.2 --rounds 100 "
        "--min-separation 50 --epsilon 8 --delta 1e-6\n"
        "  hockeystick calibrate -a gaussian --parameter rounds --epsilon 1 --delta 1e-5 "
        "-p sigma=2,5,10\n"
        "  hockeystick calibrate -a gaussian --epsilon 0.5,1,2,4 --delta 1e-5 "
        "-p rounds=log:1:10000:40 --plot sigma.png\n"
        "  hockeystick calibrate -a trusted_aggregator --epsilon 1 --delta 1e-5 -p n=60000 \\\n"
        "      -p batch_size=10,100,1000 -p learning_rate=0.5 -p lipschitz=1 -p radius=1\n"
        "  hockeystick calibrate -a leakage_tv -p tv=0.01,0.1 -p variance=1 -p dimension=10,1000"
        "   # paper 001",
        formatter_class=raw,
    )
    cal.add_argument(
        "--parameter",
        default=None,
        metavar="NAME",
        help="what to calibrate, a parameter's name as -p writes it (default the accountant's noise: "
        "noise_multiplier or sigma; rounds, sampling_rate, epochs, batch_size, sample_rate ... where the "
        "accountant has it); its flag's spelling is read the same (noise-multiplier, --noise-multiplier)",
    )
    cal.add_argument(
        "--fixed-compute",
        action="store_true",
        help="a DP-SGD run at a fixed compute budget (--epochs, or --examples = steps x batch size): for each "
        "--batch-size (a list; default powers of two from 16 to dataset size / 8) the steps, the smallest "
        "noise multiplier within --epsilon, --delta and its certified epsilon; which row to train with is yours",
    )
    cal.add_argument(
        "--examples",
        type=positive_int,
        default=None,
        metavar="N",
        help="with --fixed-compute: examples processed",
    )
    accountant_options(cal, "calibrate")
    participation_options(cal)
    output_options(cal)
    format_options(cal)
    cal.add_argument(
        "--max-rows",
        type=positive_int,
        default=50,
        metavar="N",
        help="print every point up to N points, else a summary (default 50)",
    )
    cal.set_defaults(func=run, workers=None, scheduler=None)


def run(args: argparse.Namespace) -> int:
    from ..sweep.grid import Grid  # lazy: start-up time

    if (
        args.participation is not None
    ):  # one DP-FTRL point under a random scheme, each side labelled
        return participation_calibrate(args)
    params = parameters(args)
    if args.fixed_compute or args.examples is not None:
        return _fixed_compute(args, params)
    accountants = accountant_names(args)
    parameter = _calibrated(accountants, params, args.parameter)
    grid = Grid.from_parameters(accountants, parameter, params, args.bound or "upper")
    check_format(args, grid.size, args.max_rows)
    result = execute(grid, args, out=args.out, keep=grid.size <= args.max_rows)
    report(result, args, max_rows=args.max_rows)
    return 0


def _calibrated(names: list[str], params: dict[str, str], asked: str | None) -> str:
    """The parameter calibrated (``asked``, in the words ``_parameter_word`` reads, else the
    accountant's noise, else its first calibratable parameter; a calculator's first inverse), once
    the target is given: epsilon and delta, or a calculator's quantity."""
    from ..registry import CalculatorEntry, lookup  # lazy: start-up time

    entries = [lookup(name) for name in names]
    first = entries[0]
    if isinstance(
        first, CalculatorEntry
    ):  # a calculator solves for a parameter from its quantity's target
        if first.quantity not in params:
            raise UsageError(f"calibration needs a target: give -p {first.quantity}=VALUE")
        options = [first.quantity, *first.inverses]
        return (
            _parameter_word(asked, options, names)
            if asked
            else next(iter(first.inverses), first.quantity)
        )
    for target in ("epsilon", "delta"):
        if target not in params:
            raise UsageError(f"calibration needs a target: give --{target} VALUE")
    if asked:
        common = set.intersection(*(set(getattr(e, "calibratable", ())) for e in entries))
        return _parameter_word(asked, sorted(common), names)
    noise = [p for p in ("noise_multiplier", "sigma") if p in first.calibratable]
    return next(iter(noise or first.calibratable), "sigma")


def _parameter_word(asked: str, options: list[str], names: list[str]) -> str:
    """--parameter's value as the parameter's name: ``noise_multiplier``, or its flag's spelling
    (``noise-multiplier``, ``--noise-multiplier``), read the same because no parameter's name has a
    dash (each is a Python identifier); ``delta`` and ``epsilon`` pass (the grid answers them).
    Anything else is refused naming the accepted words, in the words -p and --parameter take."""
    word = asked.strip().lstrip("-").replace("-", "_")
    if word in options or word in ("delta", "epsilon"):
        return word
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    raise LiteralUsageError(
        f"--parameter names a parameter {' and '.join(names)} can calibrate, as -p writes it: "
        f"{', '.join(options) or 'none'}; got {asked!r}"
        + (f" (did you mean {close[0]!r}?)" if close else "")
    )


# --fixed-compute's settings: the one value of each, the batch sizes a list, those it needs
_FIXED_COMPUTE_SINGLE = ("epsilon", "delta", "dataset_size", "epochs")
_FIXED_COMPUTE_SETTINGS = {*_FIXED_COMPUTE_SINGLE, "batch_size"}
_FIXED_COMPUTE_NEEDS = ("epsilon", "delta", "dataset_size")


def _fixed_compute(args: argparse.Namespace, params: dict[str, str]) -> int:
    """``calibrate_fixed_compute`` of the run the flags give, its table printed (--format table, csv or json)."""
    from ..calibrate import calibrate_fixed_compute  # lazy: start-up time

    _check_fixed_compute(args, params)
    single = _single_values(params)
    sizes = _batch_sizes(params)
    dataset_size = _dataset_size(single["dataset_size"], params["dataset_size"])
    table = calibrate_fixed_compute(
        dataset_size=dataset_size,
        epsilon=single["epsilon"],
        delta=single["delta"],
        epochs=single.get("epochs"),
        examples=args.examples,
        batch_sizes=sizes,
        sampling=args.sampling or "poisson",
        progress=bool(args.progress),
    )
    _FIXED_COMPUTE_FORMATS[args.format or "table"](table)
    return 0


def _check_fixed_compute(args: argparse.Namespace, params: dict[str, str]) -> None:
    """--fixed-compute prints its table from a DP-SGD run's flags: --examples goes with it; no
    output file, no accountant, no -p, no other parameter; epsilon, delta and the data set's size
    given."""
    if not args.fixed_compute:
        raise UsageError("--examples is a compute budget: it goes with --fixed-compute")
    if args.out is not None or args.plot is not None or args.accountant or args.param:
        raise UsageError(
            "--fixed-compute prints its table (one row per batch size); drop -o, --plot, the accountant (NAME or "
            "-a) and -p"
        )
    extra = sorted(set(params) - _FIXED_COMPUTE_SETTINGS)
    if extra:
        raise UsageError(
            f"--fixed-compute calibrates the noise multiplier of a DP-SGD run over batch sizes: drop "
            f"{', '.join('--' + e.replace('_', '-') for e in extra)}"
        )
    for name in _FIXED_COMPUTE_NEEDS:
        if name not in params:
            raise UsageError(f"--fixed-compute needs --{name.replace('_', '-')} VALUE")


def _single_values(params: dict[str, str]) -> dict[str, float]:
    """The one value of each setting --fixed-compute takes once (a list or range is refused)."""
    from ..sweep.grid import Axis, parse_value  # lazy: start-up time

    single = {}
    for name in _FIXED_COMPUTE_SINGLE:
        if name in params:
            value = parse_value(name, params[name])
            if isinstance(value, Axis):
                raise UsageError(
                    f"--fixed-compute takes one --{name.replace('_', '-')}, got {params[name]}"
                )
            single[name] = value
    return single


def _batch_sizes(params: dict[str, str]) -> ArrayLike | None:
    """--batch-size's values (one or a list), or None for the default sizes."""
    from ..sweep.grid import Axis, parse_value  # lazy: start-up time

    if "batch_size" not in params:
        return None
    value = parse_value("batch_size", params["batch_size"])
    return value.values if isinstance(value, Axis) else [value]


def _dataset_size(size: float, written: str) -> int:
    """--dataset-size as the whole number >= 1 it must be."""
    if not (math.isfinite(size) and size >= 1 and size == math.floor(size)):
        raise UsageError(f"--dataset-size must be a whole number >= 1, got {written}")
    return int(size)


def _print_json(table: Any) -> None:
    print(json.dumps(table.rows()))


def _print_csv(table: Any) -> None:
    print("batch_size,steps,noise_multiplier,epsilon")
    for row in table.rows():
        print(f"{row['batch_size']},{row['steps']},{row['noise_multiplier']!r},{row['epsilon']!r}")


# --format -> how the fixed-compute table is printed
_FIXED_COMPUTE_FORMATS: dict[str, Callable[[Any], None]] = {
    "json": _print_json,
    "csv": _print_csv,
    "table": print,
}
