"""epsilon at delta and delta at epsilon to an accuracy: the C interface's one call beside the Python package's, CPU
seconds.

    python bench/bench_refine_capi.py                             # the installed package's libhockeystick_c
    python bench/bench_refine_capi.py --library build/capi/libhockeystick_c.so --rounds 31

Per setting, the same question asked three ways: through ctypes, ``hs_subsampled_gaussian_epsilon(sigma, q, rounds,
delta, accuracy, &lower, &upper)`` (or ``hs_subsampled_gaussian_delta(sigma, q, rounds, eps, accuracy, ...)``, the
accuracy then relative to the upper delta: the core's refinement loop over the library's brackets, Eigen's FFT by
default); in Python, ``SubsampledGaussianPLD(..., accuracy=a).epsilon(delta, bound="both")`` (or ``.delta(eps,
bound="both")``) on a fresh accountant, cold (the process's one-round cache, ``pld.refine.round_cache``, cleared first,
as the C call keeps nothing between calls) and warm (the cache kept: what a calibration's repeated calls see).  Both
drive the same loop, start grid and next-grid rules (pld/refine/point_refinement.hpp, next_grid.hpp); the brackets
differ within their charges (scipy's pocketfft against Eigen's FFT, and the package's screening of the add
direction, direct bins, blocks of rounds and, for delta near 1, the affinity and complement bounds).  Each is called
once untimed, then in interleaved rounds whose order rotates, the garbage collector off; the figures are the
medians of the process's CPU time per call, with the brackets, the CPU model and the load average before and after.
``OMP_NUM_THREADS`` is 1 unless the caller sets it, so the figures are per core.

The settings: the issue's (sigma 1, q 0.01, 10^4 rounds, delta 1e-5, accuracy 1e-3) and W3's (sigma 0.8,
q 0.001, 10^5 rounds); for delta, the same points at the epsilon their delta 1e-5 is met near (6.19, 2.58),
relative accuracy 1e-3.  pytest collects ``test_*``: one small setting per question, both brackets certified,
overlapping and within the accuracy (no timing).
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

import hockeystick.pld as pld
from hockeystick.pld.refine import round_cache

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # bench/ itself

from bench_capi import installed_library  # noqa: E402  (bench/bench_capi.py, on the path just above)
from results import cpu_id  # noqa: E402

# (question, sigma, sampling rate, rounds, delta or epsilon, accuracy)
SETTINGS = [
    ("epsilon", 1.0, 0.01, 10_000, 1e-5, 1e-3),
    ("epsilon", 0.8, 0.001, 100_000, 1e-5, 1e-3),
    ("delta", 1.0, 0.01, 10_000, 6.19, 1e-3),
    ("delta", 0.8, 0.001, 100_000, 2.58, 1e-3),
]
SMOKE = [("epsilon", 1.0, 0.01, 300, 1e-5, 1e-3), ("delta", 1.0, 0.01, 300, 1.0, 1e-3)]

Bracket = tuple[float, float]


class RefinementCall:
    """hs_subsampled_gaussian_epsilon and hs_subsampled_gaussian_delta through ctypes (hockeystick/hockeystick.h)."""

    def __init__(self, path: Path) -> None:
        lib = ctypes.CDLL(str(path))
        d = ctypes.c_double
        lib.hs_has_pld.restype = ctypes.c_int
        lib.hs_last_error.restype = ctypes.c_char_p
        lib.hs_fft_backend.restype = ctypes.c_char_p
        for question in ("epsilon", "delta"):
            call = getattr(lib, f"hs_subsampled_gaussian_{question}")
            call.argtypes = [d, d, ctypes.c_longlong, d, d, ctypes.POINTER(d), ctypes.POINTER(d)]
        self.lib = lib
        self.backend = lib.hs_fft_backend().decode()

    def bracket(
        self, question: str, sigma: float, q: float, rounds: int, x: float, accuracy: float
    ) -> Bracket:
        """The refined bracket on ``question`` (epsilon at delta x, or delta at epsilon x)."""
        lower, upper = ctypes.c_double(), ctypes.c_double()
        status = getattr(self.lib, f"hs_subsampled_gaussian_{question}")(
            sigma, q, rounds, x, accuracy, ctypes.byref(lower), ctypes.byref(upper)
        )
        if status != 0:
            raise RuntimeError(f"libhockeystick_c: {self.lib.hs_last_error().decode()}")
        return lower.value, upper.value


def python_bracket(
    question: str, sigma: float, q: float, rounds: int, x: float, accuracy: float, cold: bool
) -> Bracket:
    if cold:
        round_cache.clear()
    acc = pld.SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds, accuracy=accuracy)
    bracket = getattr(acc, question)(x, bound="both")  # a scalar argument: a pair of floats
    assert isinstance(bracket, tuple)
    return float(bracket[0]), float(bracket[1])


def _cpu(call: Callable[[], Bracket]) -> float:
    start = time.process_time()
    call()
    return time.process_time() - start


def interleaved(calls: list[Callable[[], Bracket]], rounds: int) -> list[float]:
    """The median CPU seconds of each call over ``rounds`` rounds, each round's order rotated by one, after one
    untimed call each."""
    for call in calls:
        call()
    times: list[list[float]] = [[] for _ in calls]
    gc.disable()
    try:
        for r in range(rounds):
            for k in range(len(calls)):
                i = (k + r) % len(calls)
                times[i].append(_cpu(calls[i]))
    finally:
        gc.enable()
    return [statistics.median(t) for t in times]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--library", type=Path, default=None, help="libhockeystick_c (default: the package's)"
    )
    parser.add_argument("--rounds", type=int, default=21, help="interleaved rounds per setting")
    args = parser.parse_args()
    path = args.library or installed_library()
    c = RefinementCall(path)
    if not c.lib.hs_has_pld():
        raise SystemExit("this libhockeystick_c was built without the PLD calls (no FFT backend)")
    print(
        f"CPU {cpu_id()}, {os.cpu_count()} cores, OMP_NUM_THREADS={os.environ['OMP_NUM_THREADS']}"
    )
    print(f"C library {path} (FFT: {c.backend}); load average before {os.getloadavg()[0]:.2f}")
    print(
        f"{'':7} {'sigma':>5} {'q':>6} {'rounds':>6} {'x':>6} {'acc':>6}  {'C s':>7} {'Py cold':>7} {'Py warm':>7}  "
        "brackets"
    )
    for setting in SETTINGS:
        calls = [
            partial(c.bracket, *setting),
            partial(python_bracket, *setting, True),
            partial(python_bracket, *setting, False),
        ]
        c_s, cold_s, warm_s = interleaved(calls, args.rounds)
        question, sigma, q, rounds, x, accuracy = setting
        print(
            f"{question:7} {sigma:5g} {q:6g} {rounds:6d} {x:6g} {accuracy:6g}  {c_s:7.4f} {cold_s:7.4f} {warm_s:7.4f}  "
            f"C {c.bracket(*setting)} Python {python_bracket(*setting, True)}"
        )
    print(f"load average after {os.getloadavg()[0]:.2f}")


@pytest.mark.parametrize("setting", SMOKE)
def test_c_call_and_the_packages_brackets_are_certified_overlap_and_meet_the_accuracy(
    setting: tuple[str, float, float, int, float, float],
) -> None:
    try:
        path = installed_library()
    except (FileNotFoundError, ImportError) as missing:
        pytest.skip(f"the package was installed without its C library: {missing}")
    c = RefinementCall(path)
    if not c.lib.hs_has_pld():
        pytest.skip("libhockeystick_c was built without the PLD calls")
    c_lower, c_upper = c.bracket(*setting)
    py_lower, py_upper = python_bracket(*setting, True)
    question, accuracy = setting[0], setting[-1]
    scale = (
        1.0 if question == "epsilon" else c_upper
    )  # delta's accuracy: relative to the upper side
    assert 0 < c_upper - c_lower <= accuracy * scale and 0 < py_upper - py_lower <= accuracy * max(
        py_upper, 1e-9
    )
    assert max(c_lower, py_lower) <= min(c_upper, py_upper)


if __name__ == "__main__":
    main()
