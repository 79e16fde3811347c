"""The mirrored upper pair for batches drawn WITH replacement under replace-one neighbours.

K indices drawn uniformly with replacement from n records; the released statistic is the sum of
their contributions (each of norm <= Delta, so replacing one copy moves it by at most 2 Delta)
plus N(0, sigma^2 I).  With b_c = Binom(c; K, 1/n) and s = sigma/Delta,
for every gamma = e^eps >= 0, both orders of every neighbouring pair, any dimension:

    H_gamma(M(D) || M(D')) <= H_gamma(sum_c b_c N(2c, s^2) || sum_c b_c N(-2c, s^2))      (**)

(proof: cpp/include/hockeystick/pld_replace_one.hpp, from the conditional coupling of Schuchardt,
Stoian, Kosmala & Guennemann, NeurIPS 2024, Sec. 3, and the Gaussian shift inequality, i.e.
Neyman-Pearson for two Gaussians).  The pair is its own mirror image, so it is a dominating pair
(Zhu, Dong & Wang, AISTATS 2022, Def. 7) and composes adaptively without symmetrisation.  It
complements the bound (*) of :func:`mechanisms.with_replacement_subsampled_gaussian`, which is
tight for K = 1 but labels the copy count c (each c >= 2 amplified by 1 - b_0 only);
:class:`fixed_batch.WithReplacementBatchGaussianPLD` composes both and reports the smaller.
"""

from __future__ import annotations

import numpy as np

from .. import _core
from .compose import DEFAULT_TAIL
from .distribution import PrivacyLossDistribution
from .mechanisms import DEFAULT_INTERVAL, MAX_CELLS, _check_tail, _factor, _positive, checked_interval


def with_replacement_mirrored_gaussian(sigma: float, batch_size: int, n: int, *, sensitivity: float = 1.0,
                                       value_discretization_interval: float = DEFAULT_INTERVAL,
                                       tail: float = DEFAULT_TAIL) -> PrivacyLossDistribution:
    """The PLD of the mirrored pair (**), pessimistic side only (``bound="upper"``).

    ``sensitivity`` = Delta bounds one record's contribution to the released statistic (L/K for
    the mean of K gradients clipped to L).  Copy counts beyond the kept ones (mass <= tail/4) are
    put at loss +infinity.
    """
    s = _positive("sigma", sigma) / _positive("sensitivity", sensitivity)
    if (isinstance(batch_size, bool) or isinstance(n, bool) or not isinstance(batch_size, (int, np.integer))
            or not isinstance(n, (int, np.integer)) or batch_size < 1 or n < 1):
        raise ValueError(f"batch_size and n must be positive integers (batch_size may exceed "
                         f"n: draws are with replacement), got {batch_size!r}, {n!r}")
    h = checked_interval(value_discretization_interval)
    t = _check_tail(tail)
    raw = _core.pld_with_replacement_mirrored_gaussian(s, int(batch_size), int(n), h, t, MAX_CELLS)
    f = _factor(f"with_replacement_mirrored_gaussian(sigma={s}, K={batch_size}, n={n}, replace-one)", raw)
    return PrivacyLossDistribution([{f: 1}], t)
