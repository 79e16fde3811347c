"""The round loop every simulated algorithm shares: metrics every k rounds, optional trajectory,
a tqdm progress bar updated once per chunk of rounds (never per round on long runs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypedDict

import numpy as np
from tqdm.auto import tqdm

from .data import FederatedData
from .evaluation import evaluate


class RoundsOutput(TypedDict):
    """What ``run_rounds`` records: the final model, the metrics at ``metric_rounds``, the optional parts."""

    weights: np.ndarray
    metric_rounds: np.ndarray
    trajectory: np.ndarray | None
    loss: np.ndarray
    accuracy: np.ndarray
    test_loss: np.ndarray | None
    test_accuracy: np.ndarray | None


def run_rounds(
    rounds: int,
    step: Callable[[int], np.ndarray],
    initial: np.ndarray,
    data: FederatedData,
    *,
    test: FederatedData | None,
    every: int,
    trajectory: bool,
    progress: bool,
    description: str,
) -> RoundsOutput:
    """Call ``step(t)`` for t = 0..rounds-1 (it returns the model after round t) and record
    metrics at round 0, every ``every`` rounds and at the end."""
    if every < 1:
        raise ValueError("every must be >= 1")
    marked = set(range(0, rounds + 1, every)) | {rounds}
    marks = sorted(marked)
    records: dict[str, list] = {"loss": [], "accuracy": [], "test_loss": [], "test_accuracy": []}

    def record(w: np.ndarray) -> None:
        loss, acc = evaluate(data, w)
        records["loss"].append(loss)
        records["accuracy"].append(acc)
        if test is not None:
            tl, ta = evaluate(test, w)
            records["test_loss"].append(tl)
            records["test_accuracy"].append(ta)

    path = np.empty((rounds + 1, initial.shape[0])) if trajectory else None
    w = initial.copy()
    record(w)
    if path is not None:
        path[0] = w
    chunk = max(1, rounds // 100)
    with tqdm(total=rounds, desc=description, disable=not progress, mininterval=0.5) as bar:
        for t in range(rounds):
            w = step(t)
            if path is not None:
                path[t + 1] = w
            if (t + 1) in marked:
                record(w)
            if (t + 1) % chunk == 0 or t + 1 == rounds:
                bar.update((t + 1) - bar.n)
    out: RoundsOutput = {
        "weights": w.copy(),
        "metric_rounds": np.array(marks),
        "trajectory": path,
        "loss": np.array(records["loss"]),
        "accuracy": np.array(records["accuracy"]),
        "test_loss": np.array(records["test_loss"]) if test is not None else None,
        "test_accuracy": np.array(records["test_accuracy"]) if test is not None else None,
    }
    return out
