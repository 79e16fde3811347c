"""glibc's malloc thresholds raised by the first refinement: a window-sized block then comes from the heap
(no mmap) and stays with the process when freed; an environment that tunes malloc is left alone."""

from __future__ import annotations

import ctypes
import json
import subprocess
import sys

import pytest

from hockeystick.pld.refine import malloc_thresholds
from tests.pld.refine.glibc import BLOCK_REPORT, GLIBC, IS_GLIBC, fresh_checks, fresh_environ

needs_glibc = pytest.mark.skipif(not GLIBC, reason="glibc >= 2.33 (mallinfo2) only")

# one child process: optionally a refinement (which raises the thresholds), then glibc's account of a
# window-sized block (``BLOCK_REPORT``)
CHILD = (
    """
import sys
from hockeystick import pld

if sys.argv[1] == "refine":
    lo, up = pld.SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=100, accuracy=1e-2).delta(
        1.0, bound="both")
    assert 0.0 <= lo <= up <= 1.0
"""
    + BLOCK_REPORT
)


def child(mode: str, **env: str) -> dict[str, int]:
    clean = fresh_environ()
    clean.pop("GLIBC_TUNABLES", None)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, mode],
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@needs_glibc
def test_default_process_maps_a_window_sized_block():
    # the reference: without a refinement glibc maps a fresh 24 MiB block (threshold 128 KiB)
    got = child("plain")
    assert got["mapped"] >= got["size"]


@needs_glibc
def test_refinement_serves_a_window_from_the_heap_and_keeps_it():
    got = child("refine")
    assert got["mapped"] == 0  # below the raised mmap threshold: from the heap
    assert got["keep"] >= got["size"]  # freed at the heap's top, below the trim threshold: kept


@needs_glibc
def test_a_tuned_environment_is_left_alone():
    got = child("refine", MALLOC_ARENA_MAX="2")
    assert got["mapped"] >= got["size"]
    got = child("refine", GLIBC_TUNABLES="glibc.malloc.tcache_count=0")
    assert got["mapped"] >= got["size"]


def test_user_tunes_malloc_reads_the_environment():
    assert not malloc_thresholds.user_tunes_malloc({"PATH": "/bin", "GLIBC_TUNABLES": ""})
    assert malloc_thresholds.user_tunes_malloc({"MALLOC_TRIM_THRESHOLD_": "0"})
    assert malloc_thresholds.user_tunes_malloc({"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=1"})
    assert not malloc_thresholds.user_tunes_malloc({"GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2"})


def test_thresholds_are_the_ceilings_glibc_reaches():
    # DEFAULT_MMAP_THRESHOLD_MAX on 64-bit glibc: 4 * 1024 * 1024 * sizeof(long); trim: twice it
    assert malloc_thresholds.MMAP_THRESHOLD_CEILING == 4 * 1024 * 1024 * ctypes.sizeof(
        ctypes.c_long
    )
    assert malloc_thresholds.TRIM_THRESHOLD_CEILING == 2 * malloc_thresholds.MMAP_THRESHOLD_CEILING


def test_raise_is_once_per_process():
    """In a fresh interpreter (the decision is the process's first call's, on its environment then)."""
    done = fresh_checks(__name__, "raise_checks")
    assert done.returncode == 0, done.stderr


def raise_checks() -> None:
    """The checks of test_raise_is_once_per_process."""
    first = malloc_thresholds.raise_malloc_thresholds()
    assert malloc_thresholds.raise_malloc_thresholds() is first
    assert first is (IS_GLIBC and not malloc_thresholds.user_tunes_malloc())
