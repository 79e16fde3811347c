"""Torch-free numba simulator of the noisy federated training runs the accountants describe.

Algorithms (each returns a :class:`RunResult`: loss and accuracy every k rounds beside the
privacy guarantee of its exact configuration):
    trusted_aggregator            paper 000 Algorithm 1 (batches without replacement, projection)
    pnsgd, pnsgd_final_iterates   paper 002 Algorithm 1 (Gaussian / Laplace, random stop)
    noisy_fedavg, noisy_fedprox   paper 004 (K local clipped steps, four learning-rate schedules)
    isrl_minibatch_sgd, isrl_local_sgd   paper 003 (ISRL-DP, M_r of N silos per round)
    parameter_distortion          paper 001 Algorithms 1-3 (Bayesian leakage, not DP: exact TV / JS)
Data: :func:`synthetic` (Dirichlet label skew, feature shift), :func:`bundled` (scikit-learn's
bundled data sets split across clients, nothing downloaded) or :func:`from_client_arrays`.
Many configurations: :func:`simulate_sweep` (configurations x seeds, in-process, processes or Dask)
and :func:`frontier` (the best accuracy each epsilon budget buys).
Empirical checks of the bounds: :mod:`hockeystick.simulate.empirical`; paper 000 Corollary 1's utility
bound for the trusted aggregator: :func:`strongly_convex_excess_loss_bound`, :func:`least_squares_constants`.
"""

from ..base.optional import require_extra

require_extra("hockeystick.simulate", "numba", "pandas", extra="simulate")

from .data import FederatedData, from_client_arrays, synthetic
from .datasets import bundled
from .distortion import DistortionRunResult, LeakageReport, parameter_distortion
from .evaluation import evaluate
from .fedavg import noisy_fedavg, noisy_fedprox
from .frontier import frontier, mean_over_seeds
from .isrl import isrl_local_sgd, isrl_minibatch_sgd
from .pnsgd import pnsgd, pnsgd_final_iterates, pnsgd_guarantee
from .result import RunResult
from .sweep import simulate_sweep
from .trusted_aggregator import trusted_aggregator
from .utility_bound import least_squares_constants, strongly_convex_excess_loss_bound

__all__ = [
    "DistortionRunResult",
    "FederatedData",
    "LeakageReport",
    "RunResult",
    "bundled",
    "evaluate",
    "from_client_arrays",
    "frontier",
    "least_squares_constants",
    "isrl_local_sgd",
    "isrl_minibatch_sgd",
    "mean_over_seeds",
    "noisy_fedavg",
    "noisy_fedprox",
    "parameter_distortion",
    "pnsgd",
    "pnsgd_final_iterates",
    "pnsgd_guarantee",
    "simulate_sweep",
    "strongly_convex_excess_loss_bound",
    "synthetic",
    "trusted_aggregator",
]
