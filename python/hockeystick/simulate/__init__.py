"""Torch-free numba simulator of the noisy federated training runs the accountants describe.

Each algorithm returns a :class:`RunResult`: its final weights, loss and accuracy every few rounds,
and the privacy guarantees of its exact configuration.

- :func:`trusted_aggregator`: paper 000 Algorithm 1 (batches without replacement, projection).
- :func:`pnsgd`, :func:`pnsgd_final_iterates`, :func:`pnsgd_guarantee`: paper 002 Algorithm 1
  (Gaussian or Laplace noise, random stop).
- :func:`noisy_fedavg`, :func:`noisy_fedprox`: paper 004 (K local clipped steps, four learning-rate
  schedules).
- :func:`isrl_minibatch_sgd`, :func:`isrl_local_sgd`: paper 003 (ISRL-DP, M of N silos per round).
- :func:`parameter_distortion`: paper 001 Algorithms 1-3 (Bayesian leakage, not DP: exact TV and
  JS).

Data: :func:`synthetic` (Dirichlet label skew, feature shift), :func:`bundled` (scikit-learn's
bundled data sets split across clients, nothing downloaded) or :func:`from_client_arrays`;
:func:`evaluate` gives a parameter vector's mean loss and accuracy on them.

Many configurations: :func:`simulate_sweep` (configurations x seeds, in-process, processes or Dask),
:func:`mean_over_seeds` and :func:`frontier` (the best accuracy each epsilon budget buys).

Paper 000 Corollary 1's utility bound for the trusted aggregator:
:func:`strongly_convex_excess_loss_bound`, :func:`least_squares_constants`. Monte-Carlo checks of
the bounds are in the submodule ``hockeystick.simulate.empirical``.

The extra ``simulate`` (numba, pandas) is required: importing the namespace without it raises an
ImportError naming the extra.
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
