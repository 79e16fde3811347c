"""Torch-free numba simulator of the noisy federated training runs the accountants describe.

Algorithms (each returns a :class:`RunResult`: loss and accuracy every k rounds beside the
privacy guarantee of its exact configuration):
    trusted_aggregator            paper 000 Algorithm 1 (batches without replacement, projection)
    pnsgd, pnsgd_final_iterates   paper 002 Algorithm 1 (Gaussian / Laplace, random stop)
    noisy_fedavg, noisy_fedprox   paper 004 (K local clipped steps, four learning-rate schedules)
    isrl_minibatch_sgd, isrl_local_sgd   paper 003 (ISRL-DP, M_r of N silos per round)
    parameter_distortion          paper 001 Algorithms 1-3 (Bayesian leakage, not DP: exact TV / JS)
Data: :func:`synthetic` (Dirichlet label skew, feature shift) or :func:`from_client_arrays`.
Empirical checks of the bounds: :mod:`hockeystick.simulate.empirical`.
"""

from .data import FederatedData, from_client_arrays, synthetic
from .distortion import DistortionRunResult, LeakageReport, parameter_distortion
from .evaluation import evaluate
from .fedavg import noisy_fedavg, noisy_fedprox
from .isrl import isrl_local_sgd, isrl_minibatch_sgd
from .pnsgd import pnsgd, pnsgd_final_iterates, pnsgd_guarantee
from .result import RunResult
from .trusted_aggregator import trusted_aggregator

__all__ = ["DistortionRunResult", "FederatedData", "LeakageReport", "RunResult", "evaluate", "from_client_arrays",
           "isrl_local_sgd", "isrl_minibatch_sgd", "noisy_fedavg", "noisy_fedprox", "parameter_distortion", "pnsgd",
           "pnsgd_final_iterates", "pnsgd_guarantee", "synthetic", "trusted_aggregator"]
