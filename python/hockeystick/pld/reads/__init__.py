"""What a composed PLD answers beyond delta(eps) and eps(delta) on its grid.

``epsilon_width`` (the eps bracket a delta bracket certifies), ``affinity_ceiling`` (delta near 1's
lower side; the complement's bracket on 1 - delta is the core's, pld/reads/complement.hpp, read by
``refine.near_one``), ``along_run`` (the bracket after every checkpoint of one run).
"""

from typing import TYPE_CHECKING

from ...base.front_door import front_door

if TYPE_CHECKING:
    from .along_run import MAX_CHECKPOINTS as MAX_CHECKPOINTS
    from .along_run import CurveAlongRun as CurveAlongRun
    from .along_run import checkpoints as checkpoints
    from .max_of_outputs import max_of_outputs_epsilon as max_of_outputs_epsilon

# What other packages of hockeystick import from this stage, and the module each comes from: its
# modules' paths are the stage's own (tests/test_layers.py refuses them outside pld/), and a name
# loads its module on first use.  These names are the packages' seam, not the library's public names
# (``hockeystick.pld``'s).
FRONT_DOOR = {
    "CurveAlongRun": "along_run",
    "MAX_CHECKPOINTS": "along_run",
    "checkpoints": "along_run",
    "max_of_outputs_epsilon": "max_of_outputs",
}

__getattr__ = front_door(__name__, FRONT_DOOR, globals())
