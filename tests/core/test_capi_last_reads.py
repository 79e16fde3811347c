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
    ("sigma", "q", "rounds", "delta"),
    [
        (2.0, 1e-6, 10**8, 1e-8),  # the tilted factors' ladder and blocks, under a CPU second
        (2.0, 1e-6, 10**6, 1e-12),  # the same, under a CPU second
        pytest.param(2.0, 1e-6, 10**8, 1e-12, marks=pytest.mark.slow),
        pytest.param(
            0.6, 1e-5, 10**6, 1e-12, marks=pytest.mark.slow
        ),  # the rare upper read, ~10 CPU s
        pytest.param(0.5, 1e-6, 10**8, 1e-12, marks=pytest.mark.slow),  # the finer grids, ~15 CPU s
        pytest.param(0.5, 1e-4, 10**6, 1e-8, marks=pytest.mark.slow),
    ],
)
def test_the_c_epsilon_call_is_the_packages_default(lib, sigma, q, rounds, delta):
    status, lower, upper = asked(lib, "epsilon", sigma, q, rounds, delta, 1e-3)
    front = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds)
    py_lower, py_upper = (float(v) for v in front.epsilon(delta, bound="both"))
    assert max(lower, py_lower) <= min(upper, py_upper)  # both certified
    assert abs(lower - py_lower) <= 1e-8 and abs(upper - py_upper) <= 1e-8
    assert status == (HS_OK if upper - lower <= 1e-3 else HS_ACCURACY_NOT_MET), lib.last_error()
