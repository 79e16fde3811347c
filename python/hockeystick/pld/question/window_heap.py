"""glibc's malloc serving the large tilted windows from its heap while the reads that compose them run:
the core's scope (cpp/include/hockeystick/pld/refine/window_heap.hpp's ``WindowHeap``, whose comment
gives the reasons; the C library's calls that compose open it too), through the binding.

The tilted factors' reads (``tilted_factors``) and the reads past the tilted reads' cap (the core's
rare_finer_grids.hpp) compose windows of 10^6 to 5e7 points, above the mmap threshold
``malloc_thresholds`` sets.  Inside ``heap_windows`` the mmap threshold is ``WINDOW_MMAP_THRESHOLD`` and
the trim threshold ``WINDOW_TRIM_THRESHOLD``: a block up to 1 GiB comes from the heap, and the heap keeps
what the reads free for the next composition.  Leaving the outermost scope sets both back to
``malloc_thresholds``' ceilings and, where the heap grew inside it past the ceilings' trim threshold,
gives the heap's free memory back to the system, so a process holds no more after the reads than it
would have without the scope (a scope that grew it less leaves it as the ceilings would: trimming walks
every free chunk of the heap, which in a long process costs more than a short question's reads).
Nested and concurrent scopes (an accountant's worker threads) share one setting, made by the first to
enter and undone by the last to leave.  No value changes, only where memory comes from; nothing is set where
``malloc_thresholds.raise_malloc_thresholds`` sets nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ... import _core

# the blocks served from the heap inside the scope: up to 1 GiB
WINDOW_MMAP_THRESHOLD: int = _core.pld_refine.window_mmap_threshold
# the free heap top kept inside the scope: mallopt's largest value (its parameter is a C int)
WINDOW_TRIM_THRESHOLD: int = _core.pld_refine.window_trim_threshold


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
    with _core.pld_refine.WindowHeap() as active:
        yield bool(active)
