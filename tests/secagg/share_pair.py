"""A lower bound on an observer's epsilon when each sampled client adds its own discrete Gaussian noise share, by a
post-processing of the round that only lowers the loss (tests of ``secagg``'s ``against="observer"``).

One share N_Z(0, sigma^2) a client, one survivor besides the differing client: a round with the client holds two
shares on every coordinate (A), one without it one share (R), and the shifted coordinate y_1 moves by ``shift``.
The pair kept is y_1 and G, the sum over the other d - 1 coordinates of log(A(y) / R(y)) rounded to a grid of 0.5,
whose laws under A and R are their per-coordinate laws convolved d - 1 times: q (A + shift e_1) + (1 - q) R^d
against q A + (1 - q) R^d, composed over the rounds and read on its optimistic side.  The masses are doubles
normalised to 1 (relative errors near 1e-13, far inside the margins the tests assert)."""

from __future__ import annotations

import numpy as np

from hockeystick.pld.mechanisms.constructors import from_distributions


def one_share(sigma: float, half_width: int) -> np.ndarray:
    """N_Z(0, sigma^2) on -half_width .. half_width, normalised (the mass beyond is dropped)."""
    y = np.arange(-half_width, half_width + 1, dtype=float)
    w = np.exp(-(y**2) / (2 * sigma**2))
    return w / w.sum()


def _power(v: np.ndarray, m: int) -> np.ndarray:
    out = np.ones(1)
    for _ in range(m):
        out = np.convolve(out, v)
    return out


def post_processed_pair_epsilon(
    sigma: float,
    half_width: int,
    shift: int,
    rate: float,
    rounds: int,
    dimension: int,
    delta: float,
) -> float:
    """The pair's epsilon(delta) on its optimistic side (module docstring): a lower bound on the observer's."""
    r = one_share(sigma, half_width)
    a = np.convolve(r, r)  # two shares, on -2 half_width .. 2 half_width
    r_wide = np.zeros(a.size)
    r_wide[half_width : half_width + r.size] = r
    inside = (
        r_wide > 0
    )  # A's mass where R has none: those outcomes are dropped (only lowers the loss)
    g = np.round(np.log(a[inside] / r_wide[inside]) / 0.5).astype(int)
    a_g = _power(np.bincount(g - g.min(), weights=a[inside]), dimension - 1)
    r_g = _power(np.bincount(g - g.min(), weights=r_wide[inside]), dimension - 1)
    size = a.size + 2 * shift

    def placed(v: np.ndarray, offset: int) -> np.ndarray:
        out = np.zeros(size)
        out[offset : offset + v.size] = v
        return out

    a_shifted, a_at, r_at = placed(a, 2 * shift), placed(a, shift), placed(r_wide, shift)
    p = (rate * np.outer(a_shifted, a_g) + (1 - rate) * np.outer(r_at, r_g)).ravel()
    q = (rate * np.outer(a_at, a_g) + (1 - rate) * np.outer(r_at, r_g)).ravel()
    keep = (p > 0) | (q > 0)
    pair = from_distributions(
        p[keep] / p[keep].sum() * (1 - 1e-12),
        q[keep] / q[keep].sum(),
        value_discretization_interval=2e-3,
        symmetric=False,
        exact_zeros=False,
    )
    return float(pair.self_compose(rounds).epsilon(delta, bound="lower"))
