"""What a subcommand prints after a run: the points as a table, JSON or CSV (``--format``), on
stdout or, with ``-o -``, as the data itself (messages then go to stderr); the summary of a grid too
large to list.

Every format carries the fixed parameters as columns beside the axes, so a row is self-contained.
The rows are the sweep writer's (``sweep.writers.table_rows``): CSV on stdout is byte for byte the
file ``-o FILE.csv`` writes, and an integer parameter of the accountants (rounds, dataset_size, a
calibrated rounds) is an integer in CSV and JSON alike.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Any, TextIO

from .common import UsageError
from .picture import picture_choices
from .tables import print_points, print_summary

__all__ = [
    "FORMATS",
    "STDOUT",
    "check_format",
    "format_options",
    "json_value",
    "records",
    "report",
    "report_files",
]

FORMATS = ("table", "json", "csv")
STDOUT = "-"


def format_options(parser: argparse.ArgumentParser) -> None:
    """--format, beside the output options."""
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="how the points are printed: table (default), json (a list of objects) or csv; "
        "with -o - the points are the only output on stdout (csv unless --format says)",
    )


def check_format(args: argparse.Namespace, size: int, max_rows: int | None) -> None:
    """Before any work: --format json/csv prints every point, so it needs -o - or at most
    ``max_rows`` points; a sweep (``max_rows=None``) prints its points only with -o - (its -o FILE
    holds them, and the summary is printed), so there any --format, table too, needs -o -."""
    fmt = getattr(args, "format", None)
    if fmt is None or getattr(args, "out", None) == STDOUT:
        return
    if max_rows is None:
        raise UsageError(
            f"--format {fmt} prints every point: give -o - for the points on stdout "
            "(-o FILE writes them to the file, and the summary is printed)"
        )
    if fmt != "table" and size > max_rows:
        raise UsageError(
            f"--format {fmt} prints every point and the grid has {size}: give -o - "
            f"(all points to stdout) or raise --max-rows to {size}"
        )


def _table(result: Any) -> dict[str, Any]:
    """The columns of an in-memory result as a table file holds them (axes, fixed parameters, outputs, best)."""
    grid = result.grid
    names = grid.outputs + (("best",) if grid.has_best else ())
    from ..sweep.writers import table_rows  # lazy: start-up time

    return table_rows(grid, {name: result.columns[name] for name in names})


def records(result: Any) -> list[dict[str, Any]]:
    """One JSON object per point: an integer parameter of the accountants as an integer (a
    calibrated rounds too, "inf" where unbounded), ``best`` by the accountant's name."""
    from ..sweep.writers import integer_columns  # lazy: start-up time

    grid = result.grid
    integers = integer_columns(grid)
    columns = {}
    for name, column in _table(result).items():
        values = column.tolist()
        if name == "best":
            values = [grid.accountants[code] for code in values]
        elif name in integers:
            values = [int(v) if isinstance(v, float) and math.isfinite(v) else v for v in values]
        columns[name] = [json_value(v) for v in values]
    return [dict(zip(columns, row)) for row in zip(*columns.values())]


def json_value(value: Any) -> Any:
    """JSON has no infinity: an unbounded value (rounds = inf) is written "inf"."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def _write(result: Any, fmt: str, stream: TextIO) -> None:
    if fmt == "json":
        json.dump(records(result), stream, indent=1)
        stream.write("\n")
    else:
        from ..sweep.writers import csv_header, csv_text  # lazy: start-up time

        stream.write(csv_header(result.grid) + csv_text(result.grid, _table(result)))


def report(result: Any, args: argparse.Namespace, *, max_rows: int | None) -> None:
    """Print ``result`` as ``args.format`` asks: every point (up to ``max_rows``; all of them with
    -o -), else the summary; then where the file and the picture were written."""
    to_stdout = getattr(args, "out", None) == STDOUT
    fmt = args.format or ("csv" if to_stdout else "table")
    limit = None if to_stdout else max_rows
    check_format(args, result.grid.size, max_rows)
    if fmt == "table" or result.columns is None:
        if limit is None and result.columns is not None:
            print_points(result, result.grid.size)
        elif limit is None:
            print_summary(result)
        else:
            print_points(result, limit)
    else:
        _write(result, fmt, sys.stdout)
    report_files(result, args)


def report_files(result: Any, args: argparse.Namespace) -> None:
    """Where the result file and the picture were written (on stderr when stdout carries the points)."""
    messages = sys.stderr if getattr(args, "out", None) == STDOUT else sys.stdout
    if result.path:
        print(f"result written to {os.path.abspath(result.path)}", file=messages)
    if getattr(args, "plot", None):
        from ..plots import plot_grid  # lazy: start-up time

        drawn = plot_grid(result.grid, args.plot, **picture_choices(args))
        print(f"plot written to {os.path.abspath(drawn)}", file=messages)
