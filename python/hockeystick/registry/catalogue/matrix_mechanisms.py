"""The registered matrix mechanisms: DP-FTRL with a named strategy, the strategy families (BLT,
banded) whose vectors are bound by ``configure``, and banded matrix factorization amplified by
cyclic Poisson sampling."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import matrix
from ...base import validation as _validation
from ...base.accountant import Bound, Quantity
from ...base.accountant_docs import accountant_docs
from ...base.validation import scalar_or_array
from ..entries import AccountantEntry, Calibratable
from ..families import vector
from ..store import register
from .calibratables import SIGMA

for _strategy, _what in (
    ("tree", "one binary tree"),
    ("tree_restart", "a tree restarted every min_separation rounds"),
):
    register(
        AccountantEntry(
            name=f"dp_ftrl_{_strategy}",
            factory=functools.partial(matrix.DPFTRL, strategy=_strategy),
            # a named strategy is lower triangular; a random participation scheme (and its
            # sampling_rate) is one point, answered with labelled sides by the command line's
            # --participation, not a grid's axis
            hidden=frozenset(
                {"strategy", "participation", "adaptive_inputs", "sampling_rate", "sampling"}
            ),
            max_chunk=1 << 12,
            summary=f"DP-FTRL, {_what}, clients at least min_separation rounds apart (at most max_participations "
            "times): exact Gaussian at the certified L2 sensitivity (exact or a proved upper bound)",
            integers=frozenset({"rounds", "min_separation", "max_participations"}),
            calibratable={"noise_multiplier": SIGMA},
        )
    )


class _StrategyFamily:
    """The factory of a matrix accountant ``cls`` whose strategy is ``make(**vectors)``: ``cls``'s
    keywords but ``strategy``, plus ``make``'s arguments (the family's vector options);
    ``bind(**vectors)`` is the factory of one configured accountant, its strategy built (and
    checked) once."""

    def __init__(
        self, family: str, cls: Callable[..., Any], make: Callable[..., Any], strategy: Any = None
    ) -> None:
        self.family, self.cls, self.make, self.strategy = family, cls, make, strategy
        self.vectors = tuple(inspect.signature(make).parameters)
        kept = [p for p in inspect.signature(cls).parameters.values() if p.name != "strategy"]
        added = (
            []
            if strategy is not None
            else [inspect.Parameter(v, inspect.Parameter.KEYWORD_ONLY) for v in self.vectors]
        )
        self.__signature__ = inspect.Signature(kept + added)

    def bind(self, **vectors: Any) -> _StrategyFamily:
        return _StrategyFamily(self.family, self.cls, self.make, self.make(**vectors))

    def __call__(self, **params: Any) -> Any:
        strategy = self.strategy
        if strategy is None:
            missing = [v for v in self.vectors if v not in params]
            if missing:
                raise ValueError(
                    f"accountant {self.family!r} is a family: its strategy's {' and '.join(missing)} (one list of "
                    f"numbers each, not a grid axis) name the accountant, registry.configure({self.family!r}, "
                    f"{', '.join(v + '=[...]' for v in self.vectors)}) in Python (a name such as "
                    f"'{self.family}[{self.vectors[0]}=0.9,0.5;...]'), -p {self.vectors[0]}=0.9,0.5 on the command line"
                )
            strategy = self.make(**{v: vector(params.pop(v), v) for v in self.vectors})
        return self.cls(**params, strategy=strategy)


@accountant_docs()
class _AmplifiedPerRun:
    """AmplifiedBandedMF at points whose rounds or min_separation (single values in the class) vary:
    one accountant per distinct (rounds, min_separation), at its points' noise multipliers and
    sampling rates."""

    _RUN = ("rounds", "min_separation")
    _BROADCAST = ("noise_multiplier", "sampling_rate")

    def __init__(self, params: dict[str, Any]) -> None:
        self._params = params

    def _sides(self, method: Quantity, argument: np.ndarray, bound: Bound) -> Any:
        arrays, flat, x, shape = self._flat_points(argument)
        runs = np.stack([flat[k] if k in flat else np.zeros(x.size) for k in self._RUN], axis=1)
        keys, which = np.unique(runs, axis=0, return_inverse=True)
        sides = np.empty((2 if bound == "both" else 1, x.size))
        fixed = {k: v for k, v in self._params.items() if k not in arrays}
        for index, key in enumerate(keys):
            at = np.flatnonzero(which.reshape(-1) == index)
            run: dict[str, Any] = {
                k: float(v) for k, v in zip(self._RUN, key) if k in flat
            }  # count() refuses 2.5
            points: dict[str, Any] = {k: flat[k][at] for k in self._BROADCAST if k in flat}
            acc = matrix.AmplifiedBandedMF(**fixed, **run, **points)
            sides[:, at] = np.asarray(
                getattr(acc, method)(x[at], bound=bound), dtype=float
            ).reshape(-1, at.size)
        out = [scalar_or_array(side.reshape(shape)) for side in sides]
        return tuple(out) if bound == "both" else out[0]

    def _flat_points(
        self, argument: np.ndarray
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], np.ndarray, tuple[int, ...]]:
        """The array parameters given, each and ``argument`` broadcast together and flattened, and their shape."""
        arrays = {
            k: np.asarray(self._params[k])
            for k in self._RUN + self._BROADCAST
            if self._params.get(k) is not None
        }
        shape = np.broadcast_shapes(argument.shape, *(a.shape for a in arrays.values()))
        flat = {k: np.broadcast_to(a, shape).reshape(-1) for k, a in arrays.items()}
        return arrays, flat, np.broadcast_to(argument, shape).reshape(-1), shape

    def delta(self, epsilon: Any, *, bound: Bound = "upper") -> Any:
        """``AmplifiedBandedMF.delta`` at each point, one accountant per distinct run."""
        return self._sides("delta", _validation.epsilon_values(epsilon), bound)

    def epsilon(self, delta: Any, *, bound: Bound = "upper") -> Any:
        """``AmplifiedBandedMF.epsilon`` at each point, one accountant per distinct run."""
        return self._sides("epsilon", _validation.delta_values(delta), bound)


def _amplified_banded_mf(**params: Any) -> matrix.AmplifiedBandedMF | _AmplifiedPerRun:
    """AmplifiedBandedMF: one accountant where rounds and min_separation are single values (the
    noise multiplier and sampling rate broadcast), one per distinct pair of them otherwise (a grid
    over them)."""
    if all(np.ndim(params.get(k, 0)) == 0 for k in _AmplifiedPerRun._RUN):
        return matrix.AmplifiedBandedMF(**params)
    return _AmplifiedPerRun(params)


_amplified_banded_mf.__signature__ = inspect.signature(matrix.AmplifiedBandedMF)  # type: ignore[attr-defined]

_DPFTRL_CERTIFIED = (
    "clients at least min_separation rounds apart (at most max_participations times): exact Gaussian at the "
    "certified L2 sensitivity (exact or a proved upper bound)"
)
for _family, _make, _what in (
    (
        "dp_ftrl_blt",
        matrix.BLT,
        "a BLT strategy (buffer_decay theta, output_scale omega; Dvijotham et al. 2024)",
    ),
    (
        "dp_ftrl_banded",
        matrix.Banded,
        "a banded Toeplitz strategy (coefficients: C's first column; McKenna 2025)",
    ),
):
    register(
        AccountantEntry(
            name=_family,
            factory=_StrategyFamily(_family, matrix.DPFTRL, _make),
            # BLT and banded C are lower triangular; a random scheme is the command line's
            # --participation
            hidden=frozenset({"participation", "adaptive_inputs", "sampling_rate", "sampling"}),
            vectors=frozenset(inspect.signature(_make).parameters),
            max_chunk=1 << 12,
            summary=f"DP-FTRL, {_what}, {_DPFTRL_CERTIFIED}",
            integers=frozenset({"rounds", "min_separation", "max_participations"}),
            calibratable={"noise_multiplier": SIGMA},
        )
    )
register(
    AccountantEntry(
        name="amplified_banded_mf",
        factory=_StrategyFamily("amplified_banded_mf", _amplified_banded_mf, matrix.Banded),
        vectors=frozenset({"coefficients"}),
        max_chunk=1 << 10,
        summary="banded MF with cyclic Poisson sampling (coefficients: C's first column; min_separation groups, "
        "each record of the round's group taken with probability sampling_rate; Choquette-Choo et al. 2023): "
        "ceil(rounds / min_separation) subsampled Gaussian rounds at the largest column norm, PLD, certified upper "
        "bound; the lower side from a realizable pair",
        integers=frozenset({"rounds", "min_separation"}),
        calibratable={
            "noise_multiplier": SIGMA,
            "sampling_rate": Calibratable("increasing", 0.0, 1.0),
        },
    )
)
