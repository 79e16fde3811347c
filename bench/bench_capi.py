"""The C interface's certified epsilon bracket beside the Python package's, warm, CPU seconds.

    python bench/bench_capi.py                                    # the installed package's libhockeystick_c
    python bench/bench_capi.py --library build/capi/libhockeystick_c.so --pairs 41

Per setting, the same question asked both ways, each on fresh objects every time: through ctypes,
``hs_pld_subsampled_gaussian`` + ``hs_pld_self_compose`` + ``hs_pld_epsilon_bracket`` (+ the frees), and in Python,
``pld.subsampled_gaussian(sigma, q, value_discretization_interval=h).self_compose(rounds).epsilon(delta,
bound="both")``.  Both are called once untimed (the warm-up: lazy imports, the C library's FFT plans), then in
interleaved pairs, the order alternating (ABBA), the garbage collector off; the figures are the medians of the
process's CPU time per call, with their ratio (Python / C: above 1, the C call is the faster), both brackets, the
CPU model and the load average before and after.  ``OMP_NUM_THREADS`` is 1 unless the caller sets it (as
bench/run.py), so the figures are per core.

The settings: the C interface's issue's (sigma 1, q 0.01, 10^4 rounds, h 1e-4, delta 1e-5), a coarser grid and
fewer rounds, and the Gaussian mechanism (q = 1: one direction).  pytest collects ``test_*``: one small
setting, both brackets certified and overlapping (no timing).
"""

from __future__ import annotations

import os

os.environ.setdefault(
    "OMP_NUM_THREADS", "1"
)  # before the compiled core and the C library start OpenMP

import argparse
import ctypes
import gc
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

import hockeystick.cpp
import hockeystick.pld as pld

sys.path.insert(
    0, os.path.dirname(os.path.abspath(__file__))
)  # bench/ itself, for bench/results.py

from results import cpu_id  # noqa: E402  (bench/results.py, on the path just above)

# (sigma, sampling rate, rounds, value_discretization_interval, delta)
SETTINGS = [
    (1.0, 0.01, 10_000, 1e-4, 1e-5),
    (1.0, 0.01, 1_000, 1e-3, 1e-5),
    (2.0, 1.0, 1_000, 1e-4, 1e-6),
]
SMOKE = (1.0, 0.01, 100, 1e-3, 1e-5)

Bracket = tuple[float, float]


class CInterface:
    """hs_pld_* through ctypes, their argument types declared (hockeystick/hockeystick.h)."""

    def __init__(self, path: Path) -> None:
        lib = ctypes.CDLL(str(path))
        d, handle = ctypes.c_double, ctypes.c_void_p
        lib.hs_has_pld.restype = ctypes.c_int
        lib.hs_last_error.restype = ctypes.c_char_p
        lib.hs_fft_backend.restype = ctypes.c_char_p
        lib.hs_pld_subsampled_gaussian.argtypes = [d, d, d, ctypes.POINTER(handle)]
        lib.hs_pld_self_compose.argtypes = [handle, ctypes.c_longlong, ctypes.POINTER(handle)]
        lib.hs_pld_epsilon_bracket.argtypes = [handle, d, ctypes.POINTER(d), ctypes.POINTER(d)]
        lib.hs_pld_free.argtypes = [handle]
        lib.hs_pld_free.restype = None
        self.lib = lib
        self.backend = lib.hs_fft_backend().decode()

    def _checked(self, status: int) -> None:
        if status != 0:
            raise RuntimeError(f"libhockeystick_c: {self.lib.hs_last_error().decode()}")

    def bracket(self, sigma: float, q: float, rounds: int, h: float, delta: float) -> Bracket:
        one, composed = ctypes.c_void_p(), ctypes.c_void_p()
        lower, upper = ctypes.c_double(), ctypes.c_double()
        try:
            self._checked(self.lib.hs_pld_subsampled_gaussian(sigma, q, h, ctypes.byref(one)))
            self._checked(self.lib.hs_pld_self_compose(one, rounds, ctypes.byref(composed)))
            self._checked(
                self.lib.hs_pld_epsilon_bracket(
                    composed, delta, ctypes.byref(lower), ctypes.byref(upper)
                )
            )
        finally:
            self.lib.hs_pld_free(composed)
            self.lib.hs_pld_free(one)
        return lower.value, upper.value


def python_bracket(sigma: float, q: float, rounds: int, h: float, delta: float) -> Bracket:
    dist = pld.subsampled_gaussian(sigma, q, value_discretization_interval=h).self_compose(rounds)
    bracket = dist.epsilon(delta, bound="both")  # a scalar delta: a pair of floats
    assert isinstance(bracket, tuple)
    return float(bracket[0]), float(bracket[1])


def installed_library() -> Path:
    """The C library the installed package carries (hockeystick/lib: libhockeystick_c.so, .dylib, or
    hockeystick_c.dll)."""
    folder = Path(hockeystick.cpp.get_library_dir())
    found = sorted(
        p for p in folder.glob("*hockeystick_c.*") if p.suffix in (".so", ".dylib", ".dll")
    )
    if not found:
        raise FileNotFoundError(f"no libhockeystick_c in {folder}")
    return found[0]


def _cpu(call: Callable[[], Bracket]) -> float:
    start = time.process_time()
    call()
    return time.process_time() - start


def interleaved(
    c_call: Callable[[], Bracket], py_call: Callable[[], Bracket], pairs: int
) -> tuple[float, float]:
    """The median CPU seconds of each call over `pairs` interleaved pairs (ABBA), after one untimed call each."""
    c_call(), py_call()
    c_times, py_times = [], []
    gc.disable()
    try:
        for i in range(pairs):
            if i % 2 == 0:
                c_times.append(_cpu(c_call))
                py_times.append(_cpu(py_call))
            else:
                py_times.append(_cpu(py_call))
                c_times.append(_cpu(c_call))
    finally:
        gc.enable()
    return statistics.median(c_times), statistics.median(py_times)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--library", type=Path, default=None, help="libhockeystick_c (default: the package's)"
    )
    parser.add_argument("--pairs", type=int, default=31, help="interleaved pairs per setting")
    args = parser.parse_args()
    c = CInterface(args.library or installed_library())
    if not c.lib.hs_has_pld():
        raise SystemExit("this libhockeystick_c was built without the PLD calls (no FFT backend)")
    print(
        f"CPU {cpu_id()}, {os.cpu_count()} cores, OMP_NUM_THREADS={os.environ['OMP_NUM_THREADS']}"
    )
    print(
        f"C library {args.library or installed_library()} (FFT: {c.backend}); load average before "
        f"{os.getloadavg()[0]:.2f}"
    )
    print(
        f"{'sigma':>6} {'q':>5} {'rounds':>6} {'h':>6} {'delta':>6}  {'C s':>8} {'Python s':>8} {'Py/C':>5}  brackets"
    )
    for setting in SETTINGS:
        c_s, py_s = interleaved(
            partial(c.bracket, *setting), partial(python_bracket, *setting), args.pairs
        )
        sigma, q, rounds, h, delta = setting
        print(
            f"{sigma:6g} {q:5g} {rounds:6d} {h:6g} {delta:6g}  {c_s:8.4f} {py_s:8.4f} {py_s / c_s:5.2f}  "
            f"C {c.bracket(*setting)} Python {python_bracket(*setting)}"
        )
    print(f"load average after {os.getloadavg()[0]:.2f}")


def test_c_bracket_and_the_packages_are_certified_and_overlap() -> None:
    try:
        path = installed_library()
    except (FileNotFoundError, ImportError) as missing:
        pytest.skip(f"the package was installed without its C library: {missing}")
    c = CInterface(path)
    if not c.lib.hs_has_pld():
        pytest.skip("libhockeystick_c was built without the PLD calls")
    c_lower, c_upper = c.bracket(*SMOKE)
    py_lower, py_upper = python_bracket(*SMOKE)
    assert c_lower <= c_upper and py_lower <= py_upper
    assert max(c_lower, py_lower) <= min(c_upper, py_upper)


if __name__ == "__main__":
    main()
