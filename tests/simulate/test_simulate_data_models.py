"""Synthetic federated data, user arrays, the numba model kernels and the learning-rate schedules."""

from __future__ import annotations

import numpy as np
import pytest

import hockeystick.simulate as sim
from hockeystick.simulate.models import (
    add_clipped_gradient,
    coefficient_count,
    model_code,
    parameter_size,
    sample_loss,
    smoothness_constants,
)
from hockeystick.simulate.schedules import learning_rates


def gradient_and_loss(model, w, x, y, n_classes, clip=np.inf):
    code = model_code(model)
    coef = np.empty(coefficient_count(code, n_classes))
    out = np.zeros(w.shape[0])
    add_clipped_gradient(code, w, x, float(np.linalg.norm(x)), y, clip, 1.0, coef, out)
    return out, sample_loss(code, w, x, y, coef)


@pytest.mark.parametrize(
    "model, y, classes",
    [("logistic", 1.0, 2), ("logistic", 0.0, 2), ("linear", 0.7, 1), ("softmax", 2.0, 4)],
)
def test_gradient_matches_finite_differences(model, y, classes):
    rng = np.random.default_rng(1)
    d = 5
    x = rng.standard_normal(d)
    w = rng.standard_normal(parameter_size(model, d, classes))
    g, _ = gradient_and_loss(model, w, x, y, classes)
    h = 1e-6
    numeric = np.array(
        [
            (
                gradient_and_loss(model, w + h * e, x, y, classes)[1]
                - gradient_and_loss(model, w - h * e, x, y, classes)[1]
            )
            / (2 * h)
            for e in np.eye(len(w))
        ]
    )
    np.testing.assert_allclose(g, numeric, rtol=1e-6, atol=1e-8)


def test_loss_is_stable_for_huge_logits():
    g, loss = gradient_and_loss("logistic", np.array([1e3]), np.array([1.0]), 0.0, 2)
    assert loss == pytest.approx(1e3) and g[0] == pytest.approx(1.0)
    _, loss = gradient_and_loss("softmax", np.array([1e3, -1e3]), np.array([1.0]), 1.0, 2)
    assert loss == pytest.approx(2e3)


@pytest.mark.parametrize("clip", [0.05, 0.3, 100.0])
def test_clipping_caps_the_norm_and_keeps_direction(clip):
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal(4), rng.standard_normal(12)
    raw, _ = gradient_and_loss("softmax", w, x, 1.0, 3)
    clipped, _ = gradient_and_loss("softmax", w, x, 1.0, 3, clip)
    np.testing.assert_allclose(clipped, raw / max(1.0, np.linalg.norm(raw) / clip), rtol=1e-14)


@pytest.mark.parametrize("model", ["logistic", "linear", "softmax"])
def test_smoothness_constants_bound_gradients_and_their_variation(model):
    data = sim.synthetic(model, 4, 10, 3, n_classes=3, seed=5)
    radius = 2.0
    lip, beta, _ = smoothness_constants(model, data.features, data.labels, radius)
    rng = np.random.default_rng(0)
    p = parameter_size(model, 3, data.n_classes)
    for _ in range(50):
        w1, w2 = rng.standard_normal((2, p))
        w1 *= radius / max(radius, np.linalg.norm(w1))
        w2 *= radius / max(radius, np.linalg.norm(w2))
        r = rng.integers(len(data.labels))
        g1, _ = gradient_and_loss(model, w1, data.features[r], data.labels[r], data.n_classes)
        g2, _ = gradient_and_loss(model, w2, data.features[r], data.labels[r], data.n_classes)
        assert np.linalg.norm(g1) <= lip
        assert np.linalg.norm(g1 - g2) <= beta * np.linalg.norm(w1 - w2) + 1e-12


def test_dirichlet_label_skew_and_feature_shift():
    balanced = sim.synthetic("softmax", 40, 50, 6, n_classes=4, seed=0)
    skewed = sim.synthetic("softmax", 40, 50, 6, n_classes=4, label_concentration=0.1, seed=0)

    def top_share(data):
        return np.mean(
            [np.bincount(data.client(i)[1].astype(int), minlength=4).max() / 50 for i in range(40)]
        )

    assert top_share(balanced) < 0.45 < 0.8 < top_share(skewed)
    shifted = sim.synthetic("logistic", 40, 50, 6, feature_shift=3.0, seed=0)
    plain = sim.synthetic("logistic", 40, 50, 6, seed=0)

    def spread(data):
        return np.std([data.client(i)[0].mean(axis=0) for i in range(40)], axis=0).mean()

    assert spread(shifted) > 5 * spread(plain)


def test_linear_synthetic_is_learnable_and_user_arrays_round_trip():
    data = sim.synthetic("linear", 3, 200, 4, noise=0.05, seed=1)
    w, *_ = np.linalg.lstsq(data.features, data.labels, rcond=None)
    assert np.mean((data.features @ w - data.labels) ** 2) < 0.01
    xs = [np.ones((2, 3)), np.zeros((1, 3))]
    built = sim.from_client_arrays(xs, [np.array([0, 1]), np.array([1])], "logistic")
    assert built.n_clients == 2 and built.offsets.tolist() == [0, 2, 3]
    np.testing.assert_array_equal(built.client(1)[0], xs[1])


def test_bad_data_is_rejected():
    with pytest.raises(ValueError, match="labels"):
        sim.from_client_arrays([np.ones((2, 2))], [np.array([0, 2])], "logistic")
    with pytest.raises(ValueError, match="model"):
        sim.from_client_arrays([np.ones((2, 2))], [np.array([0, 1])], "svm")
    with pytest.raises(ValueError, match="finite"):
        sim.from_client_arrays([np.full((1, 2), np.nan)], [np.array([0])], "logistic")
    with pytest.raises(ValueError, match="label_concentration"):
        sim.synthetic("logistic", 2, 2, 2, label_concentration=0.0)


def test_schedules_of_paper_004():
    t, k = np.meshgrid(np.arange(3), np.arange(4), indexing="ij")
    np.testing.assert_allclose(learning_rates("constant", 0.5, 3, 4), 0.5)
    np.testing.assert_allclose(learning_rates("cyclic", 0.5, 3, 4), 0.5 / (k + 1))
    np.testing.assert_allclose(learning_rates("stagewise", 0.5, 3, 4), 0.5 / (t + 1))
    np.testing.assert_allclose(learning_rates("continuous", 0.5, 3, 4), 0.5 / (4 * t + k + 1))
    with pytest.raises(ValueError, match="schedule"):
        learning_rates("cosine", 0.5, 3, 4)


@pytest.mark.parametrize(
    "model, classes", [("logistic", 2), ("linear", 1), ("softmax", 2), ("softmax", 5)]
)
def test_evaluate_matches_numpy(model, classes):
    data = sim.synthetic(model, 6, 7, 3, n_classes=classes, seed=3)
    w = np.random.default_rng(0).standard_normal(parameter_size(model, 3, data.n_classes))
    loss, accuracy = sim.evaluate(data, w)
    x, y = data.features, data.labels
    if model == "logistic":
        z = x @ w
        assert loss == pytest.approx(np.mean(np.logaddexp(0, z) - y * z), rel=1e-12)
        assert accuracy == np.mean((z > 0) == (y > 0.5))
    elif model == "linear":
        assert loss == pytest.approx(np.mean((x @ w - y) ** 2) / 2, rel=1e-12)
        assert np.isnan(accuracy)
    else:
        logits = x @ w.reshape(classes, 3).T
        expected = np.mean(
            np.log(np.exp(logits).sum(axis=1)) - logits[np.arange(len(y)), y.astype(int)]
        )
        assert loss == pytest.approx(expected, rel=1e-12)
        assert accuracy == np.mean(logits.argmax(axis=1) == y)


def test_split_keeps_every_client_on_both_sides():
    data = sim.synthetic("logistic", 5, 7, 3, seed=0)
    train, test = data.split(0.3)
    assert train.n_clients == test.n_clients == 5
    assert np.diff(train.offsets).tolist() == [5] * 5 and np.diff(test.offsets).tolist() == [2] * 5
    np.testing.assert_array_equal(test.client(2)[0], data.client(2)[0][5:])
    np.testing.assert_array_equal(train.client(4)[1], data.client(4)[1][:5])


def test_prefetch_row_is_only_a_hint():
    """Prefetching rows (any row index, including the last) changes nothing a kernel computes;
    arrays it cannot prefetch (not C-contiguous 2-D) are a typing error, not a wrong address."""
    import numba

    from hockeystick.simulate.prefetch import prefetch_row

    @numba.njit
    def prefetched_sum(a):
        total = 0.0
        for i in range(a.shape[0]):
            prefetch_row(a, a.shape[0] - 1 - i)
            for j in range(a.shape[1]):
                total += a[i, j]
        return total

    a = np.random.default_rng(0).standard_normal((37, 13))
    assert prefetched_sum(a) == sum(float(a[i, j]) for i in range(37) for j in range(13))
    with pytest.raises(numba.core.errors.TypingError):
        prefetched_sum(np.asfortranarray(a))


@pytest.mark.parametrize("model, classes", [("logistic", 2), ("linear", 1), ("softmax", 3)])
@pytest.mark.parametrize("rows", [1, 2, 7, 8])
@pytest.mark.parametrize("clip", [0.05, np.inf])
def test_full_batch_gradient_is_the_rows_added_one_by_one_bit_for_bit(model, classes, rows, clip):
    """add_range_gradient takes logistic/linear rows two at a time: the sum must not change in any bit."""
    from hockeystick.simulate.models import add_range_gradient

    data = sim.synthetic(model, 1, rows, 13, n_classes=classes, seed=rows)
    code = model_code(model)
    p = parameter_size(model, data.n_features, data.n_classes)
    w = np.random.default_rng(1).standard_normal(p)
    coef = np.empty(coefficient_count(code, data.n_classes))
    fast = np.empty(p)
    add_range_gradient(
        code, w, data.features, data.row_norms, data.labels, 0, rows, clip, coef, fast
    )
    one_by_one = np.zeros(p)
    for r in range(rows):
        add_clipped_gradient(
            code,
            w,
            data.features[r],
            data.row_norms[r],
            data.labels[r],
            clip,
            1.0 / rows,
            coef,
            one_by_one,
        )
    assert np.array_equal(fast, one_by_one)


@pytest.mark.slow
def test_float32_features_train_to_the_float64_result_in_the_low_digits():
    train, test = sim.bundled("wine", 6, seed=1)
    train32, test32 = sim.bundled("wine", 6, seed=1, dtype="float32")
    assert train32.features.dtype == np.float32 and train32.labels.dtype == np.float64
    assert np.array_equal(train32.features, train.features.astype(np.float32))
    # norms (clipping) and the accountants' constants come from the stored float32 values, in float64
    assert train32.row_norms.dtype == np.float64
    np.testing.assert_allclose(train32.row_norms, train.row_norms, rtol=1e-6)
    config = dict(rounds=5, local_steps=2, rate=1.0, clip=1.0, sigma=0.3, batch_size=None, seed=3)
    run64 = sim.noisy_fedavg(train, test=test, **config)
    run32 = sim.noisy_fedavg(train32, test=test32, **config)
    np.testing.assert_allclose(run32.weights, run64.weights, rtol=1e-5, atol=1e-6)
    assert not np.array_equal(run32.weights, run64.weights)  # it did train on the rounded features
    assert abs(run32.final_loss - run64.final_loss) < 1e-5 * abs(run64.final_loss)
    with pytest.raises(ValueError, match="dtype must be float64 or float32"):
        train.astype(np.float16)
