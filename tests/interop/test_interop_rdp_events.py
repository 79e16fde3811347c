"""HockeystickRdpAccountant on randomized response, repeat-and-select and single-epoch tree aggregation.

Against dp_accounting 0.6's RdpAccountant (same orders) over random parameters, compositions and the
(eps, delta) conversions; randomized response also against its Renyi divergence in 50-digit mpmath
(dp_accounting's log-sum-exp cancels as p -> 1), the truncated negative binomial's gamma against an
mpmath root, and the tree depth against a count of the released dyadic nodes.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

pytest.importorskip("dp_accounting")
from dp_accounting import dp_event as E  # noqa: E402
from dp_accounting.privacy_accountant import NeighboringRelation as N  # noqa: E402
from dp_accounting.privacy_accountant import UnsupportedEventError
from dp_accounting.rdp import rdp_privacy_accountant as R  # noqa: E402

from hockeystick.interop.dp_accounting import HockeystickRdpAccountant  # noqa: E402
from hockeystick.rdp.randomized_response import randomized_response_rdp  # noqa: E402
from hockeystick.rdp.repeat_and_select import (
    truncated_negative_binomial_gamma,
    truncated_negative_binomial_mean,
)  # noqa: E402
from hockeystick.rdp.tree_aggregation import tree_depth  # noqa: E402

ORDERS = np.array(R.DEFAULT_RDP_ORDERS, dtype=np.float64)
RELATION_NAMES = {N.REPLACE_ONE: "replace_one", N.REPLACE_SPECIAL: "replace_special"}


def _rr_mpmath(p: float, k: int, alpha: float, relation: str) -> float:
    """D_alpha between randomized response's output laws, from the definition, at 50 digits.

    Laws as (probability, probability, multiplicity) per group of buckets with the same pair.
    """
    with mp.workdps(50):
        p_, k_, a_ = mp.mpf(p), mp.mpf(k), mp.mpf(alpha)
        hit, miss = 1 - p_ + p_ / k_, p_ / k_

        def renyi(groups):
            return mp.log(mp.fsum(n * P**a_ * Q ** (1 - a_) for P, Q, n in groups if n)) / (a_ - 1)

        if relation == "replace_one":
            return float(renyi([(hit, miss, 1), (miss, hit, 1), (miss, miss, k - 2)]))
        u = 1 / k_
        return float(
            max(renyi([(hit, u, 1), (miss, u, k - 1)]), renyi([(u, hit, 1), (u, miss, k - 1)]))
        )


def _random_rr_cases(n: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        p = float(
            rng.choice([rng.uniform(), 1 - 10 ** rng.uniform(-12, -1), 10 ** rng.uniform(-8, -1)])
        )
        k = int(rng.choice([2, 3, int(rng.integers(2, 50)), int(rng.integers(50, 10**6))]))
        yield p, k, rng.choice(ORDERS, size=6, replace=False)


@pytest.mark.parametrize("relation", ["replace_one", "replace_special"])
def test_randomized_response_rdp_equals_the_renyi_divergence_to_1e_12(relation):
    for p, k, alphas in _random_rr_cases(40, seed=1 if relation == "replace_one" else 2):
        ours = randomized_response_rdp(p, k, alphas, relation=relation)
        exact = np.array([_rr_mpmath(p, k, a, relation) for a in alphas])
        assert np.allclose(ours, exact, rtol=1e-12, atol=0), (p, k, alphas, ours, exact)


@pytest.mark.slow
@pytest.mark.parametrize("relation", [N.REPLACE_ONE, N.REPLACE_SPECIAL])
def test_randomized_response_parity_with_dp_accounting(relation):
    # dp_accounting's side costs ~60 ms a draw (156 scipy log-sum-exps): 29 draws run k over every bucket count
    # 1..29 (k = 1 and 2 included), p and the count random, each compared at all 156 orders; under both
    # relations they reach each remainder's series and its closed form, the log1p and the log-sum-exp sides,
    # and the zero weight of k = 2 (randomized_response.py); more rounds of k reach no line-to-line step of
    # the package that these do not
    rng = np.random.default_rng(3)
    compared, draws = 0, 29
    for i in range(draws):
        p, k, count = float(rng.uniform()), 1 + i % 29, int(rng.integers(1, 20))
        event = E.RandomizedResponseDpEvent(p, k)
        theirs = R.RdpAccountant(ORDERS, relation).compose(event, count)
        ours = HockeystickRdpAccountant(ORDERS, relation).compose(event, count)
        close = np.isclose(ours.rdp, theirs.rdp, rtol=1e-9, atol=0)
        for i in np.flatnonzero(
            ~close
        ):  # only where dp_accounting's own log-sum-exp is off the exact value
            exact = count * _rr_mpmath(p, k, ORDERS[i], RELATION_NAMES[relation])
            assert abs(ours.rdp[i] - exact) <= 1e-12 * exact < abs(theirs.rdp[i] - exact)
        compared += close.sum()
        for delta in (1e-3, 1e-6, 1e-10):
            assert ours.get_epsilon(delta) == pytest.approx(
                theirs.get_epsilon(delta), rel=1e-9, abs=1e-15
            )
        for eps in (0.1, 1.0, 5.0):
            assert ours.get_delta(eps) == pytest.approx(theirs.get_delta(eps), rel=1e-9, abs=1e-300)
    assert compared > 0.99 * draws * ORDERS.size


def test_randomized_response_near_p_1_is_exact_where_dp_accounting_cancels():
    p, k, alpha = 1 - 1e-7, 2, np.array([2.0])
    exact = _rr_mpmath(p, k, 2.0, "replace_one")
    ours = randomized_response_rdp(p, k, alpha, relation="replace_one")[0]
    theirs = R._compute_randomized_response_rdp(p, k, alpha, N.REPLACE_ONE)[0]
    assert ours == pytest.approx(exact, rel=1e-13)
    assert abs(theirs / exact - 1) > 1e-6


def test_randomized_response_edges():
    assert np.all(randomized_response_rdp(1.0, 5, ORDERS) == 0)
    assert np.all(randomized_response_rdp(0.3, 1, ORDERS) == 0)
    assert np.all(randomized_response_rdp(0.0, 5, ORDERS, relation="replace_special") == math.inf)
    # broadcasting: p and k broadcast, the orders on the last axis
    grid = randomized_response_rdp([[0.2], [0.7]], [2, 3, 9], ORDERS[:5])
    assert grid.shape == (2, 3, 5)
    assert grid[1, 2, 3] == randomized_response_rdp(0.7, 9, ORDERS[:5])[3]


def _gamma_mpmath(shape: float, mean: float) -> mp.mpf:
    with mp.workdps(50):
        eta, mu = mp.mpf(shape), mp.mpf(mean)

        def mean_of(g):
            return (1 - g) / (g * mp.log(1 / g)) if eta == 0 else eta * (1 - g) / (g * (1 - g**eta))

        return mp.findroot(
            lambda g: mp.log(mean_of(g)) - mp.log(mu),
            (mp.mpf("1e-30") + 0, mp.mpf(1) - mp.mpf("1e-40")),
            solver="anderson",
        )


def test_truncated_negative_binomial_gamma_is_the_root_rounded_down():
    rng = np.random.default_rng(4)
    for _ in range(30):
        shape = float(rng.choice([0.0, 1.0, rng.uniform(0, 1), rng.uniform(1, 20)]))
        mean = float(1 + 10 ** rng.uniform(-3, 5))
        ours = truncated_negative_binomial_gamma(shape, mean)
        exact = _gamma_mpmath(shape, mean)
        assert ours <= exact and float((exact - ours) / exact) < 1e-11, (shape, mean, ours, exact)
        assert truncated_negative_binomial_mean(ours, shape) >= mean
        # dp_accounting bisects to 1e-9 and returns the lower end (of its rounded mean: it can land an ulp
        # above the exact root, e.g. shape 19.6, mean 1.03)
        theirs = R._gamma_truncated_negative_binomial(shape, mean)
        assert abs(theirs / ours - 1) < 2e-9


def _base_events(rng, relation):
    """Random events every relation here supports, under ``relation``."""
    gaussian = E.GaussianDpEvent(float(rng.uniform(0.5, 10)))
    choices = [
        gaussian,
        E.SelfComposedDpEvent(gaussian, int(rng.integers(1, 50))),
        E.ComposedDpEvent([gaussian, E.GaussianDpEvent(float(rng.uniform(1, 5)))]),
    ]
    if relation != N.REPLACE_ONE:
        choices += [
            E.LaplaceDpEvent(float(rng.uniform(0.5, 20))),
            E.PoissonSampledDpEvent(float(rng.uniform(0, 1)), gaussian),
            E.ZCDpEvent(float(rng.uniform(0, 0.1)), float(rng.uniform(0, 0.01))),
        ]
    if relation != N.ADD_OR_REMOVE_ONE:
        choices.append(
            E.RandomizedResponseDpEvent(float(rng.uniform(0.05, 1)), int(rng.integers(2, 20)))
        )
    if relation == N.REPLACE_SPECIAL:
        choices.append(
            E.SingleEpochTreeAggregationDpEvent(
                float(rng.uniform(0.5, 10)), int(rng.integers(1, 5000))
            )
        )
    return choices[int(rng.integers(len(choices)))]


def _bisection_slack(shape: float, count: int = 1) -> float:
    """dp_accounting's gamma is a 1e-9 bisection (none for the geometric and Poisson laws): each of the
    ``count`` runs' eps' moves by (1 + shape) |log(gamma_theirs / gamma)| <= (1 + shape) 2e-9."""
    return 0.0 if shape in (1.0, math.inf) else count * (1 + shape) * 2e-9


def _agree(ours, theirs, shape, count=1):
    """Equal to 1e-9 relative, plus dp_accounting's gamma bisection error where it bisects."""
    finite = np.isfinite(theirs)
    assert np.array_equal(finite, np.isfinite(ours))
    assert np.all(
        np.abs(ours[finite] - theirs[finite])
        <= 1e-9 * theirs[finite] + _bisection_slack(shape, count)
    ), (
        shape,
        np.max(np.abs(ours[finite] - theirs[finite]) / theirs[finite]),
    )


@pytest.mark.parametrize("relation", [N.ADD_OR_REMOVE_ONE, N.REPLACE_SPECIAL])
def test_repeat_and_select_parity_with_dp_accounting(relation):
    rng = np.random.default_rng(5 if relation == N.ADD_OR_REMOVE_ONE else 6)
    for _ in range(60):
        shape = float(rng.choice([0.0, 1.0, math.inf, rng.uniform(0, 1), rng.uniform(1, 10)]))
        mean = float(rng.choice([1.0, 1 + 10 ** rng.uniform(-3, 4)]))
        event = E.RepeatAndSelectDpEvent(_base_events(rng, relation), mean, shape)
        count = int(rng.integers(1, 4))
        theirs = (
            R.RdpAccountant(ORDERS, relation).compose(E.GaussianDpEvent(7.0)).compose(event, count)
        )
        ours = (
            HockeystickRdpAccountant(ORDERS, relation)
            .compose(E.GaussianDpEvent(7.0))
            .compose(event, count)
        )
        _agree(ours.rdp, theirs.rdp, shape, count)
        for delta in (1e-5, 1e-9):
            e_ours, e_theirs = ours.get_epsilon(delta), theirs.get_epsilon(delta)
            assert abs(e_ours - e_theirs) <= 1e-9 * e_theirs + _bisection_slack(shape, count)


def test_repeat_and_select_geometric_is_thm_2_at_gamma_1_over_mean():
    """Papernot & Steinke Thm. 2, eta = 1: eps + 2 min(...(1 - 1/a^) eps(a^) + log(mean)/a^) + log(mean)/(a - 1)."""
    sigma, mean = 3.0, 20.0
    base = ORDERS / (2 * sigma**2)
    acc = HockeystickRdpAccountant(ORDERS).compose(
        E.RepeatAndSelectDpEvent(E.GaussianDpEvent(sigma), mean, 1.0)
    )
    with mp.workdps(30):
        inner = min(
            (1 - 1 / mp.mpf(a)) * mp.mpf(e) + mp.log(mean) / mp.mpf(a) for a, e in zip(ORDERS, base)
        )
        formula = [
            float(mp.mpf(e) + 2 * inner + mp.log(mean) / (mp.mpf(a) - 1))
            for a, e in zip(ORDERS, base)
        ]
    closed = np.minimum.accumulate(np.array(formula)[::-1])[
        ::-1
    ]  # ORDERS ascend: RDP non-decreasing in alpha
    assert np.allclose(acc.rdp, closed, rtol=1e-13, atol=0)


def test_tree_depth_counts_the_released_dyadic_nodes():
    def nodes_holding(leaf, n):
        return sum(
            1
            for level in range(n.bit_length() + 1)
            for j in range(n >> level)
            if j * 2**level < leaf <= (j + 1) * 2**level
        )

    for n in range(0, 130):
        assert tree_depth(n if n else [0]) == max(
            (nodes_holding(leaf, n) for leaf in range(1, n + 1)), default=0
        )
    assert tree_depth([3, 2**53]) == 54  # exact, where a float log2 loses the last level


def test_tree_aggregation_parity_with_dp_accounting():
    rng = np.random.default_rng(7)
    for _ in range(100):
        steps = [
            int(s)
            for s in rng.integers(0, 10 ** int(rng.integers(1, 7)), size=int(rng.integers(1, 5)))
        ]
        event = E.SingleEpochTreeAggregationDpEvent(
            float(rng.uniform(0.3, 30)), steps if len(steps) > 1 else max(steps[0], 1)
        )
        count = int(rng.integers(1, 100))
        theirs = R.RdpAccountant(ORDERS, N.REPLACE_SPECIAL).compose(event, count)
        ours = HockeystickRdpAccountant(ORDERS, N.REPLACE_SPECIAL).compose(event, count)
        assert np.allclose(ours.rdp, theirs.rdp, rtol=1e-12, atol=0)
        assert ours.get_epsilon(1e-6) == pytest.approx(theirs.get_epsilon(1e-6), rel=1e-9)
        assert ours.get_delta(2.0) == pytest.approx(theirs.get_delta(2.0), rel=1e-9)


@pytest.mark.slow
def test_compositions_of_every_kind_match_dp_accounting():
    rng = np.random.default_rng(8)
    for relation in (N.REPLACE_SPECIAL, N.REPLACE_ONE):
        for _ in range(20):
            events = [_base_events(rng, relation) for _ in range(int(rng.integers(2, 5)))]
            events.append(
                E.RepeatAndSelectDpEvent(
                    _base_events(rng, relation), float(rng.uniform(1, 50)), 1.0
                )
            )
            event = E.SelfComposedDpEvent(E.ComposedDpEvent(events), int(rng.integers(1, 10)))
            # a Gaussian shifts by 2 sensitivities under REPLACE_ONE here (module docstring): compare against
            # dp_accounting on the same tree at half the noise multipliers
            reference = _halve_gaussians(event) if relation == N.REPLACE_ONE else event
            theirs = R.RdpAccountant(ORDERS, relation).compose(reference)
            ours = HockeystickRdpAccountant(ORDERS, relation).compose(event)
            _agree(ours.rdp, theirs.rdp, 1.0)
            for delta in (1e-4, 1e-8):
                assert ours.get_epsilon(delta) == pytest.approx(theirs.get_epsilon(delta), rel=1e-9)
            assert ours.get_delta(3.0) == pytest.approx(theirs.get_delta(3.0), rel=1e-9, abs=1e-300)


def _halve_gaussians(event):
    if isinstance(event, E.GaussianDpEvent):
        return E.GaussianDpEvent(event.noise_multiplier / 2)
    if isinstance(event, E.SelfComposedDpEvent):
        return E.SelfComposedDpEvent(_halve_gaussians(event.event), event.count)
    if isinstance(event, E.ComposedDpEvent):
        return E.ComposedDpEvent([_halve_gaussians(e) for e in event.events])
    if isinstance(event, E.RepeatAndSelectDpEvent):
        return E.RepeatAndSelectDpEvent(_halve_gaussians(event.event), event.mean, event.shape)
    return event


@pytest.mark.parametrize(
    "relation, event",
    [
        (N.REPLACE_ONE, E.RandomizedResponseDpEvent(1.5, 3)),
        (N.REPLACE_SPECIAL, E.RandomizedResponseDpEvent(-0.1, 3)),
        (N.REPLACE_ONE, E.RandomizedResponseDpEvent(0.5, 0)),
        (N.ADD_OR_REMOVE_ONE, E.RepeatAndSelectDpEvent(E.GaussianDpEvent(1.0), 0.5, 1.0)),
        (N.ADD_OR_REMOVE_ONE, E.RepeatAndSelectDpEvent(E.GaussianDpEvent(1.0), 2.0, -1.0)),
        (N.ADD_OR_REMOVE_ONE, E.RepeatAndSelectDpEvent(E.GaussianDpEvent(1.0), math.nan, 1.0)),
        (N.ADD_OR_REMOVE_ONE, E.RepeatAndSelectDpEvent(E.GaussianDpEvent(1.0), 2.0, math.nan)),
        (N.REPLACE_SPECIAL, E.SingleEpochTreeAggregationDpEvent(-1.0, 8)),
        (N.REPLACE_SPECIAL, E.SingleEpochTreeAggregationDpEvent(1.0, [])),
        (N.REPLACE_SPECIAL, E.SingleEpochTreeAggregationDpEvent(1.0, 0)),
        (N.REPLACE_SPECIAL, E.SingleEpochTreeAggregationDpEvent(1.0, [4, -1])),
    ],
)
def test_bad_input_raises_value_error_like_dp_accounting(relation, event):
    with pytest.raises(ValueError):
        R.RdpAccountant(ORDERS, relation).compose(event)
    with pytest.raises(ValueError):
        HockeystickRdpAccountant(ORDERS, relation).compose(event)


@pytest.mark.parametrize(
    "relation, event",
    [
        (N.ADD_OR_REMOVE_ONE, E.RandomizedResponseDpEvent(0.5, 3)),
        (N.ADD_OR_REMOVE_ONE, E.SingleEpochTreeAggregationDpEvent(1.0, 8)),
        (N.REPLACE_ONE, E.SingleEpochTreeAggregationDpEvent(1.0, 8)),
        (
            N.ADD_OR_REMOVE_ONE,
            E.RepeatAndSelectDpEvent(E.RandomizedResponseDpEvent(0.5, 3), 2.0, 1.0),
        ),
    ],
)
def test_unsupported_relations_are_refused_like_dp_accounting(relation, event):
    assert not R.RdpAccountant(ORDERS, relation).supports(event)
    assert not HockeystickRdpAccountant(ORDERS, relation).supports(event)
    with pytest.raises(UnsupportedEventError):
        HockeystickRdpAccountant(ORDERS, relation).compose(event)
