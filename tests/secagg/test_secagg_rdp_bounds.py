"""The secure-aggregation RDP bounds against their formulas at 50 digits and against the reference code's values."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from hockeystick.rdp import rdp_to_epsilon
from hockeystick.secagg import (
    DistributedDiscreteGaussian,
    DistributedSkellam,
    distributed_discrete_gaussian_rdp,
    integer_sensitivity,
    skellam_rdp,
)
from hockeystick.secagg.distributed_discrete_gaussian import tau

# google-research/federated distributed_dp/accounting_utils.py at commit 5e27a86323a35c2018fb97fbbe755c7ade9370ab
# (the file's last change; repository snapshot a5af8c4433c9ee2d2b1565f1bcc68c89e2000a6b), run at development time
# with tensorflow_privacy's get_privacy_spent served by dp_accounting 0.6's rdp_privacy_accountant.compute_epsilon
# (q = 1, RDP_ORDERS = 2 .. 128 and 256): ddgauss_epsilon(gamma, local_stddev, n, c, beta, dim, 1.0, steps,
# delta) and skellam_epsilon(1 / gamma, local_stddev sqrt(n), c, beta, dim, 1.0, steps, delta).
# (gamma, local_stddev, n, c, beta, dim, steps, delta, ddg epsilon, skellam epsilon)
REFERENCE = [
    (
        0.001,
        0.3,
        100,
        1.0,
        0.6065306597126334,
        10000,
        100,
        1e-05,
        21.277186659405892,
        21.27718777413245,
    ),
    (
        0.002,
        0.1,
        1000,
        1.0,
        0.6065306597126334,
        100000,
        500,
        1e-06,
        67.56083897344607,
        67.56087543647887,
    ),
    (0.005, 1.0, 10, 1.0, 0.01, 1000, 50, 1e-05, 12.471370750832133, 12.471389727314168),
    (0.05, 0.5, 50, 1.0, 0.0, 100, 10, 1e-05, 6.687861628831665, 6.688671628831664),
    (
        0.25,
        0.2,
        200,
        1.0,
        0.6065306597126334,
        64,
        20,
        1e-05,
        21.775535924578854,
        14.310968823792894,
    ),
    (0.5, 0.3, 100, 1.0, 0.6065306597126334, 16, 5, 1e-05, 122.44584069575279, 6.57165792512796),
]
REFERENCE_ORDERS = np.array([*range(2, 129), 256], dtype=float)


def _reference_tau(s: float, n: int) -> mpmath.mpf:
    with mpmath.workdps(50):
        return 10 * mpmath.fsum(
            mpmath.exp(-2 * mpmath.pi**2 * mpmath.mpf(s) ** 2 * k / (k + 1)) for k in range(1, n)
        )


@pytest.mark.parametrize(("s", "n"), [(0.5, 2), (0.5, 50), (1.0, 300), (2.0, 7)])
def test_tau_is_the_sum_at_50_digits_rounded_up(s, n):
    ours = tau(s, n)
    for m in (1, 2, n // 2 + 1, n):
        exact = _reference_tau(s, m)
        assert float(exact) <= ours[m - 1] <= float(exact) * (1 + 1e-12) + 1e-300


def _taus(s: float, n: int) -> list[mpmath.mpf]:
    """tau(1), ..., tau(n) at 50 digits, summed once."""
    with mpmath.workdps(50):
        out, total = [mpmath.mpf(0)], mpmath.mpf(0)
        for k in range(1, n):
            total += 10 * mpmath.exp(-2 * mpmath.pi**2 * mpmath.mpf(s) ** 2 * k / (k + 1))
            out.append(total)
        return out


def _prop14(alpha, s, n, l2, l1, d, t):
    """KLS21, Prop. 14 at one survivor count n with its tau t, at 50 digits."""
    with mpmath.workdps(50):
        a = mpmath.mpf(l2) / (mpmath.sqrt(n) * s)
        b = mpmath.mpf(l1) / (mpmath.sqrt(n) * s)
        half = mpmath.mpf(alpha) / 2
        return min(
            half * a * a + t * d,
            half * (a * a + 2 * b * t + t * t * d),
            half * (a + t * mpmath.sqrt(d)) ** 2,
        )


@pytest.mark.parametrize(
    ("s", "n", "l2", "d"), [(0.5, 40, 3.0, 16), (0.8, 10, 5.0, 100), (3.0, 600, 40.0, 10**4)]
)
def test_ddg_curve_is_the_minimum_of_prop14_over_survivors(s, n, l2, d):
    l1 = min(math.sqrt(d) * l2, l2 * l2)
    orders = np.array([1.5, 2.0, 8.0, 64.0])
    ours = distributed_discrete_gaussian_rdp(s, n, l2, l1, d, orders)
    taus = _taus(s, n)
    counts = (
        range(1, n + 1) if n <= 100 else [*range(1, 101), *range(101, n, 37), n]
    )  # a subset: ours <= each
    for i, alpha in enumerate(orders):
        values = {m: _prop14(alpha, s, m, l2, l1, d, taus[m - 1]) for m in counts}
        exact = min(values.values())
        assert ours[i] <= float(exact) * (1 + 1e-12)
        if n <= 100:  # every count: the minimum itself
            assert float(exact) <= ours[i]
        # never above the bound at the survivors' count itself (post-processing makes fewer survivors count)
        assert ours[i] <= float(values[n]) * (1 + 1e-12)


def test_ddg_curve_at_one_client_is_the_discrete_gaussian():
    orders = np.array([2.0, 3.5, 100.0])
    assert np.allclose(
        distributed_discrete_gaussian_rdp(4.0, 1, 6.0, 36.0, 9, orders),
        orders * 36 / 32,
        rtol=1e-14,
    )


def test_skellam_curve_is_theorem_3_5_at_50_digits():
    v, l2, l1 = 1234.5, 7.0, 40.0
    orders = np.array([2.0, 3.0, 17.0, 256.0])
    ours = skellam_rdp(v, l2, l1, orders)
    with mpmath.workdps(50):
        for i, alpha in enumerate(orders):
            a, vv = mpmath.mpf(alpha), mpmath.mpf(v)
            exact = a * l2**2 / (2 * vv) + min(
                ((2 * a - 1) * l2**2 + 6 * l1) / (4 * vv**2), 3 * mpmath.mpf(l1) / (2 * vv)
            )
            assert float(exact) <= ours[i] <= float(exact) * (1 + 1e-13)


def test_skellam_is_refused_at_fractional_orders():
    with pytest.raises(ValueError, match="orders must be integers"):
        skellam_rdp(10.0, 1.0, 1.0, [2.5])


@pytest.mark.parametrize("case", REFERENCE)
def test_the_reference_codes_epsilons(case):
    gamma, sd, n, c, beta, d, steps, delta, ref_ddg, ref_skellam = case
    sens = integer_sensitivity(clip_norm=c, granularity=gamma, dimension=d, beta=beta)
    s = sd / gamma
    # at the reference's orders: ours (minimised over n' <= n, rounded up) never above theirs but by rounding
    ddg = rdp_to_epsilon(
        steps * distributed_discrete_gaussian_rdp(s, n, sens.l2, sens.l1, d, REFERENCE_ORDERS),
        REFERENCE_ORDERS,
        delta,
    )
    skellam = rdp_to_epsilon(
        steps * skellam_rdp(n * s * s, sens.l2, sens.l1, REFERENCE_ORDERS), REFERENCE_ORDERS, delta
    )
    assert ddg <= ref_ddg * (1 + 1e-12)
    assert skellam == pytest.approx(ref_skellam, rel=1e-12) and skellam >= ref_skellam * (1 - 1e-15)
    if _reference_tau(s, n) < 1e-12:  # tau negligible: the same bound at n' = n
        assert ddg == pytest.approx(ref_ddg, rel=1e-9)
    # the accountants (more orders) are never above the reference
    parameters = dict(
        clip_norm=c,
        granularity=gamma,
        dimension=d,
        local_sigma=sd,
        min_surviving_clients=n,
        rounds=steps,
        beta=beta,
    )
    assert DistributedDiscreteGaussian(**parameters).epsilon(delta) <= ref_ddg * (1 + 1e-12)
    assert DistributedSkellam(**parameters).epsilon(delta) <= ref_skellam * (1 + 1e-12)


def test_dropout_minimum_beats_the_bound_at_n_where_tau_dominates():
    # s = 0.6: tau grows with n, so fewer survivors certify less privacy loss; the reference's 122.4 at n = 100
    gamma, sd, n, c, beta, d, steps, delta, ref_ddg, _ = REFERENCE[-1]
    acc = DistributedDiscreteGaussian(
        clip_norm=c,
        granularity=gamma,
        dimension=d,
        local_sigma=sd,
        min_surviving_clients=n,
        rounds=steps,
        beta=beta,
    )
    assert acc.epsilon(delta) < 0.6 * ref_ddg
