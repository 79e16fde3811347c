"""The C library's epsilon call (cpp/capi/refine.cpp's epsilon_read) against the package's default bracket of the
same run under rare participation: after its refinement and tilted descent the call makes the default's last reads
(pld/refine/last_epsilon_reads.hpp: the fine read, the tilted factors' ladder and blocks where still wide, the rare
upper read, the finer grids, the coarser grids), the chain the package's default makes through its binding
(python pld/question/default_reads.py, steps 4 to 7), so the two doors give one bracket, to the round-off of their FFT
backends (Eigen's here, pocketfft's in the package).  Without those reads the call read sigma 2, q 1e-6, 10^8 rounds at
delta 1e-8 as [0.0199, 0.0290], HS_ACCURACY_NOT_MET, where the package reads [0.022887, 0.022902]."""

from __future__ import annotations

import pytest

from hockeystick.pld import SubsampledGaussianPLD

from .capi_library import with_refinements
from .test_capi import HS_ACCURACY_NOT_MET, HS_OK, Library
from .test_capi_tilted import asked


@pytest.fixture(scope="module")
def lib(capi_build) -> Library:
    """The library as configured by default (Eigen's FFT), with the calls to an accuracy declared."""
    return with_refinements(capi_build())


@pytest.mark.parametrize(
    ("sigma", "q", "rounds", "delta", "same"),
    [
        (2.0, 1e-6, 10**8, 1e-8, True),  # the tilted factors' ladder and blocks, under a CPU second
        (2.0, 1e-6, 10**6, 1e-12, True),  # the same, under a CPU second
        pytest.param(2.0, 1e-6, 10**8, 1e-12, True, marks=pytest.mark.slow),
        # the rare upper read, ~10 CPU s: the C call's own descent hands the last reads a bracket within half the
        # tolerance, where the package's hands them [0.958, 3.609], so the package alone reads the rare upper grids
        # (1.908031 against 1.908310): one bracket within the doors' rule, not the same one
        pytest.param(0.6, 1e-5, 10**6, 1e-12, False, marks=pytest.mark.slow),
        pytest.param(
            0.5, 1e-6, 10**8, 1e-12, True, marks=pytest.mark.slow
        ),  # the finer grids, ~15 CPU s
        pytest.param(0.5, 1e-4, 10**6, 1e-8, True, marks=pytest.mark.slow),
    ],
)
def test_the_c_epsilon_call_is_the_packages_default(lib, sigma, q, rounds, delta, same):
    status, lower, upper = asked(lib, "epsilon", sigma, q, rounds, delta, 1e-3)
    front = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds)
    py_lower, py_upper = (float(v) for v in front.epsilon(delta, bound="both"))
    assert max(lower, py_lower) <= min(upper, py_upper)  # both certified
    if same:
        assert abs(lower - py_lower) <= 1e-8 and abs(upper - py_upper) <= 1e-8
    else:  # the doors' rule: the upper sides within max(1e-3, 0.1 %)
        assert abs(upper - py_upper) <= max(1e-3, 1e-3 * py_upper)
    assert status == (HS_OK if upper - lower <= 1e-3 else HS_ACCURACY_NOT_MET), lib.last_error()
