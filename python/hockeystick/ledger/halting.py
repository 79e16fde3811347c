"""What a training loop catches when the next round would pass the budget: ``BudgetExceeded``,
raised before the round is recorded (and before it should run), with the guarantee the run keeps if
it stops there."""

from __future__ import annotations

from .guarantee import PrivacyGuarantee
from .rounds import Round

__all__ = ["BudgetExceeded"]


class BudgetExceeded(RuntimeError):
    """The next round would pass the budget: it was not recorded, and the run should stop before it.

    Parameters
    ----------
    next_round : Round
        The round refused.
    guarantee : PrivacyGuarantee
        What the run recorded so far guarantees (the budget's kind of guarantee).
    reason : str
        Why, in words.

    Examples
    --------
    >>> from hockeystick.ledger import BudgetExceeded, PrivacyGuarantee, Round
    >>> g = PrivacyGuarantee("filter", "rdp", 1.0, 1e-5, 3, "every round admitted")
    >>> str(BudgetExceeded(Round.gaussian(1.0), g, "the filter refuses it"))[:40]
    'stopped before round 4: the filter refus'
    """

    def __init__(self, next_round: Round, guarantee: PrivacyGuarantee, reason: str):
        self.next_round = next_round
        self.guarantee = guarantee
        super().__init__(
            f"stopped before round {guarantee.rounds + 1}: {reason}; the run so far: {guarantee}"
        )
