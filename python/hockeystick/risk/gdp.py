r"""Certified mu-GDP: a bracket on the least mu whose Gaussian profile, plus a slack delta0, covers a mechanism's.

A mechanism is mu-GDP with slack delta0 when its privacy profile (the accountant's delta: the larger
of the two neighbouring orders, as everywhere in ``risk``) satisfies

    delta(eps) <= delta_mu(eps) + delta0   for every eps >= 0,
    delta_mu(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) = theta(mu, eps)   (Dong, Roth, Su 2022,
    Cor. 2.13; paper 004 eq. 8),

equivalently its trade-off curve is at least G_mu(alpha) - delta0, G_mu(alpha) = Phi(Phi^-1(1 -
alpha) - mu) (the sup over eps of the (eps, delta_mu(eps) + delta0) lines; Dong, Roth, Su 2022,
Prop. 2.12).  Both orders are covered at eps < 0 too: delta(-eps) = 1 - e^-eps + e^-eps delta'(eps)
<= delta_mu(-eps) + e^-eps delta0. ``certified_gdp`` brackets mu*(delta0) = inf{mu : the above
holds} from the accountant's certified sides U >= delta >= L at finitely many eps, each statement
holding for every eps:

* upper (``mu_upper``): on nodes 0 = e_0 < ... < e_n with U(e_n) <= delta0, mu_upper = max over k of
  the least radius r_k with theta(r_k, e_k+1) >= U~(e_k) - delta0, U~ the running minimum of U from
  the left. For eps in [e_k, e_k+1]: delta(eps) <= delta(e_k) <= U~(e_k) <= theta(mu_upper, e_k+1) +
  delta0 <= theta(mu_upper, eps) + delta0 (delta and theta both decrease in eps; theta grows with
  mu); for eps >= e_n: delta(eps) <= U(e_n) <= delta0.  Each r_k is the core's root stepped up until
  theta's certified lower side (``numerics.certified_theta.theta_lower``) reaches the target
  U~(e_k) - delta0 rounded up (a target below 1e-280 is raised to 1e-280, which only strengthens the check).
  A certified curve flattens at its round-off floor while theta goes to 0, so delta0 = 0 has a
  finite mu only where U reaches 0 (pure DP) or where the profile is known in closed form
  (``fdp.GaussianDP`` / ``GaussianMechanism``: mu_upper = its certified mu).
* lower (``mu_lower``): for every mu < mu_lower the mechanism is NOT mu-GDP with slack delta0.
  mu_lower is the largest over the nodes of a radius r with theta(r, e_k) <= L^(e_k) - delta0
  certified (rounded down; ``theta_radius_lower``), L^ the running maximum of L from the right: then
  for mu < r, theta(mu, e_k) + delta0 < theta(r, e_k) + delta0 <= L^(e_k) <= delta(e_k) (theta
  strictly increasing in mu).  One eps suffices; 0 where L never exceeds delta0.
* regret (as gdpnum defines it, Gomez et al. 2025, arXiv 2503.10945): the least Delta >= 0 with
  f(min(alpha + Delta, 1)) - Delta <= G_mu(alpha) for every alpha in [0, 1], f the mechanism's
  symmetric trade-off curve and mu = ``mu_upper``: how far the curve lies above the Gaussian one
  reported.  By the conjugate pair f(alpha) = sup_t 1 - D(t) - t alpha (D(e^eps) = delta(eps),
  D(e^-eps) = 1 - e^-eps + e^-eps delta(eps)), the shifted curve lies below G_mu iff D_f(t) + Delta
  (1 + t) >= D_G(t) for every t >= 0, and both t = e^eps and t = e^-eps give the same ratio, so

      regret = max(0, sup over eps >= 0 of (theta(mu, eps) - delta(eps)) / (1 + e^eps)).

  Its upper side: on each [e_k, e_k+1], (theta(mu, e_k) - L^(e_k+1)) / (1 + e^e_k), and theta(mu, e_n) /
  (1 + e^e_n) beyond; its lower side the node values (theta_lower(mu, e_k) - U~(e_k)) / (1 + e^e_k); each
  difference rounded outward (next_after) and each ratio widened by 8 u.

The nodes: eps on a grid of spacing 1/8 reaching 64, doubled (to 704 at most) until U <= delta0 at a
node; then spacing 2^-9 (coarser where that would exceed 2^14 nodes) to that reach, and three rounds
splitting into 8 the intervals whose bound exceeds what no grid could go below (each side read at
the nodes without the interval's shift, an estimate; at most 2048 intervals a side and round, the
largest) and the two beside mu_lower's node.  Every grid gives certified sides; the grid only
decides how close they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base import validation as _validation
from ..base.accountant import Bound
from ..base.accountant_docs import accountant_docs
from ..fdp import GaussianDP
from ..ledger import PrivacyLedger
from ..ledger.fixed_schedule import pld_accountant
from ..ledger.round_facets import bracketed
from ..numerics import certified_theta as _ct
from ..numerics import hockey_stick as _hs
from .profile import DeltaSides, delta_sides, profiled

__all__ = ["DEFAULT_DELTA0", "CertifiedGDP", "certified_gdp"]

DEFAULT_DELTA0 = 1e-10  # the default slack's least value: the trade-off points gdpnum leaves out (alpha, beta < 1e-10)
COARSE_SPACING = 2.0**-3
FINE_SPACING = 2.0**-9
FLOOR_REACH = (
    64.0  # the coarse grid's first reach: the curve's floor is its least upper delta out to here
)
MAX_REACH = 704.0  # e^704 ~ 1.9e305: the largest reach whose e^eps is a double
REFINEMENTS = 3  # rounds of refinement, each splitting the chosen intervals into 8
REFINED_INTERVALS = 2048  # at most this many intervals refined per side and round
SMALLEST_TARGET = 1e-280  # a positive target below this is raised to it (theta's relative contract ends at 1e-290)
_U = 2.0**-53
_MAX_STEPS = 2200  # doubling ulp steps reach inf from any double well within this


@dataclass(frozen=True)
class CertifiedGDP:
    """A certified bracket on mu-GDP with slack ``delta0``, and the regret of ``mu_upper``.

    Parameters
    ----------
    mu_lower, mu_upper : float
        mu_lower <= mu*(delta0) <= mu_upper, mu*(delta0) the least mu with delta(eps) <= theta(mu,
        eps) + delta0 for every eps: the mechanism is mu_upper-GDP with slack delta0, and for no mu
        < mu_lower.
    delta0 : float
        The slack.
    regret_lower, regret_upper : float
        A bracket on gdpnum's regret of mu_upper (how far the mechanism's trade-off curve lies above
        G_{mu_upper}; ``hockeystick.risk.certified_gdp``'s docstring).
    reach : float
        The largest eps of the nodes (the upper delta is at most delta0 from there on).

    Examples
    --------
    >>> from hockeystick.risk import CertifiedGDP
    >>> CertifiedGDP(0.5, 0.5, 0.0, 0.0, 0.0, 40.0).mu_upper
    0.5
    """

    mu_lower: float
    mu_upper: float
    delta0: float
    regret_lower: float
    regret_upper: float
    reach: float


def certified_gdp(accountant: Any, *, delta0: float | None = None) -> CertifiedGDP:
    r"""Certified mu-GDP of one mechanism: a bracket on the least mu whose Gaussian profile plus ``delta0`` covers it.

    .. math::

        \mu^*(\delta_0) = \inf\{\mu : \delta(\varepsilon) \le \theta(\mu, \varepsilon) + \delta_0
        \ \forall \varepsilon \ge 0\},\qquad
        \theta(\mu, \varepsilon) = \Phi\Big(-\frac{\varepsilon}{\mu} + \frac{\mu}{2}\Big)
          - e^{\varepsilon}\,\Phi\Big(-\frac{\varepsilon}{\mu} - \frac{\mu}{2}\Big),

    bracketed from the accountant's certified delta: the mechanism is ``mu_upper``-GDP with slack
    ``delta0`` (its trade-off curve is at least :math:`G_{\mu}(\alpha) - \delta_0` for both
    neighbouring orders), and for no mu below ``mu_lower``.  The regret of ``mu_upper`` (gdpnum's,
    Gomez et al. 2025) is bracketed too:

    .. math::

        \mathrm{regret} = \max\Big(0, \sup_{\varepsilon \ge 0}
        \frac{\theta(\mu, \varepsilon) - \delta(\varepsilon)}{1 + e^{\varepsilon}}\Big).

    The module docstring gives each side's proof and the grid.

    Parameters
    ----------
    accountant : object
        Any object with ``.delta(epsilon, bound=...)`` describing one mechanism (scalar parameters):
        a ``training.DPSGD`` / ``DPFedAvg`` run, a ``pld`` or ``rdp`` accountant,
        ``fdp.GaussianMechanism``; or a fixed-schedule ``ledger.PrivacyLedger`` (the certified PLD
        composition of the rounds it recorded).
    delta0 : float, optional
        The slack, in [0, 1).  Default: the larger of 1e-10 and twice the certified curve's floor
        (its least upper delta out to eps = 64), so that the plateau where the certified curve sits
        at its round-off floor is covered by delta0 rather than by mu; 0 for ``fdp.GaussianDP`` and
        ``GaussianMechanism`` (exact).

    Returns
    -------
    CertifiedGDP
        ``mu_lower``, ``mu_upper``, ``delta0``, ``regret_lower``, ``regret_upper``, ``reach``.

    Raises
    ------
    ParameterTypeError
        ``accountant`` has no callable ``.delta`` (a TypeError); ``delta0`` not a number.
    ValueError
        ``delta0`` outside [0, 1); the certified upper delta stays above ``delta0`` out to eps = 704
        (its floor is named: give a ``delta0`` above it); an accountant of several mechanisms; an
        adaptive ledger, or one with nothing recorded.

    See Also
    --------
    tradeoff_curve : The certified trade-off curve itself.
    hockeystick.fdp.GaussianDP : A mu-GDP guarantee as an accountant.

    References
    ----------
    Dong, Roth & Su 2022, Def. 2.1, Prop. 2.12 and Cor. 2.13 (GDP and its profile); Gomez, Kulynych,
    Kaissis, Hayes, Balle, Honkela, Kairouz, Ghazi, Pagh, Raskhodnikova, Smith, Wang 2025, "(eps,
    delta) Considered Harmful" (arXiv 2503.10945; gdpnum's mu and regret); dp_accounting's
    ``get_gdp_parameter_estimate`` (an uncertified estimate off a grid of TPR bounds).

    Examples
    --------
    >>> from hockeystick.fdp import GaussianMechanism
    >>> from hockeystick.risk import certified_gdp
    >>> g = certified_gdp(GaussianMechanism(sigma=2.0))  # exactly 0.5-GDP
    >>> round(g.mu_lower, 9), round(g.mu_upper, 9), g.delta0
    (0.5, 0.5, 0.0)
    """
    accountant = _from_ledger(accountant)
    profiled(accountant)
    closed_form = _closed_form_mu(accountant)
    # the coarse grid: the floor out to FLOOR_REACH, then doubled until the upper delta reaches the
    # slack
    nodes = _Nodes(_certified_sides(accountant))
    nodes.add(np.arange(0.0, FLOOR_REACH + COARSE_SPACING / 2, COARSE_SPACING))
    if delta0 is not None:
        slack = _slack(delta0)
    elif closed_form is not None:
        slack = 0.0
    else:
        slack = max(DEFAULT_DELTA0, 2.0 * float(nodes.upper_run().min()))
    exact = closed_form is not None and slack == 0.0
    reach = _reach(nodes, slack, exact)
    # the fine grid: 2^-9, coarser (a power of 2) where the reach would make it longer than 2^14
    # nodes
    spacing = max(FINE_SPACING, 2.0 ** np.ceil(np.log2(max(reach, 1.0) / 2.0**14)))
    nodes.add(np.arange(0.0, reach + spacing / 2, spacing))
    nodes.cut(reach)
    mu, lows, regret_terms = _refined(nodes, slack, closed_form, exact)
    mu_lower = float(lows.max(initial=0.0))
    if (
        exact
    ):  # with no slack the least mu is the mechanism's own, at least its certified lower side
        mu_lower = max(mu_lower, closed_form[0])  # type: ignore[index]
    regret_upper = float(regret_terms.max(initial=0.0))
    regret_lower = float(_regret_lower_terms(nodes, mu).max(initial=0.0))
    return CertifiedGDP(mu_lower, mu, slack, regret_lower, regret_upper, reach)


def _reach(nodes: _Nodes, slack: float, exact: bool) -> float:
    """The first node where the upper delta is at most the slack, the coarse grid doubled (to
    MAX_REACH) until there is one.  A closed form with no slack needs none for its mu: its nodes
    reach where theta's upper side leaves the doubles' normal range, or MAX_REACH (its regret's tail
    term holds beyond any last node)."""
    stop = 1e-300 if exact else slack
    while not (nodes.upper_run() <= stop).any() and nodes.reach < MAX_REACH:
        more = min(2.0 * nodes.reach, MAX_REACH)
        nodes.add(
            np.arange(nodes.reach + COARSE_SPACING, more + COARSE_SPACING / 2, COARSE_SPACING)
        )
    reached = np.flatnonzero(nodes.upper_run() <= stop)
    if reached.size:
        return float(nodes.eps[reached[0]])
    if exact:
        return nodes.reach
    raise ValueError(
        f"the certified upper delta stays above delta0 = {slack:g} out to eps = {MAX_REACH:g} (its floor there "
        f"is {float(nodes.upper_run()[-1]):.3g}): no finite mu covers it with that slack; give a delta0 above "
        "the floor"
    )


def _refined(
    nodes: _Nodes, slack: float, closed_form: tuple[float, float] | None, exact: bool
) -> tuple[float, np.ndarray, np.ndarray]:
    """(mu_upper, the lower radii per node, the regret's upper terms per interval) after REFINEMENTS
    rounds splitting into 8 the intervals where a finer grid can move a side (the module
    docstring)."""
    for round_ in range(REFINEMENTS + 1):
        radii = None if exact else _upper_radii(nodes, slack)
        lows = _lower_radii(nodes, slack)
        mu = closed_form[1] if closed_form is not None else np.inf
        if radii is not None:
            mu = min(mu, float(radii.max(initial=0.0)))
        regret_terms = _regret_upper_terms(nodes, mu)
        if round_ == REFINEMENTS or nodes.eps.size < 2:
            break
        # the intervals whose bound exceeds what no grid could go below (each side's value read at
        # the nodes without the interval's shift: an estimate, never a bound) are where a finer grid
        # can move the side
        chosen = [_largest(regret_terms[:-1], float(_regret_at_nodes(nodes, mu).max(initial=0.0)))]
        if radii is not None:
            chosen.append(_largest(radii, _radius_at_nodes(nodes, slack)))
        best = int(np.argmax(lows))
        chosen.append(np.array([best - 1, best]))
        picked = np.unique(np.clip(np.concatenate(chosen), 0, nodes.eps.size - 2))
        left, width = nodes.eps[picked], np.diff(nodes.eps)[picked]
        nodes.add(
            np.unique((left[:, None] + width[:, None] * np.arange(1, 8)[None, :] / 8.0).ravel())
        )
    return mu, lows, regret_terms


class _Nodes:
    """The accountant's certified delta (lower, upper) at the eps evaluated so far, ascending."""

    def __init__(self, sides: Any) -> None:
        self.sides = sides
        self.eps = np.zeros(0)
        self.low = np.zeros(0)
        self.up = np.zeros(0)

    @property
    def reach(self) -> float:
        return float(self.eps[-1])

    def add(self, eps: np.ndarray) -> None:
        """Evaluates the new eps and merges them in (an eps evaluated twice keeps its tighter sides)."""
        new = np.setdiff1d(eps, self.eps)
        if new.size == 0:
            return
        low, up = self.sides(new)
        merged = np.concatenate([self.eps, new])
        order = np.argsort(merged, kind="stable")
        self.eps = merged[order]
        self.low = np.concatenate([self.low, low])[order]
        self.up = np.concatenate([self.up, up])[order]

    def cut(self, reach: float) -> None:
        """Keeps the nodes up to ``reach``, where the upper delta is at most the slack."""
        keep = self.eps <= reach
        self.eps, self.low, self.up = self.eps[keep], self.low[keep], self.up[keep]

    def upper_run(self) -> np.ndarray:
        """U~: the running minimum of the upper delta from the left, an upper bound on delta at each
        node (delta does not increase in eps)."""
        return np.minimum.accumulate(self.up)

    def lower_run(self) -> np.ndarray:
        """L^: the running maximum of the lower delta from the right, a lower bound on delta at each node."""
        return np.maximum.accumulate(self.low[::-1])[::-1]


def _upper_radii(nodes: _Nodes, slack: float) -> np.ndarray:
    """Per interval [e_k, e_k+1], the least radius r_k with theta(r_k, e_k+1) >= U~(e_k) - slack
    certified (0 where that target is not positive)."""
    with np.errstate(invalid="ignore"):
        target = np.nextafter(
            nodes.upper_run()[:-1] - slack, np.inf
        )  # rounded up past the exact difference
    eps = nodes.eps[1:]
    radii = np.zeros(target.size)
    live = np.flatnonzero(target > 0)
    if live.size == 0:
        return radii
    goal = np.maximum(target[live], SMALLEST_TARGET)  # a larger target only strengthens the check
    at = eps[live]
    start = np.asarray(
        _hs.theta_radius(at, np.minimum(goal * (1.0 + 4e-12), np.nextafter(1.0, 0.0))), dtype=float
    )
    radii[live] = _step_up(start, at, goal)
    return radii


def _step_up(r: np.ndarray, eps: np.ndarray, goal: np.ndarray) -> np.ndarray:
    """Each r raised by 1, 2, 4, ... ulps until theta_lower(r, eps) >= goal (or to inf)."""
    r = r.copy()
    bad = np.flatnonzero(~(np.asarray(_ct.theta_lower(r, eps)) >= goal))
    step = np.maximum(np.abs(r[bad]) * np.finfo(float).eps, np.finfo(float).smallest_subnormal)
    for _ in range(_MAX_STEPS):
        if bad.size == 0:
            return r
        r[bad] = r[bad] + step
        still = ~(np.asarray(_ct.theta_lower(r[bad], eps[bad])) >= goal[bad])
        bad, step = bad[still], 2.0 * step[still]
    r[bad] = np.inf
    return r


def _lower_radii(nodes: _Nodes, slack: float) -> np.ndarray:
    """Per node, a radius r with theta(r, e_k) <= L^(e_k) - slack certified (0 where that is not positive)."""
    target = np.nextafter(
        nodes.lower_run() - slack, -np.inf
    )  # rounded down past the exact difference
    radii = np.zeros(target.size)
    live = np.flatnonzero(target > 0)
    if live.size:
        d = np.minimum(target[live], np.nextafter(1.0, 0.0))
        radii[live] = _ct.theta_radius_lower(nodes.eps[live], d)
    return radii


def _regret_upper_terms(nodes: _Nodes, mu: float) -> np.ndarray:
    """Per interval, an upper bound on (theta(mu, eps) - delta(eps)) / (1 + e^eps) over it, then the tail's."""
    theta_up = np.asarray(_ct.theta_upper(mu, nodes.eps), dtype=float)
    low = nodes.lower_run()
    with np.errstate(over="ignore"):
        spread = 1.0 + np.exp(nodes.eps)
    difference = np.maximum(np.nextafter(theta_up[:-1] - low[1:], np.inf), 0.0)
    terms = np.concatenate([difference / spread[:-1], [theta_up[-1] / spread[-1]]])
    return terms * (1.0 + 8 * _U)


def _regret_lower_terms(nodes: _Nodes, mu: float) -> np.ndarray:
    """Per node, a lower bound on (theta(mu, e_k) - delta(e_k)) / (1 + e^e_k)."""
    theta_low = np.asarray(_ct.theta_lower(mu, nodes.eps), dtype=float)
    with np.errstate(over="ignore"):
        spread = 1.0 + np.exp(nodes.eps)
    difference = np.nextafter(theta_low - nodes.upper_run(), -np.inf)
    return np.asarray(np.maximum(difference / spread * (1.0 - 8 * _U), 0.0))


def _largest(values: np.ndarray, above: float) -> np.ndarray:
    """The indices of the values above ``above``, the REFINED_INTERVALS largest of them."""
    over = np.flatnonzero(values > above)
    if over.size <= REFINED_INTERVALS:
        return over
    return over[np.argpartition(values[over], -REFINED_INTERVALS)[-REFINED_INTERVALS:]]


def _radius_at_nodes(nodes: _Nodes, slack: float) -> float:
    """The largest radius with theta(r, e_k) = U~(e_k) - slack at a node (the core's root, unrounded)."""
    target = nodes.upper_run() - slack
    live = (target > 0) & (target < 1)
    if not live.any():
        return 0.0
    return float(np.max(_hs.theta_radius(nodes.eps[live], target[live])))


def _regret_at_nodes(nodes: _Nodes, mu: float) -> np.ndarray:
    """(theta(mu, e_k) - L^(e_k)) / (1 + e^e_k) at each node (unrounded)."""
    with np.errstate(over="ignore"):
        return np.asarray(
            (np.asarray(_hs.theta(mu, nodes.eps)) - nodes.lower_run()) / (1.0 + np.exp(nodes.eps))
        )


def _closed_form_mu(accountant: Any) -> tuple[float, float] | None:
    """A Gaussian mechanism's certified (lower, upper) mu (its profile is theta(mu, .) exactly),
    else None: ``GaussianDP(mu)`` is exactly mu-GDP, ``GaussianMechanism`` within its ``mu_lower``
    and ``mu``."""
    if isinstance(accountant, GaussianDP) and np.ndim(accountant.mu) == 0:
        return float(getattr(accountant, "mu_lower", accountant.mu)), float(accountant.mu)
    return None


def _certified_sides(accountant: Any) -> DeltaSides:
    """eps -> (lower, upper) delta; an accountant certifying the upper side only (an RDP conversion,
    which refuses bound="both") gets the trivial lower side 0: mu_lower is then 0 and regret_upper
    reads the lower delta as 0.  Which of the two applies is decided at the first read, not by a
    read at eps = 0 of its own (for a composed PLD each read costs its fine reads)."""
    chosen: list[DeltaSides] = []

    def sides(eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if chosen:
            return chosen[0](eps)
        try:
            out = delta_sides(accountant, "both")(eps)
        except ValueError as error:
            if 'bound must be "upper"' not in str(error):
                raise
            chosen.append(delta_sides(accountant, "upper"))
            return chosen[0](eps)
        chosen.append(delta_sides(accountant, "both"))
        return out

    return sides


def _slack(value: Any) -> float:
    number = _validation.single(value, "delta0")
    return float(
        _validation.in_interval(number, "delta0", 0.0, 1.0, open_low=False, open_high=True)
    )


@accountant_docs()
class _LedgerProfile:
    """A fixed-schedule ledger's certified composition as an accountant: its upper delta from the
    rounds at their upper sensitivity, its lower delta from the rounds at their realizable lower one
    (``ledger.fixed_schedule``)."""

    def __init__(self, ledger: PrivacyLedger) -> None:
        runs = list(ledger.counts().items())
        h = ledger.value_discretization_interval
        self.upper_side = pld_accountant(runs, h)
        # a round known within a bracket (its entry's ``lower`` facet: a matrix mechanism's
        # sensitivity): the lower side composes its lower end
        bracketed_round = any(bracketed(one) for one, _ in runs)
        self.lower_side = pld_accountant(runs, h, "lower") if bracketed_round else self.upper_side

    def delta(self, epsilon: Any, *, bound: Bound = "upper") -> Any:
        """delta(eps) of the ledger's rounds: the upper side composed at their upper sensitivities,
        the lower side at their realizable lower ones."""
        side = _validation.bound_side(bound)
        if side == "upper":
            return self.upper_side.delta(epsilon, bound="upper")
        if side == "lower":
            return self.lower_side.delta(epsilon, bound="lower")
        if self.lower_side is self.upper_side:
            return self.upper_side.delta(epsilon, bound="both")
        return self.lower_side.delta(epsilon, bound="lower"), self.upper_side.delta(
            epsilon, bound="upper"
        )


def _from_ledger(accountant: Any) -> Any:
    if not isinstance(accountant, PrivacyLedger):
        return accountant
    if accountant.adaptive:
        raise ValueError(
            "certified_gdp needs a fixed-schedule ledger: an adaptive ledger's composition of the realized rounds is "
            "not a guarantee (arXiv 2602.06756); build the ledger with adaptive=False when the settings are fixed"
        )
    if accountant.rounds == 0:
        raise ValueError("the ledger has recorded no round: record the run first")
    return _LedgerProfile(accountant)
