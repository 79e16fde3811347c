"""Clipped gradients of many clients at one common model, in parallel (numba prange).

Used by the algorithms whose clients send gradients rather than models: the trusted aggregator
(paper 000) and ISRL-DP minibatch SGD (paper 003).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .models import local_gradient


@njit(parallel=True, cache=True)
def client_gradients(
    model, n_coef, w, features, norms, labels, offsets, clients, uniforms, clip, out
):
    """out[j] = clipped minibatch gradient of client clients[j] at w; uniforms[j] picks its
    minibatch (an empty row = its full local batch). The clients' Gaussian noise is added by the
    caller through its mean (sigma/sqrt(m) times one standard normal vector, the same
    distribution)."""
    for j in prange(clients.shape[0]):
        c = clients[j]
        local_gradient(
            model,
            w,
            features,
            norms,
            labels,
            offsets[c],
            offsets[c + 1],
            uniforms[j],
            np.empty(max(uniforms.shape[1], 1), dtype=np.int64),
            clip,
            np.empty(n_coef),
            out[j],
        )


def project_to_ball(w: np.ndarray, radius: float) -> np.ndarray:
    """Euclidean projection onto the ball of the given radius around 0 (in place; inf = no-op)."""
    if math.isfinite(radius):
        norm = float(np.sqrt(np.dot(w, w)))
        if norm > radius:
            w *= radius / norm
    return w
