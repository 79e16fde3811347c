"""Which picture of a sweep to draw: the kind (curves or a heat map), the axis across, the second
axis (the curves' hue or the heat map's vertical), the facet, and the value every other axis is held
at.

The choice is a table: a rule per kind names its axes (``_AXES_OF``), the natural kind is the first
rule of ``_NATURAL_KIND`` that holds, the natural x of curves the first axis of ``_CURVES_ACROSS``
the sweep has; a request that contradicts itself is refused by the first rule of ``_CONFLICTS`` it
meets.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .canvas import MAX_CURVES
from .scales import positive

__all__ = ["Picture", "choose_picture", "Choice", "thin_index", "KINDS"]

HEATMAP_POINTS = 200  # a heat map's axis keeps at most this many values
MAX_FACETS = 6
KINDS = ("curves", "heatmap")
_PARTNER = {
    "delta": "epsilon",
    "epsilon": "delta",
}  # an output's natural x: the target it is a function of


@dataclass(frozen=True)
class Picture:
    """The picture of a sweep ``choose_picture`` chose: its kind, the axes it draws and where the others are held.

    Parameters
    ----------
    kind : {"curves", "heatmap"}
        "curves": the output against ``x``, one curve per value of ``second`` (the hue); "heatmap":
        the output as colours over ``x`` and ``second`` (the vertical axis).
    x : str
        The axis drawn across.
    second : str or None
        The curves' hue or the heat map's vertical axis; None: a single curve.
    facet : str or None
        An axis drawn as one panel per value, or None.
    held : dict of str to int
        Every axis not drawn, held at one value: its position (index) on the axis.
    requested : dict of str to float
        The values the caller sliced axes at (the held axes not in it sit at their middle value).

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.plots import choose_picture
    >>> sigma = np.geomspace(0.5, 20, 100)
    >>> picture = choose_picture("delta", {"sigma": sigma, "epsilon": np.linspace(0.1, 8, 50)}, slices={"sigma": 2})
    >>> picture
    Picture(kind='curves', x='epsilon', second=None, facet=None, held={'sigma': 37}, requested={'sigma': 2.0})
    >>> picture.describe_held("sigma", sigma)
    'sigma=1.98481 (nearest to 2, of 100 values, 0.5..20)'
    """

    kind: str
    x: str
    second: str | None
    facet: str | None
    held: dict[str, int]
    requested: dict[str, float]

    def counts(self, max_points: int) -> dict[str, int]:
        """How many values each drawn axis keeps (thinned evenly, both ends kept)."""
        counts = {self.x: min(max_points, HEATMAP_POINTS)}
        if self.second is not None:
            counts[self.second] = (
                MAX_CURVES if self.kind == "curves" else min(max_points, HEATMAP_POINTS)
            )
        if self.facet is not None:
            counts[self.facet] = MAX_FACETS
        return counts

    def describe_held(self, name: str, values: np.ndarray) -> str:
        """``name=value`` and where it sits on its axis: 'rounds=13 (middle of 11 values, 1..144)',
        'delta=1e-05 (of 1e-06, 1e-05)', 'rounds=100 (nearest to 50, of 1, 10, 100, 1000)'."""
        value = values[self.held[name]].item()
        span = (
            ", ".join(f"{v:g}" for v in values)
            if len(values) <= 4
            else f"{len(values)} values, {values[0]:g}..{values[-1]:g}"
        )
        if name not in self.requested:
            return f"{name}={value:g} (middle of {span})"
        asked = self.requested[name]
        nearest = "" if _same(value, asked) else f"nearest to {asked:g}, "
        return f"{name}={value:g} ({nearest}of {span})"


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0) or a == b


@dataclass(frozen=True)
class _Request:
    """A picture asked for, checked: the sweep's output, its axes (name -> values) and fixed
    parameters, the roles given (None: to be chosen) and the slices that hold an axis (slices of
    fixed parameters dropped)."""

    output: str
    axes: Mapping[str, np.ndarray]
    fixed: Mapping[str, Any]
    x: str | None
    y: str | None
    hue: str | None
    facet: str | None
    slices: dict[str, float]
    kind: str | None

    @property
    def names(self) -> list[str]:
        return [str(n) for n in self.axes]

    @property
    def free(self) -> list[str]:
        """The axes neither sliced nor the facet: the ones a picture may draw across or as its second axis."""
        return [n for n in self.names if n not in self.slices and n != self.facet]

    def length(self, name: str) -> int:
        return len(self.axes[name])

    @property
    def longest(self) -> list[str]:
        """The free axes, longest first (stable: ties keep the sweep's order)."""
        return sorted(self.free, key=lambda n: -self.length(n))

    def held(self, drawn: set[str | None]) -> dict[str, int]:
        """Every axis not drawn at its position: nearest the slice's value, or the middle."""
        return {
            n: _slice_index(n, self.axes[n], self.slices[n])
            if n in self.slices
            else len(self.axes[n]) // 2
            for n in self.names
            if n not in drawn
        }


# requests that contradict themselves: (the condition, the message refusing it), checked in order
_CONFLICTS: tuple[tuple[Callable[[_Request], bool], Callable[[_Request], str]], ...] = (
    (
        lambda r: r.y is not None and r.hue is not None,
        lambda r: "y names a heat map's vertical axis and hue the axis of curves: give one of them",
    ),
    (
        lambda r: r.kind == "curves" and r.y is not None,
        lambda r: (
            f"y={r.y!r} is a heat map's vertical axis; curves draw the output on y: use hue={r.y!r}"
        ),
    ),
    (
        lambda r: r.kind == "heatmap" and r.hue is not None,
        lambda r: f"hue={r.hue!r} draws curves; a heat map takes y={r.hue!r} for its vertical axis",
    ),
)


def _two_long_axes(r: _Request) -> bool:
    """delta or epsilon without its partner among the free axes, over two axes too long for one
    curve per value of either (more than ``MAX_CURVES`` values each): colours."""
    free = r.free
    return (
        r.output in _PARTNER
        and _PARTNER[r.output] not in free
        and len(free) >= 2
        and r.length(r.longest[1]) > MAX_CURVES
    )


# the natural kind: the first rule that holds (y given: a heat map; hue given: curves), else curves
_NATURAL_KIND: tuple[tuple[Callable[[_Request], bool], str], ...] = (
    (lambda r: r.y is not None, "heatmap"),
    (lambda r: r.hue is not None, "curves"),
    (_two_long_axes, "heatmap"),
)


def _natural_kind(request: _Request) -> str:
    return next((kind for holds, kind in _NATURAL_KIND if holds(request)), "curves")


def _heatmap_axes(r: _Request) -> tuple[str, str | None]:
    """A heat map's (x, vertical axis): the ones given, else the two longest free axes (the longest vertical)."""
    longest = r.longest
    across = r.x
    if across is None:
        across = (
            next((n for n in longest if n != r.y), None)
            if r.y is not None
            else next(iter(longest[1:2]), None)
        )
    second = r.y if r.y is not None else next((n for n in longest if n != across), None)
    if across is None or second is None:
        raise ValueError(
            f"a heat map needs two axes besides the facet and the slices; this sweep has {', '.join(r.names)}"
            + (f" (sliced: {', '.join(r.slices)})" if r.slices else "")
        )
    return across, second


def _curves_across(r: _Request) -> str:
    """The natural x of curves: the output's partner (epsilon for delta, delta for epsilon), else
    rounds, else the longest axis left (ties: the sweep's first)."""
    others = [n for n in r.free if n != r.hue]
    if not others:
        raise ValueError(
            f"nothing left for the x axis: every axis of the sweep ({', '.join(r.names)}) has another role"
        )
    preferred = next(
        (n for n in (_PARTNER.get(r.output), "rounds") if n is not None and n in others), None
    )
    return preferred if preferred is not None else max(others, key=r.length)


def _curve_axes(r: _Request) -> tuple[str, str | None]:
    """Curves' (x, hue): the ones given, else the natural x and the longest other free axis (or none)."""
    across = r.x if r.x is not None else _curves_across(r)
    second = r.hue if r.hue is not None else next((n for n in r.longest if n != across), None)
    return across, second


# the picture of each kind: the rule naming its two axes
_AXES_OF: dict[str, Callable[[_Request], tuple[str, str | None]]] = {
    "heatmap": _heatmap_axes,
    "curves": _curve_axes,
}


def choose_picture(
    output: str,
    axes: Mapping[str, np.ndarray],
    fixed: Mapping[str, Any] | None = None,
    *,
    x: str | None = None,
    y: str | None = None,
    hue: str | None = None,
    facet: str | None = None,
    slices: Mapping[str, float] | None = None,
    kind: str | None = None,
) -> Picture:
    """Choose the picture of a sweep: curves or a heat map, the axes drawn, and the value each other axis is held at.

    Every choice is optional; what is not chosen follows the natural picture:

    - output delta with an ``epsilon`` axis: delta-eps curves; output epsilon with a ``delta`` axis:
      epsilon against delta;
    - output delta or epsilon without that axis, over two axes (besides the facet and the slices) of
      more than 8 values each: a heat map of the two longest (the longest vertical);
    - otherwise curves: the output against rounds where it is an axis, else against the longest
      axis;
    - curves get one curve per value of the longest other axis (drawn at most 8, evenly thinned);
    - ``facet``: one panel per value of that axis (drawn at most 6); ``slices``: hold an axis at the
      value nearest to the one given; every axis left over is held at its middle value.

    The thinning to at most 8 curves, 6 panels and ``max_points`` values across is the drawing's
    (``plot_dataset``, ``plot_grid``); the picture names the axes.

    Parameters
    ----------
    output : str
        What the sweep computed: "delta", "epsilon" or a calibrated parameter ("sigma", ...).
    axes : mapping of str to numpy.ndarray
        The sweep's axes, name -> values, in the sweep's order (ties of length keep it).
    fixed : mapping of str to float, optional
        The sweep's fixed parameters (to refuse a role or slice naming one, and to drop a slice of
        one at its own value).
    x : str, optional
        The axis across.
    y : str, optional
        A heat map's vertical axis (implies ``kind="heatmap"``).
    hue : str, optional
        The axis of the curves, one per value (implies ``kind="curves"``).
    facet : str, optional
        An axis drawn as one panel per value.
    slices : mapping of str to float, optional
        Axes held at a value, name -> a finite number (the axis value nearest to it is taken:
        nearest in ratio on a positive axis).  A fixed parameter may be sliced at its own value.
    kind : {"curves", "heatmap"}, optional
        The kind of picture (None: the natural one).

    Returns
    -------
    Picture
        The kind, the axis across, the second axis, the facet, the positions of the held axes and
        the slices asked for.

    Raises
    ------
    ValueError
        If ``axes`` is empty; ``kind`` is neither "curves" nor "heatmap"; a role or slice names no
        axis (the message gives the closest name and the axes) or a fixed parameter (a slice of one
        at another value); an axis has two roles; ``y`` and ``hue`` are both given, ``y`` with
        ``kind="curves"`` or ``hue`` with ``kind="heatmap"``; a slice's value is not a finite
        number; a heat map lacks two free axes, or curves have no axis left for ``x``.
    TypeError
        If a role (``x``, ``y``, ``hue``, ``facet``, a slice's key) is not a string.

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.plots import choose_picture
    >>> axes = {"sigma": np.geomspace(0.5, 20, 100), "rounds": np.array([1, 10, 100, 1000]),
    ...         "epsilon": np.linspace(0.1, 8, 50)}
    >>> choose_picture("delta", axes)
    Picture(kind='curves', x='epsilon', second='sigma', facet=None, held={'rounds': 2}, requested={})
    >>> choose_picture("epsilon", {"sigma": axes["sigma"], "rounds": np.arange(1, 50)}, {"delta": 1e-5})
    Picture(kind='heatmap', x='rounds', second='sigma', facet=None, held={}, requested={})
    >>> choose_picture("delta", axes, x="sigmaa")
    Traceback (most recent call last):
    ...
    ValueError: x 'sigmaa' is not an axis of this sweep (did you mean 'sigma'?); its axes: sigma, rounds, epsilon
    """
    request = _checked_request(
        output, axes, dict(fixed or {}), x, y, hue, facet, dict(slices or {}), kind
    )
    chosen = request.kind if request.kind is not None else _natural_kind(request)
    across, second = _AXES_OF[chosen](request)
    held = request.held({across, second, facet})
    return Picture(
        chosen, across, second, facet, held, {n: float(v) for n, v in request.slices.items()}
    )


def _checked_request(
    output: str,
    axes: Mapping[str, np.ndarray],
    fixed: dict[str, Any],
    x: str | None,
    y: str | None,
    hue: str | None,
    facet: str | None,
    slices: dict[str, float],
    kind: str | None,
) -> _Request:
    """The request, refused where it names no axis, gives an axis two roles or contradicts itself."""
    names = [str(n) for n in axes]
    if not names:
        raise ValueError(
            "nothing to plot: the sweep has no axis (give a list or range for a parameter)"
        )
    if kind is not None and kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    slices = _slices_of_axes(slices, axes, fixed, names)
    _check_roles(
        [("x", x), ("y", y), ("hue", hue), ("facet", facet)] + [("slice", n) for n in slices],
        names,
        fixed,
    )
    request = _Request(output, axes, fixed, x, y, hue, facet, slices, kind)
    for contradicts, message in _CONFLICTS:
        if contradicts(request):
            raise ValueError(message(request))
    return request


def _slices_of_axes(
    slices: dict[str, float],
    axes: Mapping[str, np.ndarray],
    fixed: Mapping[str, Any],
    names: list[str],
) -> dict[str, float]:
    """The slices without those of fixed parameters at their own value (the sweep holds them there
    already); a fixed parameter sliced at another value is refused."""
    for name, value in list(slices.items()):
        if name in fixed and name not in axes:
            if not isinstance(value, (int, float)) or not _same(float(fixed[name]), float(value)):
                raise ValueError(
                    f"slice {name}={value}: {name} is fixed at {fixed[name]:g} in this sweep, not an axis; "
                    f"its axes: {', '.join(names)}"
                )
            del slices[name]
    return slices


def _check_roles(
    roles: list[tuple[str, str | None]], names: list[str], fixed: Mapping[str, Any]
) -> None:
    """Each role given names an axis of the sweep, and no axis has two roles."""
    taken: dict[str, str] = {}
    for role, given in roles:
        if given is None:
            continue
        _check_axis(role, given, names, fixed)
        if given in taken:
            raise ValueError(
                f"{given!r} is both the {taken[given]} and the {role}: give each axis one role"
            )
        taken[given] = role


def _check_axis(role: str, name: str, names: list[str], fixed: Mapping[str, Any]) -> None:
    if not isinstance(name, str):
        raise TypeError(
            f"{role} must be the name of an axis of the sweep ({', '.join(names)}), got {name!r}"
        )
    if name in names:
        return
    if name in fixed:
        value = fixed[name]
        shown = f"{value:g}" if isinstance(value, (int, float)) else repr(value)
        raise ValueError(
            f"{role} {name!r}: {name} is fixed at {shown} in this sweep, not an axis; its axes: {', '.join(names)}"
        )
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ValueError(
        f"{role} {name!r} is not an axis of this sweep{hint}; its axes: {', '.join(names)}"
    )


def _slice_index(name: str, values: np.ndarray, value: float) -> int:
    """The position of the axis value nearest to ``value`` (relative distance on a positive axis)."""
    if not isinstance(value, (int, float, np.integer, np.floating)) or not math.isfinite(value):
        raise ValueError(f"slice {name}={value!r}: give a finite number, one of the axis values")
    v = np.asarray(values, dtype=float)
    distance = np.abs(np.log(v / value)) if value > 0 and positive(v) else np.abs(v - value)
    return int(np.argmin(distance))


def thin_index(n: int, count: int) -> np.ndarray:
    """The positions of at most ``count`` of ``n`` values, evenly spread, always keeping both ends."""
    return (
        np.arange(n) if n <= count else np.unique(np.linspace(0, n - 1, count).round().astype(int))
    )


@dataclass(frozen=True)
class Choice:
    """The picture ``plot_grid`` and ``plot_dataset`` are asked for alike: the drawn axes (``x``,
    ``y``, ``hue``, ``facet``), the values held axes are sliced at, the kind (``choose_picture``'s
    keywords), and at most ``max_points`` values per drawn axis."""

    x: str | None
    y: str | None
    hue: str | None
    facet: str | None
    slices: Mapping[str, float] | None
    kind: str | None
    max_points: int

    def picture(
        self, output: str, axes: Mapping[str, np.ndarray], fixed: Mapping[str, Any]
    ) -> tuple[Picture, dict[str, int]]:
        """The picture of ``output`` over ``axes`` (``choose_picture``) and how many values each drawn axis keeps."""
        picture = choose_picture(
            output,
            axes,
            fixed,
            x=self.x,
            y=self.y,
            hue=self.hue,
            facet=self.facet,
            slices=self.slices,
            kind=self.kind,
        )
        return picture, picture.counts(self.max_points)
