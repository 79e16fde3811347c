"""A C handle of many rounds of one Poisson-subsampled Gaussian at a rate far below the grid (cpp/capi/pld.cpp's
run_epsilon_read) against the package's default bracket of the same run: where the default's reads leave the bracket
wider than the tolerance, both read the tilted factors' ladder and then the blocks of rounds
(pld/refine/block_reads.hpp), so the two doors give one bracket, to the round-off of their two FFT backends (the C
library's Eigen, the package's pocketfft).  Without the blocks the C handle of sigma 2, q 1e-6, 10^6 rounds read
[0.00227, 0.00377] at delta 1e-12, 1.5 tolerances wide; the package reads [0.0029860, 0.0029867]."""

from __future__ import annotations

import pytest

import hockeystick.pld as pld

from .capi_library import with_pld_calls
from .test_capi import Library

# conftest.py's capi_build configures and compiles the library, once per run
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def lib(capi_build) -> Library:
    return with_pld_calls(capi_build())


@pytest.mark.parametrize(
    ("sigma", "q", "rounds", "delta"), [(2.0, 1e-6, 10**6, 1e-12), (2.0, 1e-6, 10**8, 1e-12)]
)
def test_a_rare_handle_reads_the_blocks_as_the_package(lib, sigma, q, rounds, delta):
    handle = lib.subsampled_gaussian(sigma, q, 1e-4, rounds)
    try:
        lower, upper = lib.bracket(handle, "epsilon", delta)
    finally:
        lib.lib.hs_pld_free(handle)
    front = pld.SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds)
    py_lower, py_upper = (float(v) for v in front.epsilon(delta, bound="both"))
    assert max(lower, py_lower) <= min(upper, py_upper)  # both certified
    assert upper - lower <= max(1e-3, 2.5e-4 * upper)  # within the default tolerance
    near = 1e-6 * py_upper
    assert abs(lower - py_lower) <= near and abs(upper - py_upper) <= near
