"""The bars a sweep shows on stderr: the run's over its points, the preflight's over its probe, the
pilot's over the points it times; and the mover that advances a bar within a chunk as the
accountants report finished blocks (``hockeystick.base.progress``)."""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["progress_bar", "checking_bar", "pilot_bar", "BlockProgress", "HiddenBar"]

# a bar counts points as integers (6/96), with SI prefixes (1.00M/4.00M) from this many on
_SCALED_BAR = 100_000


def progress_bar(total: int, progress: bool | None) -> Any:
    """The sweep's bar over its points; its rate and remaining time are the run's measured pace."""
    enabled = sys.stderr.isatty() if progress is None else progress
    if not enabled:
        return HiddenBar()
    from tqdm.auto import tqdm  # lazy: start-up time (tqdm.auto loads its notebook probes)

    return tqdm(
        total=total,
        unit="pt",
        unit_scale=total >= _SCALED_BAR,
        file=sys.stderr,
        desc="sweep",
        smoothing=0.1,
    )


def checking_bar(total: int, progress: bool | None) -> Any:
    """The preflight's bar over the probe's points (every axis value, every corner of the grid),
    cleared when done so the sweep's bar takes its line."""
    enabled = sys.stderr.isatty() if progress is None else progress
    if not enabled:
        return HiddenBar()
    from tqdm.auto import tqdm  # lazy: start-up time (tqdm.auto loads its notebook probes)

    return tqdm(
        total=total,
        unit="pt",
        file=sys.stderr,
        desc="checking each axis value and corner",
        leave=False,
    )


def pilot_bar(progress: bool | None) -> Any:
    """The pilot's bar over the points it evaluates (how many is not known in advance: it grows its
    chunk until one takes the pilot's time, ``plan.py``), cleared when done so the sweep's bar takes
    its line."""
    enabled = sys.stderr.isatty() if progress is None else progress
    if not enabled:
        return HiddenBar()
    from tqdm.auto import tqdm  # lazy: start-up time (tqdm.auto loads its notebook probes)

    return tqdm(unit="pt", file=sys.stderr, desc="timing pilot", leave=False)


class HiddenBar:
    """A bar that is not shown (stderr is no terminal, or progress=False): the part of tqdm's
    interface a sweep uses (a context manager, ``update``, ``close``), without importing tqdm, whose
    import costs a command line's first answer more than its own arithmetic."""

    def __enter__(self) -> HiddenBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: float = 1) -> None:
        return None

    def close(self) -> None:
        return None


class BlockProgress:
    """Moves the bar within a chunk as the accountants report finished blocks of points
    (``hockeystick.base.progress``: a PLD accountant reports each batch it composed), so a chunk
    of slow points does not sit at 0 %; ``finish`` moves it to the chunk's end."""

    def __init__(self, bar: Any, size: int, accountants: int) -> None:
        self.bar, self.size, self.accountants, self.moved, self.reported = (
            bar,
            size,
            accountants,
            0,
            0,
        )

    def advance(self, done: int) -> None:
        """``done`` more output elements of one accountant (each accountant covers the chunk once)."""
        self.reported += done
        self._move_to(min(self.size, self.reported // self.accountants))

    def finish(self) -> None:
        self._move_to(self.size)

    def _move_to(self, position: int) -> None:
        if position > self.moved:
            self.bar.update(position - self.moved)
            self.moved = position
