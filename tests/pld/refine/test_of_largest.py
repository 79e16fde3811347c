"""``step_brackets.of_largest``: per argument, the parts of the direction whose value is the largest,
the first on ties and at NaN; its one- and two-direction paths give what stacking and ``np.argmax``
give."""

import numpy as np

from hockeystick.pld.refine.step_brackets import of_largest


def by_argmax(parts: list[np.ndarray], values: list[np.ndarray]) -> np.ndarray:
    """The reference: the parts stacked, the direction picked by ``np.argmax`` over the values."""
    pick = np.argmax(values, axis=0)
    return np.stack(parts)[pick, :, np.arange(pick.size)].T


def test_paths_equal_argmax_with_ties_and_nan():
    rng = np.random.default_rng(0)
    m = 12
    for count in (1, 2, 3):
        parts = [rng.random((2, m)) for _ in range(count)]
        values = [rng.integers(0, 3, m).astype(np.float64) for _ in range(count)]  # many ties
        values[0][0] = np.nan
        values[-1][1] = np.nan
        values[-1][2] = np.nan
        values[0][2] = np.nan
        got = of_largest(parts, values)
        assert got.shape == (2, m)
        np.testing.assert_array_equal(got, by_argmax(parts, values))
