"""The C library's epsilon call (cpp/capi/refine.cpp) against the package's front door on the README's DP-SGD run
(sigma 1.1, q 256/60000, 14100 steps) at delta 1e-5, where both meet the accuracy on the grids: a bracket that meets
the accuracy but is not exact has its upper side read on the fine grid (the core's TiltedReader::fine_upper), as the
package's default reads every bracket not exact (the core's fine epsilon read, pld/refine/fine_epsilon.hpp), so the two doors
read one bracket: within max(1e-4, the package's width) of each other on both sides (issue 90), and the upper
sides equal to the round-off of the two FFT backends."""

from __future__ import annotations

import ctypes
import functools
import math
import warnings

import pytest

from hockeystick.pld.refine import AccuracyNotMetWarning
from hockeystick.training import DPSGD

from .capi_library import with_refinements
from .test_capi import _PLD, HS_ACCURACY_NOT_MET, HS_OK, Library

pytestmark = (
    pytest.mark.slow
)  # conftest.py's capi_build configures and compiles the library, once per run

README = (1.1, 256 / 60_000, 14_100)
DELTA = 1e-5
# the two FFT backends' round-off on the same reads (the C library's Eigen, the package's pocketfft): about 5e-9 here
ROUND_OFF = 1e-7


@pytest.fixture(scope="module")
def lib(capi_build) -> Library:
    """The library as configured by default, with the calls to an accuracy declared."""
    return with_refinements(capi_build())


@functools.cache
def front_door(accuracy: float | None) -> tuple[float, float]:
    """The package's certified epsilon bracket of the README run at DELTA (``accuracy`` None: the default's)."""
    sigma, q, steps = README
    given = {} if accuracy is None else {"accuracy": accuracy}
    lower, upper = DPSGD(noise_multiplier=sigma, sample_rate=q, steps=steps, **given).epsilon(
        DELTA, bound="both"
    )
    return float(lower), float(upper)


def c_bracket(lib: Library, accuracy: float) -> tuple[int, float, float]:
    """hs_subsampled_gaussian_epsilon's status and bracket of the README run at DELTA."""
    lower, upper = ctypes.c_double(-1.0), ctypes.c_double(-1.0)
    status = lib.lib.hs_subsampled_gaussian_epsilon(
        *README, DELTA, accuracy, ctypes.byref(lower), ctypes.byref(upper)
    )
    return status, lower.value, upper.value


@pytest.mark.parametrize(("accuracy", "asked"), [(1e-3, None), (1e-4, 1e-4)])
def test_the_c_upper_side_is_the_front_doors_fine_read(lib, accuracy, asked):
    """The C upper side at accuracy 1e-3 is the package default's and at 1e-4 the package's accuracy=1e-4 one
    (2.3851439, the fine read on 5e-5; the grids alone leave 2.3855569 and 2.3851687); at 1e-4 both sides are
    within max(1e-4, the package's width) of the package's."""
    status, lower, upper = c_bracket(lib, accuracy)
    py_lower, py_upper = front_door(asked)
    assert status == HS_OK and lower <= upper
    assert max(lower, py_lower) <= min(upper, py_upper)  # both certified
    assert abs(upper - py_upper) <= ROUND_OFF
    if accuracy == 1e-4:
        near = max(1e-4, py_upper - py_lower)
        assert abs(lower - py_lower) <= near and abs(upper - py_upper) <= near


def test_below_the_aligned_least_delta_both_doors_read_the_coarser_grid(lib):
    """The rare run (sigma 0.6, q 1e-5, 10^6 rounds) at delta 1e-50, below the aligned cells' least delta: the
    accuracy's first tilted grid passes the windows' cap, and both doors read the coarser grid 5e-5 instead (the
    core's TiltedReader::fine_bracket; the package's tilted_question.coarser_brackets), so their lower sides are one
    read, equal to the two FFT backends' round-off, and their upper sides within max(1e-3, 0.1 % of epsilon) (issue
    90 item 1).  The C call's status says whether its bracket is within accuracy 1e-3 (here it is not: 0.0058 wide)."""
    sigma, q, rounds, delta = 0.6, 1e-5, 10**6, 1e-50
    lower, upper = ctypes.c_double(-1.0), ctypes.c_double(-1.0)
    status = lib.lib.hs_subsampled_gaussian_epsilon(
        sigma, q, rounds, delta, 1e-3, ctypes.byref(lower), ctypes.byref(upper)
    )
    run = DPSGD(noise_multiplier=sigma, sample_rate=q, steps=rounds)
    with warnings.catch_warnings():
        # the plain refinement's warning: it stops before the tilted reads narrow the bracket
        warnings.simplefilter("ignore", AccuracyNotMetWarning)
        py_lower, py_upper = run.epsilon(delta, bound="both")
    assert lower.value <= upper.value
    # the header's rule: HS_OK only within the accuracy, HS_ACCURACY_NOT_MET for a wider certified bracket
    assert status == (HS_OK if upper.value - lower.value <= 1e-3 else HS_ACCURACY_NOT_MET)
    assert max(lower.value, py_lower) <= min(upper.value, py_upper)  # both certified
    assert abs(lower.value - py_lower) <= ROUND_OFF * py_lower
    assert abs(upper.value - py_upper) <= max(1e-3, 1e-3 * py_upper)


RARE = (0.6, 1e-5, 10**6)
# the C upper side may lie at most this factor above the package's: both read the rare run's delta at these epsilons
# on the tilted windows with tails sized for the level below the plain upper side (the core's tilted_delta_level,
# the package's fine_delta_key), and both upper sides are the remove direction's tail charge there (today equal);
# the factor leaves room for the doors' different grids (both tilt at eps's bucket centre, the core's
# tilted_delta_centre), and still refuses an upper side left at the plain composition's round-off floor (5.0e-10, ~1e10 times the
# package's)
UPPER_FACTOR = 10.0


@functools.cache
def front_door_delta(run: tuple[float, float, int], eps: float) -> tuple[float, float]:
    """The package's certified delta bracket of ``run`` (sigma, q, steps) at ``eps`` (its default)."""
    sigma, q, steps = run
    lower, upper = DPSGD(noise_multiplier=sigma, sample_rate=q, steps=steps).delta(
        eps, bound="both"
    )
    return float(lower), float(upper)


@pytest.mark.parametrize("eps", [30.5, 31.455])
def test_the_rare_runs_delta_at_a_large_epsilon_is_near_the_front_doors(lib, eps):
    """The rare run (sigma 0.6, q 1e-5, 10^6 rounds) at eps past the add direction's largest loss (T log(1 / (1 -
    q)) ~ 10): hs_subsampled_gaussian_delta's plain refinement stops at its round-off floor (5.0e-10); its tilted
    reads skip the add direction there (delta 0, the core's add_pure_epsilon, as the package's add_screen) and size
    the tails for the level below that floor, so its upper side is within UPPER_FACTOR of the package's (8.9e-21)
    and at or above the package's lower side (both certified), and its status is the header's rule's."""
    lower, upper = ctypes.c_double(-1.0), ctypes.c_double(-1.0)
    status = lib.lib.hs_subsampled_gaussian_delta(
        *RARE, eps, 1e-3, ctypes.byref(lower), ctypes.byref(upper)
    )
    py_lower, py_upper = front_door_delta(RARE, eps)
    assert 0.0 <= lower.value <= upper.value
    # the header's rule: HS_OK exactly where (upper - lower) / max(upper, 1e-9) <= accuracy
    width = (upper.value - lower.value) / max(upper.value, 1e-9)
    assert status == (HS_OK if width <= 1e-3 else HS_ACCURACY_NOT_MET)
    assert max(lower.value, py_lower) <= min(upper.value, py_upper)  # both certified
    assert py_lower <= upper.value <= UPPER_FACTOR * py_upper


@pytest.mark.parametrize("accuracy", [1e-2, 1e-3, 1e-4])
@pytest.mark.parametrize("eps", [2.5, 2.8, 3.0, 3.2])
def test_the_readme_runs_delta_meets_the_accuracy_through_the_c_library(lib, eps, accuracy):
    """The README run's delta (9e-8 at eps 3) is below the plain composition's reach after 14100 rounds, so the C
    call reads it on tilted grids from its accuracy's start grid down; a first tilted grid no tighter than the plain
    refinement's last does not end the descent (the fall rule compares one tilted grid with the one before it: at eps
    3, accuracy 1e-3 the start grid reads [9.0614e-8, 9.1113e-8], the next [9.0793e-8, 9.0824e-8]), so every accuracy
    asked is met and the bracket overlaps the package's (both certified)."""
    lower, upper = ctypes.c_double(-1.0), ctypes.c_double(-1.0)
    status = lib.lib.hs_subsampled_gaussian_delta(
        *README, eps, accuracy, ctypes.byref(lower), ctypes.byref(upper)
    )
    py_lower, py_upper = front_door_delta(README, eps)
    assert status == HS_OK, (lower.value, upper.value)
    assert (upper.value - lower.value) / max(upper.value, 1e-9) <= accuracy
    assert max(lower.value, py_lower) <= min(upper.value, py_upper)


def test_a_one_point_window_is_transformed_not_read_past(lib):
    """sigma 50, q 0.01, 10^9 rounds: the plain composition's window is one point, for which kissfft makes no plan (it
    factors no radix out of 1); the C backend transforms it as itself instead of calling it, and the call's
    bracket overlaps the package's (both certified)."""
    run = (50.0, 0.01, 10**9)
    lower, upper = ctypes.c_double(-1.0), ctypes.c_double(-1.0)
    status = lib.lib.hs_subsampled_gaussian_delta(
        *run, 0.5, 1e-3, ctypes.byref(lower), ctypes.byref(upper)
    )
    py_lower, py_upper = front_door_delta(run, 0.5)
    assert status in (HS_OK, HS_ACCURACY_NOT_MET)
    assert 0.0 <= lower.value <= upper.value <= 1.0
    assert max(lower.value, py_lower) <= min(upper.value, py_upper)


def composed_handle(lib: Library, kinds: list[tuple[float, float, int]]) -> _PLD:
    """The handle of ``kinds`` (sigma, q, rounds) of Poisson-subsampled Gaussian rounds on the peers' grid 1e-4, each
    self-composed and then composed with the others (hs_pld_compose)."""
    lib.lib.hs_pld_compose.argtypes = [_PLD, _PLD, ctypes.POINTER(_PLD)]
    handles = [lib.subsampled_gaussian(sigma, q, 1e-4, rounds) for sigma, q, rounds in kinds]
    run = handles[0]
    for other in handles[1:]:
        both = _PLD()
        assert lib.lib.hs_pld_compose(run, other, ctypes.byref(both)) == HS_OK, lib.last_error()
        run = both
    return run


def package_pld(kinds: list[tuple[float, float, int]]):  # type: ignore[no-untyped-def]
    """The package's PLD object of the same run on the same grid."""
    from hockeystick import pld

    run = None
    for sigma, q, rounds in kinds:
        one = pld.subsampled_gaussian(sigma, q, value_discretization_interval=1e-4).self_compose(
            rounds
        )
        run = one if run is None else run.compose(one)
    return run


@pytest.mark.parametrize(
    "kinds",
    [
        [RARE],  # one kind: the epsilon question's default
        [(0.6, 1e-5, 500_000), (0.8, 2e-5, 300_000)],  # several: the tilted factors' reads
    ],
)
def test_a_composed_handle_of_rare_rounds_reads_its_run_as_the_package_s_pld(lib, kinds):
    """A handle of rare participation rounds at delta 1e-10, where its own composition on the grid reads (0, inf):
    the C library reads the run its factors describe (cpp/capi/pld.cpp's run reads), as the package's PLD object
    does, so the two doors' brackets overlap (both certified) and their upper sides are within max(1e-3, 0.1 % of
    epsilon) (issue 90 item 1)."""
    handle = composed_handle(lib, kinds)
    try:
        lower, upper = lib.bracket(handle, "epsilon", 1e-10)
    finally:
        lib.lib.hs_pld_free(handle)
    py_lower, py_upper = package_pld(kinds).epsilon(1e-10, bound="both")
    assert 0.0 < lower <= upper < math.inf
    assert max(lower, py_lower) <= min(upper, py_upper)
    assert abs(upper - py_upper) <= max(1e-3, 1e-3 * py_upper)


def test_a_composed_handle_of_two_kinds_reads_its_delta_as_the_package_s_pld(lib):
    """The two-stage DP-SGD run (sigma 1.1 then 0.9, q 256/60000, 7050 rounds each) at eps 5, delta ~1.2e-11: the
    handle's delta bracket is its composition's intersected with the tilted factors' delta read, as the package's PLD
    object reads it; the brackets overlap, and each is within 1e-3 of its lower side."""
    kinds = [(1.1, 256 / 60_000, 7050), (0.9, 256 / 60_000, 7050)]
    handle = composed_handle(lib, kinds)
    try:
        lower, upper = lib.bracket(handle, "delta", 5.0)
    finally:
        lib.lib.hs_pld_free(handle)
    py_lower, py_upper = package_pld(kinds).delta(5.0, bound="both")
    assert max(lower, py_lower) <= min(upper, py_upper)
    for lo, up in ((lower, upper), (py_lower, py_upper)):
        assert 0.0 < lo <= up <= lo * (1.0 + 1e-3)


# runs on the peers' grid 1e-4 whose handle brackets are within the default tolerance on that grid alone, a little
# looser there than the peers' default (dp_accounting's 1e-4 PLD): README DP-SGD, DP-FedAvg (z 1, q 1e-3, 5000
# rounds), the two-stage DP-SGD run
WITHIN_TOLERANCE_RUNS = [
    [README],
    [(1.0, 1e-3, 5000)],
    [(1.1, 256 / 60_000, 7050), (0.9, 256 / 60_000, 7050)],
]


@pytest.mark.parametrize("kinds", WITHIN_TOLERANCE_RUNS)
def test_a_composed_handle_reads_its_run_even_where_its_grid_alone_is_within_tolerance(lib, kinds):
    """The handle's bracket is its run's read, whatever its own grid leaves (cpp/capi/pld.cpp): its epsilon at delta
    1e-5 and 1e-10 and its delta at eps 1 and 3 overlap the package's PLD object's on the same grid with upper sides
    within max(1e-3, 0.1 %) (epsilon) and 0.1 % of max(delta, 1e-9) (delta, the delta accuracy's measure); never looser than its own composition's
    (hs_pld_composition_*_bracket); its upper epsilon is never above dp_accounting's default, read live, unless
    theirs lies below our certified lower side (their estimate is not certified and lies below the truth there)."""
    from dp_accounting.pld import privacy_loss_distribution as their_pld

    theirs = None
    for sigma, q, rounds in kinds:
        one = their_pld.from_gaussian_mechanism(
            sigma, sampling_prob=q, value_discretization_interval=1e-4
        ).self_compose(rounds)
        theirs = one if theirs is None else theirs.compose(one)
    ours = package_pld(kinds)
    handle = composed_handle(lib, kinds)
    try:
        for delta in (1e-5, 1e-10):
            own = lib.bracket(handle, "epsilon", delta, composition_only=True)
            lower, upper = lib.bracket(handle, "epsilon", delta)
            py_lower, py_upper = ours.epsilon(delta, bound="both")
            assert own[0] <= lower <= upper <= own[1]
            assert max(lower, py_lower) <= min(upper, py_upper)
            assert abs(upper - py_upper) <= max(1e-3, 1e-3 * py_upper)
            their_epsilon = theirs.get_epsilon_for_delta(delta)
            # below our certified lower side, theirs is below the truth (two-stage at 1e-10: 4.71989 < 4.72008)
            assert upper <= their_epsilon or their_epsilon < lower, (kinds, delta)
        for eps in (1.0, 3.0):
            own = lib.bracket(handle, "delta", eps, composition_only=True)
            lower, upper = lib.bracket(handle, "delta", eps)
            py_lower, py_upper = ours.delta(eps, bound="both")
            assert own[0] <= lower <= upper <= own[1]
            assert max(lower, py_lower) <= min(upper, py_upper)
            # the delta accuracy's measure (question.DELTA_FLOOR): relative to max(upper, 1e-9)
            assert abs(upper - py_upper) <= 1e-3 * max(py_upper, 1e-9), (kinds, eps)
    finally:
        lib.lib.hs_pld_free(handle)


@pytest.mark.parametrize(
    ("run", "eps"),
    [
        (README, 1.0),  # met on the grids at [0.0156327, 0.0156370]: the fine read lowers it
        ((1.0, 1e-3, 5000), 1.0),  # DP-FedAvg
        ((1.0, 1e-3, 50), 0.5),  # T q 0.05: the binomial split
    ],
)
def test_the_c_delta_call_reads_the_front_doors_fine_delta_read(lib, run, eps):
    """hs_subsampled_gaussian_delta at the default accuracy reads a bracket not exact by the default's fine delta read
    (pld/refine/fine_delta.hpp), as the package's default does: the two brackets overlap (both certified), their upper
    sides agree to the two FFT backends' round-off (relative ROUND_OFF), and the C upper side is never above
    dp_accounting's default (read live) unless theirs lies below our certified lower side."""
    from dp_accounting.pld import privacy_loss_distribution as their_pld

    lower, upper = ctypes.c_double(-1.0), ctypes.c_double(-1.0)
    status = lib.lib.hs_subsampled_gaussian_delta(
        *run, eps, 1e-3, ctypes.byref(lower), ctypes.byref(upper)
    )
    py_lower, py_upper = front_door_delta(run, eps)
    assert status == HS_OK
    assert max(lower.value, py_lower) <= min(upper.value, py_upper)
    assert abs(upper.value - py_upper) <= ROUND_OFF * py_upper
    sigma, q, rounds = run
    theirs = their_pld.from_gaussian_mechanism(
        sigma, sampling_prob=q, value_discretization_interval=1e-4
    ).self_compose(rounds)
    their_delta = theirs.get_delta_for_epsilon(eps)
    assert upper.value <= their_delta or their_delta < lower.value
