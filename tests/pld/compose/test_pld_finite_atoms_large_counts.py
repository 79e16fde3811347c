"""A discrete Laplace self-composed 10^4 .. 10^8 times (``atoms_window._window_power``), both sides
against the exact binomial law.

Sensitivity 1 makes the composed PLD binomial: j of k runs at loss +a (P-mass p = 1 / (1 + e^-a)),
the others at -a, so delta(eps) = sum_j C(k, j) p^j (1 - p)^(k - j) (1 - e^(eps - a (2j - k)))_+,
summed from the first j past eps, where every term is nonnegative: in doubles, the first loss excess at
50 digits (about 1e-11 relative, against brackets that sit 50% or more away).  At these counts the
composition runs on a window of at most ``WINDOW_POINTS`` points on the pair's own lattice (squaring dense
lattices would pass 2^14 atoms, whose coarsened copies would meet on the 2^-32 sub-lattice); the tests
bound its atom count.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from dp_accounting import dp_event as dpa

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
from hockeystick.pld.compose import finite_atoms as fa
from hockeystick.pld.grid import atoms as atoms_core
from hockeystick.pld.mechanisms.discrete_laplace import (
    discrete_laplace_atoms,
    discrete_laplace_pair,
)
from hockeystick.pld.sampling.subsampling import poisson_subsampled_pair

MP_DPS = 50
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test
CASES = [
    (1.0, 20_000),
    (0.1, 100_000),
    (1.0, 10**6),
    (0.1, 10**7),
    (3.0, 10**7),
    pytest.param(0.1, 10**8, marks=pytest.mark.slow),
]
TARGET = 1e-6


def _tail_delta(k: int, m: float, start: int, first: mp.mpf, step: float) -> float:
    """sum_{j >= start} b_j (1 - e^-(L_j - eps)), b_j the Binomial(k, m) masses and L_j - eps = first + (j - start)
    step > 0: every term is nonnegative, so it is summed in doubles without cancellation (``first`` is taken at
    50 digits, the steps are exact multiples); scipy's masses within 40 standard deviations of the mean (the
    rest holds < e^-800).  About 1e-11 relative from the 50-digit term-by-term sum."""
    from scipy.stats import binom

    spread = 40.0 * math.sqrt(k * m * (1.0 - m))
    j = np.arange(max(start, int(k * m - spread)), min(k, int(k * m + spread)) + 1)
    excess = float(first) + (j - start) * step
    return math.fsum(binom.pmf(j, k, m) * -np.expm1(-excess))


def _exact_delta(a: float, k: int, eps: float) -> float:
    """The exact delta(eps) of k runs of DLap(a) with sensitivity 1 (``_tail_delta`` from the first j past eps)."""
    am, e = mp.mpf(a), mp.mpf(eps)
    start = max(int(mp.floor((e / am + k) / 2)) + 1, 0)
    return _tail_delta(k, float(1 / (1 + mp.exp(-am))), start, am * (2 * start - k) - e, 2.0 * a)


def _exact_delta_beside_a_gaussian(a: float, k: int, eps: float, sigma: float) -> float:
    """delta(eps) of k runs of DLap(a) with sensitivity 1 beside a Gaussian of noise sigma and sensitivity 1:
    sum_j b_j theta_mu(eps - L_j), mu = 1 / sigma, theta_mu(y) = Phi(-y/mu + mu/2) - e^y Phi(-y/mu - mu/2),
    L_j = a (2j - k).  In doubles over every j within 40 standard deviations of the mean (the rest holds
    < e^-800 of mass): scipy's binomial masses, e^y Phi(.) as exp(y + log_ndtr(.)) (e^y passes the doubles);
    1e-12 relative from the 50-digit sum, against brackets 10% away."""
    from scipy.special import log_ndtr, ndtr
    from scipy.stats import binom

    p = 1.0 / (1.0 + math.exp(-a))
    spread = 40.0 * math.sqrt(k * p * (1.0 - p))
    j = np.arange(max(int(k * p - spread), 0), min(int(k * p + spread) + 1, k) + 1)
    y = eps - a * (2.0 * j - k)
    mu = 1.0 / sigma
    theta = ndtr(-y / mu + mu / 2) - np.exp(y + log_ndtr(-y / mu - mu / 2))
    return math.fsum(binom.pmf(j, k, p) * theta)


@pytest.mark.parametrize("a, k", CASES)
def test_large_self_composition_brackets_exact_binomial(a: float, k: int) -> None:
    acc = HockeystickPLDAccountant().compose(
        dpa.SelfComposedDpEvent(dpa.DiscreteLaplaceDpEvent(a, 1), k)
    )
    lo, hi = acc.get_epsilon_bracket(TARGET)
    assert 0.0 < lo <= hi < float("inf")
    assert (
        hi - lo <= 5e-3 * hi
    )  # narrow enough to be worth reporting (coarsened lattice of <= 2^13 points)
    # the epsilon bracket holds the exact epsilon: delta at its upper end <= target <= delta at its lower end
    assert _exact_delta(a, k, hi) <= TARGET <= _exact_delta(a, k, lo)
    for eps in (lo, 0.5 * (lo + hi), hi):
        d_lo, d_hi = acc.get_delta_bracket(eps)
        exact = _exact_delta(a, k, eps)
        assert d_lo <= exact <= d_hi, (eps, d_lo, float(exact), d_hi)


@pytest.mark.slow
def test_large_self_composition_beside_a_gaussian() -> None:
    a, k, sigma = 0.1, 10**6, 0.05
    acc = HockeystickPLDAccountant().compose(
        dpa.ComposedDpEvent(
            [
                dpa.SelfComposedDpEvent(dpa.DiscreteLaplaceDpEvent(a, 1), k),
                dpa.GaussianDpEvent(sigma),
            ]
        )
    )
    lo, hi = acc.get_epsilon_bracket(TARGET)
    assert 0.0 < lo <= hi <= lo + 5e-3 * hi
    for eps in (lo, hi):
        d_lo, d_hi = acc.get_delta_bracket(eps)
        exact = _exact_delta_beside_a_gaussian(a, k, eps, sigma)
        assert d_lo <= exact <= d_hi, (eps, d_lo, float(exact), d_hi)


@pytest.mark.parametrize("count", [10**6, 10**8])
def test_window_power_sides_differ_only_by_the_dropped_mass(count: int) -> None:
    """The dropped tails sit at the top reachable loss (count times the pair's top index, a finite loss, so
    a pure epsilon stays finite) on the upper side only."""
    one = discrete_laplace_atoms(0.5, 1)
    atoms = fa.self_compose(one, count)
    lower = atoms.lower
    assert lower is not None and atoms.p_inf == lower.p_inf == 0.0
    assert int(atoms.index[-1]) == count * int(one.index[-1]) > int(lower.index[-1])
    moved = float(atoms.mass[-1])
    assert (
        fa.INFINITY_FLOOR <= moved < 1e-280
    )  # the floor's dropped mass, not probability worth reporting
    assert np.array_equal(atoms.index[:-1], lower.index) and np.array_equal(
        atoms.mass[:-1], lower.mass
    )
    assert atoms.index.size <= fa.WINDOW_POINTS + 2
    assert fa.pure_epsilon(atoms, 1e-300, True) < math.inf


def test_poisson_sampled_lattice_free_pair_many_times() -> None:
    """A pair on no lattice (the 2^-32 sub-grid) self-composed 10^6 times: windowed (never a product of
    2^14 atoms by 2^14), both sides finite and ordered."""
    p, q = poisson_subsampled_pair(*discrete_laplace_pair(1.0, 1), 0.01)
    atoms = fa.pair_atoms(p, q)
    big = fa.self_compose(atoms, 10**6)
    lo = fa.delta(big, [5.0, 10.0], upper=False)
    hi = fa.delta(big, [5.0, 10.0], upper=True)
    assert (0.0 <= lo).all() and (lo <= hi).all() and (hi <= 1.0).all()


@pytest.mark.slow
def test_two_lattices_compose_on_a_window_against_enumeration(monkeypatch):
    """Two discrete Laplace lattices (a = 1 and 1.37 with sensitivity 2) meet on the 2^-32 sub-lattice;
    past ``WINDOW_PRODUCTS`` products they compose on a coarsened window (forced here on a small case):
    both sides hold the exact value by enumeration."""
    from .test_pld_finite_atoms import exact_delta

    monkeypatch.setattr(atoms_core, "WINDOW_PRODUCTS", 100)
    monkeypatch.setattr(atoms_core, "WINDOW_POINTS", 256)
    one, two = discrete_laplace_pair(1.0, 1), discrete_laplace_pair(1.37, 2)
    k = 25
    both = fa.compose(
        fa.self_compose(fa.pair_atoms(*one), k), fa.self_compose(fa.pair_atoms(*two), k)
    )
    assert both.index.size <= 256 + 1
    for eps in (40.0, 60.0, 80.0):
        exact = exact_delta([(*one, k), (*two, k)], eps)
        lo, up = (fa.delta(both, [eps], side)[0] for side in (False, True))
        assert lo <= exact <= up, (eps, lo, float(exact), up)


@pytest.mark.parametrize("k", [10**4, 10**7])
def test_two_discrete_laplace_lattices_many_times_against_dp_accounting(k: int) -> None:
    """The reported mixture: 10^4 (and 10^7) runs each of DL(1) and DL(1.37, sensitivity 2) took minutes
    of products on the sub-lattice.  Our bracket must meet dp_accounting's two estimates' directions:
    lower <= their pessimistic, upper >= their optimistic (connect-the-dots at h = 0.1; 10^4 only)."""
    from dp_accounting.pld import privacy_loss_distribution as P

    acc = HockeystickPLDAccountant().compose(
        dpa.ComposedDpEvent(
            [
                dpa.SelfComposedDpEvent(dpa.DiscreteLaplaceDpEvent(1.0, 1), k),
                dpa.SelfComposedDpEvent(dpa.DiscreteLaplaceDpEvent(1.37, 2), k),
            ]
        )
    )
    lo, hi = acc.get_epsilon_bracket(TARGET)
    assert 0.0 < lo <= hi <= lo + 5e-3 * hi
    if k > 10**4:
        return
    theirs = [
        P.from_discrete_laplace_mechanism(
            1.0, sensitivity=1, value_discretization_interval=0.1, pessimistic_estimate=pessimistic
        )
        .self_compose(k)
        .compose(
            P.from_discrete_laplace_mechanism(
                1.37,
                sensitivity=2,
                value_discretization_interval=0.1,
                pessimistic_estimate=pessimistic,
            ).self_compose(k)
        )
        .get_epsilon_for_delta(TARGET)
        for pessimistic in (True, False)
    ]
    assert lo <= theirs[0] and hi >= theirs[1], (lo, hi, theirs)


def _two_atom_delta(p: tuple[float, float], q: tuple[float, float], k: int, eps: float) -> float:
    """Exact delta(eps) of k runs of a two-outcome pair (inputs taken as the given doubles): j runs at
    loss l_1 = log(p_1 / q_1), the others at l_0, binomial in j; from the first j past eps (``_tail_delta``)."""
    p0, p1, q0, q1 = (mp.mpf(x) for x in (*p, *q))
    l0, l1, e = mp.log(p0 / q0), mp.log(p1 / q1), mp.mpf(eps)
    m_hi, l_hi, l_lo = (p1, l1, l0) if l1 > l0 else (p0, l0, l1)
    start = max(int(mp.floor((e - k * l_lo) / (l_hi - l_lo))) + 1, 0)  # j runs at the higher loss
    return _tail_delta(
        k, float(m_hi), start, start * l_hi + (k - start) * l_lo - e, float(l_hi - l_lo)
    )


@pytest.mark.slow
def test_a_billion_runs_off_any_lattice_are_rebased_not_refused():
    """Found by the event-tree search: 1.3e9 runs of a randomized response (replace-special: two atoms on the
    2^-32 sub-lattice) reached indices past 2^62 and were refused as 'beyond the common loss lattice'
    (no field named).  The window is rebased onto a coarser lattice; both ends hold the exact binomial."""
    from hockeystick.pld.mechanisms.randomized_response import randomized_response_pair

    k = 2745 * 473672
    p, q = randomized_response_pair(0.3650357641630829, 10, "replace_special")
    atoms = fa.self_compose(fa.pair_atoms(p, q), k)
    lo = fa.pure_epsilon(atoms, TARGET, False)
    hi = fa.pure_epsilon(atoms, TARGET, True)
    assert 0.0 < lo <= hi <= lo * (1 + 1e-3)
    assert (
        _two_atom_delta(tuple(p), tuple(q), k, hi)
        <= TARGET
        <= _two_atom_delta(tuple(p), tuple(q), k, lo)
    )


def test_windowed_compositions_keep_the_lower_side_free_of_the_upper_sides_charges():
    """Past WINDOW_PRODUCTS products, ``_compose_windowed`` returns its upper side (its mass at +infinity
    holds the dropped masses and the underflow allowance) with the lower side beside it; a composition
    that took the upper side as a lower one would give a lower delta of ~1e-300 above every loss, where
    the truth is 0 (no q = 0 outcome), and a lower epsilon of +inf at 1e-301."""
    x = 1e-310
    a = fa.pair_atoms(np.array([0.3, 0.7 - x, x]), np.array([0.6, 0.4 - 2e-310, 2e-310]))
    composed = fa.compose(fa.self_compose(a, 2600), fa.self_compose(a, 2700))
    above_every_loss = np.array([1e4])  # 5300 rounds, each loss at most log(0.7 / 0.4)
    assert fa.delta(composed, above_every_loss, upper=False)[0] == 0.0
    assert fa.pure_epsilon(composed, 1e-301, upper=False) < math.inf
