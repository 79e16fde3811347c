"""EpsilonDeltaDpEvent through the PLD adapter: the canonical pair of (eps, delta)-DP, exact.

References (50-digit mpmath): the canonical pair's profile delta + (1 - delta)(e^eps - e^eps')_+ / (1 + e^eps)
(Kairouz, Oh, Viswanath 2015, Thm 2.1; Murtagh & Vadhan 2016); its k-fold composition by the binomial law of
its two finite losses +-eps (the optimal composition of Kairouz et al., Thm 3.3); beside a Gaussian by
conditioning on the pair's loss; Poisson sampled by the mixture pair in both orders; dp_accounting's PLD of
the same privacy parameters.
"""

from __future__ import annotations

import math

import mpmath as mp
import pytest

pytest.importorskip("dp_accounting")
from dp_accounting import dp_event as E  # noqa: E402
from dp_accounting.pld import common as their_common  # noqa: E402
from dp_accounting.pld import privacy_loss_distribution as their_pld  # noqa: E402
from dp_accounting.privacy_accountant import NeighboringRelation  # noqa: E402

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant  # noqa: E402
from hockeystick.interop.dp_accounting.catalogue_events import EpsilonDeltaDpEvent  # noqa: E402
from hockeystick.interop.loss_reach import ParameterOutOfRange  # noqa: E402

MP_DPS = 50
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test


def _atoms(eps: float, delta: float) -> tuple[mp.mpf, list[tuple[mp.mpf, mp.mpf]]]:
    """(P-mass at +infinity, [(P-mass, loss)]) of the canonical pair."""
    e, d = mp.mpf(eps), mp.mpf(delta)
    return d, [((1 - d) * mp.e**e / (1 + mp.e**e), e), ((1 - d) / (1 + mp.e**e), -e)]


def _composed(eps: float, delta: float, k: int) -> tuple[mp.mpf, list[tuple[mp.mpf, mp.mpf]]]:
    e, d = mp.mpf(eps), mp.mpf(delta)
    p = mp.e**e / (1 + mp.e**e)
    finite = [
        ((1 - d) ** k * mp.binomial(k, i) * p**i * (1 - p) ** (k - i), (2 * i - k) * e)
        for i in range(k + 1)
    ]
    return 1 - (1 - d) ** k, finite


def _delta(inf_mass, finite, target: float) -> mp.mpf:
    t = mp.mpf(target)
    return inf_mass + mp.fsum(m * (1 - mp.e ** (t - loss)) for m, loss in finite if loss > t)


def _bracket(events, target: float, relation=NeighboringRelation.ADD_OR_REMOVE_ONE, **kw):
    acc = HockeystickPLDAccountant(neighboring_relation=relation, **kw)
    for event, count in events:
        acc.compose(event, count)
    return acc.get_delta_bracket(target)


@pytest.mark.parametrize(
    "eps,delta", [(0.0, 1e-3), (0.5, 1e-6), (1.0, 0.0), (3.0, 0.2), (30.0, 1e-9)]
)
@pytest.mark.parametrize("target", [0.0, 0.25, 0.9])
def test_one_run_is_the_canonical_profile(eps, delta, target):
    exact = _delta(*_atoms(eps, delta), target)
    lo, up = _bracket([(EpsilonDeltaDpEvent(eps, delta), 1)], target)
    assert mp.mpf(lo) <= exact <= mp.mpf(up)
    assert up - lo <= 1e-11 * float(exact) + 1e-300


@pytest.mark.parametrize("eps,delta,k", [(0.3, 1e-6, 10), (1.0, 1e-4, 25), (0.05, 0.0, 200)])
def test_composition_is_the_optimal_composition(eps, delta, k):
    for target in (0.5, 2.0):
        exact = _delta(*_composed(eps, delta, k), target)
        lo, up = _bracket([(EpsilonDeltaDpEvent(eps, delta), k)], target)
        assert mp.mpf(lo) <= exact <= mp.mpf(up), (target, lo, exact, up)
        assert up - lo <= 1e-10 * float(exact)


def test_epsilon_of_a_composition():
    eps, delta, k, target = 0.5, 1e-6, 8, 1e-4
    inf_mass, finite = _composed(eps, delta, k)
    lo, up = (
        HockeystickPLDAccountant()
        .compose(EpsilonDeltaDpEvent(eps, delta), k)
        .get_epsilon_bracket(target)
    )
    assert _delta(inf_mass, finite, lo) >= target >= _delta(inf_mass, finite, up)


def test_beside_a_gaussian():
    eps, delta, sigma, target = 0.7, 1e-5, 2.0, 0.6
    r = mp.mpf(1) / sigma

    def theta(x):  # the Gaussian pair's delta at any real x
        return mp.ncdf(-x / r + r / 2) - mp.e**x * mp.ncdf(-x / r - r / 2)

    inf_mass, finite = _atoms(eps, delta)
    exact = inf_mass + mp.fsum(m * theta(mp.mpf(target) - loss) for m, loss in finite)
    lo, up = _bracket([(EpsilonDeltaDpEvent(eps, delta), 1), (E.GaussianDpEvent(sigma), 1)], target)
    assert mp.mpf(lo) <= exact <= mp.mpf(up)
    assert up - lo <= 1e-9 * float(exact)


@pytest.mark.parametrize("q", [0.01, 0.3])
def test_poisson_sampled(q):
    eps, delta = 1.0, 1e-5
    e, d, qq = mp.mpf(eps), mp.mpf(delta), mp.mpf(q)
    p = [d, (1 - d) * mp.e**e / (1 + mp.e**e), (1 - d) / (1 + mp.e**e), mp.mpf(0)]
    base = p[::-1]
    mixed = [(1 - qq) * b + qq * a for a, b in zip(p, base)]

    def hockey(a, b, t):
        g = mp.e ** mp.mpf(t)
        return mp.fsum(max(x - g * y, 0) for x, y in zip(a, b))

    for target in (0.0, 0.3):
        exact = max(hockey(mixed, base, target), hockey(base, mixed, target))
        lo, up = _bracket(
            [(E.PoissonSampledDpEvent(q, EpsilonDeltaDpEvent(eps, delta)), 1)], target
        )
        assert mp.mpf(lo) <= exact <= mp.mpf(up)
        assert up - lo <= 1e-7 * float(
            exact
        )  # the sampled losses lie on no lattice: a 2^-32 sub-grid


def test_against_dp_accounting_pld_of_the_same_parameters():
    eps, delta = 0.8, 1e-6
    theirs = their_pld.from_privacy_parameters(
        their_common.DifferentialPrivacyParameters(eps, delta)
    )
    for target in (0.1, 0.5):
        lo, up = _bracket([(EpsilonDeltaDpEvent(eps, delta), 1)], target)
        assert lo <= theirs.get_delta_for_epsilon(target) * (
            1 + 1e-9
        ) and theirs.get_delta_for_epsilon(target) <= up * (1 + 1e-9)


def test_any_relation_takes_the_guarantee_as_stated():
    event = EpsilonDeltaDpEvent(0.4, 1e-7)
    one = _bracket([(event, 3)], 0.5)
    for relation in NeighboringRelation:
        assert _bracket([(event, 3)], 0.5, relation=relation) == one


def test_delta_one_is_non_private_and_zero_releases_nothing():
    assert (
        HockeystickPLDAccountant().compose(EpsilonDeltaDpEvent(0.5, 1.0)).get_epsilon(1e-5)
        == math.inf
    )
    assert HockeystickPLDAccountant().compose(EpsilonDeltaDpEvent(0.0, 0.0)).get_epsilon_bracket(
        1e-5
    ) == (0.0, 0.0)


@pytest.mark.parametrize(
    "event,kind,words",
    [
        (EpsilonDeltaDpEvent(-0.1, 1e-5), ValueError, "epsilon"),
        (EpsilonDeltaDpEvent(float("nan"), 1e-5), ValueError, "epsilon"),
        (EpsilonDeltaDpEvent(math.inf, 1e-5), ParameterOutOfRange, "epsilon"),
        (EpsilonDeltaDpEvent(1e7, 1e-5), ParameterOutOfRange, "epsilon"),
        (EpsilonDeltaDpEvent(1.0, -1e-5), ValueError, "delta"),
        (EpsilonDeltaDpEvent(1.0, 1.5), ValueError, "delta"),
    ],
)
def test_refusals_name_the_field(event, kind, words):
    with pytest.raises(kind, match=words):
        HockeystickPLDAccountant().compose(event)


@pytest.mark.parametrize(
    "eps,delta",
    [(0.5, 1e-5), (1.0, 1e-7), (0.1, 0.3), (5.0, 1e-10), (1e-3, 1e-6), (30.0, 1e-5), (800.0, 1e-5)],
)
def test_epsilon_at_the_events_own_delta_is_its_epsilon(eps, delta):
    """At target delta equal to the event's own delta (its mass at +infinity, exact as given) the answer is eps:
    the upper side is finite and at or above eps, the lower side at or below it, both within 1e-11 relative."""
    lo, up = (
        HockeystickPLDAccountant()
        .compose(EpsilonDeltaDpEvent(eps, delta))
        .get_epsilon_bracket(delta)
    )
    assert lo <= eps <= up, (lo, up)
    assert up - lo <= 1e-11 * max(eps, 1.0), (lo, up)


@pytest.mark.parametrize("eps,delta", [(0.5, 1e-5), (0.0, 1e-5), (5.0, 1e-10), (800.0, 1e-5)])
def test_a_target_one_ulp_below_the_events_delta_has_no_finite_epsilon(eps, delta):
    """delta(eps') >= delta at every eps' (the mass at +infinity): at a target one ulp below it both sides are
    +inf, and at a target above it the bracket is finite and holds the canonical profile's root."""
    acc = HockeystickPLDAccountant().compose(EpsilonDeltaDpEvent(eps, delta))
    assert acc.get_epsilon_bracket(math.nextafter(delta, 0.0)) == (math.inf, math.inf)
    target = 2.0 * delta
    lo, up = acc.get_epsilon_bracket(target)
    d, ((p_top, top), _) = _atoms(eps, delta)
    ref = max(
        mp.mpf(0), top + mp.log1p(-(target - d) / p_top)
    )  # d + p_top (1 - e^(x - eps)) = target, x >= 0
    assert lo <= ref <= up < math.inf, (lo, up, ref)
