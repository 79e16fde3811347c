"""The delta bracket of a composed PLD whose factors describe no run the question reader reads
(random allocation's epochs, Laplace, discrete mechanisms, mixtures, a ledger of mixed mechanisms),
read under exponential tilts of a ladder fixed in advance, on its own grid, from its own factors
(its epsilon: ``tilted_own_grid``).

The plain FFT composition's round-off charge (about T u of the whole mass) and the tail cut of its
window sit far above a delta of 1e-10: the README's DP-SGD run on balls-in-bins batches (sigma 1.1,
235 steps an epoch, 60 epochs) reads delta in [9.17e-11, 1.021e-10] at the upper epsilon of delta
1e-10 and in [0, 2.85e-12] at that of 1e-12, so that its delta(eps) and epsilon(delta) disagree.
Per neighbouring direction, its factors' pessimistic PMFs with their counts (the upper side), or
its optimistic ones (``Factor.lower_terms``, the lower side), are composed under an exponential
tilt (``compose.tilted``: Keich 2005; Wilson & Keich 2016), whose read is certified at any tilt and
carries its charge relative to the Chernoff bound there; the tilt only makes it tight.  The tilt of
eps is a function of eps and the side's PMFs alone, so that an eps asked in an array is read as
asked alone: eps's rung c, the largest ``tilted_question.FINE_DELTA_RATIO``^k at most eps
(``tilted_question.fine_delta_key``'s centre: a tilt at a centre a little below eps reads as tight
as one at eps), gives the tilt maximizing the Chernoff exponent lam c - K(lam)
(``tilted_factors.exponent_tilt``, K the summed log-moment), taken down to the rung of ``LADDER``
at or below it (``ladder_tilt``), so that the rungs of eps whose tilts lie close (a heavy loss
tail's, whose tilt grows slowly in eps) share one composition.  Every eps of one tilt is read from
one composition per direction and side (``TiltedComposition.deltas``); the compositions are held
from call to call by the PMFs' contents (``pmf_key``), counts, side and tilt, within ``HELD_POINTS``
window points, the least recently used forgotten first (``forget_least_used``): a
curve of deltas asked again (the risk family's directional profiles, whose one-direction PLDs are
built again call after call) reads the windows held.

A direction's side is read only where the plain composition's charges at eps (round-off, shift and
the window's tail cut, ``plain_charges``) pass ``CHARGE_SHARE`` of
the plain delta there (the direction's plain upper side, for its upper read; the bracket's plain
lower side, for the lower read): elsewhere the read could move the side by no more than about that
share, and the bracket given stands, bit for bit.  The directions are taken from the largest plain
upper side down; a direction's upper side is read only where its plain one passes the upper sides
found so far, its lower side only where its plain upper side passes the lower side found so far.
Each direction's upper side is intersected with its plain one, both sides are the maximum over the
directions (Zhu, Dong & Wang, AISTATS 2022, Sec. 5), and the answer is the intersection with the
plain bracket given.  Each side depends on the plain values alone, so a side asked alone (``bound``
"upper" or "lower") is the bracket's, bit for bit.  Nothing is discretized again: the bracket keeps
the factors' discretization and only the composition's round-off and tail cut go.  A side keeps its
plain value where a window passes ``tilted_question.MAX_POINTS``, a tilt overflows a factor's
moment, or a factor is not a discretized round (``compose.tilted.compose_tilted``'s refusals).
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections.abc import Hashable, Sequence

import numpy as np

from ... import _core
from ...base.accountant import Bound
from ..compose import tilted
from ..grid.distribution import Factor, PrivacyLossDistribution
from ..grid.pmf import GridPMF
from .tilt_search import COARSE_STEP, LAMBDAS
from .tilted_factors import exponent_tilt
from .tilted_own_grid import direction_optimistic, direction_pessimistic
from .tilted_question import DELTA_WINDOW_POINTS, MAX_POINTS, WINDOW_TAIL, fine_delta_key

# the plain composition's charges at a side, as a share of the plain delta there, above which that
# side is read under a tilt (module docstring; the core's kOwnGridChargeShare, which the epsilon
# read takes too)
CHARGE_SHARE = float(_core.pld_refine.own_grid_charge_share)
# the tails of the tilted mass cut from each end of a tilted window (``tilted_side``; the core's
# kOwnGridTiltedTail, whose comment gives the reason)
TILTED_TAIL = float(_core.pld_refine.own_grid_tilted_tail)

# the window points of the compositions held between calls (module docstring): a tilted window of
# an undescribed run holds 1e4 to 1e6 points, a point with its reads about 40 bytes
HELD_POINTS = DELTA_WINDOW_POINTS
# the tilts a delta is read under: every LADDER_STEP-th of ``tilt_search.LAMBDAS`` (a geometric
# ladder, ratio about 1.36), so that the rungs of eps whose Chernoff tilts lie close (a heavy
# loss tail's, whose tilt grows slowly in eps) share one composition
LADDER_STEP = COARSE_STEP
LADDER = LAMBDAS[::LADDER_STEP]

_held: dict[Hashable, tilted.TiltedComposition] = {}
_tilts: dict[Hashable, float] = {}
# id(pmf) -> (a weak reference to the PMF, its ``pmf_key``): an id is that PMF's while the
# reference still reaches it
_pmf_keys: dict[int, tuple[weakref.ref[GridPMF], Hashable]] = {}
_held_lock = threading.Lock()
# the ladder tilts held between calls (``held_tilt``)
HELD_TILTS = 1024


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


def rung(eps: float) -> float:
    """The centre of the tilt reading delta at ``eps`` > 0: the largest
    ``tilted_question.FINE_DELTA_RATIO``^k at most ``eps`` (``fine_delta_key``'s centre; its level,
    which sizes a discretization's tails, does not apply: the factors are the PLD's own)."""
    return fine_delta_key(eps, 1.0)[0]


def ladder_tilt(terms: Sequence[tuple[GridPMF, int]], centre: float) -> float:
    """The rung of ``LADDER`` at or below the tilt maximizing the Chernoff exponent lam ``centre`` -
    K(lam) of ``terms`` (``tilted_factors.exponent_tilt``), its least rung below the ladder."""
    lam = exponent_tilt(terms, centre)
    return float(LADDER[max(0, int(np.searchsorted(LADDER, lam, side="right")) - 1)])


def pmf_key(pmf: GridPMF) -> Hashable:
    """What a composition reads of ``pmf``: its fields and a digest of its masses, so that the PMFs
    of one mechanism built again (a directional profile's one-direction PLD, made call after call)
    find the compositions held for the first; made once per PMF object (``_pmf_keys``)."""
    with _held_lock:
        found = _pmf_keys.get(id(pmf))
    if found is not None and found[0]() is pmf:
        return found[1]
    digest = hashlib.blake2b(np.ascontiguousarray(pmf.p).tobytes(), digest_size=16).digest()
    key = (
        pmf.k_lo,
        pmf.h,
        pmf.p.size,
        digest,
        pmf.p_inf,
        pmf.shift,
        pmf.pessimistic,
        pmf.entry_error,
        pmf.total_error,
        pmf.inverse_error,
        pmf.loss_shift,
    )
    with _held_lock:
        while len(_pmf_keys) >= HELD_TILTS:
            del _pmf_keys[next(iter(_pmf_keys))]
        _pmf_keys[id(pmf)] = (weakref.ref(pmf), key)
    return key


def held_tilt(terms: Sequence[tuple[GridPMF, int]], key: Hashable, centre: float) -> float:
    """``ladder_tilt`` of ``terms`` (``key`` what they hold) at ``centre``, held from call to call
    (at most ``HELD_TILTS``, the oldest forgotten first): a search over the log-moments of every
    factor, which a curve asked again need not make again."""
    slot = (key, centre)
    with _held_lock:
        lam = _tilts.get(slot)
    if lam is None:
        lam = ladder_tilt(terms, centre)
        with _held_lock:
            while len(_tilts) >= HELD_TILTS:
                del _tilts[next(iter(_tilts))]
            _tilts[slot] = lam
    return lam


def held_window(
    terms: Sequence[tuple[GridPMF, int]], key: Hashable, lam: float, pessimistic: bool
) -> tilted.TiltedComposition | None:
    """``terms`` (one side's PMFs and counts, ``key`` what they hold: ``pmf_key`` and the counts)
    composed under the tilt ``lam`` (``tilted_side``), held by ``key``, side and
    tilt (module docstring); None where the composition is refused."""
    slot = (key, pessimistic, lam)
    with _held_lock:
        side = _held.pop(slot, None)
        if side is not None:  # the most recently used last
            _held[slot] = side
            return side
    try:
        side = tilted_side(terms, lam, pessimistic)
    except ValueError:
        return None
    with _held_lock:
        forget_least_used(_held, HELD_POINTS)
        _held[slot] = side
    return side


def forget_least_used(held: dict[Hashable, tilted.TiltedComposition], points: int) -> None:
    """Forgets ``held``'s compositions in insertion order (the least recently used first, where a
    use moves its entry last) until those left hold at most ``points`` window points."""
    total = sum(c.window.p.size for c in held.values())
    for key in list(held):
        if total <= points:
            break
        total -= held.pop(key).window.p.size


def tilted_deltas(
    direction: dict[Factor, int], pessimistic: bool, eps: np.ndarray, plain: np.ndarray
) -> np.ndarray:
    """One direction's certified deltas on one side at each of ``eps`` (> 0, finite), each read
    under the ladder's tilt of its rung (``rung``, ``ladder_tilt``, ``held_window``); ``plain``
    (the side's value where no window is read) where a factor has no optimistic PMF or the
    composition is refused."""
    out = np.array(plain, dtype=np.float64)
    terms = direction_pessimistic(direction) if pessimistic else direction_optimistic(direction)
    if not terms:
        return out
    key = tuple((pmf_key(pmf), count) for pmf, count in terms)
    centres = [rung(float(x)) for x in eps]
    tilts = {centre: held_tilt(terms, key, centre) for centre in set(centres)}
    lams = np.array([tilts[centre] for centre in centres])
    for lam in np.unique(lams):
        side = held_window(terms, key, float(lam), pessimistic)
        if side is not None:
            at = np.flatnonzero(lams == lam)
            out[at] = side.deltas(eps[at])
    return out


def own_grid_deltas(
    pld: PrivacyLossDistribution,
    eps: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    bound: Bound = "both",
) -> tuple[np.ndarray, np.ndarray]:
    """(``lower``, ``upper``), ``pld``'s plain delta brackets at ``eps``, intersected with its
    tilted sides (module docstring) where the plain composition's charges pass
    ``CHARGE_SHARE`` of the plain delta.

    Parameters
    ----------
    pld : PrivacyLossDistribution
        A composed PLD (``tilted_own_grid.composed_rounds``) whose pessimistic sides are composed
        already.
    eps : numpy.ndarray
        The epsilons asked, >= 0 and finite; those at 0 keep their plain bracket.
    lower, upper : numpy.ndarray
        Their certified plain delta brackets (the maximum over the directions of each side), of
        ``eps``' shape.
    bound : {"both", "upper", "lower"}, default "both"
        "upper": the upper sides alone are read (the lower sides stay ``lower``); "lower": the
        lower sides alone (the upper sides stay ``upper``).

    Returns
    -------
    tuple of numpy.ndarray
        The certified (lower, upper) brackets, of ``eps``' shape.
    """
    shape = np.shape(eps)
    x = np.array(eps, dtype=np.float64).reshape(-1)
    lows = np.array(np.broadcast_to(lower, shape), dtype=np.float64).reshape(-1)
    ups = np.array(np.broadcast_to(upper, shape), dtype=np.float64).reshape(-1)
    live = np.flatnonzero(np.isfinite(x) & (x > 0.0))
    if not live.size:
        return lows.reshape(shape), ups.reshape(shape)
    at = np.ascontiguousarray(x[live])
    plain, charges = [], []
    for pmf, direction in zip(pld.composed(True), pld.directions):
        plain.append(np.asarray(pmf.delta(at), dtype=np.float64))
        charges.append(plain_charges(pmf, direction_pessimistic(direction), at))
    none = np.zeros(at.shape, dtype=bool)
    read_up = [charged(c, u) if bound != "lower" else none for c, u in zip(charges, plain)]
    read_low = [charged(c, lows[live]) if bound != "upper" else none for c in charges]
    if not any(r.any() for r in read_up + read_low):
        return lows.reshape(shape), ups.reshape(shape)
    order = sorted(range(len(plain)), key=lambda d: -float(np.max(plain[d])))
    up = np.zeros(at.shape)
    for d in order:
        side = plain[d].copy()
        need = read_up[d] & (side > up)
        if need.any():
            side[need] = np.minimum(
                side[need], tilted_deltas(pld.directions[d], True, at[need], side[need])
            )
        up = np.maximum(up, side)
    low = lows[live].copy()
    for d in order:
        need = read_low[d] & (plain[d] > low)
        if need.any():
            low[need] = np.maximum(
                low[need], tilted_deltas(pld.directions[d], False, at[need], low[need])
            )
    lows[live], ups[live] = low, np.maximum(low, np.minimum(ups[live], up))
    return lows.reshape(shape), ups.reshape(shape)
