"""A sweep's running summary: each output column's extremes and where they sit, and which accountant was best
how often (folded chunk by chunk, so memory does not grow with the grid)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .grid import Chunk, Grid

__all__ = ["Summary"]


@dataclass
class Summary:
    """Running extremes of each output column and, for several accountants, who was best how often."""

    grid: Grid
    low: dict[str, tuple[float, int]] = field(default_factory=dict)
    high: dict[str, tuple[float, int]] = field(default_factory=dict)
    best_counts: np.ndarray | None = None

    def update(self, chunk: Chunk, outputs: dict[str, np.ndarray]) -> None:
        """Fold one chunk's outputs into the running extremes."""
        for name in self.grid.outputs:
            col = outputs[name]
            if not col.size:
                continue
            i, j = int(np.argmin(col)), int(np.argmax(col))  # one pass each; NaN (never expected) wins
            if np.isnan(col[i]):
                if np.all(np.isnan(col)):
                    continue
                i, j = int(np.nanargmin(col)), int(np.nanargmax(col))
            if name not in self.low or col[i] < self.low[name][0]:
                self.low[name] = (float(col[i]), chunk.start + i)
            if name not in self.high or col[j] > self.high[name][0]:
                self.high[name] = (float(col[j]), chunk.start + j)
        if "best" in outputs:
            counts = np.bincount(outputs["best"], minlength=len(self.grid.accountants))
            self.best_counts = counts if self.best_counts is None else self.best_counts + counts

    def point(self, flat_index: int) -> dict[str, float]:
        """The axis values at a flat grid index."""
        idx = np.unravel_index(flat_index, self.grid.shape) if self.grid.shape else ()
        return {a.name: a.values[i].item() for a, i in zip(self.grid.axes, idx)}
