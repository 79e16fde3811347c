"""The C library's calls to an accuracy at small delta (cpp/capi/refine.cpp): their status says whether the bracket
meets the accuracy, and where the plain composition's round-off leaves it wide they read the bracket under an
exponential tilt (cpp/include/hockeystick/pld/reads/tilted.hpp, pld/refine/tilted_question.hpp), as the Python
package's front door does (pld/compose/tilted.py, pld/question/tilted_question.py).

- Status: HS_OK only with a bracket within the accuracy; a bracket no grid narrows to it is written, certified, with
  HS_ACCURACY_NOT_MET and the width in hs_last_error() (from ctypes here, from C in test_capi_refinement.py).
- Tilted reads: on the README's DP-SGD run and on DP-FedAvg at delta 1e-10 and 1e-12 the C bracket meets the
  accuracy, overlaps the package's front-door bracket (both certified), and its upper side is within
  max(1e-3, 0.1 %) of the front door's.
- Composition calls: a handle's hs_pld_epsilon_bracket and hs_pld_delta_bracket, where its round-off charge passes
  a hundredth of the delta read, are intersected with the tilted reads of its own factors: the README run on the grid
  1e-4 agrees with the front door, two mechanisms composed agree with the package's question.tilted_factors.
- Accuracy: a bracket asked finer than the default's 1e-3 lies inside the default's bracket.
- Rare participation: the lower side reads the max-of-outputs test (pld/reads/max_of_outputs.hpp) before the tilted
  grids, at least the package's read of it and never above the front door's certified upper side; a bracket still
  wider than asked after the grids reads the aligned cells (pld/refine/aligned_lower.hpp), as the package does.
- Direction: the tilted composition of the Gaussian mechanism (q = 1, where theta of sqrt(T) / sigma is exact)
  holds the exact delta, and the tilted C bracket of one round holds the exact epsilon (mpmath, 50 digits).
"""

from __future__ import annotations

import ctypes
import functools
import math
from typing import Any

import mpmath as mp
import numpy as np
import pytest

import hockeystick as hs
from hockeystick import _core
from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.pld.question.tilted_factors import tilted_factors_bracket
from hockeystick.pld.reads.max_of_outputs import max_of_outputs_delta, max_of_outputs_epsilon
from hockeystick.pld.refine import AccuracyNotMetWarning

from ..pld.refine.test_pld_epsilon_refinement import subsampled_gaussian_delta
from ..rdp.test_rdp import mp_log_a_integral
from .capi_library import with_refinements
from .test_capi import (
    HS_ACCURACY_NOT_MET,
    HS_INVALID_ARGUMENT,
    HS_OK,
    Library,
    _run,
)

pytestmark = (
    pytest.mark.slow
)  # conftest.py's capi_build configures and compiles the library, once per run

_D = ctypes.c_double
_PD = ctypes.POINTER(_D)
_PLD = ctypes.c_void_p


@pytest.fixture(scope="module")
def lib(capi_build) -> Library:
    """The library as configured by default (Eigen's FFT), with the calls to an accuracy declared."""
    return with_refinements(capi_build())


def asked(lib: Library, call: str, *args: float) -> tuple[int, float, float]:
    """The status and the bracket of hs_subsampled_gaussian_<call> (the outputs start at -1: written or not)."""
    lower, upper = _D(-1.0), _D(-1.0)
    status = getattr(lib.lib, f"hs_subsampled_gaussian_{call}")(
        *args, ctypes.byref(lower), ctypes.byref(upper)
    )
    return status, lower.value, upper.value


# sigma 0.6, q 1e-5, 10^6 rounds: the rare-participation run several tests below read at the same points, each read
# of the C library or of the front door costing seconds; each is computed once per library and point, and shared
RARE = (0.6, 1e-5, 10**6)
_rare_reads: dict[tuple[str, str, float, float], tuple[int, float, float, str]] = {}


def rare_asked(
    lib: Library, call: str, x: float, accuracy: float = 1e-3
) -> tuple[int, float, float, str]:
    """``asked(lib, call, *RARE, x, accuracy)`` and the library's last error right after it, read once per
    library (its file) and arguments."""
    key = (str(lib.path), call, x, accuracy)
    if key not in _rare_reads:
        status, lower, upper = asked(lib, call, *RARE, x, accuracy)
        _rare_reads[key] = (status, lower, upper, lib.last_error())
    return _rare_reads[key]


@functools.cache
def rare_front_door(call: str, x: float) -> tuple[float, float]:
    """The front door's certified bracket of the RARE run (``epsilon`` at delta ``x`` or ``delta`` at epsilon
    ``x``, ``bound="both"``), read once per point."""
    sigma, q, rounds = RARE
    read = getattr(SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds), call)
    lower, upper = read(x, bound="both")
    return float(lower), float(upper)


@functools.cache
def rare_max_of_outputs_epsilon(delta: float) -> float:
    """The max-of-outputs test's lower epsilon of the RARE run at ``delta``, read once per delta."""
    sigma, q, rounds = RARE
    return float(max_of_outputs_epsilon([((sigma, q, 1.0), rounds)], delta))


def test_an_epsilon_bracket_wider_than_asked_says_so_and_is_written_certified(lib):
    status, lower, upper = asked(lib, "epsilon", 1.0, 0.01, 100, 1e-5, 1e-12)
    assert status == HS_ACCURACY_NOT_MET
    assert (
        "wider than accuracy=1e-12" in lib.last_error() and "written, certified" in lib.last_error()
    )
    assert 0.0 < lower < upper < math.inf and upper - lower > 1e-12
    py_lower, py_upper = SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=100).epsilon(
        1e-5, bound="both"
    )
    assert max(lower, py_lower) <= min(upper, py_upper)  # both certified


def test_a_delta_bracket_wider_than_asked_says_so_and_is_written_certified(lib):
    status, lower, upper = asked(lib, "delta", 1.0, 0.01, 100, 0.5, 1e-14)
    assert status == HS_ACCURACY_NOT_MET and "wider than accuracy=1e-14" in lib.last_error()
    assert 0.0 < lower < upper < 1.0 and (upper - lower) / upper > 1e-14
    py_lower, py_upper = SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=100).delta(
        0.5, bound="both"
    )
    assert max(lower, py_lower) <= min(upper, py_upper)


@pytest.fixture(scope="module")
def fftw_lib(capi_build) -> Library:
    """The library built with FFTW (-DHOCKEYSTICK_C_FFT=fftw: long-double forward transforms, as the
    package's scipy.fft), with the calls to an accuracy declared; skipped where FFTW is absent."""
    library = with_refinements(capi_build("-DHOCKEYSTICK_C_FFT=fftw"))
    if library.fft_backend() != "fftw":
        pytest.skip("libfftw3-dev is absent: install it for the library's FFTW backend")
    return library


def check_rare_participation(lib: Library, front_door: tuple[float, float]) -> float:
    """The C bracket of sigma 0.6, q 1e-5, 10^6 rounds at delta 1e-10, accuracy 1e-3: finite (the
    accuracy's first grid, 7.1e-6, is too fine for the tilted windows, so the fine grids are read),
    overlapping the front door's (both certified: neither lower side above the other's upper one),
    and HS_OK exactly where it is within the accuracy; its upper side."""
    status, lower, upper, message = rare_asked(lib, "epsilon", 1e-10)
    py_lower, py_upper = front_door
    assert 0.0 <= lower <= upper < math.inf
    assert lower <= py_upper and py_lower <= upper
    if upper - lower > 1e-3:
        assert status == HS_ACCURACY_NOT_MET and "wider than accuracy=0.001" in message
    else:
        assert status == HS_OK
    return upper


@pytest.mark.parametrize("backend", ["lib", "fftw_lib"])
def test_rare_participation_the_c_upper_side_is_the_front_doors_with_either_backend(
    request, backend
):
    """With long-double forward transforms (FFTW's long-double library; Eigen's butterflies with long-double
    twiddles, cpp/backends/eigen_long_fft.hpp) the C library's fine read is the package's: its upper side, read
    on the finest of the fine grids whose windows fit (2.5e-5, as the package's finer upper read), within 5e-4 of
    the front door's (1.078504 on 5e-5 alone, 1.02e-3 above), the status saying whether within the accuracy."""
    front_door = rare_front_door("epsilon", 1e-10)
    upper = check_rare_participation(request.getfixturevalue(backend), front_door)
    assert abs(upper - front_door[1]) <= 5e-4


@pytest.mark.slow
@pytest.mark.parametrize("delta", [1e-10, 1e-12])
def test_rare_participation_at_accuracy_1e_4_both_doors_reach_one_bracket(lib, delta):
    """About 15 CPU s each: at accuracy 1e-4 the C bracket stays wider than asked after the fine grids and the
    aligned cells' lower side, so it reads the core's rare participation reads (pld/refine/tilted_question.hpp's
    TiltedReader::rare_upper, then rare_lower), the reads the front door's default makes through its binding: the
    same bracket as the front door's, [1.077214, 1.077423] at 1e-10 and [1.907861, 1.908031] at 1e-12, within 1e-8
    on each side (the FFT backends' round-off: Eigen's here, pocketfft's in the package); still wider than asked, so
    HS_ACCURACY_NOT_MET."""
    status, lower, upper, message = rare_asked(lib, "epsilon", delta, 1e-4)
    py_lower, py_upper = rare_front_door("epsilon", delta)
    assert abs(lower - py_lower) <= 1e-8 and abs(upper - py_upper) <= 1e-8
    assert status == HS_ACCURACY_NOT_MET and "wider than accuracy=0.0001" in message


def test_rare_participation_the_c_delta_bracket_is_the_front_doors(lib):
    """delta at epsilon 1.2 of the same run: the accuracy's first grid is too fine for the tilted
    windows, so the fine grids are read, then rare participation's finer delta grids
    (pld/refine/rare_delta_grids.hpp, the reads the front door's default makes through its binding):
    the front door's bracket, within 1e-6 of it relative on each side (the FFT backends' round-off:
    Eigen's here, pocketfft's in the package), its upper side below 1e-10 (the front door's certified
    upper epsilon at 1e-10 is below 1.2; the plain composition's alone is 3.8e-8), within 1e-3 of its
    lower side, so HS_OK (the fine grids alone leave [4.628e-11, 4.791e-11], 3.4 % wide)."""
    status, lower, upper, _ = rare_asked(lib, "delta", 1.2)
    py_lower, py_upper = rare_front_door("delta", 1.2)
    assert lower == pytest.approx(py_lower, rel=1e-6) and upper == pytest.approx(py_upper, rel=1e-6)
    assert 0.0 < lower <= upper <= 1e-10 and (upper - lower) <= 1e-3 * upper
    assert status == HS_OK


@pytest.mark.parametrize("delta", [1e-10, 1e-12])
def test_rare_participation_the_c_lower_side_reads_the_max_of_outputs_test(lib, delta):
    """The C library's lower side of sigma 0.6, q 1e-5, 10^6 rounds reads the max-of-outputs test
    (pld/reads/max_of_outputs.hpp, the header the package's read runs too): at least that read (1.0716 at
    1e-10, 1.9032 at 1e-12, where the tilted optimistic windows alone reach 0.2357), and never above the
    front door's certified upper side, nor above its own."""
    status, lower, upper, _ = rare_asked(lib, "epsilon", delta)
    test = rare_max_of_outputs_epsilon(delta)
    assert test > (1.07 if delta == 1e-10 else 1.9)
    assert test <= lower <= upper < math.inf
    py_upper = rare_front_door("epsilon", delta)[1]
    assert lower <= py_upper
    assert (status == HS_OK) == (upper - lower <= 1e-3)


def plainly_charged_aligned_read(delta: float, near: float) -> float:
    """The aligned cells' lower epsilon of sigma 0.6, q 1e-5, 10^6 rounds on the grid 2.5e-5 (the first the C
    library reads) searched below ``near`` by the tests' Python reference (tests/pld/refine/aligned_reference.py),
    its tilted window charged plainly (the round-off charge of every
    mass above eps at weight 1, by the side's written-out formula: tests/pld/refine/
    test_rare_participation_weighted_charge.py's charge_plainly): a floor the C library's read, which charges the
    weighted sum as the package's does (reads/tilted.hpp), must clear."""
    from hockeystick.pld.question.tilted_question import MAX_POINTS

    from ..pld.refine.aligned_reference import aligned_epsilon
    from ..pld.refine.test_rare_participation_weighted_charge import charge_plainly

    with pytest.MonkeyPatch.context() as patch:
        charge_plainly(patch)
        return aligned_epsilon(0.6, 1e-5, 10**6, delta, near, 2.5e-5, MAX_POINTS)


@pytest.mark.parametrize("delta", [1e-10, 1e-12])
def test_rare_participation_the_c_lower_side_reads_the_aligned_cells(lib, delta):
    """sigma 0.6, q 1e-5, 10^6 rounds: a bracket still wider than asked has its lower side raised to the aligned
    cells' read (pld/refine/aligned_lower.hpp, the header the package's refine/aligned_lower.py builds its cells
    with): at least the same read run by the package with the core's charge (1.07601 at 1e-10, 1.90731 at 1e-12),
    above the max-of-outputs test's by more than 3e-3 (1.07159, 1.90318: the lower sides before it), never above the
    front door's certified upper side nor its own; HS_OK exactly where the bracket is within the accuracy."""
    status, lower, upper, _ = rare_asked(lib, "epsilon", delta)
    py_lower, py_upper = rare_front_door("epsilon", delta)
    test = rare_max_of_outputs_epsilon(delta)
    assert test + 3e-3 < lower <= min(upper, py_upper)
    assert lower >= plainly_charged_aligned_read(delta, upper) - 1e-9
    assert (
        py_lower - lower < 1.5e-3
    )  # the core's plain charge costs the read ~1e-3 against the package's
    assert (status == HS_OK) == (upper - lower <= 1e-3)


def test_rare_participation_the_c_delta_lower_side_reads_the_max_of_outputs_test(lib):
    """delta at epsilon 1.2 of the same run: the C lower side is at least the max-of-outputs read (it was 0, no
    lower side) and never above the front door's certified upper side."""
    status, lower, upper, _ = rare_asked(lib, "delta", 1.2)
    test = max_of_outputs_delta([((0.6, 1e-5, 1.0), 10**6)], 1.2)
    assert 0.0 < test <= lower <= upper
    py_upper = rare_front_door("delta", 1.2)[1]
    assert lower <= py_upper


def test_rare_participation_at_delta_1e_5_the_refinement_meets_the_accuracy(lib):
    """sigma 0.6, q 1e-5, 10^6 rounds at delta 1e-5: the refinement's second grid, composed with the low band of its
    rows recomputed accurately (cpp/capi/refine.cpp's DirectBins, as the package's refinement composes it), meets
    accuracy 1e-3 (the plain composition's round-off left [0.12933, 0.13038], HS_ACCURACY_NOT_MET); the bracket
    overlaps the front door's and its upper side is within 5e-4 of the front door's."""
    status, lower, upper, _ = rare_asked(lib, "epsilon", 1e-5)
    assert status == HS_OK and 0.0 < upper - lower <= 1e-3
    py_lower, py_upper = rare_front_door("epsilon", 1e-5)
    assert max(lower, py_lower) <= min(upper, py_upper)  # both certified
    assert upper - py_upper <= 5e-4


@pytest.mark.parametrize(("call", "x"), [("epsilon", 1e-5), ("delta", 1.2)])
def test_a_finer_accuracy_is_never_looser_than_the_default(lib, call, x):
    """Rare participation (sigma 0.6, q 1e-5, 10^6 rounds): each accuracy starts from grids of its own, and at
    delta 1e-5 accuracy 1e-4's own reads gave the upper epsilon 0.130586 where 1e-3's gave 0.130377; a finer
    accuracy's bracket is intersected with the default's (cpp/capi/refine.cpp), inside it, both sides."""
    _, lower, upper, _ = rare_asked(lib, call, x)
    status, fine_lower, fine_upper, _ = rare_asked(lib, call, x, 1e-4)
    assert status in (HS_OK, HS_ACCURACY_NOT_MET)
    assert lower <= fine_lower <= fine_upper <= upper
    # epsilon: HS_OK only within the accuracy, the upper side within the doors' tolerance
    if call == "epsilon":
        assert (status == HS_OK) == (fine_upper - fine_lower <= 1e-4)
        py_upper = rare_front_door(call, x)[1]
        assert fine_upper - py_upper <= max(1e-3, 1e-3 * py_upper)


def test_a_bracket_within_the_accuracy_is_ok_and_a_refusal_writes_nothing(lib):
    status, lower, upper = asked(lib, "epsilon", 1.0, 0.01, 100, 1e-5, 1e-3)
    assert status == HS_OK and 0.0 < upper - lower <= 1e-3
    status, lower, upper = asked(lib, "epsilon", 1.0, 0.01, 100, 0.0, 1e-3)
    assert status == HS_INVALID_ARGUMENT and lower == upper == -1.0


def test_calibration_reads_a_bracket_wider_than_asked_by_its_certified_upper_side(lib):
    """hs_subsampled_gaussian_sigma asks its epsilons to an accuracy no grid reaches: each still certifies sigma,
    and a step the default's bracket decides (its upper side at most the target, or its lower side above it) is
    decided there, so the sigma found is the least certified one within the bisection's tolerance: 0.1 % less noise
    has a certified lower epsilon above the target."""
    sigma = _D()
    assert (
        lib.lib.hs_subsampled_gaussian_sigma(3.0, 1e-6, 0.05, 300, 1e-12, ctypes.byref(sigma))
        == HS_OK
    )
    _, _, upper = asked(lib, "epsilon", sigma.value, 0.05, 300, 1e-6, 1e-3)
    assert upper <= 3.0 + 1e-3
    _, lower_below, _ = asked(lib, "epsilon", sigma.value * (1.0 - 1e-3), 0.05, 300, 1e-6, 1e-3)
    assert lower_below > 3.0


def test_one_round_delta_status_and_bracket_hold_the_exact_delta(lib):
    status, lower, upper = asked(lib, "delta", 1.0, 0.01, 1, 0.5, 1e-4)
    assert status == HS_OK
    with mp.workdps(50):
        assert lower <= float(subsampled_gaussian_delta(1.0, 0.01, mp.mpf(0.5))) <= upper


# the runs of issue 90's table: (sigma, q, rounds) -> the deltas read
RUNS = {"readme": (1.1, 256 / 60_000, 14_100), "fedavg": (1.0, 1e-3, 5000)}
CASES = [(name, delta) for name in RUNS for delta in (1e-10, 1e-12)]


@pytest.mark.parametrize(("run", "delta"), CASES)
def test_the_c_epsilon_at_small_delta_meets_the_accuracy_and_agrees_with_the_front_door(
    lib, run, delta
):
    sigma, q, rounds = RUNS[run]
    status, lower, upper = asked(lib, "epsilon", sigma, q, rounds, delta, 1e-3)
    assert status == HS_OK, lib.last_error()
    assert 0.0 < lower <= upper and upper - lower <= 1e-3
    front = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds)
    py_lower, py_upper = (float(v) for v in front.epsilon(delta, bound="both"))
    assert max(lower, py_lower) <= min(upper, py_upper)  # both certified
    assert upper - py_upper <= max(1e-3, 1e-3 * py_upper)


@functools.cache
def their_pessimistic_epsilon(run: str, delta: float) -> float:
    """dp_accounting's PLD epsilon of a run of ``RUNS`` at ``delta``, its default grid 1e-4 and pessimistic
    estimate (connect-the-dots), composed once per run (skipped where dp_accounting is absent)."""
    return float(_their_pld(run).get_epsilon_for_delta(delta))


def their_rdp_epsilon(run: str, delta: float) -> float:
    """dp_accounting's RDP epsilon of a run of ``RUNS`` at ``delta`` (its default orders): a certified upper bound
    computed without a PLD."""
    dp_accounting = pytest.importorskip("dp_accounting")
    sigma, q, rounds = RUNS[run]
    event = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma))
    accountant = dp_accounting.rdp.RdpAccountant()
    return float(accountant.compose(event, rounds).get_epsilon(delta))


@functools.cache
def _their_pld(run: str) -> Any:
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    sigma, q, rounds = RUNS[run]
    return pld.from_gaussian_mechanism(
        sigma, sampling_prob=q, value_discretization_interval=1e-4
    ).self_compose(rounds)


@pytest.mark.parametrize(("run", "delta"), CASES)
def test_the_c_epsilon_to_a_finer_accuracy_meets_it_and_agrees_with_the_front_door_and_dp_accounting(
    lib, run, delta
):
    """Accuracy 1e-4 on the runs of issue 90's table: HS_OK with a bracket within it, overlapping the front door's
    default bracket (both certified) with its upper side within the doors' tolerance max(1e-3, 0.1 %) of the front
    door's; its lower side not above dp_accounting's live RDP epsilon (an independent upper bound), and its upper
    side no looser than max(dp_accounting's live pessimistic PLD epsilon, the certified lower side) by more than
    max(1e-3, 0.5 %): the PLD estimate is not an upper bound at every delta (at DP-FedAvg's 1e-12 it reads 1.0617,
    below the certified lower side 1.0667), so it is a measure of tightness, not a direction."""
    sigma, q, rounds = RUNS[run]
    status, lower, upper = asked(lib, "epsilon", sigma, q, rounds, delta, 1e-4)
    assert status == HS_OK, lib.last_error()
    assert 0.0 < lower <= upper and upper - lower <= 1e-4
    front = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds)
    py_lower, py_upper = (float(v) for v in front.epsilon(delta, bound="both"))
    assert max(lower, py_lower) <= min(upper, py_upper)
    assert upper - py_upper <= max(1e-3, 1e-3 * py_upper)
    # the C library reads the package's way (its grids, then the default's fine upper read): its bracket lies within
    # the package's at the same accuracy, each side to 1e-9 relative (the core's tilted windows take libm's exp and
    # log, the package's numpy's, which differ in the last bits)
    finer = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds, accuracy=1e-4)
    acc_lower, acc_upper = (float(v) for v in finer.epsilon(delta, bound="both"))
    assert acc_lower * (1.0 - 1e-9) <= lower and upper <= acc_upper * (1.0 + 1e-9)
    assert lower <= their_rdp_epsilon(run, delta)
    theirs = max(their_pessimistic_epsilon(run, delta), lower)
    assert upper - theirs <= max(1e-3, 5e-3 * theirs)


@pytest.mark.parametrize(
    ("run", "eps"), [("readme", 3.741), ("readme", 4.1802), ("fedavg", 0.7129), ("fedavg", 1.0668)]
)
def test_the_c_delta_at_small_delta_meets_the_accuracy_and_agrees_with_the_front_door(
    lib, run, eps
):
    sigma, q, rounds = RUNS[run]
    status, lower, upper = asked(lib, "delta", sigma, q, rounds, eps, 1e-3)
    assert status == HS_OK, lib.last_error()
    assert 0.0 < lower <= upper and (upper - lower) / max(upper, 1e-9) <= 1e-3
    front = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds)
    py_lower, py_upper = (float(v) for v in front.delta(eps, bound="both"))
    assert max(lower, py_lower) <= min(upper, py_upper)
    assert upper <= 1.01 * py_upper  # the tilted read at eps: within a percent of the front door's


@pytest.mark.parametrize(
    ("sigma", "rounds", "delta"), [(10.0, 100, 1e-13), (3.0, 100, 1e-12), (10.0, 1000, 1e-12)]
)
def test_near_the_gaussian_mechanism_the_c_bracket_holds_the_exact_epsilon(
    lib, sigma, rounds, delta
):
    """At q = 1 - 2^-53 each round is within total variation 1 - q of the Gaussian mechanism, so T rounds' delta(eps)
    is within T (1 - q) of theta(sqrt(T) / sigma, eps) (paper 000, eq. 6): the certified bracket meets the epsilons of
    theta at delta -+ T (1 - q)."""
    q = float(np.nextafter(1.0, 0.0))
    status, lower, upper = asked(lib, "epsilon", sigma, q, rounds, delta, 1e-3)
    assert status == HS_OK and upper - lower <= 1e-3
    radius, slack = math.sqrt(rounds) / sigma, rounds * (1.0 - q)
    assert lower <= hs.theta_epsilon(radius, delta - slack) and upper >= hs.theta_epsilon(
        radius, delta + slack
    )


@pytest.fixture(scope="module")
def gaussian_lines(eigen_programs) -> list[list[str]]:
    """cpp/capi/tests/tilted_gaussian.cpp against the core's headers and Eigen's FFT (libeigen3-dev), as compiled
    into conftest.py's eigen_programs with the PLD example, run once."""
    return [line.split() for line in _run(eigen_programs, "tilted_gaussian").splitlines()]


def test_the_tilted_epsilon_of_the_gaussian_mechanism_holds_theta_where_the_plain_one_is_wide(
    gaussian_lines,
):
    """The T-fold Gaussian mechanism is the Gaussian mechanism of radius sqrt(T) / sigma: its epsilon at delta is
    theta's inverse.  The tilted bracket holds it, 1e-3 wide or less, down to delta 1e-30; the plain composition's
    round-off leaves it wider than 1 at delta 1e-14 and unbounded at 1e-20."""
    epsilons = [[float(v) for v in line[1:]] for line in gaussian_lines if line[0] == "epsilon"]
    assert len(epsilons) == 4
    for sigma, rounds, _, delta, _, lower, upper in epsilons:
        exact = hs.theta_epsilon(math.sqrt(rounds) / sigma, delta)
        assert lower <= exact <= upper and upper - lower <= 1e-3
    plain = {
        float(line[4]): (float(line[5]), float(line[6]))
        for line in gaussian_lines
        if line[0] == "plain"
    }
    assert plain[1e-14][1] - plain[1e-14][0] > 1.0 and plain[1e-20][1] == math.inf


def test_the_tilted_delta_of_the_gaussian_mechanism_holds_theta_at_the_closed_form_tilt(
    gaussian_lines,
):
    """At eps the Chernoff exponent lam eps - K(lam) of a Gaussian loss N(r^2 / 2, r^2) is largest at lam =
    eps / r^2 - 1/2: the ladder's tilt is within its rung spacing (4 %, and the discretization's) of it, and the
    tilted delta bracket holds theta(r, eps) within 0.1 %."""
    deltas = [[float(v) for v in line[1:]] for line in gaussian_lines if line[0] == "delta"]
    assert len(deltas) == 3
    for sigma, rounds, _, eps, lam, lower, upper in deltas:
        radius = math.sqrt(rounds) / sigma
        assert abs(lam / (eps / radius**2 - 0.5) - 1.0) <= 0.05
        exact = hs.theta(radius, eps)
        assert lower <= exact <= upper and upper - lower <= 1e-3 * exact


def test_the_tilted_composition_refuses_what_it_cannot_certify(gaussian_lines):
    refused = {
        line[1]: " ".join(line[2:]) for line in gaussian_lines if line[0] in ("refused", "accepted")
    }
    assert refused["theta"].startswith("compose_tilted: theta must be a finite number > 0")
    assert refused["side"] == "lower_epsilon needs the optimistic side's composition"
    assert refused["mass"] == "tilted_factor: a tilted factor's masses must be >= 0"


def test_a_window_cut_short_charges_its_mass_above_and_holds_theta(gaussian_lines):
    """A tilted window capped one point below its whole size is composed again cut at 1e-6, its mass above charged by
    the Chernoff bound (pld/reads/cut_window_mass.hpp): its upper epsilon holds theta's inverse; at delta 1e-20, where
    the tilt is steep, it is within 1e-5 of the whole window's, and at 1e-8, where it is gentle, the bound is the
    looser side (which is why a window is cut only past its cap)."""
    cuts = {
        float(line[1]): [float(v) for v in line[2:]] for line in gaussian_lines if line[0] == "cut"
    }
    assert sorted(cuts) == [1e-20, 1e-8]
    radius = math.sqrt(100) / 10.0
    for delta, (cut_short, upper, _) in cuts.items():
        assert cut_short == 1.0
        assert upper >= hs.theta_epsilon(radius, delta)
    assert abs(cuts[1e-20][1] - cuts[1e-20][2]) <= 1e-5 * cuts[1e-20][2]
    assert cuts[1e-8][1] > cuts[1e-8][2]


def test_the_c_programs_tilt_arithmetic_is_the_packages_bit_for_bit(gaussian_lines):
    """The tilted masses, the untilted window entries and the ladders of tilts of the core's headers, compiled as the
    C library compiles them (IEEE as written: -ffp-contract=off, libm's exp and log), are the package's doubles
    (``_core.pld_reads``, the same functions in the wheel's build), on both sides."""
    lines = {
        (line[0], line[1]): [float.fromhex(v) for v in line[2:]]
        for line in gaussian_lines
        if line[0] in ("tilted", "untilted", "ladder")
    }
    masses = np.arange(1, 65) * 2.0**-20
    window = np.where(np.arange(64) % 5 == 0, -masses, masses)
    reads = _core.pld_reads
    for side, pessimistic in (("pessimistic", True), ("optimistic", False)):
        tilted = reads.tilted_masses(
            masses, k_lo=-20, theta=0.37, log_m=1.25, pessimistic=pessimistic
        )
        untilted = reads.untilted_masses(
            window,
            first=-20,
            theta=0.37,
            log_scale=3.5,
            scale_magnitude=4.0,
            pessimistic=pessimistic,
        )
        assert lines[("tilted", side)] == tilted.tolist()
        assert lines[("untilted", side)] == untilted.tolist()
    assert lines[("ladder", "tilt")] == reads.tilt_lambdas().tolist()
    assert lines[("ladder", "above")] == reads.above_lambdas().tolist()


# ---- the composition calls: a handle's brackets read under the tilt where its round-off charge limits them ----


def test_a_composed_handle_at_small_delta_reads_under_the_tilt_as_the_front_door(lib):
    """14,100 rounds on the grid 1e-4: the plain composition's bracket at delta 1e-10 is [3.56, 4.94] (issue 90);
    hs_pld_epsilon_bracket's, read under the tilt, is within max(1e-3, 0.1 %) of the front door's upper side.  So is
    it at 1e-12, where the handle's tail cut, 1e-15 a round with no factor q, composes the add direction to more than
    1e-12 at +infinity (its upper side inf): the add direction's screen (pld/refine/direction_screen.hpp, its rounds
    cut at the question tail) clears it, and the remove direction, whose cut carries the factor q, reads finite."""
    sigma, q, rounds = RUNS["readme"]
    handle = lib.subsampled_gaussian(sigma, q, 1e-4, rounds)
    try:
        front = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds)
        lower, upper = lib.bracket(handle, "epsilon", 1e-10)
        py_lower, py_upper = (float(v) for v in front.epsilon(1e-10, bound="both"))
        assert upper - lower <= 1e-3 and max(lower, py_lower) <= min(upper, py_upper)
        assert upper - py_upper <= max(1e-3, 1e-3 * py_upper)
        lower, upper = lib.bracket(handle, "epsilon", 1e-12)
        py_lower, py_upper = (float(v) for v in front.epsilon(1e-12, bound="both"))
        assert upper < math.inf and max(lower, py_lower) <= min(upper, py_upper)
        assert upper - py_upper <= max(1e-3, 1e-3 * py_upper)
        lower, upper = lib.bracket(handle, "delta", 3.741)
        py_lower, py_upper = (float(v) for v in front.delta(3.741, bound="both"))
        assert max(lower, py_lower) <= min(upper, py_upper) and upper <= 1.01 * py_upper
    finally:
        lib.lib.hs_pld_free(handle)


def test_two_composed_mechanisms_read_under_one_tilt_overlap_the_packages_tilted_factors(lib):
    """Two Poisson-subsampled Gaussians of their own sigma and rate composed (hs_pld_compose): each direction's two
    factors composed under one tilt (K the summed log-moment), as the package's question.tilted_factors reads such a
    run; both certified, the brackets overlap and their upper sides agree within 1e-3."""
    a = lib.subsampled_gaussian(1.1, 0.004, 1e-4, 7000)
    b = lib.subsampled_gaussian(1.3, 0.005, 1e-4, 7000)
    both = _PLD()
    lib.lib.hs_pld_compose.argtypes = [_PLD, _PLD, ctypes.POINTER(_PLD)]
    assert lib.lib.hs_pld_compose(a, b, ctypes.byref(both)) == HS_OK, lib.last_error()
    try:
        lower, upper = lib.bracket(both, "epsilon", 1e-10)
        segments = [((1.1, 0.004, 1.0), 7000), ((1.3, 0.005, 1.0), 7000)]
        py_lower, py_upper = tilted_factors_bracket(segments, 1e-10, 0.0, math.inf)
        assert upper - lower <= 1e-3 and max(lower, py_lower) <= min(upper, py_upper)
        assert abs(upper - py_upper) <= 1e-3
    finally:
        for handle in (a, b, both):
            lib.lib.hs_pld_free(handle)


@pytest.mark.parametrize(
    "sigma, q, rounds, delta",
    [
        (
            0.5,
            1e-4,
            10**4,
            1e-8,
        ),  # within the tolerance: the aligned cells' tight read, about 2 CPU s
        pytest.param(
            0.5, 1e-6, 10**8, 1e-8, marks=pytest.mark.slow
        ),  # the finer grids, about 15 CPU s
    ],
)
def test_rare_participation_the_c_epsilon_call_makes_the_front_doors_last_reads(
    lib, sigma, q, rounds, delta
):
    """Rare participation's last reads (pld/refine/rare_finer_grids.hpp) in the C epsilon call as in
    the front door's default: at sigma 0.5, q 1e-4, 10^4 rounds, delta 1e-8 the C bracket met the
    accuracy at [3.5795407, 3.5796268], a lower side the aligned cells' tight read raises to the
    front door's 3.5796156; at sigma 0.5, q 1e-6, 10^8 rounds, delta 1e-8 it was [0.96529, 0.97038],
    HS_ACCURACY_NOT_MET, 3.5e-3 above the front door's upper side, and the finer grids bring it to
    the front door's.  Each side within 1e-8 of the front door's (the FFT backends' round-off), the
    bracket within a sixteenth of the default tolerance of the first, within it at the second."""
    status, lower, upper = asked(lib, "epsilon", sigma, q, rounds, delta, 1e-3)
    front = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds).epsilon(
        delta, bound="both"
    )
    assert status == HS_OK
    assert abs(lower - float(front[0])) <= 1e-8 and abs(upper - float(front[1])) <= 1e-8
    tolerance = max(1e-3, 2.5e-4 * upper)
    assert upper - lower <= (tolerance / 16 if q == 1e-4 else tolerance)


@pytest.mark.parametrize(
    ("sigma", "q", "why"),
    [
        (5e-324, 0.3, "more loss cells than the cap on cells holds"),
        (1e-3, 1.0 - 1e-16, "loss edges double precision cannot place"),
    ],
)
def test_a_round_the_refinement_cannot_discretize_is_refused_naming_the_calls_arguments(
    lib, sigma, q, why
):
    """The refinement chooses its grid, its caller does not: a refusal names sigma and sampling_rate, not the
    value_discretization_interval the epsilon call never takes, and writes no bracket."""
    status, lower, upper = asked(lib, "epsilon", sigma, q, 10, 1e-5, 1e-3)
    message = lib.last_error()
    assert status == HS_INVALID_ARGUMENT and (lower, upper) == (-1.0, -1.0)
    assert message.startswith("sigma=") and "sampling_rate=" in message and why in message
    assert "value_discretization_interval" not in message


@functools.cache
def _log_a(sigma: float, q: float, alpha: float) -> mp.mpf:
    """log A_alpha of one round at 50 digits, kept for both deltas of a run: the binomial sum at an integer order,
    the mixture's moment by quadrature at a fractional one."""
    if alpha != int(alpha):
        return mp_log_a_integral(q, sigma, alpha)
    with mp.workdps(50):
        s, p, n = mp.mpf(sigma), mp.mpf(q), int(alpha)
        return mp.log(
            mp.fsum(
                mp.binomial(n, i) * (1 - p) ** (n - i) * p**i * mp.exp((i * i - i) / (2 * s * s))
                for i in range(n + 1)
            )
        )


def _rdp_epsilon(sigma: float, q: float, rounds: int, delta: float) -> mp.mpf:
    """The RDP conversion's epsilon at delta over dp_accounting's default orders, 50 digits: T times the
    Poisson-subsampled Gaussian's curve (Mironov, Talwar & Zhang 2019, Sec. 3.3: its binomial sum at an integer
    order, the mixture's moment by quadrature at a fractional one, read within 0.6 of the best integer order, where
    the least can lie) through Balle et al. 2020, Thm 21."""
    with mp.workdps(50):
        d = mp.mpf(delta)

        def converted(alpha, log_a):
            r = rounds * log_a / (alpha - 1)
            return r + mp.log(1 - 1 / mp.mpf(alpha)) - (mp.log(d) + mp.log(alpha)) / (alpha - 1)

        integer = {
            alpha: converted(alpha, _log_a(sigma, q, float(alpha)))
            for alpha in [*range(2, 64), 128, 256, 512, 1024]
        }
        best = min(integer, key=integer.__getitem__)
        fractional = [
            converted(mp.mpf(alpha), _log_a(sigma, q, alpha))
            for alpha in (1 + x / 10.0 for x in range(1, 100) if x % 10)
            if abs(alpha - best) <= 0.6
        ]
        return min([integer[best], *fractional])


@pytest.mark.parametrize(
    ("sigma", "q", "rounds"), [(1.1, 256 / 60_000, 14_100), (2.0, 0.1, 100), (0.8, 0.01, 1000)]
)
@pytest.mark.parametrize("delta", [1e-300, 5e-320])
def test_the_c_epsilon_past_the_tilted_windows_is_the_rdp_conversions(lib, sigma, q, rounds, delta):
    """At a delta whose tilted windows pass their caps the C call's upper side is the RDP conversion's at
    dp_accounting's default orders (pld/refine/rdp_cap.hpp; it was inf, then the integer orders' alone): at or above
    the 50-digit conversion, within 1e-6 of it (the fractional orders' series sums its binomials' magnitudes), with
    HS_ACCURACY_NOT_MET and the front door's bracket, whose upper side is the same cap (sigma 0.8, q 0.01: the least
    order is 6.2, where the integer orders alone read 143.13 against 142.008)."""
    status, lower, upper = asked(lib, "epsilon", sigma, q, rounds, delta, 1e-3)
    exact = float(_rdp_epsilon(sigma, q, rounds, delta))
    assert status == HS_ACCURACY_NOT_MET
    assert exact <= upper <= exact * (1.0 + 1e-6)
    front = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds)
    with pytest.warns(AccuracyNotMetWarning):  # the front door's bracket is as wide
        front_lower, front_upper = (float(v) for v in front.epsilon(delta, bound="both"))
    assert abs(lower - front_lower) <= 1e-8 * front_lower
    assert abs(upper - front_upper) <= 1e-12 * front_upper
