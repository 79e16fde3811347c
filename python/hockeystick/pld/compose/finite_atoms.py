"""Finite privacy-loss distributions composed exactly (no loss grid), alone or beside a grid PLD.

A mechanism with a finite dominating pair (P, Q) (discrete Laplace, randomized response, the
canonical (eps, delta) pair, their Poisson-subsampled pairs) has a PLD with finitely many atoms:
P-mass p_j at loss l_j = log(P_j / Q_j), and P-mass at +infinity where Q_j = 0.  Composing k such
rounds only adds losses, so the composed PLD is again finite; its privacy profile is

    delta(eps) = sum_j p_j (1 - e^{eps - l_j})_+ + p_inf,

and composing it with any other PLD G (losses add, Doroshenko et al., PETS 2022, Sec. 4) gives

    delta(eps) = sum_j p_j delta_G(eps - l_j) + p_inf                                      (*)

(condition on the finite part's loss; delta_G is G's profile extended to eps < 0, which every
certified side of a grid PMF answers).  Placing these atoms on a loss grid instead moves each by
up to one grid step per round, so a k-fold composition of atoms narrows its bracket only like k h:
the reason discrete-Laplace trees were slow.  Here they are never put on the grid.

Certification.  delta above is non-decreasing in every l_j and every p_j, and shifting every loss
by at most e changes delta(eps) to a value between delta(eps - e) and delta(eps + e); so:
- losses are kept as integer multiples ``index`` of a spacing ``eta`` with a bound ``loss_error``
  on |true loss - index * eta| for every atom: a pair whose losses are integer multiples of its
  smallest non-zero |loss| (within 1e-9 relative, the discrepancy counted in the bound: discrete
  Laplace, randomized response under replace-one, the canonical pair) keeps that lattice, so a
  k-fold composition has only k (s + 1) atoms; any other pair is rounded to the sub-grid ``ETA``.
  The bound starts at the round-off of log(P_j) - log(Q_j) (4u(|log P_j| + |log Q_j|) + 32u,
  u = 2^-53, covering the few-ulp error of the masses themselves) plus the rounding, and adds up
  under composition (losses add); the upper side is evaluated at eps - loss_error, the lower side
  at eps + loss_error;
- each mass carries a bound ``rel_error`` on its relative round-off (16u for a pair's masses, the
  two factors' bounds plus 2u per product and (m - 1)u per merged sum of m terms), and every
  delta is widened (upper) or narrowed (lower) by it and by the round-off of the sum (*).
A composition whose atoms would exceed ``MAX_ATOMS`` is merged onto a grid twice as coarse
(nearest point, its half-step added to ``loss_error``), so the count stays bounded and both
sides stay certified.

Long compositions (``_window_power``, ``_compose_windowed``).  A self-composition whose lattice fills its
span, or whose result could pass ``MAX_ATOMS`` atoms, and a composition of more than ``WINDOW_PRODUCTS``
products of atoms, run on a window: masses on a stride of the lattice, convolved directly (no FFT
round-off to charge), with masses below ``WINDOW_FLOOR`` = 2^-1000 dropped (no subnormal mass is ever
kept, so every kept sum keeps its relative bound) and the window coarsened to at most ``WINDOW_POINTS``
points (nearest point of a lattice twice as coarse, as above).  The dropped P-mass, and the at most
2^-1074 per product lost to underflow, is ``missing``: on the upper side at the window's ``reach`` (an
index at or above every mass's, kept or dropped; at least 2^-1000 there), left out on the lower side
(``lower``).  So 10^8 runs of a discrete Laplace cost ~27 convolutions of <= 2^13 points.

Masses near underflow.  Below the smallest normal double (2^-1022) a computed mass has no relative
error bound: each operation errs by up to 2^-1074 absolute, and a mass whose true value is below
~2^-1075 (e^-800, say) is computed as 0.  So a pair's masses are taken to be within 16u relative plus,
below 2^-1022, ``SUBNORMAL_SLACK`` = 16 2^-1074 absolute of the truth (masses at least 2^-1022 within
16u, as before; a P-mass computed 0 is dropped, as before).  An outcome with a mass below 2^-1022
(a Q-mass computed 0 included) has a loss known only within [log p_lo - log q_hi, log p_hi - log q_lo]
(the masses' ranges widened by 32u, covering their own rounding), so each side gets its own atoms:
the upper side puts P-mass p_hi at the top of that range, the lower side P-mass p_lo at its bottom,
both rounded outward onto the pair's lattice.  No subnormal P-mass is kept at a finite loss: each
product with it (a delta's p (1 - e^{eps - l}), a composition's p m) would err by up to 2^-1075
absolute, which no relative charge covers (one exemption: ``discrete_laplace.discrete_laplace_atoms``,
whose relative charge covers it, as its docstring shows).  So (``split_near_underflow``, the one rule the grid
path shares) the outcomes with p < 2^-1022 (or q_lo = 0) are pooled: the upper side puts
max(sum p_hi, ``INFINITY_FLOOR`` = 2^-1000) at the top of their losses (+infinity only where some
q_lo = 0: the true loss may be infinite), so delta rises by at most max(sum p_hi, 2^-1000) per pair and a pure
epsilon stays finite; the lower side puts their rounded-down sum p_lo at the least of their losses
where it is normal, else drops them (delta falls by less than 2^-1022).  Likewise a composition some
of whose products fall below 2^-1022 (``_underflow_charged``) moves those masses and products 2^-1075
to its top finite loss (at least 2^-1000 there) on the upper side and drops its masses below 2^-1000
on the lower side.  The lower side's atoms are
``Atoms.lower`` (None where the sides share their atoms; built only when a lower side is asked for);
``compose`` and ``self_compose`` compose each side's atoms (the lower side's folded into
[-745, 745], ``_folded``, so their count stays bounded), and ``delta``, ``delta_with`` and
``pure_epsilon`` read the side's own.  A Q-mass
given as exactly 0 (the canonical (eps, delta) pair) is therefore placed at loss ~log p + 741 on the
lower side (q_hi = 32 2^-1074, less a lattice step or two): its delta is exact up to a relative
e^{eps - log p - 741}, that is to round-off for every eps below ~700; above ~740 the lower side falls
towards 0, and the lower epsilon of a target below that P-mass is ~741 + log p (a lower bound; the
true one is infinite).

Few atoms (a lone or briefly self-composed pair: at most ``LEAN_ATOMS``) take a lean path in plain
Python floats (``math``), the same operations on the same doubles as the numpy path, summed in
order (a sequential sum of n non-negative terms errs by at most (n - 1)u relative, inside the same
charge): there numpy's per-call cost, not the arithmetic, was the time.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, partial
from typing import Any, NamedTuple, TypeVar, cast

import numpy as np

from .pmf import GridPMF

UNIT_ROUNDOFF = float(np.finfo(np.float64).eps) / 2  # a Python float: scalar arithmetic stays in floats
ETA = 2.0**-32  # sub-grid of losses that lie on no lattice (~2.3e-10)
MAX_ATOMS = 1 << 14
LATTICE_TOLERANCE = 1e-9
_ONE_PASS_POINTS = 64  # pure_epsilon evaluates up to this many loss points at once instead of bisecting
MAX_LATTICE_INDEX = 1 << 20
INDEX_LIMIT = 2.0**62  # lattice indices (and a composition's sums of two) stay exact int64
T = TypeVar("T")
DENSE_FILL = 4  # compose on dense lattice arrays (one convolution) while the indices fill >= 1/4 of their span
LEAN_ATOMS = 32  # up to this many atoms (or outcomes of a pair), plain Python floats instead of numpy
INNER = 0.45  # a search's cluster puts points at x +- INNER tolerance r^i, r >= 2: neighbours < tolerance apart
SMALLEST_NORMAL = float(np.finfo(np.float64).tiny)  # below it a mass has no relative round-off bound
SUBNORMAL_SLACK = 16.0 * math.ulp(0.0)  # absolute error allowed to a mass computed below SMALLEST_NORMAL
WINDOW_POINTS = 1 << 13  # ``_window_power``'s entries per window (a direct convolution of two: ~10 ms)
WINDOW_PRODUCTS = 1 << 22  # ``_compose_shared`` of more products of atoms composes on a window instead
WINDOW_FLOOR = 2.0**-1000  # ``_window_power`` drops masses below it (charged): no subnormal mass is kept
INFINITY_FLOOR = (
    WINDOW_FLOOR  # least mass the upper side puts where it pools masses near underflow: products stay normal
)
FOLD_LOSS = 745.0  # ~ -log 2^-1074: lower-side atoms beyond +-FOLD_LOSS are folded (``_folded``)


@dataclass(frozen=True)
class Atoms:
    """P-masses ``mass`` at losses ``index * eta`` (indices strictly increasing), ``p_inf`` at +infinity.

    Every true loss lies within ``loss_error`` of its ``index * eta``; ``rel_error`` bounds the
    relative round-off of every mass and of ``p_inf``.  Where ``lower`` is set (masses near underflow,
    module docstring) these atoms serve the upper side only (each true loss at most index * eta +
    loss_error, each true mass at most mass (1 + rel_error)) and ``lower`` the lower side (each true
    loss at least index * eta - loss_error, each true mass at least mass (1 - rel_error)).
    """

    index: np.ndarray
    mass: np.ndarray
    p_inf: float
    eta: float
    loss_error: float
    rel_error: float
    lower_of: Callable[[], Atoms] | None = None  # builds ``lower`` (lazily: upper-only users never pay for it)

    @cached_property
    def lower(self) -> Atoms | None:
        """The lower side's atoms where they differ from these (``lower_of``), else None."""
        return None if self.lower_of is None else self.lower_of()

    @property
    def loss(self) -> np.ndarray:
        return self.index * self.eta

    @cached_property
    def loss_list(self) -> list[float]:
        """``loss`` as Python floats (the lean path)."""
        return cast("list[float]", (self.index * self.eta).tolist())

    @cached_property
    def mass_list(self) -> list[float]:
        """``mass`` as Python floats (the lean path)."""
        return cast("list[float]", self.mass.tolist())

    @cached_property
    def least_mass(self) -> float:
        """The least mass (1 for none): ``_may_underflow`` reads it at every composition (from the
        float list where the lean path has it, else one numpy call)."""
        if "mass_list" in self.__dict__ or self.mass.size <= LEAN_ATOMS:
            return min(self.mass_list, default=1.0)
        return float(self.mass.min())

    @cached_property
    def total_mass(self) -> float:
        """The masses' sum (``_may_underflow``: whether p_inf times it can underflow; a path choice)."""
        if "mass_list" in self.__dict__ or self.mass.size <= LEAN_ATOMS:
            return sum(self.mass_list)
        return float(self.mass.sum())


def pair_atoms(p: np.ndarray, q: np.ndarray) -> Atoms:
    """The atoms of the pair (P, Q) (outcomes with P = 0 carry no P-mass and are dropped); an outcome
    with a mass below 2^-1022 (Q = 0 included) gets an atom per side (``_with_near_underflow``)."""
    pa, qa = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    if pa.size <= LEAN_ATOMS and pa.shape == qa.shape:
        return _pair_atoms_lean(pa.tolist(), qa.tolist())
    keep = pa > 0
    near = keep & ((pa < SMALLEST_NORMAL) | (qa < SMALLEST_NORMAL))
    keep &= ~near
    pk, qk = pa[keep], qa[keep]
    lp, lq = np.log(pk), np.log(qk)
    loss = lp - lq
    err = float(loss_round_off(lp, lq).max(initial=0.0))
    nonzero = np.abs(loss[loss != 0.0])
    eta = float(nonzero.min()) if nonzero.size else ETA
    index = np.round(loss / eta)
    miss = np.abs(loss - index * eta)
    if not (
        np.all(miss <= LATTICE_TOLERANCE * np.maximum(np.abs(loss), eta)) and np.all(np.abs(index) <= MAX_LATTICE_INDEX)
    ):
        eta = ETA
        index = np.round(loss / eta)
        miss = np.abs(loss - index * eta)
    # |index * eta - computed| <= miss + u|index * eta| (the product's rounding), plus the loss's own error.
    bound = err + float((miss + UNIT_ROUNDOFF * np.abs(index * eta)).max(initial=0.0))
    out = _merged(index.astype(np.int64), pk, 0.0, eta, bound, 16.0 * UNIT_ROUNDOFF)
    return _with_near_underflow(out, list(zip(pa[near].tolist(), qa[near].tolist()))) if near.any() else out


def _pair_atoms_lean(p: list[float], q: list[float]) -> Atoms:
    """``pair_atoms`` for a few outcomes, in plain floats: the same losses, lattice, bounds and masses."""
    losses: list[float] = []
    masses: list[float] = []
    near: list[tuple[float, float]] = []
    err = 0.0
    for pi, qi in zip(p, q):
        if not pi > 0:
            continue
        if pi < SMALLEST_NORMAL or qi < SMALLEST_NORMAL:
            near.append((pi, qi))
            continue
        lp, lq = math.log(pi), math.log(qi)
        losses.append(lp - lq)
        masses.append(pi)
        err = max(err, loss_round_off(lp, lq))
    nonzero = [abs(x) for x in losses if x != 0.0]
    eta = min(nonzero) if nonzero else ETA
    index = [round(x / eta) for x in losses]
    miss = [abs(x - i * eta) for x, i in zip(losses, index)]
    if not all(
        m <= LATTICE_TOLERANCE * max(abs(x), eta) and abs(i) <= MAX_LATTICE_INDEX
        for x, i, m in zip(losses, index, miss)
    ):
        eta = ETA
        index = [round(x / eta) for x in losses]
        miss = [abs(x - i * eta) for x, i in zip(losses, index)]
    bound = err + max((m + UNIT_ROUNDOFF * abs(i * eta) for i, m in zip(index, miss)), default=0.0)
    if all(i < j for i, j in zip(index, index[1:])):  # distinct and sorted (the pairs here): nothing to merge
        out = Atoms(
            np.array(index, dtype=np.int64), np.array(masses, dtype=np.float64), 0.0, eta, bound, 16.0 * UNIT_ROUNDOFF
        )
        out.__dict__["loss_list"] = [i * eta for i in index]  # what the cached properties would compute
        out.__dict__["mass_list"] = masses
    else:
        out = _merged(
            np.array(index, dtype=np.int64), np.array(masses, dtype=np.float64), 0.0, eta, bound, 16.0 * UNIT_ROUNDOFF
        )
    return _with_near_underflow(out, near) if near else out


def loss_round_off(lp: Any, lq: Any) -> Any:
    """A bound on the error of log p - log q computed from lp = log p, lq = log q (each log within
    2u (|log| + 8) relative-plus-absolute, the difference within u): 4u (|lp| + |lq|) + 32u.  Scalars
    or arrays (``abs`` is numpy's on arrays)."""
    return 4.0 * UNIT_ROUNDOFF * (abs(lp) + abs(lq)) + 32.0 * UNIT_ROUNDOFF


def mass_range(mass: float) -> tuple[float, float]:
    """A computed mass's range of true values (module docstring: 16u relative, and ``SUBNORMAL_SLACK``
    absolute below 2^-1022), widened to 32u and twice the slack so that its own rounding stays inside."""
    slack = 2.0 * SUBNORMAL_SLACK if mass < SMALLEST_NORMAL else 0.0
    return max(mass * (1.0 - 32.0 * UNIT_ROUNDOFF) - slack, 0.0), mass * (1.0 + 32.0 * UNIT_ROUNDOFF) + slack


def _outward_index(p: float, q: float, eta: float, up: bool) -> int:
    """The lattice index at or beyond (above if ``up``, else below) the true value of log p - log q.

    The computed difference errs by at most 4u(|log p| + |log q|) + 32u (as ``pair_atoms`` charges
    it); the quotient by eta and the later product index * eta by u each, relative: a margin of one
    step and 8u |index| steps covers them."""
    loss = math.log(p) - math.log(q)
    err = loss_round_off(math.log(p), math.log(q))
    x = (loss + err) / eta if up else (loss - err) / eta
    margin = 1.0 + 8.0 * UNIT_ROUNDOFF * abs(x)
    return cast(int, math.ceil(x + margin) if up else math.floor(x - margin))


class NearUnderflowSplit(NamedTuple):
    """The outcomes of a pair with a mass near underflow, per side (``split_near_underflow``): masses'
    ranges [p_lo, p_hi], [q_lo, q_hi] (``mass_range``) sorted into atoms kept one per outcome and
    atoms pooled into one.  A loss is then log p - log q of each (p, q), moved outward by the caller."""

    up_kept: list[tuple[float, float]]  # (p_hi, q_lo): P-mass p_hi at log p_hi - log q_lo, per outcome
    up_pool: float  # P-mass at the top loss of ``up_pooled`` (+infinity where ``up_infinite``); 0: none
    up_pooled: list[tuple[float, float]]  # (p_hi, q_lo) of the pooled outcomes with q_lo > 0
    up_infinite: bool  # some pooled outcome has q_lo = 0: the pool sits at +infinity
    low_kept: list[tuple[float, float]]  # (p_lo, q_hi): P-mass p_lo at log p_lo - log q_hi, per outcome
    low_pool: float  # P-mass at the least loss of ``low_pooled``; 0: none (dropped)
    low_pooled: list[tuple[float, float]]  # (p_lo, q_hi) of the pooled outcomes


def _outward_sum(masses: list[float], toward: float) -> float:
    """sum of ``masses`` rounded toward ``toward``: fsum is correctly rounded, so one step out covers it;
    a single mass is its own exact sum (so a lone structural-zero outcome keeps its bits)."""
    return masses[0] if len(masses) == 1 else math.nextafter(math.fsum(masses), toward)


def split_near_underflow(near: Sequence[tuple[float, float]], floor: float, raised: float) -> NearUnderflowSplit:
    """The one rule for outcomes (p, q) of a pair with a mass near underflow (module docstring).

    An outcome keeps its own atom on a side where its P-mass there is at least ``floor`` (upper:
    the given p, and q_lo > 0 so that the loss is finite; lower: p_lo).  The others are pooled:
    the upper side puts max(sum p_hi (rounded up), ``raised``) at the top of their losses (at
    +infinity if some q_lo = 0): delta(eps) = sum_j p_j (1 - e^{eps - l_j})_+ grows with every p_j
    and l_j, so this stays above their contribution and costs at most max(sum p_hi, ``raised``) more
    than it, once per pair (the pool sits at the top loss: a pooled mass far below it is charged whole); the lower side puts sum p_lo (rounded down) at the least of their losses where that sum
    is at least ``floor``, else drops them (delta falls by less than ``floor``).  So every P-mass either
    side keeps is at least ``floor``."""
    up_kept, up_pooled, low_kept, low_pooled = [], [], [], []
    up_masses, low_masses = [], []
    infinite = False
    for p, q in near:
        p_lo, p_hi = mass_range(p)
        q_lo, q_hi = mass_range(q)
        if q_lo > 0.0 and p >= floor:
            up_kept.append((p_hi, q_lo))
        else:
            up_masses.append(p_hi)
            if q_lo > 0.0:
                up_pooled.append((p_hi, q_lo))
            else:
                infinite = True
        if p_lo >= floor:
            low_kept.append((p_lo, q_hi))
        elif p_lo > 0.0:
            low_masses.append(p_lo)
            low_pooled.append((p_lo, q_hi))
    # fsum is correctly rounded: one step outward covers its rounding (none for one term: it is exact)
    up_pool = max(_outward_sum(up_masses, math.inf), raised) if up_masses else 0.0
    low_pool = _outward_sum(low_masses, 0.0) if low_masses else 0.0
    if low_pool < floor:
        low_pool, low_pooled = 0.0, []
    return NearUnderflowSplit(up_kept, up_pool, up_pooled, infinite, low_kept, low_pool, low_pooled)


def _with_near_underflow(a: Atoms, near: list[tuple[float, float]]) -> Atoms:
    """a (the pair's other outcomes) with the outcomes (p, q) having a mass below 2^-1022, by
    ``split_near_underflow`` (floor 2^-1022, the upper pool raised to ``INFINITY_FLOOR``): each loss
    rounded outward onto the lattice (``_outward_index``: up on the upper side, down on the lower).
    So every mass either side computes with is normal.  A lattice finer than ``ETA`` is first rounded
    onto ETA (its indices would pass 2^53)."""
    if a.eta < ETA:
        index, extra = _on_eta(a, ETA)
        a = Atoms(index, a.mass, a.p_inf, ETA, a.loss_error + extra, a.rel_error)
    split = split_near_underflow(near, SMALLEST_NORMAL, INFINITY_FLOOR)
    up_index = [_outward_index(p, q, a.eta, True) for p, q in split.up_kept]
    up_mass = [p for p, _ in split.up_kept]
    p_inf = a.p_inf
    if split.up_infinite:
        p_inf += split.up_pool
    elif split.up_pool > 0.0:
        up_index.append(max(_outward_index(p, q, a.eta, True) for p, q in split.up_pooled))
        up_mass.append(split.up_pool)
    low_index = [_outward_index(p, q, a.eta, False) for p, q in split.low_kept]
    low_mass = [p for p, _ in split.low_kept]
    if split.low_pool > 0.0:
        low_index.append(min(_outward_index(p, q, a.eta, False) for p, q in split.low_pooled))
        low_mass.append(split.low_pool)
    rel = a.rel_error + 2.0 * UNIT_ROUNDOFF  # p_inf's sum: a few terms
    if a.mass.size + len(near) <= LEAN_ATOMS:  # a handful: merged in plain floats (numpy's calls cost more)
        sides = [
            _lean_merged(a.index.tolist() + i, a.mass_list + m, inf, a.eta, a.loss_error, rel)
            for i, m, inf in [(up_index, up_mass, p_inf), (low_index, low_mass, 0.0)]
        ]
    else:
        sides = [
            _merged(
                np.concatenate([a.index, np.array(i, dtype=np.int64)]),
                np.concatenate([a.mass, np.array(m, dtype=np.float64)]),
                inf,
                a.eta,
                a.loss_error,
                rel,
            )
            for i, m, inf in [(up_index, up_mass, p_inf), (low_index, low_mass, 0.0)]
        ]
    return replace(sides[0], lower_of=partial(_folded, sides[1]))


def _folded(a: Atoms, reach: float = 0.0) -> Atoms:
    """Lower-side atoms with those below -``FOLD_LOSS`` dropped and those above max(``FOLD_LOSS``, reach)
    moved down onto its lattice point (both lower a lower side: masses and losses only fall), so composing
    the far atoms of masses near underflow keeps at most 2 max(FOLD_LOSS, reach) / eta + 1 of them; delta
    below ~700 changes by a relative e^{eps - 745} at most, and the dropped P-mass is at most e^-745
    (P = e^l Q).  ``reach``: the top finite loss of the upper side's atoms, so that atoms the two sides
    share (a long composition's, past 745) are never moved."""
    top = math.floor(max(FOLD_LOSS, reach) / a.eta)
    if a.index.size == 0 or (int(a.index[0]) >= -top and int(a.index[-1]) <= top):
        return a
    keep = a.index >= -top
    return _merged(np.minimum(a.index[keep], top), a.mass[keep], a.p_inf, a.eta, a.loss_error, a.rel_error)


def _compose_folded(a: Atoms, b: Atoms, reach: float = 0.0) -> Atoms:
    """``_compose_shared`` of two lower sides, ``_folded`` above max(``FOLD_LOSS``, reach).  A windowed
    composition (``_compose_windowed``) returns its upper side with the lower one beside it
    (``lower_of``): the lower side is read off (``_side``), never the upper side's ``missing`` mass."""
    return _folded(_side(_compose_shared(a, b), False), reach)


def _top_loss(a: Atoms) -> float:
    """The top finite loss of a's own atoms (0 for none): how far ``_folded`` leaves the lower side alone."""
    return float(a.index[-1]) * a.eta + a.loss_error if a.index.size else 0.0


def _lean_merged(index: list[int], mass: list[float], p_inf: float, eta: float, loss_error: float, rel: float) -> Atoms:
    """``_merged`` for a handful of atoms (never past ``MAX_ATOMS``), in plain floats: equal indices
    summed (the same (count - 1)u charge), sorted, the lean paths' lists filled in."""
    merged: dict[int, list[float]] = {}
    for i, m in zip(index, mass):
        merged.setdefault(i, []).append(m)
    keys = sorted(merged)
    masses = [math.fsum(merged[i]) for i in keys]
    grow = (max(len(v) for v in merged.values()) - 1) * UNIT_ROUNDOFF if merged else 0.0
    out = Atoms(np.array(keys, dtype=np.int64), np.array(masses, dtype=np.float64), p_inf, eta, loss_error, rel + grow)
    out.__dict__["loss_list"] = [i * eta for i in keys]  # what the cached properties would compute
    out.__dict__["mass_list"] = masses
    return out


def _side(a: Atoms, upper: bool) -> Atoms:
    """The atoms serving one side: a's own, or on the lower side ``a.lower`` where it is set."""
    return a.lower if not upper and a.lower is not None else a


def _merged(index: np.ndarray, mass: np.ndarray, p_inf: float, eta: float, loss_error: float, rel: float) -> Atoms:
    """Atoms with equal indices summed (their round-off added to ``rel``), coarsened past ``MAX_ATOMS``."""
    if index.size <= MAX_ATOMS and bool(np.all(index[1:] > index[:-1])):
        return Atoms(index, mass, p_inf, eta, loss_error, rel)  # already distinct and sorted (a pair's atoms)
    while True:
        uniq, inverse, counts = np.unique(index, return_inverse=True, return_counts=True)
        if uniq.size <= MAX_ATOMS:
            break
        index = np.floor_divide(index + 1, 2)  # nearest point of the grid 2 eta (ties up)
        loss_error += eta + UNIT_ROUNDOFF * float(np.abs(uniq).max()) * eta  # an odd index moves by eta
        eta *= 2.0
    summed = np.bincount(inverse, weights=mass, minlength=uniq.size)
    grow = (int(counts.max()) - 1) * UNIT_ROUNDOFF if counts.size else 0.0
    return Atoms(uniq, summed, p_inf, eta, loss_error, rel + grow)


def _on_eta(a: Atoms, eta: float) -> tuple[np.ndarray, float]:
    """a's indices on the grid eta and the added loss error (nothing added when eta is a's own)."""
    if eta == a.eta:
        return a.index, 0.0
    loss = a.index * a.eta
    index = np.round(loss / eta)
    _check_span(float(np.abs(index).max(initial=0.0)), eta)
    return index.astype(np.int64), float((np.abs(loss - index * eta) + 2.0 * UNIT_ROUNDOFF * np.abs(loss)).max())


def _check_span(reach: float, eta: float) -> None:
    """Refuse lattice indices (or sums of two) past 2^62: int64 would wrap them silently."""
    if not reach < INDEX_LIMIT:
        raise ValueError(
            f"a privacy loss of {reach * eta:.4g} lies beyond the common loss lattice (step {eta:.3g}, "
            f"indices below 2^62): no certified bound is computed; use more noise or fewer runs"
        )


def compose(a: Atoms, b: Atoms) -> Atoms:
    """The atoms of running both (losses add; masses multiply), each side's from the sides' own atoms."""
    out = _compose_shared(a, b)
    if a.lower_of is None and b.lower_of is None:
        return out
    return replace(out, lower_of=lambda: _compose_folded(_side(a, False), _side(b, False), _top_loss(out)))


def _compose_shared(a: Atoms, b: Atoms) -> Atoms:
    """``compose`` of a's and b's own atoms (``lower`` ignored): on their lattice if they share it, else ETA."""
    if a.index.size * b.index.size > WINDOW_PRODUCTS:
        return _compose_windowed(a, b)
    eta = a.eta if a.eta == b.eta else min(ETA, a.eta, b.eta)
    ia, ea = _on_eta(a, eta)
    ib, eb = _on_eta(b, eta)
    _check_span(float(np.abs(ia).max(initial=0)) + float(np.abs(ib).max(initial=0)), eta)
    if _dense(ia) and _dense(ib):
        dense = _dense_compose(
            _Dense(int(ia[0]), _spread(ia, a.mass), a.p_inf, a.loss_error + ea, a.rel_error),
            _Dense(int(ib[0]), _spread(ib, b.mass), b.p_inf, b.loss_error + eb, b.rel_error),
        )
        out = _from_dense(dense, eta)
    else:
        index = (ia[:, None] + ib[None, :]).ravel()
        mass = (a.mass[:, None] * b.mass[None, :]).ravel()
        out = _merged(
            index,
            mass,
            a.p_inf + b.p_inf * float(a.mass.sum()),
            eta,
            a.loss_error + b.loss_error + ea + eb,
            a.rel_error + b.rel_error + (a.mass.size + 4) * UNIT_ROUNDOFF,
        )
    if not _may_underflow(a, b):
        return out
    top = int(ia[-1]) + int(ib[-1]) if ia.size and ib.size else 0
    top = -(-top // round(out.eta / eta))  # on out's lattice (``_merged`` may have coarsened it 2^j times): rounded up
    return _underflow_charged(out, a.mass.size * b.mass.size, top, _infinity_may_underflow(a.total_mass, b.p_inf))


def _may_underflow(a: Atoms, b: Atoms) -> bool:
    """Whether a product the composition of a and b forms (of two masses, or of b's +infinity mass and
    a's total) can fall below 2^-1022, where it errs by up to 2^-1075 absolute, not u relative."""
    return _underflows(a.least_mass, b.least_mass, a.total_mass, b.p_inf)


def _underflows(least_a: float, least_b: float, total_a: float, p_inf_b: float) -> bool:
    """The one underflow test: whether a product of masses at least ``least_a`` and ``least_b``, or
    the product p_inf_b total_a (a composition's new mass at +infinity), can fall below 2^-1022."""
    return least_a * least_b < SMALLEST_NORMAL or _infinity_may_underflow(total_a, p_inf_b)


def _infinity_may_underflow(total: float, p_inf: float) -> bool:
    """Whether the product p_inf total (a composition's new mass at +infinity) can fall below 2^-1022."""
    return p_inf > 0.0 and p_inf * total < SMALLEST_NORMAL


def _powers_may_underflow(a: Atoms, count: int) -> bool:
    """``_may_underflow`` for ``count`` runs of a: each product formed is at least (least mass)^count,
    each product with p_inf at least p_inf (total mass)^count."""
    return _underflows(a.least_mass ** (count - 1), a.least_mass, a.total_mass**count, a.p_inf)


def _underflow_charged(out: Atoms, products: int, top: int, infinity_product: bool) -> Atoms:
    """A composition of ``products`` products of masses, some below 2^-1022 (each within 2^-1075
    absolute of its exact value: a subnormal has no relative precision), certified on each side.

    Upper side (these atoms): the true finite-loss masses sum to at most the computed ones (1 + rel)
    plus products 2^-1075, all at losses at most index ``top`` (the sum of the factors' top indices:
    a product that underflowed to 0 has left no atom there); that charge and the masses computed
    below 2^-1022 (their losses kept would leave subnormal terms in every delta) go to that index,
    whose mass is then at least ``INFINITY_FLOOR`` (rounded up; one more u in ``rel_error``); p_inf
    gains its own product's 2^-1075 (rounded up) where that product may underflow (``infinity_product``).  delta grows with each mass moved up and each loss
    raised, so the side stays above the truth, by at most ~products 2^-1022 + 2^-1000 more, and a
    pure epsilon stays finite (review 10: +infinity made discrete_laplace(720)'s epsilon infinite).
    Lower side (``lower``): masses below ``WINDOW_FLOOR`` = 2^-1000 dropped (and p_inf below it), so
    each kept sum (of at most 2^22 products: ``WINDOW_PRODUCTS``, or a dense row) errs by at most
    2^22 2^-1075 = u 2^-1000 absolute, u relative: one more u in ``rel_error``."""
    p_inf = math.nextafter(out.p_inf + math.ulp(0.0), math.inf) if infinity_product else out.p_inf
    small = out.mass < SMALLEST_NORMAL
    if products == 0:
        upper = replace(out, p_inf=p_inf)
    else:
        moved = max(math.nextafter(products * math.ulp(0.0) + float(out.mass[small].sum()), math.inf), INFINITY_FLOOR)
        upper = _merged(
            np.append(out.index[~small], top),
            np.append(out.mass[~small], moved),
            p_inf,
            out.eta,
            out.loss_error,
            out.rel_error,
        )  # a sum of two at ``top``: _merged charges its u
    kept = out.mass >= WINDOW_FLOOR
    lower = Atoms(
        out.index[kept],
        out.mass[kept],
        out.p_inf if out.p_inf >= WINDOW_FLOOR else 0.0,
        out.eta,
        out.loss_error,
        out.rel_error + UNIT_ROUNDOFF,
    )
    return replace(upper, lower_of=lambda: lower)


class _Dense(NamedTuple):
    """Atoms on a dense stretch of a lattice: masses (zeros allowed) at indices first, first + 1, ..."""

    first: int
    mass: np.ndarray
    p_inf: float
    loss_error: float
    rel_error: float


def _dense_compose(a: _Dense, b: _Dense) -> _Dense:
    """``compose`` on dense lattice arrays: one convolution.  The bookkeeping is compose's; each sum has
    at most min(sizes) products, so it errs by at most (min(sizes) - 1)u relative (zeros counted: a bound)."""
    rel = (
        a.rel_error
        + b.rel_error
        + (a.mass.size + 4) * UNIT_ROUNDOFF
        + (min(a.mass.size, b.mass.size) - 1) * UNIT_ROUNDOFF
    )
    return _Dense(
        a.first + b.first,
        np.convolve(a.mass, b.mass),
        a.p_inf + b.p_inf * float(a.mass.sum()),
        a.loss_error + b.loss_error,
        rel,
    )


def _from_dense(d: _Dense, eta: float) -> Atoms:
    """The atoms of a dense stretch (zero masses dropped; coarsened past ``MAX_ATOMS`` by ``_merged``)."""
    on = d.mass > 0.0
    index = d.first + np.flatnonzero(on).astype(np.int64)
    if index.size <= MAX_ATOMS:  # distinct and sorted already
        return Atoms(index, d.mass[on], d.p_inf, eta, d.loss_error, d.rel_error)
    return _merged(index, d.mass[on], d.p_inf, eta, d.loss_error, d.rel_error)


def _dense(index: np.ndarray) -> bool:
    """Sorted lattice indices spanning at most ``DENSE_FILL`` times their count (plus a few): worth a
    dense array."""
    return index.size > 0 and int(index[-1] - index[0]) < DENSE_FILL * index.size + 64


def _spread(index: np.ndarray, mass: np.ndarray) -> np.ndarray:
    """The masses on the dense lattice from index[0] to index[-1] (zeros between; masses that a
    coarser lattice put on one index are summed, never overwritten)."""
    return np.bincount(index - index[0], weights=mass, minlength=int(index[-1] - index[0]) + 1)


def _power(x: T, count: int, combine: Callable[[T, T], T]) -> T:
    """``count`` >= 1 copies of x combined, by repeated squaring."""
    result: T | None = None
    k = int(count)
    while True:
        if k & 1:
            result = x if result is None else combine(result, x)
        k >>= 1
        if not k:
            break
        x = combine(x, x)
    assert result is not None
    return result


def self_compose(a: Atoms, count: int) -> Atoms:
    """``count`` >= 1 runs of a, each side's from its own atoms (``_self_compose_shared``)."""
    if int(count) == 1:
        return a
    out = _self_compose_shared(a, count)
    if a.lower_of is None:
        return out
    return replace(out, lower_of=lambda: _lower_self_compose(_side(a, False), int(count)))


def _lower_self_compose(a: Atoms, count: int) -> Atoms:
    """``count`` runs of lower-side atoms: folded products (``_compose_folded``: tight where the far atoms
    of masses near underflow sit) while count times their atoms stays within ``MAX_ATOMS``, else on a
    window (``_window_power``: bounded work for any count; its own lower side)."""
    if count * a.index.size <= MAX_ATOMS or not _windowed(a, count):
        return _power(a, count, _compose_folded)
    return _side(_window_power(a, count), False)


def _self_compose_shared(a: Atoms, count: int) -> Atoms:
    """``count`` >= 1 runs of a's own atoms (``lower`` ignored): two atoms a few times in closed form
    (``_binomial_self_compose``); in plain floats if the result spans at most ``LEAN_ATOMS`` lattice
    points; by repeated squaring of each step merged while the result has at most ``MAX_ATOMS`` atoms;
    else on a window of the lattice (``_window_power``)."""
    span = float(int(count)) * float(np.abs(a.index).max(initial=0))
    if int(count) > 1 and span >= INDEX_LIMIT / 4 and _windowed(a, int(count)):
        return _window_power(_rebased(a, span), int(count))
    _check_span(span, a.eta)
    if 1 < int(count) < LEAN_ATOMS and a.mass.size == 2 and a.p_inf == 0.0:
        binomial = _binomial_self_compose(a, int(count))
        if binomial is not None:
            return binomial
    if (
        int(count) > 1
        and _dense(a.index)
        and int(count) * int(a.index[-1] - a.index[0]) < LEAN_ATOMS
        and not _powers_may_underflow(a, int(count))
    ):
        return _lean_self_compose(a, int(count))
    if int(count) > 1 and _windowed(a, int(count)):
        return _window_power(a, int(count))
    return _power(a, count, compose)  # compose: each side from its own atoms (``_underflow_charged``)


def _stride(index: np.ndarray) -> int:
    """The gcd of the indices' differences (1 for a single atom): sums of such indices keep it."""
    return int(np.gcd.reduce(index - index[0])) or 1 if index.size > 1 else 1


def _windowed(a: Atoms, count: int) -> bool:
    """Whether ``count`` runs of a go through ``_window_power``: a's indices fill at least 1/``DENSE_FILL``
    of their span on their stride (a convolution is cheaper than products of atoms), or the result
    could pass ``MAX_ATOMS`` atoms: more than that many lattice points and more than that many sums
    (multisets of ``count`` of a's n atoms: C(count + n - 1, n - 1)).  Merging would coarsen the
    squared copy and the running result onto different lattices, whose common one is ``ETA``: hours
    of products of 2^14 atoms."""
    n = a.index.size
    if n < 2:
        return False
    points = int(a.index[-1] - a.index[0]) // _stride(a.index)
    if points < DENSE_FILL * n + 64:
        return True
    sums = math.lgamma(count + n) - math.lgamma(count + 1) - math.lgamma(n)
    return count * points + 1 > MAX_ATOMS and sums > math.log(MAX_ATOMS)


class _Window(NamedTuple):
    """Masses at lattice indices first, first + step, first + 2 step, ... (each zero or >= ``WINDOW_FLOOR``);
    ``missing`` bounds the true P-mass left out of them (dropped below the floor, lost to underflow),
    whose losses are at most ``reach``'s: the upper side puts it there, the lower side leaves it out."""

    first: int
    step: int
    mass: np.ndarray
    p_inf: float
    missing: float
    loss_error: float
    rel_error: float
    reach: int  # an index at or above every mass's, kept or ``missing`` (the upper side puts ``missing`` there)


def _coarsened(w: _Window, eta: float) -> _Window:
    """w on the lattice of step 2 step: the entry at position i moves to (i + 1) // 2, so an odd one
    moves up by one step (loss_error grows by step eta and the product's round-off); each new mass is
    a sum of at most two (u relative)."""
    out = np.zeros(w.mass.size // 2 + 1)
    out[: (w.mass.size + 1) // 2] += w.mass[0::2]
    out[1 : w.mass.size // 2 + 1] += w.mass[1::2]
    top = abs(w.first) + w.step * w.mass.size
    return w._replace(
        step=2 * w.step,
        mass=out,
        loss_error=w.loss_error + w.step * eta + UNIT_ROUNDOFF * top * eta,
        rel_error=w.rel_error + UNIT_ROUNDOFF,
        reach=max(w.reach, w.first + 2 * w.step * (out.size - 1)),
    )


def _trimmed(w: _Window, eta: float, limit: int) -> _Window:
    """w with the masses below ``WINDOW_FLOOR`` dropped (their true mass, at most computed (1 + rel), added
    to ``missing``), zero ends cut, and coarsened until at most ``limit`` entries remain."""
    small = w.mass < WINDOW_FLOOR
    dropped = float(w.mass[small].sum()) * (1.0 + w.rel_error + w.mass.size * UNIT_ROUNDOFF) if small.any() else 0.0
    mass = np.where(small, 0.0, w.mass)
    on = np.flatnonzero(mass)
    if on.size == 0:
        return w._replace(mass=np.zeros(1), missing=w.missing + dropped)
    w = w._replace(first=w.first + w.step * int(on[0]), mass=mass[on[0] : on[-1] + 1], missing=w.missing + dropped)
    while w.mass.size > limit:
        w = _coarsened(w, eta)
    return w


def _window_compose(a: _Window, b: _Window, eta: float) -> _Window:
    """The composition of two windows of one step: one convolution (direct: exact products, no FFT
    round-off to charge), bookkept as ``_dense_compose``.  Every mass is >= 2^-1000, so a product
    underflows only below 2^-1022 where it errs by at most 2^-1074 absolute: at most
    size(a) size(b) 2^-1074 in all, added to ``missing`` (upper side) and, relative to a kept sum
    (>= 2^-1000 after trimming), below u: one more u in ``rel_error`` (lower side).  Where no product
    can fall below 2^-1022 nothing is added (the sides then share their atoms)."""
    while a.step < b.step:
        a = _coarsened(a, eta)
    while b.step < a.step:
        b = _coarsened(b, eta)
    na, nb = a.mass.size, b.mass.size
    rel = a.rel_error + b.rel_error + (na + 4) * UNIT_ROUNDOFF + min(na, nb) * UNIT_ROUNDOFF + UNIT_ROUNDOFF
    least_a, least_b = float(a.mass[a.mass > 0.0].min(initial=1.0)), float(b.mass[b.mass > 0.0].min(initial=1.0))
    underflow = na * nb * math.ulp(0.0) if _underflows(least_a, least_b, 1.0, 0.0) else 0.0  # no product below 2^-1022
    total = float(a.mass.sum())
    p_inf = a.p_inf + b.p_inf * total
    if _infinity_may_underflow(total, b.p_inf):  # that product's own 2^-1075, at +infinity
        p_inf = math.nextafter(p_inf + math.ulp(0.0), math.inf)
    out = _Window(
        a.first + b.first,
        a.step,
        np.convolve(a.mass, b.mass),
        p_inf,
        a.missing + b.missing + underflow,
        a.loss_error + b.loss_error,
        rel,
        _reach(a) + _reach(b),
    )
    return _trimmed(out, eta, WINDOW_POINTS)


def _reach(w: _Window) -> int:
    """An index at or above every mass of w, kept (its top entry) or missing (``reach``)."""
    return max(w.reach, w.first + w.step * (w.mass.size - 1))


def _rebased(a: Atoms, span: float) -> Atoms:
    """a on the lattice eta 2^j with the least j keeping ``span`` (count times a's largest |index|) below
    2^60 indices: a composition of 10^9 runs of a pair on the 2^-32 sub-lattice passes 2^62 (int64) there.
    Each loss moves to the nearest point (``_on_eta``'s error added); masses sharing one are summed."""
    eta = a.eta * 2.0 ** math.ceil(math.log2(4.0 * span / INDEX_LIMIT))
    index, extra = _on_eta(a, eta)
    return _merged(index, a.mass, a.p_inf, eta, a.loss_error + extra, a.rel_error)


def _first_window(a: Atoms) -> _Window:
    """a's atoms on a window of their stride g, on the stride g 2^j (the nearest point, ties up: each
    loss moves by at most g 2^(j-1) eta, plus the product's round-off) with the least j giving at most
    ``WINDOW_POINTS`` entries; masses sharing a point are summed (their count less one times u)."""
    step = _stride(a.index)
    position = (a.index - a.index[0]) // step
    shift = max(int(position[-1]) // WINDOW_POINTS, 0).bit_length()
    loss_error, rel = a.loss_error, a.rel_error
    if shift:
        position = (position + (1 << (shift - 1))) >> shift
        top = float(np.abs(a.index).max()) + step * (1 << shift)
        loss_error += step * (1 << (shift - 1)) * a.eta + 2.0 * UNIT_ROUNDOFF * top * a.eta
        rel += (int(np.bincount(position).max()) - 1) * UNIT_ROUNDOFF
    return _Window(
        int(a.index[0]),
        step << shift,
        np.bincount(position, weights=a.mass),
        a.p_inf,
        0.0,
        loss_error,
        rel,
        int(a.index[-1]),
    )


def _window_power(a: Atoms, count: int) -> Atoms:
    """``count`` runs of a on a window of its lattice: a's atoms spread on their stride (coarsened to
    at most ``WINDOW_POINTS`` entries), then repeated squaring by ``_window_compose``; each result
    trimmed of masses below ``WINDOW_FLOOR`` and coarsened (nearest point of a lattice twice as coarse,
    as ``_merged``) past ``WINDOW_POINTS`` entries, so every step costs one convolution of at most
    that many points whatever the count (a discrete Laplace 10^7 times: the masses above 2^-1000
    span ~70 standard deviations of the summed loss).  The dropped masses (``missing``) go to the window's ``reach``
    on the upper side (these atoms) and are left out on the lower side (``lower``)."""
    base = _trimmed(_first_window(a), a.eta, WINDOW_POINTS)
    return _window_atoms(_power(base, count, partial(_window_compose, eta=a.eta)), a.eta)


def _window_atoms(w: _Window, eta: float) -> Atoms:
    """The atoms of a window (its non-zero entries): ``missing`` at its ``reach`` (every missing mass's
    loss is at most reach eta + loss_error: delta grows with each loss raised), raised to at least
    ``INFINITY_FLOOR`` (no subnormal mass kept), on the upper side (these atoms); left out on the lower
    side (``lower``, set only where something is missing).  A finite loss, not +infinity, so a pure
    epsilon stays finite (review 10)."""
    on = np.flatnonzero(w.mass)
    index = w.first + w.step * on.astype(np.int64)
    reach = _reach(w)
    _check_span(float(max(np.abs(index).max(initial=0), abs(reach))) + w.step, eta)
    lower = Atoms(index, w.mass[on], w.p_inf, eta, w.loss_error, w.rel_error)
    if w.missing == 0.0:
        return lower
    moved = max(math.nextafter(w.missing, math.inf), INFINITY_FLOOR)
    upper = _merged(
        np.append(index, reach), np.append(w.mass[on], moved), w.p_inf, eta, w.loss_error, w.rel_error + UNIT_ROUNDOFF
    )  # a sum of two where reach is the top entry: _merged charges it
    return replace(upper, lower_of=lambda: lower)


def _aligned_window(a: Atoms, index: np.ndarray, extra_error: float, step: int, eta: float) -> _Window:
    """a's atoms (at ``index`` on the lattice eta, within ``extra_error`` more of their losses) on the
    lattice step eta aligned at 0: index rounded to the nearest multiple of step (ties up), each loss
    moving by at most step eta / 2 plus the product's round-off; masses sharing a point summed."""
    position = (index + step // 2) // step
    first = int(position[0])
    counts = np.bincount(position - first)
    loss_error = a.loss_error + extra_error
    if step > 1:
        loss_error += step // 2 * eta + 2.0 * UNIT_ROUNDOFF * (float(np.abs(index).max()) + step) * eta
    rel = a.rel_error + (int(counts.max()) - 1) * UNIT_ROUNDOFF
    return _Window(
        first * step, step, np.bincount(position - first, weights=a.mass), a.p_inf, 0.0, loss_error, rel, int(index[-1])
    )


def _compose_windowed(a: Atoms, b: Atoms) -> Atoms:
    """``_compose_shared`` of two large atom sets (more than ``WINDOW_PRODUCTS`` products of atoms): both
    put on one lattice (a's and b's if shared, else ``ETA``) coarsened by the least power of two whose
    window of their sum has at most ``WINDOW_POINTS`` points, then one convolution (``_window_compose``):
    two discrete Laplace runs of 10^4 with different parameters took minutes of 10^8 products."""
    eta = a.eta if a.eta == b.eta else min(ETA, a.eta, b.eta)
    ia, ea = _on_eta(a, eta)
    ib, eb = _on_eta(b, eta)
    span = int(ia[-1] - ia[0]) + int(ib[-1] - ib[0])
    step = 1 << max(span // WINDOW_POINTS, 0).bit_length()
    return _window_atoms(
        _window_compose(_aligned_window(a, ia, ea, step, eta), _aligned_window(b, ib, eb, step, eta), eta), eta
    )


def _lean_convolve(x: list[float], y: list[float]) -> list[float]:
    """The full convolution of two short lists (each output a sum of at most min(sizes) products, in
    order: the error ``_dense_compose`` charges for any summation order); zero terms skipped."""
    out = [0.0] * (len(x) + len(y) - 1)
    for i, xi in enumerate(x):
        if xi != 0.0:
            for j, yj in enumerate(y):
                out[i + j] += xi * yj
    return out


class _LeanDense(NamedTuple):
    """``_Dense`` with the masses in a list, on a stride of the lattice (index first + stride * position)."""

    first: int
    mass: list[float]
    p_inf: float
    loss_error: float
    rel_error: float


def _lean_dense_compose(a: _LeanDense, b: _LeanDense) -> _LeanDense:
    """``_dense_compose`` on plain-float lists: the same bookkeeping and charges."""
    na, nb = len(a.mass), len(b.mass)
    rel = a.rel_error + b.rel_error + (na + 4) * UNIT_ROUNDOFF + (min(na, nb) - 1) * UNIT_ROUNDOFF
    return _LeanDense(
        a.first + b.first,
        _lean_convolve(a.mass, b.mass),
        a.p_inf + b.p_inf * math.fsum(a.mass),
        a.loss_error + b.loss_error,
        rel,
    )


def _lean_self_compose(a: Atoms, count: int) -> Atoms:
    """``self_compose`` for a result spanning fewer than ``LEAN_ATOMS`` lattice points, in plain floats
    (numpy's per-call cost was most of a self-composed discrete Laplace's time); the loss and mass
    lists the lean evaluations read are filled in on the way.  The indices are taken on their own
    stride g (the gcd of their differences: 2 for a discrete Laplace of sensitivity 1), which sums
    preserve, so no zero lies between two atoms."""
    indices = a.index.tolist()
    first = indices[0]
    stride = math.gcd(*(i - first for i in indices)) or 1
    spread = [0.0] * ((indices[-1] - first) // stride + 1)
    for i, m in zip(indices, a.mass_list):
        spread[(i - first) // stride] = m
    base = _LeanDense(0, spread, a.p_inf, a.loss_error, a.rel_error)
    d = _power(base, count, _lean_dense_compose)
    index = [count * first + stride * k for k, m in enumerate(d.mass) if m > 0.0]
    mass = [m for m in d.mass if m > 0.0]
    out = Atoms(
        np.array(index, dtype=np.int64), np.array(mass, dtype=np.float64), d.p_inf, a.eta, d.loss_error, d.rel_error
    )
    out.__dict__["loss_list"] = [i * a.eta for i in index]  # what the cached properties would compute
    out.__dict__["mass_list"] = mass
    return out


def _binomial_self_compose(a: Atoms, count: int) -> Atoms | None:
    """``count`` (< ``LEAN_ATOMS``) runs of two atoms (no mass at infinity: a discrete Laplace of
    sensitivity 1, a binary randomized response) in closed form: the binomial law,
        mass C(k, j) m_1^j m_0^(k - j) at index k i_0 + j (i_1 - i_0),  j = 0 .. k,
    in plain floats.  Round-off: the factors' relative errors r compound to (1 + r)^k - 1 <= k r (1 + k r)
    (k r <= 1), C(k, j) < 2^53 is exact, each power is within 2u (libm pow) and the two products add
    u each: ``rel_error`` k r (1 + k r) + 8u; losses add, so ``loss_error`` is k times a's.  None where
    a mass would come near the subnormal range (relative round-off unbounded there): the caller
    then takes the lattice path."""
    m0, m1 = a.mass_list
    if not min(m0, m1) > 0.0 or count * math.log(min(m0, m1)) < -700.0:
        return None
    i0, i1 = (int(i) for i in a.index)
    index = [count * i0 + j * (i1 - i0) for j in range(count + 1)]
    mass = [math.comb(count, j) * m1**j * m0 ** (count - j) for j in range(count + 1)]
    kr = count * a.rel_error
    if kr > 1.0:  # the bound (1 + r)^k - 1 <= k r (1 + k r) needs k r <= 1
        return None
    out = Atoms(
        np.array(index, dtype=np.int64),
        np.array(mass, dtype=np.float64),
        0.0,
        a.eta,
        count * a.loss_error,
        kr * (1.0 + kr) + 8.0 * UNIT_ROUNDOFF,
    )
    out.__dict__["loss_list"] = [i * a.eta for i in index]  # what the cached properties would compute
    out.__dict__["mass_list"] = mass
    return out


def compose_all(parts: Sequence[tuple[Atoms, int]]) -> Atoms:
    """The composition of ``count`` runs of each atom set."""
    out: Atoms | None = None
    for atoms, count in parts:
        step = self_compose(atoms, count)
        out = step if out is None else compose(out, step)
    assert out is not None
    return out


def _relative_charge(a: Atoms, extra: float) -> float:
    """The relative round-off of a delta summed over a's atoms: the masses', ``extra`` per term, the sum's."""
    return a.rel_error + extra + (a.mass.size + 4) * UNIT_ROUNDOFF


def _widen(value: np.ndarray, a: Atoms, upper: bool, extra: float) -> np.ndarray:
    """value widened (upper side) or narrowed (lower side) by the masses' and the sum's round-off."""
    rel = _relative_charge(a, extra)
    if upper:
        return np.minimum(value * (1.0 + rel), 1.0)
    return np.maximum(value * (1.0 - rel), 0.0)


def _shifted(a: Atoms, eps: np.ndarray, upper: bool) -> np.ndarray:
    """eps - loss_j for every (eps, atom), with the loss error on the side's safe side."""
    e = np.asarray(eps, dtype=np.float64) + (-a.loss_error if upper else a.loss_error)
    return cast(np.ndarray, e[:, None] - a.loss[None, :])


def delta(a: Atoms, epsilon: np.ndarray, upper: bool) -> np.ndarray:
    """delta(eps) of the atoms alone (certified on the side asked for), for a 1-d array of eps."""
    a = _side(a, upper)
    gap = np.minimum(_shifted(a, epsilon, upper), 0.0)
    value = (-np.expm1(gap) * a.mass[None, :]).sum(axis=1) + a.p_inf
    return _widen(value, a, upper, 4.0 * UNIT_ROUNDOFF)  # expm1 is accurate to a few ulps


def _lean_delta(a: Atoms, epsilon: float, upper: bool) -> float:
    """``delta`` at one eps in plain floats (few atoms): the same terms, summed in order, the same charge."""
    a = _side(a, upper)
    e = epsilon + (-a.loss_error if upper else a.loss_error)
    total = 0.0
    for loss, mass in zip(a.loss_list, a.mass_list):
        gap = e - loss
        if gap < 0.0:
            total -= math.expm1(gap) * mass
    value = total + a.p_inf
    rel = _relative_charge(a, 4.0 * UNIT_ROUNDOFF)
    return min(value * (1.0 + rel), 1.0) if upper else max(value * (1.0 - rel), 0.0)


def delta_with(a: Atoms, other: Callable[[np.ndarray], np.ndarray], epsilon: np.ndarray, upper: bool) -> np.ndarray:
    """(*) with delta_G = ``other`` (the same certified side of G's profile, at any real eps)."""
    a = _side(a, upper)
    shifted = _shifted(a, epsilon, upper)
    value = (other(shifted.ravel()).reshape(shifted.shape) * a.mass[None, :]).sum(axis=1) + a.p_inf
    return _widen(value, a, upper, 2.0 * UNIT_ROUNDOFF)


def grid_side(pmf: GridPMF) -> Callable[[np.ndarray], np.ndarray]:
    """A grid PMF's certified side as a function of a flat array of (any real) eps (``delta_tabled``:
    a root search queries it many times)."""
    return pmf.delta_tabled


def epsilon_search(
    delta_of: Callable[[np.ndarray], np.ndarray],
    target: float,
    upper: bool,
    top: float,
    tolerance: float,
    hints: Sequence[float] = (),
    first_pass: int = 0,
    cluster: int = 0,
) -> float:
    """A certified epsilon from a certified side of delta(eps), by a bracketing root search.

    Keeps lo with delta(lo) > target and hi with delta(hi) <= target, both evaluated: on the upper
    side the true epsilon is at most hi (delta_up(hi) <= target; inf if even ``top``, above every
    finite loss, fails); on the lower side at least lo (the true delta exceeds the target there).
    Neither needs the computed side to be monotone.  The next point is the Illinois false position
    on log delta (nearly linear in eps), with a bisection whenever two steps have not halved the
    interval, until it is no wider than ``tolerance``.  ``hints`` (points expected near the answer:
    a coarser grid's bracket, the other side's epsilon) are evaluated with the two ends, in one
    call, and the search starts from the narrowest bracket they give (any evaluated pair qualifies);
    without hints, ``first_pass`` evenly spaced points play their part (worth it where one call's
    cost is mostly overhead: few atoms).  ``cluster`` > 0 evaluates, in the same call as each false
    position x, the points x +- ``INNER`` tolerance r^i (i < ``cluster`` / 2, r >= 2 reaching the even
    spacing below) inside the bracket: where a
    call costs mostly overhead, one call then usually lands the answer within the tolerance (the
    false position on the nearly linear log delta is that close), instead of one call per step;
    ``cluster`` more points spread evenly over the bracket shrink it at least cluster + 1 times a
    call where the false position is off; the first call puts such a cluster around every hint.
    """
    guesses = list(hints) if hints else np.linspace(0.0, float(top), first_pass + 2)[1:-1].tolist()
    if hints and cluster > 0:  # each hint with points around it reaching the others (the answer is near one)
        half = max(cluster // 2, 1)
        reach = max(max(hints) - min(hints), 2.0 * tolerance)
        spread = (
            INNER * tolerance * max(2.0, (reach / (INNER * tolerance)) ** (1.0 / max(half - 1, 1))) ** np.arange(half)
        )
        guesses = (
            np.concatenate(
                [
                    np.asarray(hints, dtype=np.float64)[:, None] + np.concatenate([-spread, spread])[None, :],
                    np.asarray(hints, dtype=np.float64)[:, None],
                ],
                axis=1,
            )
            .ravel()
            .tolist()
        )
    points = np.unique(np.concatenate([[0.0, float(top)], [x for x in guesses if 0.0 < x < top]]))
    values = np.asarray(delta_of(points), dtype=np.float64)
    if upper and values[-1] > target:
        return math.inf
    if values[0] <= target:
        return 0.0
    if not upper and values[-1] > target:
        return float(points[-1])
    first = int(np.argmax(values <= target))  # >= 1: the first evaluated point at or below the target
    lo, hi = float(points[first - 1]), float(points[first])
    f_lo, f_hi = float(values[first - 1]), float(values[first])
    log_target = math.log(target)

    def g(value: float) -> float:
        return math.log(max(value, 1e-300)) - log_target

    g_lo, g_hi = g(f_lo), g(f_hi)
    kept = 0  # -1: the last step moved lo, +1: it moved hi (Illinois: a side moved twice halves the other g)
    width_before = hi - lo
    steps = 0
    # cluster mode: the evaluated points beside the bracket, for the inverse cubic interpolation
    seen_x, seen_v = (points, values) if cluster > 0 else (np.empty(0), np.empty(0))
    while hi - lo > max(tolerance, 4.0 * math.ulp(hi)):  # an answer near 1e10 has a spacing above tolerance
        steps += 1
        x = hi - g_hi * (hi - lo) / (g_hi - g_lo) if g_hi < g_lo else 0.5 * (lo + hi)
        if cluster > 0 and steps % 3 != 0:
            x = _inverse_cubic(seen_x, seen_v, lo, hi, log_target, x)
        if steps % 3 == 0:
            if hi - lo > 0.5 * width_before:
                x = 0.5 * (lo + hi)
            width_before = hi - lo
        margin = 0.25 * tolerance
        x = min(max(x, lo + margin), hi - margin)
        if cluster > 0:
            # ``cluster`` points evenly over the bracket (it shrinks at least cluster + 1 times) and
            # x +- INNER tolerance r^i, i < cluster / 2, r >= 2 reaching the even spacing
            half = max(cluster // 2, 1)
            even = lo + (hi - lo) * np.arange(1, cluster + 1) / (cluster + 1)
            ratio = max(2.0, ((hi - lo) / (cluster + 1) / (INNER * tolerance)) ** (1.0 / max(half - 1, 1)))
            spread = INNER * tolerance * ratio ** np.arange(half)
            around = np.sort(np.concatenate([even, x - spread, [x], x + spread]))
            trial = around[(around > lo) & (around < hi)]
            tried_v = np.asarray(delta_of(trial), dtype=np.float64)
            tried = tried_v.tolist()
            seen_x, seen_v = np.concatenate([seen_x, trial]), np.concatenate([seen_v, tried_v])
            at_or_below = [i for i, v in enumerate(tried) if v <= target]
            first = at_or_below[0] if at_or_below else trial.size  # the first trial point at or below
            moved_lo, moved_hi = first > 0, first < trial.size
            if moved_lo:
                lo, g_lo = float(trial[first - 1]), g(tried[first - 1])
            if moved_hi:
                hi, g_hi = float(trial[first]), g(tried[first])
            if moved_lo and moved_hi:
                kept = 0
            elif moved_lo:  # one side moved: Illinois, as below
                g_hi, kept = (0.5 * g_hi if kept == -1 else g_hi), -1
            else:
                g_lo, kept = (0.5 * g_lo if kept == 1 else g_lo), 1
            continue
        gx = g(float(delta_of(np.array([x]))[0]))
        if gx > 0:
            lo, g_lo = x, gx
            if kept == -1:
                g_hi *= 0.5
            kept = -1
        else:
            hi, g_hi = x, gx
            if kept == 1:
                g_lo *= 0.5
            kept = 1
    return hi if upper else lo


def _inverse_cubic(
    xs: np.ndarray, values: np.ndarray, lo: float, hi: float, log_target: float, fallback: float
) -> float:
    """Where log delta crosses the target, by inverse interpolation (x as a cubic in log delta -
    log target) through lo, hi and the nearest evaluated points beyond each (fewer where there is
    none); ``fallback`` (the false position) where the points are not strictly decreasing in delta
    or the estimate leaves (lo, hi).  Only where the search looks next: every answer is evaluated."""
    left = np.flatnonzero((xs <= lo) & (values > 0.0))
    right = np.flatnonzero((xs >= hi) & (values > 0.0))
    if left.size == 0 or right.size == 0:
        return fallback
    take_left = left[np.argsort(xs[left])[-2:]]
    take_right = right[np.argsort(xs[right])[:2]]
    px = np.concatenate([xs[take_left], xs[take_right]])
    pg = np.log(np.concatenate([values[take_left], values[take_right]])) - log_target
    if px.size < 3 or not (np.all(np.diff(px) > 0.0) and np.all(np.diff(pg) < 0.0)):
        return fallback
    estimate = 0.0
    for i in range(px.size):  # Lagrange form at g = 0
        weight = 1.0
        for j in range(px.size):
            if j != i:
                weight *= pg[j] / (pg[j] - pg[i])
        estimate += float(px[i]) * weight
    return estimate if lo < estimate < hi else fallback


def _crossing_guess(a: Atoms, points: list[float], target: float, shift: float) -> int | None:
    """The first point index i with delta(points[i]) <= target < delta(points[i - 1]) (points[-1] read as
    eps = 0), from suffix sums (S - e^eps T at every point + ``shift`` in one pass: an estimate, not
    certified); None if delta(0) <= target or delta(points[-1]) > target by the estimate."""
    loss, mass = a.loss_list, a.mass_list
    s, t = a.p_inf, 0.0  # t = e^eps sum_{l_j > eps} p_j e^{-l_j}, rescaled as eps falls (no e^eps: no overflow)
    j = len(loss)
    values = []
    previous = math.inf
    for x in reversed([0.0] + points):
        e = x + shift
        if previous < math.inf:
            t *= math.exp(e - previous)
        previous = e
        while j > 0 and loss[j - 1] > e:
            j -= 1
            s += mass[j]
            t += mass[j] * math.exp(e - loss[j])
        values.append(s - t)
    values.reverse()  # values[0] at eps = 0, values[i + 1] at points[i]
    if values[0] <= target or values[-1] > target:
        return None
    return next(i for i in range(len(points)) if values[i + 1] <= target)


def _interval_root(a: Atoms, left: float, right: float, target: float, upper: bool, lean: bool) -> float:
    """On [left, right] (no loss strictly between), delta(eps) = S - e^eps T with S = p_inf +
    sum_{l_j >= right} p_j and T = sum_{l_j >= right} p_j e^{-l_j}: its root log((S - target) / T)
    (at the side's shifted eps), moved outward by 1e-12 relative and clamped to the interval.  T is
    summed as e^-right sum p_j e^{right - l_j} (each term at most p_j: no overflow or underflow of
    e^{-l} at losses beyond 700)."""
    if lean:
        active = [(x, m) for x, m in zip(a.loss_list, a.mass_list) if x >= right]
        s = a.p_inf + sum(m for _, m in active)
        t = sum(m * math.exp(right - x) for x, m in active)
    else:
        on = a.loss >= right
        s = a.p_inf + float(a.mass[on].sum())
        t = float((a.mass[on] * np.exp(right - a.loss[on])).sum())
    shift = -a.loss_error if upper else a.loss_error
    guess = right + math.log((s - target) / t) - shift if s > target and t > 0 else right
    step = 1e-12 * max(abs(guess), 1.0)
    return min(max(guess + (step if upper else -step), left), right)


def pure_epsilon(a: Atoms, target: float, upper: bool) -> float:
    """The certified epsilon of the atoms alone: exact on the interval between two losses.

    For at most ``LEAN_ATOMS`` atoms (each evaluation in plain floats), suffix sums estimate delta
    at every positive loss in one pass; on the estimated interval the root (``_interval_root``) is
    accepted if the certified side confirms it (upper: delta_up(root) <= target, and delta_up at the
    interval's left end > target, so no earlier crossing was missed; lower: delta_lo(root) > target,
    and delta_lo at the right end <= target, so no later one).  Otherwise a bisection over the
    positive losses (each delta a direct certified sum; for at most ``_ONE_PASS_POINTS`` of them,
    one evaluation at all of them) finds consecutive points left < right with delta(left) > target
    >= delta(right), whose root is checked against the certified side (else the checked end of the
    interval is reported).
    """
    a = _side(a, upper)
    lean = a.mass.size <= LEAN_ATOMS
    points = _positive_losses(a)
    crossing = _crossing_guess(a, points, target, -a.loss_error if upper else a.loss_error) if lean else None
    return _pure_side(a, target, upper, points, crossing)


def pure_epsilon_bracket(a: Atoms, target: float) -> tuple[float, float]:
    """(lower, upper) ``pure_epsilon`` of the atoms, both sides from one crossing estimate (at the
    unshifted losses: the sides' shifts are round-off, so it is almost always both sides' interval;
    where it is not, a side's check fails and that side bisects, as ``pure_epsilon``); each side on its
    own atoms where they differ."""
    if a.lower_of is not None:
        return pure_epsilon(a, target, False), pure_epsilon(a, target, True)
    points = _positive_losses(a)
    crossing = _crossing_guess(a, points, target, 0.0) if a.mass.size <= LEAN_ATOMS else None
    return _pure_side(a, target, False, points, crossing), _pure_side(a, target, True, points, crossing)


def _positive_losses(a: Atoms) -> list[float]:
    """The positive losses, then a point beyond every loss (delta is constant there)."""
    loss = a.loss_list
    return [x for x in loss if x > 0.0] + [(loss[-1] if loss else 0.0) + 2.0 * a.loss_error + 1.0]


def _pure_side(a: Atoms, target: float, upper: bool, points: list[float], crossing: int | None) -> float:
    """``pure_epsilon``'s search on one side, from the points and (if any) the estimated crossing."""
    lean = a.mass.size <= LEAN_ATOMS

    def at(x: float) -> float:
        return _lean_delta(a, x, upper) if lean else float(delta(a, np.array([x]), upper)[0])

    beyond = points[-1]
    if crossing is not None:
        left, right = points[crossing - 1] if crossing > 0 else 0.0, points[crossing]
        if (at(left) > target) if upper else (at(right) <= target):
            root = _interval_root(a, left, right, target, upper, lean)
            if (at(root) <= target) if upper else (at(root) > target):
                return root
    if not lean and len(points) <= _ONE_PASS_POINTS:  # few points (a lone pair): all in one evaluation
        values = delta(a, np.array([0.0] + points), upper)
        if values[0] <= target:
            return 0.0
        if values[-1] > target:  # delta >= p_inf > target for every eps
            return math.inf
        hi = int(np.argmax(values[1:] <= target))  # the first crossing: values[hi] > target >= values[hi + 1]
        lo = hi - 1
    else:
        if at(0.0) <= target:
            return 0.0
        if at(beyond) > target:  # delta >= p_inf > target for every eps
            return math.inf
        lo, hi = -1, len(points) - 1  # delta(points[lo]) > target (lo = -1: eps = 0), delta(points[hi]) <= target
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if at(points[mid]) > target:
                lo = mid
            else:
                hi = mid
    left = points[lo] if lo >= 0 else 0.0
    right = points[hi]
    candidate = _interval_root(a, left, right, target, upper, lean)
    if upper:
        return candidate if at(candidate) <= target else right
    return candidate if at(candidate) > target else left
