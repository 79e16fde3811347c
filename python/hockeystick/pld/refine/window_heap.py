"""glibc's malloc serving the large tilted windows from its heap while the reads that compose them run.

The tilted factors' reads (``tilted_factors``) and the reads past the tilted reads' cap
(the core's rare_finer_grids.hpp) compose windows of 10^6 to 5e7 points; each composition's blocks (its FFT
buffers, the window, its untilted masses: tens to hundreds of MiB each) are above the mmap
threshold ``malloc_thresholds`` sets (32 MiB, the ceiling of glibc's own adjustment).  So glibc
maps every such block, the kernel zeroes its pages as they are first touched, and the block is
unmapped when freed: a read pays its memory's page faults again at every composition, and after
10^8 rounds of a rate of 1e-6 that is about as much CPU in the kernel as in the reads.

Inside ``heap_windows`` the mmap threshold is ``WINDOW_MMAP_THRESHOLD`` and the trim threshold
``WINDOW_TRIM_THRESHOLD``: a block up to 1 GiB comes from the heap, and the heap keeps what the
reads free for the next composition.  Leaving the outermost scope sets both back to
``malloc_thresholds``' ceilings and gives the heap's free memory back to the system
(``malloc_trim``), so a process holds no more after the reads than it would have without the scope.
Nested and concurrent scopes (an accountant's worker threads) share one setting, made by the first
to enter and undone by the last to leave.  No value changes, only where memory comes from; nothing
is set where ``malloc_thresholds.raise_malloc_thresholds`` sets nothing (a C library other than
glibc, or an environment that tunes malloc: the user's choice stands).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from .malloc_thresholds import (
    M_MMAP_THRESHOLD,
    M_TRIM_THRESHOLD,
    MMAP_THRESHOLD_CEILING,
    TRIM_THRESHOLD_CEILING,
    raise_malloc_thresholds,
)

if TYPE_CHECKING:
    import ctypes

# the blocks served from the heap inside the scope: up to 1 GiB (a window of 2^26 points, the
# reads' largest cap, holds 512 MiB of doubles)
WINDOW_MMAP_THRESHOLD = 1 << 30
# the free heap top kept inside the scope: mallopt's largest value (its parameter is a C int)
WINDOW_TRIM_THRESHOLD = (1 << 31) - 1

_lock = threading.Lock()
# the scopes open now, and whether the outermost one set the thresholds
_open: list[int] = [0]
_set: list[bool] = [False]


def _libc() -> ctypes.CDLL:
    """The process's C library (glibc wherever ``raise_malloc_thresholds`` set its thresholds),
    with ``mallopt`` and ``malloc_trim`` typed."""
    import ctypes  # lazy: only a read that composes large windows loads it

    libc = ctypes.CDLL(None)
    libc.mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    libc.mallopt.restype = ctypes.c_int
    libc.malloc_trim.argtypes = (ctypes.c_size_t,)
    libc.malloc_trim.restype = ctypes.c_int
    return libc


@contextmanager
def heap_windows() -> Iterator[bool]:
    """A scope whose large blocks glibc serves from its heap (module docstring).

    Returns
    -------
    contextlib.AbstractContextManager of bool
        Yields whether the thresholds are raised for the scope: False where
        ``malloc_thresholds.raise_malloc_thresholds`` sets nothing (not glibc, or the environment
        tunes malloc).

    Raises
    ------
    None
        Setting the thresholds raises nothing; an exception of the scope's body passes through,
        after the thresholds are set back.
    """
    with _lock:
        if _open[0] == 0 and raise_malloc_thresholds():
            libc = _libc()
            # mmap first, as malloc_thresholds does: the trim threshold alone would switch off the
            # mmap threshold's adjustment
            libc.mallopt(M_MMAP_THRESHOLD, WINDOW_MMAP_THRESHOLD)
            libc.mallopt(M_TRIM_THRESHOLD, WINDOW_TRIM_THRESHOLD)
            _set[0] = True
        _open[0] += 1
        active = _set[0]
    try:
        yield active
    finally:
        with _lock:
            _open[0] -= 1
            if _open[0] == 0 and _set[0]:
                libc = _libc()
                libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_CEILING)
                libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_CEILING)
                libc.malloc_trim(0)
                _set[0] = False
