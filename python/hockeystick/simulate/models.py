"""Per-sample losses and clipped gradients of the three simulated models, as numba kernels.

A model's parameter is a flat vector ``w`` of length ``p``:
    logistic regression  p = d,      label y in {0, 1},  loss log(1 + e^z) - y z,  z = w.x
    linear regression    p = d,      label y real,       loss (z - y)^2 / 2
    softmax regression   p = C d,    label y in {0..C-1}, loss logsumexp(W x) - (W x)_y,
                         W = w.reshape(C, d) (row c holds class c's weights)
Every per-sample gradient is an outer product ``coef (x) x`` with ``coef`` of length 1 (logistic,
linear) or C (softmax), so its norm is ||coef|| ||x|| and clipping to norm V costs nothing extra.
Clipping follows paper 004 eq. (2): g / max(1, ||g|| / V); ``clip = inf`` means no clipping. Every
w.x is :func:`lane_dot.lane_dot` (a fixed eight-lane order) and every exponential of a gradient
:func:`exp_nonpositive.exp_nonpositive` (within 2 ulp; the losses keep libm's exp and log1p), so the
kernels vectorize and their bits do not depend on the machine or the thread count.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .exp_nonpositive import exp_nonpositive
from .lane_dot import lane_dot

LOGISTIC = 0
LINEAR = 1
SOFTMAX = 2

MODEL_CODES = {"logistic": LOGISTIC, "linear": LINEAR, "softmax": SOFTMAX}


def model_code(model: str) -> int:
    """The integer code the kernels use for ``model``; ValueError for an unknown name."""
    if model not in MODEL_CODES:
        raise ValueError(f"model must be one of {sorted(MODEL_CODES)}, got {model!r}")
    return MODEL_CODES[model]


def parameter_size(model: str, n_features: int, n_classes: int) -> int:
    """Length of the flat parameter vector: d, or C d for softmax."""
    return n_features * n_classes if model_code(model) == SOFTMAX else n_features


@njit(cache=True, error_model="numpy")
def sigmoid(z):
    """1 / (1 + e^-z) for z >= 0, e^z / (1 + e^z) for z < 0 (no overflow for either sign),
    branch-free so that loops over rows vectorize; e^-|z| from :func:`exp_nonpositive` (within 2
    ulp, not libm's bits)."""
    e = exp_nonpositive(-abs(z))
    return (1.0 if z >= 0.0 else e) / (1.0 + e)


@njit(cache=True)
def softplus(z):
    """log(1 + e^z) without overflow."""
    if z > 0.0:
        return z + math.log1p(math.exp(-z))
    return math.log1p(math.exp(z))


@njit(cache=True, error_model="numpy")
def gradient_coefficients(model, w, x, y, coef):
    """Fill coef so that the per-sample gradient of the loss at w is coef (x) x."""
    if model == LOGISTIC:
        coef[0] = sigmoid(lane_dot(w, 0, x)) - y
        return
    if model == LINEAR:
        coef[0] = lane_dot(w, 0, x) - y
        return
    d = x.shape[0]
    n_classes = coef.shape[0]
    largest = -np.inf
    for c in range(n_classes):
        coef[c] = lane_dot(w, c * d, x)
        if coef[c] > largest:
            largest = coef[c]
    for c in range(n_classes):  # apart from the sum below, so that it vectorizes
        coef[c] = exp_nonpositive(coef[c] - largest)
    total = 0.0
    for c in range(n_classes):
        total += coef[c]
    for c in range(n_classes):
        coef[c] = coef[c] / total  # total >= 1: the largest class contributes e^0
    coef[int(y)] -= 1.0


@njit(cache=True)
def sample_loss(model, w, x, y, scratch):
    """The per-sample loss at w (scratch: C entries for softmax)."""
    if model == LOGISTIC:
        z = lane_dot(w, 0, x)
        return softplus(z) - y * z
    if model == LINEAR:
        z = lane_dot(w, 0, x)
        return 0.5 * (z - y) * (z - y)
    d = x.shape[0]
    largest = -np.inf
    for c in range(scratch.shape[0]):
        scratch[c] = lane_dot(w, c * d, x)
        if scratch[c] > largest:
            largest = scratch[c]
    total = 0.0
    for c in range(scratch.shape[0]):
        total += math.exp(scratch[c] - largest)
    return largest + math.log(total) - scratch[int(y)]


@njit(cache=True)
def predicts_label(model, w, x, y, coef):
    """1.0 if the model's prediction at x equals the label y, else 0.0 (nan for linear regression)."""
    if model == LOGISTIC:
        return 1.0 if (lane_dot(w, 0, x) > 0.0) == (y > 0.5) else 0.0
    if model == LINEAR:
        return np.nan
    d = x.shape[0]
    best = 0
    best_logit = -np.inf
    for c in range(coef.shape[0]):
        logit = lane_dot(w, c * d, x)
        if logit > best_logit:
            best_logit = logit
            best = c
    return 1.0 if best == int(y) else 0.0


@njit(cache=True, error_model="numpy")
def clip_factor(coef_norm, x_norm, clip, weight):
    """weight / max(1, ||coef|| ||x|| / V): the factor clipping to norm V applies to the gradient coef (x) x."""
    norm = coef_norm * x_norm
    return weight * clip / norm if norm > clip else weight


@njit(cache=True)
def clip_scale(coef, x_norm, clip, weight):
    """:func:`clip_factor` for the coefficient vector ``coef``."""
    coef_norm2 = 0.0
    for c in range(coef.shape[0]):
        coef_norm2 += coef[c] * coef[c]
    return clip_factor(math.sqrt(coef_norm2), x_norm, clip, weight)


@njit(cache=True)
def add_clipped_gradient(model, w, x, x_norm, y, clip, weight, coef, out):
    """out += weight * clip_V(grad loss(w; x, y)), with clip_V(g) = g / max(1, ||g|| / V)."""
    gradient_coefficients(model, w, x, y, coef)
    scale = clip_scale(coef, x_norm, clip, weight)
    d = x.shape[0]
    for c in range(coef.shape[0]):
        s = scale * coef[c]
        base = c * d
        for j in range(d):
            out[base + j] += s * x[j]


@njit(cache=True)
def add_batch_gradient(model, w, features, norms, labels, rows, clip, coef, out):
    """out = mean over ``rows`` of the per-sample clipped gradients at w (rows may repeat)."""
    out[:] = 0.0
    weight = 1.0 / rows.shape[0]
    for r in range(rows.shape[0]):
        i = rows[r]
        add_clipped_gradient(model, w, features[i], norms[i], labels[i], clip, weight, coef, out)


def smoothness_constants(
    model: str, features: np.ndarray, labels: np.ndarray, radius: float
) -> tuple[float, float, float]:
    """(Lipschitz L, smoothness beta, strong convexity) of w -> loss(w; x, y) on ||w|| <= radius,
    for every sample (x, y) with ||x|| <= max_i ||x_i|| (and |y| <= max_i |y_i| for linear).

    logistic: grad = (s - y) x, |s - y| <= 1, Hessian s(1-s) x x^T <= ||x||^2 / 4;
    softmax: grad = (p - e_y) x^T, ||p - e_y|| <= sqrt 2, Hessian (diag p - p p^T) (x) x x^T, and
    diag p - p p^T <= I (a safe over-estimate; any beta above the truth keeps paper 002's M valid);
    linear: grad = (w.x - y) x, ||grad|| <= ||x|| (||x|| radius + |y|), Hessian x x^T, which is
    strongly convex only in one dimension (min_i x_i^2).
    """
    code = model_code(model)
    features = features.astype(
        np.float64, copy=False
    )  # float32 data: its norms computed in float64
    x_max = float(np.sqrt(np.max(np.einsum("ij,ij->i", features, features))))
    if code == LOGISTIC:
        return x_max, x_max**2 / 4.0, 0.0
    if code == SOFTMAX:
        return math.sqrt(2.0) * x_max, x_max**2, 0.0
    y_max = float(np.max(np.abs(labels)))
    strong = float(np.min(features[:, 0] ** 2)) if features.shape[1] == 1 else 0.0
    return x_max * (x_max * radius + y_max), x_max**2, strong


@njit(cache=True, error_model="numpy")
def scalar_coefficient(model, z, y):
    """The gradient coefficient of logistic (sigmoid(z) - y) or linear (z - y) regression at z = w.x."""
    if model == LOGISTIC:
        return sigmoid(z) - y
    return z - y


@njit(cache=True, error_model="numpy", inline="always")
def clipped_scalar_coefficients(model, w, features, norms, labels, lo, hi, clip, weight, scales):
    """scales[r] = weight * clip_V-scaled coefficient of row lo + r (logistic or linear regression),
    so that row lo + r's weighted clipped gradient is scales[r] x_{lo+r}.

    All the dot products first, then the coefficients in one branch-free loop that LLVM vectorizes
    over the rows (|c| as sqrt(c^2) = sqrt(0 + c^2), the bits :func:`clip_scale` gives)."""
    n = hi - lo
    for r in range(n):
        scales[r] = lane_dot(w, 0, features[lo + r])
    row_labels = labels[
        lo:hi
    ]  # views: indices from 0 carry no wrap-around check, so the loop vectorizes
    row_norms = norms[lo:hi]
    for r in range(n):
        c = scalar_coefficient(model, scales[r], row_labels[r])
        scales[r] = clip_factor(math.sqrt(c * c), row_norms[r], clip, weight) * c


@njit(cache=True)
def add_scaled_rows(features, lo, scales, n, out):
    """out += sum_r scales[r] x_{lo+r}, r = 0..n-1 in order, two rows per pass over ``out``
    (((out + s_0 x_0) + s_1 x_1) + ...: the bits of adding the rows one by one)."""
    d = features.shape[1]
    r = 0
    while r + 1 < n:
        x0 = features[lo + r]
        x1 = features[lo + r + 1]
        s0 = scales[r]
        s1 = scales[r + 1]
        for j in range(d):
            out[j] = (out[j] + s0 * x0[j]) + s1 * x1[j]
        r += 2
    if r < n:
        x0 = features[lo + r]
        s0 = scales[r]
        for j in range(d):
            out[j] += s0 * x0[j]


@njit(cache=True)
def add_range_gradient(model, w, features, norms, labels, lo, hi, clip, coef, out):
    """out = mean over rows lo..hi-1 (a client's full local batch) of the clipped gradients at w.

    Logistic and linear regression: :func:`clipped_scalar_coefficients` then :func:`add_scaled_rows`
    (bit-identical to adding the rows one by one); softmax: row by row."""
    out[:] = 0.0
    weight = 1.0 / (hi - lo)
    if coef.shape[0] == 1:
        scales = np.empty(hi - lo)
        clipped_scalar_coefficients(model, w, features, norms, labels, lo, hi, clip, weight, scales)
        add_scaled_rows(features, lo, scales, hi - lo, out)
        return
    for r in range(lo, hi):
        add_clipped_gradient(model, w, features[r], norms[r], labels[r], clip, weight, coef, out)


@njit(cache=True)
def local_gradient(model, w, features, norms, labels, lo, hi, uniforms, rows, clip, coef, out):
    """The clipped minibatch gradient of the client owning rows lo..hi-1: rows drawn with
    replacement as lo + floor(u (hi - lo)) for each uniform u, or the full batch if there are
    none."""
    b = uniforms.shape[0]
    if b == 0:
        add_range_gradient(model, w, features, norms, labels, lo, hi, clip, coef, out)
        return
    for r in range(b):
        rows[r] = sample_row(lo, hi, uniforms[r])
    add_batch_gradient(model, w, features, norms, labels, rows[:b], clip, coef, out)


@njit(cache=True)
def sample_row(lo, hi, u):
    """The row lo + floor(u (hi - lo)) of a client's block, for a uniform u in [0, 1)."""
    n = hi - lo
    return lo + min(int(u * n), n - 1)


def coefficient_count(model: int, n_classes: int) -> int:
    """Length of the per-sample coefficient vector: C for softmax, else 1."""
    return n_classes if model == SOFTMAX else 1
