"""A finite pair's atoms (``finite_atoms``' module docstring, Certification and Masses near
underflow): losses log p - log q with the bound on their round-off, kept on the pair's own lattice
or rounded to the sub-grid ``ETA``, and the outcomes with masses near underflow pooled on each side
(``split_near_underflow``, the one rule the grid path shares).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from typing import Any, NamedTuple, cast

import numpy as np

from ..grid import atoms
from ..grid.atoms import (
    ETA,
    INFINITY_FLOOR,
    LATTICE_TOLERANCE,
    MAX_LATTICE_INDEX,
    SMALLEST_NORMAL,
    SUBNORMAL_SLACK,
    UNIT_ROUNDOFF,
    Atoms,
    _folded,
    _lean_merged,
    _merged,
    _on_eta,
)


def pair_atoms(p: np.ndarray, q: np.ndarray) -> Atoms:
    """The atoms of the pair (P, Q) (outcomes with P = 0 carry no P-mass and are dropped); an
    outcome with a mass below 2^-1022 (Q = 0 included) gets an atom per side
    (``_with_near_underflow``)."""
    pa, qa = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    if pa.size <= atoms.LEAN_ATOMS and pa.shape == qa.shape:
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
        np.all(miss <= LATTICE_TOLERANCE * np.maximum(np.abs(loss), eta))
        and np.all(np.abs(index) <= MAX_LATTICE_INDEX)
    ):
        eta = ETA
        index = np.round(loss / eta)
        miss = np.abs(loss - index * eta)
    # |index * eta - computed| <= miss + u|index * eta| (the product's rounding), plus the loss's own error.
    bound = err + float((miss + UNIT_ROUNDOFF * np.abs(index * eta)).max(initial=0.0))
    out = _merged(index.astype(np.int64), pk, 0.0, eta, bound, 16.0 * UNIT_ROUNDOFF)
    return (
        _with_near_underflow(out, list(zip(pa[near].tolist(), qa[near].tolist())))
        if near.any()
        else out
    )


def _pair_atoms_lean(p: list[float], q: list[float]) -> Atoms:
    """``pair_atoms`` for a few outcomes, in plain floats: the same losses, lattice, bounds and masses."""
    losses, masses, near, err = _lean_losses(p, q)
    eta, index, miss = _lean_lattice(losses)
    bound = err + max((m + UNIT_ROUNDOFF * abs(i * eta) for i, m in zip(index, miss)), default=0.0)
    out = _lean_atoms(index, masses, eta, bound)
    return _with_near_underflow(out, near) if near else out


def _lean_losses(
    p: list[float], q: list[float]
) -> tuple[list[float], list[float], list[tuple[float, float]], float]:
    """The losses log p - log q and P-masses of the outcomes with P > 0 and both masses at least
    2^-1022, the outcomes with a mass below it (near underflow), and the largest round-off of the
    losses."""
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
    return losses, masses, near, err


def _lean_indices(losses: list[float], eta: float) -> tuple[list[int], list[float]]:
    """Each loss's nearest lattice index on the spacing eta, and its distance |loss - index eta|."""
    index = [round(x / eta) for x in losses]
    return index, [abs(x - i * eta) for x, i in zip(losses, index)]


def _lean_lattice(losses: list[float]) -> tuple[float, list[int], list[float]]:
    """The lattice of the losses (spacing, indices, distances): the smallest non-zero |loss| where
    every loss is a multiple of it (within ``LATTICE_TOLERANCE`` relative, indices within
    ``MAX_LATTICE_INDEX``), else ``ETA``."""
    nonzero = [abs(x) for x in losses if x != 0.0]
    eta = min(nonzero) if nonzero else ETA
    index, miss = _lean_indices(losses, eta)
    if not all(
        m <= LATTICE_TOLERANCE * max(abs(x), eta) and abs(i) <= MAX_LATTICE_INDEX
        for x, i, m in zip(losses, index, miss)
    ):
        eta = ETA
        index, miss = _lean_indices(losses, eta)
    return eta, index, miss


def _lean_atoms(index: list[int], masses: list[float], eta: float, bound: float) -> Atoms:
    """The atoms at the lattice indices with the masses (16u relative each), merged where indices repeat."""
    if all(
        i < j for i, j in zip(index, index[1:])
    ):  # distinct and sorted (the pairs here): nothing to merge
        out = Atoms(
            np.array(index, dtype=np.int64),
            np.array(masses, dtype=np.float64),
            0.0,
            eta,
            bound,
            16.0 * UNIT_ROUNDOFF,
        )
        out.__dict__["loss_list"] = [
            i * eta for i in index
        ]  # what the cached properties would compute
        out.__dict__["mass_list"] = masses
        return out
    return _merged(
        np.array(index, dtype=np.int64),
        np.array(masses, dtype=np.float64),
        0.0,
        eta,
        bound,
        16.0 * UNIT_ROUNDOFF,
    )


def loss_round_off(lp: Any, lq: Any) -> Any:
    """A bound on the error of log p - log q computed from lp = log p, lq = log q (each log within
    2u (|log| + 8) relative-plus-absolute, the difference within u): 4u (|lp| + |lq|) + 32u.
    Scalars or arrays (``abs`` is numpy's on arrays)."""
    return 4.0 * UNIT_ROUNDOFF * (abs(lp) + abs(lq)) + 32.0 * UNIT_ROUNDOFF


def mass_range(mass: float) -> tuple[float, float]:
    """A computed mass's range of true values (module docstring: 16u relative, and
    ``SUBNORMAL_SLACK`` absolute below 2^-1022), widened to 32u and twice the slack so that its own
    rounding stays inside."""
    slack = 2.0 * SUBNORMAL_SLACK if mass < SMALLEST_NORMAL else 0.0
    return max(mass * (1.0 - 32.0 * UNIT_ROUNDOFF) - slack, 0.0), mass * (
        1.0 + 32.0 * UNIT_ROUNDOFF
    ) + slack


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
    """The outcomes of a pair with a mass near underflow, per side (``split_near_underflow``):
    masses' ranges [p_lo, p_hi], [q_lo, q_hi] (``mass_range``) sorted into atoms kept one per
    outcome and atoms pooled into one.  A loss is then log p - log q of each (p, q), moved outward
    by the caller."""

    up_kept: list[
        tuple[float, float]
    ]  # (p_hi, q_lo): P-mass p_hi at log p_hi - log q_lo, per outcome
    up_pool: (
        float  # P-mass at the top loss of ``up_pooled`` (+infinity where ``up_infinite``); 0: none
    )
    up_pooled: list[tuple[float, float]]  # (p_hi, q_lo) of the pooled outcomes with q_lo > 0
    up_infinite: bool  # some pooled outcome has q_lo = 0: the pool sits at +infinity
    low_kept: list[
        tuple[float, float]
    ]  # (p_lo, q_hi): P-mass p_lo at log p_lo - log q_hi, per outcome
    low_pool: float  # P-mass at the least loss of ``low_pooled``; 0: none (dropped)
    low_pooled: list[tuple[float, float]]  # (p_lo, q_hi) of the pooled outcomes


def _outward_sum(masses: list[float], toward: float) -> float:
    """sum of ``masses`` rounded toward ``toward``: fsum is correctly rounded, so one step out
    covers it; a single mass is its own exact sum (so a lone structural-zero outcome keeps its
    bits)."""
    return masses[0] if len(masses) == 1 else math.nextafter(math.fsum(masses), toward)


def split_near_underflow(
    near: Sequence[tuple[float, float]], floor: float, raised: float
) -> NearUnderflowSplit:
    """The one rule for outcomes (p, q) of a pair with a mass near underflow (module docstring).

    An outcome keeps its own atom on a side where its P-mass there is at least ``floor`` (upper: the
    given p, and q_lo > 0 so that the loss is finite; lower: p_lo).  The others are pooled: the
    upper side puts max(sum p_hi (rounded up), ``raised``) at the top of their losses (at +infinity
    if some q_lo = 0): delta(eps) = sum_j p_j (1 - e^{eps - l_j})_+ grows with every p_j and l_j, so
    this stays above their contribution and costs at most max(sum p_hi, ``raised``) more than it,
    once per pair (the pool sits at the top loss: a pooled mass far below it is charged whole); the
    lower side puts sum p_lo (rounded down) at the least of their losses where that sum is at least
    ``floor``, else drops them (delta falls by less than ``floor``).  So every P-mass either side
    keeps is at least ``floor``."""
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
    # fsum is correctly rounded: one step outward covers its rounding (none for one term: it is
    # exact)
    up_pool = max(_outward_sum(up_masses, math.inf), raised) if up_masses else 0.0
    low_pool = _outward_sum(low_masses, 0.0) if low_masses else 0.0
    if low_pool < floor:
        low_pool, low_pooled = 0.0, []
    return NearUnderflowSplit(up_kept, up_pool, up_pooled, infinite, low_kept, low_pool, low_pooled)


def _with_near_underflow(a: Atoms, near: list[tuple[float, float]]) -> Atoms:
    """a (the pair's other outcomes) with the outcomes (p, q) having a mass below 2^-1022, by
    ``split_near_underflow`` (floor 2^-1022, the upper pool raised to ``INFINITY_FLOOR``): each loss
    rounded outward onto the lattice (``_outward_index``: up on the upper side, down on the lower).
    So every mass either side computes with is normal.  A lattice finer than ``ETA`` is first
    rounded onto ETA (its indices would pass 2^53)."""
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
    if (
        a.mass.size + len(near) <= atoms.LEAN_ATOMS
    ):  # a handful: merged in plain floats (numpy's calls cost more)
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
