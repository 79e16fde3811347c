"""The C++ composition (pld/compose/compose.hpp) behind pld.compose: FFT lengths, batching, the memory cap."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time

import numpy as np
import pytest
import scipy.fft

import hockeystick.pld as pld
from hockeystick import _core
from hockeystick.pld.compose import fft as pc
from hockeystick.pld.grid import pmf as pmf_module


def test_fft_length_is_a_fast_size_at_most_an_eighth_above_the_window():
    for width in list(range(1, 200)) + [1000, 4097, 65537, 10**6 + 3, 123456789]:
        m = pc.fft_length(width)
        assert m >= width
        if width <= 64:
            assert m == scipy.fft.next_fast_len(width, real=True)
        else:
            assert m <= 1.125 * width
        assert scipy.fft.next_fast_len(m, real=True) == m  # 5-smooth


def test_items_sharing_a_factor_compose_as_they_do_alone():
    dist = pld.subsampled_gaussian(1.0, 0.02, value_discretization_interval=1e-3)
    factor = next(iter(dist.directions[0])).upper
    counts = [300, 310, 320]  # one FFT length: one forward transform of the factor for all three
    assert (
        len({pc.fft_length(pc.compose([(factor, c)], pessimistic=True).p.size) for c in counts})
        == 1
    )
    together = pc.compose_many([[(factor, c)] for c in counts], pessimistic=True)
    for c, joint in zip(counts, together):
        alone = pc.compose([(factor, c)], pessimistic=True)
        assert joint.k_lo == alone.k_lo
        np.testing.assert_array_equal(joint.p, alone.p)
        assert (joint.p_inf, joint.entry_error, joint.total_error) == (
            alone.p_inf,
            alone.entry_error,
            alone.total_error,
        )


@pytest.mark.parametrize("p1", [0.4, 0.1])
def test_shared_transform_reads_each_length_off_the_longest_transform(p1):
    """``shared_transform``: items whose windows take different FFT lengths take divisors m = M / s of the widest's
    length M and read their factor's spectrum as every s-th bin of one length-M transform.  Two grid points
    composed c times is a binomial law (masses known to ~1e-15 relative): each item, kept whole on the length M / s
    at or above its c + 1 points, is within its charge of the exact masses, as it is composed alone."""
    from scipy.stats import binom

    factor = pmf_module.GridPMF(k_lo=0, h=0.5, p=np.array([1.0 - p1, p1]), p_inf=0.0)
    counts = [
        2,
        100,
        300,
        1000,
    ]  # lengths 3, 108, 320, 1024 alone; 4, 128, 512, 1024 as divisors of 1024
    assert len({pc.fft_length(c + 1) for c in counts}) == 4
    shared = pc.compose_many(
        [[(factor, c)] for c in counts], pessimistic=True, shared_transform=True
    )
    for c, got in zip(counts, shared):
        exact = binom.pmf(np.arange(c + 1), c, p1)
        alone = pc.compose([(factor, c)], pessimistic=True)
        assert got.k_lo == alone.k_lo == 0 and got.p.size == c + 1
        assert np.all(np.abs(got.p - exact) <= got.entry_error + 1e-14 * exact), c
        assert np.all(np.abs(got.p - alone.p) <= got.entry_error + alone.entry_error), c
        assert 0 < got.entry_error < 1e-12


@pytest.mark.parametrize("pessimistic", [True, False])
def test_shared_transform_keeps_each_items_window_and_charges(pessimistic):
    """A run's checkpoints composed with ``shared_transform`` keep the windows they get alone (k_lo, size, the cut
    tails) and masses within both compositions' charges of the lone ones; the longer transform's round-off bound
    (8 u ceil(log2 M)) is charged, so no charge falls below the lone one's by more than its own round-off."""
    dist = pld.subsampled_gaussian(1.1, 256 / 60000, value_discretization_interval=1e-3)
    factor = next(iter(dist.directions[0]))
    side = factor.upper if pessimistic else factor.lower
    counts = [235, 1175, 4700, 14100]
    assert (
        len(
            {pc.fft_length(pc.compose([(side, c)], pessimistic=pessimistic).p.size) for c in counts}
        )
        > 1
    )
    shared = pc.compose_many(
        [[(side, c)] for c in counts], pessimistic=pessimistic, shared_transform=True
    )
    for c, got in zip(counts, shared):
        alone = pc.compose([(side, c)], pessimistic=pessimistic)
        assert (got.k_lo, got.p.size, got.p_inf, got.shift) == (
            alone.k_lo,
            alone.p.size,
            alone.p_inf,
            alone.shift,
        )
        assert np.all(np.abs(got.p - alone.p) <= got.entry_error + alone.entry_error), c
        assert got.total_error >= 0.5 * alone.total_error, c


def test_composition_of_two_factors_matches_a_direct_convolution():
    a = pld.subsampled_gaussian(1.5, 0.1, value_discretization_interval=1e-2)
    b = pld.subsampled_gaussian(0.8, 0.05, value_discretization_interval=1e-2)
    fa, fb = next(iter(a.directions[0])).upper, next(iter(b.directions[0])).upper
    got = pc.compose([(fa, 2), (fb, 3)], pessimistic=True)
    direct = np.convolve(np.convolve(fa.p, fa.p), np.convolve(np.convolve(fb.p, fb.p), fb.p))
    lo = 2 * fa.k_lo + 3 * fb.k_lo
    assert got.k_lo == lo and got.p.size == direct.size  # small support: kept whole, no window
    assert np.max(np.abs(got.p - direct)) <= got.entry_error
    assert got.entry_error < 1e-12
    exact_inf = -math.expm1(
        2 * math.log1p(-fa.p_inf) + 3 * math.log1p(-fb.p_inf)
    )  # 1 - prod (1 - p_inf)^c
    assert fa.p_inf > 0 and got.p_inf == pytest.approx(exact_inf, rel=1e-12)


def test_compositions_call_scipys_pocketfft_directly_where_scipy_has_it():
    """The compositions' transforms skip scipy.fft's dispatch and copy (register_pld_compose.cpp's PocketFft)
    wherever scipy's pocketfft module offers r2c, c2r and _workers, after a probe found its output to be
    scipy.fft.rfft / irfft's bit for bit (the convolution test above checks the masses either way)."""
    try:
        from scipy.fft._pocketfft import helper, pypocketfft
    except ImportError:
        pytest.skip("this scipy has no scipy.fft._pocketfft: the compositions call scipy.fft")
    offered = all(hasattr(pypocketfft, f) for f in ("r2c", "c2r")) and hasattr(helper, "_workers")
    assert _core.pld_compose._fft_direct() == offered


def test_default_cap_is_a_stated_fraction_of_physical_memory():
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert pc.DEFAULT_MAX_POINTS == max(
        1 << 20, int(pc.MEMORY_FRACTION * physical) // pc.BYTES_PER_POINT
    )
    assert pc.DEFAULT_MAX_POINTS * pc.BYTES_PER_POINT <= max(
        physical // 2, 1 << 20 * pc.BYTES_PER_POINT
    )


@pytest.mark.slow
def test_a_window_above_the_cap_is_refused_before_allocating():
    # 10^5 rounds of a Gaussian with sigma 0.05 on h = 1e-4: a window of about 10^9 points (~100 GB).
    dist = pld.gaussian(0.05, value_discretization_interval=1e-4).self_compose(100_000)
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"max_points=.*coarsen the grid.*raise max_points"):
        dist.epsilon(1e-5)
    assert (
        time.perf_counter() - start < 120
    )  # refused, not attempted (a hang guard for a loaded machine)
    small = pld.subsampled_gaussian(1.0, 0.01, value_discretization_interval=1e-4)
    factor = next(iter(small.directions[0])).upper
    with pytest.raises(ValueError, match=r"needs \d+ grid points \(max_points=1000\)"):
        pc.compose([(factor, 1000)], pessimistic=True, max_points=1000)


_PEAK = """
import resource, sys
import hockeystick.pld as pld
d = pld.subsampled_gaussian(0.5, 0.1, value_discretization_interval=2e-3).self_compose(50_000)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
d.epsilon(1e-5, bound="both", composition_only=True)  # the composition's own read, not the run's (pld.question)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
width = max(p.p.size for side in (True, False) for p in d.composed(side))
print((peak - base) * 1024 / width, width)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in kilobytes on Linux only")
def test_peak_memory_per_window_point_is_below_the_stated_figure():
    out = subprocess.run(
        [sys.executable, "-c", _PEAK], check=True, capture_output=True, text=True
    ).stdout.split()
    per_point, width = float(out[0]), int(out[1])
    assert width > 500_000  # large enough that the window dominates the process's growth
    assert per_point <= pc.BYTES_PER_POINT


def test_factors_without_finite_mass_keep_a_valid_window():
    """All mass at +infinity (or an underflowing remainder): the Chernoff edges are infinite; the window
    stays inside the full support, delta is 1 and epsilon is refused (inf) rather than garbage."""
    from hockeystick.pld.grid.pmf import GridPMF

    empty = GridPMF(0, 1e-3, np.zeros(5000), 1.0)
    got = pc.compose([(empty, 10)], pessimistic=True)
    assert 0 <= got.k_lo <= 10 * 4999 and got.p.size >= 1 and got.p_inf == 1.0
    assert got.delta(np.array([0.0, 50.0])).tolist() == [1.0, 1.0]
    tiny = GridPMF(-100, 1e-3, np.r_[np.zeros(4999), 1e-300], 0.0)
    got = pc.compose([(tiny, 10)], pessimistic=True)
    assert 10 * -100 <= got.k_lo and got.k_lo + got.p.size - 1 <= 10 * 4899
    assert np.all(np.isfinite(got.p)) and np.all(got.p >= 0)


LADDER = [10.0 ** (-4.0 + 0.5 * i) for i in range(8)] + [0.5, 0.7, 1.0, 1.4, 2.0]


CASES = [
    (
        1.0,
        0.01,
        2000,
        1e-4,
    ),  # near-Gaussian composed loss: the best rungs sit by the Gaussian optimum
    (0.8, 0.05, 585, 1e-4),
    (0.5, 1e-3, 300, 1e-3),  # heavy right tail: the best top rung lies far below it
    (0.6, 0.2, 40, 1e-3),
    (3.0, 0.5, 7, 1e-3),
]


def _snapped(lam: float) -> float:
    """lam rounded to the nearest 2^(k/4), as chernoff_edges rounds its rungs (C's round: halves away from 0)."""
    x = 4.0 * math.log2(lam)
    return math.exp2(math.copysign(math.floor(abs(x) + 0.5), x) / 4.0)


def test_window_edges_are_the_best_rungs_of_the_whole_ladder():
    """The window walks the Chernoff ladder from the Gaussian-optimal rungs (pld/compose/compose.hpp, chernoff_edges);
    its edges must be those of the best of all 13 rungs per side, computed here from the certified log-MGF,
    on cases whose best rungs lie by the Gaussian optimum and far from it (the walk's both ends), and of the
    fixed rungs too where that window is wider than kFixedLadderWidth, or than kOvershotLadderWidth with a best
    rung at the ladder's small end."""
    tail = pc.DEFAULT_TAIL
    best_rungs = set()
    for sigma, q, rounds, h in CASES:
        factor = next(
            iter(pld.subsampled_gaussian(sigma, q, value_discretization_interval=h).directions[0])
        ).upper
        got = pc.compose([(factor, rounds)], pessimistic=True)
        var = rounds * float(_core.pld_grid.loss_variance(factor.p, h=h))
        lams = [
            _snapped(f * math.sqrt(2.0 * math.log(1.0 / tail)) / math.sqrt(max(var, 1e-300)))
            for f in LADDER
        ]
        up = [
            rounds
            * float(_core.pld_grid.log_mgf(factor.p, k_lo=factor.k_lo, h=h, lam=np.array([lam]))[0])
            for lam in lams
        ]
        down = [
            rounds
            * float(
                _core.pld_grid.log_mgf(factor.p, k_lo=factor.k_lo, h=h, lam=np.array([-lam]))[0]
            )
            for lam in lams
        ]
        tops = [(k - math.log(tail)) / lam for k, lam in zip(up, lams)]
        bottoms = [(math.log(tail) - k) / lam for k, lam in zip(down, lams)]
        overshot = not (math.isfinite(min(tops)) and math.isfinite(max(bottoms))) or 0 in (
            int(np.argmin(tops)),
            int(np.argmax(bottoms)),
        )
        width = (min(tops) - max(bottoms)) / h
        if not width < 2**20 or (
            overshot and not width < 4 * 4096
        ):  # kFixedLadderWidth, kOvershotLadderWidth
            fixed = [10.0 ** (-3.0 + 0.5 * i) for i in range(19)]
            tops += [
                (
                    rounds
                    * float(
                        _core.pld_grid.log_mgf(
                            factor.p, k_lo=factor.k_lo, h=h, lam=np.array([lam])
                        )[0]
                    )
                    - math.log(tail)
                )
                / lam
                for lam in fixed
            ]
            bottoms += [
                (
                    math.log(tail)
                    - rounds
                    * float(
                        _core.pld_grid.log_mgf(
                            factor.p, k_lo=factor.k_lo, h=h, lam=np.array([-lam])
                        )[0]
                    )
                )
                / lam
                for lam in fixed
            ]
        lo_full, hi_full = rounds * factor.k_lo, rounds * (factor.k_lo + factor.p.size - 1)
        b = min(math.ceil(min(tops) / h), hi_full)
        a = max(math.floor(max(bottoms) / h), lo_full)
        assert (got.k_lo, got.k_lo + got.p.size - 1) == (a, b), (sigma, q, rounds, h)
        best_rungs |= {int(np.argmin(tops[:13])), int(np.argmax(bottoms[:13]))}
    assert best_rungs & {9, 10, 11} and best_rungs - {8, 9, 10, 11, 12}, best_rungs


def test_a_near_point_mass_is_cut_by_the_fixed_ladder():
    """An optimistic PMF with its mass on one grid point but for masses of 1e-15 to 1e-13 up to 20 points away
    (the add direction of sigma 2.59, q 2.07e-4 at h 1.95e-4): its grid variance puts every Gaussian rung far
    above the useful lam, and without the fixed rungs its composition keeps nearly the whole support (about 18
    of the 21 points per round below zero).  The fixed rungs cut it to the tail, and the cut is charged."""
    h = 0.000195
    direction = pld.subsampled_gaussian(
        2.589737339615605, 0.00020691380811147902, value_discretization_interval=h
    )
    factor = next(iter(direction.directions[1])).lower
    assert factor.k_lo <= -20 and np.max(factor.p) > 1 - 1e-12
    for rounds in (1326, 5964, 56899):  # 2.2e4, 8.6e4 and 3.5e5 points on the Gaussian rungs alone
        got = pc.compose([(factor, rounds)], pessimistic=False)
        assert got.p.size < 4 * 4096 and got.k_lo > 0.1 * rounds * factor.k_lo, rounds
        assert (
            -2 * pc.DEFAULT_TAIL <= got.shift < 0
        )  # both cut ends subtracted on the optimistic side


@pytest.mark.parametrize("p1, count", [(0.4, 400), (0.1, 1000), (0.5, 256)])
def test_dropped_bins_stay_within_the_charged_entry_error(p1, count):
    """Two grid points composed ``count`` times is a binomial law, its masses known to ~1e-15 relative;
    far from zero frequency |X_k| = |1 - p1 + p1 e^{-i w_k}| falls to |1 - 2 p1|, so most bins' powers
    are far below the dropped-bin bound tau = 2^-64 (left at 0, charged 2 tau each: pld/compose/compose.hpp)."""
    from scipy.stats import binom

    factor = pmf_module.GridPMF(k_lo=0, h=0.5, p=np.array([1.0 - p1, p1]), p_inf=0.0)
    spectrum = np.abs(np.fft.rfft(factor.p, pc.fft_length(count + 1)))
    assert np.mean(spectrum**count < 2.0**-64) > 0.5  # most bins are dropped
    got = pc.compose([(factor, count)], pessimistic=True)
    exact = binom.pmf(np.arange(count + 1), count, p1)
    assert got.k_lo == 0 and got.p.size == count + 1
    assert np.all(np.abs(got.p - exact) <= got.entry_error + 1e-14 * exact)
    assert got.entry_error < 1e-12


@pytest.mark.parametrize("direct", [False, True])
def test_items_sharing_a_factor_get_their_own_window_and_bits_when_batched(direct):
    """A call keeps each factor's K(lam) for its items (chernoff_edges' snapped ladder, so the rounds values of
    a grid block share rungs): every item's window and values are those it gets composed alone."""
    factor = next(
        iter(pld.subsampled_gaussian(0.7, 3e-3, value_discretization_interval=2e-4).directions[0])
    ).upper
    counts = [int(c) for c in np.round(np.logspace(1, 4.5, 12))]
    batched = pc.compose_many([[(factor, c)] for c in counts], pessimistic=True, direct_bins=direct)
    for c, got in zip(counts, batched):
        alone = pc.compose([(factor, c)], pessimistic=True, direct_bins=direct)
        assert (alone.k_lo, alone.p.size, alone.p_inf, alone.entry_error, alone.total_error) == (
            got.k_lo,
            got.p.size,
            got.p_inf,
            got.entry_error,
            got.total_error,
        ), c
        np.testing.assert_array_equal(alone.p, got.p)
