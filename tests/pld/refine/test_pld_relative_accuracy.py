"""``SubsampledGaussianPLD(accuracy=a, relative_accuracy=r).epsilon``: brackets within max(a, r eps) or flagged.

The tolerance only decides where the refinement stops: every bracket is certified whatever it is, so each must
overlap a much tighter certified bracket of the same point (both contain the true epsilon), and a bracket wider
than its tolerance must be flagged in ``unmet``.  With r = 0 the accountant is the absolute one, value for value.
"""

from __future__ import annotations

import warnings

import mpmath
import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick.pld.accountants.subsampled_gaussian import AccuracyNotMetWarning

MP_DPS = 50

# large epsilons (tens) at small deltas after few rounds, where the round-off charges keep the bracket wider than
# an absolute 1e-2 on every grid
SIGMA, Q = 0.549, 0.0695
ROUNDS = np.array([10.0, 21.0, 45.0, 3000.0])[:, None]
DELTAS = np.array([1e-10, 1e-9, 1e-8])


def _brackets(**kw: float) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    acc = pld.SubsampledGaussianPLD(sigma=SIGMA, sampling_rate=Q, rounds=ROUNDS, workers=1, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AccuracyNotMetWarning)
        lo, up = acc.epsilon(DELTAS, bound="both")
    return lo, up, acc.unmet


def test_relative_tolerance_met_or_flagged_and_certified():
    lo, up, unmet = _brackets(accuracy=1e-2, relative_accuracy=1e-3)
    tight_lo, tight_up, _ = _brackets(accuracy=1e-3)
    assert (
        np.mean(up > 10.0) > 0.5
    )  # mostly the regime where the relative tolerance is the larger one
    tolerance = np.maximum(1e-2, 1e-3 * up)
    assert unmet is not None
    np.testing.assert_array_equal(unmet, ~(up - lo <= tolerance))
    assert np.all(
        (lo <= tight_up) & (tight_lo <= up)
    )  # both certified: they share the true epsilon
    assert np.all(lo <= up)
    # the looser tolerance is what it says: some brackets are wider than the absolute 1e-2 and within it
    assert np.any((up - lo > 1e-2) & (up - lo <= tolerance))


def test_zero_relative_accuracy_is_the_absolute_rule():
    np.testing.assert_array_equal(
        np.stack(_brackets(accuracy=1e-2)[:2]),
        np.stack(_brackets(accuracy=1e-2, relative_accuracy=0.0)[:2]),
    )


@pytest.mark.parametrize("value", [-1e-3, float("nan"), float("inf")])
def test_relative_accuracy_refused(value):
    with pytest.raises(ValueError, match="relative_accuracy"):
        pld.SubsampledGaussianPLD(
            sigma=1.0, sampling_rate=0.01, rounds=10, accuracy=1e-2, relative_accuracy=value
        )


def test_relative_accuracy_needs_accuracy():
    with pytest.raises(ValueError, match="relative_accuracy.*accuracy"):
        pld.SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=10, relative_accuracy=1e-3)


def test_relative_tolerance_stops_the_refinement_sooner(visited_grids):
    """Where the absolute tolerance is out of reach (charge-limited brackets at eps ~ 15-20), the refinement to
    it builds finer grids in vain; the relative one is met on fewer and coarser grids."""
    _brackets(accuracy=1e-2)
    absolute = list(visited_grids)
    visited_grids.clear()
    _brackets(accuracy=1e-2, relative_accuracy=1e-3)
    assert len(visited_grids) < len(absolute) and min(visited_grids) > min(absolute)


@pytest.mark.filterwarnings(
    "error::RuntimeWarning"
)  # an overflowing tolerance is infinite, not a warning
@pytest.mark.parametrize("relative", [5e-324, 1e-300, 1.0, 1e308])
@pytest.mark.parametrize("q", [1e-4, 1.0])
def test_every_accepted_relative_accuracy_stays_certified(relative, q):
    """At the edges it accepts (a subnormal, 1e308, where the tolerance is the first grid's whatever its width)
    and at q = 1 (the closed form, no grid), the bracket is ordered and holds the truth: it overlaps a much
    tighter certified bracket, and at q = 1 it contains the exact Gaussian epsilon (theta inverted at 50 digits)."""
    kw = dict(sigma=0.8, sampling_rate=q, rounds=50, workers=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AccuracyNotMetWarning)
        lo, up = pld.SubsampledGaussianPLD(**kw, accuracy=1e-2, relative_accuracy=relative).epsilon(
            DELTAS, bound="both"
        )
        tight_lo, tight_up = pld.SubsampledGaussianPLD(**kw, accuracy=1e-3).epsilon(
            DELTAS, bound="both"
        )
    assert np.all((0 <= lo) & (lo <= up) & np.isfinite(up))
    assert np.all((lo <= tight_up) & (tight_lo <= up))
    if q == 1.0:
        mu = mpmath.sqrt(50) / mpmath.mpf("0.8")

        def delta(eps):
            return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(
                -eps / mu - mu / 2
            )

        for d, a, b in zip(DELTAS, lo, up):
            left, right = (
                mpmath.mpf(0),
                mpmath.mpf(200),
            )  # delta falls in eps: bisect to 2^-200 of the range
            for _ in range(200):
                mid = (left + right) / 2
                left, right = (mid, right) if delta(mid) > mpmath.mpf(float(d)) else (left, mid)
            assert a <= left and right <= b
