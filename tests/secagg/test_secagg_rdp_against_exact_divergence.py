"""The two RDP bounds above the exact Rényi divergence of the noise pairs they bound, summed at 40 digits.

KLS21 Prop. 14 and Agarwal et al. Cor. 3.6 are read from their reference implementation; here each is
checked against the quantity it bounds: for an integer shift vector k the d coordinates are independent, so
D_alpha(N + k || N) = sum_j D_alpha(N_j + k_j || N_j), each a one-dimensional sum over the integers
(its window reaching far enough that the tail left out is below 1e-30 of the sum), with Delta_2 = ||k||_2
and Delta_1 = ||k||_1.  A bound below one of these would be a wrong formula or a wrong reading of it.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from hockeystick.secagg import distributed_discrete_gaussian_rdp, skellam_rdp


def _divergence(law: dict[int, mpmath.mpf], shift: int, alpha: int) -> mpmath.mpf:
    """D_alpha(N + shift || N) of a law on the integers, given as x -> mass."""
    total = mpmath.fsum(
        law[x - shift] ** alpha * law[x] ** (1 - alpha) for x in law if x - shift in law
    )
    return mpmath.log(total) / (alpha - 1)


def _skellam(variance: float, half: int) -> dict[int, mpmath.mpf]:
    v = mpmath.mpf(variance)
    return {x: mpmath.besseli(abs(x), v) * mpmath.exp(-v) for x in range(-half, half + 1)}


def _ddg_sum(s: float, clients: int, half: int) -> dict[int, mpmath.mpf]:
    one = {
        y: mpmath.exp(-(mpmath.mpf(y) ** 2) / (2 * mpmath.mpf(s) ** 2))
        for y in range(-half, half + 1)
    }
    z = mpmath.fsum(one.values())
    one = {
        y: w / z for y, w in one.items()
    }  # all kept: a truncated tail would inflate Q^(1 - alpha)
    total = dict(one)
    for _ in range(clients - 1):
        merged: dict[int, mpmath.mpf] = {}
        for x, p in total.items():
            for y, q in one.items():
                merged[x + y] = merged.get(x + y, 0) + p * q
        total = merged
    return total


SHIFTS = [(1,), (3,), (2, 1), (1, 1, 1)]
ORDERS = [2, 3, 6, 12]


@pytest.mark.parametrize("variance", [1.5, 8.0, 60.0])
def test_skellam_bound_above_the_exact_divergence(variance):
    with mpmath.workdps(40):
        law = _skellam(variance, int(40 + 30 * math.sqrt(variance)))
        for shift in SHIFTS:
            k = np.array(shift, dtype=float)
            bound = skellam_rdp(variance, float(np.linalg.norm(k)), float(k.sum()), ORDERS)
            for i, alpha in enumerate(ORDERS):
                exact = mpmath.fsum(_divergence(law, kj, alpha) for kj in shift)
                assert float(exact) <= bound[i], (shift, alpha)


@pytest.mark.parametrize(("s", "clients"), [(0.5, 2), (0.8, 3), (1.5, 2)])
def test_ddg_bound_above_the_exact_divergence(s, clients):
    with mpmath.workdps(40):
        law = _ddg_sum(s, clients, int(20 * s) + 12)
        for shift in SHIFTS:
            k = np.array(shift, dtype=float)
            d = len(shift)
            bound = distributed_discrete_gaussian_rdp(
                s, clients, float(np.linalg.norm(k)), float(k.sum()), d, ORDERS
            )
            for i, alpha in enumerate(ORDERS):
                exact = mpmath.fsum(_divergence(law, kj, alpha) for kj in shift)
                assert float(exact) <= bound[i], (shift, alpha)


def test_skellam_bound_is_close_to_the_truth_at_large_variance():
    # Agarwal et al. call the bound sharp: at V = 60 its leading term alpha Delta^2 / (2V) is nearly all of it
    with mpmath.workdps(40):
        law = _skellam(60.0, 300)
        exact = float(_divergence(law, 3, 6))
    bound = float(skellam_rdp(60.0, 3.0, 3.0, [6])[0])
    assert exact <= bound <= 1.05 * exact


def _poisson_difference(mu: float, top: int) -> dict[int, mpmath.mpf]:
    """Pois(mu) - Pois(mu) on the integers, by convolving the two Poisson laws on 0..top (no Bessel function)."""
    m = mpmath.mpf(mu)
    pois = [mpmath.exp(-m) * m**j / mpmath.factorial(j) for j in range(top + 1)]
    return {
        x: mpmath.fsum(pois[j + x] * pois[j] for j in range(max(0, -x), top + 1 - max(0, x)))
        for x in range(-top, top + 1)
    }


@pytest.mark.parametrize("mu", [0.75, 4.0, 30.0])
def test_skellam_bound_in_the_poisson_parametrization(mu):
    """Pois(mu) - Pois(mu) is the Skellam of variance V = 2 mu: skellam_rdp(2 mu, ...) is the corollary's
    Poisson-parametrized form alpha Delta_2^2 / (4 mu) + min(((2 alpha - 1) Delta_2^2 + 6 Delta_1) / (16 mu^2),
    3 Delta_1 / (4 mu)) (hockeystick.secagg.skellam's docstring) and lies above the exact divergence
    of that law, built from the Poisson masses."""
    with mpmath.workdps(40):
        law = _poisson_difference(mu, int(40 + 30 * math.sqrt(mu)))
        for shift in SHIFTS:
            k = np.array(shift, dtype=float)
            l2, l1 = float(np.linalg.norm(k)), float(k.sum())
            bound = skellam_rdp(2.0 * mu, l2, l1, ORDERS)
            for i, alpha in enumerate(ORDERS):
                poisson_form = alpha * l2 * l2 / (4 * mu) + min(
                    ((2 * alpha - 1) * l2 * l2 + 6 * l1) / (16 * mu * mu), 3 * l1 / (4 * mu)
                )
                assert bound[i] == pytest.approx(poisson_form, rel=1e-13), (shift, alpha)
                exact = mpmath.fsum(_divergence(law, kj, alpha) for kj in shift)
                assert float(exact) <= bound[i], (shift, alpha)
