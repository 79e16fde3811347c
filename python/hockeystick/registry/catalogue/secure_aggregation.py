"""The registered secure-aggregation accountants (``hockeystick.secagg``): the distributed discrete
Gaussian, the distributed Skellam mechanism, the distributed discrete Laplace and the
Poisson-binomial mechanism, each twice, by whom its number protects against.

``secagg``'s classes answer ``against="server"`` (the server picks the cohorts: no amplification by
sampling) or ``against="observer"`` (someone who sees the released sums but not the cohorts:
amplified by ``sampling_rate``, each sampled client adding its own noise share,
``secagg.observer_shares``). A registry entry answers through the accountant contract alone
(``delta`` / ``epsilon`` with ``bound=``), so each adversary is its own entry:
``distributed_discrete_gaussian``, ``distributed_skellam``, ``distributed_discrete_laplace`` and
``poisson_binomial`` against the server (``sampling_rate`` left out: it changes nothing there),
``..._observer`` against an observer.  The rounding rule is a word, left out of the grids (the
default, conditional rounding); the classes take it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ... import secagg
from ...base.accountant import Bound
from ...base.accountant_docs import accountant_docs
from ...secagg.accountants import Adversary
from ..entries import AccountantEntry, Calibratable
from ..per_point import PerPoint
from ..store import register
from .calibratables import ROUNDS, SIGMA


@accountant_docs()
class AgainstOne:
    """A secure-aggregation accountant answering against one adversary (module docstring).

    Parameters
    ----------
    accountant : DistributedDiscreteGaussian, DistributedSkellam, DistributedDiscreteLaplace or PoissonBinomialMechanism
        The accountant.
    against : {"server", "observer"}
        Whom every answer protects against.
    """

    def __init__(self, accountant: Any, against: Adversary) -> None:
        self.accountant, self.against = accountant, against

    def delta(self, epsilon: Any, *, bound: Bound = "upper") -> Any:
        """The accountant's ``delta(epsilon, bound=bound, against=...)`` against the one adversary."""
        return self.accountant.delta(epsilon, bound=bound, against=self.against)

    def epsilon(self, delta: Any, *, bound: Bound = "upper") -> Any:
        """The accountant's ``epsilon(delta, bound=bound, against=...)`` against the one adversary."""
        return self.accountant.epsilon(delta, bound=bound, against=self.against)


def _against(cls: type, against: Adversary) -> Callable[..., AgainstOne]:
    """``cls``'s keyword signature, building an ``AgainstOne`` over it (what ``PerPoint.of`` drives point by point)."""

    def build(**params: Any) -> AgainstOne:
        return AgainstOne(cls(**params), against)

    build.__signature__ = inspect.signature(cls)  # type: ignore[attr-defined]
    build.__name__ = build.__qualname__ = f"{cls.__name__}_{against}"
    build.__doc__ = cls.__doc__
    return build


def _parameters(cls: type) -> frozenset[str]:
    """The names ``cls`` takes."""
    return frozenset(inspect.signature(cls).parameters)


_INTEGERS = frozenset(
    {"dimension", "min_surviving_clients", "rounds", "trials", "expected_clients"}
)
_SAMPLING = Calibratable("increasing", 0.0, 1.0)
_THETA = Calibratable("increasing", 0.0, 0.5)

_RDP_SIDE = "RDP above, the lattice PLD of a realizable shift below"
for _name, _cls, _what, _sides, _noise in (
    (
        "distributed_discrete_gaussian",
        secagg.DistributedDiscreteGaussian,
        "each client's discrete Gaussian noise (KLS21 Prop. 14 minimised over survivors)",
        _RDP_SIDE,
        ("local_sigma", SIGMA),
    ),
    (
        "distributed_skellam",
        secagg.DistributedSkellam,
        "each client's Skellam noise (Agarwal et al. 2021 Cor. 3.6)",
        _RDP_SIDE,
        ("local_sigma", SIGMA),
    ),
    (
        "distributed_discrete_laplace",
        secagg.DistributedDiscreteLaplace,
        "each client's negative-binomial share of a discrete Laplace (Harrison 2024 Thm. 1; clip norm, granularity, "
        "dimension, scale, expected clients)",
        "randomized response at the round's pure eps above, the lattice PLD of a realizable shift below",
        ("scale", SIGMA),
    ),
    (
        "poisson_binomial",
        secagg.PoissonBinomialMechanism,
        "each client's binomial draws, the sum Poisson-binomial (Chen, Ozgur & Kairouz 2022; trials, theta)",
        "a dominating pair's PLD above, a realized pair's below",
        ("theta", _THETA),
    ),
):
    register(
        AccountantEntry(
            name=_name,
            factory=PerPoint.of(_against(_cls, "server")),
            summary=f"secure aggregation, {_what}, T rounds, min surviving clients: against the server, who picks the "
            f"cohorts (no amplification by sampling); {_sides}",
            integers=_INTEGERS & _parameters(_cls),
            hidden=frozenset({"rounding", "sampling_rate"}) & _parameters(_cls),
            max_chunk=1 << 4,
            calibratable={_noise[0]: _noise[1], "rounds": ROUNDS},
        )
    )
    register(
        AccountantEntry(
            name=f"{_name}_observer",
            factory=PerPoint.of(_against(_cls, "observer")),
            summary=f"secure aggregation, {_what}, T rounds, each cohort a Poisson sample at sampling_rate, each "
            "sampled client adding its own share: against an observer who does not learn the cohorts (joint "
            "convexity above, a realized pair mixed with the client's absence below)",
            integers=_INTEGERS & _parameters(_cls),
            hidden=frozenset({"rounding"}) & _parameters(_cls),
            max_chunk=1 << 4,
            calibratable={_noise[0]: _noise[1], "rounds": ROUNDS, "sampling_rate": _SAMPLING},
        )
    )
