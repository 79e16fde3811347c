"""The default chain's RDP side (cpp/include/hockeystick/pld/refine/rdp_cap.hpp, ``_core.pld_refine``), the one both
doors read: its curve at dp_accounting's default orders, integer and fractional, never below the 50-digit truth and
close to it, and never below dp_accounting's own series, which the core's goes on from and bounds the rest of."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld.refine import question
from hockeystick.rdp import DEFAULT_ORDERS
from hockeystick.rdp.mechanisms import subsampled_gaussian_rdp

from ...rdp.test_rdp import mp_log_a_integral

curve = _core.pld_refine.subsampled_gaussian_rdp_curve


def test_the_orders_are_dp_accountings_default_orders():
    orders = _core.pld_refine.rdp_cap_orders()
    assert sorted(orders) == sorted(DEFAULT_ORDERS)
    assert len(orders) == len(set(orders)) == len(DEFAULT_ORDERS)


@pytest.mark.parametrize(
    ("q", "sigma", "alpha"),
    [
        (0.1, 1.0, 2.5),
        (0.01, 0.7, 6.3),
        (0.2, 2.0, 1.5),
        (1e-4, 0.5, 1.1),
        (0.01, 0.8, 1.1),
        (0.5, 5.0, 9.7),
    ],
)
def test_a_fractional_order_is_at_or_above_the_truth_and_dp_accountings_series(q, sigma, alpha):
    """At a fractional order the curve is the binomials' magnitudes summed (dp_accounting's series, an upper bound
    on the signed one, the truth) with its rest bounded: at or above the 50-digit curve (the mixture's moment by
    quadrature) and at or above dp_accounting's truncated series, within 1e-6 of it where that series has settled
    (its terms fall only polynomially at alpha 1.1, where the rest the core adds is the difference)."""
    ours = curve(sigma, q, order=alpha)
    truth = float(mp_log_a_integral(q, sigma, alpha)) / (alpha - 1)
    theirs = float(subsampled_gaussian_rdp(sigma, q, [alpha])[0])
    assert truth <= ours and theirs <= ours
    if alpha > 1.1:
        assert ours <= theirs * (1 + 1e-6) + 1e-15


@pytest.mark.parametrize(("q", "sigma"), [(0.5, 5.0), (0.01, 2.0), (1e-3, 8.0)])
def test_the_largest_integer_order_is_finite_and_at_the_binomial_sum(q, sigma):
    """Order 1024 (whose binomials pass the doubles if formed as a product) is read as the running sum of their
    logarithms: finite, at or above the 50-digit binomial sum, within 1e-9 of it."""
    with mp.workdps(50):
        s, p = mp.mpf(sigma), mp.mpf(q)
        a = mp.fsum(
            mp.binomial(1024, i) * (1 - p) ** (1024 - i) * p**i * mp.exp((i * i - i) / (2 * s * s))
            for i in range(1025)
        )
        truth = float(mp.log(a) / 1023)
    ours = curve(sigma, q, order=1024.0)
    assert truth <= ours <= truth * (1 + 1e-9)


def test_the_package_reads_the_cores_side():
    """``refine.question.rdp_upper`` is the core's conversion (the C library's epsilon call reads the same), its
    sensitivity a scale of sigma."""
    delta = np.array([1e-300, 1e-12, 1e-5])
    point = (1.6, 0.01, 1000.0, 2.0)
    core = _core.pld_refine.subsampled_gaussian_rdp_epsilon(
        sigma=0.8, sampling_rate=0.01, rounds=1000.0, delta=delta
    )
    np.testing.assert_array_equal(question.rdp_upper(point, delta), core)
    for shape in ((), (3, 1)):  # a delta of any shape gives epsilons of its shape
        asked = np.full(shape, 1e-12)
        read = question.rdp_upper(point, asked)
        assert read.shape == shape and np.all(read == core[1])
    assert question.RDP_MARGIN == _core.pld_refine.rdp_cap_margin


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: curve(1.0, 0.1, order=11.5), "fractional RDP order"),
        (lambda: curve(1.0, 0.1, order=2048.0), "integer in"),
        (lambda: curve(1.0, 1.5, order=2.0), "sampling_rate"),
        (lambda: curve(math.nan, 0.1, order=2.0), "sigma"),
        (
            lambda: _core.pld_refine.subsampled_gaussian_rdp_epsilon(
                sigma=1.0, sampling_rate=0.1, rounds=10.0, delta=np.array([0.0])
            ),
            "delta",
        ),
        (
            lambda: _core.pld_refine.subsampled_gaussian_rdp_epsilon(
                sigma=1.0, sampling_rate=0.1, rounds=0.5, delta=np.array([1e-5])
            ),
            "rounds",
        ),
    ],
)
def test_outside_its_domain_the_side_is_refused_by_name(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("sigma", [1e-3, 0.7, 40.0])
@pytest.mark.parametrize("delta", [1e-300, 1e-10, 0.3])
def test_at_q_one_the_side_is_the_gaussians_conversion(sigma, delta):
    """q = 1 (the Gaussian mechanism, alpha / (2 sigma^2) at every order): at or above the 50-digit conversion over
    the same orders, within 1e-8 of it (or 0 where the total-variation bound reaches delta)."""
    rounds = 100.0
    with mp.workdps(50):
        d, s = mp.mpf(delta), mp.mpf(sigma)
        best = mp.inf
        for alpha in map(mp.mpf, _core.pld_refine.rdp_cap_orders()):
            r = rounds * alpha / (2 * s * s)
            if d * d > 1 - mp.exp(-r):
                best = mp.mpf(0)
                break
            best = min(best, r + mp.log(1 - 1 / alpha) - (mp.log(d) + mp.log(alpha)) / (alpha - 1))
        exact = float(max(best, 0))
    (ours,) = _core.pld_refine.subsampled_gaussian_rdp_epsilon(
        sigma=sigma, sampling_rate=1.0, rounds=rounds, delta=np.array([delta])
    )
    assert exact <= ours <= exact * (1 + 1e-8)


@pytest.mark.parametrize("sigma", [5e-324, 1e-300, 1e154, 1e308])
@pytest.mark.parametrize("q", [5e-324, 1e-300, 0.5, 1.0])
def test_at_the_doubles_edges_the_side_is_a_number_on_the_safe_side(sigma, q):
    """Subnormal and huge sigma and q, subnormal and near-1 delta: never NaN or negative (inf where no order
    certifies delta), and never below dp_accounting's series (the package's RDP accountant) where that is finite."""
    from hockeystick.rdp import SubsampledGaussianRDP

    delta = np.array([5e-324, 1e-300, 1e-10, 1 - 1e-16])
    ours = _core.pld_refine.subsampled_gaussian_rdp_epsilon(
        sigma=sigma, sampling_rate=q, rounds=1e6, delta=delta
    )
    assert not np.isnan(ours).any() and (ours >= 0).all()
    with np.errstate(all="ignore"):
        theirs = SubsampledGaussianRDP(sigma=sigma, sampling_rate=q, rounds=1e6).epsilon(delta)
    finite = np.isfinite(theirs)
    assert (ours[finite] >= np.asarray(theirs)[finite] * (1 - 1e-12)).all()
