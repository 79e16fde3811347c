"""Renyi-DP baselines: the Gaussian and Poisson-subsampled Gaussian, composition, (eps, delta) conversion.

* ``gaussian_rdp``, ``subsampled_gaussian_rdp``: RDP curves at integer and fractional orders (log space).
* ``compose_rdp``: RDP adds over composition.
* ``rdp_to_epsilon`` / ``rdp_to_delta``: classic (Mironov 2017) or tight (Balle et al. 2020 /
  Canonne et al. 2020) conversion.
* ``SubsampledGaussianRDP``: the accountant (``delta``/``epsilon``), matching dp_accounting's RdpAccountant.
"""

from .accountant import SubsampledGaussianRDP, compose_rdp
from .conversion import CONVERSIONS, rdp_to_delta, rdp_to_epsilon
from .mechanisms import DEFAULT_ORDERS, MAX_ORDER, gaussian_rdp, subsampled_gaussian_rdp

__all__ = [
    "CONVERSIONS",
    "DEFAULT_ORDERS",
    "MAX_ORDER",
    "SubsampledGaussianRDP",
    "compose_rdp",
    "gaussian_rdp",
    "rdp_to_delta",
    "rdp_to_epsilon",
    "subsampled_gaussian_rdp",
]
