"""Mean loss and accuracy of a parameter vector on a federated data set (numba, parallel over clients).

Per-client sums go to an array that numpy then adds in a fixed order, so the figures do not depend
on the thread count.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .data import FederatedData
from .kernel_size import threads_for
from .models import coefficient_count, model_code, predicts_label, sample_loss


@njit(cache=True)
def _rows_sums(model, w, features, labels, lo, hi, coef):
    loss = 0.0
    correct = 0.0
    for r in range(lo, hi):
        loss += sample_loss(model, w, features[r], labels[r], coef)
        correct += predicts_label(model, w, features[r], labels[r], coef)
    return loss, correct


@njit(parallel=True, cache=True)
def _client_sums(model, n_coef, w, features, labels, offsets, loss_sums, correct_sums):
    for i in prange(offsets.shape[0] - 1):
        loss, correct = _rows_sums(
            model, w, features, labels, offsets[i], offsets[i + 1], np.empty(n_coef)
        )
        loss_sums[i] = loss
        correct_sums[i] = correct


def evaluate(data: FederatedData, weights: np.ndarray) -> tuple[float, float]:
    r"""Mean loss and accuracy of ``weights`` over all samples of ``data``.

    The loss is the per-sample loss of the data's model (logistic: softplus(z) - y z; linear: (z -
    y)^2 / 2; softmax: cross-entropy), averaged over every sample of every client; the figures do
    not depend on the thread count.

    Parameters
    ----------
    data : FederatedData
        The samples to evaluate on.
    weights : array_like
        The parameter vector, shape (p,): p = d, or C d for softmax (class c's weights at c d).

    Returns
    -------
    tuple of (float, float)
        (mean loss, accuracy); accuracy is the fraction of samples whose predicted class is the
        label, nan for linear regression.
    """
    loss_sums = np.empty(data.n_clients)
    correct_sums = np.empty(data.n_clients)
    code = model_code(data.model)
    n_coef = coefficient_count(code, data.n_classes)
    with threads_for(data.features.shape[0], n_coef):
        _client_sums(
            code,
            n_coef,
            np.ascontiguousarray(weights, dtype=float),
            data.features,
            data.labels,
            data.offsets,
            loss_sums,
            correct_sums,
        )
    n = data.features.shape[0]
    return float(np.sum(loss_sums) / n), float(np.sum(correct_sums) / n)
