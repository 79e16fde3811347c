"""Accountants whose parameters must be scalars (per-round schedules), driven over arrays of points."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..base import validation as _validation
from ..base.accountant import Bound, Quantity
from ..base.accountant_docs import accountant_docs


@accountant_docs()  # completes delta / epsilon docstrings with the contract's sections
class PerPoint:
    """An accountant whose parameters must be scalars (a per-round schedule), over arrays of points.

    ``PerPoint.of(cls)(**params)`` broadcasts ``params``, builds one ``cls`` per distinct point and
    evaluates ``delta`` / ``epsilon`` there, so sweeps and calibration can drive it like any other
    accountant.  One accountant per point: meant for short chunks (``max_chunk``).  The
    constructor's first argument ``cls`` is the scalar accountant class (a callable of keyword
    parameters).

    Parameters
    ----------
    params : mapping of str to array_like
        The keyword parameters of ``cls``; those not None broadcast with each other, and each
        distinct point of them builds one ``cls``; those None are passed to every point as None.

    Raises
    ------
    ValueError
        Parameters that do not broadcast, or whatever ``cls`` refuses at a point.

    See Also
    --------
    AccountantEntry : Whose ``factory`` a ``PerPoint.of(cls)`` can be.
    """

    def __init__(self, cls: Callable[..., Any], params: Mapping[str, Any]) -> None:
        self._cls = cls
        names = [k for k, v in params.items() if v is not None]
        arrays = np.broadcast_arrays(*(np.asarray(params[k]) for k in names)) if names else []
        self._shape = arrays[0].shape if arrays else ()
        self._points: dict[tuple[Any, ...], Any] = {}
        # .item() of a numeric element; an object array's element (a Python int beyond the doubles)
        # as it is, for the accountant's own check to refuse by name
        self._keys = [
            tuple(np.asarray(a.ravel()[i]).item() for a in arrays)
            for i in range(int(np.prod(self._shape)))
        ]
        self._names, self._fixed = names, {k: v for k, v in params.items() if v is None}
        for key in dict.fromkeys(self._keys):
            self._points[key] = cls(**dict(zip(names, key)), **self._fixed)

    @classmethod
    def of(cls, accountant: Callable[..., Any]) -> Callable[..., PerPoint]:
        """A factory with ``accountant``'s keyword signature, building a PerPoint over it.

        Parameters
        ----------
        accountant : callable
            The scalar accountant class.

        Returns
        -------
        callable
            ``build(**params)`` returning ``PerPoint(accountant, params)``, with ``accountant``'s
            signature (so a registry entry reads its parameters).
        """

        @functools.wraps(accountant)
        def build(**params: Any) -> PerPoint:
            return cls(accountant, params)

        build.__signature__ = inspect.signature(accountant)  # type: ignore[attr-defined]
        return build

    def _each(self, method: Quantity, arg: np.ndarray, bound: Bound) -> Any:
        if (
            _validation.bound_side(bound) == "both"
        ):  # the contract's (lower, upper) pair, each side point by point
            return self._each(method, arg, "lower"), self._each(method, arg, "upper")
        shape = np.broadcast_shapes(arg.shape, self._shape)
        flat_x = np.broadcast_to(arg, shape).reshape(-1)
        flat_keys = np.broadcast_to(np.arange(len(self._keys)).reshape(self._shape), shape).reshape(
            -1
        )
        out = np.array(
            [
                getattr(self._points[self._keys[k]], method)(float(v), bound=bound)
                for v, k in zip(flat_x, flat_keys)
            ],
            dtype=np.float64,
        ).reshape(shape)
        return float(out) if shape == () else out

    def delta(self, epsilon: Any, *, bound: Bound = "upper") -> Any:
        """delta(epsilon) of each point's accountant, broadcast over the points and ``epsilon``.

        Each side is the one each point's accountant returns.

        Parameters
        ----------
        epsilon : array_like
            epsilon >= 0 (``inf`` allowed); broadcasts with the points.
        """
        return self._each("delta", _validation.epsilon_values(epsilon), bound)

    def epsilon(self, delta: Any, *, bound: Bound = "upper") -> Any:
        """epsilon(delta) of each point's accountant, broadcast over the points and ``delta``.

        Each side is the one each point's accountant returns.

        Parameters
        ----------
        delta : array_like
            0 < delta < 1; broadcasts with the points.
        """
        return self._each("epsilon", _validation.delta_values(delta), bound)
