"""The grid specification of a sweep: named axes, fixed parameters, accountants, output quantity.

A grid is the Cartesian product of its axes (C order: the LAST axis varies fastest),
with the fixed parameters added at every point.  ``output`` says what each point gets:

- ``"delta"``: delta(epsilon) (``epsilon`` must be an axis or fixed);
- ``"epsilon"``: epsilon(delta) (``delta`` must be given);
- a calibratable parameter such as ``"sigma"``: its extreme value meeting the target
  (``epsilon``, ``delta``), see ``hockeystick.calibrate``.

A grid over calculators (``hockeystick.registry.CalculatorEntry``: paper 001's leakage)
outputs their common quantity (``"tv"``), or a parameter a calculator can solve for
(``"distortion_variance"``) with the quantity given as the target.  Calculators are not
bounds, so several of them give one column each and no best-of column.

With several accountants each one's value gets a column ``<output>_<accountant>``, and
``<output>`` holds the best valid one (smallest delta, epsilon or sigma; largest rounds
or sampling rate) with ``best`` naming the accountant that gave it.

``bound`` picks the side of each accountant's certified bracket (accountant.py): "upper"
(the default: column ``<output>``, never below the truth), "lower" (column ``<output>_lower``,
never above it) or "both" (columns ``<output>_lower`` and ``<output>_upper``); a calibration
calibrates on that side of delta (``calibrate``'s ``bound``: the true extreme value lies between
the two sides).  Lower bounds of different accountants may bound different releases (the last
iterate, every round), so a sweep asking for a lower side takes one accountant.

Value specifications (TOML, command line, Python): a number (fixed), a list (an axis),
``{log = [start, stop, num]}`` / ``{linear = [start, stop, num]}`` or the strings
``"log:start:stop:num"``, ``"linear:start:stop:num"``, ``"1,2,4"``.

Every chunk of a grid is a contiguous run of points that is also a rectangle (a block
of rows along one axis times all later axes), so a chunk's parameters are broadcastable
slices of the axes and the accountant sees the block without an index computation.
"""

from __future__ import annotations

import difflib
import math
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import numpy as np

from .. import registry
from ..base import validation as _validation
from ..base.accountant import BOUND_SIDES, Bound
from ..registry import AccountantEntry, CalculatorEntry

__all__ = ["Axis", "Grid", "Chunk", "parse_value", "load_toml", "read_toml", "chunk_size_setting"]

AxisKind = Literal["list", "linear", "log"]

MAX_AXIS_VALUES = 10**8  # an axis is materialized (8 bytes a value, plus its steps when checked)
MAX_POINTS = 2**62  # chunk offsets and summary indices are int64
MAX_INTEGER = 2**53  # integers exact in a double and in int64


@dataclass(frozen=True)
class Axis:
    """One named axis of a grid: a non-empty, finite, strictly monotone 1-D array of parameter values.

    Parameters
    ----------
    name : str
        The parameter the axis varies (an accountant's keyword, or a target ``epsilon`` /
        ``delta``).
    values : array_like
        The values: 1-D, real, finite, at least one, strictly increasing or strictly decreasing (no
        repeats); stored as a numpy array.
    kind : {"list", "linear", "log"}, optional
        How the values were made: listed (the default), or evenly spaced on a linear or a log scale
        (``Axis.linear``, ``Axis.log``); a picture of the sweep takes the axis's scale from it.

    Raises
    ------
    ValueError
        If ``values`` is not a 1-D array of real numbers, is empty, holds a non-finite value, or is
        not strictly monotone.

    See Also
    --------
    parse_value : An axis (or a fixed number) from a value specification.

    Examples
    --------
    >>> from hockeystick.sweep import Axis
    >>> Axis.log("sigma", 1, 100, 3).values
    array([  1.,  10., 100.])
    >>> len(Axis("rounds", [1, 10, 100]))
    3
    """

    name: str
    values: np.ndarray
    kind: AxisKind = "list"

    def __post_init__(self) -> None:
        values = np.asarray(self.values)
        if values.dtype.kind not in "iuf" or values.ndim != 1:
            raise ValueError(f"axis {self.name!r}: values must be a 1-D list of real numbers")
        if values.size == 0:
            raise ValueError(
                f"axis {self.name!r} is empty: give at least one value (num >= 1 for a range)"
            )
        if not np.all(np.isfinite(values)):
            raise ValueError(f"axis {self.name!r}: values must be finite")
        steps = np.diff(values)
        if values.size > 1 and not (np.all(steps > 0) or np.all(steps < 0)):
            raise ValueError(
                f"axis {self.name!r} is not strictly monotone ({_preview(values)}): "
                "list its values in increasing (or decreasing) order without repeats"
            )
        object.__setattr__(self, "values", values)

    @classmethod
    def linear(cls, name: str, start: float, stop: float, num: float) -> Axis:
        """``num`` evenly spaced values from start to stop inclusive."""
        return cls(name, np.linspace(float(start), float(stop), _count(name, num)), "linear")

    @classmethod
    def log(cls, name: str, start: float, stop: float, num: float) -> Axis:
        """``num`` log-spaced values from start to stop inclusive (both > 0)."""
        if not (float(start) > 0 and float(stop) > 0):
            raise ValueError(
                f"axis {name!r}: a log range needs start > 0 and stop > 0, got {start}, {stop}"
            )
        values = np.geomspace(float(start), float(stop), _count(name, num))
        values[0], values[-1] = float(start), float(stop)
        return cls(name, values, "log")

    def __len__(self) -> int:
        return int(self.values.size)


def _count(name: str, num: Any) -> int:
    if isinstance(num, bool) or not float(num).is_integer() or int(num) < 1:
        raise ValueError(
            f"axis {name!r}: the number of values must be an integer >= 1, got {num:g}"
        )
    if int(num) > MAX_AXIS_VALUES:
        raise ValueError(
            f"axis {name!r}: {int(num):,} values is more than one axis can hold "
            f"({MAX_AXIS_VALUES:,}); lower NUM, or split the range over several sweeps"
        )
    return int(num)


def _preview(values: np.ndarray) -> str:
    shown = ", ".join(f"{v:g}" for v in values[:6])
    return shown + (", ..." if values.size > 6 else "")


def _exact(name: str, value: Any) -> Any:
    """``value``, after checking that an integer (TOML's, Python's) is exactly a double: a larger
    one would be rounded silently (99999999999999999999 -> 1e20), and integer parameters are written
    as the 64-bit integers of those doubles."""
    if (
        isinstance(value, (int, np.integer))
        and not isinstance(value, (bool, np.bool_))
        and float(value) != value
    ):
        raise ValueError(
            f"{name} = {value} does not fit in a double (every integer up to 2^53 = {MAX_INTEGER:,} "
            f"does); write {float(value):g} if that rounded value is meant"
        )
    return value


def parse_value(name: str, spec: Any) -> Axis | float:
    """Parse a TOML, command-line or Python value specification into a fixed number or an Axis.

    Parameters
    ----------
    name : str
        The parameter the value is for (the axis's name, and the name error messages give).
    spec : float, int, str, sequence, mapping or Axis
        A number (fixed); a list or array of numbers (an axis of kind "list"); a range ``{log =
        [start, stop, num]}`` / ``{linear = [start, stop, num]}``; a string: a number ``"1.5"``, a
        list ``"1,2,4"``, or a range ``"log:start:stop:num"`` / ``"linear:start:stop:num"``
        (``"lin:..."`` too); an ``Axis`` is returned as it is.  A range holds ``num`` values from
        start to stop inclusive (``num`` an integer >= 1; a log range needs start > 0 and stop > 0).
        An integer must equal its double (every integer up to 2^53 in magnitude does).

    Returns
    -------
    float or Axis
        The fixed value as a float, or the axis.

    Raises
    ------
    ValueError
        If ``spec`` is a bool, None or of another type; a string that is empty or neither a number,
        a list nor a range; a mapping other than one ``log`` or ``linear`` range; a range without
        three numbers, with ``num`` not an integer >= 1 (or above 10^8 values), or a log range with
        start or stop <= 0; a list of non-numbers or one not strictly monotone; an integer a double
        does not hold exactly.

    Examples
    --------
    >>> from hockeystick.sweep import parse_value
    >>> parse_value("sigma", "1.5")
    1.5
    >>> parse_value("sigma", "log:1:100:3")
    Axis(name='sigma', values=array([  1.,  10., 100.]), kind='log')
    >>> parse_value("rounds", "1,2,4").values
    array([1., 2., 4.])
    """
    if isinstance(spec, Axis):
        return spec
    if isinstance(spec, bool):
        raise ValueError(f"{name}: expected a number, a list or a range, got {spec!r}")
    if isinstance(spec, (int, float, np.integer, np.floating)):
        return float(_exact(name, spec))
    if isinstance(spec, str):
        return _parse_string(name, spec.strip())
    if isinstance(spec, Mapping):
        if len(spec) != 1 or next(iter(spec)) not in ("log", "linear"):
            raise ValueError(
                f"{name}: a range is {{log = [start, stop, num]}} or {{linear = [start, stop, num]}}, "
                f"got {dict(spec)!r}"
            )
        kind, args = next(iter(spec.items()))
        return _range(name, kind, args)
    if isinstance(spec, (Sequence, np.ndarray)):
        for item in spec:
            _exact(name, item)
        try:
            values = np.asarray(spec, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"{name}: list values must be numbers, got {spec!r}") from None
        return Axis(name, values, "list")
    raise ValueError(f"{name}: expected a number, a list or a range, got {spec!r}")


def _parse_string(name: str, text: str) -> Axis | float:
    head, sep, rest = text.partition(":")
    if sep and head in ("log", "linear", "lin"):
        parts = rest.split(":")
        return _range(name, "linear" if head == "lin" else head, parts)
    if not text:
        raise ValueError(
            f"{name}: the value is empty; give a number (1.5), a list (1,2,4) or a range (log:0.5:20:100)"
        )
    items = text.split(",")
    if not all(item.strip() for item in items):
        raise ValueError(
            f"{name}={text!r}: a list has a number between every two commas (1,2,4); remove the empty item"
        )
    try:
        values = [float(item) for item in items]
    except ValueError:
        raise ValueError(
            f"{name}={text!r}: give a number (1.5), a list (1,2,4) or a range (log:0.5:20:100, linear:1:1000:50)"
        ) from None
    if len(values) > 1:
        return Axis(name, np.array(values), "list")
    return values[0]


def _range(name: str, kind: str, args: Any) -> Axis:
    for item in args if isinstance(args, Sequence) else ():
        _exact(name, item)
    try:
        start, stop, num = (float(a) for a in args)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name}: a {kind} range is [start, stop, num] with three numbers, got {args!r}"
        ) from None
    return (
        Axis.log(name, start, stop, num) if kind == "log" else Axis.linear(name, start, stop, num)
    )


@dataclass(frozen=True)
class Chunk:
    r"""A block of a grid's points: rows [row_start, row_stop) of axis ``split`` at ``outer``.

    Every chunk is a contiguous run of points, [start, stop) in grid order, that is also a
    rectangle: with the grid's shape :math:`(n_0, \dots, n_{k-1})` (C order, the last axis fastest),
    it holds the points whose indices on the axes before ``split`` are ``outer``, whose index on
    axis ``split`` lies in [row_start, row_stop), and every index on the later axes, so

    .. math::

        \mathrm{start} = (o \, n_s + r_0) \prod_{j > s} n_j, \qquad
        \mathrm{stop} - \mathrm{start} = (r_1 - r_0) \prod_{j > s} n_j,

    with :math:`s` = ``split``, :math:`r_0, r_1` = ``row_start``, ``row_stop`` and :math:`o` the
    flat index of ``outer`` over the axes before :math:`s`.  ``Grid.chunk`` and ``Grid.chunks`` make
    them.

    Parameters
    ----------
    index : int
        The chunk's position among the grid's chunks (0, 1, ...), in grid order.
    start : int
        The flat grid index of its first point.
    stop : int
        One past the flat grid index of its last point.
    split : int
        The axis the chunk cuts into rows (0 for a grid without axes).
    outer : tuple of int
        The chunk's index on each axis before ``split`` (empty when ``split`` is 0).
    row_start : int
        Its first row (index) on axis ``split``.
    row_stop : int
        One past its last row on axis ``split``.

    Examples
    --------
    >>> from hockeystick.sweep import Grid
    >>> grid = Grid.from_parameters("gaussian", "delta", {"sigma": [1, 2, 4], "rounds": 10, "epsilon": [0.5, 1]})
    >>> grid.chunk(1, 4)
    Chunk(index=1, start=4, stop=6, split=0, outer=(), row_start=2, row_stop=3)
    >>> grid.chunk(1, 4).size
    2
    """

    index: int
    start: int
    stop: int
    split: int
    outer: tuple[int, ...]
    row_start: int
    row_stop: int

    @property
    def size(self) -> int:
        return self.stop - self.start


@dataclass(frozen=True)
class Grid:
    """A sweep's specification: accountants evaluated at every point of a product of axes, one output each.

    The points are the Cartesian product of the axes in C order (the last axis varies fastest), the
    fixed parameters added at every point: ``shape`` is the axes' lengths and ``size`` their
    product. ``output`` is what each point gets: ``"delta"`` (each accountant's delta(epsilon),
    ``epsilon`` an axis or fixed), ``"epsilon"`` (epsilon(delta), ``delta`` given), or a parameter
    every accountant can calibrate (``"sigma"``, ``"rounds"``, ...: its extreme value meeting the
    targets ``epsilon`` and ``delta``, as ``hockeystick.calibrate`` finds it).  A grid of
    calculators (``registry.CalculatorEntry``) outputs their common quantity (``"tv"``) or a
    parameter each of them solves for.  The output columns are ``outputs``: ``<output>`` for one
    accountant; for several, one column ``<output>_<accountant>`` each and, for accountants (bounds,
    not calculators), ``<output>`` holding the best valid value at each point (the smallest; the
    largest for a parameter calibrated "increasing", such as rounds) and ``best``, the index of the
    accountant that gave it.  Build one with ``Grid.from_parameters`` or ``Grid.from_dict`` (a sweep
    file's layout, ``load_toml``).

    Parameters
    ----------
    accountants : str or sequence of str
        Registered accountant or calculator names (``hockeystick.registry.names()``), distinct, at
        least one; stored as a tuple.  Accountants and calculators are not mixed in one grid.
    output : str
        ``"delta"``, ``"epsilon"``, a parameter every accountant calibrates, or (calculators) their
        quantity or a parameter each solves for.
    axes : tuple of Axis, optional
        The axes, in grid order (none: one point).  An axis of an integer parameter (rounds, say)
        must list integers; its range's values are rounded and repeats dropped.
    fixed : mapping of str to float, optional
        The parameters held at one value: finite real numbers, ``delta`` strictly between 0 and 1,
        ``epsilon`` >= 0 (+inf allowed); integers where the parameter takes integers.
    bound : {"upper", "lower", "both"}, optional
        The side of each accountant's certified bracket: "upper" (the default: column ``<output>``,
        never below the true value), "lower" (column ``<output>_lower``, never above it) or "both"
        (columns ``<output>_lower`` and ``<output>_upper``).  Other than "upper" it takes one
        accountant and no calculator.

    Raises
    ------
    TypeError
        If ``accountants`` is not a name or a sequence of names, ``output`` is not a string, or a
        fixed value is not a real number (``ParameterTypeError``, a TypeError, for a fixed
        ``epsilon`` or ``delta`` that is a string, a bool or None).
    ValueError
        If no accountant is given, one is listed twice or is not registered; a parameter is given
        twice (as an axis and fixed, say), or is given where it is the output; the output needs a
        target or an accountant a parameter that is not given; a parameter is one no accountant
        takes; the output is neither delta, epsilon nor a parameter every accountant calibrates;
        accountants and calculators are mixed; a fixed value is not finite or a target is out of its
        range; an integer parameter gets a non-integer or a magnitude above 2^53; ``bound`` is none
        of the three, or other than "upper" with several accountants or calculators; the grid has
        more than 2^62 points.

    See Also
    --------
    run_sweep : Evaluate a grid.
    parse_value : The value specifications ``from_parameters`` reads.

    Examples
    --------
    >>> from hockeystick.sweep import Grid
    >>> grid = Grid.from_parameters("gaussian", "delta", {"sigma": [1, 2, 4], "rounds": 10, "epsilon": "log:0.1:10:5"})
    >>> grid.shape, grid.size, grid.outputs, grid.fixed
    ((3, 5), 15, ('delta',), {'rounds': 10.0})
    >>> Grid.from_parameters("gaussian", "sigma", {"rounds": [1, 10], "epsilon": 1, "delta": 1e-5}).outputs
    ('sigma',)
    """

    accountants: tuple[str, ...]
    output: str
    axes: tuple[Axis, ...] = ()
    fixed: Mapping[str, float] = field(default_factory=dict)
    bound: Bound = "upper"

    def __post_init__(self) -> None:
        accountants = _accountant_names(self.accountants, self.output)
        entries = [registry.lookup(a) for a in accountants]
        object.__setattr__(self, "accountants", accountants)
        object.__setattr__(self, "fixed", {k: _finite(k, v) for k, v in dict(self.fixed).items()})
        names = [a.name for a in self.axes] + list(self.fixed)
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"parameter(s) given twice: {', '.join(repeated)}")
        _check_output(self.output, entries, set(names))
        _check_bound(self.bound, self.output, accountants)
        if self.bound != "upper" and any(isinstance(e, CalculatorEntry) for e in entries):
            raise ValueError(
                f"bound={self.bound!r} picks a side of an accountant's certified bracket; calculators "
                "compute values, not brackets: leave bound at 'upper'"
            )
        object.__setattr__(self, "axes", tuple(_integral_axis(a, entries) for a in self.axes))
        _check_fixed_integers(self.fixed, entries)
        if self.size > MAX_POINTS:
            raise ValueError(
                f"the grid has {self.size:.3g} points ({' x '.join(map(str, self.shape))}), "
                f"more than a sweep can index ({MAX_POINTS:.3g}); use fewer values per axis"
            )

    # --- construction ---------------------------------------------------------------------

    @classmethod
    def from_parameters(
        cls,
        accountants: str | Sequence[str],
        output: str,
        parameters: Mapping[str, Any],
        bound: Bound = "upper",
    ) -> Grid:
        """Build from {name: value specification}; numbers are fixed, the rest are axes (in order)."""
        axes, fixed = [], {}
        for name, spec in parameters.items():
            value = parse_value(name, spec)
            if isinstance(value, Axis):
                axes.append(value if value.name == name else Axis(name, value.values, value.kind))
            else:
                fixed[name] = value
        return cls(
            accountants=(accountants,) if isinstance(accountants, str) else tuple(accountants),
            output=output,
            axes=tuple(axes),
            fixed=fixed,
            bound=bound,
        )

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any]) -> Grid:
        """From the TOML layout: accountant(s), output, [parameters]."""
        known = {"accountant", "accountants", "output", "parameters", "chunk_size", "bound"}
        extra = sorted(set(spec) - known)
        if extra:
            raise ValueError(
                f"unknown key(s) {', '.join(extra)}; a sweep file has {', '.join(sorted(known))}"
            )
        accountants = spec.get("accountants", spec.get("accountant"))
        if accountants is None:
            raise ValueError('say which accountant(s): accountants = ["gaussian"]')
        if not (
            isinstance(accountants, str)
            or (isinstance(accountants, Sequence) and all(isinstance(a, str) for a in accountants))
        ):
            raise TypeError(
                f'accountants must be a name or a list of names such as ["gaussian"], got {accountants!r}'
            )
        if "output" not in spec:
            raise ValueError(
                'say what to compute: output = "delta" (or "epsilon", or "sigma" to calibrate)'
            )
        if not isinstance(spec["output"], str):
            raise TypeError(
                f'output must be a string such as "delta", "epsilon" or "sigma", got {spec["output"]!r}'
            )
        parameters = spec.get("parameters", {})
        if not isinstance(parameters, Mapping):
            raise TypeError(f"[parameters] must be a table of name = value, got {parameters!r}")
        chunk_size_setting(spec)
        return cls.from_parameters(
            accountants, spec["output"], parameters, spec.get("bound", "upper")
        )

    # --- shape ----------------------------------------------------------------------------

    @property
    def entries(self) -> list[AccountantEntry | CalculatorEntry]:
        return [registry.lookup(a) for a in self.accountants]

    @property
    def calculators(self) -> bool:
        """True for a grid of calculators (one column each, no best-of)."""
        return isinstance(self.entries[0], CalculatorEntry)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(len(a) for a in self.axes)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def inputs(self) -> tuple[str, ...]:
        """Column names of the axes, in grid order."""
        return tuple(a.name for a in self.axes)

    @property
    def outputs(self) -> tuple[str, ...]:
        """Output column names: one per accountant, plus best-of and its source for several; the
        lower side ``<output>_lower`` and, for both sides, ``<output>_upper``."""
        if self.bound != "upper":
            return (f"{self.output}_lower",) + (
                (f"{self.output}_upper",) if self.bound == "both" else ()
            )
        if len(self.accountants) == 1:
            return (self.output,)
        per_entry = tuple(f"{self.output}_{a}" for a in self.accountants)
        return per_entry if self.calculators else per_entry + (self.output,)

    @property
    def has_best(self) -> bool:
        """True when the outputs end with a best-of column and a ``best`` column naming its source
        (several accountants; never for calculators, which are values, not bounds)."""
        return len(self.accountants) > 1 and not self.calculators

    @property
    def best_is_max(self) -> bool:
        """True when a larger output is better (rounds, sampling rate): calibrated 'increasing' parameters."""
        entry = self.entries[0]
        if isinstance(entry, CalculatorEntry):
            return False
        spec = entry.calibratable.get(self.output)
        return spec is not None and spec.direction == "increasing"

    # --- chunks ---------------------------------------------------------------------------

    def chunk_layout(self, chunk_size: int) -> tuple[int, int, int]:
        """(split axis, rows per chunk along it, points per row) for chunks of <= chunk_size points."""
        if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)):
            raise TypeError(f"chunk_size must be an integer number of points, got {chunk_size!r}")
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
        shape = self.shape
        if not shape:
            return 0, 1, 1
        split = next(j for j in range(len(shape)) if math.prod(shape[j + 1 :]) <= chunk_size)
        row = math.prod(shape[split + 1 :])
        return split, max(1, min(shape[split], int(chunk_size) // row)), row

    def n_chunks(self, chunk_size: int) -> int:
        if not self.shape:
            return 1
        split, rows, _ = self.chunk_layout(chunk_size)
        return math.prod(self.shape[:split]) * -(-self.shape[split] // rows)

    def chunk(self, index: int, chunk_size: int) -> Chunk:
        """The ``index``-th chunk (chunks tile the grid in order)."""
        if not self.shape:
            return Chunk(index, 0, 1, 0, (), 0, 1)
        split, rows, row = self.chunk_layout(chunk_size)
        n = self.shape[split]
        per_outer = -(-n // rows)
        outer_flat, block = divmod(index, per_outer)
        outer = (
            tuple(int(i) for i in np.unravel_index(outer_flat, self.shape[:split])) if split else ()
        )
        s, e = block * rows, min(block * rows + rows, n)
        start = (outer_flat * n + s) * row
        return Chunk(index, start, start + (e - s) * row, split, outer, s, e)

    def chunks(self, chunk_size: int) -> Iterator[Chunk]:
        for i in range(self.n_chunks(chunk_size)):
            yield self.chunk(i, chunk_size)

    def block_shape(self, chunk: Chunk) -> tuple[int, ...]:
        if not self.shape:
            return ()
        return (chunk.row_stop - chunk.row_start,) + self.shape[chunk.split + 1 :]

    def chunk_parameters(self, chunk: Chunk) -> dict[str, Any]:
        """Every parameter at the chunk's points, as arrays broadcastable to ``block_shape``."""
        params: dict[str, Any] = dict(self.fixed)
        if not self.axes:
            return params
        tail = len(self.axes) - chunk.split
        for k, axis in enumerate(self.axes):
            if k < chunk.split:
                params[axis.name] = axis.values[chunk.outer[k]]
            else:
                shape = [1] * tail
                shape[k - chunk.split] = -1
                values = (
                    axis.values[chunk.row_start : chunk.row_stop]
                    if k == chunk.split
                    else axis.values
                )
                params[axis.name] = values.reshape(shape)
        return params

    def chunk_inputs(self, chunk: Chunk) -> dict[str, np.ndarray]:
        """The axis columns of a chunk, flat (what a table row holds besides the outputs)."""
        shape = self.block_shape(chunk)
        params = self.chunk_parameters(chunk)
        return {a.name: np.broadcast_to(params[a.name], shape).ravel() for a in self.axes}

    def chunk_grid(self, chunk: Chunk) -> Grid:
        """The chunk as a grid of its own, small enough to send by value: the axes before the split
        fixed at the chunk's values, the split axis cut to its rows, the later axes whole.  Its
        single chunk ``chunk_grid(c).chunk(0, c.size)`` has the same block and parameters as
        ``c``."""
        if not self.axes:
            return self
        fixed = dict(self.fixed)
        fixed.update(
            {a.name: float(a.values[i]) for a, i in zip(self.axes[: chunk.split], chunk.outer)}
        )
        split = self.axes[chunk.split]
        axes = (
            Axis(split.name, split.values[chunk.row_start : chunk.row_stop], split.kind),
        ) + self.axes[chunk.split + 1 :]
        return Grid(
            accountants=self.accountants,
            output=self.output,
            axes=axes,
            fixed=fixed,
            bound=self.bound,
        )

    def probe_parameters(self) -> dict[str, np.ndarray]:
        """A few hundred points that exercise every value's extremes: each axis's whole list at
        the other axes' first values, plus every corner (first/last value of each axis)."""
        columns: dict[str, list[np.ndarray]] = {a.name: [] for a in self.axes}
        for k, axis in enumerate(self.axes):
            for j, other in enumerate(self.axes):
                columns[other.name].append(
                    axis.values if j == k else np.full(len(axis), other.values[0])
                )
        ends = [np.array([a.values[0], a.values[-1]]) for a in self.axes[:12]]
        if ends:
            corners = np.stack(np.meshgrid(*ends, indexing="ij"), -1).reshape(-1, len(ends))
            for k, axis in enumerate(self.axes):
                columns[axis.name].append(
                    corners[:, k] if k < len(ends) else np.full(len(corners), axis.values[0])
                )
        probe: dict[str, Any] = {name: np.concatenate(parts) for name, parts in columns.items()}
        probe.update(self.fixed)
        return probe


def _accountant_names(accountants: Any, output: Any) -> tuple[str, ...]:
    """A grid's accountants as a tuple of distinct names (one name stands for itself), its output a string."""
    names = (accountants,) if isinstance(accountants, str) else accountants
    if not isinstance(names, Sequence) or not all(isinstance(a, str) for a in names):
        raise TypeError(f"accountants must be a name or a sequence of names, got {accountants!r}")
    if not isinstance(output, str):
        raise TypeError(
            f"output must be a string (delta, epsilon or a parameter to calibrate), got {output!r}"
        )
    names = tuple(names)
    if not names:
        raise ValueError("give at least one accountant; registered: " + ", ".join(registry.names()))
    if len(set(names)) != len(names):
        raise ValueError(f"accountants are listed twice: {', '.join(names)}")
    return names


def _check_fixed_integers(
    fixed: Mapping[str, float], entries: list[AccountantEntry | CalculatorEntry]
) -> None:
    """A fixed value of an integer parameter is an integer an int64 and a double both hold exactly."""
    for name, value in fixed.items():
        if any(name in e.integers for e in entries):
            if not value.is_integer():
                raise ValueError(f"{name} takes integers, got {value:g}")
            _integer_range(name, np.array([value]))


def _finite(name: str, value: Any) -> float:
    """A fixed parameter: a finite real number; the targets by the rule of every entry point
    (``_validation``: delta strictly between 0 and 1, epsilon >= 0 with +inf allowed, delta(inf) =
    0)."""
    if name == "delta":
        return _validation.delta_target(value, name)
    if name == "epsilon":
        return _validation.epsilon_target(value, name)
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}; give a finite number")
    return float(value)


def _check_output(
    output: str, entries: list[AccountantEntry | CalculatorEntry], given: set[str]
) -> None:
    names = ", ".join(e.name for e in entries)
    calculators = [e for e in entries if isinstance(e, CalculatorEntry)]
    if calculators:
        if len(calculators) != len(entries):
            raise ValueError(
                f"a sweep evaluates accountants or calculators, not both ({names}): run one sweep for each"
            )
        return _check_calculator_output(output, calculators, given)
    forbidden, targets = _output_targets(output, cast(list[AccountantEntry], entries), names)
    if forbidden in given:
        raise ValueError(
            f"{forbidden!r} is what the sweep computes (output = {output!r}); do not give it a value"
        )
    missing = sorted(targets - given)
    if missing:
        raise ValueError(
            f"output {output!r} needs {' and '.join(missing)}: give a value or an axis for it"
        )
    _check_known_parameters(
        given, set().union(*(e.parameters for e in entries)) | targets, output, names
    )
    for e in entries:
        lacking = sorted(set(e.required) - given - {output})
        if lacking:
            raise ValueError(f"accountant {e.name!r} needs {', '.join(map(repr, lacking))}")


def _output_targets(
    output: str, accountants: list[AccountantEntry], names: str
) -> tuple[str, set[str]]:
    """(the parameter the sweep computes and must not be given, the targets it needs): delta needs
    epsilon, epsilon needs delta, a parameter every accountant calibrates needs both."""
    if output in ("delta", "epsilon"):
        needs, forbidden = {"delta": ("epsilon", "delta"), "epsilon": ("delta", "epsilon")}[output]
        return forbidden, {needs}
    cannot = [e.name for e in accountants if output not in e.calibratable]
    if cannot:
        options = sorted(set.intersection(*(set(e.calibratable) for e in accountants)))
        close = difflib.get_close_matches(output, options + ["delta", "epsilon"], n=1, cutoff=0.6)
        raise ValueError(
            f"output must be delta, epsilon or a parameter to calibrate "
            f"({', '.join(options) or 'none in common'} for {names}); got {output!r}"
            + (f" (did you mean {close[0]!r}?)" if close else "")
        )
    return output, {"epsilon", "delta"}


def _check_known_parameters(given: set[str], allowed: set[str], output: str, names: str) -> None:
    """Every parameter given is one an accountant takes (or a target), a misspelt one named with the closest."""
    unknown = sorted(given - allowed)
    if unknown:
        nearest = {
            u: difflib.get_close_matches(u, sorted(allowed - {output}), n=1, cutoff=0.6)
            for u in unknown
        }
        hints = "".join(f" (did you mean {c[0]!r} for {u!r}?)" for u, c in nearest.items() if c)
        raise ValueError(
            f"unknown parameter(s) {', '.join(map(repr, unknown))} for {names}{hints}; "
            f"allowed: {', '.join(sorted(allowed - {output}))}"
        )


def _check_calculator_output(output: str, entries: list[CalculatorEntry], given: set[str]) -> None:
    """A calculator grid outputs the calculators' common quantity, or a parameter each can solve for."""
    names = ", ".join(e.name for e in entries)
    takes, needs = _calculator_parameters(output, entries, names)
    if output in given:
        raise ValueError(
            f"{output!r} is what the sweep computes (output = {output!r}); do not give it a value"
        )
    allowed = set().union(*takes)
    unknown = sorted(given - allowed)
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {', '.join(map(repr, unknown))} for {names} -> {output}; "
            f"allowed: {', '.join(sorted(allowed))}"
        )
    for e, required in needs:
        lacking = sorted(required - given)
        if lacking:
            raise ValueError(
                f"calculator {e.name!r} needs {', '.join(map(repr, lacking))} for output {output!r}"
            )


def _calculator_parameters(
    output: str, entries: list[CalculatorEntry], names: str
) -> tuple[list[set[str]], list[tuple[CalculatorEntry, set[str]]]]:
    """(the parameters each calculator takes, each one's required parameters) for ``output``: their
    common quantity, or a parameter every one of them solves for."""
    quantities = sorted({e.quantity for e in entries})
    if len(quantities) > 1:
        raise ValueError(
            f"{names} compute different quantities ({', '.join(quantities)}): a sweep's calculators share one quantity"
        )
    quantity = quantities[0]
    if output == quantity:
        return [set(e.parameters) for e in entries], [(e, set(e.required)) for e in entries]
    if all(output in e.inverses for e in entries):
        return (
            [set(e.inverse_parameters(output)) for e in entries],
            [(e, set(e.inverse_parameters(output))) for e in entries],
        )
    solvable = sorted(set.intersection(*(set(e.inverses) for e in entries)))
    raise ValueError(
        f"output must be {quantity!r}"
        + (f" or a parameter to solve for ({', '.join(solvable)})" if solvable else "")
        + f" for {names}; got {output!r}"
    )


def _check_bound(bound: Any, output: str, accountants: Sequence[str]) -> None:
    if not isinstance(bound, str) or bound not in BOUND_SIDES:
        raise ValueError(f"bound must be one of {', '.join(BOUND_SIDES)}, got {bound!r}")
    if bound == "upper":
        return
    if len(accountants) > 1:
        raise ValueError(
            f"bound={bound!r} takes one accountant (lower bounds of different accountants may "
            f"bound different releases), got {', '.join(accountants)}; run one sweep per accountant"
        )


def _integral_axis(axis: Axis, entries: list[AccountantEntry | CalculatorEntry]) -> Axis:
    """Integer parameters: ranges are rounded (repeats dropped); listed values must be integers."""
    if not any(axis.name in e.integers for e in entries):
        return axis
    rounded = np.round(axis.values)
    if axis.kind == "list":
        if not np.array_equal(rounded, axis.values):
            raise ValueError(f"{axis.name} takes integers, got {_preview(axis.values)}")
    else:
        keep = np.concatenate([[True], np.diff(rounded) != 0])
        rounded = rounded[keep]
    _integer_range(axis.name, rounded)
    return Axis(axis.name, rounded.astype(np.int64), axis.kind)


def _integer_range(name: str, values: np.ndarray) -> None:
    """Integer parameters are written as 64-bit integers and given to the accountants as doubles:
    both exact up to 2^53 in magnitude (beyond 2^63 a cast to int64 wraps: 1e20 becomes
    -9223372036854775808)."""
    if (np.abs(values) > MAX_INTEGER).any():
        raise ValueError(
            f"{name} takes integers of magnitude at most 2^53 = {MAX_INTEGER:,}, got "
            f"{_preview(values[np.abs(values) > MAX_INTEGER])}"
        )


def read_toml(path: str | os.PathLike[str], what: str = "sweep file") -> dict[str, Any]:
    """The raw contents of a sweep file (accountants, output, [parameters], chunk_size)."""
    # lazy: start-up time; only a sweep file is TOML
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise ValueError(f"cannot read {what} {os.fspath(path)!r}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{what} {os.fspath(path)!r} is not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{what} {os.fspath(path)!r} is not UTF-8 text (byte {exc.start}); save it as UTF-8 TOML"
        ) from None


def chunk_size_setting(spec: Mapping[str, Any]) -> int | None:
    """A sweep file's ``chunk_size``: an integer >= 1 (TOML 1.5 or "10" is refused, not truncated), or None."""
    value = spec.get("chunk_size")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(
            f"chunk_size must be an integer number of points such as 100000, got {value!r}"
        )
    if value < 1:
        raise ValueError(f"chunk_size must be >= 1, got {value}")
    return value


def load_toml(path: str | os.PathLike[str]) -> tuple[Grid, dict[str, Any]]:
    """Read a sweep file (TOML) into a Grid and the file's other settings.

    The file holds ``accountants`` (or ``accountant``), ``output``, an optional ``bound``, an
    optional ``chunk_size`` and a ``[parameters]`` table of name = value specification
    (``parse_value``: numbers are fixed, lists and ranges are axes, in the file's order).

    Parameters
    ----------
    path : str or os.PathLike
        The sweep file, UTF-8 TOML.

    Returns
    -------
    grid : Grid
        The grid the file specifies (``Grid.from_dict``).
    settings : dict
        ``{"chunk_size": n}`` where the file sets it, else empty.

    Raises
    ------
    ValueError
        If the file cannot be read, is not UTF-8 or not valid TOML, has a key other than those
        above, or lacks the accountants or the output; any error of ``Grid`` and ``parse_value``;
        ``chunk_size`` < 1.
    TypeError
        If ``accountants``, ``output`` or ``[parameters]`` is of the wrong type, or ``chunk_size``
        is not an integer.

    Examples
    --------
    >>> import os, tempfile
    >>> from hockeystick.sweep import load_toml
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "sweep.toml")
    ...     with open(path, "w") as f:
    ...         _ = f.write('accountants = ["gaussian"]\\noutput = "delta"\\nchunk_size = 1000\\n'
    ...                     '[parameters]\\nsigma = "log:0.5:20:10"\\nrounds = [1, 10]\\nepsilon = 1.0\\n')
    ...     grid, settings = load_toml(path)
    >>> grid.shape, settings
    ((10, 2), {'chunk_size': 1000})
    """
    spec = read_toml(path)
    grid = Grid.from_dict(spec)
    chunk_size = chunk_size_setting(spec)
    return grid, {} if chunk_size is None else {"chunk_size": chunk_size}
