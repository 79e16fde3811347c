"""The optional hooks an accountant's factory offers ``calibrate``: each a runtime-checkable protocol.

A factory (an accountant class, or a training run's function) may carry any of three callables as
attributes; ``calibrate`` asks for each by ``isinstance(factory, Protocol)``, and searches without
it where the factory has none:

- ``calibration_start(parameter, epsilon, delta, params)``: an estimate of the parameter meeting
  each target (a central-limit value), where bracketing starts;
- ``calibration_grids(parameter, params)``: coarser grids [(h_k, overrides_k)], the requested one
  last, whose certified answers, extrapolated, move the start on the requested grid;
- ``calibration_directions(parameter, params, delta)``: an evaluator of the upper delta direction by
  direction (a PLD's remove and add) for the target deltas ``delta``, or None.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["CalibrationDirections", "CalibrationGrids", "CalibrationStart"]


@runtime_checkable
class CalibrationStart(Protocol):
    """A factory that estimates, per target, the value of a parameter meeting it (where a search starts)."""

    def calibration_start(
        self,
        parameter: str,
        epsilon: np.ndarray,
        delta: np.ndarray,
        params: Mapping[str, float | np.ndarray],
    ) -> np.ndarray | None:
        """Per target (epsilon, delta), an estimate of ``parameter`` given the other ``params``;
        None for a parameter it does not estimate."""
        ...


@runtime_checkable
class CalibrationGrids(Protocol):
    """A factory whose coarser grids, each certified, move where the search on the requested grid starts."""

    def calibration_grids(
        self, parameter: str, params: Mapping[str, float | np.ndarray]
    ) -> list[tuple[float, dict[str, float]]]:
        """[(h_k, overrides_k)], coarsest first, the requested grid last (overrides {}); [] for none."""
        ...


@runtime_checkable
class CalibrationDirections(Protocol):
    """A factory whose upper delta can be evaluated direction by direction during a search."""

    def calibration_directions(
        self, parameter: str, params: Mapping[str, float | np.ndarray], delta: np.ndarray
    ) -> Any:
        """The evaluator of the directions for ``parameter`` at ``params`` and the target deltas
        ``delta`` (one block of targets), or None where its numbers would not decide the targets as
        the accountant's delta does."""
        ...
