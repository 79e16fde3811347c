"""Contraction accountants for hidden-state training (papers 000 and 002).

When only the final model is released, privacy follows from products of
contraction coefficients theta_eps(r) over the rounds.  Every class takes the
papers' parameters as keywords (numpy arrays broadcast with each other and with
the argument) and gives

    .delta(epsilon)  the theorem's delta (an upper bound), vectorized
    .epsilon(delta)  the smallest epsilon >= 0 whose delta is <= the given one

Paper 000 (FL with a trusted aggregator, Algorithm 1):
    TrustedAggregator                       Thm 2, constant schedule (convex, eta <= 2/beta)
    NonconvexTrustedAggregator              Thm 2 with diameter 2(rho + eta L)
    StronglyConvexTrustedAggregator         Thm 2 with diameter 2 rho M
    TrustedAggregatorSchedule               Thm 2, per-round eta_t, sigma_t (O(T))
    InverseTimeRateTrustedAggregator        Corollary 1, eta_t = 1/(lambda t)
    RandomStopTrustedAggregator             Corollary 3 / eq. 12 and alpha-suffix, constant schedule
    RandomStopTrustedAggregatorSchedule     Corollary 3 double sum, per-round schedule (O(T))
Paper 002 (projected noisy SGD, i-th record):
    PNSGDLaplace                            Thm 3
    PNSGDGaussian                           Thm 4
    PNSGDRandomStop                         Thm 5
    PNSGDRenyiBaseline                      Proposition 1 (Balle et al. 2019's RDP bound, converted)
"""

from .baseline import PNSGDRenyiBaseline
from .pnsgd import PNSGDGaussian, PNSGDLaplace, PNSGDRandomStop
from .random_stop import RandomStopTrustedAggregator, RandomStopTrustedAggregatorSchedule
from .schedule import InverseTimeRateTrustedAggregator, TrustedAggregatorSchedule
from .trusted_aggregator import (
    NonconvexTrustedAggregator,
    StronglyConvexTrustedAggregator,
    TrustedAggregator,
)

__all__ = [
    "InverseTimeRateTrustedAggregator",
    "NonconvexTrustedAggregator",
    "PNSGDGaussian",
    "PNSGDLaplace",
    "PNSGDRandomStop",
    "PNSGDRenyiBaseline",
    "RandomStopTrustedAggregator",
    "RandomStopTrustedAggregatorSchedule",
    "StronglyConvexTrustedAggregator",
    "TrustedAggregator",
    "TrustedAggregatorSchedule",
]
