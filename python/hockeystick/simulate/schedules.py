"""Local learning-rate schedules eta[t, k] of paper 004 (Table 1 / Theorem 12), t = round, k = local step.

constant     eta = a
cyclic       eta = a / (k + 1)          (restarts every round)
stagewise    eta = a / (t + 1)
continuous   eta = a / (t K + k + 1)
"""

from __future__ import annotations

from typing import Literal

import numpy as np

# paper 004's schedules, the words of fdp.fedavg.Schedule (simulate imports no accountant family at
# run time; tests/simulate/test_simulate_schedules_vocabulary.py holds the two equal)
Schedule = Literal["constant", "cyclic", "stagewise", "continuous"]
SCHEDULES: tuple[Schedule, ...] = ("constant", "cyclic", "stagewise", "continuous")


def learning_rates(schedule: Schedule, rate: float, rounds: int, local_steps: int) -> np.ndarray:
    """The (rounds, local_steps) array of step sizes of ``schedule`` with base rate ``rate``."""
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}")
    if not rate > 0 or not np.isfinite(rate):
        raise ValueError("rate must be finite and > 0")
    if rounds < 1 or local_steps < 1:
        raise ValueError("rounds and local_steps must be >= 1")
    t = np.arange(rounds, dtype=float)[:, None]
    k = np.arange(local_steps, dtype=float)[None, :]
    if schedule == "constant":
        return np.full((rounds, local_steps), float(rate))
    if schedule == "cyclic":
        return np.broadcast_to(rate / (k + 1.0), (rounds, local_steps)).copy()
    if schedule == "stagewise":
        return np.broadcast_to(rate / (t + 1.0), (rounds, local_steps)).copy()
    return rate / (t * local_steps + k + 1.0)
