"""``GridPMF.lower_with_envelope``: an optimistic PMF's ``delta`` from its charged lower values read
elsewhere (``charged_sides``, one core call for many PMFs), against ``GridPMF.delta`` itself and the
exact delta of a composed Gaussian (closed form in mpmath, 50 digits).

- the same doubles as ``delta(eps)`` wherever the values given are ``delta(eps, envelope=False)``'s
  (read PMF by PMF or through ``charged_sides``), including arguments where the suffix maxima raise
  the value (the round-off charge falling faster than the curve, at tiny delta);
- never above the exact delta (a certified lower side), never below the values given;
- the values given themselves where nothing is charged (``total_error`` 0, an uncomposed PMF);
- refused by name on a pessimistic PMF and for values of another shape.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from hockeystick.pld import gaussian
from hockeystick.pld.refine.dominated_direction import charged_sides


def _gaussian_exact(r: float, eps: float) -> mp.mpf:
    """theta(r, eps) at eps >= 0: Q(eps / r - r / 2) - e^eps Q(eps / r + r / 2)."""
    r_mp, e = mp.mpf(r), mp.mpf(eps)
    return mp.ncdf(-e / r_mp + r_mp / 2) - mp.e**e * mp.ncdf(-e / r_mp - r_mp / 2)


@pytest.mark.parametrize("sigma, count, h", [(1.0, 20, 1e-3), (3.0, 50, 2e-3), (0.8, 400, 5e-4)])
def test_lower_with_envelope_is_delta_and_certified(sigma, count, h):
    pmf = gaussian(sigma, value_discretization_interval=h).self_compose(count).composed(False)[0]
    assert not pmf.pessimistic and pmf.total_error > 0  # charged: the suffix maxima can act
    radius = np.sqrt(count) / sigma
    # from the body of the curve to where the round-off charge is most of it
    eps = np.linspace(0.0, radius * (radius / 2 + 9.0), 400)
    low = pmf.delta(eps, envelope=False)
    got = pmf.lower_with_envelope(eps, low)
    assert np.array_equal(got, pmf.delta(eps))
    (read,) = charged_sides([pmf], [eps], threads=1)  # the values a refinement step holds
    assert np.array_equal(pmf.lower_with_envelope(eps, read), got)
    assert np.all(got >= low)
    exact = np.array([float(_gaussian_exact(radius, e)) for e in eps])
    assert np.all(got <= exact * (1 + 1e-12) + 1e-300)  # a lower side (the mpmath value rounded)


def test_lower_with_envelope_raises_where_the_charge_falls():
    # many rounds at a fine grid: the charge leaves the lower value 0 at the far tail, and the
    # suffix maxima lift some arguments above their own charged value (the envelope matters here)
    pmf = gaussian(0.8, value_discretization_interval=5e-4).self_compose(400).composed(False)[0]
    eps = np.linspace(20.0, 45.0, 600)
    low = pmf.delta(eps, envelope=False)
    got = pmf.lower_with_envelope(eps, low)
    assert np.array_equal(got, pmf.delta(eps))
    assert np.any(got > low)


def test_lower_with_envelope_uncharged_gives_the_values():
    pmf = gaussian(2.0, value_discretization_interval=1e-3).composed(False)[0]
    eps = np.linspace(0.0, 3.0, 50)
    assert pmf.total_error == 0.0  # one round, uncomposed: no round-off charged
    low = pmf.delta(eps, envelope=False)
    assert np.array_equal(pmf.lower_with_envelope(eps, low), low)
    assert np.array_equal(pmf.lower_with_envelope(eps, low), pmf.delta(eps))


def test_lower_with_envelope_refuses_a_pessimistic_pmf_and_other_shapes():
    dist = gaussian(1.0, value_discretization_interval=1e-3).self_compose(10)
    eps = np.linspace(0.0, 2.0, 5)
    with pytest.raises(ValueError, match="pessimistic"):
        dist.composed(True)[0].lower_with_envelope(eps, np.zeros(5))
    with pytest.raises(ValueError, match="low must have the shape of epsilon"):
        dist.composed(False)[0].lower_with_envelope(eps, np.zeros(4))
