"""A grid PMF's queries against their one-shot forms: the suffix sums it keeps (the whole profile, the part
above loss 0, the part above the least eps asked) answer bit for bit as the kernels over the whole grid; the
Chernoff window's log-MGF is never below its 50-digit value; the windowed composition is within its charges
of the exact repeated convolution."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick import _core
from hockeystick.pld.grid.pmf import GridPMF


@pytest.mark.parametrize("lam", [-40.0, -0.3, 0.0, 0.05, 2.0, 35.0])
def test_log_mgf_never_below_the_exact_value(lam):
    """The Chernoff window needs K(lam) from above: 50-digit reference, margin <= 1e-10."""
    rng = np.random.default_rng(7)
    p = rng.random(3001) * np.exp(-rng.random(3001) * 30)
    k_lo, h = -1700, 1e-3
    got = float(_core.pld_grid.log_mgf(p, k_lo=k_lo, h=h, lam=np.array([lam]))[0])
    with mp.workdps(50):
        exact = mp.log(
            mp.fsum(
                mp.mpf(float(pk)) * mp.exp(mp.mpf(lam) * (k_lo + k) * mp.mpf(h))
                for k, pk in enumerate(p)
            )
        )
    assert got >= exact
    assert got - exact <= 1e-10 * max(1.0, abs(float(exact)))


def _whole_delta(pmf: GridPMF, eps: np.ndarray) -> np.ndarray:
    """The uncharged curve from the whole grid's suffix sums, by the one-shot kernel (the kept profile's
    numbers: ``test_kept_profile_equals_the_one_shot_evaluation``)."""
    return _core.pld_reads.delta(
        pmf.p, k_lo=pmf.k_lo, h=pmf.h, p_inf=pmf.p_inf, epsilon=np.ascontiguousarray(eps), threads=1
    )


def _whole_epsilon(pmf: GridPMF, deltas: np.ndarray) -> np.ndarray:
    """The inverse of ``_whole_delta``'s curve, by the one-shot kernel."""
    return _core.pld_reads.epsilon(
        pmf.p,
        k_lo=pmf.k_lo,
        h=pmf.h,
        p_inf=pmf.p_inf,
        delta=np.ascontiguousarray(deltas),
        threads=1,
    )


def test_kept_profile_equals_the_one_shot_evaluation():
    """GridPMF keeps its suffix sums; delta/epsilon through them equal the one-shot kernels exactly."""
    composed = (
        pld.subsampled_gaussian(1.0, 0.1, value_discretization_interval=5e-3)
        .self_compose(30)
        .composed(True)[0]
    )
    eps = np.linspace(-1, 8, 301)
    deltas = np.logspace(-12, -0.5, 50)
    grid = {"k_lo": composed.k_lo, "h": composed.h, "p_inf": composed.p_inf}
    np.testing.assert_array_equal(
        composed._profile.delta(eps, threads=1),
        _core.pld_reads.delta(composed.p, **grid, epsilon=eps, threads=1),
    )
    np.testing.assert_array_equal(
        composed._profile.epsilon(deltas, threads=1),
        _core.pld_reads.epsilon(composed.p, **grid, delta=deltas, threads=1),
    )
    assert composed._profile is composed._profile


def test_windowed_composition_matches_direct_convolution_within_its_charges():
    """Live-band FFT composition vs exact repeated convolution: every entry within its charges.

    Two factors, counts 25 and 15, so the Chernoff window cuts the 7000-point support."""
    from hockeystick.pld.compose.fft import compose

    rng = np.random.default_rng(3)
    a = rng.random(180) ** 4
    b = rng.random(160) ** 2
    a, b = a / a.sum() * (1 - 1e-9), b / b.sum()
    fa, fb = GridPMF(-90, 1e-2, a, 1e-9), GridPMF(-40, 1e-2, b, 0.0)
    exact, k_lo = np.ones(1), 0
    for f, count in ((fa, 25), (fb, 15)):
        for _ in range(count):
            exact = np.convolve(exact, f.p)
            k_lo += f.k_lo
    tail = 1e-15
    for pessimistic in (True, False):
        out = compose([(fa, 25), (fb, 15)], pessimistic=pessimistic, tail=tail)
        assert out.p.size < exact.size  # the window did cut
        start = out.k_lo - k_lo
        inside = exact[start : start + out.p.size]
        assert np.all(np.abs(out.p - inside) <= out.entry_error + 2 * tail)
        assert exact[:start].sum() <= tail and exact[start + out.p.size :].sum() <= tail
        composed_inf = 1 - (1 - 1e-9) ** 25
        if pessimistic:
            assert out.p_inf >= composed_inf
        else:
            assert out.p_inf == pytest.approx(composed_inf)


def test_top_profile_answers_exactly_as_the_whole_profile():
    """delta/epsilon through the suffix sums above loss 0 (with fallback below) equal the whole profile's."""
    composed = (
        pld.subsampled_gaussian(0.9, 0.2, value_discretization_interval=5e-3)
        .self_compose(20)
        .composed(True)[0]
    )
    assert composed.top_index > 0 and composed._top_profile is not composed._profile
    eps = np.linspace(-3, 9, 2001)
    deltas = np.concatenate([np.logspace(-14, -0.01, 300), composed.delta(eps[::20])])
    np.testing.assert_array_equal(composed.raw_delta(eps, 1), _whole_delta(composed, eps))
    # The optimistic scan (C++) of an uncharged PMF is the inversion of its curve scaled by 1 - slack,
    # rounded down by its round-off (pld/reads/hockey_stick.hpp's inversion_error): never above it, within ulps.
    uncharged = GridPMF(composed.k_lo, composed.h, composed.p, composed.p_inf, 0.0, False)
    scanned = uncharged.epsilon(deltas)
    inverted = _whole_epsilon(composed, deltas / (1.0 - uncharged.suffix_sum_slack()))
    finite = np.isfinite(inverted)
    np.testing.assert_array_equal(scanned[~finite], inverted[~finite])
    assert np.all(scanned[finite] <= inverted[finite])
    assert np.all(inverted[finite] - scanned[finite] <= 1e-12 * (1.0 + np.abs(inverted[finite])))


def test_upper_part_of_the_profile_answers_exactly_as_the_whole_profile():
    """A PMF first asked about eps far above loss 0 sums only the grid points from just below the least eps
    (``GridPMF._upper_profile``); every answer, then and after lower queries, equals the whole profile's."""

    def fresh() -> GridPMF:
        return (
            pld.subsampled_gaussian(0.9, 0.2, value_discretization_interval=5e-3)
            .self_compose(20)
            .composed(True)[0]
        )

    rng = np.random.default_rng(3)
    for low in (4.0, 6.5, 8.999, 40.0):  # the last lies above the whole grid
        composed = fresh()
        # every eps a grid point (the ceiling's edge case), a point's neighbours in doubles, and points between
        grid = (composed.k_lo + np.arange(composed.p.size)) * composed.h
        eps = np.concatenate(
            [
                grid,
                np.nextafter(grid, np.inf),
                np.nextafter(grid, -np.inf),
                rng.uniform(-3, 45, 500),
            ]
        )
        first = eps[eps >= low]
        got = composed.raw_delta(first, 1)
        part = composed.__dict__.get("_upper_part")
        assert (
            part is not None
            and part[0] > composed.top_index
            and "_top_profile" not in composed.__dict__
        )
        np.testing.assert_array_equal(got, _whole_delta(composed, first))
        np.testing.assert_array_equal(composed.raw_delta(eps, 1), _whole_delta(composed, eps))
        np.testing.assert_array_equal(composed.delta(eps), fresh().delta(eps))
    for eps in (
        np.array([np.inf]),
        np.array([1e300, np.inf]),
        np.array([-np.inf, 7.0]),
    ):  # no grid index holds
        composed = fresh()
        np.testing.assert_array_equal(composed.raw_delta(eps, 1), _whole_delta(composed, eps))
