"""A grid PMF's sides for many queries against ``GridPMF.delta`` and 50-digit references.

- ``GridPMF.delta_many`` (the optimistic side from the cached suffix maxima): never below
  ``GridPMF.delta`` (so never looser), equal to it on the pessimistic side, and still a lower bound on
  the exact delta of a composed Gaussian (closed form in mpmath), below the pessimistic side;
- ``GridPMF.delta_tabled`` (a grid PMF's side with its charges and suffix maxima read from per-index
  tables): equal to ``delta_many`` once its suffix maxima are built and to ``delta`` on the
  pessimistic side, never below ``delta`` on the optimistic side, and between the exact delta of a
  composed Gaussian (closed form in mpmath) on the two sides, at eps < 0, on grid points and beyond.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from hockeystick.pld import gaussian

from ..lower_envelope_reference import enveloped

MP_DPS = 50
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test


def _gaussian_exact(r: float, eps: float) -> mp.mpf:
    """theta(r, eps) extended to eps < 0 by the symmetry of the Gaussian pair."""
    r_mp, e = mp.mpf(r), mp.mpf(eps)
    if e < 0:
        return 1 - mp.e**e + mp.e**e * _gaussian_exact(r, -eps)
    return mp.ncdf(-e / r_mp + r_mp / 2) - mp.e**e * mp.ncdf(-e / r_mp - r_mp / 2)


@pytest.mark.parametrize("sigma, count, h", [(1.0, 20, 1e-3), (3.0, 50, 2e-3), (0.8, 4, 5e-4)])
def test_delta_tabled_is_delta_many_and_certified(sigma, count, h):
    pld = gaussian(sigma, value_discretization_interval=h).self_compose(count)
    lower, upper = pld.composed(False)[0], pld.composed(True)[0]
    assert (
        lower.total_error > 0 and upper.total_error > 0
    )  # the charge and envelope tables are exercised
    r = math.sqrt(count) / sigma
    rng = np.random.default_rng(7)
    eps = np.concatenate(
        [
            rng.uniform(-2.0, r * r / 2 + 6 * r, 3000),
            lower.losses[::5],
            upper.losses[::5],
            [0.0, -np.inf, np.inf, 1e6, -1e6],
        ]
    )
    tab_lo, tab_up = lower.delta_tabled(eps), upper.delta_tabled(eps)
    np.testing.assert_array_equal(tab_up, upper.delta(eps))
    np.testing.assert_array_equal(tab_up, upper.delta_many(eps))
    assert np.all(tab_lo >= lower.delta(eps))  # never looser than delta's own optimistic side
    lower.delta_many(np.linspace(0.0, 20.0, lower.p.size))  # builds delta_many's suffix maxima
    np.testing.assert_array_equal(tab_lo, lower.delta_many(eps))
    assert np.all((tab_lo >= 0) & (tab_lo <= tab_up) & (tab_up <= 1))
    finite = np.isfinite(eps) & (np.abs(eps) < 100)
    for e, lo, hi in list(
        zip(eps[finite].tolist(), tab_lo[finite].tolist(), tab_up[finite].tolist())
    )[::25]:
        exact = _gaussian_exact(r, e)
        assert lo <= exact <= hi, (e, lo, float(exact), hi)


def test_delta_tabled_without_charges_is_the_uncharged_side():
    """A PMF with no round-off charge (one factor): the tables hold zeros and the optimistic side
    takes no envelope, as ``delta``."""
    pmfs = gaussian(1.5, value_discretization_interval=1e-3).composed(False)
    for pmf in pmfs:
        eps = np.linspace(-1.0, 5.0, 997)
        np.testing.assert_array_equal(pmf.delta_tabled(eps), pmf.delta(eps))


@pytest.mark.parametrize("sigma, count, h", [(1.0, 20, 1e-3), (3.0, 50, 2e-3), (0.8, 4, 5e-4)])
def test_delta_many_is_a_tighter_certified_lower_side(sigma, count, h):
    pld = gaussian(sigma, value_discretization_interval=h).self_compose(count)
    lower, upper = pld.composed(False)[0], pld.composed(True)[0]
    assert not lower.pessimistic and lower.total_error > 0  # the envelope path is exercised
    r = math.sqrt(count) / sigma
    eps = np.concatenate([np.linspace(-1.0, r * r / 2 + 6 * r, 6000), [0.0, 0.5, 1.0]])
    many, one = lower.delta_many(eps), lower.delta(eps)
    assert eps.size * lower.p.size.bit_length() >= lower.p.size  # many queries: the cached envelope
    assert np.all(many >= one)  # never looser than delta's
    np.testing.assert_array_equal(upper.delta_many(eps), upper.delta(eps))
    up = upper.delta(eps)
    for e, lo, hi in list(zip(eps.tolist(), many.tolist(), up.tolist()))[::20]:
        exact = _gaussian_exact(r, e)
        assert lo <= exact <= hi, (e, lo, float(exact), hi)


def test_delta_many_with_few_queries_is_delta_until_the_envelope_is_built():
    lower = gaussian(1.0, value_discretization_interval=1e-3).self_compose(20).composed(False)[0]
    eps = np.array([0.3, 1.2, 5.0])
    np.testing.assert_array_equal(lower.delta_many(eps), lower.delta(eps))
    lower.delta_many(np.linspace(0.0, 20.0, lower.p.size))  # builds the suffix maxima
    after = lower.delta_many(eps)  # once built, a few queries read them too
    assert np.all(after >= lower.delta(eps))
    # the numpy suffix maxima from the first grid point at or above each eps' curve argument
    np.testing.assert_array_equal(after, enveloped(lower, eps, lower.delta(eps, envelope=False)))
