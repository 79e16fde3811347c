"""f-DP and Gaussian DP accounting, and the last-iterate bounds of paper 004.

* ``GaussianDP(mu)``: delta(eps) = theta(mu, eps), epsilon(delta), mu_for(eps, delta), GDP -> RDP.
* ``GaussianTradeOff``, ``TradeOffFunction``, ``gaussian_tradeoff``: trade-off functions.
* ``interpolation_bound(rho, gamma)``: the shifted-interpolation engine (eq. 12-16) for any
  per-round factors; ``rounds_from_learning_rates`` turns any eta_{k,t} schedule into them.
* ``GaussianMechanism(sigma, sensitivity, rounds)``: the composed Gaussian mechanism, exactly
  mu-GDP with mu = sqrt(rounds) * sensitivity / sigma, its sides rounded outward.
* ``NoisyFedAvg`` (Theorem 12) and ``NoisyFedProx`` (Theorem 15): accountants over parameter grids.
  Their ``mu`` is always a valid bound.  The paper's "convergent" H0 values (``mu_paper_h0``) are
  false for constant and cyclic FedAvg rates and for FedProx (errata section 1).

See docs/paper-004-errata.md for every place the paper's printed formulas differ from what is
computed.
"""

from ..base.moved import renamed
from .fedavg import SCHEDULES, NoisyFedAvg, schedule_round_factors
from .fedprox import NoisyFedProx
from .gaussian_mechanism import GaussianMechanism
from .gdp import GaussianDP, compose_gdp, gdp_to_rdp
from .interpolation import (
    INTERPOLATIONS,
    InterpolationBound,
    constant_rate_h0,
    constant_rate_h0_limit,
    interpolation_bound,
    rounds_from_learning_rates,
)
from .tradeoff import GaussianTradeOff, TradeOffFunction, gaussian_tradeoff

__all__ = [
    "INTERPOLATIONS",
    "SCHEDULES",
    "GaussianDP",
    "GaussianMechanism",
    "GaussianTradeOff",
    "InterpolationBound",
    "NoisyFedAvg",
    "NoisyFedProx",
    "TradeOffFunction",
    "compose_gdp",
    "constant_rate_h0",
    "constant_rate_h0_limit",
    "gaussian_tradeoff",
    "gdp_to_rdp",
    "interpolation_bound",
    "rounds_from_learning_rates",
    "schedule_round_factors",
]

__getattr__ = renamed(__name__)  # BOUNDS, the interpolations' earlier name, deprecated
