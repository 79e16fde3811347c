"""What a composed PLD answers beyond delta(eps) and eps(delta) on its grid.

``epsilon_width`` (the eps bracket a delta bracket certifies), ``complement`` and ``affinity_ceiling``
(delta near 1, from bounds on 1 - delta), ``along_run`` (the bracket after every checkpoint of one run).
"""

from typing import TYPE_CHECKING

from ...base.front_door import front_door

if TYPE_CHECKING:
    from .along_run import MAX_CHECKPOINTS, CurveAlongRun, checkpoints

# What other packages import from this stage, and the module each comes from: its modules' paths are the
# stage's own (tests/test_layers.py refuses them outside pld/), and a name loads its module on first use.
_DOOR = {
    "CurveAlongRun": "along_run",
    "MAX_CHECKPOINTS": "along_run",
    "checkpoints": "along_run",
}

__all__ = [
    "CurveAlongRun",
    "MAX_CHECKPOINTS",
    "checkpoints",
]

__getattr__ = front_door(__name__, _DOOR, globals())
