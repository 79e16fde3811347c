"""The outputs of a grid's points: each accountant's value (or calibrated parameter), the best of several.

Every point of a chunk goes to each accountant in one vectorized call: ``delta(epsilon)``,
``epsilon(delta)``, or ``calibrate`` for a parameter; a calculator evaluates its quantity or solves
for a parameter.  With several accountants, ``<output>`` is the best valid value (the smallest, or
the largest for an "increasing" calibration; NaN only where every accountant gives NaN) and ``best``
the index of the accountant that gave it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..registry import AccountantEntry, CalculatorEntry
from .grid import Chunk, Grid

__all__ = ["default_chunk_size", "evaluate", "evaluate_chunk"]


def default_chunk_size(grid: Grid) -> int:
    """~1M points for delta (a few theta calls each), fewer for the iterative outputs and for
    accountants that hold per-point tables (RDP orders)."""
    size = 1 << 20 if grid.output == "delta" else 1 << 17
    return min([size] + [e.max_chunk for e in grid.entries if e.max_chunk])


def evaluate(grid: Grid, params: dict[str, Any], shape: tuple[int, ...]) -> dict[str, np.ndarray]:
    r"""Evaluate a grid's accountants at given points and return each output column, flat.

    Each accountant is called once, vectorized over the points: ``delta(epsilon)``,
    ``epsilon(delta)``, or ``calibrate`` for a parameter (a calculator evaluates its quantity or
    solves for the parameter), on the side ``grid.bound`` names.  With several accountants, the
    column ``<output>`` is the best valid value at each point and ``best`` the index :math:`b` of
    the accountant that gave it,

    .. math::

        b = \operatorname*{arg\,min}_{a} v_a, \qquad \text{output} = v_b,

    NaN counting as the worst value (arg max for a parameter calibrated "increasing", such as
    rounds; a point where every accountant gives NaN stays NaN); a grid of calculators has no
    best-of columns.

    Parameters
    ----------
    grid : Grid
        The sweep: its accountants, output and bound (its axes are not read: ``params`` gives the
        points).
    params : dict of str to array_like
        Every parameter the accountants take, and the targets the output needs (``epsilon`` for
        delta, ``delta`` for epsilon, both for a calibration), as numbers or arrays broadcastable to
        ``shape`` (``Grid.chunk_parameters`` gives those of a chunk).
    shape : tuple of int
        The shape the points broadcast to.

    Returns
    -------
    dict of str to numpy.ndarray
        The columns ``grid.outputs`` (and ``best``, int8, for several accountants), each flat in C
        order with ``prod(shape)`` values, float64.

    Raises
    ------
    ValueError
        Whatever an accountant refuses: a value out of its range, a calibration target it cannot
        reach.

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.sweep import Grid, evaluate
    >>> grid = Grid.from_parameters("gaussian", "delta", {"sigma": [1, 2], "rounds": 10, "epsilon": 1.0})
    >>> evaluate(grid, {"sigma": np.array([1.0, 2.0]), "rounds": 10, "epsilon": 1.0}, (2,))["delta"].round(6)
    array([0.818518, 0.352518])
    """
    if grid.bound != "upper":  # one accountant (Grid checks it): its lower side, or both sides
        return _sides(grid, params, shape)
    values = [_flat(_upper_value(grid, entry, params), shape) for entry in grid.entries]
    if len(values) == 1:
        return {grid.output: values[0]}
    outputs = dict(zip(grid.outputs, values))
    if grid.calculators:
        return outputs
    outputs[grid.output], outputs["best"] = _best_of(values, grid.best_is_max)
    return outputs


def evaluate_chunk(grid: Grid, chunk: Chunk) -> dict[str, np.ndarray]:
    """The outputs of one chunk (what a Dask task computes)."""
    return evaluate(grid, grid.chunk_parameters(chunk), grid.block_shape(chunk))


def _flat(value: Any, shape: tuple[int, ...]) -> np.ndarray:
    return np.broadcast_to(np.asarray(value, dtype=np.float64), shape).ravel()


def _own(entry: AccountantEntry | CalculatorEntry, params: dict[str, Any]) -> dict[str, Any]:
    """The parameters ``entry`` takes (the targets epsilon and delta are passed apart)."""
    return {k: v for k, v in params.items() if k in entry.parameters}


def _sides(grid: Grid, params: dict[str, Any], shape: tuple[int, ...]) -> dict[str, np.ndarray]:
    """The lower side of the one accountant's certified bracket, or both sides (``grid.bound``)."""
    entry = grid.entries[0]
    assert isinstance(entry, AccountantEntry)  # Grid allows bound != "upper" for accountants only
    mine = _own(entry, params)
    if grid.output == "delta":
        sides = entry.build(**mine).delta(params["epsilon"], bound=grid.bound)
    elif grid.output == "epsilon":
        sides = entry.build(**mine).epsilon(params["delta"], bound=grid.bound)
    else:
        from ..calibrate import calibrate  # lazy: start-up time; a calibrated output only

        sides = calibrate(
            entry,
            grid.output,
            epsilon=params["epsilon"],
            delta=params["delta"],
            bound=grid.bound,
            **mine,
        )
    sides = sides if grid.bound == "both" else (sides,)
    return {name: _flat(side, shape) for name, side in zip(grid.outputs, sides)}


def _upper_value(
    grid: Grid, entry: AccountantEntry | CalculatorEntry, params: dict[str, Any]
) -> Any:
    """One entry's output: a calculator's quantity or solved parameter; an accountant's upper delta
    or epsilon, or the parameter calibrated to the targets."""
    if isinstance(entry, CalculatorEntry):
        return (
            entry.evaluate(**params)
            if grid.output == entry.quantity
            else entry.solve(grid.output, **params)
        )
    mine = _own(entry, params)
    if grid.output == "delta":
        return entry.build(**mine).delta(params["epsilon"])
    if grid.output == "epsilon":
        return entry.build(**mine).epsilon(params["delta"])
    from ..calibrate import calibrate  # lazy: start-up time; a calibrated output only

    return calibrate(entry, grid.output, epsilon=params["epsilon"], delta=params["delta"], **mine)


def _best_of(values: list[np.ndarray], best_is_max: bool) -> tuple[np.ndarray, np.ndarray]:
    """(the best valid value at each point, the index of the accountant giving it): NaN counts as
    the worst value, and a point where every accountant gives NaN stays NaN."""
    stacked = np.stack(values)
    invalid = -np.inf if best_is_max else np.inf
    stacked = np.where(np.isnan(stacked), invalid, stacked)
    best = np.argmax(stacked, axis=0) if best_is_max else np.argmin(stacked, axis=0)
    chosen = np.take_along_axis(stacked, best[None, :], axis=0)[0]
    return np.where(chosen == invalid, np.nan, chosen), best.astype(np.int8)
