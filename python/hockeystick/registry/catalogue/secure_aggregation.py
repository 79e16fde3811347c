"""The registered secure-aggregation accountants (``hockeystick.secagg``): the distributed discrete Gaussian and the
distributed Skellam mechanism, each twice, by whom its number protects against.

``secagg``'s classes answer ``against="server"`` (the server picks the cohorts: no amplification by sampling) or
``against="observer"`` (someone who sees the released sums but not the cohorts: amplified by ``sampling_rate``,
each sampled client adding its own noise share, ``secagg.observer_shares``).
A registry entry answers through the accountant contract alone (``delta`` / ``epsilon`` with ``bound=``), so each
adversary is its own entry: ``distributed_discrete_gaussian`` and ``distributed_skellam`` against the server
(``sampling_rate`` left out: it changes nothing there), ``..._observer`` against an observer.  The rounding rule
is a word, left out of the grids (the default, conditional rounding); the classes take it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ... import secagg
from ..entries import AccountantEntry, Calibratable
from ..per_point import PerPoint
from ..store import register
from .calibratables import ROUNDS, SIGMA


class AgainstOne:
    """A secure-aggregation accountant answering against one adversary (module docstring).

    Parameters
    ----------
    accountant : DistributedDiscreteGaussian or DistributedSkellam
        The accountant.
    against : {"server", "observer"}
        Whom every answer protects against.
    """

    def __init__(self, accountant: Any, against: str) -> None:
        self.accountant, self.against = accountant, against

    def delta(self, epsilon: Any, *, bound: Any = "upper") -> Any:
        """The accountant's ``delta(epsilon, bound=bound, against=...)``."""
        return self.accountant.delta(epsilon, bound=bound, against=self.against)

    def epsilon(self, delta: Any, *, bound: Any = "upper") -> Any:
        """The accountant's ``epsilon(delta, bound=bound, against=...)``."""
        return self.accountant.epsilon(delta, bound=bound, against=self.against)


def _against(cls: type, against: str) -> Callable[..., AgainstOne]:
    """``cls``'s keyword signature, building an ``AgainstOne`` over it (what ``PerPoint.of`` drives point by point)."""

    def build(**params: Any) -> AgainstOne:
        return AgainstOne(cls(**params), against)

    build.__signature__ = inspect.signature(cls)  # type: ignore[attr-defined]
    build.__name__ = build.__qualname__ = f"{cls.__name__}_{against}"
    build.__doc__ = cls.__doc__
    return build


_INTEGERS = frozenset({"dimension", "min_surviving_clients", "rounds"})
_SAMPLING = Calibratable("increasing", 0.0, 1.0)

for _name, _cls, _what in (
    (
        "distributed_discrete_gaussian",
        secagg.DistributedDiscreteGaussian,
        "each client's discrete Gaussian noise (KLS21 Prop. 14 minimised over survivors)",
    ),
    ("distributed_skellam", secagg.DistributedSkellam, "each client's Skellam noise (Agarwal et al. 2021 Thm. 3.5)"),
):
    register(
        AccountantEntry(
            name=_name,
            factory=PerPoint.of(_against(_cls, "server")),
            summary=f"secure aggregation, {_what}, T rounds (clip norm, granularity, dimension, local sigma, "
            "min surviving clients): against the server, who picks the cohorts (no amplification by sampling); "
            "RDP above, the lattice PLD of a realizable shift below",
            integers=_INTEGERS,
            hidden=frozenset({"rounding", "sampling_rate"}),
            max_chunk=1 << 4,
            calibratable={"local_sigma": SIGMA, "rounds": ROUNDS},
        )
    )
    register(
        AccountantEntry(
            name=f"{_name}_observer",
            factory=PerPoint.of(_against(_cls, "observer")),
            summary=f"secure aggregation, {_what}, T rounds, each cohort a Poisson sample at sampling_rate, each "
            "sampled client adding its own noise share: against an observer who does not learn the cohorts (joint "
            "convexity above, the pair of n and n + 1 shares below)",
            integers=_INTEGERS,
            hidden=frozenset({"rounding"}),
            max_chunk=1 << 4,
            calibratable={"local_sigma": SIGMA, "rounds": ROUNDS, "sampling_rate": _SAMPLING},
        )
    )
