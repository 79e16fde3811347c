"""The window tail of a tilted upper epsilon read, from the point's own composition alone.

A tilted composition cut at a window tail t (``compose.tilted.compose_tilted``'s ``tail``) moves at
most t of the tilted mass above its window, and at most t below it, to +infinity.  A read at eps
charges that mass at the untilt factor at the window's top, M^T e^{-lam cut} (the mass below the
window adds nothing to a read: ``compose.tilted``), which is the Chernoff bound B(eps) = e^{K(lam) -
lam eps} at the read's tilt (K the T rounds' summed log-moment) times e^{-lam (cut - eps)}.  At the
answer, B is the Chernoff bound's looseness R times delta, and under the tilt of the answer's
Chernoff exponent the tilted loss has its mean near eps and its standard deviation s = sqrt(K''), the
window's top about z_t s above it (z_t = sqrt(2 log(1 / t)): the Chernoff edge of a tail t); so the
charge is about 2 t R delta e^{-lam s z_t}, and the largest power of ten t with

    log(2 t) + log R - a lam s z_t <= log(READ_SHARE)                                    (1)

(``TILT_SHARE`` = a < 1: the answer's tilt is below the estimate's) keeps it below ``READ_SHARE``
of delta, at most ``READ_TAIL`` (the window's bottom, z_t s below the
mean, stays below the answer).  The window's span grows as z_t: a cut at 1e-6 rather than the
composition's default 1e-15 holds about a third fewer points.  Every tail is certified (the cut mass
is charged), so R, lam and s need only be estimated, and they are estimated from the point alone
(its one round's PMF on the grid, T and delta), never from a bracket already read: a point's answer
is then the same whichever points are asked with it.

The estimates are those at the Chernoff tilt lam of delta (the lam minimizing (K(lam) + log(1 /
delta)) / lam), K'' by a central difference, and R by the saddle-point approximation of the
hockey-stick divergence (Lugannani and Rice, Adv. Appl. Prob. 12, 1980, to first order; for delta(eps)
= E[(1 - e^{eps - L})_+] the tilted density at the saddle point gives delta ~ B(eps) / (lam (lam + 1)
sqrt(2 pi K''(lam)))): R ~ lam (lam + 1) sqrt(2 pi K''(lam)).  Where the loss is a sum of many
comparable rounds (the README's DP-SGD run, q 0.01 over 1000 rounds, sigma 0.5 to 5, delta 1e-10 and
1e-5) it is within a factor 2 of the looseness at the answer; where a few rare large rounds make the
loss (T q near 1 with q <= 1e-3) the looseness is up to 1e7 times larger, and the mass above the
window, wrapped around the circular convolution to its low losses and untilted there, adds to the
read (``wrapped_mass``).  The read then checks both (``cut_charge_too_large``) and is made again on
the uncut window where they pass ``CUT_CHECK_SHARE`` and ``WRAP_CHECK_SHARE`` of delta.
"""

from __future__ import annotations

import math

import numpy as np

from ..grid.pmf import GridPMF
from ..grid.tail import DEFAULT_TAIL

# the share of delta the cut mass's charge is held near at the answer, (1): below the charge of the
# uncut window's 1e-15 tail at the untilt factor of eps (1e-15 R delta, R >= 100 on the runs of the
# module docstring), so the cut loosens no upper side by more than the round-off already charged
READ_SHARE = 1e-13
# the share a of the estimated lam s the answer's tilt is taken to keep in (1): the answer's tilt lies
# below the Chernoff tilt of delta (19.2 against 26.1 at sigma 2, q 0.01, 1000 rounds, delta 1e-5),
# and the charge of a cut at 1e-6 was up to 2400 times the estimate with a = 1 (e^{7.8}, a quarter
# of lam s z_t there)
TILT_SHARE = 0.75
# the largest window tail taken: the window's bottom, z_t s below the tilted mean, stays below the
# answer of a direction whose epsilon is a little below the point's
READ_TAIL = 1e-6
# the cut mass's charge at the answer, as a share of delta, past which the read is made again on the
# uncut window (the saddle-point estimate was far below the looseness: a few rare large rounds)
CUT_CHECK_SHARE = 1e-11
# ``wrapped_mass``'s bound at the answer, as a share of delta, past which the read is made again on
# the uncut window: a Chernoff bound, about R times what wraps; up to 2.6e-5 where the cut window's
# read was within 1e-9 of the uncut one's (q 0.01, 1000 rounds, sigma 0.5 to 5, delta 1e-10), 81
# where it was 1.3e-6 above it (sigma 1, q 1e-3, 100 rounds, delta 1e-10)
WRAP_CHECK_SHARE = 1e-3
# the tilts tried for ``wrapped_mass``'s bound, as multiples of the window's
WRAP_LAMBDAS = np.exp(np.linspace(math.log(1.001), math.log(100.0), 97))
# the tilts ``wrapped_mass`` tries first where a bound is enough: every third of the first 25 (up to
# 3.1 times the window's); the least bound lies among the first 30 on the runs of the module
# docstring (q 0.01, 1000 rounds, sigma 0.6 to 3; the README's DP-SGD run, sigma 0.5 to 5; q 1e-4,
# 10^4 rounds), and these alone find one below the read's check wherever all 97 do
WRAP_FIRST = slice(0, 25, 3)
# the relative step of the central difference for K''
CURVATURE_STEP = 1e-3


def saddle_looseness(pmf: GridPMF, rounds: float, lam: float) -> tuple[float, float]:
    """The saddle-point estimate lam (lam + 1) sqrt(2 pi K''(lam)) of the Chernoff bound's looseness
    (module docstring) of ``rounds`` rounds of ``pmf`` at the tilt ``lam``, and the tilted loss's
    standard deviation sqrt(K''(lam)); (inf, 0) where K'' is not finite and positive."""
    step = CURVATURE_STEP * lam
    with np.errstate(over="ignore", invalid="ignore"):
        k = rounds * pmf.log_mgf(np.array([lam - step, lam, lam + step]))
    curvature = float((k[2] - 2.0 * k[1] + k[0]) / step**2)
    if not (math.isfinite(curvature) and curvature > 0.0):
        return math.inf, 0.0
    spread = math.sqrt(curvature)
    return lam * (lam + 1.0) * math.sqrt(2.0 * math.pi) * spread, spread


def read_tail(pmf: GridPMF, rounds: float, lam: float) -> float:
    """The window tail of an upper read of ``rounds`` rounds of ``pmf`` (module docstring): the
    largest power of ten t in [``DEFAULT_TAIL``, ``READ_TAIL``] meeting (1) with the saddle-point
    looseness and spread at ``lam`` (the Chernoff tilt of the delta asked); ``DEFAULT_TAIL`` where
    none does or there is no estimate."""
    looseness, spread = saddle_looseness(pmf, rounds, lam)
    if not (math.isfinite(looseness) and looseness > 0.0):
        return DEFAULT_TAIL
    budget = math.log(READ_SHARE) - math.log(looseness)
    for k in range(round(-math.log10(READ_TAIL)), round(-math.log10(DEFAULT_TAIL))):
        tail = 10.0**-k
        edge = TILT_SHARE * lam * spread * math.sqrt(2.0 * math.log(1.0 / tail))
        if math.log(2.0 * tail) - edge <= budget:
            return float(tail)
    return DEFAULT_TAIL


def wrapped_mass(
    pmf: GridPMF, rounds: float, theta: float, x: float, length: int, enough: float = 0.0
) -> float:
    """A bound on what the mass above a tilted window adds to a read at grid loss ``x`` by wrapping
    around the circular convolution of ``length`` points (under the tilt ``theta`` per grid step):
    mass at grid index K lands at K - length, untilted there by e^{theta length} more than at K, so
    it adds at most e^{theta length} mass{S >= x + length h} <= e^{K(lam) - lam x - (lam h - theta)
    length} for every lam > theta / h (Chernoff; K the summed log-moment of ``rounds`` rounds of
    ``pmf``), the least over ``WRAP_LAMBDAS`` times theta / h; where the least over its
    ``WRAP_FIRST`` tilts is at most ``enough``, that one (a bound as well, and at most ``enough``
    like the least over all: the other tilts' moments, a pass over the PMF each, are not taken).
    It is part of the window's values (certified either way: folded mass only adds on the
    pessimistic side); after many rounds of a heavy-tailed loss it is what a cut window's read
    loses."""
    lams = WRAP_LAMBDAS * (theta / pmf.h)
    first = np.zeros(lams.size, dtype=bool)
    first[WRAP_FIRST] = True
    least = _least_exponent(pmf, rounds, theta, x, length, lams[first])
    if math.exp(min(least, 0.0)) <= enough:
        return math.exp(min(least, 0.0))
    rest = _least_exponent(pmf, rounds, theta, x, length, lams[~first])
    return math.exp(min(least, rest, 0.0))


def _least_exponent(
    pmf: GridPMF, rounds: float, theta: float, x: float, length: int, lams: np.ndarray
) -> float:
    """The least of ``wrapped_mass``'s exponents K(lam) - lam x - (lam h - theta) length over
    ``lams`` (inf where none is finite); each tilt's exponent is the same whatever the others
    (``GridPMF.log_mgf`` takes each lam on its own)."""
    with np.errstate(over="ignore", invalid="ignore"):
        exponent = rounds * pmf.log_mgf(lams) - lams * x - (lams * pmf.h - theta) * length
    return float(np.min(np.where(np.isfinite(exponent), exponent, np.inf)))


def cut_charge_too_large(charge: float, wrapped: float, delta: float) -> bool:
    """Whether a cut window's ``charge`` at the answer (its cut mass at the untilt factor of its top
    or of the answer where above it) passes ``CUT_CHECK_SHARE`` of ``delta``, or its
    ``wrapped_mass`` there ``WRAP_CHECK_SHARE`` of it."""
    return not (charge <= CUT_CHECK_SHARE * delta and wrapped <= WRAP_CHECK_SHARE * delta)
