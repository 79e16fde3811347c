"""The generic subsampling transform (pld.subsampled_pair) and its use by the dp_accounting adapter.

References: exact enumeration (mpmath, 50 digits) of finite pairs in closed form; the specialised
Gaussian paths (pld.subsampled_gaussian, pld.fixed_size_subsampled_gaussian); dp_accounting's PLD,
which samples only Gaussian and Laplace inners (so the generic transform of a Laplace pair is
checked against its Poisson-sampled Laplace); and identities of sampling (nested Poisson samples
multiply their rates).  Every bound is checked for its direction.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import integrate, special, stats

pytest.importorskip("dp_accounting")

from dp_accounting import dp_event as E  # noqa: E402
from dp_accounting.pld import privacy_loss_distribution as their  # noqa: E402
from dp_accounting.privacy_accountant import NeighboringRelation, UnsupportedEventError  # noqa: E402

from hockeystick import pld  # noqa: E402
from hockeystick.interop.dp_accounting import HockeystickPLDAccountant  # noqa: E402
from hockeystick.numerics.hockey_stick import theta  # noqa: E402
from hockeystick.pld.mechanisms.randomized_response import randomized_response_pair  # noqa: E402
from hockeystick.pld.sampling.subsampled_pair import (
    poisson_subsampled_curves,
    without_replacement_curves,
)  # noqa: E402

MP_DPS = 50
mpmath.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test
DELTA = 1e-5


def gaussian_curve(r: float, widen: float):
    """theta(r, eps) and its mirror below 0 (the Gaussian pair's curve at every real eps), widened."""

    def curve(eps):
        e = np.asarray(eps, dtype=float)
        t = np.asarray(theta(r, np.abs(e)), dtype=float)
        m = -np.expm1(np.minimum(e, 0.0)) + np.exp(np.minimum(e, 0.0)) * t
        return np.clip(np.where(e >= 0, t, m) * widen, 0.0, 1.0)

    return curve


def pld_curves(d: pld.PrivacyLossDistribution):
    """(upper, lower) curve per direction of a PLD's own certified sides."""
    ups, los = d.composed(True), d.composed(False)
    return [
        (
            lambda e, p=u: p.delta(np.asarray(e, float)),
            lambda e, p=lo: p.delta(np.asarray(e, float)),
        )
        for u, lo in zip(ups, los)
    ]


def exact_delta(p, q, count: int, eps: float) -> mpmath.mpf:
    """delta(eps) of ``count`` runs of the two-outcome-or-more pair (p, q), by enumerating compositions."""
    p = [mpmath.mpf(x) for x in p]
    q = [mpmath.mpf(x) for x in q]
    # outcome multisets: the pair's product law depends only on the counts of each outcome
    total = mpmath.mpf(0)
    k = len(p)

    def walk(j, left, pp, qq, coef):
        nonlocal total
        if j == k - 1:
            c = coef
            a, b = pp * p[j] ** left, qq * q[j] ** left
            total += c * max(a - mpmath.e**eps * b, 0)
            return
        for n in range(left + 1):
            walk(j + 1, left - n, pp * p[j] ** n, qq * q[j] ** n, coef * mpmath.binomial(left, n))

    walk(0, count, mpmath.mpf(1), mpmath.mpf(1), mpmath.mpf(1))
    return total


def test_generic_poisson_transform_of_the_gaussian_brackets_the_gaussian_fast_path():
    sigma, q, h = 1.0, 0.01, 1e-3
    r = 1.0 / sigma
    up, lo = gaussian_curve(r, 1 + 1e-11), gaussian_curve(r, 1 - 1e-11)
    generic = poisson_subsampled_curves(
        (up, lo), (up, lo), q, r * r / 2 + 40 * r, 0.0, value_discretization_interval=h
    )
    fast = pld.subsampled_gaussian(sigma, q, value_discretization_interval=h)
    for rounds in (1, 1000):
        g_lo, g_up = generic.self_compose(rounds).epsilon(
            DELTA, bound="both", composition_only=True
        )
        f_lo, f_up = fast.self_compose(rounds).epsilon(DELTA, bound="both", composition_only=True)
        assert g_lo <= f_up and f_lo <= g_up  # both brackets hold the truth, so they meet
        assert abs(g_up - f_up) <= 1e-4 * f_up  # the upper sides agree to the grid's error
        assert g_up - g_lo <= 0.05 * g_up  # O(h^2) tents at h = 1e-3
    # a finer grid closes the generic bracket (h^2)
    fine = poisson_subsampled_curves(
        (up, lo), (up, lo), q, r * r / 2 + 40 * r, 0.0, value_discretization_interval=2.5e-4
    ).self_compose(1000)
    f_lo, f_up = fine.epsilon(DELTA, bound="both", composition_only=True)
    assert f_up - f_lo < 0.1 * (g_up - g_lo)


def test_generic_without_replacement_of_the_gaussian_matches_the_fixed_size_path():
    """Inner replace-one Gaussian pair (shift 2 / sigma) sampled m of n: the specialised pair."""
    sigma, m, n, h = 2.0, 10, 1000, 1e-3
    r = 2.0 / sigma
    up, lo = gaussian_curve(r, 1 + 1e-11), gaussian_curve(r, 1 - 1e-11)
    generic = without_replacement_curves(
        (up, lo), m / n, r * r / 2 + 40 * r, 0.0, value_discretization_interval=h
    )
    fast = pld.fixed_size_subsampled_gaussian(sigma, m, n, value_discretization_interval=h)
    for rounds in (1, 300):
        g_lo, g_up = generic.self_compose(rounds).epsilon(DELTA, bound="both")
        f_lo, f_up = fast.self_compose(rounds).epsilon(DELTA, bound="both")
        assert g_lo <= f_up and f_lo <= g_up
        assert abs(g_up - f_up) <= 2e-3 * f_up


@pytest.mark.parametrize("q,noise,buckets,rounds", [(0.1, 0.5, 4, 10), (0.3, 0.2, 2, 5)])
def test_poisson_sampled_randomized_response_against_exact_enumeration(q, noise, buckets, rounds):
    """Replace-special RR: the subsampled pair in closed form, both directions, composed exactly."""
    p, qq = randomized_response_pair(noise, buckets, "replace_special")
    mixed = q * p + (1 - q) * qq
    event = E.PoissonSampledDpEvent(q, E.RandomizedResponseDpEvent(noise, buckets))
    acc = HockeystickPLDAccountant(NeighboringRelation.REPLACE_SPECIAL).compose(event, rounds)
    for eps in (0.0, 0.3, 1.0, 2.0):
        exact = max(exact_delta(mixed, qq, rounds, eps), exact_delta(qq, mixed, rounds, eps))
        lo, up = acc.get_delta_bracket(eps)
        assert lo <= exact <= up
        assert up - lo <= 1e-7 * float(exact) + 1e-15  # losses off a lattice: rounded to 2^-32
    # the same pair through the generic (grid) transform: a certified bracket around the exact value
    inner = pld.from_distributions(p, qq, value_discretization_interval=1e-4)
    (rem, add) = pld_curves(inner)
    grid = poisson_subsampled_curves(
        rem, add, q, float(np.log(p / qq).max()) + 1.0, 0.0, value_discretization_interval=1e-4
    ).self_compose(rounds)
    for eps in (0.3, 1.0):
        exact = float(max(exact_delta(mixed, qq, rounds, eps), exact_delta(qq, mixed, rounds, eps)))
        lo, up = grid.delta(eps, bound="both")
        assert lo <= exact <= up and up - lo <= 0.05 * exact


def test_nested_poisson_samples_multiply_their_rates():
    inner = E.PoissonSampledDpEvent(0.5, E.GaussianDpEvent(1.0))
    nested = HockeystickPLDAccountant().compose(E.PoissonSampledDpEvent(0.1, inner), 20)
    direct = HockeystickPLDAccountant().compose(
        E.PoissonSampledDpEvent(0.05, E.GaussianDpEvent(1.0)), 20
    )
    n_lo, n_up = nested.get_epsilon_bracket(DELTA)
    d_lo, d_up = direct.get_epsilon_bracket(DELTA)
    assert n_lo <= d_up and d_lo <= n_up
    assert n_up - n_lo <= 2e-4 and abs(n_up - d_up) <= 2e-4


def _gaussian_hockey_stick(a, mu_a, b, mu_b):
    """int (a phi(x - mu_a) - b phi(x - mu_b))_+ dx (unit variance), in closed form; a, b > 0."""
    t = (mu_a + mu_b) / 2 - np.log(a / b) / (mu_a - mu_b)
    if mu_a > mu_b:
        return a * special.ndtr(mu_a - t) - b * special.ndtr(mu_b - t)
    return a * special.ndtr(t - mu_a) - b * special.ndtr(t - mu_b)


def _sampled_gaussian_laplace_delta(sigma, scale, q, eps):
    """Poisson(q, Gaussian(sigma) then Laplace(scale)), one round, both directions: the Gaussian
    integral in closed form given the Laplace output y, then quadrature over y (kinks at 0 and 1)."""
    mu = 1.0 / sigma

    def lap(y, at):
        return np.exp(-abs(y - at) / scale) / (2 * scale)

    def remove(y):
        b = math.expm1(eps) + q
        return _gaussian_hockey_stick(q * lap(y, 1.0), mu, b * lap(y, 0.0), 0.0)

    def add(y):
        a = -math.expm1(eps + math.log1p(-q))
        return (
            0.0
            if a <= 0
            else _gaussian_hockey_stick(a * lap(y, 0.0), 0.0, math.exp(eps) * q * lap(y, 1.0), mu)
        )

    out = []
    for f in (remove, add):
        out.append(
            sum(
                integrate.quad(f, lo, hi, epsabs=1e-14, epsrel=1e-12, limit=200)[0]
                for lo, hi in ((-60 * scale, 0.0), (0.0, 1.0), (1.0, 60 * scale))
            )
        )
    return max(out)


def test_poisson_around_a_composition_against_quadrature_and_its_folded_gaussian():
    two = E.ComposedDpEvent([E.GaussianDpEvent(2.0), E.GaussianDpEvent(2.0)])
    folded = (
        HockeystickPLDAccountant()
        .compose(E.PoissonSampledDpEvent(0.1, two), 50)
        .get_epsilon_bracket(DELTA)
    )
    one = HockeystickPLDAccountant().compose(
        E.PoissonSampledDpEvent(0.1, E.GaussianDpEvent(math.sqrt(2.0))), 50
    )
    assert folded == pytest.approx(one.get_epsilon_bracket(DELTA), rel=1e-6)
    # Gaussian then Laplace inside one sample (no specialised path): the generic transform
    sigma, scale, q = 1.5, 2.0, 0.2
    mixed = E.PoissonSampledDpEvent(
        q, E.ComposedDpEvent([E.GaussianDpEvent(sigma), E.LaplaceDpEvent(scale)])
    )
    acc = HockeystickPLDAccountant().compose(mixed)
    for eps in (0.05, 0.3, 1.0):
        exact = _sampled_gaussian_laplace_delta(sigma, scale, q, eps)
        lo, up = acc.get_delta_bracket(eps)
        assert lo <= exact * (1 + 1e-9) and exact <= up * (1 + 1e-9)
        assert up - lo <= 1e-3 * exact
    lo, up = HockeystickPLDAccountant().compose(mixed, 10).get_epsilon_bracket(DELTA)
    assert 0 < lo <= up and up - lo <= 2e-4


def test_generic_transform_of_laplace_against_dp_accountings_sampled_laplace():
    """dp_accounting samples a Laplace inner itself: our bracket from the generic transform must meet
    both of its estimates (our upper >= its optimistic, our lower <= its pessimistic)."""
    b, q, h, rounds = 2.0, 0.2, 1e-3, 20
    (rem, add) = pld_curves(pld.laplace(b, value_discretization_interval=h)) * 2
    ours = poisson_subsampled_curves(
        rem, add, q, 1.0 / b + 1.0, 0.0, value_discretization_interval=h
    ).self_compose(rounds)
    lo, up = ours.epsilon(DELTA, bound="both")
    opt = their.from_laplace_mechanism(
        b, sampling_prob=q, pessimistic_estimate=False, value_discretization_interval=1e-4
    ).self_compose(rounds)
    pes = their.from_laplace_mechanism(
        b, sampling_prob=q, pessimistic_estimate=True, value_discretization_interval=1e-4
    ).self_compose(rounds)
    assert up >= opt.get_epsilon_for_delta(DELTA) and lo <= pes.get_epsilon_for_delta(DELTA)
    assert up - lo <= 0.02 * up


def test_without_replacement_of_randomized_response_is_the_proved_bound_and_its_pair():
    """One round, replace-one RR sampled m of n: the upper side equals q H(1 + (e^eps - 1)/q) (the
    proved bound, Balle et al. 2018 Thm 2) at eps >= 0 up to the grid, the lower side the pair
    (qP + (1-q)Q, Q) below its exact curve."""
    noise, k, m, n = 0.5, 4, 100, 1000
    q = m / n
    p, qq = randomized_response_pair(noise, k, "replace_one")
    acc = HockeystickPLDAccountant(
        NeighboringRelation.REPLACE_ONE, value_discretization_interval=1e-4
    )
    acc.compose(E.SampledWithoutReplacementDpEvent(n, m, E.RandomizedResponseDpEvent(noise, k)))
    for eps in (0.0, 0.1, 0.5, 1.0):
        inner_eps = math.log1p(math.expm1(eps) / q)
        proved = q * float(exact_delta(p, qq, 1, inner_eps))
        realizable = float(exact_delta(q * p + (1 - q) * qq, qq, 1, eps))
        lo, up = acc.get_delta_bracket(eps)
        assert proved <= up <= proved * (1 + 1e-3) + 1e-12
        assert lo <= realizable


def test_sampled_non_private_events_release_exactly_the_sampling_probability():
    """delta(eps) is the chance that the record is drawn, exactly (rationals): q as given, m / n without
    replacement, 1 - (1 - 1/n)^m with replacement; the last two are computed in doubles, so the bracket holds the
    exact rational on both sides (a computed chance taken as exact put the lower side one ulp above it)."""
    acc = HockeystickPLDAccountant().compose(E.PoissonSampledDpEvent(0.25, E.NonPrivateDpEvent()))
    for eps in (0.0, 1.0, 10.0):
        lo, up = acc.get_delta_bracket(eps)
        assert lo <= 0.25 <= up and up - lo < 1e-12
    for n, m in ((100, 5), (3, 2), (1000, 999), (7, 1)):
        wor = E.SampledWithoutReplacementDpEvent(n, m, E.GaussianDpEvent(0.0))
        wr = E.SampledWithReplacementDpEvent(n, m, E.NonPrivateDpEvent())
        for event, exact in ((wor, Fraction(m, n)), (wr, 1 - (1 - Fraction(1, n)) ** m)):
            acc = HockeystickPLDAccountant(NeighboringRelation.REPLACE_ONE).compose(event)
            lo, up = acc.get_delta_bracket(3.0)
            assert Fraction(lo) <= exact <= Fraction(up) and up - lo < 1e-12, (event, lo, up)


@pytest.mark.parametrize(
    "relation,event",
    [
        (NeighboringRelation.ADD_OR_REMOVE_ONE, E.PoissonSampledDpEvent(0.1, E.ZCDpEvent(0.1))),
        (
            NeighboringRelation.ADD_OR_REMOVE_ONE,
            E.PoissonSampledDpEvent(
                0.1, E.RepeatAndSelectDpEvent(E.GaussianDpEvent(1.0), 3.0, 1.0)
            ),
        ),
        (NeighboringRelation.ADD_OR_REMOVE_ONE, E.PoissonSampledDpEvent(0.0, E.ZCDpEvent(0.1))),
        (
            NeighboringRelation.REPLACE_ONE,
            E.SampledWithReplacementDpEvent(100, 5, E.ZCDpEvent(0.1)),
        ),
        (
            NeighboringRelation.REPLACE_ONE,
            E.SampledWithoutReplacementDpEvent(
                100, 5, E.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.5, 0.5])
            ),
        ),
    ],
)
def test_inner_events_without_a_known_pair_are_still_refused(relation, event):
    acc = HockeystickPLDAccountant(relation)
    assert not acc.supports(event)
    with pytest.raises(UnsupportedEventError):
        acc.compose(event)


def test_with_replacement_adapter_reports_the_accountants_tighter_bound():
    """The adapter composes the shift-constrained curve beside the labelled pair and reports
    the smaller, as WithReplacementBatchGaussianPLD does; at App. I's eps = 1.5 row it is tighter."""
    from hockeystick.isrl import appendix_i_batch_size, appendix_i_sigma

    n, rounds, eps = 1238, 35, 1.5
    k = int(appendix_i_batch_size(rounds=rounds, silo_size=n, epsilon=eps))
    sigma = float(
        appendix_i_sigma(lipschitz=1.0, rounds=rounds, silo_size=n, epsilon=eps, delta=1.0 / n**2)
    )
    assert k == 128
    h, delta = 2e-3, 1.0 / n**2
    noise = sigma * k  # sensitivity L / K = 1 / K: the event's noise multiplier is sigma K
    event = E.SampledWithReplacementDpEvent(n, k, E.GaussianDpEvent(noise))
    acc = HockeystickPLDAccountant(NeighboringRelation.REPLACE_ONE, value_discretization_interval=h)
    lo, up = acc.compose(event, rounds).get_epsilon_bracket(delta)
    direct = pld.WithReplacementBatchGaussianPLD(
        noise, k, n, rounds, value_discretization_interval=h
    )
    d_lo, d_up = direct.epsilon(delta, bound="both")
    assert up == pytest.approx(d_up, rel=1e-12) and lo == pytest.approx(d_lo, rel=1e-12)
    labelled_only = pld.with_replacement_subsampled_gaussian(
        noise, k, n, value_discretization_interval=h
    )
    before = labelled_only.self_compose(rounds).epsilon(delta)
    assert lo <= up < 0.5 * before and up - lo <= 0.1 * lo


def test_sampled_curves_keep_their_sides_near_the_singular_ends():
    """The remove curve near eps = log(1 - q) and the add curve near -log(1 - q), where the
    formulas' arguments lose accuracy, against the exact curves of the sampled pair (mpmath)."""
    from hockeystick.pld.compose import finite_atoms
    from hockeystick.pld.sampling.subsampled_pair import (
        mirrored_curve,
        poisson_add_curve,
        poisson_remove_curve,
    )

    p, qq = randomized_response_pair(0.3, 3, "replace_special")
    atoms = {True: finite_atoms.pair_atoms(p, qq), False: finite_atoms.pair_atoms(qq, p)}

    def inner(swapped: bool, upper: bool):
        a = atoms[not swapped]
        return lambda e: finite_atoms.delta(a, np.atleast_1d(np.asarray(e, float)), upper)

    for q in (0.01, 0.5, 0.999):
        mixed = [
            mpmath.mpf(q) * mpmath.mpf(a) + (1 - mpmath.mpf(q)) * mpmath.mpf(b)
            for a, b in zip(p, qq)
        ]
        floor, ceiling = math.log1p(-q), -math.log1p(-q)
        eps = np.array(
            sorted(
                {floor + d for d in (1e-15, 1e-12, 1e-9, 2e-9, 1e-6, 1e-3, 0.1, 1.0)}
                | {ceiling - d for d in (1e-15, 1e-12, 1e-9, 2e-9, 1e-6, 1e-3, 0.1, 1.0)}
                | {0.0, -0.5, 0.5, 3.0}
            )
        )
        remove = [poisson_remove_curve(inner(False, side), q, side)(eps) for side in (False, True)]
        add = [poisson_add_curve(inner(True, side), q, side)(eps) for side in (False, True)]
        mirror = [
            mirrored_curve(poisson_remove_curve(inner(False, side), q, side), side)(eps)
            for side in (False, True)
        ]
        for i, e in enumerate(eps):
            ex_r = exact_delta(mixed, qq, 1, float(e))
            ex_a = exact_delta(qq, mixed, 1, float(e))
            assert remove[0][i] <= ex_r <= remove[1][i]
            assert add[0][i] <= ex_a <= add[1][i]
            assert remove[1][i] - remove[0][i] <= 1e-6 and add[1][i] - add[0][i] <= 1e-6
            if (
                e < 0
            ):  # the mirror of the remove bound is the add pair's curve here (both orders bounded)
                assert mirror[0][i] <= ex_a <= mirror[1][i]


def test_composed_without_replacement_brackets_the_realizable_pair_composed():
    """Ten rounds of RR sampled m of n: the lower side is at most the one-order pair (qP + (1-q)Q, Q)
    composed (exact enumeration), the upper side at least that (it bounds every order)."""
    noise, k, m, n, rounds = 0.5, 4, 100, 1000, 10
    q = m / n
    p, qq = randomized_response_pair(noise, k, "replace_one")
    event = E.SampledWithoutReplacementDpEvent(n, m, E.RandomizedResponseDpEvent(noise, k))
    acc = HockeystickPLDAccountant(NeighboringRelation.REPLACE_ONE).compose(event, rounds)
    mixed = [
        mpmath.mpf(q) * mpmath.mpf(a) + (1 - mpmath.mpf(q)) * mpmath.mpf(b) for a, b in zip(p, qq)
    ]
    for eps in (0.5, 1.0, 2.0):
        realizable = exact_delta(mixed, qq, rounds, eps)
        lo, up = acc.get_delta_bracket(eps)
        assert lo <= realizable <= up
        assert lo >= 0.99 * float(realizable)  # the secants use the one-order pair's own upper side


def _random_inner(rng: np.random.Generator):
    """A small composition (no specialised sampling path) for the consistency checks below."""
    parts = [
        E.GaussianDpEvent(float(rng.uniform(1.0, 4.0))),
        E.LaplaceDpEvent(float(rng.uniform(2.0, 8.0))),
        E.DiscreteLaplaceDpEvent(float(rng.uniform(0.2, 0.8)), 1),
        E.PoissonSampledDpEvent(
            float(rng.uniform(0.2, 0.6)), E.LaplaceDpEvent(float(rng.uniform(1.0, 4.0)))
        ),
    ]
    pick = rng.choice(len(parts), size=2, replace=False)
    return E.ComposedDpEvent([parts[int(i)] for i in pick])


@pytest.mark.parametrize("seed", range(4))
def test_random_inner_compositions_nested_samples_multiply_and_sampling_amplifies(seed):
    """Poisson(q1, Poisson(q2, X)) and Poisson(q1 q2, X) are one mechanism: their certified brackets
    meet; and sampling never costs more than the inner event itself."""
    rng = np.random.default_rng(seed)
    inner = _random_inner(rng)
    q1, q2 = float(rng.uniform(0.2, 0.7)), float(rng.uniform(0.2, 0.7))
    rounds = int(rng.integers(2, 6))
    make = dict(accuracy=1e-3)
    nested = HockeystickPLDAccountant(**make).compose(
        E.PoissonSampledDpEvent(q1, E.PoissonSampledDpEvent(q2, inner)), rounds
    )
    direct = HockeystickPLDAccountant(**make).compose(
        E.PoissonSampledDpEvent(q1 * q2, inner), rounds
    )
    alone = HockeystickPLDAccountant(**make).compose(inner, rounds)
    for eps in (0.1, 0.5):
        n_lo, n_up = nested.get_delta_bracket(eps)
        d_lo, d_up = direct.get_delta_bracket(eps)
        a_lo, a_up = alone.get_delta_bracket(eps)
        assert n_lo <= d_up and d_lo <= n_up
        assert max(n_lo, d_lo) <= a_up
        assert (
            n_up - n_lo <= 2e-3 * n_up + 1e-10
        )  # bounded losses: delta may be exactly 0 (round-off above)


def test_generic_with_replacement_transform_is_the_gaussian_labelled_pair():
    """Group-c Gaussian curves (shift 2c / s) through the generic with-replacement bound give the
    upper side of pld.with_replacement_subsampled_gaussian (its pair (*)), one round and composed."""
    from hockeystick.pld.sampling.subsampled_pair import with_replacement_curves

    s, k, n, h = 4.0, 8, 50, 2e-3
    group = {
        c: (gaussian_curve(2 * c / s, 1 + 1e-11), gaussian_curve(2 * c / s, 1 - 1e-11))
        for c in range(1, k + 1)
    }
    r_top = 2 * k / s  # theta(r, eps) < 1e-33 beyond r^2/2 + 12 r: the cut costs nothing visible
    generic = with_replacement_curves(
        lambda c: group[c], k, n, r_top * r_top / 2 + 12 * r_top, value_discretization_interval=h
    )
    fast = pld.with_replacement_subsampled_gaussian(s, k, n, value_discretization_interval=h)
    for rounds in (1, 20):
        g_lo, g_up = generic.self_compose(rounds).epsilon(DELTA, bound="both")
        f_up = fast.self_compose(rounds).epsilon(DELTA)
        assert abs(g_up - f_up) <= 2e-3 * f_up
        assert g_lo <= g_up
    for eps in (0.0, 0.5, 1.0):  # one round at eps >= 0: the bound itself, sum_c b_c theta(2c/s, .)
        b = stats.binom.pmf(np.arange(k + 1), k, 1 / n)
        eta = 1 - b[0]
        inner = math.log1p(math.expm1(eps) / eta)
        bound = sum(b[c] * float(theta(2 * c / s, inner)) for c in range(1, k + 1))
        lo, up = generic.delta(eps, bound="both")
        assert lo <= bound * (1 + 1e-9) and bound <= up * (1 + 1e-9) and up <= bound * 1.01 + 1e-12
    with pytest.raises(ValueError, match="batch_size"):
        with_replacement_curves(lambda c: group[1], 0, n, 10.0, value_discretization_interval=h)
