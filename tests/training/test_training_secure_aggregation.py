"""DistributedDPFedAvg: DP-FedAvg's words over secagg's accountants, answered by them exactly; the local noise TFF's
convention gives; the finest granularity within the wrap-around target; the two adversaries; the refusals."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from dp_accounting.rdp.rdp_privacy_accountant import compute_epsilon

from hockeystick.secagg import DistributedDiscreteGaussian, DistributedSkellam, wrap_probability
from hockeystick.secagg.observer_participations import participation_count_epsilon
from hockeystick.training import DistributedDPFedAvg

RUN = dict(
    clip_norm=1.0,
    bits=16,
    dimension=1000,
    clients_per_round=100,
    min_surviving_clients=80,
    rounds=50,
)
SECAGG = {
    "distributed_discrete_gaussian": DistributedDiscreteGaussian,
    "distributed_skellam": DistributedSkellam,
}


def _direct(noise, run, rate):
    return SECAGG[noise](
        clip_norm=1.0,
        granularity=run.granularity,
        dimension=1000,
        local_sigma=run.local_stddev,
        min_surviving_clients=80,
        rounds=50,
        beta=math.exp(-0.5),
        sampling_rate=rate,
    )


@pytest.mark.parametrize("noise", sorted(SECAGG))
def test_the_server_s_answers_are_the_secagg_accountant_s_at_the_translated_parameters(noise):
    run = DistributedDPFedAvg(noise=noise, total_clients=10_000, noise_multiplier=1.0, **RUN)
    assert 1.0 / math.sqrt(100) <= run.local_stddev <= 1.0 / math.sqrt(100) * (1 + 1e-15)
    direct = _direct(noise, run, 0.01)
    assert run.epsilon(1e-5, bound="both") == direct.epsilon(1e-5, bound="both")
    assert run.delta(3.0) == direct.delta(3.0)
    assert run.guarantees(1e-5) == {
        w: run.epsilon(1e-5, bound="both", against=w) for w in ("server", "observer")
    }


@pytest.mark.parametrize("noise", sorted(SECAGG))
def test_the_observer_s_upper_side_is_at_most_the_convexity_bound_converted_by_dp_accounting(noise):
    run = DistributedDPFedAvg(noise=noise, total_clients=10_000, noise_multiplier=1.0, **RUN)
    orders = np.asarray(run.accountant.orders)
    curve = run.accountant.round_rdp(orders)
    with mpmath.workdps(
        40
    ):  # log(1 - q + q e^{(alpha - 1) eps}) / (alpha - 1), each round, times T
        amplified = [
            float(
                50
                * mpmath.log1p(mpmath.mpf("0.01") * mpmath.expm1((a - 1) * mpmath.mpf(e)))
                / (a - 1)
            )
            for a, e in zip(orders, curve)
        ]
    reference, _ = compute_epsilon(orders, amplified, 1e-5)
    upper = run.epsilon(1e-5, against="observer")
    # the lesser of the convexity bound's conversion and the participation count's (secagg.observer_participations)
    by_count = participation_count_epsilon(curve, orders, 0.01, 50, np.array([1e-5]), np.inf)[0]
    assert upper <= reference * (1 + 1e-9)
    assert upper == pytest.approx(min(reference, by_count), rel=1e-9)
    low, high = run.epsilon(1e-5, bound="both", against="observer")
    assert (
        0 < low <= high == upper < run.epsilon(1e-5, bound="lower")
    )  # sampling helps against the observer


def _skellam(v, x):
    return mpmath.exp(-v) * mpmath.besseli(abs(x), v)


@mpmath.workdps(40)
def test_the_observer_s_bracket_holds_the_exact_round_with_the_client_s_own_noise_share():
    """d = 1, Skellam of local variance 2, 3 survivors, shift 3, q = 0.3: the round with the client holds 4 noise
    shares, the round without it 3; delta(eps) of (q (Sk(8) + 3) + (1 - q) Sk(6), q Sk(8) + (1 - q) Sk(6)) summed
    exactly lies in the bracket, its lower side that very pair on a grid of 1e-5."""
    run = DistributedDPFedAvg(
        noise="distributed_skellam",
        clip_norm=3.0,
        granularity=1.0,
        local_stddev=math.sqrt(2.0),
        bits=20,
        dimension=1,
        clients_per_round=4,
        min_surviving_clients=3,
        rounds=1,
        sample_rate=0.3,
        beta=0.0,
        value_discretization_interval=1e-5,
    )
    q = mpmath.mpf("0.3")

    def p(x):
        return q * _skellam(8, x - 3) + (1 - q) * _skellam(6, x)

    def r(x):
        return q * _skellam(8, x) + (1 - q) * _skellam(6, x)

    for eps in (0.0, 0.5, 1.0):
        exact = float(mpmath.fsum(max(p(x) - mpmath.exp(eps) * r(x), 0) for x in range(-90, 100)))
        lower, upper = run.delta(eps, bound="both", against="observer")
        assert lower <= exact * (1 + 1e-9) and exact <= upper
        assert lower >= exact - 1e-4


def test_the_local_noise_is_tff_s_central_noise_shared_by_the_expected_cohort():
    run = DistributedDPFedAvg(
        noise="distributed_skellam",
        noise_multiplier=1.3,
        clip_norm=0.5,
        **{k: v for k, v in RUN.items() if k != "clip_norm"},
    )
    exact = 1.3 * 0.5 / math.sqrt(100)
    assert (
        exact <= run.local_stddev <= exact * (1 + 1e-15)
    )  # rounded up: never less noise than claimed
    given = DistributedDPFedAvg(noise="distributed_skellam", local_stddev=0.07, **RUN)
    assert given.local_stddev == 0.07


@pytest.mark.parametrize("noise", sorted(SECAGG))
def test_the_granularity_is_the_finest_within_the_wrap_around_target(noise):
    run = DistributedDPFedAvg(noise=noise, noise_multiplier=1.0, wrap_beta=1e-6, **RUN)

    def wraps(gamma):
        return wrap_probability(
            bits=16,
            clients=100,
            dimension=1000,
            clip_norm=1.0,
            granularity=gamma,
            local_sigma=run.local_stddev,
            noise="skellam" if noise == "distributed_skellam" else noise,
        )

    assert wraps(run.granularity) <= 1e-6 and run.wrap_probability == wraps(run.granularity)
    assert wraps(run.granularity * (1 - 1e-9)) > 1e-6  # finer wraps too often: it is the finest
    coarser = DistributedDPFedAvg(
        noise=noise, noise_multiplier=1.0, granularity=4 * run.granularity, **RUN
    )
    assert coarser.epsilon(1e-5) > run.epsilon(1e-5)  # a coarser grid rounds more: the bound grows


def test_the_server_gets_no_amplification_and_the_observer_does():
    sampled = DistributedDPFedAvg(
        noise="distributed_discrete_gaussian", sample_rate=0.01, noise_multiplier=1.0, **RUN
    )
    everyone = DistributedDPFedAvg(
        noise="distributed_discrete_gaussian",
        noise_multiplier=1.0,
        granularity=sampled.granularity,
        **RUN,
    )
    assert sampled.epsilon(1e-5) == everyone.epsilon(
        1e-5
    )  # the server picks the cohort: q changes nothing
    low, high = sampled.epsilon(1e-5, bound="both", against="observer")
    assert 0 < low <= high < everyone.epsilon(1e-5, bound="lower")
    assert everyone.epsilon(1e-5, against="observer") == everyone.epsilon(
        1e-5
    )  # q = 1: nothing to hide


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (dict(noise_multiplier=1.0, local_stddev=0.1), "exactly one of noise_multiplier"),
        (dict(), "exactly one of noise_multiplier"),
        (
            dict(noise_multiplier=1.0, min_surviving_clients=101),
            "min_surviving_clients must be <= clients_per_round",
        ),
        (
            dict(noise_multiplier=1.0, total_clients=10, sample_rate=0.1),
            "at most one of total_clients",
        ),
        (
            dict(noise_multiplier=1.0, total_clients=99),
            "total_clients must be >= clients_per_round",
        ),
        (dict(noise_multiplier=1.0, bits=6), "bits = 6 cannot keep the aggregate"),
        (dict(noise_multiplier=1.0, noise="gaussian"), "noise"),
        (dict(noise_multiplier=1e-6, bits=12), "use more bits, or a larger noise_multiplier"),
    ],
)
def test_refusals_name_the_argument_and_the_fix(change, words):
    arguments = {**RUN, "noise": "distributed_discrete_gaussian", **change}
    with pytest.raises(ValueError, match=words):
        DistributedDPFedAvg(**arguments)


def test_an_unknown_keyword_names_the_closest():
    with pytest.raises(TypeError, match="noise_multiplier"):
        DistributedDPFedAvg(noise="distributed_skellam", noise_multipler=1.0, **RUN)
