"""Where ``calibrate`` starts its search for the noise multiplier of a run of shuffled batches
(``training.epoch_noise_start``, the scheme's ``epoch_noise``)."""

from __future__ import annotations

import numpy as np

from ..numerics.hockey_stick import theta_radius
from ..pld.accountants import shuffled_radius


def shuffled_start(
    epsilon: np.ndarray, delta: np.ndarray, steps: np.ndarray, per_epoch: np.ndarray
) -> np.ndarray:
    """Shuffled batches' start: the exact noise of their upper side, the Gaussian of shift 2 per
    epoch begun (``pld.accountants.shuffled_radius``), 1 where it has none."""
    mu = np.asarray(theta_radius(np.asarray(epsilon, float), np.asarray(delta, float)), float)
    with np.errstate(divide="ignore", invalid="ignore"):
        guess = shuffled_radius(np.ceil(steps / per_epoch), mu)
    return np.where(np.isfinite(guess) & (guess > 0), guess, 1.0)
