"""The C library's composed handle of a run of two kinds of few sampled rounds (sum_i q_i c_i at most the split's
0.1) against the package's PLD object of the same run: both read the run's remove direction as a sum over how many
rounds pass the split loss (the core's split read, pld/refine/split_read.hpp, after the tilted factors' reads:
cpp/capi/pld.cpp's run reads, the package's question/tilted_factors.py and tilted_factors_delta.py), so the two doors
read one bracket, equal to the round-off of the two FFT backends (issue 90: one engine)."""

from __future__ import annotations

import math

import pytest

from .capi_library import with_pld_calls
from .test_capi import Library
from .test_capi_doors import composed_handle, package_pld

# conftest.py's capi_build configures and compiles the library, once per run
pytestmark = pytest.mark.slow

# 5 rounds of sigma 1 and 5 of sigma 1.2 at q 1e-3 (T q 0.01): at delta 1e-12 the split moves both sides of the
# tilted factors' bracket [0.48495348, 0.48495528] to [0.48495420, 0.48495494]
EPSILON_RUN = [(1.0, 1e-3, 5), (1.2, 1e-3, 5)]
# 2 rounds of sigma 3 at q 0.02 and 3 of sigma 1 at q 0.01 (T q 0.07): at eps 1 the split raises the tilted
# factors' lower delta 8.3574e-9 to 8.35876e-9, 1.4e-6 of the upper side 8.35876e-9 below it
DELTA_RUN = [(3.0, 0.02, 2), (1.0, 0.01, 3)]
# the two FFT backends' round-off on the same reads (the C library's Eigen, the package's pocketfft), relative
ROUND_OFF = 1e-9


@pytest.fixture(scope="module")
def lib(capi_build) -> Library:
    """The library as configured by default, with the composition calls declared."""
    return with_pld_calls(capi_build())


def handle_bracket(
    lib: Library, kinds: list[tuple[float, float, int]], question: str, at: float
) -> tuple[float, float]:
    """The certified bracket of ``question`` ("epsilon" or "delta") at ``at`` of the composed handle of ``kinds``."""
    handle = composed_handle(lib, kinds)
    try:
        return lib.bracket(handle, question, at)
    finally:
        lib.lib.hs_pld_free(handle)


def test_the_handle_reads_its_epsilon_by_the_split_as_the_package(lib):
    """At delta 1e-12 the split read moves both sides of the tilted factors' bracket; the handle's bracket is the
    package's upper side to the backends' round-off and no wider (without the split both C sides stayed 7e-7 outside
    the package's)."""
    lower, upper = handle_bracket(lib, EPSILON_RUN, "epsilon", 1e-12)
    py_lower, py_upper = package_pld(EPSILON_RUN).epsilon(1e-12, bound="both")
    assert 0.0 < lower <= upper < math.inf
    assert max(lower, py_lower) <= min(upper, py_upper)  # both certified
    assert abs(upper - py_upper) <= ROUND_OFF * py_upper
    # the lower side is the optimistic split's at the bracket's own lower side / T, which the handle's plain
    # composition may move: never wider than the package's (0.48495432 here against 0.48495420)
    assert upper - lower <= py_upper - py_lower


def test_the_handle_reads_its_delta_by_the_split_as_the_package(lib):
    """At eps 1 the split read raises the tilted factors' lower side (its upper side the larger of the remove
    direction's split and the add direction's tilted read); the handle's bracket is the package's on both sides to
    the backends' round-off (without the split the C lower side stayed 1.2e-12 below it)."""
    lower, upper = handle_bracket(lib, DELTA_RUN, "delta", 1.0)
    py_lower, py_upper = package_pld(DELTA_RUN).delta(1.0, bound="both")
    assert 0.0 < lower <= upper <= 1.0
    assert max(lower, py_lower) <= min(upper, py_upper)  # both certified
    assert abs(upper - py_upper) <= ROUND_OFF * py_upper
    assert abs(lower - py_lower) <= ROUND_OFF * py_upper
