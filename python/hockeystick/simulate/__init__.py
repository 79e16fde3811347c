"""Torch-free numba simulator of the noisy federated training runs the accountants describe."""

from .data import FederatedData, from_client_arrays, synthetic
from .evaluation import evaluate
from .fedavg import noisy_fedavg, noisy_fedprox
from .result import RunResult

__all__ = ["FederatedData", "RunResult", "evaluate", "from_client_arrays", "noisy_fedavg",
           "noisy_fedprox", "synthetic"]
