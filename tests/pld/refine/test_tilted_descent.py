"""The tilted grids' descent and the fine upper read in the core (``_core.pld_refine.tilted_descent``
and ``tilted_fine_upper``, pld/refine/tilted_question.hpp's ``TiltedReader::grid_descent`` and
``fine_read``), which the package's default and ``accuracy=`` reads
(``tilted_core.tilted_brackets``, ``fine_upper``) and the C library's epsilon call both make
(issue 90 items 2 and 7): one reader for an array of deltas reads each element as a reader of its
own would, brackets come back in the shape given, never wider than given, the fine read stays
between certified sides, and bad arguments are refused naming the argument."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld.mechanisms.constructors import DEFAULT_INTERVAL, MAX_CELLS
from hockeystick.pld.reads.max_of_outputs import max_of_outputs_epsilon
from hockeystick.pld.refine import question
from hockeystick.pld.refine.grid_start import StartGrid
from hockeystick.training import DPSGD

from . import tilted_core

# the README's DP-SGD run, and few rounds of a large rate
README = (1.1, 256 / 60_000, 14_100.0, 1.0)
FEW = (0.8, 0.5, 5.0, 1.0)


def _start(point: tuple[float, float, float, float], delta: float) -> float:
    first = StartGrid(question.DEFAULT_ACCURACY, "relative", question.DEFAULT_RELATIVE_ACCURACY)
    return float(first.first(point, np.array([delta]), "epsilon"))


def _descent(point, **changed):
    sigma, q, rounds, _ = point
    arguments = dict(
        sigma=sigma,
        sampling_rate=q,
        rounds=int(rounds),
        delta=np.array([1e-10]),
        lower=np.zeros(1),
        upper=np.full(1, math.inf),
        start=np.array([_start(point, 1e-10)]),
        accuracy=question.DEFAULT_ACCURACY,
        relative_accuracy=question.DEFAULT_RELATIVE_ACCURACY,
        max_cells=MAX_CELLS,
    )
    arguments.update(changed)
    return _core.pld_refine.tilted_descent(**arguments)


@pytest.mark.parametrize("point", [README, FEW])
def test_an_array_reads_each_delta_as_alone_in_its_shape(point):
    deltas = np.array([[1e-12, 1e-10], [1e-8, 1e-10]])
    zero, inf = np.zeros(deltas.shape), np.full(deltas.shape, math.inf)
    lower, upper = tilted_core.tilted_brackets(point, deltas, zero, inf)
    assert lower.shape == upper.shape == deltas.shape
    for index in np.ndindex(deltas.shape):
        alone = tilted_core.tilted_brackets(
            point, deltas[index].reshape(1), np.zeros(1), np.full(1, math.inf)
        )
        assert (lower[index], upper[index]) == (alone[0][0], alone[1][0])
    assert np.all((0.0 < lower) & (lower <= upper) & (upper < math.inf))
    # a smaller delta asks a larger epsilon: the certified sides order the two deltas' answers
    assert lower[0, 1] <= upper[0, 0] and lower[0, 0] >= lower[0, 1]


def test_a_bracket_given_is_never_widened():
    delta = np.array([1e-10, 1e-10])
    lower, upper = tilted_core.tilted_brackets(README, delta, np.zeros(2), np.full(2, math.inf))
    # a given bracket inside the read one: kept as it is on each side
    inner_lo, inner_up = lower + 0.25 * (upper - lower), upper - 0.25 * (upper - lower)
    lo, up = tilted_core.tilted_brackets(README, delta, inner_lo, inner_up)
    assert np.all(lo >= inner_lo) and np.all(up <= inner_up)
    assert np.all(lo <= up)


def test_the_gaussian_mechanism_is_returned_as_given():
    lower, upper = np.array([0.5]), np.array([9.0])
    lo, up = tilted_core.tilted_brackets((1.0, 1.0, 10.0, 1.0), np.array([1e-10]), lower, upper)
    assert (lo[0], up[0]) == (0.5, 9.0)


@pytest.mark.parametrize(
    "changed, names",
    [
        ({"delta": np.array([0.0])}, "delta"),
        ({"delta": np.array([1.0])}, "delta"),
        ({"start": np.array([0.0])}, "start"),
        ({"start": np.array([math.inf])}, "start"),
        ({"lower": np.array([math.nan])}, "lower"),
        ({"upper": np.array([1.0, 2.0])}, "delta and upper"),
        ({"accuracy": 0.0}, "accuracy"),
        ({"relative_accuracy": -1e-3}, "relative_accuracy"),
        ({"sampling_rate": 1.0}, "sampling_rate"),
        ({"rounds": 0}, "rounds"),
    ],
)
def test_bad_arguments_are_refused_naming_them(changed, names):
    lower, upper = _descent(README)  # the arguments as the package passes them: read
    assert 0.0 < lower[0] <= upper[0] < math.inf
    with pytest.raises(ValueError, match=names):
        _descent(README, **changed)


def _fine(point, at, upper, add_upper=math.inf, changed=None):
    sigma, q, rounds, _ = point
    arguments = dict(
        sigma=sigma,
        sampling_rate=q,
        rounds=int(rounds),
        delta=np.array([at]),
        upper=np.array([upper]),
        add_upper=np.array([add_upper]),
        least=np.zeros(1),
        max_cells=MAX_CELLS,
    )
    arguments.update(changed or {})
    found, grid = _core.pld_refine.tilted_fine_upper(**arguments)
    return float(found[0]), float(grid[0])


def test_the_fine_grids_are_the_package_s():
    # the fine read's grid is compared with question.FINE_INTERVAL (rare_pending): one source
    assert _core.pld_refine.tilt_fine_upper_grids == (question.FINE_INTERVAL, DEFAULT_INTERVAL)


@pytest.mark.parametrize(
    "point, delta", [(README, 1e-10), (FEW, 1e-12), ((0.6, 1e-5, 1e6, 1.0), 1e-10)]
)
def test_the_fine_read_lowers_a_certified_upper_side_and_stays_above_the_lower(point, delta):
    # a certified bracket (the default's), its upper side moved up: still certified, and left for
    # the fine read to lower
    lower, upper = DPSGD(
        noise_multiplier=point[0], sample_rate=point[1], steps=int(point[2])
    ).epsilon(delta, bound="both")
    upper += 0.05
    test = max_of_outputs_epsilon([(point[:2] + (1.0,), int(point[2]))], delta)
    found, grid = _fine(point, delta, upper)
    assert grid == question.FINE_INTERVAL
    # certified: never below a certified lower side (the descent's, the max-of-outputs test's)
    assert max(lower, test) <= found < upper
    # an add direction known to be below the remove direction's answer is not read: never higher
    assert _fine(point, delta, upper, add_upper=0.0)[0] <= found
    # as given where the upper side is not finite
    assert _fine(point, delta, math.inf) == (math.inf, 0.0)


@pytest.mark.parametrize(
    "changed, names",
    [
        ({"delta": np.array([1.5])}, "delta"),
        ({"upper": np.array([math.nan])}, "upper"),
        ({"add_upper": np.array([1.0, 2.0])}, "delta and add_upper"),
        ({"least": np.array([math.nan])}, "least"),
    ],
)
def test_the_fine_read_refuses_bad_arguments_naming_them(changed, names):
    with pytest.raises(ValueError, match=names):
        _fine(README, 1e-10, 4.0, changed=changed)
