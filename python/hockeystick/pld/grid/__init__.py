"""The types every stage of the pipeline passes on: ``pmf`` (``GridPMF``, the grid PMF, and its
hockey-stick curve), ``charged_grid`` (a PMF's masses, round-off charges and charged curve at each
eps), ``pmf_envelope`` (its optimistic suffix maxima), ``atoms`` (``Atoms``, a finite pair's losses
and masses), ``distribution`` (``PrivacyLossDistribution``: factors per neighbouring direction,
composed lazily by the composition the compose stage installs) and ``tail`` (the composition's
default tail).  The C++ core's ``pld/grid`` holds the same types (the grid PMF, its cells, its
connect-the-dots sides).
"""

from typing import TYPE_CHECKING

from ...base.front_door import front_door

if TYPE_CHECKING:
    from .distribution import Factor as Factor
    from .distribution import PrivacyLossDistribution as PrivacyLossDistribution
    from .distribution import Result as Result
    from .distribution import bound_result as bound_result
    from .pmf import GridPMF as GridPMF
    from .tail import DEFAULT_TAIL as DEFAULT_TAIL

# What other packages of hockeystick import from this stage, and the module each comes from: its
# modules' paths are the stage's own (tests/test_layers.py refuses them outside pld/), and a name
# loads its module on first use.  These names are the packages' seam, not the library's public names
# (``hockeystick.pld``'s).
FRONT_DOOR = {
    "DEFAULT_TAIL": "tail",
    "Factor": "distribution",
    "GridPMF": "pmf",
    "PrivacyLossDistribution": "distribution",
    "Result": "distribution",
    "bound_result": "distribution",
}

__getattr__ = front_door(__name__, FRONT_DOOR, globals())
