"""A monotone pair's cut tails: the pessimistic side keeps them at +infinity, so its delta never falls below
the exact value where the tails are all that is left (delta near the tail mass, about 1e-16)."""

from __future__ import annotations

import mpmath
import pytest

import hockeystick.pld as pld

MP_DPS = 50
mpmath.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test


def mixture_delta(sigma: float, weights: tuple[float, float], shift: float, eps: float) -> float:
    """delta(eps) of w0 N(0, s^2) + w1 N(shift, s^2) vs N(0, s^2) (remove): the loss grows with x, so delta is
    P(X > x*) - e^eps Q(X > x*) at the crossing x*, in closed form with normal tails."""
    s, g = mpmath.mpf(sigma), mpmath.e ** mpmath.mpf(eps)
    w0, w1, m = (mpmath.mpf(str(v)) for v in (*weights, shift))

    def excess(x: mpmath.mpf) -> mpmath.mpf:
        return w0 + w1 * mpmath.e ** ((m * x - m * m / 2) / s**2) - g

    x_star = mpmath.findroot(excess, (mpmath.mpf(-200), mpmath.mpf(400)), solver="bisect")
    tail = lambda a: mpmath.ncdf(-a)  # noqa: E731
    return float(w0 * tail(x_star / s) + w1 * tail((x_star - m) / s) - g * tail(x_star / s))


@pytest.mark.parametrize("eps", [0.3, 0.45, 0.6])
def test_mixture_of_gaussians_upper_side_holds_where_only_the_tails_remain(eps: float) -> None:
    """0.98 N(0, 4) + 0.02 N(1, 4) vs N(0, 4): at eps = 0.45 the upper side read 5.04895e-14 below the
    exact 5.04923e-14 when the cut tails (about 2.5e-16) were left out of the +infinity mass."""
    remove = pld.PrivacyLossDistribution(
        [pld.mixture_of_gaussians(2.0, [0.0, 1.0], [0.98, 0.02]).directions[0]]
    )
    lower, upper = remove.delta(eps, bound="both")
    exact = mixture_delta(2.0, (0.98, 0.02), 1.0, eps)
    assert lower <= exact <= upper
