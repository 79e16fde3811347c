"""What an answer of the ledger guarantees: the kind of guarantee, the method, the (epsilon, delta),
and the assumption it rests on, so that no number leaves the ledger without its conditions.

Kinds (``KINDS``):

* ``"certified composition"``: the certified bracket of the composition of the rounds recorded,
  valid when their settings were fixed before the run (they do not depend on released outputs);
* ``"filter"``: the budget (epsilon, delta) fixed before the run holds for the whole run, however
  the settings were chosen, provided every round was admitted by the filter (the ledger refuses the
  others);
* ``"odometer"``: a running epsilon valid at every round at once under fully adaptive settings, at a
  cost over the filter (a union over the Rényi orders and a tail conversion).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..base.outward_text import outward_text

__all__ = ["KINDS", "PrivacyGuarantee"]

# the guarantee (``PrivacyGuarantee.kind``) and what computed it (``PrivacyGuarantee.method``)
Kind = Literal["certified composition", "filter", "odometer"]
Method = Literal["pld", "rdp", "gdp"]
KINDS: tuple[Kind, ...] = ("certified composition", "filter", "odometer")


@dataclass(frozen=True)
class PrivacyGuarantee:
    """One answer of the ledger with what it guarantees.

    Parameters
    ----------
    kind : {"certified composition", "filter", "odometer"}
        Which guarantee (``KINDS``).
    method : {"pld", "rdp", "gdp"}
        What computed it: the certified PLD composition, Rényi DP, or Gaussian DP.
    epsilon : float
        The epsilon guaranteed at ``delta`` (an upper bound on the true epsilon).
    delta : float
        The delta.
    rounds : int
        The rounds recorded when the answer was given.
    assumption : str
        The condition under which it holds, in words.
    epsilon_lower : float or None, optional
        A certified lower bound on the true epsilon where the method gives one (the PLD bracket),
        else None.
    cost : str, optional
        What this guarantee costs beside a fixed schedule's, in words ("" where nothing).

    Examples
    --------
    >>> from hockeystick.ledger import PrivacyGuarantee
    >>> g = PrivacyGuarantee("filter", "rdp", 2.0, 1e-5, 10, "every round admitted by the filter")
    >>> g.kind, g.epsilon
    ('filter', 2.0)
    """

    kind: Kind
    method: Method
    epsilon: float
    delta: float
    rounds: int
    assumption: str
    epsilon_lower: float | None = None
    cost: str = ""

    def __str__(self) -> str:
        """The guarantee in words, its epsilon sides rounded outward (``base.outward_text``)."""
        upper = outward_text(self.epsilon, "upper")
        bracket = (
            f"epsilon in [{outward_text(self.epsilon_lower, 'lower')}, {upper}]"
            if self.epsilon_lower is not None
            else f"epsilon <= {upper}"
        )
        cost = f"; cost: {self.cost}" if self.cost else ""
        return (
            f"{self.kind} ({self.method}) after {self.rounds} rounds: {bracket} at delta = {self.delta:.3g}; "
            f"holds if {self.assumption}{cost}"
        )
