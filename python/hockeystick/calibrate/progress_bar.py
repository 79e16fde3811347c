"""A calibration's progress bar: points evaluated, and the targets still open."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any

from ..base import progress as progress_hook


class ProgressBar:
    """The calibration's progress: points evaluated (a bar without a total: the number of steps is
    not known in advance) and, as its postfix, the targets still open in the blocks being solved.
    Disabled, it still masks an outer listener (a sweep's bar counts grid points, not the trial
    evaluations inside them).  Blocks solved in threads share it (updates under a lock)."""

    def __init__(self, enabled: bool, name: str, parameter: str) -> None:
        self.enabled, self.desc = enabled, f"calibrate {name} {parameter}"
        self.bar: Any = None
        self.lock = threading.Lock()
        self.open: dict[int, int] = {}  # per thread, the targets its current call evaluates

    def __enter__(self) -> ProgressBar:
        if self.enabled:
            from tqdm.auto import (
                tqdm,
            )  # lazy: start-up time (only a calibration showing a bar loads tqdm)

            self.bar = tqdm(
                unit="pt", unit_scale=True, file=sys.stderr, desc=self.desc, smoothing=0.1
            )
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.close()

    def evaluate(self, call: Callable[[], Any], points: int) -> Any:
        """``call()`` (one accountant call on ``points`` points), the bar moved per reported block."""
        if self.bar is None:
            with progress_hook.reporting(None):
                return call()
        with self.lock:
            self.open[threading.get_ident()] = points
            self.bar.set_postfix_str(f"{sum(self.open.values())} targets open", refresh=False)
        moved = [0]

        def advance(done: int) -> None:
            step = min(done, points - moved[0])
            moved[0] += step
            with self.lock:
                self.bar.update(step)

        with progress_hook.reporting(advance):
            out = call()
        with self.lock:
            self.bar.update(points - moved[0])
            self.open[threading.get_ident()] = 0
        return out
