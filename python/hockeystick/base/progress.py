"""Progress of long accountant calls, reported per block of work.

A caller that shows progress (``sweep.run_sweep``'s bar, ``calibrate(progress=True)``)
installs a callback with ``reporting(callback)``; code that works through blocks (a PLD
accountant composing its points a batch at a time) calls ``advance(done)`` after each
block with the number of output elements that block finished.  Without a callback
``advance`` does nothing, so accountants report unconditionally and cost nothing when
nobody listens.  The callback is held in a ``contextvars.ContextVar``: threads and
asyncio tasks see the callback of the context they were started in, and a nested
``reporting`` replaces it until it exits.

A calibration reports targets: a block of targets solved moves its caller's listener by the block's
size (``calibrate``), and each side of a bracket covers the targets once (``shared(2)``).

Work made of named steps that count units of their own (the rows of paper 003's tables) runs each
step in ``stage(description, total)`` and reports its units through ``counted()``, which hides the
accountants' block reports inside a unit.  A caller that shows those steps (``hockeystick figures
--progress``) wraps the work in ``showing(True)``: each stage then has its own bar on stderr.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["advance", "counted", "reporting", "shared", "showing", "stage"]

_callback: ContextVar[Callable[[int], None] | None] = ContextVar(
    "hockeystick_progress", default=None
)
_shown: ContextVar[bool] = ContextVar("hockeystick_progress_shown", default=False)


def advance(done: int) -> None:
    """Report ``done`` more output elements finished (nothing happens when no one listens)."""
    callback = _callback.get()
    if callback is not None and done > 0:
        callback(int(done))


@contextmanager
def reporting(callback: Callable[[int], None] | None) -> Iterator[None]:
    """Within the block, ``advance(n)`` calls ``callback(n)`` (None: progress is not reported)."""
    token = _callback.set(callback)
    try:
        yield
    finally:
        _callback.reset(token)


@contextmanager
def shared(parts: int) -> Iterator[None]:
    """Within the block the same output elements are worked through ``parts`` times over (the lower
    and the upper side of a bracket): ``advance(n)`` moves the enclosing listener by the whole
    elements of the total reported divided by ``parts``, so the listener counts each element once,
    when its last pass ends."""
    if parts < 1:
        raise ValueError(f"parts must be a positive integer, got {parts!r}")
    outer = _callback.get()
    if outer is None:
        yield
        return
    lock = threading.Lock()
    reported, forwarded = 0, 0

    def forward(done: int) -> None:
        nonlocal reported, forwarded
        with lock:
            reported += done
            step = reported // parts - forwarded
            forwarded += step
        if step > 0:
            outer(step)

    with reporting(forward):
        yield


@contextmanager
def counted() -> Iterator[Callable[[int], None]]:
    """Within the block the work counts units of its own (a table's rows): the yielded ``done(n)``
    moves the enclosing listener by ``n``, and the block reports of the calls inside (an
    accountant's batches, a calibration's targets) are hidden from it, as they count other
    things."""
    outer = _callback.get()

    def done(n: int) -> None:
        if outer is not None and n > 0:
            outer(int(n))

    with reporting(None):
        yield done


@contextmanager
def showing(enabled: bool) -> Iterator[None]:
    """Within the block each ``stage`` has a bar on stderr when ``enabled`` (False: none, as outside any block)."""
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be True or False, got {enabled!r}")
    token = _shown.set(enabled)
    try:
        yield
    finally:
        _shown.reset(token)


@contextmanager
def stage(description: str, total: int | None = None, unit: str = "it") -> Iterator[None]:
    """A named step of ``total`` units (None: not known in advance).  Under ``showing(True)`` it has
    a tqdm bar on stderr, moved by ``advance`` within the block and left on its line when the step
    ends; otherwise ``advance`` reaches the enclosing listener as it would without the stage."""
    if not _shown.get():
        yield
        return
    from tqdm.auto import tqdm

    with (
        tqdm(total=total, desc=description, unit=unit, file=sys.stderr) as bar,
        reporting(bar.update),
    ):
        yield
