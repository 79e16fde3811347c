"""Secure-aggregation rounds as dp_accounting events: the certified bracket against secagg's accountants, the
papers' formulas converted by dp_accounting, and the exact one-round divergence at d = 1; the relations and
compositions taken, and those refused with the reason."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from dp_accounting import (
    ComposedDpEvent,
    GaussianDpEvent,
    NeighboringRelation,
    PoissonSampledDpEvent,
    SampledWithoutReplacementDpEvent,
    SelfComposedDpEvent,
)
from dp_accounting.rdp import RdpAccountant
from dp_accounting.rdp.rdp_privacy_accountant import compute_epsilon

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant, HockeystickRdpAccountant
from hockeystick.interop.dp_accounting.secagg_events import (
    DistributedDiscreteGaussianDpEvent,
    DistributedSkellamDpEvent,
)
from hockeystick.rdp import gaussian_rdp
from hockeystick.secagg import DistributedDiscreteGaussian, DistributedSkellam

SPECIAL = NeighboringRelation.REPLACE_SPECIAL
PIPELINE = dict(
    clip_norm=1.0, granularity=0.1, dimension=16, local_sigma=0.5, min_surviving_clients=8, beta=0.1
)
PAIRS = [
    (DistributedDiscreteGaussian, DistributedDiscreteGaussianDpEvent),
    (DistributedSkellam, DistributedSkellamDpEvent),
]


def _event_of(accountant, event_class):
    """The round the pipeline's integer vectors make, in the event's integer units."""
    return event_class(
        local_stddev=accountant.integer_sigma,
        l2_norm_bound=accountant.sensitivity.l2,
        l1_norm_bound=accountant.sensitivity.l1,
        num_clients=accountant.min_surviving_clients,
        dimension=accountant.dimension,
    )


@pytest.mark.parametrize(("secagg_class", "event_class"), PAIRS)
def test_the_upper_side_is_the_secagg_accountant_s_and_the_lower_side_realizes_a_larger_shift(
    secagg_class, event_class
):
    direct = secagg_class(rounds=20, **PIPELINE)
    event = _event_of(direct, event_class)
    ours = HockeystickPLDAccountant(SPECIAL).compose(SelfComposedDpEvent(event, 20))
    lower, upper = ours.get_epsilon_bracket(1e-5)
    low, high = direct.epsilon(1e-5, bound="both")
    assert upper == pytest.approx(high, rel=1e-12)
    # the event allows every integer vector within its norms: floor(Delta) e_1 shifts further than floor(c / gamma)
    assert low <= lower <= upper
    d_low, d_high = ours.get_delta_bracket(2.0)
    assert d_high == pytest.approx(direct.delta(2.0), rel=1e-9) and 0 < d_low <= d_high


@pytest.mark.parametrize(
    "event_class", [DistributedDiscreteGaussianDpEvent, DistributedSkellamDpEvent]
)
def test_the_upper_side_is_the_papers_curve_converted_by_dp_accounting(event_class):
    s, n, l2, d, rounds = 4.0, 10, 9.0, 32, 50
    event = event_class(local_stddev=s, l2_norm_bound=l2, num_clients=n, dimension=d)
    l1 = min(math.sqrt(d) * l2, l2 * l2)
    orders = np.arange(2.0, 257.0)
    if event_class is DistributedSkellamDpEvent:  # Agarwal et al.: at V = n s^2
        v = n * s * s
        curve = orders * l2**2 / (2 * v) + np.minimum(
            ((2 * orders - 1) * l2**2 + 6 * l1) / (4 * v * v), 3 * l1 / (2 * v)
        )
    else:  # KLS21, Prop. 14 at n (the accountant also minimises over n' <= n: never above it)
        tau = 10 * math.fsum(math.exp(-2 * math.pi**2 * s * s * k / (k + 1)) for k in range(1, n))
        a, b = l2 / (math.sqrt(n) * s), l1 / (math.sqrt(n) * s)
        curve = np.minimum.reduce(
            [
                orders / 2 * a * a + tau * d,
                orders / 2 * (a * a + 2 * b * tau + tau * tau * d),
                orders / 2 * (a + tau * math.sqrt(d)) ** 2,
            ]
        )
    reference, _ = compute_epsilon(orders, rounds * curve, 1e-6)
    upper = HockeystickPLDAccountant(SPECIAL).compose(event, rounds).get_epsilon(1e-6)
    assert upper >= reference * (
        1 - 1e-12
    )  # our orders hold theirs: never above their conversion ...
    assert (
        upper <= reference * (1 + 1e-9) + 1e-12
    )  # ... and the same curve: never below the truth either


def _skellam_pmf(v, x):
    return mpmath.exp(-v) * mpmath.besseli(abs(x), v)


@mpmath.workdps(40)
def test_the_bracket_holds_the_exact_one_round_divergence_at_dimension_one():
    """d = 1: the integer shifts within Delta_2 = 3.5 are 0..3; the pair (Skellam(V) + 3, Skellam(V)) is the worst
    (the Skellam law is log-concave: a larger shift dominates), its delta(eps) summed exactly in mpmath."""
    v, shift = mpmath.mpf(6), 3
    event = DistributedSkellamDpEvent(
        local_stddev=math.sqrt(2.0), l2_norm_bound=3.5, num_clients=3, dimension=1
    )
    accountant = HockeystickPLDAccountant(SPECIAL, value_discretization_interval=1e-5).compose(
        event
    )
    for eps in (0.0, 0.5, 1.0, 2.0):
        exact = mpmath.fsum(
            max(_skellam_pmf(v, x - shift) - mpmath.exp(eps) * _skellam_pmf(v, x), 0)
            for x in range(-80, 90)
        )
        lower, upper = accountant.get_delta_bracket(eps)
        assert lower <= float(exact) * (1 + 1e-9) and float(exact) <= upper
        assert lower >= float(exact) - 1e-4  # the lattice pair is that very pair, on a grid of 1e-5


def test_replace_one_is_replace_special_at_twice_the_norms():
    one = DistributedDiscreteGaussianDpEvent(
        local_stddev=2.0, l2_norm_bound=5.0, num_clients=4, dimension=9
    )
    twice = DistributedDiscreteGaussianDpEvent(
        local_stddev=2.0,
        l2_norm_bound=10.0,
        l1_norm_bound=min(2 * 15.0, 30.0),
        num_clients=4,
        dimension=9,
    )
    replaced = (
        HockeystickPLDAccountant(NeighboringRelation.REPLACE_ONE)
        .compose(one, 5)
        .get_epsilon_bracket(1e-5)
    )
    special = HockeystickPLDAccountant(SPECIAL).compose(twice, 5).get_epsilon_bracket(1e-5)
    assert replaced == pytest.approx(special, rel=1e-12)


def test_rounds_compose_with_each_other_and_the_rdp_accountant_composes_them_with_anything():
    dg = DistributedDiscreteGaussianDpEvent(
        local_stddev=3.0, l2_norm_bound=12.0, num_clients=50, dimension=64
    )
    sk = DistributedSkellamDpEvent(
        local_stddev=6.0, l2_norm_bound=12.0, num_clients=50, dimension=64
    )
    both = (
        HockeystickPLDAccountant(SPECIAL)
        .compose(ComposedDpEvent([dg, sk]), 10)
        .get_epsilon_bracket(1e-5)
    )
    each = [
        HockeystickPLDAccountant(SPECIAL).compose(e, 10).get_epsilon_bracket(1e-5) for e in (dg, sk)
    ]
    assert max(b[0] for b in each) <= both[0] <= both[1] <= sum(b[1] for b in each)
    rdp = (
        HockeystickRdpAccountant(neighboring_relation=SPECIAL)
        .compose(sk, 3)
        .compose(GaussianDpEvent(2.0))
    )
    v, l1 = 50 * 36.0, min(8 * 12.0, 144.0)
    alpha = np.maximum(np.ceil(rdp.orders), 2.0)
    skellam = alpha * 144.0 / (2 * v) + np.minimum(
        ((2 * alpha - 1) * 144.0 + 6 * l1) / (4 * v * v), 3 * l1 / (2 * v)
    )
    assert rdp.rdp == pytest.approx(3 * skellam + gaussian_rdp(2.0, rdp.orders), rel=1e-12)


@pytest.mark.parametrize(
    ("relation", "event", "words"),
    [
        (
            NeighboringRelation.ADD_OR_REMOVE_ONE,
            "round",
            "removing a client removes its noise share",
        ),
        (
            SPECIAL,
            "without_replacement",
            "only a `PoissonSampledDpEvent` directly around one round",
        ),
        (
            SPECIAL,
            "sampled_composition",
            "only a `PoissonSampledDpEvent` directly around one round",
        ),
        (SPECIAL, "beside_gaussian", "compose only with each other"),
    ],
)
def test_what_has_no_certified_analysis_is_refused_with_the_reason(relation, event, words):
    round_ = DistributedSkellamDpEvent(
        local_stddev=6.0, l2_norm_bound=12.0, num_clients=50, dimension=64
    )
    composed = {
        "round": round_,
        "without_replacement": SampledWithoutReplacementDpEvent(1000, 10, round_),
        "sampled_composition": PoissonSampledDpEvent(0.01, ComposedDpEvent([round_, round_])),
        "beside_gaussian": ComposedDpEvent([round_, GaussianDpEvent(1.0)]),
    }[event]
    accountant = HockeystickPLDAccountant(relation)
    assert not accountant.supports(composed)
    with pytest.raises(Exception, match=words):
        accountant.compose(composed)
    assert not RdpAccountant().supports(
        round_
    )  # dp_accounting's own accountant knows no such event


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        (dict(local_stddev=0.4), "local_stddev must be >= 0.5"),
        (dict(num_clients=0), "num_clients must be an integer >= 1"),
        (dict(l2_norm_bound=-1.0), "l2_norm_bound must be finite and > 0"),
        (dict(dimension=0), "dimension must be an integer >= 1"),
        (dict(l1_norm_bound=math.inf), "l1_norm_bound must be finite and > 0"),
    ],
)
def test_fields_outside_their_rule_are_named(fields, words):
    arguments = {**dict(local_stddev=2.0, l2_norm_bound=5.0, num_clients=4, dimension=9), **fields}
    with pytest.raises(ValueError, match=words):
        HockeystickPLDAccountant(SPECIAL).compose(DistributedDiscreteGaussianDpEvent(**arguments))


def test_the_pure_dp_epsilon_is_infinite_above():
    event = DistributedSkellamDpEvent(
        local_stddev=2.0, l2_norm_bound=5.0, num_clients=4, dimension=9
    )
    lower, upper = HockeystickPLDAccountant(SPECIAL).compose(event).get_epsilon_bracket(0.0)
    assert upper == math.inf and 0 < lower


@mpmath.workdps(40)
def test_a_poisson_sample_of_a_round_counts_each_sampled_client_s_own_noise_share():
    """d = 1, Skellam of local variance 2, 3 survivors, Delta_2 = 3.5, q = 0.3: the round with the client holds 4
    shares, without it 3; delta(eps) of (q (Sk(8) + 3) + (1 - q) Sk(6), q Sk(8) + (1 - q) Sk(6)) summed exactly lies
    in the bracket, whose upper side is joint convexity over the round's curve, converted by dp_accounting."""
    event = DistributedSkellamDpEvent(
        local_stddev=math.sqrt(2.0), l2_norm_bound=3.5, num_clients=3, dimension=1
    )
    sampled = PoissonSampledDpEvent(0.3, event)
    accountant = HockeystickPLDAccountant(SPECIAL, value_discretization_interval=1e-5).compose(
        sampled
    )
    q = mpmath.mpf("0.3")
    for eps in (0.0, 0.5, 1.0):
        exact = float(
            mpmath.fsum(
                max(
                    q * _skellam_pmf(8, x - 3)
                    + (1 - q) * _skellam_pmf(6, x)
                    - mpmath.exp(eps) * (q * _skellam_pmf(8, x) + (1 - q) * _skellam_pmf(6, x)),
                    0,
                )
                for x in range(-90, 100)
            )
        )
        lower, upper = accountant.get_delta_bracket(eps)
        assert lower <= exact * (1 + 1e-9) and exact <= upper and lower >= exact - 1e-4
    orders = np.arange(2.0, 257.0)
    v, l1 = 6.0, min(3.5, 3.5**2)
    curve = orders * 3.5**2 / (2 * v) + np.minimum(
        ((2 * orders - 1) * 3.5**2 + 6 * l1) / (4 * v * v), 3 * l1 / (2 * v)
    )
    with mpmath.workdps(30):
        amplified = [
            float(40 * mpmath.log1p(q * mpmath.expm1((a - 1) * mpmath.mpf(e))) / (a - 1))
            for a, e in zip(orders, curve)
        ]
    reference, _ = compute_epsilon(orders, amplified, 1e-5)
    upper = HockeystickPLDAccountant(SPECIAL).compose(sampled, 40).get_epsilon(1e-5)
    assert reference * (1 - 1e-12) <= upper <= reference * (1 + 1e-9)
    never = HockeystickPLDAccountant(SPECIAL).compose(PoissonSampledDpEvent(0.0, event), 40)
    assert never.get_epsilon(1e-5) == 0.0  # the client never sampled: nothing of it released
