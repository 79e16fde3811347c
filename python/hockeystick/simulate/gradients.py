"""Clipped gradients of many clients at one common model, in parallel (numba prange), or in the
calling thread where the work is small (``kernel_size``).

Used by the algorithms whose clients send gradients rather than models: the trusted aggregator
(paper 000) and ISRL-DP minibatch SGD (paper 003).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .kernel_size import runs_serially
from .models import local_gradient


def client_gradients(
    model: int,
    n_coef: int,
    w: np.ndarray,
    features: np.ndarray,
    norms: np.ndarray,
    labels: np.ndarray,
    offsets: np.ndarray,
    clients: np.ndarray,
    uniforms: np.ndarray,
    clip: float,
    out: np.ndarray,
) -> None:
    """out[j] = clipped minibatch gradient of client clients[j] at w; uniforms[j] picks its
    minibatch (an empty row = its full local batch), on numba's threads or, for little work, in the
    calling thread (``kernel_size``; the same results). The clients' Gaussian noise is added by the
    caller through its mean (sigma/sqrt(m) times one standard normal vector, the same
    distribution).

    Parameters
    ----------
    model : int
        The model's code (``models.model_code``).
    n_coef : int
        Its coefficients per sample (``models.coefficient_count``).
    w : numpy.ndarray
        The common parameter vector.
    features, norms, labels, offsets : numpy.ndarray
        The federated data set's arrays (``FederatedData``).
    clients : numpy.ndarray
        The clients whose gradients are computed (int64).
    uniforms : numpy.ndarray
        Per client, the uniforms picking its minibatch (shape (clients, batch); no columns: the
        full local batch).
    clip : float
        The per-sample clipping norm.
    out : numpy.ndarray
        Written: one gradient per client, shape (clients, parameters).

    Returns
    -------
    None

    Raises
    ------
    IndexError
        Where a client lies outside ``offsets`` and its full local batch is asked (its rows are
        counted there).
    """
    if uniforms.shape[1] > 0:
        rows = clients.shape[0] * uniforms.shape[1]
    else:
        rows = int(np.sum(offsets[clients + 1] - offsets[clients]))
    kernel = _gradients_serial if runs_serially(rows, n_coef) else _gradients
    kernel(model, n_coef, w, features, norms, labels, offsets, clients, uniforms, clip, out)


@njit(parallel=True, cache=True)
def _gradients(model, n_coef, w, features, norms, labels, offsets, clients, uniforms, clip, out):
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


@njit(cache=True)
def _gradients_serial(
    model, n_coef, w, features, norms, labels, offsets, clients, uniforms, clip, out
):
    """``_gradients`` in the calling thread (``kernel_size``)."""
    for j in range(clients.shape[0]):
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
