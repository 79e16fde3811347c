"""The accountant contract, as code: what every accountant in hockeystick provides.

Every accountant answers one question, the privacy profile delta(eps) of a training
configuration (docs/architecture.md), through two vectorized calls:

    acc.delta(epsilon, *, bound="upper")   delta(eps) for epsilon >= 0 (inf allowed: 0)
    acc.epsilon(delta, *, bound="upper")   the smallest eps >= 0 with delta(eps) <= delta, delta in (0, 1)

* Parameters are keyword arguments of the constructor, named in the one vocabulary of
  docs/vocabulary.md (sigma, sensitivity, sampling_rate, rounds, n, batch_size, ...); numpy arrays
  broadcast with each other and with the argument of ``delta`` / ``epsilon``.
* A float in gives a float out; an array in gives an ndarray of the broadcast shape.
* ``bound`` asks for a side of the certified bracket [lower, upper] of the true value:
  "upper" (the default, and what every accountant provides: never below the truth),
  "lower" (never above it) or "both", which returns the tuple ``(lower, upper)``.
  An accountant that certifies only one side refuses the others with a ValueError naming
  ``bound``; ``bound_sides`` says which sides it gives.
* Bad input raises ValueError (or ParameterTypeError, a TypeError and ValueError, for the wrong
  kind of value) saying ``<name> must be <rule>, got <value>``; never a NaN.

Accountants may take further keyword arguments on ``delta`` / ``epsilon`` (``threads`` for the
OpenMP kernels, ``conversion`` for RDP); the Protocol names only what all of them share. The same
contract as reference text, the numpydoc sections every ``delta`` / ``epsilon`` shares, is written
once in ``accountant_docs`` and completed into each accountant's docstrings by ``@accountant_docs``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol, Union, runtime_checkable

if TYPE_CHECKING:  # the command line's parser reads BOUND_SIDES without importing numpy
    import numpy as np

__all__ = [
    "Accountant",
    "Bound",
    "BOUND_SIDES",
    "BoundResult",
    "LOWER_ONLY",
    "Quantity",
    "UPPER_ONLY",
]

# the quantity a read gives: "delta" (delta at epsilon, ``acc.delta``) or "epsilon"
# (``acc.epsilon``)
Quantity = Literal["delta", "epsilon"]

Bound = Literal["upper", "lower", "both"]
BOUND_SIDES: tuple[Bound, ...] = ("upper", "lower", "both")
UPPER_ONLY: tuple[Bound, ...] = ("upper",)
# an accountant certifying only the lower side (a realizable pair's divergence, by data processing)
LOWER_ONLY: tuple[Bound, ...] = ("lower",)

# float or ndarray for one side; (lower, upper) for bound="both"
BoundResult = Union[float, "np.ndarray", tuple[Any, Any]]


@runtime_checkable
class Accountant(Protocol):
    """delta(epsilon) and epsilon(delta) on the side(s) ``bound`` asks for (see the module docstring)."""

    def delta(self, epsilon: Any, *, bound: Bound = "upper") -> Any:
        """delta(eps) on the side ``bound`` asks for; (lower, upper) for "both"."""
        ...

    def epsilon(self, delta: Any, *, bound: Bound = "upper") -> Any:
        """The smallest eps >= 0 with delta(eps) <= delta, on the side ``bound`` asks for."""
        ...
