"""The Rényi curves registered with the Gaussian, subsampled Gaussian and Laplace stages (``StageEntry.rdp``).

Each curve is checked against the exact divergence at 50 digits (mpmath): the Gaussian's alpha s^2 / (2 sigma^2)
(Mironov 2017, Prop. 7), the Laplace mechanism's (Mironov 2017, Prop. 6) and the Poisson-subsampled Gaussian's
integer-order sum (Mironov, Talwar & Zhang 2019, Sec. 3.3): never below it, within a relative 1e-9 of it.  A
sensitivity is folded into the noise rounded down, as the ledger folds a stage's, so the ledger's round of the
stage reads the same doubles.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from hockeystick.ledger import Round
from hockeystick.pld.mechanisms import stage_entry
from hockeystick.pld.mechanisms.constructors import noise_over_sensitivity

ORDERS = (2, 3, 5, 8, 16, 32, 64)


def exact_gaussian(alpha: int, sigma: float, sensitivity: float) -> mpmath.mpf:
    with mpmath.workdps(50):
        return alpha * mpmath.mpf(sensitivity) ** 2 / (2 * mpmath.mpf(sigma) ** 2)


def exact_laplace(alpha: int, scale: float, sensitivity: float) -> mpmath.mpf:
    with mpmath.workdps(50):
        a, e = mpmath.mpf(alpha), mpmath.mpf(sensitivity) / mpmath.mpf(scale)
        inner = a / (2 * a - 1) * mpmath.exp((a - 1) * e) + (a - 1) / (2 * a - 1) * mpmath.exp(
            -a * e
        )
        return mpmath.log(inner) / (a - 1)


def exact_subsampled_gaussian(alpha: int, sigma: float, q: float) -> mpmath.mpf:
    with mpmath.workdps(50):
        s, p = mpmath.mpf(sigma), mpmath.mpf(q)
        total = mpmath.mpf(1) + sum(
            mpmath.binomial(alpha, i)
            * (1 - p) ** (alpha - i)
            * p**i
            * (mpmath.exp((i * i - i) / (2 * s * s)) - 1)
            for i in range(2, alpha + 1)
        )
        return mpmath.log(total) / (alpha - 1)


def _check(curve: np.ndarray, exact: list[mpmath.mpf]) -> None:
    for value, truth in zip(curve, exact):
        assert value >= truth, (value, truth)
        assert value <= truth * (1 + mpmath.mpf("1e-9")), (value, truth)


@pytest.mark.parametrize("sigma", [0.7, 2.0, 11.0])
@pytest.mark.parametrize("sensitivity", [1.0, 3.0])
def test_the_gaussian_stage_curve(sigma, sensitivity):
    curve = stage_entry("gaussian").rdp(ORDERS, sigma, sensitivity=sensitivity)
    _check(curve, [exact_gaussian(a, sigma, sensitivity) for a in ORDERS])


@pytest.mark.parametrize("scale", [0.5, 2.0, 20.0])
@pytest.mark.parametrize("sensitivity", [1.0, 0.3])
def test_the_laplace_stage_curve(scale, sensitivity):
    curve = stage_entry("laplace").rdp(ORDERS, scale, sensitivity=sensitivity)
    _check(curve, [exact_laplace(a, scale, sensitivity) for a in ORDERS])


@pytest.mark.parametrize(("sigma", "q"), [(1.0, 0.01), (2.0, 0.2), (0.8, 0.001)])
def test_the_subsampled_gaussian_stage_curve(sigma, q):
    curve = stage_entry("subsampled_gaussian").rdp(ORDERS, sigma, q)
    _check(curve, [exact_subsampled_gaussian(a, sigma, q) for a in ORDERS])


@pytest.mark.parametrize(
    "stage",
    [
        {"mechanism": "gaussian", "sigma": 3.0, "sensitivity": 0.7},
        {"mechanism": "laplace", "scale": 1.3, "sensitivity": 3.0},
        {
            "mechanism": "subsampled_gaussian",
            "sigma": 1.1,
            "sampling_rate": 0.05,
            "sensitivity": 1.7,
        },
    ],
)
def test_the_ledger_round_of_a_stage_reads_the_stage_curve(stage):
    """The ledger folds the stage's sensitivity into its round as the facet does: the same doubles."""
    one, _ = Round.from_stage(stage)
    parameters = {k: v for k, v in stage.items() if k != "mechanism"}
    assert np.array_equal(
        one.rdp_upper(ORDERS), stage_entry(stage["mechanism"]).rdp(ORDERS, **parameters)
    )


@pytest.mark.parametrize(
    ("noise", "sensitivity"), [(1.0, 3.0), (0.1, 0.7), (5.0, 1.0), (1e300, 1e-10)]
)
def test_the_noise_over_a_sensitivity_is_rounded_down(noise, sensitivity):
    folded = noise_over_sensitivity(noise, sensitivity)
    with mpmath.workdps(50):
        exact = mpmath.mpf(noise) / mpmath.mpf(sensitivity)
        assert folded <= exact and mpmath.mpf(math.nextafter(folded, math.inf)) > exact
