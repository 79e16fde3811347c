"""Real data that ships inside a package (scikit-learn's bundled sets), split across clients.

Nothing is downloaded: :func:`bundled` reads the small data sets scikit-learn installs with itself,
standardizes the features (train statistics), scales the rows so the largest training row has norm 1
(and projects any longer test row onto the unit ball), shuffles, holds out a test part, and deals
the training rows to clients either i.i.d. (equal shares) or with Dirichlet label skew (client i
takes a Dirichlet(concentration) share of every class: Hsu, Qi, Brown 2019, "Measuring the effects
of non-identical data distribution", the usual FL benchmark split).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from ..base.optional import require_extra
from .data import FederatedData, from_client_arrays

__all__ = ["BUNDLED", "bundled"]

# name -> (scikit-learn loader, task): classification sets use softmax (logistic when binary),
# regression sets use linear least squares.
BUNDLED: dict[str, tuple[str, str]] = {
    "digits": ("load_digits", "classification"),  # 1797 x 64, 10 classes
    "breast_cancer": ("load_breast_cancer", "classification"),  # 569 x 30, 2 classes
    "wine": ("load_wine", "classification"),  # 178 x 13, 3 classes
    "iris": ("load_iris", "classification"),  # 150 x 4, 3 classes
    "diabetes": ("load_diabetes", "regression"),  # 442 x 10
}


def _load(name: str) -> tuple[np.ndarray, np.ndarray, str]:
    if name not in BUNDLED:
        raise ValueError(f"unknown data set {name!r}; bundled: {', '.join(BUNDLED)}")
    require_extra("a bundled data set", "sklearn.datasets")
    import sklearn.datasets  # lazy: optional extra (scikit-learn)

    loader, task = BUNDLED[name]
    raw = getattr(sklearn.datasets, loader)()
    features, target = np.asarray(raw.data, float), np.asarray(raw.target, float)
    if task == "regression":
        return features, (target - target.mean()) / target.std(), "linear"
    classes = np.unique(target).size
    return features, target, "logistic" if classes == 2 else "softmax"


def _shares(
    labels: np.ndarray,
    n_clients: int,
    partition: str,
    concentration: float,
    rng: np.random.Generator,
) -> list[np.ndarray]:
    """Row indices of each client: equal i.i.d. shares, or Dirichlet shares of every class."""
    if partition == "iid":
        return np.array_split(rng.permutation(labels.size), n_clients)
    owned: list[list[int]] = [[] for _ in range(n_clients)]
    for label in np.unique(labels):
        rows = rng.permutation(np.flatnonzero(labels == label))
        cuts = (np.cumsum(rng.dirichlet(np.full(n_clients, concentration))) * rows.size).astype(
            int
        )[:-1]
        for client, part in enumerate(np.split(rows, cuts)):
            owned[client].extend(part.tolist())
    return [np.array(sorted(rows), dtype=np.int64) for rows in owned]


def bundled(
    name: str,
    n_clients: int,
    *,
    partition: Literal["iid", "dirichlet"] = "iid",
    concentration: float = 0.5,
    test_fraction: float = 0.25,
    seed: int = 0,
    dtype: str = "float64",
) -> tuple[FederatedData, FederatedData]:
    """Train and test federated data from one of scikit-learn's bundled data sets, nothing downloaded.

    The features are standardized with the training rows' statistics and scaled so the largest
    training row has norm 1 (a longer test row is projected onto the unit ball). A shuffled
    ``test_fraction`` of the rows (at least ``n_clients``) is held out; the training rows and the
    test rows are each dealt to the clients the same way, and every client keeps at least one
    training and one test row (a Dirichlet split is redrawn, up to 1000 times, until it does). The
    model is "softmax" (multi-class), "logistic" (binary) or "linear" (regression, targets
    standardized).

    Parameters
    ----------
    name : {"digits", "breast_cancer", "wine", "iris", "diabetes"}
        The data set (``hockeystick.simulate.datasets.BUNDLED``).
    n_clients : int
        Number of clients, an integer >= 1 and at most half the data set's rows.
    partition : {"iid", "dirichlet"}, default "iid"
        Equal i.i.d. shares, or for each class a Dirichlet(``concentration``) share per client
        (Hsu, Qi, Brown 2019); a regression set is one class.
    concentration : float, default 0.5
        The Dirichlet concentration, finite and > 0 (used by ``"dirichlet"``); smaller is more
        skewed.
    test_fraction : float, default 0.25
        Fraction of the rows held out for test, in (0, 1).
    seed : int, default 0
        Seed of the shuffle and the split.
    dtype : {"float64", "float32"}, default "float64"
        Storage of the features; the kernels compute in float64 either way.

    Returns
    -------
    tuple of (FederatedData, FederatedData)
        (train, test), both with ``n_clients`` clients.

    Raises
    ------
    ValueError
        When ``name`` is unknown, ``n_clients`` is not an integer >= 1 or exceeds half the rows,
        ``partition`` is unknown, ``concentration`` is not finite and > 0, ``test_fraction`` is not
        in (0, 1), a Dirichlet split leaves a client without rows after 1000 draws, or ``dtype`` is
        neither float64 nor float32.
    ImportError
        When scikit-learn is not installed.

    References
    ----------
    T.-M. H. Hsu, H. Qi, M. Brown, "Measuring the effects of non-identical data distribution for
    federated visual classification", 2019 (the Dirichlet label split).

    Examples
    --------
    >>> from hockeystick.simulate import bundled
    >>> train, test = bundled("iris", 3, seed=1)
    >>> train.n_clients, train.model, train.n_classes, train.features.shape[0] + test.features.shape[0]
    (3, 'softmax', 3, 150)
    """
    _check_split(n_clients, partition, concentration, test_fraction)
    features, labels, model = _load(name)
    if 2 * n_clients > labels.size:
        raise ValueError(
            f"n_clients must be <= {labels.size // 2} for {name} ({labels.size} rows: "
            "every client needs a training and a test row)"
        )
    rng = np.random.default_rng(seed)
    order = rng.permutation(labels.size)
    n_test = max(n_clients, int(round(test_fraction * labels.size)))
    train_rows, test_rows = order[n_test:], order[:n_test]
    features = _unit_rows(features, train_rows)
    grouping = labels if model != "linear" else np.zeros_like(labels)
    parts = []
    for rows in (train_rows, test_rows):
        shares = _nonempty_shares(grouping[rows], n_clients, partition, concentration, rng)
        n_classes = None if model == "linear" else int(np.unique(labels).size)
        parts.append(
            from_client_arrays(
                [features[rows[s]] for s in shares],
                [labels[rows[s]] for s in shares],
                model,
                n_classes,
            )
        )
    return parts[0].astype(dtype), parts[1].astype(dtype)


def _check_split(
    n_clients: int, partition: str, concentration: float, test_fraction: float
) -> None:
    """``bundled``'s split arguments: n_clients an integer >= 1, a known partition, concentration
    finite and > 0, test_fraction in (0, 1)."""
    if not (
        isinstance(n_clients, (int, np.integer))
        and not isinstance(n_clients, bool)
        and n_clients >= 1
    ):
        raise ValueError(f"n_clients must be an integer >= 1, got {n_clients!r}")
    if partition not in ("iid", "dirichlet"):
        raise ValueError(f'partition must be "iid" or "dirichlet", got {partition!r}')
    if not (concentration > 0 and np.isfinite(concentration)):
        raise ValueError(f"concentration must be finite and > 0, got {concentration!r}")
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must lie in (0, 1), got {test_fraction!r}")


def _unit_rows(features: np.ndarray, train_rows: np.ndarray) -> np.ndarray:
    """Features standardized by the training rows' statistics, scaled so the largest training row
    has norm 1, every longer (test) row projected onto the unit ball."""
    mean, scale = features[train_rows].mean(axis=0), features[train_rows].std(axis=0)
    features = (features - mean) / np.where(scale > 0, scale, 1.0)
    features /= max(float(np.max(np.linalg.norm(features[train_rows], axis=1))), 1e-300)
    features /= np.maximum(
        np.linalg.norm(features, axis=1, keepdims=True), 1.0
    )  # test rows too: norm <= 1
    return features


def _nonempty_shares(
    grouping: np.ndarray,
    n_clients: int,
    partition: str,
    concentration: float,
    rng: np.random.Generator,
) -> list[np.ndarray]:
    """``_shares`` redrawn until every client holds a row (at most 1000 draws)."""
    for _ in range(1000):
        shares = _shares(grouping, n_clients, partition, concentration, rng)
        if min(s.size for s in shares) >= 1:
            return shares
    raise ValueError(
        f"a Dirichlet({concentration}) split left a client without rows after 1000 draws: "
        "raise concentration or lower n_clients"
    )
