"""How many canaries an audit needs: to refute a claimed epsilon that understates the leakage by a factor.

The audit reads one threshold, fixed in advance (``Explicit``), at false-positive rate ``fpr``, with
n in- and n out-canaries.  The mechanism leaks ``factor`` times the claimed epsilon along that test:
its TPR there is e^(factor eps) fpr + delta (the (factor eps, delta) line, which randomized response
meets exactly).  The claim is refuted when the Clopper-Pearson bound log((TPR_low - delta) /
FPR_up), each limit at significance / 2, exceeds eps.  ``canaries_needed`` is the n, found by
doubling and then bisection, from which that happens with the true-positive count at its (1 -
power)-quantile and the false-positive count at its power-quantile (each unfavourable with
probability 1 - power, so the audit succeeds with probability about ``power`` or more; the counts'
integer steps can make the outcome flicker by a few canaries around it).  n grows like 1 / (fpr
(e^(factor eps) - e^eps)^2) for small gaps: halving the gap quadruples the canaries.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..base import validation as _validation
from ._checks import delta_value, significance_level
from .epsilon import log_ratio_lower
from .tails import clopper_pearson_lower, clopper_pearson_upper

__all__ = ["canaries_needed"]

MAX_CANARIES = 10**12


def canaries_needed(
    epsilon: Any,
    factor: Any,
    *,
    fpr: Any,
    delta: Any = 0.0,
    significance: Any = 0.05,
    power: Any = 0.5,
) -> int:
    r"""Compute the canaries per side an audit needs to refute a claimed ``epsilon`` that understates the leakage.

    The audit reads one threshold fixed in advance (``Explicit``) at false-positive rate ``fpr``,
    with n in- and n out-canaries, and the mechanism leaks ``factor`` times the claim along that
    test: its TPR there is :math:`\mathrm{TPR} = e^{\mathrm{factor}\,\varepsilon}\,\mathrm{fpr} +
    \delta` (the (factor epsilon, delta) line, which randomized response meets exactly). The claim
    is refuted when

    .. math::

        \log\frac{\mathrm{TPR}_{\mathrm{low}} - \delta}{\mathrm{FPR}_{\mathrm{up}}} > \varepsilon,

    each Clopper-Pearson limit at significance / 2. The result is the least n, found by doubling and
    then bisection, at which that happens with the true-positive count at its (1 - power)-quantile
    and the false-positive count at its power-quantile: the audit then succeeds with probability
    about ``power`` or more (the counts' integer steps can make the outcome flicker by a few
    canaries around it). n grows like :math:`1 / (\mathrm{fpr}\,(e^{\mathrm{factor}\,\varepsilon} -
    e^{\varepsilon})^2)`: halving the gap quadruples the canaries.

    Parameters
    ----------
    epsilon : float
        The claimed epsilon, finite and > 0.
    factor : float
        The true leakage over the claim, finite and > 1.
    fpr : float
        The test's false-positive rate, in (0, 1), with e^(factor epsilon) fpr + delta < 1.
    delta : float, optional
        The claim's delta, in [0, 1) (default 0).
    significance : float, optional
        The audit's level, in (0, 1) (default 0.05).
    power : float, optional
        The wanted probability of refuting, in (0, 1) (default 0.5).

    Returns
    -------
    int
        In- (and as many out-) canaries, at most 2^39 (about 5.5e11).

    Raises
    ------
    ValueError
        If ``epsilon`` is not finite and > 0, ``factor`` not finite and > 1, ``fpr``,
        ``significance`` or ``power`` outside (0, 1), ``delta`` outside [0, 1), e^(factor epsilon)
        fpr + delta >= 1, or the doubling reaches no refuting number of canaries up to 10^12 (it
        tries the powers of 2 up to 2^39).
    ParameterTypeError
        If an argument is a string, a boolean or None.

    Examples
    --------
    >>> from hockeystick import audit
    >>> [audit.canaries_needed(1.0, f, fpr=0.01) for f in (2.0, 1.5, 1.2, 1.1)]
    [699, 3228, 22821, 94325]
    >>> audit.canaries_needed(1.0, 1.5, fpr=0.01, power=0.9)
    8429
    """
    eps = float(_validation.positive(_validation.single(epsilon, "epsilon"), "epsilon"))
    gap = float(_validation.single(factor, "factor"))
    if not gap > 1.0 or not math.isfinite(gap):
        raise ValueError(
            f"factor must be finite and > 1 (the true leakage over the claim), got {factor!r}"
        )
    rate = float(
        _validation.in_interval(
            _validation.single(fpr, "fpr"), "fpr", 0.0, 1.0, open_low=True, open_high=True
        )
    )
    d = delta_value(delta, zero=True)
    s = significance_level(significance)
    want = float(
        _validation.in_interval(
            _validation.single(power, "power"), "power", 0.0, 1.0, open_low=True, open_high=True
        )
    )
    # e^(factor eps) fpr + delta, in logarithms first: factor eps can be past exp's range (the TPR
    # then is not < 1)
    tpr = math.exp(gap * eps + math.log(rate)) + d if gap * eps + math.log(rate) < 1.0 else math.inf
    if not tpr < 1.0:
        raise ValueError(
            f"fpr must leave the true TPR e^(factor epsilon) fpr + delta below 1, got {tpr:.6g} at fpr = {rate!r}; "
            "choose a smaller fpr"
        )
    from scipy import stats  # lazy: scipy loads at its first use, not with the package

    def refutes(n: int) -> bool:
        tp = int(stats.binom.ppf(1.0 - want, n, tpr))
        fp = int(stats.binom.isf(1.0 - want, n, rate))
        low = clopper_pearson_lower(tp, n, s / 2)
        up = clopper_pearson_upper(fp, n, s / 2)
        return bool(log_ratio_lower(np.asarray(low), d, np.asarray(up)) > eps)

    high = 1
    while not refutes(high):
        high *= 2
        if high > MAX_CANARIES:
            raise ValueError(
                f"no number of canaries up to {MAX_CANARIES:.0e} refutes epsilon = {eps:g} at factor {gap:g} and "
                f"fpr = {rate:g} with significance = {s:g} and power = {want:g}: raise the fpr, the factor or the "
                "significance, or lower the power"
            )
    low = high // 2  # does not refute (or is 0)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if refutes(middle) else (middle, high)
    return high
