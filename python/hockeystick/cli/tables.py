"""Printing results: aligned tables, the summary of a large sweep, every point of a small one.

A certified side is printed rounded outward (``base.outward_text``), an upper side up and a lower
side down, by its column's side (``column_sides``); inputs and estimates to nearest.  CSV and JSON
carry every digit.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ..base.optional import install_command
from ..base.outward_text import Side, outward_text
from .column_sides import grid_sides

__all__ = ["table", "describe", "print_summary", "print_points", "print_plot"]


def table(
    headers: Sequence[str],
    rows: Sequence[Sequence[Any]],
    sides: Sequence[Side | None] | None = None,
) -> str:
    """The rows under their headers, aligned; column i's numbers rounded toward ``sides[i]``."""
    column_sides = list(sides) if sides is not None else [None] * len(headers)
    cells = [[cell(v, s) for v, s in zip(row, column_sides)] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
    lines = [
        "  ".join(h.ljust(w) for h, w in zip(headers, widths)),
        "  ".join("-" * w for w in widths),
    ]
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in cells]
    return "\n".join(lines)


def cell(value: Any, side: Side | None = None) -> str:
    """A value as a table prints it: text as it is, a whole number in full, any other number to 6
    significant digits rounded toward ``side`` (``base.outward_text``; None: to nearest)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int,)) or (
        isinstance(value, float) and value.is_integer() and abs(value) < 1e15
    ):
        return f"{int(value)}"
    return outward_text(value, side)


def describe(point: dict[str, Any]) -> str:
    return ", ".join(f"{k}={cell(v)}" for k, v in point.items()) or "-"


def rate(points_per_second: float) -> str:
    for scale, unit in ((1e6, "M "), (1e3, "k ")):
        if points_per_second >= scale:
            return f"{points_per_second / scale:.3g} {unit}points/s"
    return f"{points_per_second:.3g} points/s"


def print_summary(result: Any) -> None:
    grid, summary = result.grid, result.summary
    print(
        f"{grid.size:,} points  {' + '.join(grid.accountants)} -> {grid.output}  "
        f"in {result.seconds:.2f} s ({rate(result.points_per_second)})"
    )
    if grid.fixed:
        print("fixed: " + describe(dict(grid.fixed)))
    rows = []
    sides = grid_sides(grid)  # the least and the largest of an upper column are upper sides too
    for name in grid.outputs:
        if name in summary.low:
            (lo, i), (hi, j) = summary.low[name], summary.high[name]
            rows.append(
                [
                    name,
                    cell(lo, sides[name]),
                    _where(summary, i, summary.low_count.get(name, 1), grid.size),
                    cell(hi, sides[name]),
                    _where(summary, j, summary.high_count.get(name, 1), grid.size),
                ]
            )
    if rows:
        print(table(["column", "min", "at", "max", "at"], rows))
    if summary.best_counts is not None:
        total = max(int(summary.best_counts.sum()), 1)
        print(
            "best bound from: "
            + ", ".join(
                f"{a} {100 * c / total:.1f}%" for a, c in zip(grid.accountants, summary.best_counts)
            )
        )


def _where(summary: Any, first: int, count: int, size: int) -> str:
    """Where an extreme sits: its point, or, when several points attain it (a plateau such as
    delta = 0), how many and the first of them in grid order (the axes' first values first), never one of
    them as if alone."""
    if count <= 1:
        return describe(summary.point(first))
    return f"{count:,} points ({100 * count / size:.3g}%), first: {describe(summary.point(first))}"


def print_points(result: Any, max_rows: int) -> None:
    """Every point as a table when there are few, else the summary."""
    columns = result.columns
    if columns is None or result.grid.size > max_rows:
        print_summary(result)
        return
    names = list(columns)
    rows = []
    for i in range(result.grid.size):
        row = []
        for n in names:
            v = columns[n][i]
            row.append(result.grid.accountants[int(v)] if n == "best" else v.item())
        rows.append(row)
    if result.grid.fixed:
        print("fixed: " + describe(dict(result.grid.fixed)))
    sides = grid_sides(result.grid)
    print(table(names, rows, [sides.get(n) for n in names]))


def print_plot(path: str | None) -> None:
    if path is None:
        print(f"plot skipped: matplotlib is not installed ({install_command('plot')})")
    else:
        print(f"plot written to {os.path.abspath(path)}")
