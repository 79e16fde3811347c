"""Renyi-DP baselines: the Gaussian and Poisson-subsampled Gaussian, composition, (eps, delta) conversion.

* ``gaussian_rdp``, ``subsampled_gaussian_rdp``: RDP curves at integer and fractional orders (log
  space).
* ``compose_rdp``: RDP adds over composition.
* ``poisson_subsampled_rdp``, ``poisson_subsampled_remove_rdp``: any mechanism's RDP curve run on a
  Poisson subsample, an upper bound (Zhu & Wang 2019's general bound, and convexity; the remove
  direction alone; ``poisson_subsampled``).
* ``rdp_to_epsilon`` / ``rdp_to_delta``: classic (Mironov 2017) or tight (Balle et al. 2020 /
  Canonne et al. 2020) conversion.
* ``zcdp_to_epsilon`` / ``zcdp_to_delta``: (xi, rho)-zCDP to (eps, delta), certified upper bounds at
  the near-optimal order (``zcdp``; Canonne, Kamath, Steinke 2020, Prop. 12).
* ``SubsampledGaussianRDP``: the accountant (``delta``/``epsilon``), matching dp_accounting's
  RdpAccountant.
* Modules for the rest of dp_accounting's RDP events
  (``interop.dp_accounting.HockeystickRdpAccountant`` composes them): ``laplace``,
  ``sampled_without_replacement``, ``randomized_response``, ``repeat_and_select`` and
  ``tree_aggregation``; for the selection events, ``pure_dp`` (any epsilon-DP mechanism,
  permute-and-flip) and ``bounded_range`` (the exponential mechanism), rounded upward.

Constants:

* ``DEFAULT_ORDERS``: the orders used when ``orders=None``, a tuple of 156 floats, 1.1 to 10.9 in
  steps of 0.1, 11 to 63, then 128, 256, 512 and 1024: dp_accounting's ``DEFAULT_RDP_ORDERS``, so
  the two accountants agree order by order (``np.asarray(DEFAULT_ORDERS)`` for array arithmetic).
* ``MAX_ORDER``: the largest order accepted (10^4; the integer series costs alpha terms).
* ``CONVERSIONS``: the RDP to (eps, delta) conversions, "tight" (Balle et al. 2020, Thm. 21) and
  "classic" (Mironov 2017, Prop. 3).
"""

from .accountant import SubsampledGaussianRDP, compose_rdp
from .conversion import CONVERSIONS, rdp_to_delta, rdp_to_epsilon
from .mechanisms import DEFAULT_ORDERS, MAX_ORDER, gaussian_rdp, subsampled_gaussian_rdp
from .poisson_subsampled import poisson_subsampled_rdp, poisson_subsampled_remove_rdp
from .zcdp import zcdp_to_delta, zcdp_to_epsilon

__all__ = [
    "CONVERSIONS",
    "DEFAULT_ORDERS",
    "MAX_ORDER",
    "SubsampledGaussianRDP",
    "compose_rdp",
    "gaussian_rdp",
    "poisson_subsampled_rdp",
    "poisson_subsampled_remove_rdp",
    "rdp_to_delta",
    "rdp_to_epsilon",
    "subsampled_gaussian_rdp",
    "zcdp_to_delta",
    "zcdp_to_epsilon",
]
