"""Atoms composed: two factors (``compose``: sparse products, dense lattice arrays while they fill
their span, or a window past ``WINDOW_PRODUCTS``), one factor with itself (``self_compose``: by
squaring, on a window for long runs, in plain Python floats for few atoms), and the parts of a plan
together (``compose_all``); each side on its own atoms, products near underflow charged
(``_underflow_charged``; ``finite_atoms``' module docstring).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from ..grid import atoms
from ..grid.atoms import (
    ETA,
    INDEX_LIMIT,
    INFINITY_FLOOR,
    SMALLEST_NORMAL,
    UNIT_ROUNDOFF,
    WINDOW_FLOOR,
    Atoms,
    _check_span,
    _folded,
    _infinity_may_underflow,
    _may_underflow,
    _merged,
    _on_eta,
    _power,
    _powers_may_underflow,
    _side,
    _top_loss,
)
from .atoms_window import _compose_windowed, _rebased, _window_power, _windowed


def _compose_folded(a: Atoms, b: Atoms, reach: float = 0.0) -> Atoms:
    """``_compose_shared`` of two lower sides, ``_folded`` above max(``FOLD_LOSS``, reach).  A
    windowed composition (``_compose_windowed``) returns its upper side with the lower one beside it
    (``lower_of``): the lower side is read off (``_side``), never the upper side's ``missing``
    mass."""
    return _folded(_side(_compose_shared(a, b), False), reach)


def compose(a: Atoms, b: Atoms) -> Atoms:
    """The atoms of running both (losses add; masses multiply), each side's from the sides' own atoms."""
    out = _compose_shared(a, b)
    if a.lower_of is None and b.lower_of is None:
        return out
    return replace(
        out, lower_of=lambda: _compose_folded(_side(a, False), _side(b, False), _top_loss(out))
    )


def _compose_shared(a: Atoms, b: Atoms) -> Atoms:
    """``compose`` of a's and b's own atoms (``lower`` ignored): on their lattice if they share it, else ETA."""
    if a.index.size * b.index.size > atoms.WINDOW_PRODUCTS:
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
    top = -(
        -top // round(out.eta / eta)
    )  # on out's lattice (``_merged`` may have coarsened it 2^j times): rounded up
    return _underflow_charged(
        out, a.mass.size * b.mass.size, top, _infinity_may_underflow(a.total_mass, b.p_inf)
    )


def _underflow_charged(out: Atoms, products: int, top: int, infinity_product: bool) -> Atoms:
    """A composition of ``products`` products of masses, some below 2^-1022 (each within 2^-1075
    absolute of its exact value: a subnormal has no relative precision), certified on each side.

    Upper side (these atoms): the true finite-loss masses sum to at most the computed ones (1 + rel)
    plus products 2^-1075, all at losses at most index ``top`` (the sum of the factors' top indices:
    a product that underflowed to 0 has left no atom there); that charge and the masses computed
    below 2^-1022 (their losses kept would leave subnormal terms in every delta) go to that index,
    whose mass is then at least ``INFINITY_FLOOR`` (rounded up; one more u in ``rel_error``); p_inf
    gains its own product's 2^-1075 (rounded up) where that product may underflow
    (``infinity_product``).  delta grows with each mass moved up and each loss raised, so the side
    stays above the truth, by at most ~products 2^-1022 + 2^-1000 more, and a pure epsilon stays
    finite (at +infinity, discrete_laplace(720)'s epsilon would be infinite). Lower side
    (``lower``): masses below ``WINDOW_FLOOR`` = 2^-1000 dropped (and p_inf below it), so each kept
    sum (of at most 2^22 products: ``atoms.WINDOW_PRODUCTS``, or a dense row) errs by at most 2^22
    2^-1075 = u 2^-1000 absolute, u relative: one more u in ``rel_error``."""
    p_inf = math.nextafter(out.p_inf + math.ulp(0.0), math.inf) if infinity_product else out.p_inf
    small = out.mass < SMALLEST_NORMAL
    if products == 0:
        upper = replace(out, p_inf=p_inf)
    else:
        moved = max(
            math.nextafter(products * math.ulp(0.0) + float(out.mass[small].sum()), math.inf),
            INFINITY_FLOOR,
        )
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
    """``compose`` on dense lattice arrays: one convolution.  The bookkeeping is compose's; each sum
    has at most min(sizes) products, so it errs by at most (min(sizes) - 1)u relative (zeros
    counted: a bound)."""
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
    """The atoms of a dense stretch (zero masses dropped; coarsened past ``atoms.MAX_ATOMS`` by ``_merged``)."""
    on = d.mass > 0.0
    index = d.first + np.flatnonzero(on).astype(np.int64)
    if index.size <= atoms.MAX_ATOMS:  # distinct and sorted already
        return Atoms(index, d.mass[on], d.p_inf, eta, d.loss_error, d.rel_error)
    return _merged(index, d.mass[on], d.p_inf, eta, d.loss_error, d.rel_error)


def _dense(index: np.ndarray) -> bool:
    """Sorted lattice indices spanning at most ``atoms.DENSE_FILL`` times their count (plus a few):
    worth a dense array."""
    return index.size > 0 and int(index[-1] - index[0]) < atoms.DENSE_FILL * index.size + 64


def _spread(index: np.ndarray, mass: np.ndarray) -> np.ndarray:
    """The masses on the dense lattice from index[0] to index[-1] (zeros between; masses that a
    coarser lattice put on one index are summed, never overwritten)."""
    return np.bincount(index - index[0], weights=mass, minlength=int(index[-1] - index[0]) + 1)


def self_compose(a: Atoms, count: int) -> Atoms:
    """``count`` >= 1 runs of a, each side's from its own atoms (``_self_compose_shared``)."""
    if int(count) == 1:
        return a
    out = _self_compose_shared(a, count)
    if a.lower_of is None:
        return out
    return replace(out, lower_of=lambda: _lower_self_compose(_side(a, False), int(count)))


def _lower_self_compose(a: Atoms, count: int) -> Atoms:
    """``count`` runs of lower-side atoms: folded products (``_compose_folded``: tight where the far
    atoms of masses near underflow sit) while count times their atoms stays within
    ``atoms.MAX_ATOMS``, else on a window (``_window_power``: bounded work for any count; its own
    lower side)."""
    if count * a.index.size <= atoms.MAX_ATOMS or not _windowed(a, count):
        return _power(a, count, _compose_folded)
    return _side(_window_power(a, count), False)


def _self_compose_shared(a: Atoms, count: int) -> Atoms:
    """``count`` >= 1 runs of a's own atoms (``lower`` ignored): two atoms a few times in closed
    form (``_binomial_self_compose``); in plain floats if the result spans at most
    ``atoms.LEAN_ATOMS`` lattice points; by repeated squaring of each step merged while the result
    has at most ``atoms.MAX_ATOMS`` atoms; else on a window of the lattice (``_window_power``)."""
    span = float(int(count)) * float(np.abs(a.index).max(initial=0))
    if int(count) > 1 and span >= INDEX_LIMIT / 4 and _windowed(a, int(count)):
        return _window_power(_rebased(a, span), int(count))
    _check_span(span, a.eta)
    if 1 < int(count) < atoms.LEAN_ATOMS and a.mass.size == 2 and a.p_inf == 0.0:
        binomial = _binomial_self_compose(a, int(count))
        if binomial is not None:
            return binomial
    if (
        int(count) > 1
        and _dense(a.index)
        and int(count) * int(a.index[-1] - a.index[0]) < atoms.LEAN_ATOMS
        and not _powers_may_underflow(a, int(count))
    ):
        return _lean_self_compose(a, int(count))
    if int(count) > 1 and _windowed(a, int(count)):
        return _window_power(a, int(count))
    return _power(
        a, count, compose
    )  # compose: each side from its own atoms (``_underflow_charged``)


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
    """``self_compose`` for a result spanning fewer than ``atoms.LEAN_ATOMS`` lattice points, in
    plain floats (numpy's per-call cost was most of a self-composed discrete Laplace's time); the
    loss and mass lists the lean evaluations read are filled in on the way.  The indices are taken
    on their own stride g (the gcd of their differences: 2 for a discrete Laplace of sensitivity 1),
    which sums preserve, so no zero lies between two atoms."""
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
        np.array(index, dtype=np.int64),
        np.array(mass, dtype=np.float64),
        d.p_inf,
        a.eta,
        d.loss_error,
        d.rel_error,
    )
    out.__dict__["loss_list"] = [
        i * a.eta for i in index
    ]  # what the cached properties would compute
    out.__dict__["mass_list"] = mass
    return out


def _binomial_self_compose(a: Atoms, count: int) -> Atoms | None:
    """``count`` (< ``atoms.LEAN_ATOMS``) runs of two atoms (no mass at infinity: a discrete Laplace
    of sensitivity 1, a binary randomized response) in closed form: the binomial law,
        mass C(k, j) m_1^j m_0^(k - j) at index k i_0 + j (i_1 - i_0),  j = 0 .. k,
    in plain floats.  Round-off: the factors' relative errors r compound to (1 + r)^k - 1 <= k r
    (1 + k r) (k r <= 1), C(k, j) < 2^53 is exact, each power is within 2u (libm pow) and the two
    products add u each: ``rel_error`` k r (1 + k r) + 8u; losses add, so ``loss_error`` is k times
    a's.  None where a mass would come near the subnormal range (relative round-off unbounded
    there): the caller then takes the lattice path."""
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
    out.__dict__["loss_list"] = [
        i * a.eta for i in index
    ]  # what the cached properties would compute
    out.__dict__["mass_list"] = mass
    return out


def compose_all(parts: Sequence[tuple[Atoms, int]]) -> Atoms:
    """The composition of ``count`` runs of each atom set."""
    out: Atoms | None = None
    for part, count in parts:
        step = self_compose(part, count)
        out = step if out is None else compose(out, step)
    assert out is not None
    return out
