"""Each round's Rényi curve on the upper side: never below the exact integer-order sum (50-digit mpmath),
and within 1e-8 of it; the Laplace and Gaussian curves against their closed forms."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from hockeystick.ledger import Round
from hockeystick.ledger.round_rdp import check_integer_orders


def exact_subsampled(sigma: float, q: float, alpha: int) -> mpmath.mpf:
    """Mironov, Talwar & Zhang 2019, Sec. 3.3, the integer-order sum, in 50 digits."""
    with mpmath.workdps(50):
        s, q_ = mpmath.mpf(sigma), mpmath.mpf(q)
        a = mpmath.fsum(
            mpmath.binomial(alpha, i)
            * (1 - q_) ** (alpha - i)
            * q_**i
            * mpmath.exp((i * i - i) / (2 * s * s))
            for i in range(alpha + 1)
        )
        return mpmath.log(a) / (alpha - 1)


@pytest.mark.parametrize(
    ("sigma", "q"), [(1.0, 0.01), (0.5, 0.2), (3.0, 1e-4), (0.3, 0.9), (1.1, 1e-7), (20.0, 0.5)]
)
def test_subsampled_curve_is_above_the_exact_sum_and_close(sigma, q):
    orders = (2, 3, 7, 32, 128)
    curve = Round.subsampled_gaussian(sigma, q).rdp_upper(orders)
    for value, alpha in zip(curve, orders, strict=True):
        exact = exact_subsampled(sigma, q, alpha)
        assert value >= exact
        assert value <= exact * (1 + 1e-8) + mpmath.mpf(1e-300)


@pytest.mark.parametrize(("sigma", "q"), [(1.0, 0.01), (3.0, 1e-4), (20.0, 0.5)])
def test_subsampled_curve_at_the_largest_order(sigma, q):
    """Order 1024, whose binomials reach C(1024, 512) ~ 2^1020, near the top of the double range."""
    (value,) = Round.subsampled_gaussian(sigma, q).rdp_upper((1024,))
    exact = exact_subsampled(sigma, q, 1024)
    assert exact <= value <= exact * (1 + 1e-8)


def test_gaussian_and_laplace_curves_against_their_closed_forms():
    orders = (2, 5, 64)
    with mpmath.workdps(40):
        for alpha, value in zip(orders, Round.gaussian(0.7).rdp_upper(orders), strict=True):
            exact = mpmath.mpf(alpha) / (2 * mpmath.mpf(0.7) ** 2)
            assert exact <= value <= exact * (1 + 1e-14)
        for scale in (0.5, 3.0, 1e4):  # 1e4: eps = 1e-4, where eps and the log term cancel to ~1e-8
            for alpha, value in zip(orders, Round.laplace(scale).rdp_upper(orders), strict=True):
                e, a = 1 / mpmath.mpf(scale), mpmath.mpf(alpha)
                exact = e + mpmath.log1p((a - 1) * mpmath.expm1(e * (1 - 2 * a)) / (2 * a - 1)) / (
                    a - 1
                )
                assert exact <= value <= exact * (1 + 1e-9)


def test_rounds_refuse_what_no_curve_is_computed_for():
    for bad in (0.0, -1.0, float("nan"), float("inf"), "1.0", True, None):
        with pytest.raises(ValueError, match="sigma"):
            Round.gaussian(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="sampling_rate"):
        Round.subsampled_gaussian(1.0, 0.0)
    with pytest.raises(ValueError, match="takes no scale"):
        Round("gaussian", sigma=1.0, scale=2.0)
    with pytest.raises(ValueError, match="orders"):
        check_integer_orders([2.5])
    with pytest.raises(ValueError, match="orders"):
        check_integer_orders([1])
    assert Round.from_dict(
        Round.subsampled_gaussian(1.0, 0.25).to_dict()
    ) == Round.subsampled_gaussian(1.0, 0.25)
    assert np.all(Round.subsampled_gaussian(1e-3, 0.5).rdp_upper((2, 64)) > 1e5)  # huge, never NaN
