"""Composition: many rounds' PMFs into one, every truncation and round-off charged.

``fft`` (the C++ FFT composition on scipy.fft, which every ``PrivacyLossDistribution`` of the grid
stage composes with: installed here), ``finite_atoms`` (finite pairs composed exactly, beside a
grid; its pieces in ``atoms_*``), ``tilted`` (the composition under an exponential tilt),
``two_resolution`` (the subsampled Gaussian's lower side at a sampling rate below the grid, from
rounds composed on a finer grid) and ``truncation`` (tails sized to the delta asked).  The types composed (the grid PMF, the finite
atoms, the PLD object) are one stage below, in ``pld.grid``.
"""

from typing import TYPE_CHECKING

from ...base.front_door import front_door
from ...base.moved import forwarding
from ..grid.distribution import install_composition
from . import fft

install_composition(fft)


if TYPE_CHECKING:
    from . import atoms_compose, atoms_delta
    from .atoms_epsilon import epsilon_search as epsilon_search

    # the door's names for attributes whose own names are generic
    delta_of_atoms = atoms_delta.delta
    self_compose_atoms = atoms_compose.self_compose

# What other packages of hockeystick import from this stage, and the module each comes from: its
# modules' paths are the stage's own (tests/test_layers.py refuses them outside pld/), and a name
# loads its module on first use.  These names are the packages' seam, not the library's public names
# (``hockeystick.pld``'s).
FRONT_DOOR = {
    "delta_of_atoms": "atoms_delta:delta",
    "epsilon_search": "atoms_epsilon",
    "self_compose_atoms": "atoms_compose:self_compose",
}

__getattr__ = front_door(__name__, FRONT_DOOR, globals(), forwarding(__name__, globals()))
