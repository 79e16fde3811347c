"""Band rows of the composition (pld/compose/band_spectrum.hpp): a one-term item whose c-fold power keeps few bins gets its
spectrum from a transform 8 times shorter plus direct sums over the band, the other bins certified dropped.

Checked against the full transform (``band_rows=False``): the same windows, charges within 0.1 % (the kept
bins' values differ by rounding), values within the charged errors; the certified drop against numpy's full-length spectrum (every bin past the band has
|X|^c <= 2^-64); and the composed bounds against the Gaussian mechanism's closed form.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick import _core
from hockeystick.numerics.certified_theta import radius_down, radius_up, theta_lower, theta_upper

# (sigma, q, rounds, h): many rounds, one-round support short beside the window (the band path taken),
# and W2's, whose 13173 cells are too many for it (the full transform)
CASES = [(3.5, 0.1, 100_000, 3.2e-4), (5.0, 0.05, 30_000, 4e-4), (2.5, 0.2, 50_000, 5e-4)]
FULL_ONLY = (1.0, 0.01, 10_000, 3e-4)


def _factor(sigma: float, q: float, h: float, pessimistic: bool):
    (factor,) = pld.subsampled_gaussian(sigma, q, value_discretization_interval=h).directions[
        0
    ]  # remove, one round
    return factor.upper if pessimistic else factor.lower


def _compose(
    pmf, rounds: int, pessimistic: bool, direct: bool, band: bool
) -> _core.pld_compose.ComposedPMF:
    return _core.pld_compose.compose_many(
        [pmf.p],
        k_lo=[pmf.k_lo],
        p_inf=[pmf.p_inf],
        h=pmf.h,
        items=[[(0, int(rounds))]],
        pessimistic=pessimistic,
        tail=1e-15,
        max_points=1 << 27,
        workers=1,
        options=_core.pld_compose.ComposeOptions(
            direct_bins=direct, long_fft=True, long_fft_products=0.35, band_rows=band
        ),
    )[0]


@pytest.mark.parametrize("direct", [False, True])
@pytest.mark.parametrize("pessimistic", [True, False])
@pytest.mark.parametrize("sigma,q,rounds,h", CASES)
def test_band_rows_match_the_full_transform_within_the_charge(
    sigma, q, rounds, h, pessimistic, direct
):
    pmf = _factor(sigma, q, h, pessimistic)
    band, full = (_compose(pmf, rounds, pessimistic, direct, b) for b in (True, False))
    assert band.k_lo == full.k_lo and band.p.size == full.p.size
    assert band.p_inf == full.p_inf and band.shift == full.shift  # the same window
    # the same bins kept, their values within the FFT's bound of each other: the charges agree closely
    # (with direct bins a band row's bins come from block moments in long double, within delta_taylor ~ 1e-17
    # against the full row's direct sums' ~1.1 u: its charges may only be smaller)
    for key in ("entry_error", "total_error", "spectral_l2", "inverse_error", "inverse_l2"):
        if direct:
            assert getattr(band, key) <= getattr(full, key) * (1.0 + 1e-3), key
        else:
            assert getattr(band, key) == pytest.approx(getattr(full, key), rel=1e-3), key
    # both within entry_error of the exact composition, so within the sum of theirs of each other
    assert np.max(np.abs(band.p - full.p)) <= band.entry_error + full.entry_error
    assert not np.array_equal(band.p, full.p)  # the band path was taken (its bins are direct sums)


def test_a_long_one_round_support_keeps_the_full_transform():
    sigma, q, rounds, h = FULL_ONLY
    pmf = _factor(sigma, q, h, True)
    band, full = (_compose(pmf, rounds, True, False, b) for b in (True, False))
    assert np.array_equal(band.p, full.p)


@pytest.mark.parametrize("sigma,q,rounds,h", CASES)
def test_bins_past_the_certified_band_are_below_the_dropped_power(sigma, q, rounds, h):
    """band_end's bins against numpy's full-length spectrum: every bin the samples certify has |X|^c <= 2^-64."""
    pmf = _factor(sigma, q, h, True)
    window = _compose(pmf, rounds, True, False, False).p.size
    m = int(_core.pld_compose.fft_length(window))
    m_f, split = m // 8, 8
    folded = np.bincount(np.arange(pmf.p.size) % m_f, weights=pmf.p, minlength=m_f)
    coarse = np.fft.rfft(folded)
    j = np.arange(pmf.p.size)
    centre = round(float(np.sum(pmf.p * j) / np.sum(pmf.p)))
    slack = 8 * 2.0**-53 * math.ceil(math.log2(m_f)) * 1.001 + math.pi / m_f * float(
        np.sum(pmf.p * np.abs(j - centre))
    )
    threshold = math.exp((-64 * math.log(2) - 1.0) / rounds)
    failing = np.nonzero(np.abs(coarse) + slack > threshold)[0]
    end = min(m // 2 + 1, int(failing.max()) * split + split // 2 + 1)
    assert end < m // 8  # a narrow band: most bins are certified
    spectrum = np.abs(np.fft.rfft(pmf.p, n=m))
    assert np.all(spectrum[end:] <= threshold * (1.0 + 1e-12))
    assert np.max(spectrum[end:]) ** rounds <= 2.0**-64


def test_band_rows_bracket_the_gaussian_closed_form():
    """sigma 10, 10^4 rounds of the Gaussian mechanism (the band path: 1700 cells, a 66-bin band of 98305):
    the composed sides bracket theta(sqrt(T) / sigma, eps)."""
    sigma, rounds, h = 10.0, 10_000, 1e-3
    eps = np.array([0.5, 2.0, 5.0, 10.0, 20.0])
    one = pld.gaussian(sigma, value_discretization_interval=h)
    upper = one.self_compose(rounds).delta(eps, bound="both")
    exact_hi = theta_upper(radius_up(math.sqrt(rounds) / sigma), eps)
    exact_lo = theta_lower(radius_down(math.sqrt(rounds) / sigma), eps)
    lo, up = upper
    assert np.all(lo <= exact_hi) and np.all(exact_lo <= up) and np.all(lo <= up)
    factor = next(iter(one.directions[0])).upper
    band, full = (_compose(factor, rounds, True, False, b) for b in (True, False))
    assert not np.array_equal(band.p, full.p)


# The edges: the Gaussian mechanism (sampling rate 1) over sigma 2 to 1e8, 2 to 2^31 rounds and grids from 1e-3
# to a coarse 1.0, eps from 0 to inf; a two-point factor (its composition is a binomial law, summed exactly at
# 40 digits) with masses from 0.5 down to subnormal; a lattice factor (mass every 50th cell: |X| returns to 1, so
# the samples certify nothing and the full transform is taken) and a factor almost all of whose mass is at +inf.
EDGE_EPS = np.array([0.0, 1e-3, 0.5, 5.0, 50.0, np.inf])


@pytest.mark.parametrize("sigma,rounds", [(2.0, 2), (10.0, 10_000), (1e3, 10**6), (1e8, 2**31)])
@pytest.mark.parametrize("h", [1e-3, 0.05, 1.0])
def test_gaussian_rounds_bracket_the_closed_form_at_the_edges(sigma, rounds, h):
    one = pld.gaussian(sigma, value_discretization_interval=h)
    lo, up = one.self_compose(rounds).delta(EDGE_EPS, bound="both")  # band rows wherever they apply
    r = math.sqrt(rounds) / sigma
    assert np.all((0.0 <= lo) & (lo <= up) & (up <= 1.0))
    assert np.all(up >= theta_lower(radius_down(r), EDGE_EPS)) and np.all(
        lo <= theta_upper(radius_up(r), EDGE_EPS)
    )
    factor = next(iter(one.directions[0]))
    for pessimistic, pmf in ((True, factor.upper), (False, factor.lower)):
        band, full = (_compose(pmf, rounds, pessimistic, True, b) for b in (True, False))
        assert band.k_lo == full.k_lo and band.p.size == full.p.size and band.p_inf == full.p_inf
        assert np.max(np.abs(band.p - full.p), initial=0.0) <= band.entry_error + full.entry_error


def test_some_gaussian_edge_takes_the_band_rows():
    taken = []
    for sigma, rounds, h in [(10.0, 10_000, 1e-3), (1e3, 10**6, 1e-3), (2.0, 2, 1e-3)]:
        pmf = next(iter(pld.gaussian(sigma, value_discretization_interval=h).directions[0])).upper
        band, full = (_compose(pmf, rounds, True, False, b) for b in (True, False))
        taken.append(not np.array_equal(band.p, full.p))
    assert taken == [True, True, False]  # two rounds keep every bin: no band


def _binomial_delta(a: float, rounds: int, h: float, eps: float) -> float:
    """sum_j (1 - e^{eps - j h})_+ C(T, j) a^j (1 - a)^(T - j) at 40 digits: T rounds of mass a at loss h, 1 - a at 0."""
    import mpmath

    mpmath.mp.dps = 40
    if not np.isfinite(eps):
        return 0.0
    a_, e_ = mpmath.mpf(a), mpmath.mpf(eps)
    total = mpmath.mpf(0)
    for j in range(int(math.floor(eps / h)) + 1, rounds + 1):
        total += (
            (1 - mpmath.exp(e_ - j * mpmath.mpf(h)))
            * mpmath.binomial(rounds, j)
            * a_**j
            * (1 - a_) ** (rounds - j)
        )
    return float(total)


@pytest.mark.parametrize("a", [0.5, 1e-3, 1e-300])
def test_two_point_factor_brackets_its_exact_binomial_composition(a):
    """Both sides of the composed two-point PMF (pessimistic: an upper bound on its exact composition, optimistic: a
    lower one) against the 40-digit binomial sum; band rows where the spectrum decays (a = 0.5), the full transform
    where it cannot (a subnormal-scale a leaves |X| = 1 - O(a) at every bin)."""
    from hockeystick.pld.compose.fft import compose
    from hockeystick.pld.grid.pmf import GridPMF

    h, rounds = 0.01, 2000
    factor = GridPMF(0, h, np.array([1.0 - a, a]), 0.0, 0.0, True)
    eps = np.array([0.0, 0.5, 3.0, 10.0, 19.9, np.inf])
    exact = np.array([_binomial_delta(a, rounds, h, e) for e in eps])
    up = compose([(factor, rounds)], pessimistic=True, workers=1).delta(eps)
    low = GridPMF(0, h, np.array([1.0 - a, a]), 0.0, 0.0, False)
    lo = compose([(low, rounds)], pessimistic=False, workers=1).delta(eps)
    assert np.all(lo <= exact) and np.all(exact <= up), (lo, exact, up)
    band, full = (_compose(factor, rounds, True, False, b) for b in (True, False))
    assert (not np.array_equal(band.p, full.p)) == (a == 0.5)


def test_lattice_and_infinite_mass_factors_keep_the_full_transform_bits():
    """Mass on every 50th cell: the samples' moduli return to 1, the band is found wide and the full transform taken
    (the same bits as without band rows); a factor with 1 - 1e-12 of its mass at +inf: its finite part's power
    drops every bin, all certified."""
    from hockeystick.pld.grid.pmf import GridPMF

    lattice = np.zeros(501)
    lattice[::50] = 1.0 / 11.0
    factor = GridPMF(-250, 1e-3, lattice, 0.0, 0.0, True)
    band, full = (_compose(factor, 5000, True, False, b) for b in (True, False))
    np.testing.assert_array_equal(band.p, full.p)
    assert band.entry_error == full.entry_error
    heavy = GridPMF(0, 1e-3, np.full(100, 1e-14), 1.0 - 1e-12, 0.0, True)
    band, full = (_compose(heavy, 10_000, True, False, b) for b in (True, False))
    assert band.p_inf == full.p_inf == 1.0
    assert np.max(band.p) <= band.entry_error and np.max(full.p) <= full.entry_error
