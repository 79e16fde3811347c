r"""The Rényi filter: a budget (epsilon, delta) fixed before the run, kept however each round's
settings are chosen from the outputs released before it.

Each round t, chosen after seeing the outputs before it, is rho_t(alpha)-RDP at every order alpha of
a finite set {alpha_1, ..., alpha_K}; R_t(alpha) = rho_1(alpha) + ... + rho_t(alpha) is what has
been spent.  The filter admits the next round only if, with it, some order stays within its budget:

.. math::

    \exists k:\ R_{t+1}(\alpha_k) \le B_k, \qquad
    B_k = \varepsilon + \frac{\log(\delta / K) + \log \alpha_k}{\alpha_k - 1} - \log(1 - 1/\alpha_k),

and the run then satisfies (epsilon, delta)-DP at its halting time T, however the rounds were
chosen.

Proof. Let L_t be the privacy loss of the first t outputs (a neighbouring pair of datasets, outputs
drawn from the first). Given the past, round t's loss has E[e^{(alpha - 1) l_t}] = e^{(alpha - 1)
D_alpha} <= e^{(alpha - 1) rho_t(alpha)}, so M_t^k = exp((alpha_k - 1)(L_t - R_t(alpha_k))) is a
nonnegative supermartingale with M_0 = 1 and E[M_T^k] <= 1 at the stopping time T (Feldman & Zrnic
2021, "Individual privacy accounting via a Rényi filter", for one order; Whitehouse, Ramdas, Rogers
& Wu 2023, "Fully-adaptive composition in differential privacy", for the supermartingale).
Pointwise, (1 - e^{epsilon - L})_+ <= c_k e^{(alpha_k - 1)(L - epsilon)} with c_k = (1/alpha_k)(1 -
1/alpha_k)^{alpha_k - 1} (the maximum of (1 - y) y^{alpha - 1} over y in (0, 1]: the conversion of
Balle et al. 2020, Thm. 21).  At T some order k has R_T(alpha_k) <= B_k (every admitted round kept
one), so

.. math::

    \delta(\varepsilon) = E[(1 - e^{\varepsilon - L_T})_+]
    \le \sum_k c_k e^{(\alpha_k - 1)(B_k - \varepsilon)} E[M_T^k] \le \sum_k \delta / K = \delta.

With one order (K = 1) this is Feldman & Zrnic's filter with the conversion of Balle et al. 2020; K
orders cost delta / K at each, log K / (alpha - 1) in epsilon, against the single order one would
pick if the schedule were known.  ``best_order`` picks that single order from a planned round chosen
before the run (public information, so the choice is not adaptive to the data): the order at which
most planned rounds fit; it refuses a planned round that no order admits even once, rather than
return an order at which nothing fits.  Budgets are rounded down and spent sums up (``RunningSum``),
so the filter never admits a round the exact arithmetic would refuse.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..base.outward_text import outward_text
from ..base.validation import delta_target, describe, single
from .guarantee import PrivacyGuarantee
from .round_rdp import check_integer_orders
from .rounds import Round

__all__ = ["RdpFilter", "best_order", "most_rounds_order", "rdp_budgets", "union_cost"]

_U = 2.0**-53


def union_cost(orders: int) -> str:
    """What a Rényi filter over ``orders`` orders pays against the one order one would pick knowing the schedule.

    Parameters
    ----------
    orders : int
        K, the number of Rényi orders the filter keeps a budget at.

    Returns
    -------
    str
        The cost in words: delta / K at each of K > 1 orders, or none beyond fixing the one order in
        advance.
    """
    return (
        f"a union over {orders} orders (delta / {orders} at each)"
        if orders > 1
        else "one Rényi order fixed in advance"
    )


def rdp_budgets(epsilon: float, delta: float, orders: tuple[int, ...]) -> np.ndarray:
    r"""The Rényi budget B_k at each order that keeps (epsilon, delta) with a union over the K orders.

    :math:`B_k = \varepsilon + (\log(\delta/K) + \log\alpha_k)/(\alpha_k - 1) - \log(1 -
    1/\alpha_k)` (the module docstring), rounded down: each value lowered by 16 u times the sum of
    its terms' magnitudes and stepped one ulp down; a negative budget is an order that can admit
    nothing.

    Parameters
    ----------
    epsilon : float
        The epsilon of the budget, finite and >= 0.
    delta : float
        The delta of the budget, 0 < delta < 1.
    orders : tuple of int
        Integer Rényi orders (each >= 2).

    Returns
    -------
    numpy.ndarray
        One budget per order, at or below the exact B_k.
    """
    alpha = np.asarray(orders, dtype=np.float64)
    k = float(len(orders))
    head = (math.log(delta) - math.log(k) + np.log(alpha)) / (alpha - 1.0)
    tail = -np.log1p(-1.0 / alpha)
    value = epsilon + head + tail
    slack = 16.0 * _U * (epsilon + np.abs(head) + tail + abs(math.log(delta)) + math.log(k))
    return np.nextafter(value - slack, -np.inf)


@dataclass(frozen=True)
class RdpFilter:
    """The Rényi filter of budget (epsilon, delta) at integer ``orders`` (the module docstring).

    Parameters
    ----------
    epsilon : float
        The budget's epsilon, finite and >= 0.
    delta : float
        The budget's delta, 0 < delta < 1.
    orders : tuple of int
        Integer Rényi orders (``round_rdp.check_integer_orders``); one order is Feldman & Zrnic's
        filter.

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.ledger.rdp_filter import RdpFilter
    >>> f = RdpFilter(2.0, 1e-5, (8, 16))
    >>> f.admits(np.array([0.1, 0.2])), f.admits(np.array([5.0, 5.0]))
    (True, False)
    """

    epsilon: float
    delta: float
    orders: tuple[int, ...]
    budgets: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "budgets", rdp_budgets(self.epsilon, self.delta, self.orders))

    def admits(self, spent_upper: np.ndarray) -> bool:
        """Whether a run that has spent ``spent_upper`` (an upper bound on R(alpha_k) per order) is within budget.

        Parameters
        ----------
        spent_upper : numpy.ndarray
            The spent RDP per order, with the next round included, on the upper side.

        Returns
        -------
        bool
            True if some order k has spent_upper[k] <= B_k.
        """
        return bool((spent_upper <= self.budgets).any())

    def guarantee(self, rounds: int) -> PrivacyGuarantee:
        """The filter's guarantee: the budget itself, for the whole run.

        Parameters
        ----------
        rounds : int
            The rounds recorded.

        Returns
        -------
        PrivacyGuarantee
            ``kind="filter"``, ``method="rdp"``, the budget's (epsilon, delta).
        """
        return PrivacyGuarantee(
            kind="filter",
            method="rdp",
            epsilon=self.epsilon,
            delta=self.delta,
            rounds=rounds,
            assumption=(
                "every round was admitted by this Rényi filter, whose budget was fixed before the run; the "
                "settings may depend on any output released before their round (Feldman & Zrnic 2021); each "
                "round's RDP holds for the neighbouring relation of its mechanism (add/remove for Poisson sampling)"
            ),
            cost=union_cost(len(self.orders)),
        )


def best_order(
    planned: Round, epsilon: float, delta: float, orders: tuple[int, ...] | None = None
) -> int:
    """The order at which most rounds of ``planned`` fit the single-order budget (epsilon, delta).

    Parameters
    ----------
    planned : Round
        The round the run expects to repeat, chosen before the run (it must not depend on the data).
    epsilon : float
        The budget's epsilon, finite and >= 0.
    delta : float
        The budget's delta, 0 < delta < 1.
    orders : tuple of int, optional
        Candidate integer orders (default ``round_rdp.DEFAULT_ORDERS``).

    Returns
    -------
    int
        The order maximizing floor(B(alpha) / rho(alpha)) at K = 1 (the smallest such order on
        ties).

    Raises
    ------
    ValueError
        If ``epsilon`` is not a finite number >= 0, ``delta`` lies outside (0, 1), ``orders`` is not
        a set of whole numbers in [2, 1024], or no order admits one round of ``planned`` (the
        message gives the closest order, what one round costs there and what would admit it).

    Examples
    --------
    >>> from hockeystick.ledger import Round
    >>> from hockeystick.ledger.rdp_filter import best_order
    >>> best_order(Round.subsampled_gaussian(1.0, 0.01), 3.0, 1e-5)
    7
    """
    candidates, fits, budgets, step = _fits(planned, epsilon, delta, orders)
    k = int(np.argmax(fits))
    if fits[k] < 1:
        excess = np.where(np.isnan(step - budgets), np.inf, step - budgets)
        j = int(np.argmin(excess))
        raise ValueError(
            f"no order admits one round of {planned!r} within the budget (epsilon={single(epsilon, 'epsilon'):g}, "
            f"delta={single(delta, 'delta'):g}): at order {candidates[j]}, the closest, one round costs "
            f"{outward_text(step[j], 'upper', 4)} "
            f"against its single-order budget {budgets[j]:.4g}; a larger delta or epsilon, more noise, a lower "
            "sampling rate, or, if every round's settings are fixed before the run, PrivacyLedger(adaptive=False) "
            "(the certified PLD composition)"
        )
    return int(candidates[k])


def most_rounds_order(
    planned: Round, epsilon: float, delta: float, orders: tuple[int, ...] | None = None
) -> int:
    """``best_order``'s rule without its refusal: the order maximizing floor(B(alpha) / rho(alpha)),
    the smallest on ties, which is the smallest order with a budget >= 0 when no order admits one
    round.

    For a filter whose rounds are a fraction of ``planned`` (the individual filter's records whose
    gradients are clipped below the clip norm), so that a default order is needed even when
    ``planned`` itself never fits.

    Parameters
    ----------
    planned : Round
        The round the run expects to repeat, chosen before the run.
    epsilon, delta : float
        The budget, as ``best_order``'s.
    orders : tuple of int, optional
        Candidate integer orders (default ``round_rdp.DEFAULT_ORDERS``).

    Returns
    -------
    int
        The order.

    Raises
    ------
    ValueError
        As ``best_order``, but not when no order admits one round.
    """
    candidates, fits, _, _ = _fits(planned, epsilon, delta, orders)
    return int(candidates[int(np.argmax(fits))])


def _fits(
    planned: Round, epsilon: float, delta: float, orders: tuple[int, ...] | None
) -> tuple[tuple[int, ...], np.ndarray, np.ndarray, np.ndarray]:
    """(candidate orders, rounds of ``planned`` that fit each single-order budget or -1, the budgets, the cost)."""
    eps = single(epsilon, "epsilon")
    if not (math.isfinite(eps) and eps >= 0):
        raise ValueError(f"epsilon must be a finite number >= 0, got {describe(epsilon)}")
    candidates = check_integer_orders(orders)
    d = delta_target(delta)
    alpha_budgets = np.array([rdp_budgets(eps, d, (a,))[0] for a in candidates])
    step = planned.rdp_upper(candidates)
    with np.errstate(
        divide="ignore", invalid="ignore", over="ignore"
    ):  # huge budgets: inf rounds fit
        fits = np.where(alpha_budgets >= 0, np.floor(alpha_budgets / step), -1.0)
    return candidates, fits, alpha_budgets, step
