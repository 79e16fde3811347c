"""The C library's calls to an accuracy at small delta (cpp/capi/refine.cpp): their status says whether the bracket
meets the accuracy, and where the plain composition's round-off leaves it wide they read the bracket under an
exponential tilt (cpp/include/hockeystick/pld/compose/tilted.hpp, pld/refine/tilted_question.hpp), as the Python
package's front door does (pld/compose/tilted.py, pld/refine/tilted_question.py).

- Status: HS_OK only with a bracket within the accuracy; a bracket no grid narrows to it is written, certified, with
  HS_ACCURACY_NOT_MET and the width in hs_last_error() (from ctypes here, from C in test_capi_refinement.py).
- Tilted reads: on the README's DP-SGD run and on DP-FedAvg at delta 1e-10 and 1e-12 the C bracket meets the
  accuracy, overlaps the package's front-door bracket (both certified), and its upper side is within
  max(1e-3, 0.1 %) of the front door's.
- Direction: the tilted composition of the Gaussian mechanism (q = 1, where theta of sqrt(T) / sigma is exact)
  holds the exact delta, and the tilted C bracket of one round holds the exact epsilon (mpmath, 50 digits).
"""

from __future__ import annotations

import ctypes
import math

import mpmath as mp
import pytest

from hockeystick.pld import SubsampledGaussianPLD

from ..pld.test_pld_epsilon_refinement import subsampled_gaussian_delta
from .test_capi import HS_ACCURACY_NOT_MET, HS_INVALID_ARGUMENT, HS_OK, Library

pytestmark = pytest.mark.slow  # conftest.py's capi_build configures and compiles the library, once per run

_D = ctypes.c_double
_PD = ctypes.POINTER(_D)


@pytest.fixture(scope="module")
def lib(capi_build) -> Library:
    """The library as configured by default (Eigen's FFT), with the calls to an accuracy declared."""
    library = Library(capi_build())
    if not library.lib.hs_has_pld():
        pytest.skip("libhockeystick_c was built without the PLD calls: install libeigen3-dev (Eigen) for them")
    library.lib.hs_subsampled_gaussian_epsilon.argtypes = [_D, _D, ctypes.c_longlong, _D, _D, _PD, _PD]
    library.lib.hs_subsampled_gaussian_delta.argtypes = [_D, _D, ctypes.c_longlong, _D, _D, _PD, _PD]
    library.lib.hs_subsampled_gaussian_sigma.argtypes = [_D, _D, _D, ctypes.c_longlong, _D, _PD]
    return library


def asked(lib: Library, call: str, *args: float) -> tuple[int, float, float]:
    """The status and the bracket of hs_subsampled_gaussian_<call> (the outputs start at -1: written or not)."""
    lower, upper = _D(-1.0), _D(-1.0)
    status = getattr(lib.lib, f"hs_subsampled_gaussian_{call}")(*args, ctypes.byref(lower), ctypes.byref(upper))
    return status, lower.value, upper.value


def test_an_epsilon_bracket_wider_than_asked_says_so_and_is_written_certified(lib):
    status, lower, upper = asked(lib, "epsilon", 1.0, 0.01, 100, 1e-5, 1e-12)
    assert status == HS_ACCURACY_NOT_MET
    assert "wider than accuracy=1e-12" in lib.last_error() and "written, certified" in lib.last_error()
    assert 0.0 < lower < upper < math.inf and upper - lower > 1e-12
    py_lower, py_upper = SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=100).epsilon(1e-5, bound="both")
    assert max(lower, py_lower) <= min(upper, py_upper)  # both certified


def test_a_delta_bracket_wider_than_asked_says_so_and_is_written_certified(lib):
    status, lower, upper = asked(lib, "delta", 1.0, 0.01, 100, 0.5, 1e-14)
    assert status == HS_ACCURACY_NOT_MET and "wider than accuracy=1e-14" in lib.last_error()
    assert 0.0 < lower < upper < 1.0 and (upper - lower) / upper > 1e-14
    py_lower, py_upper = SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=100).delta(0.5, bound="both")
    assert max(lower, py_lower) <= min(upper, py_upper)


def test_a_bracket_within_the_accuracy_is_ok_and_a_refusal_writes_nothing(lib):
    status, lower, upper = asked(lib, "epsilon", 1.0, 0.01, 100, 1e-5, 1e-3)
    assert status == HS_OK and 0.0 < upper - lower <= 1e-3
    status, lower, upper = asked(lib, "epsilon", 1.0, 0.01, 100, 0.0, 1e-3)
    assert status == HS_INVALID_ARGUMENT and lower == upper == -1.0


def test_calibration_reads_a_bracket_wider_than_asked_by_its_certified_upper_side(lib):
    """hs_subsampled_gaussian_sigma asks its epsilons to an accuracy no grid reaches: each still certifies sigma."""
    sigma = _D()
    assert lib.lib.hs_subsampled_gaussian_sigma(3.0, 1e-6, 0.05, 300, 1e-12, ctypes.byref(sigma)) == HS_OK
    _, _, upper = asked(lib, "epsilon", sigma.value, 0.05, 300, 1e-6, 1e-3)
    assert upper <= 3.0 + 1e-3


def test_one_round_delta_status_and_bracket_hold_the_exact_delta(lib):
    status, lower, upper = asked(lib, "delta", 1.0, 0.01, 1, 0.5, 1e-4)
    assert status == HS_OK
    with mp.workdps(50):
        assert lower <= float(subsampled_gaussian_delta(1.0, 0.01, mp.mpf(0.5))) <= upper
