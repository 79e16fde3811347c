"""Mistakes mypy must catch (tests/test_typing.py expects exactly these errors)."""

import numpy as np

import hockeystick as hs

scalar: float = hs.theta(np.zeros(3), 1.0)  # an array in gives an array out, not a float
array: np.ndarray = hs.theta(1.0, 1.0)  # scalars in give a float
hs.theta(1.0, 1.0, threads="2")  # threads is an int or None
