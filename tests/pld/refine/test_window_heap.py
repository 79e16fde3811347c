"""The large reads' heap scope (``question.window_heap``): inside it glibc serves a window-sized block
from the heap, whose free memory it keeps; the outermost scope's end sets malloc_thresholds' ceilings
back (a block above them is mapped again) and, where the heap grew inside it past the ceilings' trim
threshold, gives the heap's free memory back to the system (a scope that grew it less leaves the
heap as the ceilings would).
glibc's own account (mallinfo2: hblkhd, the bytes in mmapped blocks; keepcost, the free top of the
heap) says where each block came from."""

from __future__ import annotations

import ctypes

import pytest

from hockeystick.pld.question import window_heap
from hockeystick.pld.refine import malloc_thresholds
from tests.pld.refine.glibc import GLIBC, LIBC, fresh_checks

pytestmark = pytest.mark.skipif(
    not GLIBC or malloc_thresholds.user_tunes_malloc(),
    reason="glibc >= 2.33 (mallinfo2), malloc not tuned by the environment",
)


class Info(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def mapped_by(size: int) -> int:
    """The bytes glibc maps for a block of ``size`` bytes, malloc'd and freed."""
    assert LIBC is not None
    LIBC.mallinfo2.restype = Info
    LIBC.malloc.restype = ctypes.c_void_p
    LIBC.malloc.argtypes = (ctypes.c_size_t,)
    LIBC.free.argtypes = (ctypes.c_void_p,)
    before = LIBC.mallinfo2().hblkhd
    block = LIBC.malloc(size)
    assert block
    mapped = int(LIBC.mallinfo2().hblkhd - before)
    LIBC.free(block)
    return mapped


def test_a_window_sized_block_comes_from_the_heap_inside_the_scope_only() -> None:
    """In a fresh interpreter: glibc maps a block whatever the threshold where the heap cannot hold it,
    which earlier work in the same process can bring about (a thread moved to a secondary arena, whose
    heaps hold at most 64 MiB; a program break that cannot grow past a mapping)."""
    done = fresh_checks(__name__, "heap_scope_checks")
    assert done.returncode == 0, done.stderr


def heap_scope_checks() -> None:
    """The checks of test_a_window_sized_block_comes_from_the_heap_inside_the_scope_only, on the thread's
    arena as glibc first gives it (the main arena)."""
    size = 256 << 20  # above malloc_thresholds' ceiling, below the scope's threshold
    assert malloc_thresholds.MMAP_THRESHOLD_CEILING < size < window_heap.WINDOW_MMAP_THRESHOLD
    with window_heap.heap_windows() as raised:
        assert raised
        with window_heap.heap_windows():  # nested: the same setting
            assert mapped_by(size) == 0
        assert mapped_by(size) == 0  # the inner scope's end leaves the outer one's setting
        assert LIBC is not None and LIBC.mallinfo2().keepcost >= size  # freed, kept
    # the outermost end: the ceilings again, and the free top given back
    assert mapped_by(size) >= size
    assert LIBC.mallinfo2().keepcost < malloc_thresholds.TRIM_THRESHOLD_CEILING


def test_a_scope_that_grew_no_heap_leaves_its_free_memory() -> None:
    """In a fresh interpreter: a free top the ceilings' trim threshold keeps is kept by a scope whose
    reads grew no heap (malloc_trim, which walks every free chunk, would give it back)."""
    done = fresh_checks(__name__, "small_scope_checks")
    assert done.returncode == 0, done.stderr


def small_scope_checks() -> None:
    """The checks of test_a_scope_that_grew_no_heap_leaves_its_free_memory."""
    assert LIBC is not None
    LIBC.mallinfo2.restype = Info
    assert malloc_thresholds.raise_malloc_thresholds()
    size = 16 << 20  # below the ceilings: from the heap, its free top kept after free
    assert size < malloc_thresholds.MMAP_THRESHOLD_CEILING
    assert mapped_by(size) == 0
    kept = int(LIBC.mallinfo2().keepcost)
    assert kept >= size
    with window_heap.heap_windows() as raised:
        assert raised
    assert LIBC.mallinfo2().keepcost >= kept  # not trimmed
    with window_heap.heap_windows():  # a scope that grows the heap past the trim threshold
        assert mapped_by(2 * malloc_thresholds.TRIM_THRESHOLD_CEILING) == 0
    assert LIBC.mallinfo2().keepcost < size  # trimmed


def test_the_setting_is_undone_when_the_scope_raises() -> None:
    with pytest.raises(RuntimeError, match="inside"):
        with window_heap.heap_windows():
            raise RuntimeError("inside")
    # above the ceiling, below the scope's threshold, and above every free byte the heap holds (the blocks
    # earlier reads freed inside it), so that only the mmap threshold decides where it comes from
    assert LIBC is not None
    LIBC.mallinfo2.restype = Info
    size = max(48 << 20, int(LIBC.mallinfo2().fordblks) + (2 << 20))
    assert malloc_thresholds.MMAP_THRESHOLD_CEILING < size < window_heap.WINDOW_MMAP_THRESHOLD
    assert mapped_by(size) >= size
