"""The README's Python examples as a user script: ``mypy --strict`` must accept it (tests/test_typing.py)."""

from __future__ import annotations

import numpy as np

import hockeystick as hs
from hockeystick.accountant import Accountant
from hockeystick.calibrate import calibrate
from hockeystick.contraction import TrustedAggregator
from hockeystick.fdp import GaussianDP, NoisyFedAvg
from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.rdp import SubsampledGaussianRDP

# the numerics: scalars in, floats out; arrays in, arrays out
delta: float = hs.theta(1.0, 1.0)
log_delta: float = hs.log_theta(1e-6, 1.414e-3)
epsilon: float = hs.theta_epsilon(1.0, 1e-5)
radius: float = hs.theta_radius(1.0, 1e-5)
tails: np.ndarray = hs.gaussian_tail([0, 10, 37])
curve: np.ndarray = hs.theta(np.linspace(0.1, 3.0, 30), 1.0)

# the accountants
trusted = TrustedAggregator(n=60000, batch_size=np.array([100, 1000]), sigma=1.0,
                            learning_rate=0.5, lipschitz=1.0, radius=1.0).epsilon(1e-5)
bracket = SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=100).epsilon(1e-5, bound="both")
mu = NoisyFedAvg(clients=20, sigma=1.0, clip=10.0, lipschitz=1.0, learning_rate=0.01,
                 local_steps=5, rounds=600).mu
rdp_epsilon = SubsampledGaussianRDP(sigma=1.0, sampling_rate=0.01, rounds=100).epsilon(1e-5)
gdp_delta = GaussianDP(1.0).delta(1.0, bound="upper")
# every accountant satisfies the contract statically too
accountants: list[Accountant] = [
    TrustedAggregator(n=60000, batch_size=100, sigma=1.0, learning_rate=0.5, lipschitz=1.0, radius=1.0),
    SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=100),
    SubsampledGaussianRDP(sigma=1.0, sampling_rate=0.01, rounds=100),
    NoisyFedAvg(clients=20, sigma=1.0, clip=10.0, lipschitz=1.0, learning_rate=0.01, local_steps=5, rounds=600),
    GaussianDP(1.0),
]
best = min(float(a.epsilon(1e-5)) for a in accountants)
sigma_needed = calibrate("gaussian", "sigma", epsilon=1.0, delta=1e-5, rounds=[10, 100])

print(delta, log_delta, epsilon, radius, tails, curve.shape, trusted, bracket, mu, rdp_epsilon, gdp_delta,
      sigma_needed, best)
