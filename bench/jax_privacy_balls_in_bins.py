"""jax_privacy's Monte Carlo of the balls-in-bins dominating pair, run in a venv where jax_privacy is installed.

``python bench/jax_privacy_balls_in_bins.py ROUNDS BINS NOISE C0,C1,... EPS1,EPS2,... DRAWS SEED`` draws
privacy losses from both sides of the pair (jax_privacy.experimental.monte_carlo.sample_generation.
get_privacy_loss_sample, positive_sample True and False) and prints one JSON object: for each side and epsilon
the mean of (1 - e^(eps - loss))_+ (``delta_calculation.delta_from_epsilon_and_samples``) and its standard
error, and the CPU seconds of the draws.  It imports no hockeystick: bench/bench_balls_in_bins.py runs it in
jax_privacy's own venv and sets our figures beside its output.
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np
from jax_privacy import batch_selection
from jax_privacy.experimental.monte_carlo import delta_calculation, sample_generation


def main(argv: list[str]) -> None:
    rounds, bins, noise = int(argv[0]), int(argv[1]), float(argv[2])
    column = np.array([float(x) for x in argv[3].split(",")])
    epsilons = [float(x) for x in argv[4].split(",")]
    draws, seed = int(argv[5]), int(argv[6])
    strategy = batch_selection.BallsInBinsSampling(iterations=rounds, cycle_length=bins)
    out: dict[str, object] = {"draws": draws, "seed": seed}
    cpu = time.process_time()
    for side, positive in (("remove", True), ("add", False)):
        losses, _ = sample_generation.get_privacy_loss_sample(
            strategy,
            noise,
            column,
            seed=seed + (0 if positive else 1),
            positive_sample=positive,
            num_samples=draws,
        )
        losses = np.asarray(losses)
        readings = []
        for eps in epsilons:
            values = -np.expm1(np.minimum(eps - losses, 0.0))
            mean = float(delta_calculation.delta_from_epsilon_and_samples(eps, losses))
            readings.append(
                {
                    "epsilon": eps,
                    "mean": mean,
                    "standard_error": float(values.std(ddof=1) / np.sqrt(draws)),
                }
            )
        out[side] = readings
    out["cpu_seconds"] = time.process_time() - cpu
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
