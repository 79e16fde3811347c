"""The power's refinement past an accountant's round-off floor: where the certified upper delta is one constant
and the lower delta 0, D's bracket is the same at both ends of every interval, and no eps inside is asked for.

The reference is randomized response with epsilon_0 (pure DP): D(eps) = (e^eps_0 - e^eps)_+ / (1 + e^eps_0)
exactly, and its trade-off gives the TPR at a false-positive rate alpha <= 1 / (1 + e^eps_0) as e^eps_0 alpha
(Dong, Roth & Su 2022, Prop. 2.12; Kairouz, Oh & Viswanath 2015).  The accountant below certifies it with an
upper side raised to a floor, as a composition's round-off raises it: still an upper bound.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

import hockeystick.risk as risk

EPS0 = 1.0  # a multiple of the first grid's spacing (1/8): a node sits at the profile's kink
FLOOR = 1e-25  # the upper side's floor, as a certified curve's round-off leaves it
U = 2.0**-53


class FlooredRandomizedResponse:
    """Randomized response's certified delta, its upper side never below ``FLOOR``; counts the eps asked."""

    def __init__(self) -> None:
        self.asked: list[float] = []

    def delta(self, epsilon: np.ndarray, bound: str = "upper"):
        eps = np.asarray(epsilon, dtype=np.float64)
        self.asked.extend(np.ravel(eps).tolist())
        with np.errstate(over="ignore"):
            exact = np.maximum(math.exp(EPS0) - np.exp(np.minimum(eps, 709.0)), 0.0) / (
                1.0 + math.exp(EPS0)
            )
        lower = exact * (1.0 - 8 * U)
        upper = np.maximum(exact * (1.0 + 8 * U), FLOOR)
        return {"lower": lower, "upper": upper, "both": (lower, upper)}[bound]


def _exact_tpr(alpha: float) -> float:
    """min over t >= 0 of D(t) + alpha t at 50 digits: e^eps_0 alpha for a small alpha."""
    with mp.workdps(50):
        e0 = mp.e ** mp.mpf(EPS0)
        return float(min(e0 * mp.mpf(alpha), 1 - (1 - mp.mpf(alpha)) / e0))


def test_no_eps_is_asked_inside_an_interval_where_the_bracket_is_flat():
    for alpha in (5e-324, 1e-300, 1e-40):
        accountant = FlooredRandomizedResponse()
        lower, upper = risk.tpr_at_fpr(accountant, alpha, bound="both")
        assert lower <= _exact_tpr(alpha) <= upper <= FLOOR * (1.0 + 1e-9)
        # past eps_0 the bracket is (0, FLOOR) everywhere: only the first grid's nodes (multiples of 1/8, out to
        # where the reach stops) are asked, none of the finer refinements' (3.2e5 of them out to eps 688)
        past = np.array([e for e in accountant.asked if e > EPS0 + 0.125])
        off_grid = past[past * 8 != np.round(past * 8)]
        assert past.size > 0 and off_grid.size == 0, off_grid[:5]


def test_the_bracket_stays_tight_where_the_floor_does_not_bind():
    """alpha = 1e-3: the minimum lies at the kink t = e^eps_0 (a node), both sides within 1e-9 of e^eps_0 alpha."""
    lower, upper = risk.tpr_at_fpr(FlooredRandomizedResponse(), 1e-3, bound="both")
    exact = _exact_tpr(1e-3)
    assert exact * (1.0 - 1e-9) <= lower <= exact <= upper <= exact * (1.0 + 1e-9)
