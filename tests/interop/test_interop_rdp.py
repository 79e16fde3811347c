"""HockeystickRdpAccountant: RDP parity with dp_accounting's RdpAccountant, Laplace RDP against
quadrature, and default orders fine enough for calibration."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

pytest.importorskip("dp_accounting")
from dp_accounting import dp_event as E  # noqa: E402
from dp_accounting import mechanism_calibration as mc  # noqa: E402
from dp_accounting.privacy_accountant import UnsupportedEventError  # noqa: E402
from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant  # noqa: E402

from hockeystick.interop.dp_accounting import HockeystickRdpAccountant  # noqa: E402
from hockeystick.interop.dp_accounting.rdp_accountant import FINE_ORDERS  # noqa: E402
from hockeystick.rdp.laplace import laplace_rdp  # noqa: E402

EVENTS = [
    E.GaussianDpEvent(1.3),
    E.ZCDpEvent(0.02, 0.001),
    E.LaplaceDpEvent(4.0),
    E.SelfComposedDpEvent(E.PoissonSampledDpEvent(0.01, E.GaussianDpEvent(1.0)), 1000),
    E.PoissonSampledDpEvent(
        0.1,
        E.ComposedDpEvent(
            [E.GaussianDpEvent(2.0), E.SelfComposedDpEvent(E.GaussianDpEvent(3.0), 2)]
        ),
    ),
    E.ComposedDpEvent(
        [
            E.NoOpDpEvent(),
            E.PoissonSampledDpEvent(0.0, E.GaussianDpEvent(1.0)),
            E.PoissonSampledDpEvent(1.0, E.GaussianDpEvent(5.0)),
            E.LaplaceDpEvent(20.0),
        ]
    ),
]


@pytest.mark.parametrize("event", EVENTS)
def test_rdp_parity_with_dp_accounting(event):
    theirs = RdpAccountant().compose(event, 3)
    ours = HockeystickRdpAccountant(orders=theirs.orders).compose(event, 3)
    finite = np.isfinite(theirs.rdp)
    assert np.array_equal(finite, np.isfinite(ours.rdp))
    assert np.allclose(ours.rdp[finite], theirs.rdp[finite], rtol=1e-9, atol=0)
    for delta in (1e-5, 1e-9):
        assert ours.get_epsilon(delta) == pytest.approx(theirs.get_epsilon(delta), rel=1e-9)
    assert ours.get_delta(1.0) == pytest.approx(theirs.get_delta(1.0), rel=1e-9)


def test_laplace_rdp_against_quadrature():
    mpmath.mp.dps = 50
    b = mpmath.mpf(2)
    for alpha in (1.05, 1.5, 3.0, 20.0):
        a = mpmath.mpf(alpha)
        p = lambda x: mpmath.exp(-abs(x - 1) / b) / (2 * b)  # noqa: E731
        q = lambda x: mpmath.exp(-abs(x) / b) / (2 * b)  # noqa: E731
        integral = mpmath.quad(
            lambda x: p(x) ** a * q(x) ** (1 - a), [-mpmath.inf, 0, 1, mpmath.inf]
        )
        exact = float(mpmath.log(integral) / (a - 1))
        assert laplace_rdp(2.0, [alpha])[0] == pytest.approx(exact, rel=1e-13)


def test_non_private_and_unsupported():
    acc = HockeystickRdpAccountant().compose(E.NonPrivateDpEvent())
    assert acc.get_epsilon(1e-5) == math.inf
    for event in (
        E.SampledWithoutReplacementDpEvent(100, 10, E.GaussianDpEvent(1.0)),
        E.RandomizedResponseDpEvent(0.5, 3),
        E.PoissonSampledDpEvent(0.1, E.LaplaceDpEvent(1.0)),
    ):
        assert not HockeystickRdpAccountant().supports(event)
        with pytest.raises(UnsupportedEventError):
            HockeystickRdpAccountant().compose(event)


@pytest.mark.parametrize(
    "event",
    [
        E.GaussianDpEvent(-1.0),
        E.PoissonSampledDpEvent(1.5, E.GaussianDpEvent(1.0)),
        E.SelfComposedDpEvent(E.GaussianDpEvent(1.0), 0),
    ],
)
def test_bad_input_raises_like_dp_accounting(event):
    with pytest.raises(ValueError):
        RdpAccountant().compose(event)
    with pytest.raises(ValueError):
        HockeystickRdpAccountant().compose(event)


def _calibrated(make, event, eps):
    return mc.calibrate_dp_mechanism(
        make, event, eps, 1e-5, mc.ExplicitBracketInterval(0.3, 100.0), tol=1e-7
    )


CASES = [
    (lambda s: E.GaussianDpEvent(s), 0.2),
    pytest.param(
        lambda s: E.SelfComposedDpEvent(E.PoissonSampledDpEvent(0.01, E.GaussianDpEvent(s)), 100),
        0.1,
        marks=pytest.mark.slow,
    ),
]


@pytest.mark.parametrize("event,eps", CASES)
def test_default_orders_calibrate_within_1e_3_of_the_fine_order_optimum(event, eps):
    finer = np.unique(np.concatenate([FINE_ORDERS, (FINE_ORDERS[1:] + FINE_ORDERS[:-1]) / 2]))
    optimum = _calibrated(lambda: HockeystickRdpAccountant(orders=finer), event, eps)
    ours = _calibrated(HockeystickRdpAccountant, event, eps)
    theirs = _calibrated(RdpAccountant, event, eps)
    assert abs(ours / optimum - 1) < 1e-3
    assert (
        theirs / optimum - 1 > 1e-3
    )  # dp_accounting's default orders jump 63 -> 128: sigma too large
