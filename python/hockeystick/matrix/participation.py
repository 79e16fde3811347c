"""Participation schemas: which sets of rounds one user's data may enter (Choquette-Choo et al. 2023a, "Multi-epoch
matrix factorization mechanisms for private machine learning", ICML, Sec. 2; min separation: Choquette-Choo et
al. 2023b, "(Amplified) banded matrix factorization").

Rounds are numbered 0..n-1.  A participation pattern is the set of rounds a user contributes to, each
contribution of L2 norm at most 1 (in units of the clip norm); the other users' contributions are the
same in two neighbouring streams (add or remove one user: the stream changes by the user's own
contributions).

* ``EveryRound()``: every user may take part in every round (k = n, separation 1);
* ``FixedEpochs(separation=b, epochs=k)``: rounds s, s + b, s + 2b, ... for one offset s in [0, b), at most
  k of them (all that fit in n rounds when ``epochs`` is None): the user's batch in each epoch of b rounds;
* ``MinSeparation(separation=b, max_participations=k)``: any rounds at least b apart, at most k of them (as
  many as fit when None): a user who took part in round t takes no part in rounds t+1..t+b-1.

Fixed epochs are min-separation patterns with the same b and k, so the min-separation sensitivity bounds
the fixed-epoch one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..base.validation import count, flag

__all__ = ["Participation", "EveryRound", "FixedEpochs", "MinSeparation"]


@dataclass(frozen=True)
class Participation:
    """A schema: ``separation`` b between a user's rounds (exactly b for fixed epochs, at least b otherwise),
    at most ``limit`` participations (None: as many as fit)."""

    separation: int
    limit: int | None
    fixed: bool  # True: rounds s + j b exactly (fixed epochs); False: any rounds at least b apart

    def __post_init__(self) -> None:
        object.__setattr__(self, "separation", count(self.separation, "separation"))
        if self.limit is not None:
            object.__setattr__(self, "limit", count(self.limit, "limit"))
        object.__setattr__(self, "fixed", flag(self.fixed, "fixed"))

    def participations(self, rounds: int) -> int:
        """k' = min(limit, ceil(rounds / separation)): the most rounds one pattern holds."""
        fit = -(-rounds // self.separation)
        return fit if self.limit is None else min(self.limit, fit)

    def fixed_patterns(self, rounds: int) -> list[np.ndarray]:
        """The fixed-epoch patterns {s + j b : j < k', s + j b < rounds}, one per offset s < min(b, rounds)."""
        k = self.participations(rounds)
        b = self.separation
        return [np.arange(s, rounds, b)[:k] for s in range(min(b, rounds))]


def EveryRound() -> Participation:  # noqa: N802 - a schema's name, read like a class
    """Every round: separation 1, no cap."""
    return Participation(1, None, fixed=False)


def FixedEpochs(separation: int, epochs: int | None = None) -> Participation:  # noqa: N802
    """Once per epoch of ``separation`` rounds at a fixed offset, in at most ``epochs`` epochs."""
    return Participation(count(separation, "separation"), None if epochs is None else count(epochs, "epochs"), True)


def MinSeparation(separation: int, max_participations: int | None = None) -> Participation:  # noqa: N802
    """Any rounds at least ``separation`` apart, at most ``max_participations`` of them."""
    limit = None if max_participations is None else count(max_participations, "max_participations")
    return Participation(count(separation, "separation"), limit, False)
