"""The question stage: one read per question for every door.

``default_reads`` is the default's chain of reads for rounds of one Poisson-subsampled Gaussian (the
grid, the tail, the tilt and the split chosen from the delta or epsilon asked), which
``SubsampledGaussianPLD`` is a front end over; its tilted reads, and those of compositions of several
kinds of round or of any other mechanism, are front ends of the core's (``tilted_question``,
``tilted_factors``, ``tilted_factors_delta``, ``block_reads``, ``tilted_own_grid``,
``tilted_own_grid_delta``). A composed ``PrivacyLossDistribution`` whose factors
describe the run they discretize (``Factor.source``: rounds of Poisson-subsampled Gaussians, or of
Gaussians) answers ``delta`` and ``epsilon`` through ``reader.RunReader``: its own composition's
bracket intersected with the run's, read where the question puts it.  So the PLD objects and
everything composed from them (the ``PLDAccountant``, the ledger, the compose stages, Flower's
accountant) give the bracket the front door gives for the same run.  The reader is installed, once,
by ``SubsampledGaussianPLD``'s module (the accountants stage, above this one, which it is given as
its front door) when ``hockeystick.pld`` is imported: the PLD object lives in the grid stage, below
every stage whose reads it needs.
"""

from typing import TYPE_CHECKING

from ...base.front_door import front_door
from .reader import RunReader

if TYPE_CHECKING:
    from .described_run import described_segments as described_segments
    from .described_run import of_specs as of_specs

__all__ = ["RunReader"]

# What other packages of hockeystick import from this stage beside RunReader, and the module each
# comes from (``base.front_door``): a run's description, the one builder of the question's inputs
FRONT_DOOR = {
    "described_segments": "described_run",
    "of_specs": "described_run",
}

__getattr__ = front_door(__name__, FRONT_DOOR, globals())
