"""With sigma = 0 every simulated algorithm matches a plain numpy implementation of its update to 1e-12
(and with noise, PNSGD matches it given the same pre-drawn noise)."""

from __future__ import annotations

import numpy as np
import pytest

import hockeystick.simulate as sim
from hockeystick.simulate.randomness import NOISE, SAMPLING, SERVER, ClientStreams, generator
from hockeystick.simulate.schedules import learning_rates

TOL = 1e-12

# ---- plain numpy references (no numba, no code shared with hockeystick.simulate beyond the
# ---- pre-drawn random numbers, read from the same streams so the *updates* are compared)


def per_sample_gradients(
    model: str, w: np.ndarray, x: np.ndarray, y: np.ndarray, n_classes: int
) -> np.ndarray:
    """Rows = gradients of the per-sample losses at w."""
    if model == "logistic":
        return (1.0 / (1.0 + np.exp(-(x @ w))) - y)[:, None] * x
    if model == "linear":
        return (x @ w - y)[:, None] * x
    logits = x @ w.reshape(n_classes, -1).T
    prob = np.exp(logits - logits.max(axis=1, keepdims=True))
    prob /= prob.sum(axis=1, keepdims=True)
    prob[np.arange(len(y)), y.astype(int)] -= 1.0
    return (prob[:, :, None] * x[:, None, :]).reshape(len(y), -1)


def clipped_mean_gradient(model, w, x, y, n_classes, clip) -> np.ndarray:
    g = per_sample_gradients(model, w, x, y, n_classes)
    norms = np.linalg.norm(g, axis=1)
    scale = np.where(norms > clip, clip / np.where(norms > 0, norms, 1.0), 1.0)
    return (g * scale[:, None]).mean(axis=0)


def minibatch_rows(n_local: int, uniforms: np.ndarray) -> np.ndarray:
    return np.minimum(np.floor(uniforms * n_local).astype(int), n_local - 1)


def project(w: np.ndarray, radius: float) -> np.ndarray:
    norm = np.linalg.norm(w)
    return w * (radius / norm) if norm > radius else w


def fedavg_round(data, w, uniforms, etas, proximal, clip):
    """One noiseless FedAvg/FedProx round, client by client; uniforms (clients, K, b), b = 0 = full batch."""
    uploads = []
    for i in range(data.n_clients):
        x, y = data.client(i)
        v = w.copy()
        for k in range(len(etas)):
            rows = (
                minibatch_rows(len(y), uniforms[i, k]) if uniforms.shape[2] else np.arange(len(y))
            )
            g = clipped_mean_gradient(data.model, v, x[rows], y[rows], data.n_classes, clip)
            v = v - etas[k] * (g + proximal * (v - w))
        uploads.append(v)
    return np.mean(uploads, axis=0)


def trusted_aggregator_round(data, w, users, eta, radius, clip):
    grads = [
        clipped_mean_gradient(data.model, w, *data.client(j), data.n_classes, clip) for j in users
    ]
    return project(w - eta * np.mean(grads, axis=0), radius)


def minibatch_sgd_round(data, w, silos, uniforms, eta, radius, clip):
    grads = []
    for j, c in enumerate(silos):
        x, y = data.client(c)
        rows = minibatch_rows(len(y), uniforms[j])
        grads.append(clipped_mean_gradient(data.model, w, x[rows], y[rows], data.n_classes, clip))
    return project(w - eta * np.mean(grads, axis=0), radius)


def local_sgd_round(data, w, silos, uniforms, eta, clip):
    out = []
    for j, c in enumerate(silos):
        x, y = data.client(c)
        v = w.copy()
        for k in range(uniforms.shape[1]):
            r = minibatch_rows(len(y), uniforms[j, k : k + 1])
            v = v - eta * clipped_mean_gradient(data.model, v, x[r], y[r], data.n_classes, clip)
        out.append(v)
    return np.mean(out, axis=0)


def pnsgd_chain(model, x, y, n_classes, w, eta, noise, radius, steps):
    """Y_{t+1} = Pi(Y_t - eta (grad + noise_t)) over the first ``steps`` samples."""
    for t in range(steps):
        g = per_sample_gradients(model, w, x[t : t + 1], y[t : t + 1], n_classes)[0]
        w = project(w - eta * (g + noise[t]), radius)
    return w


def small(model: str, seed: int = 0) -> sim.FederatedData:
    return sim.synthetic(
        model, 7, 5, 4, n_classes=3, label_concentration=0.7, feature_shift=0.5, seed=seed
    )


@pytest.mark.parametrize("model", ["logistic", "linear", "softmax"])
@pytest.mark.parametrize(
    "proximal, batch, clip, schedule",
    [
        (0.0, 2, 0.3, "constant"),
        (0.7, 3, np.inf, "continuous"),
        (0.0, None, 0.5, "cyclic"),
        (1.5, 1, 0.2, "stagewise"),
    ],
)
def test_fedavg_and_fedprox_match_numpy(model, proximal, batch, clip, schedule):
    data = small(model)
    rounds, steps = 4, 3
    run = sim.noisy_fedavg(
        data,
        rounds=rounds,
        local_steps=steps,
        rate=0.3,
        schedule=schedule,
        clip=clip,
        proximal=proximal,
        batch_size=batch,
        seed=11,
        trajectory=True,
    )
    etas = learning_rates(schedule, 0.3, rounds, steps)
    streams = ClientStreams(11, SAMPLING, data.n_clients)
    w = np.zeros(run.weights.shape)
    for t in range(rounds):
        u = streams.random((steps, batch)) if batch else np.empty((data.n_clients, steps, 0))
        w = fedavg_round(data, w, u, etas[t], proximal, clip)
        np.testing.assert_allclose(run.trajectory[t + 1], w, rtol=TOL, atol=TOL)
    assert np.abs(run.trajectory[-1] - run.trajectory[0]).max() > 1e-3  # it did move


@pytest.mark.parametrize("model", ["logistic", "softmax"])
def test_trusted_aggregator_matches_numpy(model):
    data = small(model)
    run = sim.trusted_aggregator(
        data,
        batch=2,
        rate=np.array([0.9, 0.5, 0.4]),
        sigma=0.0,
        radius=0.05,
        clip=0.4,
        seed=5,
        trajectory=True,
    )
    order = generator(5, SERVER).permutation(data.n_clients)
    w = np.zeros(run.weights.shape)
    for t, eta in enumerate([0.9, 0.5, 0.4]):
        w = trusted_aggregator_round(data, w, order[2 * t : 2 * t + 2], eta, 0.05, 0.4)
        np.testing.assert_allclose(run.trajectory[t + 1], w, rtol=TOL, atol=TOL)
    assert np.linalg.norm(w) == pytest.approx(0.05)  # the projection is active


@pytest.mark.parametrize("local", [False, True])
def test_isrl_matches_numpy(local):
    data = small("logistic")
    rounds, k, m = 5, 3, 4
    kw = dict(
        rounds=rounds, rate=0.4, sigma=0.0, clip=0.5, silos_per_round=m, seed=2, trajectory=True
    )
    run = (
        sim.isrl_local_sgd(data, local_steps=k, **kw)
        if local
        else sim.isrl_minibatch_sgd(data, batch=k, radius=0.2, **kw)
    )
    server, sampling = generator(2, SERVER), generator(2, SAMPLING)
    w = np.zeros(run.weights.shape)
    for t in range(rounds):
        silos = np.sort(server.choice(data.n_clients, m, replace=False))
        u = sampling.random((m, k))
        w = (
            local_sgd_round(data, w, silos, u, 0.4, 0.5)
            if local
            else minibatch_sgd_round(data, w, silos, u, 0.4, 0.2, 0.5)
        )
        np.testing.assert_allclose(run.trajectory[t + 1], w, rtol=TOL, atol=TOL)


@pytest.mark.parametrize("model, d", [("linear", 1), ("logistic", 3)])
def test_pnsgd_matches_numpy(model, d):
    data = sim.synthetic(model, 1, 30, d, seed=4)
    x, y = data.features, data.labels
    run = sim.pnsgd(data, rate=0.3, scale=0.0, diameter=1.0)
    expected = pnsgd_chain(
        model, x, y, data.n_classes, np.zeros(d), 0.3, np.zeros((30, d)), 0.5, 30
    )
    np.testing.assert_allclose(run.weights, expected, rtol=TOL, atol=TOL)


def test_pnsgd_noise_and_random_stop_match_numpy():
    data = sim.synthetic("linear", 1, 20, 2, seed=4)
    replicas = 6
    out = sim.pnsgd_final_iterates(
        data, rate=0.2, scale=0.7, diameter=1.4, replicas=replicas, seed=9, random_stop=True
    )
    stops = generator(9, SERVER).integers(1, 21, size=replicas)
    noise = ClientStreams(9, NOISE, replicas).standard_normal((20, 2))
    for r in range(replicas):
        expected = pnsgd_chain(
            "linear", data.features, data.labels, 1, np.zeros(2), 0.2, 0.7 * noise[r], 0.7, stops[r]
        )
        np.testing.assert_allclose(out[r], expected, rtol=TOL, atol=TOL)
    assert len(set(stops)) > 1
