"""The default's epsilon bracket at a delta below the composition's round-off: read under an exponential tilt.

After T rounds the FFT composition's round-off charge is about T u of the total mass (``compose.fft``), so a
bracket at a delta near or below it stays wide on every grid.  The tilted composition (``compose.tilted``)
carries that charge relative to the Chernoff bound at its tilt instead, so the same discretized rounds are read
there tightly.  For a point of the Poisson-subsampled Gaussian (sigma, q, T, sensitivity) and one delta, each
neighbouring direction's pessimistic PMF is composed under the tilt lam_u that minimizes the Chernoff epsilon
(K(lam) + log(E / delta)) / lam at E = ``ROUND_OFF_PER_ROUND`` T (where the charge, of size E times the Chernoff
bound, meets delta), K(lam) = T log sum_k p_k e^{lam l_k} its log-moment, and its upper epsilon found; its
optimistic PMF under the tilt that maximizes lam eps - K(lam) at that epsilon (the Chernoff exponent there, so
the charge is least near the answer), and its lower epsilon found.  The bracket is the maximum over the
directions on each side (delta is the larger of the two directions' curves), on grids from the default
tolerance's first grid (``StartGrid.first``) down by ``GRID_STEP`` while the upper side still falls by a
quarter of the tolerance, at most ``GRIDS`` grids, each window within ``MAX_POINTS``; every bracket found is
certified and the answer is their intersection with the one given.
"""

from __future__ import annotations

import math

import numpy as np

from ..compose import tilted
from ..compose.pmf import GridPMF
from ..grid.grid_start import Point, StartGrid
from ..mechanisms.constructors import subsampled_gaussian
from . import question

# the FFT composition's round-off charge per round and unit of mass, for choosing the tilt (a model, not a bound)
ROUND_OFF_PER_ROUND = 1e-16
# where delta is below this many times T u, the round-off charge is a sizable part of it (u = 2^-53)
ROUND_OFF_SHARE = 1e3
GRID_STEP = 4.0
GRIDS = 4
MAX_POINTS = 1 << 22
# the tilts tried, lam = theta / h, for the Chernoff optima
LAMBDAS = np.exp(np.linspace(math.log(1e-2), math.log(1e6), 481))


def charge_limited(point: Point, delta: float) -> bool:
    """Whether a delta is small enough beside T u (``ROUND_OFF_SHARE``) that the round-off charge may set the
    bracket's width."""
    return delta < ROUND_OFF_SHARE * point[2] * tilted.UNIT_ROUNDOFF


def chernoff_tilt(pmf: GridPMF, rounds: float, delta: float) -> float:
    """The lam among ``LAMBDAS`` minimizing (K(lam) + log(E / delta)) / lam (module docstring)."""
    with np.errstate(over="ignore", invalid="ignore"):
        k = rounds * pmf.log_mgf(LAMBDAS)
        eps = (k + math.log(ROUND_OFF_PER_ROUND * rounds / delta)) / LAMBDAS
    eps = np.where(np.isfinite(eps), eps, np.inf)
    return float(LAMBDAS[int(np.argmin(eps))])


def exponent_tilt(pmf: GridPMF, rounds: float, eps: float) -> float:
    """The lam among ``LAMBDAS`` maximizing lam eps - K(lam) (the Chernoff exponent at ``eps``)."""
    with np.errstate(over="ignore", invalid="ignore"):
        exponent = LAMBDAS * eps - rounds * pmf.log_mgf(LAMBDAS)
    exponent = np.where(np.isfinite(exponent), exponent, -np.inf)
    return float(LAMBDAS[int(np.argmax(exponent))])


def direction_upper(pmf: GridPMF, rounds: int, delta: float, start: float) -> float:
    """A certified upper epsilon at ``delta`` of ``rounds`` rounds of ``pmf`` (pessimistic), read under the
    Chernoff tilt; inf where not even ``start`` (or the window's top, where ``start`` is not finite) qualifies."""
    lam = chernoff_tilt(pmf, rounds, delta)
    composition = tilted.compose_tilted([(pmf, rounds)], lam * pmf.h, pessimistic=True, max_points=MAX_POINTS)
    w = composition.window
    top = float((w.k_lo + w.p.size + 1) * w.h + w.loss_shift)
    return tilted.upper_epsilon(composition, delta, min(start, top) if math.isfinite(start) else top)


def direction_lower(terms: list[tuple[GridPMF, int]], rounds: int, delta: float, near: float) -> float:
    """A certified lower epsilon at ``delta`` of the composition of ``terms`` (optimistic PMFs and counts making
    ``rounds`` rounds), read under the tilt of the Chernoff exponent at ``near``; 0 where none is found."""
    if not (math.isfinite(near) and near > 0.0):
        return 0.0
    pmf = max(terms, key=lambda term: term[1])[0]
    lam = exponent_tilt(pmf, rounds, near)
    composition = tilted.compose_tilted(terms, lam * pmf.h, pessimistic=False, max_points=MAX_POINTS)
    return tilted.lower_epsilon(composition, delta, near)


def grid_bracket(point: Point, delta: float, h: float, upper: float) -> tuple[float, float]:
    """The certified (lower, upper) epsilon at ``delta`` on grid ``h``: the maximum over the neighbouring
    directions of each side (module docstring); ``upper`` the best upper side so far (a start for the search)."""
    sigma, q, rounds, sensitivity = point
    count = int(rounds)
    pld = subsampled_gaussian(
        sigma,
        q,
        sensitivity=sensitivity,
        value_discretization_interval=h,
        tail=question.question_tail(rounds, delta),
    )
    ups, lows = [], []
    for direction in pld.directions:
        ((factor, times),) = direction.items()
        up = direction_upper(factor.upper, count * times, delta, upper)
        ups.append(up)
        terms = [(pmf, c) for pmf, c in factor.lower_terms(count * times) if pmf is not None]
        lows.append(direction_lower(terms, count * times, delta, up) if terms else 0.0)
    return max(lows), max(ups)


def tilted_bracket(point: Point, delta: float, lower: float, upper: float) -> tuple[float, float]:
    """The bracket (``lower``, ``upper``) at ``delta`` of ``point`` intersected with the tilted brackets on the
    grids of the module docstring (each certified); as given where the delta is not ``charge_limited`` or a
    window would pass ``MAX_POINTS``."""
    if not charge_limited(point, delta) or point[1] >= 1.0:
        return lower, upper
    h = StartGrid(question.DEFAULT_ACCURACY, "relative", question.DEFAULT_RELATIVE_ACCURACY).first(
        point, np.array([delta]), "epsilon"
    )
    for _ in range(GRIDS):
        try:
            low, up = grid_bracket(point, delta, h, upper)
        except ValueError:  # a window past MAX_POINTS (or a grid past the discretization's cells): stop here
            break
        before = upper
        lower, upper = max(lower, low), min(upper, up)
        if question.within_tolerance(np.array(lower), np.array(upper)) or not (
            before - upper > 0.25 * question.default_tolerance(upper)
        ):
            break
        h /= GRID_STEP
    return lower, max(lower, upper)
