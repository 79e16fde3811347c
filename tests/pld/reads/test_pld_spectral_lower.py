"""The certified lower epsilon and delta read from an optimistic composition's live frequencies
(pld/reads/spectral_profile.hpp's lower side, ``compose.lower_sides``).

- Against the inverse-transform read of the same composition (the optimistic window, ``GridPMF``): a lower
  delta read from the spectrum lies within three of the window's charges at its argument of the window's (the
  window's inverse-transform charge is gone, it reads entries clipped at 0 where the spectral read takes them as
  they are, and its envelope takes every grid point above, each within a charge) and within 1e-9 relative of it
  where the charges are far below delta; ``spectral=False`` gives the window's bits
  (values, p_inf, shift and charges: the optimistic side of a composition made on the pessimistic path).
- Against the exact Gaussian composition (mu = sqrt(T) / sigma, 50-digit mpmath): every lower delta is at most
  the exact one and every lower epsilon at most the exact one, on sparse spectra (many rounds) and wider ones
  (coarse grids, fewer rounds), deltas from 1e-300 to 1 - 1e-12 and epsilons from -inf to +inf.
- Subsampled Gaussians (no closed form): every spectral lower value lies at or below the certified upper side
  of a grid ten times finer (which lies at or above the truth) and at or below the upper side on its own grid.
- Brackets whose upper sides are read from the spectra read their lower sides so too; along a run each point is
  the one-off ``epsilon(delta, bound="both")`` at that many rounds to round-off, below the exact epsilon.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import scipy.fft

from hockeystick import _core
from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.pld.compose import fft as compose
from hockeystick.pld.grid.distribution import brackets, direction_uppers, lower_values
from hockeystick.pld.mechanisms import constructors as mechanisms

from .test_pld_spectral_profile import _window

# the spectral reads run where long double carries a 64-bit significand (x86-64), as numpy's longdouble then does
SPECTRAL = np.finfo(np.longdouble).nmant >= 63


def _gaussian_delta(mu: float, eps: float) -> mpmath.mpf:
    """Exact delta(eps) of the mu-GDP Gaussian pair (50 digits)."""
    with mpmath.workdps(50):
        if eps >= 1e300:  # below 1e-(10^299): 0 to any precision a double holds
            return mpmath.mpf(0)
        m, e = mpmath.mpf(mu), mpmath.mpf(eps)
        if eps <= -1e300:
            return 1 - mpmath.ncdf(-m / 2) * mpmath.exp(e)  # 1 to within 1e-(10^299)
        return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)


def _gaussian_epsilon(mu: float, delta: float) -> float:
    """Exact epsilon(delta) of the mu-GDP Gaussian pair, rounded down to a double (bisection in 50 digits)."""
    with mpmath.workdps(50):
        lo, hi = mpmath.mpf(-1), mpmath.mpf(1)
        while _gaussian_delta(mu, lo) <= delta:
            lo *= 2
        while _gaussian_delta(mu, hi) > delta:
            hi *= 2
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if _gaussian_delta(mu, mid) > delta else (lo, mid)
        return float(mpmath.mpf(lo))


def _gaussian_items(sigma: float, rounds: int, h: float) -> tuple[list, float]:
    one = mechanisms.subsampled_gaussians([sigma], 1.0, value_discretization_interval=h)[0]
    (factor,) = one.directions[0]
    return [[(factor.lower, rounds)]], math.sqrt(rounds) / sigma


def _spectral(sides: list) -> list[bool]:
    return [pmf is None for _, pmf in sides]


def _each(items: list, args: np.ndarray, method: str) -> tuple[np.ndarray, np.ndarray]:
    """Per item (rows) and argument (columns), the lower side read with that argument alone (a composition asked
    for many values at once reads its window: compose_many's cost rule), and whether it was read from the
    spectrum."""
    values = np.empty((len(items), args.size))
    spectral = np.empty((len(items), args.size), dtype=bool)
    for j, x in enumerate(args):
        for i, (v, pmf) in enumerate(
            compose.lower_sides(items, [np.array([x])] * len(items), method)
        ):
            values[i, j], spectral[i, j] = v[0], pmf is None
    return values, spectral


@pytest.mark.skipif(not SPECTRAL, reason="spectral reads need long double with 64 bits")
@pytest.mark.parametrize(
    "sigma, rounds, h",
    [
        (20.0, 1000, 1e-3),
        (5.0, 200, 1e-3),
        (60.0, 10_000, 2e-3),
        (1.0, 400, 0.05),
        (1.0, 8000, 0.5),
        (1.0, 30_000, 1.0),
    ],
)
def test_gaussian_lower_sides_stay_at_or_below_the_exact(
    sigma: float, rounds: int, h: float
) -> None:
    items, mu = _gaussian_items(sigma, rounds, h)
    deltas = np.array([5e-324, 1e-300, 1e-15, 1e-12, 1e-9, 1e-5, 1e-3, 0.5, 1 - 1e-12])
    eps = np.array(
        [-np.inf, -1e308, -1.0, 0.0, 1e-300, 0.37, 2.0, 4.5005, 9.0, 30.0, 1e308, np.inf]
    )
    eps[np.isfinite(eps) & (np.abs(eps) < 1e300)] *= max(mu, 1.0)
    (low_eps,), spectral_eps = _each(items, deltas, "epsilon")
    (low_delta,), spectral_delta = _each(items, eps, "delta")
    assert spectral_eps.all() and spectral_delta.all()
    exact_eps = np.array([_gaussian_epsilon(mu, d) for d in deltas])
    exact_delta = np.array([float(_gaussian_delta(mu, e)) for e in eps])
    assert not np.isnan(low_eps).any() and not np.isnan(low_delta).any()
    assert np.all(low_eps <= exact_eps), (low_eps, exact_eps)
    assert np.all(low_delta <= exact_delta), (low_delta, exact_delta)
    assert np.all(low_delta >= 0.0) and np.all(low_delta <= 1.0)
    # not vacuous: where no charge decides, close to the window's read of the same composition (and, on the
    # finer grids, within the grid's own error of the exact values)
    sure = (deltas >= 1e-9) & (deltas <= 1e-3)
    if h <= 0.05:
        assert np.all(exact_eps[sure] - low_eps[sure] <= 0.01 * exact_eps[sure] + 2 * h), (
            low_eps,
            exact_eps,
        )
    window = compose.compose_many(items, pessimistic=False)[0].epsilon(deltas[sure])
    assert np.all(np.abs(low_eps[sure] - window) <= 1e-6 * exact_eps[sure]), (low_eps[sure], window)
    assert np.any(low_eps[sure] != window)


@pytest.mark.skipif(not SPECTRAL, reason="spectral reads need long double with 64 bits")
@pytest.mark.parametrize(
    "sigma, q, rounds, h",
    [
        (1.1, 256 / 60000, 14_100, 1e-4),
        (0.8, 0.01, 10_000, 1e-3),
        (2.0, 0.05, 3_000, 2e-3),
        (0.6, 0.2, 4000, 0.02),
    ],
)
def test_subsampled_lower_sides_against_the_window_and_a_finer_upper(
    sigma: float, q: float, rounds: int, h: float
):
    dist = mechanisms.subsampled_gaussian(sigma, q, value_discretization_interval=h).self_compose(
        rounds
    )
    items = [[(f.lower, c) for f, c in direction.items()] for direction in dist.directions]
    deltas = np.array([1e-300, 1e-12, 1e-9, 1e-6, 1e-4, 0.1, 1 - 1e-12])
    eps = np.array([-np.inf, 0.0, 0.3, 1.0, 2.0, 4.0, 8.0, np.inf])
    low_eps, spectral_eps = _each(items, deltas, "epsilon")
    low_delta, spectral_delta = _each(items, eps, "delta")
    assert spectral_eps.all() and spectral_delta.all()
    fine = mechanisms.subsampled_gaussian(
        sigma, q, value_discretization_interval=h / 4
    ).self_compose(rounds)
    up_eps, up_delta = (
        fine.epsilon(deltas, composition_only=True),
        fine.delta(eps, composition_only=True),
    )  # certified: at or above the truth
    own_up_eps, own_up_delta = (
        dist.epsilon(deltas, composition_only=True),
        dist.delta(eps, composition_only=True),
    )
    for d, item in enumerate(items):
        window = compose.compose_many([item], pessimistic=False)[0]
        assert np.all(low_eps[d] <= up_eps) and np.all(low_eps[d] <= own_up_eps), (
            d,
            low_eps[d],
            up_eps,
        )
        assert np.all(low_delta[d] <= up_delta) and np.all(low_delta[d] <= own_up_delta), (
            d,
            low_delta[d],
            up_delta,
        )
        # against the inverse-transform read of the same composition
        at = window.delta(eps)
        charge = window.charge_at(window.curve_argument(eps))
        slack = (
            window.suffix_sum_slack() * at + 1e-16
        )  # the window's suffix sums' round-off, and the spectral one
        assert np.all(np.abs(low_delta[d] - at) <= 3 * charge + slack), (
            d,
            low_delta[d],
            at,
            charge,
        )
        sure = at > 1e6 * charge
        assert sure.sum() >= 3 and np.all(np.abs(low_delta[d] - at)[sure] <= 1e-9 * at[sure]), (
            d,
            low_delta[d],
            at,
        )
        assert np.any(low_delta[d][sure] != at[sure])
        at_eps = window.epsilon(deltas)
        middle = (deltas >= 1e-6) & (deltas <= 0.1)  # no charge decides
        gap = np.abs(low_eps[d][middle] - at_eps[middle])
        assert np.all(gap <= 1e-6 * at_eps[middle]), (d, low_eps[d], at_eps)


@pytest.mark.skipif(not SPECTRAL, reason="spectral reads need long double with 64 bits")
def test_spectral_switch_gives_the_optimistic_window() -> None:
    """``spectral=False`` gives each item's optimistic window bit for bit (masses, p_inf, shift, every charge) and
    its reads, as ``compose_many(pessimistic=False)``; the spectral call differs where it reads a spectrum, and
    gives the window itself where it does not (few rounds: hundreds of live bins; one factor once)."""
    ones = mechanisms.subsampled_gaussians([0.7, 1.5], 0.02, value_discretization_interval=1e-3)
    factors = [f.lower for d in ones for direction in d.directions for f in direction]
    items = [[(factors[0], 10_000)], [(factors[1], 3)], [(factors[2], 1)], [(factors[3], 2_000)]]
    items.append([(factors[0], 700), (factors[2], 300)])  # two factors
    deltas = np.array([1e-4, 1e-7])
    windows = [compose.compose_many([item], pessimistic=False)[0] for item in items]
    off = compose.lower_sides(items, [deltas] * len(items), "epsilon", spectral=False)
    fields = (
        "k_lo",
        "h",
        "p_inf",
        "shift",
        "pessimistic",
        "entry_error",
        "total_error",
        "spectral_l2",
    )
    fields += ("inverse_error", "loss_shift", "inverse_l2")
    for (values, pmf), window in zip(off, windows):
        assert pmf is not None
        np.testing.assert_array_equal(pmf.p, window.p)
        assert [getattr(pmf, f) for f in fields] == [getattr(window, f) for f in fields]
        np.testing.assert_array_equal(values, window.epsilon(deltas))
    spectral = compose.lower_sides(items, [deltas] * len(items), "epsilon")
    assert _spectral(spectral) == [True, False, False, True, True]
    np.testing.assert_array_equal(spectral[1][0], windows[1].epsilon(deltas))
    np.testing.assert_array_equal(spectral[2][0], windows[2].epsilon(deltas))
    for i in (0, 3, 4):
        assert np.any(spectral[i][0] != windows[i].epsilon(deltas))
        # a value read with another is the value read alone
        for d, value in zip(deltas, spectral[i][0]):
            assert compose.lower_sides([items[i]], [np.array([d])], "epsilon")[0][0][0] == value


def _lower_spectrum(sigma: float, q: float, rounds: int, h: float) -> tuple:
    """The live bins (|Y| above 2^-64) of ``rounds`` copies of a subsampled Gaussian's optimistic PMF (remove
    direction), with its composed window as the composition places it: (bins, m, start, width, k_lo)."""
    one = mechanisms.subsampled_gaussians([sigma], q, value_discretization_interval=h)[0]
    factor = next(iter(one.directions[0])).lower
    window = compose.compose_many([[(factor, rounds)]], pessimistic=False)[0]
    m = compose.fft_length(window.p.size)
    spectrum = np.exp(rounds * np.log(scipy.fft.rfft(factor.p, m).astype(complex)))
    live = int(np.flatnonzero(np.abs(spectrum) > 2.0**-64).max()) + 1
    start = (
        window.k_lo - rounds * factor.k_lo
    ) % m  # the circular signal starts at the full support's first loss
    return spectrum[:live], m, start, window.p.size, window.k_lo


def _lower_curve(
    y: np.ndarray, k_lo: int, h: float, e: float, shift: float, charges: tuple
) -> float:
    """max(0, sum_j y_j (1 - e^(e - l_j))_+ + shift - 2 charge(points above e)) in long double, l_j = (k_lo + j) h,
    charge(c) = min(entry c, total, l2 sqrt(c)) (0 for c = 0)."""
    losses = (k_lo + np.arange(y.size)).astype(np.longdouble) * np.longdouble(h)
    above = losses > e
    with np.errstate(over="ignore"):
        weights = (
            -np.expm1(np.longdouble(e) - losses[above])
            if e > -np.inf
            else np.ones(int(above.sum()))
        )
    count = int(above.sum())
    entry, total, l2 = charges
    charge = min(entry * count, total, l2 * math.sqrt(count)) if count else 0.0
    return max(
        0.0, float((y[above] * weights).sum() + np.longdouble(shift) - 2 * np.longdouble(charge))
    )


def _probed(curve, e: float, k_lo: int, width: int, h: float, loss_shift: float) -> float:
    """The largest of ``curve`` at the grid points l_j >= e, j = k + 2^i - 1 (k the first grid point at or above e;
    ``curve`` takes the argument before the loss shift), 0 where none."""
    with np.errstate(over="ignore"):
        at = np.float64(e) / h  # +-inf far off the grid
    k = int(np.clip(np.ceil(at) - k_lo, 0, width)) if np.isfinite(at) else (0 if at < 0 else width)
    points = [k + (1 << i) - 1 for i in range(64) if k + (1 << i) - 1 < width]
    return max(
        [curve((k_lo + j) * h - loss_shift) for j in points if (k_lo + j) * h >= e], default=0.0
    )


@pytest.mark.skipif(not SPECTRAL, reason="spectral reads need long double with 64 bits")
@pytest.mark.parametrize(
    "sigma, q, rounds, h",
    [(0.8, 0.01, 10_000, 1e-3), (20.0, 1.0, 1000, 1e-3), (1.0, 1.0, 8000, 0.5)],
)
@pytest.mark.parametrize("charges", [(0.0, 0.0, 0.0), (2e-17, 1e-13, 3e-16)])
def test_lower_read_against_the_exact_inverse(
    sigma: float, q: float, rounds: int, h: float, charges: tuple
) -> None:
    """The header's lower read on a composition's live bins, against the exact inverse over the window (long-double
    direct sums, ``_window``): with a shift (-1e-14), a loss shift (1e-9) and charges, every lower delta is at
    most the exact charged lower curve at eps + loss shift and within 1e-15 of it, and at every lower epsilon
    that curve (moved back by the loss shift) stands at or above the target, and within 1e-3 of it."""
    bins, m, start, width, k_lo = _lower_spectrum(sigma, q, rounds, h)
    y = _window(bins, m, start, width)
    shift, loss_shift = -1e-14, 1e-9

    def read(arguments: np.ndarray, method: str) -> np.ndarray:
        entry_error, total_error, spectral_l2 = charges
        return _core.pld_compose.spectral_lower(
            bins,
            m=m,
            start=start,
            width=width,
            k_lo=k_lo,
            h=h,
            p_inf=0.0,
            charges=_core.pld_reads.Charges(
                shift=shift,
                entry_error=entry_error,
                total_error=total_error,
                spectral_l2=spectral_l2,
                loss_shift=loss_shift,
            ),
            arguments=arguments,
            method=method,
        )

    def curve(e: float) -> float:
        return _lower_curve(y, k_lo, h, e + loss_shift, shift, charges)

    top = (k_lo + width) * h
    eps = np.concatenate(
        [[-np.inf, -1e308, k_lo * h - 1.0], np.linspace(k_lo * h, top, 23), [top + 1.0, np.inf]]
    )
    eps = np.concatenate(
        [eps, (k_lo + np.arange(0, width, width // 7)) * h]
    )  # grid points themselves
    low = read(eps, "delta")
    exact = np.array([curve(e) for e in eps])
    # the read may raise a value to the curve at grid points above (k, k + 1, k + 3, ...: a lower bound on delta
    # at any eps' >= eps bounds delta(eps)), where the exact inverse may stand higher (its entries are not
    # masses: some lie below 0); never above the largest of those, and below the curve at eps by no more than
    # the rounding margins (4 u of the terms' magnitudes, twice: the sums over the points above, at most 1 each)
    reach = np.array([_probed(curve, e + loss_shift, k_lo, width, h, loss_shift) for e in eps])
    assert np.all(low <= np.maximum(exact, reach)), (low - exact, low - reach)
    assert np.all(low >= exact - (1e-16 + 1e-14 * np.minimum(1.0, 100 * exact))), low - exact
    targets = np.array([1e-300, 1e-13, 1e-10, 1e-7, 1e-4, 1e-2, 0.3, 1 - 1e-9])
    low_eps = read(targets, "epsilon")
    assert not np.isnan(low_eps).any() and np.all(low_eps < np.inf)
    for t, e in zip(targets, low_eps):
        assert math.isfinite(e) or t == 1e-300, (t, e)
        if math.isfinite(e):
            assert curve(e) >= t, (t, e, curve(e))  # certified: at or below the curve's own epsilon
            # not vacuous: the curve there within 1e-3 of the target, or of the read's round-off bound (1e-16)
            assert curve(e) <= 1.001 * t + 1e-16, (t, e, curve(e))


def test_lower_sides_refuse_nan_and_an_unknown_method() -> None:
    one = mechanisms.subsampled_gaussians([1.0], 0.01, value_discretization_interval=1e-3)[0]
    item = [[(f.lower, 100) for f, _ in one.directions[0].items()]]
    with pytest.raises(ValueError, match="NaN"):
        compose.lower_sides(item, [np.array([1e-5, np.nan])], "epsilon")
    with pytest.raises(ValueError, match="method"):
        compose.lower_sides(item, [np.array([1e-5])], "both")


@pytest.mark.skipif(not SPECTRAL, reason="spectral reads need long double with 64 bits")
def test_random_settings_stay_certified() -> None:
    """Random (sigma, q, rounds, h) and targets: the bracket's lower side (spectral where few bins live) lies at
    or below its upper side and at or below the upper side of a grid four times finer, for epsilons and deltas."""
    rng = np.random.default_rng(20261127)
    spectral = 0
    for _ in range(10):
        sigma, q = float(rng.uniform(0.5, 4.0)), float(10 ** rng.uniform(-3, -0.5))
        rounds, h = int(10 ** rng.uniform(0.5, 4.3)), float(10 ** rng.uniform(-3, -2.2))
        dist = mechanisms.subsampled_gaussian(
            sigma, q, value_discretization_interval=h
        ).self_compose(rounds)
        fine = mechanisms.subsampled_gaussian(
            sigma, q, value_discretization_interval=h / 4
        ).self_compose(rounds)
        items = [[(f.lower, c) for f, c in direction.items()] for direction in dist.directions]
        deltas = np.sort(10 ** rng.uniform(-14, -1, 3))
        eps = np.sort(rng.uniform(0.0, 8.0, 3))
        spectral += sum(_spectral(compose.lower_sides(items, [deltas] * len(items), "epsilon")))
        setting = (sigma, q, rounds, h)
        for method, x in (("epsilon", deltas), ("delta", eps)):
            lower, upper = getattr(dist, method)(x, bound="both")
            assert np.all(lower <= upper) and np.all(lower <= getattr(fine, method)(x)), (
                setting,
                method,
                lower,
            )
    assert spectral > 0


@pytest.mark.skipif(not SPECTRAL, reason="spectral reads need long double with 64 bits")
def test_curve_points_equal_one_off_brackets_below_the_exact() -> None:
    """Brackets whose upper sides are read from the spectra (``uppers``: ``direction_uppers``) read their lower
    sides so too.  A Gaussian run (q = 1, the mechanism's PLD) at several checkpoints in one call: each bracket is
    the one asked alone to round-off, the lower side read from the spectrum at the later checkpoints (it differs
    from the window's), and the exact epsilon inside.  A subsampled run (the accountant's epsilon_curve, which
    takes that path): each point is the one-off ``epsilon(delta, bound="both")`` to the round-off charges of the
    run's shared transform (1e-6 relative), its lower side below the certified upper side of a grid five times
    finer."""
    sigma, h, delta = 30.0, 1e-3, 1e-6
    one = mechanisms.subsampled_gaussians([sigma], 1.0, value_discretization_interval=h)[0]
    steps = [50, 400, 2000, 5000]
    x = np.array([delta])

    def spectral_brackets(plds: list) -> list:
        return brackets(
            plds,
            "epsilon",
            [x] * len(plds),
            uppers=direction_uppers(plds, "epsilon", [x] * len(plds)),
        )

    together = spectral_brackets([one.self_compose(t) for t in steps])
    for t, (lower, upper) in zip(steps, together):
        ((alone_lower, alone_upper),) = spectral_brackets([one.self_compose(t)])
        np.testing.assert_allclose(
            [lower[0], upper[0]], [alone_lower[0], alone_upper[0]], rtol=1e-12, atol=0.0
        )
        exact = _gaussian_epsilon(math.sqrt(t) / sigma, delta)
        assert lower[0] <= exact <= upper[0], (t, lower, exact, upper)
        window = max(one.self_compose(t).epsilon(x, bound="lower", composition_only=True)[0], 0.0)
        if t >= 2000:
            assert lower[0] != window and abs(lower[0] - window) <= 1e-8 * exact, (t, lower, window)

    accountant = SubsampledGaussianPLD(1.1, 256 / 60000, 2350)
    curve = accountant.epsilon_curve(1e-5, every=470)
    fine = SubsampledGaussianPLD(1.1, 256 / 60000, 2350, value_discretization_interval=2e-5)
    for i, t in enumerate(curve.steps):
        one_off = SubsampledGaussianPLD(1.1, 256 / 60000, int(t)).epsilon(1e-5, bound="both")
        np.testing.assert_allclose((curve.lower[i], curve.upper[i]), one_off, rtol=1e-6, atol=0.0)
        fine.rounds = np.array(float(t))
        assert curve.lower[i] <= fine.epsilon(1e-5), (t, curve.lower[i])


def test_lower_values_are_the_spectral_brackets_lower_side() -> None:
    """``lower_values`` (every direction) gives the lower side of the bracket with spectral upper sides (which skips
    dominated directions) bit for bit, at or below its upper side."""
    plds = [
        mechanisms.subsampled_gaussian(sigma, q, value_discretization_interval=1e-3).self_compose(t)
        for sigma, q, t in ((0.8, 1e-3, 2000), (1.0, 0.05, 1000), (0.9, 0.02, 300), (3.0, 0.9, 10))
    ]
    xs = [np.array([1e-1, 1e-5, 1e-10])] * len(plds)
    sides = brackets(plds, "epsilon", xs, uppers=direction_uppers(plds, "epsilon", xs))
    for (lower, upper), alone in zip(sides, lower_values(plds, "epsilon", xs)):
        np.testing.assert_array_equal(alone, lower)
        assert np.all(lower <= upper)


def test_bracket_keeps_windows_it_composes_and_no_spectral_item() -> None:
    """A spectral bracket keeps an optimistic window only where it read one: a spectral read keeps no PMF (a
    later ``bound="lower"`` composes the window), a window read is kept as ``compose_all`` keeps it."""
    many = mechanisms.subsampled_gaussian(
        0.8, 0.01, value_discretization_interval=1e-3
    ).self_compose(10_000)
    few = mechanisms.subsampled_gaussian(
        0.8, 0.01, value_discretization_interval=1e-3
    ).self_compose(3)
    x = [np.array([1e-6])]
    for dist, kept in ((many, not SPECTRAL), (few, True)):
        brackets([dist], "epsilon", x, uppers=direction_uppers([dist], "epsilon", x))
        stored = dist._composed.get(False, [None])
        assert any(pmf is not None for pmf in stored) == kept
        assert dist.epsilon(1e-6, bound="lower") <= dist.epsilon(1e-6)


@pytest.mark.parametrize(
    "sigma, q, rounds, h",
    [
        (1e3, 0.5, 1000, 1e-3),  # a loss of ~1e-3 per round: the whole PLD on a few grid points
        (0.3, 1e-7, 10_000, 1e-3),  # the sampling rate far below the grid
        (1.0, 0.999999, 2000, 1e-3),  # q next to 1: nearly the plain Gaussian
        (0.5, 0.3, 20_000, 0.05),  # a coarse grid, epsilon in the thousands
        (2.0, 5e-324, 100, 1e-3),  # a subnormal sampling rate
    ],
)
@pytest.mark.usefixtures("grid_alone")
def test_accountant_lower_sides_at_the_edges_stay_below_the_truth(
    sigma: float, q: float, rounds: int, h: float
):
    """``bound="both"`` (lower sides read from the spectra where few bins live) at extreme settings: every lower
    epsilon and delta at or below its upper side and at or below the exact value of the same Gaussian composed
    without subsampling (mu = sqrt(T) / sigma, 50 digits), which is at or above the subsampled truth; deltas
    from the least subnormal to 1 / 2, epsilons from 0 to 1e308."""
    acc = SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=rounds, value_discretization_interval=h
    )
    mu = math.sqrt(rounds) / sigma
    deltas = np.array([5e-324, 1e-300, 1e-10, 1e-5, 0.5])
    eps = np.array([0.0, 1e-300, 1.0, 0.5 * mu * mu, 1e308])
    low_eps, up_eps = acc.epsilon(deltas, bound="both")
    low_delta, up_delta = acc.delta(eps, bound="both")
    assert np.all(low_eps <= up_eps) and np.all(low_delta <= up_delta)
    # the accountant's epsilon is the least epsilon >= 0: the reference is clipped at 0 as well
    assert np.all(low_eps <= [max(_gaussian_epsilon(mu, d), 0.0) for d in deltas]), low_eps
    assert np.all(low_delta <= [float(_gaussian_delta(mu, e)) for e in eps]), low_delta
    assert np.all((0.0 <= low_delta) & (low_delta <= 1.0)) and not np.isnan(low_eps).any()
