"""epsilon at delta = 0 of Poisson-sampled pure-DP events under add-or-remove (``interop.dp_accounting.pure_dp``).

References: mpmath at 50 digits, for the closed form k log(1 + q (e^{eps0} - 1)) (Balle, Barthe & Gaboardi
2018, Thm 8) and for the sampled pair's privacy loss evaluated directly from the Laplace densities where it
is largest (x >= 1 for the remove direction, x <= 0 for the add one); the PLD's own bracket at a small positive
delta, whose lower side can only be below epsilon(0)."""

from __future__ import annotations

import math

import mpmath
import pytest
from dp_accounting import dp_event as E
from dp_accounting.privacy_accountant import NeighboringRelation

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
from hockeystick.interop.dp_accounting.catalogue_events import EpsilonDeltaDpEvent
from hockeystick.interop.dp_accounting.pure_dp import largest_losses
from hockeystick.interop.dp_accounting.selection_events import ExponentialMechanismDpEvent

mpmath.mp.dps = 50


def amplified(q, eps0):
    return mpmath.log(1 + mpmath.mpf(q) * mpmath.expm1(mpmath.mpf(eps0)))


def contains(bracket, exact):
    lo, up = bracket
    assert mpmath.mpf(lo) <= exact <= mpmath.mpf(up)
    assert up - lo <= 1e-14 * max(
        1.0, float(exact)
    )  # exact: the bracket is the closed form, rounded outward


@pytest.mark.parametrize(
    ("q", "b", "k"), [(0.1, 1.0, 1), (0.01, 0.2, 10), (0.5, 1e-3, 3), (1e-6, 2.0, 1000)]
)
def test_sampled_laplace_is_k_log_1_plus_q_expm1(q, b, k):
    # the first two were (0.1585, inf) and "certified only down to 1e-15"
    a = HockeystickPLDAccountant().compose(E.PoissonSampledDpEvent(q, E.LaplaceDpEvent(b)), k)
    contains(a.get_epsilon_bracket(0.0), k * amplified(q, 1 / mpmath.mpf(b)))
    if (
        b >= 0.2
    ):  # epsilon(delta) rises to epsilon(0) as delta falls: the lower side at 1e-12 is below it
        assert a.get_epsilon_bracket(1e-12)[0] <= a.get_epsilon_bracket(0.0)[1]


def test_the_largest_losses_are_the_laplace_mixtures_loss_where_it_is_flat():
    """log(P/Q) of P = (1 - q) Lap(0, b) + q Lap(1, b), Q = Lap(0, b): constant for x >= 1 (remove's largest),
    and log(Q/P) constant for x <= 0 (add's largest); the remove side is the larger."""
    q, b = 0.3, 0.7
    (r_lo, r_up), (a_lo, a_up) = largest_losses(("laplace_mixture", b, (0.0, 1.0), (1 - q, q)))

    def loss(x):
        lap = lambda m: mpmath.exp(-abs(x - m) / mpmath.mpf(b))  # noqa: E731 (a density up to its constant)
        return mpmath.log(((1 - mpmath.mpf(q)) * lap(0) + q * lap(1)) / lap(0))

    assert float(r_lo) <= loss(mpmath.mpf(3)) <= float(r_up)
    assert float(a_lo) <= -loss(mpmath.mpf(-2)) <= float(a_up)
    assert max(-loss(mpmath.mpf(x) / 10) for x in range(-30, 40)) <= loss(mpmath.mpf(3))


def test_other_sampled_pure_events_and_mixed_compositions_sum_their_remove_losses():
    events = [
        (E.PoissonSampledDpEvent(0.2, ExponentialMechanismDpEvent(1.5)), 2),
        (E.PoissonSampledDpEvent(0.05, E.DiscreteLaplaceDpEvent(0.4, 3)), 1),
        (E.LaplaceDpEvent(4.0), 1),
    ]
    a = HockeystickPLDAccountant()
    for event, count in events:
        a.compose(event, count)
    exact = 2 * amplified(0.2, 1.5) + amplified(0.05, mpmath.mpf(0.4) * 3) + 1 / mpmath.mpf(4)
    contains(a.get_epsilon_bracket(0.0), exact)


def test_unproven_settings_are_not_given_a_closed_form():
    # a delta floor inside the sample: refused, not summed
    with pytest.raises(ValueError, match="target_delta"):
        HockeystickPLDAccountant().compose(
            E.PoissonSampledDpEvent(0.1, E.LaplaceDpEvent(1.0))
        ).compose(E.PoissonSampledDpEvent(0.1, EpsilonDeltaDpEvent(1.0, 1e-5))).get_epsilon(0.0)
    # Poisson sampling under replace-one is analysed for Gaussian inners only
    assert not HockeystickPLDAccountant(NeighboringRelation.REPLACE_ONE).supports(
        E.PoissonSampledDpEvent(0.1, E.LaplaceDpEvent(1.0))
    )
    # a sample of a composition holding a Gaussian (r^2 = 1 in its plan): unbounded loss, no closed form
    assert (
        largest_losses(("poisson_generic", 0.1, (((("laplace", 1.0), 1),), 1.0, False, 1))) is None
    )
    assert not math.isinf(
        HockeystickPLDAccountant()
        .compose(E.PoissonSampledDpEvent(0.1, E.LaplaceDpEvent(1.0)))
        .get_epsilon(0.0)
    )
