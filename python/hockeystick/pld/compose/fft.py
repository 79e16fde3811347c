"""Composition of grid PMFs: the facade of the C++ composition (pld/compose/compose.hpp) on scipy.fft.

The losses of independent rounds add, so the composed PLD is the convolution of
the per-round PMFs, computed by one forward FFT per distinct factor, a pointwise
power and one inverse FFT, with the truncation to a Chernoff window and the
round-off of both transforms charged in the safe direction (added on a
pessimistic PMF, subtracted on an optimistic one).  Every formula lives in
cpp/include/hockeystick/pld/compose/compose.hpp (Doroshenko, Ghazi, Kamath, Kumar,
Manurangsi, PETS 2022, Sec. 4, for the composition; the window, the charges and
their derivation are in that header's opening comment); the binding plugs in
scipy.fft's batched ``rfft``/``irfft`` (``workers=``) as its FFT backend and runs
with the GIL released around them.

Memory.  A composition holds about ``BYTES_PER_POINT`` bytes per point of its
window at its peak (signal, spectra and output of the transforms, the kept PMF,
and the suffix sums its profile builds later), so the default cap
``DEFAULT_MAX_POINTS`` is ``MEMORY_FRACTION`` of the machine's physical memory
divided by that; a larger window is refused (ValueError) before anything is
allocated for it.  Coarsen the grid or pass a larger ``max_points``.  Threads composing
at once (an accountant's ``workers=``, the caller's own) share one process-wide budget
for their transforms' buffers, ``working_memory_limit`` (512 MiB by default): a batch
waits until its estimated bytes fit beside those in flight, and one larger than the
limit runs alone (cpp/include/hockeystick/pld/compose/working_memory_gate.hpp).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from ... import _core
from ...base.accountant import Quantity
from ..grid.pmf import GridPMF
from ..grid.tail import DEFAULT_TAIL as DEFAULT_TAIL  # re-exported: the composition's default

# Peak resident bytes per point of the largest window, for epsilon(bound="both") of a two-direction
# PLD (both sides composed, profiles built); tests/pld/compose/test_pld_compose_core.py checks a
# large composition stays below it.
BYTES_PER_POINT = 128
MEMORY_FRACTION = 0.25


def _physical_memory() -> int:
    """Bytes of physical memory (8 GiB where the platform does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 8 << 30


DEFAULT_MAX_POINTS = max(1 << 20, int(MEMORY_FRACTION * _physical_memory()) // BYTES_PER_POINT)

Factors = Sequence[tuple[GridPMF, int]]


def working_memory_limit(limit: int | None = None) -> int:
    """The bytes of composition buffers that threads of this process may hold at once (default 512
    MiB; a batch alone above it still runs, alone).  With ``limit`` (an int >= 0; 0 composes one
    batch at a time), sets it and returns the previous one; without, returns it."""
    return int(_core.pld_compose.working_memory_limit(limit))


def fft_length(width: int) -> int:
    """The FFT length used for a composition window of ``width`` grid points (5-smooth, <= 12.5 % above)."""
    return int(_core.pld_compose.fft_length(int(width)))


def compose(
    factors: Factors,
    *,
    pessimistic: bool,
    tail: float = DEFAULT_TAIL,
    max_points: int | None = None,
    workers: int | None = None,
    direct_bins: bool = False,
) -> GridPMF:
    """The PMF of the sum of ``count`` independent copies of each factor (all on one grid)."""
    return compose_many(
        [factors],
        pessimistic=pessimistic,
        tail=tail,
        max_points=max_points,
        workers=workers,
        direct_bins=direct_bins,
    )[0]


def compose_many(
    items: Sequence[Factors],
    *,
    pessimistic: bool,
    tail: float = DEFAULT_TAIL,
    max_points: int | None = None,
    workers: int | None = None,
    direct_bins: bool = False,
    direct_min_charge: float | None = None,
    shared_transform: bool = False,
) -> list[GridPMF]:
    """``compose`` of each item in one C++ call.

    Items of one FFT length (``fft_length``) share batched transforms, and a factor (the same
    ``GridPMF`` object) used by several items of a batch is transformed once.  Each item's result is
    the same whether composed alone or in a batch, unless ``shared_transform``: then every item's
    FFT length divides that of the call's widest window, M, and each factor is transformed once at M
    for every item (the checkpoints of a run: pld/compose/compose.hpp's shared transform), each
    result certified with the charges of that longer transform.  An item that is one factor once, on
    the side asked for, is returned as it is.  ``max_points`` caps every composed window (default
    ``DEFAULT_MAX_POINTS``); ``workers`` is scipy.fft's (None: all cores for a batch of several
    rows).  ``direct_bins=True`` recomputes the low-frequency bins of many-round compositions in
    long double: from one long-double scipy.fft transform per factor (round-off bound about 8 u_L
    ceil(log2 M) ||p||_1, u_L = 2^-64: pld/compose/long_spectrum.hpp) where the band is wide, else
    by direct sums (about 1.1 u ||p||_1: pld/compose/direct_spectrum.hpp), instead of the FFT's 8 u
    ceil(log2 M) ||p||_1: the charges (``total_error``, ``entry_error``) fall by the ratio of those
    bounds, at more CPU than the composition itself, so it pays only where the charge limits the
    answer (delta near 1e-9).  A row takes them where its estimated spectral charge reaches
    ``direct_min_charge`` (None: the core's kDirectMinCharge, 1e-11; 0: every row whose accurate
    bound is the smaller, for a caller that knows the charge limits its answer), and takes the power
    of those bins in long double too where the power's rounding in double would leave it a charge of
    at least a third of ``direct_min_charge`` (after many rounds; a bracket carries a charge about
    three times), in double elsewhere (a few rounds over a wide band).
    """
    cap = DEFAULT_MAX_POINTS if max_points is None else int(max_points)
    out: list[GridPMF | None] = [None] * len(items)
    passed, batches = _split(items, pessimistic)
    for i, pmf in passed.items():
        out[i] = pmf
    for h, group, pmfs, terms in batches:
        done = _core.pld_compose.compose_many(
            [pmf.p for pmf in pmfs],
            k_lo=[pmf.k_lo for pmf in pmfs],
            p_inf=[pmf.p_inf for pmf in pmfs],
            h=h,
            items=terms,
            pessimistic=pessimistic,
            tail=float(tail),
            max_points=cap,
            workers=workers,
            loss_shifts=[pmf.loss_shift for pmf in pmfs],
            options=_core.pld_compose.ComposeOptions(
                direct_bins=bool(direct_bins),
                direct_min_charge=float(
                    _core.pld_compose.direct_min_charge
                    if direct_min_charge is None
                    else direct_min_charge
                ),
                shared_transform=bool(shared_transform),
            ),
        )
        for i, r in zip(group, done):
            out[i] = _grid_pmf(r, h, pessimistic)
    return [pmf for pmf in out if pmf is not None]


def upper_sides(
    items: Sequence[Factors],
    arguments: Sequence[np.ndarray],
    method: Quantity,
    *,
    tail: float = DEFAULT_TAIL,
    max_points: int | None = None,
    workers: int | None = None,
    shared_transform: bool = False,
) -> list[np.ndarray]:
    """``compose_many(items, pessimistic=True)[i].epsilon(arguments[i])`` (``method="epsilon"``, not
    clipped at 0) or ``.delta(arguments[i])`` (``"delta"``) for every item, without keeping the
    composed PMFs (``shared_transform``: as ``compose_many``'s).

    The certified upper side at each argument (validated by the caller), in one C++ call per grid.
    After many rounds a composition keeps a few dozen live frequencies of thousands, and the suffix
    sums of the hockey-stick curve over its window are geometric sums of those: such an item is read
    from its spectrum (O(live bins) per grid threshold, an epsilon by a search over the grid), with
    no inverse transform and no window (cpp/include/hockeystick/pld/reads/spectral_profile.hpp,
    where its round-off is bounded in long double: about 1e-17 to 1e-16, mostly the rounding of the
    sums to double).  Its charges are the composition's without the inverse transform's, so its
    values are at most the window's plus that bound.  An item whose spectrum keeps too many bins, or
    asked for so many values, that reading it costs more than its inverse transform goes through its
    window, as ``GridPMF.epsilon`` and ``GridPMF.delta`` do (each epsilon about log2(window) + 3
    reads of the bins, each delta one): the same item asked for many values at once may so differ
    from it asked for a few, by at most the window's inverse charge, both certified.
    """
    out: list[np.ndarray | None] = [None] * len(items)
    passed, calls = _side_calls(
        _core.pld_compose.compose_upper_many,
        items,
        arguments,
        method=method,
        pessimistic=True,
        caller="upper_sides",
        tail=tail,
        max_points=max_points,
        workers=workers,
        options=_core.pld_compose.ComposeOptions(shared_transform=bool(shared_transform)),
    )
    for i, pmf in passed.items():
        out[i] = pmf.epsilon(arguments[i]) if method == "epsilon" else pmf.delta(arguments[i])
    for _, group, done in calls:
        for i, values in zip(group, done):
            out[i] = values
    return [values for values in out if values is not None]


def lower_sides(
    items: Sequence[Factors],
    arguments: Sequence[np.ndarray],
    method: Quantity,
    *,
    tail: float = DEFAULT_TAIL,
    max_points: int | None = None,
    workers: int | None = None,
    spectral: bool = True,
    shared_transform: bool = False,
) -> list[tuple[np.ndarray, GridPMF | None]]:
    """``upper_sides``' mirror on the optimistic side: per item, its certified lower ``method`` at
    ``arguments[i]`` (epsilon not clipped at 0, or delta; of the arguments' shape) and its composed
    ``GridPMF`` where one was made (else None).

    An item whose composed spectrum keeps few live frequencies is read from them with no inverse
    transform and no window (cpp/include/hockeystick/pld/reads/spectral_profile.hpp's lower side:
    the same geometric sums as the upper side's, their round-off bound subtracted, the composition's
    charges subtracted as on the window, an epsilon's grid interval found by the same search): never
    above the true value, and against the window's ``GridPMF.epsilon`` or ``GridPMF.delta`` higher
    by at most that bound (1e-17 to 1e-16 in long double) and twice the inverse transform's charge
    (which the window carries), lower by at most what the window's clip of its entries at 0 adds
    (within one charge).  Any other item (many live bins, or so many values asked that its window
    costs less: each value read as log2(window) + 3 thresholds) is composed as ``compose_many(...,
    pessimistic=False)`` composes it (the same window, bit for bit), read by its ``GridPMF`` and
    returned with it (a caller may keep it); so is one factor once.  ``spectral=False``: every item
    through its window; ``shared_transform``: as ``compose_many``'s.
    """
    out: list[tuple[np.ndarray, GridPMF | None] | None] = [None] * len(items)

    def read(pmf: GridPMF, x: np.ndarray) -> tuple[np.ndarray, GridPMF]:
        return (pmf.epsilon(x) if method == "epsilon" else pmf.delta(x)), pmf

    passed, calls = _side_calls(
        _core.pld_compose.compose_lower_many,
        items,
        arguments,
        method=method,
        pessimistic=False,
        caller="lower_sides",
        tail=tail,
        max_points=max_points,
        workers=workers,
        spectral=bool(spectral),
        options=_core.pld_compose.ComposeOptions(shared_transform=bool(shared_transform)),
    )
    for i, pmf in passed.items():
        out[i] = read(pmf, arguments[i])
    for h, group, done in calls:
        for i, (spectral_values, window) in zip(group, done):  # one of the two is None
            if window is not None:
                out[i] = read(_grid_pmf(window, h, False), arguments[i])
            else:
                out[i] = (cast(np.ndarray, spectral_values).reshape(np.shape(arguments[i])), None)
    return [side for side in out if side is not None]


def _side_calls(
    binding: Callable[..., list[Any]],
    items: Sequence[Factors],
    arguments: Sequence[np.ndarray],
    method: Quantity,
    pessimistic: bool,
    caller: str,
    tail: float,
    max_points: int | None,
    workers: int | None,
    **options: Any,
) -> tuple[dict[int, GridPMF], list[tuple[float, list[int], list[Any]]]]:
    """What ``upper_sides`` and ``lower_sides`` share: their ``method`` and arguments checked (no
    NaN: the caller validated them as deltas or epsilons), the items that are one factor once
    (``_split``: returned as they are), and per batch of one grid (h, its items, what the core's
    spectral side ``binding`` returned for each)."""
    if method not in ("epsilon", "delta"):
        raise ValueError(f"method must be 'epsilon' or 'delta', got {method!r}")
    for values in arguments:
        if np.isnan(values).any():
            raise ValueError(
                f"the arguments of {caller} must not be NaN (a {'delta' if method == 'epsilon' else 'epsilon'} "
                "is a number: validate with distribution.delta_values or epsilon_values)"
            )
    cap = DEFAULT_MAX_POINTS if max_points is None else int(max_points)
    passed, batches = _split(items, pessimistic)
    calls = []
    for h, group, pmfs, terms in batches:
        done = binding(
            [pmf.p for pmf in pmfs],
            k_lo=[pmf.k_lo for pmf in pmfs],
            p_inf=[pmf.p_inf for pmf in pmfs],
            h=h,
            items=terms,
            tail=float(tail),
            max_points=cap,
            workers=workers,
            loss_shifts=[pmf.loss_shift for pmf in pmfs],
            arguments=[np.ascontiguousarray(arguments[i], dtype=np.float64).ravel() for i in group],
            method=method,
            **options,
        )
        calls.append((h, group, done))
    return passed, calls


def _grid_pmf(r: _core.pld_compose.ComposedPMF, h: float, pessimistic: bool) -> GridPMF:
    """A composed window (the core's ``ComposedPMF``) as a ``GridPMF``, with the sum of its masses where the
    composition took it (``finite_mass``: the cached property's value, numpy's sum, the same bits)."""
    pmf = GridPMF(
        r.k_lo,
        h,
        r.p,
        r.p_inf,
        r.shift,
        pessimistic,
        r.entry_error,
        r.total_error,
        r.spectral_l2,
        r.inverse_error,
        r.loss_shift,
        r.inverse_l2,
    )
    if r.finite_mass is not None:
        pmf.__dict__["finite_mass"] = r.finite_mass
    return pmf


def _live(item: Factors) -> list[tuple[GridPMF, int]]:
    live = [(pmf, int(count)) for pmf, count in item if count > 0]
    if not live:
        raise ValueError("compose needs at least one factor with a positive count")
    if any(pmf.h != live[0][0].h for pmf, _ in live):
        raise ValueError("all factors must share one value_discretization_interval")
    return live


def _split(
    items: Sequence[Factors], pessimistic: bool
) -> tuple[
    dict[int, GridPMF], list[tuple[float, list[int], list[GridPMF], list[list[tuple[int, int]]]]]
]:
    """The items that are one factor once on the side asked for (their composition is that factor as
    it is), and the others grouped by grid: (h, their indices, the distinct factors, each item's
    terms as (factor index, count)), the grids in the order of their first item (the core's batches,
    ``_core.pld_compose.composition_batches``); a factor (the same ``GridPMF`` object) used by several
    items is listed once."""
    passed: dict[int, GridPMF] = {}
    composed: list[tuple[int, list[tuple[GridPMF, int]]]] = []
    for i, item in enumerate(items):
        live = _live(item)
        if len(live) == 1 and live[0][1] == 1 and live[0][0].pessimistic == pessimistic:
            passed[i] = live[0][0]
        else:
            composed.append((i, live))
    batches = []
    steps = [live[0][0].h for _, live in composed]
    for batch in _core.pld_compose.composition_batches(steps=steps):
        h, group = steps[batch[0]], [composed[k] for k in batch]
        index: dict[int, int] = {}
        pmfs: list[GridPMF] = []
        terms = []
        for _, live in group:
            for pmf, _ in live:
                if id(pmf) not in index:
                    index[id(pmf)] = len(pmfs)
                    pmfs.append(pmf)
            terms.append([(index[id(pmf)], count) for pmf, count in live])
        batches.append((h, [i for i, _ in group], pmfs, terms))
    return passed, batches
