"""The bracket of a composed PLD whose factors describe no run the question reader reads (random
allocation's epochs, Laplace, discrete mechanisms, mixtures, a ledger of mixed mechanisms), read
under an exponential tilt on its own grid, from its own factors.

The plain FFT composition of T rounds carries a round-off charge proportional to the whole mass and
a tail cut of its window, so a delta near or below them is read wide on any grid: the README's
DP-SGD run on balls-in-bins batches (sigma 1.1, 235 steps an epoch, 60 epochs) reads [3.909, 4.999]
at delta 1e-12.  The tilted composition (``compose.tilted``: Keich 2005; Wilson & Keich 2016) of the
same factors carries its charge relative to the Chernoff bound at its tilt instead.  Per
neighbouring direction, its factors' pessimistic PMFs with their counts are composed under the tilt
maximizing the Chernoff exponent lam eps - K(lam), K(lam) = sum_i c_i K_i(lam) the summed
log-moments (``tilted_factors.exponent_tilt``), at eps the direction's plain upper epsilon (a tilt
centred near the answer: any tilt is valid, the choice only makes the read tight), or, where that is
infinite, under the tilt minimizing the Chernoff epsilon (K(lam) + log(1 / delta)) / lam
(``epsilon_tilt``); its optimistic PMFs (``Factor.lower_terms``) under the exponent's tilt at the
middle of the plain lower side and the upper side found.  A delta at eps is read by
``tilted_own_grid_delta``, under the tilts of a ladder fixed in advance, each composition shared by
every eps of its tilt.  Nothing is discretized again: the factors are the PLD's own, so the
bracket keeps their discretization and only the composition's round-off and tail cut go; each
side is certified (``compose.tilted``'s docstring), both sides are the maximum over the directions
(Zhu, Dong & Wang, AISTATS 2022, Sec. 5), each direction's upper side intersected with its plain
one, and the answer is the intersection with the plain bracket given.

A side is read only where the plain composition's charges (round-off, shift and the window's tail
cut, ``plain_charge``) at that side pass ``CHARGE_SHARE`` of the delta asked (below that the tilted
read moves the side by no more than the charge does and costs a composition), and the rise of the
plain curve over ``question.EXACT_RELATIVE`` of the side below it (below that the side cannot move
by more than that share of it).  The directions
are taken from the largest plain upper side down; a direction's upper side is read only where its
plain one passes the upper sides found so far (their maximum stands otherwise), its lower side only
where its upper side passes the lower side found so far.  So the upper side depends on the plain
upper sides alone, and an upper side asked alone is the bracket's, bit for bit.  Where a window
passes ``tilted_question.MAX_POINTS``, a tilt overflows a factor's moment, or a factor is not a
discretized round (a composed block of rounds), the side keeps its plain value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...base.accountant import Bound
from ..compose import tilted
from ..grid.distribution import Factor, PrivacyLossDistribution
from ..grid.pmf import GridPMF
from .each_bracket import each_bracket
from .question import EXACT_RELATIVE
from .tilt_search import best_tilt
from .tilted_factors import exponent_tilt, summed_log_mgf
from .tilted_question import MAX_POINTS, WINDOW_TAIL

# the plain composition's charges at a side, as a share of the delta read there, above which that
# side is read under a tilt (module docstring)
CHARGE_SHARE = 1e-4
# the tails of the tilted mass cut from each end of a tilted window (``tilted_side``): the cut mass
# is charged, untilted, on its side (``compose.tilted``), which at this tail moves a read by a
# relative 1e-10 of the Chernoff bound at its argument, and the window is about 2/3 of the default
# tail's (1e-15)
TILTED_TAIL = 1e-10


def composed_rounds(pld: PrivacyLossDistribution) -> bool:
    """Whether some direction of ``pld`` composes at least two rounds (a single round has no
    composition round-off to remove).

    Parameters
    ----------
    pld : PrivacyLossDistribution
        Any PLD.

    Returns
    -------
    bool
        True where a direction's counts sum to 2 or more.
    """
    return any(sum(direction.values()) >= 2 for direction in pld.directions)


def plain_charges(
    pmf: GridPMF, factors: Sequence[tuple[GridPMF, int]], x: np.ndarray
) -> np.ndarray:
    """The plain composed pessimistic PMF ``pmf``'s charges at the curve arguments of ``x`` (finite),
    one core call over the array: its round-off charge there, its shift, and its mass at +infinity
    beyond the factors' composed one (its window's tail cut).

    Parameters
    ----------
    pmf : GridPMF
        A direction's plain composed pessimistic PMF.
    factors : sequence of (GridPMF, int)
        That direction's pessimistic PMFs and their counts.
    x : numpy.ndarray
        The epsilons, finite.

    Returns
    -------
    numpy.ndarray
        The charges, of ``x``'s shape.
    """
    cut = max(0.0, pmf.p_inf - tilted.composed_infinity(factors, True))
    return np.asarray(pmf.charge_at(pmf.curve_argument(x)), dtype=np.float64) + abs(pmf.shift) + cut


def plain_charge(pmf: GridPMF, factors: Sequence[tuple[GridPMF, int]], x: float) -> float:
    """``plain_charges`` at one ``x``; inf where ``x`` is not finite."""
    if not math.isfinite(x):
        return math.inf
    return float(plain_charges(pmf, factors, np.array([x]))[0])


def direction_pessimistic(direction: dict[Factor, int]) -> list[tuple[GridPMF, int]]:
    """The direction's pessimistic PMFs and their counts."""
    return [(f.upper, int(c)) for f, c in direction.items()]


def direction_optimistic(direction: dict[Factor, int]) -> list[tuple[GridPMF, int]] | None:
    """The direction's optimistic PMFs and their counts (``Factor.lower_terms``), None where a
    factor has none."""
    terms: list[tuple[GridPMF, int]] = []
    for f, count in direction.items():
        for pmf, c in f.lower_terms(int(count)):
            if pmf is None:
                return None
            if c > 0:
                terms.append((pmf, c))
    return terms


def epsilon_tilt(terms: Sequence[tuple[GridPMF, int]], delta: float) -> float:
    """The lam minimizing the Chernoff epsilon (K(lam) + log(1 / delta)) / lam, K the summed
    log-moment (``tilted_factors.summed_log_mgf``; ``best_tilt``)."""
    log_ratio = -math.log(delta)
    return best_tilt(lambda lam: -(summed_log_mgf(terms, lam) + log_ratio) / lam)


def tilted_side(
    terms: Sequence[tuple[GridPMF, int]], lam: float, pessimistic: bool
) -> tilted.TiltedComposition:
    """``terms`` (one side's PMFs and counts) composed under the tilt ``lam`` (``compose_tilted``)
    with a window of tails ``TILTED_TAIL`` of the tilted mass, at most ``MAX_POINTS`` points (the
    pessimistic side's cut at ``WINDOW_TAIL`` past them).

    Raises
    ------
    ValueError
        As ``compose.tilted.compose_tilted``: a window past ``MAX_POINTS``, a tilt overflowing a
        factor's moment, a factor that is not a discretized round.
    """
    return tilted.compose_tilted(
        terms,
        lam * terms[0][0].h,
        pessimistic=pessimistic,
        tail=TILTED_TAIL,
        max_points=MAX_POINTS,
        window_tail=WINDOW_TAIL if pessimistic else None,
    )


def upper_epsilon(ups: Sequence[tuple[GridPMF, int]], delta: float, upper: float) -> float:
    """The tilted upper epsilon at ``delta`` of the pessimistic ``ups`` (module docstring), at most
    ``upper`` (their plain one); ``upper`` where the composition is refused."""
    try:
        lam = exponent_tilt(ups, upper) if math.isfinite(upper) else epsilon_tilt(ups, delta)
        side = tilted_side(ups, lam, True)
    except ValueError:
        return upper
    return min(upper, tilted.upper_epsilon(side, delta, min(upper, side.top)))


def lower_epsilon(
    terms: Sequence[tuple[GridPMF, int]], delta: float, near: float, up: float
) -> float:
    """The tilted lower epsilon at ``delta`` of the optimistic ``terms``, searched from ``up`` (a
    certified upper epsilon) down, under the exponent's tilt at ``near``; 0 where the composition
    is refused."""
    try:
        side = tilted_side(terms, exponent_tilt(terms, near), False)
    except ValueError:
        return 0.0
    return tilted.lower_epsilon(side, delta, up)


def charged(charge: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """Where a plain side's ``charge`` passes ``CHARGE_SHARE`` of the ``delta`` read there
    (elementwise; a NaN passes).

    Parameters
    ----------
    charge, delta : numpy.ndarray
        The plain charges and the deltas read there (broadcast together).

    Returns
    -------
    numpy.ndarray
        Booleans, of the broadcast shape.
    """
    return np.logical_not(np.asarray(charge) <= CHARGE_SHARE * np.asarray(delta))


def _moves(pmf: GridPMF, factors: Sequence[tuple[GridPMF, int]], at: float, delta: float) -> bool:
    """Whether the plain composition's charges at an epsilon side ``at`` pass ``CHARGE_SHARE`` of
    ``delta`` and the rise of the plain curve ``pmf`` over the step of ``question.EXACT_RELATIVE``
    of ``at`` below it: only then can removing them move that side by more than that share of it."""
    charge = plain_charge(pmf, factors, at)
    passes = bool(charged(np.asarray(charge), np.asarray(delta)))
    if not (passes and math.isfinite(at)):
        return passes
    rise = pmf.delta(np.array([at - EXACT_RELATIVE * at, at]))
    return not charge <= float(rise[0] - rise[1])


def own_grid_bracket(
    pld: PrivacyLossDistribution,
    x: float,
    lower: float,
    upper: float,
    bound: Bound = "both",
) -> tuple[float, float]:
    """(``lower``, ``upper``), ``pld``'s plain epsilon bracket at the delta ``x``, intersected with
    its tilted sides (module docstring) where the plain composition's charges pass ``CHARGE_SHARE``
    of the delta asked.

    Parameters
    ----------
    pld : PrivacyLossDistribution
        A composed PLD (``composed_rounds``) whose pessimistic sides are composed already.
    x : float
        The delta asked.
    lower, upper : float
        Its certified plain epsilon bracket (the maximum over the directions of each side).
    bound : {"both", "upper", "lower"}, default "both"
        "upper": the upper side alone is read (the lower side stays ``lower``).

    Returns
    -------
    tuple of float
        The certified (lower, upper).
    """
    plain = plain_sides(pld, x, lower, bound)
    if not any(read_up or read_low for _, read_up, read_low in plain):
        return lower, upper
    low, up = lower, 0.0
    for j in sorted(range(len(plain)), key=lambda i: -plain[i][0]):
        up_j, read_up, read_low = plain[j]
        if read_up and up_j > up:  # below the upper sides read so far: their maximum stands
            up_j = upper_epsilon(direction_pessimistic(pld.directions[j]), x, up_j)
        up = max(up, up_j)
        if read_low and low < up_j < math.inf:
            low = max(low, tilted_lower(pld.directions[j], x, lower, up_j))
    return low, max(low, min(upper, up))


def tilted_lower(direction: dict[Factor, int], delta: float, lower: float, upper: float) -> float:
    """One direction's tilted lower epsilon at ``delta`` (``lower_epsilon`` under the exponent's
    tilt at the middle of the run's plain ``lower`` and the direction's certified ``upper``,
    searched down from ``upper``); 0 where a factor has no optimistic PMF."""
    terms = direction_optimistic(direction)
    if terms is None:
        return 0.0
    return lower_epsilon(terms, delta, 0.5 * (lower + upper), upper)


def plain_sides(
    pld: PrivacyLossDistribution, delta: float, lower: float, bound: Bound
) -> list[tuple[float, bool, bool]]:
    """Per direction of ``pld``: its plain upper epsilon at ``delta`` (its composed pessimistic
    PMF's), and whether its upper and its lower side are read under a tilt (module docstring; the
    lower side only where ``bound`` asks for it), from the plain charges at that upper side and at
    the run's plain ``lower`` side."""
    out = []
    for pmf, direction in zip(pld.composed(True), pld.directions):
        factors = direction_pessimistic(direction)
        side = float(np.maximum(pmf.epsilon(np.array(delta)), 0.0))
        read_up = _moves(pmf, factors, side, delta)
        read_low = bound != "upper" and _moves(pmf, factors, lower, delta)
        out.append((side, read_up, read_low))
    return out


def own_grid_brackets(
    pld: PrivacyLossDistribution,
    x: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    bound: Bound = "both",
) -> tuple[np.ndarray, np.ndarray]:
    """``own_grid_bracket`` at each element of ``x`` (of the brackets' shape after broadcasting).

    Parameters
    ----------
    pld : PrivacyLossDistribution
        A composed PLD (``composed_rounds``).
    x, lower, upper : numpy.ndarray
        The deltas asked and their certified plain epsilon brackets.
    bound : {"both", "upper", "lower"}, default "both"
        "upper": the upper sides alone are read.

    Returns
    -------
    tuple of numpy.ndarray
        The certified (lower, upper) brackets, of ``lower``'s shape.
    """
    return each_bracket(
        x, lower, upper, lambda at, lo, up: own_grid_bracket(pld, at, lo, up, bound)
    )
