"""``accuracy=`` at the edges of its path: delta subnormal and delta near 1, the Gaussian itself (q = 1) against its
exact epsilon and delta (mpmath, 50 digits), each bracket certified (it holds the truth or overlaps another
certified bracket), never looser than the default's where asked to 1e-4, and never wider than asked without an
``AccuracyNotMetWarning``."""

from __future__ import annotations

import warnings

import pytest

import hockeystick.pld as pld
from hockeystick.pld.refine import AccuracyNotMetWarning

ACCURACY = 1e-4


def _read(read):
    """(lower, upper) of ``read()`` and whether it warned ``AccuracyNotMetWarning``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lower, upper = read()
    return float(lower), float(upper), any(w.category is AccuracyNotMetWarning for w in caught)


def _gaussian_delta(mp, r, eps):
    """delta(eps) of the Gaussian pair at radius r: Phi(r/2 - eps/r) - e^eps Phi(-r/2 - eps/r)."""
    r, eps = mp.mpf(r), mp.mpf(eps)
    return mp.ncdf(r / 2 - eps / r) - mp.exp(eps) * mp.ncdf(-r / 2 - eps / r)


def _gaussian_epsilon(mp, r, delta):
    """The least eps >= 0 with delta(eps) <= delta, by 250 bisections of [0, 5000] (delta(eps) decreases)."""
    low, high = mp.mpf(0), mp.mpf(5000)
    if _gaussian_delta(mp, r, 0) <= delta:
        return low
    for _ in range(250):
        mid = (low + high) / 2
        low, high = (mid, high) if _gaussian_delta(mp, r, mid) > delta else (low, mid)
    return (low + high) / 2


# sigma 0.5 over 100 rounds at q = 1: radius 20, delta(0) = 1 - 1.5e-23, so delta 1 - 1e-9 has epsilon > 0
SIGMA, ROUNDS = 0.5, 100


@pytest.mark.parametrize("delta", [1e-5, 1e-10, 5e-324, 1.0 - 1e-9])
def test_the_gaussians_epsilon_holds_the_exact_one(delta):
    """At q = 1 the rounds are the Gaussian of radius sqrt(T) / sigma; its bracket at accuracy 1e-4 holds the exact
    epsilon, and is within 1e-4 or warns (near delta = 1, [78.847, 78.873] holds 78.857, 0.026 wide: the closed
    form's inverse there reads 1 - delta in doubles)."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 50
    exact = _gaussian_epsilon(mp, mp.sqrt(ROUNDS) / SIGMA, mp.mpf(delta))
    accountant = pld.SubsampledGaussianPLD(SIGMA, 1.0, ROUNDS, accuracy=ACCURACY)
    lower, upper, warned = _read(lambda: accountant.epsilon(delta, bound="both"))
    assert lower <= exact <= upper, (lower, float(exact), upper)
    assert upper - lower <= ACCURACY or warned, (lower, upper)


@pytest.mark.parametrize("eps", [100.0, 900.0])
def test_the_gaussians_delta_holds_the_exact_one(eps):
    """delta at eps 100 (about 1 - 3.9e-7) and 900 (about 4.1e-269, near the doubles' least normal): the bracket
    holds the exact delta and is within 1e-4 of it relative, or warns."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 50
    exact = _gaussian_delta(mp, mp.sqrt(ROUNDS) / SIGMA, eps)
    accountant = pld.SubsampledGaussianPLD(SIGMA, 1.0, ROUNDS, accuracy=ACCURACY)
    lower, upper, warned = _read(lambda: accountant.delta(eps, bound="both"))
    assert lower <= exact <= upper, (lower, mp.nstr(exact, 20), upper)
    assert upper - lower <= ACCURACY * max(upper, 1e-9) or warned, (lower, upper)


def test_a_subnormal_delta_is_no_looser_than_the_default_and_says_it_is_wide():
    """delta 5e-324 (the least subnormal) after 20 rounds of sigma 8, q 0.1: no grid reaches a bracket 1e-4 wide
    there ([2.569, 3.617]), so the call warns; its bracket is the default's or narrower, and its lower side is at
    most the RDP conversion's epsilon (Mironov et al. 2019, dp_accounting's RdpAccountant), an upper bound on the
    truth."""
    run = (8.0, 0.1, 20)
    lower, upper, warned = _read(
        lambda: pld.SubsampledGaussianPLD(*run, accuracy=ACCURACY).epsilon(5e-324, bound="both")
    )
    d_lower, d_upper, _ = _read(
        lambda: pld.SubsampledGaussianPLD(*run).epsilon(5e-324, bound="both")
    )
    assert d_lower <= lower <= upper <= d_upper, (lower, upper, d_lower, d_upper)
    assert warned and upper - lower > ACCURACY
    dp_event = pytest.importorskip("dp_accounting.dp_event")
    from dp_accounting.rdp import RdpAccountant

    rdp = RdpAccountant()
    rdp.compose(dp_event.PoissonSampledDpEvent(run[1], dp_event.GaussianDpEvent(run[0])), run[2])
    assert lower <= rdp.get_epsilon(5e-324), (lower, rdp.get_epsilon(5e-324))


def test_a_delta_near_one_is_read_to_the_accuracy():
    """delta at eps 0.2 after 500 rounds of sigma 0.8, q 0.3 is about 1 - 8.9e-6 (the near-one reads): the bracket
    at accuracy 1e-4 is within 1e-4 of it relative, and overlaps the default's (both certified)."""
    run = (0.8, 0.3, 500)
    lower, upper, warned = _read(
        lambda: pld.SubsampledGaussianPLD(*run, accuracy=ACCURACY).delta(0.2, bound="both")
    )
    d_lower, d_upper, _ = _read(lambda: pld.SubsampledGaussianPLD(*run).delta(0.2, bound="both"))
    assert lower <= d_upper and d_lower <= upper, (lower, upper, d_lower, d_upper)
    assert upper - lower <= ACCURACY * upper and not warned, (lower, upper)
    assert 1.0 - 1e-4 < lower <= upper <= 1.0


def test_epsilon_at_a_delta_near_one_is_zero_where_delta_at_zero_is_below_it():
    """The same run's delta at eps 0 is below 1 - 1e-9 on its certified upper side, so epsilon at delta 1 - 1e-9 is
    0 exactly, at the accuracy as by default."""
    run = (0.8, 0.3, 500)
    accountant = pld.SubsampledGaussianPLD(*run, accuracy=ACCURACY)
    _, at_zero, _ = _read(lambda: accountant.delta(0.0, bound="both"))
    assert at_zero <= 1.0 - 1e-9
    assert _read(lambda: accountant.epsilon(1.0 - 1e-9, bound="both"))[:2] == (0.0, 0.0)
