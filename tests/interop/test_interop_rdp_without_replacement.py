"""RDP of sampling without replacement (Wang, Balle, Kasiviswanathan 2019) in HockeystickRdpAccountant.

Against dp_accounting's RdpAccountant (at half the noise multiplier: under REPLACE_ONE a Gaussian
shifts by two sensitivities here, by one there), against 600-digit forward differences where
dp_accounting's float differences cancel, and against hockeystick's own certified PLD lower bound
of the same event (an RDP upper bound below it would be wrong).
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

dp_accounting = pytest.importorskip("dp_accounting")
from dp_accounting import dp_event as E  # noqa: E402
from dp_accounting.privacy_accountant import NeighboringRelation as N  # noqa: E402
from dp_accounting.privacy_accountant import UnsupportedEventError  # noqa: E402
from dp_accounting.rdp import rdp_privacy_accountant as R  # noqa: E402

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant, HockeystickRdpAccountant  # noqa: E402
from hockeystick.rdp.sampled_without_replacement import (  # noqa: E402
    log_even_differences,
    sampled_without_replacement_gaussian_rdp,
)

ORDERS = np.array(
    [1.25, 1.5, 2.0, 2.5, 3.0, 4.5, 8.0, 16.0, 32.0, 63.5, 200.0, 256.0, 300.0, 1000.0]
)


@pytest.mark.parametrize(
    "n, m, sigma", [(1000, 10, 2.0), (100, 10, 8.0), (60000, 256, 1.4), (50, 50, 3.0)]
)
def test_parity_with_dp_accounting_at_half_the_noise(n, m, sigma):
    event = E.SelfComposedDpEvent(
        E.SampledWithoutReplacementDpEvent(n, m, E.GaussianDpEvent(sigma)), 7
    )
    ours = HockeystickRdpAccountant(orders=ORDERS, neighboring_relation=N.REPLACE_ONE).compose(
        event
    )
    theirs = R.RdpAccountant(orders=ORDERS, neighboring_relation=N.REPLACE_ONE).compose(
        E.SelfComposedDpEvent(
            E.SampledWithoutReplacementDpEvent(n, m, E.GaussianDpEvent(sigma / 2)), 7
        )
    )
    np.testing.assert_allclose(ours.rdp, theirs.rdp, rtol=1e-9)
    assert ours.get_epsilon(1e-5) == pytest.approx(theirs.get_epsilon(1e-5), rel=1e-9)


def test_forward_differences_are_exact_where_float_differences_cancel():
    c = 0.005  # radius 0.1: the alternating sum loses ~370 digits at j = 256
    ours = log_even_differences(c, 130)
    for j in (2, 40, 128):
        with mp.workdps(600):
            exact = mp.log(
                mp.fsum(
                    (-1) ** (j - k) * mp.binomial(j, k) * mp.e ** (mp.mpf(c) * k * (k - 1))
                    for k in range(j + 1)
                )
            )
        assert ours[j] == pytest.approx(float(exact), rel=1e-12)
    # dp_accounting's float differences overshoot there: its bound is larger (valid, looser)
    rdp = sampled_without_replacement_gaussian_rdp(0.1, 0.3, np.array([64.0, 128.0]))
    theirs = R._compute_rdp_sample_wor_gaussian(0.3, 10.0, [64.0, 128.0])
    assert np.all(rdp <= theirs) and rdp[1] < 0.5 * theirs[1]


@pytest.mark.parametrize(
    "event",
    [
        E.SelfComposedDpEvent(E.GaussianDpEvent(4.0), 10),
        E.SelfComposedDpEvent(
            E.SampledWithoutReplacementDpEvent(1000, 50, E.GaussianDpEvent(1.5)), 40
        ),
        E.SelfComposedDpEvent(
            E.SampledWithoutReplacementDpEvent(200, 100, E.GaussianDpEvent(3.0)), 5
        ),
    ],
)
def test_rdp_is_never_below_the_certified_pld_lower_bound_under_replace_one(event):
    rdp = (
        HockeystickRdpAccountant(neighboring_relation=N.REPLACE_ONE)
        .compose(event)
        .get_epsilon(1e-5)
    )
    lo, up = HockeystickPLDAccountant(N.REPLACE_ONE).compose(event).get_epsilon_bracket(1e-5)
    assert rdp >= lo
    # dp_accounting's RDP accountant reads the same event with half the shift and falls below it
    theirs = R.RdpAccountant(neighboring_relation=N.REPLACE_ONE).compose(event).get_epsilon(1e-5)
    assert theirs < lo


@pytest.mark.parametrize(
    "relation, event",
    [
        (N.ADD_OR_REMOVE_ONE, E.SampledWithoutReplacementDpEvent(100, 10, E.GaussianDpEvent(1.0))),
        (N.REPLACE_ONE, E.SampledWithoutReplacementDpEvent(100, 10, E.LaplaceDpEvent(1.0))),
        (N.REPLACE_ONE, E.RepeatAndSelectDpEvent(E.LaplaceDpEvent(1.0), 10.0, 1.0)),
    ],
)
def test_unsupported_without_replacement_settings_are_refused(relation, event):
    acc = HockeystickRdpAccountant(neighboring_relation=relation)
    assert not acc.supports(event)
    with pytest.raises(UnsupportedEventError):
        acc.compose(event)


def test_edges_and_bad_input():
    acc = HockeystickRdpAccountant(neighboring_relation=N.REPLACE_ONE)
    acc.compose(E.SampledWithoutReplacementDpEvent(100, 0, E.GaussianDpEvent(1.0)))
    assert acc.get_epsilon(1e-5) == 0.0
    acc.compose(E.SampledWithoutReplacementDpEvent(100, 5, E.GaussianDpEvent(0.0)))
    assert acc.get_epsilon(1e-5) == np.inf
    with pytest.raises(ValueError, match="sample_size"):
        HockeystickRdpAccountant(neighboring_relation=N.REPLACE_ONE).compose(
            E.SampledWithoutReplacementDpEvent(10, 11, E.GaussianDpEvent(1.0))
        )
    with pytest.raises(ValueError, match="orders"):
        sampled_without_replacement_gaussian_rdp(1.0, 0.1, [1.0, 2.0])
