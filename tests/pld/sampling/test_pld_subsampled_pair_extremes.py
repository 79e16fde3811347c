"""The generic subsampling curves where e^eps leaves the doubles: no NaN, and still on the safe side.

A pure (2000, 0)-DP inner pair (Laplace of scale 1e-3 at sensitivity 2) puts the sampled pair's
losses far beyond 709, where expm1 overflows: the remove curve's argument is then taken as
d + log1p(-e^-d), curves are read as they are at eps = +-inf, and grid_factor's grid stops at
|loss| = 700 (valid, only looser).  Values against 50-digit mpmath; the direction of each side.
"""

from __future__ import annotations

import math
import warnings

import mpmath as mp
import numpy as np
import pytest

from hockeystick.pld.refine.unmet import AccuracyNotMetWarning
from hockeystick.pld.sampling.subsampled_pair import poisson_add_curve, poisson_remove_curve

EPS0, Q = 2000.0, 0.06


def pure_curve(eps: np.ndarray) -> np.ndarray:
    """delta(eps) of an (EPS0, 0)-DP pair's worst case: (1 - e^{eps - EPS0})_+ (both orders)."""
    with np.errstate(over="ignore"):
        return np.clip(-np.expm1(np.asarray(eps, dtype=np.float64) - EPS0), 0.0, 1.0)


def exact_remove(eps: float) -> float:
    """q H(1 + (e^eps - 1)/q) at 50 digits (0 at eps = inf: H vanishes at infinity)."""
    if eps == math.inf:
        return 0.0
    with mp.workdps(50):
        arg = 1 + (mp.e ** mp.mpf(eps) - 1) / Q
        return float(Q * max(mp.mpf(0), 1 - arg * mp.e ** (-EPS0)))


@pytest.mark.parametrize("upper", [True, False])
def test_remove_curve_beyond_overflow_is_finite_and_safe(upper):
    eps = np.array([1.0, 800.0, 1500.0, 1990.0, 3000.0, np.inf])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = poisson_remove_curve(pure_curve, Q, upper)(eps)
    assert not np.any(np.isnan(got))
    for e, value in zip(eps, got):
        exact = exact_remove(float(e))
        assert (value >= exact) if upper else (value <= exact), (e, value, exact)
    assert got[3] == pytest.approx(exact_remove(1990.0), rel=1e-9)


@pytest.mark.parametrize("upper", [True, False])
def test_add_curve_at_minus_infinity_is_one(upper):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = poisson_add_curve(pure_curve, Q, upper)(np.array([-np.inf, -800.0]))
    assert not np.any(np.isnan(got))
    assert (np.all(got == 1.0)) if upper else np.all(got <= 1.0)


@pytest.mark.slow
def test_with_replacement_laplace_whose_losses_pass_700_gives_a_bracket(monkeypatch):
    """Laplace scale 2.5e-3 drawn with replacement (n = 1000, K = 64) under replace-one: the losses reach
    800 c, past 700 already for one copy (scale 2.5e-3 rather than 1e-3 keeps every group's grid 2.5 times
    shorter; the regime, losses whose e^eps leaves the doubles, is the same); delta(10) is the chance the
    record is drawn, 1 - (1 - 1/n)^K, less e^-790.  The plan's first grid is 3e-2 rather than 3e-3: the
    grid stops at |loss| = 700 whatever its spacing, so the regime is the same on 10 times fewer points,
    and each grid's bracket is certified (the width asked here is met on it with six digits to spare)."""
    pytest.importorskip("dp_accounting")
    from dp_accounting import dp_event as ev
    from dp_accounting.privacy_accountant import NeighboringRelation

    from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
    from hockeystick.pld.refine import tuning

    monkeypatch.setattr(tuning, "PLAN_COARSEST_INTERVAL", 3e-2)

    acc = HockeystickPLDAccountant(
        neighboring_relation=NeighboringRelation.REPLACE_ONE, accuracy=1e-2
    )
    acc.compose(ev.SampledWithReplacementDpEvent(1000, 64, ev.LaplaceDpEvent(2.5e-3)))
    drawn = -math.expm1(64 * math.log1p(-1e-3))
    lo, up = acc.get_delta_bracket(10.0)
    assert lo <= drawn <= up and up - lo < 1e-4
    # the true epsilon is about 800; the upper side is the grid's end, then inf, so the accuracy is not met and
    # says so; the lower side comes from the realizable pair's threshold tests past loss 500
    # (pld.with_replacement_realizable), ~690: below it, safe
    with pytest.warns(AccuracyNotMetWarning, match="wider than accuracy"):
        eps_lo, eps_up = acc.get_epsilon_bracket(1e-5)
    assert 500.0 <= eps_lo <= eps_up


def test_the_secant_tents_read_no_uninitialized_memory(monkeypatch):
    """The lower PMF's secant tents take every slope from the curves: with numpy's uninitialized
    arrays filled with 1e308 (np.empty may hold any bits), a with-replacement build (groups of c
    copies of a (0.5, 0)-DP pair) raises no overflow and gives the same optimistic masses bit for bit."""
    from hockeystick.pld.sampling.subsampled_pair import with_replacement_curves

    def group(c: int):
        def curve(eps: np.ndarray) -> np.ndarray:
            with np.errstate(over="ignore"):
                return np.clip(-np.expm1(np.asarray(eps, dtype=np.float64) - 0.5 * c), 0.0, 1.0)

        return curve, curve

    def optimistic_masses() -> list[np.ndarray]:
        built = with_replacement_curves(group, 8, 50, 4.0, value_discretization_interval=2e-2)
        return [side.p.copy() for side in built.composed(False)]

    clean = optimistic_masses()
    real_empty = np.empty
    monkeypatch.setattr(np, "empty", lambda *a, **kw: np.full(*a, 1e308, **kw))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        poisoned = optimistic_masses()
    monkeypatch.setattr(np, "empty", real_empty)
    assert len(poisoned) == len(clean) > 0
    for a, b in zip(clean, poisoned):
        assert np.array_equal(a, b)
