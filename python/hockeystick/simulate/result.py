"""What a simulated run returns: utility (loss, accuracy every k rounds) beside its privacy."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..base.outward_text import outward_text
from .privacy import Guarantee


@dataclass
class RunResult:
    """One training run: its final weights, its metrics every few rounds and its privacy guarantees.

    Each guarantee covers the run's exact configuration and is an accountant (``.delta(eps)``,
    ``.epsilon(delta)``); the properties ``final_loss`` and ``final_accuracy`` are the last entries
    of ``loss`` and ``accuracy``.

    Parameters
    ----------
    algorithm : str
        The algorithm's name (``"trusted_aggregator"``, ``"noisy_fedavg"``, ...).
    config : dict of str to Any
        The run's configuration (its keyword arguments and derived values such as the round count).
    weights : numpy.ndarray
        The released parameter vector, shape (p,): p = d, or C d for softmax.
    metric_rounds : numpy.ndarray
        The rounds (or steps) at which the metrics were taken, increasing, the last one the release.
    loss : numpy.ndarray
        Mean training loss at each of ``metric_rounds``.
    accuracy : numpy.ndarray
        Training accuracy in [0, 1] at each of ``metric_rounds`` (nan for linear regression).
    privacy : list of Guarantee
        The privacy guarantees of the configuration, each named, with its source and whether it is
        proven; empty when the algorithm reports none for the configuration (e.g. without noise).
    test_loss, test_accuracy : numpy.ndarray or None
        The same metrics on the held-out data, when a test set was given.
    trajectory : numpy.ndarray or None
        Every iterate, shape (rounds + 1, p), when asked for.
    """

    algorithm: str
    config: dict[str, Any]
    weights: np.ndarray
    metric_rounds: np.ndarray
    loss: np.ndarray
    accuracy: np.ndarray
    privacy: list[Guarantee] = field(default_factory=list)
    test_loss: np.ndarray | None = None
    test_accuracy: np.ndarray | None = None
    trajectory: np.ndarray | None = None  # (rounds + 1, p), only when asked for

    @property
    def final_loss(self) -> float:
        return float(self.loss[-1])

    @property
    def final_accuracy(self) -> float:
        return float(self.accuracy[-1])

    def epsilons(self, delta: float) -> dict[str, float]:
        """Epsilon at ``delta`` of every guarantee, by name.

        Parameters
        ----------
        delta : float
            The target delta, in [0, 1].

        Returns
        -------
        dict of str to float
            Each guarantee's name mapped to its epsilon at ``delta``.
        """
        return {g.name: float(g.epsilon(delta)) for g in self.privacy}

    def best_epsilon(self, delta: float) -> float:
        """The smallest epsilon at ``delta`` among the proven guarantees.

        Parameters
        ----------
        delta : float
            The target delta, in [0, 1].

        Returns
        -------
        float
            The least epsilon among the guarantees whose ``proven`` is true; inf if there is none.
        """
        proven = [float(g.epsilon(delta)) for g in self.privacy if g.proven]
        return min(proven, default=float("inf"))

    def summary(self, delta: float = 1e-5) -> str:
        """Human-readable lines: final loss and accuracy, and every guarantee's epsilon at ``delta``.

        Parameters
        ----------
        delta : float, default 1e-5
            The delta at which each guarantee's epsilon is printed.

        Returns
        -------
        str
            One line for the training metrics, one for the test metrics when present, one per
            guarantee (tagged "proven" or "paper claim").
        """
        lines = [
            f"{self.algorithm}: loss {self.final_loss:.6g}, accuracy {self.final_accuracy:.4g}"
        ]
        if self.test_loss is not None and self.test_accuracy is not None:
            lines.append(
                f"  test: loss {float(self.test_loss[-1]):.6g}, accuracy {float(self.test_accuracy[-1]):.4g}"
            )
        for g in self.privacy:
            tag = "proven" if g.proven else "paper claim"
            # an upper bound, proven or claimed: rounded up
            epsilon = outward_text(float(g.epsilon(delta)), "upper")
            lines.append(f"  ({epsilon}, {delta:g})-DP  [{tag}] {g.name}; {g.source}")
        return "\n".join(lines)
