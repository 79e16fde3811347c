"""An optimistic grid PMF's ``delta``: its charged lower values raised to the suffix maxima of its charged lower
curve (``pmf_envelope.raised`` over cpp/include/hockeystick/pld/reads/lower_envelope.hpp), against the suffix maxima
written straightforwardly in numpy (tests/pld/lower_envelope_reference.py) and the exact delta of a composed
Gaussian (closed form in mpmath, 50 digits).

- the same doubles as the numpy reference on both of the core's routes (probes near each eps; the whole pass, kept
  on the PMF), on a PMF read once and on one read again and again (a root search), by ``delta`` and ``delta_many``;
- never above the exact delta (a certified lower side), never below the charged values at eps alone, and above them
  where the round-off charge falls faster than the curve;
- the values themselves where nothing is charged; the core's read refused by name on a pessimistic PMF and at NaN.
"""

from __future__ import annotations

import dataclasses

import mpmath as mp
import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld import gaussian

from ..lower_envelope_reference import enveloped

KEPT = "_lower_suffix_maxima"  # where a PMF keeps the whole pass's suffix maxima (pmf_envelope's docstring)


def _gaussian_exact(r: float, eps: float) -> mp.mpf:
    """theta(r, eps) at eps >= 0: Q(eps / r - r / 2) - e^eps Q(eps / r + r / 2)."""
    r_mp, e = mp.mpf(r), mp.mpf(eps)
    return mp.ncdf(-e / r_mp + r_mp / 2) - mp.e**e * mp.ncdf(-e / r_mp - r_mp / 2)


def _fresh(pmf):
    """The PMF with nothing kept (its caches live in its ``__dict__``)."""
    return dataclasses.replace(pmf)


@pytest.mark.parametrize("sigma, count, h", [(1.0, 20, 1e-3), (3.0, 50, 2e-3), (0.8, 400, 2e-3)])
def test_delta_is_the_numpy_suffix_maxima_and_certified(sigma, count, h):
    pmf = gaussian(sigma, value_discretization_interval=h).self_compose(count).composed(False)[0]
    assert not pmf.pessimistic and pmf.total_error > 0  # charged: the suffix maxima can act
    radius = np.sqrt(count) / sigma
    # from the body of the curve to where the round-off charge is most of it
    eps = np.linspace(0.0, radius * (radius / 2 + 9.0), 400)
    low = pmf.delta(eps, envelope=False)
    want = enveloped(pmf, eps, low)
    routes = set()
    for some in (eps, eps[::57], eps[-3:]):  # many arguments, a few, the far tail alone
        one = _fresh(pmf)
        got = one.delta(some)
        routes.add(KEPT in one.__dict__)  # the whole pass ran (and was kept) or the probes sufficed
        assert got.tobytes() == enveloped(pmf, some, pmf.delta(some, envelope=False)).tobytes()
    assert routes == {True, False}, routes  # both routes of the core's read
    got = pmf.delta(eps)
    assert got.tobytes() == want.tobytes()
    assert np.all(got >= low)
    exact = np.array([float(_gaussian_exact(radius, e)) for e in eps[::4]])
    assert np.all(
        got[::4] <= exact * (1 + 1e-12) + 1e-300
    )  # a lower side (the mpmath value rounded)


def test_a_pmf_read_again_and_again_keeps_its_suffix_maxima():
    """A root search's reads of one PMF: the whole pass is kept from loss 0 (most queries lie above it) and read by
    later calls, rebuilt from lower where a call reaches below it, and ``delta_many`` reads it too; every value the
    numpy reference's."""
    pmf = gaussian(1.0, value_discretization_interval=1e-3).self_compose(20).composed(False)[0]
    eps = np.linspace(38.0, 50.0, 100)  # the far tail, where the probes run long: the whole pass
    one = _fresh(pmf)
    assert one.delta(eps).tobytes() == enveloped(pmf, eps, pmf.delta(eps, envelope=False)).tobytes()
    assert (
        one.__dict__[KEPT][0] == pmf.top_index > 0
    )  # from loss 0, below every argument's first grid point
    for x in (
        np.array([3.0]),
        np.array([0.5, 30.0]),
        np.linspace(-3.0, 60.0, 200),
        np.array([1.0]),
    ):
        want = enveloped(pmf, x, pmf.delta(x, envelope=False)).tobytes()
        assert one.delta(x).tobytes() == want and one.delta_many(x).tobytes() == want, x
    assert one.__dict__[KEPT][0] < pmf.top_index  # rebuilt to reach eps -3


def test_delta_rises_above_the_values_where_the_charge_falls():
    # many rounds at a fine grid: the charge leaves the lower value 0 at the far tail, and the
    # suffix maxima lift some arguments above their own charged value (the envelope matters here)
    pmf = gaussian(0.8, value_discretization_interval=2e-3).self_compose(400).composed(False)[0]
    eps = np.linspace(20.0, 45.0, 600)
    low = pmf.delta(eps, envelope=False)
    got = pmf.delta(eps)
    assert got.tobytes() == enveloped(pmf, eps, low).tobytes()
    assert np.any(got > low)


def test_uncharged_delta_is_the_values():
    pmf = gaussian(2.0, value_discretization_interval=1e-3).composed(False)[0]
    eps = np.linspace(0.0, 3.0, 50)
    assert pmf.total_error == 0.0  # one round, uncomposed: no round-off charged
    low = pmf.delta(eps, envelope=False)
    assert np.array_equal(pmf.delta(eps), low)
    values, built = _core.pld_reads.lower_envelope(pmf, eps, low, held=None, whole=True)
    assert np.array_equal(values, low) and built is None


def test_the_core_read_refuses_a_pessimistic_pmf_and_nan():
    dist = gaussian(1.0, value_discretization_interval=1e-3).self_compose(10)
    eps = np.linspace(0.0, 2.0, 5)
    with pytest.raises(ValueError, match="optimistic"):
        _core.pld_reads.lower_envelope(dist.composed(True)[0], eps, np.zeros(5), held=None)
    with pytest.raises(ValueError, match="NaN"):
        _core.pld_reads.lower_envelope(
            dist.composed(False)[0], np.array([0.5, np.nan]), np.zeros(2), held=None
        )
    with pytest.raises(ValueError, match="one length"):
        _core.pld_reads.lower_envelope(dist.composed(False)[0], eps, np.zeros(4), held=None)
