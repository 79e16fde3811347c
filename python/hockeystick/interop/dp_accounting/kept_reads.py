"""The answers an accountant gave for its composition as it stands, kept with the warnings each raised.

``get_epsilon(d)`` answers with the upper end of ``get_epsilon_bracket(d)``, and dp_accounting's
callers (``calibrate_dp_mechanism``, a training loop logging both) ask the same question of an
unchanged composition more than once: the read, a composition and a search that can take seconds,
is computed once per question and composition.  A kept answer is given back with the warnings the
read raised, raised again (an ``AccuracyNotMetWarning`` says the same thing of the same bracket
every time it is given), pointing as the read's own do (``base.warning_site``: the first frame
outside hockeystick) and passing through the caller's warning filters as they stand then.  The
owner empties the store whenever its composition changes.

The warnings are recorded under ``warnings.catch_warnings``, which swaps the process's filters: two
such swaps interleaved by threads would leave the inner one's filters in place once both are done.
One read records at a time (``RECORDING``); a read asked while another thread records is computed
as a plain read, its warnings raised as they come, and not kept.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from ...base.warning_site import outside_stacklevel

__all__: list[str] = []  # its store serves the accountant of this package (pld_accountant)

Answer = TypeVar("Answer")

# the questions kept: the last few (a loop over deltas keeps no more); one suffices for a question
# asked again at once
KEPT = 16

# held while a read records its warnings (module docstring)
RECORDING = threading.Lock()


def _raise_again(caught: list[warnings.WarningMessage]) -> None:
    """Each warning of ``caught`` raised again, at the first frame outside hockeystick (the stack
    walked only where there is one: most reads raise none)."""
    if not caught:
        return
    level = outside_stacklevel()
    for record in caught:
        warnings.warn(record.message, record.category, stacklevel=level)


class KeptReads(Generic[Answer]):
    """Answers by question, each with the warnings its read raised (module docstring).

    Examples
    --------
    >>> from hockeystick.interop.dp_accounting.kept_reads import KeptReads
    >>> kept: KeptReads[float] = KeptReads()
    >>> kept.read(("epsilon", 1e-5), lambda: 1.5), kept.read(("epsilon", 1e-5), lambda: 2.0)
    (1.5, 1.5)
    >>> kept.clear()
    >>> kept.read(("epsilon", 1e-5), lambda: 2.0)
    2.0
    """

    def __init__(self) -> None:
        self._kept: dict[Hashable, tuple[Answer, list[warnings.WarningMessage]]] = {}

    def clear(self) -> None:
        """Forget every answer (the composition changed)."""
        self._kept.clear()

    def read(self, question: Hashable, compute: Callable[[], Answer]) -> Answer:
        """The answer to ``question``: kept, or ``compute()`` kept; its warnings raised either way.

        Parameters
        ----------
        question : hashable
            What is asked (the quantity and its argument); equal questions share one answer.
        compute : callable
            Returns the answer; called when ``question`` is not kept.  An exception it raises is
            raised (after the warnings raised before it) and nothing is kept; nor is an answer
            computed while another read records (``RECORDING``).

        Returns
        -------
        object
            ``compute()``'s answer to ``question``.
        """
        kept = self._kept.get(question)
        if kept is not None:
            _raise_again(kept[1])
            return kept[0]
        if not RECORDING.acquire(blocking=False):
            return compute()
        caught: list[warnings.WarningMessage] = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                # every warning of the read recorded, to be raised again each time it is given
                warnings.simplefilter("always")
                answer = compute()
        finally:
            RECORDING.release()
            _raise_again(caught)
        if len(self._kept) >= KEPT:
            del self._kept[next(iter(self._kept))]
        self._kept[question] = (answer, caught)
        return answer
