"""The C library's epsilon call (cpp/capi/refine.cpp's epsilon_read) at its default accuracy against the package's
default bracket of the same run: the call makes the package default's chain (python pld/question/default_reads.py,
steps 1 to 7): the fixed grid where it fits the question (pld/refine/fixed_grid.hpp; without it the call's lower side
lay up to 2.8e-4 below the package's, sigma 2, q 0.1, 1000 rounds at delta 1e-5), the core's default refinement with
the fine read beside its ladder
(pld/refine/default_refinement.hpp), the tilted descent where still wide, and the last reads
(pld/refine/last_epsilon_reads.hpp: the fine read, the tilted factors' ladder and blocks where still wide, the rare
upper read, the finer grids, the coarser grids), so the two doors give one bracket, to the round-off of their FFT
backends (Eigen's here, pocketfft's in the package).  Without the last reads the call read sigma 2, q 1e-6, 10^8
rounds at delta 1e-8 as [0.0199, 0.0290], HS_ACCURACY_NOT_MET, where the package reads [0.022887, 0.022902]; with its
own refinement and descent before them it read sigma 0.6, q 1e-5, 10^6 rounds at delta 1e-12 up to 1.908310, where
the package reads 1.908031.  Where the default's bracket is wider than the call's accuracy (1e-3), the call reads on
as the package's ``accuracy=1e-3`` does (its tolerance below the default's above epsilon 4: the refined bracket
intersected with the default's, then the tilted descent on its own grids), and is held to that door instead."""

from __future__ import annotations

import warnings

import pytest

from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.pld.refine import AccuracyNotMetWarning

from .capi_library import with_refinements
from .test_capi import HS_ACCURACY_NOT_MET, HS_OK, Library
from .test_capi_tilted import asked


@pytest.fixture(scope="module")
def lib(capi_build) -> Library:
    """The library as configured by default (Eigen's FFT), with the calls to an accuracy declared."""
    return with_refinements(capi_build())


@pytest.mark.parametrize(
    ("sigma", "q", "rounds", "delta", "within"),
    [
        (2.0, 1e-6, 10**8, 1e-8, 1e-8),  # the tilted factors' ladder and blocks, under a CPU second
        (2.0, 1e-6, 10**6, 1e-12, 1e-8),  # the same, under a CPU second
        (2.0, 1e-6, 10**6, 1e-8, 1e-8),
        # the README's run, its refinement settled by the fine read: at delta 1e-10 the lower side is the plain
        # composition's, whose round-off charges (each backend's own error model) are a part of delta that moves it
        # by 2e-7
        (1.1, 256 / 60_000, 14_100, 1e-10, 1e-6),
        (1.0, 1e-3, 5000, 1e-12, 1e-8),  # DP-FedAvg: the tilted descent
        # the fixed grid answers: its bracket within the tolerance, the last reads after it
        (1.1, 256 / 60_000, 14_100, 1e-5, 1e-7),
        (1.0, 1e-3, 5000, 1e-5, 1e-7),
        (2.0, 0.1, 1000, 1e-5, 1e-7),
        (0.8, 0.05, 300, 1e-7, 1e-7),
        (5.0, 0.2, 50, 1e-5, 1e-7),
        pytest.param(2.0, 1e-6, 10**8, 1e-12, 1e-8, marks=pytest.mark.slow),
        pytest.param(
            0.6, 1e-5, 10**6, 1e-12, 1e-8, marks=pytest.mark.slow
        ),  # the rare upper read, ~5 CPU s
        pytest.param(0.5, 1e-6, 10**6, 1e-8, 1e-8, marks=pytest.mark.slow),
        pytest.param(
            0.5, 1e-6, 10**8, 1e-12, 1e-8, marks=pytest.mark.slow
        ),  # the finer grids, ~13 CPU s
        pytest.param(0.5, 1e-4, 10**6, 1e-8, 1e-8, marks=pytest.mark.slow),
        # the fixed grid fits by its rule but its window passes the memory allowed (1.4e8 points on 1e-4): both
        # read on without it, ~20 CPU s each; the default's bracket, 0.028 wide at epsilon 12858, is wider than 1e-3,
        # so the call is the package's accuracy=1e-3 read
        pytest.param(0.02, 0.5, 10, 1e-5, 1e-6, marks=pytest.mark.slow),
    ],
)
def test_the_c_epsilon_call_is_the_packages_default(lib, sigma, q, rounds, delta, within):
    status, lower, upper = asked(lib, "epsilon", sigma, q, rounds, delta, 1e-3)
    front = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds)
    py_lower, py_upper = (float(v) for v in front.epsilon(delta, bound="both"))
    if py_upper - py_lower > 1e-3:  # wider than the call's accuracy: the package's accuracy= read
        to_accuracy = SubsampledGaussianPLD(
            sigma=sigma, sampling_rate=q, rounds=rounds, accuracy=1e-3
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", AccuracyNotMetWarning)  # the status says it below
            py_lower, py_upper = (float(v) for v in to_accuracy.epsilon(delta, bound="both"))
    assert max(lower, py_lower) <= min(upper, py_upper)  # both certified
    assert abs(lower - py_lower) <= within and abs(upper - py_upper) <= within
    assert status == (HS_OK if upper - lower <= 1e-3 else HS_ACCURACY_NOT_MET), lib.last_error()
