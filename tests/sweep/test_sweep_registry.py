"""Every registered accountant through the sweep and calibration layers: the contract, end to end."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.calibrate import calibrate
from hockeystick.sweep import Grid, dataframe, registry

_TA = dict(
    n=6000, batch_size=100, sigma=2.0, learning_rate=0.5, lipschitz=1.0, radius=1.0, rounds=30
)
_FEDAVG = dict(
    clients=20, sigma=1.0, clip=10.0, lipschitz=1.0, learning_rate=0.01, local_steps=5, rounds=600
)
_PNSGD = dict(n=40, index=20, learning_rate=0.5, lipschitz=1.0, smoothness=0.5)

EXAMPLES = {
    "gaussian": dict(sigma=2.0, rounds=10),
    "gdp": dict(mu=1.0),
    "noisy_fedavg": _FEDAVG,
    "noisy_fedavg_cyclic": _FEDAVG,
    "noisy_fedavg_stagewise": _FEDAVG,
    "noisy_fedavg_continuous": _FEDAVG,
    "pnsgd_gaussian": dict(_PNSGD, sigma=2.0, diameter=1.0),
    "pnsgd_laplace": dict(_PNSGD, scale=2.0, diameter=1.0),
    "pnsgd_renyi_baseline": dict(_PNSGD, sigma=2.0),
    "rdp_subsampled_gaussian": dict(sigma=1.0, sampling_rate=0.01, rounds=1000),
    "pld_subsampled_gaussian": dict(
        sigma=1.0, sampling_rate=0.01, rounds=100, value_discretization_interval=1e-3
    ),
    "pld_fixed_batch_gaussian": dict(
        sigma=1.0, batch_size=10, n=1000, rounds=50, value_discretization_interval=1e-3
    ),
    "pld_with_replacement_gaussian": dict(
        sigma=1.0, batch_size=4, n=400, rounds=50, value_discretization_interval=5e-3
    ),
    "trusted_aggregator": _TA,
    "trusted_aggregator_nonconvex": _TA,
    "trusted_aggregator_random_stop": _TA,
    "trusted_aggregator_strongly_convex": dict(_TA, smoothness=1.0, strong_convexity=0.1),
    "dp_sgd": dict(
        noise_multiplier=1.0,
        dataset_size=1000,
        batch_size=10,
        epochs=1,
        value_discretization_interval=1e-3,
    ),
    "dp_fedavg": dict(
        noise_multiplier=1.0,
        total_clients=500,
        clients_per_round=10,
        rounds=50,
        value_discretization_interval=1e-3,
    ),
    "dp_sgd_fixed_size": dict(
        noise_multiplier=2.0,
        dataset_size=1000,
        batch_size=10,
        epochs=1,
        value_discretization_interval=1e-3,
    ),
    "dp_fedavg_fixed_size": dict(
        noise_multiplier=2.0,
        total_clients=500,
        clients_per_round=10,
        rounds=50,
        value_discretization_interval=1e-3,
    ),
    "dp_sgd_balls_in_bins": dict(
        noise_multiplier=2.0,
        dataset_size=1000,
        batch_size=10,
        epochs=1,
        value_discretization_interval=1e-3,
    ),
    "dp_fedavg_balls_in_bins": dict(
        noise_multiplier=2.0,
        total_clients=500,
        clients_per_round=10,
        rounds=50,
        value_discretization_interval=1e-3,
    ),
    "dp_sgd_shuffle": dict(
        noise_multiplier=2.0,
        dataset_size=1000,
        batch_size=10,
        epochs=1,
        value_discretization_interval=1e-3,
    ),
    "dp_fedavg_shuffle": dict(
        noise_multiplier=2.0,
        total_clients=500,
        clients_per_round=10,
        rounds=50,
        value_discretization_interval=1e-3,
    ),
    "isrl_noisy_mb_sgd": dict(
        sigma=1.0,
        lipschitz=1.0,
        batch_size=4,
        silo_size=400,
        rounds=50,
        value_discretization_interval=5e-3,
    ),
    "isrl_one_pass": dict(sigma=1.0, lipschitz=1.0, batch_size=10),
    "dp_ftrl_tree": dict(noise_multiplier=2.0, rounds=64, min_separation=8),
    "dp_ftrl_tree_restart": dict(
        noise_multiplier=2.0, rounds=64, min_separation=8, max_participations=4
    ),
    "isrl_group_noisy_mb_sgd": dict(
        sigma=1.0,
        lipschitz=1.0,
        batch_size=4,
        silo_size=400,
        group_size=4,
        rounds=50,
        value_discretization_interval=5e-3,
    ),
    "isrl_shuffled_noisy_mb_sgd": dict(
        sigma=3.0,
        lipschitz=1.0,
        batch_size=1,
        silo_size=1,
        silos=1000,
        rounds=5,
        value_discretization_interval=5e-3,
    ),
    "isrl_user_level": dict(sigma=4.0, lipschitz=1.0, rounds=10),
    "noisy_fedprox": dict(
        clients=20, sigma=1.0, clip=1.0, lipschitz=1.0, proximal=4.0, learning_rate=0.05, rounds=30
    ),
    "pnsgd_random_stop": dict(
        n=40, learning_rate=0.5, lipschitz=1.0, smoothness=0.5, sigma=2.0, diameter=1.0
    ),
    "trusted_aggregator_inverse_time": dict(
        n=6000,
        batch_size=100,
        sigma=2.0,
        strong_convexity=1.0,
        lipschitz=1.0,
        radius=1.0,
        rounds=30,
    ),
    "trusted_aggregator_schedule": _TA,
    "trusted_aggregator_random_stop_schedule": _TA,
    "record_level_fedavg": dict(
        noise_multiplier=1.0,
        client_sample_rate=0.05,
        local_steps=4,
        rounds=20,
        local_sample_rate=0.5,
        value_discretization_interval=1e-2,
    ),
    "random_checkins": dict(
        noise_multiplier=1.0,
        checkin_probability=0.5,
        slots=4,
        passes=5,
        value_discretization_interval=1e-2,
    ),
    **{
        name: dict(
            clip_norm=1.0,
            granularity=0.1,
            dimension=16,
            local_sigma=0.5,
            min_surviving_clients=8,
            rounds=5,
            **({"sampling_rate": 0.2} if name.endswith("_observer") else {}),
        )
        for name in (
            "distributed_discrete_gaussian",
            "distributed_discrete_gaussian_observer",
            "distributed_skellam",
            "distributed_skellam_observer",
        )
    },
    **{
        name: dict(
            clip_norm=1.0,
            granularity=0.25,
            dimension=1,
            scale=2.0,
            expected_clients=10,
            min_surviving_clients=6,
            rounds=5,
            # the round's PLD on a 1e-3 grid: the same reads at a quarter of the default 1e-4's cost
            value_discretization_interval=1e-3,
            **({"sampling_rate": 0.2} if name.endswith("_observer") else {}),
        )
        for name in ("distributed_discrete_laplace", "distributed_discrete_laplace_observer")
    },
    **{
        name: dict(
            trials=4,
            theta=0.1,
            min_surviving_clients=5,
            rounds=3,
            value_discretization_interval=1e-2,
            **({"sampling_rate": 0.2} if name.endswith("_observer") else {}),
        )
        for name in ("poisson_binomial", "poisson_binomial_observer")
    },
}


def test_every_registered_accountant_has_an_example():
    assert sorted(EXAMPLES) == registry.names()
    with pytest.raises(ValueError, match="already registered"):
        registry.register(registry.get("gaussian"))


# the two examples whose sweep and calibration take tens of seconds
SLOW_EXAMPLES = {"isrl_shuffled_noisy_mb_sgd", "pld_with_replacement_gaussian"}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=pytest.mark.slow if name in SLOW_EXAMPLES else ())
        for name in sorted(EXAMPLES)
    ],
)
def test_sweep_is_the_accountant_and_calibration_recovers_the_parameter(name):
    entry, params = registry.get(name), EXAMPLES[name]
    eps = np.array([0.25, 0.5, 1.0, 2.0, 4.0])
    example = entry.build(**params)  # built once: the sweep and calibration below build their own
    direct = np.asarray(example.delta(eps), dtype=float)
    swept = dataframe(Grid.from_parameters(name, "delta", dict(params, epsilon=eps)))[
        "delta"
    ].to_numpy()
    np.testing.assert_array_equal(swept, direct)
    # epsilon(delta) is the smallest eps whose bound is <= delta
    target = 1e-6
    eps_at = dataframe(Grid.from_parameters(name, "epsilon", dict(params, delta=target)))[
        "epsilon"
    ].iloc[0]
    assert example.delta(eps_at) <= target * (1 + 1e-9)
    # calibrating any parameter at the example's own (eps, delta(eps)) gives back (at least) the example value
    e = float(eps[np.argmax((direct > 1e-200) & (direct < 0.5))])
    d = float(example.delta(e))
    for parameter, spec in entry.calibratable.items():
        others = {k: v for k, v in params.items() if k != parameter}
        value = params.get(parameter, entry.defaults.get(parameter))
        if parameter == "sample_rate":  # the same run given by its rate: q = batch / population
            population, batch = (
                k
                for k in ("dataset_size", "batch_size", "total_clients", "clients_per_round")
                if k in params
            )
            value = params[batch] / params[population]
            others = {k: v for k, v in others.items() if k not in (population, batch, "epochs")}
            if "epochs" in params:  # the example's steps (epochs of 1 / q steps would move with q)
                others["steps"] = int(example.steps)
        got = calibrate(entry, parameter, epsilon=e, delta=d, **others)
        assert entry.build(**others, **{parameter: got}).delta(e) <= d
        # the answer is the feasible end of a bracket rtol (1e-10) wide around the crossing, which a
        # bound flat to 1e-10 in the parameter puts on either side of the example value
        if spec.direction == "decreasing":
            assert got <= value * (1 + 1e-9) and got == pytest.approx(value, rel=1e-6)
        elif spec.integer:
            assert got >= value
        else:
            assert got >= value * (1 - 1e-9) and got == pytest.approx(value, rel=1e-6)
