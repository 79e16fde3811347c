"""glibc's malloc thresholds raised, once per process, to the ceilings its own adjustment stops at: the
core's policy (cpp/include/hockeystick/pld/refine/window_heap.hpp, whose comment gives the reasons and
figures; the C library's calls that compose read it too), through the binding.

A refinement composes window after window of a few sizes, up to ``MAX_WINDOW`` = 2^22 points (tens of
MiB each).  Below the ceilings (``MMAP_THRESHOLD_CEILING``, glibc's DEFAULT_MMAP_THRESHOLD_MAX, 32 MiB
on 64-bit systems, and twice it for the trim threshold) every window's memory is mapped, zeroed by the
kernel and unmapped again.  No value changes, only where memory comes from; nothing is set where the C
library is not glibc, or where the environment tunes malloc already (a ``MALLOC_*`` variable or a
``glibc.malloc`` tunable in ``GLIBC_TUNABLES``): the user's choice stands.
"""

from __future__ import annotations

from collections.abc import Mapping

from ... import _core

# glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit systems (4 * 1024 * 1024 * sizeof(long))
MMAP_THRESHOLD_CEILING: int = _core.pld_refine.mmap_threshold_ceiling
# the trim threshold glibc's adjustment sets beside it: twice the mmap threshold
TRIM_THRESHOLD_CEILING: int = _core.pld_refine.trim_threshold_ceiling


def user_tunes_malloc(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the environment sets malloc's behaviour already (the core's ``tunes_malloc`` of each
    variable).

    Parameters
    ----------
    environ : mapping of str to str, optional
        The environment to read (default: the process's, which the core reads).

    Returns
    -------
    bool
        True where a ``MALLOC_`` variable (glibc's ``MALLOC_TRIM_THRESHOLD_``,
        ``MALLOC_MMAP_THRESHOLD_``, ...) or a ``glibc.malloc.`` tunable in ``GLIBC_TUNABLES`` is set.

    Raises
    ------
    None
        Reading the environment raises nothing.
    """
    if environ is None:  # the process's own, as the core reads it when it raises the thresholds
        return bool(_core.pld_refine.user_tunes_malloc())
    return any(
        _core.pld_refine.tunes_malloc(key=key, value=value) for key, value in environ.items()
    )


def raise_malloc_thresholds() -> bool:
    """Sets glibc's mmap and trim thresholds to ``MMAP_THRESHOLD_CEILING`` and
    ``TRIM_THRESHOLD_CEILING`` (the core's ``raise_malloc_thresholds``), once per process; later calls
    return the first call's outcome.

    Returns
    -------
    bool
        True where both thresholds are set (glibc, not tuned by the environment: ``user_tunes_malloc``);
        False elsewhere, where nothing is changed.

    Raises
    ------
    None
        A C library other than glibc (musl, macOS, Windows) is left as it is.
    """
    return bool(_core.pld_refine.raise_malloc_thresholds())
