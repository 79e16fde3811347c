"""SubsampledGaussianPLD(accuracy=).epsilon(delta) on G1-like blocks (sigma, q) x rounds x delta 1e-10..1e-3:
every bracket within ``accuracy`` or flagged in ``unmet`` and counted in one AccuracyNotMetWarning.

The cases are points whose brackets an epsilon refinement leaves wider than ``accuracy`` without the direct DFT
bins (a round-off charge of T x ~5e-16 beside a delta of 1e-10), with them only in rows charged 1e-11 or more
(a tenth of that delta, on every grid), or starting above a small sampling rate (the optimistic side blind:
its lower epsilon 0 on every grid the refinement then takes): sigma 1.28, q 3.8e-3, 47149 rounds, delta
1e-10 is then [2.453, 3.402], against [2.643, 2.645] with the direct bins.  Each bracket must overlap an independent certified bracket of
the same point (a fixed fine grid, h = 1e-5, default tail): both contain the true epsilon.
"""

from __future__ import annotations

import functools
import math
import warnings
from concurrent.futures import ThreadPoolExecutor

import mpmath
import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick.pld.accountants.subsampled_gaussian import AccuracyNotMetWarning, _pool_copy

DELTAS = np.logspace(-10, -3, 20)
ACCURACY = 1e-2

# (sigma, q, rounds): charge-limited at small delta after many rounds; blind first grids at q = 1e-4
MET = [
    (1.2797739613497678, 0.00379269019073225, (18421, 47149)),
    (2.589737339615605, 0.0006158482110660267, (2812, 18421)),
    (2.0474575311902123, 1e-4, (429, 2812)),
    (4.14321386427342, 1e-4, (1099, 7197)),
    # its first grid (8e-5) is blind at delta 1e-10 (lower epsilon 0, width 0.028), its second not quite
    # (4e-5: [0.0068, 0.0206]): a law fitted through both read a floor of 0.009 and stopped there
    (4.14321386427342, 1e-4, (18421,)),
    # at delta 1e-10 a round-off charge of 1e-11 leaves ~0.09 on every grid (more at h = 1e-4 and 3e-5 than 2e-3)
    (0.5, 0.00379269019073225, (10, 66)),
]

# sigma 0.5, q 2.1e-4, 82864 rounds: at delta 1e-10 the refinement's finest grid leaves 0.035
FLAGGED = dict(sigma=0.5, sampling_rate=0.00020691380811147902, rounds=82864)


@pytest.mark.parametrize("sigma, q, rounds", MET)
def test_brackets_meet_accuracy_and_overlap_a_fine_fixed_grid(
    sigma: float, q: float, rounds: tuple[int, ...]
) -> None:
    acc = pld.SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=np.array(rounds)[:, None], accuracy=ACCURACY, workers=1
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", AccuracyNotMetWarning)
        lo, up = acc.epsilon(DELTAS, bound="both")
    assert lo.shape == up.shape == (len(rounds), DELTAS.size)
    assert np.all((0.0 <= lo) & (lo <= up))
    assert np.all(up - lo <= ACCURACY)
    assert acc.unmet is not None and acc.unmet.shape == lo.shape and not acc.unmet.any()
    ref_lo, ref_up = pld.SubsampledGaussianPLD(
        sigma=sigma,
        sampling_rate=q,
        rounds=np.array(rounds)[:, None],
        value_discretization_interval=1e-5,
    ).epsilon(DELTAS[::4], bound="both")
    assert np.all(lo[:, ::4] <= ref_up) and np.all(
        ref_lo <= up[:, ::4]
    )  # both certified: they overlap


def test_points_wider_than_accuracy_are_flagged_and_counted() -> None:
    """``FLAGGED`` with the tail 1e-15 given: its 82 864 rounds cut 8e-11 of mass, so its bracket at delta 1e-12 is
    unbounded and flagged (no read at that tail certifies it); the 1e-5 one is not."""
    acc = pld.SubsampledGaussianPLD(**FLAGGED, accuracy=ACCURACY, tail=1e-15)
    with pytest.warns(
        AccuracyNotMetWarning, match=r"^1 of 2 epsilon brackets are wider than accuracy=0\.01"
    ):
        lo, up = acc.epsilon(np.array([1e-12, 1e-5]), bound="both")
    assert acc.unmet is not None
    assert acc.unmet.tolist() == [True, False]
    assert np.array_equal(acc.unmet, ~(up - lo <= ACCURACY))
    # the flags hold whichever side is returned, and a scalar call flags a scalar
    with pytest.warns(AccuracyNotMetWarning, match=r"^1 of 1 "):
        upper = acc.epsilon(1e-12)
    assert isinstance(upper, float) and upper == up[0] and bool(acc.unmet) is True


def test_no_warning_and_no_flags_without_accuracy() -> None:
    acc = pld.SubsampledGaussianPLD(**FLAGGED)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AccuracyNotMetWarning)
        acc.epsilon(1e-10, bound="both")
    assert acc.unmet is not None and not np.any(
        acc.unmet
    )  # the default reads its own tolerance: flags, none raised


def test_few_rounds_keep_their_own_tail_beside_many() -> None:
    """A block's rounds values each truncate their one round at the tail their own count needs: sigma 0.8,
    q 6.2e-4, 15 rounds at delta 1e-10 is 0.0087 wide alone, and 0.0150 (missing accuracy) on the one-round tail
    10^5 rounds need (1e-15 against 5.6e-12); beside 10^5 rounds in one call it must stay as it is alone."""
    sigma, q = 0.799929359803029, 0.0006158482110660267
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", AccuracyNotMetWarning
        )  # 10^5 rounds at 1e-10 may be flagged: not this test
        both = pld.SubsampledGaussianPLD(
            sigma=sigma,
            sampling_rate=q,
            rounds=np.array([15, 100_000])[:, None],
            accuracy=ACCURACY,
            workers=1,
        )
        lo, up = both.epsilon(DELTAS, bound="both")
    alone_lo, alone_up = pld.SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=15, accuracy=ACCURACY, workers=1
    ).epsilon(DELTAS, bound="both")
    assert np.all(up[0] - lo[0] <= ACCURACY)
    assert both.unmet is not None and not both.unmet[0].any()
    assert np.array_equal(lo[0], alone_lo) and np.array_equal(up[0], alone_up)


def test_flags_through_a_callers_pool_equal_the_threads_and_are_not_sent_to_it() -> None:
    """``workers=pool.map``: the flags are set from the returned brackets, as with threads, and a pool task's copy
    of the accountant carries no earlier call's flags (they would be pickled with every task).  Two blocks, one
    with a flag: ``FLAGGED``'s at delta 1e-12, and 1000 rounds, whose brackets meet the accuracy at both deltas
    (the cheapest such count beside it: 10 rounds refine to finer grids at delta 1e-12)."""
    kw = dict(**FLAGGED, accuracy=ACCURACY, tail=1e-15)
    kw["rounds"] = np.array([1000, FLAGGED["rounds"]])[:, None]
    deltas = np.array([1e-12, 1e-5])
    threads = pld.SubsampledGaussianPLD(**kw, workers=1)
    with pytest.warns(AccuracyNotMetWarning):
        lo, up = threads.epsilon(deltas, bound="both")
    with ThreadPoolExecutor(2) as pool:
        pooled = pld.SubsampledGaussianPLD(**kw, workers=pool.map)
        with pytest.warns(AccuracyNotMetWarning):
            pooled.epsilon(deltas, bound="both")
        assert pooled.unmet is not None and np.array_equal(pooled.unmet, threads.unmet)
        assert _pool_copy(pooled).unmet is None
    assert threads.unmet is not None and np.array_equal(threads.unmet, ~(up - lo <= ACCURACY))


@functools.cache
def _gaussian_epsilon(mu: float, delta: float) -> float:
    """The exact epsilon at delta of the mu-GDP Gaussian, 50 digits (bisection on its falling delta), rounded to
    the nearest double; read once per (mu, delta), which the three sampling rates of a (sigma, rounds) share."""
    with mpmath.workdps(50):
        return float(_gaussian_epsilon_mp(mu, delta))


def _gaussian_epsilon_mp(mu: float, delta: float) -> mpmath.mpf:
    def gaussian_delta(eps: mpmath.mpf) -> mpmath.mpf:
        return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)

    lo, hi = mpmath.mpf(0), mpmath.mpf(1)
    while gaussian_delta(hi) > delta:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gaussian_delta(mid) > delta else (lo, mid)
    return hi


@pytest.mark.parametrize("sigma", [0.7, 1e3])
@pytest.mark.parametrize("q", [1e-7, 0.3, 1.0 - 1e-6])
@pytest.mark.parametrize("rounds", [1, 1000])
def test_small_delta_brackets_at_the_edges_stay_ordered_and_below_the_gaussian(
    sigma, q, rounds
) -> None:
    """At deltas from the least subnormal to 1e-9 (the direct bins' charge share of 5e-324 underflows to 0, of
    1e-310 is subnormal, of 1e-9 is normal: one delta of each), q from 1e-7 to 1 - 1e-6 and sigma 0.7 and 1e3:
    each bracket is ordered, not NaN, its lower side at or below the exact epsilon of the Gaussian without
    subsampling (mu = sqrt(T) / sigma, which dominates every subsampled composition: joint convexity of the
    hockey-stick divergence), its upper side +inf where no delta that small is certified (below the
    composition's cut tails); and no RuntimeWarning."""
    least = math.nextafter(0.0, 1.0)
    deltas = np.array([least, 1e-310, 1e-9])
    with warnings.catch_warnings():
        warnings.simplefilter(
            "error", RuntimeWarning
        )  # no numpy overflow leaks from a subnormal delta
        warnings.simplefilter("ignore", AccuracyNotMetWarning)
        lo, up = pld.SubsampledGaussianPLD(
            sigma, q, rounds, accuracy=ACCURACY, relative_accuracy=1e-3, workers=1
        ).epsilon(deltas, bound="both")
        exact = np.array([_gaussian_epsilon(math.sqrt(rounds) / sigma, float(d)) for d in deltas])
    assert not np.any(np.isnan(lo)) and not np.any(np.isnan(up))
    assert np.all(0.0 <= lo) and np.all(lo <= up)
    assert np.all(lo <= exact * (1 + 1e-12))
    assert np.isfinite(up[-1]) and up[-1] - lo[-1] <= max(ACCURACY, 1e-3 * up[-1])
