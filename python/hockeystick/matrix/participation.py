"""Participation schemas: which sets of rounds one user's data may enter (Choquette-Choo et al.
2023a, "Multi-epoch matrix factorization mechanisms for private machine learning", ICML, Sec. 2; min
separation: Choquette-Choo et al. 2023b, "(Amplified) banded matrix factorization").

Rounds are numbered 0..n-1.  A participation pattern is the set of rounds a user contributes to,
each contribution of L2 norm at most 1 (in units of the clip norm); the other users' contributions
are the same in two neighbouring streams (add or remove one user: the stream changes by the user's
own contributions).

* ``EveryRound()``: every user may take part in every round (k = n, separation 1);
* ``FixedEpochs(separation=b, epochs=k)``: rounds s, s + b, s + 2b, ... for one offset s in [0, b),
  at most k of them (all that fit in n rounds when ``epochs`` is None): the user's batch in each
  epoch of b rounds;
* ``MinSeparation(separation=b, max_participations=k)``: any rounds at least b apart, at most k of
  them (as many as fit when None): a user who took part in round t takes no part in rounds
  t+1..t+b-1.

Fixed epochs are min-separation patterns with the same b and k, so the min-separation sensitivity
bounds the fixed-epoch one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..base.validation import count, flag

__all__ = ["Participation", "EveryRound", "FixedEpochs", "MinSeparation"]


@dataclass(frozen=True)
class Participation:
    """A participation schema: the rounds one user's data may enter, at least (or exactly) b apart, at most k.

    Rounds are numbered 0..n-1; a pattern is the set of rounds a user contributes to, each
    contribution of L2 norm at most 1 in units of the clip norm. Build one with ``EveryRound``,
    ``FixedEpochs`` or ``MinSeparation``.

    Parameters
    ----------
    separation : int
        b, a whole number >= 1: exactly b between a user's rounds for fixed epochs, at least b
        otherwise.
    limit : int or None
        k, the most participations, a whole number >= 1; None: as many as fit.
    fixed : bool
        True: the rounds s, s + b, s + 2b, ... for one offset s (fixed epochs); False: any rounds at
        least b apart (min separation).

    Raises
    ------
    ValueError
        ``separation`` or ``limit`` not a whole number >= 1.
    ParameterTypeError
        ``separation`` or ``limit`` a string, bool or None (``limit`` may be None); ``fixed`` not a
        bool.

    References
    ----------
    Choquette-Choo et al. 2023a, Section 2 (fixed epochs); Choquette-Choo et al. 2023b (min
    separation).
    """

    separation: int
    limit: int | None
    fixed: bool  # True: rounds s + j b exactly (fixed epochs); False: any rounds at least b apart

    def __post_init__(self) -> None:
        object.__setattr__(self, "separation", count(self.separation, "separation"))
        if self.limit is not None:
            object.__setattr__(self, "limit", count(self.limit, "limit"))
        object.__setattr__(self, "fixed", flag(self.fixed, "fixed"))

    def participations(self, rounds: int) -> int:
        """Most rounds one pattern holds over ``rounds`` rounds, k' = min(limit, ceil(rounds / separation)).

        Parameters
        ----------
        rounds : int
            The number of rounds n, >= 1.

        Returns
        -------
        int
            k'.
        """
        fit = -(-rounds // self.separation)
        return fit if self.limit is None else min(self.limit, fit)

    def fixed_patterns(self, rounds: int) -> list[np.ndarray]:
        """Fixed-epoch patterns {s + j b : j < k', s + j b < rounds}, one per offset s < min(b, rounds).

        Parameters
        ----------
        rounds : int
            The number of rounds n, >= 1.

        Returns
        -------
        list of numpy.ndarray
            The rounds of each pattern, in increasing order.
        """
        k = self.participations(rounds)
        b = self.separation
        return [np.arange(s, rounds, b)[:k] for s in range(min(b, rounds))]


def EveryRound() -> Participation:  # noqa: N802 - a schema's name, read like a class
    """Participation schema in which every user may take part in every round (separation 1, no cap).

    Returns
    -------
    Participation
        ``Participation(1, None, fixed=False)``.

    Examples
    --------
    >>> from hockeystick.matrix import EveryRound
    >>> EveryRound()
    Participation(separation=1, limit=None, fixed=False)
    """
    return Participation(1, None, fixed=False)


def FixedEpochs(separation: int, epochs: int | None = None) -> Participation:  # noqa: N802
    """Participation schema of fixed epochs: once per epoch of ``separation`` rounds at a fixed offset.

    A user takes part in rounds s, s + b, s + 2b, ... for one offset s in [0, b), at most ``epochs``
    of them: its batch in each epoch of b rounds. Every such pattern is also a min-separation
    pattern with the same b and k, so the min-separation sensitivity bounds the fixed-epoch one.

    Parameters
    ----------
    separation : int
        b, the epoch length in rounds, a whole number >= 1.
    epochs : int, optional
        k, the most epochs, a whole number >= 1; None (default): every epoch that fits in the
        rounds.

    Returns
    -------
    Participation
        ``Participation(separation, epochs, fixed=True)``.

    Raises
    ------
    ValueError
        ``separation`` or ``epochs`` not a whole number >= 1.
    ParameterTypeError
        ``separation`` a string, bool or None; ``epochs`` a string or bool.

    References
    ----------
    Choquette-Choo et al. 2023a, Section 2.

    Examples
    --------
    >>> from hockeystick.matrix import FixedEpochs
    >>> FixedEpochs(4, epochs=2).fixed_patterns(10)
    [array([0, 4]), array([1, 5]), array([2, 6]), array([3, 7])]
    """
    return Participation(
        count(separation, "separation"), None if epochs is None else count(epochs, "epochs"), True
    )


def MinSeparation(separation: int, max_participations: int | None = None) -> Participation:  # noqa: N802
    """Participation schema of min separation: any rounds at least ``separation`` apart, at most k of them.

    A user who took part in round t takes no part in rounds t + 1, ..., t + b - 1.

    Parameters
    ----------
    separation : int
        b, the least gap between a user's rounds, a whole number >= 1.
    max_participations : int, optional
        k, the most participations, a whole number >= 1; None (default): as many as fit.

    Returns
    -------
    Participation
        ``Participation(separation, max_participations, fixed=False)``.

    Raises
    ------
    ValueError
        ``separation`` or ``max_participations`` not a whole number >= 1.
    ParameterTypeError
        ``separation`` a string, bool or None; ``max_participations`` a string or bool.

    References
    ----------
    Choquette-Choo et al. 2023b.

    Examples
    --------
    >>> from hockeystick.matrix import MinSeparation
    >>> MinSeparation(4).participations(10)
    3
    """
    limit = None if max_participations is None else count(max_participations, "max_participations")
    return Participation(count(separation, "separation"), limit, False)
