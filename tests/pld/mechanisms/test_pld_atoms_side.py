"""One side of a list of atoms (``_core.pld_mechanisms.atoms_side``) is the same doubles as that side of both
sides formed at once (``_core.pld_mechanisms.atoms``), and ``pair_sides`` keeps each pair's side of
``pair_factor``: masses, offsets, masses at +infinity (the pessimistic one with its round-off deficit), loss
shifts and whether the optimistic side is connect-the-dots."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld.grid.pmf import GridPMF
from hockeystick.pld.mechanisms.constructors import MAX_CELLS, pair_factor, pair_sides


def _normal(centre: float, spread: float, size: int) -> np.ndarray:
    """A discretized normal law on the integers -size..size, its tails far into the subnormal doubles."""
    x = np.arange(-size, size + 1, dtype=float)
    log_p = -0.5 * ((x - centre) / spread) ** 2
    return np.exp(log_p - np.log(np.exp(log_p).sum()))


def _atom_lists() -> list[tuple[np.ndarray, np.ndarray]]:
    """(losses, P-masses): plain atoms, atoms with mass at +infinity, and a wide normal pair's whose masses
    sum below 1 in floats (a deficit the pessimistic side carries to +infinity)."""
    p, q = _normal(0.0, 20.0, 700), _normal(2.0, 20.0, 700)
    return [
        (np.array([-0.7, 0.05, 1.3]), np.array([0.2, 0.3, 0.5])),
        (np.array([-2.0, 0.0, np.inf]), np.array([0.25, 0.5, 0.25])),
        (np.log(p) - np.log(q), p * (1.0 - 2.0**-40)),
    ]


def _bits(values: np.ndarray) -> bytes:
    return np.ascontiguousarray(values, dtype=np.float64).tobytes()


@pytest.mark.parametrize("h", [1e-4, 0.05])
@pytest.mark.parametrize("case", range(3))
def test_each_side_alone_is_that_side_of_both(case: int, h: float) -> None:
    loss, mass = _atom_lists()[case]
    both = _core.pld_mechanisms.atoms(loss, mass, h=h, max_cells=MAX_CELLS)
    upper = _core.pld_mechanisms.atoms_side(loss, mass, h=h, max_cells=MAX_CELLS, pessimistic=True)
    lower = _core.pld_mechanisms.atoms_side(loss, mass, h=h, max_cells=MAX_CELLS, pessimistic=False)
    assert both.lower is not None
    assert (upper.k_lo, _bits(upper.p), upper.p_inf.hex()) == (
        both.k_lo,
        _bits(both.upper),
        both.upper_inf.hex(),
    )
    assert (lower.k_lo, _bits(lower.p), lower.p_inf.hex(), lower.connect_dots) == (
        both.lower_k_lo,
        _bits(both.lower),
        both.lower_inf.hex(),
        both.connect_dots,
    )
    assert upper.loss_shift.hex() == lower.loss_shift.hex() == both.loss_shift.hex()


def test_a_deficit_reaches_the_pessimistic_side_alone() -> None:
    """The masses sum below 1: what the upper side's grid masses miss of 1 sits at +infinity."""
    loss, mass = _atom_lists()[2]
    upper = _core.pld_mechanisms.atoms_side(
        loss, mass, h=1e-4, max_cells=MAX_CELLS, pessimistic=True
    )
    assert upper.p_inf >= 2.0**-41 and float(np.sum(upper.p)) + upper.p_inf >= 1.0 - 1e-15


def _key(pmf: GridPMF | None) -> tuple[object, ...]:
    assert pmf is not None
    return (
        pmf.k_lo,
        pmf.h.hex(),
        _bits(pmf.p),
        pmf.p_inf.hex(),
        pmf.loss_shift.hex(),
        pmf.pessimistic,
    )


@pytest.mark.parametrize("h", [1e-4, 0.05])
def test_pair_sides_keeps_each_pairs_side_of_pair_factor(h: float) -> None:
    """The upper pair with a Q-mass of exactly 0 (P-mass at +infinity), the lower pair another one."""
    first = (np.array([0.1, 0.3, 0.6]), np.array([0.0, 0.5, 0.5]))
    second = (_normal(1.0, 15.0, 120), _normal(0.0, 15.0, 120))
    kept = pair_sides(first, second, "pair", h)
    assert _key(kept.upper) == _key(pair_factor(first[0], first[1], "pair", h).upper)
    whole = pair_factor(second[0], second[1], "pair", h)
    assert _key(kept.lower) == _key(whole.lower) and kept.connect_dots == whole.connect_dots
    flipped = pair_sides(second, first, "pair", h)
    assert _key(flipped.lower) == _key(pair_factor(first[0], first[1], "pair", h).lower)
