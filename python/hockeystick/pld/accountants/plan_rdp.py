"""An RDP upper side of a composition plan: the Renyi-DP curve of its mechanisms, composed and
converted to (epsilon, delta), for the plans whose certified PLD cannot read a small delta.

A nested Poisson sample's PLD (``plan.PoissonGeneric``) is built from its inner's certified curves
on the grid; at small delta its upper side carries the composition's round-off and the inner
composition's, which the sampling map passes on (both read under tilts where a bracket is wide:
``plan_tilted``, ``plan_tilted_curves``), and the grid's own tails.  The RDP curve bounds the same
run at every delta, finite where those reads are not:

- ``poisson_gaussian`` (sigma, q): the Poisson-subsampled Gaussian's RDP (Mironov, Talwar & Zhang
  2019, Sec. 3), exact at integer orders, an upper bound on both directions of the add-or-remove
  pair (their Sec. 3.3);
- ``random_allocation_gaussian`` (t steps, sigma): the Gaussian's alpha / (2 sigma^2), an upper
  bound on both directions, since (1/t) sum_j N(e_j, sigma^2 I) against N(0, sigma^2 I) is a mixture
  of pairs each at that divergence and the Renyi divergence is jointly quasi-convex (van Erven &
  Harremoes 2014, Thm. 13);
- ``poisson_generic`` (q, inner plan): the inner's curve Poisson-subsampled
  (``rdp.poisson_subsampled_rdp``: Zhu & Wang 2019, Thm. 6 at integer orders, joint convexity at
  every order);
- the folded Gaussian of radius r: alpha r^2 / 2 at r rounded up;
- counts add (RDP composes additively, Mironov 2017, Prop. 1).

Any other mechanism, or a non-private plan, has no curve here (None).

A plan of Poisson samples only (``PoissonGeneric``) has a sharper side.  Its add direction's losses
are at most B = sum_m count_m (-log(1 - q_m)) (``plan.add_loss_bound``), so that direction's delta
is 0 at eps >= B; its remove direction's RDP is exact in the inner's at integer orders: with L = dP
/ dQ, exp((alpha - 1) D_alpha(q P + (1 - q) Q || Q)) = E_Q[(1 - q + q L)^alpha] = 1 +
sum_{l=2}^{alpha} C(alpha, l) q^l (1 - q)^{alpha - l} (e^{(l - 1) D_l(P || Q)} - 1) (the binomial
theorem), non-decreasing in each D_l, so the inner's RDP upper curve gives an upper bound (Zhu &
Wang 2019's Thm. 6 without its factor 3, which pays for the add direction).  Epsilon is then at most
max(the remove side's conversion, B), at the integer orders 2 .. ``REMOVE_ORDERS``.  The conversion
is ``rdp.rdp_to_epsilon`` / ``rdp.rdp_to_delta`` (Balle et al. 2020, Thm. 21) at
``rdp.DEFAULT_ORDERS`` (dp_accounting's), the result rounded up by
``refine.question.RDP_MARGIN`` (relative) for the round-off of the float sums, as ``question.rdp_upper``.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ...base.accountant import Quantity
from ..mechanisms.constructors import PoissonGaussian
from ..mechanisms.mechanism import Spec
from ..mechanisms.registry import mechanism_of
from ..refine.question import (
    DEFAULT_ACCURACY,
    DEFAULT_RELATIVE_ACCURACY,
    RDP_MARGIN,
    within_tolerance,
)
from ..sampling.random_allocation import RandomAllocationGaussian
from .composition_plan import CompositionPlan, PlanKey
from .plan import PoissonGeneric, add_loss_bound

# the integer orders 2 .. this of the remove direction's exact sum (the subsampled Gaussian's
# integer series costs alpha terms an order; the orders a delta >= 1e-300 picks lie below it)
REMOVE_ORDERS = 63


def _remove_side_epsilon(plan: CompositionPlan, bound: float, delta: float) -> float:
    """max(the remove direction's RDP conversion at ``delta``, ``bound``), of a plan of Poisson samples only."""
    from ...rdp import rdp_to_epsilon  # lazy: read past the PLD only

    curve = _remove_curve(plan.key())
    if curve is None:
        return math.inf
    orders = np.arange(2.0, REMOVE_ORDERS + 1.0)
    return max(float(rdp_to_epsilon(curve, orders, delta)) * (1.0 + RDP_MARGIN), bound)


@lru_cache(maxsize=32)
def _remove_curve(key: PlanKey) -> np.ndarray | None:
    """The remove direction's RDP upper curve at 2 .. ``REMOVE_ORDERS`` of a plan of Poisson samples
    only, rounded up by ``RDP_MARGIN`` (relative: each log term is within ~1e-12 absolute, its parts
    below ~10^4 in size, so the sum and its log1p within ~1e-11 relative), or None."""
    from ...rdp import poisson_subsampled_remove_rdp  # lazy: read past the PLD only

    plan = CompositionPlan.from_key(key)
    orders = np.arange(2.0, REMOVE_ORDERS + 1.0)
    total = np.zeros(orders.size)
    for spec, count in plan.counts.items():
        m = mechanism_of(spec)
        if not isinstance(m, PoissonGeneric):
            return None
        inner = plan_rdp(CompositionPlan.from_key(m.key), orders)
        if inner is None or not np.isfinite(inner).all():
            return None
        total = total + count * poisson_subsampled_remove_rdp(inner, m.q)
    return total * (1.0 + RDP_MARGIN)


def _subsampled(inner: np.ndarray, orders: np.ndarray, q: float) -> np.ndarray:
    """``rdp.poisson_subsampled_rdp`` of ``inner`` at its finite orders (every integer order is
    finite: the integer chain of Thm. 6 stays whole), ``inf`` at the others."""
    from ...rdp import poisson_subsampled_rdp  # lazy: read past the PLD only

    out = np.full(orders.shape, np.inf)
    keep = np.isfinite(inner)
    if keep.any():
        out[keep] = poisson_subsampled_rdp(inner[keep], orders[keep], q)
    return out


def _mechanism_rdp(spec: Spec, orders: np.ndarray) -> np.ndarray | None:
    """One mechanism's RDP upper curve at ``orders`` (module docstring), None where it has none here."""
    from ...rdp import gaussian_rdp, subsampled_gaussian_rdp  # lazy: read past the PLD only

    m = mechanism_of(spec)
    if isinstance(m, PoissonGaussian):
        return np.asarray(subsampled_gaussian_rdp(m.sigma, m.q, orders), dtype=np.float64)
    if isinstance(m, RandomAllocationGaussian):
        return np.asarray(gaussian_rdp(m.sigma, orders), dtype=np.float64)
    if isinstance(m, PoissonGeneric):
        inner = plan_rdp(CompositionPlan.from_key(m.key), orders)
        return None if inner is None else _subsampled(inner, orders, m.q)
    return None


def plan_rdp(plan: CompositionPlan, orders: np.ndarray) -> np.ndarray | None:
    """The plan's RDP upper curve at ``orders`` (both neighbouring directions; module docstring),
    ``inf`` at an order a mechanism's series does not settle, or None where a mechanism has no curve
    here.

    Parameters
    ----------
    plan : CompositionPlan
        The composition: counts per mechanism spec and a folded Gaussian radius.
    orders : numpy.ndarray
        Renyi orders, finite, in (1, 10^4] (``rdp.check_orders``); integer orders 2 .. alpha all
        present let a nested sample use Zhu & Wang's Thm. 6 at alpha.

    Returns
    -------
    numpy.ndarray or None
        eps_R(alpha) >= 0 at each order, or None for a non-private plan or one holding a mechanism
        without a curve here.

    Raises
    ------
    ValueError
        An order outside (1, 10^4] (``rdp.check_orders``).
    """
    from ...rdp import gaussian_rdp  # lazy: read past the PLD only

    if plan.non_private:
        return None
    total = np.zeros(orders.shape)
    for spec, count in plan.counts.items():
        curve = _mechanism_rdp(spec, orders)
        if curve is None:
            return None
        total = total + count * curve
    if plan.gaussian_r2 > 0:
        total = total + np.asarray(
            gaussian_rdp(1.0 / plan.gaussian_radius_bounds()[1], orders), dtype=np.float64
        )
    return total


def _finite_curve(plan: CompositionPlan) -> tuple[np.ndarray, np.ndarray] | None:
    """(curve, orders) of ``plan_rdp`` at ``rdp.DEFAULT_ORDERS``, orders whose curve is not finite left out."""
    return _finite_curve_of(plan.key())


@lru_cache(maxsize=32)  # a run's questions (an epsilon search, a delta per point) read one curve
def _finite_curve_of(key: PlanKey) -> tuple[np.ndarray, np.ndarray] | None:
    from ...rdp import DEFAULT_ORDERS  # lazy: read past the PLD only

    orders = np.asarray(DEFAULT_ORDERS, dtype=np.float64)
    curve = plan_rdp(CompositionPlan.from_key(key), orders)
    if curve is None:
        return None
    keep = np.isfinite(curve)
    return (curve[keep], orders[keep]) if keep.any() else None


def plan_rdp_epsilon(plan: CompositionPlan, delta: float) -> float:
    r"""An upper bound on the plan's epsilon at ``delta`` from its RDP curve (module docstring).

    :math:`\min_\alpha \varepsilon_R(\alpha) + \log(1 - 1/\alpha) - (\log\delta + \log\alpha) /
    (\alpha - 1)` (Balle et al. 2020, Thm. 21) over ``rdp.DEFAULT_ORDERS``, times 1 +
    ``RDP_MARGIN``.

    Parameters
    ----------
    plan : CompositionPlan
        The composition (``plan_rdp``).
    delta : float
        0 < delta < 1.

    Returns
    -------
    float
        The bound; ``inf`` where the plan has no RDP curve here or no order certifies ``delta``.

    Raises
    ------
    ValueError
        ``delta`` outside (0, 1).
    """
    from ...rdp import rdp_to_epsilon  # lazy: read past the PLD only

    found = _finite_curve(plan)
    both = (
        math.inf
        if found is None
        else float(rdp_to_epsilon(found[0], found[1], delta)) * (1.0 + RDP_MARGIN)
    )
    bound = add_loss_bound(plan.counts) if plan.gaussian_r2 == 0 and not plan.non_private else None
    return both if bound is None else min(both, _remove_side_epsilon(plan, bound, delta))


def plan_rdp_delta(plan: CompositionPlan, epsilon: float) -> float:
    r"""An upper bound on the plan's delta at ``epsilon`` from its RDP curve (module docstring;
    Balle et al. 2020, Thm. 21, inverted by ``rdp.rdp_to_delta``), times 1 + ``RDP_MARGIN``, at
    most 1.

    Parameters
    ----------
    plan : CompositionPlan
        The composition (``plan_rdp``).
    epsilon : float
        eps >= 0.

    Returns
    -------
    float
        The bound; 1 where the plan has no RDP curve here.

    Raises
    ------
    ValueError
        ``epsilon`` negative or NaN.
    """
    from ...rdp import rdp_to_delta  # lazy: read past the PLD only

    found = _finite_curve(plan)
    if found is None:
        return 1.0
    return min(float(rdp_to_delta(found[0], found[1], epsilon)) * (1.0 + RDP_MARGIN), 1.0)


def rdp_lowered_upper(
    plan: CompositionPlan, method: Quantity, x: float, lower: float, upper: float
) -> float:
    """The upper side of ``method`` ("epsilon" at delta x, or "delta" at epsilon x) of a certified
    bracket [lower, upper] of ``plan``, lowered to the RDP conversion's (``plan_rdp_epsilon`` /
    ``plan_rdp_delta``) where that is smaller and the bracket is wider than the default tolerance
    (``refine.question``: epsilon within max(1e-3, 0.025 % eps); delta within 0.025 % of itself);
    never below ``lower``.

    Parameters
    ----------
    plan : CompositionPlan
        The composition the bracket is of.
    method : {"epsilon", "delta"}
        What the bracket bounds.
    x : float
        The delta asked (``epsilon``) or the epsilon asked (``delta``).
    lower, upper : float
        The certified bracket.

    Returns
    -------
    float
        min(upper, the RDP conversion's) where the bracket is wide, else ``upper``; at least
        ``lower``.

    Raises
    ------
    ValueError
        ``method`` neither of the two.
    """
    if method == "epsilon":
        # no wider than DEFAULT_ACCURACY: within the default tolerance (at least that) whatever
        # epsilon is, decided without the arrays' test (in Python floats: inf - inf warns not)
        narrow = float(upper) - float(lower) <= DEFAULT_ACCURACY
        if not 0.0 < x < 1.0 or narrow or bool(within_tolerance(np.array(lower), np.array(upper))):
            return upper
        return max(lower, min(upper, plan_rdp_epsilon(plan, x)))
    if method != "delta":
        raise ValueError(f'method must be "epsilon" or "delta", got {method!r}')
    if upper <= lower * (1.0 + DEFAULT_RELATIVE_ACCURACY):
        return upper
    return max(lower, min(upper, plan_rdp_delta(plan, x)))
