"""glibc's malloc thresholds raised, once per process, to the ceilings its own adjustment stops at.

A refinement composes window after window of a few sizes, up to ``MAX_WINDOW`` = 2^22 points (tens of
MiB each, as the composition's buffers and the numpy arrays around them).  glibc's malloc serves a
block above its mmap threshold by mmap and gives the heap's free top above its trim threshold back to
the system; both start at 128 KiB and rise only as the process frees mmapped blocks of up to
``MMAP_THRESHOLD_CEILING``.  Below those ceilings every window's memory is mapped and unmapped again:
each composition first zeroes its pages in the kernel, and in a threaded process every unmapping
interrupts the other cores to flush their address translations.  Setting the two thresholds to the
ceilings glibc's dynamic adjustment reaches (DEFAULT_MMAP_THRESHOLD_MAX, 32 MiB on 64-bit systems,
and twice it for the trim threshold: glibc malloc/malloc.c, ``free``'s threshold update) serves the
windows from memory the process holds already.  No value changes, only where memory comes from; the
setting holds for the process, as the dynamic adjustment would after one freed block of 32 MiB.

Nothing is set where the C library is not glibc, or where the environment tunes malloc already (a
``MALLOC_*`` variable or a ``glibc.malloc`` tunable in ``GLIBC_TUNABLES``): the user's choice stands.
"""

from __future__ import annotations

import os
import threading

# glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit systems (4 * 1024 * 1024 * sizeof(long))
MMAP_THRESHOLD_CEILING = 32 << 20
# the trim threshold glibc's adjustment sets beside it: twice the mmap threshold
TRIM_THRESHOLD_CEILING = 2 * MMAP_THRESHOLD_CEILING
# mallopt's parameter numbers (glibc malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3

_lock = threading.Lock()
_state: list[bool] = []  # empty until the first call; then whether the thresholds were set


def user_tunes_malloc(environ: dict[str, str] | os._Environ[str] | None = None) -> bool:
    """Whether the environment sets malloc's behaviour already.

    Parameters
    ----------
    environ : mapping of str to str, optional
        The environment to read (default: ``os.environ``).

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
    env = os.environ if environ is None else environ
    return any(key.startswith("MALLOC_") for key in env) or "glibc.malloc." in env.get(
        "GLIBC_TUNABLES", ""
    )


def raise_malloc_thresholds() -> bool:
    """Sets glibc's mmap and trim thresholds to ``MMAP_THRESHOLD_CEILING`` and
    ``TRIM_THRESHOLD_CEILING`` (module docstring), once per process; later calls return the first
    call's outcome.

    Returns
    -------
    bool
        True where both thresholds are set (glibc, not tuned by the environment: ``user_tunes_malloc``);
        False elsewhere, where nothing is changed.

    Raises
    ------
    None
        A C library without ``mallopt`` or ``gnu_get_libc_version`` (musl, macOS, Windows) is left
        as it is.
    """
    with _lock:
        if not _state:
            _state.append(_set_thresholds())
        return _state[0]


def _set_thresholds() -> bool:
    if user_tunes_malloc():
        return False
    import ctypes  # lazy: only a refinement loads it

    try:
        libc = ctypes.CDLL(None)
        glibc = hasattr(libc, "gnu_get_libc_version")
        mallopt = libc.mallopt
    except (OSError, TypeError, AttributeError):  # no C library by that name, or no mallopt
        return False
    if not glibc:
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    # mmap first: mallopt(M_TRIM_THRESHOLD) alone would leave the mmap threshold at 128 KiB with its
    # adjustment switched off
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_CEILING)) and bool(
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_CEILING)
    )
