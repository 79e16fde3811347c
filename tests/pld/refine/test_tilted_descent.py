"""The tilted grids' descent in the core (``_core.pld_refine.tilted_descent``, pld/refine/tilted_question.hpp's
``TiltedReader::grid_descent``), which the package's default and ``accuracy=`` reads
(``tilted_question.tilted_brackets``) and the C library's epsilon call both make (issue 90 items 2
and 7): one reader for an array of deltas reads each element as a reader of its own would, brackets
come back in the shape given, never wider than given, and bad arguments are refused naming the
argument."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld.mechanisms.constructors import MAX_CELLS
from hockeystick.pld.refine import question, tilted_question
from hockeystick.pld.refine.grid_start import StartGrid

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
    lower, upper = tilted_question.tilted_brackets(point, deltas, zero, inf)
    assert lower.shape == upper.shape == deltas.shape
    for index in np.ndindex(deltas.shape):
        alone = tilted_question.tilted_brackets(
            point, deltas[index].reshape(1), np.zeros(1), np.full(1, math.inf)
        )
        assert (lower[index], upper[index]) == (alone[0][0], alone[1][0])
    assert np.all((0.0 < lower) & (lower <= upper) & (upper < math.inf))
    # a smaller delta asks a larger epsilon: the certified sides order the two deltas' answers
    assert lower[0, 1] <= upper[0, 0] and lower[0, 0] >= lower[0, 1]


def test_a_bracket_given_is_never_widened():
    delta = np.array([1e-10, 1e-10])
    lower, upper = tilted_question.tilted_brackets(README, delta, np.zeros(2), np.full(2, math.inf))
    # a given bracket inside the read one: kept as it is on each side
    inner_lo, inner_up = lower + 0.25 * (upper - lower), upper - 0.25 * (upper - lower)
    lo, up = tilted_question.tilted_brackets(README, delta, inner_lo, inner_up)
    assert np.all(lo >= inner_lo) and np.all(up <= inner_up)
    assert np.all(lo <= up)


def test_the_gaussian_mechanism_is_returned_as_given():
    lower, upper = np.array([0.5]), np.array([9.0])
    lo, up = tilted_question.tilted_brackets((1.0, 1.0, 10.0, 1.0), np.array([1e-10]), lower, upper)
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
