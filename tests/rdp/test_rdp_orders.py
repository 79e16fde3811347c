"""RDP orders must be > 1 wherever orders are accepted.

An "order" at or below 1 is not a Renyi order for which the conversions hold: the classic
formula eps_R + log(1/delta)/(alpha - 1) with alpha = 0.5 gave eps = 0, an under-estimate.
Scalar orders are one order (rdp holds the curve's value there), never an IndexError.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick.fdp import GaussianDP
from hockeystick.rdp import (
    SubsampledGaussianRDP,
    gaussian_rdp,
    rdp_to_delta,
    rdp_to_epsilon,
    subsampled_gaussian_rdp,
)
from hockeystick.rdp.mechanisms import check_orders

BAD_ORDERS = [0.5, 1.0, -2.0, 0.0, math.nan, math.inf, -math.inf]
CONVERSIONS = ["classic", "tight"]


@pytest.mark.parametrize("conversion", CONVERSIONS)
@pytest.mark.parametrize("bad", BAD_ORDERS)
def test_conversions_refuse_orders_not_above_one(bad: float, conversion: str) -> None:
    for convert, target in ((rdp_to_epsilon, 1e-5), (rdp_to_delta, 1.0)):
        with pytest.raises(ValueError, match="orders"):
            convert([5.0, 0.1], [3.0, bad], target, conversion=conversion)
        with pytest.raises(ValueError, match="orders"):
            convert(5.0, bad, target, conversion=conversion)


def test_issue_example_is_refused() -> None:
    with pytest.raises(ValueError, match=r"orders must be > 1"):
        rdp_to_epsilon([5.0], [0.5], 1e-5, conversion="classic")


@pytest.mark.parametrize("conversion", CONVERSIONS)
def test_scalar_order_is_one_order(conversion: str) -> None:
    # A Gaussian with sigma = 2 at alpha = 3: eps_R = 3/8.  A scalar order equals the 1-element list.
    r = 3.0 / 8.0
    assert rdp_to_epsilon(r, 3.0, 1e-5, conversion=conversion) == rdp_to_epsilon(
        [r], [3.0], 1e-5, conversion=conversion
    )
    assert rdp_to_delta(r, 3.0, 1.0, conversion=conversion) == rdp_to_delta(
        [r], [3.0], 1.0, conversion=conversion
    )
    # with a scalar order, rdp may be an array of curves' values at it: one result per value
    eps = rdp_to_epsilon([r, 2 * r], 3.0, 1e-5, conversion=conversion)
    assert np.shape(eps) == (2,) and eps[0] < eps[1]
    # the classic conversion at one order is its formula exactly
    assert rdp_to_epsilon(r, 3.0, 1e-5, conversion="classic") == pytest.approx(
        r + math.log(1e5) / 2, rel=1e-15
    )


def test_mismatched_orders_still_refused() -> None:
    with pytest.raises(ValueError, match="orders"):
        rdp_to_epsilon([1.0, 2.0], [2.0, 3.0, 4.0], 1e-5)
    with pytest.raises(ValueError, match="orders"):
        rdp_to_epsilon([1.0, 2.0], [[2.0, 3.0]], 1e-5)


@pytest.mark.parametrize("bad", BAD_ORDERS)
def test_every_orders_argument_refuses(bad: float) -> None:
    for call in (
        lambda: check_orders([2.0, bad]),
        lambda: gaussian_rdp(1.0, [bad]),
        lambda: subsampled_gaussian_rdp(1.0, 0.1, [bad]),
        lambda: SubsampledGaussianRDP(sigma=1.0, sampling_rate=0.1, orders=[bad]),
        lambda: GaussianDP(1.0).rdp(bad),
    ):
        with pytest.raises(ValueError, match="orders"):
            call()


def test_default_orders_are_documented_immutable_and_dp_accountings() -> None:
    """help(hockeystick.rdp) documents DEFAULT_ORDERS itself, not numpy's ndarray."""
    import pydoc

    from dp_accounting.rdp.rdp_privacy_accountant import DEFAULT_RDP_ORDERS

    import hockeystick.rdp

    text = pydoc.render_doc(hockeystick.rdp, renderer=pydoc.plaintext)
    assert (
        "An array object represents a multidimensional" not in text and "ndarray(shape" not in text
    )
    assert "DEFAULT_ORDERS``: the orders used when ``orders=None``" in text
    orders = hockeystick.rdp.DEFAULT_ORDERS
    assert isinstance(orders, tuple) and all(isinstance(o, float) for o in orders)
    np.testing.assert_array_equal(np.asarray(orders), np.asarray(DEFAULT_RDP_ORDERS, dtype=float))
    # the default used by the accountants is a fresh array: changing it changes nothing else
    from hockeystick.rdp.mechanisms import check_orders

    first = check_orders(None)
    first[:] = 99.0
    np.testing.assert_array_equal(check_orders(None), np.asarray(orders))
