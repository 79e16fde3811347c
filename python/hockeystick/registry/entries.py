"""What the registry holds about an accountant or a calculator: its factory, its parameters and
their roles (integers, calibratable and in which direction the bound moves with them, a calculator's
inverses)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np


@dataclass(frozen=True)
class Calibratable:
    """A parameter the bound is monotone in, and the interval ``calibrate`` searches it over.

    Parameters
    ----------
    direction : {"decreasing", "increasing"}
        "decreasing" if delta(eps) falls as the parameter grows (sigma: calibration returns the
        SMALLEST value that meets the target), "increasing" if it rises (rounds, sampling rate:
        calibration returns the LARGEST value that meets it).
    lower : float
        Smallest value searched. A ``lower`` <= 0 is an open end: the search starts at
        ``tiny ** 0.25`` (about 1.2e-77) for a real parameter, at 1 for an integer one; an integer
        parameter's ``lower`` > 0 is rounded up.
    upper : float or callable
        Largest value searched (``inf`` for none; rounded down for an integer parameter), or a
        function of the other parameters (a mapping of name to array) returning it per point, such
        as rounds <= n / batch_size.
    integer : bool, default False
        Whether the parameter takes whole values only (calibration returns an integer).

    See Also
    --------
    AccountantEntry : Holds the calibratable parameters of an accountant.

    Examples
    --------
    >>> from hockeystick.registry import get
    >>> get("dp_sgd").calibratable["noise_multiplier"]
    Calibratable(direction='decreasing', lower=0.0, upper=inf, integer=False)
    """

    direction: Literal["decreasing", "increasing"]
    lower: float
    upper: float | Callable[[Mapping[str, np.ndarray]], np.ndarray]
    integer: bool = False


@dataclass(frozen=True)
class AccountantEntry:
    """One registered accountant: its class, its parameter names and their roles.

    Parameters
    ----------
    name : str
        The name sweeps, ``calibrate`` and the command line know it by (unique among accountants and
        calculators).
    factory : callable
        The accountant class (or a function building one) of keyword parameters that broadcast,
        whose instances have ``delta(epsilon, bound=...)`` and ``epsilon(delta, bound=...)``.
    summary : str
        One line saying what the accountant computes.
    integers : frozenset of str, optional
        The parameters that take whole values (a sweep's axis of them is integer).
    calibratable : dict of str to Calibratable, optional
        The parameters ``calibrate`` can solve for, with their direction and search range.
    hidden : frozenset of str, optional
        Constructor options that are not numeric grid parameters (left out of ``parameters``).
    max_chunk : int, optional
        Points per call the accountant handles in bounded memory; None for no limit (a closed form).
    vectors : frozenset of str, optional
        Options that each take one vector of numbers describing the mechanism (a strategy's
        coefficients), not a grid axis: an entry with vectors is a family, and ``configure`` binds
        them into an accountant named with them.

    Attributes
    ----------
    parameters : tuple of str
        Every keyword a grid can set, in signature order (not ``hidden``, ``vectors``, ``threads``
        or ``workers``).
    required : tuple of str
        Those of ``parameters`` without a default.
    defaults : dict
        Those of ``parameters`` with a default, and the default.

    See Also
    --------
    register : Adds an entry to the registry.
    get : The entry of a registered name.

    Examples
    --------
    >>> from hockeystick.registry import get
    >>> entry = get("dp_sgd")
    >>> entry.required
    ('noise_multiplier',)
    >>> sorted(entry.integers)
    ['batch_size', 'dataset_size', 'steps']
    """

    name: str
    factory: Callable[..., Any]
    summary: str
    integers: frozenset[str] = frozenset()
    calibratable: dict[str, Calibratable] = field(default_factory=dict)
    hidden: frozenset[str] = frozenset()  # constructor options that are not numeric grid parameters
    max_chunk: int | None = None  # points per call the accountant handles in bounded memory
    # options each taking ONE vector of numbers that describes the mechanism (a strategy's
    # coefficients), not a grid axis: an entry with vectors is a family, and ``configure`` binds
    # them into an accountant named with them
    vectors: frozenset[str] = frozenset()

    @property
    def parameters(self) -> tuple[str, ...]:
        """Every keyword the constructor takes, in signature order."""
        return tuple(self._signature().parameters)

    @property
    def required(self) -> tuple[str, ...]:
        """The keywords without a default."""
        return tuple(
            n
            for n, p in self._signature().parameters.items()
            if p.default is inspect.Parameter.empty
        )

    @property
    def defaults(self) -> dict[str, Any]:
        return {
            n: p.default
            for n, p in self._signature().parameters.items()
            if p.default is not inspect.Parameter.empty
        }

    def _signature(self) -> inspect.Signature:
        return keyword_signature(self.factory, self.hidden | self.vectors)

    def build(self, **params: Any) -> Any:
        """Construct the accountant from the parameters it takes, a family's vectors included.

        Parameters
        ----------
        **params
            Keyword parameters; those the factory does not take are ignored.

        Returns
        -------
        object
            ``factory(**params)`` of the parameters it takes.
        """
        taken = self.parameters  # one signature read a build, not one a parameter
        return self.factory(**{k: v for k, v in params.items() if k in taken or k in self.vectors})


@functools.lru_cache(maxsize=256)
def keyword_signature(
    function: Callable[..., Any], hidden: frozenset[str] = frozenset()
) -> inspect.Signature:
    """The keyword parameters of ``function`` a grid can set (not ``hidden`` options, not
    ``threads`` or ``workers``: how many cores evaluate is not a point of the grid).  Kept per
    (function, hidden): a signature is immutable, and a sweep reads it for every chunk's build."""
    sig = inspect.signature(function)
    return sig.replace(
        parameters=[
            p
            for p in sig.parameters.values()
            if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
            and p.name not in hidden
            and p.name not in ("threads", "workers")
        ]
    )


@dataclass(frozen=True)
class Inverse:
    """How a calculator solves for one of its parameters given a target value of its quantity.

    Parameters
    ----------
    function : callable
        Broadcasting function of keywords: the calculator's other parameters (those in its own
        signature) and the target value of the calculator's quantity, under the keyword ``target``
        names; it returns the parameter solved for.
    target : str
        The keyword of ``function`` that takes the quantity's target value.

    See Also
    --------
    CalculatorEntry.solve : Calls the inverse with the quantity's name mapped onto ``target``.
    """

    function: Callable[..., Any]
    target: str


CalculatorKind = Literal["exact", "paper formula, not a guarantee"]


@dataclass(frozen=True)
class CalculatorEntry:
    """One registered calculator: a broadcasting function computing ``quantity`` from keyword parameters.

    Parameters
    ----------
    name : str
        The name sweeps and the command line know it by (unique among accountants and calculators).
    factory : callable
        Broadcasting function of keyword parameters returning the quantity.
    quantity : str
        Name of the quantity computed (a sweep's output column), such as "tv".
    summary : str
        One line saying what the calculator computes.
    kind : {"exact", "paper formula, not a guarantee"}
        What the number is: "exact" (a value, computed to the accuracy its docstring states) or
        "paper formula, not a guarantee" (a paper's expression as printed).
    integers : frozenset of str, optional
        The parameters that take whole values.
    inverses : dict of str to Inverse, optional
        Parameter -> how to solve for it given a target value of ``quantity``.
    max_chunk : int, optional
        Points per call the calculator handles in bounded memory; None for no limit.

    Attributes
    ----------
    parameters : tuple of str
        Every keyword of ``factory`` a grid can set, in signature order.
    required : tuple of str
        Those of ``parameters`` without a default.

    See Also
    --------
    register_calculator : Adds an entry to the registry.
    lookup : The entry of a registered accountant or calculator name.
    """

    name: str
    factory: Callable[..., Any]
    quantity: str
    summary: str
    kind: CalculatorKind
    integers: frozenset[str] = frozenset()
    inverses: dict[str, Inverse] = field(default_factory=dict)
    max_chunk: int | None = None

    @property
    def parameters(self) -> tuple[str, ...]:
        return tuple(keyword_signature(self.factory).parameters)

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(
            n
            for n, p in keyword_signature(self.factory).parameters.items()
            if p.default is inspect.Parameter.empty
        )

    def inverse_parameters(self, parameter: str) -> tuple[str, ...]:
        """What solving for ``parameter`` takes: the inverse's parameters, its target named ``quantity``.

        Parameters
        ----------
        parameter : str
            A parameter with an inverse (a key of ``inverses``).

        Returns
        -------
        tuple of str
            The inverse's keyword parameters, its ``target`` keyword renamed to ``quantity``.

        Raises
        ------
        KeyError
            ``parameter`` has no inverse.
        """
        inverse = self.inverses[parameter]
        return tuple(
            self.quantity if p == inverse.target else p
            for p in keyword_signature(inverse.function).parameters
        )

    def evaluate(self, **params: Any) -> np.ndarray:
        """The quantity at the (broadcast) parameters.

        Parameters
        ----------
        **params
            Keyword parameters; those ``factory`` does not take are ignored.

        Returns
        -------
        numpy.ndarray
            The quantity as a float array.
        """
        return np.asarray(
            self.factory(**{k: v for k, v in params.items() if k in self.parameters}), dtype=float
        )

    def solve(self, parameter: str, **params: Any) -> np.ndarray:
        """The value of ``parameter`` at which the quantity equals ``params[quantity]`` (the target).

        Parameters
        ----------
        parameter : str
            A parameter with an inverse (a key of ``inverses``).
        **params
            The inverse's parameters, the target under the name ``quantity``; others are ignored.

        Returns
        -------
        numpy.ndarray
            The solved parameter as a float array.

        Raises
        ------
        KeyError
            ``parameter`` has no inverse.
        """
        inverse = self.inverses[parameter]
        given = {
            inverse.target if k == self.quantity else k: v
            for k, v in params.items()
            if k in self.inverse_parameters(parameter)
        }
        return np.asarray(inverse.function(**given), dtype=float)
