"""Why a ledger's budget refuses the next rounds, and what would admit them: the text of ``BudgetExceeded``.

A refusal names the number that failed (the spent Rényi divergence against its budget at the closest
order, the spent mu^2 against the GDP budget, or the certified epsilon against the budget's) and,
when the refused rounds alone cost more than the whole budget (so no earlier round is to blame and
the run can admit nothing of that kind), what would change the answer:

* a larger delta: the smallest delta at which one of the filter's orders admits them, from the
  filter's budget B_k = epsilon + (log(delta / K) + log alpha_k) / (alpha_k - 1) - log(1 - 1 /
  alpha_k) solved for delta at that order's cost (``rdp_filter``), shown to two digits rounded up;
* the orders: one order fixed before the run (no union over K orders), at the order that admits the
  most rounds of that kind among every integer order in [2, 1024] (``rdp_filter.best_order``'s
  rule), if one does;
* the filter kind: the GDP filter, exact for unsampled Gaussian rounds, when the rounds are of that
  kind;
* the fixed-schedule ledger (``adaptive=False``) when every round's settings are fixed before the
  run, with the certified PLD epsilon of the refused rounds alone.

The numbers are read off the same rounded-outward quantities the filter compares, so a stated cost
is what the filter saw.  The closest order is the one whose spent sum exceeds its budget the least.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..base.outward_text import outward_text
from .gdp_filter import GdpFilter
from .outward_sum import RunningSum
from .rdp_filter import rdp_budgets
from .round_rdp import MAX_LEDGER_ORDER
from .rounds import Round

__all__ = ["refusal"]


def _what(one: Round, times: int) -> str:
    return f"one round of {one!r}" if times == 1 else f"{times} rounds of {one!r}"


def _closest(spent: np.ndarray, budgets: np.ndarray) -> int:
    """The index of the order closest to admitting: the smallest excess of the spent sum over the budget."""
    with np.errstate(invalid="ignore"):
        excess = np.where(np.isnan(spent - budgets), np.inf, spent - budgets)
    return int(np.argmin(excess))


def _delta_needed(cost: np.ndarray, epsilon: float, orders: tuple[int, ...]) -> tuple[float, int]:
    """The smallest delta at which some order's budget B_k reaches ``cost`` (the budget's formula
    solved for delta, K the number of orders), and that order."""
    alpha = np.asarray(orders, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        log_delta = (
            (alpha - 1.0) * (cost - epsilon + np.log1p(-1.0 / alpha))
            - np.log(alpha)
            + math.log(len(orders))
        )
    log_delta = np.where(np.isnan(log_delta), np.inf, log_delta)
    k = int(np.argmin(log_delta))
    if not log_delta[k] < 0:
        return math.inf, orders[k]
    # shown to two digits, rounded up (and past the budget's own rounding down): the delta shown
    # admits them
    needed = math.exp(log_delta[k]) * (1.0 + 1e-9)
    if not 1e-300 < needed:  # below the doubles' decades: no delta worth naming
        return math.inf, orders[k]
    scale = 10.0 ** (math.floor(math.log10(needed)) - 1)
    shown = math.ceil(needed / scale) * scale
    return (shown if shown < 1.0 else math.inf), orders[k]


def _one_order(one: Round, times: int, epsilon: float, delta: float) -> str:
    """Whether one order fixed before the run admits the rounds, searched over every integer order."""
    orders = tuple(range(2, MAX_LEDGER_ORDER + 1))
    budgets = np.array([rdp_budgets(epsilon, delta, (a,))[0] for a in orders])
    cost = RunningSum(len(orders)).plus(one.rdp_upper(orders), times).upper()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        fits = np.where((budgets >= 0) & (cost > 0), np.floor(budgets / (cost / times)), -1.0)
    k = int(np.argmax(fits))
    if cost[k] <= budgets[k]:
        return (
            f"one order fixed before the run, orders=[{orders[k]}] (best_order's rule over the integer orders in "
            f"[2, {MAX_LEDGER_ORDER}]; no union over orders), admits {int(fits[k])} such rounds"
        )
    return f"no single integer order in [2, {MAX_LEDGER_ORDER}] admits it either, even without the union over orders"


def _fixed_schedule(ledger: Any, one: Round, times: int, delta: float) -> str:
    from .fixed_schedule import (
        pld_accountant,
    )  # lazy: a refusal is rare, and the PLD is not on the filter's way

    try:
        upper = float(
            pld_accountant([(one, times)], ledger.value_discretization_interval).epsilon(delta)  # type: ignore[arg-type]
        )
    except ValueError:
        upper = math.nan
    alone = "it alone costs" if times == 1 else "they alone cost"
    cost = (
        f" ({alone} epsilon <= {outward_text(upper, 'upper', 4)} at delta = {delta:g})"
        if upper == upper
        else ""
    )
    return (
        "if every round's settings are fixed before the run, PrivacyLedger(adaptive=False) certifies the PLD "
        f"composition instead{cost}"
    )


def _rdp_refusal(ledger: Any, one: Round, times: int, epsilon: float, delta: float) -> str:
    orders = ledger.orders
    budgets = rdp_budgets(epsilon, delta, orders)
    alone = RunningSum(len(orders)).plus(ledger._curve(one), times).upper()
    name = f"the RDP filter of budget ({epsilon:g}, {delta:g})"
    if (alone <= budgets).any():
        after = ledger._sums_after(one, times)[0].upper()
        k = _closest(after, budgets)
        return (
            f"after {ledger.rounds} rounds {name} has no room for {_what(one, times)}: at order {orders[k]}, the "
            f"closest of its {len(orders)}, the run would have spent {outward_text(after[k], 'upper')} against a "
            f"budget of {budgets[k]:.6g} (the rounds before spent {outward_text(ledger._rdp.upper()[k], 'upper')}); "
            "stop the run here, or run a smaller round (more noise, a lower sampling rate) if the filter admits it"
        )
    k = _closest(alone, budgets)
    where = (
        f"at order {orders[k]}, the closest of its {len(orders)}, it costs {outward_text(alone[k], 'upper', 4)} "
        "against a budget of "
        f"{budgets[k]:.4g}"
    )
    needed, order = _delta_needed(alone, epsilon, orders)
    fixes = [
        (
            f"a larger delta (delta = {needed:.2g} admits it, at order {order})"
            if needed < 1
            else "no delta < 1 at these orders"
        ),
        _one_order(one, times, epsilon, delta),
    ]
    if one.gdp_mu is not None:
        fits = float(RunningSum(1).plus(np.array([one.mu_squared_upper()]), times).upper()[0])
        gdp = GdpFilter(epsilon, delta)
        verdict = "admits it" if gdp.admits(fits) else "does not admit it either"
        fixes.append(
            f"the GDP filter (filter='gdp', exact for unsampled Gaussian rounds) {verdict}"
        )
    else:
        fixes.append(
            f"the GDP filter (filter='gdp') takes unsampled Gaussian rounds only, not a {one.mechanism} round"
        )
    fixes.append(_fixed_schedule(ledger, one, times, delta))
    fixes.append("or more noise, a lower sampling rate, a larger epsilon")
    return (
        f"{_what(one, times)} alone costs more than {name} allows at any of its orders: {where}; "
        + ("to admit it: " + "; ".join(fixes))
    )


def _gdp_refusal(ledger: Any, one: Round, times: int, epsilon: float, delta: float) -> str:
    chosen = GdpFilter(epsilon, delta)
    alone = float(RunningSum(1).plus(np.array([one.mu_squared_upper()]), times).upper()[0])
    name = f"the GDP filter of budget ({epsilon:g}, {delta:g}), mu = {chosen.mu:.6g}"
    if chosen.admits(alone):
        after = float(ledger._sums_after(one, times)[1].upper()[0])
        return (
            f"after {ledger.rounds} rounds {name} has no room for {_what(one, times)}: the sum of mu_t^2 would be "
            f"{after:.4g} against mu^2 = {chosen.mu_squared:.4g}; stop the run here, or run a round with more noise "
            "if the filter admits it"
        )
    return (
        f"{_what(one, times)} alone has mu^2 = {alone:.4g}, above {name} (mu^2 = {chosen.mu_squared:.4g}); to admit "
        f"it: more noise (sigma >= {math.sqrt(times) / chosen.mu:.4g} times the sensitivity), a larger delta or "
        f"epsilon; {_fixed_schedule(ledger, one, times, delta)}"
    )


def refusal(ledger: Any, one: Round, times: int) -> str:
    """Why the ledger's budget refuses ``times`` rounds of ``one``, with what would admit them (the module docstring).

    Parameters
    ----------
    ledger : PrivacyLedger
        A ledger with a budget (typed Any here: the ledger imports this module).
    one : Round
        The round refused.
    times : int
        How many rounds of it.

    Returns
    -------
    str
        The reason, in words.
    """
    assert ledger.budget is not None
    epsilon, delta = ledger.budget
    if ledger.adaptive:
        if ledger.filter == "gdp":
            return _gdp_refusal(ledger, one, times, epsilon, delta)
        return _rdp_refusal(ledger, one, times, epsilon, delta)
    upper = ledger._fixed_upper(one, times, delta)
    head = f"with {_what(one, times)} the certified epsilon at delta = {delta:g} would be {upper:.6g}, over {epsilon:g}"
    if not ledger.rounds:
        return f"{head}: these rounds alone pass the budget; more noise, a lower sampling rate or a larger budget"
    return (
        f"after {ledger.rounds} rounds, {head}; stop the run here, or run a smaller round that fits"
    )
