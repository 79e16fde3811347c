"""The question stage: one read per question for every door.

A composed ``PrivacyLossDistribution`` whose factors describe the run they discretize (``Factor.source``: rounds of
Poisson-subsampled Gaussians, or of Gaussians) answers ``delta`` and ``epsilon`` through ``reader.RunReader``: its own
composition's bracket intersected with the run's, read where the question puts it (the grid, the tail, the tilt and
the split chosen from the delta or epsilon asked).  So the PLD objects and everything composed from them (the
``PLDAccountant``, the ledger, the compose stages, Flower's accountant) give the bracket the front door gives for the
same run.  The reader is installed here, once, when ``hockeystick.pld`` is imported: the PLD object lives in the
compose stage, below every stage whose reads it needs.
"""

from ..grid.distribution import install_question_reader
from .reader import RunReader

install_question_reader(RunReader())

__all__ = ["RunReader"]
