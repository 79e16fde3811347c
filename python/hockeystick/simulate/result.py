"""What a simulated run returns: utility (loss, accuracy every k rounds) beside its privacy."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .privacy import Guarantee


@dataclass
class RunResult:
    """One training run: final weights, metrics at ``metric_rounds``, and the privacy guarantees
    of its exact configuration (each an accountant: ``.delta(eps)``, ``.epsilon(delta)``)."""

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
        """epsilon at ``delta`` of every guarantee, by name."""
        return {g.name: float(g.epsilon(delta)) for g in self.privacy}

    def best_epsilon(self, delta: float) -> float:
        """The smallest epsilon at ``delta`` among the *proven* guarantees (inf if none)."""
        proven = [float(g.epsilon(delta)) for g in self.privacy if g.proven]
        return min(proven, default=float("inf"))

    def summary(self, delta: float = 1e-5) -> str:
        """Human-readable (loss, accuracy, epsilon at delta) lines."""
        lines = [f"{self.algorithm}: loss {self.final_loss:.6g}, accuracy {self.final_accuracy:.4g}"]
        if self.test_loss is not None and self.test_accuracy is not None:
            lines.append(f"  test: loss {float(self.test_loss[-1]):.6g}, accuracy {float(self.test_accuracy[-1]):.4g}")
        for g in self.privacy:
            tag = "proven" if g.proven else "paper claim"
            lines.append(f"  ({g.epsilon(delta):.6g}, {delta:g})-DP  [{tag}] {g.name}; {g.source}")
        return "\n".join(lines)
