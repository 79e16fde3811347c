"""The lower side of sampling with replacement around Laplace noise, against a realizable pair (open).

Every other record at -1, the new record at -1 and the old one at +1 (sensitivity 1, replace-one)
realise P = sum_c b_c Lap(2c, b) vs Q = Lap(0, b), b_c = Binom(c; K, 1/n) (the construction of
``pld.with_replacement_subsampled_gaussian``'s realizable pair): the mechanism's worst-case delta is
at least this pair's, computed here at 50 digits.  A certified lower side must not exceed the
mechanism's delta, but the adapter's lower side brackets the joint-convexity bound
sum_c b_c H_c(1 + (e^eps - 1)/eta) (``pld.subsampled_pair.with_replacement_curves``), which lies
above the realizable pair (at n = K = 2, eps = 1: 0.35493 where the pair gives 0.32771), so it is
no lower side.  The lower side is the realizable pair's own (``pld.with_replacement_realizable``), so
it must not exceed this pair's delta (tests/interop/test_interop_with_replacement_realizable.py checks more
settings, noises and orders).
"""

from __future__ import annotations

import mpmath as mp
import pytest
from dp_accounting import dp_event as E
from dp_accounting.privacy_accountant import NeighboringRelation
from scipy import stats

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
from hockeystick.pld.refine import AccuracyNotMetWarning


def realizable_delta(n: int, k: int, eps: float, scale: float = 1.0) -> float:
    """delta(eps) of sum_c b_c Lap(2c, scale) vs Lap(0, scale), the larger of both orders, 50 digits."""
    with mp.workdps(50):
        b = [mp.mpf(float(stats.binom.pmf(c, k, 1.0 / n))) for c in range(k + 1)]

        def lap(x, m):
            return mp.exp(-abs(x - m) / scale) / (2 * scale)

        def p(x):
            return sum(b[c] * lap(x, 2 * c) for c in range(k + 1))

        g = mp.e**eps
        kinks = [mp.mpf(2 * c) for c in range(k + 1)]

        def integral(
            f,
        ):  # the kink where f changes sign is a cut too (quad is inaccurate across it: 1.6e-7 here)
            roots = [
                mp.findroot(f, (a, z), solver="anderson")
                for a, z in zip(kinks, kinks[1:])
                if f(a) * f(z) < 0
            ]
            return mp.quad(lambda x: max(f(x), 0), [-mp.inf] + sorted(kinks + roots) + [mp.inf])

        return float(
            max(integral(lambda x: p(x) - g * lap(x, 0)), integral(lambda x: lap(x, 0) - g * p(x)))
        )


def _bracket(n: int, k: int, eps: float) -> tuple[float, float]:
    """The adapter's delta bracket at accuracy 1e-4, which warns: the realizable pair's lower side lies below the
    joint-convexity bound's upper side, far more than 1e-4 relative."""
    accountant = HockeystickPLDAccountant(NeighboringRelation.REPLACE_ONE, accuracy=1e-4).compose(
        E.SampledWithReplacementDpEvent(n, k, E.LaplaceDpEvent(1.0))
    )
    with pytest.warns(AccuracyNotMetWarning, match="delta brackets are wider"):
        lo, up = accountant.get_delta_bracket(eps)
    assert up - lo > 1e-4 * up
    return lo, up


@pytest.mark.parametrize("n,k,eps", [(2, 2, 1.0), (3, 4, 1.0)])
def test_lower_side_is_at_most_the_realizable_pairs_delta(n, k, eps):
    lo, up = _bracket(n, k, eps)
    exact = realizable_delta(n, k, eps)
    assert up >= exact  # the upper side holds (it bounds every pair)
    assert lo <= exact


@pytest.mark.parametrize("n,k,eps", [(2, 2, 1.0), (3, 4, 1.0), (10, 5, 0.5)])
def test_upper_side_is_above_the_realizable_pairs_delta(n, k, eps):
    up = _bracket(n, k, eps)[1]
    assert up >= realizable_delta(n, k, eps)
