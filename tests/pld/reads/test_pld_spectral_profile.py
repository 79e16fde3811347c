"""The certified upper epsilon and delta read from a composition's live frequencies (pld/reads/spectral_profile.hpp).

- The suffix sums A, R, D over a window of the inverse of a few live bins, read without the inverse transform,
  lie within their stated bounds of the same sums of the exact inverse (long-double direct sums over every
  window point), for windows that wrap around the transform, every threshold kind and coarse and fine grids;
  and the bounds are not vacuous (within 4u of the sum plus 1e-16).
- ``compose.upper_sides`` gives, per item, at most the epsilon and the delta of the composed window
  (``GridPMF.epsilon``, ``GridPMF.delta``: the spectral read carries no inverse-transform charge) and at least
  the exact ones of a Gaussian composition (mpmath, 50 digits), down to deltas where the round-off charges
  decide; the spectral read did run (the same call with ``spectral=False`` differs, and gives the window's
  bits); items it cannot read (few rounds, many live bins), or asked for so many values that the window costs
  less, give the window's bits, and a value read from the spectrum with a few others is the value asked alone.
- Random settings: every spectral read lies between the certified lower side and the window's upper side.
- The accountant's fixed-grid upper side (``SubsampledGaussianPLD(...).epsilon``), which takes that path, stays
  at or below the PLD object's composed-window answer, by at most that window's inverse-transform charge.
"""

from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
import pytest
import scipy.fft

from hockeystick import _core, pld
from hockeystick.pld.compose import fft as compose
from hockeystick.pld.mechanisms import constructors as mechanisms

U = 2.0**-53
EXTENDED = np.finfo(np.longdouble).nmant >= 63


@functools.lru_cache(maxsize=2)
def _unit_circle(m: int) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of 2 pi a / m for every residue a = 0 .. m - 1, in long double: the only angles a window's
    direct sums take (n k mod m), each evaluated once (a window holds up to ~30 times as many terms)."""
    two_pi = np.longdouble(2) * np.arccos(np.longdouble(-1))
    angle = np.arange(m).astype(np.longdouble) * two_pi / m
    return np.cos(angle), np.sin(angle)


def _window(bins: np.ndarray, m: int, start: int, width: int) -> np.ndarray:
    """The exact inverse of the live bins at the window's points, in long double (direct sums)."""
    n = (start + np.arange(width)) % m
    k = np.arange(1, bins.size)
    cos, sin = _unit_circle(m)
    residue = np.outer(n, k) % m
    re, im = bins[1:].real.astype(np.longdouble), bins[1:].imag.astype(np.longdouble)
    return (np.longdouble(bins[0].real) + 2 * (cos[residue] @ re - sin[residue] @ im)) / m


def _window_sums(y: np.ndarray, h: float, J: int) -> tuple:
    """A, R, D of the opening comment over the window points j >= J, in long double."""
    tail = y[J:]
    A = tail.sum()
    R = (tail * np.exp(-np.longdouble(h) * np.arange(tail.size, dtype=np.longdouble))).sum()
    return A, R, A - R


def _composed_bins(sigma: float, q: float, rounds: int, h: float) -> tuple[np.ndarray, int, int]:
    """The live bins (|Y| above 2^-64) of ``rounds`` copies of a subsampled Gaussian's remove direction, its
    composed window's width and the transform length."""
    one = mechanisms.subsampled_gaussians(
        [sigma], q, value_discretization_interval=h, optimistic=False
    )[0]
    factor = next(iter(one.directions[0])).upper
    width = one.self_compose(rounds).composed(True)[0].p.size
    m = compose.fft_length(width)
    spectrum = np.exp(rounds * np.log(scipy.fft.rfft(factor.p, m).astype(complex)))
    live = int(np.flatnonzero(np.abs(spectrum) > 2.0**-64).max()) + 1
    return spectrum[:live], width, m


@pytest.mark.skipif(not EXTENDED, reason="the reference sums need numpy's 80-bit longdouble")
@pytest.mark.parametrize(
    "sigma, q, rounds, h",
    [
        pytest.param(0.5, 0.01, 10_000, 1e-3, marks=pytest.mark.slow),
        (2.0, 0.01, 10_000, 1e-3),
        (1.0, 0.1, 1_000, 2e-3),
        pytest.param(0.8, 0.001, 100_000, 1e-4, marks=pytest.mark.slow),
    ],
)
def test_suffix_sums_within_their_bounds(sigma: float, q: float, rounds: int, h: float) -> None:
    bins, width, m = _composed_bins(sigma, q, rounds, h)
    assert 4 * bins.size <= m
    rng = np.random.default_rng(int(sigma * 1000) + rounds)
    for start in (
        0,
        int(rng.integers(1, m)),
        m - width // 2,
    ):  # the last window wraps around the transform
        y = _window(bins, m, start, width)
        for J in (0, 1, width // 3, width // 2, width - 7, width - 1):
            A, R, D, R_error, D_error = _core.pld_compose.spectral_sums(
                bins, m=m, start=start, width=width, h=h, J=J
            )
            A_ref, R_ref, D_ref = _window_sums(y, h, J)
            assert abs(R - R_ref) <= R_error and abs(D - D_ref) <= D_error, (
                start,
                J,
                R - R_ref,
                R_error,
            )
            assert abs(A - A_ref) <= 4 * U * abs(A_ref) + 1e-17
            # not vacuous: the results' own rounding (u each, doubled) plus the long-double terms (~1e-17)
            assert R_error <= 4 * U * abs(R) + 2e-17 and D_error <= 4 * U * abs(D) + 1e-16


@pytest.mark.skipif(not EXTENDED, reason="the reference sums need numpy's 80-bit longdouble")
@pytest.mark.parametrize("long_double", [True, False])
def test_suffix_sums_of_a_coarse_grid_and_random_bins(long_double: bool) -> None:
    """Any bins (not a composition's): the bound holds for h up to 1 and phases spread over the circle, with the
    sums in long double and in double (the path where long double lacks its 64 bits)."""
    rng = np.random.default_rng(7)
    for m, live, h in ((4096, 40, 1.0), (3000, 700, 0.05), (720, 180, 1e-5), (110592, 37, 1e-3)):
        bins = (rng.normal(size=live) + 1j * rng.normal(size=live)) * np.exp(
            -np.arange(live) / (live / 6)
        )
        bins[0] = abs(bins[0])
        width = int(rng.integers(m // 2, m))
        start = int(rng.integers(0, m))
        y = _window(bins, m, start, width)
        for J in (0, width // 4, width - 2):
            _, R, D, R_error, D_error = _core.pld_compose.spectral_sums(
                bins, m=m, start=start, width=width, h=h, J=J, long_double=long_double
            )
            _, R_ref, D_ref = _window_sums(y, h, J)
            assert abs(R - R_ref) <= R_error and abs(D - D_ref) <= D_error, (m, live, J)


def test_spectral_sums_refuse_what_the_bounds_do_not_cover() -> None:
    bins = np.ones(5, dtype=complex)
    with pytest.raises(ValueError, match="m / 4"):
        _core.pld_compose.spectral_sums(
            bins, m=16, start=0, width=10, h=1e-3, J=0
        )  # 5 bins of a length-16 transform
    with pytest.raises(ValueError, match="J < width"):
        _core.pld_compose.spectral_sums(bins, m=64, start=0, width=10, h=1e-3, J=10)


def _gaussian_delta(mu: float, eps: float) -> mpmath.mpf:
    """Exact delta(eps) of the mu-GDP Gaussian pair (50 digits, whatever precision other tests left set)."""
    with mpmath.workdps(50):
        if eps == -math.inf:
            return mpmath.mpf(1)
        if eps == math.inf:
            return mpmath.mpf(0)
        m, e = mpmath.mpf(mu), mpmath.mpf(eps)
        return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)


def _gaussian_epsilon(mu: float, delta: float) -> float:
    """Exact epsilon(delta) of the mu-GDP Gaussian pair: delta(eps) falls with eps, 120 bisection steps on [0, 60]."""
    lo, hi = 0.0, 60.0
    for _ in range(120):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _gaussian_delta(mu, mid) > delta else (lo, mid)
    return hi


@pytest.mark.parametrize(
    "sigma, rounds, h", [(20.0, 1000, 1e-3), (5.0, 200, 1e-3), (60.0, 10_000, 2e-3)]
)
def test_gaussian_composition_stays_certified_and_below_the_window(
    sigma: float, rounds: int, h: float
) -> None:
    one = mechanisms.subsampled_gaussians(
        [sigma], 1.0, value_discretization_interval=h, optimistic=False
    )[0]
    factor = next(iter(one.directions[0])).upper
    deltas = np.array([1e-3, 1e-5, 1e-9, 1e-12])
    (spectral,) = compose.upper_sides([[(factor, rounds)]], [deltas], "epsilon")
    window = compose.compose_many([[(factor, rounds)]], pessimistic=True)[0].epsilon(deltas)
    exact = np.array([_gaussian_epsilon(math.sqrt(rounds) / sigma, d) for d in deltas])
    assert np.all(spectral >= exact), (spectral, exact)
    assert np.all(spectral <= window), (spectral, window)
    assert np.all(
        spectral[:2] - exact[:2] <= 0.01 * exact[:2]
    )  # the grid's own error, where no charge decides
    assert np.any(spectral != window)  # the spectral read ran (the window's inverse charge is gone)


@pytest.mark.parametrize("sigma, rounds, h", [(20.0, 1000, 1e-3), (5.0, 200, 1e-3)])
def test_gaussian_delta_stays_certified_and_below_the_window(
    sigma: float, rounds: int, h: float
) -> None:
    one = mechanisms.subsampled_gaussians(
        [sigma], 1.0, value_discretization_interval=h, optimistic=False
    )[0]
    factor = next(iter(one.directions[0])).upper
    mu = math.sqrt(rounds) / sigma
    eps = np.array([-np.inf, -1.0, 0.0, 0.37, 2.0, 4.5005, 9.0, 30.0, np.inf]) * (mu / 1.5)
    (spectral,) = compose.upper_sides([[(factor, rounds)]], [eps], "delta")
    window = compose.compose_many([[(factor, rounds)]], pessimistic=True)[0].delta(eps)
    exact = np.array([float(_gaussian_delta(mu, e)) for e in eps])
    assert np.all(spectral >= exact) and np.all(spectral <= window), (spectral, exact, window)
    assert np.any(spectral != window)
    # and the round trip: the delta at the spectral epsilon of a target is at most the target
    targets = np.array([1e-3, 1e-6, 1e-9])
    (at,) = compose.upper_sides([[(factor, rounds)]], [targets], "epsilon")
    (back,) = compose.upper_sides([[(factor, rounds)]], [at], "delta")
    assert np.all(back <= targets), (back, targets)


def test_the_spectral_switch_and_the_fallback() -> None:
    """``spectral=False`` is the window's scan bit for bit; an item of few rounds (many live bins) falls back to
    its window in the spectral call too, and one factor once is that factor's own scan."""
    ones = mechanisms.subsampled_gaussians(
        [0.7, 1.5], 0.02, value_discretization_interval=1e-3, optimistic=False
    )
    factors = [f.upper for d in ones for direction in d.directions for f in direction]
    items = [[(factors[0], 10_000)], [(factors[1], 3)], [(factors[2], 1)], [(factors[3], 2_000)]]
    deltas = np.array([1e-4, 1e-7])
    windows = [compose.compose_many([item], pessimistic=True)[0].epsilon(deltas) for item in items]
    spectral = compose.upper_sides(items, [deltas] * len(items), "epsilon")
    off = _core.pld_compose.compose_upper_many(
        [f.p for f in factors],
        k_lo=[f.k_lo for f in factors],
        p_inf=[f.p_inf for f in factors],
        h=1e-3,
        items=[[(i, c)] for i, ((_, c),) in enumerate(items)],
        tail=compose.DEFAULT_TAIL,
        max_points=compose.DEFAULT_MAX_POINTS,
        workers=None,
        loss_shifts=[f.loss_shift for f in factors],
        arguments=[deltas] * len(items),
        method="epsilon",
        spectral=False,
    )
    for i in (
        0,
        1,
        3,
    ):  # (item 2, one factor once, is the factor's own scan in the facade; composed in C++ here)
        np.testing.assert_array_equal(off[i], windows[i])
    np.testing.assert_array_equal(
        spectral[1], windows[1]
    )  # 3 rounds: hundreds of live bins, the window's scan
    np.testing.assert_array_equal(spectral[2], windows[2])  # one factor once: its own scan
    assert np.all(spectral[0] <= windows[0]) and np.any(spectral[0] != windows[0])
    # a few values read from the spectrum are each the value asked alone; many values of one item cost less
    # from its window (compose_many's cost rule), which gives the window's bits
    for i, item in enumerate(items):
        for d, value in zip(deltas, spectral[i]):
            assert compose.upper_sides([item], [np.array([d])], "epsilon")[0][0] == value
    many = np.geomspace(1e-3, 1e-9, 200)
    np.testing.assert_array_equal(
        compose.upper_sides([items[0]], [many], "epsilon")[0],
        compose.compose_many([items[0]], pessimistic=True)[0].epsilon(many),
    )


def test_accountant_upper_side_reads_the_spectra(grid_alone) -> None:
    sigma = np.array([0.6, 1.1, 2.5, 4.0])
    delta = np.array([1e-5, 1e-9])[:, None]
    upper = pld.SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=0.01, rounds=10_000, value_discretization_interval=1e-3
    ).epsilon(delta)
    ones = mechanisms.subsampled_gaussians(
        sigma, 0.01, value_discretization_interval=1e-3, optimistic=False
    )
    window = np.array(
        [d.self_compose(10_000).epsilon(delta.ravel(), composition_only=True) for d in ones]
    ).T
    # lower by the window's inverse-transform charge at most: 1e-5 relative at delta = 1e-9, 1e-9 at 1e-5
    assert np.all(upper <= window) and np.all(window - upper <= 1e-4 * window), (upper, window)
    assert np.any(upper != window)


def test_random_settings_stay_between_the_certified_lower_side_and_the_window() -> None:
    """Random (sigma, q, rounds, h) and targets: every spectral read lies at or above the certified lower side
    (the optimistic composition's) and at or below the window's upper side, for epsilons and deltas alike."""
    rng = np.random.default_rng(20261126)
    for _ in range(12):
        sigma, q = float(rng.uniform(0.5, 4.0)), float(10 ** rng.uniform(-3, -0.5))
        rounds, h = int(10 ** rng.uniform(0.5, 4.3)), float(10 ** rng.uniform(-3, -2.2))
        dist = mechanisms.subsampled_gaussian(
            sigma, q, value_discretization_interval=h
        ).self_compose(rounds)
        items = [[(f.upper, c) for f, c in direction.items()] for direction in dist.directions]
        deltas = np.sort(10 ** rng.uniform(-12, -2, 3))
        eps = np.sort(rng.uniform(0.0, 8.0, 3))
        up_eps = np.max(
            [
                np.maximum(v, 0.0)
                for v in compose.upper_sides(items, [deltas] * len(items), "epsilon")
            ],
            axis=0,
        )
        up_delta = np.max(compose.upper_sides(items, [eps] * len(items), "delta"), axis=0)
        lo_eps, win_eps = dist.epsilon(deltas, bound="both", composition_only=True)
        lo_delta, win_delta = dist.delta(eps, bound="both", composition_only=True)
        setting = (sigma, q, rounds, h)
        assert np.all(lo_eps <= up_eps) and np.all(up_eps <= win_eps), (
            setting,
            lo_eps,
            up_eps,
            win_eps,
        )
        assert np.all(lo_delta <= up_delta) and np.all(up_delta <= win_delta), (
            setting,
            lo_delta,
            up_delta,
            win_delta,
        )


@pytest.mark.parametrize(
    "sigma, q, rounds, h",
    [(1.1, 256 / 60000, 14_100, 1e-4), (2.0, 0.2, 300, 1e-2), (1.0, 1.0, 100, 1e-3)],
)
def test_epsilon_searches_over_many_targets_stay_between_the_windows(
    sigma: float, q: float, rounds: int, h: float
):
    """The spectral epsilon searches (detail::crossing: Newton and regula falsi steps that keep a bisection's
    invariant) on 40 targets from 1e-14 to 0.9, each target its own item so that every one is read from its
    spectrum: the upper side at or below the window's upper side (to 8 ulps: a spectral epsilon raised until its
    own delta meets the target may land a few ulps above a grid point the window returns), the lower side at or
    below both upper sides, the window's lower side below the spectral upper one."""
    dist = mechanisms.subsampled_gaussian(sigma, q, value_discretization_interval=h).self_compose(
        rounds
    )
    deltas = np.sort(10 ** np.random.default_rng(rounds).uniform(-14, -0.05, 40))
    n = len(dist.directions)
    args = [np.array([d]) for d in deltas for _ in range(n)]
    upper_items = [
        [(f.upper, c) for f, c in direction.items()] for direction in dist.directions
    ] * deltas.size
    lower_items = [
        [t for f, c in direction.items() for t in f.lower_terms(c)] for direction in dist.directions
    ]
    upper = np.maximum(
        np.reshape(compose.upper_sides(upper_items, args, "epsilon"), (-1, n)).max(axis=1), 0.0
    )
    sides = compose.lower_sides(lower_items * deltas.size, args, "epsilon")
    assert all(window is None for _, window in sides)  # every lower side read from its spectrum
    lower = np.maximum(np.reshape([v for v, _ in sides], (-1, n)).max(axis=1), 0.0)
    window_lower, window_upper = dist.epsilon(deltas, bound="both", composition_only=True)
    finite = np.isfinite(window_upper)
    assert np.array_equal(finite, np.isfinite(upper)) and finite.sum() >= 25
    slack = 8 * np.spacing(np.maximum(window_upper[finite], 1.0))
    assert np.all(upper[finite] <= window_upper[finite] + slack), (deltas, upper, window_upper)
    assert (
        np.all(lower <= upper) and np.all(lower <= window_upper) and np.all(window_lower <= upper)
    )


def test_upper_sides_refuse_nan_and_an_unknown_method() -> None:
    one = mechanisms.subsampled_gaussians(
        [1.0], 0.01, value_discretization_interval=1e-3, optimistic=False
    )[0]
    item = [[(f.upper, 100) for f, _ in one.directions[0].items()]]
    with pytest.raises(ValueError, match="NaN"):
        compose.upper_sides(item, [np.array([1e-5, np.nan])], "epsilon")
    with pytest.raises(ValueError, match="method"):
        compose.upper_sides(item, [np.array([1e-5])], "both")


@pytest.mark.parametrize(
    "sigma, q, rounds, h",
    [(1.0, 1.0, 400, 0.05), (0.7, 0.05, 3000, 0.5), (2.0, 0.3, 50, 5.0), (3.0, 1e-3, 20_000, 1e-3)],
)
def test_edges_of_the_arguments_stay_certified(
    sigma: float, q: float, rounds: int, h: float
) -> None:
    """q = 1, coarse grids up to h = 5, and the extreme arguments: deltas down to the least subnormal and up to
    1 - 1e-12, epsilons at +-1e308 and +-inf; every value is a number between the certified lower side and the
    window's upper side (to an ulp: the spectral delta's sum is rounded up), deltas at most 1."""
    dist = mechanisms.subsampled_gaussian(sigma, q, value_discretization_interval=h).self_compose(
        rounds
    )
    items = [[(f.upper, c) for f, c in direction.items()] for direction in dist.directions]
    deltas = np.array([5e-324, 1e-300, 1e-15, 1e-6, 0.5, 1 - 1e-12])
    eps = np.array([-np.inf, -1e308, -1.0, 0.0, 1e-300, 3.0, 1e308, np.inf])
    for method, args in (("epsilon", deltas), ("delta", eps)):
        sides = compose.upper_sides(items, [args] * len(items), method)
        upper = np.max([np.maximum(v, 0.0) if method == "epsilon" else v for v in sides], axis=0)
        lower, window = getattr(dist, method)(args, bound="both", composition_only=True)
        assert not np.isnan(upper).any(), (method, upper)
        assert np.all(lower <= upper), (method, lower, upper)
        assert np.all(upper <= np.nextafter(window, np.inf)), (method, upper, window)
        if method == "delta":
            assert np.all(upper <= 1.0) and upper[-1] <= upper[0]
