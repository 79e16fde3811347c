"""The Poisson-binomial mechanism in DP-FedAvg's words: the accountant's numbers, its decoded scale and its
wrap-around bound against a simulation of the cohort."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick.secagg import PoissonBinomialMechanism
from hockeystick.training import DistributedDPFedAvg

RUN = dict(
    noise="poisson_binomial",
    clip_norm=1.0,
    dimension=1,
    clients_per_round=20,
    min_surviving_clients=20,
)


def test_the_run_in_fedavg_words_is_the_accountants():
    run = DistributedDPFedAvg(bits=12, total_clients=400, rounds=6, trials=8, theta=0.1, **RUN)
    direct = PoissonBinomialMechanism(
        trials=8, theta=0.1, min_surviving_clients=20, rounds=6, sampling_rate=0.05
    )
    assert run.guarantees(1e-5) == {
        who: direct.epsilon(1e-5, bound="both", against=who) for who in ("server", "observer")
    }
    assert run.granularity == pytest.approx(1.0 / 0.8) and run.local_stddev == pytest.approx(
        1.0 / (0.2 * math.sqrt(8))
    )


def test_the_wrap_bound_is_above_a_simulated_cohort():
    # 4 bits hold sums up to 15: with 3 draws a client, cohorts of more than 5 clients may wrap
    run = DistributedDPFedAvg(
        bits=4,
        total_clients=400,
        rounds=1,
        trials=3,
        theta=0.1,
        **{**RUN, "clients_per_round": 2, "min_surviving_clients": 1},
    )
    cohorts = np.random.default_rng(96).binomial(400, 2 / 400, size=400_000)
    simulated = float(np.mean(cohorts * 3 > 15))
    assert 1e-4 < simulated <= run.wrap_probability < 10 * simulated


@pytest.mark.parametrize(
    ("extra", "message"),
    [(dict(noise_multiplier=1.0), "adds no noise"), (dict(theta=None), "takes trials")],
)
def test_the_mechanisms_words_are_checked(extra, message):
    with pytest.raises(ValueError, match=message):
        DistributedDPFedAvg(bits=12, rounds=2, **{**dict(trials=8, theta=0.1), **RUN, **extra})
