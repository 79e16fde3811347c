"""The C library's calls that compose read the core's heap policy (pld/refine/window_heap.hpp), as the
package's refinements do (tests/pld/refine/test_malloc_thresholds.py): after one call glibc serves a
window-sized block from the heap and keeps it when freed, and an environment that tunes malloc is left
alone.  Each check runs in a fresh interpreter that loads the library alone (glibc's own account,
mallinfo2: hblkhd the bytes in mmapped blocks, keepcost the free top of the heap)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ..pld.refine.glibc import BLOCK_REPORT, GLIBC, fresh_environ

pytestmark = pytest.mark.skipif(not GLIBC, reason="glibc >= 2.33 (mallinfo2) only")

# one child process: the library loaded, optionally its epsilon call, then glibc's account of a window-sized
# block (``BLOCK_REPORT``)
CHILD = (
    """
import ctypes, sys

lib = ctypes.CDLL(sys.argv[1])
if sys.argv[2] == "call":
    d = ctypes.c_double
    lib.hs_subsampled_gaussian_epsilon.argtypes = [d, d, ctypes.c_longlong, d, d,
                                                   ctypes.POINTER(d), ctypes.POINTER(d)]
    lower, upper = d(), d()
    status = lib.hs_subsampled_gaussian_epsilon(1.0, 0.01, 100, 1e-5, 1e-2, ctypes.byref(lower),
                                                ctypes.byref(upper))
    assert status == 0 and 0.0 <= lower.value <= upper.value, (status, lower.value, upper.value)
"""
    + BLOCK_REPORT
)


@pytest.fixture(scope="module")
def library_path(capi_build) -> str:
    """The default build's library (conftest.py's capi_build); the tests skip where it has no PLD calls."""
    from .capi_library import with_pld_calls

    path = capi_build()
    with_pld_calls(path)
    return str(path)


def child(path: str, mode: str, **env: str) -> dict[str, int]:
    clean = fresh_environ()
    clean.pop("GLIBC_TUNABLES", None)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, path, mode],
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_loading_the_library_changes_nothing(library_path):
    got = child(library_path, "load")
    assert got["mapped"] >= got["size"]  # glibc's threshold still 128 KiB: mapped


def test_a_call_that_composes_serves_a_window_from_the_heap_and_keeps_it(library_path):
    got = child(library_path, "call")
    assert got["mapped"] == 0  # below the ceilings the call set: from the heap
    assert got["keep"] >= got["size"]  # freed at the heap's top, below the trim threshold: kept


def test_a_tuned_environment_is_left_alone_by_the_library(library_path):
    got = child(library_path, "call", MALLOC_ARENA_MAX="2")
    assert got["mapped"] >= got["size"]
    got = child(library_path, "call", GLIBC_TUNABLES="glibc.malloc.tcache_count=0")
    assert got["mapped"] >= got["size"]
