"""Secure aggregation with distributed discrete noise: the distributed discrete Gaussian, Skellam
and discrete Laplace mechanisms, and the Poisson-binomial mechanism.

Each client clips its update, scales it to an integer grid, rotates and rounds it, adds discrete
noise of its own, and the server learns only the sum modulo 2^b (docs/secure-aggregation.md).

sensitivity.py                      clip, scale, rotate, round: the integer L2 and L1 bounds (KLS21)
modular_wrap.py                     the modulus: the wrap-around's probability and the bits for a stated beta
distributed_discrete_gaussian.py    the distributed discrete Gaussian's RDP bound (KLS21, Prop. 14)
skellam.py                          the distributed Skellam mechanism's RDP bound (Agarwal, Kairouz & Liu 2021)
lattice_pld.py                      the lower side: the exact lattice pair of one realizable integer shift
observer_shares.py                  against an observer, each sampled client adding its own noise share
poisson_binomial.py                 the Poisson-binomial mechanism's dominating and realized pairs (Chen et al. 2022)
distributed_discrete_laplace.py     negative-binomial shares: GDL masses, Harrison's pure eps (Theorem 1)
pair_accountants.py                 those two mechanisms over T rounds: a PLD on each side
pair_calibration.py                 their calibration: theta, or the discrete Laplace's scale
observer_spread.py                  the observer's lower side over every coordinate: the others' spread tells the count
observer_participations.py          the observer's upper side read by the number of rounds the client takes part in
accountants.py                      the accountants: RDP upper side, lattice PLD lower side, over T rounds
calibration.py                      from (eps, delta) to the local noise and the granularity, with the error
"""

from .accountants import DistributedDiscreteGaussian, DistributedSkellam
from .calibration import SecureAggregationCalibration, calibrate_secure_aggregation
from .distributed_discrete_gaussian import distributed_discrete_gaussian_rdp
from .modular_wrap import bits_for, wrap_probability
from .pair_accountants import DistributedDiscreteLaplace, PoissonBinomialMechanism
from .pair_calibration import (
    DiscreteLaplaceCalibration,
    PoissonBinomialCalibration,
    calibrate_distributed_discrete_laplace,
    calibrate_poisson_binomial,
)
from .sensitivity import (
    IntegerSensitivity,
    integer_l1_bound,
    integer_sensitivity,
    rounded_l2_norm_bound,
)
from .skellam import skellam_rdp

__all__ = [
    "DiscreteLaplaceCalibration",
    "DistributedDiscreteGaussian",
    "DistributedDiscreteLaplace",
    "DistributedSkellam",
    "IntegerSensitivity",
    "PoissonBinomialCalibration",
    "PoissonBinomialMechanism",
    "SecureAggregationCalibration",
    "bits_for",
    "calibrate_distributed_discrete_laplace",
    "calibrate_poisson_binomial",
    "calibrate_secure_aggregation",
    "distributed_discrete_gaussian_rdp",
    "integer_l1_bound",
    "integer_sensitivity",
    "rounded_l2_norm_bound",
    "skellam_rdp",
    "wrap_probability",
]
