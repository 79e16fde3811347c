"""A privacy-loss distribution with certified two-sided bounds, composed lazily.

A ``PrivacyLossDistribution`` is a multiset of discretized factors (each a
pessimistic and an optimistic grid PMF of one mechanism) per neighbouring
direction.  Composition only merges multisets and multiplies counts; the FFT
runs once, at the first ``delta``/``epsilon`` call, over the distinct factors
(``compose.compose``), so T rounds of one mechanism cost one forward transform.

Directions.  For subsampled mechanisms the remove and the add neighbour give
different PLDs.  A run has one pair of neighbouring datasets, so its delta is
the larger of the all-remove and the all-add compositions (Zhu, Dong, Wang,
AISTATS 2022, Sec. 5); both are kept and the maximum is reported, for the
upper and the lower bound alike.  Symmetric mechanisms have one direction,
which broadcasts against two.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, cast

import numpy as np

from ... import _core
from ...base import validation as _validation
from ...base.accountant import Quantity
from ...base.accountant_docs import accountant_docs
from ...base.elementwise import ArrayLike
from ...base.keyword_only import positional_deprecated
from .pmf import GridPMF
from .tail import DEFAULT_TAIL

Bound = Literal["upper", "lower", "both"]
Result = float | np.ndarray | tuple[Any, Any]


def epsilon_values(epsilon: ArrayLike) -> np.ndarray:
    """epsilon as float64, or a ValueError if any is negative or NaN (``_validation.epsilon_values``)."""
    return _validation.epsilon_values(epsilon)


def evaluate_into(
    dist: PrivacyLossDistribution,
    method: Quantity,
    x: np.ndarray,
    bound: Bound,
    lower: np.ndarray,
    upper: np.ndarray,
    where: np.ndarray,
) -> None:
    """lower[where], upper[where] = dist.<method>(x[where]) on the sides ``bound`` asks for, ``x``
    already validated by the caller (``epsilon_values`` or ``delta_values``): not again for every
    point of a grid."""
    sides: tuple[tuple[Bound, np.ndarray], ...] = (("upper", upper), ("lower", lower))
    for side, out in sides:
        if bound in (side, "both"):
            out[where] = dist._sides(x[where], method, False, side)


def bound_result(lower: np.ndarray, upper: np.ndarray, bound: Bound, scalar: bool) -> Result:
    """The side(s) ``bound`` asks for: one array (or float), or (lower, upper) for "both"."""
    pick = {"upper": (upper,), "lower": (lower,), "both": (lower, upper)}[bound]
    out: tuple[Any, ...] = tuple(float(v) if scalar else v for v in pick)
    return out if bound == "both" else out[0]


def delta_values(delta: ArrayLike) -> np.ndarray:
    """delta as float64, or a ValueError unless every value lies in (0, 1) (``_validation.delta_values``)."""
    return _validation.delta_values(delta)


@dataclass(frozen=True)
class Source:
    """The mechanism a factor discretizes, kept so that a question can read it again on grids and
    tails of its own (``install_question_reader``): one round of the registered mechanism ``spec``
    (its name and parameters, ``Mechanism.spec``; ``mechanisms.registry.mechanism_of`` builds it),
    and the direction of its pair the factor holds: "remove" or "add" (the first or second of a
    pair of two directions, ``mechanism.two_directions``), or "symmetric" (its one direction)."""

    spec: tuple[Any, ...]
    direction: str


@dataclass(frozen=True, eq=False)
class Factor:
    """One mechanism's PLD on the grid: pessimistic and optimistic PMFs (None: not computed)."""

    name: str
    upper: GridPMF
    lower: GridPMF | None
    connect_dots: bool
    # Optional lower sides of blocks of rounds: lower_blocks[j] bounds 2^j rounds from below
    # (pld/compose/two_resolution.py); when set, a count c composes them by the binary digits of c
    # (``lower_terms``) instead of c copies of ``lower``.
    lower_blocks: tuple[GridPMF, ...] | None = None
    # The mechanism discretized, where a constructor knows it (None: the PMFs are all there is).
    source: Source | None = None

    def lower_terms(self, count: int) -> list[tuple[GridPMF | None, int]]:
        """The (PMF, count) pairs whose composition bounds ``count`` rounds of this factor from
        below: (lower, count), or with ``lower_blocks`` (J + 1 of them) the top block c >> J times
        and block j once for each binary digit j < J of c (the rounds add up to c exactly)."""
        if self.lower_blocks is None:
            return [(self.lower, count)]
        top = len(self.lower_blocks) - 1
        terms: list[tuple[GridPMF | None, int]] = (
            [(self.lower_blocks[top], count >> top)] if count >> top else []
        )
        return terms + [(self.lower_blocks[j], 1) for j in range(top) if count >> j & 1]


@accountant_docs()  # completes delta / epsilon docstrings with the contract's sections
@dataclass
class PrivacyLossDistribution:
    r"""Discretized privacy-loss distribution of a mechanism with certified upper and lower bounds on delta(eps).

    Each neighbouring direction holds a multiset of factors, one mechanism's discretized PLD each,
    with a pessimistic grid PMF (its delta(eps) bounds the mechanism's from above, also after
    composition) and an optimistic one (a bound from below).  ``compose`` and ``self_compose`` only
    merge the multisets; the FFT composition runs once, at the first ``delta`` or ``epsilon`` call.
    The reported value is the maximum over the directions, on each side:

    .. math::

        \delta(\varepsilon) = \max_{d} \Bigl( \sum_{\ell} (1 - e^{\varepsilon - \ell})_+\, p_d(\ell)
        + p_d(\infty) \Bigr),

    with :math:`p_d` the composed PMF of direction :math:`d` on the loss grid.  The constructors of
    ``hockeystick.pld`` (``gaussian``, ``subsampled_gaussian``, ``from_distributions``, ...) build
    it; it is rarely built directly.

    Parameters
    ----------
    directions : list of dict
        Per neighbouring direction (one for a symmetric mechanism, two for remove and add), a
        mapping from each factor (``Factor``: one mechanism's pessimistic and optimistic grid PMFs)
        to its count of rounds, count >= 1.  Every factor lies on one loss grid.
    tail : float, optional
        The composition's window is cut where a Chernoff bound puts at most ``tail`` of the composed
        mass beyond each end, 0 < tail < 1 (default 1e-15; the constructors pass the ``tail`` they
        cut from a continuous mechanism).  The cut mass is charged to +infinity on the pessimistic
        side and subtracted on the optimistic side.
    _composed : dict, optional
        Cache of the composed PMFs per side (``True``: pessimistic, ``False``: optimistic), filled
        at the first evaluation; leave it empty.

    Attributes
    ----------
    value_discretization_interval : float
        The spacing h > 0 of the loss grid.

    See Also
    --------
    subsampled_gaussian, gaussian, from_distributions : constructors.

    Notes
    -----
    ``delta(epsilon, bound="upper" | "lower" | "both")`` gives delta at epsilon (any real, NaN
    refused; arrays evaluate element-wise), ``epsilon(delta, bound=...)`` the least epsilon >= 0
    with delta(epsilon) <= delta, for 0 < delta < 1; ``bound="both"`` returns the pair (lower,
    upper).  A run has one pair of neighbouring datasets, so its delta is the larger of the
    all-remove and the all-add compositions, and both sides take the maximum over the directions; a
    symmetric mechanism's one direction broadcasts against two in ``compose``.

    References
    ----------
    Zhu, Dong & Wang, AISTATS 2022, Sec. 5 (the maximum over the neighbouring directions);
    Doroshenko et al. 2022, Sec. 3 (the pessimistic connect-the-dots discretization).

    Examples
    --------
    >>> import hockeystick.pld as pld
    >>> d = pld.laplace(1.0).self_compose(2)
    >>> round(d.delta(1.0), 6)
    0.241837
    >>> lower, upper = d.delta(1.0, bound="both")
    >>> lower <= upper
    True
    """

    directions: list[dict[Factor, int]]
    tail: float = DEFAULT_TAIL
    _composed: dict[bool, list[GridPMF | None]] = field(default_factory=dict, repr=False)

    @property
    def value_discretization_interval(self) -> float:
        return next(iter(self.directions[0])).upper.h

    def compose(self, other: PrivacyLossDistribution) -> PrivacyLossDistribution:
        """The PLD of running both mechanisms on the same neighbouring pair.

        Parameters
        ----------
        other : PrivacyLossDistribution
            The second mechanism's PLD, on the same loss grid (``value_discretization_interval``).

        Returns
        -------
        PrivacyLossDistribution
            The composition, direction by direction (a one-direction PLD pairs with each direction
            of the other); its ``tail`` is the smaller of the two.

        Raises
        ------
        ValueError
            If the two grids' spacings differ, or both PLDs have several directions of different
            counts.
        """
        if other.value_discretization_interval != self.value_discretization_interval:
            raise ValueError("compose needs one value_discretization_interval on both sides")
        a, b = self.directions, other.directions
        if len(a) != len(b):
            if len(a) == 1:
                a = a * len(b)
            elif len(b) == 1:
                b = b * len(a)
            else:
                raise ValueError("cannot pair the neighbouring directions of the two PLDs")
        merged = []
        for x, y in zip(a, b):
            z = dict(x)
            for f, c in y.items():
                z[f] = z.get(f, 0) + c
            merged.append(z)
        return PrivacyLossDistribution(merged, min(self.tail, other.tail))

    def self_compose(self, count: int) -> PrivacyLossDistribution:
        """The PLD of ``count`` independent runs of this mechanism (adaptive composition).

        Parameters
        ----------
        count : int
            Number of runs, an integer with 1 <= count <= 2**53.

        Returns
        -------
        PrivacyLossDistribution
            Every factor's count multiplied by ``count``; nothing is composed until it is evaluated.

        Raises
        ------
        ValueError
            If ``count`` is not an integer (a float, a bool) or lies outside [1, 2**53].
        """
        if (
            isinstance(count, bool)
            or not isinstance(count, (int, np.integer))
            or not 1 <= count <= 2**53
        ):
            raise ValueError(
                f"count must be an integer with 1 <= count <= 2^53, got {_validation.describe(count)}"
            )
        return PrivacyLossDistribution(
            [{f: c * int(count) for f, c in d.items()} for d in self.directions], self.tail
        )

    def composed(self, pessimistic: bool) -> list[GridPMF]:
        """The composed PMF of each direction (computed once)."""
        compose_all([self], pessimistic)
        return cast(
            "list[GridPMF]", self._composed[bool(pessimistic)]
        )  # every direction composed just above

    @positional_deprecated("bound")
    def delta(
        self, epsilon: ArrayLike, *, bound: Bound = "upper", composition_only: bool = False
    ) -> Result:
        r"""Certified bound(s) on delta(eps), the hockey-stick divergence of the composed pair at e^eps.

        .. math::

            \delta(\varepsilon) = \max_d \sum_\ell (1 - e^{\varepsilon - \ell})_+\, p_d(\ell) + p_d(\infty),

        the maximum over the neighbouring directions d of the composed PMF's profile.

        Parameters
        ----------
        epsilon : array_like
            The eps at which to evaluate, any real (negative values allowed, ``inf`` gives 0), NaN
            refused.
        composition_only : bool, default False
            True: this PLD's own composition alone, on its grid and at its tail (the composition
            engine's certified bracket); False: that bracket intersected, where the factors describe
            their run (``Factor.source``), with the run read where the question puts it
            (pld/question: the front door's bracket).
        """
        eps = _validation.real(epsilon, "epsilon")
        return self._answer(
            eps,
            "delta",
            eps.ndim == 0,
            bound,
            _validation.flag(composition_only, "composition_only"),
        )

    @positional_deprecated("bound")
    def epsilon(
        self, delta: ArrayLike, *, bound: Bound = "upper", composition_only: bool = False
    ) -> Result:
        """Certified bound(s) on the smallest eps >= 0 with delta(eps) <= delta.

        Parameters
        ----------
        delta : array_like
            The delta at which to evaluate, 0 < delta < 1.
        composition_only : bool, default False
            True: this PLD's own composition alone, on its grid and at its tail (the composition
            engine's certified bracket); False: that bracket intersected, where the factors describe
            their run (``Factor.source``), with the run read where the question puts it
            (pld/question: the front door's bracket).

        Returns
        -------
        float, numpy.ndarray or tuple
            The upper side is ``inf`` when ``delta`` lies below what can be certified (the mass at
            +infinity plus the composition's truncation and round-off charges), and the lower side
            is ``inf`` when delta lies below the mass at +infinity of the optimistic side.
        """
        d = delta_values(delta)
        return self._answer(
            d, "epsilon", d.ndim == 0, bound, _validation.flag(composition_only, "composition_only")
        )

    def _answer(
        self, x: np.ndarray, method: Quantity, scalar: bool, bound: Bound, composition_only: bool
    ) -> Result:
        """The public reads' answer: the sides of this PLD's own composition (``_sides``),
        intersected, where the installed question reader knows the run its factors describe
        (``QuestionReader.reads``), with that reader's bracket, each certified."""
        _validation.bound_side(bound)
        reader = _question_reader.get("reader")
        if composition_only or reader is None or _reading.active or not reader.reads(self):
            return self._sides(x, method, scalar, bound)
        if bound == "upper":  # the reader brackets from 0: no optimistic composition is asked
            upper = np.asarray(self._sides(x, method, False, "upper"), dtype=np.float64)
            lower = np.zeros_like(upper)
        else:  # the lower side alone is the bracket's: the composition's own lower side raises it
            lower, upper = brackets([self], method, [x])[0]
        ((lower, upper),) = read_per_question(
            [self], method, [x], [(np.asarray(lower), np.asarray(upper))], bound
        )
        return bound_result(lower, upper, bound, scalar)

    def _sides(self, x: np.ndarray, method: Quantity, scalar: bool, bound: Bound) -> Result:
        _validation.bound_side(bound)
        if bound == "both":
            lo, up = brackets([self], method, [x])[0]
            return (float(lo), float(up)) if scalar else (lo, up)
        values = _maximum([_evaluate(pmf, method, x) for pmf in self.composed(bound == "upper")])
        return float(values) if scalar else values


class QuestionReader(Protocol):
    """What reads a PLD per question: the run its factors describe (``Factor.source``) read on the
    grids, tails and tilts the question asks for (pld/question), every bracket certified."""

    def reads(self, pld: PrivacyLossDistribution) -> bool:
        """Whether this reader answers the questions of ``pld``: the run its factors describe, or
        its own factors read again."""
        ...

    def read_many(
        self,
        plds: Sequence[PrivacyLossDistribution],
        method: Quantity,
        xs: Sequence[np.ndarray],
        sides: Sequence[tuple[np.ndarray, np.ndarray]],
        bound: Bound = "both",
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per PLD (each one ``reads`` accepts), its certified bracket ``sides[i]`` of ``method``
        ("delta" or "epsilon") at ``xs[i]`` intersected with this reader's; ``bound`` "upper": the
        upper side alone read where it is a "both" read's upper side, bit for bit."""
        ...


class Composition(Protocol):
    """What a ``PrivacyLossDistribution`` composes with: the FFT composition of the stage above this
    one (``hockeystick.pld.compose.fft``), which installs itself (``install_composition``) when
    imported."""

    def compose_many(
        self,
        items: Sequence[Any],
        *,
        pessimistic: bool,
        tail: float = ...,
        max_points: int | None = ...,
        workers: int | None = ...,
        direct_bins: bool = ...,
        direct_min_charge: float | None = ...,
        shared_transform: bool = ...,
    ) -> list[GridPMF]:
        """Each item's composed grid PMF on the side asked for."""
        ...

    def upper_sides(
        self,
        items: Sequence[Any],
        arguments: Sequence[np.ndarray],
        method: Quantity,
        *,
        tail: float = ...,
        max_points: int | None = ...,
        workers: int | None = ...,
        shared_transform: bool = ...,
    ) -> list[np.ndarray]:
        """Each item's certified upper values of ``method`` at its arguments."""
        ...

    def lower_sides(
        self,
        items: Sequence[Any],
        arguments: Sequence[np.ndarray],
        method: Quantity,
        *,
        tail: float = ...,
        max_points: int | None = ...,
        workers: int | None = ...,
        spectral: bool = ...,
        shared_transform: bool = ...,
    ) -> list[tuple[np.ndarray, GridPMF | None]]:
        """Each item's certified lower values of ``method`` at its arguments, and its composed PMF if made."""
        ...


# The installed composition (``install_composition``): one per process, set when
# hockeystick.pld.compose is imported (hockeystick.pld imports it), since the types of this stage
# cannot import the stage above them.
_composition: dict[str, Composition] = {}


def install_composition(composition: Composition) -> None:
    """Make ``composition`` the one every ``PrivacyLossDistribution`` composes its factors with (the
    compose stage above this one installs its FFT composition; this stage cannot import it).

    Parameters
    ----------
    composition : Composition
        Its ``compose_many``, ``upper_sides`` and ``lower_sides`` compose lists of (factor, count)
        terms.
    """
    _composition["fft"] = composition


def _composer() -> Composition:
    """The installed composition (``install_composition``)."""
    return _composition["fft"]  # installed on import of hockeystick.pld (its compose stage)


# The installed question reader (``install_question_reader``): one per process, set when
# hockeystick.pld is imported.
_question_reader: dict[str, QuestionReader] = {}


class _ReadingFlag(threading.local):
    """Set while a question reader reads, in this thread: the PLDs it builds and reads answer with
    their own sides, so a reader never calls itself."""

    active = False


_reading = _ReadingFlag()


def install_question_reader(reader: QuestionReader) -> None:
    """Make ``reader`` the one every ``PrivacyLossDistribution``'s ``delta`` and ``epsilon`` consult
    (the question stage above this one installs it; this stage cannot import it).

    Parameters
    ----------
    reader : QuestionReader
        Its ``reads`` says which PLDs it answers; its ``read`` intersects their brackets with its
        own.
    """
    _question_reader["reader"] = reader


def read_per_question(
    plds: Sequence[PrivacyLossDistribution],
    method: Quantity,
    xs: Sequence[np.ndarray],
    sides: Sequence[tuple[np.ndarray, np.ndarray]],
    bound: Bound = "both",
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per PLD, its certified bracket ``sides[i]`` of ``method`` at ``xs[i]`` intersected with the
    installed question reader's where that reader reads it (``QuestionReader.read_many``, one call
    for all of them, on the sides ``bound`` asks for), else as given.

    Parameters
    ----------
    plds : sequence of PrivacyLossDistribution
        The PLDs asked.
    method : {"delta", "epsilon"}
        What is asked of each.
    xs : sequence of numpy.ndarray
        Each PLD's arguments, validated.
    sides : sequence of (numpy.ndarray, numpy.ndarray)
        Each PLD's certified (lower, upper) at its arguments (its own composition's).
    bound : {"both", "upper", "lower"}, default "both"
        The sides the caller asked for: "upper" lets the reader read the upper side alone where
        that is the upper side a "both" read gives, bit for bit (``QuestionReader.read_many``).

    Returns
    -------
    list of (numpy.ndarray, numpy.ndarray)
        The certified brackets, each no wider than the one given; as given where the reader refuses
        (its windows past the memory allowed), since each PLD's own bracket is certified already.
    """
    out = [(np.asarray(lower), np.asarray(upper)) for lower, upper in sides]
    reader = _question_reader.get("reader")
    if reader is None or _reading.active:
        return out
    read = [i for i, pld in enumerate(plds) if reader.reads(pld)]
    if not read:
        return out
    _reading.active = True
    try:
        found = reader.read_many(
            [plds[i] for i in read], method, [xs[i] for i in read], [out[i] for i in read], bound
        )
    except (
        ValueError
    ):  # the run's reads refused (a window past the memory allowed): the PLDs' own brackets stand
        return out
    finally:
        _reading.active = False
    for i, bracket in zip(read, found):
        out[i] = bracket
    return out


def _evaluate(pmf: GridPMF, method: Quantity, x: np.ndarray) -> np.ndarray:
    """delta(x) (method "delta") or epsilon(x) clipped at 0 (method "epsilon") of one composed PMF."""
    return pmf.delta(x) if method == "delta" else np.maximum(pmf.epsilon(x), 0.0)


def _maximum(values: Sequence[np.ndarray]) -> np.ndarray:
    out = values[0]
    for v in values[1:]:
        out = np.maximum(out, v)
    return out


def brackets(
    plds: Sequence[PrivacyLossDistribution],
    method: Quantity,
    xs: Sequence[np.ndarray],
    workers: int | None = None,
    uppers: Sequence[Sequence[np.ndarray]] | None = None,
    shared_transform: bool = False,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per PLD, the certified (lower, upper) of ``method`` ("delta" or "epsilon") at its arguments
    ``xs[i]`` (the compositions' threads: ``workers``, as in ``compose_all``).

    Both sides are the maximum over the neighbouring directions (Zhu, Dong, Wang, AISTATS 2022, Sec.
    5): every direction's pessimistic composition (one batch), and the optimistic ones
    ``undominated_lower_sides`` does not skip: a direction whose upper values lie below another's
    lower values at every argument (the Poisson-subsampled Gaussian's add direction, typically) has
    its optimistic composition (a quarter of the transforms) skipped.  ``uppers``: each direction's
    certified upper values, as the caller computed them (``direction_uppers``, from the spectra
    where few frequencies live), instead of the pessimistic compositions' windows; the lower sides
    are then read the same way (``undominated_lower_values``: from the optimistic spectra where few
    frequencies live, no inverse transform), else from the optimistic windows (``compose_all``, as
    ``composed(False)`` gives them).  ``shared_transform``: every composition of the call on
    divisors of one FFT length (``compose.compose_many``'s: a run's checkpoints).
    """
    plds = list(plds)
    if uppers is None:
        compose_all(plds, True, workers=workers, shared_transform=shared_transform)
        uppers = [
            [_evaluate(pmf, method, x) for pmf in cast("list[GridPMF]", pld._composed[True])]
            for pld, x in zip(plds, xs)
        ]
        sides = undominated_lower_sides(
            plds,
            uppers,
            lambda pmf, i: _evaluate(pmf, method, xs[i]),
            workers,
            shared_transform=shared_transform,
        )
        lows = [{d: low for d, (_, low) in side.items()} for side in sides]
    else:
        lows = undominated_lower_values(plds, uppers, method, xs, workers, shared_transform)
    return [(_maximum(list(low.values())), _maximum(ups)) for low, ups in zip(lows, uppers)]


def direction_uppers(
    plds: Sequence[PrivacyLossDistribution],
    method: Quantity,
    xs: Sequence[np.ndarray],
    workers: int | None = None,
    shared_transform: bool = False,
) -> list[list[np.ndarray]]:
    """Per PLD and direction, its certified upper ``method`` ("delta" or "epsilon", clipped at 0) at
    ``xs[i]`` (validated already), without composed PMFs: one ``compose.upper_sides`` per tail over
    every direction of every PLD, which reads each composition with few live frequencies from its
    spectrum (no inverse transform: at most the composed window's value, by that window's
    inverse-transform charge less a round-off bound of 1e-17 to 1e-16), the others (and those asked
    for so many values that their windows cost less) from their windows.  Never from PMFs composed
    earlier, so the values do not depend on what was asked before.  ``shared_transform``: as
    ``brackets``'."""
    out: list[list[np.ndarray]] = [[] for _ in plds]
    for tail, group in _by_tail([pld.tail for pld in plds]):
        items = [
            [(f.upper, c) for f, c in direction.items()]
            for i in group
            for direction in plds[i].directions
        ]
        arguments = [xs[i] for i in group for _ in plds[i].directions]
        values = iter(
            _composer().upper_sides(
                items,
                arguments,
                method,
                tail=tail,
                workers=workers,
                shared_transform=shared_transform,
            )
        )
        for i in group:
            sides = [next(values) for _ in plds[i].directions]
            out[i] = [np.maximum(v, 0.0) for v in sides] if method == "epsilon" else sides
    return out


def upper_values(
    plds: Sequence[PrivacyLossDistribution],
    method: Quantity,
    xs: Sequence[np.ndarray],
    workers: int | None = None,
) -> list[np.ndarray]:
    """Per PLD, the largest of ``direction_uppers`` over its directions: its certified upper
    ``method`` at ``xs[i]`` (Zhu, Dong, Wang, AISTATS 2022, Sec. 5)."""
    return [_maximum(sides) for sides in direction_uppers(plds, method, xs, workers)]


def lower_values(
    plds: Sequence[PrivacyLossDistribution],
    method: Quantity,
    xs: Sequence[np.ndarray],
    workers: int | None = None,
    shared_transform: bool = False,
) -> list[np.ndarray]:
    """Per PLD, its certified lower ``method`` ("delta" or "epsilon", clipped at 0) at ``xs[i]``
    (validated already): the largest over its directions, each read as ``undominated_lower_values``
    reads it (from the optimistic spectrum where few frequencies live, else from the window, which
    is kept), so the lower side of a bracket whose upper sides are ``direction_uppers``' without
    those upper sides (a direction that bracket skips lies at or below its maximum;
    ``shared_transform``: as ``brackets``')."""
    lows: list[dict[int, np.ndarray]] = [{} for _ in plds]
    directions = [range(len(pld.directions)) for pld in plds]
    _lower_values(list(plds), directions, method, xs, workers, lows, shared_transform)
    return [_maximum(list(low.values())) for low in lows]


def undominated_lower_sides(
    plds: Sequence[PrivacyLossDistribution],
    uppers: Sequence[Sequence[np.ndarray]],
    lower_of: Callable[[GridPMF, int], np.ndarray],
    workers: int | None = None,
    direct_bins: bool = False,
    direct_min_charge: float | None = None,
    shared_transform: bool = False,
) -> list[dict[int, tuple[GridPMF, np.ndarray]]]:
    """Per PLD, the directions whose optimistic side can raise its lower bound, each with its
    composed optimistic PMF and that PMF's lower values ``lower_of(pmf, i)`` (i: the PLD's index in
    ``plds``), the leading direction first, then the others in order.  ``uppers[i]``: each
    direction's certified upper values at the same arguments (the pessimistic sides, composed by the
    caller).

    The lower side is the maximum over the directions (Zhu, Dong, Wang, AISTATS 2022, Sec. 5), but a
    direction whose upper bound lies at or below another direction's lower bound at every argument
    can raise no maximum (its own lower bound is no larger than its upper one): the bracket is the
    same, bit for bit, without its optimistic composition.  So the leading direction's optimistic
    side (the one whose upper bound is the largest at the most arguments) is composed first, one
    batch over ``plds``, then that of every direction it does not so dominate, one more batch
    (``direct_bins``, ``direct_min_charge``, ``shared_transform``: as ``compose_all``'s).
    """
    plds = list(plds)
    leads = leading_directions(uppers)
    compose_all(
        plds,
        False,
        [[lead] for lead in leads],
        workers,
        direct_bins,
        direct_min_charge,
        shared_transform,
    )
    sides = []
    for i, (pld, lead) in enumerate(zip(plds, leads)):
        pmf = cast(GridPMF, pld._composed[False][lead])  # composed just above
        sides.append({lead: (pmf, lower_of(pmf, i))})
    needed = undominated_directions(
        uppers, leads, [side[lead][1] for side, lead in zip(sides, leads)]
    )
    compose_all(plds, False, needed, workers, direct_bins, direct_min_charge, shared_transform)
    for i, (pld, side, more) in enumerate(zip(plds, sides, needed)):
        for d in more:
            pmf = cast(GridPMF, pld._composed[False][d])
            side[d] = (pmf, lower_of(pmf, i))
    return sides


def undominated_lower_values(
    plds: Sequence[PrivacyLossDistribution],
    uppers: Sequence[Sequence[np.ndarray]],
    method: Quantity,
    xs: Sequence[np.ndarray],
    workers: int | None = None,
    shared_transform: bool = False,
) -> list[dict[int, np.ndarray]]:
    """Per PLD, the certified lower ``method`` ("delta" or "epsilon", clipped at 0) at ``xs[i]`` of
    the directions ``undominated_lower_sides`` composes (the leading one first, then those it does
    not dominate), without keeping composed PMFs where none is made: one ``compose.lower_sides`` per
    tail and pass, which reads each optimistic composition with few live frequencies from its
    spectrum (no inverse transform: never above the truth, within the window's charges of the
    window's lower value: pld/reads/spectral_profile.hpp), the others from their windows, which are
    kept in ``_composed`` as ``compose_all`` keeps them.  Never from PMFs composed earlier, so the
    values do not depend on what was asked before (as ``direction_uppers``; ``shared_transform``: as
    ``brackets``')."""
    plds = list(plds)
    leads = leading_directions(uppers)
    lows: list[dict[int, np.ndarray]] = [{} for _ in plds]
    _lower_values(plds, [[lead] for lead in leads], method, xs, workers, lows, shared_transform)
    needed = undominated_directions(uppers, leads, [low[lead] for low, lead in zip(lows, leads)])
    _lower_values(plds, needed, method, xs, workers, lows, shared_transform)
    return lows


def leading_directions(uppers: Sequence[Sequence[np.ndarray]]) -> list[int]:
    """Per PLD, the direction whose upper values are the largest at the most arguments (a tie: the
    first): the one whose optimistic side ``brackets`` composes first."""
    leads = []
    for ups in uppers:
        top = _maximum(ups)
        leads.append(int(np.argmax([np.count_nonzero(u >= top) for u in ups])))
    return leads


def undominated_directions(
    uppers: Sequence[Sequence[np.ndarray]], leads: Sequence[int], lead_lows: Sequence[np.ndarray]
) -> list[list[int]]:
    """Per PLD, the directions besides its leading one whose upper values exceed the leading one's
    lower values at some argument: only those can raise the maximum of the lower values."""
    return [
        [d for d, up in enumerate(ups) if d != lead and not np.all(up <= low)]
        for ups, lead, low in zip(uppers, leads, lead_lows)
    ]


def _lower_values(
    plds: Sequence[PrivacyLossDistribution],
    directions: Sequence[Sequence[int]],
    method: Quantity,
    xs: Sequence[np.ndarray],
    workers: int | None,
    lows: list[dict[int, np.ndarray]],
    shared_transform: bool = False,
) -> None:
    """lows[i][d] = the certified lower ``method`` (epsilon clipped at 0) of direction d of PLD i at
    ``xs[i]``, for the ``directions[i]`` listed, in one ``compose.lower_sides`` call per tail; a
    window it composes is kept in ``_composed[False]``."""
    wanted = [(i, d) for i, (_, ds) in enumerate(zip(plds, directions)) for d in ds]
    for tail, batch in _by_tail([plds[i].tail for i, _ in wanted]):
        group = [wanted[k] for k in batch]
        items = [_side_terms(plds[i].directions[d], False) for i, d in group]
        checked = _with_every_side(items)
        sides = _composer().lower_sides(
            checked,
            [xs[i] for i, _ in group],
            method,
            tail=tail,
            workers=workers,
            shared_transform=shared_transform,
        )
        for (i, d), (values, pmf) in zip(group, sides):
            lows[i][d] = np.maximum(values, 0.0) if method == "epsilon" else values
            if pmf is not None:
                plds[i]._composed.setdefault(False, [None] * len(plds[i].directions))[d] = pmf


def _with_every_side(
    items: list[list[tuple[GridPMF | None, int]]],
) -> list[list[tuple[GridPMF, int]]]:
    """The (PMF, count) terms, refused if some PMF is None (a PLD built without its optimistic side)."""
    if any(pmf is None for item in items for pmf, _ in item):
        raise ValueError(
            'this PLD was built without its optimistic side (optimistic=False): only bound="upper" is available'
        )
    return cast("list[list[tuple[GridPMF, int]]]", items)  # no PMF is None: refused just above


def _uncomposed_by_tail(
    plds: Sequence[PrivacyLossDistribution], key: bool, directions: Sequence[Sequence[int]] | None
) -> list[tuple[float, list[tuple[PrivacyLossDistribution, list[int]]]]]:
    """Per tail (``_by_tail``), each PLD with its directions (all, or those listed) not yet composed
    on side ``key``; every PLD's ``_composed[key]`` exists afterwards."""
    todo: list[tuple[PrivacyLossDistribution, list[int]]] = []
    for i, pld in enumerate(plds):
        done = pld._composed.setdefault(key, [None] * len(pld.directions))
        wanted = range(len(pld.directions)) if directions is None else directions[i]
        missing = [d for d in wanted if done[d] is None]
        if missing:
            todo.append((pld, missing))
    return [(tail, [todo[k] for k in batch]) for tail, batch in _by_tail([p.tail for p, _ in todo])]


def _by_tail(tails: list[float]) -> list[tuple[float, list[int]]]:
    """The indices of ``tails`` grouped by tail, the tails in order of their first index: the core's
    batches of compositions (``_core.pld_compose.composition_batches``), each with its tail."""
    return [(tails[b[0]], b) for b in _core.pld_compose.composition_batches(tails=tails)]


def _side_terms(
    direction: dict[Factor, int], pessimistic: bool
) -> list[tuple[GridPMF | None, int]]:
    """A direction's (PMF, count) terms on one side: each factor's upper PMF, or its lower terms."""
    if pessimistic:
        return [(f.upper, c) for f, c in direction.items()]
    return [term for f, c in direction.items() for term in f.lower_terms(c)]


def compose_all(
    plds: Sequence[PrivacyLossDistribution],
    pessimistic: bool,
    directions: Sequence[Sequence[int]] | None = None,
    workers: int | None = None,
    direct_bins: bool = False,
    direct_min_charge: float | None = None,
    shared_transform: bool = False,
) -> None:
    """Composes, on one side, every direction (or, per PLD, the ``directions`` listed) of every PLD
    not yet composed on it, in one batch (``workers``: scipy.fft's threads, None: all cores for a
    batch; ``direct_bins``: the low-frequency bins many rounds amplify recomputed accurately, by one
    long-double FFT per factor where the band is wide (pld/compose/long_spectrum.hpp) or by blocked
    direct sums where it is short (pld/compose/direct_spectrum.hpp), for a smaller round-off charge
    at more CPU: ``compose.compose_many``, as its ``direct_min_charge`` and ``shared_transform``).

    A sweep over many PLDs then pays one ``compose_many`` (shared 2-d FFTs) per tail
    instead of one composition per direction; each PLD keeps its result (a direction not
    composed yet is None in ``_composed``).
    """
    key = bool(pessimistic)
    for tail, group in _uncomposed_by_tail(plds, key, directions):
        items = [_side_terms(pld.directions[d], key) for pld, missing in group for d in missing]
        checked = _with_every_side(items)
        composed = iter(
            _composer().compose_many(
                checked,
                pessimistic=key,
                tail=tail,
                workers=workers,
                direct_bins=direct_bins,
                direct_min_charge=direct_min_charge,
                shared_transform=shared_transform,
            )
        )
        for pld, missing in group:
            for d in missing:
                pld._composed[key][d] = next(composed)
