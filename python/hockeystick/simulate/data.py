"""Federated data sets: every client's samples stored contiguously (CSR-like), O(total samples x d).

``FederatedData(features, labels, offsets)``: client i owns rows offsets[i]:offsets[i+1]. Features
are float64, or float32 (:meth:`FederatedData.astype`, ``bundled(..., dtype="float32")``): half the
memory traffic; the kernels still compute in float64 (each float32 feature widened exactly), so a
float32 run trains on the features rounded to float32 (relative 6e-8) and its results differ from
the float64 run's in the low digits; the float64 path is unchanged bit for bit. Build one from your
own arrays with :func:`from_client_arrays`, or draw a synthetic one with :func:`synthetic`, whose
heterogeneity is controlled by Dirichlet label skew (smaller ``label_concentration`` = more skew;
paper 004 and 003 both partition by label) and a per-client feature shift (each client's features
get a client-specific mean offset of norm ``feature_shift``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import DTypeLike

from .models import LINEAR, SOFTMAX, model_code


@dataclass(frozen=True)
class FederatedData:
    """The samples of all clients, stored contiguously: client i owns rows ``offsets[i]:offsets[i+1]``.

    Parameters
    ----------
    features : numpy.ndarray
        Shape (n_samples, d), float64 or float32, C-contiguous, finite.
    labels : numpy.ndarray
        Shape (n_samples,), float64, finite: class indices in [0, n_classes) for ``"logistic"`` and
        ``"softmax"``, real targets for ``"linear"``.
    offsets : numpy.ndarray
        Shape (n_clients + 1,), int64, from 0 to n_samples, strictly increasing (every client owns
        at least one sample).
    model : {"logistic", "linear", "softmax"}
        The model trained on the data.
    n_classes : int
        1 for linear regression, 2 for logistic, the class count C >= 2 for softmax.

    Raises
    ------
    ValueError
        When an array has the wrong shape, dtype or layout, a value is not finite, ``offsets`` does
        not run from 0 to n_samples with a sample per client, a class label is outside [0,
        n_classes), or ``n_classes`` does not match ``model``.
    """

    features: np.ndarray  # (n_samples, d) float64 (or float32), C-contiguous
    labels: np.ndarray  # (n_samples,) float64
    offsets: np.ndarray  # (n_clients + 1,) int64, offsets[0] = 0, non-decreasing
    model: str
    n_classes: int

    def __post_init__(self) -> None:
        code = model_code(self.model)
        _check_arrays(self.features, self.labels, self.offsets)
        _check_labels(code, self.model, self.labels, self.n_classes)

    @property
    def n_clients(self) -> int:
        return self.offsets.shape[0] - 1

    @property
    def n_features(self) -> int:
        return self.features.shape[1]

    @property
    def row_norms(self) -> np.ndarray:
        """||x_i|| for every sample (used to clip per-sample gradients without forming them), in float64."""
        f = self.features.astype(np.float64, copy=False)
        return np.sqrt(np.einsum("ij,ij->i", f, f))

    def astype(self, dtype: DTypeLike) -> FederatedData:
        """The same data with features stored as ``dtype`` (float64 or float32; labels stay float64)."""
        kind = np.dtype(dtype)
        if kind not in (np.float64, np.float32):
            raise ValueError(f"dtype must be float64 or float32, got {kind}")
        return FederatedData(
            np.ascontiguousarray(self.features, dtype=kind),
            self.labels,
            self.offsets,
            self.model,
            self.n_classes,
        )

    def client(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """(features, labels) of client i."""
        lo, hi = self.offsets[i], self.offsets[i + 1]
        return self.features[lo:hi], self.labels[lo:hi]

    def split(self, test_fraction: float) -> tuple[FederatedData, FederatedData]:
        """(train, test): the last round(test_fraction * n_i) samples of every client (at least one
        each side) go to test. Synthetic samples are i.i.d. within a client, so this is a random
        split."""
        if not 0 < test_fraction < 1:
            raise ValueError("test_fraction must be in (0, 1)")
        sizes = np.diff(self.offsets)
        if np.any(sizes < 2):
            raise ValueError("every client needs >= 2 samples to split")
        n_test = np.clip(np.round(test_fraction * sizes).astype(np.int64), 1, sizes - 1)
        is_test = np.arange(self.features.shape[0]) >= np.repeat(self.offsets[1:] - n_test, sizes)

        def part(mask: np.ndarray, counts: np.ndarray) -> FederatedData:
            offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
            return FederatedData(
                np.ascontiguousarray(self.features[mask]),
                self.labels[mask].copy(),
                offsets,
                self.model,
                self.n_classes,
            )

        return part(~is_test, sizes - n_test), part(is_test, n_test)

    def replace_sample(self, row: int, features: np.ndarray, label: float) -> FederatedData:
        """The neighbouring data set with sample ``row`` replaced (replace-one adjacency)."""
        f = self.features.copy()
        y = self.labels.copy()
        f[row] = features
        y[row] = label
        return FederatedData(f, y, self.offsets, self.model, self.n_classes)


def from_client_arrays(
    features: Sequence[np.ndarray],
    labels: Sequence[np.ndarray],
    model: str,
    n_classes: int | None = None,
) -> FederatedData:
    """Stack per-client (features_i, labels_i) arrays into one :class:`FederatedData`.

    Parameters
    ----------
    features : sequence of array_like
        Client i's features, shape (n_i, d) (a 1-D array is one row); converted to float64.
    labels : sequence of array_like
        Client i's labels, n_i of them; same length as ``features``.
    model : {"logistic", "linear", "softmax"}
        The model trained on the data.
    n_classes : int, optional
        Default: 1 for linear, 2 for logistic, the largest label + 1 for softmax.

    Returns
    -------
    FederatedData
        The clients' rows in order, client i owning the i-th block.

    Raises
    ------
    ValueError
        When ``features`` and ``labels`` are empty or differ in length, ``model`` is unknown, or the
        stacked arrays fail :class:`FederatedData`'s checks.

    Examples
    --------
    >>> from hockeystick.simulate import from_client_arrays
    >>> data = from_client_arrays([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 1.0]]], [[0, 1], [1]], "logistic")
    >>> data.n_clients, data.n_features, data.offsets.tolist()
    (2, 2, [0, 2, 3])
    """
    if len(features) != len(labels) or len(features) == 0:
        raise ValueError("features and labels must be non-empty lists of the same length")
    f = np.ascontiguousarray(
        np.concatenate([np.atleast_2d(np.asarray(a, float)) for a in features])
    )
    y = np.concatenate([np.asarray(a, float).ravel() for a in labels])
    sizes = np.array([len(np.asarray(a).ravel()) for a in labels], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    code = model_code(model)
    if n_classes is None:
        n_classes = 1 if code == LINEAR else (2 if code != SOFTMAX else int(y.max()) + 1)
    return FederatedData(f, y, offsets, model, n_classes)


def synthetic(
    model: str,
    n_clients: int,
    samples_per_client: int,
    n_features: int,
    *,
    n_classes: int = 2,
    label_concentration: float = np.inf,
    feature_shift: float = 0.0,
    noise: float = 0.1,
    seed: int = 0,
) -> FederatedData:
    r"""A synthetic federated data set with a planted model and controllable heterogeneity.

    Each client draws class proportions from Dirichlet(``label_concentration`` 1) (uniform for inf),
    classes from them, then features

    .. math:: x = \mu_y + s_i + \mathcal{N}(0, I_d / d),

    with class means :math:`\mu_y` of norm 1 and a client shift :math:`s_i` of norm
    ``feature_shift``. For classification the label is the class y. For linear regression (two
    latent classes) the label is :math:`\langle w^*, x\rangle + \mathcal{N}(0, \text{noise}^2)` with
    :math:`\|w^*\| = 1`, and the Dirichlet skew acts on the latent class. Every client has
    ``samples_per_client`` samples.

    Parameters
    ----------
    model : {"logistic", "linear", "softmax"}
        The model the labels are drawn for.
    n_clients : int
        Number of clients, >= 1.
    samples_per_client : int
        Samples per client, >= 1.
    n_features : int
        Dimension d, >= 1.
    n_classes : int, default 2
        Class count C >= 2 for softmax (logistic uses 2, linear 1; ignored for them).
    label_concentration : float, default inf
        Dirichlet concentration of each client's class proportions, > 0; smaller is more skewed,
        inf gives every client uniform proportions.
    feature_shift : float, default 0.0
        Norm of each client's feature offset, >= 0.
    noise : float, default 0.1
        Standard deviation of the regression label noise, >= 0 (linear only).
    seed : int, default 0
        Seed of numpy's ``default_rng``; the same seed gives the same data.

    Returns
    -------
    FederatedData
        ``n_clients * samples_per_client`` rows.

    Raises
    ------
    ValueError
        When ``model`` is unknown, ``n_clients``, ``samples_per_client`` or ``n_features`` < 1,
        ``label_concentration`` <= 0, ``feature_shift`` or ``noise`` < 0, or ``n_classes`` < 2 for
        softmax.

    Examples
    --------
    >>> from hockeystick.simulate import synthetic
    >>> data = synthetic("logistic", n_clients=4, samples_per_client=50, n_features=5, label_concentration=0.5)
    >>> data.n_clients, data.features.shape, data.n_classes
    (4, (200, 5), 2)
    """
    code = model_code(model)
    if n_clients < 1 or samples_per_client < 1 or n_features < 1:
        raise ValueError("n_clients, samples_per_client and n_features must be >= 1")
    if not label_concentration > 0:
        raise ValueError("label_concentration must be > 0 (inf for no label skew)")
    if feature_shift < 0 or noise < 0:
        raise ValueError("feature_shift and noise must be >= 0")
    k = 2 if code != SOFTMAX else n_classes
    if k < 2:
        raise ValueError("n_classes must be >= 2")
    rng = np.random.default_rng(seed)
    means = rng.standard_normal((k, n_features))
    means /= np.linalg.norm(means, axis=1, keepdims=True)
    if np.isinf(label_concentration):
        proportions = np.full((n_clients, k), 1.0 / k)
    else:
        proportions = rng.dirichlet(np.full(k, label_concentration), size=n_clients)
    shifts = rng.standard_normal((n_clients, n_features))
    shifts *= feature_shift / np.maximum(np.linalg.norm(shifts, axis=1, keepdims=True), 1e-300)
    cumulative = np.cumsum(proportions, axis=1)
    u = rng.random((n_clients, samples_per_client, 1))
    classes = np.minimum((u > cumulative[:, None, :]).sum(axis=2), k - 1)  # (clients, samples)
    x = means[classes] + shifts[:, None, :]
    x += rng.standard_normal(x.shape) / np.sqrt(n_features)
    features = np.ascontiguousarray(x.reshape(-1, n_features))
    if code == LINEAR:
        planted = rng.standard_normal(n_features)
        planted /= np.linalg.norm(planted)
        labels = features @ planted + noise * rng.standard_normal(features.shape[0])
        n_out = 1
    else:
        labels = classes.reshape(-1).astype(np.float64)
        n_out = k
    offsets = np.arange(0, (n_clients + 1) * samples_per_client, samples_per_client, dtype=np.int64)
    return FederatedData(features, labels, offsets, model, n_out)


def _check_arrays(f: np.ndarray, y: np.ndarray, o: np.ndarray) -> None:
    """Features (n_samples, d) float64 or float32 C-contiguous, labels float64 per row, offsets
    int64 from 0 to n_samples with at least one sample per client; features and labels finite."""
    if f.ndim != 2 or f.dtype not in (np.float64, np.float32) or not f.flags.c_contiguous:
        raise ValueError(
            "features must be a C-contiguous float64 (or float32) array of shape (n_samples, d)"
        )
    if y.shape != (f.shape[0],) or y.dtype != np.float64:
        raise ValueError("labels must be float64 with one entry per row of features")
    if o.ndim != 1 or o.dtype != np.int64 or o[0] != 0 or o[-1] != f.shape[0]:
        raise ValueError("offsets must be int64, start at 0 and end at n_samples")
    if np.any(np.diff(o) < 1):
        raise ValueError("offsets: every client needs at least one sample")
    if not np.all(np.isfinite(f)) or not np.all(np.isfinite(y)):
        raise ValueError("features and labels must be finite")


def _check_labels(code: int, model: str, y: np.ndarray, n_classes: int) -> None:
    """Class labels are integers in [0, n_classes); n_classes is 1 for linear regression, 2 for logistic."""
    if code != LINEAR and (np.any(y != np.round(y)) or np.any(y < 0) or np.any(y >= n_classes)):
        raise ValueError(f"labels must be integers in [0, {n_classes}) for {model}")
    if code != SOFTMAX and n_classes != (1 if code == LINEAR else 2):
        raise ValueError("n_classes must be 2 for logistic and 1 for linear regression")
