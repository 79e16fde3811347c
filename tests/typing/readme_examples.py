"""README.md's Python examples (and docs/accountants.md's) as a user script: ``mypy --strict`` must
accept it and it must run (tests/test_typing.py). tests/test_docs_examples.py checks the values the
pages state; this file checks that the same calls type-check as a user would write them."""

from __future__ import annotations

import dp_accounting
import numpy as np

import hockeystick as hs
from hockeystick.base.accountant import Accountant
from hockeystick.calibrate import calibrate
from hockeystick.contraction import TrustedAggregator
from hockeystick.fdp import GaussianDP, NoisyFedAvg
from hockeystick.interop.dp_accounting import HockeystickPLDAccountant as PLDAccountant
from hockeystick.interop.opacus import HockeystickOpacusAccountant
from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.rdp import SubsampledGaussianRDP
from hockeystick.training import DPSGD, DPFedAvg

# README: how private is my training run?
run = DPSGD(dataset_size=60_000, batch_size=256, epochs=60, noise_multiplier=1.1)
upper = run.epsilon(1e-5)
sgd_bracket = run.epsilon(1e-5, bound="both")
noise = calibrate(
    "dp_sgd",
    "noise_multiplier",
    epsilon=3,
    delta=1e-5,
    dataset_size=60_000,
    batch_size=256,
    epochs=60,
)
epochs = calibrate(
    "dp_sgd",
    "epochs",
    epsilon=3,
    delta=1e-5,
    dataset_size=60_000,
    batch_size=256,
    noise_multiplier=1.1,
)

# README: DP-FedAvg
fedavg = DPFedAvg(
    total_clients=3400, clients_per_round=100, rounds=1000, noise_multiplier=1.0
).epsilon(1e-5)

# README: a sweep (arrays in, arrays out)
grid = SubsampledGaussianPLD(
    sigma=np.array([0.8, 1.0, 1.5])[:, None], sampling_rate=0.01, rounds=[100, 1000, 10_000]
)
grid_epsilon = grid.epsilon(1e-5)
sigma_needed = calibrate(
    "pld_subsampled_gaussian",
    "sigma",
    epsilon=1,
    delta=1e-5,
    sampling_rate=0.01,
    rounds=[100, 1000, 10_000],
)

# README: coming from dp_accounting
acc = PLDAccountant()
acc.compose(
    dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(1.0)), 100
    )
)
adapter_upper: float = acc.get_epsilon(1e-5)
adapter_bracket: tuple[float, float] = acc.get_epsilon_bracket(1e-5)

# README: coming from Opacus (without Opacus installed the class works on its own)
accountant = HockeystickOpacusAccountant()
for _ in range(100):
    accountant.step(noise_multiplier=1.1, sample_rate=256 / 60_000)
opacus_epsilon: float = accountant.get_epsilon(delta=1e-5)

# docs/accountants.md: the numerics, scalars in, floats out; arrays in, arrays out
delta: float = hs.theta(1.0, 1.0)
log_delta: float = hs.log_theta(1e-6, 1.414e-3)
epsilon: float = hs.theta_epsilon(1.0, 1e-5)
radius: float = hs.theta_radius(1.0, 1e-5)
tails: np.ndarray = hs.gaussian_tail([0, 10, 37])
curve: np.ndarray = hs.theta(np.linspace(0.1, 3.0, 30), 1.0)

# docs/accountants.md: the accountants, each satisfying the contract statically too
trusted = TrustedAggregator(
    n=60000,
    batch_size=np.array([100, 1000]),
    sigma=1.0,
    learning_rate=0.5,
    lipschitz=1.0,
    radius=1.0,
).epsilon(1e-5)
bracket = SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=100).epsilon(
    1e-5, bound="both"
)
mu = NoisyFedAvg(
    clients=20, sigma=1.0, clip=10.0, lipschitz=1.0, learning_rate=0.01, local_steps=5, rounds=600
).mu
rdp_epsilon = SubsampledGaussianRDP(sigma=1.0, sampling_rate=0.01, rounds=100).epsilon(1e-5)
gdp_delta = GaussianDP(1.0).delta(1.0, bound="upper")
accountants: list[Accountant] = [
    TrustedAggregator(
        n=60000, batch_size=100, sigma=1.0, learning_rate=0.5, lipschitz=1.0, radius=1.0
    ),
    SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=100),
    SubsampledGaussianRDP(sigma=1.0, sampling_rate=0.01, rounds=100),
    NoisyFedAvg(
        clients=20,
        sigma=1.0,
        clip=10.0,
        lipschitz=1.0,
        learning_rate=0.01,
        local_steps=5,
        rounds=600,
    ),
    GaussianDP(1.0),
]
best = min(float(a.epsilon(1e-5)) for a in accountants)

print(
    upper,
    sgd_bracket,
    noise,
    epochs,
    fedavg,
    grid_epsilon,
    sigma_needed,
    adapter_upper,
    adapter_bracket,
    opacus_epsilon,
    delta,
    log_delta,
    epsilon,
    radius,
    tails,
    curve.shape,
    trusted,
    bracket,
    mu,
    rdp_epsilon,
    gdp_delta,
    best,
)
