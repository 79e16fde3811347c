"""A sweep's running summary: each output column's extremes and where they sit, and which accountant
was best how often (folded chunk by chunk, so memory does not grow with the grid)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .grid import Chunk, Grid

__all__ = ["Summary"]


@dataclass
class Summary:
    """Running extremes of each output column and, for several accountants, who was best how often.

    ``low[name]`` / ``high[name]`` is (the extreme value, the flat grid index of the first point in
    grid order that attains it); ``low_count[name]`` / ``high_count[name]`` counts the points that
    attain it, so a plateau (delta = 0 over a whole region, say) is reported as one, not as one of
    its points."""

    grid: Grid
    low: dict[str, tuple[float, int]] = field(default_factory=dict)
    high: dict[str, tuple[float, int]] = field(default_factory=dict)
    best_counts: np.ndarray | None = None
    low_count: dict[str, int] = field(default_factory=dict)
    high_count: dict[str, int] = field(default_factory=dict)

    def update(self, chunk: Chunk, outputs: dict[str, np.ndarray]) -> None:
        """Fold one chunk's outputs into the running extremes."""
        for name in self.grid.outputs:
            col = outputs[name]
            if not col.size:
                continue
            i, j = (
                int(np.argmin(col)),
                int(np.argmax(col)),
            )  # one pass each; NaN (never expected) wins
            if np.isnan(col[i]):
                if np.all(np.isnan(col)):
                    continue
                i, j = int(np.nanargmin(col)), int(np.nanargmax(col))
            _fold(self.low, self.low_count, name, col, i, chunk.start, np.less)
            _fold(self.high, self.high_count, name, col, j, chunk.start, np.greater)
        if "best" in outputs:
            counts = np.bincount(outputs["best"], minlength=len(self.grid.accountants))
            self.best_counts = counts if self.best_counts is None else self.best_counts + counts

    def point(self, flat_index: int) -> dict[str, float]:
        """The axis values at a flat grid index."""
        idx = np.unravel_index(flat_index, self.grid.shape) if self.grid.shape else ()
        return {a.name: a.values[i].item() for a, i in zip(self.grid.axes, idx)}


def _fold(
    extreme: dict[str, tuple[float, int]],
    count: dict[str, int],
    name: str,
    col: np.ndarray,
    at: int,
    start: int,
    beyond: np.ufunc,
) -> None:
    """Fold a chunk's extreme ``col[at]`` into the running one: a value ``beyond`` it replaces it
    (its first point, its count in the chunk); an equal value adds the chunk's count, the first
    point staying the earlier."""
    value = float(col[at])
    here = int(np.count_nonzero(col == col[at]))
    if name not in extreme or beyond(value, extreme[name][0]):
        extreme[name], count[name] = (value, start + at), here
    elif value == extreme[name][0]:
        count[name] += here
