"""epsilon at delta to an accuracy in one C call (``hs_subsampled_gaussian_epsilon``, cpp/capi/refine.cpp over
cpp/include/hockeystick/pld/refine/steps_refinement.hpp and accuracy_epsilon.hpp), called from C
(cpp/capi/tests/capi_check.c) and from Python through ctypes.

- At an accuracy other than the default's, the call is the package's ``accuracy=`` read: the core's refinement loop
  over each grid's bracket read as the package's refinement reads it (the add direction screened on a coarse grid,
  the truncations sized to delta, direct DFT bins on every grid after the first and on deltas below 1e-8), then the
  core's accuracy read; ``SubsampledGaussianPLD(..., accuracy=a).epsilon(delta, bound="both")`` gives the same
  bracket within the round-off of the two FFTs (Eigen's here, pocketfft's there).
- Its bracket is certified: it holds the exact epsilon of one round (mpmath, 50 digits), and it overlaps the
  package's ``SubsampledGaussianPLD(..., accuracy=a).epsilon(delta, bound="both")``.
- It meets the accuracy, and refusals name the argument and the rule.
- The delta call is the core's delta loop over ``hs_pld_composition_delta_bracket`` bit for bit where that loop's
  bracket is exact, and elsewhere that bracket read finer by the default's fine delta read
  (``tilted_question.fine_delta_brackets``: the same reads within the two FFTs' round-off); it holds the exact delta
  of one round and overlaps the package's ``.delta(eps, bound="both")``.
- The calibrated sigma is certified: the package default's certified upper epsilon at it is at most the target,
  while at sigma (1 - 1e-3) the library's is above it; it is within 5e-3 of the package's ``calibrate`` (the two read
  different certified sides: the library epsilon at delta to ``accuracy``, the package delta at epsilon to a
  relative ``accuracy``, each above the truth by up to its tolerance).
"""

from __future__ import annotations

import ctypes
import math

import mpmath as mp
import pytest

from hockeystick.calibrate.extreme import calibrate
from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.pld.reads import affinity_ceiling
from hockeystick.pld.refine import constants

from ..pld.refine.test_pld_epsilon_refinement import (
    subsampled_gaussian_delta,
    subsampled_gaussian_epsilon,
)
from .capi_library import with_refinements
from .test_capi import (
    CAPI,
    HS_ACCURACY_NOT_MET,
    HS_INVALID_ARGUMENT,
    HS_OK,
    Library,
    _c_compiler,
    _run,
)

pytestmark = (
    pytest.mark.slow
)  # conftest.py's capi_build configures and compiles the library, once per run

_D = ctypes.c_double
_PD = ctypes.POINTER(_D)


@pytest.fixture(scope="module")
def lib(capi_build) -> Library:
    """The library as configured by default (Eigen's FFT), with the refinement call declared."""
    return with_refinements(capi_build())


def refined(
    lib: Library, sigma: float, q: float, rounds: int, delta: float, accuracy: float
) -> tuple[float, float]:
    lower, upper = _D(), _D()
    status = lib.lib.hs_subsampled_gaussian_epsilon(
        sigma, q, rounds, delta, accuracy, ctypes.byref(lower), ctypes.byref(upper)
    )
    assert status == HS_OK, lib.last_error()
    return lower.value, upper.value


SETTINGS = [
    (1.0, 0.01, 10_000, 1e-5, 1e-3),
    (0.8, 0.05, 300, 1e-6, 1e-3),
    (2.0, 0.1, 1000, 1e-5, 1e-4),
]
# accuracies coarser than the default's, met by the refinement alone (at the default's or finer the call reads the
# default's bracket too: tests/core/test_capi_last_reads.py)
COARSER = [
    (1.0, 0.01, 10_000, 1e-5, 2e-3),
    (0.8, 0.05, 300, 1e-6, 2e-3),
    (2.0, 0.1, 1000, 1e-5, 5e-3),
]


@pytest.mark.parametrize(("sigma", "q", "rounds", "delta", "accuracy"), COARSER)
def test_the_c_call_is_the_packages_accuracy_read_within_the_transforms_round_off(
    lib, sigma, q, rounds, delta, accuracy
):
    """The library reads each grid as the package's refinement does (the remove direction truncated at the tails
    sized to delta and the accuracy, the add direction screened on a grid four times coarser) on the same grids, and
    then the same accuracy read, so the brackets differ only by the two FFTs' round-off and its charges (Eigen's
    here, pocketfft's there): within 1e-7 on each side, where the default tails 1e-15 of every truncation move the
    upper side by ~5e-6."""
    lower, upper = refined(lib, sigma, q, rounds, delta, accuracy)
    accountant = SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=rounds, accuracy=accuracy
    )
    py_lower, py_upper = (float(v) for v in accountant.epsilon(delta, bound="both"))
    assert abs(lower - py_lower) <= 1e-7 and abs(upper - py_upper) <= 1e-7


@pytest.mark.parametrize(("sigma", "q", "rounds", "delta", "accuracy"), SETTINGS)
def test_the_c_bracket_meets_the_accuracy_and_overlaps_the_packages(
    lib, sigma, q, rounds, delta, accuracy
):
    lower, upper = refined(lib, sigma, q, rounds, delta, accuracy)
    assert 0.0 < lower <= upper and upper - lower <= accuracy
    pld = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds, accuracy=accuracy)
    py_lower, py_upper = (float(v) for v in pld.epsilon(delta, bound="both"))
    assert max(lower, py_lower) <= min(upper, py_upper)  # both certified


@pytest.mark.parametrize(
    ("sigma", "q", "delta"), [(1.0, 0.01, 1e-5), (0.6, 0.3, 1e-7), (3.0, 0.02, 1e-3)]
)
def test_one_round_bracket_holds_the_exact_epsilon(lib, sigma, q, delta):
    lower, upper = refined(lib, sigma, q, 1, delta, 1e-4)
    assert lower <= subsampled_gaussian_epsilon(sigma, q, delta) <= upper and upper - lower <= 1e-4


def test_the_c_program_prints_the_ctypes_brackets(lib, tmp_path):
    exe = tmp_path / "capi_check"
    libdir = lib.path.parent
    _run(_c_compiler(), "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", CAPI / "include",
         CAPI / "tests" / "capi_check.c", "-L", libdir, "-lhockeystick_c", f"-Wl,-rpath,{libdir}", "-o", exe)  # fmt: skip
    lines = [line.split()[1:] for line in _run(exe).splitlines() if line.startswith("refined ")]
    assert len(lines) == 2
    for sigma, q, rounds, delta, accuracy, lower, upper in lines:
        got = refined(lib, float(sigma), float(q), int(rounds), float(delta), float(accuracy))
        assert got == (float(lower), float(upper)) and got[1] - got[0] <= float(accuracy)
    sigma, q, _, delta, _, lower, upper = lines[1]  # one round: the exact value inside
    assert (
        float(lower)
        <= subsampled_gaussian_epsilon(float(sigma), float(q), float(delta))
        <= float(upper)
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0.0, 0.01, 10, 1e-5, 1e-3), "sigma must be finite and > 0, got 0"),
        (
            (1.0, 1.0, 10, 1e-5, 1e-3),
            "sampling_rate must lie strictly between 0 and 1 (at 1, the Gaussian",
        ),
        ((1.0, 0.01, 0, 1e-5, 1e-3), "rounds must be an integer with 1 <= rounds <= 2^53, got 0"),
        ((1.0, 0.01, 10, 1.0, 1e-3), "delta must lie strictly between 0 and 1, got 1"),
        (
            (1.0, 0.01, 10, 1e-5, 0.0),
            "accuracy must be finite and > 0 (the epsilon bracket's width asked",
        ),
    ],
)
def test_refusals_name_the_argument_and_the_rule(lib, args, message):
    lower, upper = _D(7.0), _D(7.0)
    status = lib.lib.hs_subsampled_gaussian_epsilon(*args, ctypes.byref(lower), ctypes.byref(upper))
    assert status == HS_INVALID_ARGUMENT and message in lib.last_error()
    assert lower.value == upper.value == 7.0  # outputs written only on success
    assert (
        lib.lib.hs_subsampled_gaussian_epsilon(1.0, 0.01, 10, 1e-5, 1e-3, None, ctypes.byref(upper))
        != HS_OK
    )


def refined_delta(
    lib: Library, sigma: float, q: float, rounds: int, eps: float, accuracy: float
) -> tuple[float, float]:
    lower, upper = _D(), _D()
    status = lib.lib.hs_subsampled_gaussian_delta(
        sigma, q, rounds, eps, accuracy, ctypes.byref(lower), ctypes.byref(upper)
    )
    assert status == HS_OK, lib.last_error()
    return lower.value, upper.value


def relative_width(lower: float, upper: float) -> float:
    return (upper - lower) / max(upper, constants.DELTA_FLOOR)


DELTA_SETTINGS = [
    (1.0, 0.01, 10_000, 1.0, 1e-2),
    (0.8, 0.05, 300, 2.0, 1e-3),
    (2.0, 0.1, 1000, 0.5, 1e-4),
]


@pytest.mark.parametrize(
    ("sigma", "q", "rounds", "eps", "accuracy"),
    DELTA_SETTINGS
    + [
        # below 1e-46: the default's bracket [2.4e-80, 6.3e-49] is read again from its upper side
        (2.6229826890580283, 0.004342825057208694, 16, 1.887025988974408, 1e-3),
        (1.4078767668567578, 0.0010008696423132553, 264, 3.7342712564935483, 1e-3),
    ],
)
def test_the_c_delta_call_is_the_packages_accuracy_answer(lib, sigma, q, rounds, eps, accuracy):
    """Both doors read one point's delta to an accuracy the same way: the default's bracket read first at an
    accuracy at most the default's and answering where within it, then the core's loop on its delta step reads
    (pld/refine/steps_refinement.hpp's delta_steps_refinement) and the core's accuracy read
    (pld/refine/accuracy_delta.hpp); so one bracket, to the round-off of their FFT backends."""
    lower, upper = refined_delta(lib, sigma, q, rounds, eps, accuracy)
    pld = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds, accuracy=accuracy)
    py_lower, py_upper = (float(v) for v in pld.delta(eps, bound="both"))
    assert lower == pytest.approx(py_lower, rel=1e-6) and upper == pytest.approx(py_upper, rel=1e-6)
    assert max(lower, py_lower) <= min(upper, py_upper)  # both certified


@pytest.mark.parametrize(
    ("sigma", "q", "rounds", "eps"),
    [(0.56, 1.3e-4, 2418, 3.65), (1.24, 1.26e-3, 968, 0.53), (0.54, 2.5e-4, 166, 3.93)],
)
def test_the_c_delta_calls_default_is_the_packages_default(lib, sigma, q, rounds, eps):
    """At the default accuracy both doors read the package default's delta: the fixed grid's bracket, delta near 1's
    reads, then the core's fine delta read and rare participation's finer grids (pld/refine/accuracy_delta.hpp's
    default_deltas); where that is within 1e-3 it is the answer, the same to the round-off of their FFT backends (the
    refinement's chain at the default accuracy is 2.1e-7 apart at sigma 1.24, q 1.26e-3, 968 rounds)."""
    lower, upper = refined_delta(lib, sigma, q, rounds, eps, 1e-3)
    py_lower, py_upper = (
        float(v) for v in SubsampledGaussianPLD(sigma, q, rounds).delta(eps, bound="both")
    )
    assert relative_width(py_lower, py_upper) <= 1e-3
    assert lower == pytest.approx(py_lower, rel=2e-11) and upper == pytest.approx(
        py_upper, rel=2e-11
    )


@pytest.mark.parametrize(("sigma", "q", "rounds", "eps", "accuracy"), DELTA_SETTINGS)
def test_the_c_delta_bracket_meets_the_accuracy_and_overlaps_the_packages(
    lib, sigma, q, rounds, eps, accuracy
):
    lower, upper = refined_delta(lib, sigma, q, rounds, eps, accuracy)
    assert 0.0 < lower <= upper and relative_width(lower, upper) <= accuracy
    pld = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds, accuracy=accuracy)
    py_lower, py_upper = (float(v) for v in pld.delta(eps, bound="both"))
    assert max(lower, py_lower) <= min(upper, py_upper)  # both certified


@pytest.mark.parametrize(
    ("sigma", "q", "rounds", "eps", "accuracy"),
    [
        (
            1.1,
            256 / 60_000,
            14_100,
            5.0,
            1e-3,
        ),  # the refinement alone read [0, 7.05e-12]; the truth ~6.49e-17
        (1.0, 1e-3, 5000, 1.0, 1e-3),
        (1.0, 1e-3, 5000, 3.0, 1e-2),
    ],
)
def test_the_c_delta_call_is_the_packages_accuracy_answer_below_the_floor(
    lib, sigma, q, rounds, eps, accuracy
):
    """Below the relative rule's floor (1e-9) both doors' refinements meet the accuracy far above the truth; both
    then make the core's accuracy read (pld/refine/accuracy_delta.hpp: the default's fine delta read), so they give
    one bracket, to the round-off of their FFT backends."""
    lower, upper = refined_delta(lib, sigma, q, rounds, eps, accuracy)
    pld = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds, accuracy=accuracy)
    py_lower, py_upper = (float(v) for v in pld.delta(eps, bound="both"))
    assert lower == pytest.approx(py_lower, rel=1e-9) and upper == pytest.approx(py_upper, rel=1e-9)
    assert max(lower, py_lower) <= min(upper, py_upper)


def test_the_c_delta_call_raises_its_lower_side_near_one_to_the_affinity_bound(lib):
    """Near delta = 1 the composed lower side is charged the FFT's round-off, far above 1 - delta (here 4.8e-10
    against 5e-15); both doors raise it to the Renyi-affinity bound (pld/reads/affinity_ceiling.hpp), certified, so it
    stays below the package's certified upper side."""
    sigma, q, rounds, eps = 0.5, 0.1, 3000, 2.0
    lower, upper = refined_delta(lib, sigma, q, rounds, eps, 1e-3)
    bound = affinity_ceiling.delta_lower_near_one(
        affinity_ceiling.subsampled_gaussian_log_affinity(sigma, q), rounds, [eps]
    )[0]
    py_lower, py_upper = SubsampledGaussianPLD(sigma, q, rounds, accuracy=1e-3).delta(
        eps, bound="both"
    )
    assert 1.0 - bound < 1e-12 and bound <= lower <= py_upper and py_lower <= upper


@pytest.mark.parametrize(
    ("sigma", "q", "rounds", "eps"),
    [(0.8, 0.2, 2000, 8.0), (0.5, 0.1, 1600, 0.5), (0.6, 0.1, 1000, 1.0)],
)
def test_the_c_delta_call_near_one_is_the_packages_complement_bracket(lib, sigma, q, rounds, eps):
    """Above 1 - 1e-3 both doors intersect the bracket with the complement's on the fixed grid (the core's
    pld/reads/complement.hpp: 1 - delta bounded with relative accuracy), so 1 - delta is one bracket to the round-off
    of their FFT backends, resolved to 1e-3 of itself (the composed PMFs alone leave 1 - [8.5e-9, 9.5e-9] at sigma
    0.8, q 0.2, 2000 rounds, eps 8, against the complement's 1 - [9.0444e-9, 9.0444e-9])."""
    lower, upper = refined_delta(lib, sigma, q, rounds, eps, 1e-3)
    py_lower, py_upper = (
        float(v) for v in SubsampledGaussianPLD(sigma, q, rounds).delta(eps, bound="both")
    )
    assert 1.0 - upper == pytest.approx(1.0 - py_upper, rel=1e-6)
    assert 1.0 - lower == pytest.approx(1.0 - py_lower, rel=1e-6)
    assert (upper - lower) / (1.0 - upper) < 1e-3
    assert max(lower, py_lower) <= min(upper, py_upper)  # both certified


@pytest.mark.parametrize(
    ("sigma", "q", "eps"), [(1.0, 0.01, 0.5), (0.6, 0.3, 2.0), (3.0, 0.02, 0.01)]
)
def test_one_round_delta_bracket_holds_the_exact_delta(lib, sigma, q, eps):
    lower, upper = refined_delta(lib, sigma, q, 1, eps, 1e-4)
    with mp.workdps(50):
        truth = float(subsampled_gaussian_delta(sigma, q, mp.mpf(eps)))
    assert lower <= truth <= upper and relative_width(lower, upper) <= 1e-4


def calibrated(
    lib: Library, eps: float, delta: float, q: float, rounds: int, accuracy: float
) -> float:
    sigma = _D()
    status = lib.lib.hs_subsampled_gaussian_sigma(
        eps, delta, q, rounds, accuracy, ctypes.byref(sigma)
    )
    assert status == HS_OK, lib.last_error()
    return sigma.value


@pytest.mark.parametrize(
    ("eps", "delta", "q", "rounds", "accuracy"),
    [(1.0, 1e-5, 0.01, 10_000, 1e-3), (3.0, 1e-6, 0.05, 300, 1e-3), (0.5, 1e-5, 0.1, 50, 1e-3)],
)
def test_the_calibrated_sigma_is_certified_and_within_the_tolerance_of_the_packages(
    lib, eps, delta, q, rounds, accuracy
):
    sigma = calibrated(lib, eps, delta, q, rounds, accuracy)
    # the package's default certifies it too (the library's fine upper read is the default's: at eps 0.5, q 0.1,
    # 50 rounds the package's accuracy=1e-3 alone reads 0.500038 at the sigma found, its default 0.499664)
    pld = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds)
    assert float(pld.epsilon(delta, bound="upper")) <= eps
    assert (
        refined(lib, sigma * (1.0 - 1e-3), q, rounds, delta, accuracy)[1] > eps
    )  # just below: not certified
    package = float(calibrate("pld_subsampled_gaussian", "sigma", epsilon=eps, delta=delta, sampling_rate=q,
                              rounds=rounds, accuracy=accuracy, rtol=1e-4))  # fmt: skip
    assert abs(sigma / package - 1.0) <= 5e-3


@pytest.mark.parametrize(
    ("call", "args", "message"),
    [
        ("delta", (0.0, 0.01, 10, 1.0, 1e-3), "sigma must be finite and > 0, got 0"),
        ("delta", (1.0, 0.0, 10, 1.0, 1e-3), "sampling_rate must lie strictly between 0 and 1"),
        ("delta", (1.0, 0.01, 10, math.nan, 1e-3), "epsilon must not be NaN"),
        (
            "delta",
            (1.0, 0.01, 10, 1.0, -1.0),
            "accuracy must be finite and > 0 (the delta bracket's width asked",
        ),
        (
            "sigma",
            (0.0, 1e-5, 0.01, 10, 1e-3),
            "epsilon must be finite and > 0 (the target), got 0",
        ),
        (
            "sigma",
            (1.0, 1.0, 0.01, 10, 1e-3),
            "delta must lie strictly between 0 and 1 (the target), got 1",
        ),
        (
            "sigma",
            (1.0, 1e-5, 0.01, 0, 1e-3),
            "rounds must be an integer with 1 <= rounds <= 2^53, got 0",
        ),
        (
            "sigma",
            (1.0, 1e-5, 0.01, 10, math.inf),
            "accuracy must be finite and > 0 (the width asked",
        ),
        # ten rounds: at the search's largest sigma, 65536, the upper epsilon (about sqrt(10) * 0.9 * 7.4 / 65536 =
        # 3.2e-4) is still above 1e-4, so the search doubles sigma to its end and refuses; each doubling reads ten
        # rounds (0.1 s in all; 15 s at 10^9 rounds, which reach the same refusal on the same path)
        (
            "sigma",
            (1e-4, 1e-12, 0.9, 10, 1e-3),
            "epsilon=0.0001 at delta=1e-12 is not certified for any sigma up",
        ),
        # one round: the search down to the least sigma reads one-round PLDs (0.5 s; 2.5 s at 10 rounds)
        (
            "sigma",
            (5.0, 0.9995, 0.5, 1, 1e-3),
            "delta=0.9995 is met at epsilon=5 by every sigma down to 0.015625",
        ),
    ],
)
def test_delta_and_sigma_refusals_name_the_argument_and_the_rule(lib, call, args, message):
    outputs = (_D(7.0), _D(7.0)) if call == "delta" else (_D(7.0),)
    status = getattr(lib.lib, f"hs_subsampled_gaussian_{call}")(
        *args, *(ctypes.byref(o) for o in outputs)
    )
    assert status == HS_INVALID_ARGUMENT and message in lib.last_error()
    assert all(o.value == 7.0 for o in outputs)  # outputs written only on success


def test_the_c_refinement_program_prints_the_ctypes_values(lib, tmp_path):
    """cpp/capi/tests/capi_refine.c: its delta brackets and calibrated sigma are the ctypes calls' bit for bit, one
    round's bracket holds the exact delta, and a target no sigma reaches is refused with its message."""
    exe = tmp_path / "capi_refine"
    libdir = lib.path.parent
    _run(_c_compiler(), "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", CAPI / "include",
         CAPI / "tests" / "capi_refine.c", "-L", libdir, "-lhockeystick_c", f"-Wl,-rpath,{libdir}", "-o", exe)  # fmt: skip
    lines = [line.split() for line in _run(exe).splitlines()]
    deltas = [line[1:] for line in lines if line[0] == "delta"]
    assert len(deltas) == 2
    for sigma, q, rounds, eps, accuracy, lower, upper in deltas:
        got = refined_delta(lib, float(sigma), float(q), int(rounds), float(eps), float(accuracy))
        assert got == (float(lower), float(upper)) and relative_width(*got) <= float(accuracy)
    sigma, q, _, eps, _, lower, upper = deltas[1]  # one round: the exact value inside
    with mp.workdps(50):
        assert (
            float(lower)
            <= float(subsampled_gaussian_delta(float(sigma), float(q), mp.mpf(eps)))
            <= float(upper)
        )
    ((eps, delta, q, rounds, accuracy, sigma),) = [line[1:] for line in lines if line[0] == "sigma"]
    assert calibrated(
        lib, float(eps), float(delta), float(q), int(rounds), float(accuracy)
    ) == float(sigma)
    ((status, *message),) = [line[1:] for line in lines if line[0] == "refused"]
    assert int(status) == HS_INVALID_ARGUMENT and " ".join(message).startswith(
        "epsilon=1e-05 at delta=1e-12 is not certified for any sigma up to 65536 (sampling_rate 0.9, rounds 1)"
    )
    ((status, lower, upper),) = [
        line[1:] for line in lines if line[0] == "unmet"
    ]  # from C: the status and bracket
    assert int(status) == HS_ACCURACY_NOT_MET and 0.0 < float(lower) < float(upper) < math.inf
    ((sigma, q, rounds, delta, accuracy, lower, upper),) = [
        line[1:] for line in lines if line[0] == "small"
    ]
    got = refined(
        lib, float(sigma), float(q), int(rounds), float(delta), float(accuracy)
    )  # read under the tilt
    assert got == (float(lower), float(upper)) and got[1] - got[0] <= float(accuracy)
