"""DiscreteGaussianDpEvent through the PLD adapter against 50-digit mpmath sums of the exact pair.

References: delta(eps) = sum_x (P(x) - e^eps Q(x))_+ over the integers, P = N_Z(s, sigma^2), Q = N_Z(0, sigma^2)
(Canonne, Kamath, Steinke 2020), by direct summation in mpmath (normaliser summed over |x| <= 60 sigma + s,
the rest below 1e-700); compositions by convolving those masses; Poisson sampling by the mixture
((1 - q) Q + q P, Q) in both orders (Zhu, Dong, Wang 2022, Thm 11).  Also: the continuous Gaussian as
sigma grows, dp_accounting's own discrete Gaussian PLD (a truncated variant: within its tail of ~1e-30),
the relations, the refusals.
"""

from __future__ import annotations

import math
import warnings

import mpmath as mp
import numpy as np
import pytest

pytest.importorskip("dp_accounting")
from dp_accounting import dp_event as E  # noqa: E402
from dp_accounting.pld import privacy_loss_distribution as their_pld  # noqa: E402
from dp_accounting.privacy_accountant import NeighboringRelation, UnsupportedEventError  # noqa: E402

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant  # noqa: E402
from hockeystick.interop.dp_accounting.catalogue_events import DiscreteGaussianDpEvent  # noqa: E402
from hockeystick.interop.loss_reach import ParameterOutOfRange  # noqa: E402
from hockeystick.numerics.certified_theta import theta_lower, theta_upper  # noqa: E402
from hockeystick.pld.compose import finite_atoms  # noqa: E402
from hockeystick.pld.mechanisms import discrete_gaussian as dg  # noqa: E402
from hockeystick.pld.refine.unmet import AccuracyNotMetWarning  # noqa: E402

MP_DPS = 50
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test


def _masses(sigma: float, s: int) -> tuple[int, list, list]:
    """(offset, P, Q) on x = offset .. -offset + s at 50 digits (the window |x| <= 60 sigma + s)."""
    half = int(60 * sigma) + s + 2
    sg = mp.mpf(sigma)
    w = {k: mp.e ** (-(mp.mpf(k) ** 2) / (2 * sg**2)) for k in range(-half - s, half + s + 1)}
    z = mp.fsum(w[k] for k in range(-half - s, half + s + 1))
    xs = range(-half, half + s + 1)
    return -half, [w[x - s] / z for x in xs], [w[x] / z for x in xs]


def _delta(p: list, q: list, eps: float) -> mp.mpf:
    g = mp.e ** mp.mpf(eps)
    return mp.fsum(max(a - g * b, 0) for a, b in zip(p, q))


def _convolve(a: list, b: list) -> list:
    out = [mp.mpf(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x < mp.mpf(10) ** -80:
            continue
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def _bracket(
    event, eps: float, count: int = 1, relation=NeighboringRelation.ADD_OR_REMOVE_ONE, **kw
):
    acc = HockeystickPLDAccountant(neighboring_relation=relation, **kw)
    acc.compose(event, count)
    return acc.get_delta_bracket(eps)


@pytest.mark.parametrize("sigma,s", [(0.4, 1), (1.0, 1), (1.7, 2), (3.0, 3), (6.5, 1)])
@pytest.mark.parametrize("eps", [0.0, 0.3, 1.0, 4.0])
def test_one_run_brackets_the_exact_pair(sigma, s, eps):
    _, p, q = _masses(sigma, s)
    exact = _delta(p, q, eps)
    lo, up = _bracket(DiscreteGaussianDpEvent(sigma, s), eps)
    assert mp.mpf(lo) <= exact <= mp.mpf(up), (lo, exact, up)
    assert up - lo <= 1e-12 * float(exact) + 1e-300


def test_closed_form_of_canonne_kamath_steinke_theorem_7():
    # CKS 2020, Thm 7: delta = P[X > eps sigma^2 / s - s / 2] - e^eps P[X > eps sigma^2 / s + s / 2], X ~ N_Z(0, sigma^2)
    sigma, s, eps = 1.3, 2, 0.8
    offset, _, q = _masses(sigma, s)
    xs = range(offset, offset + len(q))
    a, b = mp.mpf(eps) * sigma**2 / s - mp.mpf(s) / 2, mp.mpf(eps) * sigma**2 / s + mp.mpf(s) / 2
    closed = mp.fsum(m for x, m in zip(xs, q) if x > a) - mp.e**eps * mp.fsum(
        m for x, m in zip(xs, q) if x > b
    )
    lo, up = _bracket(DiscreteGaussianDpEvent(sigma, s), eps)
    assert lo <= closed <= up


@pytest.mark.parametrize("sigma,s,count", [(1.0, 1, 3), (2.0, 1, 4), (0.8, 2, 2)])
def test_composition_brackets_the_convolved_pair(sigma, s, count):
    offset, p, q = _masses(sigma, s)
    pk, qk = p, q
    for _ in range(count - 1):
        pk, qk = _convolve(pk, p), _convolve(qk, q)
    for eps in (0.5, 2.0):
        exact = _delta(pk, qk, eps)
        lo, up = _bracket(DiscreteGaussianDpEvent(sigma, s), eps, count)
        assert mp.mpf(lo) <= exact <= mp.mpf(up), (eps, lo, exact, up)
        assert up - lo <= 1e-10 * float(exact)


def test_epsilon_bracket_contains_the_exact_epsilon():
    sigma, s, target = 1.5, 1, 1e-5
    _, p, q = _masses(sigma, s)
    lo, up = (
        HockeystickPLDAccountant()
        .compose(DiscreteGaussianDpEvent(sigma, s))
        .get_epsilon_bracket(target)
    )
    assert _delta(p, q, lo) >= target >= _delta(p, q, up)
    assert up - lo < 1e-8


def test_large_sigma_approaches_the_continuous_gaussian():
    # Poisson summation: N_Z(0, sigma^2) is the continuous Gaussian sampled on the integers up to e^{-2 pi^2 sigma^2};
    # the pair's losses sit on a lattice of step 1 / sigma^2, so delta differs by the lattice's discreteness only
    for sigma in (20.0, 60.0):
        for eps in (0.01, 0.05):
            lo, up = _bracket(DiscreteGaussianDpEvent(sigma, 1), eps)
            g_lo, g_up = float(theta_lower(1.0 / sigma, eps)), float(theta_upper(1.0 / sigma, eps))
            assert abs(up / g_up - 1.0) < 2.0 / sigma and abs(lo / g_lo - 1.0) < 2.0 / sigma, (
                sigma,
                eps,
                lo,
                g_lo,
            )


def test_against_dp_accounting_discrete_gaussian_pld():
    # dp_accounting's discrete Gaussian PLD truncates the noise at its own bound (a variant of the mechanism whose
    # delta differs by the cut mass, ~1e-30 here) and rounds losses pessimistically on its grid: its value lies above
    # our lower bound and within its grid error (1e-4 in eps) of our bracket
    for sigma, s in [(1.0, 1), (2.5, 2)]:
        theirs = their_pld.from_discrete_gaussian_mechanism(
            sigma, sensitivity=s, value_discretization_interval=1e-4
        )
        for eps in (0.5, 1.5):
            lo, up = _bracket(DiscreteGaussianDpEvent(sigma, s), eps)
            value = theirs.get_delta_for_epsilon(eps)
            assert value >= lo - 1e-25
            assert lo * (1 - 1e-3) <= value <= up * (1 + 2e-3), (sigma, s, eps, lo, value, up)


@pytest.mark.parametrize("q", [0.05, 0.5])
def test_poisson_sampled_brackets_the_exact_mixture(q):
    sigma, s = 1.2, 1
    _, p, base = _masses(sigma, s)
    mixed = [(1 - mp.mpf(q)) * b + mp.mpf(q) * a for a, b in zip(p, base)]
    for eps in (0.1, 0.6):
        exact = max(_delta(mixed, base, eps), _delta(base, mixed, eps))
        # a bracket wider than asked (relative to delta: at q 0.05, eps 0.6, 3.5e-4) says so
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", AccuracyNotMetWarning)
            lo, up = _bracket(
                E.PoissonSampledDpEvent(q, DiscreteGaussianDpEvent(sigma, s)), eps, accuracy=1e-4
            )
        warned = any(issubclass(w.category, AccuracyNotMetWarning) for w in caught)
        assert warned == ((up - lo) / max(up, 1e-9) > 1e-4), (q, eps, lo, up)
        assert mp.mpf(lo) <= exact <= mp.mpf(up), (q, eps, lo, exact, up)
        assert up - lo <= 1e-3 * float(exact)


def _pair_composed_delta(p: list, q: list, eps: float) -> mp.mpf:
    """delta(eps) of two runs of the pair (P, Q): sum over outcome pairs of p_i p_j (1 - e^{eps - l_i - l_j})_+
    (the sampled losses are no function of the outcomes' sum, so the pairs are composed loss by loss)."""
    atoms = [(a, mp.log(a / b)) for a, b in zip(p, q) if a > mp.mpf(10) ** -60]
    g = mp.mpf(eps)
    return mp.fsum(
        a * b * (1 - mp.e ** (g - la - lb)) for a, la in atoms for b, lb in atoms if la + lb > g
    )


def test_poisson_sampled_composition_brackets_the_exact_mixture():
    sigma, s, q = 1.0, 1, 0.2
    _, p, base = _masses(sigma, s)
    mixed = [(1 - mp.mpf(q)) * b + mp.mpf(q) * a for a, b in zip(p, base)]
    for eps in (0.4, 1.0):
        exact = max(_pair_composed_delta(mixed, base, eps), _pair_composed_delta(base, mixed, eps))
        lo, up = _bracket(
            E.PoissonSampledDpEvent(q, DiscreteGaussianDpEvent(sigma, s)), eps, 2, accuracy=1e-4
        )
        assert mp.mpf(lo) <= exact <= mp.mpf(up), (lo, exact, up)
        assert up - lo <= 1e-3 * float(exact)


def test_replace_one_doubles_the_shift_and_replace_special_keeps_it():
    event = DiscreteGaussianDpEvent(1.5, 1)
    assert _bracket(event, 0.7, relation=NeighboringRelation.REPLACE_ONE) == _bracket(
        DiscreteGaussianDpEvent(1.5, 2), 0.7
    )
    assert _bracket(event, 0.7, relation=NeighboringRelation.REPLACE_SPECIAL) == _bracket(
        event, 0.7
    )


def test_composes_beside_other_mechanisms():
    sigma, s = 1.0, 1
    _, p, q = _masses(sigma, s)
    exact = _delta(p, q, 0.5)
    acc = HockeystickPLDAccountant()
    acc.compose(E.ComposedDpEvent([DiscreteGaussianDpEvent(sigma, s), E.NoOpDpEvent()]))
    lo, up = acc.get_delta_bracket(0.5)
    assert lo <= exact <= up
    acc.compose(E.GaussianDpEvent(3.0))
    lo2, up2 = acc.get_delta_bracket(0.5)
    assert lo2 > up  # a further mechanism only adds privacy loss


def test_upper_delta_never_zero_where_the_true_delta_is_positive():
    # the loss is unbounded (Gaussian tails), so delta(eps) > 0 at every eps; far out the upper side is its tail mass
    lo, up = _bracket(DiscreteGaussianDpEvent(1.0, 1), 300.0)
    assert up > 0 and lo >= 0
    # at delta 1e-310 the atoms' floor at +inf is above delta: the default's upper side is then the RDP
    # conversion's (the discrete Gaussian is exactly 1/2-zCDP, Canonne, Kamath, Steinke 2020), finite, and
    # the true delta there, summed at 60 digits, is at most 1e-310
    with pytest.warns(AccuracyNotMetWarning, match="accuracy="):
        eps = (
            HockeystickPLDAccountant().compose(DiscreteGaussianDpEvent(1.0, 1)).get_epsilon(1e-310)
        )
    assert math.isfinite(eps) and eps <= 0.5 + 2 * math.sqrt(0.5 * math.log(1e310))
    with mp.workdps(60):
        xs = range(-80, 120)
        z = mp.fsum(mp.exp(-(mp.mpf(x) ** 2) / 2) for x in xs)
        true_delta = (
            mp.fsum(
                max(
                    mp.mpf(0),
                    mp.exp(-(mp.mpf(x - 1) ** 2) / 2)
                    - mp.exp(mp.mpf(eps)) * mp.exp(-(mp.mpf(x) ** 2) / 2),
                )
                for x in xs
            )
            / z
        )
        assert true_delta <= mp.mpf("1e-310")


def test_atoms_sides():
    atoms = dg.discrete_gaussian_atoms(2.0, 3)
    assert atoms.lower is not None and atoms.lower.p_inf == 0.0
    assert finite_atoms.INFINITY_FLOOR <= atoms.p_inf < 2 * finite_atoms.INFINITY_FLOOR
    assert atoms.mass.min() >= finite_atoms.SMALLEST_NORMAL
    p, q = dg.discrete_gaussian_pair(2.0, 3)
    assert abs(p.sum() - 1) < 1e-15 and abs(q.sum() - 1) < 1e-15
    assert np.array_equal(p[:-2], q[-3::-1])  # the window is symmetric: x -> s - x swaps P and Q


def test_masses_to_ten_ulps():
    sigma, s = 3.7, 2
    offset, p, _ = _masses(sigma, s)
    ours, _ = dg.discrete_gaussian_pair(sigma, s)
    d = (dg.outcomes(sigma, s) - s - 1) // 2  # the window's half-width D: s + 2D + 1 outcomes
    start = -d - offset
    for i, m in enumerate(ours[:-2]):
        if m >= finite_atoms.SMALLEST_NORMAL:
            assert abs(mp.mpf(float(m)) / p[start + i] - 1) <= 10 * 2.0**-53


def test_zero_sigma_is_non_private():
    acc = HockeystickPLDAccountant().compose(DiscreteGaussianDpEvent(0.0, 1))
    assert acc.get_epsilon(1e-5) == math.inf


@pytest.mark.parametrize(
    "event,kind,words",
    [
        (DiscreteGaussianDpEvent(-1.0, 1), ValueError, "sigma"),
        (DiscreteGaussianDpEvent(float("nan"), 1), ValueError, "sigma"),
        (DiscreteGaussianDpEvent(1.0, 0), ValueError, "sensitivity"),
        (DiscreteGaussianDpEvent(1.0, 1.5), ValueError, "sensitivity"),
        (DiscreteGaussianDpEvent(1.0, True), ValueError, "sensitivity"),
        (DiscreteGaussianDpEvent(1e5, 1), ParameterOutOfRange, "sigma"),
        (DiscreteGaussianDpEvent(1e-4, 1), ParameterOutOfRange, "sigma"),
        (DiscreteGaussianDpEvent(5e-324, 1), ParameterOutOfRange, "sigma"),
        (DiscreteGaussianDpEvent(1.0, 10**7), ParameterOutOfRange, "sensitivity"),
    ],
)
def test_refusals_name_the_field(event, kind, words):
    with pytest.raises(kind, match=words):
        HockeystickPLDAccountant().compose(event)


@pytest.mark.parametrize("sigma", [2e4, 1e-200, math.inf])
def test_pld_module_refuses_what_it_cannot_hold(sigma):
    with pytest.raises(ValueError, match="sigma"):
        dg.discrete_gaussian_pair(sigma, 1)


def test_poisson_under_replace_one_stays_unsupported():
    acc = HockeystickPLDAccountant(neighboring_relation=NeighboringRelation.REPLACE_ONE)
    assert not acc.supports(E.PoissonSampledDpEvent(0.1, DiscreteGaussianDpEvent(1.0, 1)))
    with pytest.raises(UnsupportedEventError):
        acc.compose(E.PoissonSampledDpEvent(0.1, DiscreteGaussianDpEvent(1.0, 1)))
