"""Long compositions of atoms on a window (``finite_atoms``' module docstring, Long compositions):
masses on a stride of the lattice, convolved directly, masses below ``WINDOW_FLOOR`` dropped and
charged, the window coarsened to at most ``WINDOW_POINTS`` points.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import partial
from typing import NamedTuple

import numpy as np

from ..grid import atoms
from ..grid.atoms import (
    ETA,
    INDEX_LIMIT,
    INFINITY_FLOOR,
    UNIT_ROUNDOFF,
    WINDOW_FLOOR,
    Atoms,
    _check_span,
    _infinity_may_underflow,
    _merged,
    _on_eta,
    _power,
    _underflows,
)


def _stride(index: np.ndarray) -> int:
    """The gcd of the indices' differences (1 for a single atom): sums of such indices keep it."""
    return int(np.gcd.reduce(index - index[0])) or 1 if index.size > 1 else 1


def _windowed(a: Atoms, count: int) -> bool:
    """Whether ``count`` runs of a go through ``_window_power``: a's indices fill at least
    1/``atoms.DENSE_FILL`` of their span on their stride (a convolution is cheaper than products of
    atoms), or the result could pass ``atoms.MAX_ATOMS`` atoms: more than that many lattice points
    and more than that many sums (multisets of ``count`` of a's n atoms: C(count + n - 1, n - 1)).
    Merging would coarsen the squared copy and the running result onto different lattices, whose
    common one is ``ETA``: hours of products of 2^14 atoms."""
    n = a.index.size
    if n < 2:
        return False
    points = int(a.index[-1] - a.index[0]) // _stride(a.index)
    if points < atoms.DENSE_FILL * n + 64:
        return True
    sums = math.lgamma(count + n) - math.lgamma(count + 1) - math.lgamma(n)
    return count * points + 1 > atoms.MAX_ATOMS and sums > math.log(atoms.MAX_ATOMS)


class _Window(NamedTuple):
    """Masses at lattice indices first, first + step, first + 2 step, ... (each zero or >=
    ``WINDOW_FLOOR``); ``missing`` bounds the true P-mass left out of them (dropped below the floor,
    lost to underflow), whose losses are at most ``reach``'s: the upper side puts it there, the
    lower side leaves it out."""

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
    moves up by one step (loss_error grows by step eta and the product's round-off); each new mass
    is a sum of at most two (u relative)."""
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
    """w with the masses below ``WINDOW_FLOOR`` dropped (their true mass, at most computed (1 +
    rel), added to ``missing``), zero ends cut, and coarsened until at most ``limit`` entries
    remain."""
    small = w.mass < WINDOW_FLOOR
    dropped = (
        float(w.mass[small].sum()) * (1.0 + w.rel_error + w.mass.size * UNIT_ROUNDOFF)
        if small.any()
        else 0.0
    )
    mass = np.where(small, 0.0, w.mass)
    on = np.flatnonzero(mass)
    if on.size == 0:
        return w._replace(mass=np.zeros(1), missing=w.missing + dropped)
    w = w._replace(
        first=w.first + w.step * int(on[0]),
        mass=mass[on[0] : on[-1] + 1],
        missing=w.missing + dropped,
    )
    while w.mass.size > limit:
        w = _coarsened(w, eta)
    return w


def _window_compose(a: _Window, b: _Window, eta: float) -> _Window:
    """The composition of two windows of one step: one convolution (direct: exact products, no FFT
    round-off to charge), bookkept as ``_dense_compose``.  Every mass is >= 2^-1000, so a product
    underflows only below 2^-1022 where it errs by at most 2^-1074 absolute: at most size(a) size(b)
    2^-1074 in all, added to ``missing`` (upper side) and, relative to a kept sum (>= 2^-1000 after
    trimming), below u: one more u in ``rel_error`` (lower side).  Where no product can fall below
    2^-1022 nothing is added (the sides then share their atoms)."""
    while a.step < b.step:
        a = _coarsened(a, eta)
    while b.step < a.step:
        b = _coarsened(b, eta)
    na, nb = a.mass.size, b.mass.size
    rel = (
        a.rel_error
        + b.rel_error
        + (na + 4) * UNIT_ROUNDOFF
        + min(na, nb) * UNIT_ROUNDOFF
        + UNIT_ROUNDOFF
    )
    least_a, least_b = (
        float(a.mass[a.mass > 0.0].min(initial=1.0)),
        float(b.mass[b.mass > 0.0].min(initial=1.0)),
    )
    underflow = (
        na * nb * math.ulp(0.0) if _underflows(least_a, least_b, 1.0, 0.0) else 0.0
    )  # no product below 2^-1022
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
    return _trimmed(out, eta, atoms.WINDOW_POINTS)


def _reach(w: _Window) -> int:
    """An index at or above every mass of w, kept (its top entry) or missing (``reach``)."""
    return max(w.reach, w.first + w.step * (w.mass.size - 1))


def _rebased(a: Atoms, span: float) -> Atoms:
    """a on the lattice eta 2^j with the least j keeping ``span`` (count times a's largest |index|)
    below 2^60 indices: a composition of 10^9 runs of a pair on the 2^-32 sub-lattice passes
    2^62 (int64) there. Each loss moves to the nearest point (``_on_eta``'s error added); masses sharing
    one are summed."""
    eta = a.eta * 2.0 ** math.ceil(math.log2(4.0 * span / INDEX_LIMIT))
    index, extra = _on_eta(a, eta)
    return _merged(index, a.mass, a.p_inf, eta, a.loss_error + extra, a.rel_error)


def _first_window(a: Atoms) -> _Window:
    """a's atoms on a window of their stride g, on the stride g 2^j (the nearest point, ties up:
    each loss moves by at most g 2^(j-1) eta, plus the product's round-off) with the least j giving
    at most ``atoms.WINDOW_POINTS`` entries; masses sharing a point are summed (their count less one
    times u)."""
    step = _stride(a.index)
    position = (a.index - a.index[0]) // step
    shift = max(int(position[-1]) // atoms.WINDOW_POINTS, 0).bit_length()
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
    """``count`` runs of a on a window of its lattice: a's atoms spread on their stride (coarsened
    to at most ``atoms.WINDOW_POINTS`` entries), then repeated squaring by ``_window_compose``; each
    result trimmed of masses below ``WINDOW_FLOOR`` and coarsened (nearest point of a lattice twice
    as coarse, as ``_merged``) past ``atoms.WINDOW_POINTS`` entries, so every step costs one
    convolution of at most that many points whatever the count (a discrete Laplace 10^7 times: the
    masses above 2^-1000 span ~70 standard deviations of the summed loss).  The dropped masses
    (``missing``) go to the window's ``reach`` on the upper side (these atoms) and are left out on
    the lower side (``lower``)."""
    base = _trimmed(_first_window(a), a.eta, atoms.WINDOW_POINTS)
    return _window_atoms(_power(base, count, partial(_window_compose, eta=a.eta)), a.eta)


def _window_atoms(w: _Window, eta: float) -> Atoms:
    """The atoms of a window (its non-zero entries): ``missing`` at its ``reach`` (every missing
    mass's loss is at most reach eta + loss_error: delta grows with each loss raised), raised to at
    least ``INFINITY_FLOOR`` (no subnormal mass kept), on the upper side (these atoms); left out on
    the lower side (``lower``, set only where something is missing).  A finite loss, not +infinity,
    so a pure epsilon stays finite."""
    on = np.flatnonzero(w.mass)
    index = w.first + w.step * on.astype(np.int64)
    reach = _reach(w)
    _check_span(float(max(np.abs(index).max(initial=0), abs(reach))) + w.step, eta)
    lower = Atoms(index, w.mass[on], w.p_inf, eta, w.loss_error, w.rel_error)
    if w.missing == 0.0:
        return lower
    moved = max(math.nextafter(w.missing, math.inf), INFINITY_FLOOR)
    upper = _merged(
        np.append(index, reach),
        np.append(w.mass[on], moved),
        w.p_inf,
        eta,
        w.loss_error,
        w.rel_error + UNIT_ROUNDOFF,
    )  # a sum of two where reach is the top entry: _merged charges it
    return replace(upper, lower_of=lambda: lower)


def _aligned_window(
    a: Atoms, index: np.ndarray, extra_error: float, step: int, eta: float
) -> _Window:
    """a's atoms (at ``index`` on the lattice eta, within ``extra_error`` more of their losses) on
    the lattice step eta aligned at 0: index rounded to the nearest multiple of step (ties up), each
    loss moving by at most step eta / 2 plus the product's round-off; masses sharing a point
    summed."""
    position = (index + step // 2) // step
    first = int(position[0])
    counts = np.bincount(position - first)
    loss_error = a.loss_error + extra_error
    if step > 1:
        loss_error += (
            step // 2 * eta + 2.0 * UNIT_ROUNDOFF * (float(np.abs(index).max()) + step) * eta
        )
    rel = a.rel_error + (int(counts.max()) - 1) * UNIT_ROUNDOFF
    return _Window(
        first * step,
        step,
        np.bincount(position - first, weights=a.mass),
        a.p_inf,
        0.0,
        loss_error,
        rel,
        int(index[-1]),
    )


def _compose_windowed(a: Atoms, b: Atoms) -> Atoms:
    """``_compose_shared`` of two large atom sets (more than ``atoms.WINDOW_PRODUCTS`` products of
    atoms): both put on one lattice (a's and b's if shared, else ``ETA``) coarsened by the least
    power of two whose window of their sum has at most ``atoms.WINDOW_POINTS`` points, then one
    convolution (``_window_compose``): two discrete Laplace runs of 10^4 with different parameters
    took minutes of 10^8 products."""
    eta = a.eta if a.eta == b.eta else min(ETA, a.eta, b.eta)
    ia, ea = _on_eta(a, eta)
    ib, eb = _on_eta(b, eta)
    span = int(ia[-1] - ia[0]) + int(ib[-1] - ib[0])
    step = 1 << max(span // atoms.WINDOW_POINTS, 0).bit_length()
    return _window_atoms(
        _window_compose(
            _aligned_window(a, ia, ea, step, eta), _aligned_window(b, ib, eb, step, eta), eta
        ),
        eta,
    )
