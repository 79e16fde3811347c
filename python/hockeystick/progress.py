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
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["advance", "reporting", "shared"]

_callback: ContextVar[Callable[[int], None] | None] = ContextVar("hockeystick_progress", default=None)


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
    """Within the block the same output elements are worked through ``parts`` times over (the lower and the
    upper side of a bracket): ``advance(n)`` moves the enclosing listener by the whole elements of the total
    reported divided by ``parts``, so the listener counts each element once, when its last pass ends."""
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
