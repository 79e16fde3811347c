"""The process's C library for the tests of glibc's malloc settings (``refine.malloc_thresholds``,
``question.window_heap``): ``LIBC`` (None where the platform has no process-wide handle), whether it is
glibc, and whether it has ``mallinfo2`` (glibc >= 2.33), glibc's own account of where blocks came from."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path


def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None)
    except (OSError, TypeError):  # Windows: no process-wide C library handle
        return None


LIBC = _libc()
IS_GLIBC = LIBC is not None and hasattr(LIBC, "gnu_get_libc_version")
GLIBC = sys.platform.startswith("linux") and IS_GLIBC and hasattr(LIBC, "mallinfo2")


def fresh_environ() -> dict[str, str]:
    """This process's environment without the ``MALLOC_`` variables an earlier test may have left in it
    (Dask's nanny writes its pre-spawn environment into the process that starts a cluster whenever it
    spawns a worker): the environment a user's fresh interpreter starts with, for a test that runs one."""
    return {key: value for key, value in os.environ.items() if not key.startswith("MALLOC_")}


def fresh_checks(module: str, checks: str) -> subprocess.CompletedProcess[str]:
    """``module.checks()`` run in a fresh interpreter from the repository root (the tests import as
    ``tests.pld.refine``), in ``fresh_environ``: for checks whose outcome is the process's first
    malloc settings, or its heap as glibc first gives it."""
    return subprocess.run(
        [sys.executable, "-c", f"import {module} as m; m.{checks}()"],
        cwd=Path(__file__).resolve().parents[3],
        capture_output=True,
        text=True,
        env=fresh_environ(),
    )


# the end of a child process that reports where glibc serves a window-sized block after what the child did before
# it: a 24 MiB block malloc'd and freed, with glibc's own account (mallinfo2: hblkhd, the bytes in mmapped blocks;
# keepcost, the free top of the heap the process keeps), printed as one JSON line
BLOCK_REPORT = """
import ctypes, json

class Info(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Info
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = (ctypes.c_size_t,)
libc.free.argtypes = (ctypes.c_void_p,)
size = 24 << 20
before = libc.mallinfo2().hblkhd
block = libc.malloc(size)
mapped = libc.mallinfo2().hblkhd - before
libc.free(block)
print(json.dumps({"mapped": mapped, "keep": libc.mallinfo2().keepcost, "size": size}))
"""
