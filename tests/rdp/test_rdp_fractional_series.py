"""The module docstring of rdp.mechanisms states what the fractional series compute (an upper bound on the
RDP curve and the exact expansion), not figures measured at some parameters; the property it states is
checked here over a grid of fractional orders."""

from __future__ import annotations

import re

import numpy as np

from hockeystick.rdp import mechanisms
from hockeystick.rdp.mechanisms import subsampled_gaussian_rdp


def test_module_docstring_states_properties_not_measurements():
    doc = mechanisms.__doc__
    assert "measured" not in doc
    assert not re.search(r"\d%", doc)
    assert "upper bound on the RDP" in doc.replace("\n", " ")


def test_absolute_series_bounds_the_signed_one_at_fractional_orders():
    """The sum of magnitudes is never below the signed sum (the triangle inequality), so neither is its eps."""
    orders = np.array([1.05, 1.3, 1.5, 1.9, 2.5, 3.7, 6.3, 10.5, 20.25])
    sigma = np.array([[0.7], [1.0], [2.0], [5.0]])[:, :, None]
    q = np.array([0.001, 0.01, 0.1, 0.2, 0.5])[None, :, None]
    absolute = subsampled_gaussian_rdp(sigma, q, orders)
    signed = subsampled_gaussian_rdp(sigma, q, orders, fractional_series="signed")
    finite = np.isfinite(signed)
    assert finite.mean() > 0.8  # orders near 1 whose series does not settle are inf (safe)
    assert np.all(absolute[finite] >= signed[finite] * (1 - 1e-12))
